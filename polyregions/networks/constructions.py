"""Networks with known numbers of regions, exact by construction.

* :func:`sawtooth`: Telgarsky's sawtooth. The tent map ``t(x) = 2 relu(x) - 4 relu(x - 1/2)`` composed ``n``
  times; on ``[0, 1]`` it is the triangle wave ``t^n(x) = 1 - |2 frac(2^(n-1) x) - 1|`` with ``2^n`` linear
  pieces, from only ``2n`` neurons.
* :func:`montufar`: the folding construction of Montufar, Pascanu, Cho & Bengio (2014). With ``n0`` inputs,
  ``L`` hidden layers of width ``k >= n0`` and ``p = floor(k / n0)``, it has exactly
  ``p^(n0 (L - 1)) * sum_{j=0..n0} C(k, j)`` activation regions in ``[0, 1]^n0``, and as many linear regions
  (:func:`montufar_regions`).

Examples
--------
>>> sawtooth(3)([Fraction(1, 8)]), sawtooth(3)([Fraction(3, 16)])
((Fraction(1, 1),), (Fraction(1, 2),))
>>> montufar_regions(2, 4, 3)
176
"""

from __future__ import annotations

import math
from fractions import Fraction

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import linear, relu
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network

__all__ = ["sawtooth", "montufar", "montufar_regions"]

_ZERO = Fraction(0)
_HALF = Fraction(1, 2)


def _positive(value, what: str) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise InvalidInputError(f"{what}: expected a positive integer, got {value!r}")
    return value


def sawtooth(n: int) -> Network:
    """Telgarsky's sawtooth of depth ``n``: ``x -> t^n(x)`` with the tent map ``t(x) = 2 relu(x) - 4 relu(x - 1/2)``.

    Parameters
    ----------
    n : int
        The depth, positive: the number of hidden layers (and of tents composed).

    Returns
    -------
    Network
        A network on ``R^1`` with ``n`` hidden ReLU layers of width 2 (``2n`` neurons) and a linear output.

    Raises
    ------
    InvalidInputError
        When ``n`` is not a positive integer.

    Notes
    -----
    Each of the ``n`` hidden layers has the two neurons ``relu(u)`` and ``relu(u - 1/2)`` of its input
    ``u = 2 h1 - 4 h2`` (``u = x`` for the first); a linear output layer forms the last tent. On ``[0, 1]``
    the output is the triangle wave ``1 - |2 frac(2^(n-1) x) - 1|``, linear on each ``[j/2^n, (j+1)/2^n]``:
    ``2^n`` pieces, alternately rising and falling, and as many activation regions.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.sawtooth(2)
    >>> [net([pr.rational(j) / 4])[0] for j in range(5)]
    [Fraction(0, 1), Fraction(1, 1), Fraction(0, 1), Fraction(1, 1), Fraction(0, 1)]
    >>> len(pr.enumerate_regions(pr.sawtooth(4), pr.box([0], [1])).linear_regions)  # 2^4
    16
    """
    n = _positive(n, "n")
    bias = (_ZERO, -_HALF)
    layers = [Layer(((Fraction(1),), (Fraction(1),)), bias, relu())]
    tent = (Fraction(2), Fraction(-4))
    layers += [Layer((tent, tent), bias, relu()) for _ in range(n - 1)]
    layers.append(Layer((tent,), (_ZERO,), linear()))
    return Network(1, tuple(layers))


def montufar_regions(input_dim: int, width: int, depth: int) -> int:
    """``floor(k / n0)^(n0 (L - 1)) * sum_{j=0..n0} C(k, j)``: the regions of :func:`montufar` in ``[0, 1]^n0``.

    Examples
    --------
    >>> montufar_regions(1, 2, 3)  # 2^2 tents, each cut into 3 pieces
    12
    """
    n0, k, L = _check(input_dim, width, depth)
    return (k // n0) ** (n0 * (L - 1)) * sum(math.comb(k, j) for j in range(n0 + 1))


def _check(input_dim, width, depth) -> tuple[int, int, int]:
    n0 = _positive(input_dim, "input_dim")
    k = _positive(width, "width")
    L = _positive(depth, "depth")
    if k < n0:
        raise InvalidInputError(f"width: expected at least input_dim = {n0} neurons per layer, got {k}")
    return n0, k, L


def montufar(input_dim: int, width: int, depth: int) -> Network:
    """A ReLU network on ``[0, 1]^n0`` with exactly :func:`montufar_regions` activation and linear regions there.

    Parameters
    ----------
    input_dim : int
        ``n0``, the input dimension, positive.
    width : int
        ``k``, the width of every layer, at least ``input_dim``.
    depth : int
        ``L``, the number of layers, positive.

    Returns
    -------
    Network
        ``depth`` ReLU layers of width ``width``; the last hidden layer is the output.

    Raises
    ------
    InvalidInputError
        When an argument is not a positive integer or ``width < input_dim``.

    Notes
    -----
    Construction (after Montufar et al. 2014), with ``n0 = input_dim``, ``k = width``, ``L = depth`` and
    ``p = floor(k / n0)``:

    * Layers ``1 .. L-1`` *fold*: for each coordinate ``j``, ``p`` neurons ``relu(y_j - i/p)``
      (``i = 0 .. p-1``) whose combination ``p h_0 - 2p h_1 + 2p h_2 - ...`` is a zigzag mapping each of ``p``
      intervals of ``[0, 1]`` onto ``[0, 1]``; the ``k - n0 p`` spare neurons have zero weights and bias -1
      (never active). After ``L - 1`` layers, ``[0, 1]^n0`` is cut into ``p^(n0 (L-1))`` boxes, each mapped
      affinely onto the unit cube of folded coordinates ``y``.
    * Layer ``L`` cuts that cube by ``k`` hyperplanes in general position whose ``sum_{j<=n0} C(k, j)`` cells all
      meet the open cube: normals ``w_m = (1, s_m, ..., s_m^(n0-1))`` with ``s_m = m / k`` and
      ``w_m . (y - 1/2) = eps s_m^n0``, ``eps = 2^-(n0+2)``. Any ``n0`` normals are independent (Vandermonde),
      no ``n0 + 1`` hyperplanes meet (a degree-``n0`` polynomial with leading coefficient ``eps`` has at most
      ``n0`` roots), and every vertex lies in ``[1/4, 3/4]^n0``, so every cell meets the cube.
    * Neuron ``m`` is oriented by ``(-1)^m``; then the cell where every neuron is off is bounded (a polynomial of
      degree below ``n0`` that alternates in sign weakly at ``n0 + 1`` points is zero) and lies inside
      ``[1/4, 3/4]^n0``. The output is the last hidden layer itself (no linear output layer), so the Jacobian
      changes across every cut and every fold, and linear regions equal activation regions.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.montufar(1, 2, 2)
    >>> net.widths, net.num_neurons
    ((2, 2), 4)
    >>> len(pr.enumerate_regions(pr.montufar(2, 4, 3), pr.box([0, 0], [1, 1])))  # 2^(2*2) * (1 + 4 + 6)
    176
    """
    n0, k, L = _check(input_dim, width, depth)
    p = k // n0
    zero_row = lambda n: (_ZERO,) * n  # noqa: E731
    combination = [Fraction(p)] + [Fraction(2 * p * (-1) ** i) for i in range(1, p)]
    layers = []
    fan_in = n0
    for layer_index in range(L - 1):
        weight, bias = [], []
        for j in range(n0):
            for i in range(p):
                row = [_ZERO] * fan_in
                if layer_index == 0:
                    row[j] = Fraction(1)
                else:
                    row[j * p:(j + 1) * p] = combination
                weight.append(tuple(row))
                bias.append(Fraction(-i, p))
        for _ in range(k - n0 * p):
            weight.append(zero_row(fan_in))
            bias.append(Fraction(-1))
        layers.append(Layer(tuple(weight), tuple(bias), relu()))
        fan_in = k
    eps = Fraction(1, 2 ** (n0 + 2))
    weight, bias = [], []
    for m in range(1, k + 1):
        s = Fraction(m, k)
        sign = (-1) ** m
        w = [s ** r for r in range(n0)]
        if L == 1:
            row = [sign * wr for wr in w]
        else:
            row = [_ZERO] * fan_in
            for j in range(n0):
                row[j * p:(j + 1) * p] = [sign * w[j] * c for c in combination]
        weight.append(tuple(row))
        bias.append(sign * (-sum(w, _ZERO) * _HALF - eps * s ** n0))
    layers.append(Layer(tuple(weight), tuple(bias), relu()))
    return Network(n0, tuple(layers))
