"""The certified vertex box: every vertex of the complex (every minimal face's point orthogonal to the lineality
space) lies strictly inside it, checked against exact vertex enumeration of the regions computed without it."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.exact._integers import primitive
from polyregions.exact.linalg import rank, solve
from polyregions.networks import activations as act
from polyregions.networks.initializers import pytorch_default
from polyregions.networks.network import Network
from polyregions.polyhedra.vertex_enumeration import enumerate_vertices
from polyregions.regions import domains as dom
from polyregions.regions._general.refine import refine
from polyregions.regions._vertex_bound import box_rows, lineality_basis, vertex_bound


def _domains(n):
    """All of R^n and unbounded polytopes: a half-space, the negative orthant (a cone), a slab and a wedge."""
    found = [dom.space(n), dom.polytope_domain([[1] + [0] * (n - 1)], [Fraction(1, 3)]),
             dom.polytope_domain([[-int(i == j) for j in range(n)] for i in range(n)], [0] * n)]
    if n > 1:
        found += [dom.polytope_domain([[2] + [0] * (n - 1), [-1] + [0] * (n - 1)], [1, 1]),
                  dom.polytope_domain([[1, 1] + [0] * (n - 2), [1, -1] + [0] * (n - 2)], [0, 3])]
    return found


@st.composite
def _networks(draw, input_dims=(1, 2, 3), max_width=3):
    """Small networks with degenerate integer weights (parallel, coincident and zero rows) and every kind of
    piecewise-linear activation; a first layer narrower than the input leaves a lineality space."""
    activation = st.sampled_from([act.relu(), act.hardtanh(), act.leaky_relu(Fraction(1, 4)),
                                  act.piecewise_linear([-1, 0, 2], [1, -1, 2, 0], 0)])
    entry = st.integers(-3, 3).map(lambda v: Fraction(v, 2))
    n0 = draw(st.sampled_from(input_dims))
    layers, fan_in = [], n0
    for width in draw(st.lists(st.integers(1, max_width), min_size=1, max_size=2)):
        weight = draw(st.lists(st.lists(entry, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        bias = draw(st.lists(entry, min_size=width, max_size=width))
        layers.append((weight, bias, draw(activation)))
        fan_in = width
    layers.append(([[Fraction(1)] * fan_in], [Fraction(0)], act.linear()))
    return Network.from_layers(n0, layers)


def _minimal_face_points(region, basis):
    """The point of each minimal face of the region's closure orthogonal to the lineality space (spanned by the
    integer rows ``basis``), exact; and the lineality space's lines as enumerated."""
    found = enumerate_vertices(region.A, region.b, dim=len(region.interior_point))
    if not basis:
        return found.points, found.lines
    U = [[Fraction(v) for v in u] for u in basis]
    gram = [[sum(a * b for a, b in zip(u, w)) for w in U] for u in U]
    points = []
    for p in found.points:
        y = solve(gram, [sum(a * b for a, b in zip(u, p)) for u in U])
        points.append(tuple(pi - sum(yj * u[i] for yj, u in zip(y, U)) for i, pi in enumerate(p)))
    return points, found.lines


def _rank(vectors, k):
    return rank(vectors) if vectors else 0


def _check_every_vertex_inside(net, domain):
    k = domain.dim
    rows = [primitive((*a, bi)) for a, bi in zip(domain.region.A, domain.region.b)]
    bound = vertex_bound(net, rows, k)
    basis = lineality_basis(net, rows, k)
    complex_ = refine(net, domain, method="programs")  # the complex computed without any box
    for region in complex_.regions:
        points, lines = _minimal_face_points(region, basis)
        assert points
        for point in points:
            assert all(abs(v) < bound for v in point), (point, bound)
        # Every region's lineality space is the one lineality_basis finds.
        assert _rank(lines, k) == len(basis) == _rank(list(lines) + [tuple(map(Fraction, u)) for u in basis], k)


@settings(max_examples=40, deadline=None)
@given(_networks(), st.integers(0, 4))
def test_every_vertex_of_the_complex_lies_strictly_inside_the_box(net, which):
    domains = _domains(net.input_dim)
    _check_every_vertex_inside(net, domains[which % len(domains)])


@pytest.mark.parametrize("widths", [[2, 4, 3, 1], [3, 4, 3, 1]])
def test_the_box_holds_the_vertices_of_networks_with_float_weights(widths):
    # PyTorch's initialisation: float32 weights, dyadic rationals with long denominators.
    net = pytorch_default(widths, seed=1)
    for domain in _domains(widths[0])[:3]:
        _check_every_vertex_inside(net, domain)


def test_parameters_beyond_the_double_range_give_a_correct_bound():
    huge, tiny = 10 ** 400, Fraction(1, 10 ** 400)
    net = Network.from_layers(2, [([[huge, 1], [1, tiny], [3, -2]], [0, Fraction(1, 3), huge], act.relu()),
                                  ([[1, 1, 1]], [0], act.linear())])
    _check_every_vertex_inside(net, dom.space(2))


def test_one_neuron_on_the_line():
    # relu(2 t - 3) has its one vertex at t = 3/2; the bound is isqrt(2^2 + 3^2) + 1.
    net = Network.from_layers(1, [([[2]], [-3], act.relu())])
    assert vertex_bound(net, [], 1) == 4
    assert lineality_basis(net, [], 1) == []
    assert box_rows(4, 1) == ((1, 4), (-1, 4))


def test_the_lineality_space_is_what_the_first_layer_with_breakpoints_and_the_domain_leave():
    # A linear first layer folds into the next one: relu(x + y) and relu(2 x + 2 y) keep the line x = -y.
    net = Network.from_layers(3, [([[1, 1, 0], [2, 2, 0]], [0, 1], act.linear()),
                                  ([[1, 1]], [0], act.relu()), ([[1]], [0], act.linear())])
    assert sorted(lineality_basis(net, [], 3)) == [(-1, 1, 0), (0, 0, 1)]
    assert lineality_basis(net, [(0, 0, 1, 5)], 3) == [(-1, 1, 0)]
    # Without breakpoints, only the domain's rows count.
    linear = Network.from_layers(2, [([[1, 1]], [0], act.linear())])
    assert sorted(lineality_basis(linear, [(1, 0, 1)], 2)) == [(0, 1)]
