"""Entries for entry-wise maps: activations and arithmetic with constants (folded exactly between constants)."""

from __future__ import annotations

import math
import operator as _operator
from fractions import Fraction
from typing import Any, Callable

import numpy as np

from polyregions.networks import operations as ops
from polyregions.networks.activations import hardtanh, leaky_relu, piecewise_linear, relu
from polyregions.networks.importers._builder import (
    GraphBuilder,
    Symbolic,
    Unsupported,
    constant_array,
    exact_array,
    is_symbolic,
)
from polyregions.networks.importers.operators._table import (
    REQUIRED,
    arguments,
    entry,
    exact_number,
    exact_numbers,
    tensor_arg,
)

# --- activations --------------------------------------------------------------------------------------------

def _activation(b: GraphBuilder, x: Any, activation: Any, what: str) -> Any:
    if not is_symbolic(x):
        array = exact_array(constant_array(x, f"{what}: input"))
        return np.vectorize(activation, otypes=[object])(array) if array.size else array
    return b.add(ops.Activation(activation), [x], what)


@entry("relu")
def _relu(b, args, kw):
    return _activation(b, arguments(args, kw, ("self", REQUIRED))[0], relu(), "relu")


@entry("leaky_relu")
def _leaky_relu(b, args, kw):
    x, slope = arguments(args, kw, ("self", REQUIRED), ("negative_slope", 0.01))
    slope = exact_number(slope, "leaky_relu: negative_slope")
    return _activation(b, x, leaky_relu(slope, what="leaky_relu: negative_slope"), "leaky_relu")


@entry("hardtanh")
def _hardtanh(b, args, kw):
    x, low, high = arguments(args, kw, ("self", REQUIRED), ("min_val", -1.0), ("max_val", 1.0))
    activation = hardtanh(min_val=exact_number(low, "hardtanh: min_val"),
                          max_val=exact_number(high, "hardtanh: max_val"), what="hardtanh")
    return _activation(b, x, activation, "hardtanh")


@entry("relu6")
def _relu6(b, args, kw):
    return _activation(b, arguments(args, kw, ("self", REQUIRED))[0], ops.relu6(), "relu6")


def _clamp_activation(low: Any, high: Any, what: str) -> Any:
    low = None if low is None else exact_number(low, f"{what}: min")
    high = None if high is None else exact_number(high, f"{what}: max")
    if low is not None and high is not None:
        return hardtanh(min_val=low, max_val=high, what=what)
    if low is not None:
        return piecewise_linear([low], [0, 1], low)  # max(t, low)
    if high is not None:
        return piecewise_linear([high], [1, 0], 0)  # min(t, high)
    raise Unsupported(f"{what}: expected a min or a max, got neither")




@entry("clamp", "clip")
def _clamp(b, args, kw):
    x, low, high = arguments(args, kw, ("self", REQUIRED), ("min", None), ("max", None))
    return _activation(b, x, _clamp_activation(low, high, "clamp"), "clamp")


@entry("clamp_min")
def _clamp_min(b, args, kw):
    x, low = arguments(args, kw, ("self", REQUIRED), ("min", REQUIRED))
    return _activation(b, x, _clamp_activation(low, None, "clamp_min"), "clamp_min")


@entry("clamp_max")
def _clamp_max(b, args, kw):
    x, high = arguments(args, kw, ("self", REQUIRED), ("max", REQUIRED))
    return _activation(b, x, _clamp_activation(None, high, "clamp_max"), "clamp_max")


@entry("prelu", "_prelu_kernel")
def _prelu(b, args, kw):
    x, weight = arguments(args, kw, ("self", REQUIRED), ("weight", REQUIRED))
    slopes = exact_numbers(constant_array(weight, "prelu: weight"))
    return b.add(ops.PReLU(tuple(slopes)), [tensor_arg(x, "prelu: input")], "prelu")


# --- arithmetic ---------------------------------------------------------------------------------------------

def _per_entry(b: GraphBuilder, x: Symbolic, value: Any, what: str) -> list[Fraction]:
    """A constant broadcast to one number per entry of one input (equal across the batch axis)."""
    array = constant_array(value, what)
    try:
        full = np.broadcast_to(array, x.shape)
    except ValueError:
        raise Unsupported(f"{what}: expected a constant that broadcasts to shape {list(x.shape)}, got shape "
                          f"{list(array.shape)}") from None
    if array.ndim == x.rank and array.shape[0] != 1:
        raise Unsupported(f"{what}: expected one constant for every input of a batch, got shape "
                          f"{list(array.shape)}")
    return exact_numbers(full[0])


def _scale(b: GraphBuilder, x: Symbolic, scale: Any, shift: Any, what: str) -> Symbolic:
    size = math.prod(x.shape[1:])
    scales = [Fraction(1)] * size if scale is None else _per_entry(b, x, scale, f"{what}: the constant")
    shifts = [Fraction(0)] * size if shift is None else _per_entry(b, x, shift, f"{what}: the constant")
    return b.add(ops.Scale(scales, shifts), [x], what)


def _fold(function: Callable[[Any, Any], Any], left: Any, right: Any, what: str) -> Any:
    left_array, right_array = constant_array(left, what), constant_array(right, what)
    if left_array.dtype.kind in "iu" and right_array.dtype.kind in "iu" and function is not _operator.truediv:
        result = function(left_array.astype(object), right_array.astype(object))
        return np.asarray(result).astype(np.int64) if all(
            abs(v) < 2 ** 62 for v in np.asarray(result).reshape(-1).tolist()) else result
    return function(exact_array(left_array), exact_array(right_array))


def times(b: GraphBuilder, x: Any, factor: Fraction, what: str) -> Any:
    """``factor * x`` for a constant or a tensor computed from the input."""
    if not is_symbolic(x):
        array = constant_array(x, what)
        if array.dtype.kind in "iu" and factor.denominator == 1:  # shape arithmetic stays in integers
            return _fold(_operator.mul, array, int(factor), what)
        return exact_array(array) * factor
    return _scale(b, x, np.array(factor, dtype=object), None, what)


def _add(b: GraphBuilder, left: Any, right: Any, alpha: Any, subtract: bool, what: str) -> Any:
    """``left + alpha * right`` (``left - alpha * right`` when ``subtract``), as ATen's add and sub."""
    factor = exact_number(alpha, f"{what}: alpha") * (-1 if subtract else 1)
    if factor != 1:
        right = times(b, right, factor, what)
    if not is_symbolic(left) and not is_symbolic(right):
        return _fold(_operator.add, left, right, what)
    if is_symbolic(left) and is_symbolic(right):
        if left.shape != right.shape:
            raise Unsupported(f"{what}: expected two tensors of one shape, got {list(left.shape)} and "
                              f"{list(right.shape)}")
        return b.add(ops.Add(), [left, right], what)
    x, constant = (left, right) if is_symbolic(left) else (right, left)
    return _scale(b, x, None, constant, what)


@entry("add")
def _add_entry(b, args, kw):
    left, right, alpha = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED), ("alpha", 1))
    return _add(b, left, right, alpha, False, "add")


@entry("sub")
def _sub_entry(b, args, kw):
    left, right, alpha = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED), ("alpha", 1))
    return _add(b, left, right, alpha, True, "sub")


@entry("rsub")
def _rsub_entry(b, args, kw):
    left, right, alpha = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED), ("alpha", 1))
    return _add(b, right, left, alpha, True, "rsub")


@entry("neg")
def _neg(b, args, kw):
    return times(b, arguments(args, kw, ("self", REQUIRED))[0], Fraction(-1), "neg")


@entry("mul")
def _mul(b, args, kw):
    left, right = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED))
    if not is_symbolic(left) and not is_symbolic(right):
        return _fold(_operator.mul, left, right, "mul")
    if is_symbolic(left) and is_symbolic(right):
        raise Unsupported("mul: expected a constant factor, got the product of two tensors computed from the "
                          "input (not piecewise linear)")
    x, constant = (left, right) if is_symbolic(left) else (right, left)
    return _scale(b, x, constant, None, "mul")


@entry("div")
def _div(b, args, kw):
    left, right, rounding = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED), ("rounding_mode", None))
    if not is_symbolic(left) and not is_symbolic(right):
        if rounding is not None:
            return _fold(_operator.floordiv if rounding == "floor" else _truncated, left, right, "div")
        return _fold(_operator.truediv, left, right, "div")
    if is_symbolic(right) or rounding is not None:
        raise Unsupported("div: expected a tensor divided by a constant, got a division by a tensor computed from "
                          "the input (not piecewise linear)")
    divisor = exact_array(constant_array(right, "div: other"))
    if any(v == 0 for v in divisor.reshape(-1).tolist()):
        raise Unsupported("div: other: expected non-zero divisors, got a zero")
    return _scale(b, left, 1 / divisor, None, "div")


def _truncated(a: Any, c: Any) -> Any:
    return np.vectorize(lambda p, q: int(Fraction(p) / Fraction(q)), otypes=[object])(a, c)


@entry("floor_divide")
def _floor_divide(b, args, kw):
    left, right = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED))
    return _fold(_operator.floordiv, left, right, "floor_divide")


@entry("remainder")
def _remainder(b, args, kw):
    left, right = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED))
    return _fold(_operator.mod, left, right, "remainder")  # the sign of the divisor, as Python's %


@entry("fmod")
def _fmod(b, args, kw):
    left, right = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED))
    return _fold(lambda a, c: a - _truncated(a, c) * c, left, right, "fmod")  # the sign of the dividend
