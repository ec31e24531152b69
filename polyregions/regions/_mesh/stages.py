"""Graph networks in the mesh engine: a stage network seen as a dense network with the same regions.

The mesh refines layers whose units share one activation. A stage (:mod:`polyregions.networks.stages`) is
rewritten, exactly and only on the (bounded) domain, as a few such layers:

* a unit with the layer's activation gets its own pre-activation, so its pieces are the stage unit's;
* every other value still needed passes through on a piece of non-zero slope of that activation, strictly
  inside it on the whole domain (an exact interval bound of the value decides the shift and scale), so its
  hyperplanes never meet the domain: such a neuron never splits a cell, and its pattern entry is constant;
* a max unit over ``z_0, ..., z_{k-1}`` is a tournament ``m_0 = z_0``, ``m_t = m_{t-1} + relu(z_t - m_{t-1})``,
  one ReLU layer per round: ``relu(z_t - m_{t-1})`` is on its upper piece exactly when ``z_t`` beats every
  earlier value, so the argmax (the first largest value) is the last round whose ReLU is on, or 0.

A stage's pattern is read back from the rewritten network's pattern (:class:`Twin`). Over two values the
tournament's cells are the argmax cells; over three or more, a round may split an argmax cell along a
comparison of two losers: the cells with one stage pattern are then merged (:func:`merged`), each union being
the convex activation region of that pattern.
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

import numpy as np

from polyregions.exact._integers import primitive
from polyregions.networks.activations import Activation, linear, relu
from polyregions.networks.network import Layer, Network
from polyregions.networks.stages import StagedNetwork

__all__ = ["Twin", "dense_twin", "domain_box", "merged"]

Interval = tuple[Fraction, Fraction]
Key = tuple  # ("x", i): a stage input; ("y", s, i): an element-wise output; ("r", s, g, t): a tournament round
Expression = tuple[dict[Key, Fraction], Fraction]  # a linear combination of keys plus a constant


def domain_box(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> list[Interval]:
    """Exact bounds of every coordinate on the bounded polytope ``A t <= b`` of dimension 1 or 2."""
    points = _vertices(A, b)
    return [(min(x[i] for x in points), max(x[i] for x in points)) for i in range(len(A[0]))]


def _vertices(A: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> list[tuple[Fraction, ...]]:
    """The vertices of the bounded polytope ``A t <= b`` of dimension 1 or 2: feasible intersections of rows."""
    points: list[tuple[Fraction, ...]] = []
    if len(A[0]) == 1:
        points = [(Fraction(bi) / a[0],) for a, bi in zip(A, b) if a[0]]
    else:
        for i in range(len(A)):
            for j in range(i + 1, len(A)):
                (p, q), (r, s) = A[i], A[j]
                det = p * s - q * r
                if det:
                    points.append((Fraction(b[i] * s - q * b[j]) / det, Fraction(p * b[j] - b[i] * r) / det))
    return sorted({x for x in points if all(sum(a * v for a, v in zip(row, x)) <= bi for row, bi in zip(A, b))})


def _image(activation: Activation, low: Fraction, high: Fraction) -> Interval:
    """The exact range of a continuous piecewise-linear activation on ``[low, high]``."""
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


@dataclass(frozen=True)
class Twin:
    """A dense network with the regions of a staged network on a domain, and how to read the staged pattern off
    its patterns: per staged neuron, the column of its unit, or the columns of a max unit's rounds."""

    network: Network
    rules: tuple[tuple[int, ...], ...]  # one column, or the rounds' columns (argmax: the last one on)
    rounds: tuple[bool, ...]            # whether the rule is a tournament

    def patterns(self, twin_patterns: np.ndarray) -> np.ndarray:
        """The staged patterns of the rows of the rewritten network's pattern matrix."""
        longest = max((len(columns) for columns in self.rules), default=1)
        dtype = twin_patterns.dtype if longest < np.iinfo(twin_patterns.dtype).max else np.int64
        out = np.zeros((len(twin_patterns), len(self.rules)), dtype=dtype)
        for u, (columns, tournament) in enumerate(zip(self.rules, self.rounds)):
            if not tournament:
                out[:, u] = twin_patterns[:, columns[0]]
                continue
            for t, column in enumerate(columns, start=1):
                out[:, u] = np.where(twin_patterns[:, column] > 0, t, out[:, u])
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

    def slots(self, expression: Expression) -> tuple[list[Fraction], Fraction]:
        row = [Fraction(0)] * self.width
        constant = expression[1]
        for key, c in expression[0].items():
            coefficients, offset = self.known[key]
            for slot, value in coefficients.items():
                row[slot] += c * value
            constant += c * offset
        return row, constant

    def range(self, expression: Expression) -> Interval:
        low = high = expression[1]
        for key, c in expression[0].items():
            lo, hi = self.ranges[key]
            low, high = low + c * (lo if c > 0 else hi), high + c * (hi if c > 0 else lo)
        return low, high

    def layer(self, activation: Activation, ops: list[tuple[Key, Expression]], live: Sequence[Key]) -> None:
        """One rewritten layer: the ops' outputs through ``activation``, the live keys passed through."""
        rows: list[list[Fraction]] = []
        bias: list[Fraction] = []
        known: dict[Key, tuple[dict[int, Fraction], Fraction]] = {}
        for out, expression in ops:
            row, constant = self.slots(expression)
            known[out] = ({len(rows): Fraction(1)}, Fraction(0))
            self.ranges[out] = _image(activation, *self.range(expression))
            self.columns[out] = self.neurons + len(rows)
            rows.append(row)
            bias.append(constant)
        for key in live:
            row, constant = self.slots(({key: Fraction(1)}, Fraction(0)))
            low, high = self.ranges[key]
            alpha, beta = _encoding(activation, low, high)
            slope, intercept = activation.piece_map(bisect.bisect_left(activation.breakpoints, alpha * low + beta))
            known[key] = ({len(rows): 1 / (slope * alpha)}, -(slope * beta + intercept) / (slope * alpha))
            rows.append([alpha * v for v in row])
            bias.append(alpha * constant + beta)
        self.layers.append(Layer(tuple(map(tuple, rows)), tuple(bias), activation))
        self.neurons += len(rows)
        self.known, self.width = known, len(rows)

    def stage(self, s: int, stage) -> list[Expression]:
        """Rewrite one stage; return its outputs as expressions of known keys."""
        z = [({("x", i): w for i, w in enumerate(row) if w}, b) for row, b in zip(stage.weight, stage.bias)]
        outputs: list[Expression] = []
        rounds: list[list[tuple[Key, Expression, Activation]]] = [[]]
        for i, activation in enumerate(stage.activations):
            if activation.is_linear:
                outputs.append(_plus((activation.slopes[0], z[i]), (Fraction(1), ({}, activation.offset))))
            else:
                rounds[0].append((("y", s, i), z[i], activation))
                outputs.append(({("y", s, i): Fraction(1)}, Fraction(0)))
        for g, group in enumerate(stage.groups):
            won: Expression = z[group[0]]
            for t in range(1, len(group)):
                while len(rounds) < t:
                    rounds.append([])
                key = ("r", s, g, t)
                rounds[t - 1].append((key, _plus((Fraction(1), z[group[t]]), (Fraction(-1), won)), relu()))
                won = _plus((Fraction(1), won), (Fraction(1), ({key: Fraction(1)}, Fraction(0))))
            outputs.append(won)
        pending = [(key, expression, activation) for ops in rounds for key, expression, activation in ops]
        for ops in rounds:
            by_activation: dict[Activation, list[tuple[Key, Expression]]] = {}
            for key, expression, activation in ops:
                by_activation.setdefault(activation, []).append((key, expression))
            for activation, chosen in by_activation.items():
                done = {key for key, _ in chosen}
                pending = [p for p in pending if p[0] not in done]
                needed = {k for _, e, _ in pending for k in e[0]} | {k for e in outputs for k in e[0]}
                live = [k for k in self.known if k in needed and k not in done]
                self.layer(activation, chosen, live)
        return outputs

    def next_inputs(self, outputs: list[Expression]) -> None:
        """The stage outputs become the next stage's inputs ``("x", i)``."""
        known, ranges = {}, {}
        for i, expression in enumerate(outputs):
            row, constant = self.slots(expression)
            known[("x", i)] = ({j: v for j, v in enumerate(row) if v}, constant)
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
    (((0, 3),), (3, 3, 1))
    """
    plain = [stage.as_layer for stage in net.layers]
    if all(layer is not None for layer in plain):  # already dense layers: nothing to rewrite
        layers = tuple(layer for layer in plain if layer is not None)
        return Twin(Network(net.input_dim, layers), tuple((u,) for u in range(net.num_neurons)),
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
            rules.append(tuple(builder.columns[("r", s, g, t)] for t in range(1, len(group))))
            rounds.append(True)
    rows = [builder.slots(expression) for expression in outputs]
    builder.layers.append(Layer(tuple(tuple(row) for row, _ in rows), tuple(c for _, c in rows), linear()))
    return Twin(Network(net.input_dim, tuple(builder.layers)), tuple(rules), tuple(rounds))


def merged(regions: list, patterns: np.ndarray, pairs: np.ndarray, network: Any
           ) -> tuple[list, np.ndarray, np.ndarray]:
    """Cells with one pattern merged into one region (their union is that pattern's convex region): its
    vertices those of the cells' hull, its rows the hull's edges, its interior point a cell's."""
    from polyregions.regions.complex import Region

    unique, first, inverse = np.unique(patterns, axis=0, return_index=True, return_inverse=True)
    inverse = inverse.reshape(-1)
    if len(unique) == len(patterns):
        return regions, patterns, pairs
    members: dict[int, list[int]] = {}
    for cell, group in enumerate(inverse.tolist()):
        members.setdefault(group, []).append(cell)
    out = []
    for group, cells in sorted(members.items()):
        if len(cells) == 1:
            out.append(regions[cells[0]])
            continue
        A, b = _hull_rows([p for c in cells for p in _vertices(regions[c].A, regions[c].b)])
        out.append(Region(tuple(int(v) for v in unique[group]), A, b, regions[cells[0]].interior_point, network))
    joined = inverse[pairs] if len(pairs) else pairs
    joined = joined[joined[:, 0] != joined[:, 1]] if len(joined) else joined
    return out, unique, joined


def _hull_rows(points: list[tuple[Fraction, ...]]) -> tuple[tuple[tuple[Fraction, ...], ...], tuple[Fraction, ...]]:
    """The facets ``A t <= b`` (primitive integer rows) of the convex hull of exact points in dimension 1 or 2."""
    if len(points[0]) == 1:
        low, high = min(p[0] for p in points), max(p[0] for p in points)
        return ((Fraction(1),), (Fraction(-1),)), (high, -low)
    hull = _convex_hull(sorted(set(points)))
    A, b = [], []
    for p, q in zip(hull, hull[1:] + hull[:1]):
        row = primitive((q[1] - p[1], p[0] - q[0], (q[1] - p[1]) * p[0] + (p[0] - q[0]) * p[1]))
        A.append(tuple(Fraction(v) for v in row[:-1]))
        b.append(Fraction(row[-1]))
    return tuple(A), tuple(b)


def _convex_hull(points: list[tuple[Fraction, ...]]) -> list[tuple[Fraction, ...]]:
    """The hull's vertices counter-clockwise, without collinear points (monotone chain, exact)."""
    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list = []
    upper: list = []
    for p in points:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    for p in reversed(points):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]
