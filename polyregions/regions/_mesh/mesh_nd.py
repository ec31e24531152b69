"""The mesh in any dimension ``k``: the whole face lattice of the complex, every face of rank ``r`` listing its facets
(faces of rank ``r - 1``), the cells of rank ``k`` being the regions. A hyperplane splits every face it crosses, of
every rank at once, for all cells at once.

A face F crossed by a hyperplane H (vertices strictly on both sides) keeps its part above H, a new face gets the
part below, and a new face of rank one less, F's section by H, is the facet both share. Every facet G of F is
crossed too (its parts go to the two sides and its section into F's section) or lies on one side; none lies in H,
which would then bound F. F's section has as facets the sections of F's crossed facets and F's faces of rank two
less lying in H (where H passes through F's vertices, edges, ...): such a face is a face of two facets of F, both
on one side. So degenerate positions need no special case, as in the 3-D mesh, and only signs are needed.
"""

from __future__ import annotations

import math

import numpy as np
from flint import fmpz_mat

from polyregions.networks._float_filter import doubles
from polyregions.regions._mesh.cells import CellMesh
from polyregions.regions._mesh.polytope_lattice import polytope_lattice
from polyregions.regions._mesh.support import (
    ABOVE,
    BELOW,
    ID,
    KEY,
    ON,
    MeshError,
    distinct,
    distinct_by_slots,
    followed,
    grow,
    ragged,
)

__all__ = ["MeshND"]

_ROOM = 4  # room in the pools at the start of a layer, as a multiple of what they hold (as in the 3-D mesh)
_CROSSED = ABOVE | BELOW
_NO_CODES = np.zeros((0, 8), dtype=np.int8)


def _meet(v: int, rows: list) -> tuple[int, ...]:
    """Where the ``k`` planes ``a . t + c = 0`` of vertex ``v`` meet."""
    try:
        x = fmpz_mat([row[:-1] for row in rows]).solve(fmpz_mat([[-row[-1]] for row in rows]))
    except ZeroDivisionError:
        raise MeshError(f"vertex {v} lies on {len(rows)} dependent planes") from None
    fractions = [(int(value.p), int(value.q)) for value in x.entries()]
    W = math.lcm(*(d for _, d in fractions))
    return (*(n * (W // d) for n, d in fractions), W)


class MeshND(CellMesh):
    """Faces of rank ``r = 1 .. k`` list their facets in a pool per rank (``offset[r]``, ``length[r]``,
    ``pool[r]`` used up to ``top[r]``; ``size[r]`` faces, ``size[k]`` being ``nf`` and the vertices ``nv``); an
    edge lists its two vertices. A face of rank ``r < k`` lies on the ``k - r`` planes (line ids) ``planes[r]``, a
    vertex on ``vline``. ``codes[r]``: per face, the OR of its vertices' sides against the layer's hyperplanes, laid
    out as the side matrix ``S`` (the cells' are the mesh's ``code``)."""

    def _initial_mesh(self) -> None:
        k = self.k
        domain = polytope_lattice(self.A, self.b)
        line_of_row: dict[int, int] = {}

        def lines(rows) -> list[int]:
            for row in rows:
                if row not in line_of_row:
                    line_of_row[row] = self._add_boundary_line(row)
            return [line_of_row[row] for row in rows]

        self.nv = len(domain.points)
        self.corner_points = domain.points
        self.vline = grow(np.array([lines(rows) for rows in domain.vertex_rows], dtype=np.int64), 64)
        self.xyz = grow(doubles(domain.points)[0], 64)
        self.size = [0] * (k + 1)
        self.offset: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        self.length: list[np.ndarray] = [np.zeros(0, dtype=np.int64)]
        self.pool: list[np.ndarray] = [np.zeros(0, dtype=ID)]
        self.top = [0] * (k + 1)
        self.planes: list[np.ndarray] = [np.zeros((0, k), dtype=np.int64)]
        facet_lists = [[facets for facets, _ in domain.faces[r - 1]] for r in range(1, k)]
        facet_lists.append([list(range(len(domain.faces[k - 2])))])  # the one cell: every facet
        for r, lists in enumerate(facet_lists, start=1):
            self.size[r] = len(lists)
            lengths = np.array([len(f) for f in lists], dtype=np.int64)
            self.length.append(grow(lengths, 64))
            self.offset.append(grow(lengths.cumsum() - lengths, 64))
            self.pool.append(grow(np.array([i for f in lists for i in f], dtype=ID), 64))
            self.top[r] = int(lengths.sum())
            if r < k:
                self.planes.append(grow(np.array([lines(rows) for _, rows in domain.faces[r - 1]], dtype=np.int64)
                                        .reshape(len(lists), k - r), 64))
        self.nf = 1
        self.points_cache = {}
        self._slot = np.empty(64, dtype=np.int64)

    def _count(self, r: int) -> int:
        return self.nv if r == 0 else self.nf if r == self.k else self.size[r]

    # exact points ---------------------------------------------------------------------------------------------

    def _homogeneous(self, vertices: np.ndarray) -> list[tuple[int, ...]]:
        """Exact ``(X_1, ..., X_k, W)`` with ``W > 0`` and the vertex at ``X / W``."""
        return self._cached_points(vertices, _meet)

    # pools ----------------------------------------------------------------------------------------------------

    def _compact(self) -> None:
        """Drop the pools' stale lists (those of faces rewritten by splits)."""
        for r in range(1, self.k + 1):
            self._compact_rank(r, _ROOM)

    def _compact_rank(self, r: int, room: int) -> None:
        """Drop the stale lists of rank ``r``'s pool, leaving room for ``room`` times what it holds (a pool holding
        none, no list rewritten since the last compaction, stays as it is)."""
        n = self._count(r)
        if self.top[r] == int(self.length[r][:n].sum()):
            return
        idx = ragged(self.offset[r][:n], self.length[r][:n])
        pool = np.empty(max(room * idx.size, 64), dtype=ID)
        pool[:idx.size] = self.pool[r][idx]
        self.pool[r] = pool
        self.top[r] = idx.size
        self.offset[r][:n] = self.length[r][:n].cumsum() - self.length[r][:n]

    def _append(self, r: int, *lists: np.ndarray) -> int:
        """Write ``lists`` one after the other at the end of rank ``r``'s pool; return where the first starts. A
        pool out of room drops its stale lists first: every split rewrites the lists of the faces it crosses, most
        of the mesh in high dimensions."""
        added = sum(values.size for values in lists)
        if self.top[r] + added > self.pool[r].shape[0]:
            self._compact_rank(r, 3)
        base = self.top[r]
        end = base + added
        self.pool[r] = grow(self.pool[r], end)
        at = base
        for values in lists:
            self.pool[r][at:at + values.size] = values
            at += values.size
        self.top[r] = end
        return base

    def _new_faces(self, r: int, lengths: np.ndarray, base: int) -> np.ndarray:
        """Ids for new faces of rank ``r`` whose lists lie one after the other in the pool from ``base``."""
        first = self._count(r)
        ids = first + np.arange(lengths.size, dtype=np.int64)
        self.offset[r] = grow(self.offset[r], first + lengths.size)
        self.length[r] = grow(self.length[r], first + lengths.size)
        self.offset[r][ids] = base + lengths.cumsum() - lengths
        self.length[r][ids] = lengths
        if r < self.k:
            self.size[r] = first + lengths.size
            self.planes[r] = grow(self.planes[r], first + lengths.size)
        return ids

    def _facets(self, r: int, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The facets of the given faces of rank ``r``, face after face, and every entry's face (its position)."""
        return self._facet_entries(r, faces), np.arange(faces.size, dtype=ID).repeat(self.length[r][faces])

    def _facet_entries(self, r: int, faces: np.ndarray) -> np.ndarray:
        """The facets of the given faces of rank ``r``, face after face."""
        return self.pool[r][ragged(self.offset[r][faces], self.length[r][faces])]

    def _cell_vertices(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The vertices of the given cells, cell after cell, each once, and every cell's number of vertices."""
        faces, owner = cells, np.arange(cells.size, dtype=np.int64)
        for r in range(self.k, 0, -1):
            entries, at = self._facets(r, faces)
            key = distinct(owner[at] * KEY + entries)
            owner, faces = key // KEY, key % KEY
        return faces, np.bincount(owner, minlength=cells.size)

    def _face_of_vertex(self) -> np.ndarray:
        """A cell holding each vertex: a cell of a facet of ... of an edge of it (scatters of the pools)."""
        self._compact()
        holder = np.arange(self.nf, dtype=np.int64)
        for r in range(self.k, 0, -1):
            below = np.empty(self._count(r - 1), dtype=np.int64)
            n = self._count(r)
            below[self.pool[r][:self.top[r]]] = holder.repeat(self.length[r][:n])
            holder = below
        return holder

    # codes ----------------------------------------------------------------------------------------------------

    def _codes(self, r: int, faces: np.ndarray, word: int) -> np.ndarray:
        """The words from ``word`` on of the faces' codes, each the OR of its facets' (an edge's: of its ends'
        sides)."""
        if not faces.size:
            return np.zeros((0, self.S.shape[1] // 8 - word), dtype=np.uint64)
        entries = self._facet_entries(r, faces)
        below = self.S.view(np.uint64) if r == 1 else self.codes[r - 1].view(np.uint64)
        lengths = self.length[r][faces]
        return np.bitwise_or.reduceat(below[entries, word:], lengths.cumsum() - lengths, axis=0)

    def _start_layer(self, q: int) -> None:
        self._compact()
        words = self.S.shape[1] // 8
        self.codes = [_NO_CODES]  # a vertex's are its sides, S
        for r in range(1, self.k + 1):
            n = self._count(r)
            codes = np.zeros((_ROOM * n, words), dtype=np.uint64)
            codes[:n] = self._codes(r, np.arange(n, dtype=np.int64), 0)
            self.codes.append(codes.view(np.int8))
        self.code = self.codes[self.k]
        layer = self.layers[q]
        self.hyperplanes = layer.width * len(layer.activation.breakpoints)  # the columns of S that are hyperplanes

    def _status(self, r: int, faces: np.ndarray, h: int) -> np.ndarray:
        """The faces' sides of hyperplane ``h``: the OR of their vertices' (``ON`` when all lie on it)."""
        return (self.S if r == 0 else self.codes[r])[faces, h]

    # the split --------------------------------------------------------------------------------------------------

    def _split(self, q: int, h: int) -> None:
        cells, _, unit, bp = self._crossed(q, h)
        if cells.size == 0:
            return
        k = self.k
        hline = self._cell_lines(q, unit, bp, cells)
        # From the cells down: the crossed faces of every rank, each once with one crossed cell holding it, and per
        # crossed face its facets with their sides (and, for the crossed ones, their position among their rank's).
        crossed: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * (k + 1)
        holder: list[np.ndarray] = [np.zeros(0, dtype=np.int64)] * (k + 1)
        listed: dict[int, tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = {}
        crossed[k], holder[k] = cells, np.arange(cells.size, dtype=np.int64)
        for r in range(k, 1, -1):
            entries, at = self._facets(r, crossed[r])
            self._slot = grow(self._slot, self._count(r - 1))
            side = self._status(r - 1, entries, h)
            if not side.all():
                raise MeshError(f"hyperplane {h} of layer {q}: a facet of a crossed face of rank {r} lies on it")
            across = (side == _CROSSED).nonzero()[0]
            first, position = distinct_by_slots(entries[across], self._slot)
            crossed[r - 1] = entries[across[first]]
            holder[r - 1] = holder[r][at[across[first]]]
            listed[r] = (entries, at, side, position)
        size_before = [self._count(r) for r in range(k + 1)]
        # Faces lying on the hyperplane need a vertex on it (the new ones aside): mostly there is none.
        touching = bool((self.S[:self.nv, h] == ON).any())
        lower, section = self._split_edges(q, h, crossed[1], holder[1], hline, cells)
        for r in range(2, k + 1):
            lower, section = self._split_rank(h, r, crossed[r], holder[r], listed[r], lower, section, hline,
                                              touching)
        self._update_codes(h, crossed, size_before)

    def _split_edges(self, q: int, h: int, edges: np.ndarray, holder: np.ndarray, hline: np.ndarray,
                     cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """A new vertex on every crossed edge; each edge keeps its end above and a new edge gets the end below.
        Returns the new edges and the new vertices (the edges' sections), in the edges' order."""
        k, n = self.k, edges.size
        starts = self.offset[1][edges]
        ends = np.stack([self.pool[1][starts], self.pool[1][starts + 1]], axis=1)
        new_v = self.nv + np.arange(n, dtype=np.int64)
        self.vline = grow(self.vline, self.nv + n)
        self.vline[new_v, :k - 1] = self.planes[1][edges]
        self.vline[new_v, k - 1] = hline[holder]
        Zn, En, lam, first_column, _ = self._crossing(q, h, ends[:, 0], ends[:, 1])
        self.xyz = grow(self.xyz, self.nv + n)
        with np.errstate(all="ignore"):  # approximate points, only candidates checked exactly later
            self.xyz[new_v] = self.xyz[ends[:, 0]] + lam[:, None] * (self.xyz[ends[:, 1]] - self.xyz[ends[:, 0]])
        self._store_vertices(q, h, new_v, Zn, En, first_column, cells[holder])
        first_above = self.S[ends[:, 0], h] == ABOVE
        up = np.where(first_above, ends[:, 0], ends[:, 1])
        down = np.where(first_above, ends[:, 1], ends[:, 0])
        self.pool[1][starts], self.pool[1][starts + 1] = up, new_v
        pairs = np.stack([down, new_v], axis=1).ravel()
        lower = self._new_faces(1, np.full(n, 2, dtype=np.int64), self._append(1, pairs))
        self.planes[1][lower] = self.planes[1][edges]
        return lower, new_v

    def _split_rank(self, h: int, r: int, faces: np.ndarray, holder: np.ndarray, listed, lower_below: np.ndarray,
                    section_below: np.ndarray, hline: np.ndarray, touching: bool) -> tuple[np.ndarray, np.ndarray]:
        """Split the crossed faces of rank ``r`` given the parts and sections of the crossed faces of rank ``r - 1``
        (``lower_below``, ``section_below``, by their position); return this rank's lower parts and sections.
        ``touching``: whether an old vertex lies on the hyperplane (else no face does)."""
        k = self.k
        entries, at, side, position = listed
        crossing = side == _CROSSED
        # The sections' facets: the sections of the crossed facets, and the faces of rank r - 2 lying on the
        # hyperplane of the facets on one side (each met twice).
        section_face, section_facets = at[crossing], section_below[position]  # grouped by face already
        if touching:
            whole = (~crossing).nonzero()[0]
            inner, inner_at = self._facets(r - 1, entries[whole])
            flat = (self._status(r - 2, inner, h) == ON).nonzero()[0]
            key = distinct(np.concatenate([section_face * KEY + section_facets,
                                           at[whole[inner_at[flat]]] * KEY + inner[flat]]))
            section_face, section_facets = key // KEY, key % KEY
        section_lengths = np.bincount(section_face, minlength=faces.size)
        if (section_lengths < r).any():
            raise MeshError(f"hyperplane {h}: a section of rank {r - 1} has fewer than {r} facets")
        sections = self._new_faces(r - 1, section_lengths, self._append(r - 1, section_facets))
        # The parts: the facets above and the crossed facets' upper parts (their old ids) for the face itself, the
        # facets below and the lower parts for a new face; both end with the section.
        lowered = entries.copy()
        lowered[crossing] = lower_below[position]
        up, down = side != BELOW, side != ABOVE
        pool_a, len_a = followed(at[up], entries[up], sections)
        pool_b, len_b = followed(at[down], lowered[down], sections)
        base = self._append(r, pool_a, pool_b)
        self.offset[r][faces] = base + len_a.cumsum() - len_a
        self.length[r][faces] = len_a
        if r < k:
            lower = self._new_faces(r, len_b, base + pool_a.size)
            self.planes[r][lower] = self.planes[r][faces]
            self.planes[r - 1][sections, :k - r] = self.planes[r][faces]
            self.planes[r - 1][sections, k - r] = hline[holder]
            return lower, sections
        self.planes[k - 1][sections, 0] = hline
        self.anc = grow(self.anc, self.nf + faces.size)
        lower = self._new_faces(k, len_b, base + pool_a.size)
        self.anc[lower] = self.anc[faces]
        self.nf += faces.size
        return lower, sections

    def _update_codes(self, h: int, crossed: list[np.ndarray], size_before: list[int]) -> None:
        """The codes of the faces the split changed (the crossed ones and the new ones) against the hyperplanes
        after ``h``, rank after rank; the cells' parts keep the earlier columns, and take ``h``'s side."""
        k = self.k
        cells, nc = crossed[k], crossed[k].size
        new_cells = np.arange(size_before[k], self.nf, dtype=np.int64)
        for r in range(1, k + 1):
            grown = grow(self.codes[r].view(np.uint64), self._count(r))
            self.codes[r] = grown.view(np.int8)
        self.code = self.codes[k]
        self.code[new_cells] = self.code[cells]
        self.code[cells, h], self.code[new_cells, h] = ABOVE, BELOW
        if h + 1 == self.hyperplanes:  # the layer's last: no code is read again
            return
        word = (h + 1) // 8
        for r in range(1, k + 1):
            changed = np.concatenate([crossed[r], np.arange(size_before[r], self._count(r), dtype=np.int64)])
            words = self._codes(r, changed, word)
            if r < k:
                self.codes[r].view(np.uint64)[changed, word:] = words
            else:
                self.code[changed, h + 1:] = words.view(np.int8)[:, h + 1 - 8 * word:]
        assert nc == new_cells.size

    # output -----------------------------------------------------------------------------------------------------

    def _cell_facets(self) -> tuple[np.ndarray, np.ndarray, int]:
        self._compact()
        k = self.k
        owner = np.arange(self.nf, dtype=np.int64).repeat(self.length[k][:self.nf])
        return owner, self.pool[k][:self.top[k]], self.size[k - 1]

    def _facet_planes(self, facets: np.ndarray) -> np.ndarray:
        return self.planes[self.k - 1][facets, 0]
