"""An exact simplex method over the rationals: the decider of last resort for linear programs.

It solves ``maximize c.x subject to A x <= b`` (x free) through its dual ``min b.y, A^T y = c, y >= 0`` with the
fraction-free revised simplex of :mod:`polyregions.exact._revised_simplex` (integers only, an n x n basis,
Dantzig's rule with Bland's as the anti-cycling fallback), so it terminates on every input, degenerate or not.
Every answer comes with its exact certificate. It is used when a floating-point answer cannot be certified, and
when the caller asks for ``backend="exact"``.

How the dual's outcomes answer the primal:

* the dual has an optimum: its basis gives an optimal point (the simplex multipliers) and the duals;
* the dual is unbounded: its ray is a Farkas certificate that ``A x <= b`` is empty;
* the dual is infeasible (``c`` is not a non-negative combination of the rows): phase 1's multipliers are a ray
  ``d`` with ``A d <= 0`` and ``c.d > 0``; the same program with ``c = 0``, from the same basis, then gives a
  feasible point, or a Farkas certificate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from polyregions.exact._revised_simplex import DualStandardForm
from polyregions.exact.linalg import Matrix, Vector

if TYPE_CHECKING:
    from polyregions.exact.lp import LPStatus  # lp imports this module: its status type is for checkers only

__all__ = ["ExactLPSolution", "exact_simplex"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class ExactLPSolution:
    """What the exact simplex found; every vector is exact.

    ``status`` is "optimal" (``point`` and ``duals`` with ``duals >= 0``, ``duals @ A == c``), "unbounded"
    (``point`` feasible and ``ray`` with ``A ray <= 0``, ``c.ray > 0``) or "infeasible" (``duals >= 0`` with
    ``duals @ A == 0`` and ``duals . b < 0``).
    """

    status: "LPStatus"
    point: Vector | None = None
    duals: Vector | None = None
    ray: Vector | None = None


def exact_simplex(c: Sequence[Fraction], A: Matrix, b: Vector) -> ExactLPSolution:
    """Solve ``maximize c.x s.t. A x <= b`` exactly (x free in Q^n).

    Examples
    --------
    >>> exact_simplex([1, 1], [[1, 0], [0, 1], [-1, -1]], [1, 2, 0]).point
    (Fraction(1, 1), Fraction(2, 1))
    >>> exact_simplex([1], [[1], [-1]], [0, -1]).duals  # x <= 0 and x >= 1: 1 * row 0 + 1 * row 1 = 0 <= -1
    (Fraction(1, 1), Fraction(1, 1))
    """
    m, n = len(A), len(c)
    if n == 0:  # rows 0 <= b_i: a negative b_i is its own certificate
        negative = next((i for i in range(m) if b[i] < 0), None)
        if negative is None:
            return ExactLPSolution("optimal", point=(), duals=tuple([_ZERO] * m))
        return ExactLPSolution("infeasible", duals=tuple(Fraction(int(i == negative)) for i in range(m)))
    if m == 0:
        if any(c):
            return ExactLPSolution("unbounded", point=tuple([_ZERO] * n), ray=tuple(Fraction(v) for v in c))
        return ExactLPSolution("optimal", point=tuple([_ZERO] * n), duals=())
    rows, rhs, scales = _integer_rows(A, b)
    objective, (sigma_numerator, sigma_denominator) = _integer_vector(c)
    program = DualStandardForm(rows, rhs, objective)
    if any(objective):
        program.optimise(1)
    if program.artificial_sum() > 0:
        # No y >= 0 has y A = c: phase 1's multipliers d have A d <= 0 and c.d > 0, a ray once a point exists.
        ray = _reduced(program.multipliers())
        program.drop_objective()
        entering = program.optimise(2)
        if entering is not None:
            return ExactLPSolution("infeasible", duals=_farkas(program, entering, scales))
        return ExactLPSolution("unbounded", point=_point(program), ray=tuple(Fraction(v) for v in ray))
    entering = program.optimise(2)
    if entering is not None:
        return ExactLPSolution("infeasible", duals=_farkas(program, entering, scales))
    # y'_i = value_i / d on the scaled rows s_i A_i and objective sigma c, so y_i = y'_i s_i / sigma.
    duals = [_ZERO] * m
    d = program.d
    for i, value in zip(program.head, program.values()):
        if i < m and value:
            numerator, denominator = scales[i]
            duals[i] = Fraction(value * numerator * sigma_denominator, d * denominator * sigma_numerator)
    return ExactLPSolution("optimal", point=_point(program), duals=tuple(duals))


def _integer_rows(A: Matrix, b: Vector) -> tuple[list[list[int]], list[int], list[tuple[int, int]]]:
    """Each row ``(A_i, b_i)`` as coprime integers ``s_i (A_i, b_i)``, and ``s_i`` as (numerator, denominator)."""
    rows, rhs, scales = [], [], []
    for row, bi in zip(A, b):
        ints, scale = _integer_vector((*row, bi))
        rows.append(ints[:-1])
        rhs.append(ints[-1])
        scales.append(scale)
    return rows, rhs, scales


def _integer_vector(values: Sequence) -> tuple[list[int], tuple[int, int]]:
    """Exact rationals (or ints) scaled by a positive rational to coprime integers, and that scale."""
    ratios = [v.as_integer_ratio() for v in values]  # a method call: a tenth of the numerator property's cost
    denominator = math.lcm(*[q for _, q in ratios])
    if denominator == 1:
        ints = [p for p, _ in ratios]
    else:
        ints = [p * (denominator // q) for p, q in ratios]
    common = math.gcd(*ints) or 1
    if common > 1:
        ints = [v // common for v in ints]
    return ints, (denominator, common)


def _reduced(values: list[int]) -> list[int]:
    """An integer vector divided by the gcd of its entries (the same ray, smaller numbers)."""
    common = math.gcd(*values) or 1
    return [v // common for v in values]


def _point(program: DualStandardForm) -> Vector:
    """The primal point of the program's last basis: its simplex multipliers."""
    d = program.d
    return tuple(Fraction(v, d) for v in program.multipliers())


def _farkas(program: DualStandardForm, entering: int, scales: list[tuple[int, int]]) -> Vector:
    """Farkas multipliers from the dual's unbounded direction: ``y >= 0``, ``y A = 0``, ``y.b < 0``.

    Along the direction, the entering row gets ``d`` and each basic row ``-alpha_i``; rows still held by an
    artificial have ``alpha_i = 0`` (or the artificial would have left).
    """
    alpha = [int(v) for v in program.column(entering)]
    weights = {entering: program.d}
    for i, a in zip(program.head, alpha):
        if i < program.m and a:
            weights[i] = -a
    common = math.gcd(*weights.values())
    duals = [_ZERO] * program.m
    for i, weight in weights.items():
        numerator, denominator = scales[i]
        duals[i] = Fraction(weight // common * numerator, denominator)
    return tuple(duals)
