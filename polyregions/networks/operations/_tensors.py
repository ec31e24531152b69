"""The shared vocabulary of the operations: shapes, the sparse affine maps they give, and readers of exact nested
parameters and of convolution and pooling windows."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, integer, rational

__all__ = ["Shape", "Terms", "SparseAffine", "flat_size", "nested", "flat", "shape_of", "int_tuple", "one_input",
           "row_strides", "window_positions", "windows", "probe", "spread", "identity_map", "Pool"]

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


def nested(values: Any, ndim: int, what: str) -> tuple[Any, Shape]:
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
    items = [nested(v, ndim - 1, f"{what}[{i}]") for i, v in enumerate(values)]
    shape = items[0][1]
    for i, (_, other) in enumerate(items):
        if other != shape:
            raise InvalidInputError(f"{what}: expected entries of equal shape {list(shape)}, got {list(other)} "
                                    f"at [{i}]")
    return tuple(v for v, _ in items), (len(items),) + shape


def flat(values: Any) -> list[Fraction]:
    if isinstance(values, Fraction):
        return [values]
    return [v for item in values for v in flat(item)]


def shape_of(values: Any) -> Shape:
    shape = []
    while isinstance(values, tuple):
        shape.append(len(values))
        values = values[0]
    return tuple(shape)


def int_tuple(values: Any, count: int, what: str, *, minimum: int) -> tuple[int, ...]:
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


def one_input(shapes: Sequence[Shape], what: str) -> Shape:
    if len(shapes) != 1:
        raise InvalidInputError(f"{what}: inputs: expected 1 input, got {len(shapes)}")
    return shapes[0]


def row_strides(shape: Shape) -> tuple[int, ...]:
    out, step = [], 1
    for n in reversed(shape):
        out.append(step)
        step *= n
    return tuple(reversed(out))


def window_positions(size: int, kernel: int, stride: int, padding: int, dilation: int, what: str) -> int:
    span = dilation * (kernel - 1) + 1
    if size + 2 * padding < span:
        raise InvalidInputError(f"{what}: expected a spatial size of at least {span - 2 * padding} (the kernel "
                                f"span minus padding), got {size}")
    return (size + 2 * padding - span) // stride + 1


def windows(shape: Shape, kernel: Shape, stride: Shape, padding: Shape, dilation: Shape, what: str
             ) -> tuple[Shape, list[list[list[tuple[int, ...]]]]]:
    """The spatial output shape and, per output position (flat), per kernel offset (flat), the input position
    it reads, or () where it falls on the padding."""
    spatial = shape[1:]
    out = tuple(window_positions(n, k, s, p, d, what) for n, k, s, p, d in
                zip(spatial, kernel, stride, padding, dilation))
    positions: list[list[tuple[int, ...]]] = []
    for where in np.ndindex(*out):
        reads = []
        for offset in np.ndindex(*kernel):
            index = tuple(w * s - p + o * d for w, s, p, o, d in zip(where, stride, padding, offset, dilation))
            reads.append(index if all(0 <= i < n for i, n in zip(index, spatial)) else ())
        positions.append(reads)
    return out, [positions]


def probe(values: Any) -> Any:
    """Nested lists as nested tuples of placeholders, enough to count axes (the first entry of each level)."""
    if isinstance(values, (list, tuple)) and values:
        return (probe(values[0]),)
    return Fraction(0)


def spread(values: Any, axes: int) -> Any:
    """A one-entry sequence stands for every axis."""
    if hasattr(values, "__len__") and not isinstance(values, (str, bytes, dict)) and len(values) == 1:
        return list(values) * axes
    return values


def identity_map(size: int) -> SparseAffine:
    one = Fraction(1)
    return SparseAffine(tuple(((0, j, one),) for j in range(size)), (Fraction(0),) * size)


@dataclass(frozen=True)
class Pool:
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
        kernel = int_tuple(kernel, axes, f"{self.kind}: kernel", minimum=1)
        stride = kernel if self.stride is None else int_tuple(spread(self.stride, axes), axes, f"{self.kind}: stride",
                                                          minimum=1)
        padding = int_tuple(spread(self.padding, axes), axes, f"{self.kind}: padding", minimum=0)
        for i, (p, k) in enumerate(zip(padding, kernel)):
            if 2 * p > k:
                raise InvalidInputError(f"{self.kind}: padding[{i}]: expected at most half the kernel ({k // 2}), "
                                        f"got {p}")
        object.__setattr__(self, "kernel", kernel)
        object.__setattr__(self, "stride", stride)
        object.__setattr__(self, "padding", padding)

    def _positions(self, shapes: Sequence[Shape], what: str) -> tuple[Shape, list[list[tuple[int, ...]]]]:
        shape = one_input(shapes, what)
        kernel, stride, padding = self.kernel, self.stride or self.kernel, self.padding
        if len(kernel) == 1 and len(shape) > 2:  # one size for every spatial axis
            axes = len(shape) - 1
            kernel, stride, padding = kernel * axes, stride * axes, padding * axes
        if len(shape) != len(kernel) + 1:
            raise InvalidInputError(f"{what}: input: expected {len(kernel) + 1} axes (channels first, "
                                    f"no batch axis), got shape {list(shape)}")
        spatial, (positions,) = windows(shape, kernel, stride, padding, (1,) * len(kernel), what)
        return (shape[0],) + spatial, positions
