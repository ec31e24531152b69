"""A piecewise-linear network as a graph of exact operations (:mod:`polyregions.networks.operations`).

The network's input is the tensor named ``"input"`` (shape ``input_shape``, channel-first, no batch axis); each
:class:`Node` applies an operation to earlier tensors; ``output`` names the tensor the network returns, flattened.
Shapes are inferred and checked when the network is built. For region enumeration the graph compiles into
stages (:mod:`polyregions.networks.stages`): its units are the element-wise piecewise-linear units and the max
units (max pooling, maxout), and an activation pattern holds the piece of every such unit (for a max unit, the
argmax's position in its window).

Examples
--------
>>> from polyregions.networks.graph import GraphNetwork, Node
>>> from polyregions.networks.operations import Conv, Maxout, Flatten
>>> net = GraphNetwork((1, 3), (Node("c", Conv([[[1, 0]], [[0, 1]]], [0, 0]), ("input",)),
...                             Node("m", Maxout(2), ("c",)), Node("f", Flatten(), ("m",))), "f")
>>> net([1, 5, 2])
(Fraction(5, 1), Fraction(5, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from polyregions._support.limits import check_at_most
from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, rational_vector
from polyregions.networks import operations as ops

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.networks.stages import StagedNetwork

__all__ = ["Node", "GraphNetwork", "FORMAT"]

#: The format tag of a graph network file.
FORMAT = "polyregions.network/2"


@dataclass(frozen=True)
class Node:
    """One operation applied to named tensors: ``name = op(*inputs)``.

    Examples
    --------
    >>> from polyregions.networks.operations import Flatten
    >>> Node("f", Flatten(), ("input",)).inputs
    ('input',)
    """

    name: str
    op: ops.Operation
    inputs: tuple[str, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise InvalidInputError(f"node: name: expected a non-empty string, got {_describe(self.name)}")
        if isinstance(self.inputs, str) or not hasattr(self.inputs, "__iter__"):
            raise InvalidInputError(f"node '{self.name}': inputs: expected a list of tensor names, got "
                                    f"{_describe(self.inputs)}")
        inputs = tuple(self.inputs)
        if not inputs or not all(isinstance(i, str) for i in inputs):
            raise InvalidInputError(f"node '{self.name}': inputs: expected a non-empty list of tensor names, got "
                                    f"{_describe(list(inputs))}")
        object.__setattr__(self, "inputs", inputs)

    def __repr__(self) -> str:
        """The name, the kind of operation and the inputs (the operation's exact numbers stay in ``op``).

        Examples
        --------
        >>> from polyregions.networks.operations import Flatten
        >>> Node("f", Flatten(), ("input",))
        Node('f' = flatten(input))
        """
        return f"Node({self.name!r} = {_op_kind(self.op)}({', '.join(self.inputs)}))"


def _op_kind(op: Any) -> str:
    return str(getattr(op, "kind", type(op).__name__))


def _describe_node(index: int, node: Node) -> str:
    return f"nodes[{index}] ({getattr(node.op, 'kind', type(node.op).__name__)} '{node.name}')"


@dataclass(frozen=True)
class GraphNetwork:
    """A network on ``R^input_dim`` given as a graph of exact operations.

    Parameters
    ----------
    input_shape : tuple of int
        The input tensor's shape (channel-first, no batch axis), every size positive.
    nodes : tuple of Node
        In topological order: each node's inputs are ``"input"`` or names of earlier nodes; names are unique.
    output : str
        The name of the tensor the network returns (flattened).

    Raises
    ------
    InvalidInputError
        When a shape does not fit, a name is unknown, repeated or used before it is defined; the message names
        the node and what did not match.

    Examples
    --------
    >>> from polyregions.networks.operations import Dense, Activation
    >>> net = GraphNetwork((2,), (Node("d", Dense([[1, -1]], [0]), ("input",)),
    ...                           Node("r", Activation("relu"), ("d",))), "r")
    >>> net.input_dim, net.output_shape, net([1, 3]), net([3, 1])
    (2, (1,), (Fraction(0, 1),), (Fraction(2, 1),))
    """

    input_shape: tuple[int, ...]
    nodes: tuple[Node, ...]
    output: str

    def __post_init__(self) -> None:
        shape = self.input_shape
        if isinstance(shape, (int, np.integer)) and not isinstance(shape, bool):
            shape = (shape,)
        if isinstance(shape, (str, bytes, dict)) or not hasattr(shape, "__len__") or not shape or not all(
                isinstance(v, (int, np.integer)) and not isinstance(v, bool) and v >= 1 for v in shape):
            raise InvalidInputError(f"network: input_shape: expected a non-empty list of positive integers, got "
                                    f"{_describe(shape)}")
        object.__setattr__(self, "input_shape", tuple(int(v) for v in shape))
        check_at_most("MAX_TENSOR_ENTRIES", math.prod(self.input_shape), what="network: input_shape",
                      unit="entries")
        if isinstance(self.nodes, (str, bytes, dict)) or not hasattr(self.nodes, "__iter__"):
            raise InvalidInputError(f"network: nodes: expected a list of nodes, got {_describe(self.nodes)}")
        nodes = tuple(self.nodes)
        object.__setattr__(self, "nodes", nodes)
        shapes: dict[str, tuple[int, ...]] = {"input": self.input_shape}
        for i, node in enumerate(nodes):
            if not isinstance(node, Node):
                raise InvalidInputError(f"network: nodes[{i}]: expected a Node, got {type(node).__name__}")
            where = f"network: {_describe_node(i, node)}"
            if node.name in shapes:
                raise InvalidInputError(f"{where}: name: expected a new name, got '{node.name}' (already defined)")
            for name in node.inputs:
                if name not in shapes:
                    raise InvalidInputError(f"{where}: inputs: expected names of earlier nodes or \"input\", got "
                                            f"'{name}'")
            if not hasattr(node.op, "output_shape"):
                raise InvalidInputError(f"{where}: op: expected an operation, got {type(node.op).__name__}")
            shapes[node.name] = node.op.output_shape([shapes[name] for name in node.inputs], where)
        if not isinstance(self.output, str) or self.output not in shapes:
            raise InvalidInputError(f"network: output: expected the name of a node or \"input\", got "
                                    f"{_describe(self.output)}")
        object.__setattr__(self, "_shapes", shapes)

    def __reduce__(self):
        return (GraphNetwork, (self.input_shape, self.nodes, self.output))

    def __repr__(self) -> str:
        """The shapes, the number of neurons and the operations in order, in one line (``nodes`` holds them).

        Examples
        --------
        >>> from polyregions.networks.operations import Dense, Activation
        >>> GraphNetwork((2,), (Node("d", Dense([[1, -1]], [0]), ("input",)),
        ...                     Node("r", Activation("relu"), ("d",))), "r")
        GraphNetwork(input_shape=(2,), output_shape=(1,), 1 neuron, 2 nodes: dense, activation)
        """
        kinds = [_op_kind(node.op) for node in self.nodes]
        shown = ", ".join(kinds if len(kinds) <= 12 else kinds[:8] + ["...", *kinds[-3:]])
        neurons = self.num_neurons
        return (f"GraphNetwork(input_shape={self.input_shape}, output_shape={self.output_shape}, "
                f"{neurons:,} neuron{'' if neurons == 1 else 's'}, {len(self.nodes)} nodes: {shown})")

    @property
    def shapes(self) -> dict[str, tuple[int, ...]]:
        """The shape of every tensor, by name (``"input"`` included)."""
        return dict(self._shapes)  # type: ignore[attr-defined]

    @property
    def output_shape(self) -> tuple[int, ...]:
        """The shape of the output tensor."""
        return self._shapes[self.output]  # type: ignore[attr-defined]

    @property
    def input_dim(self) -> int:
        """The number of input entries (the product of ``input_shape``)."""
        return ops.flat_size(self.input_shape)

    @property
    def output_dim(self) -> int:
        """The number of output entries."""
        return ops.flat_size(self.output_shape)

    @property
    def num_neurons(self) -> int:
        """The number of neurons: element-wise units with breakpoints and max units over two or more values."""
        return self.staged.num_neurons

    @cached_property
    def _plans(self) -> dict[str, Any]:
        """Per node, its sparse affine map, its element-wise activations or its max groups."""
        plans: dict[str, Any] = {}
        for node in self.nodes:
            shapes = [self._shapes[name] for name in node.inputs]  # type: ignore[attr-defined]
            if hasattr(node.op, "affine"):
                plans[node.name] = node.op.affine(shapes)
            elif hasattr(node.op, "elementwise"):
                plans[node.name] = node.op.elementwise(shapes[0])
            else:
                plans[node.name] = node.op.max_groups(shapes[0])
        return plans

    def __call__(self, x: Any) -> tuple[Fraction, ...]:
        """The exact output at ``x`` (``input_dim`` numbers, the input flattened row-major), flattened."""
        if isinstance(x, np.ndarray):
            x = x.reshape(-1)
        values: dict[str, list[Fraction]] = {"input": list(rational_vector(x, what="x", length=self.input_dim))}
        for node in self.nodes:
            plan = self._plans[node.name]
            inputs = [values[name] for name in node.inputs]
            if isinstance(plan, ops.SparseAffine):
                values[node.name] = [sum((w * inputs[k][j] for k, j, w in terms), c)
                                     for terms, c in zip(plan.terms, plan.constants)]
            elif hasattr(node.op, "elementwise"):
                values[node.name] = [act(v) for act, v in zip(plan, inputs[0])]
            else:
                values[node.name] = [max(inputs[0][j] for j in group) for group in plan]
        return tuple(values[self.output])

    @cached_property
    def staged(self) -> "StagedNetwork":
        """The network compiled into stages for the region engines (:mod:`polyregions.networks.stages`)."""
        from polyregions.networks.compiling import compile_graph

        return compile_graph(self)

    @classmethod
    def from_network(cls, network: "Network") -> "GraphNetwork":
        """The dense :class:`~polyregions.networks.network.Network` as a graph (dense and activation nodes).

        Examples
        --------
        >>> import polyregions as pr
        >>> net = pr.sawtooth(2)
        >>> GraphNetwork.from_network(net)([Fraction(1, 3)]) == net([Fraction(1, 3)])
        True
        """
        nodes: list[Node] = []
        previous = "input"
        for i, layer in enumerate(network.layers):
            nodes.append(Node(f"dense{i}", ops.Dense(layer.weight, layer.bias), (previous,)))
            previous = f"dense{i}"
            if not layer.activation.is_linear or layer.activation.offset or layer.activation.slopes != (1,):
                nodes.append(Node(f"act{i}", ops.Activation(layer.activation), (previous,)))
                previous = f"act{i}"
        return cls((network.input_dim,), tuple(nodes), previous)
