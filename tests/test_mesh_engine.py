"""The vectorised mesh engine: known counts, a brute-force oracle, exact geometric invariants, the LP engine."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from region_oracle import brute_force_patterns, counter_clockwise

from polyregions.errors import InvalidInputError
from polyregions.networks import _float_filter as float_filter
from polyregions.networks import activations as act
from polyregions.networks.constructions import sawtooth
from polyregions.networks.initializers import he_normal
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._general.refine import refine
from polyregions.regions._mesh import refine_mesh, vertex_sides
from polyregions.regions._mesh.mesh_2d import Mesh2D
from polyregions.testing import assert_complexes_equal

# --- exact polygon helpers, independent of the engine --------------------------------------------------------


def _vertices(A, b):
    """The corners of the bounded polygon A t <= b, counter-clockwise (exact)."""
    points = set()
    for i in range(len(A)):
        for j in range(i + 1, len(A)):
            det = A[i][0] * A[j][1] - A[i][1] * A[j][0]
            if det:
                x = (b[i] * A[j][1] - A[i][1] * b[j]) / det
                y = (A[i][0] * b[j] - A[j][0] * b[i]) / det
                if all(r[0] * x + r[1] * y <= c for r, c in zip(A, b)):
                    points.add((x, y))
    return counter_clockwise(points)


def _area(A, b):
    pts = _vertices(A, b)
    return sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(pts, pts[1:] + pts[:1])) / 2


def _share_segment(first, second):
    """Whether two polygons (Regions) share a boundary segment of positive length (exact)."""
    for a, c in zip(first.A, first.b):
        for a2, c2 in zip(second.A, second.b):
            # Opposite sides of one line: (a, c) = -s (a2, c2) for some s > 0.
            if a[0] * a2[1] != a[1] * a2[0] or a[0] * c2 != a2[0] * c or a[1] * c2 != a2[1] * c:
                continue
            if not (a[0] * a2[0] < 0 or a[1] * a2[1] < 0):
                continue
            direction = (-a[1], a[0])
            on = [[p[0] * direction[0] + p[1] * direction[1] for p in _vertices(r.A, r.b)
                   if r is not None and p[0] * a[0] + p[1] * a[1] == c] for r in (first, second)]
            if len(on[0]) >= 2 and len(on[1]) >= 2 and min(max(on[0]), max(on[1])) > max(min(on[0]), min(on[1])):
                return True
    return False


def _check_complex(net, domain, result, *, oracle=True):
    """Every invariant the engine promises, decided exactly."""
    restricted = net.restrict(domain.origin, domain.directions)
    patterns = [r.pattern for r in result.regions]
    assert len(set(patterns)) == len(patterns)
    assert patterns == sorted(patterns)
    assert result.exact and result.engine == "mesh"
    for region in result.regions:
        assert region.contains_strictly(region.interior_point)
        assert restricted.pattern(region.interior_point) == region.pattern
    if domain.dim == 2:
        assert sum(_area(r.A, r.b) for r in result.regions) == domain.volume()
    else:
        assert sum(r.b[0] + r.b[1] for r in result.regions) == domain.volume()
    for i, j, neurons in result.adjacency:
        assert i < j
        first, second = result.regions[i], result.regions[j]
        assert neurons == frozenset(n for n, (u, v) in enumerate(zip(first.pattern, second.pattern)) if u != v)
        if domain.dim == 2:
            assert _share_segment(first, second)
        else:
            assert first.b[1] == -second.b[0] or second.b[1] == -first.b[0]
    graph = result.graph
    assert all(graph.has_edge(j, i) for i, j, _ in result.adjacency)
    if oracle:
        assert set(patterns) == brute_force_patterns(restricted, domain.region.A, domain.region.b)


# --- known counts ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("depth", range(1, 9))
def test_sawtooth_of_depth_n_has_two_to_the_n_regions_on_the_unit_interval(depth):
    result = refine_mesh(sawtooth(depth), dom.box([0], [1]))
    assert len(result) == 2 ** depth
    assert len(result.adjacency) == 2 ** depth - 1
    assert len(result.linear_regions) == 2 ** depth
    # The pieces are the dyadic intervals [j / 2^n, (j + 1) / 2^n].
    ends = sorted((-r.b[0], r.b[1]) for r in result.regions)
    assert ends == [(Fraction(j, 2 ** depth), Fraction(j + 1, 2 ** depth)) for j in range(2 ** depth)]


def _generic_lines(n, seed):
    """n lines with no two parallel and no three through one point, and a box holding all their crossings."""
    rng = random.Random(seed)
    while True:
        lines = [(Fraction(rng.randint(-30, 30)), Fraction(rng.randint(-30, 30)), Fraction(rng.randint(-30, 30)))
                 for _ in range(n)]
        if any(a == 0 and b == 0 for a, b, _ in lines):
            continue
        points, ok = [], True
        for (a1, b1, c1), (a2, b2, c2) in ((lines[i], lines[j]) for i in range(n) for j in range(i + 1, n)):
            det = a1 * b2 - a2 * b1
            if det == 0:
                ok = False
                break
            points.append(((c2 * b1 - c1 * b2) / det, (a2 * c1 - a1 * c2) / det))
        if ok and len(set(points)) == len(points):
            break
    # Also a point of every line, so that each line crosses the box even when there are no crossings.
    points += [(-c * a / (a * a + b * b), -c * b / (a * a + b * b)) for a, b, c in lines]
    reach = max(max(abs(x), abs(y)) for x, y in points) + 1
    return lines, reach


@pytest.mark.parametrize("n, seed", [(1, 0), (2, 1), (5, 2), (9, 3), (16, 4)])
def test_one_layer_of_generic_neurons_gives_one_plus_n_plus_n_choose_2_regions(n, seed):
    lines, reach = _generic_lines(n, seed)
    net = Network.from_layers(2, [([[a, b] for a, b, _ in lines], [c for _, _, c in lines], act.relu())])
    box = dom.box([-reach, -reach], [reach, reach])
    result = refine_mesh(net, box)
    assert len(result) == 1 + n + math.comb(n, 2)
    _check_complex(net, box, result, oracle=False)


def test_lines_through_one_point_and_duplicated_neurons():
    # Six lines through the origin, each twice: 12 sectors, every duplicate in the same piece as its twin.
    weight = [[1, 0], [0, 1], [1, 1], [1, -1], [1, 2], [2, -1]]
    net = Network.from_layers(2, [(weight + weight, [0] * 12, act.relu())])
    box = dom.box([-1, -1], [1, 1])
    result = refine_mesh(net, box)
    assert len(result) == 12
    assert all(r.pattern[:6] == r.pattern[6:] for r in result.regions)
    _check_complex(net, box, result, oracle=False)  # 2^12 candidate patterns: too many for the oracle


def test_a_neuron_identically_at_its_breakpoint_is_in_the_lower_piece_and_splits_nothing():
    net = Network.from_layers(2, [([[0, 0], [1, 0]], [0, 0], act.relu()),
                                  ([[0, 0]], [1], act.hardtanh())])
    box = dom.box([-1, -1], [1, 1])
    result = refine_mesh(net, box)
    assert [r.pattern for r in result.regions] == [(0, 0, 1), (0, 1, 1)]
    _check_complex(net, box, result)


def test_a_dead_layer_leaves_the_next_layer_constant():
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [-5, -5], act.relu()),
                                  ([[1, 1], [2, 0]], [0, 1], act.relu())])
    box = dom.box([-1, -1], [1, 1])
    result = refine_mesh(net, box)
    assert [r.pattern for r in result.regions] == [(0, 0, 0, 1)]
    _check_complex(net, box, result)


def test_progress_bar_option_changes_nothing():
    net = sawtooth(3)
    assert refine_mesh(net, dom.box([0], [1]), progress=True).regions == refine_mesh(net, dom.box([0], [1])).regions


def test_no_neurons_gives_the_whole_domain():
    net = Network.from_layers(2, [([[1, 2]], [3], act.linear())])
    box = dom.box([0, 0], [2, 1])
    result = refine_mesh(net, box)
    assert len(result) == 1 and result.regions[0].pattern == () and not result.adjacency
    _check_complex(net, box, result)


def test_polygon_segment_and_slice_domains():
    net = Network.from_layers(3, [([[1, -1, 0], [0, 1, -1], [1, 1, 1], [2, 0, -1]], [0, Fraction(1, 3), -1, 0],
                                   act.leaky_relu(Fraction(1, 10))),
                                  ([[1, 1, -1, 0], [0, 2, 1, 1]], [0, -1], act.hardtanh()),
                                  ([[1, 1]], [0], act.linear())])
    domains = [dom.slice_domain([0, 0, 1], [[1, 0, 0], [0, 1, 1]], [-2, -1], [2, 3]),
               dom.segment([-2, -1, 0], [3, 2, 1]),
               dom.slice_domain([1, 1, 1], [[1, 2, 3]], [-1], [1])]
    for domain in domains:
        _check_complex(net, domain, refine_mesh(net, domain))
    planar = Network.from_layers(2, [([row[:2] for row in net.layers[0].weight], net.layers[0].bias, act.relu()),
                                     net.layers[1]])
    triangle = dom.polytope_domain([[-1, 0], [0, -1], [1, 1]], [1, 1, 2])
    _check_complex(planar, triangle, refine_mesh(planar, triangle))


def test_linear_layer_between_piecewise_layers():
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], act.relu()),
                                  ([[1, -1], [1, 1]], [Fraction(1, 2), 0], act.linear()),
                                  ([[1, 0], [0, 1], [1, 1]], [0, -1, 0], act.hardtanh())])
    box = dom.box([-2, -2], [2, 2])
    _check_complex(net, box, refine_mesh(net, box))


# --- the brute-force oracle and the invariants on random degenerate networks -----------------------------------

_ACTIVATIONS = [act.relu(), act.hardtanh(), act.leaky_relu(Fraction(1, 4)),
                act.piecewise_linear([-1, 0, 2], [1, -1, 2, 0], 0), act.linear()]


@st.composite
def _tiny_networks(draw, input_dim):
    entry = st.integers(-2, 2).map(Fraction)
    widths = draw(st.lists(st.integers(1, 3), min_size=1, max_size=3))
    layers, fan_in, pieces = [], input_dim, 1
    for width in widths:
        weight = draw(st.lists(st.lists(entry, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        bias = draw(st.lists(entry, min_size=width, max_size=width))
        if width > 1 and draw(st.booleans()):  # a duplicated neuron
            weight[1], bias[1] = list(weight[0]), bias[0]
        activation = draw(st.sampled_from(_ACTIVATIONS))
        pieces *= activation.num_pieces ** width
        layers.append((weight, bias, activation))
        fan_in = width
    if pieces > 300:  # keep the oracle's enumeration of candidate patterns small
        layers = layers[:1]
    layers.append(([[Fraction(1)] * len(layers[-1][0])], [Fraction(0)], act.linear()))
    return Network.from_layers(input_dim, layers)


@settings(max_examples=40, deadline=None)
@given(_tiny_networks(2))
def test_planar_regions_agree_with_the_brute_force_oracle_and_tile_the_square_exactly(net):
    box = dom.box([-3, -3], [3, 3])
    _check_complex(net, box, refine_mesh(net, box))


@settings(max_examples=40, deadline=None)
@given(_tiny_networks(1))
def test_regions_on_a_segment_agree_with_the_brute_force_oracle(net):
    box = dom.box([-3], [Fraction(7, 2)])
    _check_complex(net, box, refine_mesh(net, box))


@settings(max_examples=15, deadline=None)
@given(_tiny_networks(2))
def test_mesh_and_lp_engines_return_the_same_complex(net):
    box = dom.box([-3, -3], [3, 3])
    mesh, lp = refine_mesh(net, box), refine(net, box)
    assert [r.pattern for r in mesh.regions] == [r.pattern for r in lp.regions]
    assert mesh.adjacency == lp.adjacency
    assert_complexes_equal(mesh, lp)


def test_he_normal_network_matches_the_lp_engine():
    net = he_normal([2, 5, 5, 5], seed=1, output_dim=1)
    box = dom.box([-1, -1], [1, 1])
    mesh, lp = refine_mesh(net, box), refine(net, box)
    assert [r.pattern for r in mesh.regions] == [r.pattern for r in lp.regions]
    assert mesh.adjacency == lp.adjacency
    assert_complexes_equal(mesh, lp)
    _check_complex(net, box, mesh, oracle=False)


# --- the exact paths behind the filters ------------------------------------------------------------------------


@pytest.mark.parametrize("dim", [1, 2])
def test_deciding_every_sign_exactly_gives_the_same_complex(monkeypatch, dim):
    net = he_normal([dim, 6, 6, 6], seed=3, activation=act.hardtanh(), bias_std=0.3)
    box = dom.box([-1] * dim, [1] * dim)
    filtered = refine_mesh(net, box)
    monkeypatch.setattr(vertex_sides, "certified_signs",
                        lambda values, errors, xi, xi_error: np.full(values.shape, float_filter.UNCERTAIN, np.int8))
    exact = refine_mesh(net, box)
    assert [r.pattern for r in exact.regions] == [r.pattern for r in filtered.regions]
    assert exact.adjacency == filtered.adjacency
    assert_complexes_equal(exact, filtered)
    _check_complex(net, box, exact, oracle=False)


def test_interior_points_fall_back_to_exact_corners_when_the_float_guess_is_wrong(monkeypatch):
    original = Mesh2D._initial_mesh

    def misplaced(self):
        original(self)
        self.xy[:] = 1e6  # every candidate interior point lands outside its face

    monkeypatch.setattr(Mesh2D, "_initial_mesh", misplaced)
    net = he_normal([2, 8, 8], seed=2)
    box = dom.box([-1, -1], [1, 1])
    _check_complex(net, box, refine_mesh(net, box), oracle=False)


def test_parameters_and_domains_outside_the_double_range_are_decided_exactly():
    tiny = Fraction(1, 10 ** 400)  # rounds to 0.0 as a double
    huge = 10 ** 400  # beyond the largest double
    layers = [([[1, tiny], [tiny, -1], [1, 1]], [tiny, 0, -tiny], act.relu()),
              ([[1, -1, 1], [tiny, 1, 0]], [0, -tiny], act.leaky_relu(Fraction(1, 3)))]
    net = Network.from_layers(2, layers)
    for box in (dom.box([-1, -1], [1, 1]), dom.box([-tiny, -tiny], [tiny, 2 * tiny])):
        _check_complex(net, box, refine_mesh(net, box))
    # The oracle's LPs convert coefficients to doubles, so with huge ones only the exact invariants are checked.
    net = Network.from_layers(2, layers + [([[huge, 1], [1, -huge]], [-huge, 0], act.hardtanh())])
    for box in (dom.box([-1, -1], [1, 1]), dom.box([-huge, -huge], [huge, huge])):
        _check_complex(net, box, refine_mesh(net, box), oracle=False)


def test_many_primes_for_large_rational_parameters():
    third = Fraction(1, 3)
    net = Network.from_layers(2, [([[third, Fraction(2, 7)], [Fraction(-5, 11), third], [1, Fraction(1, 13)]],
                                   [Fraction(1, 17), 0, Fraction(-1, 19)], act.relu()),
                                  ([[Fraction(3, 23), -1, Fraction(2, 29)], [1, 1, Fraction(-1, 31)]],
                                   [Fraction(1, 37), Fraction(-1, 41)], act.leaky_relu(Fraction(1, 43)))])
    box = dom.box([-1, -1], [1, 1])
    _check_complex(net, box, refine_mesh(net, box))


# --- the float filter's bounds hold --------------------------------------------------------------------------------


def test_forward_bounds_and_interpolation_bounds_contain_the_exact_values():
    rng = random.Random(5)
    weight = [[Fraction(rng.randint(-10 ** 6, 10 ** 6), rng.randint(1, 999)) for _ in range(7)] for _ in range(5)]
    bias = [Fraction(rng.randint(-100, 100), 7) for _ in range(5)]
    layer = float_filter.float_layer(Layer(weight, bias, act.hardtanh()))
    points = [[Fraction(rng.randint(-10 ** 9, 10 ** 9), 3 ** 20) for _ in range(7)] for _ in range(2)]
    z, e = float_filter.forward_layer(layer, *float_filter.doubles(points))
    exact = [[sum(w * x for w, x in zip(row, p)) + bi for row, bi in zip(weight, bias)] for p in points]
    for i in range(2):
        for j in range(5):
            assert abs(Fraction(z[i, j]) - exact[i][j]) <= Fraction(e[i, j])
    # Interpolate where unit 0 crosses the level halfway between its two values.
    xi = (exact[0][0] + exact[1][0]) / 2
    zi, ei, _ = float_filter.interpolate(z[:1], e[:1], z[1:], e[1:], 0, float(xi), float_filter._double(xi)[1])
    lam = (xi - exact[0][0]) / (exact[1][0] - exact[0][0])
    for j in range(5):
        value = exact[0][j] + lam * (exact[1][j] - exact[0][j])
        assert abs(Fraction(zi[0, j]) - value) <= Fraction(ei[0, j])
    # The activation's bounds.
    ha, ea = float_filter.activate(layer, z, e)
    for i in range(2):
        for j in range(5):
            assert abs(Fraction(ha[i, j]) - act.hardtanh()(exact[i][j])) <= Fraction(ea[i, j])


def test_certified_signs_prove_only_what_the_bound_allows():
    values = np.array([1.0, -1.0, 1e-17, 0.0, 0.0, np.nan, np.inf])
    errors = np.array([0.5, 0.5, 1e-16, 0.0, 1e-300, 0.0, 1.0])
    assert float_filter.certified_signs(values, errors, 0.0, 0.0).tolist() == [1, -1, 2, 0, 2, 2, 2]


_FLOATS = st.one_of(st.floats(allow_nan=True, allow_infinity=True, width=64),
                    st.sampled_from([0.0, -0.0, 1e-300, 5e-324, 1.0, 1.0 + 2 ** -52]))
_BOUNDS = st.one_of(st.floats(0, 1e300), st.sampled_from([0.0, 5e-324, 2 ** -52, math.inf]))


@given(st.data(), st.integers(1, 4), st.integers(1, 5), st.sampled_from([0.0, 0.5, -3.0, 1e-300]),
       st.sampled_from([0.0, 2 ** -53, 1e-10]))
def test_a_proven_sign_holds_for_every_value_and_breakpoint_within_their_bounds(data, rows, columns, xi, xi_error):
    values = data.draw(hnp.arrays(np.float64, (rows, 2 * columns), elements=_FLOATS))[:, ::2]  # a strided view
    errors = data.draw(hnp.arrays(np.float64, (rows, columns), elements=_BOUNDS))
    signs = float_filter.certified_signs(values, errors, xi, xi_error)
    for v, e, sign in zip(values.ravel().tolist(), errors.ravel().tolist(), signs.ravel().tolist()):
        if sign == float_filter.UNCERTAIN:
            continue
        assert math.isfinite(v) and math.isfinite(e)
        low, high = Fraction(v) - Fraction(e), Fraction(v) + Fraction(e)
        xi_low, xi_high = Fraction(xi) - Fraction(xi_error), Fraction(xi) + Fraction(xi_error)
        if sign == 1:
            assert low > xi_high
        elif sign == -1:
            assert high < xi_low
        else:
            assert sign == 0 and low == high == xi_low == xi_high


# --- bad input ---------------------------------------------------------------------------------------------------


def test_bad_domains_are_rejected_with_what_was_expected():
    net = Network.from_layers(3, [([[1, 0, 0]], [0], act.relu())])
    with pytest.raises(InvalidInputError, match="bounded domain"):
        refine_mesh(Network.from_layers(2, [([[1, 0]], [0], act.relu())]), dom.space(2))
    with pytest.raises(InvalidInputError, match="R\\^3"):
        refine_mesh(net, dom.box([0, 0], [1, 1]))
