"""Bad calls of the library: wrong types, wrong values, malformed numbers, at every entry point.

Each must raise a :class:`~polyregions.errors.PolyregionsError` (most an ``InvalidInputError``) whose message
says what was expected, never a ``TypeError``, ``AttributeError``, ``ValueError`` or ``RecursionError`` from
deep inside.
"""

from __future__ import annotations

import json
import os
from typing import Any, Callable

import numpy as np

__all__ = ["LIBRARY_CASES"]


def _net():
    import polyregions as pr
    return pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])


def _box():
    import polyregions as pr
    return pr.box([-1, -1], [1, 1])


def _complex():
    import polyregions as pr
    return pr.enumerate_regions(_net(), _box())


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = [value]
    return value


def _write(name: str, content: Any) -> str:
    with open(name, "w", encoding="utf-8") as handle:
        handle.write(content if isinstance(content, str) else json.dumps(content))
    return name


def _fifo(name: str) -> str:
    os.mkfifo(name)
    return name


def _directory(name: str) -> str:
    os.mkdir(name)
    return name


def _link(name: str, target: str) -> str:
    os.symlink(target, name)
    return name


def _npy(name: str, array: np.ndarray) -> str:
    np.save(name, array)  # object arrays are pickled: the reader must refuse them
    return name


def _truncated_npy(name: str) -> str:
    np.save(name, np.zeros((100, 2)))
    with open(name, "r+b") as handle:
        handle.truncate(200)
    return name


def _npz(name: str, **arrays: np.ndarray) -> str:
    np.savez(name, **arrays)
    return name


_BAD_NUMBERS: list[tuple[str, Any]] = [
    ("None", None), ("boolean", True), ("list", [1]), ("dict", {}), ("bytes", b"1"), ("complex", 1j),
    ("nan", float("nan")), ("inf", float("inf")), ("arabic-indic", "\u0661"), ("em space", "\u2003 1"),
    ("10001 digits", "1" * 10001), ("exponent", "1e-400000000"), ("object", object()), ("nested 5000", "x"),
]


def _cases() -> list[tuple[str, Callable[[], Any], tuple[str, ...]]]:
    import polyregions as pr
    from polyregions.experiments.architectures import parse_activation
    from polyregions.experiments.counterexamples import search, simple_values
    from polyregions.experiments.sweeps import parse_seeds, sweep, sweep_tasks
    from polyregions.networks.io import load_npz

    cases: list[tuple[str, Callable[[], Any], tuple[str, ...]]] = []

    def add(name: str, call: Callable[[], Any], *shown: str) -> None:
        cases.append((name, call, shown))

    # numbers
    for label, value in _BAD_NUMBERS:
        value = _nested(5000) if label == "nested 5000" else value
        add(f"rational {label}", lambda v=value: pr.rational(v))
        add(f"rational_vector of {label}", lambda v=value: pr.rational_vector([0, v]))
    from decimal import Decimal
    add("rational Decimal 1e999999999", lambda: pr.rational(Decimal("1e999999999")))
    add("rational Decimal NaN", lambda: pr.rational(Decimal("NaN")))
    add("rational_vector None", lambda: pr.rational_vector(None))
    add("rational_vector text", lambda: pr.rational_vector("123"))
    add("rational_vector 2-D array", lambda: pr.rational_vector(np.zeros((2, 2))))
    add("rational_vector wrong length", lambda: pr.rational_vector([1, 2], length=3))
    add("rational_vector a generator", lambda: pr.rational_vector(x for x in [1, 2]))
    add("rational_matrix None", lambda: pr.rational_matrix(None))
    add("rational_matrix ragged", lambda: pr.rational_matrix([[1, 2], [3]]))
    add("rational_matrix 3-D array", lambda: pr.rational_matrix(np.zeros((2, 2, 2))))
    add("rational_matrix of text rows", lambda: pr.rational_matrix(["12", "34"]))
    add("rational_matrix nested 5000", lambda: pr.rational_matrix(_nested(5000)))

    # activations
    add("activation_from_json kind a list", lambda: pr.networks.activation_from_json({"kind": ["relu"]}))
    add("activation_from_json kind a dict", lambda: pr.networks.activation_from_json({"kind": {"a": 1}}))
    add("activation_from_json None", lambda: pr.networks.activation_from_json(None))
    add("activation_from_json a list", lambda: pr.networks.activation_from_json(["relu"]))
    add("activation_from_json nested 5000", lambda: pr.networks.activation_from_json(_nested(5000)))
    add("activation_from_json empty breakpoints",
        lambda: pr.networks.activation_from_json({"kind": "piecewise_linear", "breakpoints": [], "slopes": [1],
                                                  "offset": 0}))
    add("piecewise_linear affine", lambda: pr.piecewise_linear([], [2], 3))
    add("piecewise_linear None", lambda: pr.piecewise_linear(None, [1]))
    add("piecewise_linear slopes None", lambda: pr.piecewise_linear([0], None))
    add("piecewise_linear decreasing", lambda: pr.piecewise_linear([1, 0], [0, 1, 0]))
    add("leaky_relu None", lambda: pr.leaky_relu(None))
    add("leaky_relu 1", lambda: pr.leaky_relu(1))
    add("leaky_relu arabic-indic", lambda: pr.leaky_relu("\u0661/\u0662"))
    add("hardtanh reversed", lambda: pr.hardtanh(min_val=1, max_val=-1))
    add("hardtanh text", lambda: pr.hardtanh(min_val="low"))
    add("Activation unknown name", lambda: pr.Activation("tanh", (), (1,), 0))
    add("Activation name a list", lambda: pr.Activation(["relu"], (0,), (0, 1), 0))
    add("Activation affine", lambda: pr.Activation("piecewise_linear", (), (2,), 0))
    add("Activation breakpoints None", lambda: pr.Activation("relu", None, (0, 1), 0))
    add("relu piece of text", lambda: pr.relu().piece("x"))
    add("relu piece_map out of range", lambda: pr.relu().piece_map(5))
    add("relu piece_map huge", lambda: pr.relu().piece_map(10 ** 5000))
    add("relu of None", lambda: pr.relu()(None))

    # networks
    layer = ([[1, 0]], [0], "relu")
    add("from_layers layers None", lambda: pr.Network.from_layers(2, None))
    add("from_layers layers a number", lambda: pr.Network.from_layers(2, 3))
    add("from_layers layers a dict", lambda: pr.Network.from_layers(2, {"a": layer}))
    add("from_layers layers text", lambda: pr.Network.from_layers(2, "relu"))
    add("from_layers layers empty", lambda: pr.Network.from_layers(2, []))
    add("from_layers input_dim None", lambda: pr.Network.from_layers(None, [layer]))
    add("from_layers input_dim text", lambda: pr.Network.from_layers("2", [layer]))
    add("from_layers input_dim float", lambda: pr.Network.from_layers(2.0, [layer]))
    add("from_layers input_dim zero", lambda: pr.Network.from_layers(0, [layer]))
    add("from_layers input_dim boolean", lambda: pr.Network.from_layers(True, [layer]))
    add("from_layers layer None", lambda: pr.Network.from_layers(2, [None]))
    add("from_layers layer a pair", lambda: pr.Network.from_layers(2, [([[1, 0]], [0])]))
    add("from_layers weight None", lambda: pr.Network.from_layers(2, [(None, [0], "relu")]))
    add("from_layers weight a dict", lambda: pr.Network.from_layers(2, [({"a": 1}, [0], "relu")]))
    add("from_layers weight columns", lambda: pr.Network.from_layers(2, [([[1]], [0], "relu")]))
    add("from_layers weight nested 5000", lambda: pr.Network.from_layers(2, [(_nested(5000), [0], "relu")]))
    add("from_layers bias None", lambda: pr.Network.from_layers(2, [([[1, 0]], None, "relu")]))
    add("from_layers bias long", lambda: pr.Network.from_layers(2, [([[1, 0]], [0, 0], "relu")]))
    add("from_layers activation None", lambda: pr.Network.from_layers(2, [([[1, 0]], [0], None)]))
    add("from_layers activation tanh", lambda: pr.Network.from_layers(2, [([[1, 0]], [0], "tanh")]))
    add("from_layers weight arabic-indic", lambda: pr.Network.from_layers(2, [([["\u0661", 0]], [0], "relu")]))
    add("Network layers None", lambda: pr.Network(2, None))
    add("Network layers of tuples", lambda: pr.Network(2, (layer,)))
    add("Network input_dim text", lambda: pr.Network("2", ()))
    add("Layer weight None", lambda: pr.Layer(None, [0], "relu"))
    add("Layer weight empty", lambda: pr.Layer([], [], "relu"))
    add("network call with None", lambda: _net()(None))
    add("network call with a short point", lambda: _net()([1]))
    add("network call with text", lambda: _net()(["a", "b"]))
    add("network affine_map None", lambda: _net().affine_map(None))
    add("network affine_map short", lambda: _net().affine_map([0]))
    add("network affine_map out of range", lambda: _net().affine_map([0, 5]))
    add("network affine_map text", lambda: _net().affine_map("01"))
    add("network forward_with_pattern None", lambda: _net().forward_with_pattern([0, 0], None))
    add("network restrict None", lambda: _net().restrict(None, None))
    add("network restrict no directions", lambda: _net().restrict([0, 0], []))
    add("network_from_json None", lambda: pr.network_from_json(None))
    add("network_from_json a list", lambda: pr.network_from_json([]))
    add("network_from_json nested 5000", lambda: pr.network_from_json({"format": "polyregions.network/1",
                                                                       "input_dim": 1, "layers": _nested(5000)}))
    add("network_from_arrays None", lambda: pr.network_from_arrays(None, None))
    add("network_from_arrays a number", lambda: pr.network_from_arrays(3, [0]))
    add("network_from_arrays mismatched", lambda: pr.network_from_arrays([np.eye(2)], []))
    add("network_from_arrays 3-D", lambda: pr.network_from_arrays([np.zeros((1, 1, 1))], [np.zeros(1)]))
    add("network_from_arrays activations a number", lambda: pr.network_from_arrays([np.eye(1)], [[0]], 3))
    add("network_from_arrays string arrays", lambda: pr.network_from_arrays([np.array([["x"]])], [[0]]))
    add("load_network None", lambda: pr.load_network(None))
    add("load_network a number", lambda: pr.load_network(3))
    add("load_network bytes", lambda: pr.load_network(b"net.json"))
    add("load_network missing", lambda: pr.load_network("missing.json"))
    add("load_network directory", lambda: pr.load_network("."))
    add("load_network FIFO", lambda: pr.load_network(_fifo("pipe.json")))
    add("load_network /dev/zero", lambda: pr.load_network("/dev/zero"))
    add("load_network nested", lambda: pr.load_network(_write("deep.json", "[" * 100_000 + "]" * 100_000)))
    add("load_network huge integer", lambda: pr.load_network(_write("big.json", "1" * 10001)))
    add("load_network empty path", lambda: pr.load_network(""))
    add("load_npz None", lambda: load_npz(None))
    add("load_npz missing", lambda: load_npz("missing.npz"))
    add("load_npz string arrays", lambda: _load_string_npz())
    add("network_from_torch None", lambda: pr.network_from_torch(None))
    add("network_from_torch a list", lambda: pr.network_from_torch([1, 2]))
    add("network_from_torch ModuleList", lambda: _torch_call("ModuleList"))
    add("network_from_torch ModuleDict", lambda: _torch_call("ModuleDict"))
    add("network_from_torch Conv1d", lambda: _torch_call("Conv1d"))
    add("network_from_torch input_dim text", lambda: _torch_call("input_dim"))
    add("network_from_torch forward raises", lambda: _torch_call("forward"))

    # domains
    add("box None", lambda: pr.box(None, None))
    add("box text", lambda: pr.box("0", "1"))
    add("box reversed", lambda: pr.box([1], [0]))
    add("box flat", lambda: pr.box([0], [0]))
    add("box empty", lambda: pr.box([], []))
    add("box lengths differ", lambda: pr.box([0], [1, 1]))
    add("box arabic-indic", lambda: pr.box(["\u0660"], ["\u0661"]))
    add("box 10001 digits", lambda: pr.box([0], ["1" * 10001]))
    add("space None", lambda: pr.space(None))
    add("space zero", lambda: pr.space(0))
    add("space text", lambda: pr.space("2"))
    add("space huge", lambda: pr.space(10 ** 5000))
    add("space of 5000 dimensions", lambda: pr.space(5000))
    add("box of 5000 dimensions", lambda: pr.box([0] * 5000, [1] * 5000))
    add("polytope_domain of 5000 dimensions", lambda: pr.polytope_domain([[1] * 5000], [1]))
    add("segment None", lambda: pr.segment(None, None))
    add("segment one point", lambda: pr.segment([0], [0]))
    add("segment lengths differ", lambda: pr.segment([0], [0, 1]))
    add("slice_domain None", lambda: pr.slice_domain(None, None, None, None))
    add("slice_domain dependent", lambda: pr.slice_domain([0, 0], [[1, 1], [2, 2]], [0, 0], [1, 1]))
    add("slice_domain bounds short", lambda: pr.slice_domain([0, 0], [[1, 0]], [0, 0], [1]))
    add("polytope_domain None", lambda: pr.polytope_domain(None, None))
    add("polytope_domain dim text", lambda: pr.polytope_domain([], [], dim="2"))
    add("polytope_domain empty", lambda: pr.polytope_domain([[1], [-1]], [-1, -1]))
    add("polytope_domain flat", lambda: pr.polytope_domain([[1], [-1]], [0, 0]))
    add("polytope_domain b short", lambda: pr.polytope_domain([[1], [-1]], [0]))
    add("plane_through None", lambda: pr.plane_through(None, None, None))
    add("plane_through collinear", lambda: pr.plane_through([0, 0], [1, 1], [2, 2]))
    add("plane_through half_width negative", lambda: pr.plane_through([1, 0], [0, 1], [-1, 0], half_width=-1))
    add("load_domain None", lambda: pr.load_domain(None, input_dim=2))
    add("load_domain input_dim text", lambda: pr.load_domain(_write("d.json", {"type": "space"}), input_dim="2"))
    add("load_domain input_dim None", lambda: pr.load_domain(_write("d.json", {"type": "space"}), input_dim=None))
    add("load_domain FIFO", lambda: pr.load_domain(_fifo("pipe.json"), input_dim=2))
    add("load_domain /dev/zero", lambda: pr.load_domain("/dev/zero", input_dim=2))
    add("domain_from_json None", lambda: pr.regions.domain_from_json(None, input_dim=2))
    add("domain_from_json type a list", lambda: pr.regions.domain_from_json({"type": ["box"]}, input_dim=2))
    add("domain_from_json input_dim zero", lambda: pr.regions.domain_from_json({"type": "space"}, input_dim=0))
    add("domain to_input None", lambda: _box().to_input(None))

    # enumeration
    add("enumerate_regions network None", lambda: pr.enumerate_regions(None, _box()))
    add("enumerate_regions domain None", lambda: pr.enumerate_regions(_net(), None))
    add("enumerate_regions domain a list", lambda: pr.enumerate_regions(_net(), [[-1, 1], [-1, 1]]))
    add("enumerate_regions network a dict", lambda: pr.enumerate_regions({"layers": []}, _box()))
    add("enumerate_regions domain of another dimension", lambda: pr.enumerate_regions(_net(), pr.box([0], [1])))
    add("enumerate_regions engine unknown", lambda: pr.enumerate_regions(_net(), _box(), engine="fast"))
    add("enumerate_regions engine a list", lambda: pr.enumerate_regions(_net(), _box(), engine=["mesh"]))
    add("enumerate_regions backend unknown", lambda: pr.enumerate_regions(_net(), _box(), backend="gurobi"))
    add("enumerate_regions workers zero", lambda: pr.enumerate_regions(_net(), _box(), workers=0))
    add("enumerate_regions workers text", lambda: pr.enumerate_regions(_net(), _box(), workers="2"))

    # sweeps and search
    add("parse_seeds None", lambda: parse_seeds(None))
    add("parse_seeds ten billion", lambda: parse_seeds("0-10000000000"))
    add("parse_seeds arabic-indic", lambda: parse_seeds("\u0663"))
    add("parse_seeds a list", lambda: parse_seeds([1, 2]))
    add("parse_activation None", lambda: parse_activation(None))
    add("parse_activation slope arabic-indic", lambda: parse_activation("leaky_relu:\u0661"))
    add("sweep_tasks widths None", lambda: sweep_tasks(None, seeds=[0]))
    add("sweep_tasks widths a number", lambda: sweep_tasks(3, seeds=[0]))
    add("sweep_tasks widths of text", lambda: sweep_tasks(["2,3"], seeds=[0]))
    add("sweep_tasks seeds None", lambda: sweep_tasks([[2, 3]], seeds=None))
    add("sweep_tasks seeds a range of ten billion", lambda: sweep_tasks([[2, 3]], seeds=range(10 ** 10)))
    add("sweep_tasks too many networks", lambda: sweep_tasks([[2, 3], [2, 4]], seeds=range(60_000)))
    add("sweep_tasks too many parameters", lambda: sweep_tasks([[2, 10 ** 8]], seeds=[0]))
    add("sweep_tasks inits None", lambda: sweep_tasks([[2, 3]], seeds=[0], inits=None))
    add("sweep_tasks box None", lambda: sweep_tasks([[2, 3]], seeds=[0], box=None))
    add("sweep_tasks box of three", lambda: sweep_tasks([[2, 3]], seeds=[0], box=(0, 1, 2)))
    add("sweep_tasks engine a list", lambda: sweep_tasks([[2, 3]], seeds=[0], engine=["mesh"]))
    add("sweep workers text", lambda: sweep(sweep_tasks([[1, 2]], seeds=[0]), "t.csv", workers="2"))
    add("sweep output None", lambda: sweep(sweep_tasks([[1, 2]], seeds=[0]), None))
    add("sweep tasks None", lambda: sweep(None, "t.csv"))
    add("sweep tasks of dicts", lambda: sweep([{"widths": [1, 2]}], "t.csv"))
    add("simple_values max_abs huge", lambda: simple_values(max_abs="1e4000"))
    add("simple_values denominators a million", lambda: simple_values(denominators=[10 ** 6]))
    add("simple_values denominators None", lambda: simple_values(denominators=None))
    add("simple_values max_abs None", lambda: simple_values(max_abs=None))
    add("search claim None", lambda: search(None, widths=[1, 2]))
    add("search widths None", lambda: search("raghu"))
    add("search widths text", lambda: search("raghu", widths="1,2"))
    add("search seed text", lambda: search("raghu", widths=[1, 2], seed="0"))
    add("search evaluations zero", lambda: search("raghu", widths=[1, 2], evaluations=0))
    add("search values of one number", lambda: search("raghu", widths=[1, 2], values=[1]))
    add("search values None entries", lambda: search("raghu", widths=[1, 2], values=[None, 1]))
    add("search domain a list", lambda: search("raghu", widths=[1, 2], domain=[0, 1]), "domain", "list")
    add("search start a dict", lambda: search("raghu", start={"layers": []}), "start", "dict")
    add("search start a path", lambda: search("raghu", start="net.json"), "start", "str")
    add("search domain of another dimension", lambda: search("raghu", widths=[1, 2], domain=_box()), "domain",
        "R^1")

    # measures
    add("boundary None", lambda: pr.boundary(None), "source", "None")
    add("boundary a network", lambda: pr.boundary(_net()), "source", "Network")
    add("boundary_volumes None", lambda: pr.boundary_volumes(None), "source", "None")
    add("boundary_volumes a list", lambda: pr.boundary_volumes([1, 2]), "source", "list")
    add("boundary_volumes unbounded", lambda: pr.boundary_volumes(pr.enumerate_regions(_net(), pr.space(2))),
        "unbounded")
    add("boundary_distances network None", lambda: pr.boundary_distances(None, [[0, 0]]), "network", "None")
    add("boundary_distances points None", lambda: pr.boundary_distances(_net(), None), "points", "None")
    add("boundary_distances points empty", lambda: pr.boundary_distances(_net(), []), "points", "none")
    add("boundary_distances points text", lambda: pr.boundary_distances(_net(), "00"), "points", "str")
    add("boundary_distances points of another dimension", lambda: pr.boundary_distances(_net(), [[0, 0, 0]]),
        "points[0]")
    add("boundary_distances NaN array", lambda: pr.boundary_distances(_net(), np.array([[np.nan, 0.0]])),
        "points", "NaN")
    add("boundary_distances kind unknown", lambda: pr.boundary_distances(_net(), [[0, 0]], kind="x"), "kind")
    add("exact_distance point None", lambda: pr.exact_distance(_net(), None), "point")
    add("exact_distance network None", lambda: pr.exact_distance(None, [0, 0]), "network", "None")
    add("exact_distance kind a list", lambda: pr.exact_distance(_net(), [0, 0], kind=["linear"]), "kind")
    add("trajectory network None", lambda: pr.trajectory(None, [[0, 0], [1, 1]]), "network", "None")
    add("trajectory points None", lambda: pr.trajectory(_net(), None), "points")
    add("trajectory one point", lambda: pr.trajectory(_net(), [[0, 0]]), "points")
    add("trajectory engine unknown", lambda: pr.trajectory(_net(), [[0, 0], [1, 1]], engine="fast"), "engine")
    add("face_complex None", lambda: pr.face_complex(None), "complex_", "None")
    add("face_complex a network", lambda: pr.face_complex(_net()), "complex_", "Network")
    add("regions_along_lines None", lambda: pr.regions_along_lines(None, [[0, 0]]), "network", "None")
    add("regions_along_lines inputs None", lambda: pr.regions_along_lines(_net(), None), "inputs", "None")
    add("regions_along_lines input at the origin", lambda: pr.regions_along_lines(_net(), [[0, 0]]), "points[1]")
    add("write_complex_json None", lambda: pr.write_complex_json(None, "out.json"), "complex_", "None")
    add("write_complex_json path None", lambda: pr.write_complex_json(_complex(), None), "path", "None")
    add("write_complex_json path bytes", lambda: pr.write_complex_json(_complex(), b"out.json"), "path", "bytes")
    add("write_complex_json path empty", lambda: pr.write_complex_json(_complex(), ""), "path")
    add("write_graphml None", lambda: pr.write_graphml(None, "out.graphml"), "complex_", "None")
    add("write_graphml path a number", lambda: pr.write_graphml(_complex(), 3), "path", "int")

    # decision topology
    add("decision_topology None", lambda: pr.decision_topology(None, _box()), "network", "None")
    add("decision_topology network a dict", lambda: pr.decision_topology({"layers": []}, _box()), "network",
        "dict")
    add("decision_topology domain None", lambda: pr.decision_topology(_net(), None), "domain", "None")
    add("decision_topology domain a list", lambda: pr.decision_topology(_net(), [[-1, 1], [-1, 1]]), "domain",
        "list")
    add("decision_topology domain of another dimension", lambda: pr.decision_topology(_net(), pr.box([0], [1])),
        "domain", "R^1")
    add("decision_topology domain unbounded", lambda: pr.decision_topology(_net(), pr.space(2)), "unbounded")
    add("decision_topology field unknown", lambda: pr.decision_topology(_net(), _box(), field="GF(3)"), "field")
    add("decision_topology field a list", lambda: pr.decision_topology(_net(), _box(), field=["Q"]), "field")
    add("decision_topology engine unknown", lambda: pr.decision_topology(_net(), _box(), engine="fast"), "engine")

    # local complexity
    lc = pr.local_complexity
    add("local_complexity network None", lambda: lc(None, [[0, 0]], 1), "network", "None")
    add("local_complexity network a complex", lambda: lc(_complex(), [[0, 0]], 1), "network", "RegionComplex")
    add("local_complexity points None", lambda: lc(_net(), None, 1), "points", "None")
    add("local_complexity points empty", lambda: lc(_net(), [], 1), "points", "none")
    add("local_complexity points empty array", lambda: lc(_net(), np.zeros((0, 2)), 1), "points", "none")
    add("local_complexity points text", lambda: lc(_net(), "0,0", 1), "points", "str")
    add("local_complexity points a dict", lambda: lc(_net(), {"x": [0, 0]}, 1), "points", "dict")
    add("local_complexity points a generator", lambda: lc(_net(), ([0, 0] for _ in range(1)), 1), "points")
    add("local_complexity points a flat list", lambda: lc(_net(), [0, 0], 1), "points[0]")
    add("local_complexity points of another dimension", lambda: lc(_net(), [[0, 0, 0]], 1), "points[0]")
    add("local_complexity points ragged", lambda: lc(_net(), [[0, 0], [0]], 1), "points[1]")
    add("local_complexity points 1-D array", lambda: lc(_net(), np.zeros(2), 1), "points", "(2,)")
    add("local_complexity points 3-D array", lambda: lc(_net(), np.zeros((1, 2, 1)), 1), "points", "(1, 2, 1)")
    add("local_complexity points NaN array", lambda: lc(_net(), np.array([[0.0, np.nan]]), 1), "points", "NaN")
    add("local_complexity points infinite", lambda: lc(_net(), [[0, float("inf")]], 1), "points[0][1]")
    add("local_complexity points arabic-indic", lambda: lc(_net(), [["\u0661", 0]], 1), "points[0][0]")
    add("local_complexity points 10001 digits", lambda: lc(_net(), [["1" * 10001, 0]], 1), "points[0][0]")
    add("local_complexity points string array", lambda: lc(_net(), np.array([["a", "b"]]), 1), "points[0][0]")
    add("local_complexity radius None", lambda: lc(_net(), [[0, 0]], None), "radius", "None")
    add("local_complexity radius zero", lambda: lc(_net(), [[0, 0]], 0), "radius", "positive")
    add("local_complexity radius negative", lambda: lc(_net(), [[0, 0]], "-1/2"), "radius", "positive")
    add("local_complexity radius text", lambda: lc(_net(), [[0, 0]], "one"), "radius")
    add("local_complexity radius NaN", lambda: lc(_net(), [[0, 0]], float("nan")), "radius")
    add("local_complexity radius a list", lambda: lc(_net(), [[0, 0]], [1]), "radius")
    add("local_complexity norm unknown", lambda: lc(_net(), [[0, 0]], 1, norm="3"), "norm")
    add("local_complexity norm an integer", lambda: lc(_net(), [[0, 0]], 1, norm=2), "norm")
    add("local_complexity engine unknown", lambda: lc(_net(), [[0, 0]], 1, engine="fast"), "engine")
    add("local_complexity workers zero", lambda: lc(_net(), [[0, 0]], 1, workers=0), "workers")
    add("local_complexity workers text", lambda: lc(_net(), [[0, 0]], 1, workers="2"), "workers")
    add("local_complexity l1 complex in dimension 11",
        lambda: lc(pr.he_normal([11, 2], seed=0), [[0] * 11], 1, norm="1", engine="complex"), "engine")

    # points files
    lp = pr.load_points
    add("load_points None", lambda: lp(None, input_dim=2), "path", "None")
    add("load_points a number", lambda: lp(3, input_dim=2), "path", "int")
    add("load_points bytes", lambda: lp(b"p.json", input_dim=2), "path", "bytes")
    add("load_points empty path", lambda: lp("", input_dim=2), "path")
    add("load_points missing", lambda: lp("missing.json", input_dim=2), "missing.json")
    add("load_points missing .npy", lambda: lp("missing.npy", input_dim=2), "missing.npy")
    add("load_points directory", lambda: lp(_directory("points.npy"), input_dim=2), "points.npy", "directory")
    add("load_points FIFO", lambda: lp(_fifo("pipe.json"), input_dim=2), "pipe.json", "FIFO")
    add("load_points FIFO .npy", lambda: lp(_fifo("pipe.npy"), input_dim=2), "pipe.npy", "FIFO")
    add("load_points FIFO .npz", lambda: lp(_fifo("pipe.npz"), input_dim=2), "pipe.npz", "FIFO")
    add("load_points /dev/zero", lambda: lp("/dev/zero", input_dim=2), "/dev/zero")
    add("load_points link to /dev/zero .npy", lambda: lp(_link("zero.npy", "/dev/zero"), input_dim=2), "zero.npy")
    add("load_points empty file", lambda: lp(_write("p.json", ""), input_dim=2), "p.json")
    add("load_points not JSON", lambda: lp(_write("p.json", "[[0, 1]"), input_dim=2), "p.json")
    add("load_points nested 100000", lambda: lp(_write("p.json", "[" * 100_000 + "]" * 100_000), input_dim=2),
        "p.json")
    add("load_points an object", lambda: lp(_write("p.json", {"points": [[0, 0]]}), input_dim=2), "p.json", "dict")
    add("load_points empty list", lambda: lp(_write("p.json", []), input_dim=2), "p.json", "none")
    add("load_points wrong dimension", lambda: lp(_write("p.json", [[0, 0, 0]]), input_dim=2), "p.json",
        "points[0]")
    add("load_points NaN literal", lambda: lp(_write("p.json", "[[NaN, 0]]"), input_dim=2), "p.json",
        "points[0][0]")
    add("load_points null entry", lambda: lp(_write("p.json", [[None, 0]]), input_dim=2), "p.json", "points[0][0]")
    add("load_points arabic-indic", lambda: lp(_write("p.json", [["\u0661", 0]]), input_dim=2), "p.json",
        "points[0][0]")
    add("load_points integer literal of 10001 digits", lambda: lp(_write("p.json", "[[" + "7" * 10001 + ", 0]]"),
                                                                  input_dim=2), "p.json")
    add("load_points input_dim None", lambda: lp(_write("p.json", [[0, 0]]), input_dim=None), "input_dim", "None")
    add("load_points input_dim text", lambda: lp(_write("p.json", [[0, 0]]), input_dim="2"), "input_dim", "str")
    add("load_points input_dim zero", lambda: lp(_write("p.json", [[0, 0]]), input_dim=0), "input_dim")
    add("load_points input_dim boolean", lambda: lp(_write("p.json", [[0]]), input_dim=True), "input_dim")
    add("load_points .npy wrong shape", lambda: lp(_npy("p.npy", np.zeros((3, 5))), input_dim=2), "p.npy", "(3, 5)")
    add("load_points .npy NaN", lambda: lp(_npy("p.npy", np.array([[np.nan, 0.0]])), input_dim=2), "p.npy", "NaN")
    add("load_points .npy empty", lambda: lp(_npy("p.npy", np.zeros((0, 2))), input_dim=2), "p.npy", "none")
    add("load_points .npy strings", lambda: lp(_npy("p.npy", np.array([["a", "b"]])), input_dim=2), "p.npy")
    add("load_points .npy complex", lambda: lp(_npy("p.npy", np.zeros((1, 2)) + 1j), input_dim=2), "p.npy")
    add("load_points .npy of objects", lambda: lp(_npy("p.npy", np.array([[1, 2]], dtype=object)), input_dim=2),
        "p.npy")
    add("load_points .npy not an array", lambda: lp(_write("p.npy", "not an array"), input_dim=2), "p.npy")
    add("load_points .npy truncated", lambda: lp(_truncated_npy("p.npy"), input_dim=2), "p.npy")
    add("load_points .npz two arrays", lambda: lp(_npz("p.npz", a=np.zeros((1, 2)), b=np.zeros((1, 2))),
                                                  input_dim=2), "p.npz", "points")
    add("load_points .npz no arrays", lambda: lp(_npz("p.npz"), input_dim=2), "p.npz")

    # region statistics
    add("region_statistics None", lambda: pr.region_statistics(None), "complex_", "None")
    add("region_statistics a list", lambda: pr.region_statistics([1]), "complex_", "list")
    add("region_statistics a network", lambda: pr.region_statistics(_net()), "complex_", "Network")
    add("region_statistics a face complex", lambda: pr.region_statistics(pr.face_complex(_complex())), "complex_",
        "FaceComplex")
    add("region_statistics bits zero", lambda: pr.region_statistics(_complex(), bits=0), "bits")
    add("region_statistics bits text", lambda: pr.region_statistics(_complex(), bits="40"), "bits")
    add("region_statistics bits boolean", lambda: pr.region_statistics(_complex(), bits=True), "bits")
    add("he_normal widths None", lambda: pr.he_normal(None, seed=0))
    add("he_normal seed text", lambda: pr.he_normal([2, 3], seed="0"))
    add("sawtooth text", lambda: pr.sawtooth("3"))
    add("montufar zero", lambda: pr.montufar(0, 2, 2))
    add("compare_with_bounds count text", lambda: pr.compare_with_bounds("3", input_dim=2, widths=[2],
                                                                          activation="relu"))
    names = [name for name, _, _ in cases]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    return cases


def _load_string_npz():
    from polyregions.networks.io import load_npz

    np.savez("strings.npz", W0=np.array([["1"]]), b0=np.array(["0"]))
    return load_npz("strings.npz")


def _torch_call(kind: str):
    import pytest

    torch = pytest.importorskip("torch")
    import polyregions as pr

    nn = torch.nn
    if kind == "ModuleList":
        return pr.network_from_torch(nn.ModuleList([nn.Linear(2, 2), nn.ReLU()]))
    if kind == "ModuleDict":
        return pr.network_from_torch(nn.ModuleDict({"a": nn.Linear(2, 2)}))
    if kind == "Conv1d":
        return pr.network_from_torch(nn.Sequential(nn.Conv1d(1, 1, 1)))
    if kind == "input_dim":
        return pr.network_from_torch(nn.Sequential(nn.ReLU()), input_dim="2")

    class Broken(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(2, 2), nn.ReLU()

        def forward(self, x):
            raise RuntimeError("boom")

    return pr.network_from_torch(Broken())


#: Every bad call: (name, call, what the error message must name: the argument, the file).
LIBRARY_CASES: list[tuple[str, Callable[[], Any], tuple[str, ...]]] = _cases()
