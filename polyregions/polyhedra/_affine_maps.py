"""A polytope under affine maps: the intersection of two, the preimage and the image under an affine map, and the
slice along an affine subspace (the bodies of :class:`~polyregions.polyhedra.polytope.Polytope`'s
``intersection``, ``preimage``, ``image`` and ``restrict``, which document them). Each result is built by the
argument's own class."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

from polyregions.exact.linalg import matmul, matvec
from polyregions.exact.rationals import rational_matrix, rational_vector
from polyregions.polyhedra.named import check_dim

if TYPE_CHECKING:
    from polyregions.polyhedra.polytope import Polytope

__all__ = ["intersection", "preimage", "image", "restrict"]

_ZERO = Fraction(0)


def intersection(polytope: Polytope, other: Polytope) -> Polytope:
    """The rows of both (of one dimension)."""
    return type(polytope)(polytope.A + other.A, polytope.b + other.b, polytope.dim)


def preimage(polytope: Polytope, M: Any, t: Any = None) -> Polytope:
    """``{y : M y + t in P}`` for a ``dim x k`` matrix ``M`` (``t`` defaults to 0), one row per row of ``P``."""
    M = rational_matrix(M, what="M", shape=(polytope.dim, None))
    k = check_dim(len(M[0]), "preimage: columns of M")
    t = (_ZERO,) * polytope.dim if t is None else rational_vector(t, what="t", length=polytope.dim)
    A = matmul(polytope.A, M) if polytope.A else ()
    b = tuple(bi - v for bi, v in zip(polytope.b, matvec(polytope.A, t)))
    return type(polytope)(A, b, k)


def image(polytope: Polytope, M: Any, t: Any = None) -> Polytope:
    """``{M x + t : x in P}`` for a ``k x dim`` matrix ``M``, from the generators, in canonical form."""
    M = rational_matrix(M, what="M", shape=(None, polytope.dim))
    k = check_dim(len(M), "image: rows of M")
    t = (_ZERO,) * k if t is None else rational_vector(t, what="t", length=k)
    vrep = polytope.generators()
    if not vrep.points:
        return type(polytope).empty(k)
    points = [tuple(v + s for v, s in zip(matvec(M, p), t)) for p in vrep.points]
    rays = [matvec(M, r) for r in vrep.rays]
    lines = [matvec(M, line) for line in vrep.lines]
    return type(polytope).from_vertices(points, rays=rays, lines=lines, dim=k)


def restrict(polytope: Polytope, origin: Any, directions: Any) -> Polytope:
    """``{s : origin + sum_i s_i directions_i in P}``: the preimage under the map with columns ``directions``."""
    directions = rational_matrix(directions, what="directions", shape=(None, polytope.dim))
    check_dim(len(directions), "restrict: number of directions")
    columns = tuple(tuple(d[j] for d in directions) for j in range(polytope.dim))
    return preimage(polytope, columns, origin)
