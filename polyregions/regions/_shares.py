"""Finished shares of one enumeration, as the processes that refined them hand them on, and joined.

A share is a set of the first layer's cells refined to the end by one process. Sent back from a worker as a
hundred thousand cell objects, it would cost the receiving process seconds of unpickling, on cores the workers
need. A share travels instead as arrays (the cells' patterns, the pairs of adjacent cells proved within it) and
one buffer holding its cells pickled in short runs, each run unpickled only when something reads one of its
cells: the facets left open, and a region's geometry when that is asked for. Counts read the arrays alone.
"""

from __future__ import annotations

import bisect
import pickle
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Optional, Sequence

import numpy as np

from polyregions.errors import CertificateError

__all__ = ["PackedCells", "Share", "Joined"]

Pattern = tuple[int, ...]
#: Finished cells pickled together: measured, runs of 16 pickle in half the time and a third of the bytes of one
#: cell at a time (neighbours share rows and points), and reading one cell unpickles 16.
_RUN = 16


class PackedCells:
    """Objects pickled into one buffer in runs of ``run`` (objects shared within a run are pickled once), each
    run unpickled when one of its objects is read; the last ``RECENT`` runs read are kept, as reads in pattern
    order mostly stay within a few runs.

    >>> packed = PackedCells([(1, 2), "three", 4.5], run=2)
    >>> len(packed), packed[2], list(packed)
    (3, 4.5, [(1, 2), 'three', 4.5])
    """

    RECENT = 32

    def __init__(self, items: Sequence[Any], run: int = 1) -> None:
        self.run, self.count = max(1, run), len(items)
        self._recent: OrderedDict[int, list] = OrderedDict()
        chunks = [pickle.dumps(list(items[start:start + self.run]), protocol=pickle.HIGHEST_PROTOCOL)
                  for start in range(0, len(items), self.run)]
        self.ends = np.cumsum([len(chunk) for chunk in chunks], dtype=np.int64)
        self.buffer = b"".join(chunks)

    def __len__(self) -> int:
        return self.count

    def __getitem__(self, index: int) -> Any:
        if not 0 <= index < self.count:
            raise IndexError(index)
        return self._run(index // self.run)[index % self.run]

    def __iter__(self) -> Iterator[Any]:
        return (item for run in range(len(self.ends)) for item in self._unpickled(run))

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "_recent": OrderedDict()}

    def _run(self, run: int) -> list:
        found = self._recent.get(run)
        if found is None:
            found = self._recent[run] = self._unpickled(run)
            if len(self._recent) > self.RECENT:
                self._recent.popitem(last=False)
        else:
            self._recent.move_to_end(run)
        return found

    def _unpickled(self, run: int) -> list:
        start = int(self.ends[run - 1]) if run else 0
        return pickle.loads(memoryview(self.buffer)[start:int(self.ends[run])])


@dataclass(frozen=True, eq=False)
class Share:
    """A share's finished cells and what its process proved of their adjacency.

    Attributes
    ----------
    patterns : numpy.ndarray
        The cells' patterns, a row each (int64).
    cells : Sequence
        The cells: a list in the process that made them, :class:`PackedCells` once sent.
    pairs : numpy.ndarray
        Pairs of cells proved adjacent within the share, as rows of two cell indices.
    foreign, foreign_patterns : numpy.ndarray
        The pairs with a cell of another share (read off the cuts): the own cell's index, and the other's pattern
        as a row.
    open_facets : list
        The facets left open, for the process that joins the shares to decide.
    """

    patterns: np.ndarray
    cells: "Sequence[Any] | PackedCells"
    pairs: np.ndarray
    foreign: np.ndarray
    foreign_patterns: np.ndarray
    open_facets: list

    @classmethod
    def of(cls, cells: Sequence[Any], pairs: Iterable[tuple[Pattern, Pattern]], open_facets: list, *,
           packed: bool) -> "Share":
        """The share of ``cells`` (each with a ``pattern``) and the adjacent ``pairs`` of patterns proved by its
        process, at least one of each pair its own; ``packed`` for sending."""
        index = {cell.pattern: i for i, cell in enumerate(cells)}.get
        pairs = list(pairs)
        first = np.array([index(p, -1) for p, _ in pairs], dtype=np.int64)
        second = np.array([index(q, -1) for _, q in pairs], dtype=np.int64)
        mine = (first >= 0) & (second >= 0)
        if ((first < 0) & (second < 0)).any():
            raise CertificateError("a pair of patterns proved in a share that has neither")
        elsewhere = np.flatnonzero(~mine)
        first_mine = first[elsewhere] >= 0
        own = np.column_stack([first[mine], second[mine]])
        foreign = np.where(first_mine, first[elsewhere], second[elsewhere])
        others = [pairs[t][is_first] for t, is_first in zip(elsewhere.tolist(), first_mine.tolist())]  # the other one
        width = len(cells[0].pattern) if cells else 0
        return cls(_matrix([cell.pattern for cell in cells], width),
                   PackedCells(cells, run=_RUN) if packed else list(cells),
                   own.reshape(-1, 2), foreign, _matrix(others, width), open_facets)


def _matrix(patterns: Sequence[Pattern], width: int) -> np.ndarray:
    return np.array(patterns, dtype=np.int64).reshape(len(patterns), width)


class Joined:
    """Shares joined: their cells numbered one share after another, the patterns as one matrix, every pair
    proved as indices, and the facets still open."""

    def __init__(self, shares: Sequence[Share]) -> None:
        self.shares = [share for share in shares if len(share.cells)]
        self.starts = np.cumsum([0] + [len(share.cells) for share in self.shares])
        self.patterns = (np.concatenate([share.patterns for share in self.shares]) if self.shares
                         else np.zeros((0, 0), dtype=np.int64))
        self.open_facets = [facet for share in self.shares for facet in share.open_facets]
        self._sorted: Optional[tuple[np.ndarray, np.ndarray]] = None  # by indices(): the order, the sorted keys
        self._binary = False

    def __len__(self) -> int:
        return int(self.starts[-1])

    def cell(self, index: int) -> Any:
        """Cell ``index`` (unpickled from a packed share when not read recently)."""
        share = bisect.bisect_right(self.starts, index) - 1
        return self.shares[share].cells[index - int(self.starts[share])]

    def index(self, pattern: Pattern) -> Optional[int]:
        """The index of the cell of ``pattern``, or None when no cell has it."""
        found = int(self.indices(np.array([pattern], dtype=np.int64).reshape(1, -1))[0])
        return None if found < 0 else found

    def indices(self, patterns: np.ndarray) -> np.ndarray:
        """The index of the cell of each row of ``patterns``, -1 where no cell has it (one sort of the cells'
        patterns, then a binary search per row)."""
        found = np.full(len(patterns), -1, dtype=np.int64)
        if self.patterns.shape[1] == 0:  # no neurons: a single cell, of the empty pattern
            return np.zeros(len(patterns), dtype=np.int64) if patterns.shape[1] == 0 and len(self) else found
        if self._sorted is None:
            self._binary = bool(((self.patterns == 0) | (self.patterns == 1)).all())
            keys = _keys(self.patterns, self._binary)
            order = np.argsort(keys)
            self._sorted = (order, keys[order])
        order, keys = self._sorted
        if not len(keys) or patterns.shape[1] != self.patterns.shape[1]:
            return found
        valid = ((patterns == 0) | (patterns == 1)).all(axis=1) if self._binary else np.ones(len(patterns), bool)
        wanted = _keys(patterns[valid], self._binary)
        at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
        found[valid] = np.where(keys[at] == wanted, order[at], -1)
        return found

    def pairs(self) -> np.ndarray:
        """Every pair the shares proved, as rows of two cell indices (a pair may appear twice).

        Raises
        ------
        CertificateError
            When a pair names a pattern that no cell has (read off the cuts wrongly).
        """
        found = [share.pairs + start for share, start in zip(self.shares, self.starts.tolist())]
        for share, start in zip(self.shares, self.starts.tolist()):
            if not len(share.foreign):
                continue
            others = self.indices(share.foreign_patterns)
            if (others < 0).any():
                missing = tuple(share.foreign_patterns[np.argmax(others < 0)].tolist())
                raise CertificateError(f"an adjacent pair names the pattern {missing}, which no region has")
            found.append(np.column_stack([share.foreign + start, others]))
        return np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)


def _keys(patterns: np.ndarray, binary: bool) -> np.ndarray:
    """One key per row, equal exactly when the rows are: its bytes, or its packed bits when ``binary`` (every
    entry 0 or 1)."""
    rows = np.ascontiguousarray(np.packbits(patterns.astype(bool), axis=1) if binary else patterns)
    return rows.view(np.dtype((np.void, rows.shape[1] * rows.itemsize))).ravel()
