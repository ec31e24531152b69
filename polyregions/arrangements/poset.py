"""The intersection poset of an arrangement and the invariants read from it.

A *flat* is a non-empty intersection of hyperplanes of the arrangement (the whole space is the intersection of
none). Flats are ordered by reverse inclusion, so the whole space is the bottom element; the *rank* of a flat is
its codimension. The Moebius function ``mu(X) = mu(R^d, X)`` gives the characteristic polynomial
``chi(t) = sum_X mu(X) t^(dim X)``, from which Zaslavsky's theorem counts regions.

Flats are found level by level with exact integer arithmetic: the hyperplanes not containing a flat ``X``
are restricted to ``X``; those whose restrictions coincide define, together with the ones containing ``X``,
one flat covering ``X``. Each flat is identified by the set of hyperplanes containing it, so equal flats are
recognised without comparing subspaces.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

from polyregions.arrangements._kernel import Chart, IntRow, canonical

if TYPE_CHECKING:
    import networkx as nx

    from polyregions.arrangements.arrangement import Arrangement
    from polyregions.exact.linalg import Matrix, Vector

__all__ = ["Flat", "IntersectionPoset", "intersection_poset", "poset_of_rows", "polynomial_text"]


@dataclass(frozen=True)
class Flat:
    """One flat of an arrangement: a non-empty intersection of its hyperplanes.

    Attributes
    ----------
    index : int
        Position in :attr:`IntersectionPoset.flats` (flats are sorted by rank; the whole space is 0).
    hyperplanes : frozenset of int
        The indices of every hyperplane containing the flat.
    rank : int
        The codimension of the flat.
    dim : int
        Its dimension.
    """

    index: int
    hyperplanes: frozenset[int]
    rank: int
    dim: int
    columns: tuple[IntRow, ...] = field(repr=False, compare=False)
    """The flat's integer chart: homogeneous direction vectors ``(v, 0)``, then a homogeneous point ``(p, w)``
    with ``w > 0``; the flat is ``{(p + sum_j y_j v_j) / w}``."""

    @property
    def point(self) -> "Vector":
        """An exact point of the flat."""
        p = self.columns[-1]
        return tuple(Fraction(v, p[-1]) for v in p[:-1])

    @property
    def directions(self) -> "Matrix":
        """A basis of the flat's direction space (``dim`` rows), exact."""
        return tuple(tuple(Fraction(v) for v in c[:-1]) for c in self.columns[:-1])

    def contains(self, x: Sequence) -> bool:
        """Whether the point ``x`` lies on the flat (exact).

        Examples
        --------
        >>> from polyregions.arrangements import Arrangement
        >>> line = Arrangement([[1, 1, 2]]).poset.flats[1]
        >>> line.contains([1, 1]), line.contains([0, 0])
        (True, False)
        """
        from polyregions.exact.linalg import rank
        from polyregions.exact.rationals import rational_vector

        x = rational_vector(x, what="point", length=len(self.columns[-1]) - 1)
        offset = tuple(xi - pi for xi, pi in zip(x, self.point))
        if not any(offset):
            return True
        return rank(self.directions + (offset,)) == self.dim


def _level_zero(rows: Sequence[IntRow], dim: int) -> tuple[tuple[IntRow, ...], dict[int, IntRow]]:
    columns = tuple(tuple(int(i == j) for i in range(dim + 1)) for j in range(dim + 1))
    return columns, {i: r for i, r in enumerate(rows)}


def _chart_columns(chart: Chart, columns: Sequence[IntRow]) -> tuple[IntRow, ...]:
    """The chart of a flat composed with the chart of a hyperplane inside it."""
    pivot = columns[chart.j]
    out = []
    for i, a in zip(chart.others, chart.coefficients):
        k = chart.s * a
        out.append(tuple(chart.p * x - k * y for x, y in zip(columns[i], pivot)))
    k = chart.s * chart.e
    out.append(tuple(chart.p * x - k * y for x, y in zip(columns[-1], pivot)))
    return tuple(out)


def _by_direction(restricted: dict[int, IntRow]) -> dict[IntRow, list[int]]:
    """The rows (by index, in order) of each direction of normal."""
    directions: dict[IntRow, list[int]] = {}
    for i, r in restricted.items():
        directions.setdefault(canonical(r[:-1])[0], []).append(i)
    return directions


def _restricted_to(chart: Chart, restricted: dict[int, IntRow], directions: dict[IntRow, list[int]],
                   key: IntRow) -> dict[int, IntRow]:
    """The rows that meet the hyperplane ``key`` of a flat (the chart's) without containing it, restricted to it
    and canonical. A row parallel to it is left out unrestricted: on the hyperplane it is a non-zero constant,
    which never makes a flat (so 10,000 parallel hyperplanes cost O(m), not O(m^2) restrictions and rows kept)."""
    parallel = canonical(key[:-1])[0]
    out = {}
    for direction, members in directions.items():
        if direction == parallel:
            continue
        for i in members:
            out[i] = canonical(chart.restrict(restricted[i]))[0]
    return dict(sorted(out.items()))


def _generate(rows: Sequence[IntRow], dim: int, max_rank: int | None = None):
    """All flats up to ``max_rank``: (mask, rank, columns) and the covers (lower flat, upper flat)."""
    columns0, restricted0 = _level_zero(rows, dim)
    flats = [(0, 0, columns0)]
    below: list[list[int]] = [[]]
    level = [(0, restricted0)]
    rank = 0
    while level and (max_rank is None or rank < max_rank):
        found: dict[int, int] = {}
        next_level = []
        for index, restricted in level:
            mask, _, columns = flats[index]
            groups: dict[IntRow, int] = {}
            for i, r in restricted.items():
                key = canonical(r)[0]
                groups[key] = groups.get(key, 0) | (1 << i)
            directions = _by_direction(restricted)
            for key, group in groups.items():
                new_mask = mask | group
                other = found.get(new_mask)
                if other is not None:
                    below[other].append(index)
                    continue
                chart = Chart(key)
                found[new_mask] = len(flats)
                flats.append((new_mask, rank + 1, _chart_columns(chart, columns)))
                below.append([index])
                next_level.append((found[new_mask], _restricted_to(chart, restricted, directions, key)))
        level = next_level
        rank += 1
    return flats, below


def _bits(mask: int) -> frozenset[int]:
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return frozenset(out)


@dataclass(frozen=True)
class IntersectionPoset:
    """The flats of an arrangement of ``n`` hyperplanes in ``R^dim``, ordered by reverse inclusion.

    Build it with :func:`intersection_poset` or :attr:`Arrangement.poset
    <polyregions.arrangements.Arrangement.poset>`.

    Attributes
    ----------
    dim : int
    flats : tuple of Flat
        Sorted by rank; ``flats[0]`` is the whole space.
    below : tuple of tuple of int
        ``below[i]``: the flats covered by flat ``i`` (those of rank one less that contain it).

    Examples
    --------
    Three lines through a point and one more line:

    >>> from polyregions.arrangements import Arrangement
    >>> poset = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, -1, 1]]).poset
    >>> poset.characteristic_polynomial()
    (1, -4, 5)
    >>> poset.whitney_numbers(kind=2)
    (1, 4, 4)
    """

    dim: int
    flats: tuple[Flat, ...]
    below: tuple[tuple[int, ...], ...] = field(repr=False)

    def __len__(self) -> int:
        return len(self.flats)

    @property
    def rank(self) -> int:
        """The largest rank of a flat (the rank of the normal vectors)."""
        return self.flats[-1].rank

    @cached_property
    def mobius(self) -> tuple[int, ...]:
        """``mu(R^d, X)`` for every flat ``X``, in the order of :attr:`flats`.

        When the hyperplanes through ``X`` are independent, the interval below ``X`` is Boolean and
        ``mu = (-1)^rank``; otherwise the recursion ``mu(X) = -sum_{Y < X} mu(Y)`` runs over the flats below
        ``X``, found through the covers.
        """
        mu = [0] * len(self.flats)
        for flat in self.flats:
            if len(flat.hyperplanes) == flat.rank:
                mu[flat.index] = -1 if flat.rank % 2 else 1
                continue
            seen = {flat.index}
            stack = [flat.index]
            while stack:
                for lower in self.below[stack.pop()]:
                    if lower not in seen:
                        seen.add(lower)
                        stack.append(lower)
            seen.discard(flat.index)
            mu[flat.index] = -sum(mu[i] for i in seen)
        return tuple(mu)

    def characteristic_polynomial(self) -> tuple[int, ...]:
        """Integer coefficients of ``chi(t) = sum_X mu(X) t^(dim X)``, degree ``dim`` first, constant last."""
        coefficients = [0] * (self.dim + 1)
        for flat, mu in zip(self.flats, self.mobius):
            coefficients[self.dim - flat.dim] += mu
        return tuple(coefficients)

    def whitney_numbers(self, *, kind: int = 1) -> tuple[int, ...]:
        """Whitney numbers by rank 0..rank.

        ``kind=1``: ``w_k = sum_{rank X = k} mu(X)`` (signed; ``chi(t) = sum_k w_k t^(dim - k)``);
        ``kind=2``: ``W_k``, the number of flats of rank ``k``.
        """
        if kind not in (1, 2):
            from polyregions.errors import InvalidInputError
            raise InvalidInputError(f"whitney_numbers: expected kind 1 or 2, got {kind!r}")
        numbers = [0] * (self.rank + 1)
        for flat, mu in zip(self.flats, self.mobius):
            numbers[flat.rank] += mu if kind == 1 else 1
        return tuple(numbers)

    def poincare_polynomial(self) -> tuple[int, ...]:
        """Coefficients of ``pi(t) = sum_X |mu(X)| t^(rank X)``, degree ``rank`` first, constant last.

        ``pi(t) = (-t)^dim chi(-1/t)``, and ``pi(1)`` is the number of regions.
        """
        return tuple(abs(w) for w in reversed(self.whitney_numbers()))

    def flats_of_rank(self, rank: int) -> tuple[Flat, ...]:
        """The flats of the given rank."""
        return tuple(f for f in self.flats if f.rank == rank)

    def hasse_diagram(self) -> "nx.DiGraph":
        """The covering relation as a networkx DiGraph: an edge ``X -> Y`` when ``Y`` covers ``X``.

        Nodes are flat indices with attributes ``rank``, ``dim``, ``hyperplanes`` and ``mobius``.
        """
        import networkx as nx

        graph = nx.DiGraph()
        for flat, mu in zip(self.flats, self.mobius):
            graph.add_node(flat.index, rank=flat.rank, dim=flat.dim, hyperplanes=tuple(sorted(flat.hyperplanes)),
                           mobius=mu)
        for upper, lowers in enumerate(self.below):
            for lower in lowers:
                graph.add_edge(lower, upper)
        return graph


def poset_of_rows(rows: Sequence[Sequence[int]], dim: int, *, max_rank: int | None = None) -> IntersectionPoset:
    """The intersection poset of hyperplanes given as integer rows ``(a_1, ..., a_dim, e)``: ``a.x + e = 0``.

    The rows must be distinct up to scaling, with non-zero normals. ``max_rank`` stops after that rank.
    """
    raw, below = _generate([tuple(r) for r in rows], dim, max_rank)
    flats = tuple(Flat(i, _bits(mask), rank, dim - rank, columns) for i, (mask, rank, columns) in enumerate(raw))
    return IntersectionPoset(dim, flats, tuple(tuple(b) for b in below))


def intersection_poset(arrangement: "Arrangement") -> IntersectionPoset:
    """The intersection poset of an arrangement (the same as ``arrangement.poset``).

    Examples
    --------
    The coordinate hyperplanes of R^3 give a Boolean lattice:

    >>> from polyregions.arrangements import coordinate
    >>> intersection_poset(coordinate(3)).characteristic_polynomial()
    (1, -3, 3, -1)
    """
    return arrangement.poset


_SUPERSCRIPTS = str.maketrans("0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079")


def polynomial_text(coefficients, *, pretty: bool = False) -> str:
    """A polynomial in ``t`` from its coefficients (highest degree first), as plain text or, with ``pretty``,
    with superscript powers and a true minus sign.

    >>> polynomial_text([1, -3, 2]), polynomial_text([1, -3, 2], pretty=True)
    ('t^2 - 3*t + 2', 't\u00b2 \u2212 3t + 2')
    """
    minus = "\u2212" if pretty else "-"
    degree = len(coefficients) - 1
    terms = []
    for k, c in enumerate(coefficients):
        if c == 0:
            continue
        power = degree - k
        if power == 0:
            body = ""
        elif power == 1:
            body = "t"
        else:
            body = "t" + (str(power).translate(_SUPERSCRIPTS) if pretty else f"^{power}")
        magnitude = abs(c)
        if not body:
            text = str(magnitude)
        elif magnitude == 1:
            text = body
        else:
            text = f"{magnitude}{'' if pretty else '*'}{body}"
        terms.append((minus if c < 0 else "+", text))
    if not terms:
        return "0"
    sign, first = terms[0]
    return (minus if sign == minus else "") + first + "".join(f" {s} {t}" for s, t in terms[1:])
