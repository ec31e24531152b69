"""Bounds for maxout and convolutional networks: closed forms, orderings between bounds, receptive fields read
off the exact convolution, and exact counts (an independent 1-D count for maxout) that never exceed them."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.measures.bounds import (
    ReceptiveField,
    conv_bound,
    conv_receptive_fields,
    maxout_montufar_bound,
    maxout_serra_bound,
    one_layer_bound,
    raghu_relu_bound,
)
from polyregions.networks import operations as ops
from polyregions.networks.graph import GraphNetwork, Node

dims = st.integers(1, 4)
widths_lists = st.lists(st.integers(1, 5), min_size=1, max_size=3)
ranks = st.integers(1, 5)


@pytest.mark.parametrize("n, k", [(1, 2), (3, 3), (4, 5), (2, 7)])
def test_one_maxout_layer_on_a_line_has_one_more_region_than_its_breakpoints(n, k):
    # each unit is convex with at most k - 1 breakpoints
    assert maxout_montufar_bound(1, [n], k) == 1 + n * (k - 1)


@pytest.mark.parametrize("n0, n, k", [(2, 2, 3), (3, 3, 2), (4, 2, 4)])
def test_enough_input_dimensions_give_every_argmax_pattern(n0, n, k):
    assert maxout_montufar_bound(n0, [n], k) == k ** n


def test_three_tropical_lines_in_the_plane():
    # n generic tropical lines (rank 3 units on R^2): 1 + 2n + 4 C(n, 2) regions
    for n in range(1, 6):
        assert maxout_montufar_bound(2, [n], 3) == 1 + 2 * n + 4 * comb(n, 2)


def test_serra_maxout_closed_forms():
    assert maxout_serra_bound(1, [1], 3) == 4
    assert maxout_serra_bound(2, [2], 3) == sum(comb(6, j) for j in range(3))
    assert maxout_serra_bound(3, [2, 1], [3, 2]) == sum(comb(6, j) for j in range(3)) * 2


@given(dims, widths_lists, ranks)
def test_montufar_never_exceeds_serra_and_rank_two_never_exceeds_raghu(n0, widths, k):
    assert maxout_montufar_bound(n0, widths, k) <= maxout_serra_bound(n0, widths, k)
    assert maxout_montufar_bound(n0, widths, 2) <= raghu_relu_bound(n0, widths)
    assert maxout_montufar_bound(n0, widths, 1) == maxout_serra_bound(n0, widths, 1) == 1


def test_bad_arguments_are_named():
    with pytest.raises(InvalidInputError, match=r"rank\[1\]: expected a positive integer"):
        maxout_serra_bound(2, [2, 2], [3, 0])
    with pytest.raises(InvalidInputError, match="rank: expected 2 ranks"):
        maxout_montufar_bound(2, [2, 2], [3])
    with pytest.raises(InvalidInputError, match="groups: expected a positive integer dividing"):
        conv_receptive_fields((3, 4), 2, 2, groups=2)
    with pytest.raises(InvalidInputError, match="kernel: expected a kernel that fits"):
        conv_receptive_fields((1, 2), 1, 3)
    with pytest.raises(InvalidInputError, match=r"first_layer\[0\]: expected \(neurons >= 1, inputs >= 0\)"):
        conv_bound(2, [(0, 1)])


# --- an independent count of activation regions of a maxout network on a segment ------------------------------

def _segment_count(layers, lo, hi):
    """Regions of constant argmax along [lo, hi] for layers [(W, b, k)], by exact interval refinement."""
    pieces = [(Fraction(lo), Fraction(hi), (Fraction(1),), (Fraction(0),), ())]  # x(t) = A t + c, pattern
    for W, b, k in layers:
        refined = []
        for a, z, A, c, pattern in pieces:
            slope = [sum(Fraction(w) * s for w, s in zip(row, A)) for row in W]
            offset = [sum(Fraction(w) * s for w, s in zip(row, c)) + Fraction(bias) for row, bias in zip(W, b)]
            cuts = {a, z}
            for u in range(len(W) // k):
                for i in range(u * k, u * k + k):
                    for j in range(i + 1, u * k + k):
                        if slope[i] != slope[j]:
                            t = (offset[j] - offset[i]) / (slope[i] - slope[j])
                            if a < t < z:
                                cuts.add(t)
            cuts = sorted(cuts)
            for left, right in zip(cuts, cuts[1:]):
                mid = (left + right) / 2
                values = [s * mid + o for s, o in zip(slope, offset)]
                winners = tuple(max(range(u * k, u * k + k), key=lambda i: values[i]) for u in range(len(W) // k))
                refined.append((left, right, tuple(slope[i] for i in winners), tuple(offset[i] for i in winners),
                                pattern + winners))
        pieces = refined
    return 1 + sum(p[4] != q[4] for p, q in zip(pieces, pieces[1:]))


def _maxout_network(layers, n0):
    nodes, previous = [], "input"
    for i, (W, b, k) in enumerate(layers):
        nodes += [Node(f"d{i}", ops.Dense(W, b), (previous,)), Node(f"m{i}", ops.Maxout(k), (f"d{i}",))]
        previous = f"m{i}"
    return GraphNetwork((n0,), tuple(nodes), previous)


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 10 ** 6), st.lists(st.tuples(st.integers(1, 3), st.integers(2, 4)), min_size=1, max_size=3))
def test_maxout_counts_on_a_line_agree_with_an_independent_count_and_stay_below_both_bounds(seed, arch):
    import polyregions as pr

    rng = np.random.default_rng(seed)
    layers, fan_in = [], 1
    for units, k in arch:
        W = (np.round(rng.normal(size=(units * k, fan_in)) * 16) / 16).tolist()
        b = (np.round(rng.normal(size=units * k) * 16) / 16).tolist()
        layers.append((W, b, k))
        fan_in = units
    independent = _segment_count(layers, -3, 3)
    counted = len(pr.enumerate_regions(_maxout_network(layers, 1), pr.box([-3], [3])).regions)
    assert counted == independent
    widths, ks = [u for u, _ in arch], [k for _, k in arch]
    assert counted <= maxout_montufar_bound(1, widths, ks) <= maxout_serra_bound(1, widths, ks)


# --- convolutions ----------------------------------------------------------------------------------------------

def _fields_from_the_exact_convolution(conv, shape):
    """(neurons, inputs) per output position, read off the sparse affine map of the convolution."""
    out = conv.output_shape([shape])
    positions = int(np.prod(out[1:]))
    affine = conv.affine([shape])
    reads = [frozenset(j for _, j, _ in affine.terms[c * positions + p]) for c in range(out[0])
             for p in range(positions)]
    return sorted(len(frozenset().union(*(reads[c * positions + p] for c in range(out[0]))))
                  for p in range(positions))


@pytest.mark.parametrize("shape, c_out, kernel, stride, padding", [
    ((1, 5), 2, 3, 1, 1), ((2, 7), 3, 2, 2, 0), ((1, 4, 4), 2, 3, 1, 1), ((2, 5, 4), 1, 2, 2, 1)])
def test_receptive_fields_match_the_exact_convolution(shape, c_out, kernel, stride, padding):
    axes = len(shape) - 1
    weight = np.ones((c_out, shape[0]) + (kernel,) * axes)  # no zero weight, so every read is a term
    conv = ops.Conv(weight, [0] * c_out, stride=(stride,) * axes, padding=(padding,) * axes)
    fields = conv_receptive_fields(shape, c_out, kernel, stride=stride, padding=padding)
    assert sorted(f.inputs for f in fields) == _fields_from_the_exact_convolution(conv, shape)
    assert all(f.neurons == c_out for f in fields)


def test_non_overlapping_fields_multiply_and_never_exceed_the_dense_bound():
    fields = conv_receptive_fields((1, 6), 2, 2, stride=2)
    assert fields == (ReceptiveField(2, 2),) * 3
    assert conv_bound(6, fields) == 4 ** 3 == one_layer_bound(6, 6)
    # one input per field: a 1-D arrangement each, 3 regions per position, where 4 neurons on R^2 could have 11
    assert conv_bound(2, conv_receptive_fields((1, 2), 2, 1)) == 9 < one_layer_bound(2, 4) == 11
    # later layers: the dense count with the dimension capped by every earlier width
    assert conv_bound(4, fields[:1], [3, 5]) == 4 * sum(comb(3, j) for j in range(3)) * sum(comb(5, j)
                                                                                           for j in range(3))


@given(st.integers(1, 3), st.integers(2, 6), st.integers(1, 3), st.integers(1, 3), st.integers(1, 2),
       st.integers(0, 1), st.lists(st.integers(1, 4), max_size=2))
def test_conv_bound_never_exceeds_raghu_for_the_same_widths(c_in, length, c_out, kernel, stride, padding, later):
    if length + 2 * padding < kernel:
        return
    fields = conv_receptive_fields((c_in, length), c_out, kernel, stride=stride, padding=padding)
    n0 = c_in * length
    neurons = sum(f.neurons for f in fields)
    assert conv_bound(n0, fields, later) <= raghu_relu_bound(n0, [neurons, *later])


def test_small_conv_networks_counted_exactly_stay_below_the_bound():
    import polyregions as pr

    rng = np.random.default_rng(7)
    for _ in range(3):
        weight = np.round(rng.normal(size=(2, 1, 2)) * 16) / 16
        bias = np.round(rng.normal(size=2) * 16) / 16
        net = GraphNetwork((1, 3), (Node("c", ops.Conv(weight, bias, padding=(1,)), ("input",)),
                                    Node("r", ops.Activation("relu"), ("c",))), "r")
        counted = len(pr.enumerate_regions(net, pr.box([-3] * 3, [3] * 3)).regions)
        assert counted <= conv_bound(3, conv_receptive_fields((1, 3), 2, 2, padding=1))
