"""PyTorch models through every route (the module itself, torch.export, traced and scripted TorchScript, .pt2 and
TorchScript files, trusted pickles): each reading computes exactly the model's function, and gives the same exact
regions as a network written by hand from the same weights; bad models and unsafe files get one clear error."""

import subprocess
import sys
import warnings

import numpy as np
import pytest

from polyregions.errors import InvalidInputError

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

import polyregions as pr  # noqa: E402
from polyregions.networks import operations as ops  # noqa: E402
from polyregions.networks.graph import GraphNetwork, Node  # noqa: E402
from polyregions.networks.importers import load_torch_file, network_from_torch  # noqa: E402
from polyregions.networks.io import load_network  # noqa: E402
from polyregions.networks.network import Network  # noqa: E402

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning", "ignore::FutureWarning",
                                        "ignore::UserWarning")


def _halves(model, seed):
    """Small integer and half weights (ties and dead units included), exact in every float format."""
    generator = torch.Generator().manual_seed(seed)
    with torch.no_grad():
        for p in model.parameters():
            p.copy_(torch.randint(-4, 5, p.shape, generator=generator).to(p.dtype) / 2)
    return model.eval()


def _exact_matches_torch(model, net, shape, *, samples=4, seed=0):
    """The exact forward pass at float64 inputs equals torch's float64 forward to float precision."""
    model = model.double().eval()
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn(samples, *shape, generator=generator, dtype=torch.float64)
    with torch.no_grad():
        expected = model(x).reshape(samples, -1).numpy()
    model.float()
    for i in range(samples):
        got = np.array([float(v) for v in net(x[i].numpy())])
        np.testing.assert_allclose(got, expected[i], rtol=1e-12, atol=1e-12)


def _weights(layer):
    return layer.weight.detach().double().numpy(), layer.bias.detach().double().numpy()


# --- the families: a model on a 2-D input and the same function written by hand with polyregions' operations --

class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.head = nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 1)

    def forward(self, x):
        return self.head(torch.relu(x + self.l2(torch.relu(self.l1(x)))))


class Concat(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b, self.head = nn.Linear(2, 3), nn.Linear(2, 2), nn.Linear(5, 1)

    def forward(self, x):
        return self.head(torch.cat([torch.relu(self.a(x)), nn.functional.leaky_relu(self.b(x), 0.25)], dim=1))


class Maxout(nn.Module):
    def __init__(self):
        super().__init__()
        self.l, self.head = nn.Linear(2, 6), nn.Linear(2, 1)

    def forward(self, x):
        return self.head(self.l(x).view(-1, 2, 3).max(dim=2).values)


class Amax(nn.Module):
    def __init__(self):
        super().__init__()
        self.l = nn.Linear(2, 6)

    def forward(self, x):
        return torch.amax(self.l(x).reshape(x.shape[0], 3, 2), dim=-1) - 0.5


def _dense(name, layer, source):
    W, b = _weights(layer)
    return Node(name, ops.Dense(W, b), (source,))


def _relu(name, source):
    return Node(name, ops.Activation("relu"), (source,))


def _conv1d_model():
    return nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Unflatten(1, (2, 4)),
                         nn.Conv1d(2, 4, 2, stride=2, padding=1, dilation=1, groups=2), nn.ReLU(), nn.Flatten(),
                         nn.Linear(12, 1))


def _conv1d_reference(m):
    conv = m[3]
    return GraphNetwork((2,), (_dense("d", m[0], "input"), _relu("r", "d"), Node("u", ops.Reshape((2, 4)), ("r",)),
                               Node("c", ops.Conv(conv.weight.detach().double().numpy(),
                                                  conv.bias.detach().double().numpy(), stride=2, padding=1,
                                                  groups=2), ("u",)),
                               _relu("r2", "c"), Node("f", ops.Flatten(), ("r2",)), _dense("h", m[6], "f")), "h")


def _conv2d_model():
    return nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Unflatten(1, (2, 2, 2)),
                         nn.Conv2d(2, 2, 2, padding=1, dilation=2), nn.ReLU(), nn.Flatten(), nn.Linear(8, 1))


def _conv2d_reference(m):
    conv = m[3]
    return GraphNetwork((2,), (_dense("d", m[0], "input"), _relu("r", "d"),
                               Node("u", ops.Reshape((2, 2, 2)), ("r",)),
                               Node("c", ops.Conv(conv.weight.detach().double().numpy(),
                                                  conv.bias.detach().double().numpy(), padding=1, dilation=2),
                                    ("u",)),
                               _relu("r2", "c"), Node("f", ops.Flatten(), ("r2",)), _dense("h", m[6], "f")), "h")


def _maxpool_model():
    return nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Unflatten(1, (2, 4)), nn.MaxPool1d(2), nn.Flatten(),
                         nn.Linear(4, 1))


def _maxpool_reference(m):
    return GraphNetwork((2,), (_dense("d", m[0], "input"), _relu("r", "d"), Node("u", ops.Reshape((2, 4)), ("r",)),
                               Node("p", ops.MaxPool(2), ("u",)), Node("f", ops.Flatten(), ("p",)),
                               _dense("h", m[5], "f")), "h")


def _avgpool_model():
    return nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Unflatten(1, (2, 2, 2)), nn.AvgPool2d(2, stride=1, padding=1),
                         nn.ReLU(), nn.Flatten(), nn.Linear(18, 1))


def _avgpool_reference(m):
    return GraphNetwork((2,), (_dense("d", m[0], "input"), _relu("r", "d"),
                               Node("u", ops.Reshape((2, 2, 2)), ("r",)),
                               Node("p", ops.AvgPool(2, 1, 1), ("u",)), _relu("r2", "p"),
                               Node("f", ops.Flatten(), ("r2",)), _dense("h", m[6], "f")), "h")


def _residual_reference(m):
    return GraphNetwork((2,), (_dense("a", m.l1, "input"), _relu("r", "a"), _dense("b", m.l2, "r"),
                               Node("s", ops.Add(), ("input", "b")), _relu("r2", "s"), _dense("h", m.head, "r2")),
                        "h")


def _concat_reference(m):
    return GraphNetwork((2,), (_dense("a", m.a, "input"), _relu("ra", "a"), _dense("b", m.b, "input"),
                               Node("rb", ops.Activation({"kind": "leaky_relu", "negative_slope": "1/4"}), ("b",)),
                               Node("c", ops.Concat(0), ("ra", "rb")), _dense("h", m.head, "c")), "h")


def _maxout_reference(m):
    return GraphNetwork((2,), (_dense("l", m.l, "input"), Node("m", ops.Maxout(3), ("l",)),
                               _dense("h", m.head, "m")), "h")


def _amax_reference(m):
    W, b = _weights(m.l)
    return GraphNetwork((2,), (Node("l", ops.Dense(W, b - 0.5), ("input",)), Node("m", ops.Maxout(2), ("l",))), "m")


def _prelu_model():
    return nn.Sequential(nn.Linear(2, 4), nn.PReLU(4), nn.Linear(4, 1))


def _prelu_reference(m):
    slopes = tuple(m[1].weight.detach().double().numpy())
    return GraphNetwork((2,), (_dense("d", m[0], "input"), Node("p", ops.PReLU(slopes), ("d",)),
                               _dense("h", m[2], "p")), "h")


def _batchnorm_model():
    model = nn.Sequential(nn.Linear(2, 4), nn.BatchNorm1d(4, eps=0.0), nn.ReLU(), nn.Linear(4, 1))
    with torch.no_grad():  # variances with exact square roots: the binary64 scale is then exact
        model[1].running_var.copy_(torch.tensor([4.0, 0.25, 1.0, 16.0]))
        model[1].running_mean.copy_(torch.tensor([0.5, -1.0, 0.0, 2.0]))
    return model


def _batchnorm_reference(m):
    bn = m[1]
    scale = bn.weight.detach().double().numpy() / np.sqrt(bn.running_var.double().numpy())
    shift = bn.bias.detach().double().numpy() - scale * bn.running_mean.double().numpy()
    return GraphNetwork((2,), (_dense("d", m[0], "input"), Node("n", ops.BatchNorm(scale, shift), ("d",)),
                               _relu("r", "n"), _dense("h", m[3], "r")), "h")


FAMILIES = {
    "conv1d": (_conv1d_model, _conv1d_reference),
    "conv2d": (_conv2d_model, _conv2d_reference),
    "maxpool": (_maxpool_model, _maxpool_reference),
    "avgpool": (_avgpool_model, _avgpool_reference),
    "residual": (Residual, _residual_reference),
    "concat": (Concat, _concat_reference),
    "maxout": (Maxout, _maxout_reference),
    "amax": (Amax, _amax_reference),
    "prelu": (_prelu_model, _prelu_reference),
    "batchnorm": (_batchnorm_model, _batchnorm_reference),
}


def _read(route, model, tmp_path):
    x = torch.zeros(3, 2)
    if route == "module":
        return network_from_torch(model)
    if route == "export":
        return network_from_torch(torch.export.export(model, (x,)))
    if route == "trace":
        return network_from_torch(torch.jit.trace(model, x))
    if route == "script":
        return network_from_torch(torch.jit.script(model), input_shape=(2,))
    if route == "pt2":
        torch.export.save(torch.export.export(model, (x,)), tmp_path / "model.pt2")
        return load_network(tmp_path / "model.pt2")
    if route == "torchscript file":
        torch.jit.trace(model, x).save(tmp_path / "traced.pt")
        return load_network(tmp_path / "traced.pt")
    torch.save(model, tmp_path / "pickled.pt")
    return load_network(tmp_path / "pickled.pt", trust_pickle=True)


ROUTES = ("module", "export", "trace", "script", "pt2", "torchscript file", "trusted pickle")


def _regions(net):
    complex_ = pr.enumerate_regions(net, pr.box([-2, -2], [2, 2]))
    return sorted(r.pattern for r in complex_.regions), len(complex_.linear_regions)


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_every_route_reads_the_function_and_its_regions_exactly(family, tmp_path):
    build, reference = FAMILIES[family]
    model = _halves(build(), seed=sorted(FAMILIES).index(family))
    expected = _regions(reference(model))
    for route in ROUTES:
        net = _read(route, model, tmp_path)
        _exact_matches_torch(model, net, (2,))
        assert _regions(net) == expected, route


class Normalised(nn.Module):
    """Buffers for input normalisation, a functional pool, a view sized by x.size(0) (a shape computation)."""

    def __init__(self):
        super().__init__()
        self.c, self.l = nn.Conv2d(1, 2, 3, padding=1), nn.Linear(2 * 2 * 2, 3)
        self.register_buffer("mean", torch.tensor([0.5]))
        self.register_buffer("std", torch.tensor([2.0]))

    def forward(self, x):
        y = nn.functional.max_pool2d(torch.relu(self.c((x - self.mean) / self.std)), 2)
        return self.l(y.view(y.size(0), -1))


class Clamped(nn.Module):
    """torch.maximum of two tensors, scalar scaling, clamp, relu6 and hardtanh, a clamped output."""

    def __init__(self):
        super().__init__()
        self.l1, self.l2, self.h = nn.Linear(3, 4), nn.Linear(3, 4), nn.Linear(4, 2)

    def forward(self, x):
        a = torch.maximum(self.l1(x), self.l2(x) * 2)
        b = a.clamp(min=0) + nn.functional.relu6(a) - nn.functional.hardtanh(a, -0.5, 0.5) / 4
        return self.h(b).clamp(max=1.0)


class Permuted(nn.Module):
    """A permutation of the axes, a minimum over one, adaptive average pooling and a concatenation."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv1d(2, 4, 3, padding=1)

    def forward(self, x):
        y = nn.functional.leaky_relu(self.c(x), 0.125)
        return torch.cat([torch.amin(y.permute(0, 2, 1), dim=2), nn.functional.adaptive_avg_pool1d(y, 2).flatten(1)],
                         dim=1)


class Pooled(nn.Module):
    """An unsqueezed input and a global mean over the spatial axes."""

    def __init__(self):
        super().__init__()
        self.c = nn.Conv2d(1, 3, 2)

    def forward(self, x):
        return torch.relu(self.c(x.unsqueeze(1))).mean(dim=(2, 3))


class Sliced(nn.Module):
    """Slices with steps, chunk, narrow, select and split of a computed tensor."""

    def __init__(self):
        super().__init__()
        self.l, self.h = nn.Linear(3, 8), nn.Linear(7, 1)

    def forward(self, x):
        y = self.l(x)
        a, b = y.chunk(2, dim=1)
        c = torch.relu(a[:, 1:3]) + y.narrow(1, 0, 2)
        _, q = torch.split(y, [5, 3], dim=1)
        return self.h(torch.cat([c, torch.relu(b[:, ::2]), y.select(1, 5).unsqueeze(1), torch.relu(q[:, :2])], dim=1))


@pytest.mark.parametrize("model, shape", [(Normalised, (1, 4, 4)), (Clamped, (3,)), (Permuted, (2, 6)),
                                          (Pooled, (4, 4)), (Sliced, (3,))])
def test_forward_functions_of_every_kind_are_read_exactly_through_every_route(model, shape):
    torch.manual_seed(8)
    module = model().eval()
    x = torch.randn(2, *shape)
    for net in (network_from_torch(module, x), network_from_torch(torch.export.export(module, (x,))),
                network_from_torch(torch.jit.trace(module, x)),
                network_from_torch(torch.jit.script(module), input_shape=shape)):
        _exact_matches_torch(module, net, shape)

def test_dense_models_read_as_layered_networks_through_every_route(tmp_path):
    model = _halves(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 3), nn.Hardtanh(), nn.Linear(3, 1)), 7)
    expected = pr.network_from_arrays([_weights(model[i])[0] for i in (0, 2, 4)],
                                      [_weights(model[i])[1] for i in (0, 2, 4)], ["relu", "hardtanh", "linear"])
    for route in ROUTES:
        assert _read(route, model, tmp_path) == expected, route


def test_parameters_are_read_at_their_exact_binary_values():
    conv = nn.Conv1d(1, 1, 2, bias=False)
    with torch.no_grad():
        conv.weight.copy_(torch.tensor([[[0.1, -2.0]]]))
    net = network_from_torch(nn.Sequential(conv, nn.ReLU()), input_shape=(1, 3))
    from fractions import Fraction

    tenth = Fraction(float(torch.tensor(0.1, dtype=torch.float32)))
    assert net([1, 0, 0]) == (tenth, 0)


def test_conv_net_with_pooling_batchnorm_prelu_and_same_padding_matches_torch():
    torch.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(1, 3, 3, padding="same"), nn.BatchNorm2d(3), nn.PReLU(3), nn.MaxPool2d(2),
                          nn.Conv2d(3, 2, 2, padding="same"), nn.ReLU6(), nn.AvgPool2d(2, padding=1),
                          nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(2, 2)).eval()
    with torch.no_grad():
        model[1].running_var.uniform_(0.5, 2.0)
        model[1].running_mean.normal_()
    batch = torch.zeros(2, 1, 6, 6)
    for net in (network_from_torch(model, input_shape=(1, 6, 6)), network_from_torch(model, batch),
                network_from_torch(torch.export.export(model, (batch,))),
                network_from_torch(torch.jit.trace(model, batch))):
        assert isinstance(net, GraphNetwork) and net.input_shape == (1, 6, 6)
        _exact_matches_torch(model, net, (1, 6, 6))


@pytest.mark.parametrize("model, shape, message", [
    (nn.Sequential(nn.Conv2d(1, 1, 2), nn.Tanh()), (1, 3, 3), r"node 'tanh' \(tanh\): expected one of the operators "),
    (nn.Sequential(nn.Conv3d(1, 1, 2)), (1, 3, 3, 3), r"node 'conv3d' \(conv3d\): expected one of the "
                                                                  r"operators .*conv2d.*, got conv3d"),
    (nn.Sequential(nn.Conv2d(1, 1, 2, padding_mode="circular")), (1, 3, 3), "padding_mode: expected 'zeros'"),
    (nn.Sequential(nn.MaxPool2d(2, ceil_mode=True)), (1, 3, 3), "ceil_mode: expected False"),
    (nn.Sequential(nn.AvgPool2d(3, padding=1, count_include_pad=False)), (1, 3, 3), "count_include_pad"),
    (nn.Sequential(nn.Conv2d(1, 1, 2), nn.BatchNorm2d(1)), (1, 3, 3), r"Sequential.1 \(BatchNorm2d\): .*eval mode"),
    (nn.Sequential(nn.Conv2d(1, 1, 2)), None, "input_shape: expected the shape of one input"),
    (nn.Sequential(nn.Conv2d(2, 1, 2)), (1, 3, 3), "expected 2 channels"),
    (nn.Sequential(nn.Conv2d(1, 1, 2), nn.Linear(4, 1)), (1, 3, 3), "flatten before a linear layer"),
    (nn.Sequential(nn.Flatten(0)), (1, 3, 3), r"start_dim: expected an axis after the batch axis"),
])
def test_bad_models_get_one_clear_error(model, shape, message):
    with pytest.raises(InvalidInputError, match=message):
        network_from_torch(model.train() if "BatchNorm2d" in str(model) else model.eval(), input_shape=shape)


def test_operators_outside_the_table_and_uncapturable_forwards_are_named():
    class Sigmoid(nn.Module):
        def forward(self, x):
            return torch.sigmoid(x)

    class Product(nn.Module):
        def forward(self, x):
            return x * torch.relu(x)

    class Branching(nn.Module):
        def forward(self, x):
            return x if x.sum() > 0 else -x

    with pytest.raises(InvalidInputError, match=r"Sigmoid: node 'sigmoid' \(sigmoid\): expected one of the "
                                                r"operators .*relu.*, got sigmoid"):
        network_from_torch(Sigmoid(), input_shape=(2,))
    with pytest.raises(InvalidInputError, match="the product of two tensors computed from the input"):
        network_from_torch(Product(), input_shape=(2,))
    with pytest.raises(InvalidInputError, match=r"Branching: expected a forward\(\) that torch.export can capture"):
        network_from_torch(Branching(), input_shape=(2,))
    with pytest.raises(InvalidInputError, match="got a ModuleList"):
        network_from_torch(nn.ModuleList([nn.ReLU()]), input_shape=(2,))


def _cli(*args, cwd):
    return subprocess.run([sys.executable, "-m", "polyregions", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


def _in_process(monkeypatch, capsys, *args, cwd) -> tuple[int, list[str]]:
    """The command line's exit status and error lines, run in this process (torch is imported once, not per
    command; the process itself is tested by the commands run through :func:`_cli`)."""
    from command_line import exit_status

    monkeypatch.chdir(cwd)
    capsys.readouterr()
    code = exit_status(args)
    return code, capsys.readouterr().err.strip().splitlines()


class _WritesAFile:
    """A pickle that, when loaded, writes a file: what a crafted .pt can do."""

    def __init__(self, path):
        self.path = path

    def __reduce__(self):
        import pathlib

        return pathlib.Path.write_text, (pathlib.Path(self.path), "the file's code ran")


@pytest.mark.parametrize("command", [("regions", "--box", "-1,1"), ("boundary", "--box", "-1,1"),
                                     ("topology", "--box", "-1,1"), ("network", "-o", "out.json")])
def test_a_pickle_that_would_run_code_is_refused_and_runs_nothing(tmp_path, command, monkeypatch, capsys):
    target = tmp_path / "written.txt"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.save(_WritesAFile(str(target)), tmp_path / "evil.pt")
    args = (command[0], "evil.pt") + command[1:]
    if command[0] == "regions":  # the installed command, as its own process
        result = _cli(*args, cwd=tmp_path)
        code, lines = result.returncode, result.stderr.strip().splitlines()
    else:
        code, lines = _in_process(monkeypatch, capsys, *args, cwd=tmp_path)
    assert code == 2, lines
    assert len(lines) == 1 and lines[0].startswith("polyregions: error: evil.pt: expected a model file that loads "
                                                   "without running code"), lines
    assert ".pt2" in lines[0] and "TorchScript" in lines[0] and "--trust-pickle" in lines[0]
    assert not target.exists()
    assert not (tmp_path / "out.json").exists()


def test_trusted_pickles_load_and_untrusted_ones_say_why(tmp_path):
    model = _halves(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1)), 1)
    torch.save(model, tmp_path / "model.pt")
    with pytest.raises(InvalidInputError, match="runs code from the file as it loads"):
        load_network(tmp_path / "model.pt")
    assert isinstance(load_torch_file(tmp_path / "model.pt", trust_pickle=True), Network)
    result = _cli("regions", "model.pt", "--box", "-1,1", "--trust-pickle", "--json", cwd=tmp_path)
    assert result.returncode == 0 and '"activation_regions"' in result.stdout, result.stderr


def test_bad_pt_files_get_one_line_on_the_command_line(tmp_path, monkeypatch, capsys):
    torch.save(nn.Linear(2, 2).state_dict(), tmp_path / "weights.pt")
    (tmp_path / "junk.pt").write_bytes(b"junk")
    torch.jit.script(nn.Sequential(nn.Conv2d(1, 1, 2), nn.ReLU())).save(tmp_path / "conv.pt")
    torch.jit.script(nn.Sequential(nn.Linear(2, 2), nn.Tanh())).save(tmp_path / "tanh.pt")
    subprocess.run([sys.executable, "-c", "import torch\nclass Net(torch.nn.Linear): pass\n"
                    "torch.save(Net(2, 1), 'main.pt')"], cwd=tmp_path, check=True, capture_output=True)
    for name, expected in (("weights.pt", "weights.pt: expected a model, got a state dict"),
                           ("junk.pt", "junk.pt: expected a PyTorch model file, got an unreadable file"),
                           ("conv.pt", "conv.pt: model: input_shape: expected the shape of one input"),
                           ("tanh.pt", "tanh.pt: model: node "),
                           ("main.pt", "main.pt: expected a model file that loads without running code")):
        code, lines = _in_process(monkeypatch, capsys, "regions", name, "--box", "-1,1", cwd=tmp_path)
        assert code == 2 and len(lines) == 1 and lines[0].startswith("polyregions: error: ") \
            and expected in lines[0], lines
    # The class the pickle names lives in the __main__ of the process that saved it, not in this one.
    result = _cli("regions", "main.pt", "--box", "-1,1", "--trust-pickle", cwd=tmp_path)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and "PYTHONPATH" in lines[0], lines


def test_a_scripted_conv_model_takes_its_input_shape_from_an_attribute(tmp_path):
    model = _halves(nn.Sequential(nn.Conv1d(1, 2, 2), nn.ReLU(), nn.Flatten(), nn.Linear(6, 1)), 2)
    model.input_shape = (1, 4)
    torch.jit.script(model).save(tmp_path / "scripted.pt")
    net = load_network(tmp_path / "scripted.pt")
    assert isinstance(net, GraphNetwork) and net.input_shape == (1, 4)
    _exact_matches_torch(model, net, (1, 4))


def test_commands_that_read_no_torch_file_never_import_torch(tmp_path):
    code = ("import sys\nfrom polyregions.cli import main\n"
            "main(['network', '--widths', '2,4', '-o', 'net.json'])\n"
            "main(['regions', 'net.json', '--box', '-1,1', '--json'])\n"
            "print('torch' in sys.modules, 'onnx' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().splitlines()[-1] == "False False"
