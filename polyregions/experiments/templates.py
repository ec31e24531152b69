"""Template architectures for sweeps: a network file whose graph is kept and whose weights are redrawn per seed.

A sweep's architecture may be ``@FILE`` (``polyregions sweep --architecture @net.json``), a
``polyregions.network/2`` file (or any network file ``polyregions regions`` reads; a dense one becomes a graph of
dense and activation nodes). Every seed keeps the file's graph, its activations, pooling, batch norm, PReLU slopes
and convolution settings, and redraws the weights and biases of every dense and convolutional node, node by node
in the file's order, as a specification's layers are drawn
(:func:`polyregions.experiments.architectures.draw_parameters`), with ``fan_in`` the inputs of one unit: a dense
node's columns, a convolution's ``C_in / groups`` times its kernel's size.

The table's ``architecture`` is ``@FILE#DIGEST``, the path as given and the first 12 hexadecimal digits of the
SHA-256 of the network's exact document, so that rows of an edited file are new rows; its ``activation`` names
the template's own activations (``relu``, ``relu+hardtanh``, or ``none`` for max units only), since the sweep's
``--activation`` does not replace them.

Examples
--------
>>> import json, pathlib, tempfile
>>> doc = {"format": "polyregions.network/2", "input_shape": [1, 3],
...        "nodes": [{"name": "c", "op": "conv", "weight": [[[1, 1]], [[1, -1]]], "bias": [0, 0], "inputs": ["input"]},
...                  {"name": "r", "op": "relu", "inputs": ["c"]}, {"name": "p", "op": "maxpool", "kernel": [2],
...                  "inputs": ["r"]}], "output": "p"}
>>> path = pathlib.Path(tempfile.mkdtemp()) / "net.json"
>>> _ = path.write_text(json.dumps(doc))
>>> template = load_template(path)
>>> template.input_dim, template.parameters, template.activation_label
(3, 6, 'relu')
>>> net = template.draw(seed=0, init="he_normal")
>>> [type(node.op).__name__ for node in net.nodes], net.nodes[0].op.weight == template.network.nodes[0].op.weight
(['Conv', 'Activation', 'MaxPool'], False)
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, replace
from typing import Any

from polyregions.errors import InvalidInputError
from polyregions.experiments.architectures import (
    ArchitectureSpec,
    check_init,
    draw_parameters,
    parse_activation,
    parse_architecture,
)
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.graph_files import graph_to_json

__all__ = ["ArchitectureTemplate", "load_template", "read_architecture"]


@dataclass(frozen=True)
class ArchitectureTemplate:
    """A template network for a sweep: its graph is kept, its dense and convolutional parameters redrawn.

    Attributes
    ----------
    source : str
        The file as named (the ``FILE`` of ``@FILE``).
    network : GraphNetwork
        The network read from it.
    digest : str
        The first 12 hexadecimal digits of the SHA-256 of the network's exact document.
    """

    source: str
    network: GraphNetwork
    digest: str

    @property
    def text(self) -> str:
        """The sweep table's ``architecture``: ``@FILE#DIGEST``."""
        return f"@{self.source}#{self.digest}"

    @property
    def input_dim(self) -> int:
        """The number of input entries."""
        return self.network.input_dim

    @property
    def is_dense(self) -> bool:
        """Always False: a template is drawn as a graph, even when its layers are dense."""
        return False

    @property
    def parameters(self) -> int:
        """The number of weights and biases redrawn per seed."""
        return sum(rows * fan_in + rows for _, rows, fan_in in _weighted(self.network))

    @property
    def activation_label(self) -> str:
        """The template's element-wise activations, distinct and in order, joined by ``+``; ``none`` without
        any (the sweep table's ``activation``)."""
        from polyregions.networks import operations as ops

        names: list[str] = []
        for node in self.network.nodes:
            if isinstance(node.op, ops.PReLU):
                names.append("prelu")
            elif isinstance(node.op, ops.Activation) and not node.op.activation.is_linear:
                names.append(parse_activation(node.op.activation)[0])
        return "+".join(dict.fromkeys(names)) or "none"

    def draw(self, *, seed: int, init: str, activation: Any = None) -> GraphNetwork:
        """The template with its dense and convolutional parameters drawn from ``seed`` by ``init``
        (``"he_normal"`` or ``"pytorch_default"``); ``activation`` is ignored (the template keeps its own)."""
        from polyregions.networks.initializers import random_generator

        check_init(init)
        rng = random_generator(seed)
        redrawn = {}
        for index, rows, fan_in in _weighted(self.network):
            node = self.network.nodes[index]
            op: Any = node.op
            weight, bias = draw_parameters(rng, init, rows, fan_in)
            redrawn[index] = replace(node, op=replace(op, weight=weight.reshape(_shape_of(op.weight)), bias=bias))
        nodes = tuple(redrawn.get(i, node) for i, node in enumerate(self.network.nodes))
        return GraphNetwork(self.network.input_shape, nodes, self.network.output)


def _weighted(network: GraphNetwork) -> list[tuple[int, int, int]]:
    """``(node index, rows, fan_in)`` of every dense and convolutional node, in order."""
    from polyregions.networks import operations as ops

    out = []
    for i, node in enumerate(network.nodes):
        if isinstance(node.op, (ops.Dense, ops.Conv)):
            # a dense weight is [rows, columns], a convolution's [C_out, C_in / groups, *kernel]: one unit reads
            # everything after the first axis
            shape = _shape_of(node.op.weight)
            out.append((i, shape[0], math.prod(shape[1:])))
    return out


def _shape_of(values: Any) -> tuple[int, ...]:
    """The shape of exact nested tuples (regular, as the operations store them)."""
    shape = []
    while isinstance(values, tuple):
        shape.append(len(values))
        values = values[0]
    return tuple(shape)


def load_template(path: str | os.PathLike) -> ArchitectureTemplate:
    """Read a template network for a sweep (see the module documentation).

    Parameters
    ----------
    path : str or os.PathLike
        A ``polyregions.network/2`` file (or any network file :func:`polyregions.networks.io.load_network`
        reads).

    Returns
    -------
    ArchitectureTemplate

    Raises
    ------
    InvalidInputError
        When the file cannot be read or holds no valid network (the message names ``@FILE``, then the file and
        the field), or when the network has no dense or convolutional node to redraw, or is too large.
    """
    from polyregions._support.limits import MAX_NETWORK_PARAMETERS
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.io import load_network

    source = os.fspath(path) if isinstance(path, (str, os.PathLike)) else path
    where = f"architecture '@{source}'"
    if not isinstance(source, str) or not source:
        got = "nothing" if source == "" else repr(source)
        raise InvalidInputError(f"{where}: expected a network file after '@', got {got}")
    try:
        network = load_network(source)
    except InvalidInputError as error:
        raise InvalidInputError(f"{where}: {error}") from None
    if not isinstance(network, GraphNetwork):
        network = GraphNetwork.from_network(network)
    document = json.dumps(graph_to_json(network), sort_keys=True, separators=(",", ":"))
    template = ArchitectureTemplate(source, network, hashlib.sha256(document.encode()).hexdigest()[:12])
    if not _weighted(network):
        raise InvalidInputError(f"{where}: expected a network with dense or convolutional nodes (their weights are "
                                "redrawn per seed), got none")
    if template.parameters > MAX_NETWORK_PARAMETERS:
        raise InvalidInputError(f"{where}: expected a network of at most {MAX_NETWORK_PARAMETERS:,} weights and "
                                f"biases, got {template.parameters:,}")
    return template


def read_architecture(text: Any) -> "ArchitectureSpec | ArchitectureTemplate":
    """A specification (:func:`parse_architecture`) or, for ``"@FILE"``, the template network in ``FILE``
    (:func:`load_template`).

    Parameters
    ----------
    text : str
        A specification such as ``"8-conv1d:2,3-maxpool:2"``, or ``"@FILE"``.

    Returns
    -------
    ArchitectureSpec or ArchitectureTemplate

    Raises
    ------
    InvalidInputError
        As :func:`~polyregions.experiments.architectures.parse_architecture` and :func:`load_template` do.

    Examples
    --------
    >>> read_architecture("2-maxout:3,3").text
    '2-maxout:3,3'
    """
    if isinstance(text, str) and text.strip().startswith("@"):
        return load_template(text.strip()[1:])
    return parse_architecture(text)
