"""Sweep specifications beyond dense layers (conv2d, stride and padding, average and 2-D max pooling, residual
blocks), template networks redrawn per seed, and the convolutional and maxout bound columns of graph rows."""

from __future__ import annotations

import csv
import json
import math
import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from graph_oracle import brute_force_stage_patterns
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.experiments.architectures import parse_activation, parse_architecture
from polyregions.experiments.graph_bounds import graph_bounds
from polyregions.experiments.sweeps import COLUMNS, read_table, run_task, sweep, sweep_tasks
from polyregions.experiments.templates import load_template, read_architecture
from polyregions.measures.bounds import maxout_montufar_bound, maxout_serra_bound
from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.io import network_from_arrays
from polyregions.networks.operations import (
    Activation,
    Add,
    AvgPool,
    BatchNorm,
    Conv,
    Dense,
    Flatten,
    Maxout,
    MaxPool,
    Reshape,
)
from polyregions.regions.domains import box, slice_domain
from polyregions.regions.enumeration import enumerate_regions

GRAPH_BOUNDS = ("bound_conv_xiong2020", "bound_maxout_serra2018", "bound_maxout_montufar2021")
DENSE_BOUNDS = ("bound_one_layer", "bound_raghu2017_relu", "bound_raghu2017_hardtanh", "bound_raghu2017_breakpoints",
                "bound_serra2018")


# --- networks built by hand, following the documented drawing rule (he_normal, fan_in of one unit) ------------

def _exact(values: np.ndarray) -> list[Fraction]:
    return [Fraction(v) for v in values.astype(np.float32).astype(np.float64).ravel().tolist()]


def _he(rng: np.random.Generator, rows: int, fan_in: int) -> tuple[np.ndarray, list[Fraction]]:
    weight = rng.normal(0.0, math.sqrt(2.0 / fan_in), size=(rows, fan_in))
    bias = rng.normal(0.0, 1e-3, size=rows)
    return np.array(_exact(weight), dtype=object).reshape(rows, fan_in), _exact(bias)


def _chain(input_shape, *ops) -> GraphNetwork:
    nodes, previous = [], "input"
    for i, op in enumerate(ops):
        nodes.append(Node(f"n{i}", op, (previous,)))
        previous = f"n{i}"
    return GraphNetwork(input_shape, tuple(nodes), previous)


def conv2d_pool_by_hand(seed: int) -> GraphNetwork:
    """4-conv2d:1,2,1,1-maxpool:2: the input as a 2 x 2 image, one 2 x 2 kernel with padding 1 (a 3 x 3 map),
    ReLU, one 2 x 2 max-pooling window."""
    rng = np.random.default_rng(seed)
    w, b = _he(rng, 1, 4)
    return _chain((4,), Reshape((1, 2, 2)), Conv(w.reshape(1, 1, 2, 2), b, padding=1), Activation("relu"),
                  MaxPool(2))


def conv2d_avgpool_by_hand(seed: int) -> GraphNetwork:
    """4-conv2d:2,1-avgpool:2-2: two 1 x 1 kernels, ReLU, 2 x 2 averages, dense 2 -> 2, ReLU."""
    rng = np.random.default_rng(seed)
    w1, b1 = _he(rng, 2, 1)
    w2, b2 = _he(rng, 2, 2)
    return _chain((4,), Reshape((1, 2, 2)), Conv(w1.reshape(2, 1, 1, 1), b1), Activation("relu"), AvgPool(2),
                  Dense(w2, b2), Activation("relu"))


def conv1d_strided_by_hand(seed: int) -> GraphNetwork:
    """3-conv1d:2,2,2,1-avgpool:2: kernel 2, stride 2, padding 1 on a length-3 input (2 positions), ReLU,
    averages of 2."""
    rng = np.random.default_rng(seed)
    w, b = _he(rng, 2, 2)
    return _chain((3,), Reshape((1, 3)), Conv(w.reshape(2, 1, 2), b, stride=2, padding=1), Activation("relu"),
                  AvgPool(2))


def residual_by_hand(seed: int, widths: tuple[int, ...]) -> GraphNetwork:
    """N0-[dense W]-res:W: the block relu(x + D2(relu(D1(x))))."""
    rng = np.random.default_rng(seed)
    nodes, previous = [], "input"
    if len(widths) == 3:
        w, b = _he(rng, widths[1], widths[0])
        nodes += [Node("d", Dense(w, b), ("input",)), Node("r", Activation("relu"), ("d",))]
        previous = "r"
    width = widths[-1]
    w1, b1 = _he(rng, width, width)
    w2, b2 = _he(rng, width, width)
    nodes += [Node("a", Dense(w1, b1), (previous,)), Node("ra", Activation("relu"), ("a",)),
              Node("b", Dense(w2, b2), ("ra",)), Node("s", Add(), (previous, "b")),
              Node("out", Activation("relu"), ("s",))]
    return GraphNetwork((widths[0],), tuple(nodes), "out")


def _cube(n: int) -> tuple[list[list[int]], list[int]]:
    """``[-1, 1]^n`` as ``A t <= b``."""
    rows = [[int(i == j) for j in range(n)] for i in range(n)]
    return rows + [[-v for v in row] for row in rows], [1] * (2 * n)


def _functions_agree(a, b, dim: int, seed: int = 0) -> bool:
    rng = np.random.default_rng(seed)
    points = [[Fraction(int(v), 7) for v in rng.integers(-7, 8, size=dim)] for _ in range(20)]
    return all(a(p) == b(p) for p in points)


CASES = {
    "4-conv2d:1,2,1,1-maxpool:2": conv2d_pool_by_hand,
    "4-conv2d:2,1-avgpool:2-2": conv2d_avgpool_by_hand,
    "3-conv1d:2,2,2,1-avgpool:2": conv1d_strided_by_hand,
    "2-res:2": lambda seed: residual_by_hand(seed, (2, 2)),
    "2-3-res:3": lambda seed: residual_by_hand(seed, (2, 3, 3)),
}


@pytest.mark.parametrize("text", list(CASES))
def test_each_new_kind_draws_the_network_built_by_hand(text):
    spec = parse_architecture(text)
    for seed in (0, 1):
        drawn = spec.draw(seed=seed, init="he_normal", activation="relu")
        hand = CASES[text](seed)
        assert [node.op for node in drawn.nodes if not isinstance(node.op, (Reshape, Flatten))] == \
            [node.op for node in hand.nodes if not isinstance(node.op, Reshape)]
        assert drawn.staged == hand.staged
        assert spec.parameters == sum(len(n.op.bias) * (1 + math.prod(np.array(n.op.weight, dtype=object).shape[1:]))
                                      for n in hand.nodes if isinstance(n.op, (Dense, Conv)))


@pytest.fixture(scope="module")
def new_kind_rows(tmp_path_factory):
    path = tmp_path_factory.mktemp("kinds") / "t.csv"
    return sweep(sweep_tasks([], seeds=[0, 1], architectures=list(CASES)), path, workers=0).rows


def test_new_kind_rows_count_the_brute_force_patterns_of_the_networks_built_by_hand(new_kind_rows):
    assert [(row["architecture"], row["seed"]) for row in new_kind_rows] == \
        [(text, str(seed)) for text in CASES for seed in (0, 1)]
    for row in new_kind_rows:
        net = CASES[row["architecture"]](int(row["seed"]))
        A, b = _cube(net.input_dim)
        assert int(row["activation_regions"]) == len(brute_force_stage_patterns(net.staged, A, b))
        assert row["exact"] == "true" and row["bounds_hold"] == "true"
        assert int(row["neurons"]) == net.staged.num_neurons
        assert int(row["bound_trivial"]) == math.prod(net.staged.piece_counts)


def test_a_2d_convolution_has_the_same_regions_on_a_plane_under_both_engines():
    drawn = parse_architecture("4-conv2d:1,2,1,1-maxpool:2").draw(seed=3, init="he_normal", activation="relu")
    plane = slice_domain([0, 0, 0, 0], [[1, 0, 0, 1], [0, 1, -1, 0]], [-1, -1], [1, 1])
    mesh = enumerate_regions(drawn, plane, engine="mesh")
    lp = enumerate_regions(conv2d_pool_by_hand(3), plane, engine="lp")
    assert sorted(r.pattern for r in mesh.regions) == sorted(r.pattern for r in lp.regions)
    assert len(mesh.linear_regions) == len(lp.linear_regions)


# --- residual blocks as dense networks --------------------------------------------------------------------

def _residual_as_dense(net: GraphNetwork, shift: Fraction | None):
    """The block relu(x + W2 relu(W1 x + b1) + b2) as two dense ReLU layers; the identity path is
    relu(x) - relu(-x) (``shift`` None) or relu(x + shift) - shift (a shift that keeps x + shift > 0 on the domain,
    so that those neurons never switch)."""
    dense = [n.op for n in net.nodes if isinstance(n.op, Dense)]
    first = len(dense) == 3
    d1, d2 = dense[-2], dense[-1]
    w1, b1 = np.array(d1.weight, dtype=object), list(d1.bias)
    w2, b2 = np.array(d2.weight, dtype=object), list(d2.bias)
    n = w1.shape[0]
    eye = np.array([[Fraction(int(i == j)) for j in range(n)] for i in range(n)], dtype=object)
    if shift is None:
        up = np.vstack([w1, eye, -eye])
        up_bias = b1 + [Fraction(0)] * (2 * n)
        down = np.hstack([w2, eye, -eye])
        down_bias = b2
    else:
        up = np.vstack([w1, eye])
        up_bias = b1 + [shift] * n
        down = np.hstack([w2, eye])
        down_bias = [v - shift for v in b2]
    weights, biases = [up, down], [up_bias, down_bias]
    if first:  # the block reads x = relu(D0 input): the same layer first, then the block's first map after it
        d0 = dense[0]
        weights.insert(0, np.array(d0.weight, dtype=object))
        biases.insert(0, list(d0.bias))
    return network_from_arrays(weights, biases, ["relu"] * len(weights))


@pytest.mark.parametrize("text, shift", [("2-res:2", Fraction(2)), ("2-3-res:3", Fraction(1))])
def test_residual_rows_equal_their_dense_rewriting(new_kind_rows, text, shift):
    for row in (r for r in new_kind_rows if r["architecture"] == text):
        net = CASES[text](int(row["seed"]))
        cube = box([-1] * net.input_dim, [1] * net.input_dim)
        by_halves = _residual_as_dense(net, None)
        shifted = _residual_as_dense(net, shift)
        assert _functions_agree(net, by_halves, net.input_dim) and _functions_agree(net, shifted, net.input_dim)
        # the same function: the same linear regions; relu(x) - relu(-x) adds neurons switching at x = 0
        halves = enumerate_regions(by_halves, cube)
        assert int(row["linear_regions"]) == len(halves.linear_regions)
        assert int(row["activation_regions"]) <= len(halves.regions)
        # with identity neurons that never switch on the cube, the activation regions are the same
        assert int(row["activation_regions"]) == len(enumerate_regions(shifted, cube).regions)


def test_residual_rows_record_only_the_trivial_bound(new_kind_rows):
    for row in new_kind_rows:
        if "res" in row["architecture"]:
            assert all(row[c] == "" for c in GRAPH_BOUNDS + DENSE_BOUNDS) and row["bound_trivial"]


# --- bound columns --------------------------------------------------------------------------------------------

def test_bound_values_on_small_known_architectures():
    def bounds(text):
        return graph_bounds(parse_architecture(text).draw(seed=0, init="he_normal", activation="relu"))

    # three rank-3 maxout units on the plane: Serra sum_{j<=2} C(9, j) = 46, Montufar 1 + 3*2 + 3*4 = 19
    assert bounds("2-maxout:3,3") == {"trivial": 27, "maxout_serra2018": 46, "maxout_montufar2021": 19}
    # two layers: widths 2, 3 of rank 2 on R^4; d_2 = min(4, 2) = 2
    assert bounds("4-maxout:2,2-maxout:3,2") == {
        "trivial": 2 ** 5, "maxout_serra2018": maxout_serra_bound(4, [2, 3], [2, 2]),
        "maxout_montufar2021": (1 + 2 + 1) * (1 + 3 + 3)}
    # two disjoint fields of two inputs, one channel: (1 + 1)^2 = 4 = 2^2
    assert bounds("4-conv1d:1,2,2") == {"trivial": 4, "conv_xiong2020": 4}
    # fields of one input, two channels each, on two inputs: 3 * 3 = 9 < 2^4
    assert bounds("2-conv1d:2,1") == {"trivial": 16, "conv_xiong2020": 9}
    # a later dense layer of 2 neurons on a state of dimension min(2, 4): 9 * (1 + 2 + 1)
    assert bounds("2-conv1d:2,1-2") == {"trivial": 64, "conv_xiong2020": 36}
    # hard tanh: T = 2 hyperplanes per neuron
    net = parse_architecture("2-conv1d:2,1").draw(seed=0, init="he_normal", activation="hardtanh")
    assert graph_bounds(net) == {"trivial": 3 ** 4, "conv_xiong2020": (1 + 4) ** 2}
    # max pooling after the ReLUs, a residual block, or a dense first layer: only the trivial bound
    for text in ("4-conv1d:2,2-maxpool:3", "2-res:2", "4-2-conv1d:1,2", "2-conv1d:2,1-maxout:2,2"):
        assert list(bounds(text)) == ["trivial"], text


def test_maxout_bounds_after_max_pooling_without_activation():
    """A convolution without activation, then max pooling, then maxout: every non-linear layer is max units."""
    rng = np.random.default_rng(0)
    w1, b1 = _he(rng, 2, 2)
    w2, b2 = _he(rng, 4, 2)
    net = _chain((1, 3), Conv(w1.reshape(2, 1, 2), b1), MaxPool(2), Dense(w2, b2), Maxout(2))
    found = graph_bounds(net)
    assert found == {"trivial": 2 ** 2 * 2 ** 2, "maxout_serra2018": maxout_serra_bound(3, [2, 2], 2),
                     "maxout_montufar2021": maxout_montufar_bound(3, [2, 2], 2)}
    count = len(brute_force_stage_patterns(net.staged, *_cube(3)))
    assert all(count <= bound for bound in found.values())


def test_a_conv_template_with_batch_norm_gets_the_conv_bound():
    net = _chain((1, 4), Conv([[[1, 1]], [[1, -1]]], [0, 0], stride=2), BatchNorm([2, "1/2"], [0, 1]),
                 Activation("relu"), Flatten(), Dense([[1, 1, 1, 1]], [0]),
                 Activation("relu"))
    # fields: two positions, two neurons reading two inputs each: (1 + 2 + 1)^2 = 16 = dense sum_{j<=4} C(4, j);
    # then one neuron on a state of dimension 4: 2
    assert graph_bounds(net) == {"trivial": 2 ** 5, "conv_xiong2020": 16 * 2}


LAYERS = st.sampled_from(["1", "2", "3", "conv1d:1,2", "conv1d:2,1", "conv1d:2,2,2", "conv1d:1,2,1,1", "maxpool:2",
                          "avgpool:2", "maxout:1,2", "maxout:2,2", "maxout:1,3", "res:2", "res:3"])


@st.composite
def small_specs(draw):
    n0 = draw(st.sampled_from([1, 2, 3, 4]))
    layers = draw(st.lists(LAYERS, min_size=1, max_size=3))
    if n0 == 4 and draw(st.booleans()):
        layers[0] = draw(st.sampled_from(["conv2d:1,2", "conv2d:2,1", "conv2d:1,2,1,1"]))
    text = "-".join([str(n0)] + layers)
    try:
        spec = parse_architecture(text)
    except InvalidInputError:
        spec = parse_architecture(f"{n0}-{draw(st.sampled_from(['2', 'maxout:2,2', 'conv1d:1,1']))}")
    net = spec.draw(seed=0, init="he_normal", activation="relu")
    if math.prod(net.staged.piece_counts) > 512:  # keep the brute force small
        spec = parse_architecture(f"{n0}-2")
    return spec.text, draw(st.integers(0, 3)), draw(st.sampled_from(["relu", "hardtanh", "leaky_relu"]))


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(small_specs())
def test_a_graph_row_never_exceeds_a_bound_it_lists(case):
    text, seed, activation = case
    spec = parse_architecture(text)
    row = run_task(sweep_tasks([], seeds=[seed], activations=[activation], architectures=[text])[0])
    count = int(row["activation_regions"])
    listed = [int(row[c]) for c in COLUMNS if c.startswith("bound_") and row[c]]
    assert listed and all(count <= bound for bound in listed) and row["bounds_hold"] == "true"
    if not spec.is_dense:
        net = spec.draw(seed=seed, init="he_normal", activation=parse_activation(activation)[1])
        assert count == len(brute_force_stage_patterns(net.staged, *_cube(spec.input_dim)))
        assert {c for c in GRAPH_BOUNDS if row[c]} == {f"bound_{name}" for name in graph_bounds(net)} - \
            {"bound_trivial"}


def test_graph_rows_on_maxout_and_conv_specs_list_their_bounds(tmp_path):
    rows = sweep(sweep_tasks([], seeds=[0, 1], architectures=["2-maxout:3,3", "2-conv1d:2,1-2"]),
                 tmp_path / "t.csv", workers=0).rows
    for row in rows:
        count = int(row["activation_regions"])
        if row["architecture"] == "2-maxout:3,3":
            assert (row["bound_maxout_serra2018"], row["bound_maxout_montufar2021"]) == ("46", "19")
            assert row["bound_conv_xiong2020"] == ""
            assert count <= 19
        else:
            assert row["bound_conv_xiong2020"] == "36" and row["bound_maxout_serra2018"] == ""
            assert count <= 36
        assert all(row[c] == "" for c in DENSE_BOUNDS)


def test_dense_rows_leave_the_graph_bounds_empty():
    row = run_task(sweep_tasks([[2, 3]], seeds=[0])[0])
    assert all(row[c] == "" for c in GRAPH_BOUNDS) and row["bound_serra2018"] == "7"


def test_a_table_written_before_the_graph_bounds_is_read_and_completed(tmp_path):
    path = tmp_path / "old.csv"
    old_columns = [c for c in COLUMNS if c not in GRAPH_BOUNDS]
    row = run_task(sweep_tasks([[1, 2]], seeds=[0])[0])
    with open(path, "w", newline="") as handle:  # as the sweep wrote it before the graph bounds
        writer = csv.DictWriter(handle, fieldnames=old_columns, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        writer.writerow(row)
    assert read_table(path) == [row]
    result = sweep(sweep_tasks([[1, 2]], seeds=[0, 1]), path, workers=0)
    assert result.skipped == 1 and result.computed == 1
    assert path.read_text().splitlines()[0] == ",".join(COLUMNS)


# --- templates --------------------------------------------------------------------------------------------

TEMPLATE = {
    "format": "polyregions.network/2", "input_shape": [1, 4],
    "nodes": [{"name": "c", "op": "conv", "weight": [[[1, 2]], [[3, 4]]], "bias": [0, 0], "stride": [2],
               "inputs": ["input"]},
              {"name": "bn", "op": "batchnorm", "scale": ["1/2", 3], "shift": [0, "-1/4"], "inputs": ["c"]},
              {"name": "r", "op": "relu", "inputs": ["bn"]},
              {"name": "p", "op": "avgpool", "kernel": [2], "inputs": ["r"]},
              {"name": "d", "op": "dense", "weight": [[1, 1]], "bias": [0], "inputs": ["p"]},
              {"name": "h", "op": "activation", "activation": "hardtanh", "inputs": ["d"]}],
    "output": "h"}


@pytest.fixture
def template_file(tmp_path):
    path = tmp_path / "template.json"
    path.write_text(json.dumps(TEMPLATE))
    return path


def test_a_template_keeps_its_graph_and_redraws_dense_and_conv_weights_per_seed(template_file):
    template = load_template(template_file)
    first, again, second = (template.draw(seed=s, init="he_normal") for s in (0, 0, 1))
    assert first == again and first != second
    for net in (first, second):
        assert [(n.name, type(n.op), n.inputs) for n in net.nodes] == \
            [(n.name, type(n.op), n.inputs) for n in template.network.nodes]
        assert net.nodes[1].op == template.network.nodes[1].op and net.nodes[3].op == template.network.nodes[3].op
        assert net.nodes[0].op.stride == (2,) and net.nodes[5].op == template.network.nodes[5].op
    # the drawing rule: conv (rows 2, fan_in 2) then dense (rows 1, fan_in 2), one generator per seed
    rng = np.random.default_rng(1)
    w_conv, b_conv = _he(rng, 2, 2)
    w_dense, b_dense = _he(rng, 1, 2)
    assert second.nodes[0].op == Conv(w_conv.reshape(2, 1, 2), b_conv, stride=2)
    assert second.nodes[4].op == Dense(w_dense, b_dense)
    assert template.parameters == 2 * 2 + 2 + 2 + 1 and template.activation_label == "relu+hardtanh"


def test_template_sweep_rows(template_file, tmp_path):
    template = load_template(template_file)
    tasks = sweep_tasks([], seeds=[0, 1], activations=["relu", "leaky_relu"], architectures=[f"@{template_file}"])
    assert [t.key[:4] for t in tasks] == [(template.text, str(s), "he_normal", "relu+hardtanh") for s in (0, 1)]
    assert template.text == f"@{template_file}#{template.digest}" and len(template.digest) == 12
    rows = sweep(tasks, tmp_path / "t.csv", workers=0).rows
    counts = []
    for row in rows:
        net = template.draw(seed=int(row["seed"]), init="he_normal")
        counts.append(int(row["activation_regions"]))
        assert counts[-1] == len(brute_force_stage_patterns(net.staged, *_cube(4)))
        assert row["bounds_hold"] == "true" and row["bound_trivial"] == str(2 ** 4 * 3)
        # conv (stride 2: two disjoint fields of two inputs, two neurons each), then one hard tanh unit (T = 2):
        # T = 2 for the whole network; a field's two neurons give two pairs of parallel lines in its two inputs,
        # 3 * 3 = 9 cells, so B_1 = 9^2 = 81, times the 1 + 2 + 1 cells of the last unit's 2 hyperplanes
        assert row["bound_conv_xiong2020"] == str(81 * 4)


def test_an_edited_template_is_a_new_architecture(template_file):
    before = load_template(template_file).text
    edited = dict(TEMPLATE, nodes=[dict(TEMPLATE["nodes"][0], bias=[0, 1])] + TEMPLATE["nodes"][1:])
    template_file.write_text(json.dumps(edited))
    assert load_template(template_file).text != before


def test_cli_sweep_with_a_template_and_new_kinds(template_file, tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main(["sweep", "--architecture", f"@{template_file}", "--architecture", "4-conv2d:1,2-2",
                 "--seeds", "0", "-o", str(out), "--workers", "0", "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 2
    rows = read_table(out)
    assert rows[0]["architecture"].startswith(f"@{template_file}#") and rows[1]["architecture"] == "4-conv2d:1,2-2"


# --- bad input ----------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text, message", [
    ("5-conv2d:1,2", "layer 1 (conv2d): expected a square number of inputs (read as one square channel), got 5"),
    ("4-3-conv2d:1,1", "layer 2 (conv2d): expected a square number of inputs"),
    ("4-conv1d:2,2-conv2d:1,1", "layer 2 (conv2d): expected a vector or a 2-D convolution's or pooling's output, "
                                "got a 1-D one of shape [2, 3]"),
    ("4-conv2d:1,1-conv1d:1,1", "layer 2 (conv1d): expected a vector or a 1-D convolution's or pooling's output"),
    ("4-conv2d:1,3", "layer 1 (conv2d): expected a kernel of at most the input length 2, got 3"),
    ("4-conv1d:1,2,1,2", "layer 1: expected a padding of at most K - 1 = 1"),
    ("4-conv1d:1,2,0", "layer 1: expected a positive integer, got '0'"),
    ("4-conv1d:1,2,1,1,1", "layer 1: expected conv1d:C,K[,S[,P]] (2 to 4 integers)"),
    ("2-avgpool:2", "layer 1 (avgpool): expected a convolution's output"),
    ("4-conv2d:1,1-maxpool:3", "layer 2 (maxpool): expected a window of at most 2"),
    ("4-3-res:2", "layer 2 (res): expected an incoming size of 2 (the block's width), got 3"),
    ("4-res:2,2", "layer 1: expected res:W (1 integer)"),
    ("2-conv3d:1,1", "layer 1: expected W, conv1d:C,K, conv2d:C,K, maxpool:P, avgpool:P, maxout:W,K or res:W"),
    ("1000000-conv1d:1,1-conv1d:1,1", "expected a network of at most 1,000,000 weights and biases and as many"),
    ("2-\u00b2", "layer 1: expected a positive integer"),
])
def test_bad_specifications_name_the_layer(text, message):
    with pytest.raises(InvalidInputError, match=re.escape(message)):
        parse_architecture(text)


@pytest.mark.parametrize("content, message", [
    (None, "architecture '@{path}': {path}"),
    ("{", "architecture '@{path}': {path}"),
    (json.dumps({"format": "polyregions.network/2", "input_shape": [2], "nodes": [
        {"name": "m", "op": "maxout", "k": 2, "inputs": ["input"]}], "output": "m"}),
     "architecture '@{path}': expected a network with dense or convolutional nodes"),
    (json.dumps(dict(TEMPLATE, output="nowhere")), "architecture '@{path}': {path}: output"),
])
def test_bad_templates(tmp_path, content, message):
    path = tmp_path / "bad.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(InvalidInputError) as error:
        read_architecture(f"@{path}")
    assert str(error.value).startswith(message.format(path=path))


def test_cli_bad_architectures_exit_2_with_one_line(tmp_path, capsys):
    out = tmp_path / "t.csv"
    for argument, expected in [
            ("@", "polyregions: error: --architecture '@': expected a network file after '@', got nothing"),
            (f"@{tmp_path / 'missing.json'}", f"polyregions: error: --architecture '@{tmp_path / 'missing.json'}': "),
            ("4-3-res:2", "polyregions: error: --architecture '4-3-res:2': layer 2 (res): expected an incoming size "
                          "of 2 (the block's width), got 3 (shape [3])")]:
        with pytest.raises(SystemExit) as exit_:
            main(["sweep", "--architecture", argument, "-o", str(out)])
        assert exit_.value.code == 2
        lines = capsys.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith(expected), lines
    assert not Path(out).exists()
