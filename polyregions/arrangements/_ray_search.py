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
distinct ray met (at most two per line of the arrangement: its vector and the bit mask of the rows through it; a
row's value at a ray is computed when a cell is scanned, for all the rows it lies on one side of at once, in int64
when the sizes prove it exact): nothing grows with the number of regions. A
central arrangement is searched on one side of its first row only: its regions come in pairs ``R, -R``.
"""

from __future__ import annotations

import itertools
import math
from operator import mul
from typing import Iterator, Sequence

import numpy as np

from polyregions.arrangements._integer_forms import echelon_pivots
from polyregions.arrangements._kernel import BOTH, IntRow

__all__ = ["ConeSearch", "RawRegion", "Ray"]

#: (signs over the input rows as an int8 array of +1/-1, integer point numerators, positive denominator, bounded)
RawRegion = tuple[np.ndarray, tuple[int, ...], int, bool]
#: A ray: its primitive integer vector and the mask of rows (in search order) through it. A row's value at a ray
#: is computed when asked (:meth:`ConeSearch._scan`), not kept: rays x rows values would be 4 GB for 10^4 rows.
Ray = tuple[IntRow, int]

#: Products of a row and a ray are computed in int64 when |row| |ray| times the width stays below this.
_INT64_SAFE = 1 << 62

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
        self._back = np.array([self.position[i] for i in range(self.count)], dtype=np.intp)
        self._rays: dict[IntRow, Ray] = {}
        self._mask_array = np.array(self.masks, dtype=np.int8)
        biggest = max((abs(x) for row in self.rows for x in row), default=0)
        self._row_bound = biggest * max(self.rank, 1)  # |row . ray| <= _row_bound * max |ray|
        # The rows (in the rank's coordinates) in int64 when they fit: a product with a ray is then computed in
        # int64 when _row_bound * max |ray| < _INT64_SAFE (every partial sum too), else exactly in Python.
        self._int_rows: np.ndarray | None = None
        if self.rows and biggest < _INT64_SAFE:
            self._int_rows = np.array(self.rows, dtype=np.int64).reshape(len(self.rows), self.rank)

    # ------------------------------------------------------------------------------------------- rays
    def _ray(self, vector: IntRow) -> Ray:
        """The record of a ray: its primitive vector and the mask of rows through it."""
        record = self._rays.get(vector)
        if record is None:
            values = self._values(self._int_rows, [vector]) if self._int_rows is not None else None
            if values is not None:
                bits = np.packbits(values[:, 0] == 0, bitorder="little")
                zeros = int.from_bytes(bits.tobytes(), "little")
            else:
                zeros = 0
                for k, row in enumerate(self.rows):
                    if not sum(map(mul, row, vector)):
                        zeros |= 1 << k
            record = self._rays[vector] = (vector, zeros)
        return record

    def _values(self, rows: np.ndarray | None, vectors: Sequence[IntRow]) -> np.ndarray | None:
        """The values (rows x vectors) of int64 ``rows`` at ``vectors``, or None when a product might overflow."""
        if rows is None:
            return None
        biggest = max((abs(x) for vector in vectors for x in vector), default=0)
        if biggest * self._row_bound >= _INT64_SAFE:
            return None
        return rows @ np.array(vectors, dtype=np.int64).T

    def _value(self, t: int, ray: Ray) -> int:
        """Row ``t``'s exact value at ``ray``."""
        return sum(map(mul, self.rows[t], ray[0]))

    def _scan(self, rays: list[Ray], t: int) -> tuple[int, Sequence[int] | np.ndarray]:
        """From row ``t`` on, the first row with rays strictly on both sides (``len(rows)`` when none) and the
        side of the cell on each row before it (+1 where some ray is positive, else -1); rows whose side the
        masks forbid end the list early (the caller drops the cell)."""
        m = len(self.rows)
        values = self._values(self._int_rows[t:] if self._int_rows is not None else None, [ray[0] for ray in rays])
        if values is None:  # big integers: row by row, exactly
            sides: list[int] = []
            for k in range(t, m):
                row_values = [self._value(k, ray) for ray in rays]
                positive, negative = any(v > 0 for v in row_values), any(v < 0 for v in row_values)
                if positive and negative:
                    return k, sides
                side = 1 if positive else -1
                sides.append(side)
                if not self.masks[k] & (_PLUS if side > 0 else _MINUS):
                    return -1, sides
            return m, sides
        above = np.any(values > 0, axis=1)
        below = np.any(values < 0, axis=1)
        both = np.flatnonzero(above & below)
        end = int(both[0]) if both.size else m - t
        allowed = self._mask_array[t:t + end] & np.where(above[:end], _PLUS, _MINUS).astype(np.int8)
        if not allowed.all():
            return -1, []
        return t + end, np.where(above[:end], 1, -1)

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
            yield np.zeros(0, dtype=np.int8), (0,) * self.dim, 1, True
            return
        m, r = len(self.rows), self.rank
        signs = np.zeros(m, dtype=np.int8)  # the current path's, copied out per region by numpy, not a Python loop
        for initial, rays in self._initial_cells():
            signs[:r] = initial
            stack: list[tuple[int, list[Ray], int]] = [(r, rays, 0)]
            while stack:
                t, rays, side = stack.pop()
                if side:
                    signs[t - 1] = side
                # The rows the cell lies on one side of, at once; then the first row that cuts it.
                cut, sides = self._scan(rays, t)
                if cut < 0:
                    continue  # the cell lies on a forbidden side
                signs[t:cut] = sides
                t = cut
                if t == m:
                    yield from self._emit(signs, rays)
                    continue
                mask = self.masks[t]
                pos: list[Ray] = []
                neg: list[Ray] = []
                zero: list[Ray] = []
                values = {}
                for ray in rays:
                    v = values[ray[0]] = self._value(t, ray)
                    (pos if v > 0 else neg if v < 0 else zero).append(ray)
                new = self._cut(rays, pos, neg, t, values)
                if mask & _MINUS:
                    stack.append((t + 1, neg + zero + new, -1))
                if mask & _PLUS:
                    stack.append((t + 1, pos + zero + new, 1))

    def _cut(self, rays: list[Ray], pos: list[Ray], neg: list[Ray], t: int, values: dict[IntRow, int]
             ) -> list[Ray]:
        """The new extreme rays on row ``t`` (whose value at each ray is ``values``): one for each adjacent pair
        of rays on its two sides."""
        processed = (1 << t) - 1
        need = self.rank - 2
        zero_sets = [ray[1] & processed for ray in rays]
        new = []
        for p in pos:
            zp, vp = p[1] & processed, values[p[0]]
            for n in neg:
                common = zp & n[1]
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
                vn = values[n[0]]
                new.append(self._ray(_reduced(tuple(vp * a - vn * b for a, b in zip(n[0], p[0])))))
        return new

    def _emit(self, signs: np.ndarray, rays: list[Ray]) -> Iterator[RawRegion]:
        total = [sum(column) for column in zip(*(ray[0] for ray in rays))]
        point = [0] * self.width
        for p, v in zip(self.pivots, total):
            point[p] = v
        ordered = signs[self._back]
        if self.central:
            g = math.gcd(*point) or 1
            numerators = tuple(v // g for v in point)
            yield ordered, numerators, 1, False
            yield -ordered, tuple(-v for v in numerators), 1, False
            return
        z_row = self.position[self.count]
        bounded = all(self._value(z_row, ray) for ray in rays)
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
