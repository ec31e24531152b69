"""A polytope's affine hull, from its implicit equalities: its dimension, a point of its relative interior (strict in
every other row), and the canonical irredundant description (the hull's equations in reduced row echelon form, then
the facets reduced modulo them, found by certified linear programs). These are the bodies of
:class:`~polyregions.polyhedra.polytope.Polytope`'s ``affine_dimension``, ``relative_interior_point`` and
``irredundant``, which document them."""

from __future__ import annotations

from typing import TYPE_CHECKING

from polyregions.errors import CertificateError
from polyregions.exact.linalg import Vector, rank
from polyregions.polyhedra._canonical import canonical, equation_rows, reduced_row

if TYPE_CHECKING:
    from polyregions.polyhedra.polytope import Polytope

__all__ = ["affine_dimension", "relative_interior_point", "irredundant"]


def affine_dimension(polytope: Polytope) -> int:
    """``dim`` minus the rank of the implicit equalities (-1 when empty)."""
    if polytope.is_empty():
        return -1
    equalities = [polytope.A[i] for i in polytope.implicit_equalities()]
    return polytope.dim - (rank(equalities) if equalities else 0)


def relative_interior_point(polytope: Polytope) -> Vector | None:
    """A point strict in every row but the implicit equalities, by a certified program (None when empty)."""
    from polyregions.exact.lp import strict_point

    if polytope.is_empty():
        return None
    A, b = polytope.A, polytope.b
    implicit = set(polytope.implicit_equalities())
    E = [A[i] for i in implicit]
    e = [b[i] for i in implicit]
    rest = [i for i in range(len(A)) if i not in implicit]
    point = strict_point([A[i] for i in rest], [b[i] for i in rest], E=E, e=e, dim=polytope.dim)
    if point is None:
        raise CertificateError("relative interior point: none found in a non-empty set, which is impossible")
    return point


def irredundant(polytope: Polytope) -> Polytope:
    """The canonical irredundant description of ``polytope``'s set, as a polytope of its class."""
    from polyregions.exact.lp import maximize

    if polytope.is_empty():
        return type(polytope).empty(polytope.dim)
    implicit = set(polytope.implicit_equalities())
    A, b, dim = polytope.A, polytope.b, polytope.dim
    equalities = [(A[i], b[i]) for i in implicit]
    rest = [(A[i], b[i]) for i in range(len(A)) if i not in implicit]
    E_rows, E_rhs = equation_rows(equalities, dim)
    # Reduce and deduplicate first (cheap), then drop the redundant facets by certified programs.
    candidates = list(dict.fromkeys(reduced_row(row, rhs, E_rows, E_rhs, dim) for row, rhs in rest))
    candidates = [c for c in candidates if any(c[:-1])]
    kept = list(range(len(candidates)))
    for i in reversed(range(len(candidates))):
        others = [candidates[j] for j in kept if j != i]
        result = maximize(candidates[i][:-1], [c[:-1] for c in others], [c[-1] for c in others],
                          E=E_rows, e=E_rhs, dim=dim)
        if result.status == "optimal":
            assert result.value is not None  # an optimum carries its value
            if result.value <= candidates[i][-1]:
                kept.remove(i)
    facets = [(candidates[i][:-1], candidates[i][-1]) for i in kept]
    A, b = canonical(facets, list(zip(E_rows, E_rhs)), dim)
    return type(polytope)(A, b, dim)
