"""Regions: immutable, geometry deferred until first use and then fixed, equal after a pickle round trip."""

import pickle
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.networks.activations import relu
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._mesh import refine_mesh
from polyregions.regions._switches import _switching
from polyregions.regions.region import Region

NET = Network.from_layers(1, [([[1]], [0], relu())])


def test_deferred_geometry_is_computed_once_on_first_use():
    calls = []

    def geometry():
        calls.append(1)
        return ((Fraction(-1),), (Fraction(1),)), (Fraction(0), Fraction(1)), (Fraction(1, 2),)

    region = Region.deferred((1,), NET, geometry)
    assert calls == [] and region.pattern == (1,)
    assert region.interior_point == (Fraction(1, 2),) and region.b == (0, 1) and region.dim == 1
    assert calls == [1]
    assert region == Region((1,), region.A, region.b, region.interior_point, NET)


def test_regions_are_immutable():
    region = Region((1,), [[-1], [1]], [0, 1], [Fraction(1, 2)], NET)
    with pytest.raises(AttributeError, match="immutable"):
        region.pattern = (0,)
    with pytest.raises(AttributeError, match="immutable"):
        region.A = ()


@pytest.mark.parametrize("dim", [1, 2])
def test_mesh_regions_survive_a_pickle_round_trip(dim):
    net = he_normal([dim, 5, 5], seed=4)
    complex_ = refine_mesh(net, dom.box([-1] * dim, [1] * dim))
    restored = pickle.loads(pickle.dumps(complex_.regions))
    assert restored == complex_.regions
    assert all(r.contains_strictly(r.interior_point) for r in restored)
    assert [r.output_map for r in restored] == [r.output_map for r in complex_.regions]


# ------------------------------------------------------------------- the complex's arrays, built fast


@given(st.integers(1, 20), st.integers(1, 6), st.sampled_from([np.int8, np.int32, np.int64]), st.data())
def test_switching_neurons_are_the_columns_where_the_patterns_differ(width, pieces, dtype, data):
    rows = data.draw(st.lists(st.lists(st.integers(0, pieces - 1), min_size=width, max_size=width), min_size=2,
                              max_size=8))
    patterns = np.array(rows, dtype=dtype)
    edges = np.array(data.draw(st.lists(st.tuples(st.integers(0, len(rows) - 1), st.integers(0, len(rows) - 1)),
                                        min_size=1, max_size=12)), dtype=np.int64)
    starts, columns = _switching(patterns, edges, chunk=data.draw(st.integers(1, 5)))
    for e, (i, j) in enumerate(edges.tolist()):
        expected = [c for c in range(width) if rows[i][c] != rows[j][c]]
        assert columns[starts[e]:starts[e + 1]].tolist() == expected


@given(st.integers(1, 150), st.data())
def test_zero_one_patterns_switch_and_sort_as_their_tuples_across_word_boundaries(width, data):
    from polyregions.regions.complex import complex_from_arrays

    bits = st.lists(st.integers(0, 1), min_size=width, max_size=width)
    rows = data.draw(st.lists(bits, min_size=2, max_size=8, unique_by=tuple))
    # neighbours of the first row that differ in one neuron (the fast path), and any pairs
    for column in data.draw(st.lists(st.integers(0, width - 1), max_size=4, unique=True)):
        flipped = list(rows[0])
        flipped[column] ^= 1
        if flipped not in rows:
            rows.append(flipped)
    patterns = np.array(rows, dtype=np.int8)
    edges = np.array([(0, j) for j in range(1, len(rows))] + data.draw(st.lists(
        st.tuples(st.integers(0, len(rows) - 1), st.integers(0, len(rows) - 1)), max_size=6)), dtype=np.int64)
    starts, columns = _switching(patterns, edges, chunk=data.draw(st.integers(1, 5)))
    for e, (i, j) in enumerate(edges.tolist()):
        assert columns[starts[e]:starts[e + 1]].tolist() == [c for c in range(width) if rows[i][c] != rows[j][c]]
    net = he_normal([1, width], seed=0)
    regions = Region._deferred_rows(patterns, net, lambda i: ((), (), ()))
    complex_ = complex_from_arrays(net, dom.box([0], [1]), regions, patterns, np.zeros((0, 2), np.int64),
                                   exact=True, engine="mesh")
    assert [tuple(row) for row in complex_._pattern_matrix.tolist()] == sorted(map(tuple, rows))
    assert [region.pattern for region in complex_.regions] == sorted(map(tuple, rows))


def test_the_summary_needs_no_region_geometry(monkeypatch):
    from polyregions.regions._mesh.mesh_2d import Mesh2D

    def refuse(self, patterns):
        raise AssertionError("the summary built the regions' geometry")

    monkeypatch.setattr(Mesh2D, "_face_geometry", refuse)
    net = he_normal([2, 6, 6, 2], seed=1)
    summary = refine_mesh(net, dom.box([-1, -1], [1, 1])).summary()
    assert summary["activation_regions"] >= summary["linear_regions"] >= 1 and summary["exact"]


def test_the_summary_makes_no_region_objects(monkeypatch):
    from polyregions.regions.region import Region

    def refuse(*args, **kwargs):
        raise AssertionError("the summary made the regions")

    complex_ = refine_mesh(he_normal([2, 6, 6, 2], seed=1), dom.box([-1, -1], [1, 1]))
    monkeypatch.setattr(Region, "_of_rows", refuse)
    summary = complex_.summary()
    assert summary["activation_regions"] == len(complex_._pattern_matrix) == len(complex_)
    monkeypatch.undo()
    assert len(complex_.regions) == summary["activation_regions"]


@pytest.mark.parametrize("dim", [1, 2])
def test_a_complex_survives_a_pickle_round_trip_before_its_regions_are_read(dim):
    complex_ = refine_mesh(he_normal([dim, 5, 5], seed=3), dom.box([-1] * dim, [1] * dim))
    restored = pickle.loads(pickle.dumps(complex_))
    assert restored == complex_ and restored.summary() == complex_.summary()
    assert restored.linear_regions == complex_.linear_regions


@pytest.mark.parametrize("dim", [1, 2])
def test_the_engine_arrays_are_those_of_the_tuples(dim):
    import dataclasses

    complex_ = refine_mesh(he_normal([dim, 5, 4], seed=2), dom.box([-1] * dim, [1] * dim))
    rebuilt = dataclasses.replace(complex_)  # no arrays: the cached properties build them from the tuples
    assert np.array_equal(complex_._pattern_matrix, rebuilt._pattern_matrix)
    for ours, theirs in zip(complex_._edge_arrays, rebuilt._edge_arrays):
        assert np.array_equal(ours, theirs)
    assert [r.pattern for r in complex_.regions] == [tuple(row) for row in complex_._pattern_matrix.tolist()]
