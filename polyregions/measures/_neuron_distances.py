"""The exact distance from a point to the hyperplanes of its activation region: every neuron's exact affine map on
the region (``(g . [x; 1]) / D``), the nearest neuron hyperplanes and their touching points, and the proof that a
touching point lies on ``B_N``, the boundary of linear regions (see the notes of :mod:`polyregions.measures.distances`,
whose ``exact_distance`` these serve)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from polyregions.exact.linalg import Vector

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["neuron_rows", "activation_exact", "touching_point", "touching_point_in_boundary"]

_ZERO = Fraction(0)


def neuron_rows(net: "Network", pattern, maps) -> list[tuple[int, int, int, tuple[int, ...], int]]:
    """``(neuron, layer, unit, g, D)`` for every neuron: its pre-activation on the region is ``(g . [x; 1]) / D``."""
    rows = []
    index = 0
    for l, layer in enumerate(net.layers):
        if layer.activation.is_linear:
            continue
        G, D = maps.maps[l]
        cols = G.ncols()
        entries = [int(v) for v in G.entries()]
        for u in range(layer.width):
            rows.append((index, l, u, tuple(entries[u * cols:(u + 1) * cols]), D))
            index += 1
    return rows


def activation_exact(net: "Network", x: Vector):
    """Exact activation-region distance data: ``(squared, nearest, minimisers)`` with ``minimisers`` the
    ``(neuron, layer, unit, xi)`` attaining the minimum, and the pattern and maps used."""
    from polyregions.networks._neuron_maps import PatternMaps, exact_preactivations

    pre = exact_preactivations(net, [x])[0]
    pattern = tuple(layer.activation.piece(v) for layer, values in zip(net.layers, pre)
                    if not layer.activation.is_linear for v in values)
    maps = PatternMaps.of(net, pattern)
    best, found = None, []
    for index, l, u, g, D in neuron_rows(net, pattern, maps):
        gg = sum(v * v for v in g[:-1])
        if gg == 0:
            continue
        value = sum((gi * xi for gi, xi in zip(g, x)), _ZERO) + g[-1]  # D times the pre-activation
        for xi in net.layers[l].activation.breakpoints:
            s2 = (value - xi * D) ** 2 / gg
            if best is None or s2 < best:
                best, found = s2, [(index, l, u, xi, g, D, value)]
            elif s2 == best:
                found.append((index, l, u, xi, g, D, value))
    if best is None:
        return None, None, [], pattern, maps
    index, l, u, xi, g, D, value = found[0]
    gg = sum(v * v for v in g[:-1])
    step = (value - xi * D) / gg  # x - step * g is on the hyperplane
    nearest = tuple(xi_ - step * gi for xi_, gi in zip(x, g[:-1]))
    return best, nearest, found, pattern, maps


def touching_point(x: Vector, g, D, value, xi) -> Vector:
    gg = sum(v * v for v in g[:-1])
    step = (value - xi * D) / gg
    return tuple(a - step * b for a, b in zip(x, g[:-1]))


def touching_point_in_boundary(net: "Network", x: Vector, p: Vector, neuron: int, pattern, xi, value, D) -> bool:
    """Whether the touching point ``p`` on neuron ``neuron``'s hyperplane is in ``B_N``, proved exactly: no other
    neuron at a breakpoint at ``p`` and every one on ``pattern``'s piece, and different outputs (off the
    hyperplane, at ``x``) of the two patterns on either side."""
    from polyregions.networks._neuron_maps import exact_preactivations

    pre = exact_preactivations(net, [p])[0]
    index = 0
    for layer, values in zip(net.layers, pre):
        act = layer.activation
        if act.is_linear:
            continue
        for v in values:
            if index != neuron and (v in act.breakpoints or act.piece(v) != pattern[index]):
                return False
            index += 1
    k = pattern[neuron]
    other = list(pattern)
    # x is on the side of p's breakpoint given by the sign of (value - xi D).
    other[neuron] = k + 1 if value < xi * D else k - 1
    return net.forward_with_pattern(x, pattern) != net.forward_with_pattern(x, tuple(other))
