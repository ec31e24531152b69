"""Facets of the general engine's cells: the points that prove them, the rows that are facets, and which side
of a facet proves it.

Cells cut by programs remember, for their rows, points of the row's hyperplane where every other row holds
strictly (*facet points*). A split (:mod:`.cuts`) hands each facet point to the side that holds it strictly and
gives the new row the point where the segment between the two sides' interior points crosses it; rows after the
domain's that are no facets are dropped (:func:`irredundant`). Facet points are free witnesses that a later
hyperplane crosses the cell, and they prove facets for the adjacency graph without a program. Cells cut by
vertices need no point at all while they are cut: a unit's piece on a part is read off the part's sides, and the
points come from the vertices when the cells are final (:func:`with_facet_points`).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Optional

import numpy as np

from polyregions.exact.lp import Backend
from polyregions.regions import _cell_programs as cp
from polyregions.regions import _cell_vertices as cv
from polyregions.regions._cell_programs import Point, Row
from polyregions.regions._general.cells import NO_MAP, Cell, far_vertices

__all__ = ["plane_of", "proves_facet", "facet_point", "irredundant", "with_facet_points"]

_ZERO = Fraction(0)


def plane_of(row: Row) -> tuple[Row, int]:
    """The hyperplane of a primitive row, signed so that its first non-zero coefficient is positive, and the
    side (+1 or -1) the row's half-space is on."""
    return (row, 1) if proves_facet(row) else (cp.negated(row), -1)


def proves_facet(row: Row) -> bool:
    """Whether the region of a facet on ``row`` looks for the region across it: the one below the hyperplane
    (on side +1 of :func:`plane_of`).

    The regions form a polyhedral complex: the pre-activations are continuous, so on a facet's hyperplane the
    units that do not switch there take the same pieces from both sides, and the facet of the region across is
    the same set. Each facet after the domain's rows is therefore shared by exactly two regions, one on each
    side, and finding it from one side finds it all.
    """
    for v in row:
        if v:
            return v > 0
    return False


def facet_point(cell: Cell, i: int) -> Point:
    q = cell.facet_points[i]
    assert q is not None  # every facet a cell proves has its point (irredundant, with_facet_points)
    return q


def irredundant(cell: Cell, backend: Backend) -> Cell:
    """The cell without the rows after the domain's that are not facets, and with a point in every facet.

    A ray from the interior point that leaves the cell through one row alone finds a point of that facet; rays
    along the unknown rows' normals are tried first. Otherwise row i is a facet when the cell without it
    reaches beyond it (a certified program), and the segment from the interior point to such a point crosses
    the facet's relative interior; when it does not, the row is implied by the others and dropped.
    """
    points = list(cell.facet_points)
    unknown = [i for i in range(cell.domain_rows, len(points)) if points[i] is None]
    if not unknown:
        return cell
    assert cell.point is not None  # cells cut by programs always carry one
    for i in unknown:
        if points[i] is None:
            hit = cp.exit_point(cell.rows, cell.point, cell.rows[i][:-1])
            if hit is not None and len(hit[0]) == 1 and points[hit[0][0]] is None:
                points[hit[0][0]] = hit[1]
    keep = list(range(len(points)))
    for i in unknown:
        if points[i] is not None:
            continue
        others = [j for j in keep if j != i]
        floats = None if cell.floats is None else cell.floats[others]
        beyond = cp.point_beyond([cell.rows[j] for j in others], floats, cell.point, cell.rows[i], backend=backend)
        if beyond is None:
            keep = others
        else:
            points[i] = cp.toward(cell.point, beyond, cell.rows[i], _ZERO)
    return cell.evolved(rows=tuple(cell.rows[j] for j in keep),
                        floats=None if cell.floats is None else cell.floats[keep],
                        facet_points=tuple(points[j] for j in keep),
                        flips=tuple(cell.flips[j] for j in keep) if cell.flips else ())


def with_facet_points(cells: list[Cell], box: frozenset[Row] = frozenset(), flipping: bool = True) -> list[Cell]:
    """Final cells, each with a point on every facet after the domain's that it proves (:func:`proves_facet`;
    not those whose neighbours are its ``siblings`` or, when ``flipping``, read off its ``flips``), near the
    centroid of its vertices where it has none, and without its vertices, its float rows and its affine map, which
    nothing after the cuts needs (and which would be most of what worker processes send back); without its flips
    unless ``flipping``.

    On a cell that touches the certified box (rows ``box``: the region is unbounded) those points lie near
    the facets' vertices off the box, weighting those on the box very little: short numbers, and points where
    the float guesses of the adjacency work, instead of ones far out. The other cells' centroids are computed
    together (:func:`~polyregions.regions._cell_vertices.centroids`).
    """
    fars = [None if cell.vertices is None else far_vertices(cell, box) for cell in cells]
    weighted = [far is not None and bool(np.count_nonzero(far)) for far in fars]
    together = iter(cv.centroids([cell.vertices for cell, alone in zip(cells, weighted)
                                  if cell.vertices is not None and cell.point is None and not alone]))
    finished = []
    for cell, far, alone in zip(cells, fars, weighted):
        centroid = None
        if cell.vertices is not None and cell.point is None:
            centroid = cv.centroid(cell.vertices, far) if alone else next(together)
        finished.append(_with_points_on_facets(cell, far, centroid, flipping))
    return finished


def _with_points_on_facets(cell: Cell, far: np.ndarray | None, centroid: Optional[tuple[float, ...]],
                           flipping: bool) -> Cell:
    """One cell of :func:`with_facet_points`, given which of its vertices are ``far`` and its ``centroid``."""
    points = list(cell.facet_points) or [None] * len(cell.rows)
    if cell.vertices is not None:  # cells cut by programs keep a point on every facet
        flips = cell.flips if flipping else ()
        missing = [i for i in range(cell.domain_rows, len(cell.rows) - len(cell.siblings))
                   if points[i] is None and proves_facet(cell.rows[i]) and not (flips and flips[i])]
        if missing:
            for i, point in zip(missing, cv.facet_points(cell.vertices, cell.rows, missing, far=far)):
                points[i] = point
    return cell.evolved(centroid=centroid, facet_points=tuple(points), vertices=None, floats=None, M=NO_MAP,
                        c=NO_MAP, flips=cell.flips if flipping else ())
