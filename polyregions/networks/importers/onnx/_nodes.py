"""A node being read: its inputs' values and attributes, the translators by operator, and ONNX's tensor types."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from polyregions.networks.importers._builder import (
    GraphBuilder,
    Symbolic,
    Unsupported,
    constant_array,
    is_symbolic,
)

# --- values -----------------------------------------------------------------------------------------------

class Unusable:
    """An output with no exact piecewise-linear reading (indices, a dropout mask): refused where used."""

    def __init__(self, reason: str) -> None:
        self.reason = reason


def from_proto(tensor: Any, onnx: Any) -> np.ndarray:
    """A TensorProto's entries (binary16 and bfloat16 widened exactly; strings stay strings), once its dims
    are checked against the data it holds (before anything of the declared size is allocated)."""
    _check_declared_size(tensor, onnx)
    array = np.asarray(onnx.numpy_helper.to_array(tensor))
    if array.dtype.kind not in "biufOSU":  # ml_dtypes' bfloat16, float8 and int4 types: widened exactly
        array = array.astype(np.int64 if "int" in array.dtype.name else np.float32)
    return array


_COMPLEX = {14, 15}  # COMPLEX64, COMPLEX128: two numbers an entry
_PACKED = {21, 22, 23, 25, 26}  # UINT4, INT4, FLOAT4E2M1, UINT2, INT2: several entries a byte
_STRING = 8
_EXTERNAL = 1  # TensorProto.EXTERNAL


def _check_declared_size(tensor: Any, onnx: Any) -> None:
    """Refuse a tensor whose dims are negative, whose declared bytes exceed MAX_INPUT_BYTES, or whose data hold
    another number of entries than its dims declare: an Unsupported naming the field."""
    from polyregions._support.limits import check_at_most, describe_count

    dims = [int(d) for d in tensor.dims]
    if any(d < 0 for d in dims):
        raise Unsupported(f"dims: expected sizes of at least 0, got {dims}")
    entries = math.prod(dims)
    kind = int(tensor.data_type)
    if kind == _STRING:
        return
    try:
        itemsize = np.dtype(onnx.helper.tensor_dtype_to_np_dtype(kind)).itemsize
    except Exception:  # an unknown data type: onnx's reader says so
        return
    declared = -(-entries // 2) if kind in _PACKED else entries * itemsize
    try:
        check_at_most("MAX_INPUT_BYTES", declared, what=f"dims {dims}", unit="bytes")
    except Exception as error:
        raise Unsupported(str(error)) from None
    if tensor.data_location == _EXTERNAL:
        return  # read from another file by onnx, which checks its length
    if tensor.HasField("raw_data"):
        if len(tensor.raw_data) != declared:
            raise Unsupported(f"raw_data: expected {describe_count(declared)} bytes (dims {dims}), got "
                              f"{describe_count(len(tensor.raw_data))}")
        return
    try:
        field = onnx.helper.tensor_dtype_to_field(kind)
    except Exception:
        return
    present = len(getattr(tensor, field))
    expected = 2 * entries if kind in _COMPLEX else -(-entries // 2) if kind in _PACKED else entries
    if present != expected:
        raise Unsupported(f"{field}: expected {describe_count(expected)} numbers (dims {dims}), got "
                          f"{describe_count(present)}")


def is_integer(value: Any) -> bool:
    if isinstance(value, np.ndarray):
        return value.dtype.kind in "iub"
    return isinstance(value, (int, np.integer))


# ONNX TensorProto data types by kind.
INTEGER_TYPES = {2, 3, 4, 5, 6, 7, 12, 13, 21, 22}
FLOAT_TYPES = {1, 10, 11, 16, 17, 18, 19, 20, 23}
BOOL = 9


class Node:
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
            return integers(self.constant(i, attribute), attribute)
        if attribute in self.attrs:
            return [int(v) for v in self.attrs[attribute]]
        return None


def integers(array: np.ndarray, what: str) -> list[int]:
    """The entries of an integer tensor (a shape, axes, pads: ONNX declares them int64) as a list."""
    if array.dtype.kind not in "iu":
        raise Unsupported(f"{what}: expected an integer tensor, got {array.dtype} entries "
                          f"{array.reshape(-1)[:6].tolist()}")
    return [int(v) for v in array.reshape(-1).tolist()]


Translator = Callable[[Node], Any]
TRANSLATORS: dict[str, Translator] = {}

#: Operators with no piecewise-linear reading, refused by name.
NOT_PIECEWISE_LINEAR = ("Softmax", "LogSoftmax", "Sigmoid", "Tanh", "Exp", "Log", "Erf", "Gelu", "Elu", "Selu",
                         "Celu", "Softplus", "Softsign", "HardSwish", "Mish", "Sin", "Cos", "Pow", "Reciprocal",
                         "ThresholdedRelu", "Sqrt", "Round", "Sign", "Hardmax", "LpNormalization",
                         "LayerNormalization", "InstanceNormalization", "GroupNormalization", "Einsum", "Atan",
                         "Asin", "Acos", "Sinh", "Cosh", "Tan", "Shrink")


def translator(*names: str) -> Callable[[Translator], Translator]:
    def register(translator: Translator) -> Translator:
        for name in names:
            TRANSLATORS[name] = translator
        return translator
    return register


def folded_only(n: Node) -> list[Any]:
    """The inputs of an operator read only on constants (a shape computation), as constants."""
    for i, value in enumerate(n.inputs):
        if is_symbolic(value):
            raise Unsupported(f"expected constant inputs (a shape computation, folded while reading), got the "
                              f"tensor '{n.proto.input[i]}' computed from the graph's input")
    return [None if v is None else constant_array(v, f"input {i}") for i, v in enumerate(n.inputs)]
