"""Certified linear programming over the rationals.

HiGHS solves each program in floating point; the answer counts only once it is certified with exact
rationals: a point by checking every constraint exactly, optimality by an exact primal/dual pair with equal
objective values, emptiness by exact Farkas multipliers. When a certificate does not check, the exact
simplex of :mod:`polyregions.exact._simplex` decides. No tolerance ever decides an answer.

All functions take ``A`` (rows), ``b`` and optional equalities ``E x = e``; ``dim`` is the number of
variables, needed only when there are no rows to tell it.
"""

from __future__ import annotations

import functools
import math
import threading
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Literal, Sequence, get_args

import numpy as np

from polyregions.errors import CertificateError, InvalidInputError
from polyregions.exact._simplex import exact_simplex
from polyregions.exact.linalg import Matrix, Vector, dot, nullspace, rref, solve

__all__ = ["LPResult", "maximize", "strict_point", "feasible_point", "highs_maximize", "Backend", "BACKENDS",
           "LPStatus"]

#: The solvers a program can start with: HiGHS or cvxpy in floating point (then certified), or the exact simplex.
Backend = Literal["highs", "exact", "cvxpy"]
#: The values of ``backend`` parameters.
BACKENDS: tuple[Backend, ...] = get_args(Backend)
#: How a linear program ended.
LPStatus = Literal["optimal", "infeasible", "unbounded"]

_ZERO = Fraction(0)
_ONE = Fraction(1)


@dataclass(frozen=True)
class LPResult:
    """A certified answer to ``maximize c.x subject to A x <= b, E x = e``.

    Attributes
    ----------
    status : {"optimal", "infeasible", "unbounded"}
    value : Fraction or None
        The optimal value, when optimal.
    point : tuple of Fraction or None
        An optimal point (when optimal) or a feasible point (when unbounded).
    ray : tuple of Fraction or None
        When unbounded, a direction d with ``A d <= 0``, ``E d = 0`` and ``c.d > 0``.
    multipliers : tuple of Fraction or None
        The certificate on the inequality rows: when optimal, ``y >= 0`` with ``y A = c`` modulo the
        equalities and ``y.b`` equal to ``value`` modulo them; when infeasible, Farkas multipliers.
    """

    status: LPStatus
    value: Fraction | None = None
    point: Vector | None = None
    ray: Vector | None = None
    multipliers: Vector | None = None


def _check_shapes(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction], E, e, dim: int | None) -> int:
    n = len(A[0]) if len(A) else (len(E[0]) if len(E) else dim)
    if n is None:
        raise InvalidInputError("linear program: expected dim= when there are no constraint rows")
    if len(A) != len(b) or len(E) != len(e):
        raise InvalidInputError(f"linear program: expected one right-hand side per row, got {len(A)} rows and "
                                f"{len(b)} values (inequalities), {len(E)} rows and {len(e)} values (equalities)")
    for name, rows in (("A", A), ("E", E)):
        for i, row in enumerate(rows):
            if len(row) != n:
                raise InvalidInputError(f"linear program: expected rows of length {n}, got {len(row)} in {name}[{i}]")
    return n


class _Reduced:
    """The inequalities ``A x <= b`` written on the affine space ``{E x = e}`` as ``x = base + basis^T z``."""

    def __init__(self, A, b, E, e, n):
        self.n = n
        if len(E):
            rows, pivots = rref([list(r) + [v] for r, v in zip(E, e)], n + 1)
            if n in pivots:
                self.base = None  # E x = e has no solution
                return
            base = [_ZERO] * n
            for row, p in zip(rows, pivots):
                base[p] = row[n]
            self.base = tuple(base)
            self.basis = nullspace([r[:n] for r in rows], n)
        else:
            self.base = tuple([_ZERO] * n)
            self.basis = None
        if self.basis is None:
            self.A, self.b = tuple(map(tuple, A)), tuple(b)
        else:
            self.A = tuple(tuple(dot(row, v) for v in self.basis) for row in A)
            self.b = tuple(bi - dot(row, self.base) for row, bi in zip(A, b))

    @property
    def dim(self) -> int:
        return self.n if self.basis is None else len(self.basis)

    def lift(self, z: Vector) -> Vector:
        if self.basis is None:
            return tuple(z)
        return tuple(x0 + sum((zi * v[j] for zi, v in zip(z, self.basis)), _ZERO) for j, x0 in enumerate(self.base))

    def lift_direction(self, d: Vector) -> Vector:
        if self.basis is None:
            return tuple(d)
        return tuple(sum((di * v[j] for di, v in zip(d, self.basis)), _ZERO) for j in range(self.n))

    def objective(self, c: Vector) -> Vector:
        return tuple(c) if self.basis is None else tuple(dot(c, v) for v in self.basis)


def maximize(c: Sequence, A: Sequence[Sequence], b: Sequence, *, E: Sequence[Sequence] = (),
             e: Sequence = (), dim: int | None = None, backend: Backend = "highs") -> LPResult:
    """Maximise ``c.x`` subject to ``A x <= b`` and ``E x = e``, with an exact certificate.

    Examples
    --------
    >>> maximize([1, 1], [[1, 0], [0, 1]], [1, "1/2"]).value
    Fraction(3, 2)
    >>> maximize([1], [[-1]], [0]).status
    'unbounded'
    """
    A, b, E, e = _exact(A, b, E, e)
    n = _check_shapes(A, b, E, e, dim)
    c = tuple(Fraction(v) for v in c)
    if len(c) != n:
        raise InvalidInputError(f"maximize: expected an objective of length {n}, got {len(c)}")
    reduced = _Reduced(A, b, E, e, n)
    if reduced.base is None:
        return LPResult("infeasible")
    result = _maximize(reduced.objective(c), reduced.A, reduced.b, reduced.dim, backend)
    if result.status == "infeasible":
        return result
    assert result.point is not None  # optimal and unbounded answers carry a point
    point = reduced.lift(result.point)
    if result.status == "unbounded":
        assert result.ray is not None  # an unbounded answer carries its ray
        return LPResult("unbounded", point=point, ray=reduced.lift_direction(result.ray))
    return LPResult("optimal", value=dot(c, point), point=point, multipliers=result.multipliers)


def strict_point(A: Sequence[Sequence], b: Sequence, *, E: Sequence[Sequence] = (), e: Sequence = (),
                 dim: int | None = None, backend: Backend = "highs") -> Vector | None:
    """Return an exact point with ``A x < b`` in every row and ``E x = e``, or None when none exists.

    A point is checked exactly against every strict inequality; None is certified by an exact optimum of
    ``max s`` subject to ``A x + s w <= b`` that is not positive.

    Examples
    --------
    >>> strict_point([[1], [-1]], [1, 0])
    (Fraction(1, 2),)
    >>> strict_point([[1], [-1]], [0, 0]) is None
    True
    """
    return _slack_point(A, b, E, e, dim, backend, strict=True)


def feasible_point(A: Sequence[Sequence], b: Sequence, *, E: Sequence[Sequence] = (), e: Sequence = (),
                   dim: int | None = None, backend: Backend = "highs") -> Vector | None:
    """Return an exact point with ``A x <= b`` and ``E x = e``, or None when none exists (certified)."""
    return _slack_point(A, b, E, e, dim, backend, strict=False)


def _exact(A, b, E, e):
    # Fractions pass through untouched; anything else goes through the exact input conversion.
    from polyregions.exact.rationals import rational_matrix, rational_vector

    def matrix(rows, what):
        if all(isinstance(v, Fraction) for row in rows for v in row):
            return tuple(tuple(row) for row in rows)
        return rational_matrix(rows, what=what)

    def vector(values, what):
        if all(isinstance(v, Fraction) for v in values):
            return tuple(values)
        return rational_vector(values, what=what)

    return matrix(A, "A"), vector(b, "b"), matrix(E, "E"), vector(e, "e")


def _slack_point(A, b, E, e, dim, backend: Backend, *, strict: bool) -> Vector | None:
    A, b, E, e = _exact(A, b, E, e)
    n = _check_shapes(A, b, E, e, dim)
    reduced = _Reduced(A, b, E, e, n)
    if reduced.base is None:
        return None
    m, k = len(reduced.A), reduced.dim
    if m == 0:
        return reduced.lift(tuple([_ZERO] * k))
    if k == 0:
        ok = all((bi > 0) if strict else (bi >= 0) for bi in reduced.b)
        return reduced.lift(()) if ok else None
    weights = _row_weights(reduced.A)
    if backend != "exact":
        guess = _float_slack_point(reduced.A, reduced.b, weights, k)
        if guess is not None and _satisfies(reduced.A, reduced.b, guess, strict):
            return reduced.lift(guess)
    # max s subject to A z + s w <= b, s <= 1: its certified optimum decides.
    A_aug = tuple(row + (w,) for row, w in zip(reduced.A, weights)) + (tuple([_ZERO] * k) + (_ONE,),)
    b_aug = reduced.b + (_ONE,)
    c_aug = tuple([_ZERO] * k) + (_ONE,)
    result = _maximize(c_aug, A_aug, b_aug, k + 1, backend)
    if result.status != "optimal":
        raise CertificateError(f"slack program ended {result.status}, which is impossible")
    assert result.point is not None  # an optimum carries its point
    s = result.point[-1]
    if s > 0 or (s == 0 and not strict):
        return reduced.lift(result.point[:-1])
    return None


def _row_weights(A: Matrix) -> Vector:
    """Positive weights close to the rows' Euclidean norms: exact rationals of float norms."""
    weights = []
    for row in A:
        try:
            norm = float(np.sqrt(sum(float(v) ** 2 for v in row)))
        except OverflowError:  # entries beyond the double range: any positive weight will do
            norm = 1.0
        weights.append(Fraction(norm) if norm > 0 and np.isfinite(norm) else _ONE)
    return tuple(weights)


def _satisfies(A: Matrix, b: Vector, x: Vector, strict: bool) -> bool:
    """Whether ``A x <= b`` (every row strict when ``strict``), in integer arithmetic."""
    denominator = math.lcm(*(v.denominator for v in x))
    X = [v.numerator * (denominator // v.denominator) for v in x]
    for row, bi in zip(A, b):
        scale = math.lcm(bi.denominator, *(v.denominator for v in row))
        value = sum(v.numerator * (scale // v.denominator) * xj for v, xj in zip(row, X) if v)
        bound = bi.numerator * (scale // bi.denominator) * denominator
        if value > bound or (strict and value == bound):
            return False
    return True


def _to_float(A: Matrix, b: Vector) -> tuple[np.ndarray, np.ndarray] | None:
    try:
        A_f = np.array([[float(v) for v in row] for row in A], dtype=float).reshape(len(A), -1)
        b_f = np.array([float(v) for v in b], dtype=float)
    except OverflowError:
        return None
    scale = np.maximum(np.abs(A_f).max(axis=1, initial=0.0), np.abs(b_f))
    scale[scale == 0] = 1.0
    return A_f / scale[:, None], b_f / scale


_SOLVERS = threading.local()


@functools.lru_cache(maxsize=256)
def _dense_pattern(m: int, n: int) -> tuple[np.ndarray, np.ndarray]:
    """Row starts and column indices of a dense m x n matrix in HiGHS's row-wise format."""
    starts = np.arange(0, m * n + 1, n) if n else np.zeros(m + 1, dtype=int)
    return starts, np.tile(np.arange(n), m)


def highs_maximize(c_f: np.ndarray, A_f: np.ndarray, b_f: np.ndarray
                   ) -> tuple[LPStatus | None, np.ndarray | None, np.ndarray | None]:
    """Solve ``max c.x s.t. A x <= b`` (x free) with HiGHS in floating point: (status, x, duals >= 0).

    One solver object per thread is reused, which costs a tenth of scipy's ``linprog`` per small program. The
    programs here are small and dense: presolve costs more than it saves, and the primal simplex is about twice
    as fast as HiGHS's default on them.
    """
    import highspy

    solver = getattr(_SOLVERS, "highs", None)
    if solver is None:
        # The compiled solver under highspy's Highs: the Python class turns on callbacks in its constructor,
        # which writes HiGHS's banner to standard output before output_flag can be switched off.
        solver = _SOLVERS.highs = highspy.Highs.__bases__[0]()
        solver.setOptionValue("output_flag", False)
        solver.setOptionValue("presolve", "off")
        solver.setOptionValue("simplex_strategy", 4)  # primal
    m, n = A_f.shape
    infinity = highspy.kHighsInf
    lp = highspy.HighsLp()
    lp.num_col_, lp.num_row_ = n, m
    lp.col_cost_ = -c_f
    lp.col_lower_, lp.col_upper_ = np.full(n, -infinity), np.full(n, infinity)
    lp.row_lower_, lp.row_upper_ = np.full(m, -infinity), b_f
    lp.a_matrix_.format_ = highspy.MatrixFormat.kRowwise
    lp.a_matrix_.start_, lp.a_matrix_.index_ = _dense_pattern(m, n)
    lp.a_matrix_.value_ = A_f.ravel()
    solver.clearModel()
    solver.passModel(lp)
    solver.run()
    model_status = solver.getModelStatus()
    statuses: dict[Any, LPStatus] = {highspy.HighsModelStatus.kOptimal: "optimal",
                                     highspy.HighsModelStatus.kInfeasible: "infeasible",
                                     highspy.HighsModelStatus.kUnbounded: "unbounded"}
    status = statuses.get(model_status)
    if status != "optimal":
        return status, None, None
    solution = solver.getSolution()
    return status, np.array(solution.col_value), -np.array(solution.row_dual)


def _float_slack_point(A: Matrix, b: Vector, weights: Vector, k: int) -> Vector | None:
    scaled = _to_float(A, b)
    if scaled is None:
        return None
    A_f, b_f = scaled
    norms = np.linalg.norm(A_f, axis=1)
    A_aug = np.hstack([A_f, norms[:, None]])
    A_aug = np.vstack([A_aug, np.eye(1, k + 1, k)])
    status, x, _ = highs_maximize(np.eye(1, k + 1, k)[0], A_aug, np.append(b_f, 1.0))
    if status != "optimal":
        return None
    assert x is not None  # HiGHS returns a point with every optimum
    return tuple(Fraction(float(v)) for v in x[:k])


def _maximize(c: Vector, A: Matrix, b: Vector, n: int, backend: Backend) -> LPResult:
    """The certified program on inequalities only."""
    if backend not in BACKENDS:
        raise InvalidInputError(f"linear program: expected backend in {BACKENDS}, got {backend!r}")
    if backend != "exact":
        result = _certified_float(c, A, b, n, backend)
        if result is not None:
            return result
    exact = exact_simplex(c, A, b)
    value = None
    if exact.status == "optimal":
        assert exact.point is not None  # an optimum carries its point
        value = dot(c, exact.point)
    return LPResult(exact.status, point=exact.point, ray=exact.ray, multipliers=exact.duals, value=value)


def _float_solve(c: Vector, A: Matrix, b: Vector, n: int, backend: Backend
                 ) -> tuple[LPStatus, np.ndarray | None, np.ndarray | None] | None:
    """Return (status, x, y) from a floating-point solver, or None when it could not run."""
    scaled = _to_float(A, b)
    if scaled is None:
        return None
    A_f, b_f = scaled
    # Only the objective's direction matters: scaled to a largest entry of 1, it fits a double however large.
    largest = max((abs(v) for v in c), default=_ZERO) or _ONE
    c_f = np.array([float(v / largest) for v in c], dtype=float)
    if not len(A):
        return None
    if backend == "cvxpy":
        from polyregions.exact._cvxpy_backend import solve_with_cvxpy
        return solve_with_cvxpy(c_f, A_f, b_f)
    status, x, y = highs_maximize(c_f, A_f, b_f)
    if status is None:
        return None
    return status, x, y


def _certified_float(c: Vector, A: Matrix, b: Vector, n: int, backend: Backend, *, auxiliary: bool = False
                     ) -> LPResult | None:
    """A float solve turned into a certified answer, or None for the exact simplex to decide.

    ``auxiliary`` marks the helper programs built here (always feasible and bounded): a float answer that
    says otherwise is wrong, and is not chased further.
    """
    if not len(A):
        if all(v == 0 for v in c):
            return LPResult("optimal", value=_ZERO, point=tuple([_ZERO] * n), multipliers=())
        return LPResult("unbounded", point=tuple([_ZERO] * n), ray=c)
    answer = _float_solve(c, A, b, n, backend)
    if answer is None:
        return None
    status, x, y = answer
    if status == "optimal":
        assert x is not None and y is not None  # a float optimum carries its point and duals
        return _certify_optimum(c, A, b, n, x, y)
    if auxiliary:
        return None
    if status == "infeasible":
        # A Farkas certificate comes from the slack program max s, A x + s <= b, s <= 1.
        aug = _certified_float(tuple([_ZERO] * n) + (_ONE,), tuple(r + (_ONE,) for r in A) +
                               (tuple([_ZERO] * n) + (_ONE,),), b + (_ONE,), n + 1, backend, auxiliary=True)
        if aug is None or aug.status != "optimal":
            return None
        assert aug.value is not None  # a certified optimum carries its value
        if aug.value >= 0:
            return None
        assert aug.multipliers is not None  # ... and its dual certificate
        return LPResult("infeasible", multipliers=aug.multipliers[:-1])
    # Unbounded: a certified ray from max c.d, A d <= 0, c.d <= 1, plus a certified feasible point.
    ray_lp = _certified_float(c, A + (c,), tuple([_ZERO] * len(A)) + (_ONE,), n, backend, auxiliary=True)
    if ray_lp is None or ray_lp.status != "optimal" or ray_lp.value != 1:
        return None
    point = feasible_point(A, b, dim=n, backend=backend)
    if point is None:
        return None
    return LPResult("unbounded", point=point, ray=ray_lp.point)


def _certify_optimum(c: Vector, A: Matrix, b: Vector, n: int, x_f: np.ndarray, y_f: np.ndarray) -> LPResult | None:
    """Turn a float optimum into an exact primal/dual pair on a basis of tight rows, or None."""
    A_f = np.array([[float(v) for v in row] for row in A])
    slack = np.array([float(v) for v in b]) - A_f @ x_f
    scale = np.maximum(np.abs(A_f).max(axis=1) * max(1.0, float(np.abs(x_f).max(initial=0))), 1e-300)
    # Rows with positive duals first, then the tightest: a greedy basis of independent rows.
    order = sorted(range(len(A)), key=lambda i: (not y_f[i] > 0, -y_f[i], abs(slack[i]) / scale[i]))
    chosen: list[int] = []
    for i in order:
        if len(chosen) == n:
            break
        if y_f[i] <= 0 and abs(slack[i]) > 1e-7 * scale[i]:
            continue
        candidate = chosen + [i]
        if len(rref([A[j] for j in candidate], n)[0]) == len(candidate):
            chosen = candidate
    x: Vector | None
    if len(chosen) == n:
        x = solve([A[i] for i in chosen], [b[i] for i in chosen])  # a vertex: the basis fixes it
    else:
        x = _project(tuple(Fraction(float(v)) for v in x_f), [A[i] for i in chosen], [b[i] for i in chosen])
    if x is None or not _satisfies(A, b, x, strict=False):
        return None
    y_basis = _solve_transposed([A[i] for i in chosen], c, n)
    if y_basis is None or any(v < 0 for v in y_basis):
        return None
    y_entries = [_ZERO] * len(A)
    for i, v in zip(chosen, y_basis):
        y_entries[i] = v
    y = tuple(y_entries)
    if dot(c, x) != dot(y, b):
        return None
    return LPResult("optimal", value=dot(c, x), point=x, multipliers=y)


def _project(x: Vector, rows: list[Vector], rhs: list[Fraction]) -> Vector | None:
    """The exact point of ``{rows x = rhs}`` nearest to x (rows independent)."""
    if not rows:
        return x
    residual = [bi - dot(r, x) for r, bi in zip(rows, rhs)]
    gram = [[dot(r, s) for s in rows] for r in rows]
    coefficients = solve(gram, residual)
    return tuple(xj + sum((lam * r[j] for lam, r in zip(coefficients, rows)), _ZERO) for j, xj in enumerate(x))


def _solve_transposed(rows: list[Vector], c: Vector, n: int) -> Vector | None:
    """The y with ``sum_i y_i rows_i == c``, or None when c is not in their span."""
    k = len(rows)
    if k == 0:
        return () if all(v == 0 for v in c) else None
    system = [[rows[i][j] for i in range(k)] + [c[j]] for j in range(n)]
    reduced, pivots = rref(system, k + 1)
    if k in pivots:
        return None
    y = [_ZERO] * k
    for row, p in zip(reduced, pivots):
        y[p] = row[k]
    return tuple(y)
