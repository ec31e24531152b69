"""ONNX models read as exact graph networks: the exact forward pass equals the ONNX reference evaluator's (and
torch's, for exported models) to float precision; unsupported operators get one clear error naming the node."""

import io
import subprocess
import sys

import numpy as np
import pytest

from polyregions.errors import InvalidInputError

onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from onnx.reference import ReferenceEvaluator  # noqa: E402

from polyregions.networks.graph import GraphNetwork  # noqa: E402
from polyregions.networks.importers.onnx import graph_from_onnx  # noqa: E402
from polyregions.networks.io import load_network  # noqa: E402


def _model(nodes, input_shape, output_shape, initializers, *, output="y"):
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                         ["N", *input_shape])],
                              [helper.make_tensor_value_info(output, TensorProto.FLOAT, ["N", *output_shape])],
                              [numpy_helper.from_array(np.asarray(v, dtype=np.float32), k)
                               for k, v in initializers.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _matches_reference(model, net, shape, *, samples=3, seed=0):
    rng = np.random.default_rng(seed)
    session = ReferenceEvaluator(model)
    for _ in range(samples):
        x = rng.normal(size=(1, *shape)).astype(np.float32)
        expected = session.run(None, {"x": x})[0].reshape(-1).astype(np.float64)
        got = np.array([float(v) for v in net(x.astype(np.float64))])
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)  # the evaluator computes in float32


def test_matmul_add_gemm_clip_prelu_concat_and_reshape():
    rng = np.random.default_rng(1)
    init = {"W1": rng.normal(size=(4, 3)), "b1": rng.normal(size=3), "W2": rng.normal(size=(2, 6)),
            "c2": rng.normal(size=2), "slope": [0.25], "lo": -0.5, "hi": 0.75, "shape": np.array([1, 6])}
    nodes = [helper.make_node("MatMul", ["x", "W1"], ["m"]), helper.make_node("Add", ["m", "b1"], ["a"]),
             helper.make_node("PRelu", ["a", "slope"], ["p"]), helper.make_node("Relu", ["a"], ["r"]),
             helper.make_node("Concat", ["p", "r"], ["c"], axis=1),
             helper.make_node("Reshape", ["c", "shape64"], ["s"]),
             helper.make_node("Gemm", ["s", "W2", "c2"], ["g"], transB=1, alpha=0.5, beta=2.0),
             helper.make_node("Clip", ["g", "lo", "hi"], ["y"])]
    model = _model(nodes, [4], [2], {k: v for k, v in init.items() if k != "shape"})
    model.graph.initializer.append(numpy_helper.from_array(np.array([1, 6], dtype=np.int64), "shape64"))
    net = graph_from_onnx(model)
    assert isinstance(net, GraphNetwork) and net.input_shape == (4,)
    assert [n.op.kind for n in net.nodes][:3] == ["dense", "scale", "prelu"]  # the Add: a Scale node (folded later)
    _matches_reference(model, net, (4,))


def test_conv_batchnorm_pool_flatten_leaky_relu_and_residual_add():
    rng = np.random.default_rng(2)
    init = {"K": rng.normal(size=(2, 1, 3, 3)), "B": rng.normal(size=2), "scale": rng.normal(size=2),
            "shift": rng.normal(size=2), "mean": rng.normal(size=2), "var": rng.random(2) + 0.5,
            "K2": rng.normal(size=(2, 2, 1, 1)), "W": rng.normal(size=(3, 8))}
    nodes = [helper.make_node("Conv", ["x", "K", "B"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node("BatchNormalization", ["c", "scale", "shift", "mean", "var"], ["n"], epsilon=1e-3),
             helper.make_node("LeakyRelu", ["n"], ["l"], alpha=0.2),
             helper.make_node("Conv", ["l", "K2"], ["c2"]), helper.make_node("Add", ["l", "c2"], ["res"]),
             helper.make_node("MaxPool", ["res"], ["mp"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("AveragePool", ["mp"], ["ap"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              strides=[1, 1], count_include_pad=1),
             helper.make_node("Flatten", ["ap"], ["f"]), helper.make_node("Gemm", ["f", "W"], ["y"], transB=1)]
    model = _model(nodes, [1, 4, 4], [3], init)
    net = graph_from_onnx(model)
    assert net.input_shape == (1, 4, 4) and net.output_shape == (3,)
    _matches_reference(model, net, (1, 4, 4))


def test_torch_exported_conv_net_matches_torch(tmp_path):
    torch = pytest.importorskip("torch")
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 2, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                          nn.Linear(2 * 3 * 3, 2)).eval()
    path = tmp_path / "net.onnx"
    buffer = io.BytesIO()
    torch.onnx.export(model, (torch.randn(1, 1, 6, 6),), buffer, dynamo=False)
    path.write_bytes(buffer.getvalue())
    net = load_network(path)
    x = torch.randn(4, 1, 6, 6)
    with torch.no_grad():
        expected = model.double()(x.double()).numpy()
    for i in range(4):
        got = [float(v) for v in net(x[i].double().numpy())]
        np.testing.assert_allclose(got, expected[i], rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("node, message", [
    (helper.make_node("Sigmoid", ["x"], ["y"]), r"node 'y' \(Sigmoid\): expected one of the operators Abs, .*"
                                                r"got Sigmoid \(not piecewise linear\)"),
    (helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3], strides=[2], ceil_mode=1),
     r"\(MaxPool\): max_pool: ceil_mode: expected False \(or windows that fit exactly\)"),
    (helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[2], pads=[0, 1]),
     r"\(MaxPool\): pads: expected symmetric padding"),
    (helper.make_node("Reshape", ["x", "x"], ["y"]), r"\(Reshape\): shape: expected a constant"),
])
def test_unsupported_operators_and_attributes_are_named(node, message):
    model = _model([node], [1, 4], [1, 2], {"K": np.ones((1, 1, 2))})
    with pytest.raises(InvalidInputError, match="model.onnx: node " + message.split("node ", 1)[-1]
                       if "node " in message else message):
        graph_from_onnx(model, what="model.onnx")


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "polyregions", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def test_cli_reports_a_bad_onnx_file_in_one_line(tmp_path):
    bad = _model([helper.make_node("Tanh", ["x"], ["y"])], [2], [2], {})
    onnx.save(bad, str(tmp_path / "tanh.onnx"))
    (tmp_path / "junk.onnx").write_bytes(b"not a protobuf \xff\xff")
    for name, expected in (("tanh.onnx", "tanh.onnx: node 'y' (Tanh): expected one of the operators"),
                           ("junk.onnx", "junk.onnx: expected an ONNX model")):
        result = _cli("regions", name, "--box", "-1,1", cwd=tmp_path)
        assert result.returncode == 2, result.stderr
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("polyregions: error: ") and expected in lines[0]


def test_cli_counts_the_same_regions_from_onnx_and_pt_files_of_one_model(tmp_path):
    import json

    torch = pytest.importorskip("torch")
    nn = torch.nn
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv1d(1, 2, 2), nn.ReLU(), nn.MaxPool1d(2), nn.Flatten(), nn.Linear(2, 1)).eval()
    buffer = io.BytesIO()
    torch.onnx.export(model, (torch.randn(1, 1, 3),), buffer, dynamo=False)
    (tmp_path / "net.onnx").write_bytes(buffer.getvalue())
    torch.export.save(torch.export.export(model, (torch.randn(1, 1, 3),)), tmp_path / "net.pt2")
    outputs = []
    for name in ("net.onnx", "net.pt2"):
        result = _cli("regions", name, "--box", "-1,1", "--json", cwd=tmp_path)
        assert result.returncode == 0, result.stderr
        outputs.append(json.loads(result.stdout))
    assert outputs[0] == outputs[1] and outputs[0]["exact"] is True
    assert outputs[0]["input_dim"] == 3 and outputs[0]["neurons"] == 6


def test_a_missing_onnx_package_is_one_clear_error(monkeypatch, tmp_path):
    from polyregions.errors import MissingDependencyError

    monkeypatch.setitem(sys.modules, "onnx", None)
    (tmp_path / "m.onnx").write_bytes(b"")
    with pytest.raises(MissingDependencyError, match=r"needs the onnx package \(pip install onnx\)"):
        load_network(tmp_path / "m.onnx")
