"""The 3-D mesh: cells are convex polytopes bounded by polygonal faces, faces are sets of edges, edges join two
vertices; a hyperplane splits every cell it crosses along a new face, every face it crosses along a new edge and
every edge it crosses at a new vertex, for all cells at once.

Only combinatorics and signs are needed: a vertex's side of the hyperplane is proven (or decided exactly) by
:class:`~.mesh.Mesh`; a face with vertices strictly on both sides meets the hyperplane in a chord between its two
points on it (old vertices on the hyperplane or new ones on crossing edges); a cell crossed so is cut along the
polygon whose edges are the chords of its crossed faces and its own edges lying on the hyperplane. Degenerate
positions (the hyperplane through vertices, along edges, containing faces) need no special case: a face or cell
is split only when it has vertices strictly on both sides.
"""

from __future__ import annotations

import numpy as np

from polyregions.networks._float_filter import doubles
from polyregions.regions._mesh.cells import CellMesh
from polyregions.regions._mesh.polytope_3d import polytope_mesh
from polyregions.regions._mesh.support import (
    ABOVE,
    BELOW,
    ID,
    KEY,
    MeshError,
    distinct,
    distinct_by_slots,
    followed,
    grow,
    ragged,
)

__all__ = ["Mesh3D"]

# Room in the pools and the per-edge, per-face and per-cell arrays at the start of a layer, as a multiple of what
# they hold: a layer's splits append several times as many lists as there were, and each growth copies the whole
# array (4x rather than 2x: 5-19% less CPU on He [3,16,16,16], [3,32,32,32] and the bunny). Room never written
# costs address space only.
_ROOM = 4


def _meet(v: int, rows: list) -> tuple[int, int, int, int]:
    """Where the three planes ``a . t + c = 0`` of vertex ``v`` meet (Cramer's rule on integers)."""
    (a1, a2, a3, c1), (b1, b2, b3, c2), (d1, d2, d3, c3) = rows
    W = a1 * (b2 * d3 - b3 * d2) - a2 * (b1 * d3 - b3 * d1) + a3 * (b1 * d2 - b2 * d1)
    if W == 0:
        raise MeshError(f"vertex {v} lies on three dependent planes")
    # t = -M^-1 c: each coordinate a determinant with -c in its column.
    X = -(c1 * (b2 * d3 - b3 * d2) - a2 * (c2 * d3 - b3 * c3) + a3 * (c2 * d2 - b2 * c3))
    Y = -(a1 * (c2 * d3 - b3 * c3) - c1 * (b1 * d3 - b3 * d1) + a3 * (b1 * c3 - c2 * d1))
    Z = -(a1 * (b2 * c3 - c2 * d2) - a2 * (b1 * c3 - c2 * d1) + c1 * (b1 * d2 - b2 * d1))
    return (X, Y, Z, W) if W > 0 else (-X, -Y, -Z, -W)


class Mesh3D(CellMesh):
    """Cells are lists of faces in a pool (``cstart``, ``clen``, ``cf``), faces lists of edges in another
    (``fstart``, ``flen``, ``fe``) with the plane ``fplane`` (a line id) they lie on; edge ``e`` joins vertices
    ``ev[e]`` and lies on the planes ``el[e]``; every vertex is where its three planes ``vline`` meet. A face is
    listed by the one or two cells it bounds, an edge by every face it bounds."""

    def _initial_mesh(self) -> None:
        domain = polytope_mesh(self.A, self.b)
        line_of_row: dict[int, int] = {}

        def line(row: int) -> int:
            if row not in line_of_row:
                line_of_row[row] = self._add_boundary_line(row)
            return line_of_row[row]

        self.nv = len(domain.points)
        self.corner_points = domain.points
        self.vline = grow(np.array([[line(r) for r in rows] for rows in domain.vertex_rows], dtype=np.int64), 64)
        self.xyz = grow(doubles(domain.points)[0], 64)
        self.ne = len(domain.edges)
        self.ev = grow(np.array([(u, w) for u, w, _, _ in domain.edges], dtype=ID), 64)
        self.el = grow(np.array([(line(r), line(s)) for _, _, r, s in domain.edges], dtype=np.int64), 64)
        self.n2 = len(domain.facets)
        self.fplane = grow(np.array([line(r) for r, _ in domain.facets], dtype=np.int64), 64)
        self.flen = grow(np.array([len(e) for _, e in domain.facets], dtype=np.int64), 64)
        self.fe = grow(np.array([i for _, e in domain.facets for i in e], dtype=ID), 64)
        self.fstart = grow(self.flen[:self.n2].cumsum() - self.flen[:self.n2], 64)
        self.ftop = int(self.flen[:self.n2].sum())
        self.nf = 1
        self.cf = grow(np.arange(self.n2, dtype=ID), 64)
        self.cstart = grow(np.zeros(1, dtype=np.int64), 64)
        self.clen = grow(np.array([self.n2], dtype=np.int64), 64)
        self.ctop = self.n2
        self.points_cache = {}
        self._slot = np.empty(64, dtype=np.int64)

    # exact points ---------------------------------------------------------------------------------------------

    def _homogeneous(self, vertices: np.ndarray) -> list[tuple[int, ...]]:
        """Exact ``(X, Y, Z, W)`` with ``W > 0`` and the vertex at ``(X, Y, Z) / W``."""
        return self._cached_points(vertices, _meet)

    # pools ----------------------------------------------------------------------------------------------------

    def _compact(self) -> None:
        """Drop the pools' stale lists (those of cells and faces rewritten by splits); a pool holding none (no
        list rewritten since the last compaction) stays as it is."""
        if self.ctop != int(self.clen[:self.nf].sum()):
            idx = ragged(self.cstart[:self.nf], self.clen[:self.nf])
            self.cf = grow(self.cf[idx], _ROOM * idx.size)
            self.ctop = idx.size
            self.cstart[:self.nf] = self.clen[:self.nf].cumsum() - self.clen[:self.nf]
        if self.ftop != int(self.flen[:self.n2].sum()):
            idx = ragged(self.fstart[:self.n2], self.flen[:self.n2])
            self.fe = grow(self.fe[idx], _ROOM * idx.size)
            self.ftop = idx.size
            self.fstart[:self.n2] = self.flen[:self.n2].cumsum() - self.flen[:self.n2]

    def _append(self, pool: str, top: str, *lists: np.ndarray) -> int:
        """Write ``lists`` one after the other at the end of the pool ``pool`` (used up to ``top``), and return
        where the first starts."""
        base = getattr(self, top)
        end = base + sum(values.size for values in lists)
        out = grow(getattr(self, pool), end)
        at = base
        for values in lists:
            out[at:at + values.size] = values
            at += values.size
        setattr(self, pool, out)
        setattr(self, top, end)
        return base

    def _cell_vertices(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The vertices of the given cells, cell after cell (each several times: once per face and edge end), and
        every cell's number of entries."""
        clen = self.clen[cells]
        faces = self.cf[ragged(self.cstart[cells], clen)]
        flen = self.flen[faces]
        edges = self.fe[ragged(self.fstart[faces], flen)]
        per_cell = np.add.reduceat(flen, clen.cumsum() - clen) if cells.size else flen[:0]
        return self.ev[edges].ravel(), 2 * per_cell

    def _face_of_vertex(self) -> np.ndarray:
        """A cell holding each vertex: a cell of a face of an edge of it (scatters of the pools, no gathers)."""
        self._compact()
        cell_of_face = np.empty(self.n2, dtype=np.int64)
        cell_of_face[self.cf[:self.ctop]] = np.arange(self.nf, dtype=np.int64).repeat(self.clen[:self.nf])
        face_of_edge = np.empty(self.ne, dtype=np.int64)
        face_of_edge[self.fe[:self.ftop]] = np.arange(self.n2, dtype=np.int64).repeat(self.flen[:self.n2])
        edge_of_vertex = np.empty(self.nv, dtype=np.int64)
        edge_of_vertex[self.ev[:self.ne].ravel()] = np.arange(self.ne, dtype=np.int64).repeat(2)
        return cell_of_face[face_of_edge[edge_of_vertex]]

    def _start_layer(self, q: int) -> None:
        """Every cell's code: the OR of its faces', each the OR of its edges', each the OR of its two ends' sides
        (a vertex is read once per edge rather than once per edge of every face of every cell holding it)."""
        self._compact()
        words = self.S.view(np.uint64)
        edges = words[self.ev[:self.ne, 0]] | words[self.ev[:self.ne, 1]]
        faces = np.bitwise_or.reduceat(edges[self.fe[:self.ftop]], self.fstart[:self.n2], axis=0)
        self.ecode = grow(edges, _ROOM * self.ne)  # the edges' codes, kept as the faces' are
        cells = np.bitwise_or.reduceat(faces[self.cf[:self.ctop]], self.cstart[:self.nf], axis=0)
        self.code = grow(cells.view(np.int8), _ROOM * self.nf)
        # Faces' codes, kept up to date by the splits from the word of the next hyperplane on (the earlier words
        # are never read again in this layer).
        self.fcode = grow(faces, _ROOM * self.n2)
        self.fstale = np.zeros(self.fcode.shape[0], dtype=bool)  # sections: their codes computed when first read

    # the split --------------------------------------------------------------------------------------------------

    def _split(self, q: int, h: int) -> None:
        cells, _, unit, bp = self._crossed(q, h)
        if cells.size == 0:
            return
        nc = cells.size
        clen = self.clen[cells]
        cf_face = self.cf[ragged(self.cstart[cells], clen)]
        cf_owner = np.arange(nc, dtype=ID).repeat(clen)
        hline = self._cell_lines(q, unit, bp, cells)
        # The faces of the crossed cells, each once, with one of its cells; their edges and ends' sides.
        self._slot = grow(self._slot, max(self.n2, self.ne))
        first_face, cf_rank = distinct_by_slots(cf_face, self._slot)
        faces, face_cell = cf_face[first_face], cf_owner[first_face]
        nd = faces.size
        flen = self.flen[faces]
        fe_edge = self.fe[ragged(self.fstart[faces], flen)]
        fe_owner = np.arange(nd, dtype=ID).repeat(flen)
        ends = self.ev[fe_edge]
        column = self.S[:, h]
        su, sw = column[ends[:, 0]], column[ends[:, 1]]
        sides = su | sw
        status = np.bitwise_or.reduceat(sides, flen.cumsum() - flen)
        if (status == 0).any():
            raise MeshError(f"hyperplane {h} of layer {q}: a face of a crossed cell lies on it")
        # New vertices: one per crossing edge (an edge is listed by each of its faces).
        crossing = (sides == ABOVE | BELOW).nonzero()[0]
        first_edge, new_rank = distinct_by_slots(fe_edge[crossing], self._slot)
        split_edges = fe_edge[crossing[first_edge]]
        nn = split_edges.size
        new_v = self.nv + np.arange(nn, dtype=np.int64)
        new_e = self.ne + np.arange(nn, dtype=np.int64)
        self._changed_edges = (split_edges, self.ne)  # and every edge from that id on
        if nn:
            u, w = self.ev[split_edges, 0], self.ev[split_edges, 1]
            cell_of_new = face_cell[fe_owner[crossing[first_edge]]]
            self.vline = grow(self.vline, self.nv + nn)
            self.vline[new_v, :2] = self.el[split_edges]
            self.vline[new_v, 2] = hline[cell_of_new]
            Zn, En, lam, first_column, _ = self._crossing(q, h, u, w)
            self.xyz = grow(self.xyz, self.nv + nn)
            with np.errstate(all="ignore"):  # approximate points, only candidates checked exactly later
                self.xyz[new_v] = self.xyz[u] + lam[:, None] * (self.xyz[w] - self.xyz[u])
            self._store_vertices(q, h, new_v, Zn, En, first_column, cells[cell_of_new])
            # Edge (u, w) becomes (u, n) and a new edge (n, w) on the same planes.
            self.ev, self.el = grow(self.ev, self.ne + nn), grow(self.el, self.ne + nn)
            self.ev[new_e, 0], self.ev[new_e, 1] = new_v, w
            self.el[new_e] = self.el[split_edges]
            self.ev[split_edges, 1] = new_v
            self.ne += nn
        # Each crossing entry's halves: the edge keeps its first end's side.
        half_first = fe_edge[crossing]
        half_second = new_e[new_rank]
        su_cross = su[crossing]
        above_half = np.where(su_cross == ABOVE, half_first, half_second)
        below_half = np.where(su_cross == ABOVE, half_second, half_first)
        self._split_faces(q, h, faces, face_cell, hline, fe_edge, fe_owner, ends, su, sw, sides, status, crossing,
                          new_v[new_rank], above_half, below_half)
        self._split_cells(h, cells, cf_face, cf_owner, cf_rank, hline, fe_edge, fe_owner, su, sw, status, nd)
        if h + 1 < self.code.shape[1]:
            self._later_codes(h, cells, clen, faces, cf_rank, status)

    def _split_faces(self, q, h, faces, face_cell, hline, fe_edge, fe_owner, ends, su, sw, sides, status, crossing,
                     crossing_vertex, above_half, below_half) -> None:
        """Split the crossed faces: each keeps its part above the hyperplane and a new face gets the part below;
        both end with the chord, a new edge. Sets ``_chord`` (per listed face: its chord or -1) and
        ``_below_face`` (per listed face: the new face, or the face itself when not crossed)."""
        nd = faces.size
        crossed = status == ABOVE | BELOW
        rank = crossed.cumsum() - 1  # among the crossed faces
        ncf = int(rank[-1]) + 1 if nd else 0
        chord = np.full(nd, -1, dtype=np.int64)
        self._below_face = faces.copy()
        if ncf == 0:
            self._chord = chord
            self._parts = (np.zeros(0, dtype=np.int64),) + (np.zeros(0, dtype=np.int64),) * 4
            return
        # The two points of every crossed face on the hyperplane: its vertices there and its crossing edges' new
        # vertices (a vertex is listed by two edges of the face).
        on_u, on_w = (su == 0).nonzero()[0], (sw == 0).nonzero()[0]
        owners = np.concatenate([fe_owner[on_u], fe_owner[on_w], fe_owner[crossing]])
        points = np.concatenate([ends[on_u, 0], ends[on_w, 1], crossing_vertex])
        keep = crossed[owners]
        key = distinct(rank[owners[keep]] * KEY + points[keep])
        if key.size != 2 * ncf or ((key[0::2] // KEY) != np.arange(ncf)).any():
            raise MeshError(f"hyperplane {h} of layer {q}: expected two points on it per crossed face")
        p1, p2 = key[0::2] % KEY, key[1::2] % KEY
        which = crossed.nonzero()[0]
        chords = self.ne + np.arange(ncf, dtype=np.int64)
        self.ev, self.el = grow(self.ev, self.ne + ncf), grow(self.el, self.ne + ncf)
        self.ev[chords, 0], self.ev[chords, 1] = p1, p2
        self.el[chords, 0] = self.fplane[faces[which]]
        self.el[chords, 1] = hline[face_cell[which]]
        self.ne += ncf
        chord[which] = chords
        # The parts' edges: whole edges on their side and the halves of the crossing ones, in the faces' order.
        in_crossed = crossed[fe_owner]
        upper = np.where(sides == ABOVE, fe_edge, -1)
        lower = np.where(sides == BELOW, fe_edge, -1)
        upper[crossing], lower[crossing] = above_half, below_half
        pool_a, len_a = followed(rank[fe_owner[in_crossed & (upper >= 0)]], upper[in_crossed & (upper >= 0)], chords)
        pool_b, len_b = followed(rank[fe_owner[in_crossed & (lower >= 0)]], lower[in_crossed & (lower >= 0)], chords)
        new_faces = self.n2 + np.arange(ncf, dtype=np.int64)
        base = self._append("fe", "ftop", pool_a, pool_b)
        for name in ("fstart", "flen", "fplane"):
            setattr(self, name, grow(getattr(self, name), self.n2 + ncf))
        kept = faces[which]
        self.fstart[kept] = base + len_a.cumsum() - len_a
        self.flen[kept] = len_a
        self.fstart[new_faces] = base + pool_a.size + len_b.cumsum() - len_b
        self.flen[new_faces] = len_b
        self.fplane[new_faces] = self.fplane[kept]
        self.n2 += ncf
        self._below_face[which] = new_faces
        self._chord = chord
        self._parts = (which, pool_a, len_a, pool_b, len_b)

    def _split_cells(self, h, cells, cf_face, cf_owner, cf_rank, hline, fe_edge, fe_owner, su, sw, status, nd) -> None:
        """Split the crossed cells along new faces: each keeps its part above the hyperplane and a new cell gets
        the part below. The new face's edges are the chords of the cell's crossed faces and the cell's edges on
        the hyperplane (each listed by two faces of the cell)."""
        nc = cells.size
        chord = self._chord
        # Edges on the hyperplane, per listed face, then per (cell, face) entry.
        flat = ((su == 0) & (sw == 0)).nonzero()[0]
        count = np.bincount(fe_owner[flat], minlength=nd)
        at = ragged((count.cumsum() - count)[cf_rank], count[cf_rank])
        on_cell = cf_owner.repeat(count[cf_rank])
        has_chord = chord[cf_rank] >= 0
        key = distinct(np.concatenate([on_cell * KEY + fe_edge[flat[at]],
                                       cf_owner[has_chord] * KEY + chord[cf_rank[has_chord]]]))
        section_cell, section_edges = key // KEY, key % KEY
        sections = self.n2 + np.arange(nc, dtype=np.int64)
        len_s = np.bincount(section_cell, minlength=nc)
        if (len_s < 3).any():
            raise MeshError(f"hyperplane {h}: a cell's section has fewer than three edges")
        base = self._append("fe", "ftop", section_edges)
        for name in ("fstart", "flen", "fplane"):
            setattr(self, name, grow(getattr(self, name), self.n2 + nc))
        self.fstart[sections] = base + len_s.cumsum() - len_s
        self.flen[sections] = len_s
        self._section = (sections,)
        self.fplane[sections] = hline
        self.n2 += nc
        # The cells' faces: the upper cell keeps the faces above and the crossed faces' upper parts (their old
        # ids), the lower one gets the faces below and the lower parts; both get the section.
        side = status[cf_rank]
        crossed = side == ABOVE | BELOW
        up = crossed | (side == ABOVE)
        down = crossed | (side == BELOW)
        pool_a, len_a = followed(cf_owner[up], cf_face[up], sections)
        pool_b, len_b = followed(cf_owner[down], self._below_face[cf_rank[down]], sections)
        new_cells = self.nf + np.arange(nc, dtype=np.int64)
        base = self._append("cf", "ctop", pool_a, pool_b)
        for name in ("cstart", "clen", "anc", "code"):
            setattr(self, name, grow(getattr(self, name), self.nf + nc))
        self.cstart[cells] = base + len_a.cumsum() - len_a
        self.clen[cells] = len_a
        self.cstart[new_cells] = base + pool_a.size + len_b.cumsum() - len_b
        self.clen[new_cells] = len_b
        self.anc[new_cells] = self.anc[cells]
        self.code[new_cells, :h] = self.code[cells, :h]
        self.code[cells, h] = ABOVE
        self.code[new_cells, h] = BELOW
        self.nf += nc

    def _later_codes(self, h, cells, clen, faces, cf_rank, status) -> None:
        """The two parts' codes against the hyperplanes after ``h``: the OR of their faces' codes (a face not
        crossed keeps its own; a crossed face's parts and the section get theirs from their edges', an edge's the
        OR of its ends' sides), eight sides per operation."""
        nd, nc = status.size, cells.size
        word = (h + 1) // 8
        words = self.S.view(np.uint64)[:, word:]
        self.fcode, self.fstale = grow(self.fcode, self.n2), grow(self.fstale, self.n2)
        fcode = self.fcode[:, word:]

        self.ecode = grow(self.ecode, self.ne)
        ecode = self.ecode[:, word:]
        split_edges, first_new = self._changed_edges
        changed = np.concatenate([split_edges, np.arange(first_new, self.ne, dtype=np.int64)])
        ecode[changed] = words[self.ev[changed, 0]] | words[self.ev[changed, 1]]

        def codes(pool: np.ndarray, lengths: np.ndarray) -> np.ndarray:
            return np.bitwise_or.reduceat(ecode[pool], lengths.cumsum() - lengths, axis=0)

        whole = status != ABOVE | BELOW
        listed = faces[whole]
        stale = listed[self.fstale[listed]]
        if stale.size:  # sections of earlier splits, read for the first time
            lengths = self.flen[stale]
            fcode[stale] = codes(self.fe[ragged(self.fstart[stale], lengths)], lengths)
            self.fstale[stale] = False
        up = np.zeros((nd, words.shape[1]), dtype=np.uint64)
        down = np.zeros((nd, words.shape[1]), dtype=np.uint64)
        at = whole.nonzero()[0]
        above = status[at] == ABOVE
        up[at[above]] = fcode[listed[above]]
        down[at[~above]] = fcode[listed[~above]]
        which, pool_a, len_a, pool_b, len_b = self._parts
        if which.size:
            up[which] = fcode[faces[which]] = codes(pool_a, len_a)
            down[which] = fcode[self._below_face[which]] = codes(pool_b, len_b)
        self.fstale[self._section[0]] = True
        starts = clen.cumsum() - clen
        offset = h + 1 - 8 * word
        self.code[cells, h + 1:] = np.bitwise_or.reduceat(up[cf_rank], starts, axis=0).view(np.int8)[:, offset:]
        new_cells = self.nf - nc + np.arange(nc, dtype=np.int64)
        self.code[new_cells, h + 1:] = np.bitwise_or.reduceat(down[cf_rank], starts, axis=0).view(np.int8)[:, offset:]

    # output -----------------------------------------------------------------------------------------------------

    def _cell_facets(self) -> tuple[np.ndarray, np.ndarray, int]:
        self._compact()
        return np.arange(self.nf, dtype=np.int64).repeat(self.clen[:self.nf]), self.cf[:self.ctop], self.n2

    def _facet_planes(self, facets: np.ndarray) -> np.ndarray:
        return self.fplane[facets]
