import itertools
import math
from fractions import Fraction
from unittest import mock

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from region_oracle import brute_force_patterns

from polyregions.exact.linalg import dot
from polyregions.exact.lp import strict_point
from polyregions.networks import activations as act
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._general import adjacency, cells, cuts
from polyregions.regions._general import refine as refine_module
from polyregions.regions._general.refine import refine
from polyregions.testing import assert_complexes_equal, primitive_rows


def _generic_first_layer(n_inputs, n_neurons, seed):
    import random
    rng = random.Random(seed)
    weight = [[Fraction(rng.randint(-50, 50), rng.randint(1, 7)) or Fraction(1) for _ in range(n_inputs)]
              for _ in range(n_neurons)]
    bias = [Fraction(rng.randint(-50, 50), rng.randint(1, 11)) for _ in range(n_neurons)]
    return weight, bias


@pytest.mark.parametrize("n_inputs, n_neurons", [(1, 4), (2, 5), (3, 5), (4, 7)])
def test_one_generic_layer_over_all_of_space_gives_the_zaslavsky_count(n_inputs, n_neurons):
    weight, bias = _generic_first_layer(n_inputs, n_neurons, seed=n_inputs * 10 + n_neurons)
    net = Network.from_layers(n_inputs, [(weight, bias, act.relu())])
    with mock.patch.object(refine_module, "_boxed", wraps=refine_module._boxed) as boxed:
        result = refine(net, dom.space(n_inputs))
    assert boxed.call_count == 1  # cut through vertices within the certified box
    assert len(result) == sum(math.comb(n_neurons, i) for i in range(n_inputs + 1))
    # A generic arrangement of N hyperplanes in R^n has C(N - 1, n) bounded regions; the others are unbounded.
    assert sum(r.polytope.is_bounded() for r in result.regions) == math.comb(n_neurons - 1, n_inputs)
    assert_complexes_equal(result, refine(net, dom.space(n_inputs), method="programs"))


def _tiny_networks(input_dims=(1, 2), max_width=3):
    activation = st.sampled_from([act.relu(), act.hardtanh(), act.leaky_relu(Fraction(1, 4)),
                                  act.piecewise_linear([-1, 0, 2], [1, -1, 2, 0], 0)])
    entry = st.integers(-2, 2).map(Fraction)

    @st.composite
    def build(draw):
        n0 = draw(st.sampled_from(input_dims))
        widths = draw(st.lists(st.integers(1, max_width), min_size=1, max_size=2))
        layers, fan_in = [], n0
        for width in widths:
            weight = draw(st.lists(st.lists(entry, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
            bias = draw(st.lists(entry, min_size=width, max_size=width))
            layers.append((weight, bias, draw(activation)))
            fan_in = width
        layers.append(([[Fraction(1)] * fan_in], [Fraction(0)], act.linear()))
        return Network.from_layers(n0, layers)
    return build()


def _unbounded_domains(n):
    """All of R^n and unbounded polytopes: a half-space, the negative orthant (a cone), a slab and a wedge."""
    found = [dom.space(n), dom.polytope_domain([[1] + [0] * (n - 1)], [Fraction(1, 3)]),
             dom.polytope_domain([[-int(i == j) for j in range(n)] for i in range(n)], [0] * n)]
    if n > 1:
        found += [dom.polytope_domain([[2] + [0] * (n - 1), [-1] + [0] * (n - 1)], [1, 1]),
                  dom.polytope_domain([[1, 1] + [0] * (n - 2), [1, -1] + [0] * (n - 2)], [0, 3])]
    return found


def _check_the_box_against_programs(net, domain):
    by_box = refine(net, domain)
    by_programs = refine(net, domain, method="programs")
    assert_complexes_equal(by_box, by_programs)
    assert [r.pattern for r in by_box.regions] == [r.pattern for r in by_programs.regions]
    assert by_box.adjacency == by_programs.adjacency
    assert [r.polytope.is_bounded() for r in by_box.regions] == [r.polytope.is_bounded() for r in by_programs.regions]
    for region in by_box.regions:
        assert region.contains_strictly(region.interior_point)
        assert net.pattern(domain.to_input(region.interior_point)) == region.pattern


# Layers of width 3 in three and four dimensions have up to hundreds of regions on an unbounded domain (one such
# network took 30 s to compare); width 2 there, 3 in one and two dimensions.
@settings(max_examples=30, deadline=None)
@given(st.one_of(_tiny_networks(input_dims=(1, 2)), _tiny_networks(input_dims=(3, 4), max_width=2)), st.integers(0, 4))
def test_unbounded_domains_cut_within_the_certified_box_give_the_programs_complex(net, which):
    domains = _unbounded_domains(net.input_dim)
    _check_the_box_against_programs(net, domains[which % len(domains)])


# Small networks, with seeds where every domain has bounded regions beside unbounded ones (but for all of space,
# the half-space and the wedge in four dimensions, too few neurons there): 8 to 62 regions per domain.
@pytest.mark.parametrize("widths, seed", [([2, 4, 4, 1], 3), ([3, 3, 3, 1], 4), ([4, 3, 2, 1], 0)])
def test_unbounded_domains_of_networks_with_float_weights(widths, seed):
    from polyregions.networks.initializers import pytorch_default

    net = pytorch_default(widths, seed=seed)
    for domain in _unbounded_domains(widths[0]):
        _check_the_box_against_programs(net, domain)


def test_a_network_without_neurons_on_all_of_space_is_one_unbounded_region():
    net = Network.from_layers(2, [([[1, 2]], [3], act.linear())])
    result = refine(net, dom.space(2))
    assert len(result) == 1 and result.regions[0].A == () and not result.regions[0].polytope.is_bounded()


def test_refine_rejects_an_unknown_method():
    from polyregions.errors import InvalidInputError

    net = Network.from_layers(1, [([[1]], [0], act.relu())])
    with pytest.raises(InvalidInputError, match="method: expected one of auto, vertices, programs, got 'lp'"):
        refine(net, dom.space(1), method="lp")


def test_vertex_cuts_in_seven_dimensions_on_request():
    from polyregions.networks.initializers import he_normal

    net = he_normal([7, 3, 3, 1], seed=0)  # 45 regions; the two methods describe one by different rows
    box = dom.box([-1] * 7, [1] * 7)
    assert_complexes_equal(refine(net, box, method="vertices"), refine(net, box))


@settings(max_examples=25, deadline=None)
@given(_tiny_networks())
def test_refinement_agrees_with_the_brute_force_oracle_on_degenerate_networks(net):
    _check_against_the_oracle(net)


@settings(max_examples=20, deadline=None)
@given(_tiny_networks(input_dims=(3,), max_width=2))
def test_refinement_in_three_dimensions_agrees_with_the_brute_force_oracle(net):
    _check_against_the_oracle(net)


@settings(max_examples=20, deadline=None)
@given(_tiny_networks(input_dims=(2, 3, 4)))
def test_vertex_cuts_and_certified_programs_give_the_same_complex(net):
    box = dom.box([-3] * net.input_dim, [3] * net.input_dim)
    by_vertices = refine(net, box)
    with mock.patch.object(refine_module, "VERTEX_DIMENSION", 0):
        by_programs = refine(net, box)
    assert [r.pattern for r in by_vertices.regions] == [r.pattern for r in by_programs.regions]
    assert by_vertices.adjacency == by_programs.adjacency
    assert_complexes_equal(by_vertices, by_programs)


def test_parameters_beyond_the_double_range_are_decided_exactly_by_vertices_and_by_programs():
    # Regression: float conversions of such parameters raised OverflowError in both paths.
    huge, tiny = 10 ** 400, Fraction(1, 10 ** 400)
    net = Network.from_layers(3, [([[huge, -3 * huge, 1], [1, tiny, 2], [5, 7, -11]], [0, Fraction(1, 3), huge],
                                   act.relu()),
                                  ([[1, -1, 10 ** 300], [2, 3, 4]], [1, -1], act.hardtanh()),
                                  ([[1, 1]], [0], act.linear())])
    box = dom.box([-3] * 3, [3] * 3)
    by_vertices = refine(net, box)
    with mock.patch.object(refine_module, "VERTEX_DIMENSION", 0):
        by_programs = refine(net, box)
    assert [r.pattern for r in by_vertices.regions] == [r.pattern for r in by_programs.regions]
    assert by_vertices.adjacency == by_programs.adjacency
    assert_complexes_equal(by_vertices, by_programs)
    _check_against_the_oracle(net)


def _check_against_the_oracle(net):
    box = dom.box([-3] * net.input_dim, [3] * net.input_dim)
    result = refine(net, box)
    patterns = [r.pattern for r in result.regions]
    assert len(set(patterns)) == len(patterns)
    assert set(patterns) == brute_force_patterns(net, box.region.A, box.region.b)
    for region in result.regions:
        assert region.contains_strictly(region.interior_point)
        assert net.pattern(region.interior_point) == region.pattern
        M, c = region.output_map
        assert tuple(dot(row, region.interior_point) + ci for row, ci in zip(M, c)) == net(region.interior_point)
    graph = result.graph
    for i, j, neurons in result.adjacency:
        assert i < j and neurons and graph.has_edge(j, i)
    # Brute force: two regions share a facet exactly when their closures meet in dimension k - 1.
    rows = [primitive_rows(region) for region in result.regions]  # once, not per pair
    shared = {(i, j) for i, j in itertools.combinations(range(len(result)), 2)
              if _meet_in_a_facet(rows[i], rows[j], net.input_dim)}
    assert {(i, j) for i, j, _ in result.adjacency} == shared
    assert len(result.linear_regions) <= len(result)


def _meet_in_a_facet(first, second, k) -> bool:
    """Whether the closures of two full-dimensional regions of R^k with disjoint interiors meet in dimension k - 1,
    each region given by its :func:`primitive_rows` (its inequalities, as integer rows up to positive scales).

    Such a meeting lies in a hyperplane bounding a facet of each: a row ``r`` of the first whose negation is a row
    of the second. On it the meeting is ``(k - 1)``-dimensional exactly when some point of the hyperplane is strict
    in every row not defining it (those define the meeting's only implicit equalities).
    """
    both = first | second
    for row in first:
        opposite = tuple(-v for v in row)
        if opposite not in second:
            continue
        strict = [other for other in both if other not in (row, opposite)]
        if strict_point([other[:-1] for other in strict], [other[-1] for other in strict], E=[row[:-1]], e=[row[-1]],
                        dim=k) is not None:
            return True
    return False


def test_two_crossing_neurons_in_a_square():
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], act.relu()), ([[1, 1]], [0], act.linear())])
    result = refine(net, dom.box([-1, -1], [1, 1]))
    assert len(result) == 4
    # Four quadrants: each shares a facet with two others, not with the opposite one.
    assert len(result.adjacency) == 4
    assert len(result.linear_regions) == 4


def test_linear_regions_merge_across_facets_where_the_map_does_not_change():
    # relu(x) - relu(x) == 0: two activation regions, one linear region.
    net = Network.from_layers(1, [([[1], [1]], [0, 0], act.relu()), ([[1, -1]], [0], act.linear())])
    result = refine(net, dom.box([-1], [1]))
    assert len(result) == 2
    assert len(result.linear_regions) == 1


def test_permuting_neurons_and_positive_scaling_change_nothing():
    weight, bias = _generic_first_layer(2, 4, seed=3)
    out = [[Fraction(1), Fraction(-2), Fraction(3), Fraction(1, 2)]]
    net = Network.from_layers(2, [(weight, bias, act.relu()), (out, [0], act.linear())])
    order = [2, 0, 3, 1]
    scaled = Network.from_layers(2, [([[3 * v for v in weight[i]] for i in order], [3 * bias[i] for i in order],
                                      act.relu()), ([[out[0][i] / 3 for i in order]], [0], act.linear())])
    box = dom.box([-5, -5], [5, 5])
    first, second = refine(net, box), refine(scaled, box)
    assert len(first) == len(second)
    assert len(first.linear_regions) == len(second.linear_regions)
    assert sorted(tuple(p[i] for i in order) for p in (r.pattern for r in first.regions)) == \
        sorted(r.pattern for r in second.regions)


def test_adjacency_proves_a_facet_only_by_a_neighbour_across_the_same_hyperplane():
    # Regression: a wrong guess of the pattern across a facet that happened to be a neighbour already proved
    # across *another* facet was taken as proof, and the true neighbour across this facet was never tried.
    from polyregions.networks.initializers import he_normal

    net = he_normal([2, 6, 5, 1], seed=4)
    domain = dom.box([-2, -2], [2, 2])
    expected = refine(net, domain)
    neighbours: dict = {}
    for i, j, _ in expected.adjacency:
        first, second = expected.regions[i].pattern, expected.regions[j].pattern
        neighbours.setdefault(first, []).append(second)
        neighbours.setdefault(second, []).append(first)
    honest = adjacency.guesses

    def misleading(float_guess, floats, net, cell, i, region):
        yield from neighbours.get(region.pattern, [])  # every neighbour first, right or wrong for this facet
        yield from honest(float_guess, floats, net, cell, i, region)
    with mock.patch.object(adjacency, "guesses", misleading):
        misled = refine(net, domain)
    assert misled.adjacency == expected.adjacency
    # Worker processes prove what they can among their own cells: the facets they leave open, misled here,
    # are decided in this process on all the regions.
    with mock.patch.object(adjacency, "guesses", misleading):
        misled = refine(net, domain, workers=2)
    assert misled.adjacency == expected.adjacency


def test_worker_processes_give_the_same_complex():
    from polyregions.errors import InvalidInputError
    from polyregions.networks.initializers import he_normal

    net = he_normal([3, 5, 5, 4], seed=2)
    box = dom.box([-1] * 3, [1] * 3)
    serial, parallel = refine(net, box), refine(net, box, workers=2)
    assert [r.pattern for r in serial.regions] == [r.pattern for r in parallel.regions]
    assert serial.regions == parallel.regions and serial.adjacency == parallel.adjacency
    assert_complexes_equal(serial, parallel)
    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidInputError, match="workers: expected a positive integer"):
            refine(net, box, workers=bad)
    # Cut within the certified box: the first layer here, the rest in the workers.
    serial, parallel = refine(net, dom.space(3)), refine(net, dom.space(3), workers=2)
    assert serial.regions == parallel.regions and serial.adjacency == parallel.adjacency


def test_neighbours_across_a_layers_cuts_are_found_with_repeated_hyperplanes():
    # The last layer's neurons 1-3 share one hyperplane (z, -z and 2z), so its parts differ in several neurons
    # across one facet; the neighbours read off the cuts must still be exactly the closures meeting in a facet.
    first = ([[1, 2, 0], [0, 1, -1], [1, 0, 1]], [0, Fraction(1, 2), -1])
    last = ([[1, -1, 0], [-1, 1, 0], [2, -2, 0], [0, 1, 1]], [Fraction(1, 3), Fraction(-1, 3), Fraction(2, 3), 0])
    net = Network.from_layers(3, [(*first, act.relu()), (*last, act.relu())])
    _check_against_the_oracle(net)


def test_a_region_whose_rounded_centroid_is_not_inside_gets_a_certified_point():
    # A sliver 0 < y < x / 10^30, 0 < x < 1: a centroid rounded to doubles may land on or outside it.
    rows = ((0, -1, 0), (-1, 10 ** 30, 0), (1, 0, 1))
    for centroid in [(1, 0, 3), None]:
        A, b, point = cells.geometry(rows, None, centroid, "highs")
        assert all(sum(a * x for a, x in zip(row, point)) < bi for row, bi in zip(A, b))


@st.composite
def _networks_with_copied_units(draw):
    """Networks whose later units often repeat an earlier unit's hyperplane (a copy of its output, whose
    hyperplane on the cells where that unit is active is the unit's own) or sit at a breakpoint on whole cells
    (a copy where that unit is off): the cases where the pattern across an inherited facet changes in more
    than the neuron that cut it."""
    activation = st.sampled_from([act.relu(), act.hardtanh(), act.leaky_relu(Fraction(1, 4))])
    entry = st.integers(-2, 2).map(Fraction)
    n0 = draw(st.sampled_from([2, 3]))
    layers, fan_in = [], n0
    # A third layer in two dimensions only: in three, one costs 1.6 s on average against 0.2 s for two layers, which
    # copy there as often.
    for _ in range(draw(st.integers(2, 3 if n0 == 2 else 2))):
        width = draw(st.integers(1, 3))
        weight, bias = [], []
        for _ in range(width):
            if fan_in and draw(st.booleans()):
                copied = draw(st.integers(0, fan_in - 1))
                weight.append([Fraction(int(i == copied)) for i in range(fan_in)])
                bias.append(draw(st.sampled_from([Fraction(0), Fraction(-1), Fraction(1)])))
            else:
                weight.append(draw(st.lists(entry, min_size=fan_in, max_size=fan_in)))
                bias.append(draw(entry))
        layers.append((weight, bias, draw(activation)))
        fan_in = width
    layers.append(([[Fraction(1)] * fan_in], [Fraction(0)], act.linear()))
    return Network.from_layers(n0, layers)


@settings(max_examples=40, deadline=None)
@given(_networks_with_copied_units())
def test_neighbours_read_off_the_cuts_agree_with_the_brute_force_oracle_when_later_units_copy_earlier_ones(net):
    _check_against_the_oracle(net)


@pytest.mark.parametrize("widths", [[2, 5, 5, 5, 1], [3, 4, 4, 4, 1]])
def test_neighbours_read_off_the_cuts_are_those_proved_at_facet_points(widths):
    from polyregions.networks.initializers import he_normal

    net = he_normal(widths, seed=5)
    box = dom.box([-1] * widths[0], [1] * widths[0])
    by_cuts = refine(net, box)
    assert any(any(cell_flip is not None for cell_flip in flips) for flips in _final_flips(net, box))
    assert by_cuts.adjacency == refine(net, box, method="programs").adjacency


def _final_flips(net, box):
    """The flips of the final cells of a refinement by vertices (some must be known for the test to test them)."""
    start, certified = refine_module.domain_cell(net, box, "highs")
    return [cell.flips for cell in cuts.finished([start], net.layers, "highs", box=certified)]


@given(st.lists(st.integers(-10 ** 30, 10 ** 30), min_size=1, max_size=6).filter(any),
       st.fractions(max_denominator=10 ** 12))
def test_a_units_row_scaled_from_integers_is_the_primitive_row(normal, offset):
    from flint import fmpq

    from polyregions.exact._integers import primitive

    scaled = cuts._scaled_row(normal, fmpq(offset.numerator, offset.denominator))
    assert scaled == primitive((*normal, offset))
