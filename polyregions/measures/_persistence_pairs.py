"""Persistence pairs of the lower-star filtration of a polyhedral (regular CW) complex, exactly.

The filtration
--------------
Vertices are totally ordered by ``(value, vertex id)``: the tie-break makes the filtration a total order, which
the pairing needs and which the PL Morse points use too (:mod:`~polyregions.measures._persistence_morse`). A cell
enters with the *last* of its vertices in that order (its entry vertex; ``f`` is affine on the cell, so its
maximum is the value there), and cells are ordered by ``(entry rank, dimension, cell id)``: every facet comes
before its cell (same or earlier entry vertex, lower dimension), so every prefix is a subcomplex. The value of a
prefix is the value of its last entry vertex, so the prefixes ending with a vertex block are exactly the
sublevel complexes ``{f <= t}`` at every vertex value ``t``.

The pairing
-----------
The persistence pairs of a filtration do not depend on how the boundary matrix is reduced, so each dimension
takes the cheapest exact route:

* ``(0, 1)`` pairs: union-find on the vertices in filtration order (the elder rule). The columns of ``d_1`` are
  ``v_b - v_a``: a graph's incidence matrix, whose reduction is the same over every field.
* ``(d-1, d)`` pairs: union-find on the ``d``-cells in *reverse* order, the dual graph of the complex (persistent
  cohomology has the same pairs as homology; de Silva, Morozov & Vejdemo-Johansson, 2011). The coboundary of a
  ``(d-1)``-cell is its one or two ``d``-cells, with opposite signs when the ``d``-cells carry the orientation of
  ``R^d``; a cell on the domain's boundary has one, read as an edge to a *ground* node that is older than every
  cell (the row a reduction never reaches). Again a graph: the same pairs over every field.
* the dimensions between (``d >= 3``): the standard column reduction with clearing (Chen & Kerber, 2011), over
  GF(2) with Python integers as bit sets, or over Q with the incidence numbers ``+-1`` of
  :class:`~polyregions.measures._incidence.IncidenceSigns`.

:func:`matrix_pairs` is the plain standard reduction of every dimension, the reference the tests compare with.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from polyregions.measures._homology import Field, reduce_gf2

__all__ = ["Filtration", "filtration", "fast_pairs", "matrix_pairs"]

Sign = Callable[[int, int], int]


class Filtration:
    """The lower-star order of the cells of a complex.

    Attributes
    ----------
    rank : list of int
        Per vertex id, its place in the order of ``(value, id)``.
    entry : list of int
        Per cell, the vertex id with which it enters (its last vertex in that order).
    order : list of int
        The cells in filtration order.
    position : list of int
        Per cell, its place in ``order``.
    """

    def __init__(self, rank: list[int], entry: list[int], order: list[int], position: list[int]):
        self.rank, self.entry, self.order, self.position = rank, entry, order, position


def filtration(by_value: Sequence[int], cell_of_vertex: np.ndarray, dims: np.ndarray,
               covers: np.ndarray) -> Filtration:
    """The lower-star filtration, vertex ids listed in the order of ``(value, id)``: a cell's entry is the latest
    entry of its facets (its latest vertex), found one dimension at a time along ``covers``."""
    n = len(by_value)
    by_value_array = np.asarray(by_value, dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    rank[by_value_array] = np.arange(n)
    last = np.full(len(dims), -1, dtype=np.int64)
    last[cell_of_vertex] = rank
    upper = dims[covers[:, 1]]
    for k in range(1, int(dims.max(initial=0)) + 1):
        step = covers[upper == k]
        np.maximum.at(last, step[:, 1], last[step[:, 0]])
    entry = by_value_array[last]
    order = np.lexsort((np.arange(len(dims)), dims, last))
    position = np.empty(len(order), dtype=np.int64)
    position[order] = np.arange(len(order))
    return Filtration(rank.tolist(), entry.tolist(), order.tolist(), position.tolist())


def fast_pairs(f: Filtration, dims: np.ndarray, covers: np.ndarray, top: int,
               facets: Callable[[], Sequence[Sequence[int]]], *, field: Field = "GF(2)",
               sign: Sign | None = None) -> list[tuple[int, int]]:
    """Every persistence pair ``(creator, destroyer)`` of cell ids, by the routes of the module notes.

    ``dims``: per cell its dimension; ``covers``: the pairs ``(facet, cell)`` (two int64 columns); ``top``: the
    complex's dimension; ``facets()``: per cell its facets (built only for the dimensions between). Cells left
    out of every pair are the essential classes.
    """
    position = np.asarray(f.position, dtype=np.int64)
    pairs = _vertex_pairs(position, dims, covers)
    if top >= 2:
        high = _top_pairs(position, dims, covers, top)
        cleared = {c for c, _ in high}
        if top >= 3:
            lists, dim_list = facets(), dims.tolist()
            for k in range(top - 2, 0, -1):  # (k, k+1) pairs for d-2 >= k >= 1, each cleared by the one above
                columns = [c for c in f.order if dims[c] == k + 1 and c not in cleared]
                found = _reduce(columns, f, dim_list, lists, field, sign)
                pairs += found
                cleared = {c for c, _ in found}
        pairs += high
    return pairs


def matrix_pairs(f: Filtration, dims: Sequence[int], facets: Sequence[Sequence[int]], top: int, *,
                 field: Field = "GF(2)", sign: Sign | None = None) -> list[tuple[int, int]]:
    """Every persistence pair by the standard reduction of the whole boundary matrix (the reference)."""
    columns = [c for c in f.order if dims[c] >= 1]
    return _reduce(columns, f, dims, facets, field, sign)


def _grouped(covers: np.ndarray, keep: np.ndarray, by: int) -> tuple[np.ndarray, np.ndarray]:
    """The covers ``keep`` sorted by column ``by``: the cells of that column and the cells of the other."""
    chosen = covers[keep]
    order = np.argsort(chosen[:, by], kind="stable")
    return chosen[order, by], chosen[order, 1 - by]


def _vertex_pairs(position: np.ndarray, dims: np.ndarray, covers: np.ndarray) -> list[tuple[int, int]]:
    """The ``(0, 1)`` pairs: each edge, in filtration order, that joins two components kills the younger one's
    oldest vertex (every vertex of an edge is there before it)."""
    edge, end = _grouped(covers, dims[covers[:, 1]] == 1, 1)  # an edge has two vertices
    edges, ends = edge[::2], end.reshape(-1, 2)
    order = np.argsort(position[edges])
    parent = list(range(len(dims)))
    age = position.tolist()

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    pairs = []
    for c, (u, w) in zip(edges[order].tolist(), ends[order].tolist()):
        a, b = find(u), find(w)
        if a != b:
            young, old = (a, b) if age[a] > age[b] else (b, a)
            parent[young] = old  # the root of a component is its oldest vertex
            pairs.append((young, c))
    return pairs


def _top_pairs(position: np.ndarray, dims: np.ndarray, covers: np.ndarray, top: int) -> list[tuple[int, int]]:
    """The ``(d-1, d)`` pairs: union-find on the top cells in reverse order, the domain's boundary as ground (every
    top cell of a ``(d-1)``-cell is there before it in reverse order)."""
    facet, coface = _grouped(covers, dims[covers[:, 1]] == top, 0)
    starts = np.flatnonzero(np.concatenate([[True], facet[1:] != facet[:-1]]))
    cells = facet[starts]
    counts = np.diff(np.concatenate([starts, [facet.size]]))
    first = coface[starts]
    second = np.where(counts == 2, coface[np.minimum(starts + 1, facet.size - 1)], -1)
    order = np.argsort(-position[cells])
    ground = len(dims)
    parent = list(range(len(dims) + 1))
    age = position.tolist() + [len(dims)]  # larger is older in reverse time; the ground is oldest

    def find(x: int) -> int:
        root = x
        while parent[root] != root:
            root = parent[root]
        while parent[x] != root:
            parent[x], x = root, parent[x]
        return root

    pairs = []
    for c, u, w in zip(cells[order].tolist(), first[order].tolist(), second[order].tolist()):
        a, b = find(u), find(w if w >= 0 else ground)
        if a != b:
            young, old = (a, b) if age[a] < age[b] else (b, a)
            parent[young] = old
            pairs.append((c, young))
    return pairs


def _reduce(columns: Sequence[int], f: Filtration, dims: Sequence[int], facets: Sequence[Sequence[int]],
            field: Field, sign: Sign | None) -> list[tuple[int, int]]:
    """The standard reduction of the boundary columns ``columns``, highest dimension first and each dimension in
    filtration order, with clearing: a cell already found as a creator (a pivot's row) has a column that reduces
    to zero, so it is skipped."""
    if field == "Q" and sign is None:
        raise ValueError("persistence over Q needs incidence signs")
    position, order = f.position, f.order
    creators: set[int] = set()
    pairs = []
    pivots: dict = {}
    for c in sorted(columns, key=lambda x: (-dims[x], position[x])):
        if c in creators:
            continue
        low = _reduce_gf2(c, position, facets, pivots) if field == "GF(2)" else \
            _reduce_q(c, position, facets, pivots, sign)  # type: ignore[arg-type]
        if low is not None:
            creators.add(order[low])
            pairs.append((order[low], c))
    return pairs


def _reduce_gf2(c: int, position: Sequence[int], facets: Sequence[Sequence[int]],
                pivots: dict[int, int]) -> int | None:
    """Reduce the column of ``c`` (a Python integer over the rows' filtration positions, ``low`` its highest
    bit) against ``pivots``; record it and return its low, or None when it reduces to zero."""
    column = 0
    for g in facets[c]:
        column ^= 1 << position[g]
    return reduce_gf2(column, pivots)


def _reduce_q(c: int, position: Sequence[int], facets: Sequence[Sequence[int]],
              pivots: dict[int, dict[int, Fraction]], sign: Sign) -> int | None:
    """As :func:`_reduce_gf2` over Q: a column is ``{row position: Fraction}``, ``low`` its largest key."""
    column = {position[g]: Fraction(sign(g, c)) for g in facets[c]}
    while column:
        low = max(column)
        pivot = pivots.get(low)
        if pivot is None:
            lead = column[low]
            pivots[low] = {r: v / lead for r, v in column.items()}
            return low
        factor = column[low]
        for r, v in pivot.items():
            value = column.get(r, 0) - factor * v
            if value:
                column[r] = value
            else:
                column.pop(r, None)
    return None
