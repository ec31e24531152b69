"""Reading a polytope's rows: ``A``, ``b`` and ``dim`` as exact rationals of agreeing shapes (the checks of
:class:`~polyregions.polyhedra.polytope.Polytope`'s constructor and of ``from_inequalities``, which document
them)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.exact.rationals import rational_matrix, rational_vector
from polyregions.polyhedra.named import check_dim

__all__ = ["exact_rows", "inequality_rows"]


def _is_exact_matrix(rows: Any) -> bool:
    return isinstance(rows, tuple) and all(isinstance(r, tuple) and all(type(v) is Fraction for v in r)
                                           for r in rows)


def exact_rows(A: Any, b: Any, dim: Any) -> tuple[Matrix, Vector]:
    """``A`` and ``b`` as tuples of Fractions (as they are when they are already), checked against ``dim``."""
    dim = check_dim(dim, "Polytope", minimum=0)  # R^0, a point, arises from restrictions
    if not _is_exact_matrix(A):
        A = rational_matrix(A, what="A")
    if not (isinstance(b, tuple) and all(type(v) is Fraction for v in b)):
        b = rational_vector(b, what="b")
    for i, row in enumerate(A):
        if len(row) != dim:
            raise InvalidInputError(f"Polytope: expected rows of A of length dim={dim}, got {len(row)} in "
                                    f"row {i}")
    if len(b) != len(A):
        raise InvalidInputError(f"Polytope: expected one entry of b per row of A ({len(A)}), got {len(b)}")
    return A, b


def inequality_rows(A: Any, b: Any, dim: int | None) -> tuple[Matrix, Vector, int]:
    """The rows, right-hand sides and dimension of ``{x : A x <= b}``; ``dim`` is needed only without rows."""
    A = rational_matrix(A, what="A")
    if not A:
        if dim is None:
            raise InvalidInputError("Polytope.from_inequalities: expected dim= when A has no rows")
        return (), rational_vector(b, what="b", length=0), check_dim(dim, "Polytope.from_inequalities", minimum=0)
    if dim is not None and check_dim(dim, "Polytope.from_inequalities") != len(A[0]):
        raise InvalidInputError(f"Polytope.from_inequalities: expected rows of length dim={dim}, got "
                                f"{len(A[0])}")
    return A, rational_vector(b, what="b", length=len(A)), len(A[0])
