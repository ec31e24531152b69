"""Graph networks in the region engines: each operation against its rewriting as a dense ReLU network (linear
regions equal, exactly), activation regions against brute force, the dense special case unchanged."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest

import polyregions as pr
from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.operations import (
    Activation,
    Add,
    AvgPool,
    BatchNorm,
    Concat,
    Conv,
    Dense,
    Flatten,
    Maxout,
    MaxPool,
    PReLU,
    Reshape,
    relu6,
)
from tests.graph_oracle import brute_force_stage_patterns


def _lp(net, domain):
    return pr.enumerate_regions(net, domain, engine="lp")


def _integers(rng, rows, cols, low=-3, high=3):
    return [[rng.randint(low, high) for _ in range(cols)] for _ in range(rows)]


def _conv_matrix(weight, length, padding):
    """A 1-D single-channel-in convolution as a dense matrix, written out by hand (stride 1)."""
    k = len(weight[0][0])
    out = length + 2 * padding - k + 1
    rows = []
    for o in range(len(weight)):
        for p in range(out):
            row = [0] * length
            for i in range(k):
                j = p - padding + i
                if 0 <= j < length:
                    row[j] += weight[o][0][i]
            rows.append(row)
    return rows


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_conv_equals_its_dense_matrix(seed):
    rng = random.Random(seed)
    weight = [[[rng.randint(-2, 2) for _ in range(2)]] for _ in range(2)]
    bias = [rng.randint(-1, 1), rng.randint(-1, 1)]
    head = _integers(rng, 1, 8)
    graph = GraphNetwork((1, 3), (Node("c", Conv(weight, bias, padding=1), ("input",)),
                                  Node("r", Activation("relu"), ("c",)), Node("f", Flatten(), ("r",)),
                                  Node("o", Dense(head, [0]), ("f",))), "o")
    matrix = _conv_matrix(weight, 3, 1)
    dense = pr.Network.from_layers(3, [(matrix, [bias[o] for o in range(2) for _ in range(4)], "relu"),
                                       (head, [0], "linear")])
    domain = pr.slice_domain([0, 0, 0], [[1, 0, -1], [0, 1, 1]], [-2, -2], [2, 2])
    a, b = _lp(graph, domain), _lp(dense, domain)
    assert {r.pattern for r in a.regions} == {r.pattern for r in b.regions}
    assert len(a.linear_regions) == len(b.linear_regions)


@pytest.mark.parametrize("seed, tied", [(0, False), (1, False), (2, True), (3, True)])
def test_maxout_equals_a_plus_relu_of_the_difference(seed, tied):
    """max(a, b) = a + relu(b - a): the argmax is the ReLU's piece, so activation regions match one to one."""
    rng = random.Random(seed)
    first = _integers(rng, 4, 2)
    if tied:
        first[1] = list(first[0])  # a unit whose two values coincide everywhere
    bias = [rng.randint(-2, 2) for _ in range(4)]
    if tied:
        bias[1] = bias[0]
    head = _integers(rng, 1, 2, 1, 3)
    graph = GraphNetwork((2,), (Node("d", Dense(first, bias), ("input",)), Node("m", Maxout(2), ("d",)),
                                Node("o", Dense(head, [0]), ("m",))), "o")
    # a = W0 x + b0 passes through as relu(a) - relu(-a); b - a is the one neuron per unit
    rows, shifts = [], []
    for u in range(2):
        a, b = first[2 * u], first[2 * u + 1]
        rows += [a, [-v for v in a], [y - x for x, y in zip(a, b)]]
        shifts += [bias[2 * u], -bias[2 * u], bias[2 * u + 1] - bias[2 * u]]
    out = [v for h in head[0] for v in (h, -h, h)]
    dense = pr.Network.from_layers(2, [(rows, shifts, "relu"), ([out], [0], "linear")])
    domain = pr.box([-2, -2], [2, 2])
    a, b = _lp(graph, domain), _lp(dense, domain)
    assert len(a.linear_regions) == len(b.linear_regions)
    differences = pr.Network.from_layers(2, [([rows[2], rows[5]], [shifts[2], shifts[5]], "relu")])
    # with no pass-through neurons, the ReLU rewriting's activation regions are the argmax regions
    assert len(a) == len(_lp(differences, domain)) or tied


def test_residual_equals_identity_path_through_two_relus():
    rng = random.Random(5)
    W = _integers(rng, 2, 2)
    graph = GraphNetwork((2,), (Node("d", Dense(W, [1, -1]), ("input",)), Node("r", Activation("relu"), ("d",)),
                                Node("a", Add(), ("r", "input")), Node("o", Dense([[1, 2]], [0]), ("a",))), "o")
    # x = relu(x) - relu(-x): the identity path as four more ReLU neurons
    rows = W + [[1, 0], [0, 1], [-1, 0], [0, -1]]
    dense = pr.Network.from_layers(2, [(rows, [1, -1, 0, 0, 0, 0], "relu"),
                                       ([[1, 2, 1, 2, -1, -2]], [0], "linear")])
    domain = pr.box([-2, -2], [2, 2])
    assert len(_lp(graph, domain).linear_regions) == len(_lp(dense, domain).linear_regions)


def _zoo(seed):
    rng = random.Random(seed)
    return [
        GraphNetwork((1, 4), (Node("c", Conv([[[1, -1]], [[2, 1]]], [0, "-1/2"], padding=1), ("input",)),
                              Node("p", MaxPool(3, stride=2, padding=1), ("c",)), Node("f", Flatten(), ("p",)),
                              Node("o", Dense(_integers(rng, 1, 6), [0]), ("f",))), "o"),
        GraphNetwork((2,), (Node("d", Dense(_integers(rng, 3, 2), [0, 1, -1]), ("input",)),
                            Node("b", BatchNorm([2, "1/2", -1], [0, 1, 0]), ("d",)),
                            Node("p", PReLU(["1/4", 2, -1]), ("b",)), Node("x", Activation(relu6()), ("d",)),
                            Node("k", Concat(0), ("p", "x")), Node("s", Reshape([2, 3]), ("k",)),
                            Node("a", AvgPool(2, stride=1), ("s",)), Node("m", Maxout(2), ("a",)),
                            Node("f", Flatten(), ("m",)), Node("o", Dense([[1, -1]], [0]), ("f",))), "o"),
        GraphNetwork((2,), (Node("d", Dense(_integers(rng, 3, 2), [0, 0, 1]), ("input",)),
                            Node("m", Maxout(3), ("d",)), Node("e", Dense([[1], [-2]], [0, 1]), ("m",)),
                            Node("h", Activation("hardtanh"), ("e",)), Node("a", Add(), ("h", "input"))), "a"),
    ]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("which", [0, 1, 2])
def test_activation_regions_match_brute_force(seed, which):
    net = _zoo(seed)[which]
    if net.input_dim == 2:
        domain = pr.box([-2, -2], [2, 2])
    else:  # a 2-D slice of the input
        domain = pr.slice_domain([0] * 4, [[1, 0, -1, 1], [0, 1, 1, "1/2"]], [-1, -1], [1, 1])
    complex_ = _lp(net, domain)
    local = net.staged.restrict(domain.origin, domain.directions)
    square = pr.box([-2, -2], [2, 2]) if net.input_dim == 2 else pr.box([-1, -1], [1, 1])
    expected = brute_force_stage_patterns(local, square.region.A, square.region.b)
    assert {r.pattern for r in complex_.regions} == expected
    for region in complex_.regions:  # the pattern at the interior point is the region's
        assert local.pattern(region.interior_point) == region.pattern


def test_dense_network_as_a_graph_gives_the_same_complex():
    net = pr.Network.from_layers(2, [(_integers(random.Random(3), 5, 2), [0, 1, -1, 0, 2], "relu"),
                                     (_integers(random.Random(4), 3, 5), [0, 0, 1], {"kind": "leaky_relu",
                                                                                     "negative_slope": "1/10"}),
                                     ([[1, -1, 2]], [0], "linear")])
    domain = pr.box([-1, -1], [1, 1])
    dense, graph = _lp(net, domain), _lp(GraphNetwork.from_network(net), domain)
    assert [r.pattern for r in dense.regions] == [r.pattern for r in graph.regions]
    assert set(map(frozenset, dense.graph.edges)) == set(map(frozenset, graph.graph.edges))
    assert len(dense.linear_regions) == len(graph.linear_regions)
    mesh = pr.enumerate_regions(net, domain, engine="mesh")
    assert [r.pattern for r in mesh.regions] == [r.pattern for r in graph.regions]


def test_programs_and_vertices_agree_on_graph_networks():
    net = _zoo(0)[2]
    domain = pr.box([-2, -2], [2, 2])
    from polyregions.regions._general.refine import refine
    by_vertices = refine(net.staged, domain, method="vertices")
    by_programs = refine(net.staged, domain, method="programs")
    assert [r.pattern for r in by_vertices.regions] == [r.pattern for r in by_programs.regions]
    assert set(map(frozenset, by_vertices.graph.edges)) == set(map(frozenset, by_programs.graph.edges))


def test_unbounded_domain_on_a_graph_network():
    net = _zoo(1)[2]
    whole = pr.enumerate_regions(net, pr.space(2))
    big = _lp(net, pr.box([-10 ** 6] * 2, [10 ** 6] * 2))
    assert {r.pattern for r in whole.regions} == {r.pattern for r in big.regions}


def _same_complex(a, b):
    assert [r.pattern for r in a.regions] == [r.pattern for r in b.regions]
    assert set(map(frozenset, a.graph.edges)) == set(map(frozenset, b.graph.edges))
    assert [sorted(c) for c in a.linear_regions] == [sorted(c) for c in b.linear_regions]
    assert [r.output_map for r in a.regions] == [r.output_map for r in b.regions]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_mesh_and_general_engines_agree(seed):
    net = _zoo(seed)[1]  # batch norm, PReLU (three slopes), ReLU6, concat, reshape, average pooling, maxout 2
    for domain in (pr.box([-2, -2], [2, 2]), pr.segment([-2, 1], [2, -1]),
                   pr.polytope_domain([[1, 1], [-1, 0], [0, -1]], [2, 1, 1])):
        mesh, lp = pr.enumerate_regions(net, domain, engine="mesh"), _lp(net, domain)
        assert mesh.engine == "mesh"
        _same_complex(mesh, lp)


def test_mesh_and_general_engines_agree_on_a_conv_net_on_a_slice():
    rng = random.Random(7)
    weight = [[[[rng.randint(-2, 2) for _ in range(2)] for _ in range(2)]] for _ in range(3)]
    net = GraphNetwork((1, 3, 3), (Node("c", Conv(weight, [0, 1, -1], padding=1, stride=2), ("input",)),
                                   Node("r", Activation("relu"), ("c",)), Node("a", AvgPool(2), ("r",)),
                                   Node("f", Flatten(), ("a",)), Node("g", Flatten(), ("input",)),
                                   Node("k", Concat(0), ("f", "g")),
                                   Node("d", Dense(_integers(rng, 2, 12), [0, 1]), ("k",)),
                                   Node("m", Maxout(2), ("d",))), "m")
    domain = pr.slice_domain([0] * 9, [[1, 0, -1, 0, 1, 0, 0, 1, 0], [0, 1, 0, 1, 0, -1, 1, 0, 0]],
                             [-2, -2], [2, 2])
    _same_complex(pr.enumerate_regions(net, domain, engine="mesh"), _lp(net, domain))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_engines_agree_on_max_over_three_or_more(seed):
    """Maxout 3 and max pooling over windows of 2 to 4: the mesh's tournament cells merged are the argmax cells."""
    rng = random.Random(seed)
    weight = [[[[rng.randint(-2, 2) for _ in range(2)] for _ in range(2)]] for _ in range(2)]
    pools = GraphNetwork((1, 4, 4), (Node("c", Conv(weight, [0, 1]), ("input",)), Node("r", Activation("relu"), ("c",)),
                                     Node("p", MaxPool(2, stride=1), ("r",)), Node("q", MaxPool(2), ("p",)),
                                     Node("f", Flatten(), ("q",)), Node("o", Dense([[1, -1]], [0]), ("f",))), "o")
    square = pr.slice_domain([0] * 16, [[rng.randint(-2, 2) for _ in range(16)] for _ in range(2)], [-1, -1], [1, 1])
    cases = [(_zoo(seed)[2], pr.box([-2, -2], [2, 2])), (_zoo(seed)[2], pr.segment([-2, 1], [2, -1])),
             (_zoo(seed)[0], pr.slice_domain([0] * 4, [[1, 0, -1, 1], [0, 1, 1, "1/2"]], [-1, -1], [1, 1])),
             (pools, square)]
    for net, domain in cases:
        mesh, lp = pr.enumerate_regions(net, domain), _lp(net, domain)
        assert mesh.engine == "mesh"
        _same_complex(mesh, lp)
        if domain.dim == 2:
            assert pr.boundary_volumes(mesh).exact == pr.boundary_volumes(lp).exact


def test_merged_mesh_complex_exports_verify(tmp_path):
    net = _zoo(0)[2]  # maxout over three values
    complex_ = pr.enumerate_regions(net, pr.box([-2, -2], [2, 2]), engine="mesh")
    path = tmp_path / "complex.json"
    pr.write_complex_json(complex_, path)
    run = subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(path)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr


def test_boundary_volumes_equal_those_of_the_relu_rewriting():
    """max(a, b) = a + relu(b - a) is the same function, so B_N and its volumes are the same, exactly."""
    first, bias = [[1, 2], [-1, 1], [2, -1], [0, 1]], [0, 1, -1, "1/2"]
    graph = GraphNetwork((2,), (Node("d", Dense(first, bias), ("input",)), Node("m", Maxout(2), ("d",)),
                                Node("o", Dense([[1, -2]], [0]), ("m",))), "o")
    rows, shifts = [], []
    for u in range(2):
        a, b = first[2 * u], first[2 * u + 1]
        rows += [a, [-v for v in a], [y - x for x, y in zip(a, b)]]
        shifts += [Fraction(bias[2 * u]), -Fraction(bias[2 * u]), Fraction(bias[2 * u + 1]) - Fraction(bias[2 * u])]
    dense = pr.Network.from_layers(2, [(rows, shifts, "relu"), ([[1, -1, 1, -2, 2, -2]], [0], "linear")])
    domain = pr.box([-2, -2], [2, 2])
    for engine in ("mesh", "lp"):
        ours = pr.boundary_volumes(pr.enumerate_regions(graph, domain, engine=engine))
        theirs = pr.boundary_volumes(pr.enumerate_regions(dense, domain, engine=engine))
        assert ours.exact == theirs.exact


@pytest.mark.parametrize("which, domain", [
    (1, pr.box([-2, -2], [2, 2])), (2, pr.box([-2, -2], [2, 2])), (2, pr.space(2)),
    (0, pr.slice_domain([0] * 4, [[1, 0, -1, 1], [0, 1, 1, "1/2"]], [-1, -1], [1, 1]))])
def test_exports_verify(tmp_path, which, domain):
    complex_ = pr.enumerate_regions(_zoo(0)[which], domain)
    path = tmp_path / "complex.json"
    pr.write_complex_json(complex_, path)
    run = subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(path)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout.strip().endswith("verified")
    # a region claiming another argmax is caught
    doc = json.loads(path.read_text())
    assert doc["network"]["format"] == "polyregions.stages/1"
    counts = complex_.network.piece_counts
    last = len(counts) - 1
    doc["regions"][0]["pattern"][last] = (doc["regions"][0]["pattern"][last] + 1) % counts[last]
    path.write_text(json.dumps(doc))
    run = subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(path)], capture_output=True,
                         text=True, timeout=300)
    assert run.returncode == 1


def test_exact_output_maps_on_regions():
    net = _zoo(1)[1]
    complex_ = _lp(net, pr.box([-2, -2], [2, 2]))
    for region in complex_.regions:
        M, c = region.output_map
        x = region.interior_point
        assert tuple(sum(m * v for m, v in zip(row, x)) + ci for row, ci in zip(M, c)) == net(x)
    assert all(isinstance(v, Fraction) for v in net([1, 1]))


def test_worker_processes_give_the_same_complex():
    import pickle

    net = _zoo(0)[1]
    staged = net.staged
    staged.affine_map(staged.pattern([0, 0]))  # fill the caches, which hold FLINT matrices
    assert pickle.loads(pickle.dumps(staged)) == staged and pickle.loads(pickle.dumps(net)) == net
    domain = pr.box([-2, -2], [2, 2])
    _same_complex(pr.enumerate_regions(net, domain, engine="lp", workers=2), _lp(net, domain))
