"""The network of an export, read exactly, and its exact forward pass with a fixed or an actual pattern.

Activations are continuous and piecewise linear: ``relu``, ``linear``, ``hardtanh``, ``leaky_relu`` and
``piecewise_linear`` (the forms of the ``polyregions.network/1`` file). A *neuron* is a unit of a layer whose
activation is not linear; its *piece* at a point is the number of breakpoints strictly below its pre-activation.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import Any, Sequence

from .errors import InputError
from .reading import check_keys, describe, get_key, parse_number, read_int, read_list, read_matrix, read_vector

__all__ = ["NETWORK_FORMAT", "Activation", "Layer", "Network", "Evaluation", "read_activation", "read_network"]

NETWORK_FORMAT = "polyregions.network/1"
_ZERO = Fraction(0)


@dataclass(frozen=True, eq=False)
class Activation:
    """Continuous piecewise linear: slope ``slopes[k]`` and intercept ``intercepts[k]`` on piece ``k``."""

    breakpoints: tuple[Fraction, ...]
    slopes: tuple[Fraction, ...]
    intercepts: tuple[Fraction, ...]

    @property
    def is_linear(self) -> bool:
        return not self.breakpoints

    @cached_property
    def integer_den(self) -> int:
        return math.lcm(*(v.denominator for v in self.slopes + self.intercepts))

    @cached_property
    def integer_slopes(self) -> tuple[int, ...]:
        return tuple(int(v * self.integer_den) for v in self.slopes)

    @cached_property
    def integer_intercepts(self) -> tuple[int, ...]:
        return tuple(int(v * self.integer_den) for v in self.intercepts)

    @cached_property
    def breakpoint_pairs(self) -> tuple[tuple[int, int], ...]:
        return tuple((xi.numerator, xi.denominator) for xi in self.breakpoints)

    def bounds(self, piece: int) -> tuple[Fraction | None, Fraction | None]:
        """The closed interval of pre-activations of a piece (None: unbounded)."""
        low = self.breakpoints[piece - 1] if piece > 0 else None
        high = self.breakpoints[piece] if piece < len(self.breakpoints) else None
        return low, high


def _make_activation(breakpoints, slopes, offset) -> Activation:
    intercepts = [offset]
    for k, xi in enumerate(breakpoints):  # continuity at xi fixes the next intercept
        intercepts.append(intercepts[-1] + (slopes[k] - slopes[k + 1]) * xi)
    return Activation(tuple(breakpoints), tuple(slopes), tuple(intercepts))


_ACTIVATION_KEYS = {"relu": ("kind",), "linear": ("kind",), "hardtanh": ("kind",),
                    "leaky_relu": ("kind", "negative_slope"),
                    "piecewise_linear": ("kind", "breakpoints", "slopes", "offset")}


def read_activation(obj: Any, where: str) -> Activation:
    """An activation in the network-file form: a name, or an object with ``kind`` and its numbers."""
    one, zero = Fraction(1), _ZERO
    named = {"relu": ((zero,), (zero, one), zero), "linear": ((), (one,), zero),
             "hardtanh": ((-one, one), (zero, one, zero), -one)}
    if isinstance(obj, str) and obj in named:
        return _make_activation(*named[obj])
    if isinstance(obj, dict):
        kind = obj.get("kind")
        if isinstance(kind, str) and kind in _ACTIVATION_KEYS:
            check_keys(obj, _ACTIVATION_KEYS[kind], where)
        if kind in named:
            return _make_activation(*named[kind])
        if kind == "leaky_relu":
            slope = parse_number(get_key(obj, "negative_slope", where), f"{where}.negative_slope")
            if slope == 1:
                raise InputError(f"{where}.negative_slope", "expected a slope other than 1 (1 is the identity)")
            return _make_activation((zero,), (slope, one), zero)
        if kind == "piecewise_linear":
            breakpoints = read_vector(get_key(obj, "breakpoints", where), f"{where}.breakpoints")
            slopes = read_vector(get_key(obj, "slopes", where), f"{where}.slopes", len(breakpoints) + 1)
            offset = parse_number(get_key(obj, "offset", where), f"{where}.offset")
            if any(x >= y for x, y in zip(breakpoints, breakpoints[1:])):
                raise InputError(f"{where}.breakpoints", "expected strictly increasing breakpoints")
            if any(x == y for x, y in zip(slopes, slopes[1:])):
                raise InputError(f"{where}.slopes", "expected consecutive slopes to differ")
            return _make_activation(breakpoints, slopes, offset)
    raise InputError(where, f"expected \"relu\", \"linear\", \"hardtanh\" or an object with kind "
                            f"\"leaky_relu\" or \"piecewise_linear\", got {describe(obj)}")


@dataclass(frozen=True, eq=False)
class Layer:
    """``x -> activation(weight x + bias)``, exact."""

    weight: tuple[tuple[Fraction, ...], ...]
    bias: tuple[Fraction, ...]
    activation: Activation

    @cached_property
    def integer_form(self) -> tuple[list[list[int]], int, list[int], int]:
        """``(W, w_den, bias, b_den)``: integers with weight = W / w_den and bias = bias / b_den."""
        w_den = math.lcm(*(v.denominator for row in self.weight for v in row))
        b_den = math.lcm(*(v.denominator for v in self.bias))
        return ([[int(v * w_den) for v in row] for row in self.weight], w_den,
                [int(v * b_den) for v in self.bias], b_den)


@dataclass(frozen=True)
class Network:
    """The layers in order; the neurons are the units of the layers whose activation is not linear."""

    input_dim: int
    layers: tuple[Layer, ...]

    @property
    def neurons(self) -> list[tuple[int, int]]:
        return [(l, u) for l, layer in enumerate(self.layers) if not layer.activation.is_linear
                for u in range(len(layer.bias))]

    @property
    def output_dim(self) -> int:
        return len(self.layers[-1].bias)

    def evaluate(self, pattern: Sequence[int], t0: Sequence[Fraction], origin: Sequence[Fraction],
                 directions: Sequence[Sequence[Fraction]]) -> "Evaluation":
        """One exact pass at the point ``x = origin + directions^T t0``, in integers with common denominators.

        Two things travel together through the layers, as the columns of one integer matrix over one common
        denominator: the affine map ``t -> G t + g`` of the layer's input with every neuron held on its
        *recorded* piece (``k`` columns for ``G``, one for ``g``: the fixed-pattern network, whose Jacobian is
        ``G``), and the network's actual value at the point (one column; each neuron on the piece its
        pre-activation falls in, which gives the actual pattern).
        """
        k = len(t0)
        x0 = [o + sum((ti * d[q] for ti, d in zip(t0, directions)), _ZERO) for q, o in enumerate(origin)]
        entries = [[d[q] for d in directions] + [origin[q], x0[q]] for q in range(self.input_dim)]
        den = math.lcm(*(e.denominator for row in entries for e in row))
        X = [[int(e * den) for e in row] for row in entries]
        actual, neurons, cursor = [], [], 0
        for layer in self.layers:
            W, w_den, bias, b_den = layer.integer_form
            act = layer.activation
            Dn = math.lcm(w_den * den, b_den)
            s1, s2 = Dn // (w_den * den), Dn // b_den
            columns = list(zip(*X))
            newX = []
            for row, b in zip(W, bias):
                Y = [s1 * sum(w * x for w, x in zip(row, col)) for col in columns]
                Y[k] += s2 * b
                Y[k + 1] += s2 * b
                if act.is_linear:
                    recorded = here = 0
                else:
                    here = sum(1 for p, q in act.breakpoint_pairs if p * Dn < Y[k + 1] * q)
                    recorded = pattern[cursor] if 0 <= pattern[cursor] <= len(act.breakpoints) else here
                    actual.append(here)
                    neurons.append((tuple(Y[:k]), Y[k], Dn, recorded, act))
                    cursor += 1
                S, C = act.integer_slopes, act.integer_intercepts
                newX.append([S[recorded] * y for y in Y[:k]] + [S[recorded] * Y[k] + C[recorded] * Dn,
                                                                  S[here] * Y[k + 1] + C[here] * Dn])
            den = act.integer_den * Dn
            divisor = math.gcd(den, *(v for row in newX for v in row))
            X, den = [[v // divisor for v in row] for row in newX], den // divisor
        M = tuple(tuple(Fraction(v, den) for v in row[:k]) for row in X)
        return Evaluation(tuple(actual), M, tuple(Fraction(row[k], den) for row in X),
                           tuple(Fraction(row[k + 1], den) for row in X), neurons)


@dataclass(frozen=True)
class Evaluation:
    """What :meth:`Network.evaluate` finds at one point."""

    pattern: tuple[int, ...]           # the actual pattern at the point
    M: tuple                           # Jacobian of the fixed-pattern network (domain coordinates)
    c: tuple                           # its constant term
    output: tuple                      # the network's output at the point
    neurons: list                      # per neuron: (a, d, den, piece, activation): pre-activation (a.t + d)/den


def read_network(obj: Any, where: str) -> Network:
    """The ``polyregions.network/1`` object of an export (``format``, ``input_dim``, ``layers``; nothing else)."""
    if not isinstance(obj, dict):
        raise InputError(where, f"expected a network object, got {describe(obj)}")
    if obj.get("format") == "polyregions.stages/1":  # a graph network's stages
        from .stages import read_stages

        return read_stages(obj, where)  # type: ignore[return-value]
    check_keys(obj, ("format", "input_dim", "layers"), where)
    if get_key(obj, "format", where) != NETWORK_FORMAT:
        raise InputError(f"{where}.format", f"expected {NETWORK_FORMAT!r}, got {describe(obj['format'])}")
    input_dim = read_int(get_key(obj, "input_dim", where), f"{where}.input_dim", low=1)
    layers_obj = read_list(get_key(obj, "layers", where), f"{where}.layers")
    if not layers_obj:
        raise InputError(f"{where}.layers", "expected at least one layer, got none")
    layers, fan_in = [], input_dim
    for i, layer in enumerate(layers_obj):
        here = f"{where}.layers[{i}]"
        check_keys(layer, ("weight", "bias", "activation"), here)
        weight = read_matrix(get_key(layer, "weight", here), f"{here}.weight", None, fan_in)
        if not weight:
            raise InputError(f"{here}.weight", "expected at least one row, got none")
        bias = read_vector(get_key(layer, "bias", here), f"{here}.bias", len(weight))
        layers.append(Layer(weight, bias, read_activation(get_key(layer, "activation", here), f"{here}.activation")))
        fan_in = len(weight)
    return Network(input_dim, tuple(layers))
