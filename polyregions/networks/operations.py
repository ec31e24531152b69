"""The exact operations of a :class:`~polyregions.networks.graph.GraphNetwork`.

Every operation is a frozen dataclass with exact parameters (:class:`fractions.Fraction`, in nested tuples);
numbers, strings such as ``"1/3"`` and numpy arrays are read exactly (:mod:`polyregions.exact.rationals`).
Tensors are channel-first and carry no batch axis. An operation is one of two kinds:

* *affine* (:class:`Dense`, :class:`Conv`, :class:`AvgPool`, :class:`BatchNorm`, :class:`Scale`, :class:`Add`,
  :class:`Concat`, :class:`Flatten`, :class:`Reshape`, :class:`Permute`, :class:`Pad`, :class:`Take`):
  :meth:`affine` gives every output entry as a sparse exact combination of input entries plus a constant;
* *piecewise linear* (:class:`Activation`, :class:`PReLU`, :class:`MaxPool`, :class:`Maxout`): element-wise
  units (:meth:`elementwise`, one activation per entry) or max units (:meth:`max_groups`, the input entries each
  output entry is the maximum of; its piece is the argmax).

Examples
--------
>>> from polyregions.networks.operations import Conv
>>> conv = Conv([[[1, -1]]], [0])
>>> conv.output_shape([(1, 4)])
(1, 3)
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence, Union

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, integer, rational
from polyregions.networks.activations import Activation as PiecewiseActivation
from polyregions.networks.activations import activation_from_json, leaky_relu, linear, piecewise_linear

__all__ = ["Dense", "Conv", "AvgPool", "MaxPool", "BatchNorm", "Scale", "Activation", "PReLU", "Maxout", "Add",
           "Concat", "Flatten", "Reshape", "Permute", "Pad", "Take", "Operation", "SparseAffine", "relu6", "flat_size"]

Shape = tuple[int, ...]
#: Output entry ``i`` is ``sum(coef * inputs[k][j] for k, j, coef in terms[i]) + constants[i]`` (flat indices).
Terms = tuple[tuple[tuple[int, int, Fraction], ...], ...]


@dataclass(frozen=True)
class SparseAffine:
    """An affine map from the flattened inputs of an operation to its flattened output, sparse and exact."""

    terms: Terms
    constants: tuple[Fraction, ...]


def flat_size(shape: Sequence[int]) -> int:
    """The number of entries of a tensor of ``shape``."""
    return math.prod(shape)


def relu6() -> PiecewiseActivation:
    """``min(max(t, 0), 6)``: ReLU clipped at 6.

    Examples
    --------
    >>> relu6()(7), relu6()(-1), relu6()(3)
    (Fraction(6, 1), Fraction(0, 1), Fraction(3, 1))
    """
    return piecewise_linear([0, 6], [0, 1, 0], 0)


# --- reading -------------------------------------------------------------------------------------------------

def _nested(values: Any, ndim: int, what: str) -> tuple[Any, Shape]:
    """Exact nested tuples with ``ndim`` axes (each axis at least one long, rows of equal length) and their shape."""
    if isinstance(values, np.ndarray):
        if values.ndim != ndim:
            raise InvalidInputError(f"{what}: expected an array with {ndim} axes, got shape {values.shape}")
        values = values.tolist()
    if ndim == 0:
        return rational(values, what=what), ()
    if isinstance(values, (str, bytes, dict)) or not hasattr(values, "__len__"):
        raise InvalidInputError(f"{what}: expected a list nested {ndim} deep, got {_describe(values)}")
    if len(values) == 0:
        raise InvalidInputError(f"{what}: expected at least one entry, got an empty list")
    items = [_nested(v, ndim - 1, f"{what}[{i}]") for i, v in enumerate(values)]
    shape = items[0][1]
    for i, (_, other) in enumerate(items):
        if other != shape:
            raise InvalidInputError(f"{what}: expected entries of equal shape {list(shape)}, got {list(other)} "
                                    f"at [{i}]")
    return tuple(v for v, _ in items), (len(items),) + shape


def _flat(values: Any) -> list[Fraction]:
    if isinstance(values, Fraction):
        return [values]
    return [v for item in values for v in _flat(item)]


def _shape_of(values: Any) -> Shape:
    shape = []
    while isinstance(values, tuple):
        shape.append(len(values))
        values = values[0]
    return tuple(shape)


def _ints(values: Any, count: int, what: str, *, minimum: int) -> tuple[int, ...]:
    """``count`` integers of at least ``minimum``; a single integer stands for all of them."""
    if isinstance(values, (int, np.integer, str)) and not isinstance(values, bool):
        values = [values] * count
    if isinstance(values, (bytes, dict)) or not hasattr(values, "__len__") or len(values) != count:
        raise InvalidInputError(f"{what}: expected {count} integers, got {_describe(values)}")
    result = tuple(integer(v, what=f"{what}[{i}]") for i, v in enumerate(values))
    for i, v in enumerate(result):
        if v < minimum:
            raise InvalidInputError(f"{what}[{i}]: expected an integer of at least {minimum}, got {v}")
    return result


def _one_input(shapes: Sequence[Shape], what: str) -> Shape:
    if len(shapes) != 1:
        raise InvalidInputError(f"{what}: inputs: expected 1 input, got {len(shapes)}")
    return shapes[0]


def _strides(shape: Shape) -> tuple[int, ...]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def _window_positions(size: int, kernel: int, stride: int, padding: int, dilation: int, what: str) -> int:
    span = dilation * (kernel - 1) + 1
    if size + 2 * padding < span:
        raise InvalidInputError(f"{what}: expected a spatial size of at least {span - 2 * padding} (the kernel "
                                f"span minus padding), got {size}")
    return (size + 2 * padding - span) // stride + 1


def _windows(shape: Shape, kernel: Shape, stride: Shape, padding: Shape, dilation: Shape, what: str
             ) -> tuple[Shape, list[list[list[tuple[int, ...]]]]]:
    """The spatial output shape and, per output position (flat), per kernel offset (flat), the input position
    it reads, or () where it falls on the padding."""
    spatial = shape[1:]
    out = tuple(_window_positions(n, k, s, p, d, what) for n, k, s, p, d in
                zip(spatial, kernel, stride, padding, dilation))
    positions: list[list[tuple[int, ...]]] = []
    for where in np.ndindex(*out):
        reads = []
        for offset in np.ndindex(*kernel):
            index = tuple(w * s - p + o * d for w, s, p, o, d in zip(where, stride, padding, offset, dilation))
            reads.append(index if all(0 <= i < n for i, n in zip(index, spatial)) else ())
        positions.append(reads)
    return out, [positions]


# --- affine operations ---------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Dense:
    """``x -> weight @ flatten(x) + bias``, output of shape ``(rows,)``.

    Examples
    --------
    >>> Dense([[1, 2]], [-1]).output_shape([(2,)])
    (1,)
    """

    weight: Any  # read exactly into nested tuples of Fraction
    bias: Any

    def __post_init__(self) -> None:
        weight, shape = _nested(self.weight, 2, "dense: weight")
        bias, bias_shape = _nested(self.bias, 1, "dense: bias")
        if bias_shape[0] != shape[0]:
            raise InvalidInputError(f"dense: bias: expected {shape[0]} numbers (one per weight row), "
                                    f"got {bias_shape[0]}")
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "bias", bias)

    kind = "dense"

    def output_shape(self, shapes: Sequence[Shape], what: str = "dense") -> Shape:
        size = flat_size(_one_input(shapes, what))
        if len(self.weight[0]) != size:
            raise InvalidInputError(f"{what}: weight: expected {size} columns (the flattened input), "
                                    f"got {len(self.weight[0])}")
        return (len(self.weight),)

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        terms = tuple(tuple((0, j, w) for j, w in enumerate(row) if w) for row in self.weight)
        return SparseAffine(terms, self.bias)


@dataclass(frozen=True)
class Conv:
    """A 1-D or 2-D convolution (cross-correlation, as in PyTorch) with stride, zero padding, dilation, groups.

    ``weight`` has shape ``[C_out, C_in / groups, k]`` (1-D, input ``(C_in, L)``) or
    ``[C_out, C_in / groups, kh, kw]`` (2-D, input ``(C_in, H, W)``); ``stride``, ``padding`` and ``dilation``
    are one integer per spatial axis (or one for all).

    Examples
    --------
    >>> Conv([[[[1]]], [[[2]]]], [0, 1], stride=2).output_shape([(1, 5, 5)])
    (2, 3, 3)
    """

    weight: Any  # read exactly into nested tuples of Fraction
    bias: Any
    stride: Any = (1,)  # tuples of int once read
    padding: Any = (0,)
    dilation: Any = (1,)
    groups: int = 1

    kind = "conv"

    def __post_init__(self) -> None:
        weight = self.weight
        ndim = weight.ndim if isinstance(weight, np.ndarray) else len(_shape_of(_probe(weight)))
        if ndim not in (3, 4):
            raise InvalidInputError(f"conv: weight: expected 3 axes [C_out, C_in/groups, k] or 4 axes "
                                    f"[C_out, C_in/groups, kh, kw], got {ndim}")
        weight, shape = _nested(weight, ndim, "conv: weight")
        bias, bias_shape = _nested(self.bias, 1, "conv: bias")
        if bias_shape[0] != shape[0]:
            raise InvalidInputError(f"conv: bias: expected {shape[0]} numbers (one per output channel), "
                                    f"got {bias_shape[0]}")
        groups = integer(self.groups, what="conv: groups")
        if groups < 1 or shape[0] % groups:
            raise InvalidInputError(f"conv: groups: expected a positive divisor of the {shape[0]} output "
                                    f"channels, got {groups}")
        axes = ndim - 2
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "bias", bias)
        object.__setattr__(self, "stride", _ints(_spread(self.stride, axes), axes, "conv: stride", minimum=1))
        object.__setattr__(self, "padding", _ints(_spread(self.padding, axes), axes, "conv: padding", minimum=0))
        object.__setattr__(self, "dilation", _ints(_spread(self.dilation, axes), axes, "conv: dilation",
                                                   minimum=1))
        object.__setattr__(self, "groups", groups)

    @property
    def kernel(self) -> Shape:
        """The kernel's spatial shape."""
        return _shape_of(self.weight)[2:]

    def output_shape(self, shapes: Sequence[Shape], what: str = "conv") -> Shape:
        shape = _one_input(shapes, what)
        c_out, c_in_group = _shape_of(self.weight)[:2]
        if len(shape) != len(self.kernel) + 1:
            raise InvalidInputError(f"{what}: input: expected {len(self.kernel) + 1} axes (channels first, "
                                    f"no batch axis), got shape {list(shape)}")
        if shape[0] != c_in_group * self.groups:
            raise InvalidInputError(f"{what}: input: expected {c_in_group * self.groups} channels "
                                    f"({c_in_group} per group x {self.groups} groups), got {shape[0]}")
        spatial, _ = _windows(shape, self.kernel, self.stride, self.padding, self.dilation, what)
        return (c_out,) + spatial

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        shape = shapes[0]
        c_out, c_in_group = _shape_of(self.weight)[:2]
        spatial, (positions,) = _windows(shape, self.kernel, self.stride, self.padding, self.dilation, "conv")
        strides = _strides(shape)
        per_group = c_out // self.groups
        weights = [[_flat(self.weight[o][c]) for c in range(c_in_group)] for o in range(c_out)]
        terms: list[tuple[tuple[int, int, Fraction], ...]] = []
        constants: list[Fraction] = []
        for o in range(c_out):
            first = (o // per_group) * c_in_group
            for reads in positions:
                row = []
                for c in range(c_in_group):
                    kernel = weights[o][c]
                    for w, index in zip(kernel, reads):
                        if w and index:
                            row.append((0, (first + c) * strides[0] + sum(i * s for i, s in
                                                                          zip(index, strides[1:])), w))
                terms.append(tuple(row))
                constants.append(self.bias[o])
        return SparseAffine(tuple(terms), tuple(constants))


def _probe(values: Any) -> Any:
    """Nested lists as nested tuples of placeholders, enough to count axes (the first entry of each level)."""
    if isinstance(values, (list, tuple)) and values:
        return (_probe(values[0]),)
    return Fraction(0)


def _spread(values: Any, axes: int) -> Any:
    """A one-entry sequence stands for every axis."""
    if hasattr(values, "__len__") and not isinstance(values, (str, bytes, dict)) and len(values) == 1:
        return list(values) * axes
    return values


@dataclass(frozen=True)
class _Pool:
    """Windows over the spatial axes: ``kernel``, ``stride`` (default: the kernel) and ``padding`` give one
    integer per spatial axis; a single integer stands for every spatial axis of the input."""

    kernel: Any  # tuples of int once read
    stride: Any = None
    padding: Any = (0,)

    kind = "pool"

    def __post_init__(self) -> None:
        kernel = self.kernel
        axes = 1 if isinstance(kernel, (int, np.integer, str)) else len(kernel) if hasattr(kernel, "__len__") else 0
        if axes not in (1, 2):
            raise InvalidInputError(f"{self.kind}: kernel: expected 1 or 2 integers, got {_describe(kernel)}")
        kernel = _ints(kernel, axes, f"{self.kind}: kernel", minimum=1)
        stride = kernel if self.stride is None else _ints(_spread(self.stride, axes), axes, f"{self.kind}: stride",
                                                          minimum=1)
        padding = _ints(_spread(self.padding, axes), axes, f"{self.kind}: padding", minimum=0)
        for i, (p, k) in enumerate(zip(padding, kernel)):
            if 2 * p > k:
                raise InvalidInputError(f"{self.kind}: padding[{i}]: expected at most half the kernel ({k // 2}), "
                                        f"got {p}")
        object.__setattr__(self, "kernel", kernel)
        object.__setattr__(self, "stride", stride)
        object.__setattr__(self, "padding", padding)

    def _positions(self, shapes: Sequence[Shape], what: str) -> tuple[Shape, list[list[tuple[int, ...]]]]:
        shape = _one_input(shapes, what)
        kernel, stride, padding = self.kernel, self.stride or self.kernel, self.padding
        if len(kernel) == 1 and len(shape) > 2:  # one size for every spatial axis
            axes = len(shape) - 1
            kernel, stride, padding = kernel * axes, stride * axes, padding * axes
        if len(shape) != len(kernel) + 1:
            raise InvalidInputError(f"{what}: input: expected {len(kernel) + 1} axes (channels first, "
                                    f"no batch axis), got shape {list(shape)}")
        spatial, (positions,) = _windows(shape, kernel, stride, padding, (1,) * len(kernel), what)
        return (shape[0],) + spatial, positions


@dataclass(frozen=True)
class AvgPool(_Pool):
    """Average pooling over windows (see :class:`MaxPool` for the parameters); zero padding counts toward the
    divisor (PyTorch's default)."""

    kind = "avgpool"

    def output_shape(self, shapes: Sequence[Shape], what: str = "avgpool") -> Shape:
        return self._positions(shapes, what)[0]

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        out, positions = self._positions(shapes, self.kind)
        strides = _strides(shapes[0])
        weight = Fraction(1, len(positions[0]))  # the window's size, padding included
        terms: list[tuple[tuple[int, int, Fraction], ...]] = []
        for c in range(out[0]):
            for reads in positions:
                terms.append(tuple((0, c * strides[0] + sum(i * s for i, s in zip(index, strides[1:])), weight)
                                   for index in reads if index))
        return SparseAffine(tuple(terms), (Fraction(0),) * len(terms))


@dataclass(frozen=True)
class BatchNorm:
    """``y = scale[c] * x + shift[c]`` per channel (axis 0), batch norm folded from its statistics."""

    scale: Any  # tuples of Fraction once read
    shift: Any

    kind = "batchnorm"

    def __post_init__(self) -> None:
        scale, shape = _nested(self.scale, 1, "batchnorm: scale")
        shift, _ = _nested(self.shift, 1, "batchnorm: shift")
        if len(shift) != shape[0]:
            raise InvalidInputError(f"batchnorm: shift: expected {shape[0]} numbers (one per channel), "
                                    f"got {len(shift)}")
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "shift", shift)

    def output_shape(self, shapes: Sequence[Shape], what: str = "batchnorm") -> Shape:
        shape = _one_input(shapes, what)
        if shape[0] != len(self.scale):
            raise InvalidInputError(f"{what}: input: expected {len(self.scale)} channels, got {shape[0]}")
        return shape

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        shape = shapes[0]
        per = flat_size(shape[1:])
        terms = tuple(((0, j, self.scale[j // per]),) if self.scale[j // per] else () for j in range(flat_size(shape)))
        return SparseAffine(terms, tuple(self.shift[j // per] for j in range(flat_size(shape))))


@dataclass(frozen=True)
class Scale:
    """``y = scale * x + shift`` entry by entry, with one scale and one shift per entry (row-major order).

    Examples
    --------
    >>> Scale([2, 1], [0, -1]).output_shape([(2,)])
    (2,)
    """

    scale: Any  # tuples of Fraction once read
    shift: Any

    kind = "scale"

    def __post_init__(self) -> None:
        scale, shape = _nested(self.scale, 1, "scale: scale")
        shift, _ = _nested(self.shift, 1, "scale: shift")
        if len(shift) != shape[0]:
            raise InvalidInputError(f"scale: shift: expected {shape[0]} numbers (one per entry, as scale), "
                                    f"got {len(shift)}")
        object.__setattr__(self, "scale", scale)
        object.__setattr__(self, "shift", shift)

    def output_shape(self, shapes: Sequence[Shape], what: str = "scale") -> Shape:
        shape = _one_input(shapes, what)
        if flat_size(shape) != len(self.scale):
            raise InvalidInputError(f"{what}: scale: expected {flat_size(shape)} numbers (one per input entry), "
                                    f"got {len(self.scale)}")
        return shape

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        return SparseAffine(tuple(((0, j, s),) if s else () for j, s in enumerate(self.scale)), self.shift)


@dataclass(frozen=True)
class Add:
    """The sum of two or more inputs of the same shape (a residual connection)."""

    kind = "add"

    def output_shape(self, shapes: Sequence[Shape], what: str = "add") -> Shape:
        if len(shapes) < 2:
            raise InvalidInputError(f"{what}: inputs: expected at least 2 inputs, got {len(shapes)}")
        for i, shape in enumerate(shapes[1:], start=1):
            if shape != shapes[0]:
                raise InvalidInputError(f"{what}: inputs[{i}]: expected shape {list(shapes[0])} (that of "
                                        f"inputs[0]), got {list(shape)}")
        return shapes[0]

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        one = Fraction(1)
        size = flat_size(shapes[0])
        return SparseAffine(tuple(tuple((k, j, one) for k in range(len(shapes))) for j in range(size)),
                            (Fraction(0),) * size)


@dataclass(frozen=True)
class Concat:
    """Inputs joined along ``axis`` (an axis of the tensors, which carry no batch axis)."""

    axis: int = 0

    kind = "concat"

    def __post_init__(self) -> None:
        axis = integer(self.axis, what="concat: axis")
        if axis < 0:
            raise InvalidInputError(f"concat: axis: expected a non-negative axis (no batch axis), got {axis}")
        object.__setattr__(self, "axis", axis)

    def output_shape(self, shapes: Sequence[Shape], what: str = "concat") -> Shape:
        if not shapes:
            raise InvalidInputError(f"{what}: inputs: expected at least 1 input, got none")
        first = shapes[0]
        if self.axis >= len(first):
            raise InvalidInputError(f"{what}: axis: expected an axis below {len(first)}, got {self.axis}")
        for i, shape in enumerate(shapes):
            if len(shape) != len(first) or shape[:self.axis] + shape[self.axis + 1:] != \
                    first[:self.axis] + first[self.axis + 1:]:
                raise InvalidInputError(f"{what}: inputs[{i}]: expected shape {list(first)} except on axis "
                                        f"{self.axis}, got {list(shape)}")
        return first[:self.axis] + (sum(s[self.axis] for s in shapes),) + first[self.axis + 1:]

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        out = self.output_shape(shapes)
        one = Fraction(1)
        outer = flat_size(out[:self.axis])
        terms: list[tuple[tuple[int, int, Fraction], ...]] = []
        for o in range(outer):
            for k, shape in enumerate(shapes):
                block = flat_size(shape[self.axis:])
                terms.extend(((k, o * block + j, one),) for j in range(block))
        return SparseAffine(tuple(terms), (Fraction(0),) * len(terms))


@dataclass(frozen=True)
class Flatten:
    """The input as a vector (row-major order)."""

    kind = "flatten"

    def output_shape(self, shapes: Sequence[Shape], what: str = "flatten") -> Shape:
        return (flat_size(_one_input(shapes, what)),)

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        return _identity(flat_size(shapes[0]))


@dataclass(frozen=True)
class Reshape:
    """The input's entries (row-major order) in a tensor of ``shape``; one axis may be ``-1`` (inferred)."""

    shape: Any  # a tuple of int once read

    kind = "reshape"

    def __post_init__(self) -> None:
        if isinstance(self.shape, (str, bytes, dict)) or not hasattr(self.shape, "__len__") or not self.shape:
            raise InvalidInputError(f"reshape: shape: expected a non-empty list of integers, got "
                                    f"{_describe(self.shape)}")
        shape = tuple(integer(v, what=f"reshape: shape[{i}]") for i, v in enumerate(self.shape))
        if sum(v == -1 for v in shape) > 1 or any(v == 0 or v < -1 for v in shape):
            raise InvalidInputError(f"reshape: shape: expected positive sizes and at most one -1, got {list(shape)}")
        object.__setattr__(self, "shape", shape)

    def output_shape(self, shapes: Sequence[Shape], what: str = "reshape") -> Shape:
        size = flat_size(_one_input(shapes, what))
        known = -flat_size(self.shape) if -1 in self.shape else flat_size(self.shape)
        if (-1 in self.shape and size % known) or (-1 not in self.shape and known != size):
            raise InvalidInputError(f"{what}: shape: expected a shape of {size} entries (the input's), got "
                                    f"{list(self.shape)}")
        return tuple(size // known if v == -1 else v for v in self.shape)

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        return _identity(flat_size(shapes[0]))


@dataclass(frozen=True)
class Permute:
    """The input's axes reordered: output axis ``i`` is input axis ``axes[i]`` (``numpy.transpose``).

    Examples
    --------
    >>> Permute((1, 0)).output_shape([(2, 3)])
    (3, 2)
    """

    axes: Any  # a tuple of int once read

    kind = "permute"

    def __post_init__(self) -> None:
        if isinstance(self.axes, (str, bytes, dict)) or not hasattr(self.axes, "__len__") or not self.axes:
            raise InvalidInputError(f"permute: axes: expected a non-empty list of axes, got {_describe(self.axes)}")
        axes = tuple(integer(v, what=f"permute: axes[{i}]") for i, v in enumerate(self.axes))
        if sorted(axes) != list(range(len(axes))):
            raise InvalidInputError(f"permute: axes: expected a permutation of 0..{len(axes) - 1}, got {list(axes)}")
        object.__setattr__(self, "axes", axes)

    def output_shape(self, shapes: Sequence[Shape], what: str = "permute") -> Shape:
        shape = _one_input(shapes, what)
        if len(shape) != len(self.axes):
            raise InvalidInputError(f"{what}: axes: expected {len(shape)} axes (the input's), got {list(self.axes)}")
        return tuple(shape[a] for a in self.axes)

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        sources = np.arange(flat_size(shapes[0])).reshape(shapes[0]).transpose(self.axes).reshape(-1)
        one = Fraction(1)
        return SparseAffine(tuple(((0, int(j), one),) for j in sources), (Fraction(0),) * len(sources))


@dataclass(frozen=True)
class Pad:
    """The input surrounded by ``value``: ``pads`` gives ``(before, after)`` entries for every axis.

    Examples
    --------
    >>> Pad(((0, 0), (1, 2))).output_shape([(1, 3)])
    (1, 6)
    """

    pads: Any  # a tuple of (int, int) once read
    value: Any = 0  # a Fraction once read

    kind = "pad"

    def __post_init__(self) -> None:
        pads = self.pads
        if isinstance(pads, (str, bytes, dict)) or not hasattr(pads, "__len__") or not pads:
            raise InvalidInputError(f"pad: pads: expected a [before, after] pair per axis, got {_describe(pads)}")
        read = tuple(_ints(p, 2, f"pad: pads[{i}]", minimum=0) for i, p in enumerate(pads))
        object.__setattr__(self, "pads", read)
        object.__setattr__(self, "value", rational(self.value, what="pad: value"))

    def output_shape(self, shapes: Sequence[Shape], what: str = "pad") -> Shape:
        shape = _one_input(shapes, what)
        if len(shape) != len(self.pads):
            raise InvalidInputError(f"{what}: pads: expected {len(shape)} pairs (one per axis), got {len(self.pads)}")
        return tuple(n + a + b for n, (a, b) in zip(shape, self.pads))

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        out = self.output_shape(shapes)
        sources = np.full(out, -1, dtype=np.int64)
        sources[tuple(slice(a, a + n) for n, (a, _) in zip(shapes[0], self.pads))] = \
            np.arange(flat_size(shapes[0])).reshape(shapes[0])
        one, zero = Fraction(1), Fraction(0)
        flat = sources.reshape(-1).tolist()
        return SparseAffine(tuple(((0, j, one),) if j >= 0 else () for j in flat),
                            tuple(zero if j >= 0 else self.value for j in flat))


@dataclass(frozen=True)
class Take:
    """The entries at ``indices`` along ``axis`` (in that order, repeats allowed): a slice, a selection, a split.

    Examples
    --------
    >>> Take(1, (2, 0)).output_shape([(2, 3)])
    (2, 2)
    """

    axis: int
    indices: Any  # a tuple of int once read

    kind = "take"

    def __post_init__(self) -> None:
        axis = integer(self.axis, what="take: axis")
        if axis < 0:
            raise InvalidInputError(f"take: axis: expected a non-negative axis (no batch axis), got {axis}")
        indices = self.indices
        if isinstance(indices, (str, bytes, dict)) or not hasattr(indices, "__len__") or not len(indices):
            raise InvalidInputError(f"take: indices: expected a non-empty list of indices, got {_describe(indices)}")
        read = tuple(integer(v, what=f"take: indices[{i}]") for i, v in enumerate(indices))
        object.__setattr__(self, "axis", axis)
        object.__setattr__(self, "indices", read)

    def output_shape(self, shapes: Sequence[Shape], what: str = "take") -> Shape:
        shape = _one_input(shapes, what)
        if self.axis >= len(shape):
            raise InvalidInputError(f"{what}: axis: expected an axis below {len(shape)}, got {self.axis}")
        bad = next((i for i in self.indices if not 0 <= i < shape[self.axis]), None)
        if bad is not None:
            raise InvalidInputError(f"{what}: indices: expected indices below {shape[self.axis]} (the axis' size), "
                                    f"got {bad}")
        return shape[:self.axis] + (len(self.indices),) + shape[self.axis + 1:]

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        sources = np.take(np.arange(flat_size(shapes[0])).reshape(shapes[0]), self.indices, axis=self.axis)
        one = Fraction(1)
        return SparseAffine(tuple(((0, int(j), one),) for j in sources.reshape(-1)), (Fraction(0),) * sources.size)


def _identity(size: int) -> SparseAffine:
    one = Fraction(1)
    return SparseAffine(tuple(((0, j, one),) for j in range(size)), (Fraction(0),) * size)


# --- piecewise-linear operations -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Activation:
    """An element-wise activation (:class:`polyregions.networks.activations.Activation` or its file form)."""

    activation: Any  # an Activation once read (its network-file form is accepted)

    kind = "activation"

    def __post_init__(self) -> None:
        object.__setattr__(self, "activation", activation_from_json(self.activation, what="activation"))

    def output_shape(self, shapes: Sequence[Shape], what: str = "activation") -> Shape:
        return _one_input(shapes, what)

    def elementwise(self, shape: Shape) -> tuple[PiecewiseActivation, ...]:
        return (self.activation,) * flat_size(shape)


@dataclass(frozen=True)
class PReLU:
    """``max(t, 0) + slope * min(t, 0)`` with one slope per channel (axis 0), or one for all."""

    slopes: Any  # a tuple of Fraction once read

    kind = "prelu"

    def __post_init__(self) -> None:
        slopes = self.slopes
        if not hasattr(slopes, "__len__") or isinstance(slopes, (str, bytes)):
            slopes = [slopes]
        object.__setattr__(self, "slopes", _nested(slopes, 1, "prelu: slopes")[0])

    def output_shape(self, shapes: Sequence[Shape], what: str = "prelu") -> Shape:
        shape = _one_input(shapes, what)
        if len(self.slopes) not in (1, shape[0]):
            raise InvalidInputError(f"{what}: slopes: expected 1 or {shape[0]} slopes (one per channel), got "
                                    f"{len(self.slopes)}")
        return shape

    def elementwise(self, shape: Shape) -> tuple[PiecewiseActivation, ...]:
        per = flat_size(shape[1:])
        units = [_prelu_piece(self.slopes[0 if len(self.slopes) == 1 else c]) for c in range(shape[0])]
        return tuple(units[j // per] for j in range(flat_size(shape)))


def _prelu_piece(slope: Fraction) -> PiecewiseActivation:
    return linear() if slope == 1 else leaky_relu(slope, what="prelu: slopes")


@dataclass(frozen=True)
class MaxPool(_Pool):
    """Max pooling over windows; padding never wins (PyTorch pads with minus infinity).

    ``kernel``, ``stride`` (default: the kernel) and ``padding`` give one integer per spatial axis; a single
    integer stands for every spatial axis of the input.
    """

    kind = "maxpool"

    def output_shape(self, shapes: Sequence[Shape], what: str = "maxpool") -> Shape:
        return self._positions(shapes, what)[0]

    def max_groups(self, shape: Shape) -> tuple[tuple[int, ...], ...]:
        out, positions = self._positions([shape], self.kind)
        strides = _strides(shape)
        return tuple(tuple(c * strides[0] + sum(i * s for i, s in zip(index, strides[1:]))
                           for index in reads if index) for c in range(out[0]) for reads in positions)


@dataclass(frozen=True)
class Maxout:
    """The maximum over consecutive groups of ``k`` channels (axis 0; the features of a vector)."""

    k: int

    kind = "maxout"

    def __post_init__(self) -> None:
        k = integer(self.k, what="maxout: k")
        if k < 1:
            raise InvalidInputError(f"maxout: k: expected a positive integer, got {k}")
        object.__setattr__(self, "k", k)

    def output_shape(self, shapes: Sequence[Shape], what: str = "maxout") -> Shape:
        shape = _one_input(shapes, what)
        if shape[0] % self.k:
            raise InvalidInputError(f"{what}: input: expected a number of channels divisible by k = {self.k}, "
                                    f"got {shape[0]}")
        return (shape[0] // self.k,) + shape[1:]

    def max_groups(self, shape: Shape) -> tuple[tuple[int, ...], ...]:
        per = flat_size(shape[1:])
        return tuple(tuple((c * self.k + i) * per + j for i in range(self.k))
                     for c in range(shape[0] // self.k) for j in range(per))


Operation = Union[Dense, Conv, AvgPool, MaxPool, BatchNorm, Scale, Activation, PReLU, Maxout, Add, Concat, Flatten,
                  Reshape, Permute, Pad, Take]


# --- sizes, checked before anything of that size is built ----------------------------------------------------
# A shape is a few bytes of JSON (an input of [100000, 100000, 100000], a padding of 10^30, the concatenation of
# 100,000 copies) but the tensor it declares is allocated entry by entry: every operation's output_shape (which
# GraphNetwork calls on each node, before any weight map is built) refuses inputs and outputs above
# polyregions._limits.MAX_TENSOR_ENTRIES, and windows above MAX_WINDOW_READS, before the operation's own
# arithmetic runs.

def _window_count(op: Any, shapes: Sequence[Shape]) -> tuple[int, int] | None:
    """The output positions and kernel entries of a convolution or pooling node, by arithmetic only (None
    when the input does not fit the node: its own checks then say why)."""
    if len(shapes) != 1:
        return None
    shape = shapes[0]
    if isinstance(op, Conv):
        kernel, stride, padding, dilation = op.kernel, op.stride, op.padding, op.dilation
    else:
        kernel, stride, padding = op.kernel, op.stride or op.kernel, op.padding
        if len(kernel) == 1 and len(shape) > 2:
            kernel, stride, padding = (kernel * (len(shape) - 1), stride * (len(shape) - 1),
                                       padding * (len(shape) - 1))
        dilation = (1,) * len(kernel)
    if len(shape) != len(kernel) + 1:
        return None
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    sizes = [(n + 2 * p - span) // s + 1 for n, p, s, span in zip(shape[1:], padding, stride, spans)]
    return (math.prod(sizes) if min(sizes) > 0 else 0), math.prod(kernel)


def _check_sizes(op: Any, shapes: Sequence[Shape], what: str) -> None:
    from polyregions._limits import check_at_most

    for i, shape in enumerate(shapes):
        check_at_most("MAX_TENSOR_ENTRIES", flat_size(shape), what=f"{what}: inputs[{i}] of shape "
                      f"[{', '.join(_count(n) for n in shape)}]",
                      unit="entries")
    if isinstance(op, (Conv, _Pool)):
        counted = _window_count(op, shapes)
        if counted is not None:
            positions, kernel = counted
            channels = _shape_of(op.weight)[0] if isinstance(op, Conv) else shapes[0][0]
            check_at_most("MAX_TENSOR_ENTRIES", channels * positions, what=f"{what}: output of {channels} x "
                          f"{_count(positions)} positions", unit="entries")
            check_at_most("MAX_WINDOW_READS", positions * kernel, what=f"{what}: {_count(positions)} windows of "
                          f"{_count(kernel)} entries", unit="reads")


def _sized(output_shape: Any) -> Any:
    """``output_shape`` behind :func:`_check_sizes` (inputs and windows) and a check of the output's size."""
    @functools.wraps(output_shape)
    def checked(self: Any, shapes: Sequence[Shape], *args: Any, **kwargs: Any) -> Shape:
        from polyregions._limits import check_at_most

        what = args[0] if args else kwargs.get("what", self.kind)
        _check_sizes(self, shapes, what)
        shape = output_shape(self, shapes, *args, **kwargs)
        check_at_most("MAX_TENSOR_ENTRIES", flat_size(shape), what=f"{what}: output of shape "
                      f"[{', '.join(_count(n) for n in shape)}]", unit="entries")
        return shape

    return checked


def _count(value: int) -> str:
    from polyregions._limits import describe_count

    return str(value) if value < 10 ** 18 else describe_count(value)


_SIZED: tuple[Any, ...] = (Dense, Conv, AvgPool, MaxPool, BatchNorm, Scale, Activation, PReLU, Maxout, Add, Concat,
                           Flatten, Reshape, Permute, Pad)
for _operation in _SIZED:
    _operation.output_shape = _sized(_operation.output_shape)
