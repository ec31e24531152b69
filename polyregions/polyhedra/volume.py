"""Exact volume of a bounded full-dimensional polytope by a pulling triangulation.

Order the vertices; the pulling triangulation of a face ``G`` cones its first vertex ``v`` over the
triangulations of the facets of ``G`` that miss ``v`` (Lee's pulling construction; with one global order the
pieces fit together into a triangulation of the polytope, degenerate vertices included). The volume is the
sum of ``|det(v1 - v0, ..., vd - v0)| / d!`` over its simplices, computed on integers (the vertices scaled
by a common denominator) with FLINT, so the result is an exact fraction.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Iterable, Sequence

from flint import fmpz_mat

from polyregions.errors import InvalidInputError
from polyregions.polyhedra.face_lattice import facets_of_face

__all__ = ["pulling_triangulation", "simplex_volume", "volume"]


def pulling_triangulation(n_points: int, tight_sets: Sequence[int], dim: int) -> list[tuple[int, ...]]:
    """Return a triangulation of a ``dim``-polytope into simplices given as tuples of vertex indices.

    Parameters
    ----------
    n_points : int
        The number of vertices.
    tight_sets : sequence of int
        Bitsets of the vertices on each facet (rows that are not facets are harmless).
    dim : int
        The dimension of the polytope.

    Examples
    --------
    >>> # The unit square's vertices (0,0), (1,0), (1,1), (0,1) and its four edges:
    >>> pulling_triangulation(4, [0b0011, 0b0110, 0b1100, 0b1001], 2)
    [(0, 1, 2), (0, 2, 3)]
    """
    memo: dict[int, list[tuple[int, ...]]] = {}
    sets = list(tight_sets)

    def triangulate(face: int, k: int) -> list[tuple[int, ...]]:
        if k == 0:
            return [((face & -face).bit_length() - 1,)]
        cached = memo.get(face)
        if cached is not None:
            return cached
        apex_bit = face & -face
        apex = apex_bit.bit_length() - 1
        simplices = [(apex,) + s for facet in facets_of_face(face, sets) if not facet & apex_bit
                     for s in triangulate(facet, k - 1)]
        memo[face] = simplices
        return simplices

    return triangulate((1 << n_points) - 1, dim)


def simplex_volume(points: Sequence[Sequence[Fraction]]) -> Fraction:
    """The d-volume of the simplex with ``d + 1`` vertices in R^d: ``|det(p_i - p_0)| / d!``.

    Examples
    --------
    >>> simplex_volume([[0, 0], [1, 0], [0, 1]])
    Fraction(1, 2)
    """
    d = len(points) - 1
    if any(len(p) != d for p in points):
        raise InvalidInputError(f"simplex_volume: expected {d + 1} points of length {d}, got lengths "
                                f"{sorted({len(p) for p in points})}")
    scale, integer_points = _integer_points(points)
    return _simplex_sum(integer_points, [tuple(range(d + 1))], d) / scale ** d


def volume(points: Sequence[Sequence[Fraction]], tight_sets: Iterable[Iterable[int]], dim: int) -> Fraction:
    """The exact ``dim``-volume of the full-dimensional polytope with these vertices.

    Parameters
    ----------
    points : sequence of vectors
        The vertices (exactly the vertices: no interior or repeated points).
    tight_sets : iterable of iterables of int
        For each row of an H-description, the indices of the vertices on it (every facet must appear).
    dim : int
        The ambient dimension, equal to the polytope's dimension.

    Examples
    --------
    >>> square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    >>> volume(square, [{0, 1}, {1, 2}, {2, 3}, {3, 0}], 2)
    Fraction(1, 1)
    """
    sets = [sum(1 << i for i in s) for s in tight_sets]
    simplices = pulling_triangulation(len(points), sets, dim)
    scale, integer_points = _integer_points(points)
    return _simplex_sum(integer_points, simplices, dim) / scale ** dim


def _integer_points(points: Sequence[Sequence[Fraction]]) -> tuple[int, list[list[int]]]:
    scale = 1
    for p in points:
        for v in p:
            scale = math.lcm(scale, Fraction(v).denominator)
    return scale, [[int(Fraction(v) * scale) for v in p] for p in points]


def _simplex_sum(points: list[list[int]], simplices: list[tuple[int, ...]], d: int) -> Fraction:
    """Sum of |det(p_i - p_0)| / d! over the simplices."""
    total = 0
    for s in simplices:
        base = points[s[0]]
        entries = [x - y for i in s[1:] for x, y in zip(points[i], base)]
        total += abs(int(fmpz_mat(d, d, entries).det()))
    return Fraction(total, math.factorial(d))
