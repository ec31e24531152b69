"""Exact convex polygons with homogeneous integer vertices: the explorer's fast path to the polygons of
:mod:`polyregions.plotting.polygons`.

A vertex is ``(X, Y, W)`` with ``W > 0`` and no common factor, the point ``(X / W, Y / W)``; a row
``a1 x + a2 y <= c`` is three integers. Clipping a window by the rows in turn is
:func:`polyregions.plotting.polygons.clip` done on Python integers: the same vertices in the same order
(the tests compare them), without a :class:`fractions.Fraction` normalised at every operation. Measured on the
2,029 regions of a ``[2, 32, 32, 1]`` network, 0.19 s instead of 0.65 s, which is what keeps an answer of the
explorer near its 100 ms.

Examples
--------
>>> square = window_vertices((0, 0), (2, 2))
>>> clip_rows(square, [integer_row((1, 1), 2)])  # below the diagonal x + y = 2
[(0, 0, 1), (2, 0, 1), (0, 2, 1)]
>>> float_vertices([(1, 2, 3)])
[[0.3333333333333333, 0.6666666666666666]]
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd, lcm
from typing import Sequence

__all__ = ["Vertex", "integer_row", "window_vertices", "clip_rows", "float_vertices"]

Vertex = tuple[int, int, int]


def integer_row(a: Sequence[Fraction | int], b: Fraction | int) -> tuple[int, int, int]:
    """The primitive integer row of ``a . x <= b`` (the same half-plane)."""
    values = (a[0], a[1], b)
    denominators = [v.denominator for v in values]
    if denominators == [1, 1, 1]:  # the usual case: a row of the mesh engine is integral already
        ints = [v.numerator for v in values]
    else:
        scale = lcm(*denominators)
        ints = [v.numerator * (scale // d) for v, d in zip(values, denominators)]
    g = gcd(*ints) or 1
    return ints[0] // g, ints[1] // g, ints[2] // g


def window_vertices(lower: Sequence[Fraction | int], upper: Sequence[Fraction | int]) -> list[Vertex]:
    """The rectangle ``lower <= x <= upper`` counter-clockwise from ``lower``, as
    :func:`polyregions.plotting.polygons.window_polygon` lists it."""
    corners = [(lower[0], lower[1]), (upper[0], lower[1]), (upper[0], upper[1]), (lower[0], upper[1])]
    out = []
    for x, y in corners:
        x, y = Fraction(x), Fraction(y)
        w = lcm(x.denominator, y.denominator)
        out.append((x.numerator * (w // x.denominator), y.numerator * (w // y.denominator), w))
    return out


def clip_rows(vertices: list[Vertex], rows: Sequence[tuple[int, int, int]]) -> list[Vertex]:
    """The part of the convex polygon ``vertices`` where every row ``a1 x + a2 y <= c`` holds (empty: [])."""
    polygon = vertices
    for a1, a2, c in rows:
        values = [a1 * X + a2 * Y - c * W for X, Y, W in polygon]
        if max(values) <= 0:
            continue
        if min(values) > 0:
            return []
        out = []
        n = len(polygon)
        for i in range(n):
            p, vp = polygon[i], values[i]
            j = i + 1 if i + 1 < n else 0
            q, vq = polygon[j], values[j]
            if vp <= 0:
                out.append(p)
            if (vp < 0 < vq) or (vq < 0 < vp):
                # where the row's value vanishes on pq: (vq p - vp q) / (vq - vp), scaled so that W > 0
                s, t = (vq, vp) if vq > 0 else (-vq, -vp)
                X, Y, W = s * p[0] - t * q[0], s * p[1] - t * q[1], s * p[2] - t * q[2]
                g = gcd(X, Y, W)
                out.append((X // g, Y // g, W // g))
            if len(out) > 1 and out[-1] == out[-2]:  # a degenerate polygon (a segment) meets a line twice
                out.pop()
        if len(out) > 1 and out[0] == out[-1]:
            out.pop()
        polygon = out
    return polygon


def float_vertices(vertices: Sequence[Vertex]) -> list[list[float]]:
    """The vertices as ``[x, y]`` floats, each correctly rounded (integer true division rounds correctly)."""
    return [[X / W, Y / W] for X, Y, W in vertices]
