"""A graph network that is a chain of layers, as a layered :class:`~polyregions.networks.network.Network`.

Every importer builds a graph network; a model that is a chain of affine maps (dense layers, batch
normalisations, constant shifts and scalings) and element-wise activations, one kind per layer, is the
classic layered network, which the bounds and the dense engines know best. The conversion composes the
affine maps exactly (through the graph's stages), so it changes no number.
"""

from __future__ import annotations

from polyregions.networks.activations import linear
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.network import Network

__all__ = ["layered"]

_CHAIN_KINDS = frozenset({"dense", "batchnorm", "scale", "activation", "flatten", "reshape"})


def layered(network: GraphNetwork) -> Network | GraphNetwork:
    """``network`` as a :class:`Network` when it is a chain of layers on vectors, else ``network`` itself.

    Examples
    --------
    >>> from polyregions.networks.graph import Node
    >>> from polyregions.networks.operations import Activation, Dense
    >>> graph = GraphNetwork((2,), (Node("d", Dense([[1, -1]], [0]), ("input",)),
    ...                             Node("r", Activation("relu"), ("d",))), "r")
    >>> layered(graph).widths
    (1,)
    """
    previous = "input"
    for node in network.nodes:
        if node.op.kind not in _CHAIN_KINDS or node.inputs != (previous,):
            return network
        previous = node.name
    if previous != network.output or len(network.input_shape) != 1:
        return network
    stages = network.staged.layers
    layers = [stage.as_layer for stage in stages]
    if any(layer is None for layer in layers):
        return network
    last = stages[-1]
    if len(stages) > 1 and last.activations[0] == linear() and not any(last.bias) and all(
            v == (i == j) for i, row in enumerate(last.weight) for j, v in enumerate(row)):
        layers.pop()  # the identity map the stages end with after a last activation
    return Network(network.input_dim, tuple(layers))  # type: ignore[arg-type]
