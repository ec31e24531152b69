"""The graph under construction while a model is read: tensors computed from the input, constants, and nodes.

A reader walks a framework's graph and hands every operator to the table of
:mod:`polyregions.networks.importers.operators`. Values are of two kinds:

* a :class:`Symbolic` tensor, computed from the model's input: a node of the graph network being built, with
  its shape *including* the leading batch axis (the frameworks' axis numbers count it);
* a constant: a numpy array (a parameter, a folded shape computation), a Python number, a list, a string or
  None. Float arrays hold the exact binary values the framework stores; arithmetic on them is folded exactly
  (:func:`exact_array`), so a constant never carries a rounding the model did not make.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.networks import operations as ops
from polyregions.networks.graph import GraphNetwork, Node

__all__ = ["Symbolic", "Indices", "GraphBuilder", "Unsupported", "exact_array", "constant_array", "is_symbolic"]


class Unsupported(InvalidInputError):
    """An operator, or an argument of one, that has no exact piecewise-linear reading; the reader prefixes the
    file and the node to the message."""


@dataclass(frozen=True)
class Symbolic:
    """A tensor computed from the input: the node ``name`` of the graph, of ``shape`` (batch axis first)."""

    name: str
    shape: tuple[int, ...]

    @property
    def rank(self) -> int:
        return len(self.shape)


class Indices:
    """The argmax positions a pooling or a maximum also returns: not a piecewise-linear value of the input, so
    refused wherever it is used."""


def is_symbolic(value: Any) -> bool:
    return isinstance(value, Symbolic)


def constant_array(value: Any, what: str) -> np.ndarray:
    """A constant as a numpy array of finite real numbers (integers stay integers)."""
    if is_symbolic(value):
        raise Unsupported(f"{what}: expected a constant, got a tensor computed from the input")
    if isinstance(value, Indices):
        raise Unsupported(f"{what}: expected numbers, got the indices of a maximum (not piecewise linear)")
    if value is None or isinstance(value, str):
        raise Unsupported(f"{what}: expected numbers, got {value!r}")
    array = np.asarray(value)
    if array.dtype == object:
        if not all(isinstance(v, (int, Fraction)) and not isinstance(v, bool) for v in array.reshape(-1).tolist()):
            raise Unsupported(f"{what}: expected numbers, got {value!r}")
        return array
    if array.dtype.kind == "b":
        return array.astype(np.int64)
    if array.dtype.kind not in "iuf":
        raise Unsupported(f"{what}: expected real numbers, got dtype {array.dtype}")
    if array.dtype.kind == "f":
        if not np.all(np.isfinite(array)):
            raise Unsupported(f"{what}: expected finite numbers, got NaN or infinity")
        if array.dtype.itemsize > 8:  # longer than binary64: exact values go through Fraction
            return exact_array(array)
        return array.astype(np.float64)  # exact: every float16, bfloat16 and float32 is a double
    return array.astype(np.int64) if array.dtype.kind == "u" and array.dtype.itemsize < 8 else array


def exact_array(array: Any) -> np.ndarray:
    """The entries as exact :class:`~fractions.Fraction` objects (an object array), for exact folding."""
    array = np.asarray(array)
    if array.dtype == object:
        return array
    out = np.empty(array.shape, dtype=object)
    flat = out.reshape(-1)
    for i, v in enumerate(array.reshape(-1).tolist()):
        flat[i] = Fraction(v)
    return out


class GraphBuilder:
    """The nodes of a :class:`~polyregions.networks.graph.GraphNetwork` under construction.

    Parameters
    ----------
    input_shape : sequence of int
        The model's input shape with its batch axis first (the example input's shape).
    what : str
        The name of the model in error messages.
    """

    def __init__(self, input_shape: Sequence[int], what: str) -> None:
        shape = tuple(int(v) for v in input_shape)
        if len(shape) < 2 or any(v < 1 for v in shape):
            raise InvalidInputError(f"{what}: input: expected a batch of inputs, shape [batch, sizes...] with "
                                    f"positive sizes, got shape {list(shape)}")
        self.what = what
        #: The reader's name for the operator being read (the file, node and operator), which starts the
        #: messages of the errors it raises; the model's name alone when unset.
        self.context = ""
        self.batch = shape[0]
        self.input = Symbolic("input", shape)
        self.nodes: list[Node] = []
        self.shapes: dict[str, tuple[int, ...]] = {"input": shape[1:]}

    def add(self, op: Any, inputs: Sequence[Symbolic], hint: str = "node") -> Symbolic:
        """Append ``op`` applied to ``inputs`` under a fresh name derived from ``hint``."""
        name = self._fresh(hint)
        shape = op.output_shape([self.shapes[i.name] for i in inputs], self.context or f"{self.what}: {name}")
        self.nodes.append(Node(name, op, tuple(i.name for i in inputs)))
        self.shapes[name] = shape
        return Symbolic(name, (self.batch,) + shape)

    def reshape(self, x: Symbolic, shape: Sequence[int], hint: str = "reshape") -> Symbolic:
        """``x`` with the batch axis kept and the other entries in ``shape``. A tensor of one number per input
        (``shape`` empty) is a vector of one entry in the graph and keeps its framework shape ``[batch]``."""
        target = tuple(int(v) for v in shape)
        stored = target or (1,)
        name = x.name if stored == self.shapes[x.name] else self.add(ops.Reshape(stored), [x], hint).name
        return Symbolic(name, (self.batch,) + target)

    def network(self, output: Any) -> GraphNetwork:
        """The graph network returning ``output``."""
        if not is_symbolic(output):
            raise InvalidInputError(f"{self.what}: output: expected a tensor computed from the input, got "
                                    f"{'a constant' if output is not None else 'nothing'}")
        return GraphNetwork(self.shapes["input"], tuple(self.nodes), output.name)

    def _fresh(self, hint: str) -> str:
        base = "".join(c if c.isalnum() or c == "_" else "_" for c in hint) or "node"
        if base == "input":
            base = "input_"
        name, k = base, 1
        while name in self.shapes:
            k += 1
            name = f"{base}_{k}"
        return name


def batchless_axis(x: Symbolic, axis: Any, what: str) -> int:
    """A framework axis of ``x`` (counting the batch axis, negative from the end) as an axis of the graph's
    tensors; the batch axis itself is refused."""
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise Unsupported(f"{what}: expected an integer axis, got {axis!r}")
    a = int(axis) + x.rank if axis < 0 else int(axis)
    if not 0 <= a < x.rank:
        raise Unsupported(f"{what}: expected an axis of a tensor of rank {x.rank}, got {axis}")
    if a == 0:
        raise Unsupported(f"{what}: expected an axis after the batch axis, got the batch axis ({axis}): each input "
                          f"must be computed on alone")
    return a - 1


def resolve_shape(shape: Sequence[Any], size: int, what: str) -> tuple[int, ...]:
    """A target shape with at most one ``-1`` resolved for ``size`` entries."""
    try:
        values = [int(v) for v in shape]
    except (TypeError, ValueError):
        raise Unsupported(f"{what}: expected a constant shape, got {shape!r}") from None
    if values.count(-1) > 1 or any(v < -1 for v in values):
        raise Unsupported(f"{what}: expected sizes of at least 0 with at most one -1, got {values}")
    known = math.prod(v for v in values if v != -1)
    if -1 in values:
        if known == 0 or size % known:
            raise Unsupported(f"{what}: expected a shape of {size} entries, got {values}")
        values[values.index(-1)] = size // known
    elif known != size:
        raise Unsupported(f"{what}: expected a shape of {size} entries (the input's), got {values}")
    return tuple(values)
