"""An arrangement in its essential integer form: the same hyperplanes in ``R^rank`` with integer rows.

Both counting engines work there. The normals ``a`` of an arrangement in ``R^d`` span a space ``W`` of
dimension ``rank``; keeping only ``rank`` coordinates on which ``W`` projects injectively (the pivot columns of
an echelon form) is a linear isomorphism of ``R^d / W^perp`` onto ``R^rank``, so the essential form has the same
intersection poset, and ``chi(t) = t^(d - rank) chi_essential(t)``. Rows stay integers (a subset of the
entries of the canonical rows), so nothing is scaled or rounded.

Examples
--------
>>> form = essential_form(((1, -1, 0, 0), (0, 1, -1, 0)), 3)  # x1 = x2, x2 = x3 in R^3
>>> form.rank, form.rows, form.homogeneous
(2, ((1, -1, 0), (0, 1, 0)), True)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Sequence

from polyregions.arrangements._kernel import IntRow, canonical

__all__ = ["IntegerForm", "echelon_pivots", "essential_form"]


def echelon_pivots(rows: Sequence[Sequence[int]], k: int) -> tuple[int, ...]:
    """Columns on which the span of integer rows of length ``k`` projects injectively, sorted (their number is
    the rank).

    Rows are reduced one after another against the earlier pivot rows (fraction-free, divided by the gcd to
    keep the numbers small); a row that keeps a non-zero entry adds its first non-zero column. The square
    matrix of the pivot rows on those columns is then triangular up to order, hence invertible.

    >>> echelon_pivots([(1, 1, 0), (2, 2, 0), (0, 1, 1)], 3)
    (0, 1)
    """
    basis: list[tuple[int, list[int]]] = []
    for row in rows:
        v = list(row[:k])
        for p, b in basis:
            if v[p]:
                f, g = b[p], v[p]
                v = [f * x - g * y for x, y in zip(v, b)]
                divisor = math.gcd(*v)
                if divisor > 1:
                    v = [x // divisor for x in v]
        first = next((i for i, x in enumerate(v) if x), None)
        if first is not None:
            basis.append((first, v))
            if len(basis) == k:
                break
    return tuple(sorted(p for p, _ in basis))


@dataclass(frozen=True)
class IntegerForm:
    """Integer rows ``(a_1, ..., a_rank, c)`` of hyperplanes ``a . x = c`` in ``R^rank``, essential.

    Attributes
    ----------
    rank : int
    rows : tuple of tuple of int
        Canonical (primitive, first non-zero normal entry positive) and distinct.
    dim : int
        The dimension of the original space: ``chi(t) = t^(dim - rank) chi_essential(t)``.
    """

    rank: int
    rows: tuple[IntRow, ...]
    dim: int

    @property
    def homogeneous(self) -> bool:
        """Whether every ``c`` is 0 (every hyperplane passes through the origin)."""
        return not any(row[-1] for row in self.rows)

    @property
    def normals(self) -> tuple[IntRow, ...]:
        """The distinct normal vectors (parallel hyperplanes share theirs), in order of first occurrence."""
        return tuple(dict.fromkeys(row[:-1] for row in self.rows))


def essential_form(hyperplanes: Sequence[IntRow], dim: int) -> IntegerForm:
    """The essential integer form of canonical rows ``(a_1, ..., a_dim, c)`` (distinct, non-zero normals)."""
    pivots = echelon_pivots(hyperplanes, dim)
    if len(pivots) == dim:
        return IntegerForm(dim, tuple(hyperplanes), dim)
    rows = tuple(canonical(tuple(row[p] for p in pivots) + (row[-1],))[0] for row in hyperplanes)
    return IntegerForm(len(pivots), rows, dim)
