"""Exact polytopes: double description, face lattices, volumes, canonical forms."""

from __future__ import annotations

import math
import random
from fractions import Fraction
from typing import Callable

from polyregions.polyhedra.polytope import Polytope
from polyregions.polyhedra.vertex_enumeration import enumerate_facets, enumerate_vertices


def _tangent_polytope(dim: int, m: int, rng: random.Random) -> tuple[list, list]:
    """m random half-spaces tangent (to within 1/1000) to the unit sphere, exact rational rows."""
    A, b = [], []
    for _ in range(m):
        normal = [Fraction(round(rng.gauss(0, 1) * 1000), 1000) for _ in range(dim)]
        A.append(tuple(normal))
        b.append(Fraction(math.isqrt(int(sum(v * v for v in normal) * 10 ** 6)) + 1, 1000))
    return A, b


def _sphere_points(dim: int, m: int, rng: random.Random) -> list:
    points = []
    for _ in range(m):
        g = [rng.gauss(0, 1) for _ in range(dim)]
        norm = math.sqrt(sum(v * v for v in g))
        points.append(tuple(Fraction(round(v / norm * 1000), 1000) for v in g))
    return points


def _fresh(P: Polytope) -> Polytope:
    """A copy without the cached generators, so that each run does the work."""
    return Polytope(P.A, P.b, P.dim)


def cases() -> list[tuple[str, Callable[[], object]]]:
    rng = random.Random(0)
    A6, b6 = _tangent_polytope(6, 200, rng)
    A4, b4 = _tangent_polytope(4, 100, rng)
    points4 = _sphere_points(4, 100, rng)
    permutahedron5 = Polytope.permutahedron(5)
    cube6, cross6 = Polytope.box([0] * 6, [1] * 6), Polytope.cross_polytope(6)
    redundant3 = Polytope.from_inequalities(*_tangent_polytope(3, 40, rng))
    redundant3 = redundant3.intersection(Polytope.box([-2, -2, -2], [2, 2, 2]))
    return [
        ("vertex enumeration 6-D, 200 constraints", lambda: len(enumerate_vertices(A6, b6).points)),
        ("vertex enumeration 4-D, 100 constraints", lambda: len(enumerate_vertices(A4, b4).points)),
        ("convex hull 4-D, 100 points on the sphere", lambda: len(enumerate_facets(points4).A)),
        ("f-vector permutahedron of order 5 (120 vertices)", lambda: _fresh(permutahedron5).f_vector()),
        ("f-vector 6-cube", lambda: _fresh(cube6).f_vector()),
        ("volume 6-cross-polytope (exact 4/45)", lambda: _fresh(cross6).volume()),
        ("volume 6-cube", lambda: _fresh(cube6).volume()),
        ("irredundant 3-D, 46 rows (certified LPs)", lambda: len(_fresh(redundant3).irredundant().A)),
    ]
