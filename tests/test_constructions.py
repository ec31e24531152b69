import itertools
import math
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import linear
from polyregions.networks.constructions import montufar, montufar_regions, sawtooth
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network

F = Fraction


def triangle_wave(n, x):
    """The closed form of the n-fold tent map on [0, 1]."""
    y = 2 ** (n - 1) * x
    return 1 - abs(2 * (y - math.floor(y)) - 1)


@pytest.mark.parametrize("n", range(1, 8))
def test_sawtooth_equals_the_triangle_wave_at_every_dyadic_point(n):
    net = sawtooth(n)
    assert net.num_neurons == 2 * n and net.widths == (2,) * n + (1,)
    for m in range(n + 3):
        for j in range(2 ** m + 1):
            x = F(j, 2 ** m)
            assert net([x]) == (triangle_wave(n, x),)


@given(st.integers(1, 12), st.fractions(min_value=0, max_value=1, max_denominator=10**6))
def test_sawtooth_equals_the_triangle_wave_everywhere_on_the_unit_interval(n, x):
    assert sawtooth(n)([x]) == (triangle_wave(n, x),)


def test_sawtooth_is_the_tent_map_composed():
    def tent(x):
        return 2 * max(x, 0) - 4 * max(x - F(1, 2), 0)
    for x in (F(-1), F(0), F(1, 3), F(5, 7), F(1), F(3, 2)):
        value = x
        for n in range(1, 6):
            value = tent(value)
            assert sawtooth(n)([x]) == (value,)


def _truncated(net, l):
    """The network whose output is the pre-activation of layer l."""
    last = net.layers[l]
    return Network(net.input_dim, net.layers[:l] + (Layer(last.weight, last.bias, linear()),))


def regions_1d(net, lo, hi):
    """Exact activation regions of a 1-D network on [lo, hi]: sorted knots, refined layer by layer.

    Between consecutive knots the earlier layers keep their pieces, so each pre-activation of the next layer is
    affine there and crosses a breakpoint at most once per breakpoint.
    """
    knots = [F(lo), F(hi)]
    for l, layer in enumerate(net.layers):
        if layer.activation.is_linear:
            continue
        sub = _truncated(net, l)
        new = set(knots)
        for a, b in zip(knots, knots[1:]):
            pattern = sub.pattern([(a + b) / 2])
            za, zb = sub.forward_with_pattern([a], pattern), sub.forward_with_pattern([b], pattern)
            for u, v in zip(za, zb):
                for xi in layer.activation.breakpoints:
                    if (u - xi) * (v - xi) < 0:
                        new.add(a + (xi - u) / (v - u) * (b - a))
        knots = sorted(new)
    return list(zip(knots, knots[1:]))


def linear_pieces_1d(net, lo, hi):
    """Maximal intervals on which the output is one affine map (adjacent regions with equal maps merged)."""
    maps = [net.affine_map(net.pattern([(a + b) / 2])) for a, b in regions_1d(net, lo, hi)]
    return 1 + sum(1 for m0, m1 in zip(maps, maps[1:]) if m0 != m1)


@pytest.mark.parametrize("n", range(1, 7))
def test_sawtooth_has_two_to_the_n_regions_and_pieces(n):
    net = sawtooth(n)
    intervals = regions_1d(net, 0, 1)
    assert intervals == [(F(j, 2 ** n), F(j + 1, 2 ** n)) for j in range(2 ** n)]
    assert linear_pieces_1d(net, 0, 1) == 2 ** n
    slopes = [net.affine_map(net.pattern([(a + b) / 2]))[0][0][0] for a, b in intervals]
    assert slopes == [2 ** n * (-1) ** j for j in range(2 ** n)]


@pytest.mark.parametrize("width, depth", [(1, 1), (2, 1), (5, 1), (2, 2), (3, 2), (2, 3), (3, 3), (4, 2)])
def test_montufar_in_one_dimension_has_the_stated_number_of_regions(width, depth):
    net = montufar(1, width, depth)
    expected = width ** (depth - 1) * (width + 1)
    assert montufar_regions(1, width, depth) == expected
    assert len(regions_1d(net, 0, 1)) == expected
    assert linear_pieces_1d(net, 0, 1) == expected


def test_montufar_shapes():
    net = montufar(2, 5, 3)  # p = 2, one spare neuron per folding layer
    assert net.input_dim == 2 and net.widths == (5, 5, 5) and net.num_neurons == 15
    assert net.layers[0].weight[4] == (0, 0) and net.layers[0].bias[4] == -1
    assert montufar_regions(2, 5, 3) == 2 ** 4 * (1 + 5 + 10)


def _unit_box(n):
    A = [tuple(F(int(i == j)) * s for j in range(n)) for i in range(n) for s in (1, -1)]
    b = [F(1), F(0)] * n
    return A, b


@pytest.mark.parametrize("n0, width, depth", [
    (2, 2, 1), (2, 3, 1), (3, 3, 1), (2, 4, 1), (2, 4, 2), (2, 5, 2),
    pytest.param(2, 6, 2, marks=pytest.mark.slow), pytest.param(2, 4, 3, marks=pytest.mark.slow)])
def test_montufar_in_higher_dimension_matches_brute_force_enumeration(n0, width, depth):
    region_oracle = pytest.importorskip("region_oracle")
    net = montufar(n0, width, depth)
    patterns = region_oracle.brute_force_patterns(net, *_unit_box(n0))
    assert len(patterns) == montufar_regions(n0, width, depth)
    # Linear regions equal activation regions: regions with equal affine maps are exactly those where the last
    # layer is all off, and that cell lies strictly inside the folded cube (checked below), so no two of them
    # share a facet.
    k = width
    maps = {}
    for pattern in patterns:
        maps.setdefault(net.affine_map(pattern), []).append(pattern)
    for same in maps.values():
        if len(same) > 1:
            assert all(all(piece == 0 for piece in pattern[-k:]) for pattern in same)


@pytest.mark.parametrize("n0, width", [(1, 2), (2, 3), (2, 5), (3, 4), (3, 7)])
def test_the_all_off_cell_of_the_last_layer_is_bounded_inside_the_middle_of_the_cube(n0, width):
    from polyregions.exact.lp import maximize

    last = montufar(n0, width, 1).layers[-1]  # depth 1: the last layer acts on y directly
    for j in range(n0):
        for sign in (1, -1):
            c = [F(0)] * n0
            c[j] = F(sign)
            result = maximize(c, last.weight, [-v for v in last.bias])
            if result.status == "infeasible":
                continue
            assert result.status == "optimal"
            assert result.value <= (F(3, 4) if sign == 1 else F(-1, 4))


def test_vertices_of_the_last_layer_arrangement_lie_in_the_middle_of_the_cube():
    from polyregions.exact.linalg import solve
    for n0, k in [(2, 4), (3, 5)]:
        last = montufar(n0, k, 1).layers[-1]
        for rows in itertools.combinations(range(k), n0):
            vertex = solve([last.weight[r] for r in rows], [-last.bias[r] for r in rows])
            assert all(F(1, 4) <= v <= F(3, 4) for v in vertex)
            others = [r for r in range(k) if r not in rows]
            assert all(sum(w * v for w, v in zip(last.weight[r], vertex)) + last.bias[r] != 0 for r in others)


@pytest.mark.parametrize("call, message", [
    (lambda: sawtooth(0), "n: expected a positive integer"),
    (lambda: sawtooth(2.0), "n: expected a positive integer"),
    (lambda: montufar(3, 2, 1), "width: expected at least input_dim = 3"),
    (lambda: montufar(0, 2, 1), "input_dim: expected a positive integer"),
    (lambda: montufar(1, 2, 0), "depth: expected a positive integer"),
    (lambda: montufar_regions(2, 1, 1), "width: expected at least input_dim = 2"),
])
def test_bad_arguments_are_rejected(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()
