"""ONNX models as exact graph networks: a thin reader over the operator table.

:func:`graph_from_onnx` walks the nodes of an ONNX graph in order and hands each one, through a small
translator (attributes and optional inputs read the ONNX way, as attributes in older opsets and inputs in newer
ones), to the entries of :mod:`polyregions.networks.importers.operators`, the table the PyTorch readers use.
Values are the table's: a tensor computed from the input, or a constant (an initializer, a ``Constant`` node, or
any node whose inputs are all constants, evaluated on the way). So the shape computations of either of torch's
exporters (``Shape``, ``Gather``, ``Slice``, ``Concat``, ``Mod``, ``Div``... before a ``Reshape``) fold to
constant shapes.

* On tensors computed from the input: Gemm, MatMul (by a constant matrix), Conv (1-D and 2-D; ``pads``,
  ``auto_pad``, strides, dilations, groups), MaxPool (symmetric padding), AveragePool (any padding, either
  ``count_include_pad``), GlobalAveragePool, GlobalMaxPool, BatchNormalization (inference), Relu, LeakyRelu,
  PRelu, Clip, HardSigmoid, Max and Min (variadic), ReduceMax, ReduceMin, ReduceMean and ReduceSum (over the
  spatial axes), Add, Sub, Mul, Div (by constants; Add and Sub of two tensors), Neg, Sum, Concat, Flatten,
  Reshape, Transpose, Squeeze, Unsqueeze, Pad (constant mode), Slice (positive steps), Gather and Split (at
  constant indices), Identity, Dropout (inference), Cast (to a float type) and Expand (to the tensor's own shape).
* On constants only (folded): Constant, Shape, Size, ConstantOfShape, Range, Equal, Less, Greater,
  LessOrEqual, GreaterOrEqual, And, Or, Xor, Not, Where, Floor, Ceil, Abs, Mod, Cast and CastLike, and every
  operator above.

Every float is taken at its exact binary value (attributes are binary32, initializers their own dtype); folded
arithmetic is exact (integers as integers, integer ``Div`` truncating as ONNX does, other numbers as fractions,
``Cast`` to a float type keeping the exact value). The one rounding is a batch normalisation's scale
``scale / sqrt(var + epsilon)``, computed in binary64. The first axis of the graph's input is the batch axis
(a symbolic batch size is read as 1).
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from polyregions.errors import InvalidInputError, MissingDependencyError
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.importers._builder import (
    GraphBuilder,
    Indices,
    Symbolic,
    Unsupported,
    constant_array,
    exact_array,
    is_symbolic,
)
from polyregions.networks.importers.operators import call, extremum_of_tensors

__all__ = ["graph_from_onnx", "load_onnx", "SUPPORTED_OPERATORS"]


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise MissingDependencyError("reading an ONNX model needs the onnx package (pip install onnx)") from None
    return onnx


def load_onnx(path: str | os.PathLike) -> GraphNetwork:
    """Read an ``.onnx`` file as a :class:`~polyregions.networks.graph.GraphNetwork` (see
    :func:`graph_from_onnx`); errors start with the file's name."""
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
        A model with one input of shape ``[batch, ...]`` (the batch size may be symbolic; other sizes are
        fixed) and one output, built from :data:`SUPPORTED_OPERATORS` with constant weights, as either of
        ``torch.onnx.export``'s exporters writes it (``dynamo=True``, the default, or ``dynamo=False``).
    what : str, keyword-only
        The name that starts every error message (the file name, when read from a file).

    Returns
    -------
    GraphNetwork

    Raises
    ------
    InvalidInputError
        When an operator is not supported or not piecewise linear, an attribute or input has no exact reading
        (training mode, a shape computed from the input, a product of two tensors computed from the input, a
        partial pooling window with ``ceil_mode``...) or the shapes do not fit: one line naming the node, the
        operator and what is supported.
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
    if len(model.functions):  # model-local functions (an exporter's decompositions): inlined first
        try:
            import onnx.inliner
        except ImportError:
            raise InvalidInputError(f"{what}: functions: expected a model without local functions, or onnx>=1.16 "
                                    f"to inline them, got {len(model.functions)} with onnx {onnx.__version__}"
                                    ) from None
        model = onnx.inliner.inline_local_functions(model)
    return _read(model, what, onnx)


# --- values -----------------------------------------------------------------------------------------------

class _Unusable:
    """An output with no exact piecewise-linear reading (indices, a dropout mask): refused where used."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def _from_proto(tensor: Any, onnx: Any) -> np.ndarray:
    """A TensorProto's entries (binary16 and bfloat16 widened exactly; strings stay strings)."""
    array = np.asarray(onnx.numpy_helper.to_array(tensor))
    if array.dtype.kind not in "biufOSU":  # ml_dtypes' bfloat16, float8 and int4 types: widened exactly
        array = array.astype(np.int64 if "int" in array.dtype.name else np.float32)
    return array


def _is_integer(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "iub"
    return isinstance(value, (int, np.integer))


# ONNX TensorProto data types by kind.
_INTEGER_TYPES = {2, 3, 4, 5, 6, 7, 12, 13, 21, 22}
_FLOAT_TYPES = {1, 10, 11, 16, 17, 18, 19, 20, 23}
_BOOL = 9


class _Node:
    """One node being read: its inputs' values, attributes and the builder."""

    def __init__(self, proto: Any, inputs: list[Any], attrs: dict[str, Any], builder: GraphBuilder,
                 onnx: Any) -> None:
        self.proto, self.inputs, self.attrs, self.b, self.onnx = proto, inputs, attrs, builder, onnx
        self.op = proto.op_type

    def has(self, i: int) -> bool:
        return i < len(self.inputs) and self.inputs[i] is not None

    def value(self, i: int, default: Any = None) -> Any:
        return self.inputs[i] if self.has(i) else default

    def symbolic(self, i: int, what: str = "input") -> Symbolic:
        value = self.value(i)
        if not is_symbolic(value):
            raise Unsupported(f"{what}: expected a tensor computed from the graph's input, got "
                              f"{'a constant' if value is not None else 'none'}")
        return value

    def constant(self, i: int, what: str) -> np.ndarray:
        value = self.value(i)
        if is_symbolic(value):
            raise Unsupported(f"{what}: expected a constant (an initializer or a folded computation), got the "
                              f"tensor '{self.proto.input[i]}' computed from the graph's input")
        return constant_array(value, what)

    def ints(self, i: int, attribute: str) -> list[int] | None:
        """Integers given as the input ``i`` (newer opsets) or the attribute (older ones), else None."""
        if self.has(i):
            return [int(v) for v in self.constant(i, attribute).reshape(-1).tolist()]
        if attribute in self.attrs:
            return [int(v) for v in self.attrs[attribute]]
        return None


Translator = Callable[[_Node], Any]
_TRANSLATORS: dict[str, Translator] = {}

#: Operators with no piecewise-linear reading, refused by name.
_NOT_PIECEWISE_LINEAR = ("Softmax", "LogSoftmax", "Sigmoid", "Tanh", "Exp", "Log", "Erf", "Gelu", "Elu", "Selu",
                         "Celu", "Softplus", "Softsign", "HardSwish", "Mish", "Sin", "Cos", "Pow", "Reciprocal",
                         "ThresholdedRelu", "Sqrt", "Round", "Sign", "Hardmax", "LpNormalization",
                         "LayerNormalization", "InstanceNormalization", "GroupNormalization", "Einsum", "Atan",
                         "Asin", "Acos", "Sinh", "Cosh", "Tan", "Shrink")


def _op(*names: str) -> Callable[[Translator], Translator]:
    def register(translator: Translator) -> Translator:
        for name in names:
            _TRANSLATORS[name] = translator
        return translator
    return register


def _folded_only(n: _Node) -> list[Any]:
    """The inputs of an operator read only on constants (a shape computation), as constants."""
    for i, value in enumerate(n.inputs):
        if is_symbolic(value):
            raise Unsupported(f"expected constant inputs (a shape computation, folded while reading), got the "
                              f"tensor '{n.proto.input[i]}' computed from the graph's input")
    return [None if v is None else constant_array(v, f"input {i}") for i, v in enumerate(n.inputs)]


# --- constants and shape computations ----------------------------------------------------------------------

@_op("Constant")
def _constant(n: _Node) -> Any:
    a = n.attrs
    if "value" in a:
        return _from_proto(a["value"], n.onnx)
    if "value_float" in a or "value_floats" in a:
        return np.asarray(a.get("value_float", a.get("value_floats")), dtype=np.float64)
    if "value_int" in a or "value_ints" in a:
        return np.asarray(a.get("value_int", a.get("value_ints")), dtype=np.int64)
    raise Unsupported(f"expected a numeric value (value, value_float(s) or value_int(s)), got "
                      f"{', '.join(sorted(a)) or 'none'}")


@_op("Identity")
def _identity(n: _Node) -> Any:
    return n.value(0)


@_op("Shape")
def _shape(n: _Node) -> Any:
    x = n.value(0)
    shape = x.shape if is_symbolic(x) else constant_array(x, "data").shape
    start, end = n.attrs.get("start", 0), n.attrs.get("end", len(shape))
    return np.asarray(shape[start:end], dtype=np.int64)


@_op("Size")
def _size(n: _Node) -> Any:
    x = n.value(0)
    return np.asarray(math.prod(x.shape if is_symbolic(x) else constant_array(x, "data").shape), dtype=np.int64)


@_op("Gather")
def _gather(n: _Node) -> Any:
    if is_symbolic(n.value(0)):  # entries of a computed tensor at constant indices: a selection
        x, indices, axis = n.value(0), n.constant(1, "indices"), int(n.attrs.get("axis", 0))
        if indices.ndim == 0:
            return call(n.b, "select", [x, axis, int(indices)])
        taken = call(n.b, "index_select", [x, axis, indices.reshape(-1)])
        a = axis % x.rank
        return call(n.b, "view", [taken, list(x.shape[:a]) + list(indices.shape) + list(x.shape[a + 1:])])
    data, indices = _folded_only(n)[:2]
    if not _is_integer(indices):
        raise Unsupported(f"indices: expected integers, got dtype {indices.dtype}")
    return np.take(data, indices.astype(np.int64), axis=int(n.attrs.get("axis", 0)))


@_op("Slice")
def _slice(n: _Node) -> Any:
    if is_symbolic(n.value(0)):  # a slice of a computed tensor: one selection per sliced axis
        x = n.value(0)
        bounds = (n.ints(1, "starts") or [], n.ints(2, "ends") or [])
        sliced = n.ints(3, "axes") or list(range(len(bounds[0])))
        for axis, start, end, step in zip(sliced, *bounds, n.ints(4, "steps") or [1] * len(bounds[0])):
            x = call(n.b, "slice", [x, axis, start, end, step])
        return x
    values = _folded_only(n)
    data = values[0]
    starts, ends = n.ints(1, "starts"), n.ints(2, "ends")
    if starts is None or ends is None:
        raise Unsupported("starts, ends: expected both, got none")
    axes = n.ints(3, "axes") or list(range(len(starts)))
    steps = n.ints(4, "steps") or [1] * len(starts)
    index: list[slice] = [slice(None)] * data.ndim
    for axis, start, end, step in zip(axes, starts, ends, steps):
        if step == 0:
            raise Unsupported("steps: expected non-zero steps, got 0")
        index[axis % data.ndim] = slice(start, end, step)
    return data[tuple(index)]


@_op("Split")
def _split(n: _Node) -> Any:
    x, axis = n.symbolic(0), int(n.attrs.get("axis", 0))
    size = x.shape[axis % x.rank]
    sizes = n.ints(1, "split")
    if sizes is None:  # equal parts, one per output (the last one smaller, as opset 18's num_outputs)
        parts = int(n.attrs.get("num_outputs", len(n.proto.output)))
        step = -(-size // parts)
        sizes = [min(step, size - i) for i in range(0, size, step)]
    return tuple(call(n.b, "split_with_sizes", [x, sizes, axis]))


@_op("Cast", "CastLike")
def _cast(n: _Node) -> Any:
    x = n.value(0)
    if n.op == "Cast":
        to = int(n.attrs.get("to", 1))
    else:  # the type of the second input: a tensor computed from the input is a float tensor
        kind = "f" if is_symbolic(n.value(1)) else np.asarray(n.value(1)).dtype.kind
        to = _BOOL if kind == "b" else 7 if kind in "iu" else 1
    if is_symbolic(x):
        if to not in _FLOAT_TYPES:
            raise Unsupported(f"to: expected a float type for a tensor computed from the input, got type {to}")
        return x
    array = constant_array(x, "input") if not (isinstance(x, np.ndarray) and x.dtype.kind == "b") else x
    if to == _BOOL:
        return np.asarray(array != 0, dtype=bool)
    if to in _INTEGER_TYPES:
        if array.dtype.kind in "iub":
            return array.astype(np.int64)
        return np.vectorize(lambda v: int(Fraction(v)), otypes=[object])(array).astype(np.int64) \
            if array.size else array.astype(np.int64)  # toward zero, as ONNX casts
    if to in _FLOAT_TYPES:
        if array.dtype.kind in "iub":
            flat = array.reshape(-1).tolist()
            return array.astype(np.float64) if all(abs(int(v)) < 2 ** 53 for v in flat) else exact_array(array)
        return array
    raise Unsupported(f"to: expected a numeric type, got type {to}")


@_op("ConstantOfShape")
def _constant_of_shape(n: _Node) -> Any:
    shape = [int(v) for v in _folded_only(n)[0].reshape(-1).tolist()]
    value = _from_proto(n.attrs["value"], n.onnx).reshape(-1) if "value" in n.attrs else np.zeros(1, np.float32)
    if value.dtype.kind == "f":
        value = value.astype(np.float64)
    return np.full(shape, value[0], dtype=value.dtype)


@_op("Range")
def _range(n: _Node) -> Any:
    start, limit, delta = (v.reshape(-1)[0] for v in _folded_only(n)[:3])
    if all(_is_integer(np.asarray(v)) for v in (start, limit, delta)):
        return np.arange(int(start), int(limit), int(delta), dtype=np.int64)
    s, lim, d = Fraction(start), Fraction(limit), Fraction(delta)
    if d == 0:
        raise Unsupported("delta: expected a non-zero step, got 0")
    count = max(math.ceil((lim - s) / d), 0)
    return np.asarray([s + i * d for i in range(count)] or [], dtype=object)


def _compare(function: Callable[[Any, Any], Any]) -> Translator:
    def translate(n: _Node) -> Any:
        left, right = _folded_only(n)[:2]
        if left.dtype == object or right.dtype == object or left.dtype.kind != right.dtype.kind:
            left, right = exact_array(left), exact_array(right)
        return np.asarray(function(left, right), dtype=bool)
    return translate


for _name, _function in (("Equal", np.equal), ("Less", np.less), ("Greater", np.greater),
                         ("LessOrEqual", np.less_equal), ("GreaterOrEqual", np.greater_equal),
                         ("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)):
    _TRANSLATORS[_name] = _compare(_function)


@_op("Not")
def _not(n: _Node) -> Any:
    return np.logical_not(_folded_only(n)[0])


@_op("Where")
def _where(n: _Node) -> Any:
    condition, left, right = _folded_only(n)[:3]
    if left.dtype.kind != right.dtype.kind or left.dtype == object:
        left, right = exact_array(left), exact_array(right)
    return np.where(condition.astype(bool), left, right)


@_op("Expand")
def _expand(n: _Node) -> Any:
    x = n.value(0)
    shape = [int(v) for v in n.constant(1, "shape").reshape(-1).tolist()]
    if is_symbolic(x):
        if np.broadcast_shapes(x.shape, tuple(shape)) != x.shape:
            raise Unsupported(f"shape: expected no expansion of a tensor computed from the input, got "
                              f"{list(x.shape)} expanded by {shape}")
        return x
    array = constant_array(x, "input")
    return np.broadcast_to(array, np.broadcast_shapes(array.shape, tuple(shape))).copy()


@_op("Floor", "Ceil")
def _floor(n: _Node) -> Any:
    array = _folded_only(n)[0]
    if array.dtype.kind in "iu":
        return array
    rounded = np.vectorize(math.floor if n.op == "Floor" else math.ceil, otypes=[object])(exact_array(array))
    return exact_array(rounded) if array.size else array


@_op("Abs")
def _abs(n: _Node) -> Any:
    array = _folded_only(n)[0]
    return np.abs(array)


@_op("Mod")
def _mod(n: _Node) -> Any:
    left, right = _folded_only(n)[:2]
    return call(n.b, "fmod" if n.attrs.get("fmod", 0) else "remainder", [left, right])


# --- arithmetic -----------------------------------------------------------------------------------------------

def _arithmetic(name: str) -> Translator:
    def translate(n: _Node) -> Any:
        left, right = n.value(0), n.value(1)
        if name == "div" and _is_integer(left) and _is_integer(right):
            return call(n.b, "div", [left, right], {"rounding_mode": "trunc"})  # ONNX truncates integers
        return call(n.b, name, [left, right])
    return translate


for _name, _entry_name in (("Add", "add"), ("Mul", "mul"), ("Div", "div")):
    _TRANSLATORS[_name] = _arithmetic(_entry_name)


@_op("Sub")
def _sub(n: _Node) -> Any:
    return call(n.b, "sub", [n.value(0), n.value(1)])


@_op("Sum")
def _sum(n: _Node) -> Any:
    total = n.value(0)
    for value in n.inputs[1:]:
        total = call(n.b, "add", [total, value])
    return total


@_op("Neg")
def _neg(n: _Node) -> Any:
    return call(n.b, "neg", [n.value(0)])


@_op("MatMul")
def _matmul(n: _Node) -> Any:
    return call(n.b, "matmul", [n.value(0), n.value(1)])


@_op("Gemm")
def _gemm(n: _Node) -> Any:
    a = n.value(0)
    matrix = n.constant(1, "B")
    if matrix.ndim != 2:
        raise Unsupported(f"B: expected a matrix, got shape {list(matrix.shape)}")
    alpha = Fraction(float(n.attrs.get("alpha", 1.0)))
    beta = Fraction(float(n.attrs.get("beta", 1.0)))
    weight = matrix if n.attrs.get("transB", 0) else matrix.T  # (out, in)
    if alpha != 1:
        weight = exact_array(weight) * alpha
    bias = None
    if n.has(2):
        bias = n.constant(2, "C")
        if beta != 1:
            bias = exact_array(bias) * beta
    if n.attrs.get("transA", 0):
        if is_symbolic(a):
            raise Unsupported("transA: expected 0 for a tensor computed from the input (its batch axis would "
                              "move), got 1")
        a = constant_array(a, "A").T
    if not is_symbolic(a):
        product = exact_array(constant_array(a, "A")) @ exact_array(weight).T
        return product if bias is None else product + exact_array(bias)
    if bias is not None and bias.size not in (1, weight.shape[0]):
        raise Unsupported(f"C: expected 1 or {weight.shape[0]} numbers (one per output), got shape "
                          f"{list(bias.shape)}")
    return call(n.b, "linear", [a, weight, None if bias is None else bias.reshape(-1)])


# --- activations --------------------------------------------------------------------------------------------

@_op("Relu")
def _relu(n: _Node) -> Any:
    return call(n.b, "relu", [n.value(0)])


@_op("LeakyRelu")
def _leaky_relu(n: _Node) -> Any:
    return call(n.b, "leaky_relu", [n.value(0), float(n.attrs.get("alpha", float(np.float32(0.01))))])


@_op("PRelu")
def _prelu(n: _Node) -> Any:
    x = n.symbolic(0)
    slope = n.constant(1, "slope")
    try:
        full = np.broadcast_to(slope, x.shape)[0]  # ONNX broadcasts the slope to the input (batch axis first)
    except ValueError:
        raise Unsupported(f"slope: expected a shape that broadcasts to the input's {list(x.shape)}, got "
                          f"{list(slope.shape)}") from None
    per_channel = full.reshape(full.shape[0], -1)
    if any(len(set(row)) > 1 for row in per_channel.tolist()):
        raise Unsupported(f"slope: expected one slope per channel (axis 1), got shape {list(slope.shape)}")
    slopes = per_channel[:, 0]
    if len(set(slopes.tolist())) == 1:
        slopes = slopes[:1]
    return call(n.b, "prelu", [x, slopes])


@_op("Clip")
def _clip(n: _Node) -> Any:
    low = n.value(1) if n.has(1) else n.attrs.get("min")
    high = n.value(2) if n.has(2) else n.attrs.get("max")
    if low is None and high is None:
        return n.value(0)
    return call(n.b, "clamp", [n.value(0), low, high])


@_op("HardSigmoid")
def _hard_sigmoid(n: _Node) -> Any:
    alpha = float(n.attrs.get("alpha", float(np.float32(0.2))))
    beta = float(n.attrs.get("beta", float(np.float32(0.5))))
    scaled = call(n.b, "add", [call(n.b, "mul", [n.value(0), np.float64(alpha)]), np.float64(beta)])
    return call(n.b, "clamp", [scaled, 0.0, 1.0])


@_op("Max", "Min")
def _max(n: _Node) -> Any:
    values = list(n.inputs)
    if not any(is_symbolic(v) for v in values):
        arrays = [constant_array(v, f"input {i}") for i, v in enumerate(values)]
        if any(a.dtype == object for a in arrays) or len({a.dtype.kind for a in arrays}) > 1:
            arrays = [exact_array(a) for a in arrays]
        return (np.maximum if n.op == "Max" else np.minimum).reduce(np.broadcast_arrays(*arrays))
    values = [v if is_symbolic(v) else exact_array(constant_array(v, "input")) for v in values]
    return extremum_of_tensors(n.b, values, n.op == "Min", n.op.lower())


# --- normalisation and dropout -----------------------------------------------------------------------------

@_op("BatchNormalization")
def _batch_norm(n: _Node) -> Any:
    training = bool(n.attrs.get("training_mode", 0)) or any(n.proto.output[1:])  # older opsets: more outputs
    eps = float(n.attrs.get("epsilon", float(np.float32(1e-5))))
    return call(n.b, "batch_norm", [n.value(0), n.value(1), n.value(2), n.value(3), n.value(4), training, 0.1, eps])


@_op("Dropout")
def _dropout(n: _Node) -> Any:
    training = n.constant(2, "training_mode") if n.has(2) else None
    ratio = n.constant(1, "ratio") if n.has(1) else n.attrs.get("ratio", 0.5)
    if "is_test" in n.attrs and not n.attrs["is_test"]:
        training = np.asarray(True)
    if training is not None and bool(np.asarray(training).reshape(-1)[0]) and float(np.asarray(ratio).reshape(-1)[0]):
        raise Unsupported("training_mode: expected false (inference: dropout is the identity), got true (dropout "
                          "zeroes random units)")
    return n.value(0), _Unusable("a dropout's mask (random in training, all ones in inference)")


# --- convolution and pooling --------------------------------------------------------------------------------

def _pad_pairs(n: _Node, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
               dilations: Sequence[int]) -> list[tuple[int, int]]:
    """The (begin, end) padding of every spatial axis, from ``pads`` or ``auto_pad``."""
    axes = len(spatial)
    auto = n.attrs.get("auto_pad", "NOTSET")
    if auto == "NOTSET":
        pads = [int(p) for p in n.attrs.get("pads", [0] * (2 * axes))]
        if len(pads) != 2 * axes:
            raise Unsupported(f"pads: expected {2 * axes} integers (begins, then ends), got {pads}")
        return list(zip(pads[:axes], pads[axes:]))
    if auto == "VALID":
        return [(0, 0)] * axes
    if auto not in ("SAME_UPPER", "SAME_LOWER"):
        raise Unsupported(f"auto_pad: expected NOTSET, VALID, SAME_UPPER or SAME_LOWER, got {auto}")
    pairs = []
    for size, k, s, d in zip(spatial, kernel, strides, dilations):
        total = max((-(-size // s) - 1) * s + (k - 1) * d + 1 - size, 0)
        small = total // 2
        pairs.append((small, total - small) if auto == "SAME_UPPER" else (total - small, small))
    return pairs


def _padded(n: _Node, x: Symbolic, pairs: Sequence[tuple[int, int]]) -> Symbolic:
    """``x`` with zeros around its spatial axes (torch's pad order: the last axis first)."""
    flat = [p for begin, end in reversed(pairs) for p in (begin, end)]
    return call(n.b, "constant_pad_nd", [x, flat], {"value": 0})


def _spatial(n: _Node, name: str, default: int, axes: int) -> list[int]:
    values = [int(v) for v in n.attrs.get(name, [default] * axes)]
    if len(values) != axes:
        raise Unsupported(f"{name}: expected {axes} integers (one per spatial axis), got {values}")
    return values


@_op("Conv")
def _conv(n: _Node) -> Any:
    x = n.symbolic(0)
    weight = n.constant(1, "W")
    axes = weight.ndim - 2
    if axes < 1 or x.rank != axes + 2:
        raise Unsupported(f"expected a kernel [C_out, C_in/group, sizes...] for an input [batch, C_in, sizes...], "
                          f"got kernel shape {list(weight.shape)} and input shape {list(x.shape)}")
    strides, dilations = _spatial(n, "strides", 1, axes), _spatial(n, "dilations", 1, axes)
    pairs = _pad_pairs(n, x.shape[2:], weight.shape[2:], strides, dilations)
    padding = [begin for begin, _ in pairs]
    if any(begin != end for begin, end in pairs):
        x, padding = _padded(n, x, pairs), [0] * axes
    bias = n.constant(2, "B") if n.has(2) else None
    return call(n.b, "convolution", [x, weight, bias, strides, padding, dilations, False, 0,
                                     int(n.attrs.get("group", 1))])


def _pool_geometry(n: _Node, x: Symbolic) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    kernel = [int(k) for k in n.attrs.get("kernel_shape", [])]
    axes = x.rank - 2
    if len(kernel) != axes or axes < 1:
        raise Unsupported(f"kernel_shape: expected one size per spatial axis of the input of shape "
                          f"{list(x.shape)}, got {kernel}")
    strides, dilations = _spatial(n, "strides", 1, axes), _spatial(n, "dilations", 1, axes)
    if any(d != 1 for d in dilations):
        raise Unsupported(f"dilations: expected 1, got {dilations}")
    return kernel, strides, _pad_pairs(n, x.shape[2:], kernel, strides, dilations)


@_op("MaxPool")
def _max_pool(n: _Node) -> Any:
    x = n.symbolic(0)
    kernel, strides, pairs = _pool_geometry(n, x)
    if any(begin != end for begin, end in pairs):
        raise Unsupported(f"pads: expected symmetric padding (begin = end on every axis: the padding of a max "
                          f"pooling never wins), got {[b for b, _ in pairs] + [e for _, e in pairs]}")
    pooled = call(n.b, "max_pool2d", [x, kernel, strides, [b for b, _ in pairs], 1,
                                      bool(n.attrs.get("ceil_mode", 0))])
    return pooled, _Unusable("the indices of a maximum (not piecewise linear)")


@_op("AveragePool")
def _average_pool(n: _Node) -> Any:
    x = n.symbolic(0)
    kernel, strides, pairs = _pool_geometry(n, x)
    spatial = x.shape[2:]
    padding = [begin for begin, _ in pairs]
    if any(begin != end or 2 * begin > k for (begin, end), k in zip(pairs, kernel)):
        x, padding = _padded(n, x, pairs), [0] * len(kernel)
    pooled = call(n.b, "avg_pool2d", [x, kernel, strides, padding, bool(n.attrs.get("ceil_mode", 0)), True])
    if n.attrs.get("count_include_pad", 0) or not any(p for pair in pairs for p in pair):
        return pooled
    # The divisor counts the window's entries inside the input: each output scaled by size / count.
    counts = []
    for size, k, s, (begin, _), out in zip(spatial, kernel, strides, pairs, pooled.shape[2:]):
        counts.append([min(i * s - begin + k, size) - max(i * s - begin, 0) for i in range(out)])
    if any(c <= 0 for axis in counts for c in axis):
        raise Unsupported("pads: expected every window to overlap the input when count_include_pad is 0, got a "
                          "window on the padding alone")
    window = math.prod(kernel)
    factors = np.empty(tuple(len(c) for c in counts), dtype=object)
    for index in np.ndindex(*factors.shape):
        factors[index] = Fraction(window, math.prod(c[i] for c, i in zip(counts, index)))
    return call(n.b, "mul", [pooled, factors.reshape((1, 1) + factors.shape)])


@_op("GlobalAveragePool")
def _global_average_pool(n: _Node) -> Any:
    x = n.symbolic(0)
    return call(n.b, "adaptive_avg_pool2d", [x, [1] * (x.rank - 2)])


@_op("GlobalMaxPool")
def _global_max_pool(n: _Node) -> Any:
    x = n.symbolic(0)
    return call(n.b, "amax", [x, list(range(2, x.rank)), True])


# --- reductions -----------------------------------------------------------------------------------------------

def _reduction(entry: str) -> Translator:
    def translate(n: _Node) -> Any:
        x = n.value(0)
        axes = n.ints(1, "axes")
        keep = bool(n.attrs.get("keepdims", 1))
        if not axes:
            if n.attrs.get("noop_with_empty_axes", 0):
                return x
            axes = None
        if entry != "sum":
            return call(n.b, entry, [x, axes, keep])
        if not is_symbolic(x):
            array = exact_array(constant_array(x, "data"))
            return array.sum(axis=None if axes is None else tuple(axes), keepdims=keep)
        mean = call(n.b, "mean", [x, axes, keep])
        count = math.prod(x.shape[a] for a in (axes or range(x.rank)))
        return call(n.b, "mul", [mean, np.asarray(count, dtype=np.int64)])
    return translate


for _name, _entry_name in (("ReduceMax", "amax"), ("ReduceMin", "amin"), ("ReduceMean", "mean"),
                           ("ReduceSum", "sum")):
    _TRANSLATORS[_name] = _reduction(_entry_name)


# --- shapes ---------------------------------------------------------------------------------------------------

@_op("Reshape")
def _reshape(n: _Node) -> Any:
    x = n.value(0)
    target = [int(v) for v in n.constant(1, "shape").reshape(-1).tolist()]
    shape = x.shape if is_symbolic(x) else constant_array(x, "data").shape
    if not n.attrs.get("allowzero", 0):  # a 0 copies the input's size on that axis
        if any(v == 0 and i >= len(shape) for i, v in enumerate(target)):
            raise Unsupported(f"shape: expected a 0 only on an axis of the input of shape {list(shape)}, got "
                              f"{target}")
        target = [shape[i] if v == 0 else v for i, v in enumerate(target)]
    if not is_symbolic(x):
        return constant_array(x, "data").reshape(target)
    return call(n.b, "reshape", [x, target])


@_op("Flatten")
def _flatten(n: _Node) -> Any:
    x = n.value(0)
    axis = int(n.attrs.get("axis", 1))
    if not is_symbolic(x):
        array = constant_array(x, "input")
        a = axis + array.ndim if axis < 0 else axis
        return array.reshape(math.prod(array.shape[:a]), -1)
    a = axis + x.rank if axis < 0 else axis
    if a != 1:
        raise Unsupported(f"axis: expected 1 (every axis after the batch axis into one), got {axis}")
    return call(n.b, "flatten", [x, 1, -1])


@_op("Transpose")
def _transpose(n: _Node) -> Any:
    x = n.value(0)
    rank = x.rank if is_symbolic(x) else constant_array(x, "data").ndim
    perm = [int(p) for p in n.attrs.get("perm", list(range(rank))[::-1])]
    return call(n.b, "permute", [x, perm])


@_op("Concat")
def _concat(n: _Node) -> Any:
    return call(n.b, "cat", [[v for v in n.inputs if v is not None], int(n.attrs.get("axis", 0))])


@_op("Squeeze")
def _squeeze(n: _Node) -> Any:
    return call(n.b, "squeeze", [n.value(0), n.ints(1, "axes")])


@_op("Unsqueeze")
def _unsqueeze(n: _Node) -> Any:
    x = n.value(0)
    axes = n.ints(1, "axes")
    if not axes:
        raise Unsupported("axes: expected the axes to insert, got none")
    rank = (x.rank if is_symbolic(x) else constant_array(x, "data").ndim) + len(axes)
    normalised = sorted(a + rank if a < 0 else a for a in axes)
    if not is_symbolic(x):
        return np.expand_dims(constant_array(x, "data"), tuple(normalised))
    for a in normalised:
        x = call(n.b, "unsqueeze", [x, a])
    return x


@_op("Pad")
def _pad(n: _Node) -> Any:
    mode = n.attrs.get("mode", "constant")
    if mode != "constant":
        raise Unsupported(f"mode: expected constant, got {mode}")
    x = n.symbolic(0, "data")
    pads = n.ints(1, "pads")
    if pads is None:
        raise Unsupported("pads: expected the padding, got none")
    value = n.value(2) if n.has(2) else n.attrs.get("value", 0.0)
    axes = [a % x.rank for a in (n.ints(3, "axes") or range(x.rank))]
    if len(pads) != 2 * len(axes):
        raise Unsupported(f"pads: expected {2 * len(axes)} integers (begins, then ends), got {pads}")
    pairs = [(0, 0)] * x.rank
    for a, begin, end in zip(axes, pads[:len(axes)], pads[len(axes):]):
        pairs[a] = (begin, end)
    if pairs[0] != (0, 0):
        raise Unsupported(f"pads: expected no padding of the batch axis, got {pads}")
    flat = [p for begin, end in reversed(pairs[1:]) for p in (begin, end)]
    return call(n.b, "constant_pad_nd", [x, flat], {"value": 0 if value is None else value})


#: The ONNX operators :func:`graph_from_onnx` reads (some on constants only: see the module's docstring).
SUPPORTED_OPERATORS: tuple[str, ...] = tuple(sorted(_TRANSLATORS))


# --- the graph ------------------------------------------------------------------------------------------------

def _read(model: Any, what: str, onnx: Any) -> GraphNetwork:
    graph = model.graph
    values: dict[str, Any] = {}
    for tensor in graph.initializer:
        try:
            values[tensor.name] = _from_proto(tensor, onnx)
        except Exception as error:  # external data not loaded, unknown types: onnx's own errors
            raise InvalidInputError(f"{what}: initializer '{tensor.name}': expected a tensor onnx can read, got "
                                    f"{type(error).__name__}: {str(error)[:200]}") from None
    inputs = [i for i in graph.input if i.name not in values]
    if len(inputs) != 1:
        raise InvalidInputError(f"{what}: graph.input: expected one input tensor, got {len(inputs)}")
    builder = GraphBuilder(_input_shape(inputs[0], what), what)
    values[inputs[0].name] = builder.input
    for node in graph.node:
        _read_node(node, values, builder, what, onnx)
    if len(graph.output) != 1:
        raise InvalidInputError(f"{what}: graph.output: expected one output, got {len(graph.output)}")
    name = graph.output[0].name
    output = values.get(name)
    if not is_symbolic(output):
        raise InvalidInputError(f"{what}: graph.output '{name}': expected a tensor computed from the input, got "
                                f"{'a constant' if name in values else 'no value'}")
    return builder.network(output)


def _input_shape(value_info: Any, what: str) -> tuple[int, ...]:
    dims = value_info.type.tensor_type.shape.dim
    sizes = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    described = [d.dim_param or (d.dim_value if d.HasField("dim_value") else "?") for d in dims]
    if len(sizes) < 2 or any(v is None or v < 1 for v in sizes[1:]):
        raise InvalidInputError(f"{what}: graph.input '{value_info.name}': expected a shape [batch, sizes...] with "
                                f"fixed positive sizes, got {described}")
    batch = sizes[0] if sizes[0] else 1  # a symbolic batch size: one input at a time
    return (batch,) + tuple(int(v or 0) for v in sizes[1:])


def _attributes(node: Any, onnx: Any) -> dict[str, Any]:
    attrs = {}
    for a in node.attribute:
        if a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
            raise Unsupported(f"attribute {a.name}: expected no subgraph (one graph for every input), got one")
        value = onnx.helper.get_attribute_value(a)
        attrs[a.name] = value.decode() if isinstance(value, bytes) else value
    return attrs


def _read_node(node: Any, values: dict[str, Any], builder: GraphBuilder, what: str, onnx: Any) -> None:
    label = node.name or (node.output[0] if node.output else node.op_type)
    where = f"{what}: node '{label}' ({node.op_type})"
    try:
        if node.domain not in ("", "ai.onnx"):
            raise Unsupported(f"expected an operator of the default ONNX domain, got domain {node.domain!r}")
        translator = _TRANSLATORS.get(node.op_type)
        if translator is None:
            listed = ", ".join(SUPPORTED_OPERATORS)
            note = " (not piecewise linear)" if node.op_type in _NOT_PIECEWISE_LINEAR else ""
            raise Unsupported(f"expected one of the operators {listed}, got {node.op_type}{note}")
        inputs = [_input(values, name) if name else None for name in node.input]
        result = translator(_Node(node, inputs, _attributes(node, onnx), builder, onnx))
    except Unsupported as error:
        raise InvalidInputError(f"{where}: {error}") from None
    except InvalidInputError as error:  # an operation's own check, already prefixed with the model's name
        message = str(error)
        message = message[len(what) + 2:] if message.startswith(f"{what}: ") else message
        raise InvalidInputError(f"{where}: {message}") from None
    except (ValueError, IndexError, TypeError, ZeroDivisionError) as error:  # numpy while folding constants
        raise InvalidInputError(f"{where}: expected inputs this operator accepts, got "
                                f"{type(error).__name__}: {str(error)[:200]}") from None
    results = result if isinstance(result, tuple) else (result,)
    for i, name in enumerate(node.output):
        if not name:
            continue
        value = results[i] if i < len(results) else _Unusable(f"output {i} of {node.op_type}, which has no "
                                                              f"exact reading")
        values[name] = _Unusable("the indices of a maximum (not piecewise linear)") if isinstance(value, Indices) \
            else value


def _input(values: dict[str, Any], name: str) -> Any:
    if name not in values:
        raise Unsupported(f"input '{name}': expected the graph's input, an initializer or an earlier node's output, "
                          f"got an unknown name")
    value = values[name]
    if isinstance(value, _Unusable):
        raise Unsupported(f"input '{name}': expected a tensor or a constant, got {value.reason}")
    return value
