"""The 2-D mesh: faces are convex polygons, split along chords where a hyperplane crosses them; the exact
inequalities and an exact interior point of every face."""

from __future__ import annotations

import copy
import math
from fractions import Fraction
from typing import NamedTuple

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.networks._float_filter import doubles
from polyregions.regions._mesh.mesh import Mesh
from polyregions.regions._mesh.support import (
    ABOVE,
    BELOW,
    KEY,
    MeshError,
    distinct,
    distinct_ranks,
    grow,
    or_rows,
    ragged,
)

__all__ = ["Mesh2D", "Runs"]


class Runs(NamedTuple):
    """The sides of a 2-D mesh's faces: one run (a maximal run of a cycle's edges on one line) per side, in blocks
    by face."""

    starts: np.ndarray       # each run's first position in the pool
    ends: np.ndarray         # the position after its last edge (where the face's next run starts)
    lines: np.ndarray        # its line
    faces: np.ndarray        # its face
    codes: np.ndarray        # the distinct rows, as ``2 * line + above`` (the face above the line or not)
    code_of_run: np.ndarray  # each run's index among them
    run_start: np.ndarray    # which pool positions start a run


def _meet(v: int, rows: list) -> tuple[int, int, int]:
    """Where the two lines ``a . t + c = 0`` of vertex ``v`` meet (Cramer's rule on integers)."""
    (a1, a2, c), (b1, b2, d) = rows
    W = a1 * b2 - a2 * b1
    if W == 0:
        raise MeshError(f"vertex {v} lies on two parallel lines")
    X, Y = a2 * d - c * b2, c * b1 - a1 * d
    return (X, Y, W) if W > 0 else (-X, -Y, -W)


class Mesh2D(Mesh):
    """Faces are counter-clockwise vertex cycles in a pool (``fstart``, ``flen``); ``pl[i]`` is the line of the
    edge from ``pv[i]`` to the next vertex of its cycle. Every vertex is the meeting point of two lines."""

    _met: np.ndarray   # per region of the previous layers: met by the current hyperplane (scratch, all False)
    _rank: np.ndarray  # per region of the previous layers: its rank among those met (scratch)

    def _initial_mesh(self) -> None:
        corners, rows = _polygon(self.A, self.b)
        lines = [self._add_boundary_line(r) for r in rows]
        n = len(corners)
        self.nv, self.nf = n, 1
        self.vline = grow(np.array([[lines[i - 1], lines[i]] for i in range(n)], dtype=np.int64), 64)
        self.corner_points = corners
        self.pv = grow(np.arange(n, dtype=np.int64), 64)
        self.pl = grow(np.array(lines, dtype=np.int64), 64)
        self.ptop = n
        self.fstart = grow(np.array([0], dtype=np.int64), 64)
        self.flen = grow(np.array([n], dtype=np.int64), 64)
        self.points_cache = {}
        self.xy = grow(doubles(corners)[0], 64)

    def _homogeneous(self, vertices: np.ndarray) -> list[tuple[int, ...]]:
        """Exact ``(X, Y, W)`` with ``W > 0`` and the vertex at ``(X / W, Y / W)``."""
        return self._cached_points(vertices, _meet)

    def _face_of_vertex(self) -> np.ndarray:
        """A face holding each vertex (of the compacted pool)."""
        self._compact()
        face = np.empty(self.nv, dtype=np.int64)
        face[self.pv[:self.ptop]] = np.repeat(np.arange(self.nf, dtype=np.int64), self.flen[:self.nf])
        return face

    def _compact(self) -> None:
        if self.ptop == int(self.flen[:self.nf].sum()):  # no list rewritten since the last compaction
            return
        idx = ragged(self.fstart[:self.nf], self.flen[:self.nf])
        self.pv = grow(self.pv[idx], 2 * idx.size)
        self.pl = grow(self.pl[idx], 2 * idx.size)
        self.ptop = idx.size
        self.fstart[:self.nf] = np.cumsum(self.flen[:self.nf]) - self.flen[:self.nf]

    def _start_layer(self, q: int) -> None:
        self._compact()
        code = or_rows(self.S, self.pv[:self.ptop], self.fstart[:self.nf], 0)
        self.code = grow(code, 2 * self.nf)
        # Scratch for the regions of the previous layers that a hyperplane meets (see _split).
        self._met = np.zeros(self.nf, dtype=bool)
        self._rank = np.zeros(self.nf, dtype=np.int64)

    def _split(self, q: int, h: int) -> None:
        faces, fa, unit, bp = self._crossed(q, h)
        if faces.size == 0:
            return
        nf = faces.size
        # The split faces' cycles one after another (array methods rather than numpy's functions: a split is a
        # few hundred small operations, whose call overhead is most of its cost).
        lens = self.flen[faces]
        ends = lens.cumsum()
        offs = ends - lens
        total = int(ends[-1])
        idx = (self.fstart[faces] - offs).repeat(lens)
        idx += np.arange(total, dtype=np.int64)
        verts = self.pv[idx]
        lines = self.pl[idx]
        s = self.S[verts, h]
        nxt = np.arange(1, total + 1, dtype=np.int64)
        nxt[ends - 1] = offs
        cross = (s | s[nxt]) == ABOVE | BELOW
        ci = cross.nonzero()[0]
        owner = np.arange(nf, dtype=np.int64).repeat(lens)
        # One chord line per region of the previous layers met by this hyperplane (in increasing order; marking
        # them in an array the size of those regions is quicker than sorting the faces' regions).
        ancestor = self.anc[faces]
        self._met[ancestor] = True
        regions = self._met.nonzero()[0]
        self._met[regions] = False
        self._rank[regions] = np.arange(regions.size)
        chord = self._add_lines(q, unit, bp, regions)[self._rank[ancestor]]
        # New vertices, one per crossing edge (an interior edge is seen from both of its faces).
        u, w = verts[ci], verts[nxt[ci]]
        key = np.minimum(u, w) * KEY + np.maximum(u, w)
        first, inverse = distinct_ranks(key)
        nnew = first.size
        new_ids = self.nv + np.arange(nnew, dtype=np.int64)
        if nnew:
            rep = ci[first]
            ru, rw = verts[rep], verts[nxt[rep]]
            self.vline = grow(self.vline, self.nv + nnew)
            self.vline[new_ids, 0] = lines[rep]
            self.vline[new_ids, 1] = chord[owner[rep]]
            Zn, En, lam, first_column, points = self._crossing(q, h, ru, rw, new_ids, ancestor[owner[rep]])
            # Approximate coordinates, only ever used as candidates that are then checked exactly.
            self.xy = grow(self.xy, self.nv + nnew)
            with np.errstate(all="ignore"):  # infinite or NaN candidates are simply rejected later
                interpolated = self.xy[ru] + lam[:, None] * (self.xy[rw] - self.xy[ru])
                self.xy[new_ids] = interpolated if points is None else np.where(np.isnan(lam)[:, None], points,
                                                                                interpolated)
            self._store_vertices(q, h, new_ids, Zn, En, first_column, faces[owner[rep]])
        # Cycles with the new vertices inserted after their crossing corners.
        count = 1 + cross
        apos = count.cumsum() - count
        size = total + ci.size
        aug_v = np.empty(size, dtype=np.int64)
        aug_l = np.empty(size, dtype=np.int64)
        aug_s = np.empty(size, dtype=np.int8)
        aug_v[apos], aug_l[apos], aug_s[apos] = verts, lines, s
        after = apos[ci] + 1
        aug_v[after] = new_ids[inverse]
        aug_l[after] = lines[ci]
        aug_s[after] = 0
        nlen = lens + np.bincount(owner[ci], minlength=nf)
        noffs = nlen.cumsum() - nlen
        zeros = (aug_s == 0).nonzero()[0]
        if zeros.size != 2 * nf:
            raise MeshError(f"hyperplane {h} of layer {q}: expected two crossing points per split face, "
                             f"got {zeros.size} for {nf} faces")
        z1, z2 = zeros[0::2], zeros[1::2]
        lenA = z2 - z1 + 1
        lenB = nlen - lenA + 2
        if (lenA < 3).any() or (lenB < 3).any():
            raise MeshError(f"hyperplane {h} of layer {q}: a chord along an edge")
        # The parts, all A's then all B's: A runs from the first crossing point to the second, B from the second
        # around its cycle to the first; each ends with the chord.
        part_len = np.concatenate([lenA, lenB])
        part_end = part_len.cumsum()
        part_start = part_end - part_len
        cycle_start = np.concatenate([noffs, noffs]).repeat(part_len)
        pos = (np.concatenate([z1, z2]) - part_start).repeat(part_len)
        pos += np.arange(int(part_end[-1]), dtype=np.int64)
        pos -= cycle_start
        pos %= np.concatenate([nlen, nlen]).repeat(part_len)
        pos += cycle_start
        sideA = aug_s[z1 + 1]
        # Write the two parts: the face keeps part A, a new face gets part B.
        base = self.ptop
        need = base + pos.size
        self.pv = grow(self.pv, need)
        self.pl = grow(self.pl, need)
        self.pv[base:need] = aug_v[pos]
        self.pl[base:need] = aug_l[pos]
        self.pl[base + part_end - 1] = np.concatenate([chord, chord])
        self.ptop = need
        new_faces = self.nf + np.arange(nf, dtype=np.int64)
        both = np.concatenate([faces, new_faces])
        for name in ("fstart", "flen", "anc", "code"):
            setattr(self, name, grow(getattr(self, name), self.nf + nf))
        self.fstart[both] = base + part_start
        self.flen[both] = part_len
        self.anc[new_faces] = ancestor
        self.code[new_faces, :h] = self.code[faces, :h]
        self.code[faces, h] = sideA
        self.code[new_faces, h] = (ABOVE | BELOW) ^ sideA
        if h + 1 < self.code.shape[1]:
            self.code[both, h + 1:] = or_rows(self.S, self.pv[base:need], part_start, h + 1)
        self.nf += nf

    def _adjacent_pairs(self) -> np.ndarray:
        """The two faces of every interior edge (an edge appears once in each of its faces' cycles); two faces
        that share a facet cut into several edges appear once per edge."""
        self._compact()
        nf, total = self.nf, self.ptop
        owner = np.repeat(np.arange(nf, dtype=np.int64), self.flen[:nf])
        u, w = self.pv[:total], self.pv[self._next_in_cycle()]
        key = np.minimum(u, w) * KEY + np.maximum(u, w)
        # An edge borders two faces, so equal keys come in pairs: an unstable sort (several times quicker than
        # numpy's stable one on 64-bit keys) with each pair put in pool order gives what a stable sort gives.
        order = np.argsort(key)
        sk = key[order]
        same = (sk[1:] == sk[:-1]).nonzero()[0]
        first, second = order[same], order[same + 1]
        return np.stack([owner[np.minimum(first, second)], owner[np.maximum(first, second)]], axis=1)

    def _next_in_cycle(self) -> np.ndarray:
        """For every position of the (compacted) pool, the position of the next vertex of its face's cycle."""
        offs, lens = self.fstart[:self.nf], self.flen[:self.nf]
        nxt = np.arange(1, self.ptop + 1, dtype=np.int64)
        nxt[offs + lens - 1] = offs
        return nxt

    def restricted(self, faces: np.ndarray) -> "Mesh2D":
        """The mesh of the given current faces alone, between two layers: their cycles and vertices (renumbered)
        with the vertices' values, every line and the regions of the earlier layers. The edges the faces share with
        the others become boundary edges, so refining the new mesh gives the regions of this one inside the faces.
        """
        self._compact()
        part = copy.copy(self)  # the integer maps too: they forget what they know of regions given other pieces
        lens = self.flen[faces]
        idx = ragged(self.fstart[faces], lens)
        used, cycles = np.unique(self.pv[idx], return_inverse=True)
        part.nv, part.nf, part.ptop = used.size, faces.size, idx.size
        part.pv, part.pl = cycles.astype(np.int64), self.pl[idx]
        part.flen, part.fstart = lens, lens.cumsum() - lens
        part.vline, part.xy, part.Z, part.E = self.vline[used], self.xy[used], self.Z[used], self.E[used]
        part.points_cache = {}
        last = self.pieces[-1]
        part.pieces = [*self.pieces[:-1], None if last is None else last[faces]]
        part.ancestors = [*self.ancestors[:-1], self.ancestors[-1][faces]]
        # Each part adds its lines after the ones it was given: its own copies of the lines' arrays.
        part.lines, part.lrow, part.lerr = self.lines.copy(), self.lrow.copy(), self.lerr.copy()
        part.line_rows = dict(self.line_rows)
        return part

    def _runs(self, patterns: np.ndarray) -> "Runs":
        """The faces' sides: a run (a maximal run of a cycle's edges on one line) per side, in blocks by face, each
        face's domain rows first and then the others in cycle order."""
        nf = self.nf
        lens, offs = self.flen[:nf], self.fstart[:nf]
        lines = self.pl[:self.ptop]
        prev = np.arange(-1, self.ptop - 1, dtype=np.int64)
        prev[offs] = offs + lens - 1
        owner = np.repeat(np.arange(nf, dtype=np.int64), lens)
        run_start = lines != lines[prev]
        starts = np.flatnonzero(run_start)
        faces = owner[starts]
        # The next run of the same face, cyclically: the next in the pool but for a face's last run.
        following = np.arange(1, starts.size + 1, dtype=np.int64)
        last = np.flatnonzero(np.append(faces[1:] != faces[:-1], True))
        following[last] = np.concatenate([[0], last[:-1] + 1])
        ends = starts[following]
        order = np.lexsort((self.lines[lines[starts], 0] >= 0, faces))  # stable: cycle order within each block
        starts, ends, faces = starts[order], ends[order], faces[order]
        run_lines = lines[starts]
        self._ensure_lines(distinct(run_lines))
        above = self._line_sides(run_lines, faces, patterns)
        codes, code_of_run = np.unique(run_lines * 2 + above, return_inverse=True)
        return Runs(starts, ends, run_lines, faces, codes, code_of_run, run_start)

    def _face_geometry(self, patterns: np.ndarray) -> list[tuple[Matrix, Vector, Vector]]:
        """Every face's exact inequalities (one row per maximal run of edges on one line, the domain's first) and
        interior point."""
        runs = self._runs(patterns)
        row_objects = [self._oriented_row(int(c) >> 1, bool(c & 1)) for c in runs.codes.tolist()]
        all_A = [row_objects[i][0] for i in runs.code_of_run.tolist()]
        all_b = [row_objects[i][1] for i in runs.code_of_run.tolist()]
        points = self.interior_points(runs)
        ends = np.cumsum(np.bincount(runs.faces, minlength=self.nf)).tolist()
        return [(tuple(all_A[start:end]), tuple(all_b[start:end]), point)
                for start, end, point in zip([0] + ends[:-1], ends, points)]

    @staticmethod
    def _strictly_inside(points, r, rows, run_faces, code_of_run, *, faces=None) -> np.ndarray:
        """Whether each face's candidate point (a row of doubles) satisfies every one of its rows strictly;
        only faces in the mask ``faces`` (default: all) are examined."""
        from polyregions.networks._float_filter import gamma, safety

        x, y = points[run_faces, 0], points[run_faces, 1]
        with np.errstate(all="ignore"):
            value = r[:, 0] * x + r[:, 1] * y - r[:, 2]
            bound = gamma(5) * (np.abs(r[:, 0] * x) + np.abs(r[:, 1] * y) + np.abs(r[:, 2])) * safety(3)
            proven = value < -bound
        ok = np.isfinite(points).all(axis=1)
        if faces is not None:
            ok &= faces
        unsure = np.flatnonzero(~proven & ok[run_faces])
        if unsure.size:
            xs, ys = points[:, 0].tolist(), points[:, 1].tolist()
            for run in unsure.tolist():
                f = int(run_faces[run])
                if not ok[f]:
                    continue
                a1, a2, c = rows[int(code_of_run[run])]
                (nx, dx), (ny, dy) = xs[f].as_integer_ratio(), ys[f].as_integer_ratio()
                if a1 * nx * dy + a2 * ny * dx >= c * dx * dy:
                    ok[f] = False
        return ok

    def interior_points(self, runs: "Runs", rows: list[tuple[int, ...]] | None = None) -> list:
        """An exact point strictly inside every face.

        The candidate is the mean of the face's approximate vertex coordinates rounded to a grid of powers of
        two finer than the face's (approximate) inradius, so that it is a short dyadic rational; failing that,
        the double nearest the mean. A candidate is kept when it satisfies every inequality of the face
        strictly: proven in floating point (``fl(a1 x + a2 y - c)``, with the integers rounded to doubles, is
        within ``gamma_5 (|a1 x| + |a2 y| + |c|)`` of the exact value) or else checked with integers. A face
        whose candidates fail gets the exact mean of three corners (vertices where the edge line changes),
        which are never collinear on a convex polygon, so that their mean is interior.
        """
        nf = self.nf
        lens, offs, verts = self.flen[:nf], self.fstart[:nf], self.pv[:self.ptop]
        run_faces, run_start, codes, code_of_run = runs.faces, runs.run_start, runs.codes, runs.code_of_run
        if rows is None:
            rows = [self._integer_row(int(c) >> 1, bool(c & 1)) for c in codes.tolist()]
        floats = np.array([[_to_double(v) for v in row] for row in rows], dtype=np.float64).reshape(-1, 3)
        r = floats[code_of_run]
        run_offsets = np.cumsum(np.bincount(run_faces, minlength=nf)) - np.bincount(run_faces, minlength=nf)
        with np.errstate(all="ignore"):
            centre = np.add.reduceat(self.xy[verts], offs, axis=0) / lens[:, None]
            slack = (r[:, 2] - r[:, 0] * centre[run_faces, 0] - r[:, 1] * centre[run_faces, 1]) / np.hypot(r[:, 0],
                                                                                                           r[:, 1])
            radius = np.minimum.reduceat(slack, run_offsets)
            step = np.exp2(np.floor(np.log2(radius)) - 2)
            rounded = np.round(centre / step[:, None]) * step[:, None]
        good = np.isfinite(rounded).all(axis=1) & (radius > 0)
        rounded[~good] = centre[~good]
        ok = self._strictly_inside(rounded, r, rows, run_faces, code_of_run)
        retry = ~ok & good
        if retry.any():
            rounded[retry] = centre[retry]
            ok[retry] = self._strictly_inside(rounded, r, rows, run_faces, code_of_run, faces=retry)[retry]
        points = [(Fraction(x), Fraction(y)) if inside else None
                  for inside, x, y in zip(ok.tolist(), rounded[:, 0].tolist(), rounded[:, 1].tolist())]
        missing = np.flatnonzero(~ok).tolist()
        if missing:
            # Three corners of every face that needs them: the first three run starts of its cycle.
            running = np.cumsum(run_start)
            rank = running - np.repeat(running[offs] - run_start[offs], lens) - 1
            first_three = np.flatnonzero(run_start & (rank < 3))
            corner = verts[first_three].reshape(nf, 3)[missing]
            homogeneous = self._homogeneous(corner.ravel())
            for i, f in enumerate(missing):
                (X1, Y1, W1), (X2, Y2, W2), (X3, Y3, W3) = homogeneous[3 * i:3 * i + 3]
                if X1 * (Y2 * W3 - Y3 * W2) - Y1 * (X2 * W3 - X3 * W2) + W1 * (X2 * Y3 - X3 * Y2) == 0:
                    raise MeshError(f"face {f}: three collinear corners")
                den = 3 * W1 * W2 * W3
                points[f] = (Fraction(X1 * W2 * W3 + X2 * W1 * W3 + X3 * W1 * W2, den),
                             Fraction(Y1 * W2 * W3 + Y2 * W1 * W3 + Y3 * W1 * W2, den))
        return points


def _to_double(value: int) -> float:
    """The nearest double to an integer, or infinity beyond the double range (then nothing is proven)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _polygon(A, b) -> tuple[list[tuple[Fraction, Fraction]], list[int]]:
    """The corners of the bounded polygon ``A t <= b`` counter-clockwise (from the first, by angle about their
    centroid, on or after the direction (1, 0)), and for corner ``i`` the first row whose line carries the edge
    from corner ``i`` to corner ``i + 1``: exactly, in O(m log m) (rows sorted by the angle of their normals,
    then one pass; a polygon of m rows through one vertex is not m^3 exact comparisons)."""
    m = len(A)
    rows = [(Fraction(A[i][0]), Fraction(A[i][1]), Fraction(b[i])) for i in range(m)]
    for a1, a2, bi in rows:
        if a1 == 0 and a2 == 0 and bi < 0:  # 0 <= b < 0: no point at all
            raise InvalidInputError("refine_mesh: expected a bounded two-dimensional polygon, got 0 corners")
    chosen = _tightest(rows)
    points = _half_plane_corners(chosen)
    if len(points) < 3:
        raise InvalidInputError(f"refine_mesh: expected a bounded two-dimensional polygon, got {len(points)} corners")
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)

    def angle_key(p):
        # Exact angular order around the centroid: half-plane first, then by cross products via a fraction.
        dx, dy = p[0] - cx, p[1] - cy
        half = 0 if (dy > 0 or (dy == 0 and dx > 0)) else 1
        return half, _Slope(dx, dy)

    points.sort(key=angle_key)
    first: dict[tuple[Fraction, Fraction, Fraction], int] = {}
    for r in range(m - 1, -1, -1):  # the first row of every line (a row scaled by a positive number: one line)
        if rows[r][0] or rows[r][1]:
            first[_normalized(*rows[r])] = r
    carriers = []
    for i, p in enumerate(points):
        q = points[(i + 1) % len(points)]
        n1, n2 = q[1] - p[1], p[0] - q[0]  # the outward normal of a counter-clockwise edge
        row = first.get(_normalized(n1, n2, n1 * p[0] + n2 * p[1]))
        if row is None:
            raise MeshError("polygon edge without a supporting row")
        carriers.append(row)
    return points, carriers


def _normalized(a1: Fraction, a2: Fraction, c: Fraction) -> tuple[Fraction, Fraction, Fraction]:
    """The row ``a1 x + a2 y <= c`` (a non-zero normal) scaled by a positive number so that max(|a1|, |a2|) = 1."""
    scale = max(abs(a1), abs(a2))
    return a1 / scale, a2 / scale, c / scale


def _half(a1: Fraction, a2: Fraction) -> int:
    return 0 if a2 > 0 or (a2 == 0 and a1 > 0) else 1


def _tightest(rows: list[tuple[Fraction, Fraction, Fraction]]) -> list[tuple[Fraction, Fraction, Fraction]]:
    """The rows with a non-zero normal sorted by the angle of their normals (exactly), of each direction the
    tightest only."""
    tightest: dict[tuple[Fraction, Fraction], Fraction] = {}
    for r in rows:
        if r[0] or r[1]:
            a1, a2, c = _normalized(*r)  # one normal per direction: rows of a direction compare by offset
            if (a1, a2) not in tightest or c < tightest[a1, a2]:
                tightest[a1, a2] = c
    kept = [(a1, a2, c) for (a1, a2), c in tightest.items()]
    kept.sort(key=lambda r: (_half(r[0], r[1]), _Slope(r[0], r[1])))  # distinct directions: a strict order
    return kept


def _crossing(r: tuple[Fraction, Fraction, Fraction], s: tuple[Fraction, Fraction, Fraction]
              ) -> tuple[Fraction, Fraction] | None:
    det = r[0] * s[1] - r[1] * s[0]
    if det == 0:
        return None
    return (r[2] * s[1] - r[1] * s[2]) / det, (r[0] * s[2] - s[0] * r[2]) / det


def _half_plane_corners(rows: list[tuple[Fraction, Fraction, Fraction]]) -> list[tuple[Fraction, Fraction]]:
    """The distinct corners of the intersection of the half-planes ``rows`` (normals sorted by angle, one per
    direction) when it is bounded and two-dimensional, else fewer than three points (empty, a segment, a point or
    unbounded): the classic pass with a deque, every test an exact comparison of Fractions."""
    n = len(rows)
    if n < 3:
        return []
    # Bounded only if the normals positively span the plane: no gap of pi or more between consecutive normals.
    for i in range(n):
        r, s = rows[i], rows[(i + 1) % n]
        cross = r[0] * s[1] - r[1] * s[0]
        if cross < 0 or (cross == 0 and (n == 1 or r[0] * s[0] + r[1] * s[1] < 0)):
            return []  # a gap of pi or more (the next normal is at or past the opposite direction): unbounded
    # Each row's boundary line is met by the region on a segment or not at all; the deque keeps the rows whose
    # segment survives, in angular order (the usual algorithm of half-plane intersection).

    def outside(point: tuple[Fraction, Fraction], r: tuple[Fraction, Fraction, Fraction]) -> bool:
        return r[0] * point[0] + r[1] * point[1] > r[2]

    deque: list[tuple[Fraction, Fraction, Fraction]] = []
    corners: list[tuple[Fraction, Fraction]] = []  # corners[i]: deque[i] meets deque[i + 1]
    head = 0
    for r in rows:
        while len(deque) - head >= 2 and outside(corners[-1], r):
            deque.pop()
            corners.pop()
        while len(deque) - head >= 2 and outside(corners[head], r):
            head += 1
        if len(deque) - head >= 1:
            point = _crossing(deque[-1], r)
            if point is None:  # opposite normals (one per direction is kept), the rows between them dropped
                return []  # because their corner lies outside r: the strip between the two lines is empty
            corners.append(point)
        deque.append(r)
    while len(deque) - head >= 3 and outside(corners[-1], deque[head]):
        deque.pop()
        corners.pop()
    while len(deque) - head >= 3 and outside(corners[head], deque[-1]):
        head += 1
    if len(deque) - head < 3:
        return []
    closing = _crossing(deque[-1], deque[head])
    if closing is None:
        return []
    ring = list(dict.fromkeys(corners[head:len(deque) - 1] + [closing]))
    # Every corner must satisfy every row (an empty intersection leaves corners that do not): in integers.
    integral = []
    for a1, a2, c in rows:
        d = math.lcm(a1.denominator, a2.denominator, c.denominator)
        integral.append((int(a1 * d), int(a2 * d), int(c * d)))
    for x, y in ring:
        d = math.lcm(x.denominator, y.denominator)
        X, Y = int(x * d), int(y * d)
        if any(a1 * X + a2 * Y > c * d for a1, a2, c in integral):
            return []
    return ring


class _Slope:
    """Orders directions within one half-plane counter-clockwise by the sign of a cross product."""

    def __init__(self, dx, dy):
        self.dx, self.dy = dx, dy

    def __lt__(self, other):
        return self.dx * other.dy - self.dy * other.dx > 0
