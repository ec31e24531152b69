"""Reading and writing network files: the ``polyregions.network/1`` JSON file and ``.npz`` arrays.

Every number is read at its exact rational value (a float is the binary number it stores) and written as an
exact string such as ``"-7/12"``, so ``network_from_json(network_to_json(n)) == n``. Every error names the
file (or object) and the field, for example ``net.json: layers[1].weight: expected 3 columns ...``.

``.npz`` layout
---------------
Arrays ``W0, b0, W1, b1, ..., W{L-1}, b{L-1}``: ``Wl`` of shape ``(width_l, width_{l-1})`` and ``bl`` of shape
``(width_l,)``, any real dtype (read exactly). An optional 1-D string array ``activations`` holds one entry per
layer: ``"relu"``, ``"linear"``, ``"hardtanh"`` or the JSON text of an activation object
(``'{"kind": "leaky_relu", "negative_slope": "1/100"}'``). Without it every layer but the last is ReLU and the
last is linear. Any other key is an error, as is a file that needs pickle to load.

Models of other frameworks are read by :mod:`polyregions.networks.importers`.
"""

from __future__ import annotations

import json
import os
import re
import zipfile
from typing import Any, Sequence

import numpy as np

from polyregions._support.atomic import atomic_write_text
from polyregions._support.limits import MAX_INPUT_BYTES, describe_size
from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, format_rational
from polyregions.networks.activations import Activation, activation_from_json, linear, relu
from polyregions.networks.network import Network

__all__ = [
    "FORMAT",
    "read_json",
    "network_from_json",
    "network_to_json",
    "load_network",
    "save_network",
    "network_document",
    "load_npz",
    "network_from_arrays",
]

#: The format tag of a network file.
FORMAT = "polyregions.network/1"
#: The format tag of a graph network file (:mod:`polyregions.networks.graph`).
GRAPH_FORMAT = "polyregions.network/2"


def read_json(path: str | os.PathLike) -> Any:
    """Parse a JSON input file; a missing, unreadable or malformed file raises :class:`InvalidInputError` naming it.

    Only a regular file is read (a directory, a FIFO or a device is refused by name), of at most 1 GiB, nested
    at most 100 deep, with integers of at most 10,000 digits (:mod:`polyregions._support.limits`).
    """
    from polyregions._support.input_files import read_json_file

    return read_json_file(path)


# --- JSON ---------------------------------------------------------------------------------------------------

def network_to_json(network: Network) -> dict[str, Any]:
    """The ``polyregions.network/1`` document of a network, every number an exact string.

    Parameters
    ----------
    network : Network
        The network.

    Returns
    -------
    dict
        ``{"format": "polyregions.network/1", "input_dim": n, "layers": [...]}``, each layer
        ``{"weight": [[...]], "bias": [...], "activation": ...}`` with numbers as strings such as ``"-7/12"``;
        ready for :func:`json.dumps`, and read back by :func:`network_from_json` to an equal network.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(1, [([["-7/12"]], [0], "relu")])
    >>> doc = pr.network_to_json(net)
    >>> doc["layers"][0]["weight"], doc["layers"][0]["activation"]
    ([['-7/12']], 'relu')
    >>> pr.network_from_json(doc) == net
    True
    """
    return {
        "format": FORMAT,
        "input_dim": network.input_dim,
        "layers": [{"weight": [[format_rational(v) for v in row] for row in layer.weight],
                    "bias": [format_rational(v) for v in layer.bias],
                    "activation": layer.activation.to_json()} for layer in network.layers],
    }


def network_from_json(obj: Any, *, what: str = "network") -> Network:
    """Read a ``polyregions.network/1`` document (already parsed).

    Parameters
    ----------
    obj : dict
        The parsed JSON document: ``"format"``, ``"input_dim"`` and ``"layers"``, each layer with ``"weight"``,
        ``"bias"`` and ``"activation"``. Numbers may be JSON numbers or exact strings (``"-7/12"``, ``"0.1"``).
    what : str, keyword-only
        The name that starts every error message (the file name, when read from a file).

    Returns
    -------
    Network

    Raises
    ------
    InvalidInputError
        When the format tag, a key or a value is missing or wrong; the message names ``what`` and the field.

    Examples
    --------
    >>> import polyregions as pr
    >>> doc = {"format": "polyregions.network/1", "input_dim": 1,
    ...        "layers": [{"weight": [[1], [1]], "bias": [0, "-1/2"], "activation": "relu"}]}
    >>> pr.network_from_json(doc)([1])
    (Fraction(1, 1), Fraction(1, 2))
    >>> pr.network_from_json({"format": "polyregions.network/1", "layers": []}, what="net.json")
    Traceback (most recent call last):
    ...
    polyregions.errors.InvalidInputError: net.json: input_dim: expected a positive integer, got nothing (missing key)
    """
    if not isinstance(obj, dict):
        raise InvalidInputError(f"{what}: expected a JSON object with \"format\": \"{FORMAT}\", "
                                f"got {type(obj).__name__}")
    if "format" not in obj:
        raise InvalidInputError(f"{what}: format: expected \"{FORMAT}\", got nothing (missing key)")
    if obj["format"] != FORMAT:
        raise InvalidInputError(f"{what}: format: expected \"{FORMAT}\", got {_describe(obj['format'])}")
    if "input_dim" not in obj:
        raise InvalidInputError(f"{what}: input_dim: expected a positive integer, got nothing (missing key)")
    input_dim = obj["input_dim"]
    if not isinstance(input_dim, int) or isinstance(input_dim, bool) or input_dim < 1:
        raise InvalidInputError(f"{what}: input_dim: expected a positive integer, got {_describe(input_dim)}")
    if "layers" not in obj:
        raise InvalidInputError(f"{what}: layers: expected a list of layers, got nothing (missing key)")
    layers = obj["layers"]
    if not isinstance(layers, list):
        raise InvalidInputError(f"{what}: layers: expected a list of layers, got {_describe(layers)}")
    triples = []
    for i, layer in enumerate(layers):
        if not isinstance(layer, dict):
            raise InvalidInputError(f"{what}: layers[{i}]: expected an object with \"weight\", \"bias\" and "
                                    f"\"activation\", got {_describe(layer)}")
        for key in ("weight", "bias", "activation"):
            if key not in layer:
                raise InvalidInputError(f"{what}: layers[{i}].{key}: expected a value, got nothing (missing key)")
        if not isinstance(layer["bias"], list):
            raise InvalidInputError(f"{what}: layers[{i}].bias: expected a list of numbers, "
                                    f"got {_describe(layer['bias'])}")
        triples.append((layer["weight"], layer["bias"], layer["activation"]))
    return Network.from_layers(input_dim, triples, what=what)


def network_document(network: Any) -> dict[str, Any]:
    """The file document of a layered :class:`Network` (``polyregions.network/1``, :func:`network_to_json`) or of
    a :class:`~polyregions.networks.graph.GraphNetwork` (``polyregions.network/2``)."""
    if isinstance(network, Network):
        return network_to_json(network)
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.graph_files import graph_to_json

    if not isinstance(network, GraphNetwork):
        raise InvalidInputError(f"network: expected a Network or a GraphNetwork, got {type(network).__name__}")
    return graph_to_json(network)


def save_network(network: Any, path: str | os.PathLike) -> None:
    """Write a network file atomically (a temporary file renamed over ``path``).

    Parameters
    ----------
    network : Network or GraphNetwork
        The network; its document is :func:`network_document`, one line of JSON.
    path : str or os.PathLike
        The file to write; an existing file is replaced only once the new one is complete (a symbolic link is
        written through, a device written directly).

    Raises
    ------
    OutputError
        When the file cannot be written (an :class:`OSError`); what stood at ``path`` is unchanged.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import polyregions as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sawtooth.json"
    >>> pr.save_network(pr.sawtooth(2), path)
    >>> pr.load_network(path) == pr.sawtooth(2)
    True
    """
    atomic_write_text(path, json.dumps(network_document(network)) + "\n")


def load_network(path: str | os.PathLike, *, trust_pickle: bool = False) -> Any:
    """Read a network file: ``.npz`` arrays (see the module documentation), ``polyregions.network/1`` JSON (a
    :class:`Network`) or ``polyregions.network/2`` JSON (a :class:`~polyregions.networks.graph.GraphNetwork`).

    Parameters
    ----------
    path : str or os.PathLike
        A file whose name ends in ``.npz`` (any case) is read as arrays, ``.onnx`` through the onnx package,
        ``.pt2``, ``.pt`` or ``.pth`` through torch (:func:`~polyregions.networks.importers.load_torch_file`:
        ``torch.export`` programs and TorchScript archives), any other as JSON.
    trust_pickle : bool, keyword-only
        Also read a module pickled with ``torch.save(model)``, which **runs code from the file** while it
        loads; without it such a file is refused with a message that names the safe formats.

    Returns
    -------
    Network
        Every number at its exact value.

    Raises
    ------
    InvalidInputError
        When the file cannot be read or does not hold a valid network; the message names the file and the
        field.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import numpy as np
    >>> import polyregions as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "net.npz"
    >>> np.savez(path, W0=np.array([[1.0], [1.0]]), b0=np.array([0.0, -0.5]), W1=np.array([[2.0, -4.0]]),
    ...          b1=np.array([0.0]))
    >>> net = pr.load_network(path)
    >>> net.widths, net([0.25]), net([0.75])
    ((2, 1), (Fraction(1, 2),), (Fraction(1, 2),))
    """
    from polyregions._support.input_files import input_name

    name = input_name(path, what="load_network: path")
    if name.lower().endswith(".npz"):
        return load_npz(name)
    if name.lower().endswith((".onnx", ".pt", ".pth", ".pt2")):
        return _load_model_file(name, trust_pickle)
    data = read_json(name)
    if isinstance(data, dict) and data.get("format") == GRAPH_FORMAT:
        from polyregions.networks.graph_files import graph_network_from_json

        return graph_network_from_json(data, source=name)
    return network_from_json(data, what=name)


def _load_model_file(name: str, trust_pickle: bool) -> Any:
    """An ``.onnx`` file through the onnx package, a PyTorch file through torch; both optional, imported only
    here."""
    if name.lower().endswith(".onnx"):
        from polyregions.networks.importers.onnx import load_onnx

        return load_onnx(name)
    from polyregions.networks.importers.torch_files import load_torch_file

    return load_torch_file(name, trust_pickle=trust_pickle)


# --- arrays -------------------------------------------------------------------------------------------------

def network_from_arrays(weights: Sequence[Any], biases: Sequence[Any],
                        activations: Sequence[Any] | None = None, *, what: str = "network") -> Network:
    """A network from lists of weight matrices and bias vectors (numpy arrays or nested lists), read exactly.

    Parameters
    ----------
    weights : sequence of 2-D arrays
        ``weights[l]`` has shape ``(width_l, width_{l-1})``; the first fixes the input dimension.
    biases : sequence of 1-D arrays
        ``biases[l]`` has length ``width_l``.
    activations : sequence of Activation or str or dict, optional
        One per layer; defaults to ReLU on every layer but the last and the identity on the last.
    what : str, keyword-only
        The name that starts every error message.

    Returns
    -------
    Network
        Every entry at its exact value (a float is the binary number it stores).

    Raises
    ------
    InvalidInputError
        When the lists differ in length, are empty, or the shapes do not fit.

    Examples
    --------
    >>> import numpy as np
    >>> import polyregions as pr
    >>> net = pr.network_from_arrays([np.eye(2), np.ones((1, 2))], [np.zeros(2), np.zeros(1)])
    >>> net([-1, 3]), net.num_neurons
    ((Fraction(3, 1),), 2)
    >>> pr.network_from_arrays([[[0.1]]], [[0]], ["linear"])([1])  # the float 0.1, exactly
    (Fraction(3602879701896397, 36028797018963968),)
    """
    for name, value in (("weights", weights), ("biases", biases), ("activations", activations)):
        if (value is not None or name != "activations") and (isinstance(value, (str, bytes, dict))
                                                             or not hasattr(value, "__len__")):
            raise InvalidInputError(f"{what}: {name}: expected a list (one entry per layer), got "
                                    f"{type(value).__name__} {_describe(value)}")
    if len(weights) != len(biases):
        raise InvalidInputError(f"{what}: expected as many bias vectors as weight matrices, got {len(biases)} "
                                f"and {len(weights)}")
    if not weights:
        raise InvalidInputError(f"{what}: expected at least one layer, got none")
    if activations is None:
        activations = [relu()] * (len(weights) - 1) + [linear()]
    if len(activations) != len(weights):
        raise InvalidInputError(f"{what}: activations: expected {len(weights)} entries (one per layer), "
                                f"got {len(activations)}")
    first = weights[0]
    if isinstance(first, np.ndarray) and first.ndim != 2:
        raise InvalidInputError(f"{what}: layers[0].weight: expected a 2-D array, got shape {first.shape}")
    if not hasattr(first, "__len__") or not len(first) or not hasattr(first[0], "__len__"):
        raise InvalidInputError(f"{what}: layers[0].weight: expected a non-empty matrix, got {_describe(first)}")
    return Network.from_layers(len(first[0]), list(zip(weights, biases, activations)), what=what)


_NPZ_KEY = re.compile(r"([Wb])(0|[1-9][0-9]*)")


def load_npz(path: str | os.PathLike) -> Network:
    """Read a network from an ``.npz`` file with arrays ``W0, b0, W1, b1, ...`` and optional ``activations``.

    See the module documentation for the layout.
    """
    from polyregions._support.input_files import input_name, open_input

    path = input_name(path, what="load_npz: path")
    with open_input(path) as handle:
        try:
            with np.load(handle, allow_pickle=False) as archive:
                unpacked = sum(info.file_size for info in archive.zip.infolist())
                if unpacked > MAX_INPUT_BYTES:  # a compressed archive may unpack to far more than its size
                    raise InvalidInputError(f"{path}: expected arrays of at most {describe_size(MAX_INPUT_BYTES)} "
                                            f"in all, got {describe_size(unpacked)} once unpacked")
                arrays = {key: archive[key] for key in archive.files}
        except (OSError, ValueError, zipfile.BadZipFile, EOFError, MemoryError) as error:
            if isinstance(error, InvalidInputError):
                raise
            raise InvalidInputError(f"{path}: expected an .npz archive of numeric arrays, got an unreadable file "
                                    f"({_reason(error)})") from None
    indices: dict[str, set[int]] = {"W": set(), "b": set()}
    for key in arrays:
        match = _NPZ_KEY.fullmatch(key)
        if match:
            indices[match.group(1)].add(int(match.group(2)))
        elif key != "activations":
            raise InvalidInputError(f"{path}: {key}: expected only the arrays W0, b0, W1, b1, ... and "
                                    f"activations, got an array named {key!r}")
    count = len(indices["W"])
    for letter in "Wb":
        expected = set(range(count))
        missing = sorted(expected - indices[letter])
        extra = sorted(indices[letter] - expected)
        if missing or extra or count == 0:
            index = missing[0] if missing else (extra[0] if extra else 0)
            raise InvalidInputError(f"{path}: {letter}{index}: expected arrays W0..W{count - 1} and "
                                    f"b0..b{count - 1} (one of each per layer), got keys {sorted(arrays)}")
    weights: list[np.ndarray] = []
    biases: list[np.ndarray] = []
    for i in range(count):
        W, b = arrays[f"W{i}"], arrays[f"b{i}"]
        for name, array in ((f"W{i}", W), (f"b{i}", b)):
            if array.dtype.kind not in "iuf":  # strings would be read as numbers, booleans as 0 and 1
                raise InvalidInputError(f"{path}: {name}: expected an array of real numbers (integer or float "
                                        f"dtype), got dtype {array.dtype}")
        if W.ndim != 2:
            raise InvalidInputError(f"{path}: W{i}: expected a 2-D array, got shape {W.shape}")
        if b.ndim != 1:
            raise InvalidInputError(f"{path}: b{i}: expected a 1-D array, got shape {b.shape}")
        if b.shape[0] != W.shape[0]:
            raise InvalidInputError(f"{path}: b{i}: expected {W.shape[0]} entries (the rows of W{i}), "
                                    f"got {b.shape[0]}")
        if i and W.shape[1] != weights[-1].shape[0]:
            raise InvalidInputError(f"{path}: W{i}: expected {weights[-1].shape[0]} columns (the rows of "
                                    f"W{i - 1}), got {W.shape[1]}")
        weights.append(W)
        biases.append(b)
    activations = None
    if "activations" in arrays:
        names = arrays["activations"]
        if names.dtype.kind not in "US" or names.ndim != 1:
            raise InvalidInputError(f"{path}: activations: expected a 1-D array of strings, got dtype "
                                    f"{names.dtype} and shape {names.shape}")
        if len(names) != count:
            raise InvalidInputError(f"{path}: activations: expected {count} entries (one per layer), "
                                    f"got {len(names)}")
        activations = [_npz_activation(str(v if names.dtype.kind == "U" else v.decode("utf-8", "replace")),
                                       what=f"{path}: activations[{i}]") for i, v in enumerate(names)]
    try:
        return network_from_arrays(weights, biases, activations, what=str(path))
    except InvalidInputError as error:
        # Name the arrays as stored: layers[i].weight is Wi.
        message = re.sub(r"layers\[(\d+)\]\.weight", r"W\1", str(error))
        raise InvalidInputError(re.sub(r"layers\[(\d+)\]\.bias", r"b\1", message)) from None


def _reason(error: BaseException) -> str:
    if isinstance(error, MemoryError):
        return "an array larger than the memory"
    text = str(error) or type(error).__name__
    return text if len(text) <= 200 else text[:197] + "..."


def _npz_activation(text: str, *, what: str) -> Activation:
    from polyregions._support.input_files import parse_json

    stripped = text.strip()
    if stripped.startswith("{"):
        try:
            obj = parse_json(stripped, what=what)
        except InvalidInputError:
            raise InvalidInputError(f"{what}: expected an activation name or the JSON text of an activation "
                                    f"object, got {_describe(text)}") from None
        return activation_from_json(obj, what=what)
    return activation_from_json(stripped, what=what)


# --- PyTorch ------------------------------------------------------------------------------------------------
