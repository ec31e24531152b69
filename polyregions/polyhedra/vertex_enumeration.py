"""Exact vertex, ray and facet enumeration by the double description method.

The core works on a polyhedral cone ``{y : H y >= 0}`` with integer rows and returns its extreme rays as
primitive integer vectors together with a basis of its lineality space. A polyhedron ``{x : A x <= b}`` is
the slice ``y0 = 1`` of the cone ``{(y0, x) : b y0 - A x >= 0, y0 >= 0}``: extreme rays with ``y0 > 0``
are its vertices, those with ``y0 = 0`` its extreme rays. The convex hull of points (and rays and lines)
is the dual problem, the cone of valid inequalities ``(beta, a)`` with ``beta - a.v >= 0``.

Exactness. Ray coordinates are Python integers (exact, arbitrary size). The sign of ``h.r`` for every ray
``r`` against a new row ``h`` is first computed in floating point from scaled copies of both vectors; a
sign counts only when the float value exceeds a proven bound on its error (the dot product's rounding
error and the error of the conversion to floats: :mod:`polyregions.exact._integer_dots`), otherwise the exact
integer dot product decides.
Adjacency of two rays is decided combinatorially on exact incidence sets, never by a tolerance.

Speed. Incidence sets are packed into 64-bit words; candidate pairs of rays are filtered by counting
common tight rows with vectorised popcounts, and the combinatorial adjacency test is skipped when one of
the two rays is non-degenerate (then the count alone proves adjacency).
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact._integer_dots import dot_error_bound, float_row, scaled_floats
from polyregions.exact._integers import primitive
from polyregions.exact.linalg import Vector, nullspace, rref

__all__ = [
    "ConeGenerators",
    "VRepresentation",
    "HRepresentation",
    "ORDERS",
    "cone_generators",
    "enumerate_vertices",
    "enumerate_facets",
]

#: Strategies for the order in which the double description method adds rows.
ORDERS = ("lexmin", "given", "random")

_ZERO = Fraction(0)


@dataclass(frozen=True)
class ConeGenerators:
    """The generators of a cone ``{y : H y >= 0}``.

    Attributes
    ----------
    rays : tuple of tuple of int
        Primitive integer extreme rays of the cone's pointed part (the cone is ``cone(rays) + span(lines)``).
    lines : tuple of tuple of int
        Primitive integer basis of the lineality space ``{y : H y = 0}``.
    incidence : tuple of frozenset of int
        For each ray, the indices of the rows ``h`` with ``h.r == 0``.
    """

    rays: tuple[tuple[int, ...], ...]
    lines: tuple[tuple[int, ...], ...]
    incidence: tuple[frozenset[int], ...]


@dataclass(frozen=True)
class VRepresentation:
    """A polyhedron as ``conv(points) + cone(rays) + span(lines)``, with incidences.

    When there are lines, the points are the vertices of the polyhedron's intersection with a complement of
    the lineality space (the coordinates of the pivot columns of the lines' reduced row echelon form are 0).

    Attributes
    ----------
    points, rays, lines : tuple of tuple of Fraction
        Rays and lines are primitive integer vectors (stored as fractions).
    point_rows, ray_rows : tuple of frozenset of int
        For each point, the rows of ``A x <= b`` that hold with equality; for each ray ``r``, the rows with
        ``a.r == 0``.
    dim : int
        The ambient dimension.
    """

    points: tuple[Vector, ...]
    rays: tuple[Vector, ...]
    lines: tuple[Vector, ...]
    point_rows: tuple[frozenset[int], ...]
    ray_rows: tuple[frozenset[int], ...]
    dim: int


@dataclass(frozen=True)
class HRepresentation:
    """An irredundant ``{x : A x <= b, E x = e}`` from generators.

    Attributes
    ----------
    A, b : facet inequalities (primitive integer rows, stored as fractions).
    E, e : a basis of the equations of the affine hull (primitive integer rows).
    facet_points : for each facet, the indices of the points on it.
    dim : the ambient dimension.
    """

    A: tuple[Vector, ...]
    b: Vector
    E: tuple[Vector, ...]
    e: Vector
    facet_points: tuple[frozenset[int], ...]
    dim: int


_BYTE_COUNTS = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)


def _popcount(words: np.ndarray) -> np.ndarray:
    """Bits set in each uint64 entry (numpy >= 2 has it built in)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(words)
    words = np.ascontiguousarray(words, dtype="<u8")
    return _BYTE_COUNTS[words.view(np.uint8)].reshape(words.shape + (8,)).sum(axis=-1)


def _dot(u: Sequence[int], v: Sequence[int]) -> int:
    return sum(a * b for a, b in zip(u, v))


# ---------------------------------------------------------------------------------------------------------
# The double description method on a pointed cone


class _Rays:
    """The growing store of rays: exact vectors, float copies, packed incidence words, and the edge graph.

    Ray ids are never reused; a removed ray is only marked dead, so that the edge graph keeps valid ids.
    """

    def __init__(self, n: int, n_words: int):
        self.n = n
        self.exact: list[tuple[int, ...]] = []
        self.adjacent: list[set[int] | None] = []
        self.floats = np.zeros((16, n))
        self.words = np.zeros((16, n_words), dtype="<u8")
        self.counts = np.zeros(16, dtype=np.int64)
        self.alive = np.zeros(16, dtype=bool)

    @property
    def size(self) -> int:
        return len(self.exact)

    def extend(self, rays: list[tuple[int, ...]], words: np.ndarray) -> np.ndarray:
        """Add rays with their incidence words; return their ids."""
        start, stop = self.size, self.size + len(rays)
        if stop > len(self.alive):
            grow = max(stop, 2 * len(self.alive)) - len(self.alive)
            self.floats = np.concatenate([self.floats, np.zeros((grow, self.n))])
            self.words = np.concatenate([self.words, np.zeros((grow, self.words.shape[1]), dtype="<u8")])
            self.counts = np.concatenate([self.counts, np.zeros(grow, dtype=np.int64)])
            self.alive = np.concatenate([self.alive, np.zeros(grow, dtype=bool)])
        self.exact.extend(rays)
        self.adjacent.extend(set() for _ in rays)
        if rays:
            self.floats[start:stop] = scaled_floats(rays)
        self.words[start:stop] = words
        self.counts[start:stop] = _popcount(words).sum(axis=1, dtype=np.int64)
        self.alive[start:stop] = True
        return np.arange(start, stop)

    def connect(self, pairs) -> None:
        for u, v in pairs:
            self.adjacent[u].add(v)
            self.adjacent[v].add(u)

    def remove(self, ids) -> None:
        for q in ids:
            for u in self.adjacent[q]:
                neighbours = self.adjacent[u]
                if neighbours is not None:
                    neighbours.discard(q)
            self.adjacent[q] = None
        self.alive[ids] = False


def _pointed_extreme_rays(H: list[tuple[int, ...]], n: int, order: str, seed: int
                          ) -> tuple[list[tuple[int, ...]], list[int]]:
    """Extreme rays of the pointed cone ``{y in R^n : H y >= 0}`` (H has rank n, distinct non-zero rows).

    Returns the rays and, for each, the bitset (Python int) of the rows it makes tight.
    """
    m = len(H)
    if n == 1:
        # The cone is a half-line or {0}: the sign of the single column decides.
        signs = {h[0] > 0 for h in H}
        rays: list[tuple[int, ...]] = [] if len(signs) == 2 else [(1,) if signs == {True} else (-1,)]
        return rays, [0] * len(rays)
    sequence = _initial_order(H, order, seed)
    basis = _independent_rows(H, sequence, n)
    store = _Rays(n, (m + 63) // 64)
    words = np.zeros((n, store.words.shape[1]), dtype="<u8")
    for j in range(n):
        for i in basis:
            if i != basis[j]:
                words[j, i >> 6] |= np.uint64(1 << (i & 63))
    ids = store.extend(_inverse_columns([H[i] for i in basis], n), words)
    store.connect((int(u), int(v)) for u in ids for v in ids if u < v)  # a simplicial cone: all pairs adjacent
    H_float = np.array([float_row(h) for h in H])
    bound = dot_error_bound(n)
    chosen = set(basis)
    for k in (i for i in sequence if i not in chosen):
        _add_row(k, H[k], H_float[k], store, bound)
        if not store.alive.any():
            break
    alive = np.flatnonzero(store.alive[:store.size])
    return [store.exact[i] for i in alive], [int.from_bytes(store.words[i].tobytes(), "little") for i in alive]


def _initial_order(H: list[tuple[int, ...]], order: str, seed: int) -> list[int]:
    indices = list(range(len(H)))
    if order == "lexmin":
        indices.sort(key=lambda i: H[i])
    elif order == "random":
        random.Random(seed).shuffle(indices)
    return indices


def _independent_rows(H: list[tuple[int, ...]], sequence: list[int], n: int) -> list[int]:
    """The first n rows in ``sequence`` that are linearly independent (greedy)."""
    columns = [[Fraction(H[i][j]) for i in sequence] for j in range(n)]
    _, pivots = rref(columns, len(sequence))
    return [sequence[p] for p in pivots]


def _inverse_columns(B: list[tuple[int, ...]], n: int) -> list[tuple[int, ...]]:
    """Primitive integer columns of B^-1: column j is the ray of {B y >= 0} off the facet of row j."""
    from flint import fmpq_mat

    inverse = fmpq_mat(n, n, [v for row in B for v in row]).inv()
    entries = inverse.tolist()
    return [primitive([Fraction(int(entries[i][j].p), int(entries[i][j].q)) for i in range(n)])
            for j in range(n)]


def _add_row(k: int, h: tuple[int, ...], h_float: np.ndarray, store: _Rays, bound: float) -> None:
    """One step of the double description method: intersect the cone with ``{h.y >= 0}``.

    New rays lie on the edges joining a ray with ``h.y > 0`` to one with ``h.y < 0``; the edges of the new
    cone are the old ones that survive, the pieces of the cut edges, and edges inside the hyperplane
    ``h.y = 0`` (only there can new edges appear), found among the rays on it.
    """
    ids = np.flatnonzero(store.alive[:store.size])
    values = store.floats[ids] @ h_float
    signs = np.sign(values).astype(np.int8)
    exact: dict[int, int] = {}
    for t in np.flatnonzero(np.abs(values) <= bound).tolist():
        v = _dot(h, store.exact[ids[t]])
        exact[int(ids[t])] = v
        signs[t] = (v > 0) - (v < 0)
    minus, zero = ids[signs < 0], ids[signs == 0]
    word, bit = k >> 6, np.uint64(1 << (k & 63))
    store.words[zero, word] |= bit
    store.counts[zero] += 1
    if minus.size == 0:
        return
    positive_mask = np.zeros(store.size, dtype=np.uint8)
    positive_mask[ids[signs > 0]] = 1
    positive = positive_mask.tobytes()  # fast lookups by ray id
    pairs_p: list[int] = []
    pairs_q: list[int] = []
    new_rays: list[tuple[int, ...]] = []
    for q in minus.tolist():
        hq = exact.get(q)
        for p in store.adjacent[q]:
            if not positive[p]:
                continue
            if hq is None:
                hq = exact[q] = _dot(h, store.exact[q])
            hp = exact.get(p)
            if hp is None:
                hp = exact[p] = _dot(h, store.exact[p])
            # hp > 0 > hq: the positive combination hp*q - hq*p lies on the hyperplane h.y = 0.
            combined = [hp * a - hq * c for a, c in zip(store.exact[q], store.exact[p])]
            g = math.gcd(*combined)
            new_rays.append(tuple(v // g for v in combined))
            pairs_p.append(p)
            pairs_q.append(q)
    # Annotated: numpy's stubs type ``&`` of two untyped-dtype arrays as a bool array; these are uint64 words.
    new_words: np.ndarray = store.words[pairs_p] & store.words[pairs_q]
    new_words[:, word] |= bit
    new_ids = store.extend(new_rays, new_words)
    store.connect(zip(new_ids.tolist(), pairs_p))
    store.remove(minus.tolist())
    on_hyperplane = np.concatenate([zero, new_ids])
    store.connect(_adjacent_on_hyperplane(on_hyperplane, store))


def _adjacent_on_hyperplane(ids: np.ndarray, store: _Rays) -> list[tuple[int, int]]:
    """The adjacent pairs among the rays ``ids``, all on one facet of the cone, so that only they matter."""
    n, f = store.n, ids.size
    if f < 2:
        return []
    words, counts = store.words[ids], store.counts[ids]
    found_i, found_j = [], []
    chunk = max(1, 4_000_000 // f)
    for start in range(0, f, chunk):
        block = words[start:start + chunk]
        common = np.zeros((block.shape[0], f), dtype=np.int64)
        for w in range(words.shape[1]):
            common += _popcount(block[:, w, None] & words[None, :, w])
        i, j = np.nonzero(common >= n - 2)
        i = i + start
        keep = i < j
        found_i.append(i[keep])
        found_j.append(j[keep])
    i, j = np.concatenate(found_i), np.concatenate(found_j)
    # A ray tight at exactly n-1 rows has independent tight rows, so any n-2 of them span a 2-face: the
    # count proves adjacency. Otherwise that face may hold a third ray: test combinatorially.
    degenerate = (counts[i] > n - 1) & (counts[j] > n - 1)
    if degenerate.any():
        columns = _ColumnSets(words)
        ok = np.ones(i.size, dtype=bool)
        common_words = words[i[degenerate]] & words[j[degenerate]]
        for t, position in enumerate(np.flatnonzero(degenerate).tolist()):
            ok[position] = columns.only_two(common_words[t])
        i, j = i[ok], j[ok]
    return list(zip(ids[i].tolist(), ids[j].tolist()))


class _ColumnSets:
    """For each row, the bitset (Python int) of the rays tight at it; built lazily."""

    def __init__(self, words: np.ndarray):
        self._bits = np.unpackbits(np.ascontiguousarray(words).view(np.uint8), axis=1, bitorder="little")
        self._cache: dict[int, int] = {}

    def column(self, j: int) -> int:
        value = self._cache.get(j)
        if value is None:
            value = int.from_bytes(np.packbits(self._bits[:, j], bitorder="little").tobytes(), "little")
            self._cache[j] = value
        return value

    def only_two(self, common: np.ndarray) -> bool:
        """True when exactly two rays (the pair itself) are tight at every row of ``common``."""
        rows = int.from_bytes(common.tobytes(), "little")
        acc = -1
        while rows:
            low = rows & -rows
            acc &= self.column(low.bit_length() - 1)
            rows ^= low
        return acc.bit_count() == 2


# ---------------------------------------------------------------------------------------------------------
# Cones with lineality, polyhedra, convex hulls


def cone_generators(H: Sequence[Sequence], *, dim: int | None = None, order: str = "lexmin",
                    seed: int = 0) -> ConeGenerators:
    """Return the extreme rays and lineality space of the cone ``{y : H y >= 0}``, exactly.

    Parameters
    ----------
    H : sequence of rows of rationals
        The constraint rows; repeated, zero and dependent rows are allowed.
    dim : int, keyword-only
        The number of variables, needed only when ``H`` has no rows.
    order : str, keyword-only
        The order in which rows are added (see :data:`ORDERS`); it changes the running time, not the answer.
    seed : int, keyword-only
        Seed of the ``"random"`` order.

    Examples
    --------
    >>> cone_generators([[1, 0], [0, 1]]).rays
    ((0, 1), (1, 0))
    >>> cone_generators([[1, 0]]).lines
    ((0, 1),)
    """
    if order not in ORDERS:
        raise InvalidInputError(f"cone_generators: expected order in {ORDERS}, got {order!r}")
    rows = [primitive(h) for h in H]
    n = len(rows[0]) if rows else dim
    if n is None:
        raise InvalidInputError("cone_generators: expected dim= when there are no rows")
    if any(len(r) != n for r in rows):
        raise InvalidInputError(f"cone_generators: expected rows of length {n}, got lengths "
                                f"{sorted({len(r) for r in rows})}")
    # Lineality: {H y = 0}. The pointed part lives where the pivot coordinates of its RREF basis vanish.
    lines = nullspace([[Fraction(v) for v in r] for r in rows], n) if rows else \
        tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))
    _, pivots = rref(lines, n) if lines else ((), ())
    free = [j for j in range(n) if j not in pivots]
    # Deduplicate rows of the projected system; zero rows are tight everywhere.
    unique: dict[tuple[int, ...], list[int]] = {}
    always: list[int] = []
    for i, r in enumerate(rows):
        projected = primitive([r[j] for j in free]) if free else ()
        if any(projected):
            unique.setdefault(projected, []).append(i)
        else:
            always.append(i)
    system = list(unique)
    owners = list(unique.values())
    rays, tight = _pointed_extreme_rays(system, len(free), order, seed) if free else ([], [])
    full_rays, incidence = [], []
    for ray, bits in zip(rays, tight):
        vector = [0] * n
        for j, v in zip(free, ray):
            vector[j] = v
        full_rays.append(tuple(vector))
        rows_tight = set(always)
        while bits:
            low = bits & -bits
            rows_tight.update(owners[low.bit_length() - 1])
            bits ^= low
        incidence.append(frozenset(rows_tight))
    ordered = sorted(range(len(full_rays)), key=full_rays.__getitem__)  # an answer independent of the order
    return ConeGenerators(tuple(full_rays[i] for i in ordered), tuple(primitive(line) for line in lines),
                          tuple(incidence[i] for i in ordered))


def enumerate_vertices(A: Sequence[Sequence], b: Sequence, *, dim: int | None = None,
                       order: str = "lexmin") -> VRepresentation:
    """Return the vertices, extreme rays and lineality of ``{x : A x <= b}``, with incidences.

    Examples
    --------
    >>> v = enumerate_vertices([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])
    >>> sorted(v.points)
    [(Fraction(0, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1)), (Fraction(1, 1), Fraction(0, 1))]
    """
    n = len(A[0]) if len(A) else dim
    if n is None:
        raise InvalidInputError("enumerate_vertices: expected dim= when there are no rows")
    if len(A) != len(b):
        raise InvalidInputError(f"enumerate_vertices: expected one right-hand side per row, got {len(A)} rows "
                                f"and {len(b)} values")
    H = [(1,) + (0,) * n] + [primitive([Fraction(bi)] + [-Fraction(v) for v in row]) for row, bi in zip(A, b)]
    cone = cone_generators(H, order=order)
    points, rays, point_rows, ray_rows = [], [], [], []
    for ray, tight in zip(cone.rays, cone.incidence):
        rows = frozenset(i - 1 for i in tight if i)
        if ray[0] > 0:
            points.append(tuple(Fraction(v, ray[0]) for v in ray[1:]))
            point_rows.append(rows)
        else:
            rays.append(tuple(Fraction(v) for v in ray[1:]))
            ray_rows.append(rows)
    if not points:  # the cone meets y0 > 0 nowhere: the polyhedron is empty
        return VRepresentation((), (), (), (), (), n)
    lines = tuple(tuple(Fraction(v) for v in line[1:]) for line in cone.lines)
    return VRepresentation(tuple(points), tuple(rays), lines, tuple(point_rows), tuple(ray_rows), n)


def enumerate_facets(points: Sequence[Sequence], *, rays: Sequence[Sequence] = (), lines: Sequence[Sequence] = (),
                     dim: int | None = None, order: str = "lexmin") -> HRepresentation:
    """Return an irredundant H-representation of ``conv(points) + cone(rays) + span(lines)``.

    The facet inequalities are the extreme rays ``(beta, a)`` of the cone of valid inequalities
    ``a.x <= beta``, its lineality space gives the equations of the affine hull. Facet rows are not yet
    reduced modulo the equations (see :meth:`Polytope.irredundant` for the canonical form).

    Examples
    --------
    >>> h = enumerate_facets([[0, 0], [1, 0], [0, 1]])
    >>> sorted(zip(h.A, h.b))  # doctest: +NORMALIZE_WHITESPACE
    [((Fraction(-1, 1), Fraction(0, 1)), Fraction(0, 1)), ((Fraction(0, 1), Fraction(-1, 1)), Fraction(0, 1)),
     ((Fraction(1, 1), Fraction(1, 1)), Fraction(1, 1))]
    """
    n = len(points[0]) if len(points) else dim
    if n is None:
        raise InvalidInputError("enumerate_facets: expected dim= when there are no points")
    if not len(points):
        raise InvalidInputError("enumerate_facets: expected at least one point (the empty set has no "
                                "generators)")
    H = [primitive([Fraction(1)] + [-Fraction(v) for v in p]) for p in points]
    H += [primitive([Fraction(0)] + [-Fraction(v) for v in r]) for r in rays]
    for line in lines:
        row = primitive([Fraction(0)] + [Fraction(v) for v in line])
        H += [row, tuple(-v for v in row)]
    cone = cone_generators(H, order=order)
    A, b, facet_points = [], [], []
    n_points = len(points)
    for ray, tight in zip(cone.rays, cone.incidence):
        if not any(ray[1:]):
            continue  # 0.x <= beta: valid and never a facet
        A.append(tuple(Fraction(v) for v in ray[1:]))
        b.append(Fraction(ray[0]))
        facet_points.append(frozenset(i for i in tight if i < n_points))
    E = tuple(tuple(Fraction(v) for v in line[1:]) for line in cone.lines)
    e = tuple(Fraction(line[0]) for line in cone.lines)
    return HRepresentation(tuple(A), tuple(b), E, e, tuple(facet_points), n)
