"""Finished shares as they travel between processes, and joined (polyregions.regions._shares)."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.errors import CertificateError
from polyregions.regions._shares import Joined, PackedCells, Share


@dataclass(frozen=True)
class Cell:
    pattern: tuple[int, ...]
    rows: tuple = ()


@given(st.lists(st.tuples(st.integers(), st.text(max_size=5)), max_size=40), st.integers(1, 5),
       st.lists(st.integers(0, 39), max_size=60))
def test_packed_cells_give_back_each_object(items, run, reads):
    packed = pickle.loads(pickle.dumps(PackedCells(items, run=run)))
    assert len(packed) == len(items) and list(packed) == items
    PackedCells.RECENT = 3  # reads out of order that leave the kept runs
    try:
        assert [packed[i] for i in reads if i < len(items)] == [items[i] for i in reads if i < len(items)]
    finally:
        PackedCells.RECENT = 32
    with pytest.raises(IndexError):
        packed[len(items)]


@settings(max_examples=60)
@given(st.data())
def test_indices_find_exactly_the_cells_patterns(data):
    width = data.draw(st.integers(1, 70))  # across a byte and a 64-bit word of packed bits
    largest = data.draw(st.sampled_from([1, 3]))  # zero-one patterns are looked up by their packed bits
    row = st.tuples(*[st.integers(0, largest)] * width)
    patterns = data.draw(st.lists(row, min_size=1, max_size=30, unique=True))
    cut = data.draw(st.integers(0, len(patterns)))
    joined = Joined([Share.of([Cell(p) for p in patterns[:cut]], [], [], packed=True),
                     Share.of([Cell(p) for p in patterns[cut:]], [], [], packed=False)])
    queries = data.draw(st.lists(st.tuples(*[st.integers(0, 3)] * width), max_size=30)) + patterns
    expected = [patterns.index(q) if q in patterns else -1 for q in queries]
    assert joined.indices(np.array(queries, dtype=np.int64).reshape(-1, width)).tolist() == expected
    assert [joined.cell(i).pattern for i in range(len(joined))] == patterns


def test_pairs_join_own_and_foreign_pairs_as_indices():
    first = [Cell((0, 0)), Cell((0, 1))]
    second = [Cell((1, 0)), Cell((1, 1))]
    joined = Joined([
        Share.of(first, [((0, 0), (0, 1)), ((0, 1), (1, 1))], [((0, 0), 0, None)], packed=True),
        Share.of(second, [((1, 1), (1, 0)), ((0, 0), (1, 0))], [], packed=True),
    ])
    assert sorted(map(sorted, joined.pairs().tolist())) == [[0, 1], [0, 2], [1, 3], [2, 3]]
    assert joined.open_facets == [((0, 0), 0, None)]


def test_a_pair_naming_a_pattern_no_cell_has_fails():
    joined = Joined([Share.of([Cell((0, 1))], [((0, 1), (1, 1))], [], packed=True)])
    with pytest.raises(CertificateError, match=r"\(1, 1\)"):
        joined.pairs()


def test_a_network_without_neurons_has_one_cell_of_the_empty_pattern():
    joined = Joined([Share.of([Cell(())], [], [], packed=True)])
    assert joined.index(()) == 0 and joined.pairs().shape == (0, 2)


def test_the_counts_of_a_run_in_processes_read_no_cell(monkeypatch):
    from polyregions.networks.initializers import he_normal
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    network, domain = he_normal([2, 6, 6], seed=1), box([-1, -1], [1, 1])
    alone = enumerate_regions(network, domain, engine="lp")

    def unread(self, index):
        raise AssertionError("a cell was unpickled")

    with monkeypatch.context() as patch:
        patch.setattr(PackedCells, "__getitem__", unread)
        split = enumerate_regions(network, domain, engine="lp", workers=2)
        summary = split.summary()
    assert summary == alone.summary()
    assert split.regions == alone.regions and split.adjacency == alone.adjacency  # the cells, read now
