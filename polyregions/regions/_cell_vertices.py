"""The vertices and edges of a bounded cell, and exact cuts of it by hyperplanes.

A bounded full-dimensional cell ``{x : a . x <= c for every row}`` (primitive integer rows, as in
:mod:`polyregions.regions._cell_programs`) is carried with its vertices (homogeneous primitive integers ``(X, w)``,
``w > 0``), the rows tight at each vertex, and its edges. A hyperplane meets the cell's interior exactly when
vertices lie strictly on both of its sides, so layerwise refinement needs no linear program: the signs decide,
through the float filter of :mod:`polyregions.polyhedra.vertex_enumeration` (a proven error bound, exact integers where
it proves nothing). A cut is one step of the double description method done for both sides at once: new
vertices where edges cross, new edges inside the hyperplane found by the exact combinatorial test. A row stays a
facet of a side exactly when one of its vertices lies strictly on that side, so redundancy needs no program
either. Points strictly inside a cell or its facets come from its vertices; when some vertices are far (corners
of the certified box of an unbounded domain), from a positive combination that weights them very little.
"""

from __future__ import annotations

import math
import operator
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from polyregions.exact._integer_dots import dot_error_bound, scaled_floats
from polyregions.polyhedra.vertex_enumeration import enumerate_vertices
from polyregions.regions._cell_programs import Point, Row, float_point, homogeneous, value

__all__ = ["CellVertices", "Later", "cell_vertices", "vertex_signs", "row_signs", "row_floats", "cut", "facet_points",
           "interior_point", "centroid", "near_centroid"]


@dataclass(frozen=True, eq=False)
class CellVertices:
    """The vertices of a bounded cell with ``m`` rows in ``R^k``.

    Attributes
    ----------
    points : tuple of Point
        The vertices, homogeneous primitive integers ``(X_1, ..., X_k, w)`` with ``w > 0``.
    floats : numpy.ndarray
        ``scaled_floats(points)``: the float filter's copies.
    tight : numpy.ndarray
        Boolean, ``len(points) x m``: ``tight[v, i]`` when row ``i`` holds with equality at vertex ``v``.
    edges : numpy.ndarray
        Integer, ``(number of edges) x 2``: pairs of vertex indices (none on a part that :func:`cut` was told
        is cut no more).
    """

    points: tuple[Point, ...]
    floats: np.ndarray
    tight: np.ndarray
    edges: np.ndarray


def cell_vertices(rows: Sequence[Row], k: int, *, limit: int) -> CellVertices | None:
    """The vertices of the cell of irredundant ``rows`` in ``R^k``, or None when it is unbounded or has more
    than ``limit`` vertices.

    >>> square = [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)]
    >>> cell = cell_vertices(square, 2, limit=100)
    >>> len(cell.points), len(cell.edges)
    (4, 4)
    """
    found = enumerate_vertices([row[:-1] for row in rows], [row[-1] for row in rows], dim=k)
    if found.rays or found.lines or not found.points or len(found.points) > limit:
        return None
    points = tuple(homogeneous(p) for p in found.points)
    tight = np.zeros((len(points), len(rows)), dtype=bool)
    for v, on in enumerate(found.point_rows):
        tight[v, sorted(on)] = True
    return CellVertices(points, scaled_floats(points), tight, _edges_among(np.arange(len(points)), tight, k))


def vertex_signs(cell: CellVertices, row: Row, row_floats: np.ndarray | None = None) -> np.ndarray:
    """The exact sign of ``a . x - c`` at every vertex (int8: -1, 0 or 1); ``row_floats``, when given, is
    :func:`row_floats` of ``[row]``."""
    return _signs(cell.points, cell.floats, [row], row_floats)[:, 0]


def row_signs(cell: CellVertices, rows: Sequence[Row], floats: np.ndarray | None = None) -> np.ndarray:
    """The exact signs of ``a . x - c`` for every vertex and row (vertices x rows, int8: -1, 0 or 1);
    ``floats``, when given, is :func:`row_floats` of ``rows``."""
    return _signs(cell.points, cell.floats, rows, floats)


def row_floats(rows: Sequence[Row]) -> np.ndarray:
    """The float filter's copies of the rows, for the signs of many cells' vertices."""
    return scaled_floats([row[:-1] + (-row[-1],) for row in rows])  # their dot products with points are value()


def _signs(points: Sequence[Point], floats: np.ndarray, rows: Sequence[Row], rows_floats: np.ndarray | None = None,
           known: np.ndarray | None = None) -> np.ndarray:
    """The exact signs of ``value(row, point)`` (points x rows, int8), from ``floats = scaled_floats(points)``
    and ``rows_floats = row_floats(rows)`` where the float filter proves them, exactly elsewhere but where
    ``known`` (points x rows, boolean) is set: there the caller needs no sign."""
    k = len(rows[0]) - 1
    values = floats @ (row_floats(rows) if rows_floats is None else rows_floats).T
    signs = np.sign(values).astype(np.int8)
    unproved = np.abs(values) <= dot_error_bound(k + 1)
    if known is not None:
        unproved &= ~known
    for v, r in zip(*np.nonzero(unproved)):
        exact = value(rows[r], points[v])
        signs[v, r] = (exact > 0) - (exact < 0)
    return signs


@dataclass(frozen=True, eq=False)
class Later:
    """The hyperplanes a cell is still to be cut by, for :func:`cut`: their ``rows``, ``floats``
    (:func:`row_floats`) and the exact ``signs`` of the cell's vertices at them (vertices x rows); ``last`` when
    nothing else will cut it."""

    rows: Sequence[Row]
    floats: np.ndarray
    signs: np.ndarray
    last: bool


class Crossings:
    """What the cuts of several cells by one hyperplane (with the same ``later``) compute once, by the identities
    of point objects (each entry keeps its points alive, so that their identities are not reused): ``edges``, by
    an edge's two ends (below, above), the ends, the new vertex, its float row and its signs at the later
    hyperplanes; ``values``, by a vertex, the vertex and the exact value of the hyperplane's row there."""

    __slots__ = ("edges", "values")

    def __init__(self) -> None:
        self.edges: dict[tuple[int, int], tuple[Point, Point, Point, np.ndarray, np.ndarray | None]] = {}
        self.values: dict[int, tuple[Point, int]] = {}


def cut(cell: CellVertices, row: Row, signs: np.ndarray, k: int, later: Later | None = None,
        crossings: Crossings | None = None) -> list[tuple[CellVertices, np.ndarray, Later | None]]:
    """The parts of the cell below (``a . x <= c``) and above the hyperplane of ``row``, whose vertices lie
    strictly on both sides (``signs`` from :func:`vertex_signs`).

    Each part comes with a boolean mask of the cell's rows that are still facets of it; its rows are those,
    in order, followed by the cutting row (``row`` below, its negation above). With ``later``, the part comes
    with its own (the signs of its vertices at the same hyperplanes), and when those are the ``last`` to cut
    and none of them crosses the part, it gets no edges: nothing will cut it.

    ``crossings``, shared by the cuts of several cells by the same hyperplane (and the same ``later``), computes
    the vertex where it crosses an edge once: cells that share vertices (parts of one cell share the point
    objects of the vertices they have in common) have edges in common, in more than one cell in dimension 3 up.
    """
    ends = cell.edges[signs[cell.edges[:, 0]] * signs[cell.edges[:, 1]] < 0]
    ends = np.where((signs[ends[:, 0]] < 0)[:, None], ends, ends[:, ::-1])  # (below, above) per crossing edge
    points = cell.points
    pairs = ends.tolist()
    shared = crossings if crossings is not None else Crossings()
    ids = list(map(id, points))
    keys = [(ids[u], ids[v]) for u, v in pairs]
    known = list(map(shared.edges.get, keys))
    fresh = [t for t, hit in enumerate(known) if hit is None]
    if fresh:
        values = {}
        for v in {v for t in fresh for v in pairs[t]}:
            found = shared.values.get(ids[v])
            if found is None:
                found = shared.values[ids[v]] = (points[v], value(row, points[v]))
            values[v] = found[1]
        made = []
        for t in fresh:
            u, v = pairs[t]
            below, above = values[u], values[v]
            # above > 0 > below: the positive combination above * u - below * v lies on the hyperplane.
            combined = [above * p - below * q for p, q in zip(points[u], points[v])]
            divisor = math.gcd(*combined)
            made.append(tuple([x // divisor for x in combined]))
        made_floats = scaled_floats(made)
        made_signs = (_signs(made, made_floats, later.rows, later.floats) if later is not None and later.rows
                      else None)
        for position, t in enumerate(fresh):
            u, v = pairs[t]
            crossing = (points[u], points[v], made[position], made_floats[position],
                        None if made_signs is None else made_signs[position])
            known[t] = shared.edges[keys[t]] = crossing
    new_points = [hit[2] for hit in known if hit is not None]
    new_tight = cell.tight[ends[:, 0]] & cell.tight[ends[:, 1]]
    # A cut through vertices alone (no edge crossed strictly) adds no vertex.
    new_floats = np.array([hit[3] for hit in known if hit is not None]) if new_points else np.empty((0, k + 1))
    if later is not None:
        new_signs = (np.array([hit[4] for hit in known if hit is not None]) if new_points and later.rows
                     else np.empty((len(new_points), len(later.rows)), dtype=np.int8))
    on_plane = signs == 0
    parts = []
    for side, column in ((-1, 0), (1, 1)):
        kept = signs * side >= 0
        part_later, edges = None, True
        if later is not None:
            part_later = Later(later.rows, later.floats, np.concatenate([later.signs[kept], new_signs]), later.last)
            edges = not later.last or bool(((part_later.signs < 0).any(axis=0)
                                            & (part_later.signs > 0).any(axis=0)).any())
        facets = cell.tight[signs == side].any(axis=0)
        part = _part(cell, kept, on_plane, facets, new_points, new_floats, new_tight[:, facets], ends[:, column], k,
                     edges)
        parts.append((part, facets, part_later))
    return parts


def _part(cell: CellVertices, kept: np.ndarray, on_plane: np.ndarray, facets: np.ndarray, new_points: list[Point],
          new_floats: np.ndarray, new_tight: np.ndarray, new_ends: np.ndarray, k: int, edges: bool) -> CellVertices:
    """One side of a cut: the cell's vertices ``kept`` and the new ones, with the rows ``facets`` and the
    cutting row last, and its edges only when ``edges`` (it is cut no more otherwise)."""
    old = np.flatnonzero(kept)
    count, added = len(old), len(new_points)
    tight = np.empty((count + added, new_tight.shape[1] + 1), dtype=bool)
    tight[:count, :-1] = cell.tight[old][:, facets]
    tight[:count, -1] = on_plane[old]
    tight[count:, :-1] = new_tight
    tight[count:, -1] = True
    floats = np.empty((count + added, cell.floats.shape[1]))
    floats[:count] = cell.floats[old]
    floats[count:] = new_floats
    points = tuple([*map(cell.points.__getitem__, old.tolist()), *new_points])
    if not edges:
        return CellVertices(points, floats, tight, np.empty((0, 2), dtype=np.int64))
    position = np.full(len(cell.points), -1)
    position[old] = np.arange(count)
    fresh = count + np.arange(added)
    # Old edges stay edges; those inside the hyperplane are found again below with the new ones there.
    first, second = cell.edges[:, 0], cell.edges[:, 1]
    staying = position[cell.edges[kept[first] & kept[second] & ~(on_plane[first] & on_plane[second])]]
    inside = np.concatenate([np.flatnonzero(on_plane[old]), fresh])
    among = _edges_among(inside, tight, k)
    found = np.empty((len(staying) + added + len(among), 2), dtype=np.int64)
    found[:len(staying)] = staying
    found[len(staying):len(staying) + added, 0] = fresh
    found[len(staying):len(staying) + added, 1] = position[new_ends]
    found[len(staying) + added:] = among
    return CellVertices(points, floats, tight, found)


def _edges_among(ids: np.ndarray, tight: np.ndarray, k: int) -> np.ndarray:
    """The edges of the cell among the vertices ``ids``: the smallest face holding both ends has no other
    vertex (exact, on exact tight sets); a vertex tight at exactly ``k`` rows proves it by the count alone."""
    if len(ids) < 2:
        return np.empty((0, 2), dtype=np.int64)
    members = tight[ids].astype(np.float32)  # counts below 2^24 are exact in float32, whose product is BLAS's
    common = members @ members.T
    i, j = np.nonzero(common >= k - 1)
    upper = i < j
    i, j = i[upper], j[upper]
    counts = members.sum(axis=1)
    proven = (counts[i] == k) | (counts[j] == k)
    for t in np.flatnonzero(~proven).tolist():
        shared = tight[ids[i[t]]] & tight[ids[j[t]]]
        proven[t] = np.count_nonzero(tight[:, shared].all(axis=1)) == 2
    edges = np.empty((np.count_nonzero(proven), 2), dtype=np.int64)
    edges[:, 0] = ids[i[proven]]
    edges[:, 1] = ids[j[proven]]
    return edges


def facet_points(cell: CellVertices, rows: Sequence[Row], wanted: Sequence[int], *,
                 far: np.ndarray | None = None) -> list[Point]:
    """Points of the relative interiors of the facets of ``rows[i]`` for ``i`` in ``wanted``.

    Each is the centroid of the facet's vertices rounded to doubles and moved along one axis onto the facet's
    hyperplane when that point is strictly inside every other row (short numbers, checked exactly), otherwise
    the exact centroid. With ``far`` (a boolean per vertex), the centroids are :func:`near_centroid`'s, which
    weight the ``far`` vertices very little.
    """
    k = len(rows[0]) - 1
    with np.errstate(all="ignore"):
        coordinates = cell.floats[:, :k] / cell.floats[:, k:]  # the scaling by powers of two cancels
        members = cell.tight[:, wanted].T * _weights(coordinates, far)
        means = (members @ coordinates) / members.sum(axis=1)[:, None]
    near = _on_planes(means, [rows[i] for i in wanted])
    # On its own row by construction; kept when strictly inside every other row, else the centroid is taken.
    good = [t for t, point in enumerate(near) if point is not None]
    ok = np.zeros(len(near), dtype=bool)
    if good:
        candidates = [point for point in near if point is not None]
        own = np.arange(len(rows)) == np.array(wanted)[good][:, None]  # zero: on its own row
        ok[good] = ((_signs(candidates, scaled_floats(candidates), rows, known=own) < 0) | own).all(axis=1)
    found = []
    for i, point, fine in zip(wanted, near, ok.tolist()):
        if not fine or point is None:
            on = np.flatnonzero(cell.tight[:, i]).tolist()
            facet = [cell.points[v] for v in on]
            point = _centroid(facet) if far is None else near_centroid(facet, far[on].tolist())
        found.append(point)
    return found


def interior_point(cell: CellVertices, rows: Sequence[Row], far: np.ndarray) -> Point:
    """A point strictly inside the cell of ``rows`` near the centroid of its vertices that are not ``far`` (a
    boolean per vertex): :func:`near_centroid` of every vertex, or a point of doubles near it when that is
    strictly inside (checked exactly).

    >>> square = [(1, 0, 100), (-1, 0, 100), (0, 1, 1), (0, -1, 1)]
    >>> cell = cell_vertices(square, 2, limit=100)
    >>> far = np.array([p[0] == 100 * p[-1] for p in cell.points])  # the vertices on x = 100
    >>> point = interior_point(cell, square, far)
    >>> -100 < point[0] / point[-1] < -98 and point[1] == 0
    True
    """
    candidate = centroid(cell, far)
    if candidate is not None and (_signs([candidate], scaled_floats([candidate]), rows) < 0).all():
        return candidate
    return near_centroid(list(cell.points), far.tolist())


def centroid(cell: CellVertices, far: np.ndarray | None) -> Point | None:
    """The centroid of the cell's vertices in doubles, weighting the ``far`` ones (a boolean per vertex) very
    little as :func:`near_centroid` does, as an exact point (None when it leaves the double range). It is near
    the middle of the cell but rounded, so not always strictly inside."""
    k = cell.floats.shape[1] - 1
    with np.errstate(all="ignore"):
        coordinates = cell.floats[:, :k] / cell.floats[:, k:]  # the scaling by powers of two cancels
        weights = _weights(coordinates, far)
        mean = weights @ coordinates / weights.sum()
    return float_point(mean.tolist()) if np.isfinite(mean).all() else None


def _weights(coordinates: np.ndarray, far: np.ndarray | None) -> np.ndarray:
    """Float weights of the vertices for the centroids of :func:`near_centroid`: 1, and for the ``far`` ones a
    power of two below one over their largest coordinate."""
    weights = np.ones(len(coordinates))
    if far is not None and far.any():
        largest = np.abs(coordinates[far]).max()
        weights[far] = 2.0 ** -(math.frexp(largest)[1] + 1) if np.isfinite(largest) and largest > 0 else 1.0
    return weights


def near_centroid(points: Sequence[Point], far: Sequence[bool]) -> Point:
    """A combination of ``points`` with positive weights (so a point of the relative interior of their convex
    hull), the ``far`` ones weighted so little that it lies within about one unit of the others' centroid.

    >>> point = near_centroid([(0, 0, 1), (2, 0, 1), (2 ** 100, 2 ** 100, 1)], [False, False, True])
    >>> [float(v / point[-1]) for v in point[:-1]]
    [1.5, 0.5]
    """
    near = [p for p, f in zip(points, far) if not f]
    distant = [p for p, f in zip(points, far) if f]
    if not near or not distant:
        return _centroid(list(points))
    center, pull = _centroid(near), _centroid(distant)
    # The weight 2^-s of the far centroid moves the point by less than its size over 2^s: at most about 1.
    s = max(1, max(abs(v).bit_length() for v in pull[:-1]) - pull[-1].bit_length() + 1)
    point = [((1 << s) - 1) * x * pull[-1] + y * center[-1] for x, y in zip(center[:-1], pull[:-1])]
    point.append((1 << s) * center[-1] * pull[-1])
    divisor = math.gcd(*point)
    return tuple(v // divisor for v in point)


def _on_planes(means: np.ndarray, rows: Sequence[Row]) -> list[Point | None]:
    """For each mean (a row of doubles) and row: a point near the mean on the row's hyperplane (None where the
    mean is not finite). The means are rounded to a grid of powers of two as fine as doubles at their largest
    coordinate, and each point's coordinate along its row's largest coefficient is solved exactly."""
    found: list[Point | None] = [None] * len(means)
    finite = np.flatnonzero(np.isfinite(means).all(axis=1))
    if not finite.size:
        return found
    largest = float(np.abs(means[finite]).max())
    p = 52 - math.frexp(largest)[1]  # every grid coordinate below 2^52 in absolute value: exact in int64
    grid = np.rint(np.ldexp(means[finite], p)).astype(np.int64).tolist()
    w, shift = (1 << p, 0) if p >= 0 else (1, -p)
    for t, x in zip(finite.tolist(), grid):
        if shift:
            x = [v << shift for v in x]
        row = rows[t]
        a = row[:-1]
        magnitudes = list(map(abs, a))
        j = magnitudes.index(max(magnitudes))
        aj = a[j] if a[j] > 0 else -a[j]  # the point's last entry a_j w must be positive
        sign = 1 if a[j] > 0 else -1
        point = [aj * v for v in x]
        point[j] = sign * (row[-1] * w - sum(map(operator.mul, a, x)) + a[j] * x[j])  # a . X = c w
        point.append(aj * w)
        divisor = math.gcd(*point)
        found[t] = tuple([v // divisor for v in point])
    return found


def _centroid(points: list[Point]) -> Point:
    scale = math.lcm(*(p[-1] for p in points))
    centroid = [sum(p[j] * (scale // p[-1]) for p in points) for j in range(len(points[0]) - 1)]
    centroid.append(scale * len(points))
    divisor = math.gcd(*centroid)
    return tuple(x // divisor for x in centroid)
