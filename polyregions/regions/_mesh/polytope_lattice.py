"""Exact face lattice of a bounded full-dimensional polytope ``A t <= b`` in ``R^k`` (the k-D mesh's domain): its
vertices, each with ``k`` independent rows tight there, and its faces of every rank ``r = 1 .. k - 1``, each with
its facets (faces of rank ``r - 1``) and ``k - r`` independent rows whose planes it lies on. Domains have few rows,
so every face is found from the vertex sets of its rows."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, NamedTuple, Sequence

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from flint import fmpq_mat

__all__ = ["PolytopeLattice", "polytope_lattice", "polytope_points", "distinct_planes"]


class PolytopeLattice(NamedTuple):
    """The vertices (exact), the ``k`` rows defining each, and per rank ``r = 1 .. k - 1`` its faces as pairs
    (facet ids of rank ``r - 1``, ``k - r`` rows); every row named is the first of the rows with its plane."""

    points: list[tuple[Fraction, ...]]
    vertex_rows: list[tuple[int, ...]]
    faces: list[list[tuple[list[int], tuple[int, ...]]]]  # faces[r - 1]: the faces of rank r


def _matrix(rows: Sequence[Sequence[Fraction]]) -> fmpq_mat:
    # Imported here: the 3-D mesh reads distinct_planes only, and importing FLINT takes about 35 ms.
    from flint import fmpq, fmpq_mat

    return fmpq_mat([[fmpq(v.numerator, v.denominator) for v in row] for row in rows])


def distinct_planes(A, b) -> list[int]:
    """The first row of every distinct plane (rows that are positive multiples of each other bound the same
    half-space); a row with a zero normal must hold everywhere (``0 <= b``)."""
    first: dict[tuple[Fraction, ...], int] = {}
    for i, (a, bi) in enumerate(zip(A, b)):
        scale = max(abs(v) for v in a)
        if scale == 0:
            if bi < 0:
                raise InvalidInputError("refine_mesh: expected a bounded full-dimensional polytope, got an empty one")
            continue
        first.setdefault((*(v / scale for v in a), bi / scale), i)
    return sorted(first.values())


def _vertices(A, b, rows: list[int]) -> tuple[list[tuple[Fraction, ...]], list[list[int]]]:
    """The vertices (sorted) and the rows of ``rows`` tight at each; none when the polytope is unbounded."""
    from polyregions.polyhedra.vertex_enumeration import enumerate_vertices

    found = enumerate_vertices(A, b, dim=len(A[0]))
    if found.rays or found.lines:
        return [], []
    ordered = sorted(zip(found.points, found.point_rows))
    return [point for point, _ in ordered], [[r for r in rows if r in tight] for _, tight in ordered]


def polytope_points(A, b) -> list[tuple[Fraction, ...]]:
    """The vertices of the bounded polytope ``A t <= b`` (sorted)."""
    return _vertices(A, b, distinct_planes(A, b))[0]


def _dimension(points: list[tuple[Fraction, ...]]) -> int:
    """The dimension of the affine hull of the points."""
    if len(points) < 2:
        return len(points) - 1
    return _matrix([[x - y for x, y in zip(p, points[0])] for p in points[1:]]).rank()


def _independent(A, rows: Sequence[int], count: int) -> tuple[int, ...]:
    """``count`` rows of ``rows`` with linearly independent normals, chosen greedily in order."""
    chosen: list[int] = []
    for r in rows:
        if len(chosen) == count:
            break
        if _matrix([A[s] for s in chosen + [r]]).rank() == len(chosen) + 1:
            chosen.append(r)
    assert len(chosen) == count  # a face of rank r lies on exactly k - r independent planes
    return tuple(chosen)


def polytope_lattice(A, b) -> PolytopeLattice:
    """The vertices and faces of every rank of the bounded full-dimensional polytope ``A t <= b``."""
    k = len(A[0])
    rows = distinct_planes(A, b)
    points, tight = _vertices(A, b, rows)
    if len(points) <= k or _dimension(points) < k:
        raise InvalidInputError(f"refine_mesh: expected a bounded {k}-dimensional polytope")
    vertex_rows = [_independent(A, t, k) for t in tight]
    # Faces by their vertex sets, from the facets down: a face of a face F is F's vertices tight at a row that does
    # not hold on all of F, when those span one dimension less.
    on_row = {r: frozenset(v for v, t in enumerate(tight) if r in t) for r in rows}
    level = [on for on in dict.fromkeys(on_row.values()) if _dimension([points[v] for v in on]) == k - 1]
    faces: list[list[tuple[list[int], tuple[int, ...]]]] = [[] for _ in range(k - 1)]
    for r in range(k - 1, 0, -1):
        below: dict[frozenset[int], int] = {}
        for face in level:
            facets = []
            for s in rows:
                sub = face & on_row[s]
                if sub == face or not sub:
                    continue
                if sub not in below and _dimension([points[v] for v in sub]) == r - 1:
                    below[sub] = len(below)
                if sub in below and below[sub] not in facets:
                    facets.append(below[sub])
            common = [s for s in rows if face <= on_row[s]]
            faces[r - 1].append((facets, _independent(A, common, k - r)))
        level = list(below)
    # Rank 0: the faces found last are single vertices, numbered in the order met; renumber them as the points.
    vertex_of = [next(iter(sub)) for sub in level]
    faces[0] = [([vertex_of[i] for i in facets], planes) for facets, planes in faces[0]]
    return PolytopeLattice(points, vertex_rows, faces)
