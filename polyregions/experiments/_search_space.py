"""The networks a counterexample search walks over: a grid of simple exact values (integers and halves by
default), and the shape of a network (dense widths or a graph's weighted nodes) whose parameters take them."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.networks.activations import Activation
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.network import Network


__all__ = ["simple_values", "Shape", "GraphShape", "dense_shape", "simplicity"]


def simple_values(*, max_abs: Any = 2, denominators: Iterable[int] = (1, 2)) -> tuple[Fraction, ...]:
    """The sorted grid ``{p / q : q in denominators, |p / q| <= max_abs}`` of weights the search draws from.

    Examples
    --------
    >>> [str(v) for v in simple_values(max_abs=1, denominators=(1, 2))]
    ['-1', '-1/2', '0', '1/2', '1']
    """
    from polyregions._support.limits import MAX_GRID_VALUES
    from polyregions.exact.rationals import _describe, rational

    bound = rational(max_abs, what="max_abs")
    if bound <= 0:
        raise InvalidInputError(f"max_abs: expected a positive number, got {_number(bound)}")
    dens = list(denominators) if not isinstance(denominators, (str, bytes)) and hasattr(denominators, "__iter__") \
        else None
    if not dens or any(isinstance(q, bool) or not isinstance(q, int) or q < 1 for q in dens):
        raise InvalidInputError(f"denominators: expected positive integers such as 1,2, got "
                                f"{_describe(denominators)}")
    # the size before the grid is built: |p| <= max_abs * q for each q (repeated values counted once each)
    size = sum(2 * math.floor(bound * q) + 1 for q in dict.fromkeys(dens))
    if size > MAX_GRID_VALUES:
        count = f"{size:,}" if size < 10 ** 15 else "more than 10^15"
        raise InvalidInputError(f"max_abs, denominators: expected a grid of at most {MAX_GRID_VALUES:,} weights, got "
                                f"max_abs {_number(bound)} and denominators {_describe(dens)}, a grid of up to "
                                f"{count}")
    values = {Fraction(p, q) for q in dens for p in range(-int(bound * q), int(bound * q) + 1)}
    return tuple(sorted(values))


def _number(value: Fraction) -> str:
    from polyregions.exact.rationals import format_rational

    text = format_rational(value)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def simplicity(value: Fraction) -> tuple:
    """Sort key: 0 first, then small denominators, small numerators, positive before negative."""
    return (value != 0, value.denominator, abs(value.numerator), value < 0)


@dataclass(frozen=True)
class Shape:
    """The parameter layout of an architecture: per layer (rows, cols, activation)."""

    input_dim: int
    layers: tuple[tuple[int, int, "Activation"], ...]

    @property
    def size(self) -> int:
        return sum(rows * cols + rows for rows, cols, _ in self.layers)

    def build(self, params: Sequence[Fraction]) -> "Network":
        from polyregions.networks.layer import Layer
        from polyregions.networks.network import Network

        layers, position = [], 0
        for rows, cols, act in self.layers:
            weight = tuple(tuple(params[position + r * cols: position + (r + 1) * cols]) for r in range(rows))
            position += rows * cols
            bias = tuple(params[position: position + rows])
            position += rows
            layers.append(Layer(weight, bias, act))
        return Network(self.input_dim, tuple(layers))

    @classmethod
    def of(cls, network: "Network") -> "Shape":
        return cls(network.input_dim, tuple((l.width, l.fan_in, l.activation) for l in network.layers))

    @staticmethod
    def params_of(network: "Network") -> tuple[Fraction, ...]:
        return tuple(v for layer in network.layers for v in (*(x for row in layer.weight for x in row),
                                                             *layer.bias))


@dataclass(frozen=True)
class GraphShape:
    """The parameter layout of a graph network: the weights, then the biases, of every dense and convolutional
    node in order; the other operations (pooling, maxout, batch norm, PReLU slopes, ...) stay as they are."""

    network: "GraphNetwork"

    @property
    def input_dim(self) -> int:
        return self.network.input_dim

    @property
    def size(self) -> int:
        return len(self.params_of(self.network))

    def build(self, params: Sequence[Fraction]) -> "GraphNetwork":
        from dataclasses import replace

        import numpy as np

        from polyregions.networks.graph import GraphNetwork

        nodes, position = [], 0
        for node in self.network.nodes:
            op: Any = node.op
            if _is_weighted(op):
                shape = _weight_shape(op.weight)
                count = math.prod(shape)
                weight = np.array(params[position: position + count], dtype=object).reshape(shape)
                position += count
                bias = list(params[position: position + len(op.bias)])
                position += len(op.bias)
                node = replace(node, op=replace(op, weight=weight, bias=bias))
            nodes.append(node)
        return GraphNetwork(self.network.input_shape, tuple(nodes), self.network.output)

    @staticmethod
    def params_of(network: Any) -> tuple[Fraction, ...]:
        params: list[Fraction] = []
        for node in network.nodes:
            op: Any = node.op
            if _is_weighted(op):
                params += _flatten(op.weight) + list(op.bias)
        return tuple(params)


def _is_weighted(op: Any) -> bool:
    from polyregions.networks.operations import Conv, Dense

    return isinstance(op, (Dense, Conv))


def _weight_shape(weight: Any) -> tuple[int, ...]:
    """The shape of nested tuples (every level non-empty and regular, as the operations store them)."""
    shape = []
    while isinstance(weight, tuple):
        shape.append(len(weight))
        weight = weight[0]
    return tuple(shape)


def _flatten(weight: Any) -> list[Fraction]:
    return [v for part in weight for v in _flatten(part)] if isinstance(weight, tuple) else [weight]


def dense_shape(widths: Any, activation: Any, output_dim: Any) -> Shape:
    from polyregions.experiments.architectures import parse_activation
    from polyregions.networks.activations import linear

    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__iter__"):
        raise InvalidInputError(f"widths: expected [input_dim, width_1, ..., width_L] such as [1, 2, 2], "
                                f"got {widths!r}")
    widths = list(widths)
    if len(widths) < 2 or any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in widths):
        raise InvalidInputError(f"widths: expected the input dimension and at least one layer width, all "
                                f"positive integers, got {widths!r}")
    _, act = parse_activation(activation)
    if act.is_linear:
        raise InvalidInputError("activation: expected a non-linear activation (a linear one has no regions), "
                                "got linear")
    layers = [(w, fan_in, act) for fan_in, w in zip(widths, widths[1:])]
    if output_dim is not None:
        if isinstance(output_dim, bool) or not isinstance(output_dim, int) or output_dim < 1:
            raise InvalidInputError(f"output_dim: expected a positive integer or None, got {output_dim!r}")
        layers.append((output_dim, widths[-1], linear()))
    return Shape(widths[0], tuple(layers))
