"""The 1-D mesh: faces are intervals, split at the points where a hyperplane crosses them."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.regions._mesh.mesh import Mesh
from polyregions.regions._mesh.support import ABOVE, BELOW, MeshError, distinct, grow

__all__ = ["Mesh1D"]


class Mesh1D(Mesh):
    """Faces are intervals ``[left, right]`` of vertices; every vertex lies on one line (a point)."""

    def _initial_mesh(self) -> None:
        lower: tuple[Fraction, int] | None = None  # the tightest bound from below (value, row), and from above
        upper: tuple[Fraction, int] | None = None
        for i, ((a,), bi) in enumerate(zip(self.A, self.b)):
            if a > 0 and (upper is None or bi / a < upper[0]):
                upper = (bi / a, i)
            elif a < 0 and (lower is None or bi / a > lower[0]):
                lower = (bi / a, i)
        if lower is None or upper is None or not lower[0] < upper[0]:
            raise InvalidInputError("refine_mesh: expected a bounded segment of positive length")
        self.nv, self.nf = 2, 1
        self.vline = grow(np.array([self._add_boundary_line(lower[1]), self._add_boundary_line(upper[1])],
                                    dtype=np.int64), 64)
        self.corner_points = [(lower[0],), (upper[0],)]
        self.left = grow(np.array([0], dtype=np.int64), 64)
        self.right = grow(np.array([1], dtype=np.int64), 64)

    def _homogeneous(self, vertices: np.ndarray) -> list[tuple[int, int]]:
        """Exact ``(X, W)`` with ``W > 0`` and the vertex at ``X / W``: the root of its line ``a t + c``."""
        self._ensure_lines(distinct(self.vline[vertices]))
        points = []
        for line in self.vline[vertices].tolist():
            a, c = self.line_rows[line]
            points.append((-c, a) if a > 0 else (c, -a))
        return points

    def _exact_points(self, vertices: np.ndarray) -> list[tuple[Fraction]]:
        return [(Fraction(X, W),) for X, W in self._homogeneous(vertices)]

    def _face_of_vertex(self) -> np.ndarray:
        face = np.empty(self.nv, dtype=np.int64)
        face[self.right[:self.nf]] = np.arange(self.nf)
        face[self.left[:self.nf]] = np.arange(self.nf)
        return face

    def _start_layer(self, q: int) -> None:
        nf = self.nf
        code = self.S[self.left[:nf]] | self.S[self.right[:nf]]
        self.code = grow(code, 2 * nf)

    def _split(self, q: int, h: int) -> None:
        faces, fa, unit, bp = self._crossed(q, h)
        if faces.size == 0:
            return
        nf = faces.size
        lo, hi = self.left[faces], self.right[faces]
        chord = self._add_lines(q, unit, bp, self.anc[faces])
        new_ids = self.nv + np.arange(nf, dtype=np.int64)
        self.vline = grow(self.vline, self.nv + nf)
        self.vline[new_ids] = chord
        Zn, En, _, first_column, _ = self._crossing(q, h, lo, hi)
        self._store_vertices(q, h, new_ids, Zn, En, first_column, faces)
        new_faces = self.nf + np.arange(nf, dtype=np.int64)
        for name in ("left", "right", "anc", "code"):
            setattr(self, name, grow(getattr(self, name), self.nf + nf))
        self.right[faces] = new_ids
        self.left[new_faces], self.right[new_faces] = new_ids, hi
        self.anc[new_faces] = self.anc[faces]
        self.code[new_faces, :h] = self.code[faces, :h]
        low_side = self.S[lo, h]
        self.code[faces, h] = low_side
        self.code[new_faces, h] = (ABOVE | BELOW) ^ low_side
        if h + 1 < self.code.shape[1]:
            S = self.S[:, h + 1:]
            self.code[faces, h + 1:] = S[lo] | S[new_ids]
            self.code[new_faces, h + 1:] = S[new_ids] | S[hi]
        self.nf += nf

    def _adjacent_pairs(self) -> np.ndarray:
        """Consecutive intervals: the one right of each face, where there is one."""
        nf = self.nf
        face_right_of = np.full(self.nv, -1, dtype=np.int64)
        face_right_of[self.left[:nf]] = np.arange(nf)
        neighbour = face_right_of[self.right[:nf]]
        return np.stack([np.arange(nf)[neighbour >= 0], neighbour[neighbour >= 0]], axis=1)

    def _face_geometry(self, patterns: np.ndarray) -> list[tuple[Matrix, Vector, Vector]]:
        """Every interval ``[a, c]`` as ``-t <= -a, t <= c`` with its midpoint."""
        nf = self.nf
        points = self._exact_points(np.arange(self.nv, dtype=np.int64))
        minus, plus = (Fraction(-1),), (Fraction(1),)
        geometry: list[tuple[Matrix, Vector, Vector]] = []
        for f, (lo, hi) in enumerate(zip(self.left[:nf].tolist(), self.right[:nf].tolist())):
            a, c = points[lo][0], points[hi][0]
            if not a < c:
                raise MeshError(f"interval {f} is empty")
            geometry.append(((minus, plus), (-a, c), ((a + c) / 2,)))
        return geometry
