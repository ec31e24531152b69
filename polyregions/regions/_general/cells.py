"""The cell record of the general engine: a convex cell of the refinement, its geometry and its interior points.

A cell is an open convex polyhedron (its rows, the domain's first), the pattern of the units that cut it so far
and the affine map of the current layer's input on it. Cells cut by certified programs carry an interior point
and a point in each facet (:mod:`.facets`); cells cut through their vertices carry those
(:mod:`polyregions.regions._cell_vertices`) and find their points only when they are final. A final cell becomes
a region: its exact ``A``, ``b`` and interior point, built when first asked for.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Optional

import numpy as np
from flint import fmpq_mat, fmpz_mat

from polyregions.errors import CertificateError
from polyregions.exact.lp import Backend, strict_point
from polyregions.regions import _cell_programs as cp
from polyregions.regions import _cell_vertices as cv
from polyregions.regions._cell_programs import Point, Row
from polyregions.regions._cell_vertices import CellVertices

__all__ = ["Cell", "Flip", "NO_MAP", "unboxed", "geometry", "geometry_of", "interior", "far_vertices",
           "vertex_point"]

#: How the pattern changes across a facet: neuron ``n`` (its index in the pattern) takes piece ``p``.
Flip = tuple[int, int]


@dataclass(frozen=True)
class Cell:
    rows: tuple[Row, ...]
    floats: Optional[np.ndarray]  # cp.float_rows(rows); None beyond the double range or when cut by vertices
    point: Optional[Point]        # strictly inside; None while cut by vertices (found when the cell is finished)
    pattern: tuple[int, ...]
    M: fmpq_mat                   # the current layer's input is M t + c on the cell
    c: fmpq_mat                   # (a column)
    # Per row: a point of its hyperplane, every other row strict. Cells cut by vertices need none until they are
    # finished, and carry () until then.
    facet_points: tuple[Optional[Point], ...]
    domain_rows: int              # the first rows are the domain's; every later row is a facet
    vertices: Optional[CellVertices] = None  # a bounded cell's vertices, cut instead of solving programs
    # The patterns of the regions across the last len(siblings) rows: the facets cut by the last layer, whose
    # neighbours are known from the cut (``_siblings`` in :mod:`.cuts`).
    siblings: tuple[tuple[int, ...], ...] = ()
    # A finished cell cut by vertices without a point: the centroid of its vertices rounded to doubles (weighting
    # those on the certified box little), tried first when a point is asked for (:func:`geometry`).
    centroid: Optional[tuple[float, ...]] = None
    # Per row (none, or one per row): how the pattern changes across its facet when that is read off the cuts,
    # ``(neuron, piece)`` (``_flipped`` in :mod:`.adjacency`), else None. Empty: none is known.
    flips: tuple[Optional[Flip], ...] = ()

    def cut(self, row: Row, point: Point, facet_points) -> "Cell":
        """The part of the cell where ``row`` holds, with an interior point and the facet points it keeps."""
        new = cp.float_rows([row], len(row) - 1)
        floats = None if self.floats is None or new is None else np.vstack([self.floats, new])
        return Cell(self.rows + (row,), floats, point, self.pattern, self.M, self.c, facet_points,
                    self.domain_rows)

    def with_pattern(self, pattern: tuple[int, ...], M: fmpq_mat, c: fmpq_mat) -> "Cell":
        return self.evolved(pattern=pattern, M=M, c=c)

    def evolved(self, **changes: Any) -> "Cell":
        """``dataclasses.replace`` of the cell, without its per-call introspection of the fields (a cell is
        copied a few times on its way to becoming a region, a hundred thousand times in a run)."""
        assert changes.keys() <= self.__dict__.keys()
        copy = object.__new__(Cell)
        copy.__dict__.update(self.__dict__, **changes)
        return copy

    def __reduce__(self):
        # FLINT matrices do not pickle: they travel to worker processes as integer pairs.
        return _rebuilt_cell, (self.rows, self.floats, self.point, self.pattern, _plain(self.M), _plain(self.c),
                               self.facet_points, self.domain_rows, self.vertices, self.siblings, self.centroid,
                               self.flips)


#: The affine map of a finished cell: no later layer reads it.
NO_MAP = fmpq_mat(0, 0)


def _plain(matrix: fmpq_mat) -> tuple[int, int, list[int], int]:
    """The matrix as integers: its shape, the numerators over one common denominator, and that denominator."""
    numerators, denominator = matrix.numer_denom()
    return matrix.nrows(), matrix.ncols(), [int(v) for v in numerators.entries()], int(denominator)


def _rebuilt_cell(rows, floats, point, pattern, M, c, facet_points, domain_rows, vertices, siblings, centroid,
                  flips) -> Cell:
    def matrix(n, k, numerators, denominator):
        return fmpq_mat(fmpz_mat(n, k, numerators)) / denominator
    return Cell(rows, floats, point, pattern, matrix(*M), matrix(*c), facet_points, domain_rows, vertices,
                siblings, centroid, flips)


def unboxed(cell: Cell, box: frozenset[Row]) -> Cell:
    """A final cell without the box's rows (kept only among the domain's rows): the true region. No other row of
    a final cell is a box row, as every facet off the box meets the open box."""
    keep = [i for i, row in enumerate(cell.rows) if row not in box]
    if len(keep) == len(cell.rows):
        return cell
    return cell.evolved(rows=tuple(cell.rows[i] for i in keep),
                        floats=None if cell.floats is None else cell.floats[keep],
                        facet_points=tuple(cell.facet_points[i] for i in keep),
                        domain_rows=cell.domain_rows - (len(cell.rows) - len(keep)),
                        flips=tuple(cell.flips[i] for i in keep) if cell.flips else ())


def geometry_of(cell: Cell, backend: Backend):
    """:func:`geometry` of a finished cell."""
    return geometry(cell.rows, cell.point, cell.centroid, backend)


def geometry(rows: tuple[Row, ...], point: Optional[Point], centroid: Optional[tuple[float, ...]], backend: Backend):
    """A region's ``A``, ``b`` and interior point as fractions (built when first asked for)."""
    A = tuple(tuple(Fraction(v) for v in row[:-1]) for row in rows)
    b = tuple(Fraction(row[-1]) for row in rows)
    return A, b, cp.to_fractions(point if point is not None else interior(rows, centroid, backend))


def interior(rows: tuple[Row, ...], centroid: Optional[tuple[float, ...]], backend: Backend) -> Point:
    """A point strictly inside a finished cell that has none: its ``centroid`` (doubles) when that is strictly inside
    (checked exactly), otherwise a certified program's point."""
    if centroid is not None and cp.strictly_inside(rows, point := cp.float_point(centroid)):
        return point
    found = strict_point([row[:-1] for row in rows], [row[-1] for row in rows], dim=len(rows[0]) - 1,
                         backend=backend)
    if found is None:
        raise CertificateError("a region without a point strictly inside")
    return cp.homogeneous(found)


def far_vertices(cell: Cell, box: frozenset[Row]) -> np.ndarray | None:
    """Which vertices of the cell lie on the certified box (rows ``box``), or None when none can."""
    assert cell.vertices is not None
    on_box = [i for i in range(cell.domain_rows) if cell.rows[i] in box] if box else []
    return np.any(cell.vertices.tight[:, on_box], axis=1) if on_box else None


def vertex_point(cell: Cell, box: frozenset[Row]) -> Point:
    """A point strictly inside a cell that carries its vertices, near the centroid of those off the certified
    box (a point near vertices far out would have long numbers)."""
    assert cell.vertices is not None
    far = far_vertices(cell, box)
    return cv.interior_point(cell.vertices, cell.rows,
                             np.zeros(len(cell.vertices.points), dtype=bool) if far is None else far)
