"""Exact face lattice of a bounded 3-D polytope ``A t <= b`` (the 3-D mesh's domain): its vertices, each with three
independent rows tight there, its edges, each with two independent rows it lies on, and its facets, each the edges
on one row's plane. Domains have few rows, so the vertices are found among all triples of rows."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from typing import NamedTuple, Sequence

from polyregions.errors import InvalidInputError
from polyregions.regions._mesh.polytope_lattice import distinct_planes

__all__ = ["PolytopeMesh", "polytope_mesh"]

Point = tuple[Fraction, Fraction, Fraction]


class PolytopeMesh(NamedTuple):
    """The domain's vertices (exact), the three rows defining each, its edges ``(u, w, row, row)`` and its facets
    ``(row, edge indices)``; every row named is the first of the rows with its plane."""

    points: list[Point]
    vertex_rows: list[tuple[int, ...]]
    edges: list[tuple[int, int, int, int]]
    facets: list[tuple[int, list[int]]]


def _det3(a: Sequence[Fraction], b: Sequence[Fraction], c: Sequence[Fraction]) -> Fraction:
    return (a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0])
            + a[2] * (b[0] * c[1] - b[1] * c[0]))


def _vertex_rows(A, b, rows: list[int]) -> tuple[list[Point], list[list[int]]]:
    points: set[Point] = set()
    for i, j, k in combinations(rows, 3):
        det = _det3(A[i], A[j], A[k])
        if det == 0:
            continue
        # Cramer's rule: the column of right-hand sides in place of each coordinate's column.
        cols = [[A[r][c] for r in (i, j, k)] for c in range(3)]
        rhs = [b[i], b[j], b[k]]
        x = tuple(_det3(*[rhs if c == d else cols[c] for c in range(3)]) / det for d in range(3))
        if all(sum(a * v for a, v in zip(A[r], x)) <= b[r] for r in range(len(A))):
            points.add(x)  # type: ignore[arg-type]
    ordered = sorted(points)
    tight = [[r for r in rows if sum(a * v for a, v in zip(A[r], x)) == b[r]] for x in ordered]
    return ordered, tight


def _independent(A, rows: list[int], count: int) -> tuple[int, ...] | None:
    """The first ``count`` rows (2 or 3) of ``rows`` with linearly independent normals, or None."""
    for chosen in combinations(rows, count):
        if count == 3 and _det3(*(A[r] for r in chosen)) != 0:
            return chosen
        if count == 2:
            u, v = A[chosen[0]], A[chosen[1]]
            if any(u[a] * v[c] != u[c] * v[a] for a, c in ((0, 1), (0, 2), (1, 2))):
                return chosen
    return None


def polytope_mesh(A, b) -> PolytopeMesh:
    """The vertices, edges and facets of the bounded full-dimensional polytope ``A t <= b`` in ``R^3``."""
    rows = distinct_planes(A, b)
    points, tight = _vertex_rows(A, b, rows)
    if len(points) < 4 or all(_det3(*(tuple(p[c] - points[0][c] for c in range(3)) for p in trio)) == 0
                              for trio in combinations(points[1:], 3)):
        raise InvalidInputError("refine_mesh: expected a bounded three-dimensional polytope")
    vertex_rows = []
    for t in tight:
        chosen = _independent(A, t, 3)
        assert chosen is not None  # a vertex is where three independent rows meet
        vertex_rows.append(chosen)
    # Two vertices span an edge when the rows tight at both have rank 2: the face they define is then a segment,
    # and its only vertices are its two ends.
    edges = []
    for u, w in combinations(range(len(points)), 2):
        common = [r for r in tight[u] if r in tight[w]]
        pair = _independent(A, common, 2)
        if pair is not None and _independent(A, common, 3) is None:
            edges.append((u, w, pair[0], pair[1]))
    facets = []
    for r in rows:
        on = [i for i, (u, w, *_) in enumerate(edges) if r in tight[u] and r in tight[w]]
        if len(on) >= 3:  # a plane meeting the polytope in a polygon, not an edge or a vertex
            facets.append((r, on))
    return PolytopeMesh(points, vertex_rows, edges, facets)
