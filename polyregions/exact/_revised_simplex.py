"""A fraction-free revised simplex on ``min b.y subject to A^T y = c, y >= 0``: the engine of the exact simplex.

That program is the dual of ``max c.x subject to A x <= b`` (x free). A basis is n rows of A, an n x n matrix
(the primal standard form would need m x m, with m rows often ten times n); the basis's simplex multipliers are
a primal point and its reduced costs are the primal slacks ``b_j - A_j . x``.

Every number is an integer: the rows come scaled to integers, and the basis inverse is kept as ``R / d`` with
``d = |det B|`` and ``R = d B^{-1}`` (an integer matrix), updated after a pivot on ``alpha = R a_q`` by the
Bareiss step ``R_i <- (alpha_r R_i - alpha_i R_r) / d`` (an exact division). Products run in FLINT
(python-flint's ``fmpz_mat``). Against the ``Fraction`` tableau on the primal standard form that it replaced
(``benchmarks/bench_exact_lp.py``): 0.36 ms against 28 ms at n=4, m=48 (61 to 166 times faster, by program) and
10 ms against 9.9 s at n=20, m=160.

Pricing is Dantzig's rule on reduced costs divided by the row norms; after more than n pivots in a row that leave
the objective where it was, Bland's rule (smallest index in, smallest index out) takes over until the objective
moves, so the method terminates on every input, degenerate or not.

Phase 1 starts from the n artificial columns ``sign(c_k) e_k`` and minimises their sum. Artificials never enter
again once they left; in phase 2 those still basic sit at zero and are held there as variables with bounds
``[0, 0]`` (an entering column that touches their row gets a step of zero, and one of them may leave).
"""

from __future__ import annotations

import math
from operator import mul
from typing import Literal

from flint import fmpz, fmpz_mat

__all__ = ["DualStandardForm"]

_ZERO, _ONE = fmpz(0), fmpz(1)  # an fmpz compares with an fmpz in a third of the time it takes with an int


class DualStandardForm:
    """The program ``min b.y subject to A^T y = c, y >= 0`` in integers, with a basis and the pivots on it.

    Parameters
    ----------
    A : list of list of int
        The m rows (columns of the standard form), each of length n.
    b : list of int
        The costs of ``y``, one per row.
    c : list of int
        The right-hand side of ``A^T y = c``.

    Attributes
    ----------
    head : list of int
        The basic column at each of the n basis positions: a row index below m, ``m + k`` for artificial k.
    """

    def __init__(self, A: list[list[int]], b: list[int], c: list[int]) -> None:
        m, n = len(A), len(c)
        self.m, self.n = m, n
        self._A, self._b = A, b
        self._rows = fmpz_mat(A) if m else fmpz_mat(0, n, [])  # from nested lists: twice as fast as flat
        self._b_column = fmpz_mat(m, 1, b)
        # Dantzig scores compare log |reduced cost| - log |row|: logs of integers never overflow.
        self._log_norms = [0.5 * math.log(sum(map(mul, row, row)) or 1) for row in A]
        signs = [1 if v >= 0 else -1 for v in c]
        self.head = [m + k for k in range(n)]
        self._R = fmpz_mat(n, n, [signs[k] if i == k else 0 for i in range(n) for k in range(n)])
        self._d = fmpz(1)
        self._values = fmpz_mat(n, 1, [abs(v) for v in c])
        self._multipliers = fmpz_mat(n, 1, [0] * n)

    @property
    def d(self) -> int:
        """The positive common denominator of the basis inverse, the basic values and the multipliers."""
        return int(self._d)

    def values(self) -> list[int]:
        """``d`` times the basic variables, one per basis position (all >= 0)."""
        return [int(v) for v in self._values.entries()]

    def multipliers(self) -> list[int]:
        """``d`` times the simplex multipliers of the basis last priced: in phase 2, an optimal primal point."""
        return [int(v) for v in self._multipliers.entries()]

    def artificial_sum(self) -> int:
        """``d`` times the sum of the artificials (zero exactly when ``A^T y = c, y >= 0`` is feasible)."""
        return sum((v for h, v in zip(self.head, self.values()) if h >= self.m), 0)

    def drop_objective(self) -> None:
        """Make ``c`` zero: the basis stays, and with every basic value at zero it starts phase 2 on
        ``A^T y = 0, y >= 0`` (whose optimum is a primal feasible point, whose unboundedness a Farkas certificate)."""
        self._values = fmpz_mat(self.n, 1, [0] * self.n)

    def column(self, j: int) -> list[fmpz]:
        """``alpha = d B^{-1} a_j``: the column of row ``j`` in the basis, times ``d``."""
        return (self._R * fmpz_mat(self.n, 1, self._A[j])).entries()

    def optimise(self, phase: Literal[1, 2]) -> int | None:
        """Pivot to an optimal basis: phase 1 minimises the artificials, phase 2 ``b.y``.

        Returns None at an optimum (:meth:`multipliers` then give its simplex multipliers), or the row index of
        an entering column along which the objective decreases without end (only in phase 2).
        """
        m, n = self.m, self.n
        stalled = 0  # consecutive pivots that left the objective where it was
        while True:
            costs = [int(h >= m) for h in self.head] if phase == 1 else [self._b[h] if h < m else 0
                                                                         for h in self.head]
            self._multipliers = multipliers = (fmpz_mat(1, n, costs) * self._R).transpose()
            if phase == 1:
                reduced = (-(self._rows * multipliers)).entries()
            else:
                reduced = (self._b_column * self._d - self._rows * multipliers).entries()
            entering = self._price(reduced, bland=stalled > n)
            if entering is None:
                return None
            alpha = self.column(entering)
            leaving = self._ratio_test(alpha, phase)
            if leaving is None:
                return entering
            stalled = stalled + 1 if self._values[leaving, 0] == _ZERO else 0
            self._pivot(leaving, entering, alpha)

    def _price(self, reduced: list[fmpz], *, bland: bool) -> int | None:
        """The entering row index: a non-basic one with a negative reduced cost (times d), or None."""
        basic = set(self.head)
        best, best_score = None, -math.inf
        for j, r in enumerate(reduced):
            if r < _ZERO and j not in basic:
                if bland:
                    return j
                score = math.log(-int(r)) - self._log_norms[j]
                if score > best_score:
                    best, best_score = j, score
        return best

    def _ratio_test(self, alpha: list[fmpz], phase: Literal[1, 2]) -> int | None:
        """The leaving basis position: the smallest ratio ``value_i / alpha_i`` over ``alpha_i > 0``, ties to the
        smallest column index (Bland); an artificial at zero in phase 2 has ratio 0 whatever the sign of its
        ``alpha_i``. None when no position limits the step."""
        m, head = self.m, self.head
        values = self._values.entries()
        best: int | None = None
        best_value, best_alpha = _ZERO, _ONE
        for i, a in enumerate(alpha):
            if phase == 2 and head[i] >= m:
                if a == _ZERO:
                    continue
                value, a = _ZERO, abs(a)
            elif a <= _ZERO:
                continue
            else:
                value = values[i]
            if best is None:
                best, best_value, best_alpha = i, value, a
                continue
            # value / a < best_value / best_alpha, both denominators positive
            left, right = value * best_alpha, best_value * a
            if left < right or (left == right and head[i] < head[best]):
                best, best_value, best_alpha = i, value, a
        return best

    def _pivot(self, r: int, entering: int, alpha: list[fmpz]) -> None:
        """Column ``entering`` replaces position r: the Bareiss update of ``R`` and of the values."""
        n, d, pivot = self.n, self._d, alpha[r]
        column = fmpz_mat(n, 1, alpha)
        R = self._R
        row = fmpz_mat(1, n, [R[r, k] for k in range(n)])
        value = self._values[r, 0]
        R = (R * pivot - column * row) / d
        values = (self._values * pivot - column * value) / d
        for k in range(n):
            R[r, k] = row[0, k]
        values[r, 0] = value
        if pivot < _ZERO:  # only an artificial held at zero leaves on a negative alpha: keep d positive
            R, values, pivot = -R, -values, -pivot
        self._R, self._values, self._d = R, values, pivot
        self.head[r] = entering
