"""Exact distances for graph networks (their stages, :mod:`polyregions.networks.stages`).

The activation region of a point is the polytope of its pattern's rows (:meth:`StagedNetwork.region_rows`: a
piece's breakpoints for an element-wise neuron, ``z_j <= z_argmax`` for a max unit), so the distance to its
boundary is the distance to the nearest row's hyperplane, as for dense networks (:mod:`polyregions.measures.
distances`). For ``B_N`` a touching point where no other row is tight is in ``B_N`` exactly when the two
patterns on either side have different output maps; otherwise the region search of the dense case decides.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Optional

from polyregions.exact.linalg import Vector, dot

if TYPE_CHECKING:
    from polyregions.networks.stages import StagedNetwork


def nearest_rows(net: "StagedNetwork", x: Vector) -> tuple[Optional[Fraction], list, tuple[int, ...]]:
    """The squared distance from ``x`` to the nearest hyperplane of its region's rows (None: no row with a
    non-zero normal), the rows attaining it and ``x``'s pattern."""
    pattern = net.pattern(x)
    best: Optional[Fraction] = None
    found: list = []
    for neuron, a, beta, across in net.region_rows(pattern):
        norm = dot(a, a)
        if not norm:
            continue
        squared = (beta - dot(a, x)) ** 2 / norm
        if best is None or squared < best:
            best, found = squared, [(neuron, a, beta, across)]
        elif squared == best:
            found.append((neuron, a, beta, across))
    return best, found, pattern


def touching_point(x: Vector, a: Vector, beta: Fraction) -> Vector:
    """The point of the hyperplane ``a . y = beta`` nearest ``x``."""
    step = (beta - dot(a, x)) / dot(a, a)
    return tuple(v + step * w for v, w in zip(x, a))


def in_boundary(net: "StagedNetwork", x: Vector, p: Vector, row: tuple, pattern: tuple[int, ...]) -> bool:
    """Whether the touching point ``p`` of ``row`` is in ``B_N``, proved exactly: every other row of the region
    strict at ``p`` (only this row's neuron changes there, to the row's piece), and the two output maps differ
    (at ``x``, off the hyperplane)."""
    neuron, a, beta, across = row
    for other in net.region_rows(pattern):
        if other is not row and other[1:] != row[1:] and not dot(other[1], p) < other[2]:
            return False
    switched = list(pattern)
    switched[neuron] = across
    return net.forward_with_pattern(x, pattern) != net.forward_with_pattern(x, tuple(switched))


def region_rows(net: "StagedNetwork", pattern) -> list[tuple[Vector, Fraction]]:
    """The rows ``a . y <= beta`` of the closed region of ``pattern`` with a non-zero normal."""
    return [(a, beta) for _, a, beta, _ in net.region_rows(pattern) if any(a)]
