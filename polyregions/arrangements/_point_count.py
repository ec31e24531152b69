"""The points of ``F_q^k`` on none of a set of hyperplanes, counted without visiting them one by one.

For a prime ``q`` that reduces an integer arrangement well, their number is ``chi(q)`` (Athanasiadis, 1996:
inclusion-exclusion over the intersections, each an affine subspace of ``q^dim`` points, gives
``sum_X mu(X) q^(dim X)``); :mod:`._finite_field` turns a few such counts into ``chi``.

Counting the points is a dynamic programme over the coordinates. After fixing ``x_1, ..., x_p``, a row
``a . x + e`` is its *prefix value* ``a_1 x_1 + ... + a_p x_p + e`` plus what the remaining coordinates add,
and that depends only on the row's *suffix* ``(a_{p+1}, ..., a_k)``. So the partial point matters only through
its *state*: for every suffix, the set of prefix values of the rows with that suffix. Suffixes whose rows have the
same prefixes always hold the same set and share one *column* of the state (in the resonance and threshold
arrangements every suffix has every prefix: a state is one set). A row whose suffix is zero is finished: its
value must not be 0. Fixing ``x_{p+1} = x`` adds ``c x`` to the values of a column whose rows go on with
coefficient ``c``: a rotation of its bit mask (:mod:`._masks`), done for a whole level of states at once.

Partial points with equal states are merged and counted together. This is where the symmetry of the resonance,
threshold and similar arrangements is spent without being named: permuting the coordinates already fixed does
not change the state. When every hyperplane passes through the origin, a state may also be replaced by its
dilate by any ``c != 0`` (:mod:`._dilations`), which merges the ``q - 1`` multiples of a point.

The last two coordinates are never stored: for each state and each value of the second-to-last coordinate, the
good values of the last one are ``q`` minus the size of the set of values that would put some row at 0.

Examples
--------
>>> count_points([(1, 0, 0), (0, 1, 0), (1, 1, 0)], 2, 7)  # x, y, x + y all non-zero in F_7^2
30
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

from polyregions.arrangements._dilations import MAX_DILATION_PRIME, DilationOrbits
from polyregions.arrangements._kernel import IntRow
from polyregions.arrangements._masks import WORD_BITS, FieldMasks

__all__ = ["OverBudget", "count_points", "coordinate_order", "primes_above"]

#: Rows of new states held before merging the equal ones.
_MERGE_EVERY = 4_000_000

Report = Callable[[str], None]


class OverBudget(Exception):
    """Raised when a count would exceed its budget: more states in a level than allowed, or primes too large."""


def primes_above(bound: int, count: int) -> list[int]:
    """The ``count`` smallest primes greater than ``bound``.

    >>> primes_above(32, 4)
    [37, 41, 43, 47]
    """
    out: list[int] = []
    n = max(bound, 1)
    while len(out) < count:
        n += 1
        if n > 1 and all(n % p for p in range(2, int(n ** 0.5) + 1)):
            out.append(n)
    return out


def coordinate_order(rows: Sequence[IntRow], k: int) -> tuple[int, ...]:
    """The order in which the programme fixes coordinates: greedily the one that finishes the most rows (so
    that they prune early), then the one leaving the fewest distinct suffixes (the width of a state)."""
    remaining = list(range(k))
    order: list[int] = []
    supports = [frozenset(i for i in range(k) if row[i]) for row in rows]
    while remaining:
        def score(j: int) -> tuple[int, int, int]:
            done = set(order) | {j}
            finished = sum(1 for s in supports if s <= done)
            rest = [i for i in remaining if i != j]
            width = len({tuple(row[i] for i in rest) for row in rows})
            return (-finished, width, j)
        best = min(remaining, key=score)
        order.append(best)
        remaining.remove(best)
    return tuple(order)


def _columns(rows: Sequence[IntRow], p: int, k: int) -> tuple[dict[IntRow, int], list[frozenset[IntRow]]]:
    """The columns after fixing ``p`` coordinates: each non-zero suffix's column, and each column's prefixes
    (``(a_1, ..., a_p, e)`` of its rows)."""
    prefixes: dict[IntRow, set[IntRow]] = {}
    for row in rows:
        if any(row[p:k]):
            prefixes.setdefault(row[p:k], set()).add(row[:p] + (row[-1],))
    groups = sorted({frozenset(v) for v in prefixes.values()}, key=sorted)
    where = {group: i for i, group in enumerate(groups)}
    return {s: where[frozenset(v)] for s, v in prefixes.items()}, groups


class _Level:
    """How fixing one coordinate moves the columns: ``moves`` (old column, coefficient, new column) and the
    rows it finishes, ``finished`` (old column, coefficient)."""

    def __init__(self, before: dict[IntRow, int], after: dict[IntRow, int], width: int):
        self.width = width
        self.moves = sorted({(i, s[0], after[s[1:]]) for s, i in before.items() if any(s[1:])})
        self.finished = sorted({(i, s[0]) for s, i in before.items() if not any(s[1:])})


def count_points(rows: Sequence[IntRow], k: int, q: int, *, max_states: int | None = None,
                 order: Sequence[int] | None = None, report: Report | None = None) -> int:
    """The number of ``x`` in ``F_q^k`` with ``a . x + e != 0 (mod q)`` for every row ``(a_1, ..., a_k, e)``.

    ``max_states`` bounds the states of a level that is advanced again and merged (:class:`OverBudget` beyond
    it); the last level stored only costs ``q`` cheap steps per state. ``report`` receives a line on the
    progress of the count now and then.
    """
    reduced = []
    for row in rows:  # modulo q: a row whose normal vanishes there is a constant, which is never 0 or always
        row = tuple(v % q for v in row)
        if any(row[:-1]):
            reduced.append(row)
        elif row[-1] == 0:
            return 0
    if k == 0:
        return 1
    if order is None:
        order = coordinate_order(reduced, k)
    rows = sorted({tuple(row[i] for i in order) + (row[-1],) for row in reduced})
    return _Programme(rows, k, q, max_states, report).run()


class _Programme:
    """One count: the columns of every level, the states level by level, the last two coordinates counted."""

    def __init__(self, rows: Sequence[IntRow], k: int, q: int, max_states: int | None, report: Report | None):
        self.k, self.q, self.max_states = k, q, max_states
        self.report = report or (lambda text: None)
        self.field = FieldMasks(q)
        homogeneous = not any(row[-1] for row in rows)
        self.orbits = DilationOrbits(self.field) if homogeneous and q <= MAX_DILATION_PRIME else None
        # Weights stay below q^k; beyond 2^62 they are Python integers in object arrays.
        self.weight_type: Any = np.int64 if q ** k < 2 ** 62 else object
        columns = [_columns(rows, p, k) for p in range(k + 1)]
        self.levels = [_Level(columns[p][0], columns[p + 1][0], len(columns[p + 1][1])) for p in range(k)]
        self.start = self.field.masks([{prefix[-1] for prefix in group} for group in columns[0][1]])[None]

    def run(self) -> int:
        states, weights = self.start, np.ones(1, dtype=self.weight_type)
        stored = self.k - 2  # the levels expanded and merged; the last two are counted
        for p in range(max(stored, 0)):
            budget = self.max_states if p + 1 < stored else None
            states, weights = self._expand(states, weights, p, budget)
        if self.k == 1:
            free = self.q - self._forbidden_sizes(states, self.levels[0])
            return _weighted_sum(weights, free)
        totals = np.zeros(len(states), dtype=np.int64)  # at most q^2 a state
        for x in range(self.q):
            if x % 8 == 0:
                self.report(f"last two coordinates: {len(states):,} states, value {x} of {self.q}")
            kept, new = self._advance(states, self.levels[self.k - 2], x)
            totals[kept] += self.q - self._forbidden_sizes(new, self.levels[self.k - 1])
        return _weighted_sum(weights, totals)

    def _advance(self, states: Any, level: _Level, x: int) -> tuple[Any, Any]:
        """The states that fixing the next coordinate at ``x`` leaves with no finished row at 0 (their indices),
        and their new columns."""
        q, keep = self.q, np.ones(len(states), dtype=bool)
        for i, c in level.finished:  # 0 in S + c x exactly when -c x is in S
            v = -c * x % q
            keep &= (states[:, i, v // WORD_BITS] >> np.uint64(v % WORD_BITS)) & np.uint64(1) == 0
        kept = np.flatnonzero(keep)
        source = states[kept]
        new = np.zeros((len(kept), level.width, self.field.words), dtype=np.uint64)
        for i, c, j in level.moves:
            new[:, j] |= self.field.translate(source[:, i], c * x)
        return kept, new

    def _forbidden_sizes(self, states: Any, last: _Level) -> Any:
        """For each state before the last coordinate, how many values ``y`` put a row at 0: ``v + c y = 0``
        for ``v`` in the column of a row with coefficient ``c``, so ``y`` in ``-S / c``."""
        unions: dict[int, Any] = {}
        for i, c in last.finished:
            unions[c] = unions[c] | states[:, i] if c in unions else states[:, i]
        if not unions:
            return np.zeros(len(states), dtype=np.int64)
        (first, union), *others = sorted(unions.items())
        for c, other in others:  # |d S u d' S'| = |S u (d'/d) S'|: one dilation fewer
            union = union | self.field.dilate(other, first * pow(c, -1, self.q))
        return self.field.sizes(union)

    def _expand(self, states: Any, weights: Any, p: int, budget: int | None) -> tuple[Any, Any]:
        """The merged states after fixing coordinate ``p`` at every value."""
        level, q = self.levels[p], self.q
        merged = (np.zeros((0, level.width, self.field.words), dtype=np.uint64), np.zeros(0, dtype=self.weight_type))
        pieces: list[tuple[Any, Any]] = []
        held = 0
        for x in range(q):
            if x % 8 == 0:
                self.report(f"coordinate {p + 1} of {self.k}: {len(states):,} states, value {x} of {q}, "
                            f"{len(merged[0]) + held:,} new")
            kept, new = self._advance(states, level, x)
            pieces.append((new, weights[kept]))
            held += len(kept)
            if held > _MERGE_EVERY or x == q - 1:  # merge on the way: memory stays near the states
                merged = _merge([merged, self._canonical(_merge(pieces))])
                pieces, held = [], 0
                if budget is not None and len(merged[0]) > budget:
                    raise OverBudget(f"more than {len(merged[0])} states")
        return merged

    def _canonical(self, part: tuple[Any, Any]) -> tuple[Any, Any]:
        if self.orbits is None:
            return part
        return _merge([(self.orbits.canonical(part[0]), part[1])])


def _weighted_sum(weights: Any, counts: Any) -> int:
    if weights.dtype == object:
        return sum(int(w) * int(c) for w, c in zip(weights, counts))
    return int((weights * counts).sum())


def _merge(parts: Sequence[tuple[Any, Any]]) -> tuple[Any, Any]:
    """Equal states merged, their weights added.

    The states are sorted by a 64-bit mix of their words (one key sorts faster than many) and neighbours that
    are equal in every word are merged. Two different states with the same mix can separate two equal ones;
    those then stay apart, which costs a little time and changes no count.
    """
    states = np.concatenate([s for s, _ in parts])
    weights = np.concatenate([w for _, w in parts])
    if len(states) <= 1:
        return states, weights
    flat = states.reshape(len(states), -1)
    if flat.shape[1] == 0:
        return states[:1], np.array([weights.sum()], dtype=weights.dtype)
    key = flat[:, 0].copy()
    for w in range(1, flat.shape[1]):
        key *= np.uint64(0x9E3779B97F4A7C15)  # modulo 2^64
        key ^= flat[:, w]
    order = np.argsort(key, kind="stable")
    states, weights = states[order], weights[order]
    flat = states.reshape(len(states), -1)
    starts = np.concatenate([[True], (flat[1:] != flat[:-1]).any(axis=1)])
    first = np.flatnonzero(starts)
    return states[first], np.add.reduceat(weights, first)
