"""ONNX models read as exact graph networks: the exact forward pass equals the ONNX reference evaluator's (and
torch's, for exported models) to float precision; unsupported operators get one clear error naming the node."""

import io
import subprocess
import sys
from fractions import Fraction

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


# --- each translator against the reference evaluator in float64 ----------------------------------------------

def _model64(nodes, input_shape, initializers, *, opset, output="y"):
    """The model in float64 (initializers exact: halves and quarters), input ``x`` of shape ``[N, *input_shape]``;
    integer initializers keep their type."""
    tensors = []
    for k, v in initializers.items():
        array = np.asarray(v)
        tensors.append(numpy_helper.from_array(array.astype(np.float64) if array.dtype.kind == "f" else array, k))
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.DOUBLE,
                                                                         ["N", *input_shape])],
                              [helper.make_tensor_value_info(output, TensorProto.DOUBLE, None)], tensors)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _exactly_as_reference(model, shape, *, samples=3, seed=0, reference=None):
    """The exact forward pass of ``model`` equals the reference evaluator's of ``reference`` (default: the
    model) at inputs in quarters."""
    net = graph_from_onnx(model)
    rng = np.random.default_rng(seed)
    session = ReferenceEvaluator(reference or model)
    for _ in range(samples):
        x = rng.integers(-12, 13, size=(1, *shape)) / 4
        expected = session.run(None, {"x": x})[0].reshape(-1)
        got = np.array([float(v) for v in net(x.reshape(-1))])
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    return net


def _halves(rng, *shape):
    return rng.integers(-4, 5, size=shape) / 2


def _shape_chain(opset):
    """A target shape computed from the input's shape by the folding operators: [1, 2, 3] for an input [N, 6]."""
    i64 = TensorProto.INT64
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),                                   # [1, 6]
             helper.make_node("Gather", ["shape", "one"], ["six"], axis=0),                 # 6 (a scalar)
             helper.make_node("Div", ["six", "three"], ["two"]),                            # 2 (integer division)
             helper.make_node("Mod", ["seven", "four"], ["three_"]),                        # 3
             helper.make_node("Cast", ["two"], ["two_f"], to=TensorProto.FLOAT),
             helper.make_node("Floor", ["two_f"], ["two_floor"]),
             helper.make_node("Cast", ["two_floor"], ["two_i"], to=i64),
             helper.make_node("Range", ["zero", "two_i", "one"], ["range"]),                # [0, 1]
             helper.make_node("Size", ["range"], ["size"]),                                 # 2
             helper.make_node("Equal", ["size", "two_i"], ["same"]),
             helper.make_node("Where", ["same", "two_i", "zero"], ["chosen"]),              # 2
             helper.make_node("ConstantOfShape", ["one_vec"], ["batch"],
                              value=helper.make_tensor("v", i64, [1], [1])),                # [1]
             helper.make_node("Slice", ["shape", "minus_one", "minus_big", "zero_vec", "minus_one"], ["rev"]),
             helper.make_node("Slice", ["rev", "one_vec", "big"], ["first"]),               # [1]
             helper.make_node("Mul", ["first", "batch"], ["batch2"]),                       # [1]
             helper.make_node("Expand", ["batch2", "one_vec"], ["batch3"])]
    if opset >= 13:
        nodes += [helper.make_node("Unsqueeze", ["chosen", "zero_vec"], ["two_vec"]),
                  helper.make_node("Unsqueeze", ["three_", "zero_vec"], ["three_vec"])]
    else:
        nodes += [helper.make_node("Unsqueeze", ["chosen"], ["two_vec"], axes=[0]),
                  helper.make_node("Unsqueeze", ["three_"], ["three_vec"], axes=[0])]
    nodes += [helper.make_node("Concat", ["batch3", "two_vec", "three_vec"], ["target"], axis=0),
              helper.make_node("Reshape", ["x", "target"], ["r"]),
              helper.make_node("Relu", ["r"], ["y"])]
    init = {"one": np.array(1), "three": np.array(3), "seven": np.array(7), "four": np.array(4),
            "zero": np.array(0), "one_vec": np.array([1]), "zero_vec": np.array([0]), "minus_one": np.array([-1]),
            "minus_big": np.array([-2 ** 62]), "big": np.array([2 ** 62])}
    return nodes, {k: v.astype(np.int64) for k, v in init.items()}


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_shape_computations_fold_to_a_constant_shape(opset):
    nodes, init = _shape_chain(opset)
    net = _exactly_as_reference(_model64(nodes, [6], init, opset=opset), (6,))
    assert net.output_shape == (2, 3)


@pytest.mark.parametrize("opset", [11, 13, 18])
def test_reductions_squeezes_and_clips_read_axes_from_attributes_or_inputs(opset):
    rng = np.random.default_rng(opset)
    init = {"W": _halves(rng, 2, 10), "lo": np.array(-0.5), "axes": np.array([2], np.int64),
            "axes1": np.array([1], np.int64)}
    if opset >= 18:
        reduce = [helper.make_node("ReduceMax", ["x", "axes"], ["mx"], keepdims=1),
                  helper.make_node("ReduceMin", ["x", "axes"], ["mn"], keepdims=1),
                  helper.make_node("ReduceMax", ["x", ""], ["same"], noop_with_empty_axes=1)]
    else:
        reduce = [helper.make_node("ReduceMax", ["x"], ["mx"], axes=[2], keepdims=1),
                  helper.make_node("ReduceMin", ["x"], ["mn"], axes=[-1]),
                  helper.make_node("Identity", ["x"], ["same"])]
    if opset >= 13:
        squeeze = [helper.make_node("Squeeze", ["mx", "axes"], ["sq"]),
                   helper.make_node("Unsqueeze", ["sq", "axes1"], ["un"])]
        clip = [helper.make_node("Clip", ["g", "lo", ""], ["y"])]
    else:
        squeeze = [helper.make_node("Squeeze", ["mx"], ["sq"], axes=[2]),
                   helper.make_node("Unsqueeze", ["sq"], ["un"], axes=[1])]
        clip = [helper.make_node("Clip", ["g", "lo"], ["y"])]
    nodes = reduce + squeeze + [
        helper.make_node("Flatten", ["un"], ["f"]), helper.make_node("Flatten", ["same"], ["f2"]),
        helper.make_node("Flatten", ["mn"], ["f3"]), helper.make_node("Concat", ["f", "f2", "f3"], ["all"], axis=1),
        helper.make_node("Gemm", ["all", "W"], ["g"], transB=1)] + clip
    _exactly_as_reference(_model64(nodes, [2, 3], init, opset=opset), (2, 3))


def test_gemm_alpha_beta_matmul_sum_max_min_neg_and_hard_sigmoid():
    rng = np.random.default_rng(5)
    init = {"A": _halves(rng, 3, 2), "C": _halves(rng, 1, 3), "M": _halves(rng, 3, 3), "floor": np.array(-0.25),
            "K": _halves(rng, 2, 3), "KK": _halves(rng, 2, 3)}
    nodes = [helper.make_node("Gemm", ["x", "A", "C"], ["g"], transB=1, alpha=0.75, beta=-2.0),
             helper.make_node("MatMul", ["g", "M"], ["m"]),
             helper.make_node("Gemm", ["K", "KK"], ["kk"], transA=1, alpha=0.5),   # folded: constants only
             helper.make_node("MatMul", ["g", "kk"], ["m2"]),
             helper.make_node("Max", ["g", "m", "floor"], ["mx"]), helper.make_node("Min", ["g", "m2"], ["mn"]),
             helper.make_node("Neg", ["mn"], ["neg"]), helper.make_node("Sum", ["mx", "neg", "g"], ["s"]),
             helper.make_node("HardSigmoid", ["s"], ["y"], alpha=0.25, beta=0.5)]
    _exactly_as_reference(_model64(nodes, [2], init, opset=13), (2,))


@pytest.mark.parametrize("auto_pad", ["SAME_UPPER", "SAME_LOWER"])
@pytest.mark.parametrize("count_include_pad", [0, 1])
def test_same_padding_and_asymmetric_pads_of_convolutions_and_average_pools(auto_pad, count_include_pad):
    rng = np.random.default_rng(6)
    init = {"K": _halves(rng, 2, 1, 2, 3), "B": _halves(rng, 2), "W": _halves(rng, 2, 12)}
    nodes = [helper.make_node("Conv", ["x", "K", "B"], ["c"], auto_pad=auto_pad, strides=[2, 1]),
             helper.make_node("Relu", ["c"], ["r"]),
             helper.make_node("AveragePool", ["r"], ["a"], kernel_shape=[2, 2], auto_pad=auto_pad,
                              count_include_pad=count_include_pad),
             helper.make_node("AveragePool", ["a"], ["a2"], kernel_shape=[3, 3], pads=[2, 0, 0, 1],
                              count_include_pad=count_include_pad),
             helper.make_node("Conv", ["a2", "K"], ["c2"], pads=[0, 1, 1, 1], group=2),
             helper.make_node("MaxPool", ["c2"], ["p"], kernel_shape=[1, 1]),
             helper.make_node("Flatten", ["p"], ["f"]), helper.make_node("Gemm", ["f", "W"], ["y"], transB=1)]
    _exactly_as_reference(_model64(nodes, [1, 5, 3], init, opset=13), (1, 5, 3))


def _normalised_pools(opset):
    reduce_sum = helper.make_node("ReduceSum", ["t", "axes"], ["rs"], keepdims=0) if opset >= 13 else \
        helper.make_node("ReduceSum", ["t"], ["rs"], axes=[2, 3], keepdims=0)
    return [helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["n"], epsilon=0.25),
            helper.make_node("Transpose", ["n"], ["t"], perm=[0, 1, 3, 2]),
            helper.make_node("GlobalAveragePool", ["t"], ["gap"]), helper.make_node("GlobalMaxPool", ["t"], ["gmp"]),
            helper.make_node("Flatten", ["gap"], ["f1"]), helper.make_node("Flatten", ["gmp"], ["f2"]), reduce_sum,
            helper.make_node("Concat", ["f1", "f2", "rs"], ["c"], axis=1),
            helper.make_node("Gemm", ["c", "W"], ["g"], transB=1),
            helper.make_node("LeakyRelu", ["g"], ["y"], alpha=0.25)]


@pytest.mark.parametrize("opset", [9, 15])
def test_batch_normalisation_global_pools_reduce_sum_and_transpose(opset):
    rng = np.random.default_rng(7)
    init = {"scale": _halves(rng, 2), "bias": _halves(rng, 2), "mean": _halves(rng, 2), "var": np.array([0.75, 3.75]),
            "W": _halves(rng, 2, 6), "axes": np.array([2, 3], np.int64)}
    # The reference evaluator reads an opset-9 batch norm (momentum set) in training mode; ONNX reads it in
    # inference mode with one output: its twin at opset 15 is the reference.
    _exactly_as_reference(_model64(_normalised_pools(opset), [2, 2, 3], init, opset=opset), (2, 2, 3),
                          reference=_model64(_normalised_pools(15), [2, 2, 3], init, opset=15))
    training = [helper.make_node("BatchNormalization", ["x", "scale", "bias", "mean", "var"], ["y"],
                                 training_mode=1)]
    with pytest.raises(InvalidInputError, match=r"node 'y' \(BatchNormalization\): batch_norm: training: expected "
                                                r"eval mode"):
        graph_from_onnx(_model64(training, [2, 2, 3], init, opset=15))


def test_local_functions_are_inlined_and_half_precision_weights_read_exactly():
    body = [helper.make_node("Relu", ["a"], ["r"]), helper.make_node("Sub", ["r", "a"], ["b"])]  # max(-a, 0)
    function = helper.make_function("local", "NegPart", ["a"], ["b"], body, [helper.make_opsetid("", 17)])
    weight = np.array([[0.1, -1.5], [2.0, 1.0 / 3.0]], dtype=np.float16)
    nodes = [helper.make_node("Gemm", ["x", "W"], ["g"], transB=1),
             helper.make_node("NegPart", ["g"], ["y"], domain="local")]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(weight, "W")])
    model = helper.make_model(graph, functions=[function],
                              opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("local", 1)])
    net = graph_from_onnx(model)
    rows = [[Fraction(float(v)) for v in row] for row in weight.tolist()]
    assert rows[0][0] != Fraction(1, 10)  # the binary16 value
    x = [Fraction(1), Fraction(-2)]
    assert net(x) == tuple(max(-(r[0] * x[0] + r[1] * x[1]), Fraction(0)) for r in rows)


@pytest.mark.parametrize("nodes, message", [
    ([helper.make_node("Dropout", ["x"], ["d", "mask"]), helper.make_node("Add", ["d", "mask"], ["y"])],
     r"node 'y' \(Add\): input 'mask': expected a tensor or a constant, got a dropout's mask"),
    ([helper.make_node("MaxPool", ["x"], ["m", "j"], kernel_shape=[2]), helper.make_node("Relu", ["j"], ["y"])],
     r"node 'y' \(Relu\): input 'j': expected a tensor or a constant, got the indices of a maximum"),
    ([helper.make_node("Relu", ["nowhere"], ["y"])], r"node 'y' \(Relu\): input 'nowhere': expected the graph's "
                                                     r"input, an initializer or an earlier node's output"),
    ([helper.make_node("Range", ["x", "i", "i"], ["y"])], r"node 'y' \(Range\): expected constant inputs \(a shape "
                                                           r"computation, folded while reading\), got the tensor 'x'"),
    ([helper.make_node("Pad", ["x", "p"], ["y"], mode="reflect")], r"node 'y' \(Pad\): mode: expected constant, "
                                                                  r"got reflect"),
])
def test_unusable_outputs_unknown_names_and_tensor_shape_operators_are_refused(nodes, message):
    model = _model(nodes, [1, 4], [1, 2], {"i": np.array([0]), "p": np.array([0, 0, 1, 0, 0, 1])})
    with pytest.raises(InvalidInputError, match="^m.onnx: " + message):
        graph_from_onnx(model, what="m.onnx")
