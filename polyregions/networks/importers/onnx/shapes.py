"""Translators of reductions and shapes: maxima and means over axes, reshapes, transposes, concatenation, padding."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from polyregions.networks.importers._builder import (
    Unsupported,
    constant_array,
    exact_array,
    is_symbolic,
)
from polyregions.networks.importers.onnx._nodes import (
    TRANSLATORS,
    Node,
    Translator,
    integers,
    translator,
)
from polyregions.networks.importers.operators import call

# --- reductions -----------------------------------------------------------------------------------------------

def _reduction(entry: str) -> Translator:
    def translate(n: Node) -> Any:
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
    TRANSLATORS[_name] = _reduction(_entry_name)


# --- shapes ---------------------------------------------------------------------------------------------------

@translator("Reshape")
def _reshape(n: Node) -> Any:
    x = n.value(0)
    target = integers(n.constant(1, "shape"), "shape")
    shape = x.shape if is_symbolic(x) else constant_array(x, "data").shape
    if not n.attrs.get("allowzero", 0):  # a 0 copies the input's size on that axis
        if any(v == 0 and i >= len(shape) for i, v in enumerate(target)):
            raise Unsupported(f"shape: expected a 0 only on an axis of the input of shape {list(shape)}, got "
                              f"{target}")
        target = [shape[i] if v == 0 else v for i, v in enumerate(target)]
    if not is_symbolic(x):
        return constant_array(x, "data").reshape(target)
    return call(n.b, "reshape", [x, target])


@translator("Flatten")
def _flatten(n: Node) -> Any:
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


@translator("Transpose")
def _transpose(n: Node) -> Any:
    x = n.value(0)
    rank = x.rank if is_symbolic(x) else constant_array(x, "data").ndim
    perm = [int(p) for p in n.attrs.get("perm", list(range(rank))[::-1])]
    return call(n.b, "permute", [x, perm])


@translator("Concat")
def _concat(n: Node) -> Any:
    tensors = [v for v in n.inputs if v is not None]
    if not tensors:
        raise Unsupported("inputs: expected at least one tensor to concatenate, got none")
    if "axis" not in n.attrs:
        raise Unsupported("axis: expected the axis to concatenate on (a required attribute), got none")
    return call(n.b, "cat", [tensors, int(n.attrs["axis"])])


@translator("Squeeze")
def _squeeze(n: Node) -> Any:
    return call(n.b, "squeeze", [n.value(0), n.ints(1, "axes")])


@translator("Unsqueeze")
def _unsqueeze(n: Node) -> Any:
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


@translator("Pad")
def _pad(n: Node) -> Any:
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
