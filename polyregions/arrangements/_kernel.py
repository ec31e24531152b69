"""Integer kernel of the arrangement code: homogeneous rows, charts of hyperplanes, symbolic points.

Everything here is exact integer arithmetic (Python ints), which is an order of magnitude faster than
``Fraction`` and never rounds.

Conventions
-----------
* A *row* in ``k`` coordinates is a tuple of ``k + 1`` ints ``(a_1, ..., a_k, e)``; its value at the point
  ``x`` is ``a . x + e``. The hyperplane ``a . x = c`` is the row ``(a, -c)``. A *homogeneous vector* is a
  tuple of ``k + 1`` ints ``(x_1, ..., x_k, w)``: a point ``x / w`` when ``w > 0``, a direction when ``w = 0``;
  the value of a row at it is the plain dot product.
* A *symbolic point* is a tuple of homogeneous vectors ``(v_0, v_1, ..., v_s)``, ``v_0`` a point and the
  others directions, standing for ``v_0 + t v_1 + t^2 v_2 + ... + t^s v_s`` for every small enough ``t > 0``.
  The sign of a row there is the sign of a polynomial in ``t`` near 0: the sign of its lowest non-zero
  coefficient (:func:`lex_sign`). Region enumeration hands out such points, which cost nothing to build; a
  rational point is produced from one only when asked for (:func:`concrete_point`).
* An *allowed* mask says which signs a row may take in the cells being enumerated: bit 1 for ``-``, bit 2
  for ``+``. Hyperplanes of an arrangement allow both (3); the facets of a domain polytope allow one.
"""

from __future__ import annotations

import math
from fractions import Fraction
from operator import mul
from typing import Callable, Iterable, Sequence

from polyregions.errors import CertificateError
from polyregions.exact._integers import sign

__all__ = [
    "IntRow",
    "SymbolicPoint",
    "BOTH",
    "canonical",
    "Chart",
    "lex_sign",
    "concrete_point",
    "enumerate_cells",
    "sign_bit",
]

IntRow = tuple[int, ...]
SymbolicPoint = tuple[IntRow, ...]

BOTH = 3


def sign_bit(sign: int) -> int:
    """The allowed-mask bit of a sign (-1 -> 1, +1 -> 2, 0 -> 0)."""
    return 1 if sign < 0 else (2 if sign > 0 else 0)


def _flip(allowed: int) -> int:
    return ((allowed & 1) << 1) | ((allowed & 2) >> 1)


def canonical(row: Sequence[int]) -> tuple[IntRow, int]:
    """The primitive form of a row with non-zero normal part, first non-zero normal entry positive.

    Returns the row and the orientation (+1 when the row is a positive multiple of the input).

    Examples
    --------
    >>> canonical((-2, 4, 6))
    ((1, -2, -3), -1)
    """
    g = math.gcd(*row)
    for v in row:
        if v:
            if v < 0:
                g = -g
            break
    if g == 1:
        return tuple(row), 1
    return tuple(v // g for v in row), (1 if g > 0 else -1)


def lex_sign(row: Sequence[int], point: SymbolicPoint) -> int:
    """The sign of ``row`` at a symbolic point (0 only when it vanishes on the whole curve)."""
    for v in point:
        s = sum(map(mul, row, v))
        if s:
            return 1 if s > 0 else -1
    return 0


def concrete_point(point: SymbolicPoint, rows: Sequence[Sequence[int]], signs: Sequence[int]) -> tuple[Fraction, ...]:
    """A rational point of the curve of a symbolic point at which every row has the given (lexicographic) sign.

    The polynomial ``row(v_0 + t v_1 + ... )`` keeps the sign of its lowest coefficient for all small ``t``;
    ``t = 2^-s`` is halved until every row shows its sign exactly, which ends because the rows are finitely many.
    Rows whose sign is 0 must vanish on the whole curve (they are checked too).
    """
    n = len(point) - 1
    for s in range(_MAX_HALVINGS):
        combined = [0] * len(point[0])
        for j, v in enumerate(point):
            shift = s * (n - j)
            for i, x in enumerate(v):
                combined[i] += x << shift
        if all(sign(sum(map(mul, row, combined))) == expected for row, expected in zip(rows, signs)):
            w = combined[-1]
            return tuple(Fraction(x, w) for x in combined[:-1])
    raise CertificateError("a symbolic point does not show the signs of its cell")


#: More halvings than any cell of rows with a few thousand bits can need.
_MAX_HALVINGS = 100_000


class Chart:
    """Coordinates on the hyperplane of a row ``h`` in ``k`` coordinates: ``k - 1`` new ones.

    With pivot ``j`` (the normal entry of least absolute value ``p``, sign ``s``), the chart sends the
    homogeneous ``(y, w)`` to the point with ``x_i = p y_i`` for ``i != j``, ``x_j = -s (sum_{i != j} a_i y_i
    + e w)``, ``w' = p w``; it is a bijection onto the hyperplane, integer both ways up to scaling.
    """

    __slots__ = ("row", "j", "p", "s", "others", "coefficients", "e")

    def __init__(self, row: Sequence[int]):
        normal = row[:-1]
        self.row = tuple(row)
        self.j = min((i for i, v in enumerate(normal) if v), key=lambda i: abs(normal[i]))
        self.p = abs(normal[self.j])
        self.s = 1 if normal[self.j] > 0 else -1
        self.others = tuple(i for i in range(len(normal)) if i != self.j)
        self.coefficients = tuple(normal[i] for i in self.others)
        self.e = row[-1]

    def restrict(self, r: Sequence[int]) -> IntRow:
        """The row ``r`` in the chart's coordinates (its values on the hyperplane)."""
        p, s, rj = self.p, self.s, r[self.j]
        k = s * rj
        return tuple([p * r[i] - k * a for i, a in zip(self.others, self.coefficients)] + [p * r[-1] - k * self.e])

    def lift(self, v: Sequence[int]) -> IntRow:
        """The homogeneous vector of the big space for the chart's homogeneous vector ``v``."""
        p = self.p
        x = [0] * (len(v) + 1)
        for i, y in zip(self.others, v):
            x[i] = p * y
        x[self.j] = -self.s * (sum(map(mul, self.coefficients, v)) + self.e * v[-1])
        x[-1] = p * v[-1]
        return tuple(x)


def _line(rows: Sequence[IntRow], allowed: Sequence[int]) -> list[tuple[tuple[int, ...], SymbolicPoint]]:
    """Cells of rows ``(a, e)`` (``a > 0``, distinct) on the line: the intervals between their zeros."""
    m = len(rows)
    if m == 0:
        return [((), ((0, 1),))]
    order = sorted(range(m), key=lambda i: Fraction(-rows[i][1], rows[i][0]))
    zeros = [(-rows[i][1], rows[i][0]) for i in order]  # x = num / den, den > 0
    cells: list[tuple[tuple[int, ...], SymbolicPoint]] = []
    signs = [-1] * m
    for q in range(m + 1):
        if q:
            signs[order[q - 1]] = 1
        if all(sign_bit(sg) & al for sg, al in zip(signs, allowed)):
            if q == 0:
                num, den = zeros[0]
                point = (num - den, den)
            elif q == m:
                num, den = zeros[-1]
                point = (num + den, den)
            else:
                (n1, d1), (n2, d2) = zeros[q - 1], zeros[q]
                point = (n1 * d2 + n2 * d1, 2 * d1 * d2)
            cells.append((tuple(signs), (point,)))
    return cells


def enumerate_cells(rows: Sequence[IntRow], allowed: Sequence[int], k: int
                    ) -> list[tuple[tuple[int, ...], SymbolicPoint]]:
    """Every cell of the complement of the rows' hyperplanes in ``R^k`` whose signs are allowed.

    ``rows`` are distinct canonical rows with non-zero normal parts. Returns ``(signs, point)`` pairs: the
    sign of every row on the cell (in the order of ``rows``) and a symbolic point inside it.

    The cells of the first ``t`` rows are refined by row ``t`` incrementally. A cell is cut by the new
    hyperplane ``H`` exactly when ``H`` meets it, and then ``H`` meets it in one cell of the earlier rows
    restricted to ``H``: so the cut cells are found by enumerating, recursively and in one dimension less,
    the cells of the restriction, and the pieces' points are the restricted cell's point pushed off ``H``
    along the normal by an infinitesimal. A cell that is not cut lies on one side of ``H``, read off at its
    point. No linear program is solved and no tolerance is used.
    """
    m = len(rows)
    if k == 0:
        return [((), ((1,),))]
    if k == 1:
        return _line(rows, allowed)
    # Rows that restrict the signs (domain facets) first: they prune early.
    order = sorted(range(m), key=lambda i: allowed[i] == BOTH)
    zero = tuple([0] * k + [1])
    current: dict[tuple[int, ...], SymbolicPoint] = {(): (zero,)}
    processed: list[int] = []
    for t in order:
        h, allow = rows[t], allowed[t]
        chart = Chart(h)
        splits = _cut_cells(chart, [rows[i] for i in processed], [allowed[i] for i in processed], k)
        plus = tuple(list(h[:-1]) + [0])
        minus = tuple(-v for v in plus)
        refined: dict[tuple[int, ...], SymbolicPoint] = {}
        for signs, point in current.items():
            on = splits.get(signs)
            if on is not None:
                if allow & 1:
                    refined[signs + (-1,)] = on + (minus,)
                if allow & 2:
                    refined[signs + (1,)] = on + (plus,)
            else:
                side = lex_sign(h, point)
                if side == 0:  # impossible: a point on H inside an open cell means H cuts it
                    raise CertificateError("a cell's point lies on a hyperplane that does not cut the cell")
                if allow & sign_bit(side):
                    refined[signs + (side,)] = point
        current = refined
        processed.append(t)
        if not current:
            return []
    position = {t: i for i, t in enumerate(order)}
    back = [position[i] for i in range(m)]
    return [(tuple(signs[i] for i in back), point) for signs, point in current.items()]


def _cut_cells(chart: Chart, rows: list[IntRow], allowed: list[int], k: int
               ) -> dict[tuple[int, ...], SymbolicPoint]:
    """The cells of ``rows`` cut by the chart's hyperplane: their signs and a symbolic point on the hyperplane."""
    restricted = restrict_rows(rows, allowed, chart.restrict)
    if restricted is None:
        return {}
    sub_rows, sub_allowed, recipe = restricted
    cut = {}
    for signs, point in enumerate_cells(sub_rows, sub_allowed, k - 1):
        full = tuple(o if i < 0 else o * signs[i] for i, o in recipe)
        cut[full] = tuple(chart.lift(v) for v in point)
    return cut


def restriction_by_columns(columns: Sequence[IntRow]) -> Callable[[IntRow], IntRow]:
    """The function restricting a row to the flat with chart ``columns`` (homogeneous vectors: directions, then a
    point)."""
    return lambda r: tuple(sum(map(mul, r, c)) for c in columns)


def restrict_rows(rows: Iterable[IntRow], allowed: Iterable[int], restrict: Callable[[IntRow], IntRow]
                  ) -> tuple[list[IntRow], list[int], list[tuple[int, int]]] | None:
    """Restrict rows to a flat, given by the function taking a row to its restriction.

    Returns the distinct canonical restricted rows, their allowed masks, and for each input row its recipe:
    ``(index, orientation)``, or ``(-1, constant sign)`` (0 when the row vanishes on the flat). Returns None
    when some row's forced sign is not allowed (no cell of the flat survives).
    """
    sub_rows: list[IntRow] = []
    sub_allowed: list[int] = []
    where: dict[IntRow, int] = {}
    recipe: list[tuple[int, int]] = []
    for r, al in zip(rows, allowed):
        restricted = restrict(r)
        if not any(restricted[:-1]):
            side = sign(restricted[-1])
            if side == 0:
                if al != BOTH:
                    return None
            elif not al & sign_bit(side):
                return None
            recipe.append((-1, side))
            continue
        canon, orientation = canonical(restricted)
        if orientation < 0:
            al = _flip(al)
        idx = where.get(canon)
        if idx is None:
            idx = where[canon] = len(sub_rows)
            sub_rows.append(canon)
            sub_allowed.append(al)
        else:
            sub_allowed[idx] &= al
            if not sub_allowed[idx]:
                return None
        recipe.append((idx, orientation))
    return sub_rows, sub_allowed, recipe


def lift(columns: Sequence[IntRow], v: Sequence[int]) -> IntRow:
    """The homogeneous vector ``sum_c v_c columns_c``."""
    out = [0] * len(columns[0])
    for coefficient, column in zip(v, columns):
        if coefficient:
            for i, x in enumerate(column):
                out[i] += coefficient * x
    return tuple(out)


__all__ += ["restrict_rows", "lift"]
