"""PL Morse points of the lower-star filtration: the homology of each vertex's lower star.

With vertices totally ordered by ``(value, id)``, the *lower star* of ``v`` is the block of cells entering with
``v``: the cells of ``X_{<=v}`` (the prefix ending with ``v``) not in ``X_{<v}``. It is locally closed, and its
chain complex computes ``H_k(X_{<=v}, X_{<v})``, which is ``H~_{k-1}`` of the lower link of ``v`` (the closed lower
star is a cone on it, with apex ``v``). So ``v`` is regular when every ``h_k`` is zero (the lower link has the
reduced homology of a point), and otherwise critical, of index ``k`` for every ``h_k != 0``; a minimum has an
empty lower link, ``H~_{-1} = 1``. Over GF(2): a lower link is a subset of a sphere of dimension ``d - 1 <= 2``
and has no torsion, so Q gives the same numbers.

The same numbers follow from the persistence pairs (the exact sequence of the pair ``(X_{<=v}, X_{<v})``):
``h_k(v)`` counts the ``k``-cells entering with ``v`` that are unpaired or paired with a cell entering with
another vertex. :func:`lower_star_homology` computes them from the chain complex and :func:`counts_from_pairs`
from the pairs; the caller checks that they agree.

On a line or in the plane the chain complex need not be built (:func:`plane_lower_star_homology`): with
``n_k`` the ``k``-cells entering with ``v``, ``h_0 = 1`` exactly when ``n_1 = 0`` (any lower edge makes ``v`` a
boundary), ``h_2 = 1`` exactly when ``v`` is inside the domain and every polygon around ``v`` enters with it (a
2-cycle of the lower star must hold a polygon's neighbours across every lower edge at ``v``, so all of them, and
those around a boundary vertex form a path whose ends have an edge with one polygon), and ``h_1`` follows from the
Euler characteristic ``n_0 - n_1 + n_2 = h_0 - h_1 + h_2``.
"""

from __future__ import annotations

from typing import Sequence

import numpy as np

from polyregions.measures._homology import homology
from polyregions.measures._persistence_pairs import Filtration

__all__ = ["lower_stars", "lower_star_homology", "plane_lower_star_homology", "counts_from_pairs"]


def lower_stars(f: Filtration) -> dict[int, list[int]]:
    """Per vertex id, the cells entering with it (in filtration order)."""
    blocks: dict[int, list[int]] = {}
    for c in f.order:
        blocks.setdefault(f.entry[c], []).append(c)
    return blocks


def lower_star_homology(blocks: dict[int, list[int]], dims: Sequence[int], facets: Sequence[Sequence[int]],
                        top: int) -> dict[int, tuple[int, ...]]:
    """Per vertex, ``h_0, ..., h_top`` of its lower star's chain complex (only the vertices where one is not 0).

    A block of the vertex alone is a minimum (``h_0 = 1``) without a chain complex being built."""
    minimum = (1,) + (0,) * top
    found = {}
    for v, cells in blocks.items():
        h = minimum if len(cells) == 1 else homology(cells, dims, facets, top=top)
        if any(h):
            found[v] = h
    return found


def plane_lower_star_homology(entry: np.ndarray, dims: np.ndarray, covers: np.ndarray, vertex_of_cell: np.ndarray,
                              vertex_interior: np.ndarray, top: int) -> dict[int, tuple[int, ...]]:
    """As :func:`lower_star_homology` for ``top <= 2``, from counts (module notes). The polygons around a vertex
    are as many as its edges, one fewer on the domain's boundary."""
    n = len(vertex_interior)
    lower = [np.bincount(entry[dims == k], minlength=n) for k in range(top + 1)]
    chi = sum((-1) ** k * lower[k] for k in range(top + 1))
    h0 = (lower[1] == 0).astype(np.int64)
    if top == 1:
        h = [h0, h0 - chi]
    else:
        ends = covers[dims[covers[:, 1]] == 1, 0]
        degree = np.bincount(vertex_of_cell[ends], minlength=n)
        h2 = (vertex_interior & (lower[2] == degree)).astype(np.int64)
        h = [h0, h0 + h2 - chi, h2]
    table = np.stack(h, axis=1)
    critical = np.flatnonzero(table.any(axis=1))
    return {v: tuple(row) for v, row in zip(critical.tolist(), table[critical].tolist())}


def counts_from_pairs(entry: np.ndarray, dims: np.ndarray, pairs: np.ndarray, vertices: int,
                      top: int) -> dict[int, tuple[int, ...]]:
    """Per vertex (only where one is not 0), the ``k``-cells entering with it that are unpaired or paired across
    vertices, by ``k``; ``entry``: per cell its entry vertex, ``pairs``: two columns of cell ids."""
    counted = np.ones(len(dims), dtype=bool)
    within = entry[pairs[:, 0]] == entry[pairs[:, 1]]
    counted[pairs[within].ravel()] = False
    table = np.zeros((vertices, top + 1), dtype=np.int64)
    np.add.at(table, (entry[counted], dims[counted]), 1)
    critical = np.flatnonzero(table.any(axis=1))
    return {v: tuple(row) for v, row in zip(critical.tolist(), table[critical].tolist())}
