"""ONNX models as exact graph networks, read through the ``onnx`` package.

Supported operators: Gemm, MatMul (with a constant matrix) and Add (of a constant or of two tensors), Conv,
Relu, LeakyRelu, PRelu, Clip, MaxPool, AveragePool, BatchNormalization, Concat, Flatten, Reshape with a constant
shape, and Identity, Dropout and Constant. Every initializer is taken at the exact value of the float it stores;
Gemm's ``alpha`` and ``beta`` multiply exactly; the one rounding is a batch normalisation's scale
``scale / sqrt(var + epsilon)``, computed in binary64. The first axis of the graph's input is the batch axis.
"""

from __future__ import annotations

import os
from fractions import Fraction
from typing import Any

import numpy as np

from polyregions.errors import InvalidInputError, MissingDependencyError
from polyregions.exact.rationals import _describe
from polyregions.networks import operations as ops
from polyregions.networks.activations import hardtanh, leaky_relu, relu
from polyregions.networks.graph import GraphNetwork, Node

__all__ = ["graph_from_onnx", "load_onnx", "SUPPORTED_OPERATORS"]

#: The ONNX operators :func:`graph_from_onnx` reads.
SUPPORTED_OPERATORS = ("Gemm", "MatMul", "Add", "Conv", "Relu", "LeakyRelu", "PRelu", "Clip", "MaxPool",
                       "AveragePool", "BatchNormalization", "Concat", "Flatten", "Reshape", "Identity", "Dropout",
                       "Constant")


def _onnx():
    try:
        import onnx
    except ImportError:
        raise MissingDependencyError("reading an ONNX model needs the onnx package (pip install onnx)") from None
    return onnx


def load_onnx(path: str | os.PathLike) -> GraphNetwork:
    """Read an ``.onnx`` file as a :class:`~polyregions.networks.graph.GraphNetwork` (see
    :func:`graph_from_onnx`); errors name the file."""
    from polyregions._input_files import input_name

    onnx = _onnx()
    name = input_name(path, what="load_onnx: path")
    try:
        model = onnx.load(name)
    except FileNotFoundError:
        raise InvalidInputError(f"{name}: expected an ONNX file, got no such file") from None
    except Exception as error:  # protobuf's decode errors have no common base class
        raise InvalidInputError(f"{name}: expected an ONNX model, got an unreadable file "
                                f"({type(error).__name__}: {str(error)[:200]})") from None
    return graph_from_onnx(model, what=name)


def graph_from_onnx(model: Any, *, what: str = "onnx model") -> GraphNetwork:
    """The exact graph network of an ONNX model (an ``onnx.ModelProto``).

    Parameters
    ----------
    model : onnx.ModelProto
        A model with one input of shape ``[batch, ...]`` (the batch axis may be symbolic) and one output,
        built from :data:`SUPPORTED_OPERATORS` with constant weights.
    what : str, keyword-only
        The name that starts every error message (the file name, when read from a file).

    Returns
    -------
    GraphNetwork
        One node per operator, named after the operator's output tensor.

    Raises
    ------
    InvalidInputError
        When an operator is not supported (the message names the node, its type and the supported ones), an
        attribute has no exact counterpart (asymmetric padding, ``ceil_mode``, a computed reshape), or the shapes
        do not fit.
    MissingDependencyError
        When the onnx package is not installed.

    Examples
    --------
    >>> from onnx import TensorProto, helper, numpy_helper  # doctest: +SKIP
    >>> import numpy as np  # doctest: +SKIP
    >>> W = numpy_helper.from_array(np.array([[1.0, -1.0]], dtype=np.float32), "W")  # doctest: +SKIP
    >>> x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])  # doctest: +SKIP
    >>> z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 1])  # doctest: +SKIP
    >>> graph = helper.make_graph([helper.make_node("Gemm", ["x", "W"], ["y"], transB=1),
    ...                            helper.make_node("Relu", ["y"], ["z"])], "g", [x], [z], [W])  # doctest: +SKIP
    >>> graph_from_onnx(helper.make_model(graph))([3, 1])  # doctest: +SKIP
    (Fraction(2, 1),)
    """
    onnx = _onnx()
    if not isinstance(model, onnx.ModelProto):
        raise InvalidInputError(f"{what}: expected an onnx.ModelProto, got {type(model).__name__}")
    return _Reader(model.graph, what, onnx).network()


class _Reader:
    def __init__(self, graph: Any, what: str, onnx: Any) -> None:
        from onnx import numpy_helper

        self.what, self.onnx, self.graph = what, onnx, graph
        self.constants: dict[str, np.ndarray] = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.tensors: dict[str, str] = {}  # ONNX tensor name -> graph node name
        self.shapes: dict[str, tuple[int, ...]] = {}
        self.nodes: list[Node] = []
        self.dense_of: dict[str, int] = {}  # node name -> index of a Dense node whose bias an Add may absorb

    # -- helpers
    def fail(self, node: Any, message: str) -> InvalidInputError:
        return InvalidInputError(f"{self.what}: node '{node.name or node.output[0]}' ({node.op_type}): {message}")

    def attributes(self, node: Any) -> dict[str, Any]:
        return {a.name: self.onnx.helper.get_attribute_value(a) for a in node.attribute}

    def constant(self, node: Any, name: str, field: str) -> Any:
        if name not in self.constants:
            raise self.fail(node, f"{field}: expected a constant (an initializer), got the computed tensor '{name}'")
        value = self.constants[name]
        if value.dtype.kind not in "iuf" or not np.all(np.isfinite(value)):
            raise self.fail(node, f"{field}: expected finite real numbers, got dtype {value.dtype}")
        return value.astype(np.float64) if value.dtype.kind == "f" else value

    def tensor(self, node: Any, name: str) -> str:
        if name not in self.tensors:
            raise self.fail(node, f"expected the input '{name}' to be computed from the graph's input, got a "
                                  f"constant or an unknown tensor")
        return self.tensors[name]

    def add(self, node: Any, op: Any, inputs: list[str]) -> None:
        name = node.output[0] if node.output[0] != "input" else "input_"
        try:
            shape = op.output_shape([self.shapes[i] for i in inputs], f"{self.what}: node '{name}'")
        except InvalidInputError as error:
            raise self.fail(node, str(error).split(": ", 2)[-1]) from None
        self.nodes.append(Node(name, op, tuple(inputs)))
        self.shapes[name] = shape
        self.tensors[node.output[0]] = name

    # -- the graph
    def network(self) -> GraphNetwork:
        inputs = [i for i in self.graph.input if i.name not in self.constants]
        if len(inputs) != 1:
            raise InvalidInputError(f"{self.what}: graph.input: expected one input tensor, got {len(inputs)}")
        dims = inputs[0].type.tensor_type.shape.dim
        shape = [d.dim_value if d.HasField("dim_value") else None for d in dims][1:]
        if not dims or not shape or any(v is None or v < 1 for v in shape):
            raise InvalidInputError(f"{self.what}: graph.input '{inputs[0].name}': expected a shape [batch, sizes...]"
                                    f" with fixed positive sizes, got {[d.dim_param or d.dim_value for d in dims]}")
        self.tensors[inputs[0].name] = "input"
        self.shapes["input"] = tuple(int(v or 0) for v in shape)
        for node in self.graph.node:
            self.read(node)
        if len(self.graph.output) != 1:
            raise InvalidInputError(f"{self.what}: graph.output: expected one output, got {len(self.graph.output)}")
        output = self.graph.output[0].name
        if output not in self.tensors:
            raise InvalidInputError(f"{self.what}: graph.output: expected a tensor computed from the input, got "
                                    f"'{output}'")
        return GraphNetwork(self.shapes["input"], tuple(self.nodes), self.tensors[output])

    def read(self, node: Any) -> None:
        kind = node.op_type
        a = self.attributes(node)
        if node.domain not in ("", "ai.onnx"):
            raise self.fail(node, f"expected an operator of the default ONNX domain, got domain {node.domain!r}")
        if kind == "Constant":
            if "value" not in a:
                raise self.fail(node, "expected a tensor 'value' attribute")
            self.constants[node.output[0]] = self.onnx.numpy_helper.to_array(a["value"])
        elif kind in ("Identity", "Dropout"):
            self.tensors[node.output[0]] = self.tensor(node, node.input[0])
        elif kind == "Gemm":
            self.gemm(node, a)
        elif kind == "MatMul":
            W = self.constant(node, node.input[1], "B")
            if W.ndim != 2:
                raise self.fail(node, f"B: expected a matrix, got shape {list(W.shape)}")
            self.dense(node, W.T, np.zeros(W.shape[1]))
        elif kind == "Add":
            self.add_op(node)
        elif kind == "Conv":
            self.conv(node, a)
        elif kind == "Relu":
            self.add(node, ops.Activation(relu()), [self.tensor(node, node.input[0])])
        elif kind == "LeakyRelu":
            slope = float(np.float32(a.get("alpha", 0.01)))
            self.add(node, ops.Activation(leaky_relu(slope, what=f"{self.what}: node '{node.output[0]}'")),
                     [self.tensor(node, node.input[0])])
        elif kind == "PRelu":
            slopes = self.constant(node, node.input[1], "slope").reshape(-1)
            self.add(node, ops.PReLU(tuple(Fraction(float(v)) for v in slopes)), [self.tensor(node, node.input[0])])
        elif kind == "Clip":
            self.clip(node, a)
        elif kind in ("MaxPool", "AveragePool"):
            self.pool(node, a)
        elif kind == "BatchNormalization":
            self.batchnorm(node, a)
        elif kind == "Concat":
            sources = [self.tensor(node, name) for name in node.input]
            axis = a.get("axis", 1)
            rank = len(self.shapes[sources[0]]) + 1
            axis = axis + rank if axis < 0 else axis
            if axis < 1:
                raise self.fail(node, "axis: expected an axis after the batch axis, got 0")
            self.add(node, ops.Concat(axis - 1), sources)
        elif kind == "Flatten":
            if a.get("axis", 1) != 1:
                raise self.fail(node, f"axis: expected 1 (every axis but the batch), got {a.get('axis')}")
            self.add(node, ops.Flatten(), [self.tensor(node, node.input[0])])
        elif kind == "Reshape":
            self.reshape(node, a)
        else:
            raise self.fail(node, f"expected one of the operators {', '.join(SUPPORTED_OPERATORS)}, got {kind}")

    # -- operators
    def dense(self, node: Any, weight: Any, bias: Any) -> None:
        source = self.tensor(node, node.input[0])
        if len(self.shapes[source]) != 1:
            raise self.fail(node, f"expected a vector input (a Flatten before it), got shape "
                                  f"{list(self.shapes[source])}")
        self.add(node, ops.Dense(weight, bias), [source])
        self.dense_of[self.nodes[-1].name] = len(self.nodes) - 1

    def gemm(self, node: Any, a: dict[str, Any]) -> None:
        if a.get("transA", 0):
            raise self.fail(node, "transA: expected 0 (the input as rows), got 1")
        B = self.constant(node, node.input[1], "B")
        if B.ndim != 2:
            raise self.fail(node, f"B: expected a matrix, got shape {list(B.shape)}")
        weight = B if a.get("transB", 0) else B.T
        alpha = Fraction(float(np.float32(a.get("alpha", 1.0))))
        beta = Fraction(float(np.float32(a.get("beta", 1.0))))
        rows = weight.shape[0]
        if len(node.input) > 2 and node.input[2]:
            C = self.constant(node, node.input[2], "C")
            if C.size not in (1, rows):
                raise self.fail(node, f"C: expected 1 or {rows} numbers, got shape {list(C.shape)}")
            bias = [beta * Fraction(float(v)) for v in np.broadcast_to(C.reshape(-1), (rows,))]
        else:
            bias = [Fraction(0)] * rows
        exact = [[alpha * Fraction(float(v)) for v in row] for row in weight]
        self.dense(node, exact, bias)

    def add_op(self, node: Any) -> None:
        names = list(node.input)
        constant = [n for n in names if n in self.constants]
        if not constant:
            self.add(node, ops.Add(), [self.tensor(node, n) for n in names])
            return
        if len(names) != 2 or len(constant) != 1:
            raise self.fail(node, "expected a tensor plus a constant or the sum of tensors, got two constants")
        source = self.tensor(node, next(n for n in names if n not in self.constants))
        value = self.constant(node, constant[0], "the constant")
        shape = self.shapes[source]
        index = self.dense_of.get(source)
        if index is not None and value.size in (1, shape[0]) and source == self.nodes[-1].name:
            dense: Any = self.nodes[index].op  # MatMul + Add: the constant is the bias of the matrix product
            bias = tuple(b + Fraction(float(v)) for b, v in zip(dense.bias, np.broadcast_to(value.reshape(-1),
                                                                                          shape)))
            self.nodes[index] = Node(self.nodes[index].name, ops.Dense(dense.weight, bias), self.nodes[index].inputs)
            self.tensors[node.output[0]] = source
            return
        squeezed = value.reshape(value.shape[1:]) if value.ndim == len(shape) + 1 and value.shape[0] == 1 else value
        channels = shape[0]
        if squeezed.size == channels and (squeezed.ndim <= 1 or squeezed.shape[0] == channels):
            shift = tuple(Fraction(float(v)) for v in squeezed.reshape(-1))
            self.add(node, ops.BatchNorm((Fraction(1),) * channels, shift), [source])  # one constant per channel
            return
        raise self.fail(node, f"expected a constant of one number per channel ({channels}), got shape "
                              f"{list(value.shape)}")

    def conv(self, node: Any, a: dict[str, Any]) -> None:
        weight = self.constant(node, node.input[1], "W")
        if weight.ndim not in (3, 4):
            raise self.fail(node, f"W: expected a 1-D or 2-D convolution kernel, got shape {list(weight.shape)}")
        bias = self.constant(node, node.input[2], "B") if len(node.input) > 2 and node.input[2] else \
            (0,) * weight.shape[0]
        axes = weight.ndim - 2
        padding = self.padding(node, a, axes)
        self.add(node, ops.Conv(weight, bias, stride=tuple(a.get("strides", [1] * axes)), padding=padding,
                                dilation=tuple(a.get("dilations", [1] * axes)), groups=int(a.get("group", 1))),
                 [self.tensor(node, node.input[0])])

    def padding(self, node: Any, a: dict[str, Any], axes: int) -> tuple[int, ...]:
        auto = a.get("auto_pad", b"NOTSET")
        auto = auto.decode() if isinstance(auto, bytes) else auto
        if auto not in ("NOTSET", "VALID"):
            raise self.fail(node, f"auto_pad: expected NOTSET or VALID (explicit symmetric pads), got {auto}")
        pads = list(a.get("pads", [0] * (2 * axes))) if auto == "NOTSET" else [0] * (2 * axes)
        if pads[:axes] != pads[axes:]:
            raise self.fail(node, f"pads: expected symmetric padding (begin = end on every axis), got {pads}")
        return tuple(int(p) for p in pads[:axes])

    def pool(self, node: Any, a: dict[str, Any]) -> None:
        kernel = tuple(int(k) for k in a["kernel_shape"])
        axes = len(kernel)
        padding = self.padding(node, a, axes)
        if a.get("ceil_mode", 0):
            raise self.fail(node, "ceil_mode: expected 0, got 1")
        if any(d != 1 for d in a.get("dilations", [1] * axes)):
            raise self.fail(node, f"dilations: expected 1, got {list(a['dilations'])}")
        stride = tuple(int(s) for s in a.get("strides", [1] * axes))
        if node.op_type == "MaxPool":
            if len(node.output) > 1 and node.output[1]:
                raise self.fail(node, "expected one output (no Indices)")
            op: Any = ops.MaxPool(kernel, stride, padding)
        else:
            if any(padding) and not a.get("count_include_pad", 0):
                raise self.fail(node, "count_include_pad: expected 1 when padding (the divisor is the window's "
                                      "size), got 0")
            op = ops.AvgPool(kernel, stride, padding)
        self.add(node, op, [self.tensor(node, node.input[0])])

    def clip(self, node: Any, a: dict[str, Any]) -> None:
        bounds: list[Any] = []
        for position, key in ((1, "min"), (2, "max")):
            if len(node.input) > position and node.input[position]:
                bounds.append(float(self.constant(node, node.input[position], key).reshape(-1)[0]))
            else:
                bounds.append(a.get(key))
        low, high = bounds
        where = f"{self.what}: node '{node.output[0]}'"
        if low is None or high is None:
            if low is None or low != 0 or high is not None:
                raise self.fail(node, f"expected both bounds, or min = 0 alone (a ReLU), got min={low}, max={high}")
            op = ops.Activation(relu())
        else:
            op = ops.Activation(hardtanh(min_val=float(low), max_val=float(high), what=where))
        self.add(node, op, [self.tensor(node, node.input[0])])

    def batchnorm(self, node: Any, a: dict[str, Any]) -> None:
        gamma, beta, mean, var = (self.constant(node, node.input[i], f) for i, f in
                                  ((1, "scale"), (2, "B"), (3, "input_mean"), (4, "input_var")))
        if a.get("training_mode", 0):
            raise self.fail(node, "training_mode: expected 0 (inference), got 1")
        eps = np.float64(np.float32(a.get("epsilon", 1e-5)))
        if np.any(var + eps <= 0):
            raise self.fail(node, f"input_var: expected var + epsilon > 0, got {(var + eps).min()}")
        scale = gamma / np.sqrt(var + eps)  # the only rounding, in binary64
        scales = [Fraction(float(s)) for s in scale]
        shifts = [Fraction(float(b)) - s * Fraction(float(u)) for s, b, u in zip(scales, beta, mean)]
        self.add(node, ops.BatchNorm(tuple(scales), tuple(shifts)), [self.tensor(node, node.input[0])])

    def reshape(self, node: Any, a: dict[str, Any]) -> None:
        source = self.tensor(node, node.input[0])
        if node.input[1] not in self.constants:
            raise self.fail(node, "shape: expected a constant shape (an initializer or Constant), got the computed "
                                  f"tensor '{node.input[1]}'")
        shape = [int(v) for v in self.constants[node.input[1]].reshape(-1)]
        full = (1,) + self.shapes[source]
        if a.get("allowzero", 0) and 0 in shape:
            raise self.fail(node, "allowzero: expected 0 with no zero sizes")
        shape = [full[i] if v == 0 and i < len(full) else v for i, v in enumerate(shape)]
        if not shape or shape[0] not in (1, -1):
            raise self.fail(node, f"shape: expected the batch axis first (1 or -1), got {_describe(shape)}")
        if shape[0] == -1 and -1 in shape[1:]:
            raise self.fail(node, f"shape: expected one -1 at most, got {shape}")
        self.add(node, ops.Reshape(tuple(shape[1:])), [source])
