"""A network of stages (:class:`~polyregions.networks.stage.Stage`): the form the region engines work on.

A graph network compiles into stages (:mod:`~polyregions.networks.compiling`); every affine operation of the
graph (dense, convolution, average pooling, batch norm, addition, concatenation, flatten, reshape) is folded
exactly into the next stage's map. A dense :class:`~polyregions.networks.network.Network` is the special case of
one stage per layer, all units of a stage sharing one activation and no max units. :class:`StagedNetwork` gives
the interface of a layered network (patterns, affine maps, region rows, restriction) for graph networks.

Examples
--------
>>> from polyregions.networks.graph import GraphNetwork, Node
>>> from polyregions.networks.operations import Dense, Maxout
>>> net = GraphNetwork((1,), (Node("d", Dense([[1], [-1]], [0, 0]), ("input",)),
...                           Node("m", Maxout(2), ("d",))), "m").staged
>>> len(net.layers), net.neurons, net.pattern([-3]), net([-3])
(2, ((0, 0),), (1,), (Fraction(3, 1),))
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from flint import fmpq, fmpq_mat

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.exact.rationals import rational_matrix, rational_vector
from polyregions.networks.network import check_pattern

if TYPE_CHECKING:
    pass
from polyregions.networks.stage import Stage, _fq, _fraction

__all__ = ["StagedNetwork"]


@dataclass(frozen=True)
class StagedNetwork:
    """A network of :class:`Stage` objects on ``R^input_dim``: the interface of
    :class:`~polyregions.networks.network.Network` (patterns, affine maps, restriction) for graph networks.

    Attributes
    ----------
    input_dim : int
    layers : tuple of Stage
        The stages, first to last; the last one's output is the network's.
    """

    input_dim: int
    layers: tuple[Stage, ...]

    def __post_init__(self) -> None:
        fan_in = self.input_dim
        for i, stage in enumerate(self.layers):
            if stage.fan_in != fan_in:
                raise InvalidInputError(f"stages[{i}].weight: expected {fan_in} columns, got {stage.fan_in}")
            fan_in = stage.width
        object.__setattr__(self, "layers", tuple(self.layers))

    def __reduce__(self):
        return (StagedNetwork, (self.input_dim, self.layers))

    # --- shape --------------------------------------------------------------------------------------------

    @property
    def widths(self) -> tuple[int, ...]:
        """The number of units of each stage."""
        return tuple(stage.width for stage in self.layers)

    @property
    def output_dim(self) -> int:
        """The width of the last stage."""
        return self.layers[-1].width

    @cached_property
    def neurons(self) -> tuple[tuple[int, int], ...]:
        """``(stage, unit)`` of every neuron, in pattern order."""
        return tuple((s, u) for s, stage in enumerate(self.layers) for u in stage.neurons)

    @property
    def num_neurons(self) -> int:
        """The number of neurons."""
        return len(self.neurons)

    @cached_property
    def piece_counts(self) -> tuple[int, ...]:
        """The number of pieces of every neuron, in pattern order."""
        counts = []
        for s, u in self.neurons:
            stage = self.layers[s]
            e = len(stage.activations)
            counts.append(stage.activations[u].num_pieces if u < e else len(stage.groups[u - e]))
        return tuple(counts)

    # --- evaluation ---------------------------------------------------------------------------------------

    def _run(self, x: Any, fixed: Sequence[int] | None = None) -> tuple[list[Fraction], list[list[Fraction]],
                                                                        tuple[int, ...]]:
        value = list(rational_vector(x, what="x", length=self.input_dim))
        pattern: list[int] = []
        preactivations = []
        for stage in self.layers:
            z = stage.dot(value)
            preactivations.append(z)
            out = []
            for activation, t in zip(stage.activations, z):
                k = bisect.bisect_left(activation.breakpoints, t)
                if not activation.is_linear:
                    if fixed is not None:
                        k = fixed[len(pattern)]
                    pattern.append(k)
                slope, intercept = activation.piece_map(k)
                out.append(slope * t + intercept)
            for group in stage.groups:
                values = [z[i] for i in group]
                k = values.index(max(values)) if fixed is None else fixed[len(pattern)]
                pattern.append(k)
                out.append(values[k])
            value = out
        return value, preactivations, tuple(pattern)

    def __call__(self, x: Any) -> Vector:
        """The exact output at ``x`` (``input_dim`` numbers)."""
        return tuple(self._run(x)[0])

    def preactivations(self, x: Any) -> tuple[Vector, ...]:
        """The exact pre-activations of every stage at ``x``."""
        return tuple(tuple(z) for z in self._run(x)[1])

    def pattern(self, x: Any) -> tuple[int, ...]:
        """The piece of every neuron at ``x``; on a breakpoint the left piece, on a tie the first argmax."""
        return self._run(x)[2]

    def _check_pattern(self, pattern: Any) -> tuple[int, ...]:
        return check_pattern(pattern, self.piece_counts)

    def forward_with_pattern(self, x: Any, pattern: Sequence[int]) -> Vector:
        """The output at ``x`` with every neuron held on the piece ``pattern`` gives it."""
        return tuple(self._run(x, self._check_pattern(pattern))[0])

    def pattern_toward(self, x: Sequence[Fraction], direction: Sequence[Fraction]) -> tuple[int, ...]:
        """The pattern at ``x + eps * direction`` for every small enough ``eps > 0``, exactly (values and their
        derivatives along ``direction`` compared lexicographically)."""
        zero = Fraction(0)
        values = [(Fraction(v), Fraction(d)) for v, d in zip(x, direction)]
        pattern: list[int] = []
        for stage in self.layers:
            z = [(sum((w * values[j][0] for j, w in row), zero) + b, sum((w * values[j][1] for j, w in row), zero))
                 for row, b in zip(stage.rows, stage.bias)]
            out = []
            for activation, (v, s) in zip(stage.activations, z):
                k = sum(1 for xi in activation.breakpoints if (v, s) > (xi, zero))
                slope, intercept = activation.piece_map(k)
                out.append((slope * v + intercept, slope * s))
                if not activation.is_linear:
                    pattern.append(k)
            for group in stage.groups:
                pairs = [z[i] for i in group]
                k = pairs.index(max(pairs))
                pattern.append(k)
                out.append(pairs[k])
            values = out
        return tuple(pattern)

    def selection(self, stage: Stage, pieces: Sequence[int]) -> tuple[fmpq_mat, fmpq_mat]:
        """``(S, s)``: the stage's output is ``S z + s`` for pre-activations ``z`` with its neurons on ``pieces``."""
        S = fmpq_mat(stage.width, len(stage.rows))
        shift = fmpq_mat(stage.width, 1)
        for unit, (source, slope, intercept) in enumerate(stage.unit_maps(pieces)):
            S[unit, source] = slope
            shift[unit, 0] = intercept
        return S, shift

    def affine_map(self, pattern: Sequence[int]) -> tuple[Matrix, Vector]:
        """``(M, c)`` such that the output is ``M x + c`` wherever the pattern is ``pattern``.

        Examples
        --------
        >>> from polyregions.networks.graph import GraphNetwork, Node
        >>> from polyregions.networks.operations import Dense, Maxout
        >>> net = GraphNetwork((1,), (Node("d", Dense([[1], [-1]], [0, 0]), ("input",)),
        ...                           Node("m", Maxout(2), ("d",))), "m").staged
        >>> net.affine_map((1,))
        (((Fraction(-1, 1),),), (Fraction(0, 1),))
        """
        pattern = self._check_pattern(pattern)
        n = self.input_dim
        M: fmpq_mat | None = None  # None: the identity (and c zero), so that the first stage stays sparse
        c: fmpq_mat | None = None
        position = 0
        for stage in self.layers:
            count = len(stage.neurons)
            units = stage.unit_maps(pattern[position:position + count])
            position += count
            # Only the pre-activations a unit passes on with a non-zero slope are multiplied out: a dead ReLU's
            # row is zero and a max unit reads one of its values (the product S (W M) would do it all).
            live = [u for u, (_, slope, _) in enumerate(units) if slope]
            Z, z = stage.products([units[u][0] for u in live], M, c)
            zero = fmpq(0)
            table = [[zero] * n for _ in units]
            shifts = [intercept for _, _, intercept in units]
            for t, u in enumerate(live):
                _, slope, _ = units[u]
                table[u] = Z[t] if slope == 1 else [slope * v for v in Z[t]]
                shifts[u] += slope * z[t]
            M, c = fmpq_mat(table), fmpq_mat([[v] for v in shifts])
        assert M is not None and c is not None  # at least one stage
        return (tuple(tuple(_fraction(v) for v in M.table()[i]) for i in range(M.nrows())),
                tuple(_fraction(v) for v in c.entries()))

    def region_rows(self, pattern: Sequence[int]) -> list[tuple[int, Vector, Fraction, int]]:
        """The closed activation region of ``pattern`` as rows ``a . x <= beta``, each with the neuron it comes
        from and the piece that neuron takes across the row's hyperplane: two per element-wise piece between two
        breakpoints (one on an unbounded piece), ``k - 1`` per max unit over ``k`` values (``z_j <= z_argmax``).
        Rows with ``a = 0`` are kept (a constant condition).

        Examples
        --------
        >>> from polyregions.networks.graph import GraphNetwork, Node
        >>> from polyregions.networks.operations import Dense, Maxout
        >>> net = GraphNetwork((1,), (Node("d", Dense([[1], [-1]], [0, 0]), ("input",)),
        ...                           Node("m", Maxout(2), ("d",))), "m").staged
        >>> net.region_rows((1,))  # -x is the larger: x <= 0; across it, piece 0
        [(0, (Fraction(2, 1),), Fraction(0, 1), 0)]
        """
        pattern = self._check_pattern(pattern)
        n = self.input_dim
        M: fmpq_mat | None = None  # None: the identity (and c zero)
        c: fmpq_mat | None = None
        rows: list[tuple[int, Vector, Fraction, int]] = []
        position = 0
        for stage in self.layers:
            Z, z = stage.products(range(len(stage.rows)), M, c)
            table = [[_fraction(v) for v in row] for row in Z]
            values = [_fraction(v) for v in z]
            for i, activation in enumerate(stage.activations):
                if activation.is_linear:
                    continue
                k, points = pattern[position], activation.breakpoints
                if k < len(points):
                    rows.append((position, tuple(table[i]), points[k] - values[i], k + 1))
                if k > 0:
                    rows.append((position, tuple(-v for v in table[i]), values[i] - points[k - 1], k - 1))
                position += 1
            for group in stage.groups:
                win = group[pattern[position]]
                for place, j in enumerate(group):
                    if j != win:
                        rows.append((position, tuple(x - y for x, y in zip(table[j], table[win])),
                                     values[win] - values[j], place))
                position += 1
            count = len(stage.neurons)
            # The next state, unit by unit (no selection matrix): slope times the unit's pre-activation row.
            zero = fmpq(0)
            next_rows, shifts = [], []
            for source, slope, intercept in stage.unit_maps(pattern[position - count:position]):
                next_rows.append([zero] * n if not slope else Z[source] if slope == 1 else
                                 [slope * v for v in Z[source]])
                shifts.append([slope * z[source] + intercept])
            M, c = fmpq_mat(next_rows), fmpq_mat(shifts)
        return rows

    # --- transformations ----------------------------------------------------------------------------------

    def restrict(self, origin: Any, directions: Any) -> StagedNetwork:
        """The network ``t -> N(origin + sum_i t_i directions[i])``, folded into the first stage; the neurons
        and their order are unchanged."""
        n = self.input_dim
        origin = rational_vector(origin, what="origin", length=n)
        directions = rational_matrix(directions, what="directions", shape=(None, n))
        k = len(directions)
        if k == 0:
            raise InvalidInputError("directions: expected at least one direction, got none")
        if k == n and not any(origin) and all(directions[i][j] == (i == j) for i in range(n) for j in range(n)):
            return self
        first = self.layers[0]
        # A sparse product for a sparse first stage: its non-zero weights times the directions.
        D = fmpq_mat(n, k, [_fq(directions[t][j]) for j in range(n) for t in range(k)])
        weight, bias = first.products(range(len(first.rows)), D, fmpq_mat(n, 1, [_fq(v) for v in origin]))
        rows = tuple(tuple((t, _fraction(v)) for t, v in enumerate(row) if v) for row in weight)
        new_first = Stage._trusted(rows, k, tuple(_fraction(v) for v in bias), first.activations, first.groups)
        return StagedNetwork(k, (new_first,) + self.layers[1:])

    def tight_neurons(self, points: Sequence[Sequence[Any]]) -> list[frozenset[int]]:
        """For every point, the neurons (indices in :attr:`neurons` order) on a boundary there: an element-wise
        unit whose pre-activation is at a breakpoint, a max unit whose largest value is attained twice."""
        result = []
        for x in points:
            _, preactivations, _ = self._run(x)
            found, index = set(), 0
            for stage, z in zip(self.layers, preactivations):
                for i, activation in enumerate(stage.activations):
                    if not activation.is_linear:
                        if z[i] in activation.breakpoints:
                            found.add(index)
                        index += 1
                for group in stage.groups:
                    values = [z[j] for j in group]
                    if values.count(max(values)) > 1:
                        found.add(index)
                    index += 1
            result.append(frozenset(found))
        return result

    def float_patterns(self, x: np.ndarray) -> np.ndarray:
        """Float guesses of the patterns at the rows of ``x`` (never decisive: callers prove them exactly)."""
        columns = []
        for stage, (W, b, breakpoints, slopes, intercepts, linear_units) in zip(self.layers, self._floats):
            z = (W @ x.T).T + b if not isinstance(W, np.ndarray) else x @ W.T + b
            e = len(stage.activations)
            out = np.empty((len(x), stage.width))
            for i in range(e):
                k = np.searchsorted(breakpoints[i], z[:, i], side="left")
                out[:, i] = slopes[i][k] * z[:, i] + intercepts[i][k]
                if not linear_units[i]:
                    columns.append(k)
            for j, group in enumerate(stage.groups):
                values = z[:, list(group)]
                k = np.argmax(values, axis=1)
                columns.append(k)
                out[:, e + j] = values[np.arange(len(x)), k]
            x = out
        return np.stack(columns, axis=1) if columns else np.zeros((len(x), 0), dtype=int)

    @cached_property
    def _floats(self) -> list[tuple[Any, ...]]:
        result = []
        for stage in self.layers:
            pieces = [[a.piece_map(k) for k in range(a.num_pieces)] for a in stage.activations]
            result.append((stage.float_weight() if stage.is_sparse else
                           np.array([[float(v) for v in row] for row in stage.weight]),
                           np.array([float(v) for v in stage.bias]),
                           [np.array([float(v) for v in a.breakpoints]) for a in stage.activations],
                           [np.array([float(m) for m, _ in p]) for p in pieces],
                           [np.array([float(q) for _, q in p]) for p in pieces],
                           [a.is_linear for a in stage.activations]))
        return result
