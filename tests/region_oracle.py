"""Test helpers: a brute-force oracle for activation regions (every candidate pattern decided by its own exact
LP) and exact 2-D polygon ordering."""

from __future__ import annotations

import functools
import itertools
from fractions import Fraction

from polyregions.exact.linalg import dot
from polyregions.exact.lp import strict_point


def brute_force_patterns(net, A, b) -> set[tuple[int, ...]]:
    """Patterns realised on an open subset of {t : A t <= b}, for a network on the domain's coordinates."""
    k = net.input_dim
    found = set()
    shapes = [len(layer.activation.breakpoints) + 1 for layer in net.layers for _ in layer.bias
              if not layer.activation.is_linear]
    for pattern in itertools.product(*(range(s) for s in shapes)):
        rows, rhs = [list(r) for r in A], list(b)
        M = [[Fraction(int(i == j)) for j in range(k)] for i in range(k)]
        c = [Fraction(0)] * k
        position, feasible = 0, True
        for layer in net.layers:
            act = layer.activation
            G = [[dot(row, col) for col in zip(*M)] for row in layer.weight]
            g = [dot(row, c) + bj for row, bj in zip(layer.weight, layer.bias)]
            new_M, new_c = [], []
            for a, d in zip(G, g):
                piece = pattern[position] if not act.is_linear else 0
                if not act.is_linear:
                    position += 1
                    lower = act.breakpoints[piece - 1] if piece > 0 else None
                    upper = act.breakpoints[piece] if piece < len(act.breakpoints) else None
                    if not any(a):
                        # Constant on the cell: its piece is decided by the convention of Activation.piece.
                        feasible &= act.piece(d) == piece
                    else:
                        if lower is not None:
                            rows.append([-x for x in a])
                            rhs.append(d - lower)
                        if upper is not None:
                            rows.append(list(a))
                            rhs.append(upper - d)
                slope, intercept = act.piece_map(piece)
                new_M.append([slope * x for x in a])
                new_c.append(slope * d + intercept)
            M, c = new_M, new_c
        if feasible and strict_point(rows, rhs, dim=k) is not None:
            found.add(pattern)
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
