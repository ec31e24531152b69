"""What the parts of the mesh engine share: vertex sides as bits, growable and ragged arrays, a layer's vertex
arrays, geometry computed once on demand, the engine's internal error, and a pause of the garbage collector around
bulk object creation."""

from __future__ import annotations

import os
import threading
from typing import Any, Callable, Sequence

import numpy as np

from polyregions._support.runtime import collector_paused
from polyregions.errors import PolyregionsError

__all__ = ["KEY", "ID", "ON", "ABOVE", "BELOW", "UNPROVEN", "SIDE_OF_SIGN", "ragged", "distinct", "distinct_ranks",
           "distinct_by_slots", "followed", "unproven_rows", "grow", "vertex_arrays", "padded", "or_rows",
           "ComputedOnce", "MeshError"]

#: Key of an unordered pair of vertex ids ``(u, w)``, ``u <= w``: ``u * KEY + w``.
KEY = np.int64(1) << 31
#: The type of the meshes' pools of ids (faces' facets, edges' ends) and of positions in them: ids stay below KEY,
#: and half the bytes is half the fresh memory a split writes (in high dimensions it rewrites most of the pools).
ID = np.int32
# Vertex sides of a hyperplane, as bits that OR into a face's code: on it, above, below, not proven yet.
ON, ABOVE, BELOW, UNPROVEN = 0, 1, 2, 4
SIDE_OF_SIGN = np.array([BELOW, ON, ABOVE, UNPROVEN], dtype=np.int8)  # indexed by sign + 1 (sign 2: unproven)
_UNPROVEN_BYTES = np.uint64(int.from_bytes(bytes([UNPROVEN]) * 8, "little"))  # the UNPROVEN bit of 8 sides


def ragged(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ranges ``starts[i] .. starts[i] + lengths[i] - 1``.

    Examples
    --------
    >>> ragged(np.array([5, 0, 9]), np.array([2, 0, 3])).tolist()
    [5, 6, 9, 10, 11]
    """
    # One array, the whole output, of steps: 1 within a range, the jump from the last range's end at a start (a
    # second array of that size, as ``repeat`` + ``arange`` make, costs as much again in fresh memory).
    ends = lengths.cumsum()
    steps = np.ones(int(ends[-1]) if ends.size else 0, dtype=np.int64)
    used = lengths > 0
    first, span = starts[used], lengths[used]
    jumps = first.copy()
    jumps[1:] -= first[:-1] + span[:-1] - 1
    steps[(ends - lengths)[used]] = jumps
    return np.cumsum(steps, out=steps)


def distinct(values: np.ndarray) -> np.ndarray:
    """The distinct values of an array, sorted (``np.unique(values)`` without its check for masked arrays, whose
    first use imports ``numpy.ma``: milliseconds of a short run).

    Examples
    --------
    >>> distinct(np.array([[3, 1], [3, 2]])).tolist()
    [1, 2, 3]
    """
    ordered = np.sort(values, axis=None)
    keep = np.ones(ordered.size, dtype=bool)
    keep[1:] = ordered[1:] != ordered[:-1]
    return ordered[keep]


def distinct_ranks(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For a 1-D array: the index of one element of each distinct value (by increasing value) and every element's
    rank among the distinct values. As ``np.unique(values, return_index=True, return_inverse=True)[1:]``, but the
    element picked need not be the first, which allows numpy's quicker unstable sort.

    Examples
    --------
    >>> one, rank = distinct_ranks(np.array([7, 3, 7, 5]))
    >>> rank.tolist()
    [2, 0, 2, 1]
    >>> np.array([7, 3, 7, 5])[one].tolist()
    [3, 5, 7]
    """
    order = values.argsort()
    ordered = values[order]
    new = np.empty(values.size, dtype=bool)
    new[:1] = True
    np.not_equal(ordered[1:], ordered[:-1], out=new[1:])
    rank = np.empty(values.size, dtype=np.int64)
    rank[order] = new.cumsum() - 1
    return order[new], rank


def followed(owner: np.ndarray, values: np.ndarray, extra: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Groups of ``values`` (``owner``: their group, non-decreasing, groups ``0..len(extra)-1``) each followed by
    its ``extra`` element: the pool and every group's length (one more than its values)."""
    lengths = np.bincount(owner, minlength=extra.size) + 1
    out = np.empty(values.size + extra.size, dtype=values.dtype)
    out[np.arange(values.size, dtype=np.int64) + owner] = values  # each earlier group holds one extra element
    out[lengths.cumsum() - 1] = extra
    return out, lengths


def distinct_by_slots(values: np.ndarray, slot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`distinct_ranks` (one element of each distinct value, every element's rank), but by
    writing into ``slot`` (scratch longer than the largest value, any contents) rather than sorting: the
    distinct values come in no particular order."""
    positions = np.arange(values.size, dtype=np.int64)
    slot[values] = positions  # the last element of each value wins
    one = (slot[values] == positions).nonzero()[0]
    slot[values[one]] = np.arange(one.size, dtype=np.int64)
    return one, slot[values]


def unproven_rows(S: np.ndarray) -> np.ndarray:
    """The rows of a side matrix (C-contiguous, rows of whole 64-bit words: :func:`padded`) holding an
    ``UNPROVEN`` side, read eight sides per operation (the sides are single bits).

    Examples
    --------
    >>> S = np.zeros((3, 8), dtype=np.int8)
    >>> S[1, 5] = UNPROVEN
    >>> S[2, 0] = ABOVE | BELOW
    >>> unproven_rows(S).tolist()
    [1]
    """
    return np.flatnonzero((S.view(np.uint64) & _UNPROVEN_BYTES).any(axis=1))


def grow(array: np.ndarray, needed: int) -> np.ndarray:
    """``array`` with room for at least ``needed`` rows (doubling), contents kept."""
    if needed <= array.shape[0]:
        return array
    size = max(needed, 2 * array.shape[0], 16)
    grown = np.zeros((size,) + array.shape[1:], dtype=array.dtype)
    grown[:array.shape[0]] = array
    return grown


def vertex_arrays(count: int, columns: Sequence[tuple[int, Any]]) -> list[np.ndarray]:
    """Zeroed arrays of ``(rows, width)`` with the given widths and dtypes for a layer's values at ``count``
    vertices and at the vertices it will add.

    A layer adds a few times as many vertices as it starts with (over four times on the second layer of a wide
    He-normal network), and growing a large array copies it, so that for a moment it is held twice. The rows are
    touched only when written, so room costs address space rather than memory: eight times ``count``, with each
    array under a quarter of the machine's memory, and four times where the system refuses that much address
    space.
    """
    least = 4 * count + 4096
    try:
        limit = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 4
    except (ValueError, OSError):
        limit = 0
    row_bytes = max(width * np.dtype(dtype).itemsize for width, dtype in columns) or 1
    rows = max(least, min(8 * count + 4096, limit // row_bytes))
    try:
        return [np.zeros((rows, width), dtype=dtype) for width, dtype in columns]
    except MemoryError:
        return [np.zeros((least, width), dtype=dtype) for width, dtype in columns]


def padded(columns: int) -> int:
    """The number of columns of a side matrix with ``columns`` hyperplanes: rounded up to a multiple of 8, so
    that a row is a whole number of 64-bit words (the padding columns stay ``ON``: no hyperplane)."""
    return -(-columns // 8) * 8


def or_rows(S: np.ndarray, rows: np.ndarray, starts: np.ndarray, first: int) -> np.ndarray:
    """``np.bitwise_or.reduceat(S[rows, first:], starts, axis=0)`` for a C-contiguous int8 matrix whose rows
    are whole 64-bit words, computed on the words: eight columns per operation.

    Examples
    --------
    >>> S = np.arange(32, dtype=np.int8).reshape(2, 16)
    >>> or_rows(S, np.array([0, 1]), np.array([0]), 3).tolist() == [(S[0, 3:] | S[1, 3:]).tolist()]
    True
    """
    word = first // 8
    reduced = np.bitwise_or.reduceat(S.view(np.uint64)[rows, word:], starts, axis=0)
    return reduced.view(np.int8)[:, first - 8 * word:]


class ComputedOnce:
    """A list computed by ``compute()`` on the first request for any item: the exact geometry of all faces is
    built in one vectorised pass, and only when some region's inequalities or interior point are asked for."""

    def __init__(self, compute: Callable[[], list]):
        self._compute: Callable[[], list] | None = compute
        self._items: list | None = None
        self._lock = threading.Lock()

    def item(self, index: int):
        if self._items is None:
            with self._lock:
                if self._items is None:
                    compute = self._compute
                    assert compute is not None  # cleared only once the items are set
                    with collector_paused():
                        self._items = compute()
                    self._compute = None  # releases the mesh
        return self._items[index]


class MeshError(PolyregionsError):
    """An internal consistency check of the mesh failed (a bug, never a property of the input)."""
