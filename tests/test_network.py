import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import hardtanh, leaky_relu, linear, piecewise_linear, relu
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network

F = Fraction
small = st.fractions(min_value=-4, max_value=4, max_denominator=8)


def _hand_net():
    # x in R^2 -> relu([x1 - 2 x2, x1/2 + x2/3 + 1]) -> [h1 + h2 - 1/2]
    return Network.from_layers(2, [([[1, -2], [0.5, "1/3"]], [0, 1], "relu"),
                                   ([[1, 1]], ["-1/2"], "linear")])


def test_forward_pass_matches_a_hand_computation():
    net = _hand_net()
    # x = (3, 1): pre = (1, 3/2 + 1/3 + 1 = 17/6), both on, out = 1 + 17/6 - 1/2 = 10/3
    assert net([3, 1]) == (F(10, 3),)
    assert net.preactivations([3, 1]) == ((F(1), F(17, 6)), (F(10, 3),))
    assert net.pattern([3, 1]) == (1, 1)
    # x = (0, 1): pre = (-2, 4/3), out = 4/3 - 1/2 = 5/6
    assert net([0, 1]) == (F(5, 6),)
    assert net.pattern([0, 1]) == (0, 1)
    # x = (-6, 0): pre = (-6, -2), out = -1/2
    assert net([-6, 0]) == (F(-1, 2),)
    assert net(np.array([-6.0, 0.0])) == (F(-1, 2),)


def test_shape_properties():
    net = Network.from_layers(3, [([[1, 0, 0]] * 4, [0] * 4, relu()), ([[1] * 4] * 2, [0, 0], linear()),
                                  ([[1, 1]] * 5, [0] * 5, hardtanh()), ([[1] * 5], [0], linear())])
    assert net.widths == (4, 2, 5, 1)
    assert net.output_dim == 1 and net.input_dim == 3
    assert net.neurons == tuple((0, u) for u in range(4)) + tuple((2, u) for u in range(5))
    assert net.num_neurons == 9
    assert net.piece_counts == (2,) * 4 + (3,) * 5


def test_hardtanh_and_leaky_layers_by_hand():
    net = Network.from_layers(1, [([[1], [2]], [0, "-1/2"], hardtanh()),
                                  ([[1, 1]], [0], leaky_relu(F(1, 4)))])
    # x = 1/2: pre (1/2, 1/2) -> (1/2, 1/2) -> 1 -> 1
    assert net([F(1, 2)]) == (1,) and net.pattern([F(1, 2)]) == (1, 1, 1)
    # x = -3: pre (-3, -13/2) -> (-1, -1) -> -2 -> -1/2
    assert net([-3]) == (F(-1, 2),) and net.pattern([-3]) == (0, 0, 0)
    # x = 1: pre (1, 3/2) -> (1, 1): hardtanh's breakpoint 1 is on the left piece
    assert net.pattern([1]) == (1, 2, 1)


@st.composite
def networks(draw, max_inputs=3):
    n0 = draw(st.integers(1, max_inputs))
    acts = st.sampled_from([relu(), hardtanh(), leaky_relu(F(1, 3)), linear(),
                            piecewise_linear([-1, 0, 2], [1, -1, 2, 0], 0)])
    layers, fan_in = [], n0
    for _ in range(draw(st.integers(1, 3))):
        width = draw(st.integers(1, 4))
        weight = draw(st.lists(st.lists(small, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        bias = draw(st.lists(small, min_size=width, max_size=width))
        layers.append((weight, bias, draw(acts)))
        fan_in = width
    return Network.from_layers(n0, layers)


@st.composite
def network_and_point(draw):
    net = draw(networks())
    x = draw(st.lists(small, min_size=net.input_dim, max_size=net.input_dim))
    return net, tuple(x)


def _reference_forward(net, x):
    """Forward pass written with plain Fractions, independently of the FLINT path."""
    value = list(x)
    for layer in net.layers:
        pre = [sum((w * v for w, v in zip(row, value)), F(0)) + b for row, b in zip(layer.weight, layer.bias)]
        value = [layer.activation(z) for z in pre]
    return tuple(value)


@given(network_and_point())
def test_forward_pass_agrees_with_a_plain_fraction_evaluation(case):
    net, x = case
    assert net(x) == _reference_forward(net, x)


@given(network_and_point())
def test_affine_map_of_the_pattern_reproduces_the_output_exactly(case):
    net, x = case
    M, c = net.affine_map(net.pattern(x))
    assert tuple(sum((m * v for m, v in zip(row, x)), F(0)) + ci for row, ci in zip(M, c)) == net(x)
    assert net.forward_with_pattern(x, net.pattern(x)) == net(x)


@given(network_and_point(), st.data())
def test_forward_with_any_pattern_is_the_affine_map_of_that_pattern(case, data):
    net, x = case
    pattern = tuple(data.draw(st.integers(0, count - 1)) for count in net.piece_counts)
    M, c = net.affine_map(pattern)
    assert net.forward_with_pattern(x, pattern) == tuple(
        sum((m * v for m, v in zip(row, x)), F(0)) + ci for row, ci in zip(M, c))


@given(networks(), st.data())
def test_restrict_agrees_with_the_forward_pass_at_origin_plus_directions(net, data):
    n = net.input_dim
    k = data.draw(st.integers(1, 3))
    origin = data.draw(st.lists(small, min_size=n, max_size=n))
    directions = data.draw(st.lists(st.lists(small, min_size=n, max_size=n), min_size=k, max_size=k))
    t = data.draw(st.lists(small, min_size=k, max_size=k))
    restricted = net.restrict(origin, directions)
    x = [o + sum((ti * d[j] for ti, d in zip(t, directions)), F(0)) for j, o in enumerate(origin)]
    assert restricted.input_dim == k
    assert restricted(t) == net(x)
    assert restricted.pattern(t) == net.pattern(x)
    assert restricted.neurons == net.neurons


def test_restrict_with_the_identity_is_the_network_itself():
    net = _hand_net()
    assert net.restrict([0, 0], [[1, 0], [0, 1]]) is net
    assert net.restrict([0, 0], [[0, 1], [1, 0]]) is not net


def test_float_layers_are_nearest_doubles_and_read_only():
    net = _hand_net()
    (W0, b0), (W1, b1) = net.float_layers()
    assert W0.dtype == np.float64 and W0[1, 1] == 1 / 3 and b1[0] == -0.5
    with pytest.raises(ValueError):
        W0[0, 0] = 5.0


def test_equality_hash_and_pickle():
    a, b = _hand_net(), _hand_net()
    assert a == b and hash(a) == hash(b)
    assert pickle.loads(pickle.dumps(a)) == a
    assert Network.from_layers(2, a.layers) == a
    c = Network.from_layers(2, [([[1, -2], [0.5, "1/3"]], [0, 1], "relu"), ([[1, 1]], ["-1/3"], "linear")])
    assert a != c


@pytest.mark.parametrize("input_dim, layers, message", [
    (0, [([[1]], [0], "relu")], "network: input_dim: expected a positive integer"),
    (True, [([[1]], [0], "relu")], "network: input_dim: expected a positive integer"),
    (1, [], "network: layers: expected at least one layer"),
    (2, [([[1]], [0], "relu")], "network: layers[0].weight: expected 2 columns (the input dimension), got 1"),
    (1, [([[1], [2]], [0, 0], "relu"), ([[1]], [0], "linear")],
     "network: layers[1].weight: expected 2 columns (the width of layers[0]), got 1"),
    (1, [([[1], [2]], [0], "relu")], "network: layers[0].bias: expected 2 numbers, got 1"),
    (1, [([], [], "relu")], "network: layers[0].weight: expected at least one row"),
    (1, [([[float("nan")]], [0], "relu")], "network: layers[0].weight[0][0]: expected a finite number"),
    (1, [([["1/0"]], [0], "relu")], "network: layers[0].weight[0][0]"),
    (1, [([[""]], [0], "relu")], "network: layers[0].weight[0][0]"),
    (1, [([[1]], [None], "relu")], "network: layers[0].bias[0]"),
    (1, [([[1]], [0], "sigmoid")], "network: layers[0].activation"),
    (1, [([[1]], [0])], "network: layers[0]: expected (weight, bias, activation)"),
    (1, [("abc", [0], "relu")], "network: layers[0].weight: expected a list of rows"),
])
def test_bad_layers_are_rejected_with_the_field_named(input_dim, layers, message):
    with pytest.raises(InvalidInputError) as info:
        Network.from_layers(input_dim, layers)
    assert str(info.value).startswith(message), str(info.value)


def test_bad_patterns_and_points_are_rejected():
    net = _hand_net()
    with pytest.raises(InvalidInputError, match="expected 2 piece indices"):
        net.affine_map((1,))
    with pytest.raises(InvalidInputError, match=r"pattern\[1\]: expected a piece index in 0..1, got 2"):
        net.forward_with_pattern([0, 0], (0, 2))
    with pytest.raises(InvalidInputError, match="x: expected 2 numbers, got 3"):
        net([1, 2, 3])
    with pytest.raises(InvalidInputError, match="directions"):
        net.restrict([0, 0], [[1, 0, 0]])
    with pytest.raises(InvalidInputError, match="at least one direction"):
        net.restrict([0, 0], [])


def test_layers_validate_themselves():
    with pytest.raises(InvalidInputError, match="bias"):
        Layer([[1, 2]], [0, 0], relu())
    with pytest.raises(InvalidInputError, match="network: layers\\[1\\].weight: expected 2 columns"):
        Network(1, (Layer([[1], [1]], [0, 0], relu()), Layer([[1]], [0], relu())))


@given(st.lists(st.fractions(), min_size=1, max_size=6))
def test_weight_doubles_are_the_nearest_doubles(row):
    doubles = Layer([row], [0], relu()).weight_doubles
    assert doubles.tolist() == [[float(v) for v in row]] and not doubles.flags.writeable


def test_weight_doubles_beyond_the_double_range_are_infinite():
    layer = Layer([[Fraction(10 ** 400), Fraction(-(10 ** 400), 3), Fraction(1, 3)]], [0], relu())
    assert layer.weight_doubles.tolist() == [[np.inf, -np.inf, 1 / 3]]
