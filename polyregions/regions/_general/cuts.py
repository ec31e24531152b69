"""Refining the general engine's cells by a layer: the parts of a cell on which each unit stays on one piece.

Each cell carries the affine map of the layer's input on it; the layer's units pulled back through that map are
hyperplanes, and every hyperplane that meets the cell's interior splits it, decided exactly. A cell that carries
its vertices (:mod:`polyregions.regions._cell_vertices`) is cut by their signs alone, with no program and no
point (:func:`_refine_by_vertices`); any other cell, or a max unit's group, is split through exact witnesses
and certified programs (:func:`_split`, :func:`_argmax_parts`), keeping its facet points (:mod:`.facets`).

What the cuts tell of the adjacency is kept on the final cells: across the last layer's cuts of one cell, the
two regions are read off their sides (:func:`_siblings`); across a facet an earlier layer's cut made, only the
neuron that cut it changes piece unless a later unit's hyperplane is the facet's own or a unit sits at a
breakpoint on a whole cell, which the cuts see (:func:`_still_flipping`): the region across is read off the
pattern (``Cell.flips``).
"""

from __future__ import annotations

import bisect
import math
from fractions import Fraction
from functools import partial
from itertools import compress
from typing import Optional

import numpy as np
from flint import fmpq, fmpq_mat

from polyregions.errors import CertificateError
from polyregions.exact._integers import primitive
from polyregions.exact.lp import Backend
from polyregions.regions import _cell_programs as cp
from polyregions.regions import _cell_vertices as cv
from polyregions.regions._cell_programs import Point, Row
from polyregions.regions._general.cells import NO_MAP, Cell, Flip, vertex_point
from polyregions.regions._general.facets import irredundant, plane_of, with_facet_points

__all__ = ["refined", "finished"]

_ZERO = Fraction(0)
_HALF = Fraction(1, 2)


def refined(cells: list[Cell], layers, backend: Backend, bar=None, finish=None,
             box: frozenset[Row] = frozenset()) -> list[Cell]:
    """The cells refined by the layers, one after the other; ``bar`` advances by one per layer, in steps of one
    cell; ``box`` holds the rows of the certified box, if any.

    ``finish``, when given, is applied to the cells of the last layer that splits as they are made, a list of the
    parts of one cell at a time: affine layers after it split nothing and add nothing to the patterns, and a
    finished cell needs no map.
    """
    exact_layers = [_ExactLayer(layer) for layer in layers]
    end = len(layers)
    if finish is not None:
        end = max((position + 1 for position, layer in enumerate(exact_layers) if not layer.is_linear), default=0)
    for position, exact_layer in enumerate(exact_layers[:end]):
        last = finish is not None and position == end - 1
        parts: list[Cell] = []
        for cell in cells:
            children = _refine_cell(cell, exact_layer, backend, box, last=last)
            parts.extend(finish(children) if last else children)
            if bar is not None:
                bar.update(1 / len(cells))
        cells = parts
    if bar is not None and end < len(layers):
        bar.update(len(layers) - end)
    return finish(cells) if finish is not None and end == 0 else cells


def finished(cells: list[Cell], layers, backend: Backend, bar=None, box: frozenset[Row] = frozenset(),
             flipping: bool = True) -> list[Cell]:
    """``refined``, each final cell given the facet points it still lacks as soon as it is made (where the
    cells are, and before the vertices of the next ones are built); ``box`` holds the rows of the certified
    box, if any; ``flipping`` as in :func:`~.facets.with_facet_points`."""
    return refined(cells, layers, backend, bar, finish=partial(with_facet_points, box=box, flipping=flipping),
                   box=box)



class _ExactLayer:
    """A layer's (or stage's) parameters and pieces as FLINT rationals, for the per-cell affine maps: one
    activation per element-wise unit (shared by all units of a dense layer) and the max units' groups."""

    def __init__(self, layer) -> None:
        from polyregions.networks.stage import units_of

        activations, self.groups = units_of(layer)
        self.is_linear = not self.groups and all(a.is_linear for a in activations)
        # A sparse stage (a convolution, a pooling selection) multiplies out its non-zero weights only.
        self.stage = layer if getattr(layer, "is_sparse", False) else None
        self.W = None if self.stage is not None else fmpq_mat(
            [[fmpq(v.numerator, v.denominator) for v in row] for row in layer.weight])
        self.bias = fmpq_mat([[fmpq(v.numerator, v.denominator)] for v in layer.bias])
        self.units = []  # per element-wise unit: (is_linear, breakpoints, piece maps), shared where equal
        seen: dict = {}
        for activation in activations:
            if activation not in seen:
                seen[activation] = (activation.is_linear,
                                    [fmpq(v.numerator, v.denominator) for v in activation.breakpoints],
                                    [tuple(fmpq(v.numerator, v.denominator) for v in activation.piece_map(k))
                                     for k in range(len(activation.breakpoints) + 1)])
            self.units.append(seen[activation])


def _unit_rows(layer: _ExactLayer, table: list[list[fmpq]], offsets: list[fmpq]) -> list[Row]:
    """The hyperplanes of the layer's element-wise units on a cell where the pre-activations are ``G t + g``
    (``table`` the rows of ``G``, ``offsets`` the entries of ``g``): one per breakpoint of each non-linear unit
    that is not constant there."""
    rows: list[Row] = []
    for j, (is_linear, breakpoints, _) in enumerate(layer.units):
        if not is_linear and any(table[j]):
            rows.extend(primitive((*table[j], xi - offsets[j])) for xi in breakpoints)
    return rows


def _preactivations(layer: _ExactLayer, cell: Cell) -> tuple[fmpq_mat, fmpq_mat]:
    """``(G, g)``: the layer's pre-activations on the cell are ``G t + g``."""
    if layer.stage is None:
        assert layer.W is not None
        return layer.W * cell.M, layer.W * cell.c + layer.bias
    n = len(layer.stage.rows)
    table, values = layer.stage.products(range(n), cell.M, cell.c)
    G = fmpq_mat(table) if cell.M.ncols() else fmpq_mat(n, 0)
    return G, fmpq_mat([[v] for v in values])


def _refine_cell(cell: Cell, layer: _ExactLayer, backend: Backend, box: frozenset[Row] = frozenset(), *,
                 last: bool = False) -> list[Cell]:
    """The parts of ``cell`` on which each of the layer's units stays on one piece, with their patterns and the
    next layer's maps (none when ``last``: the parts are final)."""
    G, g = _preactivations(layer, cell)  # the layer's pre-activations on the cell: G t + g
    table, offsets = G.table(), g.entries()  # indexing FLINT matrices entry by entry is slow
    if cell.vertices is not None and not layer.groups:
        return _refine_by_vertices(cell, layer, G, table, offsets, box, last)
    # No flips through programs or max groups (a tie of a group may lie on a facet): those facets get points.
    pieces = [cell.evolved(flips=()) if cell.flips else cell]
    for cut in _unit_rows(layer, table, offsets):
        pieces = [part for piece in pieces for part in _split(piece, cut, backend, box)]
    for group in layer.groups:
        pieces = [part for piece in pieces for part in _argmax_parts(piece, G, g, group, backend, box)]
    children = []
    for piece in pieces:
        if piece.point is None:  # a part cut by vertices finds its point only now
            piece = piece.evolved(point=vertex_point(piece, box))
        assert piece.point is not None
        point = fmpq_mat([[fmpq(v, piece.point[-1])] for v in piece.point[:-1]])
        values = (G * point + g).entries()
        choices = [bisect.bisect_left(breakpoints, values[j]) for j, (_, breakpoints, _) in enumerate(layer.units)]
        best = [max(range(len(group)), key=lambda position: values[group[position]]) for group in layer.groups]
        children.append(_child(piece, layer, table, offsets, choices, best, last))
    return children


def _child(piece: Cell, layer: _ExactLayer, table: list[list[fmpq]], offsets: list[fmpq], choices: list[int],
           best: list[int], last: bool) -> Cell:
    """The part with its pattern extended by the units' pieces (``choices``, one per element-wise unit) and the
    max groups' winners (``best``), and the next layer's map unless the part is final (``last``)."""
    chosen = [choice for choice, (is_linear, _, _) in zip(choices, layer.units) if not is_linear]
    pattern = piece.pattern + tuple(chosen) + tuple(best)
    if last:
        return piece.with_pattern(pattern, NO_MAP, NO_MAP)
    rows = []
    for (_, _, maps), choice, row, offset in zip(layer.units, choices, table, offsets):
        slope, intercept = maps[choice]
        rows.append(([slope * v for v in row], slope * offset + intercept))
    for group, position in zip(layer.groups, best):
        rows.append((table[group[position]], offsets[group[position]]))
    k = piece.M.ncols()
    M = fmpq_mat([row for row, _ in rows]) if k else fmpq_mat(len(rows), 0)
    c = fmpq_mat([[shift] for _, shift in rows])
    return piece.with_pattern(pattern, M, c)


def _refine_by_vertices(cell: Cell, layer: _ExactLayer, G: fmpq_mat, table: list[list[fmpq]], offsets: list[fmpq],
                        box: frozenset[Row], last: bool) -> list[Cell]:
    """``_refine_cell`` for a cell that carries its vertices and a layer of element-wise units, read off signs
    alone: the signs of the cell's vertices say which hyperplanes cross it and on which side the cell lies of the
    others, each cut says on which side its two parts lie, and a unit's piece on a part is the number of its
    breakpoints' hyperplanes the part lies above. No part needs a point.

    When the parts are final (``last``), the regions across the facets cut here are recorded
    (:func:`_siblings`).
    """
    rows: list[Row] = []
    owners: list[int] = []
    flips: list[tuple[Flip, Flip]] = []  # per row: across it from below, and from above
    choices = []  # per unit, its piece where it does not depend on the part
    neuron = len(cell.pattern)  # the pattern index of the next unit that is not linear
    stuck = False  # a unit constant on the cell at one of its breakpoints
    numerators, denominator = G.numer_denom()  # G's rows in integers over one positive denominator
    whole = numerators.table()
    for j, (is_linear, breakpoints, _) in enumerate(layer.units):
        if not is_linear and any(table[j]):
            normal = [int(v) for v in whole[j]]
            for b, xi in enumerate(breakpoints):
                rows.append(_scaled_row(normal, (xi - offsets[j]) * denominator))  # z_j <= xi
                owners.append(j)
                flips.append(((neuron, b + 1), (neuron, b)))  # a part's facet on it: pieces b below, b + 1 above
            choices.append(0)
        else:
            choices.append(0 if is_linear else bisect.bisect_left(breakpoints, offsets[j]))  # constant here
            stuck = stuck or (not is_linear and offsets[j] in breakpoints)
        neuron += not is_linear
    cell = _still_flipping(cell, rows, stuck)
    assert cell.vertices is not None
    if rows:
        # One product of all the rows with the cell's vertices (exact signs): a hyperplane that misses the cell
        # misses every part of it.
        floats = cv.row_floats(rows)
        signs = cv.row_signs(cell.vertices, rows, floats)
        below, above = (signs < 0).any(axis=0), (signs > 0).any(axis=0)
    else:
        floats = np.empty((0, cell.vertices.floats.shape[1]))
        signs = np.empty((len(cell.vertices.points), 0), dtype=np.int8)
        below = above = np.zeros(0, dtype=bool)
    crossing = np.flatnonzero(below & above).tolist()
    cuts = [rows[r] for r in crossing]
    cut_flips = _distinct_flips(cuts, [flips[r] for r in crossing])
    # Per part: how many of its first rows are the cell's, its side of each crossing hyperplane so far, and the
    # signs of its vertices at the crossing hyperplanes still to cut (a part's new vertices get theirs once).
    parts: list[tuple[Cell, int, list[int], np.ndarray]] = [(cell, len(cell.rows), [], signs[:, crossing])]
    for step, row in enumerate(cuts):
        cut_parts = []
        crossings = cv.Crossings()  # the parts share vertices, and edges in dimension 3 up
        for part, inherited, sides, at in parts:
            here = at[:, 0].tolist()  # few vertices: plain Python is faster than two numpy reductions
            if -1 in here and 1 in here:
                later = cv.Later(cuts[step + 1:], floats[crossing[step + 1:]], at[:, 1:], last)
                for side, (child, facets, child_later) in zip((-1, 1), _vertex_parts(part, row, at[:, 0], later,
                                                                                      crossings, cut_flips[step])):
                    assert child_later is not None
                    cut_parts.append((child, int(np.count_nonzero(facets[:inherited])), sides + [side],
                                      child_later.signs))
            else:
                cut_parts.append((part, inherited, sides + [1 if 1 in here else -1], at[:, 1:]))
        parts = cut_parts
    owner = np.array(owners, dtype=np.int64)
    uniform = np.asarray(above & ~below)  # the hyperplanes the whole cell lies above
    children = []
    for part, _, sides, _ in parts:
        up = uniform.copy()
        up[crossing] = np.array(sides) > 0
        counts = np.bincount(owner[up], minlength=len(choices)).tolist()
        children.append(_child(part, layer, table, offsets, [c + n for c, n in zip(choices, counts)], [], last))
    if last and crossing:
        children = _siblings(children, [inherited for _, inherited, _, _ in parts],
                             np.array([sides for _, _, sides, _ in parts], dtype=np.int8), cuts)
    return children


def _scaled_row(normal: list[int], offset: fmpq) -> Row:
    """``primitive((*normal, offset))`` for integers ``normal`` and a FLINT rational ``offset``: the same row,
    about a third faster here (every unit of every cell), from ``G``'s integer form."""
    p, q = int(offset.p), int(offset.q)
    ints = [*(v * q for v in normal), p] if q != 1 else [*normal, p]
    divisor = math.gcd(*ints)
    return tuple([v // divisor for v in ints]) if divisor > 1 else tuple(ints)


def _siblings(parts: list[Cell], inherited: list[int], sides: np.ndarray, cuts: list[Row]) -> list[Cell]:
    """The final parts of one cell with the patterns of the parts across the facets the cuts made.

    Every part is the set of points of the (open, convex) cell on given sides of the crossing hyperplanes
    (``sides``, parts x cuts). Two parts whose sides differ at exactly one distinct hyperplane H share a facet:
    the points of the cell on their common sides of all the others form a convex set with points on both sides
    of H, so H cuts its interior. Conversely a facet of a part on a cut's hyperplane H has points of its relative
    interior on no other distinct hyperplane (the part lies on one side of each), so the part across it differs
    only at H. So every row a part owes to the cuts (its rows after the first ``inherited``) has exactly one such
    sibling, which is checked.
    """
    distinct_cuts = {plane_of(row)[0]: column for column, row in reversed(list(enumerate(cuts)))}
    distinct = sorted(distinct_cuts.values())
    signs = sides[:, distinct].astype(np.int32)
    # The sides of two parts agree at all but one distinct hyperplane exactly when their dot product is that.
    first, second = np.nonzero(np.triu(signs @ signs.T == len(distinct) - 2, 1))
    # Per part, its row on the shared facet (rows are primitive, so the part below a cut has the cut's row,
    # the part above its negation, whichever of the cuts on that hyperplane made the facet).
    across: list[dict[Row, int]] = [{} for _ in parts]
    differing = (signs[first] != signs[second]).argmax(axis=1)  # the one distinct hyperplane between them
    first_below = signs[first, differing] < 0
    for a, b, at, a_below in zip(first.tolist(), second.tolist(), differing.tolist(), first_below.tolist()):
        row = cuts[distinct[at]]
        below, above = (a, b) if a_below else (b, a)
        across[below][row] = above
        across[above][cp.negated(row)] = below
    finished = []
    for part, count, found in zip(parts, inherited, across):
        cut_rows = part.rows[count:]
        try:
            siblings = tuple(parts[found[row]].pattern for row in cut_rows)
        except KeyError:
            siblings = ()
        if len(siblings) != len(cut_rows) or len(found) != len(cut_rows):
            raise CertificateError("a facet cut by a layer without exactly one part across it")
        finished.append(part.evolved(siblings=siblings))
    return finished


def _still_flipping(cell: Cell, rows: list[Row], stuck: bool) -> Cell:
    """The cell without the flips of its rows that a layer's units (hyperplanes ``rows``; ``stuck`` when a unit is
    constant at a breakpoint on the cell) may switch across too.

    A flip of a facet F on hyperplane H says that across F only the neuron that cut H changes piece. Near a point
    of the relative interior of F off the (k-2)-dimensional traces of other hyperplanes, every unit of a later
    layer takes the same piece on both sides: its pre-activation is continuous, and a hyperplane of it that is not
    H meets F in such a trace at most. So a flip holds unless a unit's hyperplane on the cell is H itself, or a unit
    sits at a breakpoint on the whole cell (its value on F is the breakpoint, and across F it may move either way).
    """
    if not cell.flips or not any(cell.flips):
        return cell
    if stuck:
        return cell.evolved(flips=())
    planes = {plane_of(row)[0] for row in rows}
    flips = tuple(None if flip is None or plane_of(row)[0] in planes else flip
                  for row, flip in zip(cell.rows, cell.flips))
    return cell.evolved(flips=flips) if flips != cell.flips else cell


def _distinct_flips(cuts: list[Row], flips: list[tuple[Flip, Flip]]
                    ) -> list[tuple[Optional[Flip], Optional[Flip]]]:
    """The flips of the cutting rows, none for rows whose hyperplane another unit's row shares (more than one
    neuron switches there)."""
    planes = [plane_of(row)[0] for row in cuts]
    counts: dict[Row, int] = {}
    for plane in planes:
        counts[plane] = counts.get(plane, 0) + 1
    return [flip if counts[plane] == 1 else (None, None) for plane, flip in zip(planes, flips)]




def _argmax_parts(cell: Cell, G: fmpq_mat, g: fmpq_mat, group: tuple[int, ...], backend: Backend,
                  box: frozenset[Row]) -> list[Cell]:
    """The full-dimensional parts of ``cell`` on which each value of ``group`` is the largest: for each
    candidate, the cell cut by the rows ``z_other - z_candidate <= 0`` (at most k(k-1)/2 distinct hyperplanes).
    Candidates whose value equals another's on the whole cell are one piece: the first of them takes it."""
    k = G.ncols()
    parts = []
    for candidate in group:
        pieces = [cell]
        for other in group:
            if other == candidate or not pieces:
                continue
            a = [G[other, i] - G[candidate, i] for i in range(k)]
            gap = g[other, 0] - g[candidate, 0]
            if not any(a):
                # The difference is constant on the cell: the candidate loses everywhere or ties everywhere
                # (the earlier of two tied values wins, as in the pattern of a point).
                if gap > 0 or (gap == 0 and group.index(other) < group.index(candidate)):
                    pieces = []
                continue
            row = primitive((*a, -gap))  # z_other - z_candidate <= 0
            pieces = [part for piece in pieces if (part := _below(piece, row, backend, box)) is not None]
        parts.extend(pieces)
    return parts


def _split(cell: Cell, row: Row, backend: Backend, box: frozenset[Row] = frozenset()) -> list[Cell]:
    """The non-empty open parts of ``cell`` below and above the hyperplane of ``row``."""
    if cell.vertices is not None:
        signs = cv.vertex_signs(cell.vertices, row)
        if not (signs < 0).any() or not (signs > 0).any():
            return [cell]
        return [part for part, _, _ in _vertex_parts(cell, row, signs)]
    assert cell.point is not None  # cells cut by programs always carry one
    side = cp.value(row, cell.point)
    if side == 0:
        # The hyperplane passes through an interior point, so both open sides are non-empty.
        below = cp.point_beyond(cell.rows, cell.floats, cell.point, cp.negated(row), backend=backend)
        above = cp.point_beyond(cell.rows, cell.floats, cell.point, row, backend=backend)
        if below is None or above is None:
            raise CertificateError("a hyperplane through an interior point left one side empty")
        crossing = cell.point
    else:
        far = row if side < 0 else cp.negated(row)
        other = _far_point(cell, far, backend)
        if other is None:
            return [cell]
        below, above = (cell.point, other) if side < 0 else (other, cell.point)
        # Between two interior points of the cell, on the hyperplane: inside the cell, on the new facet.
        crossing = cp.toward(below, above, row, _ZERO)
    sides = [cp.value(row, q) if q is not None else 0 for q in cell.facet_points]

    def part(bounding: Row, point: Point, sign: int) -> Cell:
        # Facet points strictly on this side stay facet points; the others may have gone with the other side.
        kept = tuple(q if s * sign > 0 else None for q, s in zip(cell.facet_points, sides))
        return irredundant(cell.cut(bounding, point, kept + (crossing,)), backend)
    return [part(row, below, -1), part(cp.negated(row), above, 1)]


def _below(cell: Cell, row: Row, backend: Backend, box: frozenset[Row]) -> Cell | None:
    """The non-empty open part of ``cell`` below the hyperplane of ``row``, or None."""
    parts = _split(cell, row, backend, box)
    if len(parts) == 2:
        return parts[0]
    if cell.vertices is not None:
        return None if (cv.vertex_signs(cell.vertices, row) > 0).any() else cell
    assert cell.point is not None
    return cell if cp.value(row, cell.point) < 0 else None  # not zero: the hyperplane misses the open cell


def _vertex_parts(cell: Cell, row: Row, signs: np.ndarray, later: cv.Later | None = None,
                  crossings: cv.Crossings | None = None, flips: tuple[Optional[Flip], Optional[Flip]] = (None, None)
                  ) -> list[tuple[Cell, np.ndarray, cv.Later | None]]:
    """The parts of a cell that carries its vertices below and above the hyperplane of ``row``, whose vertices lie
    strictly on both sides (``signs``): each with a boolean mask of the cell's rows that are still its facets and
    its own ``later`` (``later`` and ``crossings`` as in :func:`~polyregions.regions._cell_vertices.cut`). Its
    rows are those, in order, followed by the cutting row (``row`` below, its negation above), whose flip is
    ``flips[0]`` below and ``flips[1]`` above. The parts get neither a point nor facet points:
    :func:`~.facets.with_facet_points` finds them when they are final."""
    assert cell.vertices is not None
    parts = []
    for bounding, flip, (vertices, facets, part_later) in zip((row, cp.negated(row)), flips,
                                                              cv.cut(cell.vertices, row, signs, len(row) - 1, later,
                                                                     crossings)):
        keep = facets.tolist()
        rows = (*compress(cell.rows, keep), bounding)
        part_flips: tuple[Optional[Flip], ...] = ()
        if cell.flips or flip is not None:
            kept = tuple(compress(cell.flips, keep)) if cell.flips else (None,) * (len(rows) - 1)
            part_flips = kept + (flip,)
        parts.append((Cell(rows, None, None, cell.pattern, cell.M, cell.c, (), sum(keep[:cell.domain_rows]),
                            vertices, flips=part_flips), facets, part_later))
    return parts




def _far_point(cell: Cell, far: Row, backend: Backend) -> Optional[Point]:
    """A point strictly inside the cell violating ``far`` (which its interior point satisfies strictly), or None
    when the cell lies on one side (certified).

    A known facet point beyond the hyperplane, or the point where the ray from the interior point straight
    toward the hyperplane leaves the cell, gives one without a program: the segment from the interior point
    toward it stays strictly inside the cell short of its end.
    """
    assert cell.point is not None  # cells cut by programs always carry one
    for q in cell.facet_points:
        if q is not None and cp.value(far, q) > 0:
            return cp.shortened(cell.rows, far, cp.toward(cell.point, q, far, _HALF))
    hit = cp.exit_point(cell.rows, cell.point, far[:-1])  # straight toward the hyperplane
    if hit is not None and cp.value(far, hit[1]) > 0:
        return cp.shortened(cell.rows, far, cp.toward(cell.point, hit[1], far, _HALF))
    return cp.point_beyond(cell.rows, cell.floats, cell.point, far, backend=backend)
