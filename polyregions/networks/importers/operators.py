"""The operator table: every framework operator polyregions reads, as exact operations of a graph network.

One table serves every route in: ``torch.export`` and TorchScript graphs name ATen operators (``linear``,
``conv2d``, ``max_pool2d``, ``view``, ``add``...) with ATen's argument order, and the ONNX reader translates its
nodes into calls of the same entries. An entry takes the builder, the positional arguments and the keyword
arguments of one call, and returns the call's value: a :class:`~._builder.Symbolic` tensor (nodes appended to the
graph), a constant (a shape computation or arithmetic on parameters, folded exactly), or a tuple of them.
Adding an operator is one entry here.

Every tensor axis is counted as the frameworks count it, batch axis first; an operator that mixes inputs of a
batch (an axis-0 reduction, a reshape across the batch) is refused. Parameters are taken at their exact binary
values; the one rounding is a batch normalisation's scale ``weight / sqrt(running_var + eps)``, computed in
binary64 (three correctly rounded operations), as PyTorch computes it in double precision.
"""

from __future__ import annotations

import math
import operator as _operator
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from polyregions.networks import operations as ops
from polyregions.networks.activations import hardtanh, leaky_relu, piecewise_linear, relu
from polyregions.networks.importers._builder import (
    GraphBuilder,
    Indices,
    Symbolic,
    Unsupported,
    batchless_axis,
    constant_array,
    exact_array,
    is_symbolic,
    resolve_shape,
)

__all__ = ["OPERATORS", "call", "supported_operators", "max_of_tensors", "extremum_of_tensors", "max_over_axis",
           "batch_norm_op"]

Handler = Callable[[GraphBuilder, Sequence[Any], dict[str, Any]], Any]

#: ATen operator name (without namespace, overload or in-place underscore) -> entry.
OPERATORS: dict[str, Handler] = {}

_REQUIRED = object()


def _entry(*names: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in names:
            OPERATORS[name] = handler
        return handler
    return register


def supported_operators() -> list[str]:
    """The operator names of the table, sorted."""
    return sorted(OPERATORS)


def call(builder: GraphBuilder, name: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> Any:
    """Apply the entry ``name`` (an ATen name; a trailing ``_`` of an in-place variant is dropped)."""
    key = name[:-1] if name.endswith("_") and not name.startswith("_") else name
    handler = OPERATORS.get(key)
    if handler is None:
        public = (n for n in supported_operators() if not n.startswith("_"))
        raise Unsupported(f"expected one of the operators {', '.join(public)}, got {name}")
    return handler(builder, list(args), dict(kwargs or {}))


def _params(args: Sequence[Any], kwargs: dict[str, Any], *spec: tuple[str, Any]) -> list[Any]:
    """The arguments of ``spec`` (name, default) from positions, then keywords, then defaults."""
    values = []
    for i, (name, default) in enumerate(spec):
        if i < len(args):
            values.append(args[i])
        elif name in kwargs:
            values.append(kwargs[name])
        elif default is _REQUIRED:
            raise Unsupported(f"{name}: expected a value, got none")
        else:
            values.append(default)
    return values


def _symbolic(value: Any, what: str) -> Symbolic:
    if not is_symbolic(value):
        raise Unsupported(f"{what}: expected a tensor computed from the input, got a constant")
    return value


def _ints(value: Any, count: int, what: str) -> tuple[int, ...]:
    """``count`` integers from an integer or a list (one entry stands for all)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * count
    try:
        values = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise Unsupported(f"{what}: expected integers, got {value!r}") from None
    if len(values) == 1:
        return values * count
    if len(values) != count:
        raise Unsupported(f"{what}: expected {count} integers, got {list(values)}")
    return values


def _fractions(array: np.ndarray) -> list[Fraction]:
    return [v if isinstance(v, Fraction) else Fraction(v) for v in np.asarray(array).reshape(-1).tolist()]


# --- dense maps ---------------------------------------------------------------------------------------------

def _dense(b: GraphBuilder, x: Any, weight: np.ndarray, bias: Any, what: str) -> Any:
    """``x @ weight.T + bias`` on the last axis; ``weight`` of shape (out, in)."""
    if not is_symbolic(x):
        return np.asarray(exact_array(constant_array(x, what))) @ exact_array(weight).T + \
            (0 if bias is None else exact_array(bias))
    if x.rank != 2:
        raise Unsupported(f"{what}: expected an input of shape [batch, features], got shape {list(x.shape)}: "
                          f"flatten before a linear layer")
    if weight.ndim != 2:
        raise Unsupported(f"{what}: weight: expected a matrix, got shape {list(weight.shape)}")
    rows = weight.shape[0]
    if bias is None:
        bias_values = [Fraction(0)] * rows
    else:
        bias_array = constant_array(bias, f"{what}: bias")
        if bias_array.size not in (1, rows):
            raise Unsupported(f"{what}: bias: expected {rows} numbers, got shape {list(bias_array.shape)}")
        bias_values = _fractions(np.broadcast_to(bias_array.reshape(-1), (rows,)))
    return b.add(ops.Dense(weight if weight.dtype != object else weight.tolist(), bias_values), [x], what)


@_entry("linear")
def _linear(b, args, kw):
    x, weight, bias = _params(args, kw, ("input", _REQUIRED), ("weight", _REQUIRED), ("bias", None))
    return _dense(b, x, constant_array(weight, "linear: weight"), bias, "linear")


@_entry("addmm")
def _addmm(b, args, kw):
    bias, x, mat, beta, alpha = _params(args, kw, ("self", _REQUIRED), ("mat1", _REQUIRED), ("mat2", _REQUIRED),
                                        ("beta", 1), ("alpha", 1))
    weight = exact_array(constant_array(mat, "addmm: mat2")).T * Fraction(alpha)
    return _dense(b, x, weight, exact_array(constant_array(bias, "addmm: self")) * Fraction(beta), "addmm")


@_entry("mm", "matmul")
def _mm(b, args, kw):
    x, mat = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED))
    if not is_symbolic(x) and not is_symbolic(mat):
        return exact_array(constant_array(x, "matmul: self")) @ exact_array(constant_array(mat, "matmul: other"))
    matrix = constant_array(mat, "matmul: other (the matrix a tensor computed from the input is multiplied by)")
    if matrix.ndim != 2:
        raise Unsupported(f"matmul: other: expected a matrix, got shape {list(matrix.shape)}")
    return _dense(b, x, matrix.T, None, "matmul")


# --- convolution and pooling --------------------------------------------------------------------------------

def _padded(b: GraphBuilder, x: Symbolic, pads: Sequence[tuple[int, int]], what: str) -> tuple[Symbolic,
                                                                                               tuple[int, ...]]:
    """Symmetric spatial padding as a tuple for the convolution itself; any other padding as a Pad node."""
    if all(a == c for a, c in pads):
        return x, tuple(a for a, _ in pads)
    full = ((0, 0),) + tuple(pads)
    return b.add(ops.Pad(full), [x], f"{what}_pad"), (0,) * len(pads)


def _conv(b: GraphBuilder, x: Any, weight: Any, bias: Any, stride: Any, padding: Any, dilation: Any, groups: Any,
          what: str) -> Symbolic:
    x = _symbolic(x, f"{what}: input")
    kernel = constant_array(weight, f"{what}: weight")
    axes = kernel.ndim - 2
    if axes not in (1, 2) or x.rank != axes + 2:
        raise Unsupported(f"{what}: expected a 1-D or 2-D convolution of a [batch, channels, sizes...] input, got "
                          f"weight shape {list(kernel.shape)} and input shape {list(x.shape)}")
    dilation = _ints(dilation, axes, f"{what}: dilation")
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * axes
        elif padding == "same":
            totals = [d * (k - 1) for d, k in zip(dilation, kernel.shape[2:])]
            pads = [(t // 2, t - t // 2) for t in totals]
        else:
            raise Unsupported(f"{what}: padding: expected 'same', 'valid' or integers, got {padding!r}")
    else:
        pads = [(p, p) for p in _ints(padding, axes, f"{what}: padding")]
    x, symmetric = _padded(b, x, pads, what)
    bias_values = (0,) * kernel.shape[0] if bias is None else constant_array(bias, f"{what}: bias").reshape(-1)
    op = ops.Conv(kernel if kernel.dtype != object else kernel.tolist(), bias_values,
                  stride=_ints(stride, axes, f"{what}: stride"), padding=symmetric, dilation=dilation,
                  groups=int(groups))
    return b.add(op, [x], what)


@_entry("conv1d", "conv2d", "_convolution_mode")
def _conv_nd(b, args, kw):
    x, weight, bias, stride, padding, dilation, groups = _params(
        args, kw, ("input", _REQUIRED), ("weight", _REQUIRED), ("bias", None), ("stride", 1), ("padding", 0),
        ("dilation", 1), ("groups", 1))
    return _conv(b, x, weight, bias, stride, padding, dilation, groups, "conv")


@_entry("convolution", "_convolution")
def _convolution(b, args, kw):
    x, weight, bias, stride, padding, dilation, transposed, _, groups = _params(
        args, kw, ("input", _REQUIRED), ("weight", _REQUIRED), ("bias", None), ("stride", 1), ("padding", 0),
        ("dilation", 1), ("transposed", False), ("output_padding", 0), ("groups", 1))
    if transposed:
        raise Unsupported("convolution: transposed: expected an ordinary convolution, got a transposed one")
    return _conv(b, x, weight, bias, stride, padding, dilation, groups, "conv")


def _window(x: Symbolic, kernel: Any, stride: Any, padding: Any, ceil_mode: Any, what: str
            ) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    axes = x.rank - 2
    if axes not in (1, 2):
        raise Unsupported(f"{what}: expected a [batch, channels, sizes...] input with 1 or 2 spatial axes, got "
                          f"shape {list(x.shape)}")
    kernel = _ints(kernel, axes, f"{what}: kernel_size")
    stride = kernel if stride is None or (hasattr(stride, "__len__") and len(stride) == 0) else \
        _ints(stride, axes, f"{what}: stride")
    padding = _ints(padding, axes, f"{what}: padding")
    if ceil_mode:
        for n, k, s, p in zip(x.shape[2:], kernel, stride, padding):
            if (n + 2 * p - k) % s:
                raise Unsupported(f"{what}: ceil_mode: expected False (or windows that fit exactly), got True with "
                                  f"a partial last window")
    return kernel, stride, padding


@_entry("max_pool1d", "max_pool2d")
def _max_pool(b, args, kw):
    x, kernel, stride, padding, dilation, ceil_mode = _params(
        args, kw, ("self", _REQUIRED), ("kernel_size", _REQUIRED), ("stride", None), ("padding", 0),
        ("dilation", 1), ("ceil_mode", False))
    x = _symbolic(x, "max_pool: input")
    kernel, stride, padding = _window(x, kernel, stride, padding, ceil_mode, "max_pool")
    if any(d != 1 for d in _ints(dilation, len(kernel), "max_pool: dilation")):
        raise Unsupported(f"max_pool: dilation: expected 1, got {dilation!r}")
    return b.add(ops.MaxPool(kernel, stride, padding), [x], "max_pool")


@_entry("max_pool1d_with_indices", "max_pool2d_with_indices")
def _max_pool_with_indices(b, args, kw):
    return _max_pool(b, args, kw), Indices()


@_entry("avg_pool1d", "avg_pool2d")
def _avg_pool(b, args, kw):
    x, kernel, stride, padding, ceil_mode, count_include_pad, divisor = _params(
        args, kw, ("self", _REQUIRED), ("kernel_size", _REQUIRED), ("stride", None), ("padding", 0),
        ("ceil_mode", False), ("count_include_pad", True), ("divisor_override", None))
    x = _symbolic(x, "avg_pool: input")
    kernel, stride, padding = _window(x, kernel, stride, padding, ceil_mode, "avg_pool")
    if divisor is not None:
        raise Unsupported(f"avg_pool: divisor_override: expected None, got {divisor!r}")
    if any(padding) and not count_include_pad:
        raise Unsupported("avg_pool: count_include_pad: expected True when padding (the divisor is then the "
                          "window's size), got False")
    return b.add(ops.AvgPool(kernel, stride, padding), [x], "avg_pool")


@_entry("adaptive_avg_pool1d", "adaptive_avg_pool2d", "_adaptive_avg_pool2d")
def _adaptive_avg_pool(b, args, kw):
    x, size = _params(args, kw, ("self", _REQUIRED), ("output_size", _REQUIRED))
    x = _symbolic(x, "adaptive_avg_pool: input")
    spatial = x.shape[2:]
    out = _ints(size, len(spatial), "adaptive_avg_pool: output_size")
    if any(n % o for n, o in zip(spatial, out)):
        raise Unsupported(f"adaptive_avg_pool: output_size: expected sizes dividing the input's {list(spatial)}, "
                          f"got {list(out)}")
    kernel = tuple(n // o for n, o in zip(spatial, out))
    return b.add(ops.AvgPool(kernel, kernel), [x], "avg_pool")


@_entry("mean")
def _mean(b, args, kw):
    x, dims, keepdim = _params(args, kw, ("self", _REQUIRED), ("dim", None), ("keepdim", False))
    if not is_symbolic(x):
        array = exact_array(constant_array(x, "mean: self"))
        return array.mean(axis=None if dims is None else tuple(dims), keepdims=bool(keepdim))
    axes = sorted({batchless_axis(x, d, "mean: dim") for d in _ints(dims, len(dims), "mean: dim")}) \
        if dims is not None else []
    spatial = list(range(1, x.rank - 1))
    if axes != spatial or x.rank not in (3, 4):
        raise Unsupported(f"mean: dim: expected every spatial axis of a [batch, channels, sizes...] input (global "
                          f"average pooling), got {dims!r} on shape {list(x.shape)}")
    pooled = b.add(ops.AvgPool(x.shape[2:], x.shape[2:]), [x], "mean")
    return pooled if keepdim else b.reshape(pooled, (x.shape[1],), "mean_squeeze")


def _checked_batch_norm(b: GraphBuilder, x: Any, weight: Any, bias: Any, mean: Any, var: Any, training: Any,
                       eps: Any) -> Symbolic:
    if training:
        raise Unsupported("batch_norm: training: expected eval mode (call model.eval() first): in training mode a "
                          "batch normalisation uses batch statistics, which is not a fixed function")
    if mean is None or var is None:
        raise Unsupported("batch_norm: expected running statistics (track_running_stats=True), got none")
    return b.add(batch_norm_op(weight, bias, mean, var, eps, "batch_norm"), [_symbolic(x, "batch_norm: input")],
                 "batch_norm")


_BATCH_NORM = (("input", _REQUIRED), ("weight", None), ("bias", None), ("running_mean", None), ("running_var", None))


@_entry("batch_norm")
def _batch_norm(b, args, kw):
    x, weight, bias, mean, var, training, _, eps = _params(args, kw, *_BATCH_NORM, ("training", False),
                                                           ("momentum", 0.1), ("eps", 1e-5))
    return _checked_batch_norm(b, x, weight, bias, mean, var, training, eps)


@_entry("native_batch_norm", "_native_batch_norm_legit")
def _native_batch_norm(b, args, kw):
    return _batch_norm(b, args, kw), None, None


@_entry("_native_batch_norm_legit_no_training")
def _batch_norm_no_training(b, args, kw):
    x, weight, bias, mean, var, _, eps = _params(args, kw, *_BATCH_NORM, ("momentum", 0.1), ("eps", 1e-5))
    return _checked_batch_norm(b, x, weight, bias, mean, var, False, eps), None, None


def batch_norm_op(weight: Any, bias: Any, mean: Any, var: Any, eps: Any, what: str) -> ops.BatchNorm:
    """The folded batch normalisation ``scale * (x - mean) + bias`` with ``scale = weight / sqrt(var + eps)``
    rounded once in binary64 (the sum, the square root and the quotient each correctly rounded)."""
    mean = constant_array(mean, f"{what}: running_mean").astype(np.float64).reshape(-1)
    var = constant_array(var, f"{what}: running_var").astype(np.float64).reshape(-1)
    k = mean.shape[0]
    gamma = np.ones(k) if weight is None else constant_array(weight, f"{what}: weight").astype(np.float64).reshape(-1)
    beta = np.zeros(k) if bias is None else constant_array(bias, f"{what}: bias").astype(np.float64).reshape(-1)
    eps = float(eps)
    if not math.isfinite(eps):
        raise Unsupported(f"{what}: eps: expected a finite number, got {eps}")
    if len(var) != k or len(gamma) != k or len(beta) != k:
        raise Unsupported(f"{what}: expected {k} statistics and parameters per channel, got {len(var)}, "
                          f"{len(gamma)} and {len(beta)}")
    if np.any(var + eps <= 0):
        raise Unsupported(f"{what}: running_var: expected running_var + eps > 0, got {(var + eps).min()}")
    scale = gamma / np.sqrt(var + np.float64(eps))  # the only rounding, in binary64
    scales = [Fraction(float(s)) for s in scale]
    shifts = [Fraction(float(t)) - s * Fraction(float(u)) for s, t, u in zip(scales, beta, mean)]
    return ops.BatchNorm(tuple(scales), tuple(shifts))


# --- activations --------------------------------------------------------------------------------------------

def _activation(b: GraphBuilder, x: Any, activation: Any, what: str) -> Any:
    if not is_symbolic(x):
        array = exact_array(constant_array(x, f"{what}: input"))
        return np.vectorize(activation, otypes=[object])(array) if array.size else array
    return b.add(ops.Activation(activation), [x], what)


@_entry("relu")
def _relu(b, args, kw):
    return _activation(b, _params(args, kw, ("self", _REQUIRED))[0], relu(), "relu")


@_entry("leaky_relu")
def _leaky_relu(b, args, kw):
    x, slope = _params(args, kw, ("self", _REQUIRED), ("negative_slope", 0.01))
    slope = _number(slope, "leaky_relu: negative_slope")
    return _activation(b, x, leaky_relu(slope, what="leaky_relu: negative_slope"), "leaky_relu")


@_entry("hardtanh")
def _hardtanh(b, args, kw):
    x, low, high = _params(args, kw, ("self", _REQUIRED), ("min_val", -1.0), ("max_val", 1.0))
    activation = hardtanh(min_val=_number(low, "hardtanh: min_val"), max_val=_number(high, "hardtanh: max_val"),
                          what="hardtanh")
    return _activation(b, x, activation, "hardtanh")


@_entry("relu6")
def _relu6(b, args, kw):
    return _activation(b, _params(args, kw, ("self", _REQUIRED))[0], ops.relu6(), "relu6")


def _clamp_activation(low: Any, high: Any, what: str) -> Any:
    low = None if low is None else _number(low, f"{what}: min")
    high = None if high is None else _number(high, f"{what}: max")
    if low is not None and high is not None:
        return hardtanh(min_val=low, max_val=high, what=what)
    if low is not None:
        return piecewise_linear([low], [0, 1], low)  # max(t, low)
    if high is not None:
        return piecewise_linear([high], [1, 0], 0)  # min(t, high)
    raise Unsupported(f"{what}: expected a min or a max, got neither")


def _number(value: Any, what: str) -> Fraction:
    """One constant number at its exact value (a Python float is the binary64 number the framework holds)."""
    return Fraction(_scalar(value, what))


def _scalar(value: Any, what: str) -> Any:
    array = constant_array(value, what)
    flat = array.reshape(-1).tolist()  # Python numbers: a numpy integer inside a Fraction overflows
    if not flat or any(v != flat[0] for v in flat):
        raise Unsupported(f"{what}: expected one number, got shape {list(array.shape)}")
    return flat[0]


@_entry("clamp", "clip")
def _clamp(b, args, kw):
    x, low, high = _params(args, kw, ("self", _REQUIRED), ("min", None), ("max", None))
    return _activation(b, x, _clamp_activation(low, high, "clamp"), "clamp")


@_entry("clamp_min")
def _clamp_min(b, args, kw):
    x, low = _params(args, kw, ("self", _REQUIRED), ("min", _REQUIRED))
    return _activation(b, x, _clamp_activation(low, None, "clamp_min"), "clamp_min")


@_entry("clamp_max")
def _clamp_max(b, args, kw):
    x, high = _params(args, kw, ("self", _REQUIRED), ("max", _REQUIRED))
    return _activation(b, x, _clamp_activation(None, high, "clamp_max"), "clamp_max")


@_entry("prelu", "_prelu_kernel")
def _prelu(b, args, kw):
    x, weight = _params(args, kw, ("self", _REQUIRED), ("weight", _REQUIRED))
    slopes = _fractions(constant_array(weight, "prelu: weight"))
    return b.add(ops.PReLU(tuple(slopes)), [_symbolic(x, "prelu: input")], "prelu")


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
    return _fractions(full[0])


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


def _times(b: GraphBuilder, x: Any, factor: Fraction, what: str) -> Any:
    """``factor * x`` for a constant or a tensor computed from the input."""
    if not is_symbolic(x):
        array = constant_array(x, what)
        if array.dtype.kind in "iu" and factor.denominator == 1:  # shape arithmetic stays in integers
            return _fold(_operator.mul, array, int(factor), what)
        return exact_array(array) * factor
    return _scale(b, x, np.array(factor, dtype=object), None, what)


def _add(b: GraphBuilder, left: Any, right: Any, alpha: Any, subtract: bool, what: str) -> Any:
    """``left + alpha * right`` (``left - alpha * right`` when ``subtract``), as ATen's add and sub."""
    factor = _number(alpha, f"{what}: alpha") * (-1 if subtract else 1)
    if factor != 1:
        right = _times(b, right, factor, what)
    if not is_symbolic(left) and not is_symbolic(right):
        return _fold(_operator.add, left, right, what)
    if is_symbolic(left) and is_symbolic(right):
        if left.shape != right.shape:
            raise Unsupported(f"{what}: expected two tensors of one shape, got {list(left.shape)} and "
                              f"{list(right.shape)}")
        return b.add(ops.Add(), [left, right], what)
    x, constant = (left, right) if is_symbolic(left) else (right, left)
    return _scale(b, x, None, constant, what)


@_entry("add")
def _add_entry(b, args, kw):
    left, right, alpha = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED), ("alpha", 1))
    return _add(b, left, right, alpha, False, "add")


@_entry("sub")
def _sub_entry(b, args, kw):
    left, right, alpha = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED), ("alpha", 1))
    return _add(b, left, right, alpha, True, "sub")


@_entry("rsub")
def _rsub_entry(b, args, kw):
    left, right, alpha = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED), ("alpha", 1))
    return _add(b, right, left, alpha, True, "rsub")


@_entry("neg")
def _neg(b, args, kw):
    return _times(b, _params(args, kw, ("self", _REQUIRED))[0], Fraction(-1), "neg")


@_entry("mul")
def _mul(b, args, kw):
    left, right = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED))
    if not is_symbolic(left) and not is_symbolic(right):
        return _fold(_operator.mul, left, right, "mul")
    if is_symbolic(left) and is_symbolic(right):
        raise Unsupported("mul: expected a constant factor, got the product of two tensors computed from the "
                          "input (not piecewise linear)")
    x, constant = (left, right) if is_symbolic(left) else (right, left)
    return _scale(b, x, constant, None, "mul")


@_entry("div")
def _div(b, args, kw):
    left, right, rounding = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED), ("rounding_mode", None))
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


@_entry("floor_divide")
def _floor_divide(b, args, kw):
    left, right = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED))
    return _fold(_operator.floordiv, left, right, "floor_divide")


@_entry("remainder")
def _remainder(b, args, kw):
    left, right = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED))
    return _fold(_operator.mod, left, right, "remainder")  # the sign of the divisor, as Python's %


@_entry("fmod")
def _fmod(b, args, kw):
    left, right = _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED))
    return _fold(lambda a, c: a - _truncated(a, c) * c, left, right, "fmod")  # the sign of the dividend


# --- maxima ---------------------------------------------------------------------------------------------------

def max_over_axis(b: GraphBuilder, x: Symbolic, axis: int, keepdim: bool, what: str) -> Symbolic:
    """The maximum over one axis of the graph's tensors (no batch axis) by maxout over consecutive groups."""
    shape = x.shape[1:]
    k = shape[axis]
    rest = shape[:axis] + shape[axis + 1:]
    kept = shape[:axis] + (1,) + shape[axis + 1:]
    if k > 1:
        if axis != len(shape) - 1:
            order = tuple(i for i in range(len(shape)) if i != axis) + (axis,)
            x = b.add(ops.Permute(order), [x], f"{what}_order")
        x = b.reshape(x, (math.prod(shape),), f"{what}_groups")
        x = b.add(ops.Maxout(k), [x], what)
    return b.reshape(x, kept if keepdim else rest, f"{what}_shape")


def max_of_tensors(b: GraphBuilder, tensors: Sequence[Any], what: str) -> Any:
    """The entry-wise maximum of tensors of one shape (a constant scalar among them is a breakpoint)."""
    symbolic = [t for t in tensors if is_symbolic(t)]
    constants = [t for t in tensors if not is_symbolic(t)]
    if not symbolic:
        arrays = [exact_array(constant_array(t, what)) for t in constants]
        return np.maximum.reduce(np.broadcast_arrays(*arrays))
    shape = symbolic[0].shape
    if any(t.shape != shape for t in symbolic):
        raise Unsupported(f"{what}: expected tensors of one shape, got {[list(t.shape) for t in symbolic]}")
    if len(symbolic) == 1:
        result = symbolic[0]
    else:
        size = math.prod(shape[1:])
        rows = [b.reshape(t, (1, size), f"{what}_row") for t in symbolic]
        stacked = b.add(ops.Concat(0), rows, f"{what}_stack")
        columns = b.add(ops.Permute((1, 0)), [stacked], f"{what}_columns")
        grouped = b.reshape(columns, (size * len(rows),), f"{what}_groups")
        result = b.reshape(b.add(ops.Maxout(len(rows)), [grouped], what), shape[1:], f"{what}_shape")
    if constants:
        floor = max(Fraction(_scalar(c, f"{what}: the constant")) for c in constants)
        result = b.add(ops.Activation(piecewise_linear([floor], [0, 1], floor)), [result], f"{what}_floor")
    return result


def _negate_all(b: GraphBuilder, x: Any, what: str) -> Any:
    return _times(b, x, Fraction(-1), what)


def _reduce(b: GraphBuilder, args: Sequence[Any], kw: dict[str, Any], minimum: bool, with_indices: bool,
            what: str) -> Any:
    x, dims, keepdim = _params(args, kw, ("self", _REQUIRED), ("dim", None), ("keepdim", False))
    if isinstance(dims, Symbolic):  # max(a, b): two tensors
        return extremum_of_tensors(b, [x, dims], minimum, what)
    if not is_symbolic(x):
        array = exact_array(constant_array(x, what))
        axis = None if dims is None or (hasattr(dims, "__len__") and not len(dims)) else \
            tuple(_ints(dims, len(dims), what)) if hasattr(dims, "__len__") else int(dims)
        reduced = (np.min if minimum else np.max)(array, axis=axis, keepdims=bool(keepdim))
        return (reduced, Indices()) if with_indices else reduced
    if dims is None or (hasattr(dims, "__len__") and len(dims) == 0):
        raise Unsupported(f"{what}: dim: expected the axes to reduce (after the batch axis), got all axes")
    axes = sorted({batchless_axis(x, d, f"{what}: dim") for d in (dims if hasattr(dims, "__len__") else [dims])},
                  reverse=True)
    result = _negate_all(b, x, f"{what}_neg") if minimum else x
    for axis in axes:
        result = max_over_axis(b, result, axis, bool(keepdim), what)
    if minimum:
        result = _negate_all(b, result, f"{what}_neg")
    return (result, Indices()) if with_indices else result


def extremum_of_tensors(b: GraphBuilder, tensors: Sequence[Any], minimum: bool, what: str) -> Any:
    """The entry-wise maximum (or minimum: ``-max(-t)``) of tensors of one shape."""
    if not minimum:
        return max_of_tensors(b, tensors, what)
    negated = [_negate_all(b, t, f"{what}_neg") for t in tensors]
    return _negate_all(b, max_of_tensors(b, negated, what), f"{what}_neg")


def _reduces_with_indices(args: Sequence[Any], kw: dict[str, Any]) -> bool:
    """``max(x, dim)`` returns values and indices; ``max(x)`` one number, ``max(x, other)`` a tensor."""
    dim = kw.get("dim", args[1] if len(args) > 1 else None)
    return isinstance(dim, (int, np.integer)) and not isinstance(dim, bool)


@_entry("max")
def _max(b, args, kw):
    return _reduce(b, args, kw, False, _reduces_with_indices(args, kw), "max")


@_entry("min")
def _min(b, args, kw):
    return _reduce(b, args, kw, True, _reduces_with_indices(args, kw), "min")


@_entry("amax")
def _amax(b, args, kw):
    return _reduce(b, args, kw, False, False, "amax")


@_entry("amin")
def _amin(b, args, kw):
    return _reduce(b, args, kw, True, False, "amin")


@_entry("maximum", "fmax")
def _maximum(b, args, kw):
    return extremum_of_tensors(b, _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED)), False, "maximum")


@_entry("minimum", "fmin")
def _minimum(b, args, kw):
    return extremum_of_tensors(b, _params(args, kw, ("self", _REQUIRED), ("other", _REQUIRED)), True, "minimum")


# --- shapes ---------------------------------------------------------------------------------------------------

@_entry("view", "reshape", "_unsafe_view", "_reshape_alias")
def _view(b, args, kw):
    x, shape = _params(args, kw, ("self", _REQUIRED), ("size", _REQUIRED))
    if not is_symbolic(x):
        return constant_array(x, "view").reshape(tuple(int(v) for v in _shape_list(shape)))
    target = resolve_shape(_shape_list(shape), math.prod(x.shape), "view: size")
    if target[:1] != (x.shape[0],) or x.shape[0] == 1 and len(target) and target[0] != 1:
        raise Unsupported(f"view: size: expected the batch axis first ({x.shape[0]}), got {list(target)}")
    return b.reshape(x, target[1:], "view")


def _shape_list(shape: Any) -> list[Any]:
    if isinstance(shape, np.ndarray):
        return shape.reshape(-1).tolist()
    if isinstance(shape, (int, np.integer)):
        return [int(shape)]
    return [v.item() if isinstance(v, np.ndarray) else v for v in shape]


@_entry("flatten")
def _flatten(b, args, kw):
    x, start, end = _params(args, kw, ("self", _REQUIRED), ("start_dim", 0), ("end_dim", -1))
    if not is_symbolic(x):
        array = constant_array(x, "flatten")
        s, e = start % max(array.ndim, 1), end % max(array.ndim, 1)
        return array.reshape(array.shape[:s] + (-1,) + array.shape[e + 1:]) if array.ndim else array.reshape(1)
    s = batchless_axis(x, start, "flatten: start_dim")
    e = batchless_axis(x, end, "flatten: end_dim")
    shape = x.shape[1:]
    return b.reshape(x, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:], "flatten")


@_entry("unflatten")
def _unflatten(b, args, kw):
    x, dim, sizes = _params(args, kw, ("self", _REQUIRED), ("dim", _REQUIRED), ("sizes", _REQUIRED))
    x = _symbolic(x, "unflatten: input")
    a = batchless_axis(x, dim, "unflatten: dim")
    shape = x.shape[1:]
    sizes = resolve_shape(_shape_list(sizes), shape[a], "unflatten: sizes")
    return b.reshape(x, shape[:a] + sizes + shape[a + 1:], "unflatten")


@_entry("squeeze")
def _squeeze(b, args, kw):
    x, dims = _params(args, kw, ("self", _REQUIRED), ("dim", None))
    if not is_symbolic(x):
        array = constant_array(x, "squeeze")
        return array.squeeze() if dims is None else array.squeeze(axis=tuple(_shape_list(dims)))
    shape = list(x.shape[1:])
    axes = range(len(shape)) if dims is None else [batchless_axis(x, d, "squeeze: dim") for d in _shape_list(dims)]
    keep = [n for i, n in enumerate(shape) if not (i in set(axes) and n == 1)]
    return b.reshape(x, keep, "squeeze")


@_entry("unsqueeze")
def _unsqueeze(b, args, kw):
    x, dim = _params(args, kw, ("self", _REQUIRED), ("dim", _REQUIRED))
    if not is_symbolic(x):
        return np.expand_dims(constant_array(x, "unsqueeze"), int(dim))
    a = int(dim) + x.rank + 1 if dim < 0 else int(dim)
    if a < 1:
        raise Unsupported(f"unsqueeze: dim: expected an axis after the batch axis, got {dim}")
    shape = list(x.shape[1:])
    return b.reshape(x, shape[:a - 1] + [1] + shape[a - 1:], "unsqueeze")


@_entry("permute")
def _permute(b, args, kw):
    x, dims = _params(args, kw, ("self", _REQUIRED), ("dims", _REQUIRED))
    if not is_symbolic(x):
        return np.transpose(constant_array(x, "permute"), tuple(int(d) for d in _shape_list(dims)))
    order = [int(d) % x.rank for d in _shape_list(dims)]
    if order[:1] != [0]:
        raise Unsupported(f"permute: dims: expected the batch axis to stay first, got {order}")
    axes = tuple(d - 1 for d in order[1:])
    return x if axes == tuple(range(len(axes))) else b.add(ops.Permute(axes), [x], "permute")


@_entry("transpose")
def _transpose(b, args, kw):
    x, d0, d1 = _params(args, kw, ("self", _REQUIRED), ("dim0", _REQUIRED), ("dim1", _REQUIRED))
    rank = x.rank if is_symbolic(x) else constant_array(x, "transpose").ndim
    order = list(range(rank))
    order[int(d0) % rank], order[int(d1) % rank] = order[int(d1) % rank], order[int(d0) % rank]
    return _permute(b, [x, order], {})


@_entry("t", "numpy_T")
def _t(b, args, kw):
    x = args[0]
    if is_symbolic(x):
        raise Unsupported("t: expected a constant matrix, got a tensor computed from the input (its batch axis "
                          "would move)")
    return constant_array(x, "t").T


@_entry("cat", "concat", "concatenate")
def _cat(b, args, kw):
    tensors, dim = _params(args, kw, ("tensors", _REQUIRED), ("dim", 0))
    tensors = list(tensors)
    if not any(is_symbolic(t) for t in tensors):
        return np.concatenate([constant_array(t, "cat") for t in tensors], axis=int(dim))
    if not all(is_symbolic(t) for t in tensors):
        raise Unsupported("cat: tensors: expected tensors computed from the input, got constants among them")
    axis = batchless_axis(tensors[0], dim, "cat: dim")
    return b.add(ops.Concat(axis), tensors, "cat")


@_entry("constant_pad_nd", "pad")
def _pad(b, args, kw):
    x, pad, mode, value = _params(args, kw, ("self", _REQUIRED), ("pad", _REQUIRED), ("mode", "constant"),
                                  ("value", 0))
    if isinstance(mode, (int, float)) and not isinstance(mode, bool):  # constant_pad_nd(self, pad, value)
        mode, value = "constant", mode
    if mode != "constant":
        raise Unsupported(f"pad: mode: expected 'constant', got {mode!r}")
    x = _symbolic(x, "pad: input")
    pads = [int(p) for p in _shape_list(pad)]
    if len(pads) % 2 or len(pads) // 2 > x.rank - 1:
        raise Unsupported(f"pad: pad: expected (before, after) pairs for axes after the batch axis, got {pads}")
    pairs = [(0, 0)] * (x.rank - 1)
    for i in range(len(pads) // 2):  # the last axis first
        pairs[x.rank - 2 - i] = (pads[2 * i], pads[2 * i + 1])
    if any(p < 0 for pair in pairs for p in pair):
        raise Unsupported(f"pad: pad: expected non-negative padding, got {pads}")
    if not any(p for pair in pairs for p in pair):
        return x
    return b.add(ops.Pad(tuple(pairs), _number(0 if value is None else value, "pad: value")), [x], "pad")


def _identity(b, args, kw):
    return args[0] if args else next(iter(kw.values()))


for _name in ("contiguous", "clone", "alias", "detach", "lift_fresh_copy", "_to_copy", "to", "type_as",
              "positive", "copy"):
    OPERATORS[_name] = _identity


@_entry("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "native_dropout")
def _dropout(b, args, kw):
    x, p, train = _params(args, kw, ("input", _REQUIRED), ("p", 0.5), ("train", False))
    if train and p:
        raise Unsupported("dropout: train: expected eval mode (call model.eval() first): in training mode dropout "
                          "zeroes random units")
    return x


@_entry("size", "sym_size")
def _size(b, args, kw):
    x, dim = _params(args, kw, ("self", _REQUIRED), ("dim", None))
    shape = x.shape if is_symbolic(x) else constant_array(x, "size").shape
    return list(shape) if dim is None else int(shape[int(dim)])


@_entry("numel", "sym_numel")
def _numel(b, args, kw):
    x = args[0]
    return math.prod(x.shape) if is_symbolic(x) else int(constant_array(x, "numel").size)


@_entry("dim")
def _dim(b, args, kw):
    x = args[0]
    return x.rank if is_symbolic(x) else constant_array(x, "dim").ndim


@_entry("getitem")
def _getitem(b, args, kw):
    container, index = args
    return container[index]


# --- selections ---------------------------------------------------------------------------------------------

def _take(b: GraphBuilder, x: Any, dim: Any, indices: Sequence[int], what: str) -> Any:
    """The entries at ``indices`` along the framework axis ``dim`` (the whole batch axis passes through)."""
    if not is_symbolic(x):
        array = constant_array(x, what)
        return np.take(array, list(indices), axis=int(dim))
    axis = int(dim) + x.rank if int(dim) < 0 else int(dim)
    if axis == 0 and list(indices) == list(range(x.shape[0])):
        return x
    axis = batchless_axis(x, dim, f"{what}: dim")
    if list(indices) == list(range(x.shape[axis + 1])):
        return x
    return b.add(ops.Take(axis, tuple(indices)), [x], what)


def _size_along(x: Any, dim: Any, what: str) -> int:
    shape = x.shape if is_symbolic(x) else constant_array(x, what).shape
    return int(shape[int(dim)])


@_entry("slice")
def _slice(b, args, kw):
    x, dim, start, end, step = _params(args, kw, ("self", _REQUIRED), ("dim", 0), ("start", None), ("end", None),
                                       ("step", 1))
    if int(step) < 1:
        raise Unsupported(f"slice: step: expected a positive step, got {step}")
    size = _size_along(x, dim, "slice")
    return _take(b, x, dim, range(size)[slice(start, end, int(step))], "slice")


@_entry("select")
def _select(b, args, kw):
    x, dim, index = _params(args, kw, ("self", _REQUIRED), ("dim", _REQUIRED), ("index", _REQUIRED))
    size = _size_along(x, dim, "select")
    index = int(index)
    if not -size <= index < size:
        raise Unsupported(f"select: index: expected an index below {size}, got {index}")
    taken = _take(b, x, dim, [index % size], "select")
    return _squeeze(b, [taken, [dim]], {})


@_entry("narrow")
def _narrow(b, args, kw):
    x, dim, start, length = _params(args, kw, ("self", _REQUIRED), ("dim", _REQUIRED), ("start", _REQUIRED),
                                    ("length", _REQUIRED))
    size = _size_along(x, dim, "narrow")
    first = int(start) % size if size else 0
    return _take(b, x, dim, range(first, first + int(length)), "narrow")


@_entry("index_select")
def _index_select(b, args, kw):
    x, dim, index = _params(args, kw, ("self", _REQUIRED), ("dim", _REQUIRED), ("index", _REQUIRED))
    size = _size_along(x, dim, "index_select")
    indices = [int(i) % size for i in constant_array(index, "index_select: index").reshape(-1).tolist()]
    return _take(b, x, dim, indices, "index_select")


def _pieces(b: GraphBuilder, x: Any, sizes: Sequence[int], dim: Any, what: str) -> list[Any]:
    starts = np.cumsum([0] + list(sizes)).tolist()
    return [_take(b, x, dim, range(first, first + n), what) for first, n in zip(starts, sizes)]


@_entry("split", "split_with_sizes")
def _split(b, args, kw):
    x, sizes, dim = _params(args, kw, ("self", _REQUIRED), ("split_size", _REQUIRED), ("dim", 0))
    total = _size_along(x, dim, "split")
    if isinstance(sizes, (int, np.integer)):
        sizes = [min(int(sizes), total - i) for i in range(0, total, int(sizes))]
    return _pieces(b, x, [int(n) for n in sizes], dim, "split")


@_entry("chunk")
def _chunk(b, args, kw):
    x, chunks, dim = _params(args, kw, ("self", _REQUIRED), ("chunks", _REQUIRED), ("dim", 0))
    total = _size_along(x, dim, "chunk")
    size = -(-total // int(chunks))
    return _pieces(b, x, [min(size, total - i) for i in range(0, total, size)], dim, "chunk")


@_entry("unbind")
def _unbind(b, args, kw):
    x, dim = _params(args, kw, ("self", _REQUIRED), ("dim", 0))
    return [_select(b, [x, dim, i], {}) for i in range(_size_along(x, dim, "unbind"))]
