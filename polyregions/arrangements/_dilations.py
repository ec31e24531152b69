"""States of a central arrangement's point count taken up to the dilations ``x -> c x`` of ``F_q^*``.

When every hyperplane passes through the origin, a partial point ``x`` and its multiple ``c x`` (``c != 0``) have
as many completions (``y`` completes ``x`` exactly when ``c y`` completes ``c x``), and the state of ``c x`` is
that of ``x`` with every set dilated by ``c``. So a state may be replaced by any state of its orbit, weight kept,
without changing the count; replacing each by one chosen representative of its orbit merges what differed only
by a dilation, which divides the states by up to ``q - 1``. (Normalising a coordinate to 1 instead would divide
them too, but keep apart partial points of the threshold arrangement that its sign changes
``x_0 -> x_0 + x_i, x_i -> -x_i`` relate: their states are equal, their ``x_0`` are not.)

The representative is found in discrete-logarithm coordinates: with a primitive root ``g``, the non-zero value
``g^i`` is bit ``i`` of a ``(q - 1)``-bit mask, and dilating by ``g^j`` rotates that mask by ``j``, all columns
of a state together; ``0``, which every dilation fixes, stays where it is. Of the ``q - 1`` rotations the one
with the least key is taken (see :meth:`DilationOrbits.canonical`).

Examples
--------
>>> from polyregions.arrangements._masks import FieldMasks
>>> field = FieldMasks(7)
>>> orbits = DilationOrbits(field)
>>> states = np.stack([field.masks([[0, 1, 2]]), field.masks([[0, 3, 6]]), field.masks([[1, 5]])])
>>> canonical = orbits.canonical(states)  # {0, 3, 6} = 3 {0, 1, 2}, and {1, 5} = 5 {3, 1}
>>> [field.values(state[0]) for state in canonical]
[[0, 1, 2], [0, 1, 2], [1, 3]]
"""

from __future__ import annotations

from typing import Any

import numpy as np

from polyregions.arrangements._masks import (
    WORD_BITS,
    FieldMasks,
    byte_tables,
    lexicographic_less,
    permute,
    rotate,
    shift_up,
)

__all__ = ["DilationOrbits", "primitive_root", "MAX_DILATION_PRIME"]

#: Above this prime the tables of the logarithm (bytes times 256 times words) pass a few megabytes, and the
#: rotations per state grow with ``q``; counts that need such primes are small and run without the orbits.
MAX_DILATION_PRIME = 1024


def primitive_root(q: int) -> int:
    """The least generator of the multiplicative group of ``F_q`` (``q`` prime).

    >>> primitive_root(7), primitive_root(83)
    (3, 2)
    """
    n = q - 1
    factors = [p for p in range(2, n + 1) if n % p == 0 and all(p % d for d in range(2, int(p ** 0.5) + 1))]
    return next(g for g in range(1, q) if all(pow(g, n // p, q) != 1 for p in factors)) if q > 2 else 1


class DilationOrbits:
    """Representatives of states (arrays ``(n, columns, words)`` of sets of ``F_q``) under ``F_q^*``."""

    def __init__(self, field: FieldMasks):
        q = field.q
        self.field = field
        self.bits = q - 1
        self.log_words = (self.bits + WORD_BITS - 1) // WORD_BITS
        self.full_log = np.zeros(self.log_words, dtype=np.uint64)
        for i in range(self.bits):
            self.full_log[i // WORD_BITS] |= np.uint64(1) << np.uint64(i % WORD_BITS)
        g = primitive_root(q)
        power = [pow(g, i, q) for i in range(self.bits)]
        log = {v: i for i, v in enumerate(power)}
        self._to_log = byte_tables(q, lambda v: log[v] if v else None, self.log_words)
        self._from_log = byte_tables(self.bits, lambda i: power[i], field.words)
        self._zero = np.zeros(field.words, dtype=np.uint64)
        self._zero[0] = 1

    def canonical(self, states: Any) -> Any:
        """The representative of each state's orbit (the same array shape).

        The rotation is chosen by a key first, the top 64 bits of the rotated first column, which is cheap to
        read for every rotation; only the states where two rotations share the least key (a column invariant
        under a dilation, or the same 64 bits twice) compare whole rotations. Either way the choice depends on
        the orbit alone, so equal orbits give equal representatives.
        """
        if len(states) == 0 or states.shape[1] == 0 or self.bits <= 1:
            return states
        logs = permute(states, self._to_log)
        shifts, tied = self._least_keys(logs[:, 0])
        out = logs.copy()
        for t in range(self.bits.bit_length()):  # each state rotated by its own amount, a power of 2 at a time
            rows = np.flatnonzero(shifts & (1 << t))
            if len(rows):
                out[rows] = rotate(out[rows], 1 << t, self.bits, self.full_log)
        if tied.any():
            out[tied] = self._least_rotations(logs[tied])
        return permute(out, self._from_log) | (states & self._zero)

    def _least_keys(self, first: Any) -> tuple[Any, Any]:
        """For each log mask, the rotation with the least key, and whether another rotation has that key too."""
        count, bits = len(first), self.bits
        if bits <= WORD_BITS:
            def key(j: int) -> Any:
                return rotate(first, j, bits, self.full_log)[:, 0]
        else:  # the top 64 bits of the rotation by j: a window of the mask written twice in a row
            doubled = np.zeros((count, (2 * bits + WORD_BITS - 1) // WORD_BITS), dtype=np.uint64)
            doubled[:, :self.log_words] = first
            doubled |= shift_up(doubled, bits)

            def key(j: int) -> Any:
                word, b = divmod((bits - WORD_BITS - j) % bits, WORD_BITS)
                if not b:
                    return doubled[:, word]
                return (doubled[:, word] >> np.uint64(b)) | (doubled[:, word + 1] << np.uint64(WORD_BITS - b))
        best = key(0)
        shifts = np.zeros(count, dtype=np.int64)
        tied = np.zeros(count, dtype=bool)
        for j in range(1, bits):
            candidate = key(j)
            less = candidate < best
            tied = np.where(less, False, tied | (candidate == best))
            best = np.where(less, candidate, best)
            shifts[less] = j
        return shifts, tied

    def _least_rotations(self, logs: Any) -> Any:
        """The least rotation of every state, all columns together, found by trying them all."""
        count = len(logs)
        width = logs.shape[1] * self.log_words
        best = logs.reshape(count, width).copy()
        for j in range(1, self.bits):
            candidate = rotate(logs, j, self.bits, self.full_log).reshape(count, width)
            np.copyto(best, candidate, where=lexicographic_less(candidate, best)[:, None])
        return best.reshape(logs.shape)
