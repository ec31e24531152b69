"""Quick pictures for notebooks: regions drawn from floating-point polygons, never clipped over the rationals.

:func:`polyregions.plotting.plot_regions` computes every polygon exactly, which a figure for a paper can afford
(a few seconds for thousands of regions) and a notebook display cannot: Jupyter draws every object it shows. Here
each region's inequalities (as the engine stored them, already exact) are rounded once to doubles and the window
is clipped by them in floating point; a vertex is off by a few ulps at most, far below a pixel. Nothing exact
is decided from these polygons: they are for the eye only.

Examples
--------
>>> float_clip([(0.0, 0.0), (2.0, 0.0), (2.0, 2.0), (0.0, 2.0)], [(1.0, 1.0, 2.0)])
[(0.0, 0.0), (2.0, 0.0), (0.0, 2.0)]
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable, Sequence

from polyregions.plotting.polygons import coordinate_names, domain_window

if TYPE_CHECKING:
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.region import Region

__all__ = ["float_clip", "float_polygons", "draw_complex", "draw_region"]

FloatPoint = tuple[float, float]


def float_clip(polygon: list[FloatPoint], rows: Iterable[tuple[float, float, float]]) -> list[FloatPoint]:
    """The part of the convex ``polygon`` where ``a0 x + a1 y <= c`` for every row, in floating point.

    A vertex within a relative ``1e-12`` of a line counts as on it, so that a region's own facets do not leave
    slivers; the result may have fewer than three vertices (nothing to draw).
    """
    for a0, a1, c in rows:
        scale = abs(a0) + abs(a1) + abs(c) or 1.0
        values = [(a0 * x + a1 * y - c) / scale for x, y in polygon]
        if max(values, default=0.0) <= 1e-12:
            continue
        if min(values, default=1.0) > -1e-12:
            return []
        out = []
        n = len(polygon)
        for i in range(n):
            p, vp = polygon[i], values[i]
            q, vq = polygon[(i + 1) % n], values[(i + 1) % n]
            if vp <= 1e-12:
                out.append(p)
            if (vp < -1e-12 < 1e-12 < vq) or (vq < -1e-12 < 1e-12 < vp):
                s = vp / (vp - vq)
                out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
        polygon = out
    return polygon


def _float_rows(A: Sequence[Sequence[Any]], b: Sequence[Any]) -> list[tuple[float, float, float]]:
    return [(float(row[0]), float(row[1]), float(bi)) for row, bi in zip(A, b)]


def _window_corners(window: tuple) -> list[FloatPoint]:
    (x0, y0), (x1, y1) = ((float(v) for v in corner) for corner in window)
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def float_polygons(complex_: "RegionComplex", window: tuple) -> list[Any]:
    """Every region's polygon in ``window`` (domain coordinates), in floating point, in region order (an array
    of vertices, or an empty list for a region with nothing to draw).

    On a bounded domain the engines list a region's rows in the order of its edges around it (the mesh engine
    writes one row per edge, in cycle order), so the vertices are the crossings of consecutive rows: computed for
    all regions at once, and kept for a region when every vertex satisfies every row of its region. A region
    whose rows are in another order, redundant or parallel fails that check and is clipped row by row instead.
    """
    import numpy as np

    domain = complex_.domain
    base = float_clip(_window_corners(window), _float_rows(domain.region.A, domain.region.b))
    regions = complex_.regions
    if not domain.is_bounded():
        return [float_clip(base, _float_rows(r.A, r.b)) for r in regions]
    counts = np.array([len(r.b) for r in regions], dtype=np.int64)
    rows = np.array([(float(a[0]), float(a[1]), float(bi)) for r in regions for a, bi in zip(r.A, r.b)],
                    dtype=float).reshape(-1, 3)
    vertices, good = _consecutive_crossings(rows, counts)
    ends = np.cumsum(counts)
    out: list[Any] = []
    for i, region in enumerate(regions):
        if good[i]:
            out.append(vertices[ends[i] - counts[i]:ends[i]])
        else:
            out.append(float_clip(base, _float_rows(region.A, region.b)))
    return out


def _consecutive_crossings(rows: Any, counts: Any) -> tuple[Any, Any]:
    """For rows grouped by region (``counts[i]`` rows for region ``i``), the crossing of each row with the next
    one of its region (cyclically), and whether each region's crossings satisfy all of its rows (to a relative
    ``1e-9``): then they are its vertices, in order."""
    import numpy as np

    with np.errstate(all="ignore"):
        rows = rows / np.hypot(rows[:, 0], rows[:, 1])[:, None]
    total = len(rows)
    starts = np.cumsum(counts) - counts
    region_of = np.repeat(np.arange(len(counts)), counts)
    position = np.arange(total)
    following = position + 1
    last = starts + counts - 1
    following[last[counts > 0]] = starts[counts > 0]
    a0, a1, c = rows[:, 0], rows[:, 1], rows[:, 2]
    b0, b1, d = a0[following], a1[following], c[following]
    with np.errstate(all="ignore"):
        det = a0 * b1 - a1 * b0
        x = (c * b1 - a1 * d) / det
        y = (a0 * d - c * b0) / det
    size = np.abs(x) + np.abs(y) + 1.0
    # Every (vertex, row) pair of a region: vertex v of region r against each of r's rows.
    pairs = counts[region_of]
    vertex_of_pair = np.repeat(position, pairs)
    offset = np.arange(pairs.sum()) - np.repeat(np.cumsum(pairs) - pairs, pairs)
    row_of_pair = starts[region_of][vertex_of_pair] + offset
    with np.errstate(all="ignore"):
        slack = a0[row_of_pair] * x[vertex_of_pair] + a1[row_of_pair] * y[vertex_of_pair] - c[row_of_pair]
        bad_pair = ~(slack <= 1e-9 * size[vertex_of_pair])
    bad = np.bincount(region_of[vertex_of_pair], weights=bad_pair, minlength=len(counts)) > 0
    bad |= np.bincount(region_of, weights=~np.isfinite(x + y), minlength=len(counts)) > 0
    bad |= counts < 3
    return np.stack([x, y], axis=1), ~bad


def draw_complex(ax: Any, complex_: "RegionComplex") -> None:
    """Draw a complex on a 2-D domain quickly: one muted colour per activation pattern (stable: see
    :func:`polyregions.plotting.colors.pattern_colors`), thin white seams, the counts as title."""
    from matplotlib.collections import PolyCollection

    from polyregions.plotting.colors import pattern_colors

    window = domain_window(complex_.domain, points=[r.interior_point for r in complex_.regions]
                           if not complex_.domain.is_bounded() else ())
    polygons = float_polygons(complex_, window)
    colors = pattern_colors(complex_._pattern_matrix)
    keep = [i for i, p in enumerate(polygons) if len(p) >= 3]  # what a window or a sliver left
    ax.add_collection(PolyCollection([polygons[i] for i in keep], facecolors=[colors[i] for i in keep],
                                     edgecolors="white", linewidths=0.25 if len(keep) > 500 else 0.5))
    _frame(ax, window, coordinate_names(complex_.domain),
           f"{len(complex_):,} activation regions, {complex_._num_linear_regions():,} linear")


def draw_region(ax: Any, region: "Region") -> None:
    """Draw one 2-D region: its polygon, its interior point and a window around both (an unbounded region is
    cut by a window twice the size of its bounded part)."""
    from matplotlib.patches import Polygon as Patch

    rows = _float_rows(region.A, region.b)
    px, py = (float(v) for v in region.interior_point)
    far = 1e6 * (1 + abs(px) + abs(py))
    big = float_clip(_window_corners(((px - far, py - far), (px + far, py + far))), rows)
    near = [(x, y) for x, y in big if max(abs(x - px), abs(y - py)) < 0.5 * far] + [(px, py)]
    xs, ys = [x for x, _ in near], [y for _, y in near]
    pad = 0.5 * max(max(xs) - min(xs), max(ys) - min(ys), 1.0)
    window = ((min(xs) - pad, min(ys) - pad), (max(xs) + pad, max(ys) + pad))
    polygon = float_clip(_window_corners(window), rows)
    if len(polygon) >= 3:
        ax.add_patch(Patch(polygon, closed=True, facecolor="#9ebfe0", edgecolor="black", linewidth=0.8))
    ax.plot([px], [py], "k.")
    pattern = "".join(map(str, region.pattern))
    _frame(ax, window, ("x1", "x2"), "pattern " + (pattern if len(pattern) <= 28 else pattern[:25] + "..."))


def _frame(ax: Any, window: tuple, labels: tuple[str, str], title: str) -> None:
    (x0, y0), (x1, y1) = window
    ax.set_xlim(float(x0), float(x1))
    ax.set_ylim(float(y0), float(y1))
    ax.set_aspect("equal")
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    ax.set_title(title, fontsize="medium")
