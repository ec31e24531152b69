"""Piecewise-linear operations: element-wise activations (one per entry; PReLU one per channel) and max units
(max pooling, maxout), whose piece is the argmax of their window."""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import integer
from polyregions.networks.activations import Activation as PiecewiseActivation
from polyregions.networks.activations import activation_from_json, leaky_relu, linear, piecewise_linear
from polyregions.networks.operations._sizes import sized
from polyregions.networks.operations._tensors import (
    Pool,
    Shape,
    flat_size,
    nested,
    one_input,
    row_strides,
)

__all__ = ["Activation", "PReLU", "MaxPool", "Maxout", "relu6"]


def relu6() -> PiecewiseActivation:
    """``min(max(t, 0), 6)``: ReLU clipped at 6.

    Examples
    --------
    >>> relu6()(7), relu6()(-1), relu6()(3)
    (Fraction(6, 1), Fraction(0, 1), Fraction(3, 1))
    """
    return piecewise_linear([0, 6], [0, 1, 0], 0)


@dataclass(frozen=True)
class Activation:
    """An element-wise activation (:class:`polyregions.networks.activations.Activation` or its file form)."""

    activation: Any  # an Activation once read (its network-file form is accepted)

    kind = "activation"

    def __post_init__(self) -> None:
        object.__setattr__(self, "activation", activation_from_json(self.activation, what="activation"))

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "activation") -> Shape:
        return one_input(shapes, what)

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
        object.__setattr__(self, "slopes", nested(slopes, 1, "prelu: slopes")[0])

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "prelu") -> Shape:
        shape = one_input(shapes, what)
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
class MaxPool(Pool):
    """Max pooling over windows; padding never wins (PyTorch pads with minus infinity).

    ``kernel``, ``stride`` (default: the kernel) and ``padding`` give one integer per spatial axis; a single
    integer stands for every spatial axis of the input.
    """

    kind = "maxpool"

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "maxpool") -> Shape:
        return self._positions(shapes, what)[0]

    def max_groups(self, shape: Shape) -> tuple[tuple[int, ...], ...]:
        out, positions = self._positions([shape], self.kind)
        strides = row_strides(shape)
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

    @sized
    def output_shape(self, shapes: Sequence[Shape], what: str = "maxout") -> Shape:
        shape = one_input(shapes, what)
        if shape[0] % self.k:
            raise InvalidInputError(f"{what}: input: expected a number of channels divisible by k = {self.k}, "
                                    f"got {shape[0]}")
        return (shape[0] // self.k,) + shape[1:]

    def max_groups(self, shape: Shape) -> tuple[tuple[int, ...], ...]:
        per = flat_size(shape[1:])
        return tuple(tuple((c * self.k + i) * per + j for i in range(self.k))
                     for c in range(shape[0] // self.k) for j in range(per))
