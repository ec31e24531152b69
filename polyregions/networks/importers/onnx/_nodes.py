"""A node being read: its inputs' values and attributes, the translators by operator, and ONNX's tensor types."""

from __future__ import annotations

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
    """A TensorProto's entries (binary16 and bfloat16 widened exactly; strings stay strings)."""
    array = np.asarray(onnx.numpy_helper.to_array(tensor))
    if array.dtype.kind not in "biufOSU":  # ml_dtypes' bfloat16, float8 and int4 types: widened exactly
        array = array.astype(np.int64 if "int" in array.dtype.name else np.float32)
    return array


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
            return [int(v) for v in self.constant(i, attribute).reshape(-1).tolist()]
        if attribute in self.attrs:
            return [int(v) for v in self.attrs[attribute]]
        return None


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
