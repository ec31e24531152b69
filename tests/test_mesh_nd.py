"""The mesh engine in dimension 4 and up: the same complex as the general engine on random, integer-weight and
degenerate networks in boxes, polytopes and slices, cells tiling the domain exactly, the closed form of a generic
arrangement, the same complex as the 2-D and 3-D meshes where those apply, and exports the independent checker
verifies."""

from fractions import Fraction
from math import comb

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polyregions as pr
from polyregions.errors import InvalidInputError
from polyregions.networks import activations as act
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._mesh import engine, refine_mesh, vertex_sides
from polyregions.regions._mesh.mesh_nd import MeshND
from polyregions.testing import assert_complexes_equal
from tests.mesh_checks import assert_export_verifies, relu_layers, same_as_general


def _cube(k, low=-1, high=1):
    return dom.box([low] * k, [high] * k)


@st.composite
def integer_networks(draw, k, low=-1, high=1):
    """Small integer weights: hyperplanes through the box's corners, along its edges and faces of every rank,
    parallel or equal."""
    widths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    dims = [k] + widths
    count = sum((a + 1) * b for a, b in zip(dims, dims[1:]))
    weights = draw(st.lists(st.integers(low, high), min_size=count, max_size=count))
    return relu_layers(dims, weights)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(integer_networks(4))
def test_integer_weight_networks_in_4d_match_the_general_engine(net):
    same_as_general(net, _cube(4))


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(integer_networks(5))
def test_integer_weight_networks_in_5d_match_the_general_engine(net):
    same_as_general(net, _cube(5))


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(integer_networks(4, -2, 2))
def test_cells_tile_the_box_exactly(net):
    same_as_general(net, dom.box([0, -1, -1, 0], [1, 1, 2, 1]), volumes=True)


@settings(max_examples=15, deadline=None)
@given(st.integers(4, 5), st.lists(st.integers(1, 5), min_size=1, max_size=2), st.integers(0, 2 ** 16))
def test_he_normal_networks_match_the_general_engine(k, widths, seed):
    same_as_general(he_normal([k] + widths, seed=seed, bias_std=0.3), _cube(k))


def test_a_generic_arrangement_has_zaslavskys_count():
    # n hyperplanes in general position in R^4, every intersection inside the box: sum_{i <= 4} C(n, i) regions.
    rows = [[1, 2, 3, 5], [2, -1, 1, 3], [-1, 3, 2, 1], [3, 1, -2, 2], [1, -1, -1, 4], [2, 3, -1, -3], [1, 1, 4, -2]]
    net = Network.from_layers(4, [(rows, [1, -1, 2, 1, -2, 1, 3], act.relu())])
    mesh = refine_mesh(net, _cube(4, -1000, 1000))
    assert len(mesh) == sum(comb(len(rows), i) for i in range(5))


def test_hyperplanes_through_faces_of_every_rank_of_the_box():
    # x1 + x2 + x3 + x4 = 2 meets the 4-cube's corners and no interior edge; x1 = x2 contains 2-faces; x4 = 1 is a
    # facet; x1 = 0 twice (a duplicated unit); -x1 = 0 the same plane with the pieces swapped.
    rows = [[1, 1, 1, 1], [1, -1, 0, 0], [0, 0, 0, 1], [1, 0, 0, 0], [1, 0, 0, 0], [-1, 0, 0, 0], [1, 1, 0, 0]]
    net = Network.from_layers(4, [(rows, [-2, 0, -1, 0, 0, 0, 0], act.relu()),
                                  ([[1, -1, 1, 1, 0, 1, -1], [0, 1, 0, -1, 1, 0, 1]], [0, 0], act.relu())])
    same_as_general(net, _cube(4), volumes=True)


def test_a_dead_layer_leaves_one_region():
    net = Network.from_layers(4, [([[1, 2, 3, 4]], [-100], act.relu()), ([[1]], [1], act.relu())])
    assert len(same_as_general(net, _cube(4))) == 1


def test_polytope_domains_and_slices():
    # A 4-simplex, a cross-polytope cut by a redundant row, and a 4-D slice of a 6-D input.
    net = he_normal([4, 5, 4], seed=1, bias_std=0.2)
    simplex = dom.polytope_domain([[-1, 0, 0, 0], [0, -1, 0, 0], [0, 0, -1, 0], [0, 0, 0, -1], [1, 1, 1, 1]],
                                  [1, 1, 1, 1, 1])
    same_as_general(net, simplex, volumes=True)
    signs = [(a, b, c, d) for a in (1, -1) for b in (1, -1) for c in (1, -1) for d in (1, -1)]
    cross = dom.polytope_domain([list(s) for s in signs] + [[3, 3, 3, 3]], [1] * 16 + [5])
    same_as_general(net, cross, volumes=True)
    wide = he_normal([6, 5, 5], seed=2, bias_std=0.2)
    cut = dom.slice_domain([0] * 6, [[1, 0, 0, 0, 1, 0], [0, 1, 0, 0, 0, -1], [0, 0, 1, 0, Fraction(1, 3), 0],
                                     [0, 0, 0, 1, 0, 1]], [-1] * 4, [1] * 4)
    same_as_general(wide, cut)


def test_activations_with_several_breakpoints():
    net = Network.from_layers(4, [([[1, 1, 0, 0], [0, 1, -1, 1], [1, 0, 1, -1]], [0, Fraction(1, 3), 0],
                                   act.hardtanh()), ([[1, -1, 1]], [0], act.hardtanh())])
    same_as_general(net, _cube(4), volumes=True)


def test_deciding_every_sign_exactly_gives_the_same_complex(monkeypatch):
    net = he_normal([4, 6, 6], seed=5, bias_std=0.2)
    floats = refine_mesh(net, _cube(4))
    monkeypatch.setattr(vertex_sides, "certified_signs", lambda values, *_: 2 + 0 * values.astype(int))
    assert_complexes_equal(refine_mesh(net, _cube(4)), floats)


@pytest.mark.parametrize("k", [2, 3])
def test_the_face_lattice_mesh_gives_the_2d_and_3d_meshes_complexes(monkeypatch, k):
    # A He-normal network, and small integer weights (hyperplanes through corners and along edges).
    dims = [k, 4, 3]
    count = sum((a + 1) * b for a, b in zip(dims, dims[1:]))
    nets = [he_normal([k, 8, 8, 8], seed=4), relu_layers(dims, [(7 * i) % 5 - 2 for i in range(count)])]
    meshes = [refine_mesh(net, _cube(k)) for net in nets]
    monkeypatch.setattr(engine, "_mesh_class", lambda dim: MeshND)
    for net, mesh in zip(nets, meshes):
        lattice = refine_mesh(net, _cube(k))
        assert_complexes_equal(lattice, mesh)
        assert len(lattice.linear_regions) == len(mesh.linear_regions)


def test_auto_takes_the_mesh_up_to_dimension_six():
    net = he_normal([5, 4], seed=0)
    assert pr.enumerate_regions(net, _cube(5)).engine == "mesh"
    assert pr.enumerate_regions(he_normal([7, 3], seed=0), _cube(7)).engine == "lp"
    assert pr.enumerate_regions(net, dom.space(5)).engine == "lp"


def test_exports_verify_with_the_independent_checker(tmp_path):
    rows = [[1, 1, 1, 0], [1, -1, 0, 1], [0, 0, 1, 1], [2, 1, 0, -1]]
    net = Network.from_layers(4, [(rows, [-1, 0, Fraction(-1, 2), 0], act.relu()),
                                  ([[1, -1, 1, 1]], [0], act.relu())])
    complex_ = refine_mesh(net, _cube(4))
    assert_export_verifies(complex_, tmp_path)


@pytest.mark.parametrize("A, b", [
    ([[1, 0, 0, 0], [-1, 0, 0, 0], [0, 1, 0, 0], [0, -1, 0, 0], [0, 0, 1, 0], [0, 0, -1, 0], [0, 0, 0, 1],
      [0, 0, 0, -1]], [0, 0, 1, 1, 1, 1, 1, 1]),  # flat
    ([[1, 0, 0, 0], [-1, 0, 0, 0], [0, 1, 0, 0], [0, -1, 0, 0], [0, 0, 1, 0], [0, 0, -1, 0], [0, 0, 0, 1],
      [0, 0, 0, -1]], [-1, 0, 1, 1, 1, 1, 1, 1]),  # empty
    ([[1, 0, 0, 0], [-1, 0, 0, 0], [0, 1, 0, 0], [0, -1, 0, 0], [0, 0, 1, 0], [0, 0, -1, 0], [0, 0, 0, 1]],
     [1, 1, 1, 1, 1, 1, 1]),  # unbounded
])
def test_degenerate_domains_are_refused(A, b):
    net = Network.from_layers(4, [([[1, 1, 1, 1]], [0], act.relu())])
    with pytest.raises(InvalidInputError):
        engine.mesh_regions(net, A, b)
