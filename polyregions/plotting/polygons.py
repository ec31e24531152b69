"""Exact convex polygons cut out of a window by half-planes: the geometry behind every 2-D picture.

A region of a network or of an arrangement is given by inequalities ``A x <= b``; its polygon is computed by
clipping a rectangular window with each row in turn, over the rationals. Every vertex is the exact
intersection of two lines, and every edge remembers the label of the line that carries it (a region's row,
a window side, or anything the caller passes), so a picture can tell facets of a region from the edges the
window made. Conversion to floating point happens only at the end, for drawing.

Examples
--------
>>> square = window_polygon((0, 0), (2, 2))
>>> triangle = clip(square, (1, 1), 2, label="diagonal")
>>> triangle.vertices
((Fraction(0, 1), Fraction(0, 1)), (Fraction(2, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(2, 1)))
>>> triangle.area(), triangle.edges
(Fraction(2, 1), (('window', 2), 'diagonal', ('window', 0)))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Hashable, Sequence

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import rational, rational_vector

if TYPE_CHECKING:
    from polyregions.regions.domains import Domain

__all__ = ["Polygon", "window_polygon", "clip", "polygon_from_inequalities", "default_window", "domain_window",
           "coordinate_names"]

_ZERO = Fraction(0)

Point = tuple[Fraction, Fraction]


@dataclass(frozen=True)
class Polygon:
    """A convex polygon with exact vertices in counter-clockwise order.

    Attributes
    ----------
    vertices : tuple of (Fraction, Fraction)
        Distinct vertices, counter-clockwise. Fewer than three when the polygon degenerated to a segment (two),
        a point (one) or nothing (none).
    edges : tuple
        ``edges[i]`` is the label of the line carrying the edge from ``vertices[i]`` to ``vertices[i + 1]``
        (cyclically).

    Examples
    --------
    >>> Polygon(((0, 0), (1, 0), (0, 1)), ("a", "b", "c")).centroid()
    (Fraction(1, 3), Fraction(1, 3))
    """

    vertices: tuple[Point, ...]
    edges: tuple[Hashable, ...]

    def __post_init__(self) -> None:
        vertices = tuple((Fraction(x), Fraction(y)) for x, y in self.vertices)
        if len(self.edges) != len(vertices):
            raise InvalidInputError(f"polygon: expected one edge label per vertex ({len(vertices)}), "
                                    f"got {len(self.edges)}")
        object.__setattr__(self, "vertices", vertices)
        object.__setattr__(self, "edges", tuple(self.edges))

    def __len__(self) -> int:
        return len(self.vertices)

    @property
    def is_empty(self) -> bool:
        """Whether nothing is left."""
        return not self.vertices

    @property
    def is_degenerate(self) -> bool:
        """Whether the polygon has no interior (fewer than three vertices)."""
        return len(self.vertices) < 3

    def area(self) -> Fraction:
        """The exact area (shoelace formula)."""
        v = self.vertices
        twice = sum((v[i][0] * v[i - len(v) + 1][1] - v[i - len(v) + 1][0] * v[i][1] for i in range(len(v))),
                    _ZERO)
        return twice / 2

    def centroid(self) -> Point:
        """The exact centroid: of the area for a proper polygon, of the vertices for a degenerate one.

        The centroid of a convex polygon lies in its interior, so it is a safe place for a label.
        """
        v = self.vertices
        if not v:
            raise InvalidInputError("polygon: expected a non-empty polygon for a centroid, got an empty one")
        area = self.area()
        if len(v) < 3 or area == 0:
            return (sum((p[0] for p in v), _ZERO) / len(v), sum((p[1] for p in v), _ZERO) / len(v))
        cx = cy = _ZERO
        for i in range(len(v)):
            (x0, y0), (x1, y1) = v[i], v[(i + 1) % len(v)]
            cross = x0 * y1 - x1 * y0
            cx += (x0 + x1) * cross
            cy += (y0 + y1) * cross
        return (cx / (6 * area), cy / (6 * area))

    def edge_segments(self, label_filter=None) -> list[tuple[Point, Point]]:
        """The edges as pairs of exact endpoints, optionally only those whose label passes ``label_filter``."""
        v = self.vertices
        if len(v) < 2:
            return []
        count = len(v) if len(v) > 2 else 1  # a segment has one edge, listed twice by the cycle
        return [(v[i], v[(i + 1) % len(v)]) for i in range(count)
                if label_filter is None or label_filter(self.edges[i])]

    def to_float(self):
        """The vertices as a float array of shape ``(len(self), 2)``, each coordinate correctly rounded."""
        import numpy as np

        return np.array([[float(x), float(y)] for x, y in self.vertices], dtype=float).reshape(-1, 2)


def window_polygon(lower: Sequence[Any], upper: Sequence[Any]) -> Polygon:
    """The rectangle ``lower <= x <= upper``; its edges are labelled ``("window", k)`` for the rows
    ``-x <= -lower_0``, ``x <= upper_0``, ``-y <= -lower_1``, ``y <= upper_1`` (``k = 0, 1, 2, 3``).

    Examples
    --------
    >>> window_polygon((0, 0), (1, 3)).area()
    Fraction(3, 1)
    """
    lo = rational_vector(lower, what="window: lower", length=2)
    hi = rational_vector(upper, what="window: upper", length=2)
    for i in range(2):
        if not lo[i] < hi[i]:
            raise InvalidInputError(f"window: upper[{i}]: expected a value above lower[{i}] = {lo[i]}, got {hi[i]}")
    vertices = ((lo[0], lo[1]), (hi[0], lo[1]), (hi[0], hi[1]), (lo[0], hi[1]))
    return Polygon(vertices, (("window", 2), ("window", 1), ("window", 3), ("window", 0)))


def clip(polygon: Polygon, a: Sequence[Any], b: Any, *, label: Hashable = None) -> Polygon:
    """The part of ``polygon`` where ``a . x <= b`` (closed half-plane), exact.

    New edges along ``a . x = b`` get ``label``. A zero ``a`` keeps everything when ``0 <= b`` and nothing
    otherwise. The result may be degenerate (a segment or a point) when the polygon only touches the line.

    Examples
    --------
    >>> clip(window_polygon((0, 0), (1, 1)), (1, 0), 0).vertices  # the left side only
    ((Fraction(0, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1)))
    """
    a0, a1 = (Fraction(v) for v in a)
    b = Fraction(b)
    v = polygon.vertices
    n = len(v)
    if n == 0:
        return polygon
    values = [a0 * x + a1 * y - b for x, y in v]
    if all(s <= 0 for s in values):
        return polygon
    if all(s > 0 for s in values):
        return Polygon((), ())
    out: list[Point] = []
    labels: list[Hashable] = []

    def emit(point: Point, edge: Hashable) -> None:
        if out and out[-1] == point:
            labels[-1] = edge
            return
        out.append(point)
        labels.append(edge)

    for i in range(n):
        j = (i + 1) % n
        vi, vj = values[i], values[j]
        if vi <= 0 and vj <= 0:
            emit(v[i], polygon.edges[i])
        elif vi <= 0 < vj:
            if vi < 0:
                emit(v[i], polygon.edges[i])
                emit(_crossing(v[i], v[j], vi, vj), label)
            else:
                emit(v[i], label)
        elif vj < 0 < vi:
            emit(_crossing(v[i], v[j], vi, vj), polygon.edges[i])
    if len(out) > 1 and out[0] == out[-1]:
        out.pop()
        labels.pop()
    return Polygon(tuple(out), tuple(labels))


def _crossing(p: Point, q: Point, vp: Fraction, vq: Fraction) -> Point:
    """The point of the segment pq where the affine function with values vp, vq vanishes."""
    s = vp / (vp - vq)
    return (p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1]))


def polygon_from_inequalities(A: Sequence[Sequence[Any]], b: Sequence[Any], *, window: Polygon,
                              labels: Sequence[Hashable] | None = None) -> Polygon:
    """The polygon ``{x in window : A x <= b}``; edges carry ``labels[i]`` (default ``("row", i)``).

    Examples
    --------
    >>> p = polygon_from_inequalities([[-1, 0], [0, -1], [1, 1]], [0, 0, 1], window=window_polygon((-5, -5), (5, 5)))
    >>> p.area(), p.edges  # from (0, 1) down the row x >= 0, along y >= 0, back along x + y <= 1
    (Fraction(1, 2), (('row', 0), ('row', 1), ('row', 2)))
    """
    polygon = window
    for i, (row, bi) in enumerate(zip(A, b)):
        if len(row) != 2:
            raise InvalidInputError(f"inequalities: A[{i}]: expected 2 numbers (a 2-D region), got {len(row)}")
        polygon = clip(polygon, row, bi, label=("row", i) if labels is None else labels[i])
        if polygon.is_empty:
            break
    return polygon


def default_window(points: Sequence[Sequence[Any]], *, margin: Any = Fraction(1, 2)) -> tuple[Point, Point]:
    """A window ``(lower, upper)`` around the points, widened by ``margin`` times its size (at least 1).

    Examples
    --------
    >>> default_window([(0, 0), (2, 1)])
    ((Fraction(-1, 1), Fraction(-1, 2)), (Fraction(3, 1), Fraction(3, 2)))
    """
    if not points:
        return ((Fraction(-1), Fraction(-1)), (Fraction(1), Fraction(1)))
    margin = rational(margin, what="margin")
    pts = [rational_vector(p, what="point", length=2) for p in points]
    lower, upper = [], []
    for k in range(2):
        lo = min(p[k] for p in pts)
        hi = max(p[k] for p in pts)
        pad = max(hi - lo, Fraction(1)) * margin
        lower.append(lo - pad)
        upper.append(hi + pad)
    return tuple(lower), tuple(upper)


def domain_window(domain: "Domain", *, points: Sequence[Sequence[Any]] = ()) -> tuple[tuple, tuple]:
    """The rectangle drawn for a 2-D domain: its box, the bounding box of a bounded polytope, or a window
    around ``points`` (for example the regions' interior points) when the domain is unbounded.

    Examples
    --------
    >>> from polyregions.regions.domains import box
    >>> domain_window(box([0, -1], [1, 1]))
    ((Fraction(0, 1), Fraction(-1, 1)), (Fraction(1, 1), Fraction(1, 1)))
    """
    if domain.lower is not None and domain.upper is not None:
        return tuple(domain.lower), tuple(domain.upper)
    if domain.is_bounded():
        vertices = domain.region.vertices()
        return (tuple(min(v[k] for v in vertices) for k in range(2)),
                tuple(max(v[k] for v in vertices) for k in range(2)))
    return default_window(list(points))


def coordinate_names(domain: Any) -> tuple[str, str]:
    """The names of a 2-D domain's coordinates: the input's ``x1, x2`` on a box, polytope or the whole space,
    a slice's parameters ``t1, t2`` otherwise; every picture of regions labels its axes so."""
    return ("x1", "x2") if domain is None or domain.kind in ("box", "polytope", "space") else ("t1", "t2")
