"""The adjacency graph drawn over the regions it connects.

A node sits at the centroid of its region's visible part; the edge between two regions that share a facet
runs from one centroid to the midpoint of the shared facet and on to the other centroid. Both legs stay
inside the two (convex) regions, so every drawn edge crosses exactly the facet it stands for. The shared
facet is found exactly, as the intersection of one region's polygon with the other's closed inequalities.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError
from polyregions.plotting.polygons import Polygon, clip

if TYPE_CHECKING:
    from polyregions.arrangements import Arrangement
    from polyregions.regions.complex import RegionComplex

__all__ = ["shared_facet", "adjacency_drawing", "plot_adjacency"]


def shared_facet(polygon: Polygon, A, b) -> Polygon:
    """The part of ``polygon`` in the closed set ``A x <= b`` (for two adjacent regions: their shared facet).

    Examples
    --------
    >>> from polyregions.plotting.polygons import window_polygon
    >>> shared_facet(window_polygon((0, 0), (1, 1)), [[-1, 0]], [-1]).vertices  # the square's side x = 1
    ((Fraction(1, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(1, 1)))
    """
    for row, bi in zip(A, b):
        polygon = clip(polygon, row, bi)
        if polygon.is_empty:
            break
    return polygon


def _source(source: Any, window: Any):
    """(polygons, inequalities per region, graph, window) of a region complex or an arrangement."""
    from polyregions.arrangements import Arrangement
    from polyregions.regions.complex import RegionComplex

    if isinstance(source, RegionComplex):
        from polyregions.plotting.polygons import domain_window
        from polyregions.plotting.regions import region_polygons

        if window is None:
            window = domain_window(source.domain, points=[r.interior_point for r in source.regions])
        polygons = region_polygons(source, window=window)
        return polygons, [(r.A, r.b) for r in source.regions], source.graph, window
    if isinstance(source, Arrangement):
        from polyregions.plotting.arrangements import arrangement_polygons, arrangement_window, planar

        source, _ = planar(source)
        if window is None:
            window = arrangement_window(source)
        polygons = arrangement_polygons(source, window=window)
        return polygons, [(r.A, r.b) for r in source.regions()], source.adjacency_graph(), window
    raise InvalidInputError(f"plot_adjacency: expected a RegionComplex or an Arrangement, got {type(source).__name__}")


def adjacency_drawing(source: "RegionComplex | Arrangement", *, window: Any = None):
    """Exact node positions and edge paths: ``(nodes, edges)``.

    ``nodes`` maps each region whose polygon meets the window to its centroid; ``edges`` maps each adjacent
    pair ``(i, j)`` with both ends visible to the path ``[centroid_i, midpoint, centroid_j]`` (just the two
    centroids when the shared facet lies outside the window).

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> nodes, edges = adjacency_drawing(Arrangement([[1, 0, 0]]), window=((-1, -1), (1, 1)))
    >>> [tuple(map(str, p)) for p in edges[(0, 1)]]
    [('-1/2', '0'), ('0', '0'), ('1/2', '0')]
    """
    polygons, inequalities, graph, _ = _source(source, window)
    return _drawing(polygons, inequalities, graph)


def _drawing(polygons, inequalities, graph):
    nodes = {i: p.centroid() for i, p in enumerate(polygons) if not p.is_degenerate}
    edges = {}
    for i, j in graph.edges():
        if i not in nodes or j not in nodes:
            continue
        i, j = min(i, j), max(i, j)
        facet = shared_facet(polygons[i], *inequalities[j])
        if len(facet) >= 1:
            middle = facet.centroid()
            edges[(i, j)] = [nodes[i], middle, nodes[j]]
        else:
            edges[(i, j)] = [nodes[i], nodes[j]]
    return nodes, edges


def plot_adjacency(source: "RegionComplex | Arrangement", *, ax: Any = None, window: Any = None,
                   node_size: float = 10.0, edge_color: Any = "black", title: str | None = None):
    """Draw the region adjacency graph over pale regions; return the axes.

    ``source`` is a region complex on a 2-D domain or a planar arrangement (or one of rank 2, drawn through
    its essentialization).

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> ax = plot_adjacency(Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]]))  # doctest: +SKIP
    """
    from matplotlib.collections import LineCollection

    from polyregions.plotting._backend import new_axes
    from polyregions.plotting.colors import PALE, distinct_colors
    from polyregions.plotting.regions import _finish, draw_polygons

    polygons, inequalities, graph, window = _source(source, window)
    nodes, edges = _drawing(polygons, inequalities, graph)
    ax = new_axes(ax)
    draw_polygons(ax, polygons, distinct_colors(len(polygons), lightness=PALE), edgecolor="grey", linewidth=0.4)
    paths = [[(float(x), float(y)) for x, y in path] for path in edges.values()]
    ax.add_collection(LineCollection(paths, colors=edge_color, linewidths=0.8, zorder=3))
    xy = [(float(x), float(y)) for x, y in nodes.values()]
    ax.scatter([p[0] for p in xy], [p[1] for p in xy], s=node_size, color=edge_color, zorder=4, linewidths=0)
    if title is None:
        title = f"adjacency graph: {graph.number_of_nodes()} regions, {graph.number_of_edges()} shared facets"
    _finish(ax, window, labels=("x1", "x2"), title=title)
    return ax
