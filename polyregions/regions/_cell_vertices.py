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

import itertools
import math
import operator
from dataclasses import dataclass
from typing import Sequence

import numpy as np

from polyregions.exact._integer_dots import dot_error_bound, scaled_floats
from polyregions.polyhedra.vertex_enumeration import enumerate_vertices
from polyregions.regions._cell_programs import Point, Row, float_point, homogeneous, value

__all__ = ["CellVertices", "Later", "cell_vertices", "vertex_signs", "row_signs", "row_floats", "cut", "facet_points",
           "interior_point", "centroid", "centroids", "near_centroid"]


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
    if np.count_nonzero(unproved):
        for v, r in zip(*unproved.nonzero()):
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
    # The cells are small (tens of vertices and edges): numpy's cost per call, not per entry, is what counts, so
    # both parts are selections of one set of arrays, and the shortest lists are walked in plain Python.
    edges, tight, n = cell.edges, cell.tight, len(cell.points)
    below, above = _crossed(edges, signs)
    new_points, new_floats, new_signs = _crossing_vertices(cell.points, row, below, above, later,
                                                           crossings if crossings is not None else Crossings())
    added, m = len(new_points), tight.shape[1]
    # The cell's vertices then the new ones, with the cell's rows then the cutting row. A new vertex, inside an
    # edge, is tight exactly where both its ends are.
    every_tight = np.empty((n + added, m + 1), dtype=bool)
    every_tight[:n, :m] = tight
    np.equal(signs, 0, out=every_tight[:n, m])
    if added:
        ends = tight[below + above]
        np.logical_and(ends[:added], ends[added:], out=every_tight[n:, :m])
        every_tight[n:, m] = True
    every_floats = np.concatenate((cell.floats, new_floats)) if added else cell.floats
    every_point = cell.points + new_points if added else cell.points
    # Row 0 for the part below, row 1 above: the vertices each keeps, and its columns of ``every_tight``: the
    # rows that stay its facets (tight at one of its vertices off the hyperplane), then the cutting row.
    kept = np.empty((2, n + added), dtype=bool)
    np.not_equal(signs, _OPPOSITE_SIDES, out=kept[:, :n])
    kept[:, n:] = True
    columns = np.empty((2, m + 1), dtype=bool)
    np.matmul(signs == _SIDES, tight, out=columns[:, :m])
    columns[:, m] = True
    every_later, edges_wanted = None, [True, True]
    if later is not None:
        every_later = np.concatenate((later.signs, new_signs)) if added else later.signs
        if later.last:  # a part gets edges only when one of the later hyperplanes crosses it
            crossed = (kept @ (every_later < 0)) & (kept @ (every_later > 0))
            edges_wanted = np.logical_or.reduce(crossed, axis=1).tolist()
    if edges_wanted[0] or edges_wanted[1]:
        # The edges inside the hyperplane are those of the face where it meets the cell, a facet of both parts:
        # found once, on the cell's rows and the cutting row. Every one of those rows holds on each part (the
        # part's facets among them), so the face of a part spanned by two vertices on the hyperplane is where
        # the rows tight at both hold with equality; the vertices of ``every_tight`` tight there are tight at
        # the cutting row, so they are vertices of both parts, and the exact test of :func:`_edges_among` counts
        # them right. (A vertex on the hyperplane tight at rows that are facets of one part only is tight at
        # more than k rows: it proves no edge by the count, and the exact test decides.)
        among = _edges_among(every_tight[:, m].nonzero()[0], every_tight, k)
        joins = np.empty((added, 3), dtype=np.int64)  # a new vertex and the ends of its edge, below and above
        joins[:, 0] = np.arange(n, n + added)
        joins[:, 1] = below
        joins[:, 2] = above
        at = signs[edges]
        ends_sum = at[:, 0] + at[:, 1]  # < 0 on the edges of the part below off the hyperplane, > 0 above
    kept_lists = kept.tolist()
    parts = []
    for s in (0, 1):
        keep = kept[s]
        points = tuple(itertools.compress(every_point, kept_lists[s]))
        if edges_wanted[s]:
            staying = edges.compress(ends_sum < 0 if s == 0 else ends_sum > 0, axis=0)
            position = np.empty(n + added, dtype=np.int64)  # of each of every vertex that the part keeps, in it
            position[keep] = np.arange(len(points))
            part_edges = position[np.concatenate((staying, joins[:, :2] if s == 0 else joins[:, ::2], among))]
        else:
            part_edges = _NO_EDGES
        part = CellVertices(points, every_floats.compress(keep, axis=0),
                            every_tight.compress(keep, axis=0).compress(columns[s], axis=1), part_edges)
        part_later = (None if later is None or every_later is None
                      else Later(later.rows, later.floats, every_later.compress(keep, axis=0), later.last))
        parts.append((part, columns[s, :m], part_later))
    return parts


_SIDES = np.array([[-1], [1]], dtype=np.int8)  # below, above
_OPPOSITE_SIDES = -_SIDES
_NO_EDGES = np.empty((0, 2), dtype=np.int64)
_NO_EDGES.flags.writeable = False


def _crossed(edges: np.ndarray, signs: np.ndarray) -> tuple[list[int], list[int]]:
    """The ends below and above of the edges whose ends have opposite signs, in the edges' order."""
    if len(edges) > 80:  # numpy's cost per call pays off on long lists only
        at = signs[edges]
        difference = at[:, 0] - at[:, 1]
        crossing = np.abs(difference) == 2
        ends = edges[crossing]
        swapped = difference[crossing] > 0
        return np.where(swapped, ends[:, 1], ends[:, 0]).tolist(), np.where(swapped, ends[:, 0], ends[:, 1]).tolist()
    below, above = [], []
    values = signs.tolist()
    for u, v in edges.tolist():
        difference = values[u] - values[v]
        if difference == -2:
            below.append(u)
            above.append(v)
        elif difference == 2:
            below.append(v)
            above.append(u)
    return below, above


def _crossing_vertices(points: tuple[Point, ...], row: Row, below: list[int], above: list[int], later: Later | None,
                       shared: Crossings) -> tuple[tuple[Point, ...], np.ndarray, np.ndarray]:
    """The vertices where the hyperplane of ``row`` crosses the edges ``(below[t], above[t])`` strictly, with their
    float rows and their signs at the ``later`` hyperplanes (none without), from ``shared`` where it has them."""
    cache, values = shared.edges, shared.values
    twice_c = 2 * row[-1]
    known: list[tuple[Point, Point, Point, np.ndarray, np.ndarray | None] | None] = []
    fresh: list[tuple[int, tuple[int, int], Point, Point]] = []
    made: list[Point] = []
    for u, v in zip(below, above):
        low_point, high_point = points[u], points[v]
        key = (id(low_point), id(high_point))
        hit = cache.get(key)
        if hit is None:
            low = values.get(key[0])
            if low is None:  # value(row, low_point), inline: this loop makes every vertex of the run
                low = values[key[0]] = (low_point, sum(map(operator.mul, row, low_point)) - twice_c * low_point[-1])
            high = values.get(key[1])
            if high is None:
                high = values[key[1]] = (high_point, sum(map(operator.mul, row, high_point)) - twice_c * high_point[-1])
            # The values at the ends have opposite signs: this positive combination of the ends has value 0.
            h, g = high[1], -low[1]
            combined = [h * p + g * q for p, q in zip(low_point, high_point)]
            divisor = math.gcd(*combined)
            made.append(tuple(combined) if divisor == 1 else tuple([x // divisor for x in combined]))
            fresh.append((len(known), key, low_point, high_point))
        known.append(hit)
    later_count = 0 if later is None else len(later.rows)
    if made:
        made_floats = scaled_floats(made)
        made_signs = _signs(made, made_floats, later.rows, later.floats) if later is not None and later_count else None
        for (t, key, low_point, high_point), point, point_floats, point_signs in zip(
                fresh, made, made_floats, made_signs if made_signs is not None else [None] * len(made)):
            known[t] = cache[key] = (low_point, high_point, point, point_floats, point_signs)
        if len(made) == len(known):
            return (tuple(made), made_floats,
                    made_signs if made_signs is not None else np.empty((len(made), later_count), dtype=np.int8))
    if not known:  # a cut through vertices alone (no edge crossed strictly) adds no vertex
        return (), np.empty((0, len(points[0]))), np.empty((0, later_count), dtype=np.int8)
    entries = [entry for entry in known if entry is not None]  # all of them by now
    return (tuple([entry[2] for entry in entries]), np.array([entry[3] for entry in entries]),
            np.array([entry[4] for entry in entries]) if later_count else np.empty((len(entries), 0), dtype=np.int8))


def _edges_among(ids: np.ndarray, tight: np.ndarray, k: int) -> np.ndarray:
    """The edges among the vertices ``ids`` of a polytope in ``R^k``: the smallest face holding both ends has no
    other vertex (exact, on exact tight sets); a vertex tight at exactly ``k`` rows proves it by the count alone.

    ``tight`` tells which of some valid inequalities of the polytope, every facet among them, hold with equality
    at each of its rows: the polytope's vertices, and possibly other points, provided none of those is tight at
    every inequality that two vertices of ``ids`` share (they would be counted in the exact test).
    """
    if len(ids) < 2:
        return np.empty((0, 2), dtype=np.int64)
    members = tight[ids].astype(np.float32)  # counts below 2^24 are exact in float32, whose product is BLAS's
    common = members @ members.T
    i, j = (common >= k - 1).nonzero()
    upper = i < j
    i, j = i[upper], j[upper]
    simple = common.diagonal() == k  # the vertices tight at exactly k rows
    proven = simple[i] | simple[j]
    if np.count_nonzero(proven) < len(proven):
        for t in (~proven).nonzero()[0].tolist():
            shared = tight[ids[i[t]]] & tight[ids[j[t]]]
            proven[t] = np.count_nonzero(tight[:, shared].all(axis=1)) == 2
        i, j = i[proven], j[proven]
    edges = np.empty((len(i), 2), dtype=np.int64)
    edges[:, 0] = ids[i]
    edges[:, 1] = ids[j]
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
    mean = centroid(cell, far)
    candidate = None if mean is None else float_point(mean)
    if candidate is not None and (_signs([candidate], scaled_floats([candidate]), rows) < 0).all():
        return candidate
    return near_centroid(list(cell.points), far.tolist())


def centroid(cell: CellVertices, far: np.ndarray | None) -> tuple[float, ...] | None:
    """The centroid of the cell's vertices in doubles, weighting the ``far`` ones (a boolean per vertex) very
    little as :func:`near_centroid` does (None when it leaves the double range). It is near the middle of the
    cell but rounded, so not always strictly inside; exact as ``float_point`` reads it."""
    if far is None or not np.count_nonzero(far):
        return centroids([cell])[0]
    k = cell.floats.shape[1] - 1
    with np.errstate(all="ignore"):
        coordinates = cell.floats[:, :k] / cell.floats[:, k:]  # the scaling by powers of two cancels
        weights = _weights(coordinates, far)
        mean = (weights @ coordinates / weights.sum()).tolist()
    return tuple(mean) if all(map(math.isfinite, mean)) else None


def centroids(cells: Sequence[CellVertices]) -> list[tuple[float, ...] | None]:
    """:func:`centroid` of many cells with no far vertices, in one pass over all their vertices: a cell has a few
    tens, so numpy's cost per call would be most of the work one cell at a time."""
    if not cells:
        return []
    sizes = [len(cell.points) for cell in cells]
    floats = np.concatenate([cell.floats for cell in cells])
    k = floats.shape[1] - 1
    with np.errstate(all="ignore"):
        coordinates = floats[:, :k] / floats[:, k:]  # the scaling by powers of two cancels
        starts = np.cumsum([0, *sizes[:-1]])
        means = np.add.reduceat(coordinates, starts, axis=0) / np.array(sizes, dtype=float)[:, None]
    return [tuple(mean) if all(map(math.isfinite, mean)) else None for mean in means.tolist()]


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
