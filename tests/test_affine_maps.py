from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from polyregions.networks.activations import hardtanh, leaky_relu, linear, piecewise_linear, relu
from polyregions.networks.network import Network
from polyregions.regions._affine_maps import float_output_maps, maps_certainly_differ

entry = st.fractions(min_value=-10, max_value=10, max_denominator=1000)
activation = st.sampled_from([relu(), hardtanh(), leaky_relu(Fraction(1, 3)),
                              piecewise_linear([-1, 0, 2], [1, -1, 2, 0], 0)])


@st.composite
def networks_and_points(draw):
    n0 = draw(st.integers(1, 3))
    layers, fan_in = [], n0
    for width in draw(st.lists(st.integers(1, 6), min_size=1, max_size=3)):
        weight = draw(st.lists(st.lists(entry, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        layers.append((weight, draw(st.lists(entry, min_size=width, max_size=width)), draw(activation)))
        fan_in = width
    layers.append(([draw(st.lists(entry, min_size=fan_in, max_size=fan_in))], [Fraction(0)], linear()))
    net = Network.from_layers(n0, layers)
    points = draw(st.lists(st.lists(entry, min_size=n0, max_size=n0), min_size=1, max_size=5))
    return net, points


def _bounds_at(net, points) -> np.ndarray:
    """The float maps' bounds at the points' patterns, each checked to hold against the exact map."""
    patterns = [net.pattern(p) for p in points]
    maps, bounds = float_output_maps(net, patterns)
    for pattern, approx, bound in zip(patterns, maps, bounds):
        M, c = net.affine_map(pattern)
        exact = np.array([[float(v) for v in row] + [float(ci)] for row, ci in zip(M, c)])
        # float() of the exact value rounds once more: allow that half-ulp on top of the proven bound.
        assert np.all(np.abs(exact - approx) <= bound + np.spacing(np.abs(exact)))
    return bounds


@given(networks_and_points())
def test_the_float_maps_lie_within_their_proven_bounds_of_the_exact_maps(case):
    _bounds_at(*case)


def test_equal_maps_are_never_certified_different():
    net = Network.from_layers(1, [([[1], [1]], [0, 0], relu()), ([[1, -1]], [0], linear())])
    maps, bounds = float_output_maps(net, [(0, 0), (1, 1), (0, 1)])
    assert not maps_certainly_differ(maps, bounds, 0, 1)  # relu(x) - relu(x) is 0 on both sides
    assert maps_certainly_differ(maps, bounds, 0, 2)


def test_parameters_outside_the_double_range_prove_nothing():
    # Regression: 10^400 raised OverflowError, and 10^-400 rounded to 0 with a relative error of 1, not u.
    for scale in (Fraction(10) ** 400, Fraction(1, 10 ** 400)):
        net = Network.from_layers(1, [([[1], [scale]], [0, 0], relu()), ([[1, 1]], [0], linear())])
        maps, bounds = float_output_maps(net, [(0, 0), (1, 1), (1, 0)])
        assert np.isinf(bounds).all()
        assert not any(maps_certainly_differ(maps, bounds, i, j) for i in range(3) for j in range(3))


def test_an_overflowed_entry_proves_nothing():
    maps = np.array([[[np.inf, 1.0]], [[1.0, 1.0]]])
    assert not maps_certainly_differ(maps, np.zeros_like(maps), 0, 1)


@st.composite
def staged_networks_and_points(draw):
    """Stages with their own activation per unit (linear ones carry values), then max units over groups."""
    from polyregions.networks.stage import Stage
    from polyregions.networks.stages import StagedNetwork

    n0 = draw(st.integers(1, 3))
    stages, fan_in = [], n0
    for _ in range(draw(st.integers(1, 3))):
        units = draw(st.lists(st.one_of(activation, st.just(linear())), min_size=0, max_size=4))
        groups = draw(st.lists(st.integers(2, 3), min_size=0 if units else 1, max_size=2))
        rows = len(units) + sum(groups)
        weight = draw(st.lists(st.lists(entry, min_size=fan_in, max_size=fan_in), min_size=rows, max_size=rows))
        bias = draw(st.lists(entry, min_size=rows, max_size=rows))
        starts = np.cumsum([len(units)] + groups[:-1]).tolist()
        stages.append(Stage(weight, bias, units, [tuple(range(a, a + g)) for a, g in zip(starts, groups)]))
        fan_in = len(units) + len(groups)
    stages.append(Stage([draw(st.lists(entry, min_size=fan_in, max_size=fan_in))], [Fraction(0)], [linear()]))
    points = draw(st.lists(st.lists(entry, min_size=n0, max_size=n0), min_size=1, max_size=5))
    return StagedNetwork(n0, tuple(stages)), points


@given(staged_networks_and_points())
def test_the_float_maps_of_stages_lie_within_their_proven_bounds(case):
    # A max unit's row is the selected value's, taken as it is; element-wise units each have their own pieces.
    assert np.all(_bounds_at(*case) < 1e-6)  # small parameters: the filter proves something


def test_maps_computed_in_blocks_of_regions_are_the_same(monkeypatch):
    from polyregions.regions import _affine_maps

    net = Network.from_layers(2, [([[1, 2], [3, -1], [1, 1]], [0, 1, -1], relu()), ([[1, -1, 2]], [0], linear())])
    patterns = [(a, b, c) for a in (0, 1) for b in (0, 1) for c in (0, 1)]
    whole = float_output_maps(net, patterns)
    monkeypatch.setattr(_affine_maps, "_ENTRIES", 1)  # one region per block
    blocks = float_output_maps(net, patterns)
    assert all(np.array_equal(a, b) for a, b in zip(whole, blocks))


@st.composite
def networks_and_patterns(draw):
    """Networks of rational weights (any activation, linear layers among them, several outputs) and patterns
    (any pieces, whether or not a region has them: the maps are defined by the pattern alone)."""
    n0 = draw(st.integers(1, 3))
    layers, fan_in = [], n0
    kinds = st.one_of(activation, st.just(linear()))
    for width in draw(st.lists(st.integers(1, 5), min_size=1, max_size=4)):
        weight = draw(st.lists(st.lists(entry, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        layers.append((weight, draw(st.lists(entry, min_size=width, max_size=width)), draw(kinds)))
        fan_in = width
    net = Network.from_layers(n0, layers)
    pieces = [layer.activation.num_pieces for layer in net.layers if not layer.activation.is_linear
              for _ in range(layer.width)]
    patterns = draw(st.lists(st.tuples(*(st.integers(0, p - 1) for p in pieces)), min_size=1, max_size=6))
    return net, patterns


@given(networks_and_patterns())
def test_the_exports_output_maps_are_the_networks_affine_maps(case):
    from polyregions.regions.export import output_map_texts

    net, patterns = case
    expected = [{"M": [[str(v) for v in row] for row in M], "c": [str(v) for v in c]}
                for M, c in map(net.affine_map, patterns)]
    assert output_map_texts(net)(patterns) == expected
