"""Deletion-restriction with a cache of restrictions in canonical form.

For a central arrangement ``A = {H_1, ..., H_m}`` of rank ``r`` whose first ``r`` hyperplanes are independent,
deleting the others one at a time from the last gives

    ``chi_A(t) = (t - 1)^r - sum_{i > r} chi(A_{i-1} restricted to H_i)``,

where ``A_{i-1} = {H_1, ..., H_{i-1}}`` (``chi_A = chi_{A - H} - chi_{A / H}``, and independent hyperplanes
give ``(t - 1)^r``). Each restriction is a central arrangement in ``R^(r-1)``, recursed on, down to rank 3
where pairs of planes give ``chi`` directly (:mod:`._low_rank`). Affine arrangements are coned first
(``chi_cone = (t - 1) chi``).

The same restrictions come back many times, in other coordinates. Each arrangement is therefore put in a
canonical form before the cache is asked: its rows are ordered (by their 1-norm, then lexicographically), the
first ``r`` independent ones become the unit vectors (the coordinates change by the inverse of their matrix,
which does not change the arrangement up to isomorphism), and every row is made primitive with its first
non-zero entry positive. Arrangements that differ by a linear change of coordinates, and by a permutation of
the coordinates or a rescaling of the hyperplanes that keeps that order, get the same form. Of the restrictions
asked for, the cache holds almost half for the resonance arrangement ``R_6``, three in five for the Shi
arrangement of ``E_6`` and four in five for the Catalan arrangement of ``A_6``.

Examples
--------
>>> from polyregions.arrangements._integer_forms import essential_form
>>> deletion_restriction_polynomial(essential_form(((1, 0, 0), (0, 1, 0), (1, 1, 0), (1, -1, 1)), 2))
(1, -4, 5)
"""

from __future__ import annotations

from typing import Sequence

from polyregions.arrangements._integer_forms import IntegerForm, echelon_pivots
from polyregions.arrangements._kernel import Chart, IntRow, canonical
from polyregions.arrangements._low_rank import central_low_rank
from polyregions.arrangements._polynomials import Poly, divide_linear, power_linear, shift, subtract

__all__ = ["deletion_restriction_polynomial", "canonical_central_form"]


def deletion_restriction_polynomial(form: IntegerForm) -> Poly:
    """``chi`` of an essential integer form (degree ``form.rank``), by deletion-restriction."""
    solver = _Solver()
    r = form.rank
    if form.homogeneous:
        return solver.solve(tuple(row[:-1] for row in form.rows), r)
    cone = tuple(row[:-1] + (-row[-1],) for row in form.rows) + ((0,) * r + (1,),)
    return divide_linear(solver.solve(cone, r + 1), 1)


def _independent_first(rows: Sequence[IntRow], r: int) -> tuple[list[int], list[int]]:
    """Indices of the first ``r`` independent rows (greedy, in order) and of the others."""
    basis: list[tuple[int, list[int]]] = []
    chosen: list[int] = []
    others: list[int] = []
    for index, row in enumerate(rows):
        if len(chosen) == r:
            others.append(index)
            continue
        v = list(row)
        for p, b in basis:
            if v[p]:
                f, g = b[p], v[p]
                v = [f * x - g * y for x, y in zip(v, b)]
        first = next((i for i, x in enumerate(v) if x), None)
        if first is None:
            others.append(index)
        else:
            basis.append((first, v))
            chosen.append(index)
    return chosen, others


def canonical_central_form(rows: Sequence[IntRow], r: int) -> tuple[IntRow, ...]:
    """The rows other than the unit vectors, sorted, of the canonical form of distinct normals spanning ``R^r``.

    Three lines through the origin: ``y = 0`` and ``x + y = 0`` become the axes, ``2x + y = 0`` becomes
    ``x = 2y``:

    >>> canonical_central_form([(2, 1), (1, 1), (0, 1)], 2)
    ((1, -2),)
    """
    from flint import fmpz_mat

    ordered = sorted(rows, key=lambda v: (sum(map(abs, v)), v))
    chosen, others = _independent_first(ordered, r)
    matrix = fmpz_mat(r, r, [x for i in chosen for x in ordered[i]])
    determinant = matrix.det()
    inverse = matrix.inv()
    # adj(B) = det(B) B^-1 is an integer matrix; v adj(B) is v in the coordinates where B's rows are units
    adjugate = [[int((inverse[i, j] * determinant).p) for j in range(r)] for i in range(r)]
    columns = list(zip(*adjugate))
    out = []
    for i in others:
        v = ordered[i]
        out.append(canonical(tuple(sum(a * b for a, b in zip(v, column)) for column in columns))[0])
    return tuple(sorted(out))


class _Solver:
    """One computation's cache: canonical central arrangement -> characteristic polynomial."""

    def __init__(self) -> None:
        self.cache: dict[tuple[int, tuple[IntRow, ...]], Poly] = {}

    def solve(self, rows: Sequence[IntRow], r: int) -> Poly:
        """``chi`` of distinct canonical normals spanning ``R^r`` (degree ``r``)."""
        low = central_low_rank(rows, r)
        if low is not None:
            return low
        others = canonical_central_form(rows, r)
        key = (r, others)
        known = self.cache.get(key)
        if known is not None:
            return known
        units = [tuple(int(i == j) for j in range(r)) for i in range(r)]
        ordered = units + list(others)
        total = power_linear(1, r)
        for i in range(r, len(ordered)):
            chart = Chart(ordered[i] + (0,))
            restricted = tuple(dict.fromkeys(canonical(chart.restrict(row + (0,)))[0][:-1] for row in ordered[:i]))
            pivots = echelon_pivots(restricted, r - 1)
            if len(pivots) < r - 1:
                restricted = tuple(dict.fromkeys(canonical(tuple(v[p] for p in pivots))[0] for v in restricted))
            total = subtract(total, shift(self.solve(restricted, len(pivots)), r - 1 - len(pivots)))
        self.cache[key] = total
        return total
