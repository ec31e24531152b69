"""ONNX files from either of torch's exporters (``dynamo=True``, the default, and the legacy ``dynamo=False`` at
opsets 13 and 17/18), and files shaped like the VNN-COMP 2021 benchmarks, read exactly: the forward pass equals
torch's float64 forward (or the ONNX reference evaluator's in float64) to float precision, and the linear regions
equal those of the same model read through the torch route (the same operator table); refused models get one
line naming the file, the node, the operator and what is supported."""

import contextlib
import io
import warnings
from fractions import Fraction

import numpy as np
import pytest

import polyregions as pr
from polyregions.errors import InvalidInputError
from polyregions.networks.io import load_network, network_from_arrays

torch = pytest.importorskip("torch")
onnx = pytest.importorskip("onnx")
from onnx import TensorProto, helper, numpy_helper  # noqa: E402
from torch import nn  # noqa: E402

#: (exporter, opset): the dynamo exporter at its default opset and at 18, the legacy one at 13 and 17.
EXPORTERS = [("dynamo", None), ("dynamo", 18), ("legacy", 13), ("legacy", 17)]
IDS = [f"{e}-{o or 'default'}" for e, o in EXPORTERS]


def _export(model, x, path, exporter, opset, **kwargs):
    """``torch.onnx.export`` of ``model`` at ``x`` into ``path`` (its progress messages and warnings hidden)."""
    if exporter == "dynamo":
        pytest.importorskip("onnxscript")
    options = {"dynamo": exporter == "dynamo", **kwargs}
    if opset is not None:
        options["opset_version"] = opset
    with warnings.catch_warnings(), contextlib.redirect_stdout(io.StringIO()):
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (x,), str(path), **options)
    return path


def _halves(*shape, generator):
    """Small integers and halves, with ties: ``randint(-4, 5) / 2``."""
    return torch.randint(-4, 5, shape, generator=generator).float() / 2


def _set_weights(model, seed):
    """Every parameter of ``model`` set to halves; batch norms' means to halves, their variances such that the
    scales are halves too."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for module in model.modules():
            for parameter in module.parameters(recurse=False):
                parameter.copy_(_halves(*parameter.shape, generator=generator))
            if isinstance(module, (nn.BatchNorm1d, nn.BatchNorm2d)):
                module.running_mean.copy_(_halves(module.num_features, generator=generator))
                # var + eps in {1/4, 1, 4} for eps = 1/4: scales exact in binary32 (the legacy exporter folds
                # a batch norm into the convolution before it, in binary32)
                choices = torch.tensor([0.0, 0.75, 3.75])
                module.running_var.copy_(choices[torch.randint(0, 3, (module.num_features,), generator=generator)])
    return model.eval()


def _forward_matches_torch(model, net, shape, *, samples=4, seed=0):
    """The exact forward pass at float64 inputs equals torch's float64 forward to float precision."""
    model = model.double().eval()
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(samples, *shape, generator=generator, dtype=torch.float64)
    with torch.no_grad():
        expected = model(x).reshape(samples, -1).numpy()
    model.float()
    for i in range(samples):
        got = np.array([float(v) for v in net(x[i].numpy().reshape(-1))])
        np.testing.assert_allclose(got, expected[i], rtol=1e-12, atol=1e-12)


def _regions(net, domain):
    """The region count, the linear region count and the set of affine maps on the regions."""
    complex_ = pr.enumerate_regions(net, domain)
    return len(complex_.regions), len(complex_.linear_regions), {r.output_map for r in complex_.regions}


def _domain(shape, seed=3):
    """A box for a 2-input model, else a 2-D slice through the origin along two random directions."""
    size = int(np.prod(shape))
    if size == 2:
        return pr.box([-2, -2], [2, 2])
    rng = np.random.default_rng(seed)
    directions = rng.integers(-2, 3, size=(2, size)).tolist()
    return pr.slice_domain([0] * size, directions, [-1, -1], [1, 1])


def _check(model, shape, exporter, opset, tmp_path, *, seed=0, regions=True, **export_options):
    model = _set_weights(model, seed)
    path = _export(model, torch.zeros(1, *shape), tmp_path / "model.onnx", exporter, opset, **export_options)
    net = load_network(path)
    _forward_matches_torch(model, net, shape)
    if regions:
        reference = pr.network_from_torch(model, input_shape=shape)
        domain = _domain(shape)
        assert _regions(net, domain) == _regions(reference, domain)
    return net


# --- torch models, each through both exporters ---------------------------------------------------------------

class Maxout(nn.Module):
    """Maxout by a view and a maximum over the last axis (``max(dim=2).values``) or by ``amax``."""

    def __init__(self, groups, k, amax=False):
        super().__init__()
        self.groups, self.k, self.amax = groups, k, amax

    def forward(self, x):
        grouped = x.view(-1, self.groups, self.k)
        return torch.amax(grouped, dim=-1) if self.amax else grouped.max(dim=2).values


class Normalise(nn.Module):
    """Input normalisation ``(x - mean) / std`` by constants."""

    def __init__(self, mean, std):
        super().__init__()
        self.register_buffer("mean", torch.tensor(mean))
        self.register_buffer("std", torch.tensor(std))

    def forward(self, x):
        return (x - self.mean) / self.std


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.first, self.inner, self.head = nn.Linear(2, 4), nn.Linear(4, 4), nn.Linear(8, 2)

    def forward(self, x):
        y = torch.relu(self.first(x))
        z = y + torch.relu(self.inner(y))
        return self.head(torch.cat([z, y], dim=1))


MODELS = {
    "conv1d": (lambda: nn.Sequential(nn.Unflatten(1, (1, 6)), nn.Conv1d(1, 2, 3, stride=2, padding=1), nn.ReLU(),
                                     nn.Conv1d(2, 4, 2, padding="same", dilation=1, groups=2), nn.ReLU(),
                                     nn.Flatten(), nn.Linear(12, 2)), (6,)),
    "conv2d": (lambda: nn.Sequential(nn.Conv2d(1, 2, 3, padding=1, stride=2), nn.ReLU(),
                                     nn.Conv2d(2, 4, 2, padding="same", dilation=2, groups=2), nn.ReLU(),
                                     nn.Flatten(), nn.Linear(16, 2)), (1, 4, 4)),
    "pooling": (lambda: nn.Sequential(nn.Conv2d(1, 2, 2), nn.ReLU(), nn.MaxPool2d(3, stride=2, padding=1),
                                      nn.AvgPool2d(2, padding=1), nn.MaxPool2d(2), nn.Flatten(),
                                      nn.Linear(2, 2)), (1, 5, 5)),
    "pooling1d": (lambda: nn.Sequential(nn.Unflatten(1, (1, 6)), nn.Conv1d(1, 2, 2), nn.MaxPool1d(2),
                                        nn.AvgPool1d(2, stride=1), nn.Flatten(), nn.Linear(2 * 1, 2)), (6,)),
    "residual_concat": (Residual, (2,)),
    "maxout_view": (lambda: nn.Sequential(nn.Linear(2, 6), Maxout(3, 2), nn.Linear(3, 4), Maxout(2, 2),
                                          nn.Linear(2, 2)), (2,)),
    "maxout_amax": (lambda: nn.Sequential(nn.Linear(2, 6), Maxout(2, 3, amax=True), nn.Linear(2, 2)), (2,)),
    "unflatten": (lambda: nn.Sequential(nn.Linear(2, 8), nn.Unflatten(1, (2, 4)), nn.Conv1d(2, 2, 2), nn.ReLU(),
                                        nn.Flatten(), nn.Linear(6, 2)), (2,)),
    "prelu": (lambda: nn.Sequential(nn.Linear(2, 4), nn.PReLU(4), nn.Linear(4, 4), nn.PReLU(),
                                    nn.Linear(4, 2)), (2,)),
    "batchnorm": (lambda: nn.Sequential(nn.Linear(2, 4), nn.BatchNorm1d(4, eps=0.25), nn.ReLU(),
                                        nn.Linear(4, 2)), (2,)),
    "batchnorm2d": (lambda: nn.Sequential(nn.Conv2d(1, 2, 2), nn.BatchNorm2d(2, eps=0.25), nn.ReLU(),
                                          nn.Flatten(), nn.Linear(8, 2)), (1, 3, 3)),
}


def _normalised(normalise=True):
    """``(x - mean) / std`` by constants before a network; without ``normalise``, its dense rewrite: the same
    map as a first linear layer (exact in binary32: the divisors are powers of two)."""
    mean, std = torch.tensor([0.5, -0.25]), torch.tensor([2.0, 0.5])
    first = Normalise(mean.tolist(), std.tolist()) if normalise else nn.Linear(2, 2)
    if not normalise:
        with torch.no_grad():
            first.weight.copy_(torch.diag(1 / std))
            first.bias.copy_(-mean / std)
    return nn.Sequential(first, nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 2), nn.LeakyReLU(0.25), nn.Linear(2, 2))


@pytest.mark.parametrize("exporter, opset", EXPORTERS, ids=IDS)
@pytest.mark.parametrize("name", list(MODELS))
def test_torch_exporters_give_the_torch_routes_network(name, exporter, opset, tmp_path):
    factory, shape = MODELS[name]
    _check(factory(), shape, exporter, opset, tmp_path, seed=sorted(MODELS).index(name))


@pytest.mark.parametrize("exporter, opset", EXPORTERS, ids=IDS)
def test_input_normalisation_by_constants_matches_its_dense_rewrite(exporter, opset, tmp_path):
    model = _normalised()
    net = _check(model, (2,), exporter, opset, tmp_path, seed=5, regions=False)
    rewrite = _normalised(normalise=False)
    with torch.no_grad():
        for source, target in zip(model[1:], rewrite[1:]):
            for p, q in zip(source.parameters(), target.parameters()):
                q.copy_(p)
    reference = pr.network_from_torch(rewrite.eval(), input_shape=(2,))
    domain = pr.box([-2, -2], [2, 2])
    assert _regions(net, domain) == _regions(reference, domain)


class Misc(nn.Module):
    """Padding, clamps, an entry-wise maximum with a transpose, global average pools (a mean and an adaptive
    pool), a concatenation and squeeze/unsqueeze."""

    def __init__(self):
        super().__init__()
        self.first, self.conv, self.head = nn.Linear(2, 8), nn.Conv2d(2, 2, 2), nn.Linear(12, 2)

    def forward(self, x):
        y = nn.functional.pad(self.first(x).view(-1, 2, 2, 2), (0, 1, 1, 0))
        y = nn.functional.hardtanh(torch.clamp(self.conv(y), min=-0.5), -1.0, 1.5)
        z = torch.maximum(y, y.transpose(2, 3))
        pooled = torch.cat([z.mean((2, 3)), nn.functional.adaptive_avg_pool2d(z, 1).flatten(1)], dim=1)
        u = nn.functional.relu6(torch.cat([pooled, z.flatten(1)], dim=1))
        return self.head(u.unsqueeze(1).squeeze(1))


class Minimum(nn.Module):
    """Entry-wise and axis minima; with ``rewrite``, the same as maxima of negated values (``* -1``)."""

    def __init__(self, rewrite=False):
        super().__init__()
        self.a, self.b, self.head = nn.Linear(2, 4), nn.Linear(2, 4), nn.Linear(6, 2)
        self.rewrite = rewrite

    def forward(self, x):
        a, b = self.a(x), self.b(x)
        if self.rewrite:
            m = torch.maximum(a * -1.0, b * -1.0) * -1.0
            g = torch.amax(a.view(-1, 2, 2) * -1.0, dim=2) * -1.0
        else:
            m, g = torch.minimum(a, b), torch.amin(a.view(-1, 2, 2), dim=2)
        return self.head(torch.cat([m, g], dim=1))


@pytest.mark.parametrize("exporter, opset", EXPORTERS, ids=IDS)
def test_padding_clamps_maxima_transposes_and_global_pools(exporter, opset, tmp_path):
    _check(Misc(), (2,), exporter, opset, tmp_path, seed=11)


@pytest.mark.parametrize("exporter, opset", EXPORTERS, ids=IDS)
def test_minima_match_maxima_of_negated_values(exporter, opset, tmp_path):
    model = _set_weights(Minimum(), 12)
    path = _export(model, torch.zeros(1, 2), tmp_path / "min.onnx", exporter, opset)
    net = load_network(path)
    _forward_matches_torch(model, net, (2,))
    rewrite = Minimum(rewrite=True)
    rewrite.load_state_dict(model.state_dict())
    domain = pr.box([-2, -2], [2, 2])
    assert _regions(net, domain) == _regions(pr.network_from_torch(rewrite.eval(), input_shape=(2,)), domain)


class Sliced(nn.Module):
    """Slices with steps, chunk, narrow, select and split of a computed tensor (Slice, Gather and Split nodes)."""

    def __init__(self):
        super().__init__()
        self.first, self.head = nn.Linear(2, 8), nn.Linear(7, 1)

    def forward(self, x):
        y = self.first(x)
        a, b = y.chunk(2, dim=1)
        c = torch.relu(a[:, 1:3]) + y.narrow(1, 0, 2)
        _, q = torch.split(y, [5, 3], dim=1)
        return self.head(torch.cat([c, torch.relu(b[:, ::2]), y.select(1, 5).unsqueeze(1), torch.relu(q[:, :2])],
                                   dim=1))


@pytest.mark.parametrize("exporter, opset", EXPORTERS, ids=IDS)
def test_slices_and_splits_of_computed_tensors(exporter, opset, tmp_path):
    _check(Sliced(), (2,), exporter, opset, tmp_path, seed=14)


@pytest.mark.parametrize("exporter, opset", EXPORTERS, ids=IDS)
def test_average_pooling_without_the_padding_in_the_divisor(exporter, opset, tmp_path):
    model = nn.Sequential(nn.Conv2d(1, 2, 2), nn.ReLU(), nn.AvgPool2d(3, stride=2, padding=1,
                                                                      count_include_pad=False),
                          nn.Flatten(), nn.Linear(8, 2))
    _check(model, (1, 4, 4), exporter, opset, tmp_path, seed=13, regions=False)


class Viewed(nn.Module):
    """``view(x.size(0), -1)``: a shape computed from the input's (dynamic) batch size."""

    def __init__(self):
        super().__init__()
        self.unflatten, self.conv, self.head = nn.Unflatten(1, (1, 3, 3)), nn.Conv2d(1, 2, 2), nn.Linear(8, 2)

    def forward(self, x):
        y = torch.relu(self.conv(self.unflatten(x)))
        return self.head(y.view(y.size(0), -1))


@pytest.mark.parametrize("exporter, opset", EXPORTERS, ids=IDS)
def test_a_dynamic_batch_size_folds_to_one(exporter, opset, tmp_path):
    if exporter == "dynamo":
        options = {"dynamic_shapes": ({0: torch.export.Dim("batch")},)}
    else:
        options = {"input_names": ["x"], "dynamic_axes": {"x": {0: "batch"}}}
    net = _check(Viewed(), (9,), exporter, opset, tmp_path, seed=14, **options)
    model = onnx.load(str(tmp_path / "model.onnx"))
    assert model.graph.input[0].type.tensor_type.shape.dim[0].dim_param  # the batch size is symbolic
    assert net.input_shape == (9,)


# --- files shaped like the VNN-COMP 2021 benchmarks, built here ---------------------------------------------

def _graph_model(nodes, input_shape, output, initializers, *, opset, dtype=np.float32, batch="N"):
    """An ONNX model: input ``x`` of shape ``[batch, *input_shape]``, initializers in ``dtype`` (float64 for the
    reference evaluator: the same values, computed without rounding to binary32)."""
    elem = TensorProto.FLOAT if dtype == np.float32 else TensorProto.DOUBLE
    tensors = [numpy_helper.from_array(np.asarray(v).astype(dtype if np.asarray(v).dtype.kind == "f" else
                                                              np.asarray(v).dtype), k)
               for k, v in initializers.items()]
    graph = helper.make_graph(nodes, "g", [helper.make_tensor_value_info("x", elem, [batch, *input_shape])],
                              [helper.make_tensor_value_info(output, elem, None)], tensors)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])


def _reference(build, x):
    """The ONNX reference evaluator's output of the float64 twin of the model ``build(dtype)``."""
    from onnx.reference import ReferenceEvaluator

    return ReferenceEvaluator(build(np.float64)).run(None, {"x": x.astype(np.float64)})[0].reshape(-1)


def _half_array(rng, *shape):
    return (rng.integers(-4, 5, size=shape) / 2).astype(np.float32)


def _acas_xu(rng, width=6, layers=6):
    """ACAS Xu as in VNN-COMP 2021: input [1, 1, 1, 5], ``Sub`` of a zero vector and ``Div`` by ones, a
    ``Flatten``, then ``MatMul`` + ``Add`` + ``Relu`` layers and a last ``MatMul`` + ``Add`` to 5 outputs."""
    init = {"zeros": np.zeros((1, 1, 1, 5), np.float32), "ones": np.ones((1, 1, 1, 5), np.float32)}
    nodes = [helper.make_node("Sub", ["x", "zeros"], ["s"]), helper.make_node("Div", ["s", "ones"], ["d"]),
             helper.make_node("Flatten", ["d"], ["h0"], axis=1)]
    sizes = [5] + [width] * layers + [5]
    for i in range(len(sizes) - 1):
        init[f"W{i}"], init[f"b{i}"] = _half_array(rng, sizes[i], sizes[i + 1]), _half_array(rng, sizes[i + 1])
        nodes += [helper.make_node("MatMul", [f"h{i}", f"W{i}"], [f"m{i}"]),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}" if i < len(sizes) - 2 else "y"])]
        if i < len(sizes) - 2:
            nodes.append(helper.make_node("Relu", [f"a{i}"], [f"h{i + 1}"]))
    return lambda dtype=np.float32: _graph_model(nodes, [1, 1, 5], "y", init, opset=9, dtype=dtype, batch=1), init


def _eran(rng):
    """ERAN as in VNN-COMP 2021: ``Sub`` and ``Div`` normalisation by binary32 constants that are not dyadic
    fractions of small denominators (0.1307, 0.3081), a ``Flatten``, then ``Gemm`` and ``Relu`` layers."""
    init = {"mean": np.array([0.1307], np.float32), "std": np.array([0.3081], np.float32),
            "W0": _half_array(rng, 6, 16), "b0": _half_array(rng, 6), "W1": _half_array(rng, 4, 6),
            "b1": _half_array(rng, 4), "W2": _half_array(rng, 3, 4), "b2": _half_array(rng, 3)}
    nodes = [helper.make_node("Sub", ["x", "mean"], ["s"]), helper.make_node("Div", ["s", "std"], ["d"]),
             helper.make_node("Flatten", ["d"], ["f"]),
             helper.make_node("Gemm", ["f", "W0", "b0"], ["g0"], transB=1), helper.make_node("Relu", ["g0"], ["r0"]),
             helper.make_node("Gemm", ["r0", "W1", "b1"], ["g1"], transB=1), helper.make_node("Relu", ["g1"], ["r1"]),
             helper.make_node("Gemm", ["r1", "W2", "b2"], ["y"], transB=1)]
    return lambda dtype=np.float32: _graph_model(nodes, [1, 4, 4], "y", init, opset=12, dtype=dtype), init


def _verivital(rng, opset, pool):
    """verivital as in VNN-COMP 2021: ``Pad`` by zeros (pads as an attribute before opset 11, an input from
    it) before a ``Conv``, ``Relu``, an average (or max) pooling, a ``Reshape`` to rows, ``MatMul`` and ``Add``."""
    init = {"K": _half_array(rng, 2, 1, 3, 3), "KB": _half_array(rng, 2), "W": _half_array(rng, 2 * 3 * 3, 3),
            "B": _half_array(rng, 3), "rows": np.array([-1, 2 * 3 * 3], np.int64)}
    pads = [0, 0, 1, 1, 0, 0, 1, 1]
    if opset < 11:
        nodes = [helper.make_node("Pad", ["x"], ["p"], mode="constant", pads=pads, value=0.0)]
    else:
        init["pads"] = np.array(pads, np.int64)
        nodes = [helper.make_node("Pad", ["x", "pads"], ["p"], mode="constant")]
    nodes += [helper.make_node("Conv", ["p", "K", "KB"], ["c"], kernel_shape=[3, 3]),
              helper.make_node("Relu", ["c"], ["r"]),
              helper.make_node(pool, ["r"], ["q"], kernel_shape=[2, 2], strides=[2, 2]),
              helper.make_node("Reshape", ["q", "rows"], ["f"]),
              helper.make_node("MatMul", ["f", "W"], ["m"]), helper.make_node("Add", ["m", "B"], ["y"])]
    return lambda dtype=np.float32: _graph_model(nodes, [1, 6, 6], "y", init, opset=opset, dtype=dtype, batch=1)


def _dyadic_points(rng, shape, count=4):
    """Inputs of a few bits (exact in binary32 and binary64) where float64 evaluation of half weights is exact."""
    return [rng.integers(-16, 17, size=(1, *shape)) / 8 for _ in range(count)]


def test_acas_xu_shaped_file_loads_and_computes_exactly(tmp_path):
    rng = np.random.default_rng(21)
    build, init = _acas_xu(rng)
    onnx.save(build(), str(tmp_path / "ACASXU_run2a_1_1_batch_2000.onnx"))
    net = load_network(tmp_path / "ACASXU_run2a_1_1_batch_2000.onnx")
    assert net.input_shape == (1, 1, 5) and net.output_shape == (5,)
    for x in _dyadic_points(rng, (1, 1, 5)):
        assert net(x.reshape(-1)) == tuple(Fraction(v) for v in _reference(build, x))  # every sum exact
    layers = len(init) // 2 - 1
    dense = network_from_arrays([init[f"W{i}"].T for i in range(layers)], [init[f"b{i}"] for i in range(layers)])
    domain = _domain((5,))
    assert _regions(net, domain) == _regions(dense, domain)


def test_eran_shaped_file_normalises_at_the_exact_binary32_constants(tmp_path):
    rng = np.random.default_rng(22)
    build, init = _eran(rng)
    onnx.save(build(), str(tmp_path / "mnist_relu_3_6.onnx"))
    net = load_network(tmp_path / "mnist_relu_3_6.onnx")
    mean, std = Fraction(float(init["mean"][0])), Fraction(float(init["std"][0]))
    assert mean != Fraction(1307, 10000)  # the binary32 value, not the decimal
    for x in _dyadic_points(rng, (1, 4, 4)):
        h = [(Fraction(v) - mean) / std for v in x.reshape(-1).tolist()]
        for i in range(3):
            W, b = init[f"W{i}"].astype(np.float64), init[f"b{i}"].astype(np.float64)
            h = [sum((Fraction(w) * v for w, v in zip(row, h)), Fraction(b_)) for row, b_ in zip(W.tolist(), b)]
            h = [max(v, Fraction(0)) for v in h] if i < 2 else h
        assert net(x.reshape(-1)) == tuple(h)
        np.testing.assert_allclose([float(v) for v in h], _reference(build, x), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("opset", [9, 13])
@pytest.mark.parametrize("pool", ["AveragePool", "MaxPool"])
def test_verivital_shaped_file_with_a_pad_before_the_convolution(opset, pool, tmp_path):
    rng = np.random.default_rng(23)
    build = _verivital(rng, opset, pool)
    path = tmp_path / f"Convnet_{pool.lower()}.onnx"
    onnx.save(build(), str(path))
    net = load_network(path)
    assert net.input_shape == (1, 6, 6) and net.output_shape == (3,)
    assert "pad" in [node.op.kind for node in net.nodes]
    for x in _dyadic_points(rng, (1, 6, 6)):
        assert net(x.reshape(-1)) == tuple(Fraction(v) for v in _reference(build, x))


# --- refused models: one line naming the file, the node, the operator and what is supported ------------------

def _refused(path):
    with pytest.raises(InvalidInputError) as error:
        load_network(path)
    message = str(error.value)
    assert message.startswith(f"{path}: node '") and "\n" not in message
    return message


@pytest.mark.parametrize("op", ["Softmax", "Sigmoid"])
def test_operators_that_are_not_piecewise_linear_are_named(op, tmp_path):
    model = _graph_model([helper.make_node("Gemm", ["x", "W"], ["g"], transB=1),
                          helper.make_node(op, ["g"], ["y"])], [2], "y", {"W": np.ones((2, 2))}, opset=13)
    onnx.save(model, str(tmp_path / "m.onnx"))
    message = _refused(tmp_path / "m.onnx")
    assert f"node 'y' ({op}): expected one of the operators " in message
    assert "Gemm" in message and "Relu" in message and message.endswith(f"got {op} (not piecewise linear)")


def test_a_reshape_to_a_shape_computed_from_the_input_is_refused(tmp_path):
    cast = _graph_model([helper.make_node("Cast", ["x"], ["s"], to=TensorProto.INT64),
                         helper.make_node("Reshape", ["x", "s"], ["y"])], [2], "y", {}, opset=13)
    onnx.save(cast, str(tmp_path / "cast.onnx"))
    assert "node 's' (Cast): to: expected a float type for a tensor computed from the input" in \
        _refused(tmp_path / "cast.onnx")
    direct = _graph_model([helper.make_node("Relu", ["x"], ["s"]), helper.make_node("Reshape", ["x", "s"], ["y"])],
                          [2], "y", {}, opset=13)
    onnx.save(direct, str(tmp_path / "direct.onnx"))
    assert "node 'y' (Reshape): shape: expected a constant (an initializer or a folded computation), got the " \
           "tensor 's' computed from the graph's input" in _refused(tmp_path / "direct.onnx")


def test_dropout_in_training_mode_is_refused(tmp_path):
    model = _graph_model([helper.make_node("Dropout", ["x", "ratio", "training"], ["y"])], [2], "y",
                         {"ratio": np.array(0.5), "training": np.array(True)}, opset=13)
    onnx.save(model, str(tmp_path / "dropout.onnx"))
    assert "node 'y' (Dropout): training_mode: expected false" in _refused(tmp_path / "dropout.onnx")
    eval_mode = _graph_model([helper.make_node("Dropout", ["x", "ratio", "training"], ["y"])], [2], "y",
                             {"ratio": np.array(0.5), "training": np.array(False)}, opset=13)
    onnx.save(eval_mode, str(tmp_path / "eval.onnx"))
    assert load_network(tmp_path / "eval.onnx")([1, -2]) == (1, -2)


class Square(nn.Module):
    def forward(self, x):
        return x * torch.relu(x)


@pytest.mark.parametrize("exporter, opset", [EXPORTERS[0], EXPORTERS[2]], ids=[IDS[0], IDS[2]])
def test_torch_models_with_no_exact_reading_are_refused_by_node(exporter, opset, tmp_path):
    pooled = nn.Sequential(nn.Conv2d(1, 1, 2), nn.MaxPool2d(2, ceil_mode=True), nn.Flatten())
    path = _export(pooled.eval(), torch.zeros(1, 1, 6, 6), tmp_path / "ceil.onnx", exporter, opset)
    message = _refused(path)
    assert "(MaxPool): max_pool: ceil_mode: expected False (or windows that fit exactly), got True with a " \
           "partial last window" in message
    path = _export(Square(), torch.zeros(1, 2), tmp_path / "square.onnx", exporter, opset)
    assert "(Mul): mul: expected a constant factor, got the product of two tensors computed from the input (not " \
           "piecewise linear)" in _refused(path)
