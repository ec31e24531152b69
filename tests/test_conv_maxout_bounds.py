"""The sharp one-layer convolutional bound (Xiong et al. 2020's form, overlapping receptive fields) against closed
forms, a literal Hall-condition sum, a brute-force matroid count, the exact convolution's reads, and bad input."""

import itertools
from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError, PolyregionsError
from polyregions.measures.bounds import (
    FieldEntries,
    ReceptiveField,
    conv_bound,
    conv_field_entries,
    conv_layer_bound,
    conv_receptive_fields,
    convolutional,
    maxout_montufar_bound,
    maxout_serra_bound,
    one_layer_bound,
    xiong_conv_bound,
)
from polyregions.networks import operations as ops

# --- independent references ------------------------------------------------------------------------------------


def hall_sum(fields, breakpoints=1, cap=None):
    """The formula as written: every t with 0 <= t_p <= m_p, Hall's condition checked on every set J of fields."""
    total = 0
    for t in itertools.product(*(range(m + 1) for m, _ in fields)):
        if cap is not None and sum(t) > cap:
            continue
        if all(sum(t[p] for p in J) <= len(frozenset().union(*(fields[p][1] for p in J)))
               for r in range(1, len(fields) + 1) for J in itertools.combinations(range(len(fields)), r)):
            weight = 1
            for (m, _), tp in zip(fields, t):
                weight *= comb(m, tp) * breakpoints ** tp
            total += weight
    return total


def exact_rank(rows):
    rows = [list(map(Fraction, r)) for r in rows]
    rank, columns = 0, len(rows[0]) if rows else 0
    for c in range(columns):
        pivot = next((i for i in range(rank, len(rows)) if rows[i][c]), None)
        if pivot is None:
            continue
        rows[rank], rows[pivot] = rows[pivot], rows[rank]
        for i in range(len(rows)):
            if i != rank and rows[i][c]:
                f = rows[i][c] / rows[rank][c]
                rows[i] = [a - f * b for a, b in zip(rows[i], rows[rank])]
        rank += 1
    return rank


def matroid_sum(fields, rng, breakpoints=1, cap=None):
    """sum T^|S| over the sets S of neurons whose random integer vectors (supported on their fields) are independent."""
    n = 1 + max(e for _, entries in fields for e in entries)
    vectors = []
    for m, entries in fields:
        for _ in range(m):
            vectors.append([int(rng.integers(1, 60)) * int(rng.choice([-1, 1])) if j in entries else 0
                            for j in range(n)])
    total = 0
    for size in range(len(vectors) + 1):
        if cap is not None and size > cap:
            break
        for subset in itertools.combinations(vectors, size):
            if size == 0 or exact_rank(list(subset)) == size:
                total += breakpoints ** size
    return total


def random_fields(rng, entries=5, most=4):
    fields = []
    for _ in range(int(rng.integers(1, most + 1))):
        chosen = frozenset(int(e) for e in np.flatnonzero(rng.random(entries) < 0.5))
        fields.append(FieldEntries(int(rng.integers(1, 4)), chosen or frozenset({int(rng.integers(entries))})))
    return fields


# --- closed forms ----------------------------------------------------------------------------------------------

@given(st.integers(1, 3), st.integers(1, 4), st.integers(1, 4), st.integers(1, 3), st.integers(1, 2))
def test_non_overlapping_fields_give_the_product_of_one_field_counts(c_in, positions, c_out, kernel, t):
    fields = conv_field_entries((c_in, positions * kernel), c_out, kernel, stride=kernel)
    per_field = sum(comb(c_out, j) * t ** j for j in range(min(c_out, c_in * kernel) + 1))
    assert conv_layer_bound(fields, breakpoints=t) == per_field ** positions
    if t == 1:  # the old product form is exact here
        n0 = c_in * positions * kernel
        assert conv_bound(n0, fields) == conv_bound(n0, conv_receptive_fields(
            (c_in, positions * kernel), c_out, kernel, stride=kernel)) == per_field ** positions


@given(st.integers(1, 6), st.integers(1, 8), st.integers(1, 8))
def test_one_field_is_the_dense_one_layer_count(entries, neurons, cap):
    field = [FieldEntries(neurons, frozenset(range(entries)))]
    assert conv_layer_bound(field) == sum(comb(neurons, j) for j in range(entries + 1)) == one_layer_bound(
        entries, neurons)
    assert conv_layer_bound(field, input_dim=cap) == one_layer_bound(min(entries, cap), neurons)
    # T parallel hyperplanes per neuron: choose the neurons, then one of T hyperplanes each
    assert conv_layer_bound(field, breakpoints=2) == sum(comb(neurons, j) * 2 ** j for j in range(entries + 1))


def test_kernel_two_stride_one_by_hand():
    # input x0 x1 x2, fields {0,1} and {1,2}, three channels: t1, t2 <= 2 and t1 + t2 <= 3
    by_hand = sum(comb(3, a) * comb(3, b) for a in range(3) for b in range(3) if a + b <= 3)
    assert by_hand == 7 + 3 * 7 + 3 * 4 == 40
    assert conv_layer_bound(conv_field_entries((1, 3), 3, 2)) == 40
    assert conv_bound(3, conv_field_entries((1, 3), 3, 2)) == 40 < one_layer_bound(3, 6) == 42 < 7 * 7
    # four inputs, fields {0,1}, {1,2}, {2,3}, two channels: neighbours share one entry, all three span four
    by_hand = sum(comb(2, a) * comb(2, b) * comb(2, c) for a, b, c in itertools.product(range(3), repeat=3)
                  if a + b <= 3 and b + c <= 3 and a + b + c <= 4)
    assert conv_layer_bound(conv_field_entries((1, 4), 2, 2)) == by_hand == 55
    # one hard tanh neuron at each of two positions reading one entry each: (1 + 2)^2
    assert conv_layer_bound(conv_field_entries((1, 2), 1, 1), breakpoints=2) == 9


def test_a_slice_caps_the_total():
    fields = conv_field_entries((1, 3), 3, 2)
    assert conv_layer_bound(fields, input_dim=1) == 1 + 6 == one_layer_bound(1, 6)
    assert conv_layer_bound(fields, input_dim=2) == hall_sum([(3, {0, 1}), (3, {1, 2})], cap=2) == 1 + 6 + 15


# --- the formula, the matroid and the two algorithms -----------------------------------------------------------

@pytest.mark.parametrize("seed", range(40))
def test_bound_equals_the_literal_hall_sum_on_random_set_systems(seed):
    rng = np.random.default_rng(seed)
    fields = random_fields(rng)
    t = 1 + seed % 2
    cap = None if seed % 3 else int(rng.integers(1, 5))
    assert conv_layer_bound(fields, breakpoints=t, input_dim=cap) == hall_sum(fields, t, cap)


@pytest.mark.parametrize("seed", range(12))
def test_bound_equals_the_independent_sets_of_random_vectors_on_the_fields(seed):
    rng = np.random.default_rng(1000 + seed)
    fields = random_fields(rng, entries=4, most=3)
    while sum(m for m, _ in fields) > 7:
        fields = fields[:-1]
    t = 1 + seed % 2
    cap = None if seed % 4 else 2
    assert conv_layer_bound(fields, breakpoints=t, input_dim=cap) == matroid_sum(fields, rng, t, cap)


@pytest.mark.parametrize("layer", [((1, 5), 2, 3, 1, 1, 1, 1), ((2, 6), 4, 2, 1, 1, 1, 2), ((1, 9), 2, 2, 1, 0, 3, 1),
                                   ((2, 7), 2, 2, 1, 1, 2, 1), ((3, 5), 3, 3, 2, 2, 1, 1)])
def test_line_dynamic_programme_agrees_with_the_matching_enumeration(layer):
    shape, c_out, kernel, stride, padding, dilation, groups = layer
    fields = conv_field_entries(shape, c_out, kernel, stride=stride, padding=padding, dilation=dilation,
                                groups=groups)
    merged = {}
    for m, entries in fields:
        merged[entries] = merged.get(entries, 0) + m
    for component in convolutional._overlap_components(merged):
        runs = convolutional._interval_runs(component)
        assert runs is not None  # 1-D convolutions lie on a line, group by group and phase by phase
        for t, cap in ((1, None), (2, None), (1, 2)):
            assert convolutional._interval_polynomial(runs, t, cap) == convolutional._component_polynomial(
                component, t, cap, [10 ** 7], 10 ** 7)


def test_two_dimensional_overlaps_go_through_the_matching_enumeration():
    fields = conv_field_entries((1, 3, 3), 2, 2)
    merged = {entries: m for m, entries in fields}
    (component,) = convolutional._overlap_components(merged)
    assert convolutional._interval_runs(component) is None
    assert conv_layer_bound(fields) == hall_sum([(m, e) for m, e in fields]) == 256  # 8 neurons, all matchable
    # twelve neurons on nine entries: not all matchable at once, so the matching enumeration decides
    fields = conv_field_entries((1, 3, 3), 3, 2)
    assert conv_layer_bound(fields) == hall_sum([(m, e) for m, e in fields]) == 4013 < one_layer_bound(9, 12)
    assert conv_layer_bound(fields, input_dim=5, breakpoints=2) == hall_sum([(m, e) for m, e in fields], 2, 5)


# --- the fields read off the exact convolution ------------------------------------------------------------------

@pytest.mark.parametrize("shape, c_out, kernel, stride, padding, dilation, groups", [
    ((1, 5), 2, 3, 1, 1, 1, 1), ((2, 7), 4, 2, 2, 0, 1, 2), ((1, 7), 1, 2, 1, 1, 3, 1), ((1, 4, 4), 2, 3, 1, 1, 1, 1),
    ((2, 5, 4), 2, 2, 2, 1, 1, 2), ((1, 5, 5), 1, 2, 1, 0, 2, 1)])
def test_field_entries_are_the_entries_the_exact_convolution_reads(shape, c_out, kernel, stride, padding, dilation,
                                                                   groups):
    axes = len(shape) - 1
    weight = np.ones((c_out, shape[0] // groups) + (kernel,) * axes)  # no zero weight: every read is a term
    conv = ops.Conv(weight, [0] * c_out, stride=(stride,) * axes, padding=(padding,) * axes,
                    dilation=(dilation,) * axes, groups=groups)
    out = conv.output_shape([shape])
    positions = int(np.prod(out[1:]))
    terms = conv.affine([shape]).terms
    per_group = c_out // groups
    reads = [frozenset(j for c in range(g * per_group, (g + 1) * per_group) for _, j, _ in terms[c * positions + p])
             for p in range(positions) for g in range(groups)]
    fields = conv_field_entries(shape, c_out, kernel, stride=stride, padding=padding, dilation=dilation,
                                groups=groups)
    assert [f.entries for f in fields] == reads
    assert all(f.neurons == per_group for f in fields)
    assert conv_receptive_fields(shape, c_out, kernel, stride=stride, padding=padding, dilation=dilation,
                                 groups=groups) == tuple(ReceptiveField(f.neurons, f.inputs) for f in fields)


# --- conv_bound -----------------------------------------------------------------------------------------------

@settings(max_examples=40)
@given(st.integers(1, 2), st.integers(2, 6), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2),
       st.integers(0, 1), st.lists(st.integers(1, 4), max_size=2))
def test_sets_never_give_more_than_counts(c_in, length, c_out, kernel, stride, padding, later):
    if length + 2 * padding < kernel:
        return
    n0 = c_in * length
    sets = conv_field_entries((c_in, length), c_out, kernel, stride=stride, padding=padding)
    counts = conv_receptive_fields((c_in, length), c_out, kernel, stride=stride, padding=padding)
    assert conv_bound(n0, sets, later) <= conv_bound(n0, counts, later)
    assert conv_bound(2, sets, later) <= conv_bound(2, counts, later)


def test_conv_bound_falls_back_to_the_product_form_beyond_the_term_limit():
    fields = conv_field_entries((1, 3, 3), 3, 2)  # overlapping 2-D fields, not all neurons matchable at once
    with pytest.raises(InvalidInputError, match="max_terms = 5"):
        conv_layer_bound(fields, max_terms=5)
    product = conv_bound(9, conv_receptive_fields((1, 3, 3), 3, 2))
    assert product == one_layer_bound(9, 12) == 4017
    assert conv_bound(9, fields, max_terms=5) == product
    assert conv_bound(9, fields) == 4013


def test_later_layers_multiply_with_the_capped_dimension():
    fields = conv_field_entries((1, 3), 3, 2)
    assert conv_bound(3, fields, [2, 5]) == 40 * sum(comb(2, j) for j in range(3)) * sum(comb(5, j) for j in range(3))


@settings(max_examples=40)
@given(st.integers(1, 2), st.integers(2, 6), st.integers(1, 3), st.integers(1, 3),
       st.lists(st.integers(1, 6), max_size=3))
def test_xiong_theorem5_is_the_same_first_term_with_n0_in_every_later_factor(c_in, length, c_out, kernel, later):
    if length < kernel:
        return
    fields = conv_field_entries((c_in, length), c_out, kernel)
    n0 = c_in * length
    first = conv_layer_bound(fields)
    expected = first
    for width in later:
        expected *= one_layer_bound(n0, width)
    assert xiong_conv_bound(n0, fields, later) == expected
    assert conv_bound(n0, fields, later) <= expected
    assert xiong_conv_bound(n0, fields) == conv_bound(n0, fields) == first


def test_fields_reading_only_padding_add_nothing():
    assert conv_layer_bound([FieldEntries(3, frozenset()), FieldEntries(2, frozenset({0}))]) == 3
    assert conv_bound(1, [FieldEntries(3, frozenset()), FieldEntries(2, frozenset({0}))]) == 3


def test_the_theorem_check_reaches_the_bound_and_matches_the_matroid_count():
    from proofs_check.theorems import xiong_conv

    result = xiong_conv.run("quick")
    assert result.passed and result.failures == []
    numbers = result.numbers
    assert numbers["reached_exactly"] == len(numbers["reached"]) >= 6
    assert any(r["bound"] < one_layer_bound(r["n0"], 6) for r in numbers["reached"])  # an overlap that matters
    assert numbers["matroid_agree"] == len(numbers["matroid"]) >= 18
    assert all(r["regions"] <= r["bound"] <= r["xiong_theorem5"] for r in result.rows)


# --- maxout ---------------------------------------------------------------------------------------------------

@given(st.integers(1, 4), st.integers(1, 5))
def test_rank_two_maxout_is_a_relu_layer(n0, n):
    assert maxout_montufar_bound(n0, [n], 2) == one_layer_bound(n0, n)
    assert maxout_serra_bound(n0, [n], 2) == one_layer_bound(n0, n)


# --- bad input ------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("call, field", [
    (lambda: conv_layer_bound([(0, frozenset({1}))]), "fields[0]"),
    (lambda: conv_layer_bound([(1, frozenset({-1}))]), "fields[0]"),
    (lambda: conv_layer_bound([(1, [0, 1])]), "fields[0]"),
    (lambda: conv_layer_bound([FieldEntries(1, frozenset({0}))], breakpoints=0), "breakpoints"),
    (lambda: conv_layer_bound([FieldEntries(1, frozenset({0}))], max_terms=0), "max_terms"),
    (lambda: conv_layer_bound([FieldEntries(1, frozenset({0}))], input_dim=0), "input_dim"),
    (lambda: conv_bound(2, [FieldEntries(1, frozenset({0})), ReceptiveField(1, 1)]), "first_layer"),
    (lambda: conv_bound(2, [(1, frozenset({"a"}))]), "first_layer[0]"),
    (lambda: xiong_conv_bound(2, [ReceptiveField(1, 1)]), "first_layer[0]"),
    (lambda: xiong_conv_bound(2, []), "first_layer"),
    (lambda: conv_field_entries((1, 4), 2, 2.5), "kernel"),
    (lambda: conv_field_entries((1, 4), 2, 2, stride="2"), "stride"),
    (lambda: conv_field_entries((3, 4), 2, 2, groups=2), "groups"),
    (lambda: conv_field_entries((1, 2), 1, 3), "kernel"),
])
def test_bad_input_names_the_field(call, field):
    with pytest.raises(PolyregionsError) as error:
        call()
    assert isinstance(error.value, InvalidInputError)
    assert str(error.value).startswith(field)
    assert "expected" in str(error.value) and "got" in str(error.value)
