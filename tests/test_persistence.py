"""Sublevel persistence and PL Morse points: closed forms exactly, both routes and both reductions agree,
degenerate networks equal their generic rewrites, the diagram's Betti numbers against the decision topology, the
command and the time beside the enumeration."""

from __future__ import annotations

import json
import math
from fractions import Fraction

import pytest
from cpu_clock import timed
from hypothesis import given, settings
from hypothesis import strategies as st

import polyregions as pr
from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.measures.persistence import persistence
from polyregions.measures.topology import decision_topology

INF = math.inf

# --- constructions with exact integer weights -------------------------------------------------------------------


def _abs_units(dim, center=None):
    """``relu(+-(x_i - c_i))`` for every coordinate: they sum to ``|x - c|_1``."""
    center = center or [0] * dim
    weight, bias = [], []
    for i in range(dim):
        for s in (1, -1):
            row = [0] * dim
            row[i] = s
            weight.append(row)
            bias.append(-s * Fraction(center[i]))
    return weight, bias


def l1(dim):
    """``|x|_1``."""
    w, b = _abs_units(dim)
    return pr.Network.from_layers(dim, [(w, b, "relu"), ([[1] * len(w)], [0], "linear")])


def double_well(dim):
    """``min(|x_0 - 1|, |x_0 + 1|) + |x_1| + ...``: minima 0 at ``x_0 = +-1``, a saddle of value 1 at 0."""
    w1, b1 = _abs_units(1, [1])
    w2, b2 = _abs_units(1, [-1])
    rest_w, rest_b = _abs_units(dim - 1) if dim > 1 else ([], [])
    first = [row + [0] * (dim - 1) for row in w1 + w2] + [[0] + row for row in rest_w]
    bias = b1 + b2 + rest_b
    n_rest = len(rest_w)
    # a = |x_0 - 1|, b = |x_0 + 1|, r = |rest|_1; then min(a, b) = a - relu(a - b).
    second = [[1, 1, 0, 0] + [0] * n_rest, [0, 0, 1, 1] + [0] * n_rest, [0, 0, 0, 0] + [1] * n_rest]
    third = [[1, 0, 0], [1, -1, 0], [0, 0, 1]]
    return pr.Network.from_layers(dim, [(first, bias, "relu"), (second, [0, 0, 0], "relu"),
                                        (third, [0, 0, 0], "relu"), ([[1, -1, 1]], [0], "linear")])


def annulus(sign=1):
    """``sign (| |x|_1 - 1 | - 1/2)``: for ``sign = 1`` its sublevel set at 0 is an annulus around the diamond."""
    w, b = _abs_units(2)
    ones = [1] * len(w)
    return pr.Network.from_layers(2, [(w, b, "relu"), ([ones, [-v for v in ones]], [-1, 1], "relu"),
                                      ([[sign, sign]], [-sign * Fraction(1, 2)], "linear")])


def lower_by(network, t):
    """``t - f``: its set ``>= 0`` is ``{f <= t}``."""
    layers = list(network.layers)
    last = layers[-1]
    new = pr.Layer(tuple(tuple(-v for v in row) for row in last.weight),
                   tuple(Fraction(t) - v for v in last.bias), last.activation)
    return pr.Network(network.input_dim, tuple(layers[:-1]) + (new,))


def check_invariants(result):
    """Morse inequalities, Euler characteristic and the domain's Betti numbers, on every result."""
    d = result.dim
    point = (1,) + (0,) * d
    assert result.betti == point
    counts = result.morse_counts
    assert sum((-1) ** k * c for k, c in enumerate(counts)) == 1  # chi of the domain
    assert sum((-1) ** k for p in result.critical_points for k in p.indices) == 1
    for k in range(d + 1):
        assert counts[k] >= point[k]
        assert sum((-1) ** (k - j) * (counts[j] - point[j]) for j in range(k + 1)) >= 0
    for _, b, death in result.pairs:
        assert isinstance(b, Fraction) and (death == INF or (isinstance(death, Fraction) and b < death))
    # every critical value changes the diagram's Betti numbers or is a cancelling pair's value at one vertex
    assert {b for _, b, _ in result.pairs} <= set(result.critical_values)
    return result


# --- closed forms ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dim", [1, 2, 3])
def test_l1_norm_has_one_minimum_and_no_other_class(dim):
    box = pr.box([-1] * dim, [2] * dim)
    for result in (persistence(l1(dim), box), persistence(pr.enumerate_regions(l1(dim), box))):
        check_invariants(result)
        assert result.pairs == ((0, Fraction(0), INF),)
        assert [(p.point, p.value, p.index) for p in result.critical_points] == [((Fraction(0),) * dim, 0, 0)]


@pytest.mark.parametrize("dim", [1, 2])
def test_double_well_two_minima_one_dies_at_the_saddle(dim):
    result = check_invariants(persistence(double_well(dim), pr.box([-2] * dim, [2] * dim)))
    assert result.pairs == ((0, Fraction(0), Fraction(1)), (0, Fraction(0), INF))
    minima = sorted(p.point for p in result.critical_points if p.index == 0)
    assert minima == [(Fraction(-1),) + (Fraction(0),) * (dim - 1), (Fraction(1),) + (Fraction(0),) * (dim - 1)]
    saddle = [p for p in result.critical_points if p.index == 1]
    expected = ((Fraction(0),) * dim, 1, (0, 1) + (0,) * (dim - 1))
    assert [(p.point, p.value, p.lower_link_betti) for p in saddle] == [expected]
    birth, death = result.pair_points[0]
    assert death == (Fraction(0),) * dim and birth in minima


def test_annulus_has_one_loop_born_at_the_ring_and_dying_at_the_centre():
    result = check_invariants(persistence(annulus(), pr.box([-2, -2], [2, 2])))
    assert result.pairs == ((0, Fraction(-1, 2), INF), (1, Fraction(-1, 2), Fraction(1, 2)))
    assert result.betti_at(0) == (1, 1, 0)
    assert result.betti_at(Fraction(1, 2)) == (1, 0, 0)
    centre = [p for p in result.critical_points if p.index == 2]
    assert [(p.point, p.value) for p in centre] == [((0, 0), Fraction(1, 2))]
    negated = check_invariants(persistence(annulus(-1), pr.box([-2, -2], [2, 2])))
    # 1/2 - | |x|_1 - 1 |: {f <= t} is |x|_1 >= 3/2 - t (four corners of the box, value -5/2, joined at the
    # middles of the box's sides at -1/2 into a ring) and |x|_1 <= 1/2 + t (born at the centre at -1/2); the
    # two meet on the diamond at 1/2, which kills the centre's component and fills the ring's loop.
    half, low = Fraction(1, 2), Fraction(-5, 2)
    assert negated.pairs == ((0, low, -half),) * 3 + ((0, low, INF), (0, -half, half), (1, -half, half))


def test_plateau_is_one_class_with_ties_broken_by_the_vertex_order():
    w, b = _abs_units(2)
    flat = pr.Network.from_layers(2, [(w, b, "relu"), ([[1, 1, 1, 1]], [-1], "relu"), ([[1]], [0], "linear")])
    result = check_invariants(persistence(flat, pr.box([-2, -2], [2, 2])))
    assert result.pairs == ((0, Fraction(0), INF),)
    assert result.zero_pairs[0] > 0  # the plateau's vertices enter at one value and cancel


# --- routes, reductions and fields agree ------------------------------------------------------------------------

def _networks():
    return [(l1(2), pr.box([-1, -1], [2, 1])), (double_well(2), pr.box([-2, -2], [2, 2])),
            (annulus(), pr.box([-2, -2], [2, 2])), (annulus(-1), pr.box([-2, -2], [2, 2])),
            (double_well(1), pr.box([-3], [3])), (pr.he_normal([2, 8, 8], seed=3, output_dim=1),
                                                  pr.box([-1, -1], [1, 1]))]


@pytest.mark.parametrize("case", range(6))
def test_mesh_cells_face_complex_matrix_and_q_agree(case):
    network, box = _networks()[case]
    fast = check_invariants(persistence(network, box))
    complex_ = pr.enumerate_regions(network, box)
    for other in (persistence(complex_), persistence(complex_, method="matrix"),
                  persistence(network, box, field="Q"), persistence(complex_, field="Q", method="matrix"),
                  persistence(network, box, engine="lp")):
        check_invariants(other)
        assert other.pairs == fast.pairs


def test_three_dimensions_fast_matrix_and_q_agree():
    network = double_well(3)
    complex_ = pr.enumerate_regions(network, pr.box([-2, -2, -2], [2, 2, 2]))
    results = [check_invariants(persistence(complex_, field=field, method=method))
               for field in ("GF(2)", "Q") for method in ("fast", "matrix")]
    assert all(r.pairs == ((0, Fraction(0), Fraction(1)), (0, Fraction(0), INF)) for r in results)
    shell = pr.Network.from_layers(3, [(*_abs_units(3), "relu"), ([[1] * 6, [-1] * 6], [-1, 1], "relu"),
                                       ([[1, 1]], [Fraction(-1, 2)], "linear")])
    complex_ = pr.enumerate_regions(shell, pr.box([-2, -2, -2], [2, 2, 2]))
    results = [check_invariants(persistence(complex_, field=field, method=method))
               for field in ("GF(2)", "Q") for method in ("fast", "matrix")]
    # a hollow octahedral shell: an H2 class born at -1/2, filled at the centre at 1/2
    assert all(r.pairs == ((0, Fraction(-1, 2), INF), (2, Fraction(-1, 2), Fraction(1, 2))) for r in results)


# --- degenerate networks equal their generic rewrites ------------------------------------------------------------

def test_tied_dead_and_concurrent_units_leave_the_diagram_unchanged():
    box = pr.box([-2, -2], [2, 2])
    base = persistence(double_well(2), box)
    w, b = _abs_units(2)
    plain = persistence(l1(2), box)
    # tied: every unit split in two halves; dead: a unit never active; concurrent: lines through 0 unused
    tied = pr.Network.from_layers(2, [(w + w, b + b, "relu"), ([[Fraction(1, 2)] * 8], [0], "linear")])
    dead = pr.Network.from_layers(2, [(w + [[0, 0]], b + [-1], "relu"), ([[1, 1, 1, 1, 5]], [0], "linear")])
    lines = [[1, 1], [1, -1], [2, 1], [1, 2], [1, -3]]
    concurrent = pr.Network.from_layers(2, [(w + lines, b + [0] * 5, "relu"), ([[1] * 4 + [0] * 5], [0], "linear")])
    for network in (tied, dead, concurrent):
        result = check_invariants(persistence(network, box))
        assert result.pairs == plain.pairs
        assert check_invariants(persistence(pr.enumerate_regions(network, box, engine="lp"))).pairs == plain.pairs
    assert check_invariants(persistence(double_well(2), box, engine="lp")).pairs == base.pairs


# --- the diagram against the decision topology of f - t ------------------------------------------------------------

_weights = st.integers(-2, 2)


@settings(max_examples=25, deadline=None)
@given(st.lists(_weights, min_size=6, max_size=6), st.lists(_weights, min_size=3, max_size=3),
       st.lists(_weights, min_size=9, max_size=9), st.lists(_weights, min_size=3, max_size=3),
       st.lists(_weights, min_size=3, max_size=3), _weights)
def test_diagram_betti_numbers_are_those_of_every_sublevel_set(w1, b1, w2, b2, w3, b3):
    network = pr.Network.from_layers(2, [([w1[0:2], w1[2:4], w1[4:6]], b1, "relu"),
                                         ([w2[0:3], w2[3:6], w2[6:9]], b2, "relu"), ([w3], [b3], "linear")])
    box = pr.box([-2, -2], [2, 2])
    result = check_invariants(persistence(network, box))
    assert persistence(network, box, method="matrix").pairs == result.pairs
    values = sorted(set(result.critical_values) | {p.value for p in result.critical_points})
    probes = values + [(a + b) / 2 for a, b in zip(values, values[1:])] + [values[0] - 1]
    for t in probes:
        sets = decision_topology(lower_by(network, t), box)
        assert result.betti_at(t) == sets["nonnegative"].betti + (0,), t


@settings(max_examples=15, deadline=None)
@given(st.lists(_weights, min_size=4, max_size=4), st.lists(_weights, min_size=4, max_size=4),
       st.lists(_weights, min_size=4, max_size=4), st.integers(-3, 3))
def test_one_dimension_against_the_decision_topology(w1, b1, w2, b2):
    network = pr.Network.from_layers(1, [([[v] for v in w1], b1, "relu"), ([w2], [b2], "linear")])
    box = pr.box([-3], [3])
    result = check_invariants(persistence(network, box))
    assert persistence(pr.enumerate_regions(network, box), method="matrix").pairs == result.pairs
    for t in result.critical_values:
        assert result.betti_at(t) == decision_topology(lower_by(network, t), box)["nonnegative"].betti + (0,)


# --- errors, the result, the command -----------------------------------------------------------------------------

def test_errors():
    two = pr.Network.from_layers(1, [([[1], [2]], [0, 0], "linear")])
    with pytest.raises(InvalidInputError, match="one output"):
        persistence(two, pr.box([0], [1]))
    with pytest.raises(InvalidInputError, match="bounded"):
        persistence(l1(1), pr.space(1))
    with pytest.raises(InvalidInputError, match="field"):
        persistence(l1(1), pr.box([0], [1]), field="Z")
    with pytest.raises(InvalidInputError, match="domain"):
        persistence(l1(1))


def test_result_is_immutable_and_summarised_exactly():
    result = persistence(annulus(), pr.box([-2, -2], [2, 2]))
    with pytest.raises(AttributeError):
        result.pairs = ()  # type: ignore[misc]
    summary = result.summary()
    assert summary["pairs"] == [[0, "-1/2", "inf"], [1, "-1/2", "1/2"]]
    assert summary["betti"] == [1, 0, 0] and json.loads(json.dumps(summary)) == summary


def test_command(tmp_path, capsys):
    path = tmp_path / "net.json"
    pr.save_network(annulus(), path)
    assert main(["topology", str(path), "--box", "-2,2", "--persistence", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["persistence"]["pairs"] == [[0, "-1/2", "inf"], [1, "-1/2", "1/2"]]
    assert main(["topology", str(path), "--box", "-2,2", "--persistence"]) == 0
    text = capsys.readouterr().out
    assert "H1 [-1/2, 1/2)" in text and "critical" in text


def test_time_beside_the_enumeration():
    """He [2, 64, 64, 64, 1] on the square: persistence (its own enumeration included) beside the enumeration;
    measured about 3x on a quiet machine, asserted with room for a shared one."""
    network = pr.he_normal([2, 64, 64, 64], seed=0, output_dim=1)
    box = pr.box([-1, -1], [1, 1])
    enumeration, whole = [], []
    for _ in range(3):
        with timed() as elapsed:
            pr.enumerate_regions(network, box)
        enumeration.append(elapsed.seconds)
        with timed() as elapsed:
            result = persistence(network, box)
        whole.append(elapsed.seconds)
    check_invariants(result)
    assert min(whole) < 6 * min(enumeration)


def test_pictures(tmp_path):
    pytest.importorskip("matplotlib")
    from polyregions.plotting import diagram_points, plot_barcode, plot_persistence_diagram

    result = persistence(annulus(-1), pr.box([-2, -2], [2, 2]))
    points, low, top = diagram_points(result)
    assert len(points) == 6 and low == -2.5 and top > 0.5 and (0, -2.5, top) in points
    ax = plot_persistence_diagram(result)
    assert len(ax.collections) == 2  # H0 and H1
    ax = plot_barcode(result)
    ax.figure.savefig(tmp_path / "barcode.png")
    assert (tmp_path / "barcode.png").stat().st_size > 0
