"""Exact geometry of bounded polytopes ``A t <= b`` of dimension 1 or 2 (the mesh's domains): their vertices, their
bounding box, and the rows of the convex hull of exact points."""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from polyregions.exact._integers import primitive

__all__ = ["Interval", "domain_box", "polygon_vertices", "hull_rows"]

Interval = tuple[Fraction, Fraction]


def domain_box(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> list[Interval]:
    """Exact bounds of every coordinate on the bounded polytope ``A t <= b`` of dimension 1 or 2."""
    points = polygon_vertices(A, b)
    return [(min(x[i] for x in points), max(x[i] for x in points)) for i in range(len(A[0]))]


def polygon_vertices(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> list[tuple[Fraction, ...]]:
    """The vertices of the bounded polytope ``A t <= b`` of dimension 1 or 2: feasible intersections of rows."""
    points: list[tuple[Fraction, ...]] = []
    if len(A[0]) == 1:
        points = [(Fraction(bi) / a[0],) for a, bi in zip(A, b) if a[0]]
    else:
        for i in range(len(A)):
            for j in range(i + 1, len(A)):
                (p, q), (r, s) = A[i], A[j]
                det = p * s - q * r
                if det:
                    points.append((Fraction(b[i] * s - q * b[j]) / det, Fraction(p * b[j] - b[i] * r) / det))
    return sorted({x for x in points if all(sum(a * v for a, v in zip(row, x)) <= bi for row, bi in zip(A, b))})


def hull_rows(points: list[tuple[Fraction, ...]]) -> tuple[tuple[tuple[Fraction, ...], ...], tuple[Fraction, ...]]:
    """The facets ``A t <= b`` (primitive integer rows) of the convex hull of exact points in dimension 1 or 2."""
    if len(points[0]) == 1:
        low, high = min(p[0] for p in points), max(p[0] for p in points)
        return ((Fraction(1),), (Fraction(-1),)), (high, -low)
    hull = _convex_hull(sorted(set(points)))
    A, b = [], []
    for p, q in zip(hull, hull[1:] + hull[:1]):
        row = primitive((q[1] - p[1], p[0] - q[0], (q[1] - p[1]) * p[0] + (p[0] - q[0]) * p[1]))
        A.append(tuple(Fraction(v) for v in row[:-1]))
        b.append(Fraction(row[-1]))
    return tuple(A), tuple(b)


def _convex_hull(points: list[tuple[Fraction, ...]]) -> list[tuple[Fraction, ...]]:
    """The hull's vertices counter-clockwise, without collinear points (monotone chain, exact)."""
    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    upper: list = []
    for p in points:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(points):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]
