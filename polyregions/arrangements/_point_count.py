"""The points of ``F_q^k`` on none of a set of hyperplanes, counted without visiting them one by one.

For a prime ``q`` that reduces an integer arrangement well, their number is ``chi(q)`` (Athanasiadis, 1996:
inclusion-exclusion over the intersections, each an affine subspace of ``q^dim`` points, gives
``sum_X mu(X) q^(dim X)``); :mod:`._finite_field` turns a few such counts into ``chi``.

Counting the points is a dynamic programme over the coordinates. After fixing ``x_1, ..., x_k``, a row
``a . x + e`` is its *prefix value* ``a_1 x_1 + ... + a_k x_k + e`` plus what the remaining coordinates add,
and that depends only on the row's *suffix* ``(a_{k+1}, ..., a_r)``. So the partial point matters only through
its *state*: for every suffix, the set of prefix values of the rows with that suffix (a bit mask of ``F_q``).
Partial points with equal states are merged and counted together; this is where the symmetry of the resonance,
threshold and similar arrangements is spent without being named: permuting the coordinates already fixed does
not change the state. A row whose suffix is zero is finished: its value must not be 0. Adding ``c x`` to every
value of a set rotates its bit mask by ``c x``; states are arrays of 64-bit masks (``q < 64``), advanced for a
whole level at once with numpy. When every hyperplane passes through the origin, the points with first non-zero
coordinate 1 stand for all ``q - 1`` multiples.

Examples
--------
>>> count_points([(1, 0, 0), (0, 1, 0), (1, 1, 0)], 2, 7)  # x, y, x + y all non-zero in F_7^2
30
"""

from __future__ import annotations

from typing import Any, Sequence

from polyregions.arrangements._kernel import IntRow

__all__ = ["OverBudget", "count_points", "coordinate_order", "primes_above"]

#: The widest bit mask held in one machine word.
_WORD = 63
#: Rows of new states held before merging the equal ones.
_MERGE_EVERY = 4_000_000


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


class _Level:
    """The suffixes before and after fixing one coordinate, and how each old suffix moves."""

    def __init__(self, rows: Sequence[IntRow], position: int, k: int, q: int):
        before = sorted({row[position:k] for row in rows if any(row[position:k])})
        after = sorted({row[position + 1:k] for row in rows if any(row[position + 1:k])})
        where = {s: i for i, s in enumerate(after)}
        self.width = len(after)
        self.moves = []  # (old index, coefficient mod q, new index)
        self.finished = []  # (old index, coefficient mod q): rows whose value is now final
        for i, s in enumerate(before):
            if any(s[1:]):
                self.moves.append((i, s[0] % q, where[s[1:]]))
            else:
                self.finished.append((i, s[0] % q))


def count_points(rows: Sequence[IntRow], k: int, q: int, *, max_states: int | None = None,
                 order: Sequence[int] | None = None) -> int:
    """The number of ``x`` in ``F_q^k`` with ``a . x + e != 0 (mod q)`` for every row ``(a_1, ..., a_k, e)``.

    ``max_states`` bounds the states of a level that is advanced again (:class:`OverBudget` beyond it); the
    last one only costs a count per state.
    """
    reduced = []
    for row in rows:  # modulo q: a row whose normal vanishes there is a constant, which is never 0 or always
        row = tuple(v % q for v in row)
        if any(row[:-1]):
            reduced.append(row)
        elif row[-1] == 0:
            return 0
    if order is None:
        order = coordinate_order(reduced, k)
    rows = [tuple(row[i] for i in order) + (row[-1],) for row in reduced]
    if k == 0:
        return 1
    if q <= _WORD:
        return _count_numpy(rows, k, q, max_states)
    return _count_python(rows, k, q, max_states)


def _start(rows: Sequence[IntRow], k: int, q: int) -> list[int]:
    suffixes = sorted({row[:k] for row in rows})
    where = {s: i for i, s in enumerate(suffixes)}
    state = [0] * len(suffixes)
    for row in rows:
        state[where[row[:k]]] |= 1 << (row[-1] % q)
    return state


def _count_python(rows: Sequence[IntRow], k: int, q: int, max_states: int | None) -> int:
    """The same programme on Python integers as bit masks, for primes too large for a machine word."""
    full = (1 << q) - 1
    homogeneous = not any(row[-1] for row in rows)

    def rotate(v: int, r: int) -> int:
        return ((v << r) | (v >> (q - r))) & full if r else v

    def advance(state: tuple[int, ...], x: int, level: _Level) -> tuple[int, ...] | None:
        for i, c in level.finished:
            if rotate(state[i], c * x % q) & 1:
                return None
        new = [0] * level.width
        for i, c, j in level.moves:
            new[j] |= rotate(state[i], c * x % q)
        return tuple(new)

    start = tuple(_start(rows, k, q))
    states: dict[tuple[int, ...], int] = {} if homogeneous else {start: 1}
    zero: tuple[int, ...] | None = start if homogeneous else None
    for position in range(k - 1):
        level = _Level(rows, position, k, q)
        out: dict[tuple[int, ...], int] = {}
        for state, weight in states.items():
            for x in range(q):
                new = advance(state, x, level)
                if new is not None:
                    out[new] = out.get(new, 0) + weight
        if zero is not None:
            new = advance(zero, 1, level)
            if new is not None:
                out[new] = out.get(new, 0) + q - 1
            zero = advance(zero, 0, level)
        if max_states is not None and position < k - 2 and len(out) > max_states:
            raise OverBudget(f"{len(out)} states")
        states = out
    last = _Level(rows, k - 1, k, q)
    tables = {c: _forbidden_tables(c, q) for _, c in last.finished}
    total = 0
    for state, weight in list(states.items()) + ([(zero, 1)] if zero is not None else []):
        merged: dict[int, int] = {}  # coefficient -> union of the value sets of its rows
        for i, c in last.finished:
            merged[c] = merged.get(c, 0) | state[i]
        forbidden = 0
        for c, values in merged.items():
            table = tables[c]
            chunk = 0
            while values:
                forbidden |= table[chunk][values & 255]
                values >>= 8
                chunk += 1
        total += weight * (q - forbidden.bit_count())
    return total


def _forbidden_tables(c: int, q: int) -> list[list[int]]:
    """For each byte of a value set, the bit mask of the ``x`` with ``c x + v = 0`` for a ``v`` in that byte."""
    minus = -pow(c, -1, q)
    tables = []
    for chunk in range((q + 7) // 8):
        table = [0] * 256
        for byte in range(1, 256):
            low = byte & -byte
            b = 8 * chunk + low.bit_length() - 1
            table[byte] = table[byte ^ low] | (1 << (minus * b % q) if b < q else 0)
        tables.append(table)
    return tables


def _count_numpy(rows: Sequence[IntRow], k: int, q: int, max_states: int | None) -> int:
    import numpy as np

    full = np.uint64((1 << q) - 1)
    homogeneous = not any(row[-1] for row in rows)
    # Weights stay below q^k; beyond 2^62 they are Python integers in object arrays.
    weight_type: Any = np.int64 if q ** k < 2 ** 62 else object

    def rotate(v, r: int):
        if not r:
            return v
        return ((v << np.uint64(r)) | (v >> np.uint64(q - r))) & full

    start = np.array([_start(rows, k, q)], dtype=np.uint64)
    if homogeneous:
        states, weights = start[:0], np.zeros(0, dtype=weight_type)
        zero: Any = start
    else:
        states, weights = start, np.ones(1, dtype=weight_type)
        zero = None
    for position in range(k - 1):
        level = _Level(rows, position, k, q)
        # the budget bounds the states that will be advanced again; the last level's only cost a count each
        limit = max_states if position < k - 2 else None
        pieces_states, pieces_weights = [], []
        sources = [(states, weights, range(q))]
        if zero is not None:
            sources.append((zero, np.array([q - 1], dtype=weight_type), range(1, 2)))
        held = 0
        for source, source_weights, values in sources:
            if not len(source):
                continue
            for x in values:
                keep = np.ones(len(source), dtype=bool)
                for i, c in level.finished:
                    keep &= (rotate(source[:, i], c * x % q) & np.uint64(1)) == 0
                new = np.zeros((len(source), level.width), dtype=np.uint64)
                for i, c, j in level.moves:
                    new[:, j] |= rotate(source[:, i], c * x % q)
                pieces_states.append(new[keep])
                pieces_weights.append(source_weights[keep])
                held += int(keep.sum())
                if held > _MERGE_EVERY:  # merge on the way: memory stays near the states, not states times q
                    merged_states, merged_weights = _merge(pieces_states, pieces_weights, level.width, weight_type)
                    if limit is not None and len(merged_states) > limit:
                        raise OverBudget(f"more than {len(merged_states)} states")
                    pieces_states, pieces_weights, held = [merged_states], [merged_weights], len(merged_states)
        if zero is not None:
            stays = not any(int(zero[0, i]) & 1 for i, _ in level.finished)  # x = 0 leaves the values at 0
            if stays:
                new = np.zeros((1, level.width), dtype=np.uint64)
                for i, _, j in level.moves:  # x = 0 moves every value set unchanged
                    new[:, j] |= zero[:, i]
                zero = new
            else:
                zero = None
        states, weights = _merge(pieces_states, pieces_weights, level.width, weight_type)
        if limit is not None and len(states) > limit:
            raise OverBudget(f"{len(states)} states")
    last = _Level(rows, k - 1, k, q)
    if zero is not None:
        states = np.concatenate([states, zero])
        weights = np.concatenate([weights, np.ones(1, dtype=weight_type)])
    merged: dict[int, Any] = {}  # coefficient -> union of the value sets of its rows
    for i, c in last.finished:
        merged[c] = merged[c] | states[:, i] if c in merged else states[:, i]
    forbidden = np.zeros(len(states), dtype=np.uint64)
    for c, column in merged.items():  # c x + v = 0 forbids x = -v / c
        minus = -pow(c, -1, q)
        for b in range(q):
            forbidden |= ((column >> np.uint64(b)) & np.uint64(1)) << np.uint64(minus * b % q)
    free = q - _popcount(forbidden)
    if weight_type is object:
        return sum(int(w) * int(f) for w, f in zip(weights, free))
    return int((weights * free).sum())


def _popcount(values):
    """The number of set bits of each 64-bit value (``numpy.bitwise_count`` where numpy has it)."""
    import numpy as np

    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(values).astype(np.int64)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.int64)
    return table[values.view(np.uint8).reshape(len(values), 8)].sum(axis=1)


def _merge(pieces_states, pieces_weights, width: int, weight_type):
    """Equal states merged, their weights added."""
    import numpy as np

    if not pieces_states:
        return np.zeros((0, width), dtype=np.uint64), np.zeros(0, dtype=weight_type)
    states = np.concatenate(pieces_states)
    weights = np.concatenate(pieces_weights)
    if not len(states):
        return states, weights
    if width == 0:
        return states[:1], np.array([weights.sum()], dtype=weight_type)
    order = np.lexsort(states.T[::-1])
    states, weights = states[order], weights[order]
    starts = np.concatenate([[True], (states[1:] != states[:-1]).any(axis=1)])
    first = np.flatnonzero(starts)
    return states[first], np.add.reduceat(weights, first)
