"""Graph networks in the mesh engine: a stage network seen as a dense network with the same regions.

The mesh refines layers whose units share one activation. A stage (:mod:`polyregions.networks.stages`) is
rewritten, exactly and only on the (bounded) domain, as a few such layers:

* a unit with the layer's activation gets its own pre-activation, so its pieces are the stage unit's;
* every other value still needed passes through on a piece of non-zero slope of that activation, strictly
  inside it on the whole domain (an exact interval bound of the value decides the shift and scale), so its
  hyperplanes never meet the domain: such a neuron never splits a cell, and its pattern entry is constant;
* a max unit over ``z_0, ..., z_{k-1}`` is a knockout tournament (:func:`bracket`), one ReLU layer per level:
  neighbouring contenders meet in a match ``w = l + relu(r - l)``, whose ReLU is on its upper piece exactly when
  the right contender is strictly larger; every leaf on the left comes before every leaf on the right, so a tie
  goes to the earlier value and the winner is the argmax (the first largest value). Over ``k = 4`` values: two
  levels, where rounds one value at a time would take three.

A stage's pattern is read back from the rewritten network's pattern (:class:`Twin`). Over two values the
tournament's cells are the argmax cells; over three or more, a match between two losers may split an argmax
cell: the cells with one stage pattern are then merged (:mod:`.merged_cells`), each union being the convex
activation region of that pattern.

A match whose two values are equal on a whole region (two dead ReLUs in a pooling window, both exactly 0) ties
on a full-dimensional set: its side there is read off the region's pattern (:mod:`.ties`), never from bounds.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.networks.activations import Activation, linear, relu
from polyregions.networks.network import Layer, Network
from polyregions.networks.stage import Stage
from polyregions.networks.stages import StagedNetwork
from polyregions.regions._mesh.polygons import Interval
from polyregions.regions._mesh.sparse_layers import LayeredNetwork, SparseLayer
from polyregions.regions._mesh.ties import ConstantRounds, Difference, RoundRule

__all__ = ["Twin", "bracket", "dense_twin"]

Key = tuple  # ("x", i): a stage input; ("y", s, i): an element-wise output; ("r", s, g, t): a tournament round
Expression = tuple[dict[Key, Fraction], Fraction]  # a linear combination of keys plus a constant


_RELU = relu()
_ONE, _ZERO = Fraction(1), Fraction(0)


def _image(activation: Activation, low: Fraction, high: Fraction) -> Interval:
    """The exact range of a continuous piecewise-linear activation on ``[low, high]``."""
    if activation is _RELU or activation == _RELU:
        return max(low, Fraction(0)), max(high, Fraction(0))
    values = [activation(low), activation(high)] + [activation(x) for x in activation.breakpoints if low < x < high]
    return min(values), max(values)


def _encoding(activation: Activation, low: Fraction, high: Fraction) -> tuple[Fraction, Fraction]:
    """``(alpha, beta)`` with ``alpha * v + beta`` strictly inside a piece of non-zero slope for ``v`` in
    ``[low, high]`` (the last piece when it has one: ReLU and its kin pass values there unchanged)."""
    points = activation.breakpoints
    for k in [len(points)] + list(range(len(points))):
        if activation.piece_map(k)[0]:
            left = points[k - 1] if k > 0 else None
            right = points[k] if k < len(points) else None
            break
    if left is not None and right is not None:
        alpha = (right - left) / (2 * (high - low)) if high > low else Fraction(1)
        return alpha, (left + right) / 2 - alpha * (low + high) / 2
    if left is not None:
        return Fraction(1), left + 1 - low
    assert right is not None  # continuous with a breakpoint: some piece has a non-zero slope
    return Fraction(1), right - 1 - high


def _plus(*terms: tuple[Fraction, Expression]) -> Expression:
    """``sum(c * e)`` over the pairs ``(c, e)``."""
    coefficients: dict[Key, Fraction] = {}
    constant = Fraction(0)
    for c, (expression, offset) in terms:
        for key, value in expression.items():
            coefficients[key] = coefficients.get(key, Fraction(0)) + c * value
        constant += c * offset
    return {k: v for k, v in coefficients.items() if v}, constant


def bracket(k: int) -> tuple[tuple[int, int], ...]:
    """The matches of a knockout over ``k`` values, level by level: ``(left, right)`` nodes, the leaves being
    ``0, ..., k - 1`` and match ``i`` node ``k + i``. Neighbours meet; an odd last contender waits a level. Every
    node covers a run of consecutive leaves, its left child's before its right child's; the last match is the
    final.

    Examples
    --------
    >>> bracket(4), bracket(3)
    (((0, 1), (2, 3), (4, 5)), ((0, 1), (3, 2)))
    """
    contenders, matches = list(range(k)), []
    while len(contenders) > 1:
        winners = []
        for i in range(0, len(contenders) - 1, 2):
            matches.append((contenders[i], contenders[i + 1]))
            winners.append(k + len(matches) - 1)
        contenders = winners + contenders[len(contenders) - len(contenders) % 2:]
    return tuple(matches)


def _levels(k: int) -> list[list[int]]:
    """The matches of :func:`bracket` grouped by level (a match's level is one more than its children's)."""
    level = [0] * (2 * k - 1)
    for i, (left, right) in enumerate(bracket(k)):
        level[k + i] = 1 + max(level[left], level[right])
    out: list[list[int]] = [[] for _ in range(max(level[k:], default=0))]
    for i in range(k - 1):
        out[level[k + i] - 1].append(i)
    return out


@dataclass(frozen=True)
class Twin:
    """A dense network with the regions of a staged network on a domain, and how to read the staged pattern off
    its patterns: per staged neuron, the column of its unit, or the columns of a max unit's matches."""

    network: Any  # a Network, or a LayeredNetwork with sparse layers
    rules: tuple[tuple[int, ...], ...]  # one column, or the columns of a knockout's matches (:func:`bracket`)
    rounds: tuple[bool, ...]            # whether the rule is a tournament
    ties: ConstantRounds | None = None  # rounds whose sign a region's pattern may fix

    def patterns(self, twin_patterns: np.ndarray) -> np.ndarray:
        """The staged patterns of the rows of the rewritten network's pattern matrix: a max unit's piece is the
        leaf its knockout's final leads to, each match going right when its ReLU is on."""
        longest = max((len(columns) for columns in self.rules), default=1)
        dtype = twin_patterns.dtype if longest < np.iinfo(twin_patterns.dtype).max else np.int64
        # One gather for every column (a max unit's is overwritten below): column-wise assignment is slow.
        out = twin_patterns[:, [columns[0] for columns in self.rules]].astype(dtype, copy=False)
        for k in sorted({len(columns) + 1 for columns, tournament in zip(self.rules, self.rounds) if tournament}):
            units = [u for u, tournament in enumerate(self.rounds) if tournament and len(self.rules[u]) == k - 1]
            on = twin_patterns[:, [self.rules[u] for u in units]] > 0  # (rows, units, matches)
            winner = [np.full(on.shape[:2], leaf, dtype=dtype) for leaf in range(k)]
            for m, (left, right) in enumerate(bracket(k)):  # all the units with k values at once
                winner.append(np.where(on[:, :, m], winner[right], winner[left]))
            out[:, units] = winner[-1]
        return out

    @property
    def identity(self) -> bool:
        """Whether the patterns are the rewritten network's own (every stage was a dense layer already)."""
        return not any(self.rounds) and all(columns == (u,) for u, columns in enumerate(self.rules)) \
            and len(self.rules) == self.network.num_neurons

    @property
    def may_split(self) -> bool:
        """Whether a stage region may be cut into several cells (a max over three or more values)."""
        return any(len(columns) > 1 for columns in self.rules)


class _Builder:
    """The rewritten layers, one after the other; every quantity still needed is affine in the last layer's
    outputs (its *slots*) and lies in a known interval."""

    def __init__(self, input_dim: int, box: Sequence[Interval]):
        self.layers: list[Layer] = []
        self.neurons = 0
        self.known: dict[Key, tuple[dict[int, Fraction], Fraction]] = {
            ("x", i): ({i: Fraction(1)}, Fraction(0)) for i in range(input_dim)}
        self.ranges: dict[Key, Interval] = {("x", i): box[i] for i in range(input_dim)}
        self.width = input_dim
        self.columns: dict[Key, int] = {}

    def slots(self, expression: Expression) -> tuple[dict[int, Fraction], Fraction]:
        """The expression over the last layer's outputs: sparse (slot -> non-zero coefficient) and a constant."""
        row: dict[int, Fraction] = {}
        constant = expression[1]
        for key, c in expression[0].items():
            coefficients, offset = self.known[key]
            for slot, value in coefficients.items():
                term = c if value is _ONE else c * value  # (a unit's own output: coefficient one, no product)
                row[slot] = row[slot] + term if slot in row else term
            if offset is not _ZERO:
                constant += c * offset
        return {slot: v for slot, v in row.items() if v}, constant

    def range(self, expression: Expression) -> Interval:
        low = high = expression[1]
        for key, c in expression[0].items():
            lo, hi = self.ranges[key]
            low, high = low + c * (lo if c > 0 else hi), high + c * (hi if c > 0 else lo)
        return low, high

    def layer(self, activation: Activation, ops: list[tuple[Key, Expression]], live: Sequence[Key],
              carried: Sequence[tuple[Key, Expression]] = ()) -> None:
        """One rewritten layer: the ops' outputs through ``activation``, the live keys passed through, and each
        carried expression passed through as one new key."""
        rows: list[dict[int, Fraction]] = []
        bias: list[Fraction] = []
        known: dict[Key, tuple[dict[int, Fraction], Fraction]] = {}
        for out, expression in ops:
            row, constant = self.slots(expression)
            known[out] = ({len(rows): _ONE}, _ZERO)
            self.ranges[out] = _image(activation, *self.range(expression))
            self.columns[out] = self.neurons + len(rows)
            rows.append(row)
            bias.append(constant)
        for key, expression in [(key, ({key: Fraction(1)}, Fraction(0))) for key in live] + list(carried):
            row, constant = self.slots(expression)
            low, high = self.ranges[key] if key in self.ranges else self.range(expression)
            self.ranges[key] = (low, high)
            alpha, beta = _encoding(activation, low, high)
            slope, intercept = activation.piece_map(bisect.bisect_left(activation.breakpoints, alpha * low + beta))
            if slope == alpha == 1:  # ReLU and its kin: the value shifted onto the identity piece
                known[key] = ({len(rows): _ONE}, -(beta + intercept))
                rows.append(row)
            else:
                known[key] = ({len(rows): 1 / (slope * alpha)}, -(slope * beta + intercept) / (slope * alpha))
                rows.append({slot: alpha * v for slot, v in row.items()})
            bias.append(alpha * constant + beta)
        self.layers.append(_layer(rows, self.width, bias, activation))
        self.neurons += len(rows)
        self.known, self.width = known, len(rows)

    def stage(self, s: int, stage) -> list[Expression]:
        """Rewrite one stage; return its outputs as expressions of known keys.

        Each level of the max units' knockouts is one layer (or one per activation, with the element-wise units,
        on the first level); from the second level on, the left contender of every match is carried as one
        value (a winner ``l + relu(r - l)`` then reads that value and the match's ReLU only).
        """
        z = [({("x", i): w for i, w in row}, b) for row, b in zip(stage.rows, stage.bias)]
        outputs: list[Expression] = []
        first: list[tuple[Key, Expression, Activation]] = []
        for i, activation in enumerate(stage.activations):
            if activation.is_linear:
                outputs.append(_plus((activation.slopes[0], z[i]), (Fraction(1), ({}, activation.offset))))
            else:
                first.append((("y", s, i), z[i], activation))
                outputs.append(({("y", s, i): Fraction(1)}, Fraction(0)))
        groups = stage.groups
        # The value of every node of every knockout, over the known keys: the leaves first.
        values: list[dict[int, Expression]] = [{i: z[j] for i, j in enumerate(group)} for group in groups]
        levels = [_levels(len(group)) for group in groups]
        for level in range(max((len(x) for x in levels), default=1)):
            ops = list(first) if level == 0 else []
            carried: list[tuple[Key, Expression]] = []
            for g, group in enumerate(groups):
                matches = bracket(len(group))
                for m in levels[g][level] if level < len(levels[g]) else []:
                    left, right = matches[m]
                    ops.append((("r", s, g, m), _plus((Fraction(1), values[g][right]), (Fraction(-1), values[g][left])),
                                relu()))
                    if level:
                        carried.append((("m", s, g, m), values[g][left]))
                        values[g][left] = ({("m", s, g, m): Fraction(1)}, Fraction(0))
                    values[g][len(group) + m] = _plus((Fraction(1), values[g][left]),
                                                      (Fraction(1), ({("r", s, g, m): Fraction(1)}, Fraction(0))))
                    del values[g][left], values[g][right]  # no longer needed
            self._round(ops, carried, outputs + [e for v in values for e in v.values()])
        return outputs + [v[max(v)] for v in values]  # every knockout's last node: its final

    def _round(self, ops: list[tuple[Key, Expression, Activation]], carried: list[tuple[Key, Expression]],
               needed_after: list[Expression]) -> None:
        """The layers of one round: one per activation of its ops, the first carrying ``carried``; every key
        that ``needed_after`` or a later op of the round uses is passed on."""
        by_activation: dict[Activation, list[tuple[Key, Expression]]] = {}
        for key, expression, activation in ops:
            by_activation.setdefault(activation, []).append((key, expression))
        pending = list(ops)
        for activation, chosen in by_activation.items():
            done = {key for key, _ in chosen} | {key for key, _ in carried}
            pending = [p for p in pending if p[0] not in done]
            needed = {k for _, e, _ in pending for k in e[0]} | {k for e in needed_after for k in e[0]}
            live = [k for k in self.known if k in needed and k not in done]
            self.layer(activation, chosen, live, carried)
            carried = []

    def next_inputs(self, outputs: list[Expression]) -> None:
        """The stage outputs become the next stage's inputs ``("x", i)``."""
        known, ranges = {}, {}
        for i, expression in enumerate(outputs):
            row, constant = self.slots(expression)
            known[("x", i)] = (row, constant)
            ranges[("x", i)] = self.range(expression)
        self.known, self.ranges = known, {**self.ranges, **ranges}


def dense_twin(net: StagedNetwork, box: Sequence[Interval]) -> Twin:
    """A dense network with the same activation regions as ``net`` on ``box`` (the domain lies inside), up to
    the merging of cells a tournament splits (:attr:`Twin.may_split`).

    Examples
    --------
    >>> from polyregions.networks.graph import GraphNetwork, Node
    >>> from polyregions.networks.operations import Maxout
    >>> staged = GraphNetwork((3,), (Node("m", Maxout(3), ("input",)),), "m").staged
    >>> twin = dense_twin(staged, [(Fraction(-1), Fraction(1))] * 3)
    >>> twin.rules, twin.network.widths
    (((0, 3),), (3, 2, 1))
    """
    if all(not stage.groups and len(set(stage.activations)) == 1 for stage in net.layers):
        # already layers of one activation each: nothing to rewrite (a large sparse one stays sparse)
        layers = tuple(_layer(stage.rows, stage.fan_in, stage.bias, stage.activations[0]) if _is_sparse(stage)
                       else stage.as_layer for stage in net.layers)
        return Twin(_network(net.input_dim, layers), tuple((u,) for u in range(net.num_neurons)),
                    (False,) * net.num_neurons)
    builder = _Builder(net.input_dim, box)
    rules: list[tuple[int, ...]] = []
    rounds: list[bool] = []
    outputs: list[Expression] = []
    for s, stage in enumerate(net.layers):
        if s:
            builder.next_inputs(outputs)
        outputs = builder.stage(s, stage)
        for i, activation in enumerate(stage.activations):
            if not activation.is_linear:
                rules.append((builder.columns[("y", s, i)],))
                rounds.append(False)
        for g, group in enumerate(stage.groups):
            rules.append(tuple(builder.columns[("r", s, g, m)] for m in range(len(group) - 1)))
            rounds.append(True)
    rows = [builder.slots(expression) for expression in outputs]
    builder.layers.append(_layer([row for row, _ in rows], builder.width, [c for _, c in rows], linear()))
    ties = ConstantRounds(_round_rules(net, builder.columns), [layer.width for layer in builder.layers])
    return Twin(_network(net.input_dim, tuple(builder.layers)), tuple(rules), tuple(rounds), ties or None)


#: A rewritten layer with more weights than this, at most an eighth of them non-zero, is kept sparse
#: (:class:`~.sparse_layers.SparseLayer`); smaller or denser ones are dense layers, as they always were.
_SPARSE_ENTRIES = 1 << 18


def _is_sparse(stage: Any) -> bool:
    return len(stage.rows) * stage.fan_in > _SPARSE_ENTRIES and stage.is_sparse


def _layer(rows: Sequence[Any], fan_in: int, bias: Sequence[Fraction], activation: Activation) -> Any:
    """A rewritten layer from sparse rows (dicts slot -> value, or sorted ``(column, value)`` pairs): a
    :class:`~.sparse_layers.SparseLayer` when it is large and sparse, else a dense layer."""
    pairs = [tuple(sorted(row.items())) if isinstance(row, dict) else tuple(row) for row in rows]
    nnz = sum(len(row) for row in pairs)
    if len(pairs) * fan_in > _SPARSE_ENTRIES and 8 * nnz <= len(pairs) * fan_in:
        return SparseLayer(pairs, fan_in, bias, activation)
    zero = Fraction(0)
    dense = []
    for row in pairs:
        values = [zero] * fan_in
        for j, v in row:
            values[j] = v
        dense.append(tuple(values))
    return Layer(tuple(dense), tuple(bias), activation)


def _network(input_dim: int, layers: tuple[Any, ...]) -> Any:
    """A dense network when every layer is dense, else the mesh engine's :class:`~.sparse_layers.LayeredNetwork`."""
    if all(isinstance(layer, Layer) for layer in layers):
        return Network(input_dim, layers)
    return LayeredNetwork(input_dim, layers)


def _round_rules(net: StagedNetwork, columns: dict[Key, int]) -> list[RoundRule]:
    """Every knockout match with a pair of contenders whose difference may be constant on a region."""
    rules = []
    for s, stage in enumerate(net.layers):
        previous = net.layers[s - 1] if s else None
        rows = {j: dict(stage.rows[j]) for group in stage.groups for j in group}
        for g, group in enumerate(stage.groups):
            k = len(group)
            matches = bracket(k)
            nodes = tuple((columns[("r", s, g, m)], left, right) for m, (left, right) in enumerate(matches))
            runs = [(leaf, leaf + 1) for leaf in range(k)]
            for left, right in matches:
                runs.append((runs[left][0], runs[right][1]))
            for m, (left, right) in enumerate(matches):
                (first, middle), end = runs[left], runs[right][1]
                differences = tuple(_difference(rows[group[b]], rows[group[a]],
                                                stage.bias[group[b]] - stage.bias[group[a]], previous, s, columns)
                                    for a in range(first, middle) for b in range(middle, end))
                if any(d is not None for d in differences):
                    rules.append(RoundRule(nodes[m][0], nodes, left, right, (first, middle, end), differences))
    return rules


def _difference(new: dict[int, Fraction], old: dict[int, Fraction], offset: Fraction, previous: Stage | None,
                s: int, columns: dict[Key, int]) -> Difference | None:
    """``z_new - z_old`` (sparse weight rows over the stage inputs, and the difference of the biases), when each
    input it depends on is an element-wise unit of the previous stage with a flat piece (None otherwise: the
    difference is never known to be constant)."""
    terms = []
    for i in sorted(new.keys() | old.keys()):
        if i not in old:
            c = new[i]
        elif i not in new:
            c = -old[i]
        else:
            c = new[i] - old[i]
            if not c:
                continue
        if previous is None or i >= len(previous.activations):  # a network input or a max unit's value
            return None
        activation = previous.activations[i]
        if activation.is_linear or all(slope for slope in activation.slopes):
            return None
        terms.append((columns[("y", s - 1, i)], c, activation))
    return Difference(offset, tuple(terms))
