"""Exact region counts of a network on a whole line (a network with one input), certified.

The regions of ``t -> N(t)`` on all of ``R`` are counted in a segment ``[-R, R]`` with the exact mesh engine, and
the segment is widened until both end regions are proven to extend to infinity: with the end region's pattern
fixed, every neuron's pre-activation is an exact affine function ``a t + c``, and the region is unbounded on the
right exactly when no neuron heads towards a breakpoint of its piece (``a > 0`` with a breakpoint above, or
``a < 0`` with one below). Then no region lies outside ``[-R, R]`` and the two counts agree.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from flint import fmpq, fmpq_mat

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["preactivation_lines", "end_is_unbounded", "regions_on_line", "line_network"]

_ZERO = Fraction(0)


def _fq(value: Fraction) -> fmpq:
    return fmpq(value.numerator, value.denominator)


def _flint_layers(net: "Network") -> list:
    """Every layer as ``(W, bias, activation)`` with FLINT rationals (built once per network and count)."""
    layers = []
    for layer in net.layers:
        W = fmpq_mat(layer.width, layer.fan_in, [_fq(v) for row in layer.weight for v in row])
        layers.append((W, [_fq(v) for v in layer.bias], layer.activation))
    return layers


def preactivation_lines(net: "Network", pattern: Sequence[int], *, _layers=None
                        ) -> list[tuple[Fraction, Fraction, int, int]]:
    """For a network on ``R`` and an activation pattern: ``(a, c, piece, T)`` of every neuron, in pattern order.

    ``a t + c`` is the neuron's exact pre-activation wherever the pattern holds (and on the closure of that set),
    ``piece`` its piece in the pattern and ``T`` the number of breakpoints of its activation.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[2], [-1]], [1, 0], "relu"), ([[1, 1]], [0], "relu")])
    >>> [(str(a), str(c)) for a, c, _, _ in preactivation_lines(net, (1, 0, 1))]
    [('2', '1'), ('-1', '0'), ('2', '1')]
    """
    if net.input_dim != 1:
        raise ValueError(f"expected a network on R (input_dim 1), got input_dim {net.input_dim}")
    layers = _layers if _layers is not None else _flint_layers(net)
    h = fmpq_mat(1, 2, [1, 0])  # the input t as (slope, offset)
    result, position = [], 0
    for W, bias, act in layers:
        z = W * h
        rows = [(z[i, 0], z[i, 1] + b) for i, b in enumerate(bias)]
        if act.is_linear:
            h = fmpq_mat(len(rows), 2, [v for row in rows for v in row])
            continue
        pieces = pattern[position:position + len(rows)]
        position += len(rows)
        T = len(act.breakpoints)
        out = []
        for (a, c), k in zip(rows, pieces):
            result.append((Fraction(int(a.p), int(a.q)), Fraction(int(c.p), int(c.q)), k, T))
            slope, intercept = (_fq(v) for v in act.piece_map(k))
            out += [slope * a, slope * c + intercept]
        h = fmpq_mat(len(rows), 2, out)
    return result


def end_is_unbounded(net: "Network", pattern: Sequence[int], direction: int, *, _layers=None) -> bool:
    """Whether the region with ``pattern`` extends to ``+inf`` (``direction = 1``) or ``-inf`` (``-1``).

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[1]], [-1], "relu")])     # relu(t - 1): one breakpoint at t = 1
    >>> end_is_unbounded(net, (1,), 1), end_is_unbounded(net, (1,), -1)
    (True, False)
    """
    for a, _, piece, T in preactivation_lines(net, pattern, _layers=_layers):
        heading = a * direction
        if (heading > 0 and piece < T) or (heading < 0 and piece > 0):
            return False
    return True


def regions_on_line(net: "Network", *, radius: Fraction = Fraction(1), growth: int = 16, max_steps: int = 200
                    ) -> tuple[int, Fraction]:
    """The exact number of activation regions of a network on ``R``, and a radius ``R`` that holds them all.

    The segment ``[-R, R]`` grows by ``growth`` until both end regions are proven unbounded.

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> regions_on_line(sawtooth(3))[0]     # 8 teeth in [0, 1], and one more piece on each side
    10
    """
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    layers = _flint_layers(net)
    R = Fraction(radius)
    for _ in range(max_steps):
        complex_ = enumerate_regions(net, box([-R], [R]))
        ordered = sorted(complex_.regions, key=lambda r: r.interior_point[0])
        if end_is_unbounded(net, ordered[-1].pattern, 1, _layers=layers) \
                and end_is_unbounded(net, ordered[0].pattern, -1, _layers=layers):
            return len(ordered), R
        R *= growth
    raise RuntimeError(f"no radius up to {R} holds every region of the line")


def line_network(net: "Network", origin: Sequence, direction: Sequence) -> "Network":
    """The network ``t -> N(origin + t direction)`` on ``R`` (exact)."""
    return net.restrict(list(origin), [list(direction)])
