"""Knockout matches of max units that are constant on a whole region, decided from the region's pattern alone.

A max unit becomes a knockout of matches ``w = l + relu(r - l)`` in the dense rewriting (:mod:`.stages`). On a
region of the earlier layers every earlier match is decided (its ReLU's piece), so the left and right contenders
of a match are values ``z_a`` and ``z_b`` of the unit's group: follow each child down, right where its match is on.
The match then compares ``z_b - z_a``, an affine map of the stage's inputs. When every input with a non-zero
coefficient is the output of an element-wise unit on a flat piece of its activation (a dead ReLU, a saturated
hardtanh), that difference is a constant on the region, read exactly off the pattern; by continuity it is the
match's pre-activation at every point of the region's closure, so the sign of the constant is the match's side
at every vertex of every face of the region. At a vertex the rule also knows an input whose unit has its
pre-activation at a breakpoint there (the vertex lies on that unit's line): the output is the activation's value
at the breakpoint, whatever the region's piece (a ReLU at the edge of its dead side is 0).

This settles what floating-point bounds never can: two dead ReLUs in one pooling window tie at exactly 0 on a
full-dimensional set, and so does a pair of values with equal weights. Matches the rule does not cover are left
to the float filter and exact arithmetic as before.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable, Sequence

import numpy as np

from polyregions.networks._float_filter import UNCERTAIN
from polyregions.networks.activations import Activation

__all__ = ["Difference", "RoundRule", "ConstantRounds"]

#: Scaled constants must stay below this in absolute value (int64 sums without overflow).
_LIMIT = 1 << 62
#: Entries of the vectorised gathers (vertices x (terms + levels)) per block.
_BLOCK = 1 << 20


@dataclass(frozen=True)
class Difference:
    """``z_t - z_a`` on regions where every term's source unit is on a flat piece: ``offset + sum(c * out)``.

    Attributes
    ----------
    offset : Fraction
        The difference of the two values' biases.
    terms : tuple of (int, Fraction, Activation)
        Per stage input with a non-zero coefficient: the dense rewriting's column of its source unit, the
        coefficient ``c`` and the unit's activation (whose flat pieces give the output ``out``).
    """

    offset: Fraction
    terms: tuple[tuple[int, Fraction, Activation], ...]


@dataclass(frozen=True)
class RoundRule:
    """One match of a max unit's knockout, in the dense rewriting's columns.

    Attributes
    ----------
    column : int
        The match's column (a ReLU unit of the rewritten network).
    nodes : tuple of (int, int, int)
        Every match of the knockout, in order: its column and its left and right nodes (leaves ``0, ..., k - 1``,
        match ``i`` node ``k + i``), to follow a child down to its leaf.
    left, right : int
        The match's two nodes.
    leaves : tuple of int
        ``(first, middle, end)``: the left node covers leaves ``first, ..., middle - 1``, the right node the rest.
    differences : tuple of Difference or None
        Per pair of leaves ``(a, b)``, at ``(a - first) * (end - middle) + (b - middle)``: ``z_b - z_a`` in terms of
        flat pieces, or None when one of its inputs is not an element-wise unit with a flat piece (never known to
        be constant).
    """

    column: int
    nodes: tuple[tuple[int, int, int], ...]
    left: int
    right: int
    leaves: tuple[int, int, int]
    differences: tuple[Difference | None, ...]


@dataclass(frozen=True)
class _LayerTable:
    """The rules of one rewritten layer as arrays (``R`` rules, ``w`` pairs of leaves, ``s`` terms, ``k`` states,
    ``n`` nodes); columns are the rewritten network's, -1 for padding or a leaf. A term's *state* is its source's
    piece ``p`` (its output known when the piece is flat) or, at a vertex on a line where the source's
    pre-activation meets breakpoint ``b``, the state ``pieces + b`` (known: the activation's value there)."""

    units: np.ndarray     # (R,) the matches' units in the layer
    column: np.ndarray    # (R, n) every node's column
    left: np.ndarray      # (R, n) every node's left child (a leaf: itself)
    right: np.ndarray     # (R, n) every node's right child (a leaf: itself)
    starts: np.ndarray    # (R, 2) the match's two nodes
    leaves: np.ndarray    # (R, 3) first, middle, end leaf
    depth: int            # the most levels below a match
    sources: np.ndarray   # (R, w, s) the columns of the terms' source units
    known: np.ndarray     # (R, w, s, k) whether the source's output is fixed in that state
    scaled: np.ndarray    # (R, w, s, k) int64: coefficient times that output, times the pair's scale
    offsets: np.ndarray   # (R, w) int64: the offset times the pair's scale
    usable: np.ndarray    # (R, w) whether that pair's difference can be constant
    pieces: int           # the state of a source at its breakpoint b is pieces + b


class ConstantRounds:
    """Signs of knockout matches whose pre-activation is constant on a region, from the region's pieces.

    Parameters
    ----------
    rules : sequence of RoundRule
    widths : sequence of int
        The widths of the rewritten network's layers (columns are numbered through them in order).
    """

    def __init__(self, rules: Sequence[RoundRule], widths: Sequence[int]):
        self._starts = np.cumsum([0, *widths])
        by_layer: dict[int, list[RoundRule]] = {}
        for rule in rules:
            by_layer.setdefault(self._place(rule.column)[0], []).append(rule)
        self._tables = {layer: self._table(chosen) for layer, chosen in by_layer.items()}

    def __bool__(self) -> bool:
        return bool(self._tables)

    def _place(self, column: int) -> tuple[int, int]:
        """The layer of a column and its unit in that layer."""
        layer = int(np.searchsorted(self._starts, column, side="right")) - 1
        return layer, column - int(self._starts[layer])

    def _table(self, rules: list[RoundRule]) -> _LayerTable:
        differences = [d for rule in rules for d in rule.differences if d is not None]
        pairs = max(len(rule.differences) for rule in rules)
        terms = max((len(d.terms) for d in differences), default=0) or 1
        pieces = max((len(a.slopes) for d in differences for _, _, a in d.terms), default=1)
        nodes = max(2 * len(rule.nodes) + 1 for rule in rules)
        shape = (len(rules), pairs, terms, 2 * pieces - 1)
        column = np.full((len(rules), nodes), -1, dtype=np.int64)
        left = np.tile(np.arange(nodes), (len(rules), 1))
        right = left.copy()
        sources = np.full(shape[:3], -1, dtype=np.int64)
        known = np.ones(shape, dtype=bool)  # padding terms: 0 in every state
        scaled = np.zeros(shape, dtype=np.int64)
        offsets = np.zeros(shape[:2], dtype=np.int64)
        usable = np.zeros(shape[:2], dtype=bool)
        # Differences repeat (a pooling window's pairs all read ReLUs with coefficients 1 and -1): their integer
        # forms are computed once per (offset, coefficients, activations).
        forms: dict[tuple, tuple[int, list[tuple[list[bool], list[int]]]] | None] = {}
        for r, rule in enumerate(rules):
            k = len(rule.nodes) + 1
            for i, (c, l, rr) in enumerate(rule.nodes):
                column[r, k + i], left[r, k + i], right[r, k + i] = c, l, rr
            for w, difference in enumerate(rule.differences):
                if difference is None:
                    continue
                key = (difference.offset, tuple((c, id(activation)) for _, c, activation in difference.terms))
                if key not in forms:
                    forms[key] = _integer_form(difference, pieces)
                form = forms[key]
                if form is None:  # too large for int64 sums: left to the float filter and exact arithmetic
                    continue
                usable[r, w] = True
                offsets[r, w] = form[0]
                for i, ((source, _, _), (is_known, values)) in enumerate(zip(difference.terms, form[1])):
                    sources[r, w, i] = source
                    known[r, w, i] = is_known
                    scaled[r, w, i] = values
        units = np.array([self._place(rule.column)[1] for rule in rules], dtype=np.int64)
        return _LayerTable(units, column, left, right, np.array([(rule.left, rule.right) for rule in rules]),
                           np.array([rule.leaves for rule in rules]), max(len(rule.nodes) for rule in rules),
                           sources, known, scaled, offsets, usable, pieces)

    def units(self, layer: int) -> np.ndarray | None:
        """The units of layer ``layer`` that are matches this rule covers (None when there is none)."""
        table = self._tables.get(layer)
        return None if table is None else table.units

    def signs(self, layer: int, matches: np.ndarray, regions: np.ndarray,
              pieces: Callable[[int, np.ndarray, np.ndarray], np.ndarray], lines: np.ndarray) -> np.ndarray:
        """The exact signs of matches' pre-activations at vertices, where the regions' patterns fix them.

        Parameters
        ----------
        layer : int
            A layer of the rewritten network with matches (:meth:`units`).
        matches : ndarray
            Per vertex asked about, the match: an index into ``units(layer)``.
        regions : ndarray
            Per vertex, a region of the layers before ``layer`` whose closure holds it.
        pieces : callable
            ``pieces(earlier, regions, units)``: the pieces of an earlier layer's units on regions (element-wise).
        lines : ndarray
            Per vertex, the lines it lies on, as rows ``(layer, unit, breakpoint)`` (shape ``(n, m, 3)``; a
            negative layer for a row of the domain): there the unit's pre-activation is at that breakpoint.

        Returns
        -------
        ndarray
            int8: the sign ``-1, 0, 1`` of each match's pre-activation at its vertex, or ``UNCERTAIN`` where the
            pattern does not fix it.
        """
        table = self._tables[layer]
        count, pairs, terms, states = table.known.shape
        out = np.empty(matches.size, dtype=np.int8)
        step = max(1, _BLOCK // (terms + table.depth))
        for start in range(0, matches.size, step):
            rule, region = matches[start:start + step], regions[start:start + step]
            # The two contenders: each child followed down to its leaf, right where its match is on. (At a vertex
            # on an earlier match's line both of that match's contenders take the same value.)
            first, middle, end = table.leaves[rule].T
            a = self._leaf(table, rule, table.starts[rule, 0], region, pieces)
            b = self._leaf(table, rule, table.starts[rule, 1], region, pieces)
            pair = rule * pairs + (a - first) * (end - middle) + (b - middle)
            sources = table.sources.reshape(-1, terms)[pair]  # (n, s)
            state = self._pieces(sources, region, pieces)
            for line in np.moveaxis(lines[start:start + step], 1, 0):  # (n, 3) per line through the vertices
                column = np.where(line[:, 0] >= 0, self._starts[np.maximum(line[:, 0], 0)] + line[:, 1], -2)
                state = np.where(sources == column[:, None], table.pieces + line[:, 2:3], state)
            at = (pair[:, None] * terms + np.arange(terms)) * states + state
            fixed = table.known.reshape(-1)[at].all(axis=1) & table.usable.reshape(-1)[pair]
            value = table.offsets.reshape(-1)[pair] + table.scaled.reshape(-1)[at].sum(axis=1)
            out[start:start + step] = np.where(fixed, np.sign(value), UNCERTAIN)
        return out

    def _leaf(self, table: _LayerTable, rule: np.ndarray, node: np.ndarray, regions: np.ndarray,
              pieces: Callable[[int, np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
        """The leaf each node leads to on each region: down to the right where the node's match is on."""
        for _ in range(table.depth):
            column = table.column[rule, node]
            on = self._pieces(column[:, None], regions, pieces)[:, 0] == 1
            node = np.where(on, table.right[rule, node], table.left[rule, node])
        return node

    def _pieces(self, columns: np.ndarray, regions: np.ndarray,
                pieces: Callable[[int, np.ndarray, np.ndarray], np.ndarray]) -> np.ndarray:
        """The pieces of the given columns (a row per region; -1 for padding, piece 0)."""
        out = np.zeros(columns.shape, dtype=np.int64)
        layer = np.searchsorted(self._starts, columns, side="right") - 1
        for earlier in np.unique(layer[columns >= 0]).tolist():
            rows, at = np.nonzero((layer == earlier) & (columns >= 0))
            out[rows, at] = pieces(earlier, regions[rows], columns[rows, at] - self._starts[earlier])
        return out


def _integer_form(difference: Difference, pieces: int) -> tuple[int, list[tuple[list[bool], list[int]]]] | None:
    """The difference over a common scale: the scaled offset and, per term, whether its output is fixed in each
    state and the scaled output there; None when the values are too large for int64 sums."""
    outputs = [_outputs(activation, pieces, c) for _, c, activation in difference.terms]
    scale = math.lcm(difference.offset.denominator, *(v.denominator for row in outputs for v in row if v is not None))
    offset = int(difference.offset * scale)
    largest = abs(offset) + sum(max((abs(v * scale) for v in row if v is not None), default=0) for row in outputs)
    if largest >= _LIMIT:
        return None
    return offset, [([v is not None for v in row], [int(v * scale) if v is not None else 0 for v in row])
                    for row in outputs]


def _outputs(activation: Activation, pieces: int, coefficient: Fraction) -> list[Fraction | None]:
    """``coefficient`` times the unit's output in every state: on each flat piece (None on a sloped one or past
    the activation's pieces), then at each breakpoint."""
    count = len(activation.slopes)
    on_pieces = [coefficient * activation.intercepts[k] if k < count and activation.slopes[k] == 0 else None
                 for k in range(pieces)]
    at_breakpoints = [coefficient * activation(activation.breakpoints[b]) if b < count - 1 else None
                      for b in range(pieces - 1)]
    return on_pieces + at_breakpoints
