"""Random networks at initialisation, reproducible from an explicit seed.

Parameters are drawn with ``numpy.random.default_rng(seed)``, rounded to ``dtype`` (float32 by default, as in
a PyTorch model) and then taken at their exact rational value, so the network is exactly the one a float
implementation with these parameters computes. Draw order, for reproducibility: layer by layer, the weight
matrix (row by row) and then the bias vector.

``widths = [n0, n1, ..., nL]`` gives the input dimension ``n0`` and ``L`` hidden layers with the chosen
activation; ``output_dim=m`` adds a linear output layer of width ``m`` (``None``: the last hidden layer is the
output).

Examples
--------
>>> net = he_normal([2, 8, 8], seed=0)
>>> net.widths, net.num_neurons
((8, 8), 16)
>>> he_normal([2, 8, 8], seed=0) == net
True
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.networks.activations import Activation, activation_from_json, linear, relu
from polyregions.errors import InvalidInputError
from polyregions.networks.network import Layer, Network

__all__ = ["he_normal", "pytorch_default", "gaussian"]


def _check_widths(widths: Any) -> list[int]:
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__len__"):
        raise InvalidInputError(f"widths: expected a list such as [2, 64, 64, 64], got {widths!r}")
    widths = list(widths)
    if len(widths) < 2:
        raise InvalidInputError(f"widths: expected the input dimension and at least one layer width, "
                                f"got {widths!r}")
    for i, w in enumerate(widths):
        if not isinstance(w, (int, np.integer)) or isinstance(w, bool) or w < 1:
            raise InvalidInputError(f"widths[{i}]: expected a positive integer, got {w!r}")
    return [int(w) for w in widths]


def _generator(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return np.random.default_rng(int(seed))
    raise InvalidInputError(f"seed: expected a non-negative integer or a numpy Generator, got {seed!r}")


def _dtype(dtype: Any) -> np.dtype:
    try:
        result = np.dtype(dtype)
    except TypeError:
        result = None
    if result not in (np.dtype(np.float32), np.dtype(np.float64)):
        raise InvalidInputError(f"dtype: expected float32 or float64, got {dtype!r}")
    return result


def _nonnegative(value: Any, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating, Fraction)) \
            or not math.isfinite(float(value)) or float(value) < 0:
        raise InvalidInputError(f"{what}: expected a finite non-negative number, got {value!r}")
    return float(value)


def _exact(values: np.ndarray) -> list:
    return [Fraction(v) for v in values.astype(np.float64).tolist()]


def _build(widths: Sequence[int], output_dim: Any, activation: Any, dtype: Any, draw) -> Network:
    widths = _check_widths(widths)
    activation = activation_from_json(activation, what="activation")
    dtype = _dtype(dtype)
    shapes = [(w, fan_in, activation) for fan_in, w in zip(widths, widths[1:])]
    if output_dim is not None:
        if not isinstance(output_dim, (int, np.integer)) or isinstance(output_dim, bool) or output_dim < 1:
            raise InvalidInputError(f"output_dim: expected a positive integer or None, got {output_dim!r}")
        shapes.append((int(output_dim), widths[-1], linear()))
    layers = []
    for width, fan_in, act in shapes:
        W, b = draw(width, fan_in)
        W, b = W.astype(dtype), b.astype(dtype)
        weight = tuple(tuple(_exact(row)) for row in W)
        layers.append(Layer(weight, tuple(_exact(b)), act))
    return Network(widths[0], tuple(layers))


def he_normal(widths: Sequence[int], *, seed: int | np.random.Generator, bias_std: float = 1e-3,
              activation: Activation | str = relu(), output_dim: int | None = None,
              dtype: Any = np.float32) -> Network:
    """He-normal weights (mean 0, variance ``2 / fan_in``) and normal biases with standard deviation ``bias_std``.

    The default ``bias_std = 1e-3`` is Hanin & Rolnick's set-up (bias variance ``1e-6``).

    Examples
    --------
    >>> net = he_normal([2, 64, 64, 64], seed=1)
    >>> net.widths, net.layers[0].activation.name
    ((64, 64, 64), 'relu')
    """
    rng = _generator(seed)
    bias_std = _nonnegative(bias_std, "bias_std")

    def draw(width, fan_in):
        return (rng.normal(0.0, math.sqrt(2.0 / fan_in), size=(width, fan_in)),
                rng.normal(0.0, bias_std, size=width))
    return _build(widths, output_dim, activation, dtype, draw)


def pytorch_default(widths: Sequence[int], *, seed: int | np.random.Generator,
                    activation: Activation | str = relu(), output_dim: int | None = None,
                    dtype: Any = np.float32) -> Network:
    """PyTorch's default ``nn.Linear`` initialisation: weights and biases uniform in ``±1/sqrt(fan_in)``.

    The same distribution as torch, not torch's random stream (draws come from numpy with ``seed``).

    Examples
    --------
    >>> net = pytorch_default([4, 16], seed=0)
    >>> all(abs(w) <= Fraction(1, 2) for row in net.layers[0].weight for w in row)
    True
    """
    rng = _generator(seed)

    def draw(width, fan_in):
        bound = 1.0 / math.sqrt(fan_in)
        return rng.uniform(-bound, bound, size=(width, fan_in)), rng.uniform(-bound, bound, size=width)
    return _build(widths, output_dim, activation, dtype, draw)


def gaussian(widths: Sequence[int], *, seed: int | np.random.Generator, weight_variance: float = 2.0,
             bias_std: float = 1e-3, activation: Activation | str = relu(), output_dim: int | None = None,
             dtype: Any = np.float32) -> Network:
    """Normal weights with variance ``weight_variance / fan_in`` and normal biases with std ``bias_std``.

    ``weight_variance = 2`` is :func:`he_normal`; Raghu et al. 2017 vary it as ``sigma_w^2``.

    Examples
    --------
    >>> gaussian([2, 8], seed=3, weight_variance=2.0) == he_normal([2, 8], seed=3)
    True
    """
    rng = _generator(seed)
    scale = _nonnegative(weight_variance, "weight_variance")
    bias_std = _nonnegative(bias_std, "bias_std")

    def draw(width, fan_in):
        return (rng.normal(0.0, math.sqrt(scale / fan_in), size=(width, fan_in)),
                rng.normal(0.0, bias_std, size=width))
    return _build(widths, output_dim, activation, dtype, draw)
