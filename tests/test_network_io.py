import json
import os
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import hardtanh, leaky_relu, linear, piecewise_linear, relu
from polyregions.networks.io import (
    FORMAT,
    load_network,
    load_npz,
    network_from_arrays,
    network_from_json,
    network_to_json,
    save_network,
)
from polyregions.networks.network import Network

F = Fraction

CONTRACT_EXAMPLE = {"format": "polyregions.network/1", "input_dim": 2,
                    "layers": [{"weight": [[1, -2], [0.5, "1/3"]], "bias": [0, 1], "activation": "relu"},
                               {"weight": [[1, 1]], "bias": ["-1/2"], "activation": "linear"}]}


def test_the_contract_example_reads_exactly():
    net = network_from_json(CONTRACT_EXAMPLE)
    assert net.layers[0].weight == ((1, -2), (F(1, 2), F(1, 3)))
    assert net.layers[1].bias == (F(-1, 2),)
    assert net.neurons == ((0, 0), (0, 1))
    assert net([3, 1]) == (F(10, 3),)  # relu(1) + relu(17/6) - 1/2


def test_json_numbers_follow_the_contract():
    doc = json.loads('{"format": "polyregions.network/1", "input_dim": 1, "layers": [{"weight": [[0.1], ["0.1"], '
                     '["1e-3"], ["-7/12"], [3]], "bias": [0, 0, 0, 0, 0], "activation": "linear"}]}')
    column = [row[0] for row in network_from_json(doc).layers[0].weight]
    assert column == [F(3602879701896397, 36028797018963968), F(1, 10), F(1, 1000), F(-7, 12), 3]


fractions = st.fractions(min_value=-10, max_value=10, max_denominator=1000)
floats = st.floats(-10, 10, allow_nan=False).map(F)
entries = st.one_of(fractions, floats, st.integers(-10**30, 10**30).map(F))


@st.composite
def networks(draw):
    n0 = draw(st.integers(1, 3))
    acts = st.sampled_from([relu(), linear(), hardtanh(), leaky_relu(F(-7, 12)),
                            piecewise_linear([F(-1, 3), 0.25], [1, 0.5, -2], F(1, 7))])
    layers, fan_in = [], n0
    for _ in range(draw(st.integers(1, 3))):
        width = draw(st.integers(1, 3))
        weight = draw(st.lists(st.lists(entries, min_size=fan_in, max_size=fan_in), min_size=width, max_size=width))
        layers.append((weight, draw(st.lists(entries, min_size=width, max_size=width)), draw(acts)))
        fan_in = width
    return Network.from_layers(n0, layers)


@given(networks())
def test_save_then_load_gives_the_same_network(net):
    doc = json.loads(json.dumps(network_to_json(net)))
    assert network_from_json(doc) == net
    assert doc["format"] == FORMAT
    assert all(isinstance(v, str) for layer in doc["layers"] for row in layer["weight"] for v in row)


def test_save_network_writes_atomically_and_round_trips(tmp_path):
    net = network_from_json(CONTRACT_EXAMPLE)
    path = tmp_path / "net.json"
    path.write_text("old content")
    save_network(net, path)
    assert load_network(path) == net
    assert os.listdir(tmp_path) == ["net.json"]  # no temporary file left behind
    assert json.loads(path.read_text())["layers"][0]["weight"] == [["1", "-2"], ["1/2", "1/3"]]


def _layer(**changes):
    layer = {"weight": [[1, 2], [3, 4]], "bias": [0, 0], "activation": "relu"}
    layer.update(changes)
    return {k: v for k, v in layer.items() if v is not None}


def _doc(**changes):
    doc = {"format": FORMAT, "input_dim": 2, "layers": [_layer(), {"weight": [[1, 1]], "bias": [0],
                                                                   "activation": "linear"}]}
    doc.update(changes)
    return {k: v for k, v in doc.items() if v is not None}


BAD_DOCUMENTS = [
    ([], ""),
    (_doc(format=None), "format"),
    (_doc(format="polyregions.network/2"), "format"),
    (_doc(format="polyregions.arrangement/1"), "format"),
    (_doc(input_dim=None), "input_dim"),
    (_doc(input_dim=0), "input_dim"),
    (_doc(input_dim="2"), "input_dim"),
    (_doc(input_dim=2.0), "input_dim"),
    (_doc(input_dim=True), "input_dim"),
    (_doc(input_dim=3), "layers[0].weight"),
    (_doc(layers=None), "layers"),
    (_doc(layers={}), "layers"),
    (_doc(layers=[]), "layers"),
    (_doc(layers=[[1, 2]]), "layers[0]"),
    (_doc(layers=[_layer(weight=None)]), "layers[0].weight"),
    (_doc(layers=[_layer(bias=None)]), "layers[0].bias"),
    (_doc(layers=[_layer(activation=None)]), "layers[0].activation"),
    (_doc(layers=[_layer(weight=[[1, 2]])]), "layers[0].bias"),
    (_doc(layers=[_layer(weight=[[1, 2], [3]])]), "layers[0].weight"),
    (_doc(layers=[_layer(weight=[[1, 2, 3], [3, 4, 5]])]), "layers[0].weight"),
    (_doc(layers=[_layer(weight=[])]), "layers[0].weight"),
    (_doc(layers=[_layer(weight=[1, 2])]), "layers[0].weight[0]"),
    (_doc(layers=[_layer(), {"weight": [[1, 1, 1]], "bias": [0], "activation": "linear"}]), "layers[1].weight"),
    (_doc(layers=[_layer(bias=[0])]), "layers[0].bias"),
    (_doc(layers=[_layer(bias="0, 0")]), "layers[0].bias"),
    (_doc(layers=[_layer(bias=[0, float("nan")])]), "layers[0].bias[1]"),
    (_doc(layers=[_layer(bias=[0, float("inf")])]), "layers[0].bias[1]"),
    (_doc(layers=[_layer(bias=[0, "1/0"])]), "layers[0].bias[1]"),
    (_doc(layers=[_layer(bias=[0, ""])]), "layers[0].bias[1]"),
    (_doc(layers=[_layer(bias=[0, "one"])]), "layers[0].bias[1]"),
    (_doc(layers=[_layer(bias=[0, None])]), "layers[0].bias[1]"),
    (_doc(layers=[_layer(bias=[0, True])]), "layers[0].bias[1]"),
    (_doc(layers=[_layer(weight=[[1, 2], [3, "nan"]])]), "layers[0].weight[1][1]"),
    (_doc(layers=[_layer(activation="tanh")]), "layers[0].activation"),
    (_doc(layers=[_layer(activation="ReLU")]), "layers[0].activation"),
    (_doc(layers=[_layer(activation={"kind": "leaky_relu", "negative_slope": 1})]),
     "layers[0].activation: negative_slope"),
    (_doc(layers=[_layer(activation={"kind": "piecewise_linear", "breakpoints": [1, 0], "slopes": [0, 1, 0],
                                     "offset": 0})]), "layers[0].activation: breakpoints"),
    (_doc(layers=[_layer(activation={"kind": "piecewise_linear", "breakpoints": [0, 1], "slopes": [0, 1, 1],
                                     "offset": 0})]), "layers[0].activation: slopes"),
]


@pytest.mark.parametrize("doc, field", BAD_DOCUMENTS)
def test_bad_network_files_are_rejected_with_the_file_and_field_named(doc, field, tmp_path):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(doc))
    with pytest.raises(InvalidInputError) as info:
        load_network(path)
    prefix = f"{path}: {field}:" if field else f"{path}: expected"
    assert str(info.value).startswith(prefix), str(info.value)


def test_json_nan_literals_and_unreadable_files_name_the_file(tmp_path):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(_doc()).replace('"bias": [0, 0]', '"bias": [0, NaN]'))
    with pytest.raises(InvalidInputError, match=r"net.json: layers\[0\].bias\[1\]: expected a finite number"):
        load_network(path)
    path.write_text('{"format": ')
    with pytest.raises(InvalidInputError, match="net.json: expected JSON, got a syntax error at line 1"):
        load_network(path)
    path.write_bytes(b"\xff\xfe{}")
    with pytest.raises(InvalidInputError, match="net.json: expected a UTF-8 JSON file"):
        load_network(path)
    with pytest.raises(InvalidInputError, match="nothing.json: cannot read the file"):
        load_network(tmp_path / "nothing.json")


# --- npz ----------------------------------------------------------------------------------------------------

def test_npz_reads_exact_values_with_default_activations(tmp_path):
    rng = np.random.default_rng(0)
    arrays = {"W0": rng.normal(size=(3, 2)).astype(np.float32), "b0": rng.normal(size=3),
              "W1": np.array([[1, -2, 3]]), "b1": np.array([0.1])}
    np.savez(tmp_path / "net.npz", **arrays)
    net = load_network(tmp_path / "net.npz")
    assert net.widths == (3, 1) and net.input_dim == 2
    assert [layer.activation for layer in net.layers] == [relu(), linear()]
    assert net.layers[0].weight[1][0] == F(float(arrays["W0"][1, 0]))  # the float32 value, exactly
    assert net.layers[1].bias == (F(0.1),)
    assert net == network_from_arrays([arrays["W0"], arrays["W1"]], [arrays["b0"], arrays["b1"]])


def test_npz_activation_names_and_json_texts(tmp_path):
    names = np.array(["hardtanh", '{"kind": "leaky_relu", "negative_slope": "1/100"}', "relu"])
    np.savez(tmp_path / "net.npz", W0=np.eye(2), b0=np.zeros(2), W1=np.eye(2), b1=np.zeros(2),
             W2=np.ones((1, 2)), b2=np.zeros(1), activations=names)
    net = load_npz(tmp_path / "net.npz")
    assert [layer.activation for layer in net.layers] == [hardtanh(), leaky_relu(F(1, 100)), relu()]


@pytest.mark.parametrize("arrays, field", [
    ({"W0": np.eye(2), "b0": np.zeros(2), "W1": np.ones((1, 2))}, "b1"),
    ({"W0": np.eye(2), "b0": np.zeros(2), "W2": np.ones((1, 2)), "b2": np.zeros(1)}, "W1"),
    ({"W0": np.eye(2), "b0": np.zeros(2), "weights": np.eye(2)}, "weights"),
    ({}, "W0"),
    ({"W0": np.ones(2), "b0": np.zeros(2)}, "W0"),
    ({"W0": np.eye(2), "b0": np.zeros((2, 1))}, "b0"),
    ({"W0": np.eye(2), "b0": np.zeros(3)}, "b0"),
    ({"W0": np.eye(2), "b0": np.zeros(2), "W1": np.ones((1, 3)), "b1": np.zeros(1)}, "W1"),
    ({"W0": np.array([[1.0, np.nan]]), "b0": np.zeros(1)}, "W0[0][1]"),
    ({"W0": np.eye(2), "b0": np.array([0.0, np.inf])}, "b0[1]"),
    ({"W0": np.eye(2), "b0": np.zeros(2), "activations": np.array(["relu", "relu"])}, "activations"),
    ({"W0": np.eye(2), "b0": np.zeros(2), "activations": np.array(["tanh"])}, "activations[0]"),
    ({"W0": np.eye(2), "b0": np.zeros(2), "activations": np.array([1])}, "activations"),
    ({"W0": np.eye(2), "b0": np.zeros(2), "activations": np.array(['{"kind": "leaky_relu"}'])},
     "activations[0]: negative_slope"),
])
def test_bad_npz_files_are_rejected_with_the_file_and_array_named(arrays, field, tmp_path):
    path = tmp_path / "net.npz"
    np.savez(path, **arrays)
    with pytest.raises(InvalidInputError) as info:
        load_network(path)
    assert str(info.value).startswith(f"{path}: {field}:"), str(info.value)


def test_npz_that_needs_pickle_or_is_not_an_archive_is_rejected(tmp_path):
    path = tmp_path / "net.npz"
    np.savez(path, W0=np.array([[F(1, 3)]], dtype=object), b0=np.zeros(1))
    with pytest.raises(InvalidInputError, match="net.npz: expected an .npz archive of numeric arrays"):
        load_network(path)
    path.write_text("not a zip")
    with pytest.raises(InvalidInputError, match="net.npz: expected an .npz archive"):
        load_network(path)


# --- PyTorch ------------------------------------------------------------------------------------------------

def _relative_error(expected, got):
    return float(np.max(np.abs(expected - got)) / max(1.0, float(np.max(np.abs(expected)))))


def _exact_outputs(net, x):
    return np.array([[float(v) for v in net(list(map(float, row)))] for row in x])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_torch_module_with_batch_norm_matches_torch_in_eval_mode(dtype):
    torch = pytest.importorskip("torch")
    from torch import nn

    from polyregions.networks.importers import network_from_torch

    torch.manual_seed(0)
    model = nn.Sequential(nn.Flatten(), nn.BatchNorm1d(3), nn.Linear(3, 6), nn.BatchNorm1d(6), nn.ReLU(),
                          nn.Dropout(0.3), nn.Linear(6, 5), nn.LeakyReLU(0.2), nn.Identity(),
                          nn.Sequential(nn.Linear(5, 4), nn.Hardtanh(-0.5, 2.0)), nn.Linear(4, 4), nn.ReLU6(),
                          nn.BatchNorm1d(4, affine=False), nn.Linear(4, 2))
    with torch.no_grad():
        for bn in (m for m in model.modules() if isinstance(m, nn.BatchNorm1d)):
            bn.running_mean.uniform_(-1, 1)
            bn.running_var.uniform_(0.2, 3)
            if bn.affine:
                bn.weight.uniform_(-2, 2)
                bn.bias.uniform_(-1, 1)
    model = model.to(getattr(torch, dtype)).eval()
    net = network_from_torch(model)
    assert net.input_dim == 3 and net.output_dim == 2
    assert [layer.activation.name for layer in net.layers] == ["relu", "leaky_relu", "piecewise_linear",
                                                               "piecewise_linear", "linear"]
    x = torch.randn(50, 3, dtype=getattr(torch, dtype)) * 2
    with torch.no_grad():
        expected = model(x).double().numpy()
    got = _exact_outputs(net, x.double().numpy())
    assert _relative_error(expected, got) < (1e-5 if dtype == "float32" else 1e-12)


def test_torch_linear_weights_are_read_at_their_exact_float32_values():
    torch = pytest.importorskip("torch")
    from torch import nn

    from polyregions.networks.importers import network_from_torch

    torch.manual_seed(1)
    model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1, bias=False))
    net = network_from_torch(model)
    W0 = model[0].weight.detach().numpy()
    assert net.layers[0].weight == tuple(tuple(F(float(v)) for v in row) for row in W0)
    assert net.layers[1].bias == (0,)


def test_batch_norm_with_an_exact_scale_folds_to_the_exact_map():
    torch = pytest.importorskip("torch")
    from torch import nn

    from polyregions.networks.importers import network_from_torch

    lin = nn.Linear(1, 2)
    bn = nn.BatchNorm1d(2, eps=0.0)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[1.0], [-3.0]]))
        lin.bias.copy_(torch.tensor([0.5, 0.25]))
        bn.running_mean.copy_(torch.tensor([1.0, -1.0]))
        bn.running_var.copy_(torch.tensor([4.0, 0.25]))  # sqrt exact: scales gamma/2 and 2 gamma
        bn.weight.copy_(torch.tensor([3.0, 0.5]))
        bn.bias.copy_(torch.tensor([-1.0, 2.0]))
    net = network_from_torch(nn.Sequential(lin, bn, nn.ReLU()).eval())
    # y1 = 3/2 (x + 1/2 - 1) - 1 = 3/2 x - 7/4 ; y2 = 1 (-3x + 1/4 + 1) + 2 = -3x + 13/4
    assert net.layers[0].weight == ((F(3, 2),), (-3,)) and net.layers[0].bias == (F(-7, 4), F(13, 4))


def test_torch_modules_that_are_not_fixed_functions_or_not_supported_are_rejected():
    torch = pytest.importorskip("torch")
    from torch import nn

    from polyregions.networks.importers import network_from_torch

    with pytest.raises(InvalidInputError, match=r"Sequential.1 \(BatchNorm1d\): .*expected eval mode"):
        network_from_torch(nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2)))
    with pytest.raises(InvalidInputError, match=r"Sequential.1 \(Dropout\): .*expected eval mode"):
        network_from_torch(nn.Sequential(nn.Linear(2, 2), nn.Dropout(0.5)))
    with pytest.raises(InvalidInputError, match="running statistics"):
        network_from_torch(nn.Sequential(nn.BatchNorm1d(2, track_running_stats=False)).eval())
    with pytest.raises(InvalidInputError, match=r"model: node 'tanh' \(tanh\): expected one of the operators .*, "
                                                r"got tanh"):
        network_from_torch(nn.Sequential(nn.Linear(2, 2), nn.Tanh()), what="model")
    with pytest.raises(InvalidInputError, match=r"Sequential.2 \(Linear\): weight: expected 3 columns"):
        network_from_torch(nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(4, 1)))
    with pytest.raises(InvalidInputError, match=r"Sequential.0 \(Linear\): weight: expected 3 columns"):
        network_from_torch(nn.Sequential(nn.Linear(2, 3)), input_dim=3)
    with pytest.raises(InvalidInputError, match="input_shape: expected the shape of one input"):
        network_from_torch(nn.Sequential(nn.ReLU()))
    with pytest.raises(InvalidInputError, match="expected a torch.nn.Module"):
        network_from_torch([1, 2])
    lin = nn.Linear(1, 1)
    with torch.no_grad():
        lin.weight.fill_(float("nan"))
    with pytest.raises(InvalidInputError, match=r"Sequential.0 \(Linear\): weight: expected finite numbers"):
        network_from_torch(nn.Sequential(lin))


def test_activations_without_a_linear_layer_between_get_identity_weights():
    pytest.importorskip("torch")
    from torch import nn

    from polyregions.networks.importers import network_from_torch

    net = network_from_torch(nn.Sequential(nn.ReLU(), nn.Hardtanh()), input_dim=2)
    assert net.widths == (2, 2) and net.layers[0].weight == ((1, 0), (0, 1))
    assert net([-3, 5]) == (0, 1)


def test_custom_modules_are_read_as_their_forward_computes():
    torch = pytest.importorskip("torch")
    from torch import nn

    from polyregions.networks.importers import network_from_torch

    class MLP(nn.Module):
        def __init__(self):
            super().__init__()
            self.first, self.act, self.second = nn.Linear(2, 4), nn.ReLU(), nn.Linear(4, 1)

        def forward(self, x):
            return self.second(self.act(self.first(x)))

    class Skipping(MLP):
        def forward(self, x):
            return self.second(self.first(x))

    torch.manual_seed(2)
    net = network_from_torch(MLP())
    assert net.widths == (4, 1) and net.num_neurons == 4

    class Wrapper(nn.Module):
        def __init__(self):
            super().__init__()
            self.body = nn.Sequential(nn.Linear(2, 2), nn.ReLU())

        def forward(self, x):
            return self.body(x)

    assert network_from_torch(Wrapper()).widths == (2,)
    # forward() skips the ReLU: torch.export reads what forward() does, two affine maps composed into one layer
    torch.manual_seed(3)
    module = Skipping()
    skipping = network_from_torch(module)
    assert skipping.widths == (1,) and skipping.num_neurons == 0
    with torch.no_grad():
        expected = module(torch.tensor([[1.0, -2.0]])).item()
    assert float(skipping([1, -2])[0]) == pytest.approx(expected, rel=1e-6)


# --- input files within limits (issue 17) ------------------------------------------------------------------

def test_regression_files_that_are_not_regular_are_refused_by_name_before_reading(tmp_path):
    # /dev/zero was read until memory ran out; a FIFO blocked for ever
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    (tmp_path / "folder.json").mkdir()
    for path, kind in ((fifo, "a FIFO"), (tmp_path / "folder.json", "a directory"),
                       ("/dev/zero", "a character device")):
        with pytest.raises(InvalidInputError, match=f"{path}: expected a regular file, got {kind}"):
            load_network(path)
    with pytest.raises(InvalidInputError, match="pipe.json.npz: expected a regular file, got a FIFO"):
        os.mkfifo(tmp_path / "pipe.json.npz")
        load_network(tmp_path / "pipe.json.npz")


def test_files_above_the_size_limit_are_refused_without_reading(tmp_path):
    for name in ("big.json", "big.npz"):
        with open(tmp_path / name, "wb") as handle:
            handle.truncate((1 << 30) + 1)  # sparse: nothing is stored
        with pytest.raises(InvalidInputError, match=f"{name}: expected a file of at most 1 GiB, got 1 GiB"):
            load_network(tmp_path / name)


@pytest.mark.parametrize("text, message", [
    ("[" * 100_000 + "]" * 100_000, "expected JSON nested at most 100 deep"),
    ('{"a":' * 101 + "1" + "}" * 101, "expected JSON nested at most 100 deep"),
    ("1" * 10_001, "expected at most 10000 digits"),
], ids=["arrays", "objects", "integer"])
def test_regression_deep_nesting_and_long_integer_literals_name_the_file(text, message, tmp_path):
    # a RecursionError and "Exceeds the limit (4300 digits)" tracebacks before
    path = tmp_path / "net.json"
    path.write_text(text)
    with pytest.raises(InvalidInputError, match=f"net.json: {message}"):
        load_network(path)


def test_integer_literals_beyond_4300_digits_are_read_exactly(tmp_path):
    path = tmp_path / "net.json"
    path.write_text(json.dumps(_doc()).replace('"bias": [0, 0]', '"bias": [0, ' + "3" * 5000 + "]"))
    assert load_network(path).layers[0].bias[1] == (10 ** 5000 - 1) // 3


@pytest.mark.parametrize("W0, dtype", [(np.array([["1", "0"], ["0", "1"]]), "<U1"),
                                       (np.array([[b"1", b"0"], [b"0", b"1"]]), "|S1"),
                                       (np.eye(2, dtype=bool), "bool"), (np.eye(2) + 0j, "complex128")])
def test_regression_npz_arrays_must_be_real_numbers(W0, dtype, tmp_path):
    # a string array was read number by number, as if it were a JSON network
    path = tmp_path / "net.npz"
    np.savez(path, W0=W0, b0=np.zeros(2))
    with pytest.raises(InvalidInputError, match=f"net.npz: W0: expected an array of real numbers .*got dtype {dtype}"):
        load_network(path)


@pytest.mark.parametrize("path", [None, 3, b"net.json", ""])
def test_load_network_checks_the_type_of_its_path(path):
    with pytest.raises(InvalidInputError, match="load_network: path: expected a file path"):
        load_network(path)


def test_torch_module_list_gets_one_clear_error():
    torch = pytest.importorskip("torch")
    from polyregions.networks.importers import network_from_torch

    layers = torch.nn.ModuleList([torch.nn.Linear(2, 2), torch.nn.ReLU()])
    with pytest.raises(InvalidInputError, match=r"^ModuleList: expected a module with a forward\(\), got a "
                                                r"ModuleList"):
        network_from_torch(layers)
    with pytest.raises(InvalidInputError, match=r"^Sequential: .*ModuleList"):
        network_from_torch(torch.nn.Sequential(torch.nn.Linear(2, 2), layers))
