"""Float pre-activations of layers with sparse weight matrices, with the float filter's proven bounds.

The dense rewriting of a graph network (:mod:`.stages`) has wide layers of pass-through units and tournament
rounds, each reading one to a few inputs: multiplying by the dense matrix spends almost all its time on zeros.
The products here skip them. The bound of :func:`polyregions.networks._float_filter.forward_layer` holds for any
order of summation, and leaving out a product with an exact zero weight changes no rounding (adding an exact zero
is exact), so the same bound, with the same constants, holds for the sparse products.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from polyregions.networks._float_filter import _TINY, FloatActivation, FloatLayer, U, _float, gamma, safety

if TYPE_CHECKING:
    from polyregions.networks.activations import Activation

__all__ = ["SparseWeights", "sparse_weights", "sparse_forward", "SparseLayer", "LayeredNetwork",
           "sparse_float_layer"]

#: A layer is taken as sparse when at most this fraction of its weights is non-zero.
_DENSITY = 1 / 8


@dataclass(frozen=True)
class SparseWeights:
    """A float layer's weight matrix and its absolute values in compressed sparse rows."""

    weight: Any  # scipy.sparse.csr_array (imported on first use: it takes half a second to import)
    abs_weight: Any


def sparse_weights(layer: FloatLayer) -> SparseWeights | None:
    """The sparse form of ``layer``'s weights, or None when they are too dense to gain from it."""
    if not isinstance(layer.weight, np.ndarray):  # a sparse layer's float form: already sparse
        return SparseWeights(layer.weight, layer.abs_weight)
    if np.count_nonzero(layer.weight) > _DENSITY * layer.weight.size:
        return None
    from scipy.sparse import csr_array

    return SparseWeights(csr_array(layer.weight), csr_array(layer.abs_weight))


def sparse_forward(layer: FloatLayer, weights: SparseWeights, h: np.ndarray, e_h: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
    """``forward_layer(layer, h, e_h)`` (pre-activations of the rows of ``h`` and their bounds), the products
    computed with the sparse weights."""
    with np.errstate(all="ignore"):  # NaN and infinite values prove nothing downstream
        z = (weights.weight @ h.T).T + layer.bias
        g = gamma(layer.fan_in + 3)
        e = (weights.abs_weight @ (np.abs(h) * g + e_h * (1 + 2 * U)).T).T + (g * layer.abs_bias + layer.tiny)
        return z, e * safety(layer.fan_in + 4)


class SparseLayer:
    """An exact layer kept in sparse rows (the dense rewriting's wide layers: pass-through units and tournament
    rounds read one or two values each; a convolution a few): the interface of
    :class:`~polyregions.networks.network.Layer` that the mesh engine reads, without a dense weight.

    Attributes
    ----------
    rows : tuple of tuple of (int, Fraction)
        Per unit, its non-zero weights as ``(column, value)`` pairs, columns increasing.
    fan_in : int
    bias : tuple of Fraction
    activation : Activation
    """

    def __init__(self, rows: Sequence[Sequence[tuple[int, Fraction]]], fan_in: int, bias: Sequence[Fraction],
                 activation: Activation) -> None:
        self.rows = tuple(tuple(row) for row in rows)
        self.fan_in = int(fan_in)
        self.bias = tuple(bias)
        self.activation = activation
        if len(self.bias) != len(self.rows) or not self.rows or self.fan_in < 1:
            raise ValueError("SparseLayer: expected one bias per row, at least one row and one column")

    @property
    def width(self) -> int:
        """The number of units."""
        return len(self.rows)

    @property
    def nnz(self) -> int:
        """The number of non-zero weights."""
        return sum(len(row) for row in self.rows)

    @property
    def weight(self) -> tuple[tuple[Fraction, ...], ...]:
        """The dense weight (for small layers only: ``width x fan_in`` numbers)."""
        zero = Fraction(0)
        out = []
        for row in self.rows:
            dense = [zero] * self.fan_in
            for j, v in row:
                dense[j] = v
            out.append(tuple(dense))
        return tuple(out)

    def csr(self) -> tuple[np.ndarray, np.ndarray, list[Fraction]]:
        """``(indptr, indices, values)``: the weights in compressed sparse rows (exact values)."""
        indptr = np.zeros(self.width + 1, dtype=np.int64)
        indptr[1:] = np.cumsum([len(row) for row in self.rows])
        indices = np.fromiter((j for row in self.rows for j, _ in row), dtype=np.int64, count=int(indptr[-1]))
        return indptr, indices, [v for row in self.rows for _, v in row]


class LayeredNetwork:
    """The dense rewriting of a graph network as the mesh engine reads it: ``input_dim`` and layers, each a
    :class:`~polyregions.networks.network.Layer` or a :class:`SparseLayer` (so a wide sparse layer is never
    made dense)."""

    def __init__(self, input_dim: int, layers: Sequence[Any]) -> None:
        self.input_dim = int(input_dim)
        self.layers = tuple(layers)
        fan_in = self.input_dim
        for i, layer in enumerate(self.layers):
            if layer.fan_in != fan_in:
                raise ValueError(f"LayeredNetwork: layers[{i}]: expected {fan_in} columns, got {layer.fan_in}")
            fan_in = layer.width

    @property
    def widths(self) -> tuple[int, ...]:
        """The number of units of each layer."""
        return tuple(layer.width for layer in self.layers)

    @property
    def num_neurons(self) -> int:
        """The number of units of the layers with breakpoints."""
        return sum(layer.width for layer in self.layers if not layer.activation.is_linear)


def sparse_float_layer(layer: SparseLayer) -> tuple[FloatLayer, SparseWeights]:
    """The :class:`FloatLayer` of a sparse exact layer, its ``weight`` and ``abs_weight`` in compressed sparse rows
    (as :func:`polyregions.networks._float_filter.float_layer` builds them densely: the same doubles, the same
    per-row constants), and those weights for :func:`sparse_forward`."""
    from scipy.sparse import csr_array

    indptr, indices, values = layer.csr()
    shape = (layer.width, layer.fan_in)
    data = np.array([_float(v) for v in values], dtype=np.float64)
    b = np.array([_float(v) for v in layer.bias], dtype=np.float64)
    counts = np.diff(indptr)
    tiny = _TINY * (counts + (b != 0))
    # A parameter too small for a relative rounding bound makes its row prove nothing (as in float_layer).
    rows_of = np.repeat(np.arange(layer.width), counts)
    for position in np.nonzero(np.abs(data) <= _TINY)[0].tolist():
        if abs(values[position]) < _TINY:
            tiny[rows_of[position]] = np.inf
    for i in np.nonzero(np.abs(b) <= _TINY)[0].tolist():
        if layer.bias[i] != 0 and abs(layer.bias[i]) < _TINY:
            tiny[i] = np.inf
    weight = csr_array((data, indices, indptr), shape=shape)
    abs_weight = csr_array((np.abs(data), indices, indptr), shape=shape)
    flayer = FloatLayer(weight, b, abs_weight, np.abs(b), tiny, layer.fan_in,
                        FloatActivation.of(layer.activation))
    return flayer, SparseWeights(weight, abs_weight)
