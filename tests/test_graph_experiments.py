"""Sweeps and the counterexample search over graph architectures (convolutions, pooling, maxout)."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from graph_oracle import brute_force_stage_patterns

from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.experiments._search_space import GraphShape
from polyregions.experiments.architectures import parse_architecture
from polyregions.experiments.counterexamples import search
from polyregions.experiments.sweeps import run_task, sweep, sweep_tasks
from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.operations import Activation, Conv, Dense, Maxout, MaxPool, Reshape
from polyregions.regions.domains import box
from polyregions.regions.enumeration import enumerate_regions
from proofs_check.verify import verify_export

REPO = Path(__file__).resolve().parents[1]
CONV = "2-conv1d:2,1-maxpool:2-maxout:2,2"
MAXOUT = "2-maxout:3,3"


# --- networks built by hand, following the documented drawing rule -------------------------------------------

def _exact(values: np.ndarray) -> list:
    return [Fraction(v) for v in values.astype(np.float32).astype(np.float64).ravel().tolist()]


def _he(rng: np.random.Generator, rows: int, fan_in: int) -> tuple[list, list]:
    weight = rng.normal(0.0, math.sqrt(2.0 / fan_in), size=(rows, fan_in))
    return _exact(weight), _exact(rng.normal(0.0, 1e-3, size=rows))


def conv_by_hand(seed: int) -> GraphNetwork:
    """2 inputs as one channel, conv1d with 2 channels and kernel 1, ReLU, max pooling over 2, dense 2 -> 4,
    maxout over pairs."""
    rng = np.random.default_rng(seed)
    w1, b1 = _he(rng, 2, 1)
    w2, b2 = _he(rng, 4, 2)
    return GraphNetwork((2,), (
        Node("r", Reshape((1, 2)), ("input",)),
        Node("c", Conv([[[w1[0]]], [[w1[1]]]], b1), ("r",)),
        Node("a", Activation("relu"), ("c",)),
        Node("p", MaxPool(2), ("a",)),
        Node("d", Dense([w2[0:2], w2[2:4], w2[4:6], w2[6:8]], b2), ("p",)),
        Node("m", Maxout(2), ("d",))), "m")


def maxout_by_hand(seed: int) -> GraphNetwork:
    rng = np.random.default_rng(seed)
    w, b = _he(rng, 9, 2)
    return GraphNetwork((2,), (Node("d", Dense([w[2 * i: 2 * i + 2] for i in range(9)], b), ("input",)),
                               Node("m", Maxout(3), ("d",))), "m")


@pytest.fixture(scope="module")
def graph_rows(tmp_path_factory):
    path = tmp_path_factory.mktemp("sweep") / "graph.csv"
    tasks = sweep_tasks([], seeds=[0, 1, 2], architectures=[CONV, MAXOUT])
    return sweep(tasks, path, workers=0).rows


def test_sweep_counts_equal_enumeration_of_networks_built_by_hand(graph_rows):
    square = box([-1, -1], [1, 1])
    builders = {CONV: conv_by_hand, MAXOUT: maxout_by_hand}
    assert [(row["architecture"], row["seed"]) for row in graph_rows] == [
        (arch, str(seed)) for arch in (CONV, MAXOUT) for seed in range(3)]
    for row in graph_rows:
        net = builders[row["architecture"]](int(row["seed"]))
        lp = enumerate_regions(net, square, engine="lp")  # the other engine than the sweep's mesh
        assert row["engine"] == "mesh" and row["exact"] == "true"
        assert int(row["activation_regions"]) == len(lp.regions)
        assert int(row["linear_regions"]) == len(lp.linear_regions)
        assert int(row["adjacencies"]) == len(lp.adjacency)
        assert int(row["neurons"]) == net.staged.num_neurons


def test_sweep_counts_equal_the_brute_force_oracle(graph_rows):
    for row in graph_rows:
        builder = conv_by_hand if row["architecture"] == CONV else maxout_by_hand
        patterns = brute_force_stage_patterns(builder(int(row["seed"])).staged, [[1, 0], [-1, 0], [0, 1], [0, -1]],
                                              [1, 1, 1, 1])
        assert int(row["activation_regions"]) == len(patterns)


def test_graph_rows_record_the_bounds_whose_hypotheses_hold(graph_rows):
    # the trivial bound is the number of activation patterns: 2^4 ReLUs x 2^2 pooling windows x 2^2 maxout units,
    # and 3^3 for three maxout units of rank 3; ReLUs with max units meet no other bound's hypotheses, three
    # maxout units of rank 3 on the plane meet both maxout bounds: sum_{j<=2} C(3*3, j) and sum_{j<=2} C(3, j) 2^j
    trivial = {CONV: 2 ** 4 * 2 ** 2 * 2 ** 2, MAXOUT: 3 ** 3}
    maxout = {CONV: ("", ""), MAXOUT: ("46", "19")}
    for row in graph_rows:
        assert row["bound_trivial"] == str(trivial[row["architecture"]])
        assert (row["bound_maxout_serra2018"], row["bound_maxout_montufar2021"]) == maxout[row["architecture"]]
        assert row["bound_one_layer"] == row["bound_serra2018"] == row["bound_raghu2017_relu"] == ""
        assert row["bound_conv_xiong2020"] == ""
        assert row["bounds_hold"] == "true" and row["input_dim"] == "2"


def test_a_dense_specification_is_the_dense_task():
    by_widths = run_task(sweep_tasks([[2, 3, 2]], seeds=[4])[0])
    by_spec = run_task(sweep_tasks([], seeds=[4], architectures=["2-3-2"])[0])
    assert by_widths["architecture"] == by_spec["architecture"] == "2-3-2"
    assert {k: v for k, v in by_widths.items() if k != "seconds"} == \
        {k: v for k, v in by_spec.items() if k != "seconds"}


def test_the_drawn_network_has_the_specified_shapes():
    net = parse_architecture("6-conv1d:3,2-maxpool:2-4-maxout:2,3").draw(seed=0, init="pytorch_default",
                                                                         activation="relu")
    assert net.shapes["conv1"] == (3, 5) and net.shapes["maxpool2"] == (3, 2)
    assert net.shapes["act3"] == (4,) and net.output_shape == (2,)
    conv = net.nodes[1].op
    assert all(abs(w) <= 1 / math.sqrt(2) for row in conv.weight for col in row for w in col)


@pytest.mark.parametrize("text, message", [
    ("2-conv1d:2", "expected conv1d:C,K"), ("2-maxpool:2", "expected a convolution's output"),
    ("3-conv1d:1,4", "at most the input length 3"), ("2-maxout:3,1", "K >= 2"), ("2-pool:2", "expected W, conv1d"),
    ("x-3", "input size: expected a positive integer"), ("2", "expected N0-LAYER"),
    ("2-0", "expected a positive integer")])
def test_bad_specifications(text, message):
    with pytest.raises(InvalidInputError, match=message):
        parse_architecture(text)


def test_cli_sweep_with_architectures(tmp_path, capsys):
    out = tmp_path / "t.csv"
    assert main(["sweep", "--architecture", MAXOUT, "--seeds", "0", "-o", str(out), "--workers", "0",
                 "--json", "--quiet"]) == 0
    assert json.loads(capsys.readouterr().out)["rows"] == 1
    with pytest.raises(SystemExit) as exit_:
        main(["sweep", "--architecture", "2-conv1d:2", "-o", str(out)])
    assert exit_.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()
    assert error == ["polyregions: error: --architecture '2-conv1d:2': layer 1: expected conv1d:C,K[,S[,P]] (2 to 4 "
                     "integers), got 'conv1d:2'"]


# --- the search from a graph network ------------------------------------------------------------------------

GRAPH_START = {
    "format": "polyregions.network/2", "input_shape": [1, 2],
    "nodes": [{"name": "c", "op": "conv", "weight": [[[1]], [[-1]], [["1/2"]], [[2]]], "bias": [0, 0, 0, "1/2"],
               "inputs": ["input"]},
              {"name": "r", "op": "relu", "inputs": ["c"]},
              {"name": "p", "op": "maxpool", "kernel": [2], "inputs": ["r"]},
              {"name": "d", "op": "dense", "weight": [[1, 0, 1, 1], [0, 1, -1, 1]], "bias": [0, 0], "inputs": ["p"]},
              {"name": "m", "op": "maxout", "k": 2, "inputs": ["d"]}],
    "output": "m"}


def _stage_hyperplanes(doc) -> list[int]:
    """From the export alone: per stage, T per element-wise unit and C(k, 2) per max unit."""
    def breakpoints(act):
        return {"linear": 0, "relu": 1, "hardtanh": 2}.get(act, 1) if isinstance(act, str) else \
            len(act.get("breakpoints", [0]))
    counts = []
    for stage in doc["network"]["stages"]:
        count = sum(breakpoints(stage["activations"][i]) for i in stage["units"])
        counts.append(count + sum(math.comb(len(g), 2) for g in stage["groups"]))
    return counts


def test_graph_shape_moves_dense_and_conv_parameters_only(tmp_path):
    path = tmp_path / "start.json"
    path.write_text(json.dumps(GRAPH_START))
    from polyregions.networks.io import load_network

    start = load_network(path)
    shape = GraphShape(start)
    params = shape.params_of(start)
    assert shape.size == len(params) == 4 + 4 + 8 + 2
    moved = tuple(Fraction(i, 3) for i in range(shape.size))
    rebuilt = shape.build(moved)
    assert shape.params_of(rebuilt) == moved
    assert [type(n.op) for n in rebuilt.nodes] == [type(n.op) for n in start.nodes]
    assert rebuilt.nodes[2].op == start.nodes[2].op  # the pooling stays


@pytest.fixture(scope="module")
def graph_certificate(tmp_path_factory):
    folder = tmp_path_factory.mktemp("search")
    start, cert = folder / "start.json", folder / "cert.json"
    start.write_text(json.dumps(GRAPH_START))
    status = main(["search", "--claim", "activation_regions <= one_layer_bound", "--start", str(start), "-o",
                   str(cert), "--evaluations", "40", "--quiet", "--json"])
    return status, cert


def test_search_from_a_graph_network_writes_a_certificate_that_verifies(graph_certificate):
    status, cert = graph_certificate
    assert status == 1  # the one-layer bound of these 13 hyperplanes is 92: not reached with 13 neurons here
    doc = json.loads(cert.read_text())
    assert doc["network"]["format"] == "polyregions.stages/1"
    hyperplanes = _stage_hyperplanes(doc)
    assert sum(hyperplanes) == 8 + 4 + 1
    assert doc["claim"]["bound"] == sum(math.comb(13, i) for i in range(3)) == 92
    assert doc["claim"]["value"] == len(doc["regions"])
    result = verify_export(doc)
    assert result.verified, result.failure
    run = subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(cert)], capture_output=True,
                         text=True, cwd=REPO)
    assert run.returncode == 0 and run.stdout.strip().endswith("verified"), run.stdout + run.stderr


@pytest.mark.parametrize("key, value, failure", [
    ("bound", 91, "claim.bound: recorded 91, recomputed 92"), ("value", None, "claim.value"),
    ("holds", False, "claim.holds: recorded false, recomputed true")])
def test_a_tampered_graph_certificate_is_rejected(graph_certificate, key, value, failure):
    doc = json.loads(graph_certificate[1].read_text())
    tampered = copy.deepcopy(doc)
    tampered["claim"][key] = doc["claim"]["value"] + 1 if value is None else value
    result = verify_export(tampered)
    assert not result.verified and result.failure.startswith(failure), result.failure


def test_a_tampered_stage_weight_is_rejected(graph_certificate):
    doc = json.loads(graph_certificate[1].read_text())
    doc["network"]["stages"][0]["weight"][0][0] = "7"
    assert not verify_export(doc).verified


def test_search_finds_a_graph_counterexample_to_linear_equals_activation(tmp_path):
    from polyregions.networks.graph_files import graph_network_from_json

    net = graph_network_from_json(GRAPH_START, source="start")
    result = search("activation_regions == linear_regions", start=net, seed=0, evaluations=200, output=tmp_path / "c")
    assert result.found and result.verdict.value > result.verdict.bound
    assert isinstance(result.network, GraphNetwork)
    doc = json.loads((tmp_path / "c").read_text())
    assert verify_export(doc).verified
    assert doc["claim"]["value"] == len(doc["regions"]) and doc["claim"]["bound"] == len(doc["linear_regions"])


def test_serra_is_refused_for_a_graph_network():
    from polyregions.networks.graph_files import graph_network_from_json

    with pytest.raises(InvalidInputError, match="dense ReLU network"):
        search("activation_regions <= serra_bound", start=graph_network_from_json(GRAPH_START, source="start"),
               evaluations=1)
