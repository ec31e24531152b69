"""The rows of named polyhedra: boxes, simplices, cross-polytopes and permutahedra (the constructors of
:class:`~polyregions.polyhedra.polytope.Polytope` take them)."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations, product
from typing import Any

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.exact.rationals import rational_vector

_ZERO, _ONE = Fraction(0), Fraction(1)

__all__ = ["check_dim", "box_rows", "simplex_rows", "cross_polytope_rows", "permutahedron_rows"]


def check_dim(dim: Any, what: str, *, minimum: int = 1) -> int:
    """A dimension: an integer of at least ``minimum``."""
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < minimum:
        kind = "a positive" if minimum == 1 else "a non-negative"
        raise InvalidInputError(f"{what}: expected {kind} integer dimension, got {dim!r}")
    return dim


def box_rows(lower: Any, upper: Any) -> tuple[Matrix, Vector, int]:
    """The rows ``(A, b, dim)`` of :meth:`Polytope.box`."""
    lower = rational_vector(lower, what="lower")
    upper = rational_vector(upper, what="upper", length=len(lower))
    dim = check_dim(len(lower), "Polytope.box")
    for i, (lo, hi) in enumerate(zip(lower, upper)):
        if lo > hi:
            raise InvalidInputError(f"Polytope.box: expected lower <= upper, got lower[{i}] = {lo} > "
                                    f"upper[{i}] = {hi}")
    A, b = [], []
    for i in range(dim):
        unit = tuple(_ONE if j == i else _ZERO for j in range(dim))
        A += [unit, tuple(-v for v in unit)]
        b += [upper[i], -lower[i]]
    return tuple(A), tuple(b), dim


def simplex_rows(dim: Any) -> tuple[Matrix, Vector, int]:
    """The rows ``(A, b, dim)`` of :meth:`Polytope.simplex`."""
    dim = check_dim(dim, "Polytope.simplex")
    A = [tuple(-_ONE if j == i else _ZERO for j in range(dim)) for i in range(dim)] + [(_ONE,) * dim]
    return tuple(A), (_ZERO,) * dim + (_ONE,), dim


def cross_polytope_rows(dim: Any) -> tuple[Matrix, Vector, int]:
    """The rows ``(A, b, dim)`` of :meth:`Polytope.cross_polytope`."""
    dim = check_dim(dim, "Polytope.cross_polytope")
    A = tuple(tuple(Fraction(s) for s in signs) for signs in product((1, -1), repeat=dim))
    return A, (_ONE,) * len(A), dim


def permutahedron_rows(n: Any) -> tuple[Matrix, Vector, int]:
    """The rows ``(A, b, dim)`` of :meth:`Polytope.permutahedron`."""
    n = check_dim(n, "Polytope.permutahedron")
    A, b = [], []
    for k in range(1, n):
        for S in combinations(range(n), k):
            A.append(tuple(-_ONE if i in S else _ZERO for i in range(n)))
            b.append(Fraction(-k * (k + 1) // 2))
    total = Fraction(n * (n + 1) // 2)
    return tuple(A) + ((_ONE,) * n, (-_ONE,) * n), tuple(b) + (total, -total), n
