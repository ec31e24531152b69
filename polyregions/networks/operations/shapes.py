"""Operations that move entries: concatenation, flattening, reshaping, permuting axes, padding and taking entries
along an axis, each an exact selection (a sparse affine map of ones, plus the padding's constant)."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, integer, rational
from polyregions.networks.operations._sizes import sized
from polyregions.networks.operations._tensors import (
    Shape,
    SparseAffine,
    flat_size,
    identity_map,
    int_tuple,
    one_input,
)

__all__ = ["Concat", "Flatten", "Reshape", "Permute", "Pad", "Take"]


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

    @sized
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

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "flatten") -> Shape:
        return (flat_size(one_input(shapes, what)),)

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        return identity_map(flat_size(shapes[0]))


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

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "reshape") -> Shape:
        size = flat_size(one_input(shapes, what))
        known = -flat_size(self.shape) if -1 in self.shape else flat_size(self.shape)
        if (-1 in self.shape and size % known) or (-1 not in self.shape and known != size):
            raise InvalidInputError(f"{what}: shape: expected a shape of {size} entries (the input's), got "
                                    f"{list(self.shape)}")
        return tuple(size // known if v == -1 else v for v in self.shape)

    def affine(self, shapes: Sequence[Shape]) -> SparseAffine:
        return identity_map(flat_size(shapes[0]))


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

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "permute") -> Shape:
        shape = one_input(shapes, what)
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
        read = tuple(int_tuple(p, 2, f"pad: pads[{i}]", minimum=0) for i, p in enumerate(pads))
        object.__setattr__(self, "pads", read)
        object.__setattr__(self, "value", rational(self.value, what="pad: value"))

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "pad") -> Shape:
        shape = one_input(shapes, what)
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

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "take") -> Shape:
        shape = one_input(shapes, what)
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
