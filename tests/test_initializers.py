import math
from fractions import Fraction

import numpy as np
import pytest

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import hardtanh, linear, relu
from polyregions.networks.initializers import gaussian, he_normal, pytorch_default


def _entries(layer):
    return np.array([[float(v) for v in row] for row in layer.weight]), np.array([float(v) for v in layer.bias])


def test_shapes_activations_and_output_layer():
    net = he_normal([2, 64, 64, 64], seed=0)
    assert net.input_dim == 2 and net.widths == (64, 64, 64) and net.num_neurons == 192
    assert all(layer.activation == relu() for layer in net.layers)
    with_output = pytorch_default([3, 16, 16], seed=0, output_dim=2, activation="hardtanh")
    assert with_output.widths == (16, 16, 2) and with_output.num_neurons == 32
    assert [layer.activation for layer in with_output.layers] == [hardtanh(), hardtanh(), linear()]


def test_the_seed_fixes_the_network_and_the_draw_order():
    assert he_normal([2, 8, 8], seed=5) == he_normal([2, 8, 8], seed=5)
    assert he_normal([2, 8, 8], seed=5) != he_normal([2, 8, 8], seed=6)
    rng = np.random.default_rng(5)
    W0 = rng.normal(0.0, 1.0, size=(8, 2)).astype(np.float32)
    b0 = rng.normal(0.0, 1e-3, size=8).astype(np.float32)
    net = he_normal([2, 8, 8], seed=5)
    assert net.layers[0].weight[3][1] == Fraction(float(W0[3, 1]))
    assert net.layers[0].bias[7] == Fraction(float(b0[7]))
    assert he_normal([2, 8], seed=np.random.default_rng(5)) == he_normal([2, 8], seed=5)


@pytest.mark.parametrize("dtype", [np.float32, "float64"])
def test_parameters_are_the_exact_values_of_floats_of_the_chosen_dtype(dtype):
    net = he_normal([3, 10], seed=1, dtype=dtype)
    values = [v for row in net.layers[0].weight for v in row] + list(net.layers[0].bias)
    as_dtype = [Fraction(float(np.dtype(dtype).type(float(v)))) for v in values]
    assert as_dtype == values
    if np.dtype(dtype) == np.float64:  # float64 draws are not all float32 numbers
        assert any(Fraction(float(np.float32(float(v)))) != v for v in values)


def test_he_normal_has_variance_two_over_fan_in_and_the_requested_bias_scale():
    net = he_normal([64, 128, 128], seed=2, bias_std=0.5)
    for layer in net.layers:
        W, b = _entries(layer)
        fan_in = W.shape[1]
        # 8192 or 16384 samples: the sample standard deviation is within 5% with overwhelming probability.
        assert abs(W.std() / math.sqrt(2 / fan_in) - 1) < 0.05
        assert abs(W.mean()) < 4 * math.sqrt(2 / fan_in) / math.sqrt(W.size)
        assert 0.3 < b.std() < 0.7
    assert all(v == 0 for v in he_normal([2, 4], seed=0, bias_std=0).layers[0].bias)


def test_pytorch_default_is_uniform_within_one_over_root_fan_in():
    net = pytorch_default([16, 64, 64], seed=3, output_dim=1)
    for layer in net.layers:
        W, b = _entries(layer)
        bound = 1 / math.sqrt(W.shape[1])
        assert np.all(np.abs(W) <= bound) and np.all(np.abs(b) <= bound)
        assert np.abs(W).max() > 0.9 * bound  # uniform, not concentrated
        assert abs(W.std() / (bound / math.sqrt(3)) - 1) < 0.1  # std of U(-a, a) is a / sqrt(3)


def test_gaussian_with_variance_two_is_he_normal():
    assert gaussian([2, 8, 8], seed=4) == he_normal([2, 8, 8], seed=4)
    W, _ = _entries(gaussian([100, 200], seed=4, weight_variance=0.5).layers[0])
    assert abs(W.std() / math.sqrt(0.5 / 100) - 1) < 0.05


@pytest.mark.parametrize("call, message", [
    (lambda: he_normal([2], seed=0), "widths: expected the input dimension and at least one layer"),
    (lambda: he_normal("2,3", seed=0), "widths: expected a list"),
    (lambda: he_normal([2, 0], seed=0), r"widths\[1\]: expected a positive integer"),
    (lambda: he_normal([2, 2.5], seed=0), r"widths\[1\]: expected a positive integer"),
    (lambda: he_normal([2, 3], seed=-1), "seed: expected a non-negative integer"),
    (lambda: he_normal([2, 3], seed=None), "seed: expected a non-negative integer"),
    (lambda: he_normal([2, 3], seed=0, bias_std=-1), "bias_std: expected a finite non-negative number"),
    (lambda: he_normal([2, 3], seed=0, bias_std=float("nan")), "bias_std: expected a finite non-negative"),
    (lambda: he_normal([2, 3], seed=0, dtype="float16"), "dtype: expected float32 or float64"),
    (lambda: he_normal([2, 3], seed=0, output_dim=0), "output_dim: expected a positive integer"),
    (lambda: pytorch_default([2, 3], seed=0, activation="tanh"), "activation: expected"),
    (lambda: gaussian([2, 3], seed=0, weight_variance=-2), "weight_variance: expected a finite non-negative"),
])
def test_bad_arguments_are_rejected(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_the_seed_is_keyword_only_and_required():
    with pytest.raises(TypeError):
        he_normal([2, 3])
    with pytest.raises(TypeError):
        he_normal([2, 3], 0)
