"""The adjacency of a region complex as arrays: its pairs of adjacent regions renumbered by rank, and for each
pair the neurons that switch across it (found in bulk, words of bits or bytes at a time)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:

    pass

__all__ = ["ranked_edges", "switch_arrays", "adjacency_of", "bit_words"]


def ranked_edges(rank: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The pairs of regions ``pairs`` (an array with two columns; a pair may repeat, either way round) with region
    ``r`` renumbered ``rank[r]``, as ``(i, j)`` with ``i < j``, each once, sorted.

    >>> ranked_edges(np.array([2, 0, 1]), np.array([[0, 1], [1, 0], [2, 0]])).tolist()
    [[0, 2], [1, 2]]
    """
    count = len(rank)
    ranked = np.sort(rank[np.asarray(pairs, dtype=np.int64)], axis=1)
    keys = np.sort(ranked[:, 0] * count + ranked[:, 1])  # sorted like the pairs (i, j)
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # np.unique's masked-array import costs the 2-D job 7 ms
    return np.stack([keys // count, keys % count], axis=1)


def switch_arrays(patterns: np.ndarray, edges: np.ndarray, words: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, columns, switches, neurons)`` of the ``edges`` (pairs of rows of ``patterns``): the neurons
    that switch across edge ``e`` are ``columns[starts[e]:starts[e + 1]]``, ``switches[e]`` of them, and
    ``neurons[e]`` is the first (0 when none), as :func:`~polyregions.regions._linear_regions.linear_region_roots`
    reads them. ``words``: the patterns' :func:`bit_words`, when the caller has them."""
    starts, columns = _switching(patterns, edges, words)
    switches = np.diff(starts)
    neurons = np.zeros(len(edges), dtype=np.int64)
    neurons[switches > 0] = columns[starts[:-1][switches > 0]]
    return starts, columns, switches, neurons


def bit_words(patterns: np.ndarray) -> np.ndarray:
    """Patterns of zeros and ones as 64-bit words, 64 neurons each, neuron ``64 w + i`` at bit ``63 - i`` of
    word ``w``."""
    packed = np.packbits(patterns, axis=1)  # (integers: no boolean copy of a large matrix)
    padded = np.zeros((len(patterns), -(-packed.shape[1] // 8) * 8), dtype=np.uint8)
    padded[:, :packed.shape[1]] = packed
    return padded.view(">u8").astype(np.uint64)


def _bit_neuron(value: np.ndarray, word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the XORs ``value`` of two rows of :func:`bit_words` that differ in word ``word`` alone: whether they
    differ in one bit (one neuron), and for those the neuron."""
    single = (value & (value - np.uint64(1))) == 0  # one set bit: a power of two, exact as a double
    bit = np.log2(value[single].astype(np.float64)).astype(np.int64)
    return single, 64 * word[single] + 63 - bit


def _byte_words(patterns: np.ndarray) -> np.ndarray:
    """Patterns of one byte per neuron as 64-bit words, eight neurons each (neuron ``8 w + b`` at byte ``b`` of
    word ``w``, little-endian)."""
    bytes_ = np.zeros((len(patterns), -(-patterns.shape[1] // 8) * 8), dtype=np.uint8)
    bytes_[:, :patterns.shape[1]] = patterns.view(np.uint8)
    return bytes_.view(np.uint64)


def _byte_neuron(value: np.ndarray, word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`_bit_neuron` for rows of :func:`_byte_words`: whether they differ in one byte (one neuron)."""
    low = value & (~value + np.uint64(1))  # the lowest set bit, a power of two: exact as a double
    byte = (np.log2(low.astype(np.float64)).astype(np.int64)) // 8
    single = (value >> (8 * byte).astype(np.uint64)) < 256  # every set bit in that one byte
    return single, (8 * word + byte)[single]


def _switching(patterns: np.ndarray, edges: np.ndarray, words: np.ndarray | None = None, chunk: int = 16384
               ) -> tuple[np.ndarray, np.ndarray]:
    """The neurons that switch across every edge: ``columns[starts[e]:starts[e + 1]]`` for edge ``e``.

    Patterns of small pieces are compared many neurons at a time, as 64-bit words (64 neurons a word when every
    piece is 0 or 1, eight otherwise): an edge whose words differ in one bit (one byte) of one word has one
    switching neuron, found from the lowest set bit of the words' XOR; the others are compared neuron by neuron.
    Edges go in chunks, so that no edges x neurons matrix is ever whole.
    """
    count, width = patterns.shape
    number = np.ones(len(edges), dtype=np.int64)
    first = np.zeros(len(edges), dtype=np.int64)
    slow = np.arange(len(edges))
    packed: tuple[np.ndarray, Callable] | None = None
    if words is not None:
        packed = words, _bit_neuron
    elif width and len(patterns) and 0 <= patterns.min() and patterns.max() <= 1:
        packed = bit_words(patterns), _bit_neuron
    elif width and patterns.dtype.itemsize == 1:
        packed = _byte_words(patterns), _byte_neuron
    if packed is not None and len(edges):
        words, neuron_of = packed
        slow_parts = []
        for start in range(0, len(edges), chunk):
            part = edges[start:start + chunk]
            x = words[part[:, 0]] ^ words[part[:, 1]]
            differ = x != 0
            one = np.flatnonzero(differ.sum(axis=1) == 1)
            word = differ[one].argmax(axis=1)
            single, neuron = neuron_of(x[one, word], word)
            first[start + one[single]] = neuron
            mask = np.ones(len(part), dtype=bool)
            mask[one[single]] = False
            slow_parts.append(start + np.flatnonzero(mask))
        slow = np.concatenate(slow_parts)
        del words, packed
    listed: dict[int, np.ndarray] = {}
    for start in range(0, len(slow), chunk):
        part = slow[start:start + chunk]
        rows, columns = np.nonzero(patterns[edges[part, 0]] != patterns[edges[part, 1]])
        number[part] = np.bincount(rows, minlength=len(part))
        bounds = np.searchsorted(rows, np.arange(len(part) + 1))
        for k, e in enumerate(part.tolist()):
            listed[e] = columns[bounds[k]:bounds[k + 1]]
    starts = np.zeros(len(edges) + 1, dtype=np.int64)
    np.cumsum(number, out=starts[1:])
    columns = first[np.repeat(np.arange(len(edges)), number)] if not listed else np.empty(int(starts[-1]), np.int64)
    if listed:
        columns[starts[:-1][number == 1]] = first[number == 1]
        for e, found in listed.items():
            columns[starts[e]:starts[e + 1]] = found
    return starts, columns


def adjacency_of(edges: np.ndarray, starts: np.ndarray, columns: np.ndarray, switches: np.ndarray,
               neurons: np.ndarray, count: int, width: int) -> tuple[tuple[int, int, frozenset[int]], ...]:
    """The ``adjacency`` tuple; equal neuron sets (one neuron, mostly) share one frozenset, and region indices
    share their int objects."""
    single = [frozenset((n,)) for n in range(width)]
    sets: list[frozenset[int]] = list(map(single.__getitem__, neurons.tolist()))
    bounds, listed = starts.tolist(), columns.tolist()
    for e in np.flatnonzero(switches != 1).tolist():
        sets[e] = frozenset(listed[bounds[e]:bounds[e + 1]])
    index = list(range(count))
    return tuple(zip(map(index.__getitem__, edges[:, 0].tolist()), map(index.__getitem__, edges[:, 1].tolist()),
                     sets))
