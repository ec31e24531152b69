"""Graph networks: exact operations (against PyTorch where installed and against hand-written values), shapes,
the polyregions.network/2 file and its errors."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction

import pytest

import polyregions as pr
from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.graph_files import graph_network_from_json, graph_to_json
from polyregions.networks.io import load_network
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

F = Fraction


def _conv_net():
    return GraphNetwork((2, 4, 4), (
        Node("c", Conv([[[[1, -1], [0, 2]], [[1, 0], [0, 1]]], [[[0, 1], ["1/2", 1]], [[1, 1], [-1, 0]]]],
                       [0, "1/3"], stride=1, padding=1, dilation=2, groups=1), ("input",)),
        Node("b", BatchNorm([2, "-1/2"], [1, 0]), ("c",)),
        Node("r", PReLU(["1/4", 3]), ("b",)),
        Node("p", MaxPool(2), ("r",)),
        Node("a", AvgPool(2, stride=1, padding=1), ("p",)),
        Node("f", Flatten(), ("a",)),
        Node("d", Dense([[1, -1] * 9], [0]), ("f",))), "d")


def test_operations_against_hand_values():
    net = GraphNetwork((1, 3), (Node("c", Conv([[[1, -1]]], [0], padding=1), ("input",)),
                                Node("m", MaxPool(2), ("c",)), Node("f", Flatten(), ("m",))), "f")
    # conv of [1, 5, 2] padded: [-1, -4, 3, 2]; windows of 2: max(-1, -4), max(3, 2)
    assert net([1, 5, 2]) == (F(-1), F(3))
    assert GraphNetwork((4,), (Node("m", Maxout(2), ("input",)),), "m")([1, 7, -3, -2]) == (F(7), F(-2))
    assert GraphNetwork((2,), (Node("r", Activation(relu6()), ("input",)),), "r")([9, "5/2"]) == (F(6), F(5, 2))
    cat = GraphNetwork((2, 1), (Node("k", Concat(1), ("input", "input")), Node("s", Reshape([-1]), ("k",))), "s")
    assert cat([1, 2]) == (F(1), F(1), F(2), F(2))
    assert GraphNetwork((2,), (Node("a", Add(), ("input", "input", "input")),), "a")([1, "1/3"]) == (F(3), F(1))


def test_operations_against_torch():
    torch = pytest.importorskip("torch")
    net = _conv_net()
    model = torch.nn.Sequential(torch.nn.Conv2d(2, 2, 2, padding=1, dilation=2), torch.nn.Identity(),
                                torch.nn.PReLU(2), torch.nn.MaxPool2d(2), torch.nn.AvgPool2d(2, stride=1, padding=1),
                                torch.nn.Flatten(0), torch.nn.Linear(18, 1)).double()
    conv = net.nodes[0].op
    with torch.no_grad():
        model[0].weight.copy_(torch.tensor([[[[float(v) for v in r] for r in c] for c in o] for o in conv.weight]))
        model[0].bias.copy_(torch.tensor([float(v) for v in conv.bias]))
        model[0].weight.mul_(torch.tensor([2.0, -0.5]).view(2, 1, 1, 1))  # batch norm folded into the conv
        model[0].bias.mul_(torch.tensor([2.0, -0.5])).add_(torch.tensor([1.0, 0.0]))
        model[2].weight.copy_(torch.tensor([0.25, 3.0]))
        model[6].weight.copy_(torch.tensor([[1.0, -1.0] * 9]))
        model[6].bias.zero_()
        for seed in range(5):
            x = torch.randint(-8, 8, (2, 4, 4), generator=torch.Generator().manual_seed(seed)).double() / 4
            exact = net([F(float(v)) for v in x.reshape(-1)])
            assert [float(v) for v in exact] == model(x.unsqueeze(0)).reshape(-1).tolist()


@pytest.mark.parametrize("groups, stride", [(1, 2), (2, 1)])
def test_conv1d_groups_and_stride_against_torch(groups, stride):
    torch = pytest.importorskip("torch")
    weight = [[[1, -2, 1]], [[0, 1, 3]], [[2, 2, -1]], [[1, 0, 0]]] if groups == 2 else \
        [[[1, -2, 1], [0, 1, 1]], [[0, 1, 3], [1, 1, 1]]]
    net = GraphNetwork((2, 7), (Node("c", Conv(weight, [0] * len(weight), stride=stride, padding=1, groups=groups),
                                     ("input",)),), "c")
    conv = torch.nn.Conv1d(2, len(weight), 3, stride=stride, padding=1, groups=groups, bias=False).double()
    with torch.no_grad():
        conv.weight.copy_(torch.tensor(weight, dtype=torch.float64))
        x = torch.arange(14, dtype=torch.float64).reshape(1, 2, 7) - 5
        assert [float(v) for v in net(x.reshape(-1).tolist())] == conv(x).reshape(-1).tolist()


def test_json_round_trip_and_load(tmp_path):
    net = _conv_net()
    doc = json.loads(json.dumps(graph_to_json(net)))
    assert doc["format"] == "polyregions.network/2"
    assert graph_network_from_json(doc) == net
    path = tmp_path / "net.json"
    path.write_text(json.dumps(doc))
    loaded = load_network(path)
    assert isinstance(loaded, GraphNetwork) and loaded == net
    dense = pr.sawtooth(2)
    pr.save_network(dense, tmp_path / "dense.json")
    assert load_network(tmp_path / "dense.json") == dense  # network/1 unchanged


def test_from_network_is_the_same_function_and_patterns():
    net = pr.Network.from_layers(2, [([[1, -1], [2, 1], [0, 1]], [0, 1, "-1/2"], "relu"),
                                     ([[1, 1, -1]], [0], "linear")])
    graph = GraphNetwork.from_network(net)
    staged = graph.staged
    assert staged.neurons == net.neurons and staged.piece_counts == net.piece_counts
    for x in ([0, 0], [1, -2], ["1/3", "2/7"], [-1, 5]):
        assert graph(x) == net(x) == staged(x)
        assert staged.pattern(x) == net.pattern(x)
        assert staged.affine_map(net.pattern(x)) == net.affine_map(net.pattern(x))
        assert staged.pattern_toward(x, [1, 0]) == net.pattern_toward(x, [1, 0])


BAD = [
    (lambda d: d["nodes"][0].update(op="convolution"), "nodes[0]: op: expected one of"),
    (lambda d: d["nodes"][0].update(weight=[[[1, 2]], [[1]]]), "nodes[0] (conv 'c'): weight"),
    (lambda d: d["nodes"][0].update(bias=[0]), "nodes[0] (conv 'c'): bias: expected 2 numbers"),
    (lambda d: d["nodes"][0].update(groups=3), "nodes[0] (conv 'c'): groups"),
    (lambda d: d["nodes"][0].update(stride=[0]), "nodes[0] (conv 'c'): stride[0]"),
    (lambda d: d["nodes"][1].update(kernel=[9]), "nodes[1] (maxpool 'p')"),
    (lambda d: d["nodes"][1].update(inputs=["nowhere"]), "nodes[1] (maxpool 'p'): inputs"),
    (lambda d: d["nodes"][2].update(weight=[[1, 2, 3]]), "nodes[2] (dense 'o'): weight: expected 4 columns"),
    (lambda d: d["nodes"][2].update(bias=["1/0"]), "nodes[2] (dense 'o'): bias[0]"),
    (lambda d: d["nodes"][2].update(extra=1), "nodes[2] (dense 'o'): extra"),
    (lambda d: d["nodes"][1].pop("kernel"), "nodes[1] (maxpool 'p'): kernel: expected a value"),
    (lambda d: d.update(output="missing"), "output: expected the name of a node"),
    (lambda d: d["nodes"].append({"name": "p", "op": "relu", "inputs": ["o"]}), "nodes[3] (activation 'p'): name"),
    (lambda d: d["nodes"].append({"name": "q", "op": "add", "inputs": ["o", "p"]}), "nodes[3] (add 'q')"),
    (lambda d: d.update(input_shape=[0]), "input_shape"),
]


def _document():
    return {"format": "polyregions.network/2", "input_shape": [1, 4],
            "nodes": [{"name": "c", "op": "conv", "inputs": ["input"], "weight": [[[1, -1]], [[1, "1/2"]]],
                       "bias": [0, "-1/3"], "padding": [1]},
                      {"name": "p", "op": "maxpool", "inputs": ["c"], "kernel": [2]},
                      {"name": "o", "op": "dense", "inputs": ["p"], "weight": [[1, -1, 2, 1]], "bias": [0]}],
            "output": "o"}


@pytest.mark.parametrize("mutate, message", BAD)
def test_bad_documents_give_one_clear_error(mutate, message):
    doc = _document()
    graph_network_from_json(doc, source="net.json")  # the document itself is fine
    mutate(doc)
    with pytest.raises(pr.InvalidInputError) as error:
        graph_network_from_json(doc, source="net.json")
    assert str(error.value).startswith("net.json: ") and message in str(error.value)


@pytest.mark.parametrize("mutate, message", BAD[:3] + BAD[6:8])
def test_bad_files_on_the_command_line(tmp_path, mutate, message):
    doc = _document()
    mutate(doc)
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(doc))
    run = subprocess.run([sys.executable, "-m", "polyregions", "regions", str(path), "--box", "-1,1"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 2
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("polyregions: error: ") and str(path) in lines[0]
    assert message in lines[0]


def test_graph_file_on_the_command_line(tmp_path):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(_document()))
    run = subprocess.run([sys.executable, "-m", "polyregions", "regions", str(path), "--box", "-1,1", "--json"],
                         capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    graph = load_network(path)
    assert result["neurons"] == graph.staged.num_neurons == 4  # two channels, two windows each
    assert result["exact"] is True


def test_library_errors_name_the_node():
    with pytest.raises(pr.InvalidInputError, match=r"nodes\[1\] \(dense 'd'\): weight: expected 3 columns"):
        GraphNetwork((3,), (Node("r", Activation("relu"), ("input",)), Node("d", Dense([[1, 2]], [0]), ("r",))), "d")
    with pytest.raises(pr.InvalidInputError, match="conv: weight: expected 3 axes"):
        Conv([[1, 2]], [0])
    with pytest.raises(pr.InvalidInputError, match="maxout"):
        GraphNetwork((3,), (Node("m", Maxout(2), ("input",)),), "m")


@pytest.mark.parametrize("command, extra, key", [
    ("boundary", ["--box", "-1,1"], "boundary_volumes"),
    ("topology", ["--box", "-1,1"], "betti"),
    ("local", ["--radius", "1/2"], "activation_regions"),
])
def test_graph_files_in_other_commands(tmp_path, command, extra, key):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(_document()))
    if command == "local":
        points = tmp_path / "points.json"
        points.write_text("[[0, 0, 0, 0], [0.5, -1, 0, 1]]")
        extra = extra + ["--points", str(points)]
    run = subprocess.run([sys.executable, "-m", "polyregions", command, str(path), *extra, "--json"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert key in json.loads(run.stdout)
