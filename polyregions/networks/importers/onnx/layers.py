"""Translators of arithmetic, activations, normalisation, convolution and pooling, onto the operator table."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.networks.importers._builder import (
    Symbolic,
    Unsupported,
    constant_array,
    exact_array,
    is_symbolic,
)
from polyregions.networks.importers.onnx._nodes import (
    TRANSLATORS,
    Node,
    Translator,
    Unusable,
    is_integer,
    translator,
)
from polyregions.networks.importers.operators import call, extremum_of_tensors

# --- arithmetic -----------------------------------------------------------------------------------------------

def _arithmetic(name: str) -> Translator:
    def translate(n: Node) -> Any:
        left, right = n.value(0), n.value(1)
        if name == "div" and is_integer(left) and is_integer(right):
            return call(n.b, "div", [left, right], {"rounding_mode": "trunc"})  # ONNX truncates integers
        return call(n.b, name, [left, right])
    return translate


for _name, _entry_name in (("Add", "add"), ("Mul", "mul"), ("Div", "div")):
    TRANSLATORS[_name] = _arithmetic(_entry_name)


@translator("Sub")
def _sub(n: Node) -> Any:
    return call(n.b, "sub", [n.value(0), n.value(1)])


@translator("Sum")
def _sum(n: Node) -> Any:
    total = n.value(0)
    for value in n.inputs[1:]:
        total = call(n.b, "add", [total, value])
    return total


@translator("Neg")
def _neg(n: Node) -> Any:
    return call(n.b, "neg", [n.value(0)])


@translator("MatMul")
def _matmul(n: Node) -> Any:
    return call(n.b, "matmul", [n.value(0), n.value(1)])


def _finite(n: Node, name: str, default: float) -> Fraction:
    """The float attribute ``name`` exactly, refused when infinite or NaN."""
    value = n.attrs.get(name, default)
    if not isinstance(value, (int, float)) or not math.isfinite(value):
        raise Unsupported(f"{name}: expected a finite number, got {value!r}")
    return Fraction(value)


@translator("Gemm")
def _gemm(n: Node) -> Any:
    a = n.value(0)
    matrix = n.constant(1, "B")
    if matrix.ndim != 2:
        raise Unsupported(f"B: expected a matrix, got shape {list(matrix.shape)}")
    alpha, beta = _finite(n, "alpha", 1.0), _finite(n, "beta", 1.0)
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

@translator("Relu")
def _relu(n: Node) -> Any:
    return call(n.b, "relu", [n.value(0)])


@translator("LeakyRelu")
def _leaky_relu(n: Node) -> Any:
    return call(n.b, "leaky_relu", [n.value(0), float(n.attrs.get("alpha", float(np.float32(0.01))))])


@translator("PRelu")
def _prelu(n: Node) -> Any:
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


@translator("Clip")
def _clip(n: Node) -> Any:
    low = n.value(1) if n.has(1) else n.attrs.get("min")
    high = n.value(2) if n.has(2) else n.attrs.get("max")
    if low is None and high is None:
        return n.value(0)
    return call(n.b, "clamp", [n.value(0), low, high])


@translator("HardSigmoid")
def _hard_sigmoid(n: Node) -> Any:
    alpha = float(n.attrs.get("alpha", float(np.float32(0.2))))
    beta = float(n.attrs.get("beta", float(np.float32(0.5))))
    scaled = call(n.b, "add", [call(n.b, "mul", [n.value(0), np.float64(alpha)]), np.float64(beta)])
    return call(n.b, "clamp", [scaled, 0.0, 1.0])


@translator("Max", "Min")
def _max(n: Node) -> Any:
    values = list(n.inputs)
    if not any(is_symbolic(v) for v in values):
        arrays = [constant_array(v, f"input {i}") for i, v in enumerate(values)]
        if any(a.dtype == object for a in arrays) or len({a.dtype.kind for a in arrays}) > 1:
            arrays = [exact_array(a) for a in arrays]
        return (np.maximum if n.op == "Max" else np.minimum).reduce(np.broadcast_arrays(*arrays))
    values = [v if is_symbolic(v) else exact_array(constant_array(v, "input")) for v in values]
    return extremum_of_tensors(n.b, values, n.op == "Min", n.op.lower())


# --- normalisation and dropout -----------------------------------------------------------------------------

@translator("BatchNormalization")
def _batch_norm(n: Node) -> Any:
    training = bool(n.attrs.get("training_mode", 0)) or any(n.proto.output[1:])  # older opsets: more outputs
    eps = float(_finite(n, "epsilon", float(np.float32(1e-5))))
    return call(n.b, "batch_norm", [n.value(0), n.value(1), n.value(2), n.value(3), n.value(4), training, 0.1, eps])


@translator("Dropout")
def _dropout(n: Node) -> Any:
    training = n.constant(2, "training_mode") if n.has(2) else None
    if "is_test" in n.attrs and not n.attrs["is_test"]:
        training = np.asarray(True)
    # In training mode, even with a ratio of 0 (the identity), the model was exported for training: refused.
    if training is not None:
        flags = np.asarray(training).reshape(-1)
        if flags.size != 1:
            raise Unsupported(f"training_mode: expected one boolean, got {flags.size} entries")
        if bool(flags[0]):
            field, wanted, got = ("is_test", "1", "0") if "is_test" in n.attrs else ("training_mode", "false", "true")
            raise Unsupported(f"{field}: expected {wanted} (inference: dropout is the identity), got {got} "
                              f"(dropout zeroes random units)")
    return n.value(0), Unusable("a dropout's mask (random in training, all ones in inference)")


# --- convolution and pooling --------------------------------------------------------------------------------

def _pad_pairs(n: Node, spatial: Sequence[int], kernel: Sequence[int], strides: Sequence[int],
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


def _padded(n: Node, x: Symbolic, pairs: Sequence[tuple[int, int]]) -> Symbolic:
    """``x`` with zeros around its spatial axes (torch's pad order: the last axis first)."""
    flat = [p for begin, end in reversed(pairs) for p in (begin, end)]
    return call(n.b, "constant_pad_nd", [x, flat], {"value": 0})


def _spatial(n: Node, name: str, default: int, axes: int) -> list[int]:
    values = [int(v) for v in n.attrs.get(name, [default] * axes)]
    if len(values) != axes:
        raise Unsupported(f"{name}: expected {axes} integers (one per spatial axis), got {values}")
    return values


@translator("Conv")
def _conv(n: Node) -> Any:
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


def _pool_geometry(n: Node, x: Symbolic) -> tuple[list[int], list[int], list[tuple[int, int]]]:
    kernel = [int(k) for k in n.attrs.get("kernel_shape", [])]
    axes = x.rank - 2
    if len(kernel) != axes or axes < 1:
        raise Unsupported(f"kernel_shape: expected one size per spatial axis of the input of shape "
                          f"{list(x.shape)}, got {kernel}")
    strides, dilations = _spatial(n, "strides", 1, axes), _spatial(n, "dilations", 1, axes)
    if any(d != 1 for d in dilations):
        raise Unsupported(f"dilations: expected 1, got {dilations}")
    return kernel, strides, _pad_pairs(n, x.shape[2:], kernel, strides, dilations)


@translator("MaxPool")
def _max_pool(n: Node) -> Any:
    x = n.symbolic(0)
    kernel, strides, pairs = _pool_geometry(n, x)
    if any(begin != end for begin, end in pairs):
        raise Unsupported(f"pads: expected symmetric padding (begin = end on every axis: the padding of a max "
                          f"pooling never wins), got {[b for b, _ in pairs] + [e for _, e in pairs]}")
    pooled = call(n.b, "max_pool2d", [x, kernel, strides, [b for b, _ in pairs], 1,
                                      bool(n.attrs.get("ceil_mode", 0))])
    return pooled, Unusable("the indices of a maximum (not piecewise linear)")


@translator("AveragePool")
def _average_pool(n: Node) -> Any:
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


@translator("GlobalAveragePool")
def _global_average_pool(n: Node) -> Any:
    x = n.symbolic(0)
    return call(n.b, "adaptive_avg_pool2d", [x, [1] * (x.rank - 2)])


@translator("GlobalMaxPool")
def _global_max_pool(n: Node) -> Any:
    x = n.symbolic(0)
    return call(n.b, "amax", [x, list(range(2, x.rank)), True])
