"""A graph network compiled into stages: the form the region engines work on.

A :class:`Stage` maps the *state* (every value still needed later) by one exact affine map to pre-activations
``z = W x + b``, then applies its units: the first ``len(activations)`` pre-activations go through element-wise
piecewise-linear units (an identity unit carries a value needed later: a residual path, a branch of a
concatenation), and each max unit takes the maximum of the pre-activations its group lists. The stage's output,
the next state, is the element-wise units' values followed by the max units'. Every affine operation of the
graph (dense, convolution, average pooling, batch norm, addition, concatenation, flatten, reshape) is folded
exactly into the next stage's map.

The *neurons* are the element-wise units with breakpoints and the max units (over two or more values); a
pattern holds each neuron's piece: for a max unit, the position of its argmax in its group. Ties are boundaries:
inside a full-dimensional cell the argmax is unique. A dense :class:`~polyregions.networks.network.Network`
is the special case of one stage per layer, all units of a stage sharing one activation and no max units.

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
from typing import TYPE_CHECKING, Any, Sequence, cast

import numpy as np
from flint import fmpq, fmpq_mat

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.exact.rationals import rational, rational_matrix, rational_vector
from polyregions.networks import operations as ops
from polyregions.networks.activations import Activation, activation_from_json, linear
from polyregions.networks.network import check_pattern

if TYPE_CHECKING:
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.network import Layer

__all__ = ["Stage", "StagedNetwork", "compile_graph", "units_of", "stages_to_json", "stages_from_json",
           "STAGES_FORMAT"]

#: The format tag of a staged network in exports (read by ``proofs_check``).
STAGES_FORMAT = "polyregions.stages/1"
#: A sparse stage whose dense weight would have more entries than this is exported as ``weight_sparse`` (per row,
#: ``[column, "num/den"]`` pairs, columns increasing, no zeros) and ``fan_in`` in place of the dense ``weight``.
SPARSE_EXPORT_ENTRIES = 1 << 20


def _fq(value: Fraction) -> fmpq:
    return fmpq(value.numerator, value.denominator)


def _fraction(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


SparseRows = tuple[tuple[tuple[int, Fraction], ...], ...]  # per row: (column, value) pairs, columns increasing


class Stage:
    """One stage: pre-activations ``weight @ x + bias``, element-wise units, then max units.

    The weight is held sparse (:attr:`rows`: per row its non-zero entries as ``(column, value)`` pairs): a
    convolution, a pooling window's selection or a concatenation has few non-zero entries per row, and a stage
    of ``n`` pre-activations never needs ``n x fan_in`` numbers. Build a stage from a dense weight
    (``Stage(weight, bias, activations, groups)``) or from sparse rows (:meth:`from_rows`); :attr:`weight` gives
    the dense rows (built on first use: for small stages and old callers).

    Attributes
    ----------
    weight : tuple of tuple of Fraction
        Shape ``(pre-activations, fan_in)`` (dense; built on first use when the stage was built sparse).
    rows : tuple of tuple of (int, Fraction)
        The weight's non-zero entries, row by row, columns increasing.
    bias : tuple of Fraction
    activations : tuple of Activation
        One per element-wise unit; unit ``i`` acts on pre-activation ``i``.
    groups : tuple of tuple of int
        One per max unit: the pre-activations (indices, at least two) it is the maximum of.

    Examples
    --------
    >>> from polyregions.networks.activations import relu
    >>> stage = Stage.from_rows(((( 1, Fraction(2)),), ()), 3, (0, 1), (relu(), relu()))
    >>> stage.weight, stage == Stage(stage.weight, stage.bias, stage.activations)
    (((Fraction(0, 1), Fraction(2, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(0, 1), Fraction(0, 1))), True)
    """

    rows: SparseRows
    bias: Vector
    activations: tuple[Activation, ...]
    groups: tuple[tuple[int, ...], ...]
    _fan_in: int

    def __init__(self, weight: Any, bias: Any, activations: Sequence[Activation],
                 groups: Sequence[Sequence[int]] = ()) -> None:
        dense = rational_matrix(weight, what="stage: weight")
        if not dense or not dense[0]:
            raise InvalidInputError("stage: weight: expected at least one row and one column")
        rows = tuple(tuple((j, v) for j, v in enumerate(row) if v) for row in dense)
        self._set(rows, len(dense[0]), rational_vector(bias, what="stage: bias", length=len(dense)),
                  activations, groups)
        self.__dict__["weight"] = dense  # the cached dense form

    @classmethod
    def from_rows(cls, rows: Any, fan_in: int, bias: Any, activations: Sequence[Activation],
                  groups: Sequence[Sequence[int]] = ()) -> "Stage":
        """A stage from sparse rows: per row, ``(column, value)`` pairs (exact values; zeros and repeated
        columns are not allowed, columns are sorted here)."""
        fan_in = int(fan_in)
        checked = []
        for i, row in enumerate(rows):
            pairs = tuple(sorted((int(j), v if type(v) is Fraction else rational(v, what=f"stage: rows[{i}]"))
                                 for j, v in row))
            if any(not v for _, v in pairs) or any(not 0 <= j < fan_in for j, _ in pairs) or any(
                    a[0] == b[0] for a, b in zip(pairs, pairs[1:])):
                raise InvalidInputError(f"stage: rows[{i}]: expected distinct columns below {fan_in} with "
                                        f"non-zero values")
            checked.append(pairs)
        if not checked or fan_in < 1:
            raise InvalidInputError("stage: weight: expected at least one row and one column")
        stage = cls.__new__(cls)
        stage._set(tuple(checked), fan_in, rational_vector(bias, what="stage: bias", length=len(checked)),
                   activations, groups)
        return stage

    @classmethod
    def _trusted(cls, rows: SparseRows, fan_in: int, bias: Vector, activations: tuple[Activation, ...],
                 groups: tuple[tuple[int, ...], ...]) -> "Stage":
        """A stage from rows already sorted, non-zero and exact (the compiler's and restriction's own)."""
        stage = cls.__new__(cls)
        stage._set(rows, fan_in, bias, activations, groups)
        return stage

    def _set(self, rows: SparseRows, fan_in: int, bias: Vector, activations: Sequence[Activation],
             groups: Sequence[Sequence[int]]) -> None:
        d = self.__dict__
        d["rows"], d["_fan_in"], d["bias"] = rows, fan_in, tuple(bias)
        d["activations"] = tuple(activations)
        d["groups"] = tuple(tuple(int(i) for i in g) for g in groups)
        n = len(rows)
        if len(self.activations) > n or any(len(g) < 2 or not all(0 <= i < n for i in g) for g in self.groups):
            raise InvalidInputError("stage: units: expected element-wise units on the first pre-activations and "
                                    "max groups of at least two pre-activations")

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"Stage is immutable: cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Stage):
            return NotImplemented
        return (self._fan_in == other._fan_in and self.bias == other.bias and self.activations == other.activations
                and self.groups == other.groups and self.rows == other.rows)

    def __hash__(self) -> int:
        return hash((self._fan_in, self.bias, self.activations, self.groups))

    def __repr__(self) -> str:
        return (f"Stage(pre-activations={len(self.rows)}, fan_in={self._fan_in}, non-zero weights={self.nnz}, "
                f"units={self.width}, max units={len(self.groups)})")

    def __reduce__(self):
        # FLINT matrices in the caches do not pickle: a stage travels to worker processes without them.
        return (Stage._trusted, (self.rows, self._fan_in, self.bias, self.activations, self.groups))

    @cached_property
    def weight(self) -> Matrix:
        """The dense weight (built on first use from :attr:`rows`: ``pre-activations x fan_in`` numbers)."""
        zero = Fraction(0)
        out = []
        for row in self.rows:
            dense = [zero] * self._fan_in
            for j, v in row:
                dense[j] = v
            out.append(tuple(dense))
        return tuple(out)

    @property
    def nnz(self) -> int:
        """The number of non-zero weights."""
        return sum(len(row) for row in self.rows)

    @property
    def is_sparse(self) -> bool:
        """Whether the dense weight would be mostly zeros (at most an eighth non-zero) and is worth avoiding."""
        return 8 * self.nnz <= len(self.rows) * self._fan_in

    @cached_property
    def csr(self) -> tuple[np.ndarray, np.ndarray, list[Fraction]]:
        """``(indptr, indices, values)``: the weight in compressed sparse rows (exact values)."""
        indptr = np.zeros(len(self.rows) + 1, dtype=np.int64)
        indptr[1:] = np.cumsum([len(row) for row in self.rows])
        indices = np.fromiter((j for row in self.rows for j, _ in row), dtype=np.int64, count=int(indptr[-1]))
        return indptr, indices, [v for row in self.rows for _, v in row]

    def float_weight(self) -> Any:
        """The doubles nearest to the weights as a ``scipy.sparse.csr_array`` (raises OverflowError beyond the
        double range)."""
        from scipy.sparse import csr_array

        indptr, indices, values = self.csr
        data = np.array([v.numerator / v.denominator for v in values], dtype=np.float64)
        return csr_array((data, indices, indptr), shape=(len(self.rows), self._fan_in))

    def dot(self, x: Sequence[Fraction]) -> list[Fraction]:
        """``weight @ x + bias`` exactly, for exact ``x`` (``fan_in`` numbers)."""
        return [sum((v * x[j] for j, v in row), b) for row, b in zip(self.rows, self.bias)]

    @property
    def width(self) -> int:
        """The number of units (outputs)."""
        return len(self.activations) + len(self.groups)

    @property
    def fan_in(self) -> int:
        """The number of inputs."""
        return self._fan_in

    @property
    def is_affine(self) -> bool:
        """Whether no unit has more than one piece."""
        return not self.groups and all(a.is_linear for a in self.activations)

    @cached_property
    def neurons(self) -> tuple[int, ...]:
        """The units with more than one piece: element-wise ones with breakpoints, then every max unit."""
        elementwise = len(self.activations)
        return tuple(i for i, a in enumerate(self.activations) if not a.is_linear) + tuple(
            elementwise + j for j in range(len(self.groups)))

    @cached_property
    def as_layer(self) -> "Layer | None":
        """The stage as a dense network's layer, when it has no max units and one activation for every unit
        (built once: a restricted network shares every stage but its first)."""
        from polyregions.networks.network import Layer

        if self.groups or any(a != self.activations[0] for a in self.activations):
            return None
        return Layer(self.weight, self.bias, self.activations[0])

    @cached_property
    def _flint(self) -> tuple[fmpq_mat, fmpq_mat]:
        return (fmpq_mat(len(self.rows), self.fan_in, [_fq(v) for row in self.weight for v in row]),
                fmpq_mat(len(self.bias), 1, [_fq(v) for v in self.bias]))

    @cached_property
    def _flint_rows(self) -> tuple[list[list[fmpq]], list[fmpq]]:
        """The weight's rows and the bias as FLINT rationals, for picking rows out."""
        return [[_fq(v) for v in row] for row in self.weight], [_fq(v) for v in self.bias]

    @cached_property
    def _flint_sparse(self) -> tuple[list[list[tuple[int, fmpq]]], list[fmpq]]:
        """The sparse rows and the bias as FLINT rationals."""
        return [[(j, _fq(v)) for j, v in row] for row in self.rows], [_fq(v) for v in self.bias]

    def products(self, needed: Sequence[int], M: fmpq_mat | None, c: fmpq_mat | None
                 ) -> tuple[list[list[fmpq]], list[fmpq]]:
        """Rows ``needed`` of ``W M`` and entries ``needed`` of ``W c + b``, exactly (``M`` None: the identity,
        ``c`` None: zero), ``n = M.ncols()`` numbers per row. A sparse stage multiplies out its non-zero
        weights only; a dense one takes FLINT's product of the rows picked out."""
        if not needed:
            return [], []
        if M is None:
            n = self.fan_in
        else:
            n = M.ncols()
        if not self.is_sparse:
            rows, offsets = self._flint_rows
            W = fmpq_mat([rows[r] for r in needed])
            Z = W.table() if M is None else (W * M).table()
            z = [offsets[r] for r in needed] if c is None else [
                v + offsets[r] for v, r in zip((W * c).entries(), needed)]
            return Z, z
        sparse, offsets = self._flint_sparse
        zero = fmpq(0)
        table: list[list[fmpq]] = []
        values: list[fmpq] = []
        Mt = None if M is None else M.table()
        ce = None if c is None else c.entries()
        for r in needed:
            row = sparse[r]
            if Mt is None:
                out = [zero] * n
                for j, w in row:
                    out[j] = w
            elif len(row) == 1:
                j, w = row[0]
                out = list(Mt[j]) if w == 1 else [w * v for v in Mt[j]]
            else:
                out = [zero] * n
                for j, w in row:
                    out = [a + w * v for a, v in zip(out, Mt[j])]
            table.append(out)
            values.append(offsets[r] if ce is None else sum((w * ce[j] for j, w in row), offsets[r]))
        return table, values

    def unit_maps(self, pieces: Sequence[int]) -> list[tuple[int, fmpq, fmpq]]:
        """For every unit, with the stage's neurons on ``pieces``: ``(j, s, d)``, the unit's output being
        ``s z_j + d`` for the pre-activations ``z`` (a max unit reads its argmax with ``s = 1``, ``d = 0``)."""
        units = []
        position = 0
        for i, activation in enumerate(self.activations):
            piece = 0
            if not activation.is_linear:
                piece = pieces[position]
                position += 1
            slope, intercept = activation.piece_map(piece)
            units.append((i, _fq(slope), _fq(intercept)))
        for group in self.groups:
            units.append((group[pieces[position]], fmpq(1), fmpq(0)))
            position += 1
        return units


def units_of(layer: Any) -> tuple[tuple[Activation, ...], tuple[tuple[int, ...], ...]]:
    """The element-wise activations and max groups of a :class:`Stage` or of a dense network's layer."""
    if isinstance(layer, Stage):
        return layer.activations, layer.groups
    return (layer.activation,) * layer.width, ()


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


def stages_to_json(network: StagedNetwork) -> dict[str, Any]:
    """The ``polyregions.stages/1`` document of a staged network, as exports carry it: per stage its weight and
    bias (exact strings), its distinct ``activations`` (network-file form), ``units`` (per element-wise unit, the
    index of its activation) and ``groups`` (per max unit, the pre-activations it is the maximum of). A large
    sparse stage (a convolution or a pooling selection over thousands of values; more than
    :data:`SPARSE_EXPORT_ENTRIES` dense entries) carries ``weight_sparse`` (per row, ``[column, "num/den"]``
    pairs of its non-zero weights, columns increasing) and ``fan_in`` instead of the dense ``weight``.

    Examples
    --------
    >>> from polyregions.networks.graph import GraphNetwork, Node
    >>> from polyregions.networks.operations import Maxout
    >>> doc = stages_to_json(GraphNetwork((2,), (Node("m", Maxout(2), ("input",)),), "m").staged)
    >>> doc["stages"][0]["groups"], doc["stages"][0]["units"]
    ([[0, 1]], [])
    """
    from polyregions.exact.rationals import format_rational

    stages = []
    for stage in network.layers:
        distinct: list[Activation] = []
        for activation in stage.activations:
            if activation not in distinct:
                distinct.append(activation)
        entry: dict[str, Any] = {}
        if stage.is_sparse and len(stage.rows) * stage.fan_in > SPARSE_EXPORT_ENTRIES:
            entry["fan_in"] = stage.fan_in
            entry["weight_sparse"] = [[[j, format_rational(v)] for j, v in row] for row in stage.rows]
        else:
            entry["weight"] = [[format_rational(v) for v in row] for row in stage.weight]
        stages.append({**entry, "bias": [format_rational(v) for v in stage.bias],
                       "activations": [a.to_json() for a in distinct],
                       "units": [distinct.index(a) for a in stage.activations],
                       "groups": [list(group) for group in stage.groups]})
    return {"format": STAGES_FORMAT, "input_dim": network.input_dim, "stages": stages}


def stages_from_json(document: Any, *, what: str = "stages") -> StagedNetwork:
    """The staged network of a ``polyregions.stages/1`` document (:func:`stages_to_json`'s inverse).

    Raises
    ------
    InvalidInputError
        When the document cannot be read as stages; ``what`` names it in the message.

    Examples
    --------
    >>> from polyregions.networks.graph import GraphNetwork, Node
    >>> from polyregions.networks.operations import Maxout
    >>> staged = GraphNetwork((2,), (Node("m", Maxout(2), ("input",)),), "m").staged
    >>> stages_from_json(stages_to_json(staged)) == staged
    True
    """
    try:
        stages = []
        for s, stage in enumerate(document["stages"]):
            distinct = [activation_from_json(a, what=f"{what}: stages[{s}].activations")
                        for a in stage["activations"]]
            units = tuple(distinct[u] for u in stage["units"])
            if "weight" in stage:
                stages.append(Stage(stage["weight"], stage["bias"], units, stage["groups"]))
            else:
                rows = [[(j, v) for j, v in row] for row in stage["weight_sparse"]]
                stages.append(Stage.from_rows(rows, stage["fan_in"], stage["bias"], units, stage["groups"]))
        return StagedNetwork(int(document["input_dim"]), tuple(stages))
    except (KeyError, TypeError, IndexError, ValueError) as error:
        if isinstance(error, InvalidInputError):
            raise
        raise InvalidInputError(f"{what}: expected a polyregions.stages/1 document, got one that cannot be read "
                                f"({type(error).__name__}: {error})") from None


# --- compiling a graph ---------------------------------------------------------------------------------------

Expression = tuple[list[dict[int, Fraction]], list[Fraction]]  # rows (variable -> coefficient) and constants


def _is_affine(op: Any) -> bool:
    if isinstance(op, ops.Activation):
        return op.activation.is_linear and op.activation.slopes == (1,) and not op.activation.offset
    if isinstance(op, ops.PReLU):
        return all(s == 1 for s in op.slopes)
    return hasattr(op, "affine")


def _apply(plan: ops.SparseAffine, inputs: list[Expression]) -> Expression:
    rows, constants = [], []
    for terms, constant in zip(plan.terms, plan.constants):
        row: dict[int, Fraction] = {}
        value = constant
        for k, j, w in terms:
            source_rows, source_constants = inputs[k]
            for var, coef in source_rows[j].items():
                row[var] = row.get(var, 0) + w * coef
            value += w * source_constants[j]
        rows.append({var: coef for var, coef in row.items() if coef})
        constants.append(value)
    return rows, constants


def _identity(first: int, count: int) -> Expression:
    return [{first + i: Fraction(1)} for i in range(count)], [Fraction(0)] * count


def _stage(rows: list[dict[int, Fraction]], constants: list[Fraction], width: int,
           activations: list[Activation], groups: list[tuple[int, ...]]) -> Stage:
    if not rows or width < 1:
        raise InvalidInputError("stage: weight: expected at least one row and one column")
    # Sparse rows straight from the operations' sparse maps: no dense row is ever made.
    sparse = tuple(tuple(sorted(row.items())) for row in rows)
    return Stage._trusted(sparse, width, tuple(constants), tuple(activations), tuple(groups))


def compile_graph(network: "GraphNetwork") -> StagedNetwork:
    """The stages of a graph network (see the module documentation); the same function, exactly.

    A node's *level* is the number of piecewise-linear operations on its longest path from the input; the
    piecewise-linear nodes of level ``s`` make stage ``s``'s units, and tensors of a lower level that a later
    affine node (or the output) reads are carried through identity units.
    """
    shapes = network.shapes
    level: dict[str, int] = {"input": 0}
    for node in network.nodes:
        level[node.name] = max(level[name] for name in node.inputs) + (0 if _is_affine(node.op) else 1)
    last = level[network.output]
    needed_until: dict[str, int] = {network.output: last}  # the last state a tensor must be available in
    for node in network.nodes:
        if _is_affine(node.op):
            for name in node.inputs:
                needed_until[name] = max(needed_until.get(name, 0), level[node.name])
    state_width = network.input_dim
    expressions: dict[str, Expression] = {"input": _identity(0, state_width)}
    stages = []
    for s in range(last + 1):
        for node in network.nodes:  # affine nodes of this level, in topological order
            if level[node.name] == s and _is_affine(node.op):
                plan = node.op.affine([shapes[name] for name in node.inputs]) if hasattr(node.op, "affine") \
                    else ops.Flatten().affine([shapes[node.inputs[0]]])
                expressions[node.name] = _apply(plan, [expressions[name] for name in node.inputs])
        if s == last:
            out_rows, out_constants = expressions[network.output]
            stages.append(_stage(out_rows, out_constants, state_width, [linear()] * len(out_rows), []))
            break
        rows: list[dict[int, Fraction]] = []
        constants: list[Fraction] = []
        activations: list[Activation] = []
        outputs: list[tuple[str, int]] = []  # next-state tensors in order, with their sizes (element-wise part)
        max_nodes = []
        for node in network.nodes:
            if level[node.name] == s + 1 and not _is_affine(node.op):
                source_rows, source_constants = expressions[node.inputs[0]]
                if hasattr(node.op, "elementwise"):
                    rows.extend(source_rows)
                    constants.extend(source_constants)
                    activations.extend(node.op.elementwise(shapes[node.inputs[0]]))
                    outputs.append((node.name, len(source_rows)))
                else:
                    max_nodes.append(node)
        for name, expression in expressions.items():
            if level[name] <= s and needed_until.get(name, -1) > s:
                rows.extend(expression[0])
                constants.extend(expression[1])
                activations.extend([linear()] * len(expression[0]))
                outputs.append((name, len(expression[0])))
        # Max units: a window of one value is an identity unit; the others read shared pre-activations.
        groups: list[tuple[int, ...]] = []
        max_outputs: list[tuple[str, list[tuple[str, int]]]] = []
        pending_rows: list[dict[int, Fraction]] = []
        pending_constants: list[Fraction] = []
        for node in max_nodes:
            source_rows, source_constants = expressions[node.inputs[0]]
            placement = []
            for group in cast(Any, node.op).max_groups(shapes[node.inputs[0]]):
                if len(group) == 1:
                    rows.append(source_rows[group[0]])
                    constants.append(source_constants[group[0]])
                    activations.append(linear())
                    placement.append(("unit", len(activations) - 1))
                else:
                    placement.append(("group", len(groups)))
                    groups.append(tuple(len(pending_rows) + i for i in group))
            pending_rows.extend(source_rows)
            pending_constants.extend(source_constants)
            max_outputs.append((node.name, placement))
        e = len(rows)
        groups = [tuple(e + i for i in group) for group in groups]
        rows.extend(pending_rows)
        constants.extend(pending_constants)
        stages.append(_stage(rows, constants, state_width, activations, groups))
        expressions = {}
        position = 0
        for name, size in outputs:
            expressions[name] = _identity(position, size)
            position += size
        for name, placement in max_outputs:
            expressions[name] = ([{i if where == "unit" else len(activations) + i: Fraction(1)}
                                  for where, i in placement], [Fraction(0)] * len(placement))
        state_width = len(activations) + len(groups)
    return StagedNetwork(network.input_dim, tuple(stages))
