"""Translators of constants and shape computations: evaluated exactly on the way, so that a computed shape
reaches a ``Reshape`` as a constant; ``Gather``, ``Slice`` and ``Split`` also select from computed tensors."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from polyregions.networks.importers._builder import (
    Unsupported,
    constant_array,
    exact_array,
    is_symbolic,
)
from polyregions.networks.importers.onnx._nodes import (
    BOOL,
    FLOAT_TYPES,
    INTEGER_TYPES,
    TRANSLATORS,
    Node,
    Translator,
    folded_only,
    from_proto,
    is_integer,
    translator,
)
from polyregions.networks.importers.operators import call

# --- constants and shape computations ----------------------------------------------------------------------

@translator("Constant")
def _constant(n: Node) -> Any:
    a = n.attrs
    if "value" in a:
        return from_proto(a["value"], n.onnx)
    if "value_float" in a or "value_floats" in a:
        return np.asarray(a.get("value_float", a.get("value_floats")), dtype=np.float64)
    if "value_int" in a or "value_ints" in a:
        return np.asarray(a.get("value_int", a.get("value_ints")), dtype=np.int64)
    raise Unsupported(f"expected a numeric value (value, value_float(s) or value_int(s)), got "
                      f"{', '.join(sorted(a)) or 'none'}")


@translator("Identity")
def _identity(n: Node) -> Any:
    return n.value(0)


@translator("Shape")
def _shape(n: Node) -> Any:
    x = n.value(0)
    shape = x.shape if is_symbolic(x) else constant_array(x, "data").shape
    start, end = n.attrs.get("start", 0), n.attrs.get("end", len(shape))
    return np.asarray(shape[start:end], dtype=np.int64)


@translator("Size")
def _size(n: Node) -> Any:
    x = n.value(0)
    return np.asarray(math.prod(x.shape if is_symbolic(x) else constant_array(x, "data").shape), dtype=np.int64)


@translator("Gather")
def _gather(n: Node) -> Any:
    if is_symbolic(n.value(0)):  # entries of a computed tensor at constant indices: a selection
        x, indices, axis = n.value(0), n.constant(1, "indices"), int(n.attrs.get("axis", 0))
        if indices.ndim == 0:
            return call(n.b, "select", [x, axis, int(indices)])
        taken = call(n.b, "index_select", [x, axis, indices.reshape(-1)])
        a = axis % x.rank
        return call(n.b, "view", [taken, list(x.shape[:a]) + list(indices.shape) + list(x.shape[a + 1:])])
    data, indices = folded_only(n)[:2]
    if not is_integer(indices):
        raise Unsupported(f"indices: expected integers, got dtype {indices.dtype}")
    return np.take(data, indices.astype(np.int64), axis=int(n.attrs.get("axis", 0)))


@translator("Slice")
def _slice(n: Node) -> Any:
    if is_symbolic(n.value(0)):  # a slice of a computed tensor: one selection per sliced axis
        x = n.value(0)
        bounds = (n.ints(1, "starts") or [], n.ints(2, "ends") or [])
        sliced = n.ints(3, "axes") or list(range(len(bounds[0])))
        for axis, start, end, step in zip(sliced, *bounds, n.ints(4, "steps") or [1] * len(bounds[0])):
            x = call(n.b, "slice", [x, axis, start, end, step])
        return x
    values = folded_only(n)
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


@translator("Split")
def _split(n: Node) -> Any:
    x, axis = n.symbolic(0), int(n.attrs.get("axis", 0))
    size = x.shape[axis % x.rank]
    sizes = n.ints(1, "split")
    if sizes is None:  # equal parts, one per output (the last one smaller, as opset 18's num_outputs)
        parts = int(n.attrs.get("num_outputs", len(n.proto.output)))
        step = -(-size // parts)
        sizes = [min(step, size - i) for i in range(0, size, step)]
    return tuple(call(n.b, "split_with_sizes", [x, sizes, axis]))


@translator("Cast", "CastLike")
def _cast(n: Node) -> Any:
    x = n.value(0)
    if n.op == "Cast":
        to = int(n.attrs.get("to", 1))
    else:  # the type of the second input: a tensor computed from the input is a float tensor
        kind = "f" if is_symbolic(n.value(1)) else np.asarray(n.value(1)).dtype.kind
        to = BOOL if kind == "b" else 7 if kind in "iu" else 1
    if is_symbolic(x):
        if to not in FLOAT_TYPES:
            raise Unsupported(f"to: expected a float type for a tensor computed from the input, got type {to}")
        return x
    array = constant_array(x, "input") if not (isinstance(x, np.ndarray) and x.dtype.kind == "b") else x
    if to == BOOL:
        return np.asarray(array != 0, dtype=bool)
    if to in INTEGER_TYPES:
        if array.dtype.kind in "iub":
            return array.astype(np.int64)
        return np.vectorize(lambda v: int(Fraction(v)), otypes=[object])(array).astype(np.int64) \
            if array.size else array.astype(np.int64)  # toward zero, as ONNX casts
    if to in FLOAT_TYPES:
        if array.dtype.kind in "iub":
            flat = array.reshape(-1).tolist()
            return array.astype(np.float64) if all(abs(int(v)) < 2 ** 53 for v in flat) else exact_array(array)
        return array
    raise Unsupported(f"to: expected a numeric type, got type {to}")


@translator("ConstantOfShape")
def _constant_of_shape(n: Node) -> Any:
    shape = [int(v) for v in folded_only(n)[0].reshape(-1).tolist()]
    value = from_proto(n.attrs["value"], n.onnx).reshape(-1) if "value" in n.attrs else np.zeros(1, np.float32)
    if value.dtype.kind == "f":
        value = value.astype(np.float64)
    return np.full(shape, value[0], dtype=value.dtype)


@translator("Range")
def _range(n: Node) -> Any:
    start, limit, delta = (v.reshape(-1)[0] for v in folded_only(n)[:3])
    if all(is_integer(np.asarray(v)) for v in (start, limit, delta)):
        return np.arange(int(start), int(limit), int(delta), dtype=np.int64)
    s, lim, d = Fraction(start), Fraction(limit), Fraction(delta)
    if d == 0:
        raise Unsupported("delta: expected a non-zero step, got 0")
    count = max(math.ceil((lim - s) / d), 0)
    return np.asarray([s + i * d for i in range(count)] or [], dtype=object)


def _compare(function: Callable[[Any, Any], Any]) -> Translator:
    def translate(n: Node) -> Any:
        left, right = folded_only(n)[:2]
        if left.dtype == object or right.dtype == object or left.dtype.kind != right.dtype.kind:
            left, right = exact_array(left), exact_array(right)
        return np.asarray(function(left, right), dtype=bool)
    return translate


for _name, _function in (("Equal", np.equal), ("Less", np.less), ("Greater", np.greater),
                         ("LessOrEqual", np.less_equal), ("GreaterOrEqual", np.greater_equal),
                         ("And", np.logical_and), ("Or", np.logical_or), ("Xor", np.logical_xor)):
    TRANSLATORS[_name] = _compare(_function)


@translator("Not")
def _not(n: Node) -> Any:
    return np.logical_not(folded_only(n)[0])


@translator("Where")
def _where(n: Node) -> Any:
    condition, left, right = folded_only(n)[:3]
    if left.dtype.kind != right.dtype.kind or left.dtype == object:
        left, right = exact_array(left), exact_array(right)
    return np.where(condition.astype(bool), left, right)


@translator("Expand")
def _expand(n: Node) -> Any:
    x = n.value(0)
    shape = [int(v) for v in n.constant(1, "shape").reshape(-1).tolist()]
    if is_symbolic(x):
        if np.broadcast_shapes(x.shape, tuple(shape)) != x.shape:
            raise Unsupported(f"shape: expected no expansion of a tensor computed from the input, got "
                              f"{list(x.shape)} expanded by {shape}")
        return x
    array = constant_array(x, "input")
    return np.broadcast_to(array, np.broadcast_shapes(array.shape, tuple(shape))).copy()


@translator("Floor", "Ceil")
def _floor(n: Node) -> Any:
    array = folded_only(n)[0]
    if array.dtype.kind in "iu":
        return array
    rounded = np.vectorize(math.floor if n.op == "Floor" else math.ceil, otypes=[object])(exact_array(array))
    return exact_array(rounded) if array.size else array


@translator("Abs")
def _abs(n: Node) -> Any:
    array = folded_only(n)[0]
    return np.abs(array)


@translator("Mod")
def _mod(n: Node) -> Any:
    left, right = folded_only(n)[:2]
    return call(n.b, "fmod" if n.attrs.get("fmod", 0) else "remainder", [left, right])
