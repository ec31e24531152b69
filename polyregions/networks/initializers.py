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

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import Activation, activation_from_json, linear, relu
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network

__all__ = ["he_normal", "pytorch_default", "gaussian", "random_generator"]

# The default hidden activation: an Activation is immutable, so every call may share this one.
_RELU = relu()


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


def random_generator(seed: Any) -> np.random.Generator:
    """The numpy generator a seed stands for: ``numpy.random.default_rng(seed)``, or ``seed`` itself when it is
    a generator already (then draws continue its stream).

    Parameters
    ----------
    seed : int or numpy.random.Generator
        A non-negative integer, or a generator.

    Returns
    -------
    numpy.random.Generator

    Raises
    ------
    InvalidInputError
        When ``seed`` is neither (a negative integer, a bool, a float, None...).

    Examples
    --------
    >>> rng = np.random.default_rng(5)
    >>> random_generator(rng) is rng, random_generator(5).random() == rng.random()
    (True, True)
    """
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
              activation: Activation | str = _RELU, output_dim: int | None = None,
              dtype: Any = np.float32) -> Network:
    """He-normal weights (mean 0, variance ``2 / fan_in``) and normal biases with standard deviation ``bias_std``.

    The default ``bias_std = 1e-3`` is Hanin & Rolnick's set-up (bias variance ``1e-6``).

    Parameters
    ----------
    widths : sequence of int
        ``[n0, n1, ..., nL]``: the input dimension and the widths of the hidden layers.
    seed : int or numpy.random.Generator, keyword-only
        A non-negative integer, or a generator whose stream the draws continue.
    bias_std : float, keyword-only
        The standard deviation of the biases (0: zero biases).
    activation : Activation or str, keyword-only
        The activation of every hidden layer.
    output_dim : int or None, keyword-only
        The width of a linear output layer added after the hidden layers (None: no output layer).
    dtype : float32 or float64, keyword-only
        The float type the draws are rounded to before they are taken exactly.

    Returns
    -------
    Network
        With exact rational parameters: the values of the rounded draws.

    Raises
    ------
    InvalidInputError
        For widths that are not a list of at least two positive integers, a bad seed, a negative or non-finite
        ``bias_std``, an unknown activation, ``output_dim`` or ``dtype``.

    Examples
    --------
    >>> net = he_normal([2, 64, 64, 64], seed=1)
    >>> net.widths, net.layers[0].activation.name
    ((64, 64, 64), 'relu')
    >>> he_normal([1, 2], seed=0, bias_std=0).layers[0].bias
    (Fraction(0, 1), Fraction(0, 1))
    """
    rng = random_generator(seed)
    bias_std = _nonnegative(bias_std, "bias_std")

    def draw(width, fan_in):
        return (rng.normal(0.0, math.sqrt(2.0 / fan_in), size=(width, fan_in)),
                rng.normal(0.0, bias_std, size=width))
    return _build(widths, output_dim, activation, dtype, draw)


def pytorch_default(widths: Sequence[int], *, seed: int | np.random.Generator,
                    activation: Activation | str = _RELU, output_dim: int | None = None,
                    dtype: Any = np.float32) -> Network:
    """PyTorch's default ``nn.Linear`` initialisation: weights and biases uniform in ``±1/sqrt(fan_in)``.

    The same distribution as torch, not torch's random stream (draws come from numpy with ``seed``).

    Parameters
    ----------
    widths : sequence of int
        ``[n0, n1, ..., nL]``: the input dimension and the widths of the hidden layers.
    seed : int or numpy.random.Generator, keyword-only
        A non-negative integer, or a generator whose stream the draws continue.
    activation : Activation or str, keyword-only
        The activation of every hidden layer.
    output_dim : int or None, keyword-only
        The width of a linear output layer added after the hidden layers (None: no output layer).
    dtype : float32 or float64, keyword-only
        The float type the draws are rounded to before they are taken exactly.

    Returns
    -------
    Network
        With exact rational parameters: the values of the rounded draws.

    Raises
    ------
    InvalidInputError
        For widths that are not a list of at least two positive integers, a bad seed, an unknown activation,
        ``output_dim`` or ``dtype``.

    Examples
    --------
    >>> net = pytorch_default([4, 16], seed=0)
    >>> all(abs(w) <= Fraction(1, 2) for row in net.layers[0].weight for w in row)
    True
    >>> pytorch_default([4, 16], seed=0, output_dim=1).widths
    (16, 1)
    """
    rng = random_generator(seed)

    def draw(width, fan_in):
        bound = 1.0 / math.sqrt(fan_in)
        return rng.uniform(-bound, bound, size=(width, fan_in)), rng.uniform(-bound, bound, size=width)
    return _build(widths, output_dim, activation, dtype, draw)


def gaussian(widths: Sequence[int], *, seed: int | np.random.Generator, weight_variance: float = 2.0,
             bias_std: float = 1e-3, activation: Activation | str = _RELU, output_dim: int | None = None,
             dtype: Any = np.float32) -> Network:
    """Normal weights with variance ``weight_variance / fan_in`` and normal biases with std ``bias_std``.

    ``weight_variance = 2`` is :func:`he_normal`; Raghu et al. 2017 vary it as ``sigma_w^2``.

    Parameters
    ----------
    widths : sequence of int
        ``[n0, n1, ..., nL]``: the input dimension and the widths of the hidden layers.
    seed : int or numpy.random.Generator, keyword-only
        A non-negative integer, or a generator whose stream the draws continue.
    weight_variance : float, keyword-only
        ``sigma_w^2``: the weights' variance times the fan-in.
    bias_std : float, keyword-only
        The standard deviation of the biases (0: zero biases).
    activation : Activation or str, keyword-only
        The activation of every hidden layer.
    output_dim : int or None, keyword-only
        The width of a linear output layer added after the hidden layers (None: no output layer).
    dtype : float32 or float64, keyword-only
        The float type the draws are rounded to before they are taken exactly.

    Returns
    -------
    Network
        With exact rational parameters: the values of the rounded draws.

    Raises
    ------
    InvalidInputError
        For widths that are not a list of at least two positive integers, a bad seed, a negative or non-finite
        ``weight_variance`` or ``bias_std``, an unknown activation, ``output_dim`` or ``dtype``.

    Examples
    --------
    >>> gaussian([2, 8], seed=3, weight_variance=2.0) == he_normal([2, 8], seed=3)
    True
    >>> gaussian([1, 3], seed=0, weight_variance=0, bias_std=0).layers[0].weight
    ((Fraction(0, 1),), (Fraction(0, 1),), (Fraction(0, 1),))
    """
    rng = random_generator(seed)
    scale = _nonnegative(weight_variance, "weight_variance")
    bias_std = _nonnegative(bias_std, "bias_std")

    def draw(width, fan_in):
        return (rng.normal(0.0, math.sqrt(scale / fan_in), size=(width, fan_in)),
                rng.normal(0.0, bias_std, size=width))
    return _build(widths, output_dim, activation, dtype, draw)
