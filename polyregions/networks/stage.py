"""One stage of a compiled network: an exact affine map to pre-activations, then its units.

A :class:`Stage` maps the *state* (every value still needed later) by one exact affine map to pre-activations
``z = W x + b``, then applies its units: the first ``len(activations)`` pre-activations go through element-wise
piecewise-linear units (an identity unit carries a value needed later: a residual path, a branch of a
concatenation), and each max unit takes the maximum of the pre-activations its group lists. The stage's output,
the next state, is the element-wise units' values followed by the max units'. The weight is kept as sparse rows
(a convolution or a pooling selection over thousands of values stays small); the dense matrix is built only when
asked for.

The *neurons* are the element-wise units with breakpoints and the max units (over two or more values); a
pattern holds each neuron's piece (for a max unit, the position of its argmax in its group), in the order of
:func:`piece_columns`.
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np
from flint import fmpq, fmpq_mat

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector
from polyregions.exact.rationals import rational, rational_matrix, rational_vector
from polyregions.networks.activations import Activation

if TYPE_CHECKING:
    from polyregions.networks.layer import Layer

__all__ = ["Stage", "units_of", "piece_columns"]


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
    def piece_columns(self) -> tuple[int, ...]:
        """:func:`piece_columns` of the stage's units (built once)."""
        return piece_columns(self.activations, self.groups)

    @cached_property
    def neurons(self) -> tuple[int, ...]:
        """The units with more than one piece: element-wise ones with breakpoints, then every max unit."""
        return tuple(u for u, column in enumerate(self.piece_columns) if column >= 0)

    @cached_property
    def as_layer(self) -> "Layer | None":
        """The stage as a dense network's layer, when it has no max units and one activation for every unit
        (built once: a restricted network shares every stage but its first)."""
        from polyregions.networks.layer import Layer

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
        columns = self.piece_columns
        units = []
        for i, activation in enumerate(self.activations):
            slope, intercept = activation.piece_map(pieces[columns[i]] if columns[i] >= 0 else 0)
            units.append((i, _fq(slope), _fq(intercept)))
        e = len(self.activations)
        for j, group in enumerate(self.groups):
            units.append((group[pieces[columns[e + j]]], fmpq(1), fmpq(0)))
        return units


def piece_columns(activations: Sequence[Activation], groups: Sequence[Sequence[int]]) -> tuple[int, ...]:
    """For every unit of a stage (element-wise units, then max units), the column of a pattern that holds its
    piece, or -1 for an element-wise unit with one piece: the neurons of a stage take consecutive columns,
    element-wise ones with breakpoints first, then every max unit.

    Examples
    --------
    >>> from polyregions.networks.activations import linear, relu
    >>> piece_columns([relu(), linear(), relu()], [(0, 1)])
    (0, -1, 1, 2)
    """
    columns, count = [], 0
    for activation in activations:
        columns.append(-1 if activation.is_linear else count)
        count += not activation.is_linear
    return tuple(columns) + tuple(range(count, count + len(groups)))


def units_of(layer: Any) -> tuple[tuple[Activation, ...], tuple[tuple[int, ...], ...]]:
    """The element-wise activations and max groups of a :class:`Stage` or of a dense network's layer."""
    if isinstance(layer, Stage):
        return layer.activations, layer.groups
    return (layer.activation,) * layer.width, ()
