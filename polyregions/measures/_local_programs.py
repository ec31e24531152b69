"""The neighbourhood of a point and the one certified question asked about it: a point of a cell inside it.

The neighbourhood is the open ball ``N = {x : ||x - x0|| < r}`` of the max norm (a box), the l1 norm (a
cross-polytope) or the Euclidean norm. A cell is an open polyhedron ``{x : a . x < c for every row}`` with
primitive integer rows ``(a_1, ..., a_n, c)``; points are homogeneous integers ``(X_1, ..., X_n, w)``, ``w > 0``,
standing for ``X / w`` (as in :mod:`polyregions.regions._cell_programs`).

:meth:`Neighbourhood.strict_point` returns an exact point of ``N`` strictly inside the rows, or None when there is
none, certified either way:

* For the box and the l1 ball, HiGHS solves ``max s`` subject to ``a_i . x + w_i s <= c_i`` over the closed ball
  (the box as bounds on the variables, the l1 ball through ``|x_j - x0_j| <= t_j``, ``sum t_j <= r``). A positive
  optimum is kept only as an exact point: the solution pulled towards ``x0`` by a factor ``1 - 2^-k`` (so strictly
  inside ``N``) and checked against every row. A non-positive one is kept only with exact multipliers: the open
  cell misses the open ball exactly when some ``mu >= 0``, ``mu != 0``, has
  ``min over the closed ball of sum_i mu_i (a_i . x - c_i) = sum_i mu_i (a_i . x0 - c_i) - r ||sum_i mu_i a_i||_*``
  at least 0 (``||.||_*`` the dual norm; the minimum over the closed ball equals the infimum over the open one,
  and an open cell meets the open ball as soon as it meets its closure). The multipliers are HiGHS's duals,
  checked in integers. When neither checks, :func:`polyregions.exact.lp.strict_point` decides on the ball's
  explicit inequalities (slow in high dimension, and met only in degenerate cases).
* For the Euclidean ball, an open polyhedron ``P`` meets ``N`` exactly when it is non-empty and the closure of
  ``P`` comes within distance ``r`` of ``x0``: an exact interior point (:func:`polyregions.exact.lp.strict_point`)
  and the exact projection of ``x0`` (:mod:`polyregions.polyhedra._projection`) decide, and the point returned
  lies on the segment between them.

Examples
--------
>>> from fractions import Fraction
>>> n = Neighbourhood((0, 0, 1), Fraction(1), "inf")  # the centre (0, 0) in homogeneous integers
>>> p = n.strict_point([(1, 1, -1)])  # x + y < -1 meets the open square (-1, 1)^2
>>> n.contains(p) and p[0] + p[1] < -p[2]
True
>>> n.strict_point([(1, 1, -2)]) is None  # x + y < -2 does not
True
>>> Neighbourhood((0, 0, 1), Fraction(1), "1").strict_point([(1, 1, -1)]) is None
True
"""

from __future__ import annotations

import math
import threading
from fractions import Fraction
from functools import cached_property
from typing import Literal, Sequence

import numpy as np

from polyregions.errors import CertificateError
from polyregions.exact.linalg import Vector
from polyregions.regions._cell_programs import Point, Row, float_point, homogeneous, to_fractions, value

__all__ = ["Norm", "Neighbourhood", "inside_rows"]

#: The norms of a neighbourhood: the max norm (a box), the l1 norm, the Euclidean norm.
Norm = Literal["inf", "1", "2"]

_PULLS = (16, 32, 52, 80)  # x0 + (1 - 2^-k) (x - x0): strictly inside the ball, rows kept when k is large
_THREAD = threading.local()


def inside_rows(rows: Sequence[Row], point: Point) -> bool:
    """Whether the point satisfies every row strictly (exact)."""
    return all(value(row, point) < 0 for row in rows)


class Neighbourhood:
    """The open ball of radius ``radius`` around ``centre`` in the norm ``norm``, with exact tests.

    Parameters
    ----------
    point : tuple of int
        The centre as homogeneous integers ``(X_1, ..., X_n, w)``, ``w > 0``.
    radius : Fraction
        Positive.
    norm : {"inf", "1", "2"}
    """

    def __init__(self, point: Point, radius: Fraction, norm: Norm):
        self.point: Point = tuple(point)
        self.X0, self.w0 = self.point[:-1], self.point[-1]
        self.n = len(self.X0)
        self.radius = radius
        self.norm: Norm = norm
        self.rn, self.rd = radius.numerator, radius.denominator

    @cached_property
    def centre(self) -> Vector:
        """The centre as Fractions."""
        return to_fractions(self.point)

    # --- exact tests ----------------------------------------------------------------------------------

    def _dual(self, a: Sequence[int]) -> int:
        """``||a||_*`` for the box and the l1 ball; its square for the Euclidean ball."""
        if self.norm == "inf":
            return sum(abs(v) for v in a)
        if self.norm == "1":
            return max((abs(v) for v in a), default=0)
        return sum(v * v for v in a)

    def contains(self, point: Point) -> bool:
        """Whether the point lies in the open neighbourhood (exact)."""
        X, w = point[:-1], point[-1]
        d = [x * self.w0 - x0 * w for x, x0 in zip(X, self.X0)]  # w w0 (x - x0)
        scale = self.rn * w * self.w0
        if self.norm == "inf":
            return max((abs(v) for v in d), default=0) * self.rd < scale
        if self.norm == "1":
            return sum(abs(v) for v in d) * self.rd < scale
        return sum(v * v for v in d) * self.rd * self.rd < scale * scale

    def offset(self, row: Row) -> int:
        """``w0 (a . x0 - c)``: its sign is the centre's side of the row."""
        return value(row, self.point)

    def meets(self, row: Row) -> bool:
        """Whether the hyperplane ``a . x = c`` of the row meets the open neighbourhood (exact; False when
        ``a = 0``): ``|a . x0 - c| < r ||a||_*``."""
        a = row[:-1]
        if not any(a):
            return False
        v = abs(self.offset(row))
        if self.norm == "2":
            return v * v * self.rd * self.rd < self.rn * self.rn * self.w0 * self.w0 * self._dual(a)
        return v * self.rd < self.rn * self.w0 * self._dual(a)

    def farthest(self, a: Sequence[int]) -> Point:
        """A point of the closed neighbourhood where ``a . x`` is largest (for the Euclidean ball, a rational point
        within a relative ``2^-60`` of the largest)."""
        X0, w0, rn, rd = self.X0, self.w0, self.rn, self.rd
        if self.norm == "inf":
            return tuple(x * rd + rn * w0 * ((v > 0) - (v < 0)) for x, v in zip(X0, a)) + (w0 * rd,)
        if self.norm == "1":
            j = max(range(self.n), key=lambda i: abs(a[i]))
            step = rn * w0 * ((a[j] > 0) - (a[j] < 0))
            return tuple(x * rd + (step if i == j else 0) for i, x in enumerate(X0)) + (w0 * rd,)
        from polyregions.exact.surds import sqrt_upper_bound

        t = self.radius / sqrt_upper_bound(Fraction(self._dual(a)), bits=60)  # |t a| <= r
        return homogeneous(tuple(x + t * v for x, v in zip(self.centre, a)))

    # --- the program ------------------------------------------------------------------------------------

    def strict_point(self, rows: Sequence[Row]) -> Point | None:
        """An exact point of the open neighbourhood satisfying every row strictly, or None when there is none
        (certified; see the module notes)."""
        if not rows:
            return self.point
        if self.norm == "2":
            return self._ball_point(rows)
        found, certified = self._highs_point(rows)
        if found is not None or certified:
            return found
        return self._exact_point(rows)

    def _highs_point(self, rows: Sequence[Row]) -> tuple[Point | None, bool]:
        """``(point, True)`` or ``(None, True)`` when HiGHS's answer is certified, ``(None, False)`` otherwise."""
        import highspy

        n, k = self.n, len(rows)
        try:
            # a . x <= c with x = x0 + r y: (r a) . y <= c - a . x0, each row scaled to a largest entry of 1.
            A = np.array([[float(v) for v in row[:-1]] for row in rows]) * float(self.radius)
            rhs = np.array([float(Fraction(-self.offset(row), self.w0)) for row in rows])
        except OverflowError:
            return None, False
        scale = np.abs(A).max(axis=1)
        if not (np.isfinite(A).all() and np.isfinite(rhs).all()) or (scale == 0).any():
            return None, False
        A /= scale[:, None]
        rhs /= scale
        slack = np.linalg.norm(A, axis=1)
        l1 = self.norm == "1"
        cols = n + 1 + (n if l1 else 0)  # y, s (, t)
        inf = highspy.kHighsInf
        lp = highspy.HighsLp()
        lp.num_col_ = cols
        cost = np.zeros(cols)
        cost[n] = -1.0  # minimise -s
        lp.col_cost_ = cost
        lower = np.concatenate([np.full(n, -inf if l1 else -1.0), [-inf], np.zeros(n if l1 else 0)])
        upper = np.concatenate([np.full(n, inf if l1 else 1.0), [1.0], np.full(n if l1 else 0, inf)])
        lp.col_lower_, lp.col_upper_ = lower, upper
        starts = [0]
        index: list[np.ndarray] = []
        values: list[np.ndarray] = []
        for i in range(k):
            index.append(np.arange(n + 1))
            values.append(np.append(A[i], slack[i]))
            starts.append(starts[-1] + n + 1)
        row_upper = list(rhs)
        if l1:  # y_j - t_j <= 0, -y_j - t_j <= 0, sum t_j <= 1
            for sign in (1.0, -1.0):
                for j in range(n):
                    index.append(np.array([j, n + 1 + j]))
                    values.append(np.array([sign, -1.0]))
                    starts.append(starts[-1] + 2)
                    row_upper.append(0.0)
            index.append(np.arange(n + 1, 2 * n + 1))
            values.append(np.ones(n))
            starts.append(starts[-1] + n)
            row_upper.append(1.0)
        m = len(row_upper)
        lp.num_row_ = m
        lp.row_lower_, lp.row_upper_ = np.full(m, -inf), np.array(row_upper)
        lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
        lp.a_matrix_.start_ = np.array(starts)
        lp.a_matrix_.index_ = np.concatenate(index)
        lp.a_matrix_.value_ = np.concatenate(values)
        solver = _solver()
        solver.clearModel()
        solver.passModel(lp)
        solver.run()
        if solver.getModelStatus() != highspy.HighsModelStatus.kOptimal:
            return None, False
        solution = solver.getSolution()
        x = np.array(solution.col_value)
        if not np.isfinite(x).all():
            return None, False
        if x[n] > 0:
            point = self._pulled(rows, x[:n])
            return (point, True) if point is not None else (None, False)
        duals = -np.array(solution.row_dual)[:k]
        with np.errstate(all="ignore"):
            mu = np.where(duals > 0, duals / scale, 0.0)
        if not np.isfinite(mu).all() or not (mu > 0).any():
            return None, False
        return None, self._separated(rows, mu)

    def _pulled(self, rows: Sequence[Row], y: np.ndarray) -> Point | None:
        """``x0 + r (1 - 2^-k) y`` for the solution ``y`` (rounded into the closed unit ball), the first ``k`` of
        :data:`_PULLS` that satisfies every row strictly; None when none does."""
        if self.norm == "inf":
            y = np.clip(y, -1.0, 1.0)
        Y = float_point(y)  # y = Y[:-1] / Y[-1], exactly
        D = Y[-1]
        if self.norm == "1":
            D = max(D, sum(abs(v) for v in Y[:-1]))  # ||Y / D||_1 <= 1
        for k in _PULLS:
            scale = self.rd * D << k
            point = tuple(x * scale + self.w0 * self.rn * ((1 << k) - 1) * v for x, v in zip(self.X0, Y[:-1])) \
                + (self.w0 * scale,)
            if inside_rows(rows, point):
                return _reduced(point)
        return None

    def _separated(self, rows: Sequence[Row], mu: np.ndarray) -> bool:
        """Whether the multipliers ``mu >= 0`` (doubles, read exactly) prove that the rows miss the ball."""
        M = float_point(mu)[:-1]  # mu = M / 2^E: positive scaling changes nothing
        g = [0] * self.n
        total = 0
        for m_i, row in zip(M, rows):
            if m_i:
                total += m_i * self.offset(row)  # 2^E w0 sum mu_i (a_i . x0 - c_i)
                for j, v in enumerate(row[:-1]):
                    if v:
                        g[j] += m_i * v
        return total >= 0 and total * self.rd >= self.rn * self.w0 * self._dual(g)

    def _exact_point(self, rows: Sequence[Row]) -> Point | None:
        """The certified programs of :mod:`polyregions.exact.lp` on the ball's explicit inequalities."""
        from polyregions.exact.lp import strict_point

        n = self.n
        one, zero = Fraction(1), Fraction(0)
        r = self.radius
        if self.norm == "inf":
            A = [tuple(Fraction(v) for v in row[:-1]) for row in rows]
            b = [Fraction(row[-1]) for row in rows]
            for j, x in enumerate(self.centre):
                unit = tuple(one if i == j else zero for i in range(n))
                A += [unit, tuple(-v for v in unit)]
                b += [x + r, r - x]
            point = strict_point(A, b, dim=n)
            return None if point is None else homogeneous(point)
        # The l1 ball lifted to (x, t): |x_j - x0_j| < t_j, sum t_j < r.
        A = [tuple(Fraction(v) for v in row[:-1]) + (zero,) * n for row in rows]
        b = [Fraction(row[-1]) for row in rows]
        for j, x in enumerate(self.centre):
            for sign in (one, -one):
                A.append(tuple(sign if i == j else (-one if i == n + j else zero) for i in range(2 * n)))
                b.append(sign * x)
        A.append((zero,) * n + (one,) * n)
        b.append(r)
        point = strict_point(A, b, dim=2 * n)
        return None if point is None else homogeneous(point[:n])

    def _ball_point(self, rows: Sequence[Row]) -> Point | None:
        from polyregions.exact.lp import strict_point
        from polyregions.polyhedra._projection import project

        A = [tuple(Fraction(v) for v in row[:-1]) for row in rows]
        b = [Fraction(row[-1]) for row in rows]
        inside = strict_point(A, b, dim=self.n)
        if inside is None:
            return None
        nearest = project(self.centre, A, b)
        if nearest.squared_distance >= self.radius ** 2:
            return None
        y = nearest.point
        for k in range(1, 400):
            t = Fraction(1, 1 << k)
            point = homogeneous(tuple(a + t * (c - a) for a, c in zip(y, inside)))
            if self.contains(point):
                return point
        raise CertificateError("local complexity: no point of the ball found near a point of the closed cell "
                               "closer than the radius, which is impossible")


def _reduced(point: Point) -> Point:
    g = math.gcd(*point)
    return tuple(v // g for v in point) if g > 1 else point


def _solver():
    """One HiGHS object per thread, quiet, dual simplex, no presolve (small dense programs)."""
    import highspy

    solver = getattr(_THREAD, "highs", None)
    if solver is None:
        # The compiled class: highspy's Python subclass prints a banner before output_flag can be switched off.
        solver = _THREAD.highs = highspy.Highs.__bases__[0]()
        solver.setOptionValue("output_flag", False)
        solver.setOptionValue("presolve", "off")
        solver.setOptionValue("simplex_strategy", 1)
    return solver
