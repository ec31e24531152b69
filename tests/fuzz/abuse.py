"""The second bad-input corpus: inputs that are valid in form but abuse the program's resources or its setting.

Families (each a list of cases built here, deterministically, from a few parameters):

* **depth**: networks of 1,100 layers (network/1 and chains of network/2 nodes, by the LP and the default
  engine), bounds and sweeps of 331 to 1,100 layers: counted, never a RecursionError;
* **declared sizes**: shapes, paddings, kernels and dimensions declared in a few bytes (an input of
  ``[100000, 100000, 100000]``, a padding of 10^30, a concatenation of 100,000 copies, an arrangement of
  dimension 10^30): refused by name before anything of that size is allocated; worker counts up to 2^40 capped;
* **purpose-free slowness**: 10,000 parallel hyperplanes (the answer is 10,001 regions) counted at once; a
  polygon of 400 or 1,000 rows through one vertex (its boundedness decided by one program in two variables; the mesh
  engine's polygon by one angular pass); an activation of 2,000 breakpoints on a segment and a box (each new vertex
  signed against the breakpoints next to it);
* **onnx structure** (:mod:`fuzz.onnx_structure`): ONNX files built with ``onnx.helper`` whose nodes lack inputs
  or outputs or reuse a name, whose attributes are missing, infinite or out of range (stride 0, groups 3 of 2
  channels, a float shape, dropout in training mode), whose initializers' data do not fit their dims or whose dims
  declare 10^10 entries: refused naming the file and the node or field;
* **special files with model extensions**: FIFOs and devices named ``.onnx``, ``.pt``, ``.pt2``, ``.pth``
  refused before onnx or torch open them;
* **pickles that run code** (in :mod:`test_fuzz`): refused, the code never runs;
* **the environment** (in :mod:`test_fuzz`): a closed standard output, ``/dev/full``, a deleted working
  directory, an ASCII-only encoding; signals in the first moments of a run and an inherited ignored SIGINT;
* **extended precision** (:data:`EXACT_CASES`): ``np.longdouble`` numbers, arrays, ``.npy``/``.npz`` files
  read at their exact values.

Every command-line case is a :class:`fuzz.corpus.Case`, run by :mod:`test_fuzz` in process and, when
``heavy``, in a process under the same memory and time limits as the first corpus.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Iterator

import numpy as np

from fuzz.corpus import NET, Case, Directory, Fifo
from fuzz.onnx_structure import ONNX_STRUCTURE_CASES, ONNX_STRUCTURE_LIBRARY_CASES

__all__ = ["ABUSE_CASES", "ABUSE_ACCEPTED", "EXACT_CASES", "LIBRARY_ABUSE_CASES", "LIBRARY_ACCEPTED",
           "deep_network", "deep_graph", "evil_pickle", "fan_polygon"]

DEPTH = 1100


# --- depth ------------------------------------------------------------------------------------------------------

def deep_network(layers: int, width: int, input_dim: int) -> dict[str, Any]:
    """A network/1 document of ``layers`` ReLU layers of ``width`` units (identity-like weights)."""
    first = [[int(i == j) for j in range(input_dim)] for i in range(width)]
    square = [[int(i == j) for j in range(width)] for i in range(width)]
    hidden = [{"weight": first if k == 0 else square, "bias": ["-1/3" if i == 0 and k == 0 else 0
                                                               for i in range(width)], "activation": "relu"}
              for k in range(layers)]
    return {"format": "polyregions.network/1", "input_dim": input_dim,
            "layers": hidden + [{"weight": [[1] * width], "bias": [0], "activation": "linear"}]}


def deep_graph(layers: int, width: int) -> dict[str, Any]:
    """A network/2 document: a chain of ``layers`` dense + ReLU pairs of ``width`` units."""
    nodes, previous = [], "input"
    for k in range(layers):
        weight = [[int(i == j) for j in range(width)] for i in range(width)]
        nodes.append({"name": f"d{k}", "op": "dense", "inputs": [previous], "weight": weight,
                      "bias": ["-1/3" if i == 0 and k == 0 else 0 for i in range(width)]})
        nodes.append({"name": f"r{k}", "op": "relu", "inputs": [f"d{k}"]})
        previous = f"r{k}"
    nodes.append({"name": "out", "op": "dense", "inputs": [previous], "weight": [[1] * width], "bias": [0]})
    return {"format": "polyregions.network/2", "input_shape": [width], "nodes": nodes, "output": "out"}


_SEGMENT = {"type": "segment", "start": [-1, "-1/2"], "end": [1, "1/3"]}
_SEGMENT_1D = {"type": "segment", "start": [-1], "end": [1]}


def _depth_cases() -> Iterator[Case]:
    """Deep networks counted, by the LP engine and by the default (mesh) engine."""
    for domain, option in (("box", ("--box", "-1,1")), ("segment", ("--domain", "seg.json"))):
        yield Case(f"depth: {DEPTH}-layer network/1 counted on a {domain} by the default engine",
                   ("regions", "deep.json", *option, "--json"),
                   (("deep.json", deep_network(DEPTH, 2, 2)), ("seg.json", _SEGMENT)), status=0, heavy=True,
                   tags=("depth",))
    domains = {"box": ("--box", "-1,1"), "segment": ("--domain", "seg.json")}
    for kind, document in (("network/1", deep_network(DEPTH, 2, 2)), ("network/2 chain", deep_graph(DEPTH, 2))):
        for domain, option in domains.items():
            yield Case(f"depth: {DEPTH}-layer {kind} counted on a {domain}",
                       ("regions", "deep.json", *option, "--engine", "lp", "--json"),
                       (("deep.json", document), ("seg.json", _SEGMENT)), status=0, heavy=True, tags=("depth",))
    yield Case(f"depth: {DEPTH}-layer width-1 network on a 1-D box",
               ("regions", "deep.json", "--box", "-1,1", "--engine", "lp"),
               (("deep.json", deep_network(DEPTH, 1, 1)),), status=0, heavy=True, tags=("depth",))
    yield Case(f"depth: {DEPTH}-layer width-1 network on a 1-D segment",
               ("regions", "deep.json", "--domain", "seg.json", "--engine", "lp"),
               (("deep.json", deep_network(DEPTH, 1, 1)), ("seg.json", _SEGMENT_1D)), status=0, heavy=True,
               tags=("depth",))
    for layers in (331, 400):
        yield Case(f"depth: sweep of {layers} layers", ("sweep", "--widths", ",".join(["1"] * layers), "--workers",
                                                        "0", "-o", "t.csv", "--quiet"),
                   status=0, heavy=True, tags=("depth",))


# --- sizes declared in a few bytes --------------------------------------------------------------------------------

def _graph(shape: list[int], nodes: list[dict[str, Any]], output: str) -> dict[str, Any]:
    return {"format": "polyregions.network/2", "input_shape": shape, "nodes": nodes, "output": output}


def _relu_on(shape: list[int]) -> dict[str, Any]:
    return _graph(shape, [{"name": "r", "op": "relu", "inputs": ["input"]},
                          {"name": "f", "op": "flatten", "inputs": ["r"]}], "f")


def _conv(padding: Any, stride: Any = 1, dilation: Any = 1) -> dict[str, Any]:
    return _graph([1, 4], [{"name": "c", "op": "conv", "inputs": ["input"], "weight": [[[1, 1]]], "bias": [0],
                            "padding": padding, "stride": stride, "dilation": dilation},
                           {"name": "f", "op": "flatten", "inputs": ["c"]}], "f")


def _concat(copies: int, shape: list[int]) -> dict[str, Any]:
    return _graph(shape, [{"name": "c", "op": "concat", "inputs": ["input"] * copies},
                          {"name": "r", "op": "relu", "inputs": ["c"]}], "r")


def _size_cases() -> Iterator[Case]:
    tensor, reads = "MAX_TENSOR_ENTRIES", "MAX_WINDOW_READS"
    networks: list[tuple[str, dict[str, Any], str, str]] = [
        ("input shape [1, 10^9]", _relu_on([1, 10 ** 9]), "input_shape", tensor),
        ("input shape 10^5 x 10^5 x 10^5", _relu_on([10 ** 5] * 3), "input_shape", tensor),
        ("input shape of 10^30 entries", _relu_on([10 ** 30]), "input_shape", tensor),
        ("input shape 2^16 + 1", _relu_on([(1 << 16) + 1]), "input_shape", tensor),
        ("conv padding 10^30", _conv([10 ** 30]), "conv", tensor),
        ("conv padding 10^6", _conv([10 ** 6]), "conv", tensor),
        ("conv dilation and padding 10^30", _conv([10 ** 30], dilation=[10 ** 30]), "conv", tensor),
        ("concat of 100,000 copies", _concat(100_000, [2]), "concat", tensor),
        ("concat of 70,000 single entries", _concat(70_000, [1]), "concat", tensor),
        ("maxpool kernel 10^5 x 10^5 padded", _graph([1, 10, 10], [
            {"name": "p", "op": "maxpool", "inputs": ["input"], "kernel": [100_000, 100_000],
             "padding": [50_000, 50_000], "stride": [1, 1]},
            {"name": "f", "op": "flatten", "inputs": ["p"]}], "f"), "maxpool", reads),
        ("pad of 10^30", _graph([1, 2], [{"name": "p", "op": "pad", "inputs": ["input"],
                                          "pads": [[0, 0], [10 ** 30, 0]]},
                                         {"name": "f", "op": "flatten", "inputs": ["p"]}], "f"), "pad", tensor),
    ]
    for label, document, field, limit in networks:
        yield Case(f"sizes: {label}", ("regions", "big.json", "--box", "-1,1"), (("big.json", document),),
                   ("big.json", field, limit), heavy=label.startswith("concat"), tags=("sizes",))
    for dimension in (10 ** 6, 10 ** 30, 4097):
        arrangement = {"format": "polyregions.arrangement/1", "dimension": dimension, "hyperplanes": []}
        for extra in ((), ("--count",), ("--faces",)):
            yield Case(f"sizes: arrangement of dimension {dimension} {' '.join(extra) or 'listed'}",
                       ("arrangement", "a.json", *extra), (("a.json", arrangement),),
                       ("a.json", "dimension", "MAX_DOMAIN_DIMENSION"), tags=("sizes",))


def _worker_cases() -> Iterator[Case]:
    points = [[0, 0], ["1/2", "-1/3"], ["1/5", "1/5"]]
    for workers in ("40", str(2 ** 40), "9" * 40):
        yield Case(f"sizes: local --workers {workers[:12]} capped", (
            "local", "net.json", "--points", "p.json", "--radius", "1/10", "--workers", workers),
            (("net.json", NET), ("p.json", points)), status=0, heavy=workers == "40", tags=("workers",))
    yield Case("sizes: local --workers 0", ("local", "net.json", "--points", "p.json", "--radius", "1/10",
                                            "--workers", "0"), (("net.json", NET), ("p.json", points)),
               ("--workers",), tags=("workers",))


# --- slow on purpose-free inputs ----------------------------------------------------------------------------------

def _parallel(count: int, dimension: int) -> dict[str, Any]:
    return {"format": "polyregions.arrangement/1", "dimension": dimension,
            "hyperplanes": [[1] + [0] * (dimension - 1) + [i] for i in range(count)]}


def _slow_cases() -> Iterator[Case]:
    for dimension in (1, 2, 3):
        for extra in (("--count",), ("--faces",), ("--quiet",), ("--json", "--quiet")):
            yield Case(f"slow: 10,000 parallel hyperplanes in R^{dimension} {' '.join(extra)}",
                       ("arrangement", "p.json", *extra), (("p.json", _parallel(10_000, dimension)),), status=0,
                       heavy=dimension == 1 and extra == ("--quiet",), tags=("slow",))
    # Listed under the 1 GiB limit of a heavy case: the ray search keeps no rays x rows values (4 GiB here).
    yield Case("slow: 10,000 parallel hyperplanes in R^1 --list", ("arrangement", "p.json", "--list", "r.jsonl",
                                                                    "--quiet"),
               (("p.json", _parallel(10_000, 1)),), status=0, heavy=True, tags=("slow",))


def sawtooth_network(breakpoints: int, input_dim: int) -> dict[str, Any]:
    """One neuron ``x_1 + x_2 / 2`` (or ``x``) through a piecewise-linear activation with ``breakpoints``
    breakpoints in [-1, 1)."""
    T = breakpoints
    activation = {"kind": "piecewise_linear", "breakpoints": [f"{2 * k - T}/{T}" for k in range(T)],
                  "slopes": [(-1) ** k * (1 + k % 3) for k in range(T + 1)], "offset": "0"}
    weight = [[1]] if input_dim == 1 else [[1, "1/2"]]
    return {"format": "polyregions.network/1", "input_dim": input_dim,
            "layers": [{"weight": weight, "bias": [0], "activation": activation},
                       {"weight": [[1]], "bias": [0], "activation": "linear"}]}


def _breakpoint_cases() -> Iterator[Case]:
    for label, dim, option, domain in (("a segment", 1, ("--domain", "d.json"),
                                        {"type": "segment", "start": [-2], "end": [2]}),
                                       ("a 2-D box", 2, ("--box", "-1,1"), None)):
        files: tuple[tuple[str, Any], ...] = (("net.json", sawtooth_network(2000, dim)),)
        if domain is not None:
            files += (("d.json", domain),)
        yield Case(f"slow: an activation of 2,000 breakpoints on {label}", ("regions", "net.json", *option, "--json"),
                   files, status=0, heavy=dim == 2, tags=("slow",))


def fan_polygon(rows: int, bounded: bool) -> dict[str, Any]:
    """A ``polytope`` domain of ``rows`` half-planes all through the origin (a fan of lines, two of them the
    cone's edges), cut by ``y <= 1`` when ``bounded``."""
    A = [[k - rows // 2, -1000] for k in range(rows)] + ([[0, 1]] if bounded else [])
    return {"type": "polytope", "A": A, "b": [0] * rows + ([1] if bounded else [])}


def _polygon_cases() -> Iterator[Case]:
    net = {"format": "polyregions.network/1", "input_dim": 2,
           "layers": [{"weight": [[1, 0], [0, 1]], "bias": ["-1/7", 0], "activation": "relu"},
                      {"weight": [[1, 1]], "bias": [0], "activation": "linear"}]}
    for bounded in (True, False):
        label = "cut by a bounding row" if bounded else "an unbounded cone"
        yield Case(f"slow: a 400-row polygon through one vertex, {label}, lp engine",
                   ("regions", "net.json", "--domain", "fan.json", "--engine", "lp", "--json"),
                   (("net.json", net), ("fan.json", fan_polygon(400, bounded))), status=0, heavy=bounded,
                   tags=("slow",))
    for rows in (400, 1000):  # the mesh engine's domain polygon: one angular pass, not every pair of rows
        yield Case(f"slow: a {rows}-row polygon through one vertex, cut by a bounding row, default engine",
                   ("regions", "net.json", "--domain", "fan.json", "--json"),
                   (("net.json", net), ("fan.json", fan_polygon(rows, True))), status=0, heavy=rows == 400,
                   tags=("slow",))
    yield Case("slow: a 400-row unbounded cone, default engine", ("regions", "net.json", "--domain", "fan.json"),
               (("net.json", net), ("fan.json", fan_polygon(400, False))), status=0, tags=("slow",))


# --- special files with the extensions of model formats -----------------------------------------------------------

def _model_file_cases() -> Iterator[Case]:
    for extension in (".onnx", ".pt", ".pt2", ".pth", ".ONNX"):
        for label, content in (("FIFO", Fifo()), ("directory", Directory())):
            name = f"model{extension}"
            yield Case(f"model files: a {label} named {name}", ("regions", name, "--box", "-1,1"),
                       ((name, content),), (name, "regular file"), heavy=label == "FIFO" and extension == ".pt",
                       tags=("model files",))
        yield Case(f"model files: /dev/zero through a link named m{extension}", ("regions", f"m{extension}",
                                                                                 "--box", "-1,1"),
                   ((f"m{extension}", _Link("/dev/zero")),), (f"m{extension}", "character device"),
                   tags=("model files",))
    yield Case("model files: checkpoints --template FIFO .pt", ("checkpoints", "net.json", "--template", "t.pt",
                                                                "--box", "-1,1"),
               (("net.json", NET), ("t.pt", Fifo())), ("t.pt", "FIFO"), tags=("model files",))
    yield Case("model files: checkpoint FIFO .pth", ("checkpoints", "net.json", "c.pth", "--box", "-1,1"),
               (("net.json", NET), ("c.pth", Fifo())), ("c.pth", "FIFO"), tags=("model files",))


def _Link(target: str) -> Any:
    from fuzz.corpus import Symlink

    return Symlink(target)


# --- extended precision --------------------------------------------------------------------------------------------

_LD = np.longdouble
_TINY = _LD(2) ** -60


def _longdouble_cases() -> list[tuple[str, Callable[[], Any], Any]]:
    """(name, call, the exact value it must return)."""
    import polyregions as pr
    from polyregions.measures.local import load_points

    def network_bias(dtype: Any) -> Any:
        net = pr.network_from_arrays([np.array([[1]], dtype=dtype), np.array([[1]], dtype=dtype)],
                                     [np.array([_LD(1) + _TINY]).astype(dtype), np.array([0], dtype=dtype)])
        return net.layers[0].bias[0]

    def npz_bias(name: str) -> Any:
        np.savez(name, W0=np.array([[1]], dtype=_LD), b0=np.array([-(_LD(1) - _TINY / 2)]),
                 W1=np.array([[1]], dtype=_LD), b1=np.array([0], dtype=_LD))
        return pr.load_npz(name).layers[0].bias[0]

    def points_file(name: str) -> Any:
        np.save(name, np.array([[_LD(1) + _TINY, _LD(0)]]))
        return load_points(name, input_dim=2)[0][0]

    cases = [
        ("rational of 1 + 2^-60", lambda: pr.rational(_LD(1) + _TINY), Fraction(2 ** 60 + 1, 2 ** 60)),
        ("rational of -3 - 2^-62", lambda: pr.rational(-(_LD(3) + _TINY / 4)), -Fraction(3 * 2 ** 62 + 1, 2 ** 62)),
        ("rational of 2^-16000", lambda: pr.rational(_LD(2) ** -16000), Fraction(1, 2 ** 16000)),
        ("rational_vector of a float128 array", lambda: pr.rational_vector(np.array([_LD(1) + _TINY]))[0],
         Fraction(2 ** 60 + 1, 2 ** 60)),
        ("network_from_arrays of float128", lambda: network_bias(_LD), Fraction(2 ** 60 + 1, 2 ** 60)),
        ("load_npz of float128 arrays", lambda: npz_bias("ld.npz"), -Fraction(2 ** 61 - 1, 2 ** 61)),
        ("load_points of a float128 .npy", lambda: points_file("ld.npy"), Fraction(2 ** 60 + 1, 2 ** 60)),
        ("box bound of float128", lambda: pr.box([_LD(1) + _TINY], [2]).lower[0], Fraction(2 ** 60 + 1, 2 ** 60)),
        ("float32 stays exact", lambda: pr.rational(np.float32(0.1)), Fraction(np.float32(0.1).item())),
        ("float16 stays exact", lambda: pr.rational(np.float16(0.1)), Fraction(float(np.float16(0.1)))),
    ]
    return cases


#: (name, call, exact value): extended-precision numbers read at the value they store.
EXACT_CASES = _longdouble_cases()


# --- library calls -------------------------------------------------------------------------------------------------

def _library_cases() -> list[tuple[str, Callable[[], Any], tuple[str, ...]]]:
    """Bad calls of the second corpus: (name, call, what the message must name)."""
    from decimal import Decimal

    import polyregions as pr
    from polyregions.networks.graph import GraphNetwork, Node
    from polyregions.networks.operations import Activation, Concat, Conv, MaxPool, Pad

    def fifo(name: str) -> str:
        import os

        os.mkfifo(name)
        return name

    cases: list[tuple[str, Callable[[], Any], tuple[str, ...]]] = [
        ("Decimal 1e-5000", lambda: pr.rational(Decimal("1e-5000"), what="w"), ("w", "exponent")),
        ("Decimal 1e5000", lambda: pr.rational(Decimal("1e5000"), what="w"), ("w", "exponent")),
        ("Decimal -7e-4001", lambda: pr.rational(Decimal("-7e-4001"), what="w"), ("w", "exponent")),
        ("float128 NaN", lambda: pr.rational(_LD("nan"), what="w"), ("w", "finite")),
        ("float128 infinity", lambda: pr.rational(-_LD("inf"), what="w"), ("w", "finite")),
        ("float128 points with NaN", lambda: pr.rational_vector(np.array([_LD(1), _LD("nan")]), what="p"),
         ("p[1]",)),
        ("graph input of 10^9 entries", lambda: GraphNetwork((1, 10 ** 9), (Node("r", Activation("relu"),
                                                                                   ("input",)),), "r"),
         ("MAX_TENSOR_ENTRIES",)),
        ("graph input of 10^9 entries and no nodes", lambda: GraphNetwork((10 ** 9,), (), "input"),
         ("input_shape", "MAX_TENSOR_ENTRIES")),
        ("graph input 10^5 x 10^5 x 10^5 and no nodes", lambda: GraphNetwork([10 ** 5] * 3, [], "input"),
         ("input_shape", "MAX_TENSOR_ENTRIES")),
        ("graph input 2^16 + 1 and no nodes", lambda: GraphNetwork(((1 << 16) + 1,), (), "input"),
         ("input_shape", "MAX_TENSOR_ENTRIES")),
        ("graph conv padding 10^30", lambda: GraphNetwork((1, 4), (Node("c", Conv([[[1]]], [0],
                                                                                 padding=10 ** 30), ("input",)),),
                                                          "c"), ("conv", "MAX_TENSOR_ENTRIES")),
        ("graph concat of 100,000", lambda: GraphNetwork((2,), (Node("c", Concat(), ("input",) * 100_000),), "c"),
         ("concat", "MAX_TENSOR_ENTRIES")),
        ("graph maxpool windows", lambda: GraphNetwork((1, 3000, 3000), (Node("p", MaxPool([60, 60], stride=[1, 1]),
                                                                               ("input",)),), "p"),
         ("MAX_TENSOR_ENTRIES",)),
        ("graph pad 10^30", lambda: GraphNetwork((1, 2), (Node("p", Pad(((0, 0), (10 ** 30, 0))), ("input",)),), "p"),
         ("pad", "MAX_TENSOR_ENTRIES")),
        ("arrangement of dimension 10^30", lambda: pr.arrangements.Arrangement([], dim=10 ** 30), ("dimension",)),
        ("arrangement of dimension 10^6", lambda: pr.arrangements.Arrangement([], dim=10 ** 6), ("dimension",)),
        ("load_network of a FIFO .onnx", lambda: pr.load_network(fifo("m.onnx")), ("m.onnx", "FIFO")),
        ("load_network of a FIFO .pt", lambda: pr.load_network(fifo("m.pt")), ("m.pt", "FIFO")),
        ("load_network of a FIFO .pt2", lambda: pr.load_network(fifo("m.pt2")), ("m.pt2", "FIFO")),
        ("load_onnx of a FIFO", lambda: pr.load_onnx(fifo("n.onnx")), ("n.onnx", "FIFO")),
        ("load_torch_file of a FIFO", lambda: pr.load_torch_file(fifo("n.pt")), ("n.pt", "FIFO")),
        ("load_torch_file of /dev/zero", lambda: pr.load_torch_file("/dev/zero"), ("/dev/zero", "device")),
        ("load_onnx of a directory", lambda: pr.load_onnx(_mkdir("d.onnx")), ("d.onnx", "directory")),
    ]
    return cases


def _mkdir(name: str) -> str:
    import os

    os.mkdir(name)
    return name


#: Bad library calls of the second corpus, as :data:`fuzz.library.LIBRARY_CASES`.
LIBRARY_ABUSE_CASES = _library_cases() + ONNX_STRUCTURE_LIBRARY_CASES


#: Library calls that used to fail (RecursionError) and must now answer: (name, call).
LIBRARY_ACCEPTED: list[tuple[str, Callable[[], Any]]] = [
    ("serra_bound of 400 layers", lambda: _pr().serra_bound(2, [2] * 400)),
    ("serra_bound of 1,100 layers", lambda: _pr().serra_bound(3, [3] * 1100)),
    ("compare_with_bounds of 400 layers", lambda: _pr().compare_with_bounds(5, input_dim=2, widths=[2] * 400,
                                                                            activation="relu")),
    ("compare_with_bounds of 1,100 layers", lambda: _pr().compare_with_bounds(3, input_dim=1, widths=[1] * 1100,
                                                                              activation="relu")),
]


def _pr() -> Any:
    import polyregions as pr

    return pr


# --- pickles that run code ----------------------------------------------------------------------------------------

def evil_pickle(marker: str) -> bytes:
    """A torch.save-style zip whose ``data.pkl`` pickle, when loaded with ``weights_only=False``, would create
    ``marker`` (a file): the loader must refuse it without running it."""
    import io
    import pickle
    import zipfile

    class Evil:
        def __reduce__(self):
            return (open, (marker, "w"))

    data = pickle.dumps({"state": Evil()}, protocol=2)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("archive/data.pkl", data)
        archive.writestr("archive/version", "3\n")
        archive.writestr("archive/byteorder", "little")
    return buffer.getvalue()


def _pickle_cases() -> Iterator[Case]:
    payload = evil_pickle("PWNED")
    for name in ("evil.pt", "evil.pth"):
        yield Case(f"pickle: regions of {name}", ("regions", name, "--box", "-1,1"), ((name, payload),),
                   (name,), heavy=name == "evil.pt", tags=("pickle",))
        yield Case(f"pickle: checkpoints --template {name}", ("checkpoints", "net.json", "--template", name,
                                                              "--box", "-1,1"),
                   (("net.json", NET), (name, payload)), (name,), tags=("pickle",))
        yield Case(f"pickle: checkpoint state dict {name}", ("checkpoints", "net.json", name, "--box", "-1,1"),
                   (("net.json", NET), (name, payload)), (name,), tags=("pickle",))
    raw = __import__("pickle").dumps(0)  # a bare pickle, not a zip
    yield Case("pickle: a bare pickle .pt", ("regions", "bare.pt", "--box", "-1,1"), (("bare.pt", raw),),
               ("bare.pt",), tags=("pickle",))


# --- all --------------------------------------------------------------------------------------------------------

def _all() -> tuple[list[Case], list[Case]]:
    cases = [*_size_cases(), *_model_file_cases(), *_pickle_cases(),
             *[c for c in _worker_cases() if c.status != 0], *ONNX_STRUCTURE_CASES]
    accepted = [*_depth_cases(), *_slow_cases(), *_polygon_cases(), *_breakpoint_cases(),
                *[c for c in _worker_cases() if c.status == 0]]
    names = [case.name for case in cases + accepted]
    duplicates = {name for name in names if names.count(name) > 1}
    assert not duplicates, duplicates
    return cases, accepted


#: Refused command lines of the second corpus; :data:`ABUSE_ACCEPTED`: command lines that must succeed.
ABUSE_CASES, ABUSE_ACCEPTED = _all()
