"""Regions and faces of an arrangement, with sign vectors, exact polytopes and rational points.

A *face* is a relatively open cell of the arrangement: a non-empty set of points with one given sign vector
over ``{-1, 0, +1}``. The faces lying in a flat ``X`` are exactly the regions of the arrangement restricted to
``X`` (the hyperplanes through ``X`` read 0 there), so every face of every dimension comes from one region
enumeration per flat. The regions are the faces of the flat ``R^d``. A face ``F`` lies in the closure of a
face ``G`` exactly when the sign vector of ``F`` is ``G``'s with some entries set to 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from operator import mul
from typing import TYPE_CHECKING, Sequence

from polyregions.arrangements._kernel import (
    BOTH,
    IntRow,
    SymbolicPoint,
    concrete_point,
    enumerate_cells,
    lift,
    restrict_rows,
    restriction_by_columns,
)
from polyregions.exact._integers import sign

if TYPE_CHECKING:
    import networkx as nx

    from polyregions.arrangements.arrangement import Arrangement
    from polyregions.exact.linalg import Matrix, Vector
    from polyregions.polyhedra.polytope import Polytope

__all__ = ["ArrangementRegion", "ArrangementFace", "enumerate_regions", "enumerate_faces", "face_poset",
           "adjacency_graph", "region_of", "sign_string"]


def sign_string(signs: Sequence[int]) -> str:
    """Write a sign vector as a string over ``-``, ``0``, ``+``.

    Examples
    --------
    >>> sign_string((1, -1, 0))
    '+-0'
    """
    return "".join("-0+"[s + 1] for s in signs)


@dataclass(frozen=True)
class ArrangementFace:
    """A face of an arrangement: a relatively open cell with a sign vector over ``{-1, 0, +1}``.

    Attributes
    ----------
    signs : tuple of int
        ``sign(a . x - c)`` on the face for every hyperplane (canonical rows, in order).
    dim : int
        The face's dimension, that of its flat.
    flat : int
        The index of the flat of :attr:`Arrangement.poset` spanned by the face.
    """

    signs: tuple[int, ...]
    dim: int
    flat: int
    arrangement: "Arrangement" = field(repr=False, compare=False)
    _point: SymbolicPoint = field(repr=False, compare=False)
    _system_signs: tuple[int, ...] = field(repr=False, compare=False)

    @cached_property
    def interior_point(self) -> "Vector":
        """An exact point of the face's relative interior (every sign as in :attr:`signs`)."""
        point = self._point
        if self.flat:  # the point is in the flat's chart until asked for
            columns = self.arrangement.poset.flats[self.flat].columns
            point = tuple(lift(columns, v) for v in point)
        return concrete_point(point, self.arrangement._system[0], self._system_signs)

    @property
    def sign_string(self) -> str:
        return sign_string(self.signs)

    def is_bounded(self) -> bool:
        """Whether the face is bounded in the ordinary sense (for regions, compare :attr:`ArrangementRegion.bounded`,
        boundedness modulo the lineality space)."""
        return _bounded_face(self)


@dataclass(frozen=True)
class ArrangementRegion(ArrangementFace):
    """A region (full-dimensional face) of an arrangement.

    Attributes
    ----------
    signs : tuple of int
        ``+1`` or ``-1`` for every hyperplane: the side ``a . x > c`` or ``a . x < c``.
    bounded : bool
        Whether the region is relatively bounded: bounded modulo the lineality space (of the hyperplanes
        together with the domain's rows, if any).
    """

    bounded: bool = False

    @property
    def A(self) -> "Matrix":
        """Rows of the closed region ``A x <= b``: one per hyperplane (``-s a``), then the domain's rows."""
        rows = tuple(tuple(Fraction(-s * v) for v in row[:-1])
                     for s, row in zip(self.signs, self.arrangement.hyperplanes))
        domain = self.arrangement.domain
        return rows if domain is None else rows + tuple(tuple(Fraction(v) for v in r) for r in domain.A)

    @property
    def b(self) -> "Vector":
        """Right-hand sides matching :attr:`A`."""
        values = tuple(Fraction(-s * row[-1]) for s, row in zip(self.signs, self.arrangement.hyperplanes))
        domain = self.arrangement.domain
        return values if domain is None else values + tuple(Fraction(v) for v in domain.b)

    @property
    def polytope(self) -> "Polytope":
        """The closed region as an exact H-polytope (rows may be redundant; ``.irredundant()`` drops them)."""
        from polyregions.polyhedra.polytope import Polytope
        return Polytope(self.A, self.b, self.arrangement.dim)

    def contains(self, x: Sequence) -> bool:
        """Whether the point ``x`` lies in the open region (exact)."""
        from polyregions.exact.rationals import rational_vector

        x = rational_vector(x, what="point", length=self.arrangement.dim)
        return all(_value(row, x) * s > 0 for row, s in zip(self.arrangement._system[0], self._system_signs))


def _value(row: IntRow, x: Sequence[Fraction]) -> Fraction:
    return sum((a * v for a, v in zip(row, x)), Fraction(row[-1]))


def _sorted_cells(cells, n: int):
    return sorted(cells, key=lambda cell: cell[0][:n])


def enumerate_regions(arrangement: "Arrangement") -> tuple[ArrangementRegion, ...]:
    """Every region of the arrangement (cells of the domain's interior, if there is a domain).

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> [r.sign_string for r in enumerate_regions(Arrangement([[1, 0], [1, 1]]))]
    ['--', '+-', '++']
    """
    rows, allowed = arrangement._system
    n = len(arrangement)
    cells = _sorted_cells(enumerate_cells(rows, allowed, arrangement.dim), n)
    bounded = _relatively_bounded(rows, allowed, [signs for signs, _ in cells], arrangement.dim)
    return tuple(ArrangementRegion(signs[:n], arrangement.dim, 0, arrangement, point, signs, flag)
                 for (signs, point), flag in zip(cells, bounded))


def region_of(arrangement: "Arrangement", x: Sequence) -> ArrangementRegion | None:
    """The region whose interior holds ``x``, or None (exact)."""
    from polyregions.exact.rationals import rational_vector

    x = rational_vector(x, what="point", length=arrangement.dim)
    rows, allowed = arrangement._system
    signs = []
    for row, al in zip(rows, allowed):
        v = _value(row, x)
        if v == 0:
            return None
        s = 1 if v > 0 else -1
        if not al & (2 if s > 0 else 1):
            return None
        signs.append(s)
    key = tuple(signs)
    regions = arrangement.regions()
    lo, hi = 0, len(regions)
    n = len(arrangement)
    while lo < hi:  # regions are sorted by sign vector
        mid = (lo + hi) // 2
        if regions[mid].signs < key[:n]:
            lo = mid + 1
        else:
            hi = mid
    return regions[lo] if lo < len(regions) and regions[lo].signs == key[:n] else None


def _flat_cells(rows: Sequence[IntRow], allowed: Sequence[int], columns: Sequence[IntRow]):
    """The cells of the system restricted to a flat: (full sign vector, symbolic point in the flat's chart)."""
    restricted = restrict_rows(rows, allowed, restriction_by_columns(columns))
    if restricted is None:
        return []
    sub_rows, sub_allowed, recipe = restricted
    return [(tuple([o if i < 0 else o * signs[i] for i, o in recipe]), point)
            for signs, point in enumerate_cells(sub_rows, sub_allowed, len(columns) - 1)]


def enumerate_faces(arrangement: "Arrangement", *, dims: Sequence[int] | None = None) -> tuple[ArrangementFace, ...]:
    """Every face of the given dimensions (default: all), sorted by dimension, flat, sign vector.

    Regions come out as :class:`ArrangementRegion` objects (the same as :func:`enumerate_regions`).

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> [f.sign_string for f in enumerate_faces(Arrangement([[1, 0, 0], [0, 1, 0]]), dims=[0, 1])]
    ['00', '0-', '0+', '-0', '+0']
    """
    rows, allowed = arrangement._system
    n = len(arrangement)
    wanted = set(range(arrangement.dim + 1) if dims is None else dims)
    faces: list[ArrangementFace] = []
    flats = sorted(arrangement.poset.flats, key=lambda f: (f.dim, f.index))
    for flat in flats:
        if flat.dim not in wanted:
            continue
        if flat.rank == 0:
            faces.extend(arrangement.regions())
            continue
        for signs, point in _sorted_cells(_flat_cells(rows, allowed, flat.columns), n):
            faces.append(ArrangementFace(signs[:n], flat.dim, flat.index, arrangement, point, signs))
    return tuple(faces)


def _relatively_bounded(rows: Sequence[IntRow], allowed: Sequence[int], sign_vectors: list[tuple[int, ...]],
                        dim: int) -> list[bool]:
    """Which cells are bounded modulo the lineality space of all the rows.

    The recession cone of a closed cell ``{x : s_i (a_i . x + e_i) >= 0}`` is ``{v : s_i a_i . v >= 0}``;
    modulo the lineality space it is pointed, so it is more than the lineality space exactly when it holds an
    extreme ray, i.e. one of the two half-lines of a rank ``r - 1`` flat of the central arrangement of the
    normals. Such a ray, with sign vector ``tau``, lies in the cone exactly when ``tau_i s_i >= 0`` for all
    ``i``, i.e. ``sum_i tau_i s_i == sum_i |tau_i|``: one exact integer matrix product decides every cell.
    """
    import numpy as np

    from polyregions.arrangements._kernel import canonical
    from polyregions.arrangements.poset import poset_of_rows

    if not sign_vectors:
        return []
    normals: dict[IntRow, None] = {}  # an ordered set
    for row in rows:
        normal = row[:-1] + (0,)
        normals.setdefault(canonical(normal)[0])
    central = list(normals)
    poset = poset_of_rows(central, dim)
    rank = poset.rank
    if rank == 0:
        return [True] * len(sign_vectors)
    rays = []
    for flat in poset.flats_of_rank(rank - 1):
        for column in flat.columns[:-1]:
            tau = tuple(sign(sum(map(mul, row[:-1], column[:-1]))) for row in rows)
            if any(tau):
                rays.append(tau)
                rays.append(tuple(-t for t in tau))
                break
    T = np.array(rays, dtype=np.int64)
    support = np.abs(T).sum(axis=1)
    S = np.array(sign_vectors, dtype=np.int64)
    bounded = np.ones(len(sign_vectors), dtype=bool)
    for start in range(0, len(S), 2048):  # exact: small integers, no overflow
        block = S[start:start + 2048] @ T.T
        bounded[start:start + 2048] = ~(block == support[None, :]).any(axis=1)
    return bounded.tolist()


def _bounded_face(face: ArrangementFace) -> bool:
    """A face is bounded when no direction v != 0 keeps it: the cone of its closure meets the lineality trivially."""
    arrangement = face.arrangement
    rows, allowed = arrangement._system
    flat = arrangement.poset.flats[face.flat]
    if flat.dim == 0:
        return True
    restricted = restrict_rows(rows, allowed, restriction_by_columns(flat.columns))
    assert restricted is not None  # the face is a cell of its flat, so every forced sign there is allowed
    sub_rows, _, recipe = restricted
    # The face is a cell of the restriction; bounded iff that cell is bounded and the restriction is essential.
    sub_signs = [0] * len(sub_rows)
    for (i, o), s in zip(recipe, face._system_signs):
        if i >= 0:
            sub_signs[i] = o * s
    from polyregions.exact.linalg import rank

    if not sub_rows or rank([tuple(Fraction(v) for v in r[:-1]) for r in sub_rows]) < flat.dim:
        return False  # a whole line of the flat stays in the face
    return _relatively_bounded(sub_rows, [BOTH] * len(sub_rows), [tuple(sub_signs)], flat.dim)[0]


def face_poset(arrangement: "Arrangement") -> "nx.DiGraph":
    """The incidences between faces of consecutive dimensions as a networkx DiGraph on face indices.

    Node attributes: ``signs``, ``dim``. An edge ``F -> G`` says that ``F`` is a facet of ``G``. A face ``F``
    on a flat ``X`` lies in exactly two faces of each flat ``Y`` covered by ``X``: the two sides of ``X``
    within ``Y``, whose signs are ``F``'s with the hyperplanes through ``X`` but not ``Y`` set to the sides.
    """
    import networkx as nx

    faces = arrangement.faces()
    poset = arrangement.poset
    rows = arrangement._rows
    index = {f.signs: i for i, f in enumerate(faces)}
    by_flat: dict[int, list[int]] = {}
    for i, f in enumerate(faces):
        by_flat.setdefault(f.flat, []).append(i)
    graph = nx.DiGraph()
    for i, f in enumerate(faces):
        graph.add_node(i, signs=f.signs, dim=f.dim)
    for flat in poset.flats:
        members = by_flat.get(flat.index)
        if not members:
            continue
        for lower_index in poset.below[flat.index]:
            lower = poset.flats[lower_index]
            leaving = sorted(flat.hyperplanes - lower.hyperplanes)
            j = leaving[0]
            column = next(c for c in lower.columns[:-1] if sum(map(mul, rows[j], c)))
            sides = {k: sign(sum(map(mul, rows[k], column))) for k in leaving}
            for i in members:
                signs = list(faces[i].signs)
                for direction in (1, -1):
                    for k in leaving:
                        signs[k] = direction * sides[k]
                    other = index.get(tuple(signs))
                    if other is None:
                        from polyregions.errors import CertificateError
                        raise CertificateError("a facet of a face has no face on one of its sides")
                    graph.add_edge(i, other)
    return graph


def adjacency_graph(arrangement: "Arrangement") -> "nx.Graph":
    """The region adjacency graph: one node per region (its index), one edge per shared facet.

    Node attributes ``signs`` and ``bounded``; edge attribute ``hyperplane``, the index of the hyperplane of
    the shared facet. Two regions share a facet exactly when a face of dimension ``dim - 1`` lies between them.
    """
    import networkx as nx

    regions = arrangement.regions()
    index = {r.signs: i for i, r in enumerate(regions)}
    graph = nx.Graph()
    for i, r in enumerate(regions):
        graph.add_node(i, signs=r.signs, bounded=r.bounded)
    if arrangement.dim == 0:
        return graph
    for face in arrangement.faces(arrangement.dim - 1):
        (h,) = (k for k, s in enumerate(face.signs) if s == 0)
        ends = []
        for s in (-1, 1):
            signs = list(face.signs)
            signs[h] = s
            ends.append(index[tuple(signs)])
        graph.add_edge(*ends, hyperplane=h)
    return graph
