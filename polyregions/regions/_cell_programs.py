"""Certified programs over a cell in integer form: the one question layerwise refinement asks.

A cell is ``{x : a . x <= c for every row}`` with primitive integer rows ``(a_1, ..., a_k, c)``
(:func:`polyregions.exact._integers.primitive`), kept with an exact point strictly inside. Points are homogeneous
integers ``(X_1, ..., X_k, w)`` with ``w > 0`` standing for ``X / w``, so that every sign below is a sum of integer
products.

:func:`point_beyond` asks whether the cell reaches beyond a hyperplane. HiGHS answers in floating point; a
yes is kept only as an exact point checked against every row, a no only with exact multipliers (``y >= 0``
with ``y A = a`` and ``y . c <= c_0``, which bound ``a . x`` on the whole cell). When neither checks, the
certified programs of :mod:`polyregions.exact.lp` decide.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction
from typing import Sequence

import numpy as np
from flint import fmpq, fmpq_mat

from polyregions.errors import CertificateError
from polyregions.exact._integers import lcm
from polyregions.exact.linalg import Vector
from polyregions.exact.lp import Backend, highs_maximize, maximize

__all__ = ["Row", "Point", "negated", "value", "homogeneous", "float_point", "to_fractions",
           "float_rows", "strictly_inside", "toward", "exit_point", "shortened", "point_beyond"]

Row = tuple[int, ...]    # (a_1, ..., a_k, c): the half-space a . x <= c
Point = tuple[int, ...]  # (X_1, ..., X_k, w), w > 0: the point X / w


def negated(row: Row) -> Row:
    """The opposite closed half-space's row: ``a . x >= c``."""
    return tuple(map(operator.neg, row))


def value(row: Row, point: Point) -> int:
    """``w (a . x - c)`` for the point ``x = X / w``: its sign is the point's side of the row."""
    return sum(map(operator.mul, row, point)) - 2 * row[-1] * point[-1]  # the sum is a . X + c w


def homogeneous(x: Sequence[Fraction]) -> Point:
    """The point ``x`` (exact rationals) in homogeneous integers."""
    w = lcm(x)
    return tuple(int(v * w) for v in x) + (w,)


def float_point(x: Sequence[float] | np.ndarray) -> Point:
    """A point of finite doubles in homogeneous integers (exactly: every double is a dyadic rational).

    >>> float_point([0.5, -3.0, 0.25])
    (2, -12, 1, 4)
    """
    ratios = [float(v).as_integer_ratio() for v in x]
    w = max((d for _, d in ratios), default=1)  # powers of two: the largest is their lcm
    return tuple(n * (w // d) for n, d in ratios) + (w,)


def to_fractions(point: Point) -> Vector:
    return tuple(Fraction(v, point[-1]) for v in point[:-1])


def float_rows(rows: Sequence[Row], k: int) -> np.ndarray | None:
    """The rows (in ``R^k``) as doubles, each scaled to a largest coefficient of 1 (for HiGHS), or None beyond
    the double range."""
    try:
        F = np.array(rows, dtype=float).reshape(len(rows), k + 1)
    except OverflowError:
        return None
    if not np.isfinite(F).all():
        return None
    scale = np.abs(F[:, :-1]).max(axis=1, initial=0.0)
    scale[scale == 0] = 1.0
    return F / scale[:, None]


def strictly_inside(rows: Sequence[Row], point: Point) -> bool:
    """Whether the point satisfies every row strictly (exact)."""
    return all(value(row, point) < 0 for row in rows)


def toward(inside: Point, target: Point, row: Row, share: Fraction) -> Point:
    """The point of the segment from ``inside`` to ``target`` where ``row``'s value ``a . x - c`` is ``share``
    times its value at ``target`` (the value at ``inside`` differing from it).

    >>> toward((0, 0, 1), (4, 2, 1), (1, 0, 1), Fraction(1, 2))  # x - 1 goes from -1 to 3; 3/2 at (5/2, 5/4)
    (10, 5, 4)
    """
    w, v = inside[-1], target[-1]
    at_inside, at_target = value(row, inside), value(row, target)  # w and v times the values
    # The step along the segment is numerator / denominator.
    numerator = share.numerator * at_target * w - share.denominator * at_inside * v
    denominator = share.denominator * (at_target * w - at_inside * v)
    point = [(denominator - numerator) * v * x + numerator * w * y for x, y in zip(inside[:-1], target[:-1])]
    point.append(denominator * w * v)
    divisor = math.gcd(*point)
    if point[-1] < 0:
        divisor = -divisor
    return tuple(p // divisor for p in point)


def exit_point(rows: Sequence[Row], inside: Point, direction: Sequence[int]) -> tuple[list[int], Point] | None:
    """Where the ray from ``inside`` (strictly inside) along ``direction`` leaves the cell: the rows it leaves
    through and the point, or None when it never leaves. With one row, the point lies in that facet's relative
    interior: on its hyperplane, every other row strict.

    >>> exit_point([(1, 0, 1), (-1, 0, 1), (0, 1, 2), (0, -1, 1)], (0, 0, 1), (1, 1))
    ([0], (1, 1, 1))
    """
    best: list[int] = []
    best_slack = best_speed = 0
    for j, row in enumerate(rows):
        speed = sum(map(operator.mul, row, direction))  # map stops at the shorter: c is left out
        if speed <= 0:
            continue
        slack = -value(row, inside)
        # The ray meets the row at parameter slack / speed (over w): keep the smallest, with ties.
        if not best or slack * best_speed < best_slack * speed:
            best, best_slack, best_speed = [j], slack, speed
        elif slack * best_speed == best_slack * speed:
            best.append(j)
    if not best:
        return None
    w = inside[-1] * best_speed
    point = tuple(x * best_speed + best_slack * d for x, d in zip(inside[:-1], direction)) + (w,)
    divisor = math.gcd(*point)
    return best, tuple(v // divisor for v in point)


def shortened(rows: Sequence[Row], beyond: Row, point: Point) -> Point:
    """The point (strictly inside ``rows``, violating ``beyond``) rounded to doubles when the rounded point is
    still both: shorter numbers for the work that follows."""
    try:
        rounded = float_point([v / point[-1] for v in point[:-1]])
    except OverflowError:
        return point
    return rounded if value(beyond, rounded) > 0 and strictly_inside(rows, rounded) else point


def point_beyond(rows: Sequence[Row], floats: np.ndarray | None, inside: Point, row: Row, *,
                 backend: Backend = "highs") -> Point | None:
    """An exact point strictly inside the cell ``rows`` where ``row`` is violated (``a . x > c``), or None when
    ``a . x <= c`` on the whole closed cell (certified).

    ``floats`` are ``float_rows(rows)`` (None to skip the floating-point solve); ``inside`` is strictly inside
    the cell and satisfies ``row`` (``a . x <= c``). With ``backend="highs"`` HiGHS is asked first; other
    backends go straight to :func:`polyregions.exact.lp.maximize` with that backend.

    >>> square = [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)]
    >>> beyond = point_beyond(square, float_rows(square, 2), (0, 0, 1), (1, 1, 1))
    >>> strictly_inside(square, beyond) and value((1, 1, 1), beyond) > 0
    True
    >>> point_beyond(square, float_rows(square, 2), (0, 0, 1), (1, 1, 2)) is None
    True
    """
    if not any(row[:-1]):
        return inside if row[-1] < 0 else None
    objective = float_rows([row], len(row) - 1) if backend == "highs" and floats is not None and len(rows) else None
    if objective is not None and floats is not None:
        status, x, y = highs_maximize(objective[0, :-1], floats[:, :-1], floats[:, -1])
        if status == "optimal":
            assert x is not None and y is not None  # an optimal solve returns the point and the duals
            if np.isfinite(x).all():
                target = float_point(x)
                if value(row, target) > 0:
                    candidate = toward(inside, target, row, Fraction(1, 2))
                    if strictly_inside(rows, candidate):
                        return shortened(rows, row, candidate)
                elif _bounded_by_multipliers(rows, y, row):
                    return None
    return _decided_exactly(rows, inside, row, backend)


def _bounded_by_multipliers(rows: Sequence[Row], duals: np.ndarray, row: Row) -> bool:
    """Whether exact multipliers on the rows with the largest float duals prove ``a . x <= c`` on the cell."""
    k = len(row) - 1
    positive = np.flatnonzero(duals > 1e-9 * max(float(duals.max(initial=0.0)), 1e-300))
    support = positive[np.argsort(-duals[positive], kind="stable")][:k].tolist()
    if not support:
        return False
    y = _multipliers([rows[i][:-1] for i in support], row[:-1])
    if y is None or any(v < 0 for v in y):
        return False
    return sum(v * rows[i][-1] for v, i in zip(y, support)) <= row[-1]


def _multipliers(normals: list[Row], target: Sequence[int]) -> list | None:
    """Exact ``y`` (FLINT rationals) with ``sum_i y_i normals_i == target``, or None when there is none."""
    k, s = len(target), len(normals)
    if s == k:  # the usual vertex: a square system
        try:
            return fmpq_mat(k, k, [n[j] for j in range(k) for n in normals]).solve(fmpq_mat(k, 1, target)).entries()
        except ZeroDivisionError:
            pass  # singular: the echelon form below decides
    reduced, rank = fmpq_mat(k, s + 1, [v for j in range(k) for v in [n[j] for n in normals] + [target[j]]]).rref()
    y: list[fmpq | int] = [0] * s
    for r in range(rank):
        pivot = next(j for j in range(s + 1) if reduced[r, j] != 0)
        if pivot == s:
            return None  # the target is not in the span of the normals
        y[pivot] = reduced[r, s]
    return y


def _decided_exactly(rows: Sequence[Row], inside: Point, row: Row, backend: Backend) -> Point | None:
    """The same question through the certified programs of :mod:`polyregions.exact.lp`."""
    k = len(row) - 1
    A = [tuple(Fraction(v) for v in r[:-1]) for r in rows]
    b = [Fraction(r[-1]) for r in rows]
    result = maximize([Fraction(v) for v in row[:-1]], A, b, dim=k, backend=backend)
    if result.status == "optimal":
        assert result.value is not None and result.point is not None  # an optimal result carries both
        if result.value <= row[-1]:
            return None
        return shortened(rows, row, toward(inside, homogeneous(result.point), row, Fraction(1, 2)))
    if result.status == "unbounded":
        assert result.ray is not None  # an unbounded result carries its ray
        # The cell goes on for ever along the ray, strictly inside; step until the row is violated.
        x = to_fractions(inside)
        at_x = Fraction(value(row, inside), inside[-1])  # not positive
        speed = sum(Fraction(v) * d for v, d in zip(row, result.ray))
        return shortened(rows, row, homogeneous([xi + (1 - 2 * at_x) / speed * d for xi, d in zip(x, result.ray)]))
    raise CertificateError(f"the program over a non-empty cell ended {result.status}, which is impossible")
