"""Depth-first refinement of a pointed cone arrangement, each cell carried by its extreme rays.

Every region of an arrangement is a region of its cone (``a . x + e z`` for each row, and ``z > 0``), and modulo
the lineality space the cone is essential, so every cell is a pointed cone given exactly by its extreme rays:
integer vectors, each on a line of the arrangement. The rows are added one at a time, depth first. A cell is
cut by the next row exactly when it has extreme rays strictly on both sides; the two pieces keep the rays on
their side and on the row, and gain one new ray for each *adjacent* pair of rays on opposite sides (the double
description step). Adjacency is decided combinatorially: two extreme rays are adjacent exactly when no third
one lies on every row through both (Fukuda and Prodon). Everything is integer arithmetic; the sum of a cell's
extreme rays is an exact interior point, and the cell is relatively bounded exactly when none of its rays lies
at infinity (``z = 0``).

Memory holds one root-to-leaf path of cells (at most one cell per row, each with its rays) and one record per
distinct ray met (at most two per line of the arrangement): nothing grows with the number of regions. A
central arrangement is searched on one side of its first row only: its regions come in pairs ``R, -R``.
"""

from __future__ import annotations

import itertools
import math
from operator import mul
from typing import Iterator, Sequence

from polyregions.arrangements._integer_forms import echelon_pivots
from polyregions.arrangements._kernel import BOTH, IntRow

__all__ = ["ConeSearch", "RawRegion", "Ray"]

#: (signs over the input rows as a tuple of +1/-1, integer point numerators, positive denominator, bounded)
RawRegion = tuple[tuple[int, ...], tuple[int, ...], int, bool]
#: A ray: its primitive integer vector, the value of every row (in search order) there, the mask of rows through it.
Ray = tuple[IntRow, tuple[int, ...], int]

_PLUS, _MINUS = 2, 1  # the allowed-mask bits of the two signs


def _reduced(vector: Sequence[int]) -> IntRow:
    g = math.gcd(*vector)
    return tuple(v // g for v in vector) if g > 1 else tuple(vector)


class ConeSearch:
    """The regions of integer rows ``(a, e)`` (value ``a . x + e`` at ``x`` in ``R^dim``) whose signs are allowed.

    Parameters
    ----------
    rows : sequence of integer rows
        Distinct canonical rows with non-zero normals (``Arrangement._system``'s rows).
    allowed : sequence of int
        Allowed-sign masks (bit 1: negative, bit 2: positive), as in :mod:`._kernel`.
    dim : int
        The dimension of the space.
    """

    def __init__(self, rows: Sequence[IntRow], allowed: Sequence[int], dim: int):
        self.dim = dim
        self.count = len(rows)
        central = all(al == BOTH for al in allowed) and not any(row[-1] for row in rows)
        self.central = central
        if central:
            # Work in R^dim; a first row of fixed sign halves the search (R and -R are both regions).
            homogeneous = [tuple(row[:-1]) for row in rows]
            masks = list(allowed)
        else:
            # The cone in R^(dim+1): the row a.x + e z, and z itself, which must be positive.
            homogeneous = [tuple(row) for row in rows] + [(0,) * dim + (1,)]
            masks = list(allowed) + [_PLUS]
        width = len(homogeneous[0]) if homogeneous else (dim if central else dim + 1)
        pivots = echelon_pivots(homogeneous, width) if homogeneous else ()
        self.width = width
        self.pivots = pivots
        self.rank = len(pivots)
        essential = [tuple(row[p] for p in pivots) for row in homogeneous]
        # Rows that restrict the signs (z > 0, domain facets) come first, in the basis when they can: the cells
        # outside the domain are then never made.
        preferred = sorted(range(len(essential)), key=lambda i: masks[i] == BOTH)
        basis, rest = _basis_first(essential, self.rank, preferred=preferred)
        rest.sort(key=lambda i: masks[i] == BOTH)
        self.order = basis + rest
        self.rows = [essential[i] for i in self.order]
        self.masks = [masks[i] for i in self.order]
        if central and self.rows:
            self.masks[0] = _PLUS
        self.position = {original: k for k, original in enumerate(self.order)}
        self._back = [self.position[i] for i in range(self.count)]
        self._rays: dict[IntRow, Ray] = {}

    # ------------------------------------------------------------------------------------------- rays
    def _ray(self, vector: IntRow) -> Ray:
        """The record of a ray: its primitive vector, the value of every row there, the mask of rows through it."""
        record = self._rays.get(vector)
        if record is None:
            values = tuple(sum(map(mul, row, vector)) for row in self.rows)
            zeros = 0
            for k, v in enumerate(values):
                if not v:
                    zeros |= 1 << k
            record = self._rays[vector] = (vector, values, zeros)
        return record

    def _initial_cells(self) -> Iterator[tuple[list[int], list[Ray]]]:
        """The simplicial cells of the first ``rank`` rows (independent): their signs and rays."""
        from flint import fmpz_mat

        r = self.rank
        basis = fmpz_mat(r, r, [x for row in self.rows[:r] for x in row])
        determinant = int(basis.det())
        inverse = basis.inv()
        # adj(B) = det(B) B^-1: column j lies on every basis row but row j, where it has value det(B)
        columns = [tuple(int((inverse[i, j] * determinant).p) for i in range(r)) for j in range(r)]
        orientation = 1 if determinant > 0 else -1
        sides = [[s for s in (-1, 1) if self.masks[j] & (_PLUS if s > 0 else _MINUS)] for j in range(r)]
        for signs in itertools.product(*sides):
            rays = [self._ray(_reduced(tuple(signs[j] * orientation * v for v in columns[j]))) for j in range(r)]
            yield list(signs), rays

    # ------------------------------------------------------------------------------------------ search
    def regions(self) -> Iterator[RawRegion]:
        """Every allowed region, depth first: signs in the input order, an interior point, relative boundedness."""
        if self.rank == 0:  # no rows: one region, the whole space, bounded modulo its lineality
            yield (), (0,) * self.dim, 1, True
            return
        m, r = len(self.rows), self.rank
        signs = [0] * m
        for initial, rays in self._initial_cells():
            signs[:r] = initial
            stack: list[tuple[int, list[Ray], int]] = [(r, rays, 0)]
            while stack:
                t, rays, side = stack.pop()
                if side:
                    signs[t - 1] = side
                while t < m:
                    mask = self.masks[t]
                    pos: list[Ray] = []
                    neg: list[Ray] = []
                    zero: list[Ray] = []
                    for ray in rays:
                        v = ray[1][t]
                        (pos if v > 0 else neg if v < 0 else zero).append(ray)
                    if not neg or not pos:
                        side = 1 if pos else -1
                        if not mask & (_PLUS if side > 0 else _MINUS):
                            break  # the cell lies on a forbidden side
                        signs[t] = side
                        t += 1
                        continue
                    new = self._cut(rays, pos, neg, t)
                    if mask & _MINUS:
                        stack.append((t + 1, neg + zero + new, -1))
                    if mask & _PLUS:
                        stack.append((t + 1, pos + zero + new, 1))
                    break
                else:
                    yield from self._emit(signs, rays)

    def _cut(self, rays: list[Ray], pos: list[Ray], neg: list[Ray], t: int) -> list[Ray]:
        """The new extreme rays on row ``t``: one for each adjacent pair of rays on its two sides."""
        processed = (1 << t) - 1
        need = self.rank - 2
        zero_sets = [ray[2] & processed for ray in rays]
        new = []
        for p in pos:
            zp, vp = p[2] & processed, p[1][t]
            for n in neg:
                common = zp & n[2]
                if common.bit_count() < need:
                    continue
                hits = 0
                for z in zero_sets:
                    if z & common == common:
                        hits += 1
                        if hits > 2:
                            break
                if hits > 2:
                    continue  # a third ray on every row through both: not adjacent
                vn = n[1][t]
                new.append(self._ray(_reduced(tuple(vp * a - vn * b for a, b in zip(n[0], p[0])))))
        return new

    def _emit(self, signs: list[int], rays: list[Ray]) -> Iterator[RawRegion]:
        total = [sum(column) for column in zip(*(ray[0] for ray in rays))]
        point = [0] * self.width
        for p, v in zip(self.pivots, total):
            point[p] = v
        ordered = tuple([signs[k] for k in self._back])
        if self.central:
            g = math.gcd(*point) or 1
            numerators = tuple(v // g for v in point)
            yield ordered, numerators, 1, False
            yield tuple(-s for s in ordered), tuple(-v for v in numerators), 1, False
            return
        z_row = self.position[self.count]
        bounded = all(ray[1][z_row] for ray in rays)
        denominator = point[-1]
        g = math.gcd(*point)
        yield ordered, tuple(v // g for v in point[:-1]), denominator // g, bounded


def _basis_first(rows: Sequence[IntRow], r: int, *, preferred: Sequence[int]) -> tuple[list[int], list[int]]:
    """Indices of ``r`` independent rows, chosen greedily in the order ``preferred``, then of the others."""
    order = list(preferred)
    basis: list[tuple[int, list[int]]] = []
    chosen: list[int] = []
    others: list[int] = []
    for index in order:
        if len(chosen) == r:
            others.append(index)
            continue
        v = list(rows[index])
        for p, b in basis:
            if v[p]:
                f, g = b[p], v[p]
                v = [f * x - g * y for x, y in zip(v, b)]
        lead = next((i for i, x in enumerate(v) if x), None)
        if lead is None:
            others.append(index)
        else:
            basis.append((lead, v))
            chosen.append(index)
    others.sort()
    return chosen, others
