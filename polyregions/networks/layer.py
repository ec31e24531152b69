"""A layer of a dense network: an exact affine map, then one activation for every unit."""


from __future__ import annotations

import bisect
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.exact.rationals import rational_matrix, rational_vector
from polyregions.networks.activations import Activation, activation_from_json

if TYPE_CHECKING:
    from flint import fmpq, fmpq_mat


__all__ = ["Layer", "fq", "fraction_of", "flint_column"]


def fq(value: Fraction) -> fmpq:
    import flint  # on first use: most mesh runs never need FLINT, whose import costs tens of milliseconds

    return flint.fmpq(value.numerator, value.denominator)


def fraction_of(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def flint_column(values: Sequence[Fraction]) -> fmpq_mat:
    return _column_of([fq(v) for v in values])


def _column_of(values: list[fmpq]) -> fmpq_mat:
    import flint

    return flint.fmpq_mat(len(values), 1, values)


@dataclass(frozen=True)
class Layer:
    """One layer ``x -> activation(weight @ x + bias)``.

    Parameters
    ----------
    weight : sequence of sequences of numbers or 2-D array
        Shape ``(width, fan_in)``, at least one row and one column; read exactly.
    bias : sequence of numbers or 1-D array
        Length ``width``; read exactly.
    activation : Activation or str or dict
        Applied to every unit; an :class:`~polyregions.networks.activations.Activation` or its network-file
        form (``"relu"``, ``{"kind": "leaky_relu", "negative_slope": "1/100"}``).

    Attributes
    ----------
    weight : tuple of tuple of Fraction
        Shape ``(width, fan_in)``.
    bias : tuple of Fraction
        Length ``width``.
    activation : Activation
        Applied to every unit.

    Raises
    ------
    InvalidInputError
        When the weight is empty, the bias length differs from the number of rows, an entry is not a number,
        or the activation cannot be read.

    Examples
    --------
    >>> import polyregions as pr
    >>> layer = pr.Layer([[1, 2]], [-1], "relu")
    >>> layer.width, layer.fan_in, layer.activation == pr.relu()
    (1, 2, True)
    """

    weight: Matrix
    bias: Vector
    activation: Activation

    def __post_init__(self) -> None:
        weight = rational_matrix(self.weight, what="layer: weight")
        if not weight or not weight[0]:
            raise InvalidInputError(f"layer: weight: expected at least one row and one column, "
                                    f"got shape ({len(weight)}, {len(weight[0]) if weight else 0})")
        bias = rational_vector(self.bias, what="layer: bias", length=len(weight))
        activation = activation_from_json(self.activation, what="layer: activation")
        object.__setattr__(self, "weight", weight)
        object.__setattr__(self, "bias", bias)
        object.__setattr__(self, "activation", activation)

    def __reduce__(self):
        return (Layer, (self.weight, self.bias, self.activation))

    def __repr__(self) -> str:
        """The shape and the activation: the exact weights would fill screens (``weight`` holds them).

        Examples
        --------
        >>> Layer([[1, 2], [3, 4], [5, 6]], [0, 0, 0], "relu")
        Layer(3x2, relu)
        """
        return f"Layer({self.width}x{self.fan_in}, {self.activation.name})"

    @property
    def width(self) -> int:
        """The number of units."""
        return len(self.weight)

    @property
    def fan_in(self) -> int:
        """The number of inputs."""
        return len(self.weight[0])

    @cached_property
    def weight_doubles(self) -> np.ndarray:
        """The double nearest to every weight (read-only; ``inf`` or ``-inf`` beyond the double range), shared
        by the float filters that read this layer.

        Examples
        --------
        >>> import polyregions as pr
        >>> pr.Layer([[1, "1/3"]], [0], "relu").weight_doubles.tolist()
        [[1.0, 0.3333333333333333]]
        """
        try:  # int / int rounds correctly, and is quicker than float(Fraction)
            doubles = np.array([[v.numerator / v.denominator for v in row] for row in self.weight], dtype=np.float64)
        except OverflowError:
            doubles = np.array([[_nearest_double(v) for v in row] for row in self.weight], dtype=np.float64)
        doubles.flags.writeable = False
        return doubles

    @cached_property
    def _flint(self) -> tuple[fmpq_mat, fmpq_mat, list[fmpq], list[fmpq], list[fmpq]]:
        import flint

        act = self.activation
        return (flint.fmpq_mat(self.width, self.fan_in, [fq(v) for row in self.weight for v in row]),
                flint_column(self.bias),
                [fq(v) for v in act.breakpoints], [fq(v) for v in act.slopes], [fq(v) for v in act.intercepts])

    def _apply(self, z: fmpq_mat, fixed: Sequence[int] | None = None) -> tuple[fmpq_mat, Sequence[int]]:
        """Apply the activation to the column ``z``; pieces are found from ``z`` unless ``fixed`` gives them."""
        _, _, breakpoints, slopes, intercepts = self._flint
        values = z.entries()
        pieces: Sequence[int]
        if fixed is None:
            pieces = [bisect.bisect_left(breakpoints, v) for v in values]
        else:
            pieces = fixed
        out = [slopes[k] * v + intercepts[k] for k, v in zip(pieces, values)]
        return _column_of(out), pieces


def _nearest_double(value: Fraction) -> float:
    try:
        return value.numerator / value.denominator
    except OverflowError:
        return math.inf if value > 0 else -math.inf
