"""Test helpers: a brute-force oracle for activation regions (every candidate pattern decided by certified LPs on
its inequalities) and exact 2-D polygon ordering."""

from __future__ import annotations

import functools
from fractions import Fraction

from polyregions.exact.linalg import dot
from polyregions.exact.lp import strict_point


def strictly_inside(rows, rhs, point, dim, backend="highs"):
    """A point strictly inside every row ``a . x < h``: ``point`` when it still is one, else one of a new program
    (None when there is none)."""
    if point is not None and all(dot(row, point) < h for row, h in zip(rows, rhs)):
        return point
    return strict_point(rows, rhs, dim=dim, backend=backend)


def brute_force_patterns(net, A, b) -> set[tuple[int, ...]]:
    """Patterns realised on an open subset of {t : A t <= b}, for a network on the domain's coordinates.

    Every pattern is tried, unit by unit: a choice of pieces for the first units whose strict inequalities have
    no common point is not extended (its extensions add inequalities), and the point proving a choice feasible
    proves its extensions too while they hold there.
    """
    k = net.input_dim
    found: set[tuple[int, ...]] = set()
    units = [(q, j) for q, layer in enumerate(net.layers) for j in range(len(layer.bias))]

    def extend(u, maps, rows, rhs, point, pattern):
        """Choose the pieces of units ``u`` on; ``maps``: each layer's affine maps on the cell so far."""
        if u == len(units):
            found.add(tuple(pattern))
            return
        q, j = units[u]
        layer = net.layers[q]
        act = layer.activation
        if j == 0:  # a new layer: its pre-activations on the cell, from the previous layer's outputs
            M, c = maps[-1] if maps else ([[Fraction(int(i == m)) for m in range(k)] for i in range(k)],
                                          [Fraction(0)] * k)
            G = [[dot(row, col) for col in zip(*M)] for row in layer.weight]
            g = [dot(row, c) + bj for row, bj in zip(layer.weight, layer.bias)]
            maps = maps + [(G, g), ([], [])]  # this layer's pre-activations, then its outputs as they come
        (G, g), (out_M, out_c) = maps[-2], maps[-1]
        a, d = G[j], g[j]
        for piece in (range(len(act.breakpoints) + 1) if not act.is_linear else (0,)):
            more_rows, more_rhs, here = list(rows), list(rhs), point
            if not act.is_linear:
                lower = act.breakpoints[piece - 1] if piece > 0 else None
                upper = act.breakpoints[piece] if piece < len(act.breakpoints) else None
                if not any(a):
                    # Constant on the cell: its piece is decided by the convention of Activation.piece.
                    if act.piece(d) != piece:
                        continue
                else:
                    if lower is not None:
                        more_rows.append([-x for x in a])
                        more_rhs.append(d - lower)
                    if upper is not None:
                        more_rows.append(list(a))
                        more_rhs.append(upper - d)
                    here = strictly_inside(more_rows, more_rhs, point, k)
                    if here is None:
                        continue
            slope, intercept = act.piece_map(piece)
            outputs = (out_M + [[slope * x for x in a]], out_c + [slope * d + intercept])
            last = j == len(layer.bias) - 1
            next_maps = maps[:-2] + [outputs] if last else maps[:-1] + [outputs]
            extend(u + 1, next_maps, more_rows, more_rhs, here,
                   pattern if act.is_linear else pattern + [piece])

    inside = strictly_inside([list(r) for r in A], list(b), None, k)
    if inside is not None:
        extend(0, [], [list(r) for r in A], list(b), inside, [])
    return found


def counter_clockwise(points):
    """Exact 2-D points of a convex polygon sorted by angle around their centroid (counter-clockwise)."""
    points = list(points)
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)

    def compare(p, q):
        hp = 0 if (p[1] > cy or (p[1] == cy and p[0] > cx)) else 1
        hq = 0 if (q[1] > cy or (q[1] == cy and q[0] > cx)) else 1
        if hp != hq:
            return hp - hq
        cross = (p[0] - cx) * (q[1] - cy) - (p[1] - cy) * (q[0] - cx)
        return -1 if cross > 0 else 1 if cross < 0 else 0
    return sorted(points, key=functools.cmp_to_key(compare))
