"""Linear regions from the adjacency: the switching neuron's output gradient decides, exactly.

The reference is the definition: components of the adjacency graph restricted to pairs whose exact output maps
(``Network.affine_map``) are equal.
"""

import dataclasses
from fractions import Fraction

import networkx as nx
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from polyregions.networks.activations import hardtanh, leaky_relu, linear, piecewise_linear, relu
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions._affine_maps import certainly_differ, float_output_maps, maps_certainly_differ
from polyregions.regions._linear_regions import (
    DIFFERENT,
    EQUAL,
    UNDECIDED,
    _classify,
    component_roots,
    maps_equal,
    single_switch_equal,
    switch_gradients,
)
from polyregions.regions.domains import box
from polyregions.regions.enumeration import enumerate_regions


def defined_linear_regions(complex_):
    """The definition: connected components over the pairs with exactly equal output maps."""
    graph = nx.Graph()
    graph.add_nodes_from(range(len(complex_.regions)))
    maps = [r.network.affine_map(r.pattern) for r in complex_.regions]
    graph.add_edges_from((i, j) for i, j, _ in complex_.adjacency if maps[i] == maps[j])
    return tuple(sorted((frozenset(c) for c in nx.connected_components(graph)), key=min))


def exact_gradient(net, pattern, layer, unit):
    """The exact gradient of the output with respect to ``unit``'s activation in ``layer`` (Fractions)."""
    offsets, position = [], 0
    for lay in net.layers:
        offsets.append(None if lay.activation.is_linear else position)
        position += 0 if lay.activation.is_linear else lay.width
    v = [Fraction(int(i == unit)) for i in range(net.layers[layer].width)]
    for q in range(layer + 1, len(net.layers)):
        lay = net.layers[q]
        y = [sum((w * x for w, x in zip(row, v)), Fraction(0)) for row in lay.weight]
        pieces = [0] * lay.width if offsets[q] is None else pattern[offsets[q]:offsets[q] + lay.width]
        v = [lay.activation.slopes[p] * yi for p, yi in zip(pieces, y)]
    return v


def check(complex_):
    expected = defined_linear_regions(complex_)
    assert complex_.linear_regions == expected
    assert complex_.summary()["linear_regions"] == len(expected)
    # Without the engine's arrays (a complex built from its tuples) the answer is the same.
    rebuilt = dataclasses.replace(complex_)
    assert rebuilt.linear_regions == expected


# ------------------------------------------------------------------------------------------ known networks


def test_outputs_that_cancel_make_one_linear_region():
    net = Network.from_layers(1, [([[1], [1]], [0, 0], relu()), ([[1, -1]], [0], linear())])
    complex_ = enumerate_regions(net, box([-1], [1]))
    assert complex_.linear_regions == (frozenset({0, 1}),)
    check(complex_)


def test_a_neuron_without_downstream_weights_changes_nothing():
    # Neuron 1 (x - y) feeds nothing: crossing its line keeps the map; neuron 0 (x) matters.
    net = Network.from_layers(2, [([[1, 0], [1, -1]], [0, 0], relu()), ([[1, 0]], [0], linear())])
    complex_ = enumerate_regions(net, box([-1, -1], [1, 1]))
    assert len(complex_) == 4 and len(complex_.linear_regions) == 2
    check(complex_)


def test_a_dead_next_layer_hides_the_first_layer():
    # The second layer's only neuron is dead everywhere (bias -100): the output is 0 on all regions.
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], relu()), ([[1, 1]], [-100], relu())])
    complex_ = enumerate_regions(net, box([-1, -1], [1, 1]))
    assert len(complex_) == 4 and len(complex_.linear_regions) == 1
    check(complex_)


def test_duplicated_neurons_switch_together():
    net = Network.from_layers(2, [([[1, 1], [1, 1], [1, -1]], [0, 0, 0], relu()),
                                  ([[1, -1, 1]], [0], linear())])
    complex_ = enumerate_regions(net, box([-1, -1], [1, 1]))
    assert {len(n) for _, _, n in complex_.adjacency} == {1, 2}
    assert len(complex_.linear_regions) == 2  # the duplicated pair cancels; the third neuron splits
    check(complex_)


def test_he_normal_networks_have_the_defined_linear_regions():
    for widths, seed in (([2, 6, 6, 3], 0), ([2, 8, 8], 1), ([1, 7, 7, 2], 2)):
        net = he_normal(widths, seed=seed)
        check(enumerate_regions(net, box([-1] * widths[0], [1] * widths[0])))


def test_the_lp_engine_gets_the_same_linear_regions():
    net = Network.from_layers(3, [([[1, 0, 0], [1, 0, 0], [0, 1, 1], [0, 0, 1]], [0, 0, 0, 0], relu()),
                                  ([[1, -1, 1, 0]], [0], linear())])
    complex_ = enumerate_regions(net, box([-1] * 3, [1] * 3), engine="lp")
    check(complex_)


# ------------------------------------------------------------------------------------ the float gradient


def test_a_float_gradient_that_should_be_zero_is_decided_exactly():
    # g = 1/10 + 2/10 - 3/10 = 0, but in doubles fl(fl(0.1 + 0.2) - 0.3) = 2^-54: tiny and wrong.
    third = [Fraction(1, 10), Fraction(2, 10), Fraction(3, 10)]
    net = Network.from_layers(1, [([[1]], [0], relu()), ([[w] for w in third], [1, 1, 1], relu()),
                                  ([[1, 1, -1]], [0], linear())])
    rows = np.array([[1, 1, 1, 1]])
    g, bound = switch_gradients(net, rows, 0, np.array([0]))
    assert g[0, 0] != 0 and abs(g[0, 0]) <= bound[0, 0]  # the bound covers the float error
    assert _classify(g, bound).tolist() == [UNDECIDED]
    patterns = np.array([[0, 1, 1, 1], [1, 1, 1, 1]])
    assert single_switch_equal(net, patterns, np.array([[0, 1]]), np.array([0])).tolist() == [True]
    assert net.affine_map((0, 1, 1, 1)) == net.affine_map((1, 1, 1, 1))


def test_a_tiny_non_zero_gradient_below_the_bound_is_decided_exactly():
    # g = 1 - (1 - 2^-60) = 2^-60: the doubles of the weights are 1 and -1, so the float gradient is 0,
    # and the exact gradient is not.
    near_one = 1 - Fraction(1, 2 ** 60)
    net = Network.from_layers(1, [([[1]], [0], relu()), ([[1], [1]], [1, 1], relu()),
                                  ([[1, -near_one]], [0], linear())])
    g, bound = switch_gradients(net, np.array([[1, 1, 1]]), 0, np.array([0]))
    exact = exact_gradient(net, (1, 1, 1), 0, 0)
    assert exact == [Fraction(1, 2 ** 60)] and g[0, 0] == 0.0 and bound[0, 0] >= 2.0 ** -60
    assert _classify(g, bound).tolist() == [UNDECIDED]
    patterns = np.array([[0, 1, 1], [1, 1, 1]])
    assert single_switch_equal(net, patterns, np.array([[0, 1]]), np.array([0])).tolist() == [False]


def test_a_tiny_exactly_represented_gradient_above_the_bound_is_proven():
    net = Network.from_layers(1, [([[1]], [0], relu()), ([[1], [1]], [1, 1], relu()),
                                  ([[1, -1 + Fraction(1, 2 ** 30)]], [0], linear())])
    g, bound = switch_gradients(net, np.array([[1, 1, 1]]), 0, np.array([0]))
    assert g[0, 0] == 2.0 ** -30 and bound[0, 0] < 2.0 ** -40
    assert _classify(g, bound).tolist() == [DIFFERENT]


def test_structural_zeros_are_proven_in_floating_point():
    net = Network.from_layers(1, [([[1], [1]], [0, 0], relu()), ([[1, 0], [2, 0]], [0, 0], relu()),
                                  ([[1, 1]], [0], linear())])
    # Neuron 1 of the first layer feeds nothing; neuron 0 feeds only dead neurons in this pattern.
    g, bound = switch_gradients(net, np.array([[1, 1, 1, 1], [1, 1, 0, 0]]), 0, np.array([1, 0]))
    assert g.tolist() == [[0.0], [0.0]] and bound.tolist() == [[0.0], [0.0]]
    assert _classify(g, bound).tolist() == [EQUAL, EQUAL]


def test_a_dead_layer_behind_dense_weights_is_proven_zero_in_floating_point():
    # No weight is zero, so only the dead pattern of the middle layer makes the gradient vanish.
    net = Network.from_layers(1, [([[1], [-1]], [0, 0], relu()), ([[1, 2], [3, 1]], [0, 0], relu()),
                                  ([[1, -2]], [0], linear())])
    g, bound = switch_gradients(net, np.array([[1, 1, 0, 0], [1, 1, 1, 0]]), 0, np.array([0, 0]))
    assert g[0].tolist() == [0.0] and bound[0].tolist() == [0.0]
    assert _classify(g, bound).tolist() == [EQUAL, DIFFERENT]


def test_parameters_without_a_close_double_prove_nothing():
    net = Network.from_layers(1, [([[1]], [0], relu()), ([[Fraction(10) ** 400]], [0], relu()),
                                  ([[1]], [0], linear())])
    g, bound = switch_gradients(net, np.array([[1, 1]]), 0, np.array([0]))
    assert np.isinf(bound).all() and _classify(g, bound).tolist() == [UNDECIDED]
    patterns = np.array([[0, 1], [1, 1]])
    assert single_switch_equal(net, patterns, np.array([[0, 1]]), np.array([0])).tolist() == [False]


def test_an_overflow_proves_nothing():
    big = Fraction(2) ** 600
    net = Network.from_layers(1, [([[1]], [0], relu()), ([[big]], [0], relu()), ([[big]], [0], relu()),
                                  ([[Fraction(1, 2) ** 1000]], [0], linear())])
    g, bound = switch_gradients(net, np.array([[1, 1, 1]]), 0, np.array([0]))
    assert _classify(g, bound).tolist() == [UNDECIDED]
    patterns = np.array([[0, 1, 1], [1, 1, 1]])
    assert single_switch_equal(net, patterns, np.array([[0, 1]]), np.array([0])).tolist() == [False]


entry = st.fractions(min_value=-4, max_value=4, max_denominator=12)
activation = st.sampled_from([relu(), hardtanh(), leaky_relu(Fraction(1, 3)),
                              piecewise_linear([-1, 0, 2], [1, -1, 2, 0], 0), linear()])


@st.composite
def networks_with_patterns(draw):
    n0 = draw(st.integers(1, 3))
    layers, fan_in = [], n0
    for width in draw(st.lists(st.integers(1, 5), min_size=2, max_size=4)):
        weight = draw(st.lists(st.lists(entry, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        layers.append((weight, draw(st.lists(entry, min_size=width, max_size=width)), draw(activation)))
        fan_in = width
    if draw(st.booleans()):
        layers.append(([draw(st.lists(entry, min_size=fan_in, max_size=fan_in))], [Fraction(0)], linear()))
    net = Network.from_layers(n0, layers)
    pattern = tuple(draw(st.integers(0, net.layers[q].activation.num_pieces - 1)) for q, _ in net.neurons)
    return net, pattern


@given(networks_with_patterns(), st.data())
def test_the_float_gradients_lie_within_their_proven_bounds(case, data):
    net, pattern = case
    assume(net.neurons)  # a network of affine layers only has no neuron to switch
    q, unit = data.draw(st.sampled_from(net.neurons))
    g, bound = switch_gradients(net, np.array([pattern]), q, np.array([unit]))
    exact = exact_gradient(net, pattern, q, unit)
    for approx, e, value in zip(g[0].tolist(), bound[0].tolist(), exact):
        # float() of the exact value rounds once more: allow that half-ulp on top of the proven bound.
        assert abs(float(value) - approx) <= e + np.spacing(abs(float(value)))
    outcome = _classify(g, bound)[0]
    if outcome == DIFFERENT:
        assert any(exact)
    elif outcome == EQUAL:
        assert not any(exact)


# ---------------------------------------------------------------------------- whole complexes, degenerate


@st.composite
def degenerate_networks(draw):
    """Small networks with integer weights (ties), repeated rows (neurons that switch together), columns of
    zeros (neurons that feed nothing), dead neurons and outputs that cancel."""
    n0 = draw(st.integers(1, 2))
    small = st.integers(-2, 2).map(Fraction) | entry
    layers, fan_in = [], n0
    for width in draw(st.lists(st.integers(1, 4), min_size=1, max_size=3)):
        weight = draw(st.lists(st.lists(small, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        bias = draw(st.lists(small, min_size=width, max_size=width))
        if width > 1 and draw(st.booleans()):  # a duplicated neuron
            weight[-1], bias[-1] = list(weight[0]), bias[0]
        if draw(st.booleans()):  # a dead neuron
            bias[0] = Fraction(-50)
        if layers and draw(st.booleans()):  # a neuron of the previous layer that feeds nothing
            column = draw(st.integers(0, fan_in - 1))
            weight = [[Fraction(0) if j == column else v for j, v in enumerate(row)] for row in weight]
        layers.append((weight, bias, draw(activation)))
        fan_in = width
    output = draw(st.lists(small, min_size=fan_in, max_size=fan_in))
    if fan_in > 1 and draw(st.booleans()):  # outputs that cancel
        output[-1] = -output[0]
    layers.append(([output], [Fraction(0)], linear()))
    return Network.from_layers(n0, layers)


@given(degenerate_networks())
def test_degenerate_networks_have_the_defined_linear_regions(net):
    k = net.input_dim
    check(enumerate_regions(net, box([-2] * k, [2] * k)))


@given(st.integers(0, 10_000), st.sampled_from([[2, 4, 4], [2, 3, 3, 2], [1, 5, 5, 1]]))
def test_random_he_normal_networks_have_the_defined_linear_regions(seed, widths):
    net = he_normal(widths, seed=seed)
    check(enumerate_regions(net, box([-1] * widths[0], [1] * widths[0])))


def test_a_deep_network_skips_the_screen_where_it_proves_little_and_keeps_its_linear_regions(monkeypatch):
    from polyregions.regions import _linear_regions

    net = he_normal([2] + [3] * 9, seed=4)  # 87 regions; the screen proves a quarter of layer 4's pairs
    complex_ = enumerate_regions(net, box([-1, -1], [1, 1]))
    original, screened = _linear_regions.screen_different, []

    def recorded(net, rows, layer, units, *, layout=None):
        proven = original(net, rows, layer, units, layout=layout)
        screened.append((layer, proven.mean()))
        return proven

    monkeypatch.setattr(_linear_regions, "screen_different", recorded)
    assert complex_.linear_regions == defined_linear_regions(complex_)
    # From the last layer back, until a layer where it proves at most half; the earlier layers' pairs go unscreened.
    layers = [q for q, _ in screened]
    assert layers == sorted(set(layers), reverse=True)
    assert screened[-1][1] <= 0.5 and all(share > 0.5 for _, share in screened[:-1])
    switched = {next(iter(neurons)) // 3 for _, _, neurons in complex_.adjacency if len(neurons) == 1}
    assert min(switched) < layers[-1]


# --------------------------------------------------------------------------------------- the other parts


@given(st.integers(1, 30).flatmap(lambda n: st.tuples(
    st.just(n), st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=40))))
def test_component_roots_are_the_smallest_member_of_each_component(case):
    n, edges = case
    graph = nx.Graph()
    graph.add_nodes_from(range(n))
    graph.add_edges_from(edges)
    expected = [0] * n
    for component in nx.connected_components(graph):
        for v in component:
            expected[v] = min(component)
    assert component_roots(n, np.array(edges, dtype=np.int64).reshape(-1, 2)).tolist() == expected


def test_whole_maps_are_compared_exactly_when_the_floats_cannot_tell():
    net = Network.from_layers(1, [([[1], [1]], [0, 0], relu()), ([[1, -1]], [0], linear())])
    patterns = np.array([[0, 0], [1, 1], [1, 0]])
    assert maps_equal(net, patterns, np.array([[0, 1], [0, 2], [1, 2]])).tolist() == [True, False, False]


def test_the_vectorised_comparison_agrees_with_the_one_pair_comparison():
    net = he_normal([2, 4, 4, 2], seed=5)
    patterns = [net.pattern([x, y]) for x in (-1, Fraction(1, 3)) for y in (-1, Fraction(1, 2))]
    maps, bounds = float_output_maps(net, patterns)
    first, second = np.array([0, 0, 1, 2, 3]), np.array([1, 2, 3, 3, 3])
    assert certainly_differ(maps, bounds, first, second).tolist() == \
        [maps_certainly_differ(maps, bounds, i, j) for i, j in zip(first.tolist(), second.tolist())]


@pytest.mark.parametrize("widths", [[2, 5, 5], [2, 4, 4, 3]])
def test_the_float_maps_of_the_regions_agree_with_the_new_decisions(widths):
    complex_ = enumerate_regions(he_normal(widths, seed=3), box([-1, -1], [1, 1]))
    patterns = np.array([r.pattern for r in complex_.regions])
    maps, bounds = float_output_maps(complex_.regions[0].network, patterns)
    pairs = np.array([(i, j) for i, j, _ in complex_.adjacency])
    proven = certainly_differ(maps, bounds, pairs[:, 0], pairs[:, 1])
    equal = maps_equal(complex_.regions[0].network, patterns, pairs)
    assert not (proven & equal).any()
