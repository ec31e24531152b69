"""Test helper: a brute-force oracle for the activation regions of a staged (graph) network: every candidate
pattern decided by exact programs on its inequalities, independently of the refinement engines."""

from __future__ import annotations

from fractions import Fraction

from region_oracle import strictly_inside

from polyregions.exact.linalg import dot


def _strictly(a, d, sign, rows, rhs):
    """Add ``sign * (a . t + d) > 0``; a constant must hold by itself. Returns False when it cannot hold."""
    if not any(a):
        return sign * d > 0
    rows.append([-sign * v for v in a])
    rhs.append(sign * d)
    return True


def brute_force_stage_patterns(net, A, b) -> set[tuple[int, ...]]:
    """Patterns of ``net`` (a StagedNetwork in the domain's coordinates) realised on an open subset of
    ``{t : A t <= b}``; a max unit's piece is the position of its largest value, the first one on a tie.

    Every pattern is tried, unit by unit: a choice of pieces for the first units whose strict inequalities have
    no common point is not extended (its extensions add inequalities), and the point proving a choice feasible
    proves its extensions too while they hold there.
    """
    k = net.input_dim
    found: set[tuple[int, ...]] = set()

    def stage(s, M, c, rows, rhs, point, pattern):
        if s == len(net.layers):
            found.add(tuple(pattern))
            return
        layer = net.layers[s]
        G = [[dot(row, col) for col in zip(*M)] for row in layer.weight]
        g = [dot(row, c) + bj for row, bj in zip(layer.weight, layer.bias)]
        units = list(enumerate(layer.activations))
        choices = len(units) + len(layer.groups)

        def step(i, rows, rhs, point, new_M, new_c, pattern):
            if i == choices:
                stage(s + 1, new_M, new_c, rows, rhs, point, pattern)
                return
            if i < len(units):
                j, act = units[i]
                for piece in (range(len(act.breakpoints) + 1) if not act.is_linear else (None,)):
                    more_rows, more_rhs, ok = list(rows), list(rhs), True
                    if piece is not None and not any(G[j]):  # constant on the domain: the piece of its value
                        ok = act.piece(g[j]) == piece
                    elif piece is not None:
                        if piece > 0:
                            ok &= _strictly(G[j], g[j] - act.breakpoints[piece - 1], 1, more_rows, more_rhs)
                        if piece < len(act.breakpoints):
                            ok &= _strictly(G[j], g[j] - act.breakpoints[piece], -1, more_rows, more_rhs)
                    here = strictly_inside(more_rows, more_rhs, point, k, "exact") if ok else None
                    if here is None:
                        continue
                    slope, intercept = act.piece_map(piece or 0)
                    step(i + 1, more_rows, more_rhs, here, new_M + [[slope * v for v in G[j]]],
                         new_c + [slope * g[j] + intercept], pattern + ([] if piece is None else [piece]))
                return
            group = layer.groups[i - len(units)]
            for piece, win in enumerate(group):
                more_rows, more_rhs, ok = list(rows), list(rhs), True
                for place, other in enumerate(group):
                    if other == win:
                        continue
                    a = [x - y for x, y in zip(G[win], G[other])]
                    d = g[win] - g[other]
                    if not any(a) and d == 0:
                        ok &= place > piece  # equal everywhere: the first of them wins
                    else:
                        ok &= _strictly(a, d, 1, more_rows, more_rhs)
                here = strictly_inside(more_rows, more_rhs, point, k, "exact") if ok else None
                if here is not None:
                    step(i + 1, more_rows, more_rhs, here, new_M + [list(G[win])], new_c + [g[win]], pattern + [piece])

        step(0, rows, rhs, point, [], [], pattern)

    identity = [[Fraction(int(i == j)) for j in range(k)] for i in range(k)]
    rows, rhs = [list(r) for r in A], list(b)
    inside = strictly_inside(rows, rhs, None, k, "exact")
    if inside is not None:
        stage(0, identity, [Fraction(0)] * k, rows, rhs, inside, [])
    return found
