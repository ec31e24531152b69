"""cvxpy as an optional floating-point LP backend (its answers are certified like HiGHS's)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.exact.lp import LPStatus

__all__ = ["solve_with_cvxpy"]


def solve_with_cvxpy(c: np.ndarray, A: np.ndarray, b: np.ndarray
                     ) -> tuple[LPStatus, np.ndarray | None, np.ndarray | None] | None:
    """Return (status, x, y) for ``max c.x s.t. A x <= b``, or None when cvxpy gives no usable answer."""
    try:
        import cvxpy as cp
    except ImportError:
        raise InvalidInputError("linear program: backend 'cvxpy' expected the cvxpy package, "
                                "which is not installed (pip install cvxpy)") from None
    x = cp.Variable(len(c))
    constraint = A @ x <= b
    problem = cp.Problem(cp.Maximize(c @ x), [constraint])
    try:
        problem.solve()
    except cp.error.SolverError:
        return None
    if problem.status == cp.OPTIMAL:
        return "optimal", np.asarray(x.value, dtype=float), np.asarray(constraint.dual_value, dtype=float)
    if problem.status == cp.INFEASIBLE:
        return "infeasible", None, None
    if problem.status == cp.UNBOUNDED:
        return "unbounded", None, None
    return None
