"""Pictures of the regions of a network on a 2-D domain.

Each region's polygon is computed exactly from its inequalities (:mod:`polyregions.plotting.polygons`) and
drawn in one of three colourings:

* ``"pattern"``: one colour per activation region;
* ``"linear"``: one colour per linear region (activation regions merged where the output map is the same);
* ``"class"``: the predicted class. On a region the outputs are affine, so the set where output ``k`` is the
  largest is a convex polygon, cut out exactly by the inequalities ``o_j <= o_k``; the decision boundary is
  drawn as a white line between classes. A single output is read as a binary classifier (class 1 where the
  output is positive).

Coordinates are the domain's: the input itself for a box or polytope, the slice parameters ``t`` for a slice.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from polyregions.errors import InvalidInputError
from polyregions.plotting.polygons import (
    Polygon,
    clip,
    coordinate_names,
    domain_window,
    polygon_from_inequalities,
    window_polygon,
)

if TYPE_CHECKING:
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain

__all__ = ["COLORINGS", "domain_window", "region_polygons", "class_polygons", "plot_regions", "draw_polygons",
           "region_colors"]

#: The values of ``color_by``.
COLORINGS = ("pattern", "linear", "class")


def _check_2d(complex_: "RegionComplex", what: str) -> None:
    if complex_.domain.dim != 2:
        raise InvalidInputError(f"{what}: expected a region complex on a 2-D domain, got a {complex_.domain.dim}-D "
                                f"domain" + (" (plot_graph draws 1-D domains)" if complex_.domain.dim == 1 else ""))


def _base_polygon(domain: "Domain", window: Any, points: Sequence) -> Polygon:
    lower, upper = domain_window(domain, points=points) if window is None else window
    base = window_polygon(lower, upper)
    labels = [("domain", k) for k in range(len(domain.region.A))]
    return polygon_from_inequalities(domain.region.A, domain.region.b, window=base, labels=labels)


def region_polygons(complex_: "RegionComplex", *, window: Any = None) -> tuple[Polygon, ...]:
    """The exact polygon of every region (in the order of ``complex_.regions``), clipped to ``window``.

    ``window`` is ``(lower, upper)`` in domain coordinates; by default the domain's bounding box (needed only
    for unbounded domains). Edges are labelled ``("region", k)`` for row ``k`` of the region,
    ``("domain", k)`` or ``("window", k)``.

    Examples
    --------
    Two lines through the origin cut the square into four triangles of area 1:

    >>> from polyregions.networks.network import Network
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> net = Network.from_layers(2, [([[1, 1], [1, -1]], [0, 0], "relu")])
    >>> [p.area() for p in region_polygons(enumerate_regions(net, box([-1, -1], [1, 1])))]
    [Fraction(1, 1), Fraction(1, 1), Fraction(1, 1), Fraction(1, 1)]
    """
    _check_2d(complex_, "region_polygons")
    base = _base_polygon(complex_.domain, window, [r.interior_point for r in complex_.regions])
    return tuple(polygon_from_inequalities(r.A, r.b, window=base, labels=[("region", k) for k in range(len(r.A))])
                 for r in complex_.regions)


def _class_rows(M, c, k: int) -> list[tuple[tuple[Fraction, ...], Fraction, tuple[str, int]]]:
    """Rows ``a . t <= b`` saying that output ``k`` is the largest (or, for one output, its sign)."""
    if len(M) == 1:
        sign = 1 if k == 1 else -1  # class 1: -(M t + c) <= 0; class 0: M t + c <= 0
        return [(tuple(-sign * v for v in M[0]), sign * c[0], ("class", 1 - k))]
    rows = []
    for j in range(len(M)):
        if j != k:
            rows.append((tuple(mj - mk for mj, mk in zip(M[j], M[k])), c[k] - c[j], ("class", j)))
    return rows


def class_polygons(complex_: "RegionComplex", *, window: Any = None, polygons: Sequence[Polygon] | None = None
                   ) -> list[tuple[int, int, Polygon]]:
    """``(region, class, polygon)`` for every non-degenerate piece of a region where ``class`` is predicted.

    Output ``k`` is predicted where it is the largest; with a single output, class 1 where it is positive and
    class 0 where it is negative. Ties on a line are the decision boundary; where outputs tie on a whole
    region (for example a single output that is 0 there), the lowest class wins, as with ``argmax``. Edges between
    classes are labelled ``("class", j)``. Exact: the outputs are affine on each region.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> net = Network.from_layers(2, [([[1, 0]], [0], "relu"), ([[1]], ["-1/2"], "linear")])
    >>> pieces = class_polygons(enumerate_regions(net, box([-1, -1], [1, 1])))
    >>> [(k, p.area()) for _, k, p in pieces]  # class 1 where x > 1/2
    [(0, Fraction(2, 1)), (0, Fraction(1, 1)), (1, Fraction(1, 1))]
    """
    _check_2d(complex_, "class_polygons")
    if polygons is None:
        polygons = region_polygons(complex_, window=window)
    out = []
    num_outputs = complex_.network.output_dim
    classes = 2 if num_outputs == 1 else num_outputs
    for i, (region, polygon) in enumerate(zip(complex_.regions, polygons)):
        if polygon.is_degenerate:
            continue
        M, c = region.output_map
        for k in range(classes):
            piece = polygon
            for a, b, label in _class_rows(M, c, k):
                if b == 0 and not any(a) and label[1] < k:
                    piece = Polygon((), ())  # tied with a lower class on the whole region: that class wins
                    break
                piece = clip(piece, a, b, label=label)
                if piece.is_degenerate:
                    break
            if not piece.is_degenerate:
                out.append((i, k, piece))
    return out


def draw_polygons(ax: Any, polygons: Sequence[Polygon], colors: Sequence[Any], *, edgecolor: Any = "face",
                  linewidth: float = 0.4, zorder: float = 1.0, alpha: float | None = None):
    """Add the non-degenerate polygons to ``ax`` as one PolyCollection; return it.

    By default each polygon's outline is drawn in its own colour, which hides the hairline seams that
    anti-aliasing leaves between adjacent polygons.
    """
    from matplotlib.collections import PolyCollection

    shapes, faces = [], []
    for polygon, color in zip(polygons, colors):
        if not polygon.is_degenerate:
            shapes.append(polygon.to_float())
            faces.append(color)
    collection = PolyCollection(shapes, facecolors=faces, edgecolors=edgecolor, linewidths=linewidth,
                                zorder=zorder, alpha=alpha)
    ax.add_collection(collection)
    return collection


def _edge_collection(ax: Any, segments: list, *, color: Any, linewidth: float, zorder: float):
    from matplotlib.collections import LineCollection

    lines = [[(float(p[0]), float(p[1])), (float(q[0]), float(q[1]))] for p, q in segments]
    collection = LineCollection(lines, colors=color, linewidths=linewidth, zorder=zorder)
    ax.add_collection(collection)
    return collection


def _finish(ax: Any, window: tuple, *, labels: tuple[str, str], title: str | None) -> None:
    (x0, y0), (x1, y1) = window
    ax.set_xlim(float(x0), float(x1))
    ax.set_ylim(float(y0), float(y1))
    ax.set_aspect("equal")
    ax.set_xlabel(labels[0])
    ax.set_ylabel(labels[1])
    if title:
        ax.set_title(title)


def plot_regions(complex_: "RegionComplex", *, color_by: str = "pattern", ax: Any = None, window: Any = None,
                 edges: bool | None = None, edge_color: Any = "black", linewidth: float = 0.3,
                 boundary_color: Any = "white", boundary_width: float = 1.5, points: Any = None,
                 point_labels: Any = None, title: str | None = None, seed_offset: int = 0, colors: str = "index",
                 cmap: str | None = None, legend: bool = True):
    """Draw the regions of a complex on a 2-D domain; return the matplotlib axes.

    Parameters
    ----------
    complex_ : RegionComplex
        From :func:`polyregions.regions.enumeration.enumerate_regions` on a 2-D domain.
    color_by : {"pattern", "linear", "class"}
        One colour per activation region, per linear region, or per predicted class (see the module notes).
    ax : matplotlib Axes, optional
        Where to draw; a new figure by default.
    window : (lower, upper), optional
        The rectangle to show, in domain coordinates (default: the domain's bounding box).
    edges : bool, optional
        Draw the regions' edges (default: for ``"pattern"`` only).
    points, point_labels : array-like, optional
        Data to scatter on top (in domain coordinates), coloured by label when labels are given.
    title : str, optional
        Default: the numbers of activation and linear regions.
    seed_offset : int
        Shifts the sequence of region colours.
    colors : {"index", "pattern"}
        ``"index"``: far-apart hues in region order (every region differs from its neighbours; the default).
        ``"pattern"``: muted colours hashed from each region's activation pattern
        (:func:`~polyregions.plotting.colors.pattern_colors`), so that a region shared by two checkpoints of a
        network, or by two networks that differ after the last hidden layer, has one colour in both pictures.
        A linear region takes the colour of its first activation region.
    cmap : str, optional
        A matplotlib colour map to take the colours from (``"viridis"``, ``"tab20"``, ``"Pastel1"``...); for
        ``color_by="class"``, the classes' colours.
    legend : bool
        With ``color_by="class"``, a legend naming the classes' colours, outside the axes on the right.

    Examples
    --------
    >>> from polyregions.networks.initializers import he_normal
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> ax = plot_regions(enumerate_regions(he_normal([2, 8, 8], seed=0), box([-1, -1], [1, 1])))  # doctest: +SKIP
    """
    from polyregions.plotting._backend import new_axes
    from polyregions.plotting.colors import class_colors, cmap_colors, lighten

    _check_2d(complex_, "plot_regions")
    if color_by not in COLORINGS:
        raise InvalidInputError(f"color_by: expected one of {', '.join(COLORINGS)}, got {color_by!r}")
    ax = new_axes(ax)
    points_for_window = [r.interior_point for r in complex_.regions]
    if window is None:
        window = domain_window(complex_.domain, points=points_for_window)
    polygons = region_polygons(complex_, window=window)
    if edges is None:
        edges = color_by == "pattern"
    if color_by in ("pattern", "linear"):
        draw_polygons(ax, polygons, region_colors(complex_, color_by=color_by, colors=colors, cmap=cmap,
                                                  offset=seed_offset))
    else:
        pieces = class_polygons(complex_, polygons=polygons)
        outputs = complex_.network.output_dim
        count = 2 if outputs == 1 else outputs
        palette = (cmap_colors(count, cmap) if cmap is not None
                   else [lighten(c, 0.45) for c in class_colors(count)])
        draw_polygons(ax, [p for _, _, p in pieces], [palette[k] for _, k, _ in pieces])
        boundary = [segment for _, _, p in pieces
                    for segment in p.edge_segments(lambda label: isinstance(label, tuple) and label[0] == "class")]
        _edge_collection(ax, boundary, color=boundary_color, linewidth=boundary_width, zorder=3)
        if legend:
            _class_legend(ax, palette, sorted({k for _, k, _ in pieces}))
    if edges:
        segments = [segment for p in polygons if not p.is_degenerate for segment in p.edge_segments()]
        _edge_collection(ax, segments, color=edge_color, linewidth=linewidth, zorder=2)
    if points is not None:
        _scatter(ax, points, point_labels)
    if title is None:
        title = f"{len(complex_)} activation regions, {len(complex_.linear_regions)} linear regions"
    _finish(ax, window, labels=coordinate_names(complex_.domain), title=title)
    return ax


def region_colors(complex_: "RegionComplex", *, color_by: str = "pattern", colors: str = "index",
                  cmap: str | None = None, offset: int = 0) -> list[tuple[float, float, float]]:
    """The colour of every region of ``complex_`` (in region order) as :func:`plot_regions` draws it with
    ``color_by`` ``"pattern"`` or ``"linear"``, ``colors`` and ``cmap``.

    Examples
    --------
    Colours hashed from patterns do not depend on the rest of the network: two networks that differ only in
    their output layer colour every region alike.

    >>> from polyregions.networks.network import Network
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> hidden = ([[1, 0], [0, 1]], [0, 0], "relu")
    >>> one = enumerate_regions(Network.from_layers(2, [hidden, ([[1, 1]], [0], "linear")]), box([-1, -1], [1, 1]))
    >>> two = enumerate_regions(Network.from_layers(2, [hidden, ([[3, -1]], [2], "linear")]), box([-1, -1], [1, 1]))
    >>> region_colors(one, colors="pattern") == region_colors(two, colors="pattern")
    True
    """
    from polyregions.plotting.colors import COLOR_SCHEMES, cmap_colors, distinct_colors, pattern_colors

    if colors not in COLOR_SCHEMES:
        raise InvalidInputError(f"colors: expected one of {', '.join(COLOR_SCHEMES)}, got {colors!r}")
    if color_by == "pattern":
        if colors == "pattern":
            return pattern_colors(complex_._pattern_matrix, cmap=cmap)
        return cmap_colors(len(complex_), cmap) if cmap is not None else distinct_colors(len(complex_), offset=offset)
    linear = complex_.linear_regions
    if colors == "pattern":
        firsts = [min(members) for members in linear]
        palette = pattern_colors(complex_._pattern_matrix[firsts], cmap=cmap)
    else:
        palette = cmap_colors(len(linear), cmap) if cmap is not None else distinct_colors(len(linear), offset=offset)
    colour_of: dict[int, tuple[float, float, float]] = {}
    for k, members in enumerate(linear):
        for i in members:
            colour_of[i] = palette[k]
    return [colour_of[i] for i in range(len(complex_))]


def _class_legend(ax: Any, palette: Sequence[Any], classes: Sequence[int]) -> None:
    """A legend of the classes drawn, outside the axes on the right (where it hides no region)."""
    from matplotlib.patches import Patch

    handles = [Patch(facecolor=palette[k], edgecolor="none", label=f"class {k}") for k in classes]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, frameon=False,
              title="predicted", handlelength=1.2)


def _scatter(ax: Any, points: Any, labels: Any) -> None:
    import numpy as np

    from polyregions.plotting.colors import class_colors

    points = np.asarray(points, dtype=float)
    if points.ndim != 2 or points.shape[1] != 2:
        raise InvalidInputError(f"points: expected an array of shape (n, 2), got shape {points.shape}")
    if labels is None:
        ax.scatter(points[:, 0], points[:, 1], s=4, c="black", zorder=4, linewidths=0)
        return
    labels = np.asarray(labels)
    if labels.shape != (len(points),):
        raise InvalidInputError(f"point_labels: expected {len(points)} labels, got shape {labels.shape}")
    palette = class_colors(int(labels.max()) + 1 if len(labels) else 1)
    ax.scatter(points[:, 0], points[:, 1], s=5, c=[palette[int(k)] for k in labels], zorder=4,
               edgecolors="black", linewidths=0.2)
