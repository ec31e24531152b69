"""Structured layers stay structured: stages keep their weights as sparse rows from the graph's operations on,
and every consumer (evaluation, affine maps, region rows, restriction, float guesses, exports, the mesh engine's
rewriting and the LP engine) gives exactly what the dense weights give."""

from __future__ import annotations

import json
import subprocess
import sys
import tracemalloc
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpq, fmpq_mat
from hypothesis import given, settings
from hypothesis import strategies as st

import polyregions as pr
from polyregions.networks import compiling as compiling_module
from polyregions.networks.compiling import compile_graph
from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.operations import (
    Activation,
    Add,
    AvgPool,
    Concat,
    Conv,
    Dense,
    Flatten,
    Maxout,
    MaxPool,
)
from polyregions.networks.stage import Stage
from polyregions.networks.stages import StagedNetwork
from polyregions.networks.stages_format import stages_from_json, stages_to_json

halves = st.integers(-4, 4).map(lambda v: Fraction(v, 2))
ACTIVATIONS = ["relu", "hardtanh", {"kind": "leaky_relu", "negative_slope": "1/4"}]


@st.composite
def graph_networks(draw):
    """Small graph networks on a 1 x s x s image: a convolution, an activation, optionally a residual or a
    concatenation, a max or average pooling or a maxout, then a dense read-out."""
    side = draw(st.integers(3, 5))
    channels = draw(st.integers(1, 3))
    kernel = draw(st.integers(1, 2))
    weight = [[[[draw(halves) for _ in range(kernel)] for _ in range(kernel)]] for _ in range(channels)]
    nodes = [Node("c", Conv(weight, [draw(halves) for _ in range(channels)]), ("input",)),
             Node("r", Activation(draw(st.sampled_from(ACTIVATIONS))), ("c",))]
    last = "r"
    branch = draw(st.sampled_from(["none", "add", "concat"]))
    if branch != "none":
        nodes.append(Node("c2", Conv([[[[draw(halves)]] for _ in range(channels)] for _ in range(channels)],
                                     [draw(halves) for _ in range(channels)]), ("r",)))
        nodes.append(Node("j", Add() if branch == "add" else Concat(0), ("r", "c2")))
        last = "j"
    pool = draw(st.sampled_from(["max", "avg", "maxout", "none"]))
    if pool == "max":
        nodes.append(Node("p", MaxPool(2), (last,)))
        last = "p"
    elif pool == "avg":
        nodes.append(Node("p", AvgPool(2), (last,)))
        last = "p"
    nodes.append(Node("f", Flatten(), (last,)))
    last = "f"
    if pool == "maxout":
        width = GraphNetwork((1, side, side), tuple(nodes), "f").output_dim
        nodes.append(Node("m", Maxout(width if width <= 3 else (2 if width % 2 == 0 else 1)), ("f",)))
        last = "m"
    width = GraphNetwork((1, side, side), tuple(nodes), last).output_dim
    head = [[draw(halves) for _ in range(width)] for _ in range(2)]
    nodes.append(Node("o", Dense(head, [draw(halves), draw(halves)]), (last,)))
    return GraphNetwork((1, side, side), tuple(nodes), "o")


def _dense_stage(rows, constants, width, activations, groups):
    """The compiler's stage as it was built before: dense rows."""
    zero = Fraction(0)
    weight = tuple(tuple(row.get(i, zero) for i in range(width)) for row in rows)
    return Stage(weight, tuple(constants), tuple(activations), tuple(groups))


def _dense_compile(net: GraphNetwork, monkeypatch) -> StagedNetwork:
    with monkeypatch.context() as patch:
        patch.setattr(compiling_module, "_stage", _dense_stage)
        return compile_graph(net)


def _fq(v: Fraction) -> fmpq:
    return fmpq(v.numerator, v.denominator)


def _reference_region_rows(net: StagedNetwork, pattern):
    """Region rows by the dense products of the weight and the selection matrix (the former algorithm)."""
    n = net.input_dim
    M = fmpq_mat(n, n, [fmpq(int(i == j)) for i in range(n) for j in range(n)])
    c = fmpq_mat(n, 1)
    rows = []
    position = 0
    for stage in net.layers:
        W = fmpq_mat([[_fq(v) for v in row] for row in stage.weight])
        b = fmpq_mat([[_fq(v)] for v in stage.bias])
        Z, z = W * M, W * c + b
        table = [[Fraction(int(v.p), int(v.q)) for v in row] for row in Z.table()]
        values = [Fraction(int(v.p), int(v.q)) for v in z.entries()]
        for i, activation in enumerate(stage.activations):
            if activation.is_linear:
                continue
            k, points = pattern[position], activation.breakpoints
            if k < len(points):
                rows.append((position, tuple(table[i]), points[k] - values[i], k + 1))
            if k > 0:
                rows.append((position, tuple(-v for v in table[i]), values[i] - points[k - 1], k - 1))
            position += 1
        for group in stage.groups:
            win = group[pattern[position]]
            for place, j in enumerate(group):
                if j != win:
                    rows.append((position, tuple(x - y for x, y in zip(table[j], table[win])),
                                 values[win] - values[j], place))
            position += 1
        count = len(stage.neurons)
        S, shift = net.selection(stage, pattern[position - count:position])
        M, c = S * Z, S * z + shift
    return rows


@settings(max_examples=25, deadline=None)
@given(graph_networks(), st.data())
def test_the_sparse_compile_is_the_dense_compile(net, data):
    with pytest.MonkeyPatch.context() as monkeypatch:
        dense = _dense_compile(net, monkeypatch)
    sparse = net.staged
    assert sparse == dense
    for a, b in zip(sparse.layers, dense.layers):
        assert a.weight == b.weight and a.rows == b.rows and a.bias == b.bias and a.fan_in == b.fan_in
    points = [[data.draw(halves) for _ in range(net.input_dim)] for _ in range(3)]
    for x in points:
        assert sparse(x) == dense(x) == net(x)
        pattern = sparse.pattern(x)
        assert sparse.affine_map(pattern) == dense.affine_map(pattern)
        assert sparse.region_rows(pattern) == _reference_region_rows(dense, pattern)
        M, c = sparse.affine_map(pattern)
        assert tuple(sum((m * v for m, v in zip(row, x)), ci) for row, ci in zip(M, c)) == net(x)
    assert (sparse.float_patterns(np.array(points, dtype=float))
            == dense.float_patterns(np.array(points, dtype=float))).all()
    origin = [data.draw(halves) for _ in range(net.input_dim)]
    directions = [[data.draw(halves) for _ in range(net.input_dim)] for _ in range(2)]
    restricted = sparse.restrict(origin, directions)
    W = dense.layers[0].weight
    expected = tuple(tuple(sum((w * d[j] for j, w in enumerate(row)), Fraction(0)) for d in directions) for row in W)
    assert restricted.layers[0].weight == expected
    assert restricted.layers[0].bias == tuple(
        sum((w * o for w, o in zip(row, origin)), b) for row, b in zip(W, dense.layers[0].bias))
    assert stages_from_json(json.loads(json.dumps(stages_to_json(sparse)))) == sparse


def test_a_stage_from_sparse_rows_is_the_stage_of_its_dense_weight():
    relu = pr.relu()
    sparse = Stage.from_rows([[(2, "1/2"), (0, -1)], []], 3, [1, 0], [relu, relu])
    assert sparse.rows == (((0, Fraction(-1)), (2, Fraction(1, 2))), ())
    assert sparse == Stage([[-1, 0, "1/2"], [0, 0, 0]], [1, 0], [relu, relu])
    assert sparse.nnz == 2 and sparse.fan_in == 3
    with pytest.raises(pr.InvalidInputError):
        Stage.from_rows([[(3, 1)]], 3, [0], [relu])
    with pytest.raises(pr.InvalidInputError):
        Stage.from_rows([[(1, 1), (1, 2)]], 3, [0], [relu])
    import pickle

    assert pickle.loads(pickle.dumps(sparse)) == sparse


def maxpool_conv_net(channels: int, side: int, seed: int = 0, pool: int = 4) -> GraphNetwork:
    rng = np.random.default_rng(seed)
    weight = rng.integers(-4, 5, (channels, 1, 2, 2)) / 2
    bias = rng.integers(-2, 3, channels) / 2
    out = (side - 1 - pool) // pool + 1
    head = rng.integers(-2, 3, (3, channels * out * out)) / 2
    return GraphNetwork((1, side, side), (
        Node("c", Conv(weight, bias), ("input",)), Node("r", Activation("relu"), ("c",)),
        Node("p", MaxPool(pool), ("r",)), Node("f", Flatten(), ("p",)),
        Node("o", Dense(head, np.zeros(3)), ("f",))), "o")


def _dense_rewrite(net: GraphNetwork) -> GraphNetwork:
    """The same function with the convolution and the flatten as dense operations."""
    shapes = net.shapes
    nodes = []
    for node in net.nodes:
        if isinstance(node.op, Conv):
            n = net.input_dim
            columns = [net._plans[node.name].terms]
            weight = [[Fraction(0)] * n for _ in columns[0]]
            for i, terms in enumerate(columns[0]):
                for _, j, w in terms:
                    weight[i][j] += w
            nodes.append(Node("d", Dense(weight, net._plans[node.name].constants), ("input",)))
            nodes.append(Node("shape", pr.networks.operations.Reshape(shapes[node.name]), ("d",)))
            renamed = "shape"
        elif node.inputs == ("c",):
            nodes.append(Node(node.name, node.op, (renamed,)))
        else:
            nodes.append(node)
    return GraphNetwork((net.input_dim,), tuple(nodes), net.output)


def _slice(side: int, seed: int, scale: float):
    rng = np.random.default_rng(seed + 1000)
    origin = rng.integers(0, 17, side * side) / 16
    directions = rng.integers(-8, 9, (2, side * side)) / 16
    return pr.slice_domain(origin, directions, [-scale, -scale], [scale, scale])


@pytest.mark.parametrize("channels, side, scale", [(2, 9, 0.5), (8, 12, 0.25)])
def test_the_conv_maxpool_net_has_the_regions_of_its_dense_rewrite(channels, side, scale, monkeypatch):
    """Count and patterns equal on both engines, with the wide sparse layers of the mesh engine's rewriting
    made sparse even at this size."""
    from polyregions.regions._mesh import stages as mesh_stages

    monkeypatch.setattr(mesh_stages, "_SPARSE_ENTRIES", 64)
    net = maxpool_conv_net(channels, side)
    domain = _slice(side, 0, scale)
    flat = _dense_rewrite(net)
    dense_domain = pr.slice_domain(domain.origin, domain.directions, [-scale, -scale], [scale, scale])
    mesh = pr.enumerate_regions(net, domain, engine="mesh")
    expected = pr.enumerate_regions(flat, dense_domain, engine="mesh")
    assert len(mesh) == len(expected) > 1
    assert sorted(r.pattern for r in mesh.regions) == sorted(r.pattern for r in expected.regions)
    if channels == 2:
        lp = pr.enumerate_regions(net, domain, engine="lp")
        assert sorted(r.pattern for r in lp.regions) == sorted(r.pattern for r in mesh.regions)


def test_the_mesh_rewriting_keeps_wide_layers_sparse():
    from polyregions.regions._mesh.polygons import domain_box
    from polyregions.regions._mesh.sparse_layers import SparseLayer
    from polyregions.regions._mesh.stages import dense_twin

    net = maxpool_conv_net(16, 20)
    domain = _slice(20, 0, 0.1)
    staged = net.staged.restrict(domain.origin, domain.directions)
    twin = dense_twin(staged, domain_box(domain.region.A, domain.region.b))
    assert any(isinstance(layer, SparseLayer) for layer in twin.network.layers)
    assert not any(hasattr(layer, "weight") and not isinstance(layer, SparseLayer) and
                   layer.width * layer.fan_in > 1 << 18 for layer in twin.network.layers)


def test_compiling_23k_relus_builds_no_dense_weight():
    """The published max-pool conv net's shape: 32 channels of 2 x 2 on 28 x 28 (23,328 ReLUs), 4 x 4 pooling;
    the former dense compile took 8.5 GB."""
    net = maxpool_conv_net(32, 28)
    tracemalloc.start()
    staged = net.staged
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert staged.num_neurons == 23328 + 32 * 36
    assert peak < 400 * 2 ** 20
    assert all("weight" not in stage.__dict__ for stage in staged.layers)  # the dense form was never built
    assert staged.layers[1].nnz == 23328 and staged.layers[1].is_sparse
    domain = _slice(28, 0, 0.01)
    restricted = staged.restrict(domain.origin, domain.directions)
    assert restricted.layers[0].fan_in == 2 and "weight" not in restricted.layers[1].__dict__
    document = stages_to_json(staged)
    assert "weight_sparse" in document["stages"][1] and "weight" not in document["stages"][1]
    assert stages_from_json(document).layers[1] == staged.layers[1]


def test_exports_of_small_graph_networks_still_verify(tmp_path):
    net = maxpool_conv_net(2, 9)
    domain = _slice(9, 1, 0.25)
    complex_ = pr.enumerate_regions(net, domain, engine="mesh")
    path = tmp_path / "complex.json"
    pr.write_complex_json(complex_, path)
    result = subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(path)], capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr


def test_sparse_stage_exports_verify_and_a_changed_sparse_weight_is_rejected(tmp_path, monkeypatch):
    """Every sparse stage exported as weight_sparse (the form of stages too large for a dense weight): the
    independent checker reads it, and a weight changed in it fails the check."""
    import json

    from polyregions.networks import stages_format

    monkeypatch.setattr(stages_format, "SPARSE_EXPORT_ENTRIES", 0)
    net = maxpool_conv_net(2, 9)
    complex_ = pr.enumerate_regions(net, _slice(9, 1, 0.25), engine="mesh")
    path = tmp_path / "complex.json"
    pr.write_complex_json(complex_, path)
    document = json.loads(path.read_text())
    sparse = [s for s in document["network"]["stages"] if "weight_sparse" in s]
    assert sparse and all("weight" not in s and s["fan_in"] >= 1 for s in sparse)
    command = [sys.executable, "-m", "proofs_check", "verify"]
    result = subprocess.run([*command, str(path)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stdout + result.stderr
    row = next(row for row in sparse[0]["weight_sparse"] if row)
    row[0][1] = "1/7"  # a weight no network of this export has
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(document))
    result = subprocess.run([*command, str(tampered)], capture_output=True, text=True, timeout=600)
    assert result.returncode == 1, result.stdout + result.stderr
