"""Architecture bounds on region counts: closed forms, hand-derived values and orderings between bounds."""

from itertools import product
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.measures.bounds import (
    BoundRow,
    arrangement_bound,
    compare_with_bounds,
    one_layer_bound,
    raghu_bound,
    raghu_hardtanh_bound,
    raghu_relu_bound,
    serra_bound,
    serra_index_set,
    trivial_bound,
)

dims = st.integers(1, 5)
widths_lists = st.lists(st.integers(1, 6), min_size=1, max_size=4)


def brute_force_serra(n0, widths):
    """Serra et al.'s sum by enumerating every vector j in prod [0, n_l] and testing the constraints."""
    total = 0
    for js in product(*(range(w + 1) for w in widths)):
        caps = [n0]
        ok = True
        for j, w in zip(js, widths):
            if j > min(min(caps), w):
                ok = False
                break
            caps.append(w - j)
        if ok:
            prod_ = 1
            for j, w in zip(js, widths):
                prod_ *= comb(w, j)
            total += prod_
    return total


@pytest.mark.parametrize("k", range(0, 9))
def test_one_layer_on_a_line_gives_k_plus_one(k):
    # k distinct points cut a line into k + 1 intervals.
    if k:
        assert one_layer_bound(1, k) == k + 1
        assert serra_bound(1, [k]) == k + 1
        assert raghu_relu_bound(1, [k]) == k + 1
    assert arrangement_bound(k, 1) == k + 1


@pytest.mark.parametrize("k", range(1, 9))
def test_lines_in_the_plane(k):
    # k lines in general position: 1 + k + k(k-1)/2 regions.
    assert one_layer_bound(2, k) == 1 + k + k * (k - 1) // 2
    assert arrangement_bound(k, 2) == 1 + k + k * (k - 1) // 2


@pytest.mark.parametrize("k", range(1, 7))
def test_enough_dimensions_realise_every_pattern(k):
    # k hyperplanes in general position in R^d with d >= k cut it into all 2^k orthants.
    assert one_layer_bound(k, k) == 2 ** k == trivial_bound([k])
    assert serra_bound(k + 2, [k]) == 2 ** k


def test_hand_derived_values():
    assert trivial_bound([3, 2]) == 32
    assert trivial_bound([2, 1], breakpoints=2) == 27
    assert raghu_relu_bound(2, [2, 2]) == 16
    # One hard-tanh neuron: two points on a line, three intervals.
    assert raghu_hardtanh_bound(1, [1]) == 3
    assert raghu_hardtanh_bound(2, [1]) == 4          # C(2,0) + C(2,1) + C(2,2)
    # One ReLU per layer on a line: J = {(0,0), (0,1), (1,0)}.
    assert list(serra_index_set(1, [1, 1])) == [(0, 0), (0, 1), (1, 0)]
    assert serra_bound(1, [1, 1]) == 3 < raghu_relu_bound(1, [1, 1]) == 4
    # n0 = 2, widths (2, 2): j1 = 0 -> 4, j1 = 1 -> 2 * 3, j1 = 2 -> 1.
    assert serra_bound(2, [2, 2]) == 11


@given(dims, widths_lists)
def test_serra_recursion_matches_brute_force_enumeration(n0, widths):
    assert serra_bound(n0, widths) == brute_force_serra(n0, widths)
    index_set = list(serra_index_set(n0, widths))
    assert len(index_set) == len(set(index_set))
    assert sum(_prod_comb(widths, j) for j in index_set) == serra_bound(n0, widths)


def _prod_comb(widths, js):
    value = 1
    for w, j in zip(widths, js):
        value *= comb(w, j)
    return value


@given(dims, widths_lists)
def test_serra_below_raghu_below_trivial(n0, widths):
    assert serra_bound(n0, widths) <= raghu_relu_bound(n0, widths) <= trivial_bound(widths)


@given(dims, st.integers(1, 8))
def test_serra_equals_zaslavsky_for_one_layer(n0, width):
    assert serra_bound(n0, [width]) == one_layer_bound(n0, width) == sum(comb(width, i) for i in range(n0 + 1))


@given(dims, widths_lists, st.integers(1, 4))
def test_bounds_grow_with_the_input_dimension_and_breakpoints(n0, widths, t):
    assert raghu_bound(n0, widths, breakpoints=t) <= raghu_bound(n0 + 1, widths, breakpoints=t)
    assert raghu_bound(n0, widths, breakpoints=t) <= raghu_bound(n0, widths, breakpoints=t + 1)
    assert serra_bound(n0, widths) <= serra_bound(n0 + 1, widths)
    assert raghu_bound(n0, widths, breakpoints=2) == raghu_hardtanh_bound(n0, widths)


def test_compare_relu_checks_every_relu_bound():
    rows = compare_with_bounds(11, input_dim=2, widths=[2, 2], activation="relu")
    by_name = {row.name: row for row in rows}
    assert all(isinstance(row, BoundRow) for row in rows)
    assert by_name["trivial"] == ("trivial", 16, True, by_name["trivial"].hypotheses)
    assert by_name["serra2018"].bound == 11 and by_name["serra2018"].holds
    assert by_name["raghu2017_relu"].bound == 16
    assert not by_name["one_layer"].applicable and by_name["one_layer"].holds is None
    assert not by_name["raghu2017_hardtanh"].applicable
    # One more region than Serra's bound is reported as a violation.
    rows = compare_with_bounds(12, input_dim=2, widths=[2, 2], activation="relu")
    assert {r.name: r.holds for r in rows}["serra2018"] is False


def test_compare_leaky_relu_does_not_claim_serra():
    by_name = {r.name: r for r in compare_with_bounds(3, input_dim=1, widths=[1, 1], activation="leaky_relu")}
    assert by_name["serra2018"].bound is None and "not applicable" in by_name["serra2018"].hypotheses
    assert by_name["raghu2017_relu"].bound is None
    assert by_name["raghu2017_breakpoints"].bound == 4 and by_name["raghu2017_breakpoints"].holds


def test_compare_hardtanh_uses_two_hyperplanes_per_neuron():
    by_name = {r.name: r for r in compare_with_bounds(3, input_dim=1, widths=[1], activation="hardtanh")}
    assert by_name["raghu2017_hardtanh"].bound == 3 == by_name["raghu2017_breakpoints"].bound
    assert by_name["one_layer"].bound == 3
    assert by_name["trivial"].bound == 3
    assert by_name["serra2018"].bound is None


def test_compare_general_piecewise_linear():
    rows = compare_with_bounds(4, input_dim=1, widths=[1], activation=3)
    by_name = {r.name: r for r in rows}
    assert by_name["trivial"].bound == 4 and by_name["one_layer"].bound == 4
    assert by_name["serra2018"].bound is None
    assert rows == compare_with_bounds(4, input_dim=1, widths=[1], activation="piecewise_linear", breakpoints=3)


def test_compare_activation_objects():
    class Act:  # duck-typed like polyregions.networks.activations.Activation
        def __init__(self, name, breakpoints, slopes):
            self.name, self.breakpoints, self.slopes = name, breakpoints, slopes

    shifted_relu = Act("piecewise_linear", (5,), (2, 0))       # 2 relu(-(t - 5)): a ReLU up to affine maps
    assert {r.name: r.bound for r in compare_with_bounds(3, input_dim=1, widths=[1, 1],
                                                          activation=shifted_relu)}["serra2018"] == 3
    leaky = Act("piecewise_linear", (0,), ("1/2", 1))
    assert {r.name: r.bound for r in compare_with_bounds(3, input_dim=1, widths=[1, 1],
                                                          activation=leaky)}["serra2018"] is None


@pytest.mark.parametrize("kwargs", [
    dict(count=-1, input_dim=1, widths=[1], activation="relu"),
    dict(count=1, input_dim=0, widths=[1], activation="relu"),
    dict(count=1, input_dim=1, widths=[0], activation="relu"),
    dict(count=1, input_dim=1, widths="12", activation="relu"),
    dict(count=1, input_dim=1, widths=[1], activation="tanh"),
    dict(count=1, input_dim=1, widths=[1], activation="piecewise_linear"),
    dict(count=1, input_dim=1, widths=[1], activation="relu", breakpoints=2),
    dict(count=True, input_dim=1, widths=[1], activation="relu"),
])
def test_bad_input_is_rejected(kwargs):
    count = kwargs.pop("count")
    with pytest.raises(InvalidInputError):
        compare_with_bounds(count, **kwargs)


def test_general_position_lines_reach_the_one_layer_bound():
    # x1 = 0, x2 = 0 and x1 + x2 = 1 are in general position: exactly 1 + 3 + 3 = 7 regions of the plane.
    from polyregions.networks.activations import relu
    from polyregions.networks.network import Network
    from polyregions.regions import domains as domain
    from polyregions.regions.enumeration import enumerate_regions

    net = Network.from_layers(2, [([[1, 0], [0, 1], [1, 1]], [0, 0, -1], relu())])
    count = len(enumerate_regions(net, domain.space(2)))
    assert count == one_layer_bound(2, 3) == serra_bound(2, [3]) == 7
    assert all(row.holds for row in compare_with_bounds(count, input_dim=2, widths=[3], activation="relu")
               if row.applicable)


@pytest.mark.parametrize("activation", ["relu", "hardtanh", {"kind": "leaky_relu", "negative_slope": "1/5"}],
                         ids=["relu", "hardtanh", "leaky"])
@pytest.mark.parametrize("seed", range(3))
def test_counted_regions_respect_every_applicable_bound(activation, seed):
    from polyregions.networks.initializers import he_normal
    from polyregions.regions import domains as domain
    from polyregions.regions.enumeration import enumerate_regions

    net = he_normal([2, 4, 3], seed=seed, bias_std=0.5, activation=activation)
    count = len(enumerate_regions(net, domain.box([-4, -4], [4, 4])))
    rows = compare_with_bounds(count, input_dim=2, widths=[4, 3], activation=net.layers[0].activation)
    assert all(row.holds for row in rows if row.applicable), rows
    assert sum(row.applicable for row in rows) >= 2
