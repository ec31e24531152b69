"""Exact polytope geometry by brute force, with the Python standard library only.

Everything here is deliberately simple, so that it can be trusted by reading it: a half-space is a row of
integers ``(a, b)`` meaning ``a . t <= b`` (scaled to coprime integers, which keeps its orientation); the
vertices of a bounded polytope are found by trying every set of ``d`` rows (Cramer's rule in integers, then
an integer feasibility test against every row); a volume is the sum of the simplices of a pulling
triangulation (cone the polytope from its first vertex over the facets that miss it, recursively), each simplex
measured by an exact determinant.
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations
from math import comb, factorial, gcd, lcm
from operator import mul
from typing import Iterable, NamedTuple, Sequence

__all__ = [
    "IntRow",
    "Vertex",
    "TooLarge",
    "integer_row",
    "hyperplane_key",
    "row_height",
    "radius_of_height",
    "radius_bound",
    "box_rows",
    "vertices",
    "affine_dimension",
    "vertex_dimension",
    "triangulate",
    "simplex_volume",
    "volume",
    "restrict_to_hyperplane",
]

IntRow = tuple[tuple[int, ...], int]


class Vertex(NamedTuple):
    """A vertex of a polytope, the indices of the rows tight at it, and the point as integers
    ``nums / den`` (``den > 0``, in lowest common terms) for fast exact arithmetic."""

    point: tuple[Fraction, ...]
    tight: frozenset[int]
    nums: tuple[int, ...]
    den: int


class TooLarge(Exception):
    """A brute-force enumeration would try more row subsets than allowed."""


def integer_row(a: Sequence[Fraction], b: Fraction) -> IntRow:
    """The half-space ``a . t <= b`` as coprime integers (a positive multiple, so the same half-space).

    Examples
    --------
    >>> integer_row((Fraction(1, 2), Fraction(-1, 3)), Fraction(1))
    ((3, -2), 6)
    """
    values = list(a) + [b]
    scale = lcm(*(Fraction(v).denominator for v in values))
    integers = [int(Fraction(v) * scale) for v in values]
    divisor = gcd(*integers) or 1
    return tuple(v // divisor for v in integers[:-1]), integers[-1] // divisor


def hyperplane_key(row: IntRow) -> tuple[tuple[int, ...], int]:
    """``(key, side)``: the hyperplane of ``row`` in a form shared by both its orientations, and +1 or -1.

    Two rows bound the same half-space iff their keys and sides agree, and opposite half-spaces of one
    hyperplane iff their keys agree and their sides differ (rows are primitive, see :func:`integer_row`).

    Examples
    --------
    >>> hyperplane_key(((-1, 2), 3))
    ((1, -2, -3), -1)
    """
    a, b = row
    first = next((v for v in a if v), 0)
    side = -1 if first < 0 else 1
    return tuple(side * v for v in a) + (side * b,), side


def row_height(rows: Iterable[IntRow]) -> int:
    """The largest entry of the rows in absolute value (at least 1)."""
    h = 1
    for a, b in rows:
        h = max(h, abs(b), *(abs(v) for v in a))
    return h


def radius_of_height(h: int, dim: int) -> int:
    """``dim! h^dim + 1``: above every vertex coordinate of an arrangement of rows of height at most ``h``
    (see :func:`radius_bound`)."""
    return factorial(dim) * h ** dim + 1


def radius_bound(rows: Iterable[IntRow], dim: int) -> int:
    """An integer ``R`` with every vertex of the arrangement of the rows' hyperplanes (and of the coordinate
    hyperplanes) strictly inside ``[-R, R]^dim``.

    Cramer's rule writes a vertex coordinate as ``det(A_q) / det(A)`` with integer matrices whose entries are at
    most ``h`` in absolute value, so ``|coordinate| <= |det(A_q)| <= dim! h^dim``.

    Examples
    --------
    >>> radius_bound([((1, 1), 3)], 2)      # h = 3: 2! * 3^2 + 1
    19
    """
    return radius_of_height(row_height(rows), dim)


def box_rows(radius: int, dim: int) -> list[IntRow]:
    """The rows of ``[-radius, radius]^dim``."""
    rows = []
    for q in range(dim):
        unit = tuple(int(i == q) for i in range(dim))
        rows.append((unit, radius))
        rows.append((tuple(-v for v in unit), radius))
    return rows


def _det(m: list[list[int]]) -> int:
    n = len(m)
    if n == 1:
        return m[0][0]
    if n == 2:
        return m[0][0] * m[1][1] - m[0][1] * m[1][0]
    if n == 3:
        (a, b, c), (d, e, f), (g, h, i) = m
        return a * (e * i - f * h) - b * (d * i - f * g) + c * (d * h - e * g)
    if n == 4:  # Laplace expansion along the first row
        return sum((-1) ** c * m[0][c] * _det([row[:c] + row[c + 1:] for row in m[1:]])
                   for c in range(4) if m[0][c])
    # Bareiss: fraction-free elimination, every division exact.
    m = [row[:] for row in m]
    sign, previous = 1, 1
    for k in range(n - 1):
        if m[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if m[r][k]), None)
            if swap is None:
                return 0
            m[k], m[swap] = m[swap], m[k]
            sign = -sign
        for r in range(k + 1, n):
            for c in range(k + 1, n):
                m[r][c] = (m[r][c] * m[k][k] - m[r][k] * m[k][c]) // previous
        previous = m[k][k]
    return sign * m[n - 1][n - 1]


def _cramer(subset: Sequence[IntRow]) -> tuple[list[int], int] | None:
    """Cramer's rule: ``(numerators, det)`` of the solution of the rows as equations, None if singular."""
    matrix = [list(a) for a, _ in subset]
    den = _det(matrix)
    if den == 0:
        return None
    return [_det([row[:q] + [b] + row[q + 1:] for row, (_, b) in zip(matrix, subset)])
            for q in range(len(matrix))], den


def _cramer2(subset: Sequence[IntRow]) -> tuple[list[int], int] | None:
    """:func:`_cramer` for two rows in the plane, written out (the 2-D slices' every vertex comes this way)."""
    ((a0, a1), b0), ((c0, c1), b1) = subset
    den = a0 * c1 - a1 * c0
    if den == 0:
        return None
    return [b0 * c1 - a1 * b1, a0 * b1 - b0 * c0], den


def _solve(subset: Sequence[IntRow]) -> tuple[list[int], int] | None:
    """The same as :func:`_cramer` by fraction-free Gauss-Jordan elimination (Bareiss): the matrix ends as
    ``det * I`` and the right-hand side as ``det * x`` (up to one common sign), every division exact."""
    m = [list(a) + [b] for a, b in subset]
    n, previous, sign = len(m), 1, 1
    for k in range(n):
        if m[k][k] == 0:
            swap = next((r for r in range(k + 1, n) if m[r][k]), None)
            if swap is None:
                return None
            m[k], m[swap] = m[swap], m[k]
            sign = -sign
        pivot_row = m[k]
        pivot = pivot_row[k]
        for r in range(n):
            if r != k:
                row = m[r]
                factor = row[k]
                m[r] = [(pivot * x - factor * y) // previous for x, y in zip(row, pivot_row)]
        previous = pivot
    return [m[q][n] for q in range(n)], m[0][0]


def vertices(rows: Sequence[IntRow], dim: int, *, max_subsets: int | None = None) -> list[Vertex]:
    """Every vertex of the polytope ``{t : a . t <= b for every row}``, exactly, by brute force.

    The polytope must be bounded (a bounded polytope is the convex hull of these vertices); ``dim = 0`` gives
    the single point of ``R^0`` when every row ``0 <= b`` holds. ``max_subsets`` caps the number of row
    subsets tried (:class:`TooLarge` beyond it).

    Examples
    --------
    >>> sorted(v.point for v in vertices([((-1,), 0), ((1,), 2)], 1))
    [(Fraction(0, 1),), (Fraction(2, 1),)]
    """
    rows = list(rows)
    if dim == 0:
        if all(b >= 0 for _, b in rows):
            return [Vertex((), frozenset(i for i, (_, b) in enumerate(rows) if b == 0), (), 1)]
        return []
    distinct = sorted({row for row in rows if any(row[0])})
    count = comb(len(distinct), dim)
    if max_subsets is not None and count > max_subsets:
        raise TooLarge(f"C({len(distinct)}, {dim}) = {count} row subsets (limit {max_subsets})")
    found: dict[tuple[int, ...], Vertex] = {}
    solve = _solve if dim > 3 else _cramer2 if dim == 2 else _cramer
    for subset in combinations(distinct, dim):
        solved = solve(subset)
        if solved is None:
            continue
        nums, den = solved
        if den < 0:
            den, nums = -den, [-v for v in nums]
        tight = []
        for index, (a, b) in enumerate(rows):
            lhs = sum(map(mul, a, nums))
            if lhs > b * den:
                break
            if lhs == b * den:
                tight.append(index)
        else:
            divisor = gcd(den, *nums)
            key = tuple(v // divisor for v in nums) + (den // divisor,)
            if key not in found:
                found[key] = Vertex(tuple(Fraction(v, den) for v in nums), frozenset(tight), key[:-1], key[-1])
    return list(found.values())


def _integers(points: Sequence[Sequence[Fraction]]) -> tuple[list[list[int]], int]:
    """The points over one common denominator: ``(integer rows, den)``."""
    den = lcm(*(Fraction(x).denominator for p in points for x in p))
    return [[int(Fraction(x) * den) for x in p] for p in points], den


def _rank(rows: list[list[int]]) -> int:
    """Rank of an integer matrix by fraction-free elimination (rows kept primitive)."""
    rows = [row[:] for row in rows if any(row)]
    rank = 0
    for col in range(len(rows[0]) if rows else 0):
        pivot = next((r for r in range(rank, len(rows)) if rows[r][col]), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        top = rows[rank]
        for r in range(rank + 1, len(rows)):
            factor = rows[r][col]
            if factor:
                new = [top[col] * x - factor * y for x, y in zip(rows[r], top)]
                divisor = gcd(*new)
                rows[r] = [v // divisor for v in new] if divisor > 1 else new
        rank += 1
    return rank


def affine_dimension(points: Sequence[Sequence[Fraction]]) -> int:
    """The dimension of the affine hull of the points (-1 for none), by exact elimination.

    Examples
    --------
    >>> affine_dimension([(0, 0), (1, 1), (2, 2)])
    1
    """
    if not points:
        return -1
    rows, _ = _integers(points)
    return _rank([[x - y for x, y in zip(row, rows[0])] for row in rows[1:]])


def _vertex_integers(verts: Sequence[Vertex], drop: int | None = None) -> list[list[int]]:
    """The vertices over their common denominator (numerators only), coordinate ``drop`` left out."""
    den = lcm(*(v.den for v in verts))
    return [[x * (den // v.den) for q, x in enumerate(v.nums) if q != drop] for v in verts]


def vertex_dimension(verts: Sequence[Vertex]) -> int:
    """The dimension of the affine hull of the vertices (-1 for none): :func:`affine_dimension` of their points,
    in the integers they carry."""
    rows = _vertex_integers(verts)
    return _rank([[x - y for x, y in zip(row, rows[0])] for row in rows[1:]]) if rows else -1


def triangulate(verts: Sequence[Vertex], face: frozenset[int], dim: int,
                memo: dict | None = None) -> list[tuple[int, ...]]:
    """A pulling triangulation of the face (a set of indices into ``verts``) of dimension ``dim``.

    The face is coned from its smallest vertex over each of its facets that misses that vertex; a facet of a
    face is the set of its vertices tight at one more row, when that set has dimension ``dim - 1``. The
    simplices returned have pairwise disjoint relative interiors and cover the face.
    """
    memo = {} if memo is None else memo
    key = (face, dim)
    if key in memo:
        return memo[key]
    result: list[tuple[int, ...]]
    if dim == 0:
        result = [(min(face),)]
    else:
        apex = min(face)
        common = frozenset.intersection(*(verts[v].tight for v in face))
        rows = set().union(*(verts[v].tight for v in face)) - common
        facets = set()
        for row in rows:
            sub = frozenset(v for v in face if row in verts[v].tight)
            if apex in sub or sub in facets:
                continue
            if vertex_dimension([verts[v] for v in sub]) == dim - 1:
                facets.add(sub)
        result = [(apex,) + simplex for sub in sorted(facets, key=sorted)
                  for simplex in triangulate(verts, sub, dim - 1, memo)]
    memo[key] = result
    return result


def simplex_volume(points: Sequence[Sequence[Fraction]], *, drop: int | None = None) -> Fraction:
    """The volume of a simplex given by its ``k + 1`` vertices in ``R^k`` (``|det| / k!``).

    With ``drop``, the points live in ``R^(k+1)`` and coordinate ``drop`` is left out first (the volume of the
    projection, a fixed multiple of the true one on a hyperplane not parallel to that axis).

    Examples
    --------
    >>> simplex_volume([(0, 0), (1, 0), (0, 1)])
    Fraction(1, 2)
    """
    if drop is not None:
        points = [tuple(x for q, x in enumerate(p) if q != drop) for p in points]
    rows, den = _integers(points)
    k = len(rows) - 1
    if k == 0:
        return Fraction(1)
    det = _det([[x - y for x, y in zip(row, rows[0])] for row in rows[1:]])
    return Fraction(abs(det), den ** k * factorial(k))


def volume(verts: Sequence[Vertex], dim: int, *, face: frozenset[int] | None = None, drop: int | None = None,
           memo: dict | None = None) -> Fraction:
    """The ``dim``-volume of a bounded polytope (or of one of its faces) from its vertices; 0 when it is
    lower-dimensional. For ``dim = 0`` a non-empty set has volume 1 (a count).

    Examples
    --------
    >>> square = vertices([((1, 0), 1), ((-1, 0), 1), ((0, 1), 1), ((0, -1), 1)], 2)
    >>> volume(square, 2)
    Fraction(4, 1)
    """
    face = frozenset(range(len(verts))) if face is None else face
    if not face:
        return Fraction(0)
    if dim == 0:
        return Fraction(1)
    if dim == 1 and len(face) == 2 and len(verts[min(face)].nums) - (drop is not None) == 1:
        return _segment_length(verts, face, drop)
    if vertex_dimension([verts[v] for v in face]) < dim:
        return Fraction(0)
    # Every simplex over the common denominator of the face's vertices: a sum of integer determinants.
    den = lcm(*(verts[v].den for v in face))
    scaled = {v: [x * (den // verts[v].den) for q, x in enumerate(verts[v].nums) if q != drop] for v in face}
    total = 0
    for simplex in triangulate(verts, face, dim, memo):
        base = scaled[simplex[0]]
        total += abs(_det([[x - y for x, y in zip(scaled[v], base)] for v in simplex[1:]]))
    return Fraction(total, den ** dim * factorial(dim))


def _segment_length(verts: Sequence[Vertex], face: frozenset[int], drop: int | None) -> Fraction:
    """:func:`volume` of a face of two vertices in dimension 1, written out: the vertices are distinct (they are
    deduplicated), so the face spans dimension 1 and its pulling triangulation is the one segment between them,
    measured (as there) in the coordinates left after ``drop``."""
    u, v = (verts[i] for i in sorted(face))
    den = lcm(u.den, v.den)
    pu = [x * (den // u.den) for q, x in enumerate(u.nums) if q != drop]
    pv = [x * (den // v.den) for q, x in enumerate(v.nums) if q != drop]
    return Fraction(abs(pv[0] - pu[0]), den)


def restrict_to_hyperplane(rows: Iterable[IntRow], plane: IntRow, drop: int) -> list[IntRow]:
    """The rows on the hyperplane ``a . t = b`` of ``plane``, in the coordinates left after solving for
    ``t[drop]`` (``a[drop]`` must not be 0). Integer arithmetic; orientation kept.

    Examples
    --------
    >>> restrict_to_hyperplane([((1, 1), 3)], ((1, -1), 0), 0)     # on t0 = t1: 2 t1 <= 3
    [((2,), 3)]
    """
    a, b = plane
    pivot = a[drop]
    sign = 1 if pivot > 0 else -1
    result = []
    for c, gamma in rows:
        new = tuple(sign * (pivot * c[q] - c[drop] * a[q]) for q in range(len(a)) if q != drop)
        result.append((new, sign * (pivot * gamma - c[drop] * b)))
    return result
