"""Exact region counts of a network on a whole line (a network with one input), certified.

The regions of ``t -> N(t)`` on all of ``R`` are counted in a segment ``[-R, R]`` with the exact mesh engine, and
the segment is doubled until both end regions are proven to extend to infinity: with the end region's pattern
fixed, every neuron's pre-activation is an exact affine function ``a t + c``, and the region is unbounded on the
right exactly when no neuron heads towards a breakpoint of its piece (``a > 0`` with a breakpoint above, or
``a < 0`` with one below). Then no region lies outside ``[-R, R]`` and the two counts agree.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from polyregions.network import Network

__all__ = ["preactivation_lines", "end_is_unbounded", "regions_on_line", "line_network"]

_ZERO = Fraction(0)


def preactivation_lines(net: "Network", pattern: Sequence[int]) -> list[tuple[Fraction, Fraction, int, int]]:
    """For a network on ``R`` and an activation pattern: ``(a, c, piece, T)`` of every neuron, in pattern order.

    ``a t + c`` is the neuron's exact pre-activation wherever the pattern holds (and on the closure of that set),
    ``piece`` its piece in the pattern and ``T`` the number of breakpoints of its activation.
    """
    if net.input_dim != 1:
        raise ValueError(f"expected a network on R (input_dim 1), got input_dim {net.input_dim}")
    slopes, offsets = [Fraction(1)], [_ZERO]
    result, position = [], 0
    for layer in net.layers:
        za = [sum((w * s for w, s in zip(row, slopes)), _ZERO) for row in layer.weight]
        zc = [sum((w * o for w, o in zip(row, offsets)), bias) for row, bias in zip(layer.weight, layer.bias)]
        act = layer.activation
        if act.is_linear:
            slopes, offsets = za, zc
            continue
        pieces = pattern[position:position + layer.width]
        position += layer.width
        slopes, offsets = [], []
        for a, c, k in zip(za, zc, pieces):
            result.append((a, c, k, len(act.breakpoints)))
            s, q = act.piece_map(k)
            slopes.append(s * a)
            offsets.append(s * c + q)
    return result


def end_is_unbounded(net: "Network", pattern: Sequence[int], direction: int) -> bool:
    """Whether the region with ``pattern`` extends to ``+inf`` (``direction = 1``) or ``-inf`` (``-1``).

    Examples
    --------
    >>> from polyregions.network import Network
    >>> net = Network.from_layers(1, [([[1]], [-1], "relu")])     # relu(t - 1): one breakpoint at t = 1
    >>> end_is_unbounded(net, (1,), 1), end_is_unbounded(net, (1,), -1)
    (True, False)
    """
    for a, _, piece, T in preactivation_lines(net, pattern):
        heading = a * direction
        if (heading > 0 and piece < T) or (heading < 0 and piece > 0):
            return False
    return True


def regions_on_line(net: "Network", *, radius: Fraction = Fraction(1), max_doublings: int = 400
                    ) -> tuple[int, Fraction]:
    """The exact number of activation regions of a network on ``R``, and a radius ``R`` that holds them all.

    Examples
    --------
    >>> from polyregions.constructions import sawtooth
    >>> regions_on_line(sawtooth(3))[0]     # 8 teeth in [0, 1], and one more piece on each side
    10
    """
    from polyregions.domain import box
    from polyregions.enumeration import enumerate_regions

    R = Fraction(radius)
    for _ in range(max_doublings):
        complex_ = enumerate_regions(net, box([-R], [R]))
        ordered = sorted(complex_.regions, key=lambda r: r.interior_point[0])
        if end_is_unbounded(net, ordered[-1].pattern, 1) and end_is_unbounded(net, ordered[0].pattern, -1):
            return len(ordered), R
        R *= 2
    raise RuntimeError(f"no radius up to {R} holds every region of the line")


def line_network(net: "Network", origin: Sequence, direction: Sequence) -> "Network":
    """The network ``t -> N(origin + t direction)`` on ``R`` (exact)."""
    return net.restrict(list(origin), [list(direction)])
