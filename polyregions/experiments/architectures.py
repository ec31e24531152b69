"""Architecture specifications for sweeps: dense widths, convolutions, pooling, maxout and residual blocks, in one line.

A specification is the input size followed by layers, separated by ``-`` (the spelling of the sweep table's
``architecture`` column, where the dense ``2-8-8`` already stands for ``--widths 2,8,8``):

``W``
    a dense layer of ``W`` units, then the sweep's activation;
``conv1d:C,K`` (or ``conv1d:C,K,S`` or ``conv1d:C,K,S,P``)
    a 1-D convolution with ``C`` output channels, kernel ``K``, stride ``S`` (default 1) and zero padding ``P``
    (default 0, at most ``K - 1``), then the activation; the input (or a vector before it) is read as one channel;
``conv2d:C,K`` (or ``conv2d:C,K,S`` or ``conv2d:C,K,S,P``)
    a 2-D convolution with a square ``K x K`` kernel, stride and padding as for ``conv1d`` on both axes, then the
    activation; a vector before it (the input, a dense layer) is read as one square channel, so its size must be
    a perfect square (``9`` is a 3 x 3 image);
``maxpool:P``
    max pooling over ``P`` (1-D) or ``P x P`` (2-D) windows with stride ``P`` of a convolution's output (or a
    pooling's), no activation;
``avgpool:P``
    average pooling over the same windows (weights exactly ``1/P`` or ``1/P^2``), no activation;
``maxout:W,K``
    a dense map to ``W K`` values and ``W`` maxout units over groups of ``K`` (no other activation);
``res:W``
    a residual block of width ``W`` (the basic block of He et al. 2016): ``x -> act(x + D2(act(D1(x))))`` with
    ``D1``, ``D2`` dense maps from ``W`` to ``W`` values; the incoming size must be ``W`` (a tensor is flattened).

A dense layer after a convolution reads its flattened output. No output layer is added: regions are counted
over the hidden units, as for dense sweeps. Parameters are drawn per seed, layer by layer, as the dense
initialisers draw them (:func:`~polyregions.networks.initializers.he_normal`: weights of variance ``2 / fan_in``,
biases of standard deviation 1/1000; :func:`~polyregions.networks.initializers.pytorch_default`: both uniform
in ``+-1/sqrt(fan_in)``), with ``fan_in`` the inputs of one unit (``C_in K`` or ``C_in K^2`` for a convolution,
``W`` for each map of a residual block), in float32 and then read exactly.

A template file stands where a specification does, spelled ``@FILE``
(:func:`~polyregions.experiments.templates.read_architecture`, :mod:`polyregions.experiments.templates`).

Examples
--------
>>> spec = parse_architecture("4-conv1d:2,2-maxpool:3-maxout:2,2")
>>> spec.text, spec.is_dense, spec.parameters
('4-conv1d:2,2-maxpool:3-maxout:2,2', False, 18)
>>> net = spec.draw(seed=0, init="he_normal", activation="relu")
>>> net.shapes["conv1"], net.shapes["maxpool2"], net.output_shape, net.staged.num_neurons
((2, 3), (2, 1), (2,), 10)
>>> parse_architecture("9-conv2d:2,2,1,0-avgpool:2-res:2").text
'9-conv2d:2,2-avgpool:2-res:2'
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.networks.activations import Activation
    from polyregions.networks.graph import GraphNetwork

__all__ = ["ArchitectureSpec", "parse_architecture", "parse_activation", "LAYER_KINDS", "ACTIVATIONS"]

#: The layer kinds of a specification and how many integers each takes (fewest, most).
LAYER_KINDS = {"dense": (1, 1), "conv1d": (2, 4), "conv2d": (2, 4), "maxpool": (1, 1), "avgpool": (1, 1),
               "maxout": (2, 2), "res": (1, 1)}
_FORMS = {"dense": "W", "conv1d": "conv1d:C,K[,S[,P]]", "conv2d": "conv2d:C,K[,S[,P]]", "maxpool": "maxpool:P",
          "avgpool": "avgpool:P", "maxout": "maxout:W,K", "res": "res:W"}
_KINDS_TEXT = "W, conv1d:C,K, conv2d:C,K, maxpool:P, avgpool:P, maxout:W,K or res:W"
_EXPECTED = f"N0-LAYER-..., each LAYER {_KINDS_TEXT} (such as 8-conv1d:2,3-maxpool:2)"
_CONV_DEFAULTS = (1, 0)  # stride, padding

Shape = tuple[int, ...]


@dataclass(frozen=True)
class ArchitectureSpec:
    """A parsed specification: the input size and the layers, each ``(kind, integers)``; a convolution's
    integers are always ``(C, K, S, P)``."""

    input_dim: int
    layers: tuple[tuple[str, tuple[int, ...]], ...]

    @property
    def text(self) -> str:
        """The canonical spelling (the sweep table's ``architecture``): a convolution's default stride and
        padding are left out."""
        parts = [str(self.input_dim)]
        for kind, values in self.layers:
            if kind in ("conv1d", "conv2d"):
                values = values[:2] + (values[2:] if values[3] else values[2:3] if values[2] != 1 else ())
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
        return sum(fan_in * rows + rows for step in _plan(self) for fan_in, rows in step.weighted)

    def draw(self, *, seed: int, init: str, activation: Any) -> "GraphNetwork":
        """The :class:`~polyregions.networks.graph.GraphNetwork` of this architecture with parameters drawn
        from ``seed`` by ``init`` (``"he_normal"`` or ``"pytorch_default"``); ``activation`` follows every dense
        and convolutional layer and both maps of a residual block."""
        from polyregions.networks import operations as ops
        from polyregions.networks.activations import activation_from_json
        from polyregions.networks.graph import GraphNetwork, Node
        from polyregions.networks.initializers import random_generator

        check_init(init)
        act = ops.Activation(activation_from_json(activation, what="activation"))
        rng = random_generator(seed)
        nodes: list[Node] = []
        current = "input"

        def add(name: str, op: Any, *inputs: str) -> None:
            nonlocal current
            nodes.append(Node(name, op, inputs or (current,)))
            current = name

        for index, step in enumerate(_plan(self), start=1):
            kind, values = step.kind, step.values
            if kind in ("conv1d", "conv2d"):
                if step.reads != step.shape_in:
                    add(f"reshape{index}", ops.Reshape(step.reads))
                (fan_in, channels), = step.weighted
                weight, bias = draw_parameters(rng, init, channels, fan_in)
                kernel = (values[1],) * (len(step.reads) - 1)
                add(f"conv{index}", ops.Conv(weight.reshape((channels, step.reads[0]) + kernel), bias,
                                             stride=values[2], padding=values[3]))
                add(f"act{index}", act)
            elif kind in ("maxpool", "avgpool"):
                add(f"{kind}{index}", (ops.MaxPool if kind == "maxpool" else ops.AvgPool)(values[0]))
            elif kind == "res":
                if step.reads != step.shape_in:
                    add(f"flatten{index}", ops.Flatten())
                start = current
                for part, (fan_in, rows) in zip("ab", step.weighted):
                    add(f"res{index}{part}", ops.Dense(*draw_parameters(rng, init, rows, fan_in)))
                    if part == "a":
                        add(f"act{index}a", act)
                add(f"add{index}", ops.Add(), start, current)
                add(f"act{index}", act)
            else:  # dense or maxout: a dense map of the flattened input
                (fan_in, rows), = step.weighted
                add(f"dense{index}", ops.Dense(*draw_parameters(rng, init, rows, fan_in)))
                add(f"{kind}{index}" if kind == "maxout" else f"act{index}",
                    ops.Maxout(values[1]) if kind == "maxout" else act)
        return GraphNetwork((self.input_dim,), tuple(nodes), current)


def check_init(init: Any) -> None:
    """Raise unless ``init`` names an initialiser a specification or a template can be drawn with."""
    if init not in ("he_normal", "pytorch_default"):
        raise InvalidInputError(f"init: expected he_normal or pytorch_default, got {init!r}")


def draw_parameters(rng: np.random.Generator, init: str, rows: int, fan_in: int) -> tuple[np.ndarray, list[Fraction]]:
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


# --- shapes ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class _Step:
    """One layer placed: the shape arriving, the shape it reads (after a reshape or flatten), the shape it
    leaves, and ``(fan_in, rows)`` of each of its weighted maps."""

    kind: str
    values: tuple[int, ...]
    shape_in: Shape
    reads: Shape
    shape_out: Shape
    weighted: tuple[tuple[int, int], ...]


def _plan(spec: ArchitectureSpec) -> list[_Step]:
    """Every layer with its shapes, checking that each fits the one before it (the error names the layer)."""
    shape: Shape = (spec.input_dim,)
    steps = []
    for i, (kind, values) in enumerate(spec.layers, start=1):
        where = f"architecture {spec.text!r}: layer {i} ({kind})"
        size = math.prod(shape)
        if kind in ("conv1d", "conv2d"):
            reads = _conv_input(kind, shape, where)
            channels, kernel, stride, padding = values
            spatial = []
            for length in reads[1:]:
                if kernel > length + 2 * padding:
                    extra = f" plus twice the padding, {length + 2 * padding}" if padding else ""
                    raise InvalidInputError(f"{where}: expected a kernel of at most the input length {length}{extra}, "
                                            f"got {kernel}")
                spatial.append((length + 2 * padding - kernel) // stride + 1)
            fan_in = reads[0] * kernel ** (len(reads) - 1)
            steps.append(_Step(kind, values, shape, reads, (channels, *spatial), ((fan_in, channels),)))
        elif kind in ("maxpool", "avgpool"):
            window = values[0]
            if len(shape) == 1 or window > min(shape[1:]):
                what = "a convolution's output" if len(shape) == 1 else f"a window of at most {min(shape[1:])}"
                raise InvalidInputError(f"{where}: expected {what}, got {kind}:{window}")
            out = (shape[0],) + tuple(n // window for n in shape[1:])
            steps.append(_Step(kind, values, shape, shape, out, ()))
        elif kind == "res":
            width = values[0]
            if size != width:
                raise InvalidInputError(f"{where}: expected an incoming size of {width} (the block's width), got "
                                        f"{size} (shape {list(shape)})")
            steps.append(_Step(kind, values, shape, (width,), (width,), ((width, width), (width, width))))
        else:
            rows = values[0] * values[1] if kind == "maxout" else values[0]
            steps.append(_Step(kind, values, shape, shape, (values[0],), ((size, rows),)))
        shape = steps[-1].shape_out
    return steps


def _conv_input(kind: str, shape: Shape, where: str) -> Shape:
    """The shape a convolution reads: a vector becomes one channel (a square one for ``conv2d``)."""
    axes = 1 if kind == "conv1d" else 2
    if len(shape) == 1:
        if axes == 1:
            return (1, shape[0])
        side = math.isqrt(shape[0])
        if side * side != shape[0]:
            raise InvalidInputError(f"{where}: expected a square number of inputs (read as one square channel), "
                                    f"got {shape[0]}")
        return (1, side, side)
    if len(shape) != axes + 1:
        got = "a 1-D" if len(shape) == 2 else "a 2-D"
        raise InvalidInputError(f"{where}: expected a vector or a {axes}-D convolution's or pooling's output, got "
                                f"{got} one of shape {list(shape)}")
    return shape


# --- reading --------------------------------------------------------------------------------------------------

def parse_architecture(text: Any) -> ArchitectureSpec:
    """The :class:`ArchitectureSpec` of a specification such as ``"8-conv1d:2,3-maxpool:2-maxout:4,2"``.

    Parameters
    ----------
    text : str
        The input size, then layers (see the module documentation), joined by ``-``.

    Returns
    -------
    ArchitectureSpec

    Raises
    ------
    InvalidInputError
        When a layer is malformed or does not fit the shape before it; the message names the layer.

    Examples
    --------
    >>> parse_architecture("2-8-8").widths
    (2, 8, 8)
    >>> parse_architecture("2-conv1d:2")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polyregions.errors.InvalidInputError: architecture '2-conv1d:2': layer 1: expected conv1d:C,K[,S[,P]] ...
    """
    from polyregions._support.limits import MAX_NETWORK_PARAMETERS
    from polyregions.exact.rationals import _describe

    if not isinstance(text, str) or not text.strip():
        raise InvalidInputError(f"architecture: expected {_EXPECTED}, got {_describe(text)}")
    if text.strip().startswith("@"):
        raise InvalidInputError(f"architecture {text!r}: expected {_EXPECTED}, got a template file (read it with "
                                "polyregions.experiments.templates.read_architecture)")
    parts = [part.strip() for part in text.strip().split("-")]
    if len(parts) < 2:
        raise InvalidInputError(f"architecture {text!r}: expected {_EXPECTED}")
    input_dim = _integer(parts[0], text, "input size")
    layers = []
    for i, part in enumerate(parts[1:], start=1):
        kind, colon, numbers = part.partition(":")
        if not colon:
            kind, numbers = "dense", part
        if kind not in LAYER_KINDS or kind == "dense" and colon:
            raise InvalidInputError(f"architecture {text!r}: layer {i}: expected {_KINDS_TEXT}, got {part!r}")
        fewest, most = LAYER_KINDS[kind]
        items = numbers.split(",")
        if not fewest <= len(items) <= most:
            count = f"{fewest} integer" if fewest == most == 1 else f"{fewest} integers" if fewest == most \
                else f"{fewest} to {most} integers"
            raise InvalidInputError(f"architecture {text!r}: layer {i}: expected {_FORMS[kind]} ({count}), got "
                                    f"{part!r}")
        values = tuple(_integer(v, text, f"layer {i}", minimum=0 if j == 3 else 1) for j, v in enumerate(items))
        if kind in ("conv1d", "conv2d"):
            values += _CONV_DEFAULTS[len(values) - 2:]
            if values[3] >= values[1]:
                raise InvalidInputError(f"architecture {text!r}: layer {i}: expected a padding of at most K - 1 = "
                                        f"{values[1] - 1} (every output reads an input), got {part!r}")
        if kind == "maxout" and values[1] < 2:
            raise InvalidInputError(f"architecture {text!r}: layer {i}: expected maxout:W,K with K >= 2, got {part!r}")
        layers.append((kind, values))
    spec = ArchitectureSpec(input_dim, tuple(layers))
    steps = _plan(spec)
    parameters = sum(fan_in * rows + rows for step in steps for fan_in, rows in step.weighted)
    values_held = input_dim + sum(math.prod(step.shape_out) for step in steps)
    if max(parameters, values_held) > MAX_NETWORK_PARAMETERS:
        raise InvalidInputError(f"architecture {text!r}: expected a network of at most {MAX_NETWORK_PARAMETERS:,} "
                                f"weights and biases and as many values in its layers, got {parameters:,} and "
                                f"{values_held:,}")
    return spec


def _integer(value: str, text: str, what: str, *, minimum: int = 1) -> int:
    if not (value.isascii() and value.isdigit()) or int(value) < minimum:
        kind = "a positive integer" if minimum == 1 else "a non-negative integer"
        raise InvalidInputError(f"architecture {text!r}: {what}: expected {kind}, got {value!r}")
    return int(value)


#: The element-wise activations a sweep draws (``leaky_relu:S`` sets a slope).
ACTIVATIONS = ("relu", "hardtanh", "leaky_relu")
_LEAKY_DEFAULT = Fraction(1, 100)  # torch.nn.LeakyReLU's default negative slope


def parse_activation(spec: "str | Activation") -> tuple[str, "Activation"]:
    """``(canonical name, activation)`` for ``relu``, ``hardtanh``, ``leaky_relu`` (slope 1/100, torch's
    default) or ``leaky_relu:S`` (any slope ``S`` other than 1, read exactly); an Activation passes through.

    Examples
    --------
    >>> parse_activation("leaky_relu:0.2")[0], parse_activation("leaky_relu:1/100")[0]
    ('leaky_relu:1/5', 'leaky_relu')
    """
    from polyregions.exact.rationals import rational
    from polyregions.networks.activations import Activation, activation_from_json, leaky_relu

    if isinstance(spec, Activation):
        if spec.name == "leaky_relu":
            slope = spec.slopes[0]
            return ("leaky_relu" if slope == _LEAKY_DEFAULT else f"leaky_relu:{slope}"), spec
        return spec.name, spec
    if not isinstance(spec, str):
        raise InvalidInputError(f"activation: expected relu, hardtanh, leaky_relu or leaky_relu:SLOPE, got {spec!r}")
    text = spec.strip()
    name, _, slope_text = text.partition(":")
    if name == "leaky_relu":
        slope = rational(slope_text, what="activation: leaky_relu slope") if slope_text else _LEAKY_DEFAULT
        act = leaky_relu(slope, what="activation")
        return ("leaky_relu" if slope == _LEAKY_DEFAULT else f"leaky_relu:{slope}"), act
    if name in ("relu", "hardtanh") and not slope_text:
        return name, activation_from_json(name, what="activation")
    raise InvalidInputError(f"activation: expected relu, hardtanh, leaky_relu or leaky_relu:SLOPE, got {spec!r}")
