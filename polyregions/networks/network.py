"""Feed-forward piecewise-linear networks with exact rational parameters.

Layer ``l`` maps its input ``x`` to ``act_l(W_l x + b_l)``. The units of every layer whose activation is not
affine are the network's *neurons*; an activation *pattern* is the flat tuple of the piece index
(:meth:`Activation.piece <polyregions.networks.activations.Activation.piece>`) of every neuron, in the order of
:attr:`Network.neurons`. On the set of inputs with a given pattern the network is affine
(:meth:`Network.affine_map`).

Arithmetic runs on FLINT rationals (python-flint ``fmpq_mat``), about a hundred times faster than
:class:`fractions.Fraction` for a 64 x 64 layer; results are returned as Fractions.

Examples
--------
>>> import polyregions as pr
>>> net = pr.Network.from_layers(1, [([[1], [1]], [0, -1], pr.relu()), ([[1, -2]], [0], pr.linear())])
>>> net([3]), net.pattern([3])
((Fraction(-1, 1),), (1, 1))
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, Iterable, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.exact.rationals import _describe, rational_matrix, rational_vector
from polyregions.networks.activations import activation_from_json
from polyregions.networks.layer import Layer, flint_column, fq, fraction_of

if TYPE_CHECKING:
    from flint import fmpq_mat

__all__ = ["Network", "check_pattern"]


@dataclass(frozen=True)
class Network:
    """A feed-forward network of :class:`Layer` objects on ``R^input_dim``, exact throughout.

    Build one with :meth:`from_layers` (which validates shapes and converts numbers), with a construction
    (:func:`~polyregions.networks.constructions.sawtooth`, :func:`~polyregions.networks.constructions.montufar`),
    from arrays (:func:`~polyregions.networks.io.network_from_arrays`) or a PyTorch module
    (:func:`~polyregions.networks.io.network_from_torch`), or read one from a file
    (:func:`~polyregions.networks.io.load_network`).

    Parameters
    ----------
    input_dim : int
        The input dimension, positive.
    layers : sequence of Layer
        At least one; each layer's ``fan_in`` is the width of the one before (``input_dim`` for the first).

    Attributes
    ----------
    input_dim : int
        The input dimension.
    layers : tuple of Layer
        The layers, first to last.

    Raises
    ------
    InvalidInputError
        When ``input_dim`` is not a positive integer, there are no layers, or consecutive shapes do not fit.

    Notes
    -----
    The units of every layer whose activation is not affine are the *neurons* (:attr:`neurons`); an activation
    *pattern* is the piece of every neuron, in that order. On the set of inputs with a given pattern the
    network is the affine map :meth:`affine_map`.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], pr.relu()), ([[1, 1]], [0], pr.linear())])
    >>> net.widths, net.neurons, net([-1, 2])
    ((2, 1), ((0, 0), (0, 1)), (Fraction(2, 1),))
    >>> net.pattern([-1, 2]), net.affine_map((0, 1))
    ((0, 1), (((Fraction(0, 1), Fraction(1, 1)),), (Fraction(0, 1),)))
    """

    input_dim: int
    layers: tuple[Layer, ...]

    def __post_init__(self) -> None:
        if not isinstance(self.input_dim, (int, np.integer)) or isinstance(self.input_dim, bool) \
                or self.input_dim < 1:
            raise InvalidInputError(f"network: input_dim: expected a positive integer, got "
                                    f"{_describe(self.input_dim)}")
        object.__setattr__(self, "input_dim", int(self.input_dim))
        if isinstance(self.layers, (str, bytes, dict)) or not hasattr(self.layers, "__iter__"):
            raise InvalidInputError(f"network: layers: expected a sequence of Layer objects, got "
                                    f"{type(self.layers).__name__} {_describe(self.layers)}")
        layers = tuple(self.layers)
        if not layers:
            raise InvalidInputError("network: layers: expected at least one layer, got none")
        fan_in = self.input_dim
        for i, layer in enumerate(layers):
            if not isinstance(layer, Layer):
                raise InvalidInputError(f"network: layers[{i}]: expected a Layer, got {type(layer).__name__}")
            if layer.fan_in != fan_in:
                raise InvalidInputError(f"network: layers[{i}].weight: expected {fan_in} columns, got {layer.fan_in}")
            fan_in = layer.width
        object.__setattr__(self, "layers", layers)

    def __reduce__(self):
        return (Network, (self.input_dim, self.layers))

    def __repr__(self) -> str:
        """The input dimension, the widths and the activations, in one line (``layers`` holds the weights).

        Examples
        --------
        >>> Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
        Network(input_dim=2, widths=(2, 1), activations=(relu, linear), 2 neurons)
        """
        widths = _run_lengths(list(self.widths)) + ("," if len(self.widths) == 1 else "")
        names = _run_lengths([layer.activation.name for layer in self.layers])
        return (f"Network(input_dim={self.input_dim}, widths=({widths}), activations=({names}), "
                f"{self.num_neurons:,} neuron{'' if self.num_neurons == 1 else 's'})")

    @classmethod
    def from_layers(cls, input_dim: int, layers: Iterable[Layer | tuple[Any, Any, Any]], *,
                    what: str = "network") -> Network:
        """Build a network from ``(weight, bias, activation)`` triples (or :class:`Layer` objects).

        Parameters
        ----------
        input_dim : int
            The input dimension, positive.
        layers : iterable of Layer or (weight, bias, activation) triples
            Numbers are read exactly (:func:`~polyregions.exact.rationals.rational`); an activation may be an
            :class:`Activation` or its network-file form (``"relu"``, ``{"kind": "leaky_relu", ...}``).
        what : str, keyword-only
            The name that starts every error message.

        Returns
        -------
        Network

        Raises
        ------
        InvalidInputError
            When a shape does not fit or an entry cannot be read. Errors name ``what`` and the field, for
            example ``network: layers[1].weight: expected 3 columns ...``.

        Examples
        --------
        >>> import polyregions as pr
        >>> pr.Network.from_layers(1, [([["1/2"]], [0], "relu")]).layers[0].weight
        ((Fraction(1, 2),),)
        >>> pr.Network.from_layers(2, [([[1, 0]], [0], "relu"), ([[1, 1]], [0], "linear")])  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        polyregions.errors.InvalidInputError: network: layers[1].weight: expected 1 columns (the width of ...
        """
        if not isinstance(input_dim, (int, np.integer)) or isinstance(input_dim, bool) or input_dim < 1:
            raise InvalidInputError(f"{what}: input_dim: expected a positive integer, got {_describe(input_dim)}")
        built = []
        fan_in = int(input_dim)
        items = list(layers) if not isinstance(layers, (str, bytes, dict)) and hasattr(layers, "__iter__") else None
        if items is None:
            raise InvalidInputError(f"{what}: layers: expected a list of layers, got {_describe(layers)}")
        if not items:
            raise InvalidInputError(f"{what}: layers: expected at least one layer, got none")
        for i, item in enumerate(items):
            field = f"{what}: layers[{i}]"
            if isinstance(item, Layer):
                weight, bias, activation = item.weight, item.bias, item.activation
            else:
                try:
                    weight, bias, activation = item
                except (TypeError, ValueError):
                    raise InvalidInputError(f"{field}: expected (weight, bias, activation), got "
                                            f"{_describe(item)}") from None
            weight = _matrix(weight, fan_in, f"{field}.weight", "the input dimension" if i == 0
                             else f"the width of layers[{i - 1}]")
            bias = rational_vector(bias, what=f"{field}.bias", length=len(weight))
            activation = activation_from_json(activation, what=f"{field}.activation")
            built.append(Layer(weight, bias, activation))
            fan_in = len(weight)
        return cls(int(input_dim), tuple(built))

    # --- shape --------------------------------------------------------------------------------------------

    @property
    def widths(self) -> tuple[int, ...]:
        """The output width of each layer."""
        return tuple(layer.width for layer in self.layers)

    @property
    def output_dim(self) -> int:
        """The width of the last layer."""
        return self.layers[-1].width

    @cached_property
    def neurons(self) -> tuple[tuple[int, int], ...]:
        """``(layer, unit)`` of every neuron (unit of a non-affine layer), in pattern order."""
        return tuple((l, u) for l, layer in enumerate(self.layers) if not layer.activation.is_linear
                     for u in range(layer.width))

    @property
    def num_neurons(self) -> int:
        """The number of neurons."""
        return len(self.neurons)

    @property
    def piece_counts(self) -> tuple[int, ...]:
        """The number of linear pieces of every neuron's activation, in pattern order."""
        return tuple(self.layers[l].activation.num_pieces for l, _ in self.neurons)

    # --- evaluation ---------------------------------------------------------------------------------------

    def _input(self, x: Any) -> fmpq_mat:
        if isinstance(x, tuple) and len(x) == self.input_dim and all(type(v) is Fraction for v in x):
            return flint_column(x)
        return flint_column(rational_vector(x, what="x", length=self.input_dim))

    def _run(self, x: Any, fixed: Sequence[int] | None = None):
        value = self._input(x)
        preactivations: list[fmpq_mat] = []
        pattern: list[int] = []
        position = 0
        for layer in self.layers:
            W, b = layer._flint[:2]
            z = W * value + b
            preactivations.append(z)
            if layer.activation.is_linear:
                value, _ = layer._apply(z, [0] * layer.width)
            else:
                pieces = None if fixed is None else fixed[position:position + layer.width]
                value, pieces = layer._apply(z, pieces)
                pattern.extend(pieces)
                position += layer.width
        return value, preactivations, tuple(pattern)

    def __call__(self, x: Any) -> Vector:
        """The exact output at ``x`` (a point of length ``input_dim``, read exactly), as a tuple of Fractions."""
        return tuple(fraction_of(v) for v in self._run(x)[0].entries())

    def preactivations(self, x: Any) -> tuple[Vector, ...]:
        """The exact pre-activations ``W_l x_{l-1} + b_l`` of every layer (affine layers included) at ``x``."""
        return tuple(tuple(fraction_of(v) for v in z.entries()) for z in self._run(x)[1])

    def pattern(self, x: Any) -> tuple[int, ...]:
        """The piece index of every neuron at ``x`` (flat, in the order of :attr:`neurons`).

        A point on a breakpoint is on the piece to its left (see :meth:`pattern_toward` for one side).

        Examples
        --------
        >>> import polyregions as pr
        >>> pr.Network.from_layers(1, [([[1], [-1]], [0, 0], pr.relu())]).pattern([0])
        (0, 0)
        """
        return self._run(x)[2]

    def _check_pattern(self, pattern: Any) -> tuple[int, ...]:
        return check_pattern(pattern, self.piece_counts)

    def pattern_toward(self, x: Sequence[Fraction], direction: Sequence[Fraction]) -> tuple[int, ...]:
        """The pattern at ``x + eps * direction`` for every small enough ``eps > 0``, exactly.

        Each pre-activation is carried as the pair (value, derivative along ``direction``) and compared with the
        breakpoints lexicographically, so a point on a boundary is resolved to the side the direction enters.

        Examples
        --------
        >>> import polyregions as pr
        >>> net = pr.Network.from_layers(1, [([[1]], [0], pr.relu())])
        >>> net.pattern_toward([0], [1]), net.pattern_toward([0], [-1])
        ((1,), (0,))
        """
        zero = Fraction(0)
        values = [(Fraction(v), Fraction(d)) for v, d in zip(x, direction)]
        pattern: list[int] = []
        for layer in self.layers:
            activation = layer.activation
            out = []
            for row, bias in zip(layer.weight, layer.bias):
                v = sum((w * a for w, (a, _) in zip(row, values) if w), zero) + bias
                s = sum((w * b for w, (_, b) in zip(row, values) if w), zero)
                k = sum(1 for xi in activation.breakpoints if (v, s) > (xi, zero))
                slope, intercept = activation.piece_map(k)
                out.append((slope * v + intercept, slope * s))
                if not activation.is_linear:
                    pattern.append(k)
            values = out
        return tuple(pattern)

    def forward_with_pattern(self, x: Any, pattern: Sequence[int]) -> Vector:
        """The output at ``x`` with every neuron held on the piece ``pattern`` gives it.

        On the closure of the region with that pattern this equals the network's output.
        """
        pattern = self._check_pattern(pattern)
        return tuple(fraction_of(v) for v in self._run(x, pattern)[0].entries())

    def affine_map(self, pattern: Sequence[int]) -> tuple[Matrix, Vector]:
        """``(M, c)`` such that the output is ``M x + c`` wherever the activation pattern is ``pattern``.

        Parameters
        ----------
        pattern : sequence of int
            One piece index per neuron, in the order of :attr:`neurons`.

        Returns
        -------
        M : tuple of tuple of Fraction
            Shape ``(output_dim, input_dim)``.
        c : tuple of Fraction
            Length ``output_dim``.

        Raises
        ------
        InvalidInputError
            When the pattern has the wrong length or a piece index out of range.

        Examples
        --------
        >>> import polyregions as pr
        >>> net = pr.Network.from_layers(1, [([[2]], [-1], pr.relu()), ([[3]], [1], pr.linear())])
        >>> net.affine_map((1,))
        (((Fraction(6, 1),),), (Fraction(-2, 1),))
        """
        import flint

        pattern = self._check_pattern(pattern)
        n = self.input_dim
        M = flint.fmpq_mat(n, n, [flint.fmpq(int(i == j)) for i in range(n) for j in range(n)])
        c = flint.fmpq_mat(n, 1)
        position = 0
        for layer in self.layers:
            W, b, _, slopes, intercepts = layer._flint
            G, g = W * M, W * c + b
            pieces: Sequence[int]
            if layer.activation.is_linear:
                pieces = [0] * layer.width
            else:
                pieces = pattern[position:position + layer.width]
                position += layer.width
            scale = flint.fmpq_mat(layer.width, layer.width)
            shift = flint.fmpq_mat(layer.width, 1)
            for i, k in enumerate(pieces):
                scale[i, i] = slopes[k]
                shift[i, 0] = intercepts[k]
            M, c = scale * G, scale * g + shift
        return (tuple(tuple(fraction_of(v) for v in row) for row in M.table()),
                tuple(fraction_of(v) for v in c.entries()))

    # --- transformations ----------------------------------------------------------------------------------

    def restrict(self, origin: Any, directions: Any) -> Network:
        """The network ``t -> N(origin + sum_i t_i directions[i])`` on ``R^k`` (``k = len(directions)``).

        The change of coordinates is folded exactly into the first layer; the neurons and their order are
        unchanged, so patterns mean the same thing. The identity change of coordinates returns ``self``.

        Examples
        --------
        >>> import polyregions as pr
        >>> net = pr.Network.from_layers(2, [([[1, 1]], [0], pr.relu())])
        >>> line = net.restrict([1, 0], [[0, 1]])
        >>> line.input_dim, line([2]) == net([1, 2])
        (1, True)
        """
        n = self.input_dim
        origin = rational_vector(origin, what="origin", length=n)
        directions = rational_matrix(directions, what="directions", shape=(None, n))
        k = len(directions)
        if k == 0:
            raise InvalidInputError("directions: expected at least one direction, got none")
        if k == n and not any(origin) and all(directions[i][j] == (i == j) for i in range(n) for j in range(n)):
            return self
        first = self.layers[0]
        W, b = first._flint[:2]
        import flint

        D = flint.fmpq_mat(k, n, [fq(v) for row in directions for v in row])
        weight = W * D.transpose()
        bias = W * flint_column(origin) + b
        table = weight.table()
        new_first = Layer(tuple(tuple(fraction_of(v) for v in table[i]) for i in range(first.width)),
                          tuple(fraction_of(v) for v in bias.entries()), first.activation)
        return Network(k, (new_first,) + self.layers[1:])

    def float_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        """Float64 copies ``(W, b)`` of every layer (each entry the nearest double), read-only, for float filters."""
        return list(self._float_layers)

    @cached_property
    def _float_layers(self) -> tuple[tuple[np.ndarray, np.ndarray], ...]:
        result = []
        for layer in self.layers:
            W = np.array([[float(v) for v in row] for row in layer.weight], dtype=np.float64)
            b = np.array([float(v) for v in layer.bias], dtype=np.float64)
            W.setflags(write=False)
            b.setflags(write=False)
            result.append((W, b))
        return tuple(result)


def _matrix(rows: Any, fan_in: int, what: str, source: str) -> Matrix:
    """Read a weight matrix with ``fan_in`` columns, with errors that say where the column count comes from."""
    if isinstance(rows, (str, bytes, dict)) or not hasattr(rows, "__len__"):
        raise InvalidInputError(f"{what}: expected a list of rows, got {_describe(rows)}")
    if isinstance(rows, np.ndarray) and rows.ndim != 2:
        raise InvalidInputError(f"{what}: expected a 2-D array, got an array of shape {rows.shape}")
    if len(rows) == 0:
        raise InvalidInputError(f"{what}: expected at least one row, got none")
    for r, row in enumerate(rows):
        if isinstance(row, (str, bytes, dict)) or not hasattr(row, "__len__"):
            raise InvalidInputError(f"{what}[{r}]: expected a list of {fan_in} numbers, got {_describe(row)}")
        if len(row) != fan_in:
            raise InvalidInputError(f"{what}: expected {fan_in} columns ({source}), got {len(row)} in row {r}")
    return rational_matrix(rows, what=what)


def check_pattern(pattern: Any, piece_counts: Sequence[int]) -> tuple[int, ...]:
    """``pattern`` as a tuple of ints, one piece index per neuron (``piece_counts[i]`` pieces for neuron ``i``);
    InvalidInputError otherwise."""
    if isinstance(pattern, (str, bytes, dict)) or not hasattr(pattern, "__iter__"):
        raise InvalidInputError(f"pattern: expected a sequence of {len(piece_counts)} piece indices, got "
                                f"{type(pattern).__name__} {_describe(pattern)}")
    pattern = tuple(pattern)
    if len(pattern) != len(piece_counts):
        raise InvalidInputError(f"pattern: expected {len(piece_counts)} piece indices (one per neuron), "
                                f"got {len(pattern)}")
    for i, (k, count) in enumerate(zip(pattern, piece_counts)):
        if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or not 0 <= k < count:
            raise InvalidInputError(f"pattern[{i}]: expected a piece index in 0..{count - 1}, got {k!r}")
    return tuple(int(k) for k in pattern)


def _run_lengths(values: list) -> str:
    """The values as written, each run of four or more equal ones shortened: ``relu x 40, linear``.

    >>> _run_lengths(["relu"] * 5 + ["linear"]), _run_lengths([16, 16, 1])
    ('relu x 5, linear', '16, 16, 1')
    """
    parts: list[list] = []
    for value in values:
        if parts and parts[-1][0] == value:
            parts[-1][1] += 1
        else:
            parts.append([value, 1])
    return ", ".join(f"{value} x {count}" if count >= 4 else ", ".join([str(value)] * count)
                     for value, count in parts)
