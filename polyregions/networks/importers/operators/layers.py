"""Entries for layers: dense maps, convolutions, pooling and batch normalisation."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.networks import operations as ops
from polyregions.networks.importers._builder import (
    GraphBuilder,
    Indices,
    Symbolic,
    Unsupported,
    batchless_axis,
    constant_array,
    exact_array,
    is_symbolic,
)
from polyregions.networks.importers.operators._table import (
    REQUIRED,
    arguments,
    entry,
    exact_numbers,
    int_list,
    tensor_arg,
)

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
        bias_values = exact_numbers(np.broadcast_to(bias_array.reshape(-1), (rows,)))
    return b.add(ops.Dense(weight if weight.dtype != object else weight.tolist(), bias_values), [x], what)


@entry("linear")
def _linear(b, args, kw):
    x, weight, bias = arguments(args, kw, ("input", REQUIRED), ("weight", REQUIRED), ("bias", None))
    return _dense(b, x, constant_array(weight, "linear: weight"), bias, "linear")


@entry("addmm")
def _addmm(b, args, kw):
    bias, x, mat, beta, alpha = arguments(args, kw, ("self", REQUIRED), ("mat1", REQUIRED), ("mat2", REQUIRED),
                                        ("beta", 1), ("alpha", 1))
    weight = exact_array(constant_array(mat, "addmm: mat2")).T * Fraction(alpha)
    return _dense(b, x, weight, exact_array(constant_array(bias, "addmm: self")) * Fraction(beta), "addmm")


@entry("mm", "matmul")
def _mm(b, args, kw):
    x, mat = arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED))
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
    x = tensor_arg(x, f"{what}: input")
    kernel = constant_array(weight, f"{what}: weight")
    axes = kernel.ndim - 2
    if axes not in (1, 2) or x.rank != axes + 2:
        raise Unsupported(f"{what}: expected a 1-D or 2-D convolution of a [batch, channels, sizes...] input, got "
                          f"weight shape {list(kernel.shape)} and input shape {list(x.shape)}")
    dilation = int_list(dilation, axes, f"{what}: dilation")
    if isinstance(padding, str):
        if padding == "valid":
            pads = [(0, 0)] * axes
        elif padding == "same":
            totals = [d * (k - 1) for d, k in zip(dilation, kernel.shape[2:])]
            pads = [(t // 2, t - t // 2) for t in totals]
        else:
            raise Unsupported(f"{what}: padding: expected 'same', 'valid' or integers, got {padding!r}")
    else:
        pads = [(p, p) for p in int_list(padding, axes, f"{what}: padding")]
    x, symmetric = _padded(b, x, pads, what)
    bias_values = (0,) * kernel.shape[0] if bias is None else constant_array(bias, f"{what}: bias").reshape(-1)
    op = ops.Conv(kernel if kernel.dtype != object else kernel.tolist(), bias_values,
                  stride=int_list(stride, axes, f"{what}: stride"), padding=symmetric, dilation=dilation,
                  groups=int(groups))
    return b.add(op, [x], what)


@entry("conv1d", "conv2d", "_convolution_mode")
def _conv_nd(b, args, kw):
    x, weight, bias, stride, padding, dilation, groups = arguments(
        args, kw, ("input", REQUIRED), ("weight", REQUIRED), ("bias", None), ("stride", 1), ("padding", 0),
        ("dilation", 1), ("groups", 1))
    return _conv(b, x, weight, bias, stride, padding, dilation, groups, "conv")


@entry("convolution", "_convolution")
def _convolution(b, args, kw):
    x, weight, bias, stride, padding, dilation, transposed, _, groups = arguments(
        args, kw, ("input", REQUIRED), ("weight", REQUIRED), ("bias", None), ("stride", 1), ("padding", 0),
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
    kernel = int_list(kernel, axes, f"{what}: kernel_size")
    stride = kernel if stride is None or (hasattr(stride, "__len__") and len(stride) == 0) else \
        int_list(stride, axes, f"{what}: stride")
    padding = int_list(padding, axes, f"{what}: padding")
    if ceil_mode:
        for n, k, s, p in zip(x.shape[2:], kernel, stride, padding):
            if (n + 2 * p - k) % s:
                raise Unsupported(f"{what}: ceil_mode: expected False (or windows that fit exactly), got True with "
                                  f"a partial last window")
    return kernel, stride, padding


@entry("max_pool1d", "max_pool2d")
def _max_pool(b, args, kw):
    x, kernel, stride, padding, dilation, ceil_mode = arguments(
        args, kw, ("self", REQUIRED), ("kernel_size", REQUIRED), ("stride", None), ("padding", 0),
        ("dilation", 1), ("ceil_mode", False))
    x = tensor_arg(x, "max_pool: input")
    kernel, stride, padding = _window(x, kernel, stride, padding, ceil_mode, "max_pool")
    if any(d != 1 for d in int_list(dilation, len(kernel), "max_pool: dilation")):
        raise Unsupported(f"max_pool: dilation: expected 1, got {dilation!r}")
    return b.add(ops.MaxPool(kernel, stride, padding), [x], "max_pool")


@entry("max_pool1d_with_indices", "max_pool2d_with_indices")
def _max_pool_with_indices(b, args, kw):
    return _max_pool(b, args, kw), Indices()


@entry("avg_pool1d", "avg_pool2d")
def _avg_pool(b, args, kw):
    x, kernel, stride, padding, ceil_mode, count_include_pad, divisor = arguments(
        args, kw, ("self", REQUIRED), ("kernel_size", REQUIRED), ("stride", None), ("padding", 0),
        ("ceil_mode", False), ("count_include_pad", True), ("divisor_override", None))
    x = tensor_arg(x, "avg_pool: input")
    kernel, stride, padding = _window(x, kernel, stride, padding, ceil_mode, "avg_pool")
    if divisor is not None:
        raise Unsupported(f"avg_pool: divisor_override: expected None, got {divisor!r}")
    if any(padding) and not count_include_pad:
        raise Unsupported("avg_pool: count_include_pad: expected True when padding (the divisor is then the "
                          "window's size), got False")
    return b.add(ops.AvgPool(kernel, stride, padding), [x], "avg_pool")


@entry("adaptive_avg_pool1d", "adaptive_avg_pool2d", "_adaptive_avg_pool2d")
def _adaptive_avg_pool(b, args, kw):
    x, size = arguments(args, kw, ("self", REQUIRED), ("output_size", REQUIRED))
    x = tensor_arg(x, "adaptive_avg_pool: input")
    spatial = x.shape[2:]
    out = int_list(size, len(spatial), "adaptive_avg_pool: output_size")
    if any(n % o for n, o in zip(spatial, out)):
        raise Unsupported(f"adaptive_avg_pool: output_size: expected sizes dividing the input's {list(spatial)}, "
                          f"got {list(out)}")
    kernel = tuple(n // o for n, o in zip(spatial, out))
    return b.add(ops.AvgPool(kernel, kernel), [x], "avg_pool")


@entry("mean")
def _mean(b, args, kw):
    x, dims, keepdim = arguments(args, kw, ("self", REQUIRED), ("dim", None), ("keepdim", False))
    if not is_symbolic(x):
        array = exact_array(constant_array(x, "mean: self"))
        return array.mean(axis=None if dims is None else tuple(dims), keepdims=bool(keepdim))
    axes = sorted({batchless_axis(x, d, "mean: dim") for d in int_list(dims, len(dims), "mean: dim")}) \
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
    return b.add(batch_norm_op(weight, bias, mean, var, eps, "batch_norm"), [tensor_arg(x, "batch_norm: input")],
                 "batch_norm")


_BATCH_NORM = (("input", REQUIRED), ("weight", None), ("bias", None), ("running_mean", None), ("running_var", None))


@entry("batch_norm")
def _batch_norm(b, args, kw):
    x, weight, bias, mean, var, training, _, eps = arguments(args, kw, *_BATCH_NORM, ("training", False),
                                                           ("momentum", 0.1), ("eps", 1e-5))
    return _checked_batch_norm(b, x, weight, bias, mean, var, training, eps)


@entry("native_batch_norm", "_native_batch_norm_legit")
def _native_batch_norm(b, args, kw):
    return _batch_norm(b, args, kw), None, None


@entry("_native_batch_norm_legit_no_training")
def _batch_norm_no_training(b, args, kw):
    x, weight, bias, mean, var, _, eps = arguments(args, kw, *_BATCH_NORM, ("momentum", 0.1), ("eps", 1e-5))
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
