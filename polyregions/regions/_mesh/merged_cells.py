"""The cells of a graph network's dense rewriting that share one stage pattern, merged into that pattern's region
(its convex activation region: the hull of the cells), with the pairs of regions sharing a facet (see
:mod:`.stages`)."""

from __future__ import annotations

from functools import partial
from typing import Any, Sequence

import numpy as np

from polyregions.regions._mesh.polygons import hull_rows, polygon_vertices
from polyregions.regions._mesh.support import ComputedOnce

__all__ = ["merged"]


def merged(regions: Sequence, patterns: np.ndarray, pairs: np.ndarray, network: Any
           ) -> tuple[Sequence, np.ndarray, np.ndarray]:
    """Cells with one pattern merged into one region (their union is that pattern's convex region): its
    vertices those of the cells' hull, its rows the hull's edges, its interior point a cell's. The geometry is
    built on the first request for any region's, as the mesh builds its own."""
    from polyregions.regions.complex import Region

    unique, inverse = _unique_rows(patterns)
    if len(unique) == len(patterns):
        return regions, patterns, pairs
    order = np.argsort(inverse, kind="stable")
    bounds = np.searchsorted(inverse[order], np.arange(len(unique) + 1)).tolist()
    members = [order[start:end].tolist() for start, end in zip(bounds, bounds[1:])]
    geometry = ComputedOnce(partial(_merged_geometry, regions, members))
    joined = inverse[pairs] if len(pairs) else pairs
    joined = joined[joined[:, 0] != joined[:, 1]] if len(joined) else joined
    return Region._deferred_rows(unique, network, geometry.item), unique, joined


def _unique_rows(patterns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of a pattern matrix and each row's index among them (``np.unique(axis=0)``, faster:
    rows of small pieces are compared as byte strings, distinct exactly when the rows are)."""
    width = patterns.shape[1]
    if not (width and 0 <= patterns.min() and patterns.max() < 255):
        unique, inverse = np.unique(patterns, axis=0, return_inverse=True)
        return unique, inverse.reshape(-1)
    # +1: numpy drops trailing zero bytes of byte strings.
    keys = np.ascontiguousarray((patterns + 1).astype(np.uint8)).view(f"S{width}").ravel()
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    return patterns[first], inverse.reshape(-1)


def _merged_geometry(regions: Sequence, members: list[list[int]]) -> list[tuple[Any, Any, Any]]:
    """``(A, b, interior_point)`` of every union of cells: a lone cell's own, else the hull of the cells."""
    out = []
    for cells in members:
        first = regions[cells[0]]
        if len(cells) == 1:
            out.append((first.A, first.b, first.interior_point))
            continue
        A, b = hull_rows([p for c in cells for p in polygon_vertices(regions[c].A, regions[c].b)])
        out.append((A, b, first.interior_point))
    return out
