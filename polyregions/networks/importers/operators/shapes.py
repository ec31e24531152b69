"""Entries for shapes and selections: views, permutations, concatenation, padding, slices, and the shape
computations of traced graphs (sizes, tuple items)."""

from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from polyregions.networks import operations as ops
from polyregions.networks.importers._builder import (
    GraphBuilder,
    Unsupported,
    batchless_axis,
    constant_array,
    is_symbolic,
    resolve_shape,
)
from polyregions.networks.importers.operators._table import (
    REQUIRED,
    arguments,
    entry,
    exact_number,
    tensor_arg,
)

# --- shapes ---------------------------------------------------------------------------------------------------

@entry("view", "reshape", "_unsafe_view", "_reshape_alias")
def _view(b, args, kw):
    x, shape = arguments(args, kw, ("self", REQUIRED), ("size", REQUIRED))
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


@entry("flatten")
def _flatten(b, args, kw):
    x, start, end = arguments(args, kw, ("self", REQUIRED), ("start_dim", 0), ("end_dim", -1))
    if not is_symbolic(x):
        array = constant_array(x, "flatten")
        s, e = start % max(array.ndim, 1), end % max(array.ndim, 1)
        return array.reshape(array.shape[:s] + (-1,) + array.shape[e + 1:]) if array.ndim else array.reshape(1)
    s = batchless_axis(x, start, "flatten: start_dim")
    e = batchless_axis(x, end, "flatten: end_dim")
    shape = x.shape[1:]
    return b.reshape(x, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:], "flatten")


@entry("unflatten")
def _unflatten(b, args, kw):
    x, dim, sizes = arguments(args, kw, ("self", REQUIRED), ("dim", REQUIRED), ("sizes", REQUIRED))
    x = tensor_arg(x, "unflatten: input")
    a = batchless_axis(x, dim, "unflatten: dim")
    shape = x.shape[1:]
    sizes = resolve_shape(_shape_list(sizes), shape[a], "unflatten: sizes")
    return b.reshape(x, shape[:a] + sizes + shape[a + 1:], "unflatten")


@entry("squeeze")
def _squeeze(b, args, kw):
    x, dims = arguments(args, kw, ("self", REQUIRED), ("dim", None))
    if not is_symbolic(x):
        array = constant_array(x, "squeeze")
        return array.squeeze() if dims is None else array.squeeze(axis=tuple(_shape_list(dims)))
    shape = list(x.shape[1:])
    axes = range(len(shape)) if dims is None else [batchless_axis(x, d, "squeeze: dim") for d in _shape_list(dims)]
    keep = [n for i, n in enumerate(shape) if not (i in set(axes) and n == 1)]
    return b.reshape(x, keep, "squeeze")


@entry("unsqueeze")
def _unsqueeze(b, args, kw):
    x, dim = arguments(args, kw, ("self", REQUIRED), ("dim", REQUIRED))
    if not is_symbolic(x):
        return np.expand_dims(constant_array(x, "unsqueeze"), int(dim))
    a = int(dim) + x.rank + 1 if dim < 0 else int(dim)
    if a < 1:
        raise Unsupported(f"unsqueeze: dim: expected an axis after the batch axis, got {dim}")
    shape = list(x.shape[1:])
    return b.reshape(x, shape[:a - 1] + [1] + shape[a - 1:], "unsqueeze")


@entry("permute")
def _permute(b, args, kw):
    x, dims = arguments(args, kw, ("self", REQUIRED), ("dims", REQUIRED))
    if not is_symbolic(x):
        return np.transpose(constant_array(x, "permute"), tuple(int(d) for d in _shape_list(dims)))
    order = [int(d) % x.rank for d in _shape_list(dims)]
    if order[:1] != [0]:
        raise Unsupported(f"permute: dims: expected the batch axis to stay first, got {order}")
    axes = tuple(d - 1 for d in order[1:])
    return x if axes == tuple(range(len(axes))) else b.add(ops.Permute(axes), [x], "permute")


@entry("transpose")
def _transpose(b, args, kw):
    x, d0, d1 = arguments(args, kw, ("self", REQUIRED), ("dim0", REQUIRED), ("dim1", REQUIRED))
    rank = x.rank if is_symbolic(x) else constant_array(x, "transpose").ndim
    order = list(range(rank))
    order[int(d0) % rank], order[int(d1) % rank] = order[int(d1) % rank], order[int(d0) % rank]
    return _permute(b, [x, order], {})


@entry("t", "numpy_T")
def _t(b, args, kw):
    x = args[0]
    if is_symbolic(x):
        raise Unsupported("t: expected a constant matrix, got a tensor computed from the input (its batch axis "
                          "would move)")
    return constant_array(x, "t").T


@entry("cat", "concat", "concatenate")
def _cat(b, args, kw):
    tensors, dim = arguments(args, kw, ("tensors", REQUIRED), ("dim", 0))
    tensors = list(tensors)
    if not any(is_symbolic(t) for t in tensors):
        return np.concatenate([constant_array(t, "cat") for t in tensors], axis=int(dim))
    if not all(is_symbolic(t) for t in tensors):
        raise Unsupported("cat: tensors: expected tensors computed from the input, got constants among them")
    axis = batchless_axis(tensors[0], dim, "cat: dim")
    return b.add(ops.Concat(axis), tensors, "cat")


@entry("constant_pad_nd", "pad")
def _pad(b, args, kw):
    x, pad, mode, value = arguments(args, kw, ("self", REQUIRED), ("pad", REQUIRED), ("mode", "constant"),
                                  ("value", 0))
    if isinstance(mode, (int, float)) and not isinstance(mode, bool):  # constant_pad_nd(self, pad, value)
        mode, value = "constant", mode
    if mode != "constant":
        raise Unsupported(f"pad: mode: expected 'constant', got {mode!r}")
    x = tensor_arg(x, "pad: input")
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
    return b.add(ops.Pad(tuple(pairs), exact_number(0 if value is None else value, "pad: value")), [x], "pad")


@entry("contiguous", "clone", "alias", "detach", "lift_fresh_copy", "_to_copy", "to", "type_as", "positive",
       "copy")
def _identity(b, args, kw):
    return args[0] if args else next(iter(kw.values()))


@entry("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout", "native_dropout")
def _dropout(b, args, kw):
    x, p, train = arguments(args, kw, ("input", REQUIRED), ("p", 0.5), ("train", False))
    if train and p:
        raise Unsupported("dropout: train: expected eval mode (call model.eval() first): in training mode dropout "
                          "zeroes random units")
    return x


@entry("size", "sym_size")
def _size(b, args, kw):
    x, dim = arguments(args, kw, ("self", REQUIRED), ("dim", None))
    shape = x.shape if is_symbolic(x) else constant_array(x, "size").shape
    return list(shape) if dim is None else int(shape[int(dim)])


@entry("numel", "sym_numel")
def _numel(b, args, kw):
    x = args[0]
    return math.prod(x.shape) if is_symbolic(x) else int(constant_array(x, "numel").size)


@entry("dim")
def _dim(b, args, kw):
    x = args[0]
    return x.rank if is_symbolic(x) else constant_array(x, "dim").ndim


@entry("getitem")
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


@entry("slice")
def _slice(b, args, kw):
    x, dim, start, end, step = arguments(args, kw, ("self", REQUIRED), ("dim", 0), ("start", None), ("end", None),
                                       ("step", 1))
    if int(step) < 1:
        raise Unsupported(f"slice: step: expected a positive step, got {step}")
    size = _size_along(x, dim, "slice")
    return _take(b, x, dim, range(size)[slice(start, end, int(step))], "slice")


@entry("select")
def _select(b, args, kw):
    x, dim, index = arguments(args, kw, ("self", REQUIRED), ("dim", REQUIRED), ("index", REQUIRED))
    size = _size_along(x, dim, "select")
    index = int(index)
    if not -size <= index < size:
        raise Unsupported(f"select: index: expected an index below {size}, got {index}")
    taken = _take(b, x, dim, [index % size], "select")
    return _squeeze(b, [taken, [dim]], {})


@entry("narrow")
def _narrow(b, args, kw):
    x, dim, start, length = arguments(args, kw, ("self", REQUIRED), ("dim", REQUIRED), ("start", REQUIRED),
                                    ("length", REQUIRED))
    size = _size_along(x, dim, "narrow")
    first = int(start) % size if size else 0
    return _take(b, x, dim, range(first, first + int(length)), "narrow")


@entry("index_select")
def _index_select(b, args, kw):
    x, dim, index = arguments(args, kw, ("self", REQUIRED), ("dim", REQUIRED), ("index", REQUIRED))
    size = _size_along(x, dim, "index_select")
    indices = [int(i) % size for i in constant_array(index, "index_select: index").reshape(-1).tolist()]
    return _take(b, x, dim, indices, "index_select")


def _pieces(b: GraphBuilder, x: Any, sizes: Sequence[int], dim: Any, what: str) -> list[Any]:
    starts = np.cumsum([0] + list(sizes)).tolist()
    return [_take(b, x, dim, range(first, first + n), what) for first, n in zip(starts, sizes)]


@entry("split", "split_with_sizes")
def _split(b, args, kw):
    x, sizes, dim = arguments(args, kw, ("self", REQUIRED), ("split_size", REQUIRED), ("dim", 0))
    total = _size_along(x, dim, "split")
    if isinstance(sizes, (int, np.integer)):
        sizes = [min(int(sizes), total - i) for i in range(0, total, int(sizes))]
    return _pieces(b, x, [int(n) for n in sizes], dim, "split")


@entry("chunk")
def _chunk(b, args, kw):
    x, chunks, dim = arguments(args, kw, ("self", REQUIRED), ("chunks", REQUIRED), ("dim", 0))
    total = _size_along(x, dim, "chunk")
    size = -(-total // int(chunks))
    return _pieces(b, x, [min(size, total - i) for i in range(0, total, size)], dim, "chunk")


@entry("unbind")
def _unbind(b, args, kw):
    x, dim = arguments(args, kw, ("self", REQUIRED), ("dim", 0))
    return [_select(b, [x, dim, i], {}) for i in range(_size_along(x, dim, "unbind"))]
