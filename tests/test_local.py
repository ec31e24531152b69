"""Local complexity: regions and crossing neurons around points, checked against counts known by hand."""

import json
from fractions import Fraction
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import polyregions as pr
from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.measures.local import LocalComplexity, load_points, local_complexity
from polyregions.networks.io import save_network

ENGINES = ["complex", "cells"]
NORMS = ["inf", "1", "2"]


def _lines(rows, offsets):
    """One ReLU per hyperplane ``a . x + c = 0`` (rows ``a``, offsets ``c``), summed into one output."""
    return pr.Network.from_layers(len(rows[0]), [(rows, offsets, "relu"), ([[1] * len(rows)], [0], "linear")])


# --- the sawtooth: 2^n pieces of length 2^-n on [0, 1] ------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
@given(n=st.integers(1, 4), a=st.fractions(0, 1, max_denominator=64), b=st.fractions(0, 1, max_denominator=64))
def test_sawtooth_counts_the_pieces_an_interval_overlaps(engine, n, a, b):
    if a == b:
        return
    a, b = min(a, b), max(a, b)
    centre, radius = (a + b) / 2, (b - a) / 2
    # The open interval (a, b) meets the pieces [j/2^n, (j+1)/2^n] it overlaps: one more than the breakpoints in it.
    inside = sum(1 for j in range(1, 2 ** n) if a < Fraction(j, 2 ** n) < b)
    for norm in NORMS:  # in one dimension the three balls are the same interval
        result = local_complexity(pr.sawtooth(n), [[centre]], radius, norm=norm, engine=engine)
        assert result.activation_regions.tolist() == [inside + 1]
        assert result.linear_regions.tolist() == [inside + 1]  # neighbouring pieces have slopes 2^n and -2^n


def test_sawtooth_of_depth_three_around_three_points():
    result = local_complexity(pr.sawtooth(3), [["1/2"], ["3/16"], ["1/16"]], "1/8")
    assert result.activation_regions.tolist() == [2, 3, 3]
    assert result.neurons_crossing.tolist() == [1, 2, 2] and result.exact


# --- one layer: lines cutting a box --------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_one_generic_line_through_the_box_makes_two_regions(engine):
    net = _lines([[3, -7]], [1])
    result = local_complexity(net, [[0, 0], [5, 5]], "1/2", engine=engine)
    assert result.activation_regions.tolist() == [2, 1]
    assert result.linear_regions.tolist() == [2, 1]
    assert result.crossing == ((0,), ())


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("k", [2, 3, 5])
def test_lines_that_do_not_meet_in_the_box_make_k_plus_one_regions(engine, k):
    from polyregions.exact.linalg import solve

    # Nearly parallel lines x + (i/100) y = i/(4k) through the box (-1/2, 1/2)^2; they meet far outside it.
    rows = [[1, Fraction(i, 100)] for i in range(k)]
    offsets = [-Fraction(i, 4 * k) for i in range(k)]
    for i, j in combinations(range(k), 2):
        crossing = solve([rows[i], rows[j]], [-offsets[i], -offsets[j]])
        assert max(abs(v) for v in crossing) > Fraction(1, 2)  # outside the box
    result = local_complexity(_lines(rows, offsets), [[0, 0]], "1/2", engine=engine)
    assert result.activation_regions.tolist() == [k + 1]
    assert result.neurons_crossing.tolist() == [k]


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("dim, rows, offsets", [
    (2, [[1, 0], [0, 1], [1, 1], [1, -2]], ["-1/10", "1/10", "1/20", "1/30"]),
    (3, [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 1], [1, -2, 3]], ["1/10", "-1/10", "1/20", "1/30", "-1/40"]),
])
def test_an_arrangement_in_general_position_inside_the_box_follows_zaslavsky(engine, dim, rows, offsets):
    # General position with every vertex inside the box: each region of the arrangement meets the box, so the
    # count is Zaslavsky's sum_{i <= dim} C(k, i).
    from polyregions.arrangements import Arrangement, is_generic
    from polyregions.exact.linalg import solve

    offsets = [Fraction(c) for c in offsets]
    arrangement = Arrangement([[*r, -c] for r, c in zip(rows, offsets)])
    assert is_generic(arrangement)
    for chosen in combinations(range(len(rows)), dim):
        vertex = solve([rows[i] for i in chosen], [-offsets[i] for i in chosen])
        assert max(abs(v) for v in vertex) < 1
    expected = sum(comb(len(rows), i) for i in range(dim + 1))
    assert arrangement.num_regions() == expected
    result = local_complexity(_lines(rows, offsets), [[0] * dim], 1, engine=engine)
    assert result.activation_regions.tolist() == [expected]
    assert result.neurons_crossing.tolist() == [len(rows)]


# --- the norms: exact boundaries ---------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_a_hyperplane_exactly_at_the_radius_does_not_cross(engine):
    # 3x + 4y = 10: Euclidean distance 2 from the origin, l1 distance 10/4 (max-norm ball), max distance 10/3.
    net = _lines([[3, 4]], [-10])
    for norm, touching in (("2", 2), ("inf", Fraction(10, 7)), ("1", Fraction(10, 4))):
        at = local_complexity(net, [[0, 0]], touching, norm=norm, engine=engine)
        beyond = local_complexity(net, [[0, 0]], touching + Fraction(1, 2 ** 80), norm=norm, engine=engine)
        assert at.activation_regions.tolist() == [1] and at.crossing == ((),), norm
        assert beyond.activation_regions.tolist() == [2] and beyond.crossing == ((0,),), norm


@pytest.mark.parametrize("seed", [0, 1])
def test_the_balls_are_nested_so_the_counts_are_monotone(seed):
    # The l1 ball lies in the Euclidean ball, which lies in the box (the same radius).
    net = pr.he_normal([3, 6, 6], seed=seed, bias_std=0.5, output_dim=1)
    points = np.random.default_rng(seed).normal(size=(6, 3))
    results = [local_complexity(net, points, "3/4", norm=norm, engine="cells") for norm in ("1", "2", "inf")]
    for key in ("activation_regions", "neurons_crossing"):
        small, middle, large = (getattr(r, key) for r in results)
        assert (small <= middle).all() and (middle <= large).all(), key
    for small, middle, large in zip(*(r.crossing for r in results)):
        assert set(small) <= set(middle) <= set(large)


@pytest.mark.parametrize("dim, activation", [(1, "relu"), (2, "relu"), (2, pr.hardtanh()), (3, pr.leaky_relu("1/10")),
                                             (2, pr.piecewise_linear([-1, 0, "1/2"], [0, 1, -1, 2]))])
def test_the_two_engines_agree(dim, activation):
    net = pr.he_normal([dim, 4, 4], seed=dim, bias_std=0.4, activation=activation, output_dim=1)
    points = np.random.default_rng(3).normal(size=(4, dim))
    for norm in NORMS:
        complex_ = local_complexity(net, points, "3/4", norm=norm, engine="complex")
        cells = local_complexity(net, points, "3/4", norm=norm, engine="cells")
        assert complex_.summary() == cells.summary() and complex_.crossing == cells.crossing, norm


def test_the_engines_agree_on_degenerate_integer_networks():
    # Small integer weights: hyperplanes through the points, coinciding and touching the boxes.
    rng = np.random.default_rng(5)
    for _ in range(3):
        first = (rng.integers(-2, 3, size=(4, 2)).tolist(), rng.integers(-1, 2, size=4).tolist(), "relu")
        net = pr.Network.from_layers(2, [first, (rng.integers(-2, 3, size=(3, 4)).tolist(), [0, 1, -1], "relu")])
        points = (rng.integers(-4, 5, size=(5, 2)) / 4).tolist()
        for norm in NORMS:
            complex_ = local_complexity(net, points, "1/2", norm=norm, engine="complex")
            cells = local_complexity(net, points, "1/2", norm=norm, engine="cells")
            assert complex_.summary() == cells.summary() and complex_.crossing == cells.crossing


# --- crossing, precisely -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("engine", ENGINES)
def test_neurons_that_touch_or_stay_constant_do_not_cross(engine):
    # Layer 1: relu(x), relu(-x). Layer 2: |x| (touches 0 at x = 0), x (crosses along the layer-1 boundary),
    # and 0 * ... (identically zero: a dead neuron at its breakpoint).
    net = pr.Network.from_layers(1, [([[1], [-1]], [0, 0], "relu"), ([[1, 1], [1, -1], [0, 0]], [0, 0, 0], "relu")])
    result = local_complexity(net, [[0]], 1, engine=engine)
    assert result.crossing == ((0, 1, 3),)
    assert result.activation_regions.tolist() == [2]


# --- batches, many dimensions --------------------------------------------------------------------------------------

def test_batched_and_one_by_one_agree():
    net = pr.he_normal([4, 8, 8], seed=2, bias_std=0.3)
    points = np.random.default_rng(2).normal(size=(8, 4))
    batch = local_complexity(net, points, "1/2")
    alone = [local_complexity(net, points[i:i + 1], "1/2") for i in range(len(points))]
    for key in ("activation_regions", "linear_regions", "neurons_crossing"):
        assert getattr(batch, key).tolist() == [int(getattr(r, key)[0]) for r in alone]
    assert batch.crossing == tuple(r.crossing[0] for r in alone)


def test_exact_points_and_float_arrays_give_the_same_counts():
    net = pr.he_normal([2, 5, 5], seed=4, bias_std=0.2)
    points = np.random.default_rng(4).normal(size=(5, 2))
    exact = [[Fraction(v) for v in row] for row in points.tolist()]
    assert local_complexity(net, points, "1/3").summary() == local_complexity(net, exact, "1/3").summary()


def test_784_dimensional_network_on_digits_sized_inputs():
    # The benchmark's network at unit-test size: 20 points of [0, 1]^784, a small box.
    net = pr.he_normal([784, 64, 64, 64], seed=0)
    points = np.random.default_rng(0).random((20, 784))
    result = local_complexity(net, points, "1/10000")
    assert len(result) == 20 and result.exact
    assert (result.activation_regions >= result.linear_regions).all() and (result.linear_regions >= 1).all()
    # Generic weights: every crossing neuron adds a region.
    assert (result.activation_regions >= result.neurons_crossing + 1).all()
    assert (result.activation_regions > 1).any() and (result.activation_regions == 1).any()
    # Exact patterns of points sampled in a box are among the regions counted there.
    rng = np.random.default_rng(1)
    for i in np.flatnonzero(result.activation_regions > 1)[:2].tolist():
        centre = [Fraction(v) for v in points[i].tolist()]
        seen = {net.pattern([c + Fraction(int(s), 10 ** 4 * 2 ** 20) for c, s in zip(centre, row)])
                for row in rng.integers(-(2 ** 20) + 1, 2 ** 20, size=(12, 784))}
        assert len(seen) <= result.activation_regions[i]


# --- input checks, files and the command line ----------------------------------------------------------------------

@pytest.mark.parametrize("kwargs, match", [
    ({"norm": "max"}, "norm: expected one of inf, 1, 2"),
    ({"engine": "fast"}, "engine: expected one of"),
    ({"radius": 0}, "radius: expected a positive number, got 0"),
    ({"radius": "abc"}, "radius"),
    ({"points": [[0, 0, 0]]}, r"points\[0\]: expected 2 numbers"),
    ({"points": np.zeros((2, 3))}, r"expected an array of shape \(count, 2\)"),
    ({"points": np.array([[np.nan, 0.0]])}, "finite"),
])
def test_bad_input_is_rejected_with_the_field(kwargs, match):
    args = {"points": [[0, 0]], "radius": 1, **kwargs}
    with pytest.raises(InvalidInputError, match=match):
        local_complexity(pr.he_normal([2, 3], seed=0), args.pop("points"), args.pop("radius"), **args)


def test_the_complex_engine_writes_out_the_l1_ball_only_in_low_dimension():
    net = pr.he_normal([11, 2], seed=0)
    with pytest.raises(InvalidInputError, match="engine: expected \"cells\" for the l1 ball in dimension 11"):
        local_complexity(net, [[0] * 11], 1, norm="1", engine="complex")
    assert len(local_complexity(net, [[0] * 11], "1/1000", norm="1")) == 1


def test_points_files(tmp_path):
    (tmp_path / "p.json").write_text('[[0, "1/3"], [0.5, -1]]')
    assert load_points(tmp_path / "p.json", input_dim=2) == [(0, Fraction(1, 3)), (Fraction(1, 2), -1)]
    array = np.array([[0.25, 1.0], [2.0, -0.5]], dtype=np.float32)
    np.save(tmp_path / "p.npy", array)
    assert load_points(tmp_path / "p.npy", input_dim=2).tolist() == array.tolist()
    np.savez(tmp_path / "named.npz", other=np.zeros(3), points=array)
    np.savez(tmp_path / "single.npz", array.astype(np.int64))
    assert load_points(tmp_path / "named.npz", input_dim=2).dtype == np.float64
    assert load_points(tmp_path / "single.npz", input_dim=2) == [(0, 1), (2, 0)]


@pytest.mark.parametrize("name, content, match", [
    ("p.json", '{"points": []}', "p.json: expected a JSON list of points, got dict"),
    ("p.json", '[[0, 1], [0, "x"]]', r"p.json: points\[1\]\[1\]"),
    ("p.json", '[[0, 1], [0]]', r"p.json: points\[1\]: expected 2 numbers"),
    ("p.json", "[[0, 1]", "p.json: expected JSON"),
    ("p.npy", np.zeros((3, 5)), r"p.npy: points: expected an array of shape \(count, 2\), got \(3, 5\)"),
    ("p.npz", {"a": np.zeros((1, 2)), "b": np.zeros((1, 2))}, 'p.npz: points: expected an array named "points"'),
    ("p.npy", np.array([["a", "b"]]), "p.npy: points: expected an array of numbers"),
])
def test_bad_points_files_name_the_file_and_the_field(tmp_path, name, content, match):
    path = tmp_path / name
    if isinstance(content, str):
        path.write_text(content)
    elif isinstance(content, dict):
        np.savez(path, **content)
    else:
        np.save(path, content)
    with pytest.raises(InvalidInputError, match=match):
        load_points(path, input_dim=2)


def test_command_line_json_contract(tmp_path, capsys):
    network = tmp_path / "saw.json"
    save_network(pr.sawtooth(3), network)
    points = tmp_path / "points.json"
    points.write_text('[["1/2"], ["3/16"], [0.0625]]')
    assert main(["local", str(network), "--points", str(points), "--radius", "1/8", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {"points": 3, "activation_regions": [2, 3, 3], "linear_regions": [2, 3, 3],
                   "neurons_crossing": [1, 2, 2], "exact": True}
    assert main(["local", str(network), "--points", str(points), "--radius", "1/8", "--norm", "2"]) == 0
    assert "3 points, each in a ball of radius 1/8 (exact)" in capsys.readouterr().out


@pytest.mark.parametrize("args, message", [
    (["--radius", "0"], "polyregions: error: --radius: expected a positive number, got 0"),
    (["--radius", "x"], "polyregions: error: --radius"),
    (["--radius", "1", "--points-file-is", "bad.json"], "polyregions: error:"),
])
def test_command_line_errors(tmp_path, capsys, args, message):
    network = tmp_path / "saw.json"
    save_network(pr.sawtooth(2), network)
    points = tmp_path / "points.json"
    points.write_text('[[0]]')
    with pytest.raises(SystemExit) as stop:
        main(["local", str(network), "--points", str(points), *args])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(message)


def test_command_line_bad_points_file(tmp_path, capsys):
    network = tmp_path / "saw.json"
    save_network(pr.sawtooth(2), network)
    points = tmp_path / "points.json"
    points.write_text('[[0, 1]]')
    with pytest.raises(SystemExit) as stop:
        main(["local", str(network), "--points", str(points), "--radius", "1"])
    assert stop.value.code == 2
    assert capsys.readouterr().err.strip() == f"polyregions: error: {points}: points[0]: expected 1 numbers, got 2"


def test_result_is_frozen():
    result = local_complexity(pr.sawtooth(1), [[0]], 1)
    assert isinstance(result, LocalComplexity)
    with pytest.raises(AttributeError):
        result.radius = 2  # type: ignore[misc]
