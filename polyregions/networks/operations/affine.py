"""Affine operations: dense layers, convolutions, average pooling, batch normalisation, entry-wise scaling and
residual additions, each an exact sparse affine map of its inputs."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import integer
from polyregions.networks.operations._sizes import sized
from polyregions.networks.operations._tensors import (
    Pool,
    Shape,
    SparseAffine,
    flat,
    flat_size,
    int_tuple,
    nested,
    one_input,
    probe,
    row_strides,
    shape_of,
    spread,
    windows,
)

__all__ = ["Dense", "Conv", "AvgPool", "BatchNorm", "Scale", "Add"]


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
        weight, shape = nested(self.weight, 2, "dense: weight")
        bias, bias_shape = nested(self.bias, 1, "dense: bias")
        if bias_shape[0] != shape[0]:
            raise InvalidInputError(f"dense: bias: expected {shape[0]} numbers (one per weight row), "
                                    f"got {bias_shape[0]}")
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "bias", bias)

    kind = "dense"

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "dense") -> Shape:
        size = flat_size(one_input(shapes, what))
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
        ndim = weight.ndim if isinstance(weight, np.ndarray) else len(shape_of(probe(weight)))
        if ndim not in (3, 4):
            raise InvalidInputError(f"conv: weight: expected 3 axes [C_out, C_in/groups, k] or 4 axes "
                                    f"[C_out, C_in/groups, kh, kw], got {ndim}")
        weight, shape = nested(weight, ndim, "conv: weight")
        bias, bias_shape = nested(self.bias, 1, "conv: bias")
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
        object.__setattr__(self, "stride", int_tuple(spread(self.stride, axes), axes, "conv: stride", minimum=1))
        object.__setattr__(self, "padding", int_tuple(spread(self.padding, axes), axes, "conv: padding", minimum=0))
        object.__setattr__(self, "dilation", int_tuple(spread(self.dilation, axes), axes, "conv: dilation",
                                                   minimum=1))
        object.__setattr__(self, "groups", groups)

    @property
    def kernel(self) -> Shape:
        """The kernel's spatial shape."""
        return shape_of(self.weight)[2:]

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "conv") -> Shape:
        shape = one_input(shapes, what)
        c_out, c_in_group = shape_of(self.weight)[:2]
        if len(shape) != len(self.kernel) + 1:
            raise InvalidInputError(f"{what}: input: expected {len(self.kernel) + 1} axes (channels first, "
                                    f"no batch axis), got shape {list(shape)}")
        if shape[0] != c_in_group * self.groups:
            raise InvalidInputError(f"{what}: input: expected {c_in_group * self.groups} channels "
                                    f"({c_in_group} per group x {self.groups} groups), got {shape[0]}")
        spatial, _ = windows(shape, self.kernel, self.stride, self.padding, self.dilation, what)
        return (c_out,) + spatial

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        shape = shapes[0]
        c_out, c_in_group = shape_of(self.weight)[:2]
        spatial, (positions,) = windows(shape, self.kernel, self.stride, self.padding, self.dilation, "conv")
        strides = row_strides(shape)
        per_group = c_out // self.groups
        weights = [[flat(self.weight[o][c]) for c in range(c_in_group)] for o in range(c_out)]
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


@dataclass(frozen=True)
class AvgPool(Pool):
    """Average pooling over windows (see :class:`MaxPool` for the parameters); zero padding counts toward the
    divisor (PyTorch's default)."""

    kind = "avgpool"

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "avgpool") -> Shape:
        return self._positions(shapes, what)[0]

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        out, positions = self._positions(shapes, self.kind)
        strides = row_strides(shapes[0])
        weight = Fraction(1, len(positions[0]))  # the window's size, padding included
        terms: list[tuple[tuple[int, int, Fraction], ...]] = []
        for c in range(out[0]):
            for reads in positions:
                terms.append(tuple((0, c * strides[0] + sum(i * s for i, s in zip(index, strides[1:])), weight)
                                   for index in reads if index))
        return SparseAffine(tuple(terms), (Fraction(0),) * len(terms))


def _read_scale_shift(op: Any, counted: str) -> None:
    """Read an operation's ``scale`` and ``shift`` exactly, as many shifts as scales (``counted`` says what each
    number stands for, in the message)."""
    scale, shape = nested(op.scale, 1, f"{op.kind}: scale")
    shift, _ = nested(op.shift, 1, f"{op.kind}: shift")
    if len(shift) != shape[0]:
        raise InvalidInputError(f"{op.kind}: shift: expected {shape[0]} numbers ({counted}), got {len(shift)}")
    object.__setattr__(op, "scale", scale)
    object.__setattr__(op, "shift", shift)


@dataclass(frozen=True)
class BatchNorm:
    """``y = scale[c] * x + shift[c]`` per channel (axis 0), batch norm folded from its statistics."""

    scale: Any  # tuples of Fraction once read
    shift: Any

    kind = "batchnorm"

    def __post_init__(self) -> None:
        _read_scale_shift(self, "one per channel")

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "batchnorm") -> Shape:
        shape = one_input(shapes, what)
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
        _read_scale_shift(self, "one per entry, as scale")

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "scale") -> Shape:
        shape = one_input(shapes, what)
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

    @sized
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
