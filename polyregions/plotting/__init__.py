"""Pictures of regions, arrangements and their combinatorics (matplotlib, an optional dependency).

Every picture starts from exact geometry: a region's polygon is cut out of its inequalities over the
rationals (:mod:`polyregions.plotting.polygons`) and only its vertices are rounded to floats for drawing.
matplotlib is imported when a drawing function is first called (``pip install "polyregions[plot]"``); the
exact helpers (polygons, intervals, layouts) work without it.

========================================  ================================================================
:func:`plot_regions`                      regions on a 2-D domain, coloured by pattern, linear map or class
:func:`plot_layers`                       one panel per hidden layer (the network truncated after it)
:func:`plot_graph`                        a network's graph on a 1-D domain, with its breakpoints
:func:`plot_arrangement`                  a planar arrangement with sign vectors, bounded regions shaded
:func:`plot_adjacency`                    the adjacency graph over the regions
:func:`plot_poset`                        the intersection poset as a Hasse diagram
:func:`plot_region_counts`                region counts during training, one curve per run
:func:`plot_snapshots`                    regions and decision regions at several epochs
:func:`plot_checkpoint_history`           counts, boundary, local complexity and matching through checkpoints
:func:`plot_persistence_diagram`          a sublevel persistence diagram (exact values rounded for drawing)
:func:`plot_barcode`                      its barcode
========================================  ================================================================

Examples
--------
>>> from polyregions.arrangements import Arrangement
>>> lines = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]])  # x = 0, y = 0, x + y = 1
>>> polygons = arrangement_polygons(lines, window=((-1, -1), (2, 2)))
>>> sum(p.area() for p in polygons), [p.area() for p, r in zip(polygons, lines.regions()) if r.bounded]
(Fraction(9, 1), [Fraction(1, 2)])
"""

from polyregions.plotting._backend import SAVE_FORMATS, save_figure
from polyregions.plotting.adjacency import adjacency_drawing, plot_adjacency, shared_facet
from polyregions.plotting.arrangements import (
                           arrangement_polygons,
                           arrangement_window,
                           hasse_layout,
                           hyperplane_segments,
                           plot_arrangement,
                           plot_poset,
)
from polyregions.plotting.checkpoints import checkpoint_positions, plot_checkpoint_history
from polyregions.plotting.colors import class_colors, distinct_colors
from polyregions.plotting.dynamics import plot_region_counts, plot_snapshots
from polyregions.plotting.graph import Graph1D, graph_1d, plot_graph, region_intervals
from polyregions.plotting.layers import layer_complexes, plot_layers, truncations
from polyregions.plotting.persistence import diagram_points, plot_barcode, plot_persistence_diagram
from polyregions.plotting.polygons import (
                           Polygon,
                           clip,
                           default_window,
                           domain_window,
                           polygon_from_inequalities,
                           window_polygon,
)
from polyregions.plotting.regions import COLORINGS, class_polygons, plot_regions, region_polygons

__all__ = [
    "plot_regions",
    "plot_layers",
    "plot_graph",
    "plot_arrangement",
    "plot_adjacency",
    "plot_poset",
    "plot_region_counts",
    "plot_snapshots",
    "plot_checkpoint_history",
    "plot_persistence_diagram",
    "plot_barcode",
    "diagram_points",
    "checkpoint_positions",
    "save_figure",
    "SAVE_FORMATS",
    "COLORINGS",
    "region_polygons",
    "class_polygons",
    "domain_window",
    "truncations",
    "layer_complexes",
    "Graph1D",
    "graph_1d",
    "region_intervals",
    "arrangement_polygons",
    "arrangement_window",
    "hyperplane_segments",
    "hasse_layout",
    "adjacency_drawing",
    "shared_facet",
    "Polygon",
    "clip",
    "window_polygon",
    "polygon_from_inequalities",
    "default_window",
    "distinct_colors",
    "class_colors",
]
