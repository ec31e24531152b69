"""Subsets of ``F_q`` as bit masks of 64-bit words, transformed many at a time with numpy.

A set ``S`` of residues modulo a prime ``q`` is the integer ``sum_{v in S} 2^v``, held in ``words = ceil(q/64)``
unsigned 64-bit words, least significant word first; arrays of sets have the words on their last axis. The point
count (:mod:`._point_count`) needs three operations on them, each one array operation per word for a whole level
of states at once:

* the translate ``S + r``, a rotation of the ``q`` bits (a shift across words, the bits that pass ``q`` brought
  round to the bottom);
* the dilate ``c S`` for ``c != 0``, a permutation of the bits, looked up a byte at a time in tables;
* the test ``0 in S`` and the size ``|S|``.

Examples
--------
>>> import numpy as np
>>> field = FieldMasks(67)
>>> s = field.masks([[1, 5, 66]])
>>> field.values(field.translate(s, 2)[0])  # 66 + 2 = 1 modulo 67
[1, 3, 7]
>>> field.values(field.dilate(s, 2)[0]), int(field.sizes(s)[0])
([2, 10, 65], 3)
"""

from __future__ import annotations

from typing import Any, Callable, Iterable

import numpy as np

__all__ = ["FieldMasks", "WORD_BITS", "rotate", "byte_tables", "permute", "popcount", "lexicographic_less"]

WORD_BITS = 64
_BYTE = 8


class FieldMasks:
    """The operations on subsets of ``F_q`` as word arrays (see the module documentation)."""

    def __init__(self, q: int):
        self.q = q
        self.words = (q + WORD_BITS - 1) // WORD_BITS
        self.full = self.masks([range(q)])[0]
        self._dilations: dict[int, Any] = {}

    # --- between values and masks -----------------------------------------------------------------------
    def masks(self, sets: Iterable[Iterable[int]]) -> Any:
        """An array of shape ``(len(sets), words)`` holding the given sets (values taken modulo ``q``)."""
        rows = [list(values) for values in sets]
        out = np.zeros((len(rows), self.words), dtype=np.uint64)
        for i, values in enumerate(rows):
            for v in values:
                v %= self.q
                out[i, v // WORD_BITS] |= np.uint64(1) << np.uint64(v % WORD_BITS)
        return out

    def values(self, mask: Any) -> list[int]:
        """The sorted values of one set (an array of ``words`` words)."""
        return [v for v in range(self.q) if int(mask[v // WORD_BITS]) >> (v % WORD_BITS) & 1]

    # --- the operations ---------------------------------------------------------------------------------
    def translate(self, masks: Any, r: int) -> Any:
        """``S + r`` for every set ``S`` of ``masks`` (any shape whose last axis holds the words)."""
        return rotate(masks, r, self.q, self.full)

    def holds_zero(self, masks: Any) -> Any:
        """Whether ``0`` is in each set: a boolean array of the shape of ``masks`` without its last axis."""
        return (masks[..., 0] & np.uint64(1)).astype(bool)

    def sizes(self, masks: Any) -> Any:
        """``|S|`` for each set, as int64."""
        return popcount(masks).sum(axis=-1, dtype=np.int64)

    def dilate(self, masks: Any, c: int) -> Any:
        """``c S = {c v : v in S}`` for every set (``c`` not divisible by ``q``)."""
        c %= self.q
        if c == 1:
            return masks.copy()
        tables = self._dilations.get(c)
        if tables is None:
            tables = self._dilations[c] = byte_tables(self.q, lambda v: c * v % self.q, self.words)
        return permute(masks, tables)


def shift_up(masks: Any, s: int) -> Any:
    """The multi-word integers of ``masks`` times ``2^s`` (``0 < s``), the bits above the last word dropped."""
    words = masks.shape[-1]
    k, b = divmod(s, WORD_BITS)
    out = np.zeros_like(masks)
    if k >= words:
        return out
    if b == 0:
        out[..., k:] = masks[..., :words - k]
        return out
    out[..., k:] = masks[..., :words - k] << np.uint64(b)
    if k + 1 < words:
        out[..., k + 1:] |= masks[..., :words - k - 1] >> np.uint64(WORD_BITS - b)
    return out


def shift_down(masks: Any, s: int) -> Any:
    """The multi-word integers of ``masks`` divided by ``2^s`` (``0 < s``), rounded down."""
    words = masks.shape[-1]
    k, b = divmod(s, WORD_BITS)
    out = np.zeros_like(masks)
    if k >= words:
        return out
    if b == 0:
        out[..., :words - k] = masks[..., k:]
        return out
    out[..., :words - k] = masks[..., k:] >> np.uint64(b)
    if k + 1 < words:
        out[..., :words - k - 1] |= masks[..., k + 1:] << np.uint64(WORD_BITS - b)
    return out


def popcount(values: Any) -> Any:
    """The number of set bits of each 64-bit value (``numpy.bitwise_count`` where numpy has it)."""
    if hasattr(np, "bitwise_count"):
        return np.bitwise_count(values)
    table = np.array([bin(i).count("1") for i in range(256)], dtype=np.uint8)
    flat = np.ascontiguousarray(values).reshape(-1)
    return table[flat.view(np.uint8).reshape(len(flat), 8)].sum(axis=1, dtype=np.uint8).reshape(values.shape)


def lexicographic_less(a: Any, b: Any) -> Any:
    """For rows of words (shape ``(n, width)``), whether each row of ``a`` comes before that of ``b`` in the
    order that compares the last words first; any fixed total order serves the canonical forms."""
    less = np.zeros(len(a), dtype=bool)
    for w in range(a.shape[1]):  # from the least significant word up: a later word overrides
        less = (a[:, w] < b[:, w]) | ((a[:, w] == b[:, w]) & less)
    return less


def rotate(masks: Any, r: int, bits: int, full: Any) -> Any:
    """The cyclic rotation by ``r`` of ``bits``-bit integers held in words (``full`` has the low ``bits`` bits
    set): bit ``v`` moves to ``v + r`` modulo ``bits``."""
    r %= bits
    if not r:
        return masks.copy()
    return (shift_up(masks, r) | shift_down(masks, bits - r)) & full


def byte_tables(bits: int, image: Callable[[int], int | None], words: int) -> Any:
    """Tables that move the bits of ``bits``-bit masks: for each byte position ``j`` and byte value ``b``, the mask
    (of ``words`` words) of the images ``image(v)`` of the values ``v = 8 j + i`` with bit ``i`` set in ``b``;
    ``image(v)`` None drops ``v``."""
    count = (bits + _BYTE - 1) // _BYTE
    tables = np.zeros((count, 256, words), dtype=np.uint64)
    for j in range(count):
        singles = np.zeros((_BYTE, words), dtype=np.uint64)
        for i in range(_BYTE):
            v = _BYTE * j + i
            target = image(v) if v < bits else None
            if target is not None:
                singles[i, target // WORD_BITS] = np.uint64(1) << np.uint64(target % WORD_BITS)
        for b in range(1, 256):  # each byte from the one without its lowest bit
            low = (b & -b).bit_length() - 1
            tables[j, b] = tables[j, b & (b - 1)] | singles[low]
    return tables


def permute(masks: Any, tables: Any) -> Any:
    """The bits of ``masks`` moved by ``tables`` (from :func:`byte_tables`): one table look-up per byte."""
    out = np.zeros(masks.shape[:-1] + (tables.shape[2],), dtype=np.uint64)
    low = np.uint64(0xFF)
    for j in range(tables.shape[0]):
        word, shift = divmod(_BYTE * j, WORD_BITS)
        out |= tables[j][(masks[..., word] >> np.uint64(shift)) & low]
    return out
