"""Test helper: a brute-force oracle for the activation regions of a staged (graph) network: every candidate
pattern decided by its own exact program, independently of the refinement engines."""

from __future__ import annotations

import itertools
from fractions import Fraction

from polyregions.exact.linalg import dot
from polyregions.exact.lp import strict_point


def _strictly(a, d, sign, rows, rhs):
    """Add ``sign * (a . t + d) > 0``; a constant must hold by itself. Returns False when it cannot hold."""
    if not any(a):
        return sign * d > 0
    rows.append([-sign * v for v in a])
    rhs.append(sign * d)
    return True


def brute_force_stage_patterns(net, A, b) -> set[tuple[int, ...]]:
    """Patterns of ``net`` (a StagedNetwork in the domain's coordinates) realised on an open subset of
    ``{t : A t <= b}``; a max unit's piece is the position of its largest value, the first one on a tie."""
    k = net.input_dim
    found = set()
    for pattern in itertools.product(*(range(count) for count in net.piece_counts)):
        rows, rhs = [list(r) for r in A], list(b)
        M = [[Fraction(int(i == j)) for j in range(k)] for i in range(k)]
        c = [Fraction(0)] * k
        position, feasible = 0, True
        for stage in net.layers:
            G = [[dot(row, col) for col in zip(*M)] for row in stage.weight]
            g = [dot(row, c) + bj for row, bj in zip(stage.weight, stage.bias)]
            new_M, new_c = [], []
            for j, act in enumerate(stage.activations):
                piece = 0
                if not act.is_linear:
                    piece = pattern[position]
                    position += 1
                    if not any(G[j]):  # constant on the domain: the piece of its value
                        feasible &= act.piece(g[j]) == piece
                    elif piece > 0:
                        feasible &= _strictly(G[j], g[j] - act.breakpoints[piece - 1], 1, rows, rhs)
                    if any(G[j]) and piece < len(act.breakpoints):
                        feasible &= _strictly(G[j], g[j] - act.breakpoints[piece], -1, rows, rhs)
                slope, intercept = act.piece_map(piece)
                new_M.append([slope * v for v in G[j]])
                new_c.append(slope * g[j] + intercept)
            for group in stage.groups:
                piece = pattern[position]
                position += 1
                win = group[piece]
                for place, other in enumerate(group):
                    if other == win:
                        continue
                    a = [x - y for x, y in zip(G[win], G[other])]
                    d = g[win] - g[other]
                    if not any(a) and d == 0:
                        feasible &= place > piece  # equal everywhere: the first of them wins
                    else:
                        feasible &= _strictly(a, d, 1, rows, rhs)
                new_M.append(list(G[win]))
                new_c.append(g[win])
            M, c = new_M, new_c
        if feasible and strict_point(rows, rhs, dim=k, backend="exact") is not None:
            found.add(pattern)
    return found
