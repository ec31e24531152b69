"""An exact simplex method over the rationals: the decider of last resort for linear programs.

It solves ``maximize c.x subject to A x <= b`` (x free) with Bland's rule, so it terminates on every input,
degenerate or not. It is slow next to HiGHS and is used only when a floating-point answer cannot be certified.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from polyregions.exact.linalg import Matrix, Vector, solve

if TYPE_CHECKING:
    from polyregions.exact.lp import LPStatus  # lp imports this module: its status type is for checkers only

__all__ = ["ExactLPSolution", "exact_simplex"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class ExactLPSolution:
    """What the exact simplex found; every vector is exact.

    ``status`` is "optimal" (``point`` and ``duals`` with ``duals >= 0``, ``duals @ A == c``), "unbounded"
    (``point`` feasible and ``ray`` with ``A ray <= 0``, ``c.ray > 0``) or "infeasible" (``duals >= 0`` with
    ``duals @ A == 0`` and ``duals . b < 0``).
    """

    status: "LPStatus"
    point: Vector | None = None
    duals: Vector | None = None
    ray: Vector | None = None


def exact_simplex(c: Sequence[Fraction], A: Matrix, b: Vector) -> ExactLPSolution:
    """Solve ``maximize c.x s.t. A x <= b`` exactly (x free in Q^n)."""
    m, n = len(A), len(c)
    # Standard form: x = u - v, one slack per row, rows with b < 0 negated and given an artificial.
    sign = [(-1 if b[i] < 0 else 1) for i in range(m)]
    n_std = 2 * n + m
    artificial_rows = [i for i in range(m) if sign[i] < 0]
    n_cols = n_std + len(artificial_rows)
    rows: list[list[Fraction]] = []
    basis: list[int] = []
    art_of_row = {i: n_std + k for k, i in enumerate(artificial_rows)}
    for i in range(m):
        s = sign[i]
        row = [Fraction(s * a) for a in A[i]] + [Fraction(-s * a) for a in A[i]] + [_ZERO] * m
        row[2 * n + i] = Fraction(s)
        row += [_ZERO] * len(artificial_rows)
        if i in art_of_row:
            row[art_of_row[i]] = Fraction(1)
            basis.append(art_of_row[i])
        else:
            basis.append(2 * n + i)
        row.append(Fraction(s * b[i]))
        rows.append(row)

    original = [row[:-1] for row in rows]

    def duals_for(costs: list[Fraction]) -> Vector:
        # y solves B^T y = c_B, with B the basis columns of the original standard-form matrix.
        if not m:
            return ()
        transposed = [[original[i][j] for i in range(m)] for j in basis]
        return solve(transposed, [costs[j] for j in basis])

    def run(costs: list[Fraction], allowed: int) -> int | None:
        """Pivot to optimality for ``maximize costs.z``; return an unbounded entering column or None."""
        while True:
            # The rows are kept as B^{-1} [A' | b'], so reduced costs come straight from them.
            basic_costs = [costs[j] for j in basis]
            entering = None
            in_basis = set(basis)
            for j in range(allowed):
                if j in in_basis:
                    continue
                reduced = costs[j] - sum((basic_costs[i] * rows[i][j] for i in range(m) if rows[i][j]), _ZERO)
                if reduced > 0:
                    entering = j
                    break
            if entering is None:
                return None
            # Minimum-ratio row; ties go to the lowest basis index (Bland's rule, so no cycling).
            best = None
            for i in range(m):
                a = rows[i][entering]
                if a > 0:
                    ratio = rows[i][-1] / a
                    if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                        best = (ratio, i)
            if best is None:
                return entering
            _pivot(rows, best[1], entering)
            basis[best[1]] = entering

    # Phase 1: drive the artificials out.
    if artificial_rows:
        phase1 = [_ZERO] * n_cols
        for j in art_of_row.values():
            phase1[j] = Fraction(-1)
        run(phase1, n_cols)
        infeasibility = sum((rows[i][-1] for i in range(m) if basis[i] >= n_std), _ZERO)
        if infeasibility > 0:
            w = duals_for(phase1)
            return ExactLPSolution("infeasible", duals=tuple(w[i] * sign[i] for i in range(m)))
        _drive_out_artificials(rows, basis, n_std)
    costs = [Fraction(v) for v in c] + [-Fraction(v) for v in c] + [_ZERO] * (m + len(artificial_rows))
    unbounded = run(costs, n_std)
    z = [_ZERO] * n_cols
    for i, j in enumerate(basis):
        z[j] = rows[i][-1]
    point = tuple(z[j] - z[n + j] for j in range(n))
    if unbounded is not None:
        d = [_ZERO] * n_cols
        d[unbounded] = Fraction(1)
        for i, j in enumerate(basis):
            d[j] = -rows[i][unbounded]
        return ExactLPSolution("unbounded", point=point, ray=tuple(d[j] - d[n + j] for j in range(n)))
    y = duals_for(costs)
    return ExactLPSolution("optimal", point=point, duals=tuple(y[i] * sign[i] for i in range(m)))


def _pivot(rows: list[list[Fraction]], r: int, col: int) -> None:
    pivot = rows[r][col]
    rows[r] = [v / pivot for v in rows[r]]
    for i, row in enumerate(rows):
        if i != r and row[col]:
            factor = row[col]
            rows[i] = [v - factor * w for v, w in zip(row, rows[r])]


def _drive_out_artificials(rows: list[list[Fraction]], basis: list[int], n_std: int) -> None:
    """Replace artificial columns left in the basis at level zero by real ones where possible."""
    for i, j in enumerate(basis):
        if j < n_std:
            continue
        for k in range(n_std):
            if k not in basis and rows[i][k] != 0:
                _pivot(rows, i, k)
                basis[i] = k
                break
        else:
            # The row is a combination of the others: keep a harmless artificial at zero, never entering again.
            pass
