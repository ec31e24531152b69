"""Exact Euclidean projection of a rational point onto a polyhedron ``{y : A y <= b, E y = e}``.

The nearest point solves the strictly convex quadratic program ``min |y - x|^2 / 2`` over the polyhedron. It is
found by the dual active-set method of Goldfarb & Idnani (1983), here with the identity as Hessian and exact
rational arithmetic throughout: start at ``x`` (the unconstrained minimum), repeatedly add the most violated
constraint, moving along the projection of its normal onto the complement of the active normals (a *full step*)
or, when an active multiplier would turn negative first, dropping that constraint (a *partial step*). Every full
step strictly increases the objective and partial steps only shrink the active set, so the method ends after
finitely many steps, with the exact nearest point and non-negative multipliers: the Karush-Kuhn-Tucker conditions,
which are checked exactly before returning. The active normals stay linearly independent, so every linear system
solved is regular.

Examples
--------
>>> project([2, 2], [[1, 0], [0, 1]], [1, 1])
Projection(point=(Fraction(1, 1), Fraction(1, 1)), squared_distance=Fraction(2, 1))
>>> project([0, 0], [[-1, -1]], [-1]).squared_distance
Fraction(1, 2)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

from polyregions.errors import CertificateError, InfeasibleError
from polyregions.exact.linalg import Vector, dot, solve
from polyregions.exact.rationals import rational_matrix, rational_vector

__all__ = ["Projection", "project"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class Projection:
    """The nearest point of a polyhedron and its exact squared distance."""

    point: Vector
    squared_distance: Fraction


def project(x: Sequence, A: Sequence[Sequence] = (), b: Sequence = (), *, E: Sequence[Sequence] = (),
            e: Sequence = ()) -> Projection:
    """The exact Euclidean projection of ``x`` onto ``{y : A y <= b, E y = e}``.

    Raises
    ------
    InfeasibleError
        When the polyhedron is empty.
    """
    x = rational_vector(x, what="x")
    n = len(x)
    A = rational_matrix(A, what="A", shape=(None, n)) if len(A) else ()
    b = rational_vector(b, what="b", length=len(A))
    E = rational_matrix(E, what="E", shape=(None, n)) if len(E) else ()
    e = rational_vector(e, what="e", length=len(E))
    # Constraints n_j . y >= c_j: inequalities -a.y >= -b, then equalities (oriented when they are added).
    normals = [tuple(-v for v in a) for a in A] + list(E)
    rhs = [-v for v in b] + list(e)
    is_equality = [False] * len(A) + [True] * len(E)
    y = list(x)
    active: list[int] = []
    u: list[Fraction] = []

    def slack(j: int) -> Fraction:
        return dot(normals[j], y) - rhs[j]

    for _ in range(10 * (len(normals) + n) ** 2 + 100):
        p = _most_violated(normals, rhs, y, active, is_equality)
        if p is None:
            return _checked(x, y, active, u, normals, rhs, is_equality)
        if is_equality[p] and slack(p) > 0:
            normals[p] = tuple(-v for v in normals[p])
            rhs[p] = -rhs[p]
        u_plus = u + [_ZERO]
        while True:
            z, r = _directions(normals, active, normals[p])
            # Partial step: the largest step keeping the active inequality multipliers non-negative.
            t1: Fraction | None = None
            k = 0
            for position, j in enumerate(active):
                if not is_equality[j] and r[position] > 0:
                    ratio = u_plus[position] / r[position]
                    if t1 is None or ratio < t1:
                        t1, k = ratio, position
            zz = dot(z, normals[p])
            t2 = -slack(p) / zz if any(z) else None
            # A full step (t2) makes p active; a partial one (t1 < t2) drops the active constraint k.
            full_step = t2 is not None and (t1 is None or t2 <= t1)
            t = t2 if full_step else t1
            if t is None:
                raise InfeasibleError("project: the polyhedron is empty (a violated constraint cannot be met)")
            if t2 is not None:
                y = [yi + t * zi for yi, zi in zip(y, z)]
            u_plus = [v - t * ri for v, ri in zip(u_plus[:-1], r)] + [u_plus[-1] + t]
            if full_step:
                active.append(p)
                u = u_plus
                break
            del active[k]
            del u_plus[k]
    raise CertificateError("project: the active-set method did not terminate")  # pragma: no cover


def _most_violated(normals, rhs, y, active, is_equality) -> int | None:
    """The constraint with the largest violation distance (equalities first), or None."""
    chosen, worst = None, _ZERO
    taken = set(active)
    for j, (nj, cj) in enumerate(zip(normals, rhs)):
        if j in taken:
            continue
        s = dot(nj, y) - cj
        if is_equality[j] and s != 0:
            return j
        if s < 0:
            size = s * s / dot(nj, nj)
            if size > worst:
                chosen, worst = j, size
    return chosen


def _directions(normals, active, normal) -> tuple[list[Fraction], list[Fraction]]:
    """``z``: ``normal`` minus its projection onto the span of the active normals; ``r``: the coefficients of
    that projection (``normal = N r + z``)."""
    if not active:
        return list(normal), []
    N = [normals[j] for j in active]
    gram = [[dot(a, c) for c in N] for a in N]
    r = list(solve(gram, [dot(a, normal) for a in N]))
    z = list(normal)
    for coefficient, a in zip(r, N):
        if coefficient:
            z = [zi - coefficient * ai for zi, ai in zip(z, a)]
    return z, r


def _checked(x, y, active, u, normals, rhs, is_equality) -> Projection:
    """Verify the Karush-Kuhn-Tucker conditions exactly: feasibility, ``y - x = sum u_j n_j`` with
    ``u_j >= 0`` on inequalities, complementary slackness (active constraints tight)."""
    for j, (nj, cj) in enumerate(zip(normals, rhs)):
        s = dot(nj, y) - cj
        if s < 0 or (is_equality[j] and s != 0):
            raise CertificateError(f"project: constraint {j} violated at the computed point")
    residual = [yi - xi for yi, xi in zip(y, x)]
    for position, j in enumerate(active):
        if dot(normals[j], y) != rhs[j]:
            raise CertificateError(f"project: active constraint {j} is not tight")
        if not is_equality[j] and u[position] < 0:
            raise CertificateError(f"project: negative multiplier on constraint {j}")
        residual = [v - u[position] * a for v, a in zip(residual, normals[j])]
    if any(residual):
        raise CertificateError("project: the multipliers do not reproduce y - x")
    point = tuple(y)
    return Projection(point, sum(((a - c) ** 2 for a, c in zip(point, x)), _ZERO))
