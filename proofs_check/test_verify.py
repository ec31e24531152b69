"""The independent verifier on hand-built exports: correct ones verify, every kind of tampering is caught."""

import ast
import copy
import itertools
import json
import pathlib
import subprocess
import sys
from fractions import Fraction

import pytest

from proofs_check import geometry as geo
from proofs_check.errors import InputError
from proofs_check.reading import parse_number
from proofs_check.verify import main, verify_export

HERE = pathlib.Path(__file__).parent


def export(network, domain, regions, adjacency, linear_regions=None, summary=None):
    """A complete export: each region its own linear region unless told, the summary counted (``summary`` overrides)."""
    if linear_regions is None:
        linear_regions = [[i] for i in range(len(regions))]
    domain_dim = {"box": lambda: len(domain["lower"]), "segment": lambda: 1,
                  "slice": lambda: len(domain["directions"])}.get(domain["type"], lambda: network["input_dim"])()
    counts = {"input_dim": network["input_dim"], "domain_dim": domain_dim,
              "neurons": sum(len(layer["bias"]) for layer in network["layers"] if layer["activation"] != "linear"),
              "activation_regions": len(regions), "linear_regions": len(linear_regions),
              "adjacencies": len(adjacency), "exact": True, "engine": "lp"}
    return {"format": "polyregions.regions/1", "network": network, "domain": domain, "exact": True, "engine": "lp",
            "summary": {**counts, **(summary or {})}, "regions": regions, "adjacency": adjacency,
            "linear_regions": linear_regions}


def region(pattern, A, b, point, M, c):
    return {"pattern": pattern, "A": A, "b": b, "interior_point": point, "output_map": {"M": M, "c": c}}


def net(input_dim, *layers):
    return {"format": "polyregions.network/1", "input_dim": input_dim,
            "layers": [{"weight": w, "bias": b, "activation": a} for w, b, a in layers]}


def box2():
    return {"type": "box", "lower": [-1, -1], "upper": [1, 1]}


def one_neuron():
    """relu(x1) on [-1, 1]^2: the line x1 = 0 cuts the square in two."""
    return export(net(2, ([[1, 0]], [0], "relu")), box2(),
                  [region([0], [[1, 0]], [0], ["-1/2", 0], [[0, 0]], [0]),
                   region([1], [[-1, 0]], [0], ["1/2", 0], [[1, 0]], [0])],
                  [[0, 1, [0]]], linear_regions=[[0], [1]],
                  summary={"activation_regions": 2, "linear_regions": 2, "neurons": 1, "input_dim": 2,
                           "domain_dim": 2})


def crossing(domain=None):
    """relu(x1) + relu(x2): the two axes cut the domain into four quadrants."""
    regions, index = [], {}
    for p in itertools.product((0, 1), repeat=2):
        rows = [[1 if q == r else 0 for q in range(2)] for r in range(2)]
        A = [[-v for v in row] if p[r] else row for r, row in enumerate(rows)]
        point = ["1/2" if p[r] else "-1/2" for r in range(2)]
        index[p] = len(regions)
        regions.append(region(list(p), A, [0, 0], point, [list(p)], [0]))
    adjacency = [[index[p], index[q], [r for r in range(2) if p[r] != q[r]]]
                 for p, q in itertools.combinations(sorted(index), 2) if sum(u != v for u, v in zip(p, q)) == 1]
    return export(net(2, ([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")), domain or box2(), regions,
                  adjacency, linear_regions=[[i] for i in range(4)])


def orthants(d):
    """Coordinate ReLUs in [-1, 1]^d: 2^d orthants, adjacent when their patterns differ in one place."""
    regions, index = [], {}
    for p in itertools.product((0, 1), repeat=d):
        A = [[(-1 if p[r] else 1) if q == r else 0 for q in range(d)] for r in range(d)]
        index[p] = len(regions)
        regions.append(region(list(p), A, [0] * d, ["1/2" if v else "-1/2" for v in p], [list(p)], [0]))
    adjacency = [[index[p], index[q], [r for r in range(d) if p[r] != q[r]]]
                 for p, q in itertools.combinations(sorted(index), 2) if sum(u != v for u, v in zip(p, q)) == 1]
    identity = [[int(i == j) for j in range(d)] for i in range(d)]
    return export(net(d, (identity, [0] * d, "relu"), ([[1] * d], [0], "linear")),
                  {"type": "box", "lower": [-1] * d, "upper": [1] * d}, regions, adjacency)


def hardtanh_line():
    """hardtanh(2x) on [-2, 2]: pieces t <= -1/2, -1/2..1/2, >= 1/2 (pre-activation 2x against -1, 1)."""
    return export(net(1, ([[2]], [0], "hardtanh")), {"type": "box", "lower": [-2], "upper": [2]},
                  [region([0], [[1]], ["-1/2"], [-1], [[0]], [-1]),
                   region([1], [[-1], [1]], ["1/2", "1/2"], [0], [[2]], [0]),
                   region([2], [[-1]], ["-1/2"], [1], [[0]], [1])],
                  [[0, 1, [0]], [1, 2, [0]]], linear_regions=[[0], [1], [2]])


def segment_export():
    """relu(x1 + x2) along the segment from (-1, 0) to (1, 1): x = (-1 + 2t, t), pre-activation 3t - 1."""
    return export(net(2, ([[1, 1]], [0], "relu")), {"type": "segment", "start": [-1, 0], "end": [1, 1]},
                  [region([0], [[3]], [1], ["1/6"], [[0]], [0]),
                   region([1], [[-3]], [-1], ["2/3"], [[3]], [-1])],
                  [[0, 1, [0]]])


def failure(doc):
    result = verify_export(doc)
    assert not result.ok
    return result.failure


# ------------------------------------------------------------------------------------------- correct exports

@pytest.mark.parametrize("build", [one_neuron, crossing, hardtanh_line, segment_export],
                         ids=["one-neuron", "crossing", "hardtanh", "segment"])
def test_correct_exports_verify(build):
    result = verify_export(build())
    assert result.ok, result.report()
    assert result.lines[-1] == "verified"


@pytest.mark.parametrize("d", [1, 2, 3])
def test_orthants_verify_in_1_2_and_3_dimensions(d):
    result = verify_export(orthants(d))
    assert result.ok, result.report()


def test_regions_may_repeat_the_domain_rows():
    doc = one_neuron()
    doc["regions"][0]["A"] = [[-1, 0], [1, 0], [0, -1], [0, 1], [1, 0]]
    doc["regions"][0]["b"] = [1, 1, 1, 1, 0]
    assert verify_export(doc).ok


def test_unbounded_space_domain_is_checked_inside_a_large_box():
    doc = crossing({"type": "space"})
    result = verify_export(doc)
    assert result.ok, result.report()
    assert any("[-R, R]^2" in line for line in result.lines)
    del doc["regions"][3]
    doc["adjacency"] = [e for e in doc["adjacency"] if 3 not in e[:2]]
    doc["linear_regions"] = [[0], [1], [2]]
    assert "coverage" in failure(doc)


def test_bounded_polytope_domain(monkeypatch):
    # The triangle x1 >= -1, x2 >= -1, x1 + x2 <= 1 (legs of length 3, area 9/2) cut by x1 = 0.
    triangle = {"type": "polytope", "A": [[-1, 0], [0, -1], [1, 1]], "b": [1, 1, 1]}
    doc = one_neuron()
    doc["domain"] = triangle
    result = verify_export(doc)
    assert result.ok, result.report()
    assert any("domain's volume 9/2" in line and "cut" not in line for line in result.lines)
    import proofs_check.verify as verify_module
    monkeypatch.setattr(verify_module, "PAIRWISE_LIMIT", 1)
    result = verify_export(doc)
    assert result.ok and any("not tested pairwise" in line for line in result.lines)


def test_slice_domain():
    # The plane x3 = 1/2 through R^3, coordinates t -> (t1, t2, 1/2); relu(x1 - x3 + 1/2) switches at t1 = 0.
    doc = export(net(3, ([[1, 0, -1]], ["1/2"], "relu")),
                 {"type": "slice", "origin": [0, 0, "1/2"], "directions": [[1, 0, 0], [0, 1, 0]],
                  "lower": [-1, -1], "upper": [1, 1]},
                 [region([0], [[1, 0]], [0], ["-1/2", 0], [[0, 0]], [0]),
                  region([1], [[-1, 0]], [0], ["1/2", 0], [[1, 0]], [0])],
                 [[0, 1, [0]]])
    assert verify_export(doc).ok


def test_leaky_and_piecewise_linear_activations():
    leaky = {"kind": "leaky_relu", "negative_slope": "1/10"}
    doc = export(net(1, ([[1]], [0], leaky)), {"type": "box", "lower": [-1], "upper": [1]},
                 [region([0], [[1]], [0], ["-1/2"], [["1/10"]], [0]),
                  region([1], [[-1]], [0], ["1/2"], [[1]], [0])],
                 [[0, 1, [0]]])
    assert verify_export(doc).ok
    # Slopes 1, -1, 2 with breakpoints 0 and 1, offset 0: intercepts 0, 0, -3.
    pl = {"kind": "piecewise_linear", "breakpoints": [0, 1], "slopes": [1, -1, 2], "offset": 0}
    doc = export(net(1, ([[1]], [0], pl)), {"type": "box", "lower": [-1], "upper": [2]},
                 [region([0], [[1]], [0], ["-1/2"], [[1]], [0]),
                  region([1], [[-1], [1]], [0, 1], ["1/2"], [[-1]], [0]),
                  region([2], [[-1]], [-1], ["3/2"], [[2]], [-3])],
                 [[0, 1, [0]], [1, 2, [0]]])
    assert verify_export(doc).ok


def test_linear_regions_merge_regions_with_equal_maps():
    # relu(x1) + relu(-x1) - ... : relu(x) - relu(-x) = x, one linear region from two activation regions.
    doc = export(net(1, ([[1], [-1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")),
                 {"type": "box", "lower": [-1], "upper": [1]},
                 [region([0, 1], [[1]], [0], ["-1/2"], [[1]], [0]),
                  region([1, 0], [[-1]], [0], ["1/2"], [[1]], [0])],
                 [[0, 1, [0, 1]]], linear_regions=[[0, 1]], summary={"linear_regions": 1})
    assert verify_export(doc).ok
    doc["linear_regions"] = [[0], [1]]
    assert "linear_regions" in failure(doc)


# ------------------------------------------------------------------------------------------------- tampering

def test_altered_weight_is_rejected():
    doc = one_neuron()
    doc["network"]["layers"][0]["weight"] = [[2, 0]]
    assert failure(doc).startswith("region 1: output_map.M")
    doc = one_neuron()
    doc["network"]["layers"][0]["bias"] = ["3/4"]       # moves the switch to x1 = -3/4
    assert failure(doc).startswith("region 0: pattern")


def test_altered_pattern_entry_is_rejected():
    doc = crossing()
    doc["regions"][2]["pattern"][1] = 1
    assert failure(doc).startswith("region 2: pattern")


def test_altered_interior_point_is_rejected():
    doc = crossing()
    doc["regions"][1]["interior_point"] = ["-1/2", "-1/2"]   # region 1 is x1 < 0 < x2
    assert failure(doc).startswith("region 1: interior_point")
    doc = one_neuron()
    doc["regions"][0]["interior_point"] = [0, 0]              # on the boundary, not strictly inside
    assert failure(doc).startswith("region 0: interior_point")
    doc = one_neuron()
    doc["regions"][1]["interior_point"] = [2, 0]              # outside the domain
    assert "domain" in failure(doc)


def test_altered_output_map_constant_is_rejected():
    doc = one_neuron()
    doc["regions"][1]["output_map"]["c"] = ["1/1000000"]
    assert failure(doc).startswith("region 1: output_map.c")


def test_dropped_region_fails_coverage():
    doc = crossing()
    del doc["regions"][3]
    doc["adjacency"] = [e for e in doc["adjacency"] if 3 not in e[:2]]
    assert "coverage" in failure(doc)
    doc = hardtanh_line()
    del doc["regions"][1]
    doc["adjacency"] = []
    assert "gap" in failure(doc)
    for d in (3,):
        doc = orthants(d)
        del doc["regions"][5]
        doc["adjacency"] = [e for e in doc["adjacency"] if 5 not in e[:2]]
        doc["adjacency"] = [[i - (i > 5), j - (j > 5), labels] for i, j, labels in doc["adjacency"]]
        assert "coverage" in failure(doc)


def test_added_overlapping_region_is_rejected():
    doc = one_neuron()
    # A copy of region 1 cut to the upper half: a different polytope, the same pattern.
    doc["regions"].append(region([1], [[-1, 0], [0, -1]], [0, 0], ["1/2", "1/2"], [[1, 0]], [0]))
    assert "repeats region 1" in failure(doc)
    doc = one_neuron()
    # A region with its own pattern, but placed over region 1: its interior point has region 1's pattern.
    doc["network"] = net(2, ([[1, 0], [1, 0]], [0, -5], "relu"), ([[1, 1]], [0], "linear"))
    for r in doc["regions"]:
        r["pattern"].append(0)
    doc["regions"].append(region([1, 1], [[-1, 0]], [0], ["1/2", "1/2"], [[2, 0]], [-5]))
    doc["summary"]["neurons"] = 2
    assert failure(doc).startswith("region 2: pattern")


def test_region_larger_than_its_pattern_is_rejected():
    # Region 0 claims the whole square with pattern [0], region 1 is kept: the pattern is not constant.
    doc = one_neuron()
    doc["regions"][0]["A"], doc["regions"][0]["b"] = [[1, 0]], [1]
    assert "leaves piece 0" in failure(doc) or "overlap" in failure(doc)
    doc = one_neuron()
    del doc["regions"][1]
    doc["adjacency"], doc["linear_regions"] = [], [[0]]
    doc["regions"][0]["A"], doc["regions"][0]["b"] = [[1, 0]], [1]
    assert "leaves piece 0" in failure(doc)


def test_missing_or_wrong_adjacency_is_rejected():
    doc = crossing()
    del doc["adjacency"][0]
    assert "adjacency" in failure(doc) and "not covered" in failure(doc)
    doc = crossing()
    doc["adjacency"].append([0, 3, [0, 1]])                  # opposite quadrants meet only at the origin
    assert "share no 1-dimensional piece" in failure(doc)
    doc = crossing()
    doc["adjacency"][0][2] = [0, 1]
    assert failure(doc).startswith("adjacency[0]: neurons")
    doc = crossing()
    doc["adjacency"].append(list(reversed(doc["adjacency"][0][:2])) + [doc["adjacency"][0][2]])
    assert "listed twice" in failure(doc)
    doc = crossing()
    doc["adjacency"].append([1, 1, []])
    assert "itself" in failure(doc)
    doc = crossing()
    doc["adjacency"].append([0, 9, [0]])
    assert "out of range" in failure(doc)


def test_wrong_summary_is_rejected():
    doc = one_neuron()
    doc["summary"]["activation_regions"] = 3
    assert failure(doc).startswith("summary.activation_regions")


def test_no_regions_is_rejected():
    doc = one_neuron()
    doc["regions"], doc["adjacency"], doc["linear_regions"] = [], [], []
    assert "none listed" in failure(doc)


# ------------------------------------------------------------------------------------------ input and exits

@pytest.mark.parametrize("text, value", [(3, 3), (0.1, Fraction(3602879701896397, 36028797018963968)),
                                         ("0.1", Fraction(1, 10)), ("-7/12", Fraction(-7, 12)),
                                         ("1e-3", Fraction(1, 1000)), ("3", 3)])
def test_numbers(text, value):
    assert parse_number(text, "x") == value


@pytest.mark.parametrize("bad", ["", "1/0", "abc", float("nan"), float("inf"), True, None, [1], "1e99999"])
def test_bad_numbers(bad):
    with pytest.raises(InputError):
        parse_number(bad, "x")


def _run_main(tmp_path, doc_or_text, capsys):
    path = tmp_path / "export.json"
    path.write_text(doc_or_text if isinstance(doc_or_text, str) else json.dumps(doc_or_text))
    status = main([str(path)])
    out, err = capsys.readouterr()
    return status, out, err, str(path)


def test_exit_status_0_1_2(tmp_path, capsys):
    status, out, err, _ = _run_main(tmp_path, one_neuron(), capsys)
    assert status == 0 and out.strip().endswith("verified") and not err
    doc = one_neuron()
    doc["regions"][0]["pattern"] = [1]
    status, out, err, _ = _run_main(tmp_path, doc, capsys)
    assert status == 1 and "FAILED: region 0: pattern" in out
    doc = one_neuron()
    doc["network"]["layers"][0]["bias"] = ["1/0"]
    status, out, err, path = _run_main(tmp_path, doc, capsys)
    assert status == 2 and err == f"proofs_check: error: {path}: network.layers[0].bias[0]: expected a number, " \
                                  "got '1/0' (division by zero)\n"


@pytest.mark.parametrize("mutate, field", [
    (lambda d: d.pop("regions"), "regions: missing"),
    (lambda d: d.update(format="other"), "format"),
    (lambda d: d["regions"][0].update(A=[[1, 0, 0]]), "regions[0].A[0]"),
    (lambda d: d["regions"][0].update(pattern=[0, 0]), "regions[0].pattern"),
    (lambda d: d["domain"].update(type="ball"), "domain.type"),
    (lambda d: d["domain"].update(upper=[1, -1]), "domain"),
    (lambda d: d["network"]["layers"][0].update(activation="tanh"), "network.layers[0].activation"),
    (lambda d: d["adjacency"].append([0, 1]), "adjacency[1]"),
])
def test_unreadable_exports_exit_2_naming_the_field(tmp_path, capsys, mutate, field):
    doc = one_neuron()
    mutate(doc)
    status, out, err, path = _run_main(tmp_path, doc, capsys)
    assert status == 2 and err.startswith(f"proofs_check: error: {path}: {field}") and err.count("\n") == 1


def test_not_json_and_nan_exit_2(tmp_path, capsys):
    status, _, err, path = _run_main(tmp_path, "{not json", capsys)
    assert status == 2 and err.startswith(f"proofs_check: error: {path}: json:")
    text = json.dumps(one_neuron()).replace('"bias": [0]', '"bias": [NaN]')
    status, _, err, path = _run_main(tmp_path, text, capsys)
    assert status == 2 and "NaN" in err
    assert main([str(tmp_path / "missing.json")]) == 2


def test_module_entry_points(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(crossing()))
    for args in (["-m", "proofs_check.verify", str(path)], ["-m", "proofs_check", "verify", str(path)]):
        done = subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=HERE.parent)
        assert done.returncode == 0, done.stdout + done.stderr
        assert done.stdout.strip().endswith("verified")


def test_the_verifier_uses_the_standard_library_only():
    allowed = set(sys.stdlib_module_names) | {"proofs_check"}
    modules_checked = sorted(path.name for path in HERE.glob("*.py") if not path.name.startswith("test_"))
    assert {"verify.py", "geometry.py", "claims.py", "derived.py", "__main__.py"} <= set(modules_checked)
    for name in modules_checked:
        tree = ast.parse((HERE / name).read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or "proofs_check"] if node.level == 0 else ["proofs_check"]
            else:
                continue
            for module in modules:
                assert module.split(".")[0] in allowed, f"{name} imports {module}"


# ------------------------------------------------------------------------------------------------- geometry

def test_geometry_volumes_of_known_shapes():
    cube = geo.vertices(geo.box_rows(1, 3), 3)
    assert len(cube) == 8 and geo.volume(cube, 3) == 8
    simplex = [((-1, 0, 0), 0), ((0, -1, 0), 0), ((0, 0, -1), 0), ((1, 1, 1), 1)]
    assert geo.volume(geo.vertices(simplex, 3), 3) == Fraction(1, 6)
    hexagon = [geo.integer_row(a, b) for a, b in
               [((1, 0), 1), ((-1, 0), 1), ((0, 1), 1), ((0, -1), 1), ((1, 1), Fraction(3, 2)),
                ((-1, -1), Fraction(3, 2))]]
    assert geo.volume(geo.vertices(hexagon, 2), 2) == 4 - 2 * Fraction(1, 8)
    square4 = geo.vertices(geo.box_rows(1, 4), 4)
    assert len(square4) == 16 and geo.volume(square4, 4) == 16
    # A facet of the cube (x3 = 1): its 2-volume, measured without coordinate 2.
    face = frozenset(i for i, v in enumerate(cube) if v.point[2] == 1)
    assert geo.volume(cube, 2, face=face, drop=2) == 4


def test_geometry_limit_on_brute_force():
    with pytest.raises(geo.TooLarge):
        geo.vertices(geo.box_rows(1, 3), 3, max_subsets=5)
    doc = orthants(3)
    result = verify_export(doc, max_subsets=5)
    assert not result.ok and "too large" in result.failure


# ------------------------------------------------------------------------------------- property-based checks

from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def grid(thresholds):
    """sum_q sum_c relu(x_q - c) on [-1, 1]^d: the thresholds cut the box into a grid of boxes, one region each.

    ``thresholds[q]`` are the distinct cut points of coordinate q, inside (-1, 1). Every region repeats all its
    cutting rows (redundant ones included), so the verifier also sees redundant inequalities.
    """
    d = len(thresholds)
    cuts = [sorted(set(ts)) for ts in thresholds]
    neurons = [(q, c) for q in range(d) for c in cuts[q]]
    weight = [[int(i == q) for i in range(d)] for q, _ in neurons]
    network = net(d, (weight, [str(-c) for _, c in neurons], "relu"), ([[1] * len(neurons)], [0], "linear"))
    regions, index = [], {}
    for cell in itertools.product(*(range(len(c) + 1) for c in cuts)):
        ends = [[Fraction(-1)] + cuts[q] + [Fraction(1)] for q in range(d)]
        point = [(ends[q][cell[q]] + ends[q][cell[q] + 1]) / 2 for q in range(d)]
        pattern = [int(point[q] > c) for q, c in neurons]
        A, b = [], []
        for (q, c), on in zip(neurons, pattern):
            A.append([(-1 if on else 1) * int(i == q) for i in range(d)])
            b.append(str(-c if on else c))
        M = [[sum(on for (q2, _), on in zip(neurons, pattern) if q2 == q) for q in range(d)]]
        const = [str(-sum((c for (_, c), on in zip(neurons, pattern) if on), Fraction(0)))]
        index[cell] = len(regions)
        regions.append(region(pattern, A, b, [str(x) for x in point], M, const))
    adjacency = []
    for cell, i in index.items():
        for q in range(d):
            other = cell[:q] + (cell[q] + 1,) + cell[q + 1:]
            if other in index:
                adjacency.append([i, index[other], [neurons.index((q, cuts[q][cell[q]]))]])
    return export(network, {"type": "box", "lower": [-1] * d, "upper": [1] * d}, regions, adjacency,
                  linear_regions=[[i] for i in range(len(regions))])


cut_points = st.lists(st.fractions(min_value=Fraction(-9, 10), max_value=Fraction(9, 10), max_denominator=20),
                      min_size=0, max_size=3, unique=True)


@settings(max_examples=15)
@given(st.lists(cut_points, min_size=1, max_size=2).filter(lambda ts: any(ts)), st.data())
def test_grids_verify_and_any_tampering_fails(thresholds, data):
    doc = grid(thresholds)
    result = verify_export(doc)
    assert result.ok, result.report()
    n, neurons = len(doc["regions"]), len(doc["regions"][0]["pattern"])
    if n > 1:
        dropped = copy.deepcopy(doc)
        k = data.draw(st.integers(0, n - 1))
        del dropped["regions"][k]
        dropped["adjacency"] = [[i - (i > k), j - (j > k), labels] for i, j, labels in dropped["adjacency"]
                                if k not in (i, j)]
        dropped["linear_regions"] = [[i] for i in range(n - 1)]
        assert not verify_export(dropped).ok
    if neurons:
        flipped = copy.deepcopy(doc)
        k, q = data.draw(st.integers(0, n - 1)), data.draw(st.integers(0, neurons - 1))
        flipped["regions"][k]["pattern"][q] ^= 1
        assert "pattern" in failure(flipped)


@given(st.integers(1, 6).flatmap(lambda n: st.lists(
    st.tuples(st.tuples(*[st.integers(-4, 4)] * n), st.integers(-9, 9)), min_size=n, max_size=n)))
def test_fraction_free_solve_matches_cramer(rows):
    fast, slow = geo._solve(rows), geo._cramer(rows)
    assert (fast is None) == (slow is None)
    if fast is not None:
        assert [Fraction(v, fast[1]) for v in fast[0]] == [Fraction(v, slow[1]) for v in slow[0]]


@given(st.lists(st.tuples(st.fractions(-3, 3, max_denominator=7), st.fractions(1, 4, max_denominator=7)),
                min_size=1, max_size=4))
def test_box_volumes(sides):
    rows = []
    for q, (low, width) in enumerate(sides):
        unit = [Fraction(int(i == q)) for i in range(len(sides))]
        rows += [geo.integer_row([-v for v in unit], -low), geo.integer_row(unit, low + width)]
    expected = Fraction(1)
    for _, width in sides:
        expected *= width
    verts = geo.vertices(rows, len(sides))
    assert len(verts) == 2 ** len(sides) and geo.volume(verts, len(sides)) == expected


# ------------------------------------------------------------------------------------ real polyregions exports

def _real_cases():
    from polyregions.networks.activations import hardtanh, relu
    from polyregions.networks.network import Network
    from polyregions.regions import domains as dom

    net2 = Network.from_layers(2, [([[1, 2], [-1, 1], [1, -1]], [0, "1/3", "-1/4"], relu()),
                                   ([[1, 1, -1], [2, -1, 1]], [0, "1/2"], relu()), ([[1, -1]], [0], "linear")])
    net3 = Network.from_layers(3, [([[1, 0, 1], [0, 1, -1], [1, 1, 1], [1, -2, 0]], [0, "1/5", "-1/3", "1/7"],
                                    hardtanh()), ([[1, -1, 1, 1]], ["1/9"], relu())])
    return [("box lp", net2, dom.box([-1, -1], [1, 1]), "lp"),
            ("box mesh", net2, dom.box([-1, -1], [1, 1]), "mesh"),
            ("space", net2, dom.space(2), "lp"),
            ("segment", net2, dom.segment([-1, -1], [1, "1/2"]), "auto"),
            ("slice", net3, dom.slice_domain([0, 0, "1/4"], [[1, 0, 0], [0, 1, 1]], [-1, -1], [1, 1]), "auto"),
            ("box 3-D", net3, dom.box([-1, -1, -1], [1, 1, 1]), "lp")]


@pytest.mark.parametrize("index", range(6), ids=["box-lp", "box-mesh", "space", "segment", "slice", "box-3d"])
def test_real_exports_verify(index, tmp_path):
    from polyregions.regions.enumeration import enumerate_regions
    from polyregions.regions.export import complex_to_json, write_complex_json

    name, network, domain, engine = _real_cases()[index]
    complex_ = enumerate_regions(network, domain, engine=engine)
    path = tmp_path / "complex.json"
    write_complex_json(complex_, path)
    assert main([str(path), "--quiet"]) == 0
    doc = json.loads(json.dumps(complex_to_json(complex_)))
    result = verify_export(doc)
    assert result.ok, result.report()
    assert doc["summary"]["activation_regions"] == len(complex_) >= 2
    # Dropping one adjacency, or one region, makes the same export fail.
    broken = copy.deepcopy(doc)
    del broken["adjacency"][len(broken["adjacency"]) // 2]
    assert not verify_export(broken).ok
    broken = copy.deepcopy(doc)
    k = len(broken["regions"]) // 2
    del broken["regions"][k]
    broken["adjacency"] = [[i - (i > k), j - (j > k), labels] for i, j, labels in broken["adjacency"]
                           if k not in (i, j)]
    failure_message = failure(broken)
    assert "coverage" in failure_message or "gap" in failure_message
