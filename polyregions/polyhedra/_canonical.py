"""The canonical form of a polyhedron's inequalities (one row per facet, reduced modulo its equations, primitive
integers, sorted), which makes two descriptions of one set equal."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from polyregions.errors import CertificateError
from polyregions.exact._integers import primitive
from polyregions.exact.linalg import Matrix, Vector, rref

__all__ = ["canonical", "equation_rows", "reduced_row"]

_ZERO, _ONE = Fraction(0), Fraction(1)


def equation_rows(equalities: Sequence[tuple[Vector, Fraction]], dim: int) -> tuple[Matrix, Vector]:
    """The reduced row echelon form ``[E | e]`` of a consistent system of equations."""
    if not equalities:
        return (), ()
    rows, pivots = rref([tuple(row) + (rhs,) for row, rhs in equalities], dim + 1)
    if dim in pivots:
        raise CertificateError("canonical form: inconsistent equations for a non-empty set")
    return tuple(r[:dim] for r in rows), tuple(r[dim] for r in rows)


def reduced_row(row: Vector, rhs: Fraction, E: Matrix, e: Vector, dim: int) -> tuple[Fraction, ...]:
    """``(a, beta)`` minus the equations that clear ``a`` in their pivot columns, scaled to primitive integers."""
    a, beta = list(row), rhs
    for eq, c in zip(E, e):
        pivot = next(j for j, v in enumerate(eq) if v)
        factor = a[pivot]
        if factor:
            a = [x - factor * y for x, y in zip(a, eq)]
            beta -= factor * c
    return tuple(Fraction(v) for v in primitive(a + [beta]))


def canonical(facets: Sequence[tuple[Vector, Fraction]], equalities: Sequence[tuple[Vector, Fraction]],
               dim: int) -> tuple[Matrix, Vector]:
    """The canonical ``(A, b)`` from irredundant facets and equations of the affine hull (see ``irredundant``)."""
    rows, pivots = rref([tuple(r) + (c,) for r, c in equalities], dim + 1) if equalities else ((), ())
    if dim in pivots:
        return ((_ZERO,) * dim,), (-_ONE,)
    E, e = tuple(r[:dim] for r in rows), tuple(r[dim] for r in rows)
    A, b = [], []
    for eq, c in zip(E, e):
        scaled = tuple(Fraction(v) for v in primitive(list(eq) + [c]))
        A += [scaled[:-1], tuple(-v for v in scaled[:-1])]
        b += [scaled[-1], -scaled[-1]]
    reduced = sorted({reduced_row(a, beta, E, e, dim) for a, beta in facets})
    for r in reduced:
        if not any(r[:-1]):
            if r[-1] < 0:
                return ((_ZERO,) * dim,), (-_ONE,)
            continue
        A.append(r[:-1])
        b.append(r[-1])
    return tuple(A), tuple(b)
