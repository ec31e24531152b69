"""Architecture specifications for sweeps: dense widths, 1-D convolutions, max pooling and maxout, in one line.

A specification is the input size followed by layers, separated by ``-`` (the spelling of the sweep table's
``architecture`` column, where the dense ``2-8-8`` already stands for ``--widths 2,8,8``):

``W``
    a dense layer of ``W`` units, then the sweep's activation;
``conv1d:C,K``
    a 1-D convolution with ``C`` output channels and kernel ``K`` (stride 1, no padding), then the activation;
    the input (or a dense layer before it) is read as one channel;
``maxpool:P``
    1-D max pooling over windows of ``P`` (stride ``P``) of a convolution's output, no activation;
``maxout:W,K``
    a dense map to ``W K`` values and ``W`` maxout units over groups of ``K`` (no other activation).

A dense layer after a convolution reads its flattened output. No output layer is added: regions are counted
over the hidden units, as for dense sweeps. Parameters are drawn per seed as the dense initialisers draw them
(:func:`~polyregions.networks.initializers.he_normal`: weights of variance ``2 / fan_in``, biases of standard
deviation 1/1000; :func:`~polyregions.networks.initializers.pytorch_default`: both uniform in
``+-1/sqrt(fan_in)``), with ``fan_in`` the inputs of one unit (``C_in K`` for a convolution), in float32 and
then read exactly.

Examples
--------
>>> spec = parse_architecture("4-conv1d:2,2-maxpool:3-maxout:2,2")
>>> spec.text, spec.is_dense, spec.parameters
('4-conv1d:2,2-maxpool:3-maxout:2,2', False, 18)
>>> net = spec.draw(seed=0, init="he_normal", activation="relu")
>>> net.shapes["conv1"], net.shapes["maxpool2"], net.output_shape, net.staged.num_neurons
((2, 3), (2, 1), (2,), 10)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any

import numpy as np

from polyregions.errors import InvalidInputError

__all__ = ["ArchitectureSpec", "parse_architecture", "LAYER_KINDS"]

#: The layer kinds of a specification and the integers each takes.
LAYER_KINDS = {"dense": 1, "conv1d": 2, "maxpool": 1, "maxout": 2}
_EXPECTED = "N0-LAYER-..., each LAYER W, conv1d:C,K, maxpool:P or maxout:W,K (such as 8-conv1d:2,3-maxpool:2)"


@dataclass(frozen=True)
class ArchitectureSpec:
    """A parsed specification: the input size and the layers, each ``(kind, integers)``."""

    input_dim: int
    layers: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def text(self) -> str:
        """The canonical spelling (the sweep table's ``architecture``)."""
        parts = [str(self.input_dim)]
        for kind, values in self.layers:
            numbers = ",".join(map(str, values))
            parts.append(numbers if kind == "dense" else f"{kind}:{numbers}")
        return "-".join(parts)

    @property
    def is_dense(self) -> bool:
        """Whether every layer is dense (then the sweep draws a dense network from the widths)."""
        return all(kind == "dense" for kind, _ in self.layers)

    @property
    def widths(self) -> tuple[int, ...]:
        """``(n0, n1, ...)`` of a dense specification."""
        return (self.input_dim,) + tuple(values[0] for _, values in self.layers)

    @property
    def parameters(self) -> int:
        """The number of weights and biases."""
        return sum(fan_in * rows + rows for fan_in, rows in _weighted(self))

    def draw(self, *, seed: int, init: str, activation: Any) -> Any:
        """The :class:`~polyregions.networks.graph.GraphNetwork` of this architecture with parameters drawn
        from ``seed`` by ``init`` (``"he_normal"`` or ``"pytorch_default"``); ``activation`` follows every dense
        and convolutional layer."""
        from polyregions.networks.activations import activation_from_json
        from polyregions.networks.graph import GraphNetwork, Node
        from polyregions.networks.initializers import random_generator
        from polyregions.networks.operations import Activation, Conv, Dense, Maxout, MaxPool, Reshape

        if init not in ("he_normal", "pytorch_default"):
            raise InvalidInputError(f"init: expected he_normal or pytorch_default, got {init!r}")
        act = activation_from_json(activation, what="activation")
        rng = random_generator(seed)
        nodes: list[Node] = []
        current = "input"
        shape: tuple[int, ...] = (self.input_dim,)

        def add(name: str, op: Any) -> None:
            nonlocal current
            nodes.append(Node(name, op, (current,)))
            current = name

        for index, (kind, values) in enumerate(self.layers, start=1):
            if kind == "conv1d":
                channels, kernel = values
                if len(shape) == 1:
                    add(f"reshape{index}", Reshape((1, shape[0])))
                    shape = (1, shape[0])
                weight, bias = _draw(rng, init, channels, shape[0] * kernel)
                add(f"conv{index}", Conv(weight.reshape(channels, shape[0], kernel), bias))
                add(f"act{index}", Activation(act))
                shape = (channels, shape[1] - kernel + 1)
            elif kind == "maxpool":
                add(f"maxpool{index}", MaxPool(values[0]))
                shape = (shape[0], shape[1] // values[0])
            else:  # dense or maxout: a dense map of the flattened input
                rows = values[0] * values[1] if kind == "maxout" else values[0]
                weight, bias = _draw(rng, init, rows, math.prod(shape))
                add(f"dense{index}", Dense(weight, bias))
                add(f"{kind}{index}" if kind == "maxout" else f"act{index}",
                    Maxout(values[1]) if kind == "maxout" else Activation(act))
                shape = (values[0],)
        return GraphNetwork((self.input_dim,), tuple(nodes), current)


def _draw(rng: np.random.Generator, init: str, rows: int, fan_in: int) -> tuple[np.ndarray, list[Fraction]]:
    """Weights ``(rows, fan_in)`` and biases, as the dense initialisers draw them, rounded to float32; the
    weights as an array of Fraction."""
    if init == "he_normal":
        weight = rng.normal(0.0, math.sqrt(2.0 / fan_in), size=(rows, fan_in))
        bias = rng.normal(0.0, 1e-3, size=rows)
    else:
        bound = 1.0 / math.sqrt(fan_in)
        weight, bias = rng.uniform(-bound, bound, size=(rows, fan_in)), rng.uniform(-bound, bound, size=rows)
    exact = np.array([Fraction(v) for v in weight.astype(np.float32).astype(np.float64).ravel().tolist()],
                     dtype=object).reshape(rows, fan_in)
    return exact, [Fraction(v) for v in bias.astype(np.float32).astype(np.float64).tolist()]


def _weighted(spec: ArchitectureSpec) -> list[tuple[int, int]]:
    """``(fan_in, rows)`` of every weighted layer, checking that each layer fits the shape before it."""
    shape: tuple[int, ...] = (spec.input_dim,)
    out = []
    for i, (kind, values) in enumerate(spec.layers, start=1):
        if kind == "conv1d":
            channels, kernel = values
            channels_in, length = shape if len(shape) == 2 else (1, shape[0])
            if kernel > length:
                raise InvalidInputError(f"architecture {spec.text!r}: layer {i} (conv1d): expected a kernel of at "
                                        f"most the input length {length}, got {kernel}")
            out.append((channels_in * kernel, channels))
            shape = (channels, length - kernel + 1)
        elif kind == "maxpool":
            if len(shape) != 2 or values[0] > shape[1]:
                what = "a convolution's output" if len(shape) != 2 else f"a window of at most {shape[1]}"
                raise InvalidInputError(f"architecture {spec.text!r}: layer {i} (maxpool): expected {what}, got "
                                        f"maxpool:{values[0]}")
            shape = (shape[0], shape[1] // values[0])
        else:
            rows = values[0] * values[1] if kind == "maxout" else values[0]
            out.append((math.prod(shape), rows))
            shape = (values[0],)
    return out


def parse_architecture(text: Any) -> ArchitectureSpec:
    """The :class:`ArchitectureSpec` of a specification such as ``"8-conv1d:2,3-maxpool:2-maxout:4,2"``.

    Examples
    --------
    >>> parse_architecture("2-8-8").widths
    (2, 8, 8)
    >>> parse_architecture("2-conv1d:2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polyregions.errors.InvalidInputError: architecture '2-conv1d:2': layer 1: expected conv1d:C,K ...
    """
    from polyregions._limits import MAX_NETWORK_PARAMETERS
    from polyregions.exact.rationals import _describe

    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"architecture: expected {_EXPECTED}, got {_describe(text)}")
    parts = [part.strip() for part in text.strip().split("-")]
    if len(parts) < 2:
        raise InvalidInputError(f"architecture {text!r}: expected {_EXPECTED}")
    input_dim = _positive(parts[0], text, "input size")
    layers = []
    for i, part in enumerate(parts[1:], start=1):
        kind, colon, numbers = part.partition(":")
        if not colon:
            kind, numbers = "dense", part
        if kind not in LAYER_KINDS or kind == "dense" and colon:
            raise InvalidInputError(f"architecture {text!r}: layer {i}: expected W, conv1d:C,K, maxpool:P or "
                                    f"maxout:W,K, got {part!r}")
        values = tuple(_positive(v, text, f"layer {i}") for v in numbers.split(","))
        if len(values) != LAYER_KINDS[kind]:
            form = {"dense": "W", "conv1d": "conv1d:C,K", "maxpool": "maxpool:P", "maxout": "maxout:W,K"}[kind]
            raise InvalidInputError(f"architecture {text!r}: layer {i}: expected {form} ({LAYER_KINDS[kind]} "
                                    f"positive integer(s)), got {part!r}")
        if kind == "maxout" and values[1] < 2:
            raise InvalidInputError(f"architecture {text!r}: layer {i}: expected maxout:W,K with K >= 2, got {part!r}")
        layers.append((kind, values))
    spec = ArchitectureSpec(input_dim, tuple(layers))
    if spec.parameters > MAX_NETWORK_PARAMETERS:
        raise InvalidInputError(f"architecture {text!r}: expected a network of at most {MAX_NETWORK_PARAMETERS:,} "
                                f"weights and biases, got {spec.parameters:,}")
    return spec


def _positive(value: str, text: str, what: str) -> int:
    if not value.isdigit() or int(value) < 1:
        raise InvalidInputError(f"architecture {text!r}: {what}: expected a positive integer, got {value!r}")
    return int(value)
