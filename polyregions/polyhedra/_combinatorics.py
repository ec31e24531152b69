"""A polytope's combinatorics by exact double description: its generators (vertices, rays, lines), the convex hull
of generators in canonical form, its face lattice and its volume (the bodies of
:class:`~polyregions.polyhedra.polytope.Polytope`'s ``from_vertices``, ``generators``, ``faces`` and ``volume``,
which document them)."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError, UnboundedError
from polyregions.exact.linalg import rank
from polyregions.exact.rationals import rational_matrix
from polyregions.polyhedra._canonical import canonical
from polyregions.polyhedra.named import check_dim

if TYPE_CHECKING:
    from polyregions.polyhedra.face_lattice import FaceLattice
    from polyregions.polyhedra.polytope import Polytope
    from polyregions.polyhedra.vertex_enumeration import VRepresentation

__all__ = ["convex_hull", "generators", "faces", "volume"]

_ZERO = Fraction(0)


def convex_hull(cls: type[Polytope], points: Any, rays: Any, lines: Any, dim: int | None) -> Polytope:
    """``conv(points) + cone(rays) + span(lines)`` as a ``cls``, in canonical irredundant form."""
    from polyregions.polyhedra.vertex_enumeration import enumerate_facets

    points = rational_matrix(points, what="points")
    if not points:
        if dim is None:
            raise InvalidInputError("Polytope.from_vertices: expected dim= when there are no points")
        if len(rays) or len(lines):
            raise InvalidInputError("Polytope.from_vertices: expected at least one point with rays or lines")
        return cls.empty(dim)
    n = check_dim(len(points[0]), "Polytope.from_vertices")
    if dim is not None and dim != n:
        raise InvalidInputError(f"Polytope.from_vertices: expected points of length dim={dim}, got {n}")
    rays = rational_matrix(rays, what="rays", shape=(None, n))
    lines = rational_matrix(lines, what="lines", shape=(None, n))
    h = enumerate_facets(points, rays=rays, lines=lines, dim=n)
    A, b = canonical(list(zip(h.A, h.b)), list(zip(h.E, h.e)), n)
    return cls(A, b, n)


def generators(polytope: Polytope) -> VRepresentation:
    """Points, rays and lines with their incidences, by double description."""
    from polyregions.polyhedra.vertex_enumeration import enumerate_vertices

    return enumerate_vertices(polytope.A, polytope.b, dim=polytope.dim)


def faces(polytope: Polytope) -> FaceLattice:
    """Every non-empty face, from the generators' incidences."""
    from polyregions.polyhedra.face_lattice import face_lattice

    return face_lattice(polytope.generators(), len(polytope.A))


def volume(polytope: Polytope) -> Fraction:
    """The exact ``dim``-volume from the vertices and the rows tight at each (0 when empty or lower-dimensional;
    :class:`~polyregions.errors.UnboundedError` when there are rays or lines)."""
    from polyregions.polyhedra.volume import volume as _volume

    vrep = polytope.generators()
    if not vrep.points:
        return _ZERO
    if vrep.rays or vrep.lines:
        raise UnboundedError(f"volume: expected a bounded set, got one with {len(vrep.rays)} rays and "
                             f"{len(vrep.lines)} lines")
    base = vrep.points[0]
    if len(vrep.points) <= polytope.dim or rank([tuple(x - y for x, y in zip(p, base))
                                                 for p in vrep.points[1:]]) < polytope.dim:
        return _ZERO
    tight: list[list[int]] = [[] for _ in polytope.A]
    for g, rows in enumerate(vrep.point_rows):
        for i in rows:
            tight[i].append(g)
    return _volume(vrep.points, tight, polytope.dim)
