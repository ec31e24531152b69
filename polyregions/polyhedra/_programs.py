"""The questions about a polyhedron ``{A x <= b}`` that certified linear programs answer: boundedness, implicit
equalities, a largest inscribed ball, redundant rows."""

from __future__ import annotations

from fractions import Fraction

from polyregions.errors import CertificateError, InfeasibleError, InvalidInputError, UnboundedError
from polyregions.exact.linalg import Matrix, Vector, dot, rank
from polyregions.exact.surds import sqrt_upper_bound

_ZERO, _ONE = Fraction(0), Fraction(1)

__all__ = ["is_bounded", "implicit_rows", "chebyshev_ball", "redundant_rows"]


def is_bounded(rows: Matrix, rhs: Vector, dim: int, empty: bool) -> bool:
    """Whether ``{rows x <= rhs}`` is bounded; ``empty`` says it is empty.

    A non-empty set is bounded exactly when its recession cone ``{d : rows d <= 0}`` is ``{0}``. With the rows
    of full rank, a non-zero ``d`` in the cone makes some ``rows[i] d`` negative, so the cone is ``{0}`` exactly
    when the certified optimum of ``max -sum_i rows[i] d`` subject to ``-1 <= rows d <= 0`` is 0 (a program in
    ``dim`` variables, bounded by the rank: one program whatever the number of rows, where Stiemke's
    ``y > 0, rows^T y = 0`` has a variable per row and costs a dense elimination of the rows' null space).
    """
    from polyregions.exact.lp import maximize

    if empty:
        return True
    m = len(rows)
    if m == 0 or rank(rows) < dim:
        return False
    objective = tuple(-sum((row[j] for row in rows), _ZERO) for j in range(dim))
    negated = tuple(tuple(-v for v in row) for row in rows)
    result = maximize(objective, tuple(rows) + negated, (_ZERO,) * m + (_ONE,) * m, dim=dim)
    if result.status != "optimal" or result.value is None or result.value < 0:
        raise CertificateError(f"boundedness: the recession program ended {result.status} with value "
                               f"{result.value}, which is impossible for rows of full rank")
    return result.value == 0


def implicit_rows(rows: Matrix, rhs: Vector, dim: int, empty: bool) -> tuple[int, ...]:
    """The rows of ``{rows x <= rhs}`` that hold with equality on the whole set (all when it is empty)."""
    from polyregions.exact.lp import maximize, strict_point

    m, n = len(rows), dim
    if empty:
        return tuple(range(m))
    if m == 0 or strict_point(rows, rhs, dim=n) is not None:
        return ()
    # max sum t_i subject to a_i x + t_i <= b_i, 0 <= t_i <= 1 for the undecided rows i: rows with
    # t_i > 0 at the exact optimum are not implicit; an optimum of 0 proves the rest are.
    undecided = list(range(m))
    while undecided:
        k = len(undecided)
        slot = {i: t for t, i in enumerate(undecided)}
        A, b = [], []
        for i, (row, bi) in enumerate(zip(rows, rhs)):
            extra = [_ZERO] * k
            if i in slot:
                extra[slot[i]] = _ONE
            A.append(row + tuple(extra))
            b.append(bi)
        for t in range(k):
            for sign, bound in ((_ONE, _ONE), (-_ONE, _ZERO)):
                A.append((_ZERO,) * n + tuple(sign if s == t else _ZERO for s in range(k)))
                b.append(bound)
        result = maximize((_ZERO,) * n + (_ONE,) * k, A, b, dim=n + k)
        if result.status != "optimal":
            raise CertificateError(f"implicit equalities: the program ended {result.status}, which is "
                                   f"impossible for a non-empty set")
        if result.value == 0:
            break
        assert result.point is not None  # an optimum carries its point
        undecided = [i for i in undecided if result.point[n + slot[i]] == 0]
    return tuple(undecided)


def chebyshev_ball(rows: Matrix, rhs: Vector, dim: int, bits: int) -> tuple[Vector, Fraction]:
    """A certified largest ball in ``{rows x <= rhs}`` (see :meth:`Polytope.chebyshev_ball`)."""
    from polyregions.exact.lp import maximize

    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
        raise InvalidInputError(f"chebyshev_ball: expected a positive integer bits=, got {bits!r}")
    n = dim
    weights = [sqrt_upper_bound(dot(row, row), bits=bits) for row in rows]
    A = [row + (w,) for row, w in zip(rows, weights)] + [(_ZERO,) * n + (-_ONE,)]
    result = maximize((_ZERO,) * n + (_ONE,), A, rhs + (_ZERO,), dim=n + 1)
    if result.status == "infeasible":
        raise InfeasibleError("chebyshev_ball: expected a non-empty set, got an empty one")
    if result.status == "unbounded":
        raise UnboundedError("chebyshev_ball: the set contains balls of every radius")
    assert result.point is not None and result.value is not None  # the program ended optimal
    return result.point[:n], result.value


def redundant_rows(rows: Matrix, rhs: Vector, dim: int) -> tuple[int, ...]:
    """Rows of ``{rows x <= rhs}`` whose removal, all together, leaves the set unchanged (last rows first)."""
    from polyregions.exact.lp import maximize

    kept = list(range(len(rows)))
    redundant = []
    for i in reversed(range(len(rows))):
        others = [j for j in kept if j != i]
        result = maximize(rows[i], [rows[j] for j in others], [rhs[j] for j in others], dim=dim)
        if result.status == "optimal":
            assert result.value is not None  # an optimum carries its value
            is_redundant = result.value <= rhs[i]
        else:
            is_redundant = result.status == "infeasible"
        if is_redundant:
            kept = others
            redundant.append(i)
    return tuple(sorted(redundant))
