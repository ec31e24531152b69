"""The ``polyregions.network/2`` document: a graph of named operations with exact parameters, both ways.

:func:`graph_to_json` writes it (every number an exact string); :func:`graph_network_from_json` reads it back,
every error naming the source, the node and the field.
"""

from __future__ import annotations

from typing import Any, Callable

from polyregions._support.limits import check_at_most
from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, format_rational
from polyregions.networks import operations as ops
from polyregions.networks.activations import activation_from_json, hardtanh, leaky_relu, relu
from polyregions.networks.graph import FORMAT, GraphNetwork, Node

__all__ = ["graph_to_json", "graph_network_from_json"]


def _numbers(values: Any) -> Any:
    if isinstance(values, tuple):
        return [_numbers(v) for v in values]
    return format_rational(values)


def _op_to_json(op: ops.Operation) -> dict[str, Any]:
    if isinstance(op, ops.Dense):
        return {"op": "dense", "weight": _numbers(op.weight), "bias": _numbers(op.bias)}
    if isinstance(op, ops.Conv):
        return {"op": "conv", "weight": _numbers(op.weight), "bias": _numbers(op.bias), "stride": list(op.stride),
                "padding": list(op.padding), "dilation": list(op.dilation), "groups": op.groups}
    if isinstance(op, (ops.AvgPool, ops.MaxPool)):
        return {"op": op.kind, "kernel": list(op.kernel), "stride": list(op.stride or ()),
                "padding": list(op.padding)}
    if isinstance(op, ops.BatchNorm):
        return {"op": "batchnorm", "scale": _numbers(op.scale), "shift": _numbers(op.shift)}
    if isinstance(op, ops.Activation):
        return {"op": "activation", "activation": op.activation.to_json()}
    if isinstance(op, ops.PReLU):
        return {"op": "prelu", "slopes": _numbers(op.slopes)}
    if isinstance(op, ops.Maxout):
        return {"op": "maxout", "k": op.k}
    if isinstance(op, ops.Concat):
        return {"op": "concat", "axis": op.axis}
    if isinstance(op, ops.Reshape):
        return {"op": "reshape", "shape": list(op.shape)}
    if isinstance(op, ops.Scale):
        return {"op": "scale", "scale": _numbers(op.scale), "shift": _numbers(op.shift)}
    if isinstance(op, ops.Permute):
        return {"op": "permute", "axes": list(op.axes)}
    if isinstance(op, ops.Take):
        return {"op": "take", "axis": op.axis, "indices": list(op.indices)}
    if isinstance(op, ops.Pad):
        return {"op": "pad", "pads": [list(p) for p in op.pads], "value": format_rational(op.value)}
    return {"op": op.kind}  # add, flatten


def graph_to_json(network: GraphNetwork) -> dict[str, Any]:
    """The ``polyregions.network/2`` document of ``network`` (every number an exact string), read back by
    :func:`graph_network_from_json`."""
    nodes = [{"name": node.name, **_op_to_json(node.op), "inputs": list(node.inputs)} for node in network.nodes]
    return {"format": FORMAT, "input_shape": list(network.input_shape), "nodes": nodes, "output": network.output}


def _required(entry: dict[str, Any], key: str, where: str) -> Any:
    if key not in entry:
        raise InvalidInputError(f"{where}: {key}: expected a value, got nothing (missing key)")
    return entry[key]


def _hardtanh(entry: dict[str, Any], where: str) -> ops.Activation:
    return ops.Activation(hardtanh(min_val=entry.get("min_val", -1), max_val=entry.get("max_val", 1),
                                   what=where))


_READERS: dict[str, tuple[tuple[str, ...], tuple[str, ...], Callable[..., ops.Operation]]] = {
    # op name: (required keys, optional keys, builder from the entry and the error prefix)
    "dense": (("weight", "bias"), (), lambda e, w: ops.Dense(e["weight"], e["bias"])),
    "conv": (("weight", "bias"), ("stride", "padding", "dilation", "groups"),
             lambda e, w: ops.Conv(e["weight"], e["bias"], e.get("stride", [1]), e.get("padding", [0]),
                                   e.get("dilation", [1]), e.get("groups", 1))),
    "avgpool": (("kernel",), ("stride", "padding"),
                lambda e, w: ops.AvgPool(e["kernel"], e.get("stride"), e.get("padding", [0]))),
    "maxpool": (("kernel",), ("stride", "padding"),
                lambda e, w: ops.MaxPool(e["kernel"], e.get("stride"), e.get("padding", [0]))),
    "batchnorm": (("scale", "shift"), (), lambda e, w: ops.BatchNorm(e["scale"], e["shift"])),
    "activation": (("activation",), (),
                   lambda e, w: ops.Activation(activation_from_json(e["activation"], what=f"{w}: activation"))),
    "relu": ((), (), lambda e, w: ops.Activation(relu())),
    "relu6": ((), (), lambda e, w: ops.Activation(ops.relu6())),
    "leaky_relu": (("negative_slope",), (),
                   lambda e, w: ops.Activation(leaky_relu(e["negative_slope"], what=f"{w}: negative_slope"))),
    "hardtanh": ((), ("min_val", "max_val"), _hardtanh),
    "prelu": (("slopes",), (), lambda e, w: ops.PReLU(e["slopes"])),
    "maxout": (("k",), (), lambda e, w: ops.Maxout(e["k"])),
    "add": ((), (), lambda e, w: ops.Add()),
    "concat": ((), ("axis",), lambda e, w: ops.Concat(e.get("axis", 0))),
    "flatten": ((), (), lambda e, w: ops.Flatten()),
    "reshape": (("shape",), (), lambda e, w: ops.Reshape(e["shape"])),
    "scale": (("scale", "shift"), (), lambda e, w: ops.Scale(e["scale"], e["shift"])),
    "permute": (("axes",), (), lambda e, w: ops.Permute(e["axes"])),
    "pad": (("pads",), ("value",), lambda e, w: ops.Pad(e["pads"], e.get("value", 0))),
    "take": (("axis", "indices"), (), lambda e, w: ops.Take(e["axis"], e["indices"])),
}


def _node(entry: Any, index: int, source: str) -> Node:
    where = f"{source}: nodes[{index}]"
    if not isinstance(entry, dict):
        raise InvalidInputError(f"{where}: expected an object with \"name\", \"op\" and \"inputs\", got "
                                f"{_describe(entry)}")
    kind = _required(entry, "op", where)
    if not isinstance(kind, str) or kind not in _READERS:
        raise InvalidInputError(f"{where}: op: expected one of {', '.join(_READERS)}, got {_describe(kind)}")
    name = _required(entry, "name", f"{where} ({kind})")
    if not isinstance(name, str) or not name:
        raise InvalidInputError(f"{where} ({kind}): name: expected a non-empty string, got {_describe(name)}")
    where = f"{where} ({kind} '{name}')"
    inputs = _required(entry, "inputs", where)
    if not isinstance(inputs, list) or not inputs or not all(isinstance(i, str) for i in inputs):
        raise InvalidInputError(f"{where}: inputs: expected a non-empty list of tensor names, got "
                                f"{_describe(inputs)}")
    required, optional, build = _READERS[kind]
    for key in required:
        _required(entry, key, where)
    unknown = sorted(set(entry) - {"name", "op", "inputs", *required, *optional})
    if unknown:
        raise InvalidInputError(f"{where}: {unknown[0]}: expected only the keys name, op, inputs"
                                f"{''.join(', ' + k for k in required + optional)}, got \"{unknown[0]}\"")
    try:
        op = build(entry, where)
    except InvalidInputError as error:
        message = str(error)
        prefix = f"{kind}: " if message.startswith(f"{kind}: ") else ""
        raise InvalidInputError(f"{where}: {message[len(prefix):]}") from None
    return Node(name, op, tuple(inputs))


def graph_network_from_json(data: Any, *, source: str = "network") -> GraphNetwork:
    """Read a ``polyregions.network/2`` document.

    Parameters
    ----------
    data : dict
        The parsed JSON: ``"format"``, ``"input_shape"``, ``"nodes"`` (each with ``"name"``, ``"op"``,
        ``"inputs"`` and the operation's parameters) and ``"output"``.
    source : str, keyword-only
        The file name (or another label) that starts every error message.

    Returns
    -------
    GraphNetwork

    Raises
    ------
    InvalidInputError
        Naming ``source``, the node (its index, operation and name) and the field.

    Examples
    --------
    >>> doc = {"format": "polyregions.network/2", "input_shape": [2],
    ...        "nodes": [{"name": "d", "op": "dense", "inputs": ["input"], "weight": [[1, 1]], "bias": ["-1/2"]},
    ...                  {"name": "r", "op": "relu", "inputs": ["d"]}], "output": "r"}
    >>> graph_network_from_json(doc)([1, 1])
    (Fraction(3, 2),)
    """
    if not isinstance(data, dict):
        raise InvalidInputError(f"{source}: expected a JSON object with \"format\": \"{FORMAT}\", got "
                                f"{_describe(data)}")
    if data.get("format") != FORMAT:
        raise InvalidInputError(f"{source}: format: expected \"{FORMAT}\", got {_describe(data.get('format'))}")
    if "nodes" not in data and "layers" in data:  # a network/1 document under the wrong tag
        raise InvalidInputError(f"{source}: format: expected \"polyregions.network/1\" for a document with "
                                f"\"layers\" (\"{FORMAT}\" takes \"nodes\"), got \"{FORMAT}\"")
    for key in ("input_shape", "nodes", "output"):
        _required(data, key, source)
    unknown = sorted(set(data) - {"format", "input_shape", "nodes", "output"})
    if unknown:
        raise InvalidInputError(f"{source}: {unknown[0]}: expected only the keys format, input_shape, nodes, "
                                f"output, got \"{unknown[0]}\"")
    shape = data["input_shape"]
    if not isinstance(shape, list) or not shape or not all(
            isinstance(v, int) and not isinstance(v, bool) and v >= 1 for v in shape):
        raise InvalidInputError(f"{source}: input_shape: expected a non-empty list of positive integers, got "
                                f"{_describe(shape)}")
    check_at_most("MAX_TENSOR_ENTRIES", ops.flat_size(shape), what=f"{source}: input_shape {shape}", unit="entries")
    nodes = data["nodes"]
    if not isinstance(nodes, list):
        raise InvalidInputError(f"{source}: nodes: expected a list of nodes, got {_describe(nodes)}")
    built = tuple(_node(entry, i, source) for i, entry in enumerate(nodes))
    try:
        return GraphNetwork(tuple(shape), built, data["output"])
    except InvalidInputError as error:
        message = str(error)
        raise InvalidInputError(f"{source}: {message.removeprefix('network: ')}") from None
