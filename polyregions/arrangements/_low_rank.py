"""Whitney numbers read from pairs of hyperplanes, and closed forms of central arrangements of rank <= 3.

A flat of rank 2 on which ``k`` hyperplanes meet has Moebius value ``k - 1``, so the coefficient of
``t^(r - 2)`` in ``chi`` is ``sum (k - 1)`` over those flats. A central arrangement of ``m`` hyperplanes of rank 3
has ``chi(t) = t^3 - m t^2 + b t - (b - m + 1)`` with that sum ``b`` (``chi(1) = 0``); of rank 2,
``t^2 - m t + m - 1``; of rank 1, ``t - 1``.

Examples
--------
>>> second_whitney_number([(1, 0, 0), (0, 1, 0), (1, 1, 0), (1, -1, 1)], 2)  # 3 lines through 0, one more
5
>>> central_rank3([(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)])  # four planes in general position
(1, -4, 6, -3)
"""

from __future__ import annotations

import math
from typing import Sequence

from polyregions.arrangements._kernel import Chart, IntRow, canonical
from polyregions.arrangements._polynomials import Poly, power_linear

__all__ = ["second_whitney_number", "central_rank3", "central_low_rank"]


def second_whitney_number(rows: Sequence[IntRow], k: int) -> int:
    """``sum (k_X - 1)`` over the flats ``X`` of rank 2 of the hyperplanes ``a . x = c`` (rows ``(a, c)``,
    distinct, in ``R^k``), found by restricting every row to every other hyperplane that is not parallel to it
    (``O(m^2)`` at worst, but 10,000 parallel hyperplanes, which meet nowhere, cost ``O(m)``)."""
    kernel = [row[:-1] + (-row[-1],) for row in rows]
    classes: dict[IntRow, list[int]] = {}  # direction of the normal -> the rows with it, in order
    for i, row in enumerate(rows):
        classes.setdefault(canonical(row[:-1])[0], []).append(i)
    total = 0
    for members in classes.values():
        inside = set(members)
        others = [j for j in range(len(kernel)) if j not in inside]  # in order: the smallest index comes first
        for i in members:
            total += _flats_first_at(i, kernel, others)
    return total


def _flats_first_at(i: int, kernel: Sequence[IntRow], others: Sequence[int]) -> int:
    """``sum (k_X - 1)`` over the rank-2 flats on hyperplane ``i`` whose smallest hyperplane is ``i``, from the
    rows ``others`` (every row not parallel to row ``i``, in increasing order)."""
    chart = Chart(kernel[i])
    groups: dict[IntRow, int] = {}  # restriction -> smallest other index meeting H_i there
    sizes: dict[IntRow, int] = {}
    for j in others:
        key = canonical(chart.restrict(kernel[j]))[0]
        groups.setdefault(key, j)
        sizes[key] = sizes.get(key, 0) + 1
    # each flat is counted at its smallest hyperplane: k_X - 1 = the number of the others
    return sum(sizes[key] for key, first in groups.items() if first > i)


def _cross(u: IntRow, v: IntRow) -> IntRow:
    w = (u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0])
    return canonical(w)[0]


def central_rank3(normals: Sequence[IntRow]) -> Poly:
    """``chi`` of distinct normals spanning ``R^3`` (hyperplanes through the origin): the lines where planes meet
    are the cross products of pairs."""
    m = len(normals)
    pairs: dict[IntRow, int] = {}
    for i in range(m):
        u = normals[i]
        for j in range(i + 1, m):
            w = _cross(u, normals[j])
            pairs[w] = pairs.get(w, 0) + 1
    # a line on k planes is the cross product of C(k, 2) pairs
    b = sum((1 + math.isqrt(1 + 8 * p)) // 2 - 1 for p in pairs.values())
    return (1, -m, b, -(b - m + 1))


def central_low_rank(normals: Sequence[IntRow], r: int) -> Poly | None:
    """``chi`` of ``m`` distinct normals spanning ``R^r`` for ``r <= 3`` or ``m = r``, else None."""
    m = len(normals)
    if m == r:
        return power_linear(1, r)  # independent hyperplanes: a product of lines
    if r <= 1:
        return (1, -1) if r else (1,)
    if r == 2:
        return (1, -m, m - 1)
    if r == 3:
        return central_rank3(normals)
    return None
