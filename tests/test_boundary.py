"""Faces of the region complex, B_N and its pieces B_{N,k}, and their exact volumes."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from region_oracle import counter_clockwise

from polyregions.errors import InvalidInputError
from polyregions.exact.surds import SurdSum
from polyregions.measures.boundaries import boundary
from polyregions.measures.faces import face_complex
from polyregions.measures.volumes import boundary_volumes
from polyregions.networks.activations import linear
from polyregions.networks.constructions import sawtooth
from polyregions.networks.initializers import he_normal
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network
from polyregions.regions.domains import box, segment, slice_domain
from polyregions.regions.enumeration import enumerate_regions

SQUARE = box([-1, -1], [1, 1])


def _volumes(net, domain, engine="auto"):
    return boundary_volumes(enumerate_regions(net, domain, engine=engine))


def _strings(v):
    return [str(x) for x in v.exact]


# --- closed forms ------------------------------------------------------------------------------------------------

def test_one_neuron_cuts_a_chord_of_known_length():
    # x + 2y = 1 crosses the unit square from (1, 0) to (0, 1/2): length sqrt(1 + 1/4).
    net = Network.from_layers(2, [([[1, 2]], [-1], "relu")])
    v = _volumes(net, box([0, 0], [1, 1]))
    assert v.exact[0] == SurdSum.sqrt(F(5, 4))
    assert v.exact[1] == SurdSum()
    lo, hi = v.exact[0].interval()
    assert abs(v.values[0] - float(lo)) <= v.errors[0] + 1e-15
    assert v.density == v.values[0]  # the domain has area 1


@pytest.mark.parametrize("a, b, c", [(3, -1, 1), (1, 1, 0), (2, 5, -3), (-7, 2, 4)])
def test_chord_length_matches_the_clipped_line(a, b, c):
    # Independent closed form: clip a x + b y = c to [-1, 1]^2 by its intersections with the four sides.
    net = Network.from_layers(2, [([[a, b]], [-c], "relu")])
    ends = set()
    for x in (-1, 1):
        y = F(c - a * x, b)
        if -1 <= y <= 1:
            ends.add((F(x), y))
    for y in (-1, 1):
        x = F(c - b * y, a)
        if -1 <= x <= 1:
            ends.add((x, F(y)))
    p, q = sorted(ends)
    expected = SurdSum.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2)
    assert _volumes(net, SQUARE).exact[0] == expected


def test_two_crossing_neurons_meet_in_one_vertex():
    net = Network.from_layers(2, [([[1, 0], [0, 1]], ["-1/4", "1/3"], "relu"), ([[1, 1]], [0], "linear")])
    v = _volumes(net, SQUARE)
    assert _strings(v) == ["4", "1"]
    assert v.errors[1] == 0.0 and v.values[1] == 1.0


def test_a_crossing_that_does_not_change_the_output_leaves_a_straight_line():
    # The second neuron never reaches the output: B_N is the line x = 0, and the origin (a vertex of the
    # complex with both neurons tight) lies in B_{N,1}, not in B_{N,2}.
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 0]], [0], "linear")])
    b = boundary(enumerate_regions(net, SQUARE))
    fc = b.faces
    origin = next(i for i in fc.faces_of_dimension(0) if fc.vertices[fc.faces[i].vertices[0]] == (0, 0))
    assert fc.tight_neurons(origin) == frozenset({0, 1})
    assert b.strata[origin] == 1
    assert _strings(boundary_volumes(b)) == ["2", "0"]


def test_bends_and_ends_are_vertices_of_the_boundary():
    # relu(relu(x) + y): the second neuron's zero set bends at the origin (y = 0 for x < 0, y = -x for x > 0),
    # and x = 0 changes the output only where the second neuron is on (y > 0): three boundary edges meet.
    net = _bent_network()
    v = _volumes(net, SQUARE)
    assert v.exact[0] == SurdSum.rational(2) + SurdSum.sqrt(2)
    assert _strings(v)[1] == "1"


def _bent_network():
    # Layer 1: relu(x) and the identity on y (a linear unit cannot be mixed in a ReLU layer, so y passes as
    # relu(y) - relu(-y)); layer 2: relu(relu(x) + y).
    return Network.from_layers(2, [([[1, 0], [0, 1], [0, -1]], [0, 0, 0], "relu"),
                                   ([[1, 1, -1]], [0], "relu")])


def test_three_planes_in_three_dimensions():
    net = Network.from_layers(3, [([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0], "relu"),
                                  ([[1, 1, 1]], [0], "linear")])
    v = _volumes(net, box([-1, -1, -1], [1, 1, 1]))
    assert _strings(v) == ["12", "6", "1"]


def test_a_plane_crossing_that_does_not_change_the_output_in_three_dimensions():
    net = Network.from_layers(3, [([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0], "relu"),
                                  ([[1, 1, 0]], [0], "linear")])
    v = _volumes(net, box([-1, -1, -1], [1, 1, 1]))
    assert _strings(v) == ["8", "2", "0"]


def test_slices_measure_in_input_space():
    # relu(z) on the slice t1 (1, 1, 0) + t2 (0, 0, 1), t in [-1, 1]^2: B_N is t2 = 0, of input length 2 sqrt(2).
    net = Network.from_layers(3, [([[0, 0, 1]], [0], "relu")])
    domain = slice_domain([0, 0, 0], [[1, 1, 0], [0, 0, 1]], [-1, -1], [1, 1])
    v = _volumes(net, domain)
    assert v.exact[0] == SurdSum.sqrt(8)
    assert v.domain_volume == SurdSum.sqrt(2) * 4
    assert str(v.density_exact) == "1/2"


def test_one_dimensional_domains_count_points():
    v = _volumes(sawtooth(3), box([0], [1]))
    assert _strings(v) == ["7"]  # 2^3 linear pieces
    net = Network.from_layers(2, [([[1, 0], [0, 1]], ["-1/2", "-1/2"], "relu")])
    v = _volumes(net, segment([0, 0], [1, 1]))
    assert _strings(v) == ["1"]  # both neurons switch at (1/2, 1/2): one point
    assert v.domain_volume == SurdSum.sqrt(2)


# --- identities on generic networks --------------------------------------------------------------------------------

def _polygon_edges(region):
    corners = counter_clockwise(list(region.polytope.vertices()))
    return [(corners[i], corners[(i + 1) % len(corners)]) for i in range(len(corners))]


def _length(p, q):
    return SurdSum.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2)


def _dead_path_network(seed):
    base = he_normal([2, 5, 3], seed=seed, bias_std=0.3)
    # Only the first unit of the second layer reaches the output: many facets leave the output map unchanged.
    return Network(2, base.layers + (Layer(((F(1), F(0), F(0)),), (F(0),), linear()),))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_boundary_length_is_half_the_perimeters_minus_the_domain(seed):
    net = he_normal([2, 6, 6], seed=seed, bias_std=0.3)
    complex_ = enumerate_regions(net, SQUARE)
    fc = face_complex(complex_)
    interior = SurdSum.total(_length(*(fc.vertices[v] for v in fc.faces[i].vertices))
                             for i in fc.faces_of_dimension(1) if fc.faces[i].interior)
    perimeters = SurdSum.total(_length(p, q) for r in complex_.regions for p, q in _polygon_edges(r))
    assert interior * 2 == perimeters + SurdSum.rational(-8)


@pytest.mark.parametrize("seed", [3, 4, 5])
def test_boundary_of_linear_regions_is_half_their_perimeters_minus_the_domain(seed):
    net = _dead_path_network(seed)
    complex_ = enumerate_regions(net, SQUARE)
    linear_of = {r: i for i, members in enumerate(complex_.linear_regions) for r in members}
    perimeters = []
    for r, region in enumerate(complex_.regions):
        for p, q in _polygon_edges(region):
            mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
            around = [s for s, other in enumerate(complex_.regions)
                      if all(a[0] * mid[0] + a[1] * mid[1] <= c for a, c in zip(other.A, other.b))]
            across = [s for s in around if s != r]
            if not across or linear_of[across[0]] != linear_of[r]:
                perimeters.append(_length(p, q))
    v = boundary_volumes(complex_)
    assert len(complex_.linear_regions) < len(complex_)  # the identity is tested where it differs
    assert v.exact[0] * 2 == SurdSum.total(perimeters) + SurdSum.rational(-8)


def test_generic_pieces_have_exactly_k_tight_neurons():
    net = he_normal([2, 8, 8], seed=7, bias_std=0.2)
    b = boundary(face_complex(enumerate_regions(net, SQUARE)))
    fc = b.faces
    for k in (1, 2):
        assert b.pieces(k)
        assert all(len(fc.faces[i].neurons) == k for i in b.pieces(k))
    # Every interior edge of the activation complex carries exactly one tight neuron.
    assert all(len(fc.faces[i].neurons) == 1 for i in fc.faces_of_dimension(1) if fc.faces[i].interior)


def test_face_complex_lists_each_face_once():
    net = he_normal([2, 6, 6], seed=11, bias_std=0.3)
    complex_ = enumerate_regions(net, SQUARE)
    fc = face_complex(complex_)
    v, e, f = fc.f_vector()
    assert f == len(complex_) and v - e + f == 1  # a disc
    keys = [(face.dim, face.vertices) for face in fc.faces]
    assert len(keys) == len(set(keys))
    for i in fc.faces_of_dimension(1):
        assert len(fc.faces[i].regions) == (2 if fc.faces[i].interior else 1)
    # A vertex's regions are exactly those whose closure holds it.
    for i in fc.faces_of_dimension(0)[:20]:
        point = fc.vertices[fc.faces[i].vertices[0]]
        holding = {r for r, region in enumerate(complex_.regions)
                   if all(a[0] * point[0] + a[1] * point[1] <= c for a, c in zip(region.A, region.b))}
        assert set(fc.faces[i].regions) == holding


def test_both_engines_give_the_same_volumes():
    net = he_normal([2, 5, 5], seed=2, bias_std=0.3)
    assert _volumes(net, SQUARE, "mesh").exact == _volumes(net, SQUARE, "lp").exact


def test_hard_tanh_and_leaky_relu():
    from polyregions.networks.activations import hardtanh, leaky_relu

    # hardtanh(2x): breakpoints at x = -1/2 and x = 1/2, two full vertical lines.
    net = Network.from_layers(2, [([[2, 0]], [0], hardtanh())])
    assert _strings(_volumes(net, SQUARE)) == ["4", "0"]
    net = Network.from_layers(2, [([[1, 1]], [0], leaky_relu(F(1, 10)))])
    assert _volumes(net, SQUARE).exact[0] == SurdSum.sqrt(8)


def test_unbounded_domains_are_rejected():
    from polyregions.regions.domains import space

    net = Network.from_layers(2, [([[1, 0]], [0], "relu")])
    with pytest.raises(InvalidInputError, match="bounded"):
        face_complex(enumerate_regions(net, space(2), engine="lp"))
