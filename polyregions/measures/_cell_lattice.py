"""The vertices and the face lattice of one bounded cell of a region complex, in pure-Python integers.

A cell of dimension 3 to 6 has a few tens of rows and vertices. At that size numpy's cost per call dominates a
double description (:func:`polyregions.polyhedra.vertex_enumeration.enumerate_vertices` pays it on every row it
adds), so this one keeps its rays as tuples of Python integers, the rows tight at each as a Python-int bitset
and its edge graph as sets. Every decision is an exact integer computation; no float filter is needed.

The cell ``{x : a . x <= c for every row}`` (integer rows ``(a_1, ..., a_d, c)``, redundant rows allowed) is the
slice ``w = 1`` of the cone ``{(w, x) : c w - a . x >= 0, w >= 0}``; a bounded full-dimensional cell makes it a
pointed cone whose extreme rays are its vertices ``(w, X)``, primitive integers with ``w > 0``.
"""

from __future__ import annotations

import math
from typing import Sequence

from polyregions.errors import CertificateError
from polyregions.exact._integers import primitive
from polyregions.polyhedra.face_lattice import facets_of_face

__all__ = ["integer_rows", "cell_vertices", "cell_lattice", "members"]

Row = tuple[int, ...]


def integer_rows(A, b) -> list[Row]:
    """The rows ``a . x <= c`` of exact rationals as primitive integers ``(a_1, ..., a_d, c)`` (the same half-spaces;
    :func:`~polyregions.exact._integers.primitive`, without its conversions when the rows are integers already, as
    the engines leave them).

    >>> from fractions import Fraction
    >>> integer_rows([[Fraction(2), Fraction(4)], [Fraction(1, 2), 0]], [Fraction(6), Fraction(1)])
    [(1, 2, 3), (1, 0, 2)]
    """
    out = []
    for a, c in zip(A, b):
        values = (*a, c)
        if all(getattr(x, "denominator", None) == 1 for x in values):
            integers = [int(x.numerator) for x in values]
            g = math.gcd(*integers)
            out.append(tuple(integers) if g <= 1 else tuple(x // g for x in integers))
        else:
            out.append(primitive(values))
    return out


def cell_vertices(rows: Sequence[Row], d: int) -> tuple[list[tuple[int, ...]], list[int]]:
    """The vertices of the bounded full-dimensional cell of integer ``rows`` ``(a_1, ..., a_d, c)`` in ``R^d``.

    Parameters
    ----------
    rows : sequence of Row
        The cell's rows (redundant ones allowed).
    d : int
        The dimension.

    Returns
    -------
    points : list of tuple of int
        Homogeneous primitive integers ``(w, X_1, ..., X_d)`` with ``w > 0`` (the vertex ``X / w``), sorted:
        the order of :meth:`polyregions.polyhedra.polytope.Polytope.vertices`.
    tight : list of int
        For each vertex, the bitset of the rows that hold with equality there.

    Raises
    ------
    CertificateError
        When the cell is empty, lower-dimensional or unbounded.

    Examples
    --------
    >>> points, tight = cell_vertices([(1, 0, 1), (-1, 0, 0), (0, 1, 1), (0, -1, 0)], 2)  # the unit square
    >>> points, [bin(t) for t in tight]
    ([(1, 0, 0), (1, 0, 1), (1, 1, 0), (1, 1, 1)], ['0b1010', '0b110', '0b1001', '0b101'])
    """
    cone = [(1,) + (0,) * d] + [(row[-1],) + tuple(-v for v in row[:-1]) for row in rows]
    ray, tight, _ = _extreme_rays(cone, d + 1)
    rays, masks = list(ray.values()), [t >> 1 for t in tight.values()]  # row 0 of the cone is w >= 0
    _check_bounded(rays, rows)
    order = sorted(range(len(rays)), key=rays.__getitem__)
    return [rays[i] for i in order], [masks[i] for i in order]


def _check_bounded(rays: list[tuple[int, ...]], rows) -> None:
    if not rays or any(ray[0] <= 0 for ray in rays):
        raise CertificateError(f"face_complex: expected a bounded full-dimensional region, got one with rays "
                               f"{[ray for ray in rays if ray[0] <= 0]} at infinity from rows {list(rows)}")


def _extreme_rays(H: list[Row], n: int) -> tuple[dict[int, tuple[int, ...]], dict[int, int], dict[int, set[int]]]:
    """The extreme rays of the pointed cone ``{y : h . y >= 0 for h in H}`` in ``R^n`` (primitive integers) with
    the bitset of the rows of ``H`` tight at each, and the edges, by the double description method.

    ``H[0]`` is ``w >= 0`` (``(1, 0, ..., 0)``) and the other rows ``(c, -a)``: the description starts from it and
    the first ``n - 1`` rows with independent ``a``, a simplicial cone whose rays are the point where those rows
    meet and the directions along which one of them loosens."""
    basis = _independent_rows([h[1:] for h in H[1:]], n - 1)
    if len(basis) < n - 1:
        raise CertificateError(f"face_complex: expected a bounded full-dimensional region, got rows of rank "
                               f"{len(basis)} in dimension {n - 1}")
    basis = [k + 1 for k in basis]
    D, R = _inverse([[-x for x in H[k][1:]] for k in basis], n - 1)  # A^-1 = R / D for A the rows' a
    sign = 1 if D > 0 else -1
    c = [H[k][0] for k in basis]
    # The point A^-1 c, and the directions -A^-1 e_k: positive multiples of the columns of the cone's inverse.
    columns = [[abs(D)] + [sign * sum(map(int.__mul__, row, c)) for row in R]]
    columns += [[0] + [-sign * row[k] for row in R] for k in range(n - 1)]
    ray = {}
    for j, column in enumerate(columns):
        g = math.gcd(*column)
        ray[j] = tuple(x // g for x in column)
    every = sum(1 << k for k in basis)
    tight = {0: every}
    tight.update({j + 1: 1 | every & ~(1 << basis[j]) for j in range(n - 1)})
    adjacent = {j: set(range(n)) - {j} for j in range(n)}  # a simplicial cone: every pair is an edge
    chosen = set(basis) | {0}
    _cut(ray, tight, adjacent, [(1 << k, h) for k, h in enumerate(H) if k not in chosen], n)
    return ray, tight, adjacent


def _cut(ray: dict[int, tuple[int, ...]], tight: dict[int, int], adjacent: dict[int, set[int]],
         rows: list[tuple[int, Row]], n: int) -> None:
    """Intersect the pointed cone of extreme rays ``ray`` (with their tight rows and edges, updated in place)
    with ``{h . y >= 0}`` for each ``(bit, h)`` of ``rows`` in turn: one step of the double description
    method each. New rays lie on the edges from a ray with ``h . y > 0`` to one with ``h . y < 0``; new edges
    appear only inside the hyperplane."""
    fresh = max(ray, default=-1) + 1
    for bit, h in rows:
        values = {r: sum(map(int.__mul__, h, v)) for r, v in ray.items()}
        minus = [r for r, s in values.items() if s < 0]
        zero = [r for r, s in values.items() if s == 0]
        for r in zero:
            tight[r] |= bit
        if not minus:
            continue
        new = []
        for q in minus:
            hq, vq = values[q], ray[q]
            for p in adjacent[q]:
                hp = values[p]
                if hp > 0:
                    # hp > 0 > hq: the positive combination hp q - hq p lies on the hyperplane h . y = 0.
                    combined = [hp * a - hq * b for a, b in zip(vq, ray[p])]
                    g = math.gcd(*combined)
                    ray[fresh] = tuple(x // g for x in combined)
                    tight[fresh] = (tight[p] & tight[q]) | bit
                    adjacent[fresh] = {p}
                    new.append((fresh, p))
                    fresh += 1
        for r, p in new:
            adjacent[p].add(r)
        for q in minus:
            for p in adjacent.pop(q):
                if p in adjacent:
                    adjacent[p].discard(q)
            del ray[q], tight[q]
        _connect_on_hyperplane(zero + [r for r, _ in new], tight, adjacent, n)


def _connect_on_hyperplane(on: list[int], tight: dict[int, int], adjacent: dict[int, set[int]], n: int) -> None:
    """Add the edges among the rays ``on`` (all on the last row's hyperplane, where new edges can appear): two
    rays are adjacent exactly when no third ray is tight at every row tight at both (the combinatorial test; a
    third such ray is on that hyperplane too), which needs ``n - 2`` common rows at least."""
    for i, u in enumerate(on):
        tu, around = tight[u], adjacent[u]
        simple_u = tu.bit_count() == n - 1
        for w in on[i + 1:]:
            if w in around:
                continue
            tw = tight[w]
            common = tu & tw
            if common.bit_count() < n - 2:
                continue
            # A ray tight at exactly n - 1 rows has independent tight rows: any n - 2 of them cut out a 2-face,
            # so the count proves the edge.
            if not (simple_u or tw.bit_count() == n - 1) and any(
                    z != u and z != w and tight[z] & common == common for z in on):
                continue
            around.add(w)
            adjacent[w].add(u)


def _independent_rows(H: list[Row], n: int) -> list[int]:
    """The first rows of ``H`` that are linearly independent, up to ``n`` of them (integer elimination)."""
    reduced: list[tuple[int, list[int]]] = []  # (pivot column, row zero at the earlier pivots)
    chosen: list[int] = []
    for i, h in enumerate(H):
        v = list(h)
        for pivot, r in reduced:
            if v[pivot]:
                f, g = r[pivot], v[pivot]
                v = [f * x - g * y for x, y in zip(v, r)]
        pivot = next((j for j, x in enumerate(v) if x), -1)
        if pivot < 0:
            continue
        g = math.gcd(*v)
        reduced.append((pivot, [x // g for x in v]))
        chosen.append(i)
        if len(chosen) == n:
            break
    return chosen


def _inverse(A: list[list[int]], n: int) -> tuple[int, list[list[int]]]:
    """``(D, R)`` with ``A^-1 = R / D`` for an invertible integer matrix: fraction-free Gauss-Jordan elimination
    (Bareiss) on ``[A | I]`` leaves ``[D I | R]``, ``D = +-det(A)``."""
    M = [list(row) + [int(i == j) for j in range(n)] for i, row in enumerate(A)]
    previous = 1
    for k in range(n):
        pivot = next(i for i in range(k, n) if M[i][k])  # A is invertible
        if pivot != k:
            M[k], M[pivot] = M[pivot], M[k]
        top = M[k]
        p = top[k]
        for i in range(n):
            if i != k:
                row = M[i]
                f = row[k]
                M[i] = [(p * x - f * y) // previous for x, y in zip(row, top)]
        previous = p
    return M[0][0], [row[n:] for row in M]


_BYTES: list[list[tuple[int, ...]]] = []  # _BYTES[k][b]: the positions of the set bits of b << 8 k


def members(bits: int) -> list[int]:
    """The positions of the set bits of a non-negative Python integer, in increasing order.

    >>> members(0b10110)
    [1, 2, 4]
    """
    out: list[int] = []
    k = 0
    while bits:
        if k == len(_BYTES):
            _BYTES.append([tuple(8 * k + i for i in range(8) if b >> i & 1) for b in range(256)])
        low = bits & 255
        if low:
            out.extend(_BYTES[k][low])
        bits >>= 8
        k += 1
    return out


def cell_lattice(tight: Sequence[int], n_rows: int, d: int) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """Every face of a bounded full-dimensional ``d``-polytope from its vertices' tight rows.

    Parameters
    ----------
    tight : sequence of int
        For each vertex, the bitset of the rows tight there (from :func:`cell_vertices`).
    n_rows : int
        The number of rows.
    d : int
        The dimension of the polytope.

    Returns
    -------
    faces : list of (int, int)
        ``(dim, bitset of its vertices)`` for every non-empty face, the polytope itself included.
    covers : list of (int, int)
        The pairs ``(i, j)`` with ``faces[i]`` a facet of ``faces[j]``.

    Notes
    -----
    The lattice is walked down from the top, each face's facets being the maximal proper intersections with the
    rows' vertex sets (:func:`~polyregions.polyhedra.face_lattice.facets_of_face`); the dimension drops by one
    per step. Simple cells, the usual ones, go faster through
    :func:`polyregions.measures._complex_faces.complex_faces`.

    Examples
    --------
    >>> faces, covers = cell_lattice(cell_vertices([(1, 0, 1), (-1, 0, 0), (0, 1, 1), (0, -1, 0)], 2)[1], 4, 2)
    >>> sorted(dim for dim, _ in faces), len(covers)  # 4 edges in the square, 2 vertices in each edge
    ([0, 0, 0, 0, 1, 1, 1, 1, 2], 12)
    """
    columns = [0] * n_rows  # for each row, the bitset of the vertices on it
    for v, rows in enumerate(tight):
        for i in members(rows):
            columns[i] |= 1 << v
    top = (1 << len(tight)) - 1
    found = {top: 0}  # face -> position in faces
    faces = [(d, top)]
    covers: list[tuple[int, int]] = []
    level = [top]
    for k in range(d, 0, -1):
        following = []
        for face in level:
            j = found[face]
            for facet in facets_of_face(face, columns):
                if facet not in found:
                    found[facet] = len(faces)
                    faces.append((k - 1, facet))
                    following.append(facet)
                covers.append((found[facet], j))
        level = following
    return faces, covers
