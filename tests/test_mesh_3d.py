"""The 3-D mesh engine: the same complex as the general engine on random, integer-weight and degenerate networks in
boxes and polytopes, cells tiling the domain exactly, exports that the independent checker verifies."""

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polyregions as pr
from polyregions.errors import InvalidInputError
from polyregions.networks import activations as act
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._mesh import refine_mesh, vertex_sides
from polyregions.testing import assert_complexes_equal
from tests.mesh_checks import assert_export_verifies, relu_layers, same_as_general

CUBE = dom.box([-1, -1, -1], [1, 1, 1])


@st.composite
def integer_networks(draw, low=-2, high=2):
    """Small integer weights: many hyperplanes through box corners, along edges and faces, parallel or equal."""
    widths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    dims = [3] + widths
    count = sum((a + 1) * b for a, b in zip(dims, dims[1:]))
    weights = draw(st.lists(st.integers(low, high), min_size=count, max_size=count))
    return relu_layers(dims, weights)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(integer_networks())
def test_integer_weight_networks_match_the_general_engine(net):
    same_as_general(net, CUBE)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(integer_networks(-1, 1))
def test_cells_tile_the_box_exactly(net):
    same_as_general(net, dom.box([0, -1, -1], [1, 1, 2]), volumes=True)


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 6), min_size=1, max_size=3), st.integers(0, 2 ** 16))
def test_he_normal_networks_match_the_general_engine(widths, seed):
    same_as_general(he_normal([3] + widths, seed=seed, bias_std=0.3), CUBE)


def test_a_deeper_he_normal_network():
    mesh = same_as_general(he_normal([3, 8, 8, 8], seed=3), CUBE)
    assert len(mesh) > 300


def test_planes_through_corners_edges_and_faces_of_the_box():
    # x + y + z = 1 meets the cube at three corners; x = y contains two of its edges; z = 1 is a facet; x = 0 is
    # met twice (a duplicated unit); -x = 0 is the same plane with the pieces swapped.
    rows = [[1, 1, 1], [1, -1, 0], [0, 0, 1], [1, 0, 0], [1, 0, 0], [-1, 0, 0], [1, 1, 0]]
    net = Network.from_layers(3, [(rows, [-1, 0, -1, 0, 0, 0, 0], act.relu()),
                                  ([[1, -1, 1, 1, 0, 1, -1]], [0], act.relu())])
    same_as_general(net, CUBE, volumes=True)


def test_parallel_coincident_and_dead_units():
    rows = [[1, 0, 0], [1, 0, 0], [2, 0, 0], [1, 0, 0], [0, 0, 0], [0, 1, 0]]
    net = Network.from_layers(3, [(rows, [0, 0, 0, Fraction(1, 2), 1, 0], act.relu()),
                                  ([[1, -1, 0, 0, 0, 1], [0, 0, 0, 0, 0, 0]], [0, -1], act.relu())])
    same_as_general(net, CUBE, volumes=True)


def test_a_dead_layer_leaves_one_region():
    net = Network.from_layers(3, [([[1, 2, 3]], [-100], act.relu()), ([[1]], [1], act.relu())])
    assert len(same_as_general(net, CUBE)) == 1


def test_polytope_domains_and_slices():
    # A tetrahedron, an octahedron cut by a redundant row, and a 3-D slice of a 4-D input.
    net3 = he_normal([3, 5, 5], seed=1, bias_std=0.2)
    tetra = dom.polytope_domain([[-1, 0, 0], [0, -1, 0], [0, 0, -1], [1, 1, 1]], [1, 1, 1, 1])
    same_as_general(net3, tetra, volumes=True)
    octa_rows = [[sx, sy, sz] for sx in (1, -1) for sy in (1, -1) for sz in (1, -1)] + [[1, 0, 0], [2, 2, 2]]
    octa = dom.polytope_domain(octa_rows, [1] * 8 + [5, 2])
    same_as_general(net3, octa, volumes=True)
    net4 = he_normal([4, 6, 6], seed=2, bias_std=0.2)
    cut = dom.slice_domain([0, 0, 0, 0], [[1, 0, 0, 1], [0, 1, 0, 0], [0, 0, 1, Fraction(1, 3)]], [-1, -1, -1],
                           [1, 1, 1])
    same_as_general(net4, cut)


def test_activations_with_several_breakpoints():
    net = Network.from_layers(3, [([[1, 1, 0], [0, 1, -1], [1, 0, 1]], [0, Fraction(1, 3), 0], act.hardtanh()),
                                  ([[1, -1, 1]], [0], act.hardtanh())])
    same_as_general(net, CUBE, volumes=True)


def test_deciding_every_sign_exactly_gives_the_same_complex(monkeypatch):
    net = he_normal([3, 6, 6], seed=5, bias_std=0.2)
    floats = refine_mesh(net, CUBE)
    monkeypatch.setattr(vertex_sides, "certified_signs", lambda values, *_: 2 + 0 * values.astype(int))
    assert_complexes_equal(refine_mesh(net, CUBE), floats)


def test_exports_verify_with_the_independent_checker(tmp_path):
    rows = [[1, 1, 1], [1, -1, 0], [0, 0, 1], [2, 1, 0]]
    net = Network.from_layers(3, [(rows, [-1, 0, Fraction(-1, 2), 0], act.relu()), ([[1, -1, 1, 1]], [0], act.relu())])
    complex_ = refine_mesh(net, CUBE)
    assert_export_verifies(complex_, tmp_path)


@pytest.mark.parametrize("A, b", [
    ([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], [0, 0, 1, 1, 1, 1]),  # flat
    ([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]], [-1, 0, 1, 1, 1, 1]),  # empty
])
def test_degenerate_domains_are_refused(A, b):
    from polyregions.regions._mesh.engine import mesh_regions

    net = Network.from_layers(3, [([[1, 1, 1]], [0], act.relu())])
    with pytest.raises(InvalidInputError):
        mesh_regions(net, A, b)


def test_graph_networks_through_their_dense_rewriting():
    from polyregions.networks.graph import GraphNetwork, Node
    from polyregions.networks.operations import Conv, Dense, Flatten, Maxout, MaxPool

    maxout = GraphNetwork((3,), (Node("d", Dense([[1, 0, 1], [0, 1, -1], [1, 1, 0], [-1, 2, 0], [0, 0, 1], [1, -1, 1]],
                                                 [0, 1, 0, 0, "1/2", 0]), ("input",)),
                                 Node("m", Maxout(3), ("d",)), Node("o", Dense([[1, -1]], [0]), ("m",))), "o")
    pooled = GraphNetwork((1, 4), (Node("c", Conv([[[1, -1]], [[2, 1]]], [0, "-1/2"], padding=1), ("input",)),
                                   Node("p", MaxPool(3, stride=2, padding=1), ("c",)), Node("f", Flatten(), ("p",)),
                                   Node("o", Dense([[1, 0, -1, 2, 1, 0]], [0]), ("f",))), "o")
    cut = dom.slice_domain([0] * 4, [[1, 0, 0, 1], [0, 1, 0, -1], [0, 0, 1, "1/2"]], [-1, -1, -1], [1, 1, 1])
    for net, domain in ((maxout, CUBE), (pooled, cut)):
        general = pr.enumerate_regions(net, domain, engine="lp")
        assert_complexes_equal(pr.enumerate_regions(net, domain), general)  # auto: the LP engine or the mesh
        try:
            mesh = pr.enumerate_regions(net, domain, engine="mesh")
        except InvalidInputError as error:  # regions that are unions of the rewriting's cells are not merged in 3-D
            assert "engine=\"lp\"" in str(error)
            continue
        assert_complexes_equal(mesh, general)
