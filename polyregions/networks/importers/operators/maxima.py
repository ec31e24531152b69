"""Entries for maxima and minima: over an axis (maxout, pooling written out) and entry-wise of several tensors."""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.networks import operations as ops
from polyregions.networks.activations import piecewise_linear
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
    int_list,
    one_number,
)
from polyregions.networks.importers.operators.elementwise import times

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
        floor = max(Fraction(one_number(c, f"{what}: the constant")) for c in constants)
        result = b.add(ops.Activation(piecewise_linear([floor], [0, 1], floor)), [result], f"{what}_floor")
    return result


def _negate_all(b: GraphBuilder, x: Any, what: str) -> Any:
    return times(b, x, Fraction(-1), what)


def _reduce(b: GraphBuilder, args: Sequence[Any], kw: dict[str, Any], minimum: bool, with_indices: bool,
            what: str) -> Any:
    x, dims, keepdim = arguments(args, kw, ("self", REQUIRED), ("dim", None), ("keepdim", False))
    if isinstance(dims, Symbolic):  # max(a, b): two tensors
        return extremum_of_tensors(b, [x, dims], minimum, what)
    if not is_symbolic(x):
        array = exact_array(constant_array(x, what))
        axis = None if dims is None or (hasattr(dims, "__len__") and not len(dims)) else \
            tuple(int_list(dims, len(dims), what)) if hasattr(dims, "__len__") else int(dims)
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


@entry("max")
def _max(b, args, kw):
    return _reduce(b, args, kw, False, _reduces_with_indices(args, kw), "max")


@entry("min")
def _min(b, args, kw):
    return _reduce(b, args, kw, True, _reduces_with_indices(args, kw), "min")


@entry("amax")
def _amax(b, args, kw):
    return _reduce(b, args, kw, False, False, "amax")


@entry("amin")
def _amin(b, args, kw):
    return _reduce(b, args, kw, True, False, "amin")


@entry("maximum", "fmax")
def _maximum(b, args, kw):
    return extremum_of_tensors(b, arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED)), False, "maximum")


@entry("minimum", "fmin")
def _minimum(b, args, kw):
    return extremum_of_tensors(b, arguments(args, kw, ("self", REQUIRED), ("other", REQUIRED)), True, "minimum")
