"""An arrangement's domain, a full-dimensional polytope whose interior the hyperplanes cut into cells: its check,
its facet rows joined to the hyperplanes as rows with one allowed sign, and its restriction to a flat (for
:class:`~polyregions.arrangements.arrangement.Arrangement`)."""

from __future__ import annotations

from fractions import Fraction
from operator import mul
from typing import TYPE_CHECKING, Any, Sequence

from polyregions.arrangements._kernel import BOTH, IntRow, canonical
from polyregions.errors import InvalidInputError
from polyregions.exact._integers import primitive

if TYPE_CHECKING:
    from polyregions.exact.linalg import Matrix, Vector
    from polyregions.polyhedra.polytope import Polytope

__all__ = ["check_domain", "system", "restricted_domain"]


def _exact_rows(domain: Any, dim: int) -> tuple[Matrix, Vector]:
    from polyregions.exact.rationals import rational_matrix, rational_vector

    A = rational_matrix(domain.A, what="domain.A", shape=(None, dim))
    return A, rational_vector(domain.b, what="domain.b", length=len(A))


def check_domain(domain: Any, dim: int) -> None:
    """Raise :class:`~polyregions.errors.InvalidInputError` unless ``domain`` is a full-dimensional polytope
    (anything with ``A``, ``b`` and ``dim``) in ``R^dim``."""
    from polyregions.exact.lp import strict_point

    if not all(hasattr(domain, name) for name in ("A", "b", "dim")):
        raise InvalidInputError(f"domain: expected a Polytope (with A, b and dim), got {type(domain).__name__}")
    if domain.dim != dim:
        raise InvalidInputError(f"domain: expected a polytope in R^{dim}, got one in R^{domain.dim}")
    A, b = _exact_rows(domain, dim)
    if strict_point(A, b, dim=dim) is None:
        raise InvalidInputError("domain: expected a full-dimensional polytope, got one with empty interior")


def system(hyperplane_rows: Sequence[IntRow], domain: Polytope | None, dim: int
           ) -> tuple[tuple[IntRow, ...], tuple[int, ...]]:
    """The homogeneous rows of the hyperplanes followed by the domain's facet rows, with the signs each may take.

    A domain row ``g.x <= b`` allows only the sign that is negative inside; when it lies on a hyperplane of
    the arrangement, that hyperplane's allowed signs shrink instead.
    """
    rows = list(hyperplane_rows)
    allowed = [BOTH] * len(rows)
    if domain is not None:
        A, b = _exact_rows(domain, dim)
        where = {row: i for i, row in enumerate(rows)}
        for a, bi in zip(A, b):
            if not any(a):
                continue  # 0 <= b, which holds since the interior is non-empty
            row, orientation = canonical(primitive(tuple(a) + (-bi,)))
            bit = 1 if orientation > 0 else 2
            i = where.get(row)
            if i is None:
                where[row] = len(rows)
                rows.append(row)
                allowed.append(bit)
            else:
                allowed[i] &= bit
    return tuple(rows), tuple(allowed)


def restricted_domain(domain: Polytope, dim: int, columns: Sequence[IntRow]) -> Polytope:
    """The domain in the coordinates of a flat (homogeneous ``columns``: the directions, then the point)."""
    from polyregions.polyhedra.polytope import Polytope

    A, b = _exact_rows(domain, dim)
    new_A, new_b = [], []
    for a, bi in zip(A, b):
        row = primitive(tuple(a) + (-bi,))
        r = tuple(sum(map(mul, row, c)) for c in columns)
        if any(r[:-1]):
            new_A.append(tuple(Fraction(v) for v in r[:-1]))
            new_b.append(Fraction(-r[-1]))
        elif r[-1] >= 0:
            raise InvalidInputError("restriction: the flat misses the interior of the domain")
    return Polytope(tuple(new_A), tuple(new_b), len(columns) - 1)
