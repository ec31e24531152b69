"""Every face of a region complex at once, from its cells' vertices and the rows tight at them.

A cell of dimension ``d`` whose vertices each lie on exactly ``d`` of its rows is a simple polytope: the faces
through a vertex are the intersections of the subsets of its ``d`` facets, a face on ``s`` facets has dimension
``d - s``, and the facets of a face are that face on one more row of one of its vertices. For such cells (the
generic case) every face of every cell is found by sorting integer keys ``(cell, set of rows)`` in numpy, with
no loop over faces in Python. Other cells walk their lattice in Python
(:func:`~polyregions.measures._cell_lattice.cell_lattice`). Faces of different cells with the same vertex set
are one face of the complex; they are merged by sorting their padded vertex lists.
"""

from __future__ import annotations

from itertools import chain
from typing import Sequence

import numpy as np

from polyregions.measures._cell_lattice import cell_lattice, members

__all__ = ["complex_faces"]

_ROW_BITS = 40      # a cell with more rows than this takes the Python path
_CHUNK = 1 << 20    # cells per numpy batch: (cell << _ROW_BITS) | rows stays below 2^63

Cell = tuple[Sequence[int], Sequence[int], int]  # (vertex ids, bitsets of tight rows per vertex, number of rows)


class _Occurrences:
    """Faces of single cells (a face of the complex occurs once per cell around it), in compressed rows."""

    def __init__(self) -> None:
        self.region: list[np.ndarray] = []
        self.dim: list[np.ndarray] = []
        self.lengths: list[np.ndarray] = []
        self.vertices: list[np.ndarray] = []
        self.facet: list[np.ndarray] = []   # covers: occurrence ``facet`` is a facet of occurrence ``face``
        self.face: list[np.ndarray] = []
        self.count = 0

    def add(self, region, dim, lengths, vertices, facet, face) -> None:
        self.region.append(np.asarray(region, dtype=np.int64))
        self.dim.append(np.asarray(dim, dtype=np.int64))
        self.lengths.append(np.asarray(lengths, dtype=np.int64))
        self.vertices.append(np.asarray(vertices, dtype=np.int64))
        self.facet.append(np.asarray(facet, dtype=np.int64) + self.count)
        self.face.append(np.asarray(face, dtype=np.int64) + self.count)
        self.count += len(self.region[-1])

    def joined(self):
        def cat(parts):
            return np.concatenate(parts) if parts else np.empty(0, dtype=np.int64)
        return (cat(self.region), cat(self.dim), cat(self.lengths), cat(self.vertices), cat(self.facet),
                cat(self.face))


def complex_faces(cells: Sequence[Cell], d: int
                  ) -> tuple[list[tuple[int, tuple[int, ...]]], list[tuple[int, ...]], list[tuple[int, int]]]:
    """The faces of the complex made of ``cells`` (bounded ``d``-polytopes, ``d >= 1``, meeting face to face).

    Parameters
    ----------
    cells : sequence of (vertex ids, tight rows, number of rows)
        For each cell (a region, in order): the ids of its vertices in the complex, in increasing order, the bitset
        of its rows tight at each, and its number of rows.
    d : int
        The dimension of the cells.

    Returns
    -------
    keys : list of (int, tuple of int)
        Every face as ``(dim, sorted vertex ids)``, sorted.
    regions : list of tuple of int
        For each face, the sorted cells around it.
    covers : list of (int, int)
        The sorted pairs ``(i, j)`` (indices into ``keys``) with face ``i`` a facet of face ``j``.

    Examples
    --------
    The squares ``[0, 1] x [0, 1]`` (vertices 0 to 3) and ``[1, 2] x [0, 1]`` (vertices 2 to 5) share the edge
    between vertices 2 and 3 (their rows ``x <= hi, -x <= -lo, y <= 1, -y <= 0``, tight as
    :func:`~polyregions.measures._cell_lattice.cell_vertices` finds them):

    >>> square = [0b1010, 0b0110, 0b1001, 0b0101]
    >>> keys, regions, covers = complex_faces([([0, 1, 2, 3], square, 4), ([2, 3, 4, 5], square, 4)], 2)
    >>> [len([k for k in keys if k[0] == j]) for j in range(3)], regions[keys.index((1, (2, 3)))], len(covers)
    ([6, 7, 2], (0, 1), 22)
    """
    found = _Occurrences()
    simple: list[int] = []
    for r, (_, tight, n_rows) in enumerate(cells):
        if n_rows <= _ROW_BITS and all(t.bit_count() == d for t in tight):
            simple.append(r)
            if len(simple) == _CHUNK:
                _add_simple(found, simple, cells, d)
                simple = []
        else:
            _add_general(found, r, cells[r], d)
    if simple:
        _add_simple(found, simple, cells, d)
    region, dim, lengths, vertices, facet, face = found.joined()
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(np.int64)
    face_of = np.empty(len(region), dtype=np.int64)
    keys: list[tuple[int, tuple[int, ...]]] = []
    for k in range(d + 1):
        chosen = np.flatnonzero(dim == k)
        if not chosen.size:
            continue
        width = int(lengths[chosen].max())
        padded = np.full((chosen.size, width), -1, dtype=np.int64)  # -1 after the end: shorter sorts first
        rows = np.repeat(np.arange(chosen.size), lengths[chosen])
        columns = _ranges(lengths[chosen])
        padded[rows, columns] = vertices[np.repeat(starts[chosen], lengths[chosen]) + columns]
        unique, inverse = _unique_rows(padded)
        face_of[chosen] = len(keys) + inverse
        sizes = (unique >= 0).sum(axis=1).tolist()
        keys.extend((k, tuple(row[:n])) for row, n in zip(unique.tolist(), sizes))
    order = np.argsort((face_of << 32) | region)  # by face, then region (both far below 2^31)
    bounds = np.searchsorted(face_of[order], np.arange(len(keys) + 1)).tolist()
    ordered_regions = region[order].tolist()
    regions = [tuple(ordered_regions[bounds[i]:bounds[i + 1]]) for i in range(len(keys))]
    packed = np.sort((face_of[facet] << 32) | face_of[face])  # face ids stay far below 2^31
    packed = packed[np.concatenate([[True], packed[1:] != packed[:-1]])] if packed.size else packed
    return keys, regions, list(zip((packed >> 32).tolist(), (packed & 0xFFFFFFFF).tolist()))


def _unique_rows(matrix: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of an integer matrix in lexicographic order, and the position of each row among them
    (``numpy.unique(axis=0)``, by a faster sort on integer columns)."""
    order = np.lexsort(matrix.T[::-1])
    ordered = matrix[order]
    new = np.ones(len(matrix), dtype=bool)
    new[1:] = (ordered[1:] != ordered[:-1]).any(axis=1)
    inverse = np.empty(len(matrix), dtype=np.int64)
    inverse[order] = np.cumsum(new) - 1
    return ordered[new], inverse


def _ranges(lengths: np.ndarray) -> np.ndarray:
    """``0, 1, ..., n - 1`` for each ``n`` in ``lengths``, concatenated."""
    total = int(lengths.sum())
    starts = np.cumsum(lengths) - lengths
    return np.arange(total, dtype=np.int64) - np.repeat(starts, lengths)


def _add_general(found: _Occurrences, r: int, cell: Cell, d: int) -> None:
    """The faces of one cell from its walked lattice."""
    ids, tight, n_rows = cell
    faces, covers = cell_lattice(tight, n_rows, d)
    lists = [sorted(ids[v] for v in members(bits)) for _, bits in faces]
    facet, face = zip(*covers) if covers else ((), ())
    found.add([r] * len(faces), [dim for dim, _ in faces], [len(v) for v in lists], list(chain.from_iterable(lists)),
              facet, face)


def _add_simple(found: _Occurrences, regions: list[int], cells: Sequence[Cell], d: int) -> None:
    """The faces of simple cells, vectorised: each vertex with each subset of its ``d`` rows gives a key
    ``(cell, rows)``; the vertices sharing a key are a face of that cell."""
    counts = np.array([len(cells[r][1]) for r in regions], dtype=np.int64)
    cell_of = np.repeat(np.arange(len(regions), dtype=np.int64), counts)
    ids = np.fromiter(chain.from_iterable(cells[r][0] for r in regions), dtype=np.int64, count=int(counts.sum()))
    full = np.fromiter(chain.from_iterable(cells[r][1] for r in regions), dtype=np.int64, count=len(ids))
    width = max(cells[r][2] for r in regions)  # the most rows of a cell here
    # The d rows of each vertex: the set bits, row by row (np.nonzero goes through each row in order).
    rows = np.nonzero((full[:, None] >> np.arange(width)) & 1)[1].reshape(len(ids), d)
    bits = np.left_shift(np.int64(1), rows)
    chosen = np.zeros((len(ids), 1), dtype=np.int64)
    size = np.zeros(1, dtype=np.int64)  # the number of rows in each subset
    for t in range(d):  # subsets by doubling: column m holds the rows of the set bits of m
        chosen = np.hstack([chosen, chosen | bits[:, t:t + 1]])
        size = np.concatenate([size, size + 1])
    n_subsets = 1 << d
    key = ((cell_of[:, None] << _ROW_BITS) | chosen).ravel()
    vertex = np.repeat(ids, n_subsets)
    order = np.argsort(key, kind="stable")  # each cell's vertices come in increasing order, and stay so
    key, vertex = key[order], vertex[order]
    start = np.flatnonzero(np.concatenate([[True], key[1:] != key[:-1]]))
    group_key = key[start]
    lengths = np.diff(np.append(start, len(key)))
    dims = d - np.tile(size, len(ids))[order][start]
    # The facets of a face: one more row tight at one of its vertices.
    union = np.bitwise_or.reduceat(np.repeat(full, n_subsets)[order], start)
    free = union & ~(group_key & ((1 << _ROW_BITS) - 1))
    facet_parts, face_parts = [], []
    for t in range(width):
        has = np.flatnonzero((free >> t) & 1)
        if has.size:
            facet_parts.append(np.searchsorted(group_key, group_key[has] | (1 << t)))
            face_parts.append(has)
    facet = np.concatenate(facet_parts) if facet_parts else np.empty(0, dtype=np.int64)
    face = np.concatenate(face_parts) if face_parts else np.empty(0, dtype=np.int64)
    found.add(np.asarray(regions, dtype=np.int64)[group_key >> _ROW_BITS], dims, lengths, vertex, facet, face)
