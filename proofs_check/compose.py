"""Each region's affine maps composed fast, still exactly: integers over common denominators, shared prefixes.

The reference passes (:meth:`proofs_check.network.Network.evaluate`, :meth:`proofs_check.stages.StagedNetwork.
evaluate`) rebuild every region's maps from scratch, carrying the actual values at the point as one more column.
Checking a large export that way costs a full forward pass of big integers per region. Here the same maps come
cheaper, and the checks that read them (:mod:`proofs_check.verify`, checks 1 and 3) accept exactly what the
reference accepts:

* every layer or stage is scaled to integers once (:class:`IntStage`: rows over one denominator, zero weights of
  a sparse row left out), and a map is a list of integer rows over one denominator;
* regions are taken in the order of their patterns, and the maps of a stage's input are kept while the pattern of
  the stages before it is unchanged (a trie walked depth first: the first stages are shared by many regions);
  when only a few of a stage's outputs change, the next stage's pre-activations are updated by the difference
  rather than recomputed;
* the actual values at the interior point are not carried: with the pattern of earlier stages equal to the
  recorded one, the actual pre-activations at the point are the fixed-pattern ones evaluated there, so the first
  neuron whose actual piece differs from the recorded one is found exactly (and there the pass stops: the region
  fails check 1, whose report the reference pass then writes);
* a neuron is known to keep its piece on a region when its pre-activation at the interior point, widened by a
  bound on how far it can move over the region's bounding box, stays in the piece; only the other neurons are
  evaluated at every vertex (:func:`keeps_pieces`).

Standard library only, like the rest of the verifier.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from operator import add, itemgetter, mul
from typing import Any, Callable, Sequence

__all__ = ["IntUnit", "IntStage", "StageMaps", "RegionMaps", "integer_stages", "Composer", "keeps_pieces",
           "bound_heights", "scaled_point"]

Gather = Callable[[Sequence[int]], tuple]


def _gather(indices: Sequence[int]) -> Gather:
    """A function taking the entries at ``indices`` of a sequence, as a tuple (``itemgetter`` returns a bare
    value for one index)."""
    if len(indices) >= 2:
        return itemgetter(*indices)
    if len(indices) == 1:
        (only,) = indices
        return lambda values: (values[only],)
    return lambda values: ()


def scaled_point(values: Sequence[Fraction]) -> tuple[tuple[int, ...], int]:
    """``(numerators, den)``: the rationals over their least common denominator (``den > 0``).

    >>> scaled_point([Fraction(1, 2), Fraction(-1, 3)])
    ((3, -2), 6)
    """
    den = math.lcm(*(Fraction(v).denominator for v in values)) if values else 1
    return tuple(int(Fraction(v) * den) for v in values), den


@dataclass(frozen=True, eq=False)
class IntUnit:
    """An element-wise activation in integers: on piece ``p`` the output is ``(slopes[p] z + intercepts[p])``
    over the stage's activation denominator; ``breakpoints`` as ``(p, q)`` pairs (``q > 0``); ``bounds`` per
    piece the closed interval of pre-activations, as in :meth:`proofs_check.network.Activation.bounds`."""

    slopes: tuple[int, ...]
    intercepts: tuple[int, ...]
    breakpoints: tuple[tuple[int, int], ...]
    neuron: bool
    activation: Any   # the exact Activation (for the report and the bounds)

    def piece(self, value: int, scale: int) -> int:
        """The number of breakpoints strictly below ``value / scale`` (``scale > 0``)."""
        return sum(1 for p, q in self.breakpoints if p * scale < value * q)


@dataclass(frozen=True, eq=False)
class IntStage:
    """A layer or stage in integers: pre-activation ``z_i = (row_i . x + bias[i]) / den``.

    ``rows[i]`` is ``(weights, gather)``: all the row's weights with ``gather`` None (a dense row), or its non-zero
    weights and the function that takes the matching inputs from a column. Units ``i < len(units)`` are
    element-wise (activation denominator ``act_den``); each group is a max unit over the ``z_j`` it lists."""

    rows: tuple[tuple[tuple[int, ...], Gather | None], ...]
    bias: tuple[int, ...]
    den: int
    units: tuple[IntUnit, ...]
    act_den: int
    groups: tuple[tuple[int, ...], ...]
    neurons: int            # entries of the pattern this stage takes
    valued: bool            # whether some piece is decided by a value at the point
    neuron_units: tuple[int, ...]   # the element-wise units that are neurons
    single: tuple[tuple[int, int, int], ...] | None  # (unit, p, q) when each has one breakpoint p / q
    bounds: tuple  # per neuron unit, per piece: ((p, q) or None, (p, q) or None), the piece's closed interval
    relu: bool     # every pre-activation is a ReLU unit (pieces 0 and 1, breakpoint 0): the written-out paths
    columns: tuple[tuple[tuple[int, int], ...], ...]  # per input j, the non-zero (i, row_i[j]) (for updates)


def _int_unit(act, act_den: int) -> IntUnit:
    scale = act_den // act.integer_den
    return IntUnit(tuple(s * scale for s in act.integer_slopes), tuple(c * scale for c in act.integer_intercepts),
                   act.breakpoint_pairs, not act.is_linear, act)


def _int_rows(rows: Sequence[Sequence[tuple[int, Fraction]]], fan_in: int
              ) -> tuple[tuple[tuple[tuple[int, ...], Gather | None], ...], int]:
    """The rows over their common denominator; a row with fewer non-zero weights than half its length is kept
    sparse (a convolution's rows read a few inputs each)."""
    den = math.lcm(*(v.denominator for row in rows for _, v in row))
    out: list[tuple[tuple[int, ...], Gather | None]] = []
    for row in rows:
        if 2 * len(row) < fan_in:
            out.append((tuple(v.numerator * (den // v.denominator) for _, v in row), _gather([j for j, _ in row])))
        else:
            integers = [0] * fan_in
            for j, v in row:
                integers[j] = v.numerator * (den // v.denominator)
            out.append((tuple(integers), None))
    return tuple(out), den


def _int_stage(rows: Sequence[Sequence[tuple[int, Fraction]]], fan_in: int, bias, activations, groups) -> IntStage:
    int_rows, w_den = _int_rows(rows, fan_in)
    b_den = math.lcm(*(v.denominator for v in bias))
    den = math.lcm(w_den, b_den)
    if den != w_den:
        factor = den // w_den
        int_rows = tuple((tuple(w * factor for w in values), gather) for values, gather in int_rows)
    act_den = math.lcm(*(a.integer_den for a in activations)) if activations else 1
    units = tuple(_int_unit(a, act_den) for a in activations)
    valued = sorted({i for i, u in enumerate(units) if u.neuron} | {m for group in groups for m in group})
    neurons = tuple(i for i, u in enumerate(units) if u.neuron)
    single = tuple((i, *units[i].breakpoints[0]) for i in neurons)
    columns: list[list[tuple[int, int]]] = [[] for _ in range(fan_in)]
    for i, row in enumerate(rows):
        for j, v in row:
            columns[j].append((i, v.numerator * (den // v.denominator)))
    relu = bool(units) and len(units) == len(int_rows) and not groups and all(
        u.breakpoints == ((0, 1),) and u.slopes == (0, 1) and u.intercepts == (0, 0) for u in units)
    return IntStage(int_rows, tuple(v.numerator * (den // v.denominator) for v in bias), den, units, act_den,
                    tuple(groups), len(neurons) + len(groups), bool(valued), neurons,
                    single if all(len(units[i].breakpoints) == 1 for i in neurons) else None,
                    tuple(tuple(_int_bounds(units[i].activation, p) for p in range(len(units[i].breakpoints) + 1))
                          for i in neurons), relu, tuple(tuple(column) for column in columns))


def _int_bounds(act, piece: int) -> tuple[tuple[int, int] | None, tuple[int, int] | None]:
    """The closed interval of a piece as ``(p, q)`` pairs (``q > 0``; None: unbounded)."""
    return tuple(None if xi is None else (xi.numerator, xi.denominator)  # type: ignore[return-value]
                 for xi in act.bounds(piece))


def integer_stages(network) -> tuple[IntStage, ...]:
    """The integer form of a network's layers (:class:`proofs_check.network.Network`) or stages
    (:class:`proofs_check.stages.StagedNetwork`), computed once per network."""
    cached = getattr(network, "_integer_stages", None)
    if cached is not None:
        return cached
    stages = []
    for layer in network.layers:
        if hasattr(layer, "groups"):
            stages.append(_int_stage(layer.rows, layer.fan_in, layer.bias, layer.units, layer.groups))
        else:
            rows = [[(j, v) for j, v in enumerate(row) if v] for row in layer.weight]
            stages.append(_int_stage(rows, len(layer.weight[0]), layer.bias, [layer.activation] * len(layer.bias),
                                     ()))
    result = tuple(stages)
    object.__setattr__(network, "_integer_stages", result)  # frozen dataclasses: cache beside the fields
    return result


@dataclass(frozen=True)
class StageMaps:
    """One stage of one region: the pre-activation rows ``(a_0, ..., a_{k-1}, d)`` over ``den`` (the map
    ``t -> (a . t + d) / den`` with earlier stages on the recorded pattern), their values at the interior point
    (``values[i]`` over ``den * point_den``; none when no piece depends on them), and the recorded pieces of its
    neurons."""

    z: list[tuple[int, ...]]
    den: int
    values: list[int]
    pieces: tuple[int, ...]


@dataclass(frozen=True)
class RegionMaps:
    """What :meth:`Composer.run` finds for a region whose recorded pattern is the one at its interior point: each
    stage's maps, and the output map ``t -> (M t + c)`` as rows ``(M_r, c_r)`` over ``den``."""

    stages: list[StageMaps]
    output: list[tuple[int, ...]]
    den: int


class Composer:
    """Composes region after region, keeping the maps of the stages whose pattern prefix repeats.

    The maps of stage ``s``'s pre-activations depend on the pattern of stages ``< s`` only, so for regions taken
    in pattern order most of them are reused (a depth-first walk of the trie of patterns)."""

    def __init__(self, network, origin: Sequence[Fraction], directions: Sequence[Sequence[Fraction]]) -> None:
        self.stages = integer_stages(network)
        k = len(directions)
        entries = [[Fraction(d[q]) for d in directions] + [Fraction(o)] for q, o in enumerate(origin)]
        den = math.lcm(*(e.denominator for row in entries for e in row))
        self.k = k
        self._input = ([tuple(int(e * den) for e in row) for row in entries], den)
        self._segments: list[tuple[int, ...] | None] = [None] * len(self.stages)
        self._z: list[tuple[list[tuple[int, ...]], int] | None] = [None] * len(self.stages)
        self._x: list[tuple[list[tuple[int, ...]], int] | None] = [None] * len(self.stages)

    def run(self, pattern: Sequence[int], point: tuple[tuple[int, ...], int]) -> RegionMaps | None:
        """The maps of the region with this recorded pattern and interior point ``(numerators, den)``; None when the
        pattern is not the actual one at the point (or names a piece that does not exist)."""
        tvec = point[0] + (point[1],)
        maps, cursor, valid, fresh = [], 0, True, -1
        for s, stage in enumerate(self.stages):
            segment = tuple(pattern[cursor:cursor + stage.neurons])
            cursor += stage.neurons
            if (not valid and s != fresh) or self._z[s] is None:
                x, xden = self._x[s - 1] if s else self._input  # type: ignore[misc]
                self._z[s] = _preactivations(stage, x, xden)
                valid = False
            z, zden = self._z[s]  # type: ignore[misc]
            values = _values(z, tvec) if stage.valued else []
            if not _pieces_hold(stage, segment, values, zden * point[1]):
                self._segments[s:] = [None] * (len(self.stages) - s)
                self._z[s + 1:] = [None] * (len(self.stages) - s - 1)
                return None
            if not valid or self._segments[s] != segment:
                old = self._x[s] if valid and self._segments[s] is not None else None
                self._x[s] = _activate(stage, segment, z, zden)
                self._segments[s] = segment
                valid = False
                if old is not None and s + 1 < len(self.stages) and self._z[s + 1] is not None:
                    updated = _updated(self.stages[s + 1], self._z[s + 1], old[0], self._x[s][0])  # type: ignore
                    if updated is not None:
                        self._z[s + 1], fresh = updated, s + 1
            maps.append(StageMaps(z, zden, values, segment))
        output, den = self._x[-1]  # type: ignore[misc]
        return RegionMaps(maps, output, den)


def _values(z: list[tuple[int, ...]], tvec: tuple[int, ...]) -> list[int]:
    """Each row ``(a, d)`` at the point ``tvec = (t numerators, t den)``: ``a . t_nums + d t_den``; written out
    for 2-D domains."""
    if len(tvec) == 3:
        t0, t1, t2 = tvec
        return [a * t0 + b * t1 + d * t2 for a, b, d in z]
    return [sum(map(mul, row, tvec)) for row in z]


def _preactivations(stage: IntStage, x: list[tuple[int, ...]], xden: int) -> tuple[list[tuple[int, ...]], int]:
    """``z = W x + b`` for a map ``x`` (rows over ``xden``): rows over ``stage.den * xden``, computed a column at a
    time. Dense rows read only the inputs whose map is not zero (a ReLU off is a zero row)."""
    live = [j for j, row in enumerate(x) if any(row)]
    columns = list(zip(*x))
    dense = [weights for weights, gather in stage.rows if gather is None]
    if len(live) < len(x):
        pick = _gather(live)
        dense = [pick(weights) for weights in dense]
        dense_columns = [pick(column) for column in columns]
    else:
        dense_columns = columns
    if len(dense) == len(stage.rows):
        z_columns = [[sum(map(mul, w, column)) for w in dense] for column in dense_columns]
    else:
        z_columns = []
        for c, column in enumerate(columns):
            dense_values = iter([sum(map(mul, w, dense_columns[c])) for w in dense])
            z_columns.append([next(dense_values) if gather is None else sum(map(mul, weights, gather(column)))
                              for weights, gather in stage.rows])
    z_columns[-1] = [v + b * xden for v, b in zip(z_columns[-1], stage.bias)]
    return list(zip(*z_columns)), stage.den * xden


def _updated(stage: IntStage, z: tuple[list[tuple[int, ...]], int], old: list[tuple[int, ...]],
             new: list[tuple[int, ...]]) -> tuple[list[tuple[int, ...]], int] | None:
    """The pre-activations ``W new + b`` from ``z = W old + b``, when the two input maps (over one denominator: the
    same stage input, other pieces) differ in few rows: ``z`` plus ``W (new - old)``, column by changed column.
    None when so many rows changed that :func:`_preactivations` costs less."""
    changed = [j for j, (a, b) in enumerate(zip(old, new)) if a != b]
    if 3 * len(changed) > len(new):
        return None
    rows, den = list(z[0]), z[1]
    for j in changed:
        delta = [a - b for a, b in zip(new[j], old[j])]
        for i, w in stage.columns[j]:
            rows[i] = tuple(map(add, rows[i], [w * d for d in delta]))
    return rows, den


def _pieces_hold(stage: IntStage, segment: tuple[int, ...], values: list[int], scale: int) -> bool:
    """Whether every recorded piece of the stage is a piece, and the one its value at the point falls in."""
    count = len(stage.neuron_units)
    if stage.single is not None:
        actual = [int(p * scale < values[i] * q) for i, p, q in stage.single]
    else:
        actual = [stage.units[i].piece(values[i], scale) for i in stage.neuron_units]
    if list(segment[:count]) != actual:
        return False
    for q, group in enumerate(stage.groups, count):
        members = [values[m] for m in group]
        if segment[q] != members.index(max(members)):
            return False
    return True


def _activate(stage: IntStage, segment: tuple[int, ...], z: list[tuple[int, ...]],
              zden: int) -> tuple[list[tuple[int, ...]], int]:
    """The stage's output map with its neurons on the recorded pieces, over ``act_den * zden``: not reduced, so
    that every region's map of a stage has the same denominator and :func:`_updated` can add differences (taking
    out the common divisor was measured slower than carrying it)."""
    if stage.relu:  # slopes 0 and 1, no intercepts: the row itself or zero
        zero = (0,) * len(z[0])
        return [row if piece else zero for row, piece in zip(z, segment)], zden
    rows, q, A = [], 0, stage.act_den
    for i, unit in enumerate(stage.units):
        piece = 0
        if unit.neuron:
            piece = segment[q]
            q += 1
        slope, intercept = unit.slopes[piece], unit.intercepts[piece]
        row = z[i]
        if intercept == 0 and slope == 1:
            rows.append(row)
        elif intercept == 0 and slope == 0:
            rows.append((0,) * len(row))
        else:
            new = [slope * v for v in row]
            new[-1] += intercept * zden
            rows.append(tuple(new))
    for group in stage.groups:
        row = z[group[segment[q]]]
        rows.append(row if A == 1 else tuple(A * v for v in row))
        q += 1
    return rows, A * zden


def _entries(stage: IntStage, maps: StageMaps):
    """The conditions check 3 tests, in the reference order: ``(row, value at the point, low, high)`` with the
    row and value over the stage's scales, ``low``/``high`` the piece's bounds as ``(p, q)`` (None: unbounded)."""
    z, values, pieces = maps.z, maps.values, maps.pieces
    for q, (i, bounds) in enumerate(zip(stage.neuron_units, stage.bounds)):
        low, high = bounds[pieces[q]]
        yield z[i], values[i], low, high
    for q, group in enumerate(stage.groups, len(stage.neuron_units)):
        win = group[pieces[q]]
        for m in group:
            if m != win:
                yield tuple(x - y for x, y in zip(z[win], z[m])), values[win] - values[m], (0, 1), None


def keeps_pieces(maps: RegionMaps, stages: Sequence[IntStage], point: tuple[tuple[int, ...], int],
                 vertices: Sequence[tuple[Sequence[int], int]]) -> bool:
    """Check 3 for one region: every neuron's pre-activation stays in its recorded piece's closed interval at every
    vertex (``vertices`` as ``(numerators, den)``), exactly as the reference test decides it.

    A pre-activation ``a . t + d`` moves from its value at the interior point ``t0`` by at most ``sum_c |a_c| w_c``
    on the region, ``w_c`` the largest ``|v_c - t0_c|`` over the vertices (the region is their convex hull). When
    that interval already lies in the piece, so do the values at the vertices; otherwise the vertices are tested
    one by one. So a condition passes here iff it passes at every vertex."""
    tnums, tden = point
    vden = math.lcm(*(d for _, d in vertices))
    verts = [tuple(v * (vden // d) for v in nums) + (vden,) for nums, d in vertices]
    # w_c over vden * tden
    widths = [max(abs(v[c] * tden - tnums[c] * vden) for v in verts) for c in range(len(tnums))]
    for stage, smaps in zip(stages, maps.stages):
        scale = smaps.den * vden * tden     # centre and spread are over this
        entries = _entries(stage, smaps) if stage.single is None else _near_breakpoints(stage, smaps, widths, vden,
                                                                                          scale)
        for row, value, low, high in entries:
            centre = value * vden
            spread = sum(map(mul, map(abs, row), widths))   # widths has k entries: the constant is left out
            if ((low is None or (centre - spread) * low[1] >= low[0] * scale)
                    and (high is None or (centre + spread) * high[1] <= high[0] * scale)):
                continue
            if not _holds_at_vertices(row, verts, smaps.den * vden, low, high):
                return False
    return True


def _near_breakpoints(stage: IntStage, smaps: StageMaps, widths: list[int], vden: int, scale: int):
    """:func:`_entries` of a stage whose neurons have one breakpoint each, less the element-wise neurons that the
    interval test of :func:`keeps_pieces` already passes (the same test, in one comprehension).

    With breakpoint ``p / q`` the piece above is ``[p/q, inf)``, the one below ``(-inf, p/q]``; the test asks
    ``(centre - spread) q >= p scale`` or ``(centre + spread) q <= p scale``, that is ``g >= spread q`` or
    ``-g >= spread q`` for ``g = centre q - p scale``."""
    z, values, single = smaps.z, smaps.values, stage.single or ()
    if stage.relu and len(widths) == 2:  # p = 0, q = 1, written out: g = centre
        w0, w1 = widths
        near = [n for n, ((a, b, _), v, piece) in enumerate(zip(z, values, smaps.pieces))
                if (v if piece else -v) * vden < abs(a) * w0 + abs(b) * w1]
        return [(z[n], values[n], *stage.bounds[n][smaps.pieces[n]]) for n in near]
    near = [n for n, ((i, p, q), piece) in enumerate(zip(single, smaps.pieces))
            if ((values[i] * vden * q - p * scale) * (1 if piece else -1) < sum(map(mul, map(abs, z[i]), widths)) * q)]
    if near or stage.groups:
        entries = list(_entries(stage, smaps))
        return [entries[n] for n in near] + entries[len(single):]
    return []


def _holds_at_vertices(row: tuple[int, ...], verts: list[tuple[int, ...]], scale: int, low, high) -> bool:
    """The reference test of one condition: ``row . (v, 1)`` in ``[low, high]`` at every vertex (``verts`` as
    numerators with the common denominator appended; values over ``scale``)."""
    for vec in verts:
        at = sum(map(mul, row, vec))
        if (low is not None and at * low[1] < low[0] * scale) or (high is not None and at * high[1] > high[0] * scale):
            return False
    return True


def bound_heights(maps: RegionMaps, stages: Sequence[IntStage]) -> int:
    """The largest entry, in absolute value, of the primitive integer rows of every neuron's piece bounds on this
    region (the rows :func:`proofs_check.geometry.radius_bound` reads for an unbounded domain); 1 for none."""
    h = 1
    for stage, smaps in zip(stages, maps.stages):
        for row, _, low, high in _entries(stage, smaps):
            a, d = row[:-1], row[-1]
            if not any(a):
                continue
            for xi in (low, high):
                if xi is not None:
                    ints = [xi[1] * v for v in a] + [xi[0] * smaps.den - xi[1] * d]
                    divisor = math.gcd(*ints) or 1
                    h = max(h, max(abs(v) for v in ints) // divisor)
    return h
