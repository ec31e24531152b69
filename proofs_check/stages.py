"""The staged network of an export of a graph network (``polyregions.stages/1``), read exactly, and its exact
forward pass with a fixed or an actual pattern.

A stage maps its input ``x`` to pre-activations ``z = W x + b``; unit ``i < len(units)`` applies the activation
``activations[units[i]]`` to ``z_i``; each max unit takes the largest of the ``z_j`` its group lists. The stage's
output is the element-wise units' values, then the max units'. The neurons are the element-wise units whose
activation is not linear (piece: the number of breakpoints strictly below) and the max units (piece: the first
position of the largest value in the group).

For check 3 a max unit with recorded piece ``p`` stands for one condition per other value ``j`` of its group:
``z_p - z_j >= 0``, a pre-activation kept in the closed interval ``[0, inf)``.

A stage's weight is a dense ``weight`` (rows of ``fan_in`` numbers) or, for a large sparse stage (a convolution
or a pooling selection over thousands of values), ``weight_sparse`` with ``fan_in``: per row, ``[column, number]``
pairs of its non-zero weights, columns increasing. Either way it is held as sparse rows.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from .errors import InputError
from .network import Activation, Evaluation, _make_activation, read_activation
from .reading import check_keys, get_key, read_int, read_list, read_matrix, read_vector

__all__ = ["STAGES_FORMAT", "Stage", "StagedNetwork", "read_stages"]

STAGES_FORMAT = "polyregions.stages/1"
_ZERO = Fraction(0)
# Piece 1 of this activation is the closed interval [0, inf): the condition a max unit's winner keeps.
_NONNEGATIVE = _make_activation((_ZERO,), (_ZERO, Fraction(1)), _ZERO)


SparseRow = tuple[tuple[int, Fraction], ...]  # (column, non-zero weight) pairs, columns increasing


@dataclass(frozen=True, eq=False)
class Stage:
    rows: tuple[SparseRow, ...]
    fan_in: int
    bias: tuple[Fraction, ...]
    units: tuple[Activation, ...]
    groups: tuple[tuple[int, ...], ...]

    @classmethod
    def dense(cls, weight: Sequence[Sequence[Fraction]], bias: Sequence[Fraction], units: Sequence[Activation],
              groups: Sequence[tuple[int, ...]]) -> "Stage":
        """A stage from its dense weight."""
        rows = tuple(tuple((j, v) for j, v in enumerate(row) if v) for row in weight)
        return cls(rows, len(weight[0]), tuple(bias), tuple(units), tuple(groups))

    @property
    def weight(self) -> tuple[tuple[Fraction, ...], ...]:
        """The dense weight (for small stages: a convolution's would be large)."""
        dense = []
        for row in self.rows:
            values = [_ZERO] * self.fan_in
            for j, v in row:
                values[j] = v
            dense.append(tuple(values))
        return tuple(dense)

    @property
    def width(self) -> int:
        return len(self.units) + len(self.groups)


def _integer_entry(row: Sequence[Fraction], constant: Fraction, piece: int, act: Activation) -> tuple:
    den = math.lcm(constant.denominator, *(v.denominator for v in row))
    return tuple(int(v * den) for v in row), int(constant * den), den, piece, act


@dataclass(frozen=True)
class StagedNetwork:
    """The stages in order."""

    input_dim: int
    layers: tuple[Stage, ...]

    @property
    def neurons(self) -> list[tuple[int, int]]:
        """``(stage, unit)`` of every neuron, in pattern order."""
        return [(s, u) for s, stage in enumerate(self.layers)
                for u in [i for i, a in enumerate(stage.units) if not a.is_linear]
                + [len(stage.units) + j for j in range(len(stage.groups))]]

    @property
    def entry_names(self) -> list[tuple[int, int]]:
        """``(stage, unit)`` of each condition check 3 tests: one per element-wise neuron, ``k - 1`` per max unit
        over ``k`` values."""
        return [(s, u) for s, stage in enumerate(self.layers)
                for u in [i for i, a in enumerate(stage.units) if not a.is_linear]
                + [len(stage.units) + j for j, group in enumerate(stage.groups) for _ in group[1:]]]

    @property
    def output_dim(self) -> int:
        return self.layers[-1].width

    def evaluate(self, pattern: Sequence[int], t0: Sequence[Fraction], origin: Sequence[Fraction],
                 directions: Sequence[Sequence[Fraction]]) -> Evaluation:
        """One exact pass at ``x = origin + directions^T t0``: the map ``t -> G t + g`` of each stage's input
        with every neuron on its recorded piece, and the actual values (which give the actual pattern)."""
        k = len(t0)
        G = [[Fraction(d[q]) for d in directions] for q in range(self.input_dim)]
        g = [Fraction(o) for o in origin]
        values = [o + sum((ti * d[q] for ti, d in zip(t0, directions)), _ZERO) for q, o in enumerate(origin)]
        actual: list[int] = []
        entries: list[tuple] = []
        cursor = 0
        for stage in self.layers:
            ZG = [[sum((w * G[j][i] for j, w in row), _ZERO) for i in range(k)] for row in stage.rows]
            Zg = [sum((w * g[j] for j, w in row), _ZERO) + b for row, b in zip(stage.rows, stage.bias)]
            Zv = [sum((w * values[j] for j, w in row), _ZERO) + b for row, b in zip(stage.rows, stage.bias)]
            new_G, new_g, new_values = [], [], []
            for i, act in enumerate(stage.units):
                here = sum(1 for xi in act.breakpoints if xi < Zv[i])
                recorded = here
                if not act.is_linear:
                    recorded = pattern[cursor] if 0 <= pattern[cursor] <= len(act.breakpoints) else here
                    actual.append(here)
                    entries.append(_integer_entry(ZG[i], Zg[i], recorded, act))
                    cursor += 1
                slope, intercept = act.slopes[recorded], act.intercepts[recorded]
                new_G.append([slope * v for v in ZG[i]])
                new_g.append(slope * Zg[i] + intercept)
                new_values.append(act.slopes[here] * Zv[i] + act.intercepts[here])
            for group in stage.groups:
                largest = max(Zv[m] for m in group)
                here = next(p for p, m in enumerate(group) if Zv[m] == largest)
                recorded = pattern[cursor] if 0 <= pattern[cursor] < len(group) else here
                actual.append(here)
                cursor += 1
                win = group[recorded]
                for m in group:
                    if m != win:
                        entries.append(_integer_entry([x - y for x, y in zip(ZG[win], ZG[m])], Zg[win] - Zg[m], 1,
                                                      _NONNEGATIVE))
                new_G.append(list(ZG[win]))
                new_g.append(Zg[win])
                new_values.append(largest)
            G, g, values = new_G, new_g, new_values
        return Evaluation(tuple(actual), tuple(tuple(row) for row in G), tuple(g), tuple(values), entries)


def read_stages(obj: Any, where: str) -> StagedNetwork:
    """The ``polyregions.stages/1`` object of an export (``format``, ``input_dim``, ``stages``; nothing else)."""
    check_keys(obj, ("format", "input_dim", "stages"), where)
    if get_key(obj, "format", where) != STAGES_FORMAT:
        raise InputError(f"{where}.format", f"expected {STAGES_FORMAT!r}, got {obj['format']!r}")
    input_dim = read_int(get_key(obj, "input_dim", where), f"{where}.input_dim", low=1)
    stages_obj = read_list(get_key(obj, "stages", where), f"{where}.stages")
    if not stages_obj:
        raise InputError(f"{where}.stages", "expected at least one stage, got none")
    stages, fan_in = [], input_dim
    for s, entry in enumerate(stages_obj):
        here = f"{where}.stages[{s}]"
        check_keys(entry, ("weight", "weight_sparse", "fan_in", "bias", "activations", "units", "groups"), here)
        weight = _read_rows(entry, here, fan_in)
        bias = read_vector(get_key(entry, "bias", here), f"{here}.bias", len(weight))
        activations = [read_activation(a, f"{here}.activations[{i}]")
                       for i, a in enumerate(read_list(get_key(entry, "activations", here), f"{here}.activations"))]
        units = []
        for i, index in enumerate(read_list(get_key(entry, "units", here), f"{here}.units")):
            index = read_int(index, f"{here}.units[{i}]", low=0)
            if index >= len(activations):
                raise InputError(f"{here}.units[{i}]", f"expected an index below {len(activations)}, got {index}")
            units.append(activations[index])
        groups = []
        for j, group in enumerate(read_list(get_key(entry, "groups", here), f"{here}.groups")):
            members = tuple(read_int(m, f"{here}.groups[{j}][{p}]", low=0)
                            for p, m in enumerate(read_list(group, f"{here}.groups[{j}]")))
            if len(members) < 2 or any(m >= len(weight) for m in members):
                raise InputError(f"{here}.groups[{j}]", f"expected at least two pre-activations, each below "
                                                        f"{len(weight)}")
            groups.append(members)
        if len(units) > len(weight):
            raise InputError(f"{here}.units", f"expected at most {len(weight)} units, got {len(units)}")
        stage = Stage(weight, fan_in, bias, tuple(units), tuple(groups))
        stages.append(stage)
        fan_in = stage.width
    return StagedNetwork(input_dim, tuple(stages))


def _read_rows(entry: Any, here: str, fan_in: int) -> tuple[SparseRow, ...]:
    """A stage's weight as sparse rows, from ``weight`` (dense) or ``weight_sparse`` and ``fan_in``."""
    if ("weight" in entry) == ("weight_sparse" in entry):
        raise InputError(f"{here}.weight", "expected either weight or weight_sparse (with fan_in), got "
                                           + ("both" if "weight" in entry else "neither"))
    if "weight" in entry:
        if "fan_in" in entry:
            raise InputError(f"{here}.fan_in", "expected fan_in only beside weight_sparse")
        dense = read_matrix(entry["weight"], f"{here}.weight", None, fan_in)
        rows = tuple(tuple((j, v) for j, v in enumerate(row) if v) for row in dense)
    else:
        declared = read_int(get_key(entry, "fan_in", here), f"{here}.fan_in", low=1)
        if declared != fan_in:
            raise InputError(f"{here}.fan_in", f"expected {fan_in} (the width before the stage), got {declared}")
        rows = tuple(_sparse_row(row, f"{here}.weight_sparse[{i}]", fan_in)
                     for i, row in enumerate(read_list(entry["weight_sparse"], f"{here}.weight_sparse")))
    if not rows:
        raise InputError(f"{here}.weight", "expected at least one row, got none")
    return rows


def _sparse_row(value: Any, where: str, fan_in: int) -> SparseRow:
    pairs = []
    last = -1
    for p, pair in enumerate(read_list(value, where)):
        items = read_list(pair, f"{where}[{p}]", 2)
        column = read_int(items[0], f"{where}[{p}][0]", low=0)
        weight = read_vector([items[1]], f"{where}[{p}][1]", 1)[0]
        if column <= last or column >= fan_in or weight == 0:
            raise InputError(f"{where}[{p}]", f"expected a non-zero weight at a column above {last} and below "
                                              f"{fan_in}, got column {column} and weight {weight}")
        pairs.append((column, weight))
        last = column
    return tuple(pairs)
