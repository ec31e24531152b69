"""Max units after a ReLU on the mesh engine: values tied on whole regions (dead pooling windows, equal weights)
decided from the regions' patterns. Checked against the general engine, against the dense ReLU rewriting
max(a, b) = a + relu(b - a) (enumerated by the mesh's dense path, which never uses the rule), against brute force,
and by the rule leaving no tied vertex to exact arithmetic."""

from __future__ import annotations

import random
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.sparse import csr_array

import polyregions as pr
from polyregions.networks._float_filter import float_layer
from polyregions.networks.activations import relu
from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.layer import Layer
from polyregions.networks.operations import Activation, Conv, Dense, Flatten, Maxout, MaxPool
from polyregions.regions._mesh import mesh as mesh_module
from polyregions.regions._mesh.merged_cells import _unique_rows
from polyregions.regions._mesh.polygons import domain_box
from polyregions.regions._mesh.sparse_layers import SparseWeights, sparse_forward, sparse_weights
from polyregions.regions._mesh.stages import _round_rules, bracket, dense_twin
from polyregions.regions._mesh.support import UNPROVEN
from tests.graph_oracle import brute_force_stage_patterns


def _same_complex(a, b):
    assert [r.pattern for r in a.regions] == [r.pattern for r in b.regions]
    assert set(map(frozenset, a.graph.edges)) == set(map(frozenset, b.graph.edges))
    assert [r.output_map for r in a.regions] == [r.output_map for r in b.regions]


def _relu_then_maxout(first, bias, head):
    """``head @ maxout_2(relu(first @ x + bias))`` on R^2: windows (0, 1), (2, 3), ..."""
    return GraphNetwork((2,), (Node("d", Dense(first, bias), ("input",)), Node("r", Activation("relu"), ("d",)),
                               Node("m", Maxout(2), ("r",)), Node("o", Dense(head, [0]), ("m",))), "o")


def _dense_rewriting(first, bias, head):
    """The same function as :func:`_relu_then_maxout` as a dense ReLU network: ``y = relu(first x + bias)``, then
    per window ``relu(y_b - y_a)`` and ``y_a`` passed on as ``relu(y_a)`` (``y_a >= 0``), read out as
    ``head . (y_a + relu(y_b - y_a))``."""
    n = len(first)
    units = n // 2
    rounds = [[(j == 2 * u + 1) - (j == 2 * u) for j in range(n)] for u in range(units)]
    copies = [[int(j == 2 * u) for j in range(n)] for u in range(units)]
    out = [list(head[0]) * 2]
    return pr.Network.from_layers(2, [(first, bias, "relu"), (rounds + copies, [0] * (2 * units), "relu"),
                                      (out, [0], "linear")])


def _projected(complex_, width):
    """The dense rewriting's patterns cut to the ReLUs of the first layer and the rounds (the copies' pieces
    repeat the first pieces of the windows): the staged network's patterns."""
    return [r.pattern[:width] for r in complex_.regions]


@pytest.mark.parametrize("seed", range(6))
def test_dead_windows_match_the_dense_relu_rewriting(seed):
    """Integer weights and negative biases: many windows dead on whole regions, many lines through one point."""
    rng = random.Random(seed)
    first = [[rng.randint(-2, 2) for _ in range(2)] for _ in range(6)]
    bias = [rng.randint(-3, 1) for _ in range(6)]
    head = [[rng.randint(-2, 2) or 1 for _ in range(3)]]
    domain = pr.box([-2, -2], [2, 2])
    graph = pr.enumerate_regions(_relu_then_maxout(first, bias, head), domain, engine="mesh")
    dense = pr.enumerate_regions(_dense_rewriting(first, bias, head), domain, engine="mesh")
    staged = _projected(dense, 6 + 3)
    assert len(set(staged)) == len(staged) == len(graph)
    assert sorted(staged) == [r.pattern for r in graph.regions]
    index = {p: i for i, p in enumerate(r.pattern for r in graph.regions)}
    dense_edges = {frozenset(index[staged[i]] for i in edge) for edge in dense.graph.edges}
    assert dense_edges == set(map(frozenset, graph.graph.edges))
    _same_complex(graph, pr.enumerate_regions(_relu_then_maxout(first, bias, head), domain, engine="lp"))
    segment = pr.segment([-2, 1], [2, -1])  # the 1-D mesh: one line through each vertex
    _same_complex(pr.enumerate_regions(_relu_then_maxout(first, bias, head), segment, engine="mesh"),
                  pr.enumerate_regions(_relu_then_maxout(first, bias, head), segment, engine="lp"))


def test_equal_weights_tie_everywhere():
    """Two values with the same weights and bias are equal on the whole domain, alive or dead: the first wins."""
    first = [[1, 2], [1, 2], [-1, 1], [2, -1], [-1, 1], [-1, 1]]
    bias = [0, 0, "1/2", -1, 1, 1]
    net = GraphNetwork((2,), (Node("d", Dense(first, bias), ("input",)), Node("r", Activation("relu"), ("d",)),
                              Node("m", Maxout(3), ("r",)), Node("o", Dense([[1, -1]], [0]), ("m",))), "o")
    domain = pr.box([-2, -2], [2, 2])
    mesh = pr.enumerate_regions(net, domain, engine="mesh")
    _same_complex(mesh, pr.enumerate_regions(net, domain, engine="lp"))
    local = net.staged
    assert {r.pattern for r in mesh.regions} == brute_force_stage_patterns(local, domain.region.A, domain.region.b)
    assert all(r.pattern[-2] != 1 for r in mesh.regions)  # the second of two equal values never wins


@pytest.mark.parametrize("low", [-5, 0])
def test_saturated_values_compare_with_the_current_winner(low):
    """hardtanh values stuck at -1, 1 and 1 in one window: the second round compares the last value with the
    winner so far (the second value, a tie at 1), not with the first; the first largest value wins."""
    first = [[1, 0], [0, 1], [1, 1], [1, -1], [2, 1], [-1, 1]]
    bias = [low, 5, 5, 0, "1/2", -1]
    net = GraphNetwork((2,), (Node("d", Dense(first, bias), ("input",)), Node("h", Activation("hardtanh"), ("d",)),
                              Node("m", Maxout(3), ("h",)), Node("o", Dense([[1, -1]], [0]), ("m",))), "o")
    domain = pr.box([-2, -2], [2, 2])
    mesh = pr.enumerate_regions(net, domain, engine="mesh")
    _same_complex(mesh, pr.enumerate_regions(net, domain, engine="lp"))
    assert {r.pattern for r in mesh.regions} == brute_force_stage_patterns(net.staged, domain.region.A,
                                                                           domain.region.b)
    assert {r.pattern[-2] for r in mesh.regions} == ({1} if low == -5 else {0, 1})


def test_dead_window_ties_never_reach_exact_arithmetic(monkeypatch):
    """A window dead on the whole domain ties at exactly 0 everywhere: every vertex's round is settled by the
    pattern, none is left to exact arithmetic."""
    first = [[1, 0], [0, 1], [3, 1], [-1, 2]]
    bias = [-10, -10, "1/3", "-1/7"]
    net = _relu_then_maxout(first, bias, [[1, 2]])
    domain = pr.box([-2, -2], [2, 2])
    twin = dense_twin(net.staged, domain_box(domain.region.A, domain.region.b))
    tied = twin.rules[len(first)]  # the dead window's round, in the rewritten network
    assert twin.ties is not None and twin.ties.units(1) is not None
    unsure_at_tie = []
    original = mesh_module.Mesh._resolve

    def watched(self, q, vertices, faces):
        if q == 1 and vertices.size:
            unsure_at_tie.append(int((self.S[vertices, tied[0] - len(first)] == UNPROVEN).sum()))
        return original(self, q, vertices, faces)

    monkeypatch.setattr(mesh_module.Mesh, "_resolve", watched)
    mesh = pr.enumerate_regions(net, domain, engine="mesh")
    assert sum(unsure_at_tie) == 0
    monkeypatch.undo()
    _same_complex(mesh, pr.enumerate_regions(net, domain, engine="lp"))


def test_rules_of_max_pooling_after_a_relu():
    """Every match compares two ReLU outputs: the difference's terms are the two units, +1 and -1, no offset."""
    net = GraphNetwork((1, 4), (Node("c", Conv([[[1, -1]], [[2, 1]]], [0, -1]), ("input",)),
                                Node("r", Activation("relu"), ("c",)), Node("p", MaxPool(3), ("r",)),
                                Node("f", Flatten(), ("p",))), "f")
    staged = net.staged
    twin = dense_twin(staged, [(-1, 1)] * 4)
    columns = {("r", 1, g, m): column for g, matches in enumerate(twin.rules[6:]) for m, column in enumerate(matches)}
    rules = _round_rules(staged, columns | {("y", 0, i): twin.rules[i][0] for i in range(6)})
    assert bracket(3) == ((0, 1), (3, 2))
    assert len(rules) == 4  # two windows of three: two matches each
    for rule in rules:
        first, middle, end = rule.leaves
        assert (first, middle, end) == ((0, 1, 2) if rule.left == 0 else (0, 2, 3))
        assert len(rule.differences) == (middle - first) * (end - middle)
        for difference in rule.differences:
            assert difference is not None and difference.offset == 0
            assert sorted(c for _, c, _ in difference.terms) == [-1, 1]


@pytest.mark.parametrize("k", range(2, 10))
def test_knockout_brackets_cover_every_value_once(k):
    """k - 1 matches; every node but the final plays once; each node's leaves are a run, left before right."""
    matches = bracket(k)
    assert len(matches) == k - 1
    children = [node for match in matches for node in match]
    assert sorted(children) == list(range(2 * k - 2))
    runs = [[leaf] for leaf in range(k)]
    for left, right in matches:
        assert runs[left][-1] + 1 == runs[right][0]
        runs.append(runs[left] + runs[right])
    assert runs[-1] == list(range(k))


@st.composite
def _pooled_nets(draw):
    """A 1-D convolution, ReLU or hardtanh, max pooling and a read-out on a 2-D slice; small integer weights,
    biases pulling units below zero so that whole windows die."""
    length = draw(st.integers(3, 5))
    channels = draw(st.integers(1, 2))
    kernel = draw(st.integers(1, 2))
    small = st.integers(-2, 2)
    weight = [[[draw(small) for _ in range(kernel)]] for _ in range(channels)]
    bias = [draw(st.integers(-3, 2)) for _ in range(channels)]
    window = draw(st.integers(2, 3))
    size = length - kernel + 1
    if size < window:
        window = size if size >= 2 else 1
    pooled = channels * (size // window) if window >= 2 else channels * size
    # hardtanh: two flat pieces, so that tied constants differ (-1 against 1) and the current winner matters
    activation = draw(st.sampled_from(["relu", "hardtanh"]))
    nodes = [Node("c", Conv(weight, bias), ("input",)), Node("r", Activation(activation), ("c",))]
    last = "r"
    if window >= 2:
        nodes.append(Node("p", MaxPool(window), ("r",)))
        last = "p"
    nodes += [Node("f", Flatten(), (last,)), Node("o", Dense([[draw(small) for _ in range(pooled)]], [0]), ("f",))]
    directions = [[draw(small) for _ in range(length)] for _ in range(2)]
    origin = [draw(st.integers(-1, 1)) for _ in range(length)]
    return GraphNetwork((1, length), tuple(nodes), "o"), origin, directions


@settings(max_examples=25)
@given(_pooled_nets(), st.booleans())
def test_engines_agree_on_random_pooled_nets(case, plane):
    net, origin, directions = case
    if np.linalg.matrix_rank(np.array(directions)) < 2:
        directions = [[1] + [0] * (len(origin) - 1), [0, 1] + [0] * (len(origin) - 2)]
    if plane:
        domain = pr.slice_domain(origin, directions, [-1, -1], [1, 1])
    else:
        domain = pr.slice_domain(origin, directions[:1], [-2], [2])
    _same_complex(pr.enumerate_regions(net, domain, engine="mesh"), pr.enumerate_regions(net, domain, engine="lp"))


@settings(max_examples=30)
@given(st.integers(0, 10 ** 6), st.integers(1, 12), st.integers(1, 12))
def test_sparse_products_keep_the_proven_bound(seed, width, fan_in):
    """The sparse pre-activations of a rewritten layer are within their bound of the exact values."""
    rng = np.random.default_rng(seed)
    weight = [[Fraction(int(rng.integers(-9, 10)), int(rng.integers(1, 8))) if rng.random() < 0.3 else Fraction(0)
               for _ in range(fan_in)] for _ in range(width)]
    bias = [Fraction(int(rng.integers(-9, 10)), 3) for _ in range(width)]
    layer = float_layer(Layer(weight, bias, relu()))
    weights = sparse_weights(layer) or SparseWeights(csr_array(layer.weight), csr_array(layer.abs_weight))
    h = rng.normal(0, 10, (5, fan_in))
    e_h = np.abs(rng.normal(0, 1e-9, (5, fan_in)))
    shift = rng.uniform(-1, 1, (5, fan_in)) * e_h  # the exact inputs lie within the bounds of the computed ones
    z, e = sparse_forward(layer, weights, h, e_h)
    for i in range(5):
        exact_h = [Fraction(v) + Fraction(d) for v, d in zip(h[i].tolist(), shift[i].tolist())]
        for j in range(width):
            exact = sum((w * x for w, x in zip(weight[j], exact_h)), bias[j])
            assert abs(Fraction(float(z[i, j])) - exact) <= Fraction(float(e[i, j]))


@settings(max_examples=30)
@given(st.integers(0, 10 ** 6), st.integers(1, 40), st.integers(1, 9), st.sampled_from([2, 4, 300]))
def test_unique_rows_match_numpy(seed, count, width, pieces):
    """The byte-string grouping of cells by pattern gives numpy's distinct rows, each row in its pattern's group."""
    rng = np.random.default_rng(seed)
    patterns = rng.integers(0, pieces, (count, width)).astype(np.int8 if pieces < 128 else np.int64)
    unique, inverse = _unique_rows(patterns)
    expected = np.unique(patterns, axis=0)
    assert sorted(map(tuple, unique.tolist())) == [tuple(row) for row in expected.tolist()]
    assert (unique[inverse] == patterns).all()  # each row's group is its own pattern
