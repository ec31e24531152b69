"""Exact linear algebra and certified feasibility."""

from __future__ import annotations

import math
import random
from fractions import Fraction

from polyregions.exact.linalg import solve
from polyregions.exact.lp import strict_point


def _random_matrix(n: int, rng: random.Random) -> list[list[Fraction]]:
    return [[Fraction(rng.randint(-99, 99), rng.randint(1, 20)) for _ in range(n)] for _ in range(n)]


def _tangent_polytope(dim: int, m: int, rng: random.Random):
    """m random tangent half-spaces of the unit sphere, with exact rational normals."""
    A, b = [], []
    for _ in range(m):
        normal = [Fraction(round(rng.gauss(0, 1) * 1000), 1000) for _ in range(dim)]
        A.append(normal)
        b.append(Fraction(math.isqrt(int(sum(float(v) ** 2 for v in normal) * 10 ** 6)), 1000))
    return A, b


def _fraction_solve(matrix, rhs):
    """Gaussian elimination with fractions.Fraction, the baseline FLINT is measured against."""
    n = len(matrix)
    rows = [list(r) + [v] for r, v in zip(matrix, rhs)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if rows[r][col] != 0)
        rows[col], rows[pivot] = rows[pivot], rows[col]
        for r in range(n):
            if r != col and rows[r][col]:
                f = rows[r][col] / rows[col][col]
                rows[r] = [x - f * y for x, y in zip(rows[r], rows[col])]
    return [rows[i][n] / rows[i][i] for i in range(n)]


def cases():
    rng = random.Random(0)
    m5, m20 = _random_matrix(5, rng), _random_matrix(20, rng)
    r5, r20 = [Fraction(1)] * 5, [Fraction(1)] * 20
    polygon = _tangent_polytope(2, 50, rng)
    polytope6 = _tangent_polytope(6, 200, rng)
    return [
        ("exact solve 5x5 (FLINT)", lambda: solve(m5, r5)[0]),
        ("exact solve 5x5 (fractions.Fraction baseline)", lambda: _fraction_solve(m5, r5)[0]),
        ("exact solve 20x20 (FLINT)", lambda: solve(m20, r20)[0]),
        ("certified interior point, 2-D polygon, 50 constraints", lambda: strict_point(*polygon) is not None),
        ("certified interior point, 6-D polytope, 200 constraints", lambda: strict_point(*polytope6) is not None),
        ("certified emptiness, 6-D, 200 constraints + 1 cut",
         lambda: strict_point(polytope6[0] + [[Fraction(0)] * 5 + [Fraction(1)], [Fraction(0)] * 5 + [Fraction(-1)]],
                              polytope6[1] + [Fraction(-2), Fraction(2)]) is None),
    ]
