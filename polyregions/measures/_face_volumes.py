"""Exact volumes of faces of a face complex, triangulated through the complex's own face lattice.

A ``p``-face (``p >= 2``) with rational vertices spans directions whose basis ``B`` in reduced row echelon form
is unique; its volume is ``vol_p(projection on the pivot coordinates of B) * sqrt(q)``, ``q = det(B G B^T)``
(``G`` the input metric, see :mod:`polyregions.measures.volumes`). An edge ``v - u = c w`` (``w`` a primitive
integer vector, ``c > 0``) has length ``c sqrt(w^T G w)``. Both factors are exact rationals, the same whatever the
route, so the sums below equal those of any other exact computation term by term.

The projection's volume is a sum over a pulling triangulation of the face: with the vertices ordered by their
index, a face is the cone from its first vertex over the faces of its facets that miss it (Lee's construction,
which fits together across the faces of one polytope). The facets are read off the face complex, so no hull is
computed. The arithmetic is on integers: vertices as ``X / w``, a simplex's determinant in those homogeneous
coordinates, one fraction per face (FLINT's, with its fast gcd), and one per set of faces sharing ``q`` when
volumes are added (:meth:`FaceVolumes.total`), where the square root is applied once.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

from flint import fmpq, fmpq_mat, fmpz_mat

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix
from polyregions.exact.surds import sqrt_of_rational

if TYPE_CHECKING:
    from polyregions.measures.faces import FaceComplex

__all__ = ["FaceVolumes"]


class FaceVolumes:
    """The input-space volumes of faces of a face complex; triangulations of shared faces and square roots are
    computed once.

    Parameters
    ----------
    fc : FaceComplex
    metric : matrix or None
        The input metric ``G`` in domain coordinates (None for the identity).

    Examples
    --------
    >>> import polyregions as pr
    >>> fc = pr.face_complex(pr.enumerate_regions(pr.Network.from_layers(2, [([[1, 1]], [0], "relu")]),
    ...                                           pr.box([-1, -1], [1, 1])))
    >>> volumes = FaceVolumes(fc, None)
    >>> sorted(volumes(i) for i in fc.faces_of_dimension(2))  # two triangles of area 2
    [(1, Fraction(2, 1)), (1, Fraction(2, 1))]
    >>> volumes.total(i for i in fc.faces_of_dimension(1) if fc.faces[i].interior)  # the diagonal, 2 sqrt(2)
    [(2, Fraction(2, 1))]
    """

    def __init__(self, fc: "FaceComplex", metric: Matrix | None):
        self.fc = fc
        self.metric = metric
        self._metric = None if metric is None else fmpq_mat([[_fmpq(x) for x in row] for row in metric])
        self._simplices: dict[int, list[tuple[int, ...]]] = {}
        self._faces = fc.faces
        self._down = fc._down  # the facets of each face
        self._integers: dict[int, tuple[int, list[int]]] = {}
        self._projections: dict[tuple[int, tuple[int, ...]], list[int]] = {}

    def __call__(self, i: int) -> tuple[int, Fraction]:
        """The volume of face ``i`` (of its own dimension; 1 for a vertex) as ``(radicand, coefficient)``:
        ``coefficient * sqrt(radicand)``."""
        q, size = self.parts(i)
        root, n = sqrt_of_rational(Fraction(*q))
        return n, Fraction(int(size.p), int(size.q)) * root

    def total(self, indices: Iterable[int]) -> list[tuple[int, Fraction]]:
        """The sum of the volumes of faces ``indices`` as terms ``(radicand, coefficient)``: the rational parts
        of faces with the same ``q`` are added first, exactly, and multiplied by ``sqrt(q)`` once."""
        groups: dict[tuple[int, int], list[fmpq]] = {}
        for i in indices:
            q, size = self.parts(i)
            groups.setdefault(q, []).append(size)
        terms = []
        for (numerator, denominator), sizes in groups.items():
            size = _balanced_sum(sizes)
            root, n = sqrt_of_rational(Fraction(numerator, denominator))
            terms.append((n, Fraction(int(size.p), int(size.q)) * root))
        return terms

    def parts(self, i: int) -> tuple[tuple[int, int], fmpq]:
        """``(q, c)`` with the volume of face ``i`` equal to ``c sqrt(q)``: ``q`` as its lowest terms
        ``(numerator, denominator)`` (a key cheaper to make and hash than a Fraction), ``c`` an exact rational."""
        face = self.fc.faces[i]
        p = face.dim
        if p == 0:
            return (1, 1), fmpq(1)
        if p == 1:
            (w0, X0), (w1, X1) = (self._homogeneous(v) for v in face.vertices)
            # The edge is v / (w0 w1) for the integer vector v = w0 X1 - w1 X0: c w with w = v / gcd(v).
            v = [w0 * x - w1 * y for x, y in zip(X1, X0)]
            g = math.gcd(*v)
            w = [x // g for x in v]
            return self._quadratic(w), fmpq(g, w0 * w1)
        homogeneous = {v: self._integers.get(v) or self._homogeneous(v) for v in face.vertices}
        simplices = self.simplices(i)
        apex, *others = simplices[0]  # a full-dimensional simplex of the face: its edges span its directions
        w0, X0 = homogeneous[apex]
        edges = [[w0 * x - w * y for x, y in zip(X, X0)] for w, X in (homogeneous[v] for v in others)]
        if p == len(X0) - 1 and self.metric is None:
            q, pivots = _hyperplane(edges)
        else:
            rows, pivots = _echelon(edges)
            if len(rows) != p:
                raise InvalidInputError(f"face_volume: expected a face of dimension {p}, got one spanning "
                                        f"{len(rows)}")
            q = self._gram(rows, pivots)
        # A simplex of points (w_i, Y_i) (Y the pivot coordinates) has volume |det[w_i, Y_i]| / (p! prod w_i).
        # Every simplex has the apex: over the product W of the other vertices' w, its share is
        # |det| (W / prod of its other w_i), and the sum is divided by p! w_apex W.
        key = tuple(pivots)
        projected = {v: self._projected(v, key) for v in homogeneous}
        every = math.prod(w for v, (w, _) in homogeneous.items() if v != apex)
        total = 0
        for simplex in simplices:
            weight = math.prod(projected[v][0] for v in simplex[1:])
            total += abs(_determinant([projected[v] for v in simplex])) * (every // weight)
        return q, fmpq(total, math.factorial(p) * w0 * every)

    def simplices(self, i: int) -> list[tuple[int, ...]]:
        """A pulling triangulation of face ``i``: simplices as tuples of vertex indices, apex first."""
        found = self._simplices.get(i)
        if found is None:
            face = self._faces[i]
            if face.dim <= 1:
                found = [face.vertices]  # a vertex, or an edge from its first vertex
            else:
                apex = face.vertices[0]  # the smallest: a facet holds it exactly when it starts with it
                found = []
                for f in self._down[i]:
                    if self._faces[f].vertices[0] != apex:
                        found.extend((apex,) + s for s in self.simplices(f))
            self._simplices[i] = found
        return found

    def _homogeneous(self, v: int) -> tuple[int, list[int]]:
        """Vertex ``v`` as ``(w, X)``: integers with the vertex ``X / w``, ``w > 0`` the least denominator."""
        found = self._integers.get(v)
        if found is None:
            point = self.fc.vertices[v]  # ints or Fractions
            w = math.lcm(*(x.denominator for x in point))
            found = self._integers[v] = (w, [x.numerator * (w // x.denominator) for x in point])
        return found

    def _projected(self, v: int, pivots: tuple[int, ...]) -> list[int]:
        """``(w, X_pivots)`` for vertex ``v``: its homogeneous coordinates on the pivot columns (kept, since the
        pieces around a vertex on one hyperplane share them)."""
        key = (v, pivots)
        found = self._projections.get(key)
        if found is None:
            w, X = self._homogeneous(v)
            found = self._projections[key] = [w] + [X[c] for c in pivots]
        return found

    def _quadratic(self, w: list[int]) -> tuple[int, int]:
        """``w^T G w`` in lowest terms."""
        G = self.metric
        if G is None:
            return sum(x * x for x in w), 1
        value = sum((w[i] * G[i][j] * w[j] for i in range(len(w)) for j in range(len(w))), Fraction(0))
        return value.numerator, value.denominator

    def _gram(self, rows: list[list[int]], pivots: list[int]) -> tuple[int, int]:
        """``det(B G B^T)`` for the reduced row echelon basis ``B``, whose row ``i`` is ``rows[i]`` divided by its
        pivot entry ``D_i``: ``det(R G R^T) / prod D_i^2``, in lowest terms."""
        scale = math.prod(row[c] for row, c in zip(rows, pivots)) ** 2
        if self._metric is None:
            gram = [[sum(x * y for x, y in zip(a, b)) for b in rows] for a in rows]
            return _lowest(_determinant(gram), scale)
        R = fmpq_mat(rows)
        value = (R * self._metric * R.transpose()).det()
        return _lowest(int(value.p), int(value.q) * scale)


def _balanced_sum(values: list[fmpq]) -> fmpq:
    """The exact sum, added in pairs: the pieces of one hyperplane have large denominators that cancel in the
    total, and sums of similar sizes keep the intermediate fractions short."""
    while len(values) > 1:
        values = [values[i] + values[i + 1] if i + 1 < len(values) else values[i] for i in range(0, len(values), 2)]
    return values[0]


def _lowest(numerator: int, denominator: int) -> tuple[int, int]:
    """A fraction in lowest terms with a positive denominator, as a pair."""
    g = math.gcd(numerator, denominator)
    if denominator < 0:
        g = -g
    return numerator // g, denominator // g


def _hyperplane(rows: list[list[int]]) -> tuple[tuple[int, int], list[int]]:
    """``q = det(B B^T)`` and the pivot columns of the reduced row echelon basis ``B`` of the span of ``d - 1``
    integer vectors in ``R^d`` (a hyperplane ``a . x = 0``, ``a`` their generalised cross product).

    ``B`` has a row ``e_i - (a_i / a_j) e_j`` for every ``i`` but the last ``j`` with ``a_j != 0``, so
    ``B B^T = I + c c^T`` with ``c_i = -a_i / a_j`` and ``q = 1 + |c|^2 = |a|^2 / a_j^2``.
    """
    d = len(rows[0])
    if d == 4:  # the 3 x 3 minors from the 2 x 2 minors of the last two rows
        (a0, a1, a2, a3), (b0, b1, b2, b3), (c0, c1, c2, c3) = rows
        m01, m02, m03 = b0 * c1 - b1 * c0, b0 * c2 - b2 * c0, b0 * c3 - b3 * c0
        m12, m13, m23 = b1 * c2 - b2 * c1, b1 * c3 - b3 * c1, b2 * c3 - b3 * c2
        normal = [a1 * m23 - a2 * m13 + a3 * m12, -(a0 * m23 - a2 * m03 + a3 * m02),
                  a0 * m13 - a1 * m03 + a3 * m01, -(a0 * m12 - a1 * m02 + a2 * m01)]
    else:
        normal = [(-1) ** k * _determinant([row[:k] + row[k + 1:] for row in rows]) for k in range(d)]
    j = max((k for k in range(d) if normal[k]), default=-1)
    if j < 0:
        raise InvalidInputError(f"face_volume: expected a face of dimension {d - 1}, got one spanning less")
    g = math.gcd(*normal)  # a primitive normal has short entries: the fraction below is cheap to reduce
    q = _lowest(sum((x // g) ** 2 for x in normal), (normal[j] // g) ** 2)
    return q, [k for k in range(d) if k != j]


def _echelon(rows: list[list[int]]) -> tuple[list[list[int]], list[int]]:
    """The reduced row echelon form of integer rows up to a non-zero factor per row (fraction-free Gauss-Jordan,
    each row kept primitive): the independent rows, and their pivot columns."""
    rows = [list(row) for row in rows]
    pivots: list[int] = []
    r = 0
    for c in range(len(rows[0]) if rows else 0):
        k = next((t for t in range(r, len(rows)) if rows[t][c]), None)
        if k is None:
            continue
        rows[r], rows[k] = rows[k], rows[r]
        top, value = rows[r], rows[r][c]
        for t in range(len(rows)):
            f = rows[t][c]
            if t != r and f:
                new = [value * x - f * y for x, y in zip(rows[t], top)]
                g = math.gcd(*new)
                rows[t] = [x // g for x in new] if g else new
        pivots.append(c)
        r += 1
        if r == len(rows):
            break
    return rows[:r], pivots


def _fmpq(x) -> fmpq:
    x = Fraction(x)
    return fmpq(x.numerator, x.denominator)


def _determinant(rows: list[list[int]]) -> int:
    """The determinant of a square integer matrix (written out up to 4 x 4, by FLINT beyond)."""
    n = len(rows)
    if n == 1:
        return rows[0][0]
    if n == 2:
        (a, b), (c, d) = rows
        return a * d - b * c
    if n == 3:
        (a, b, c), (d, e, f), (g, h, k) = rows
        return a * (e * k - f * h) - b * (d * k - f * g) + c * (d * h - e * g)
    if n == 4:
        # Laplace expansion along the first two rows: complementary 2 x 2 minors.
        (a0, a1, a2, a3), (b0, b1, b2, b3), (c0, c1, c2, c3), (d0, d1, d2, d3) = rows
        s01, s02, s03 = a0 * b1 - a1 * b0, a0 * b2 - a2 * b0, a0 * b3 - a3 * b0
        s12, s13, s23 = a1 * b2 - a2 * b1, a1 * b3 - a3 * b1, a2 * b3 - a3 * b2
        c01, c02, c03 = c0 * d1 - c1 * d0, c0 * d2 - c2 * d0, c0 * d3 - c3 * d0
        c12, c13, c23 = c1 * d2 - c2 * d1, c1 * d3 - c3 * d1, c2 * d3 - c3 * d2
        return s01 * c23 - s02 * c13 + s03 * c12 + s12 * c03 - s13 * c02 + s23 * c01
    return int(fmpz_mat(rows).det())
