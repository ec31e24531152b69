"""Homology over GF(2) or Q of a part of a polyhedral complex: fill-free reductions, then exact ranks.

The chain complex is spanned by a set ``T`` of faces that is locally closed (the difference of two subcomplexes:
a subcomplex itself, or the faces of a subcomplex not in a smaller one), with the cellular boundary restricted to
``T``; its homology is that of the pair ``(closure of T, closure of T minus T)``. Every incidence number of a
polyhedral complex is ``+-1`` (a regular CW complex).

Reductions. When a face ``a`` of ``T`` has exactly one coface ``b`` in ``T`` of one dimension more, or a face
``b`` has exactly one facet ``a`` in ``T``, removing both leaves a chain complex with the same homology whose
boundary is the restriction of the old one (the elementary collapse and coreduction; see Mrozek & Batko,
"Coreduction homology algorithm", 2009): the pivot ``<d b, a> = +-1`` is eliminated without changing any other
entry. Over any field, so signs are not even needed here. What is left is usually small; its boundary ranks
are computed exactly: in degree 1 from connected components (every column has one entry, or two of opposite
signs), in higher degrees by sparse elimination (Python integers as GF(2) bit vectors, or exact rationals).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Callable, Iterable, Literal, Sequence

from polyregions._support.runtime import collector_paused
from polyregions.errors import InvalidInputError

__all__ = ["Field", "FIELDS", "homology"]

#: The coefficient fields.
Field = Literal["GF(2)", "Q"]
#: The values of ``field`` parameters.
FIELDS: tuple[Field, ...] = ("GF(2)", "Q")


def homology(cells: Iterable[int], dims: Sequence[int], facets: Sequence[Sequence[int]], *, top: int,
             field: Field = "GF(2)", sign: Callable[[int, int], int] | None = None) -> tuple[int, ...]:
    """The dimensions ``h_0, ..., h_top`` of the homology of the chain complex spanned by ``cells``.

    Parameters
    ----------
    cells : iterable of int
        The faces of ``T`` (a locally closed set of faces).
    dims : sequence of int
        The dimension of every face of the complex.
    facets : sequence of sequences of int
        The facets of every face of the complex.
    top : int, keyword-only
        The highest degree reported (the dimension of the complex).
    field : {"GF(2)", "Q"}, keyword-only
    sign : callable, keyword-only
        ``sign(g, f)``: the incidence number ``+-1`` of facet ``g`` in face ``f`` (needed over Q only, and only
        for faces of dimension 2 or more that survive the reductions).

    Returns
    -------
    tuple of int
        ``h_k = n_k - rank d_k - rank d_{k+1}`` for ``k = 0..top``.

    Examples
    --------
    The boundary of a triangle (vertices 0, 1, 2 and edges 3, 4, 5) is a circle; with its 2-cell 6, a disc:

    >>> dims = [0, 0, 0, 1, 1, 1, 2]
    >>> facets = [(), (), (), (0, 1), (1, 2), (0, 2), (3, 4, 5)]
    >>> homology(range(6), dims, facets, top=2), homology(range(7), dims, facets, top=2)
    ((1, 1, 0), (1, 0, 0))
    """
    with collector_paused():  # many small sets, all dropped at the end: the collector's scans would dominate
        alive = set(cells)
        down = {c: {f for f in facets[c] if f in alive} for c in alive}
        up: dict[int, set[int]] = {c: set() for c in alive}
        for c, fs in down.items():
            for f in fs:
                up[f].add(c)
        _reduce(alive, down, up)
    by_dim: list[list[int]] = [[] for _ in range(top + 2)]
    for c in sorted(alive):
        by_dim[dims[c]].append(c)
    ranks = [0] * (top + 2)
    if top >= 1:
        ranks[1] = _rank_degree_one(by_dim[0], by_dim[1], down)
    for k in range(2, top + 1):
        if by_dim[k] and by_dim[k - 1]:
            if field == "GF(2)":
                ranks[k] = _rank_gf2(by_dim[k - 1], by_dim[k], down)
            else:
                if sign is None:
                    raise InvalidInputError("homology: expected incidence signs over Q, got none")
                ranks[k] = _rank_q(by_dim[k - 1], by_dim[k], down, sign)
    return tuple(len(by_dim[k]) - ranks[k] - ranks[k + 1] for k in range(top + 1))


def _reduce(alive: set[int], down: dict[int, set[int]], up: dict[int, set[int]]) -> None:
    """Remove pairs (collapses and coreductions) until none is left; ``alive``, ``down``, ``up`` are updated."""
    stack = list(alive)
    while stack:
        c = stack.pop()
        if c not in alive:
            continue
        if len(up[c]) == 1:
            pair = (c, next(iter(up[c])))
        elif len(down[c]) == 1:
            pair = (next(iter(down[c])), c)
        else:
            continue
        alive.difference_update(pair)
        for x in pair:
            for f in down.pop(x):
                if f in alive:
                    up[f].discard(x)
                    stack.append(f)
            for g in up.pop(x):
                if g in alive:
                    down[g].discard(x)
                    stack.append(g)


def _rank_degree_one(vertices: list[int], edges: list[int], down: dict[int, set[int]]) -> int:
    """The rank of ``d_1``: its columns are ``v_b - v_a`` or a single ``+-v``, so it is the incidence matrix of
    a graph with one extra node (``ground``, for the single entries) without that node's row, of rank
    ``nodes - components``, over any field."""
    parent = {v: v for v in vertices}
    ground = -1
    parent[ground] = ground

    def find(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    components = len(parent)
    for e in edges:
        ends = list(down[e])
        if not ends:
            continue
        a, b = find(ends[0]), find(ends[1] if len(ends) == 2 else ground)
        if a != b:
            parent[a] = b
            components -= 1
    return len(parent) - components


def _rank_gf2(rows: list[int], columns: list[int], down: dict[int, set[int]]) -> int:
    """The rank over GF(2) of the boundary from ``columns`` to ``rows``, each column a bit vector."""
    position = {r: i for i, r in enumerate(rows)}
    pivots: dict[int, int] = {}
    for c in columns:
        column = 0
        for f in down[c]:
            column ^= 1 << position[f]
        reduce_gf2(column, pivots)
    return len(pivots)


def reduce_gf2(column: int, pivots: dict[int, int]) -> int | None:
    """Reduce a column over GF(2) (a Python integer, a bit per row; ``low`` its highest bit) against the
    ``pivots`` found so far (low -> reduced column); record it and return its low, or None when it reduces to
    zero."""
    while column:
        low = column.bit_length() - 1
        pivot = pivots.get(low)
        if pivot is None:
            pivots[low] = column
            return low
        column ^= pivot
    return None


def _rank_q(rows: list[int], columns: list[int], down: dict[int, set[int]], sign: Callable[[int, int], int]) -> int:
    """The rank over Q of the boundary from ``columns`` to ``rows`` (exact sparse elimination)."""
    position = {r: i for i, r in enumerate(rows)}
    pivots: dict[int, dict[int, Fraction]] = {}
    for c in columns:
        column = {position[f]: Fraction(sign(f, c)) for f in down[c]}
        while column:
            low = max(column)
            pivot = pivots.get(low)
            if pivot is None:
                lead = column[low]
                pivots[low] = {r: v / lead for r, v in column.items()}
                break
            factor = column[low]
            for r, v in pivot.items():
                value = column.get(r, 0) - factor * v
                if value:
                    column[r] = value
                else:
                    column.pop(r, None)
    return len(pivots)
