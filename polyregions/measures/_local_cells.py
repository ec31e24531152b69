"""Exact local refinement: the activation regions of a network inside the neighbourhood of one point.

Cells are open polyhedra ``{x : a . x < c}`` intersected with the open neighbourhood ``N``
(:class:`~polyregions.measures._local_programs.Neighbourhood`), each with an exact point inside. Layer by layer,
a neuron's pre-activation on a cell is affine; the float filter (:mod:`polyregions.measures._local_filter`) proves
most neurons stable on all of ``N``, and only the others are looked at exactly: their exact pre-activation on the
cell (a row pulled back through the earlier layers' pieces, in FLINT integers), whether its hyperplane meets
``N`` at all (a closed form), and whether the cell reaches the far side of it: proven by a witness when one is at
hand (a facet point of the cell beyond the hyperplane, or a point of the segment to the corner of ``N`` farthest
on that side, checked exactly), else decided by a certified program. A hyperplane that reaches both sides splits
the cell. Only the hyperplanes that meet ``N`` ever become rows, so in
high dimension a cell has a handful of rows even though ``N`` has thousands of facets (the box) or ``2^n``
(the l1 ball).

Every cell also records, for each (neuron, breakpoint) met so far, the sign of ``z - xi`` on it: ``+1`` or ``-1``
(strict on the whole cell) or ``0`` (``z`` is identically ``xi`` there). A cell split by a hyperplane hands its
two children opposite signs; a cell a hyperplane does not split has the sign of its interior point, which is
strict on the whole cell unless ``z`` is constant (an affine function that reaches its largest value inside an
open convex set is constant).

Facets and adjacency
--------------------
As in layerwise refinement, a cell keeps for each row a *facet point* when it knows one: a point of the row's
hyperplane, in ``N``, satisfying every other row strictly. A split puts one on the new rows (where the segment
between the two children's points crosses the hyperplane) and hands each old one to the child that holds it
strictly. A row still without one at the end takes a point of its hyperplane known from another region, or
the point where the segment to a region across crosses it, when either holds the cell's other rows strictly;
else a program decides (a point of the cell beyond the row, the row left out; none means the row is not a facet
inside ``N``). Across the relative interior of a facet there is exactly one region: a neuron whose zero set split
the far side there would be affine on the near region, equal to its breakpoint on a ``(d-2)``-dimensional piece
of the facet, and so would cut the near region too (or be constant there, and then equal to its breakpoint along
the facet, whose hyperplane would be its zero set on the far side as well). The region across is the one with the
opposite row that holds the facet point strictly in its other rows.

Examples
--------
>>> from fractions import Fraction
>>> from polyregions.networks.network import Network
>>> net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])
>>> local = LocalNetwork(net)
>>> regions = local.regions((0, 0, 1), Fraction(1), "inf")  # the centre (0, 0), homogeneous
>>> len(regions.cells), regions.crossing(), regions.linear_count()
(4, (0, 1), 4)
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

import numpy as np
from flint import fmpz_mat

from polyregions.errors import CertificateError
from polyregions.measures import _local_filter as lf
from polyregions.measures._local_programs import Neighbourhood, Norm, inside_rows
from polyregions.regions._cell_programs import Point, Row, negated, toward, value

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["LocalNetwork", "LocalRegions"]

_HALF = Fraction(1, 2)
_TRIES = 4  # candidate witnesses tried before a program
_SHARES = (_HALF, Fraction(1, 64), Fraction(1, 2 ** 20))


@dataclass(frozen=True)
class _Cell:
    rows: tuple[Row, ...]
    point: Point                           # strictly inside the rows and in N
    facets: tuple[Point | None, ...]       # per row: on its hyperplane, in N, every other row strict
    signs: tuple[int, ...]                 # per (neuron, breakpoint) met so far
    state: int                             # its row in the current layer's float state

    def signed(self, sign: int) -> "_Cell":
        return _Cell(self.rows, self.point, self.facets, self.signs + (sign,), self.state)


class LocalNetwork:
    """A network prepared for local refinement: its float copy and its layers as FLINT rationals.

    Parameters
    ----------
    network : Network
        In input coordinates.
    """

    def __init__(self, network: "Network"):
        from polyregions.networks._neuron_maps import integer_layers

        self.net = network
        self.fnet = lf.FloatNetwork(network)
        self.integer = integer_layers(network)
        self.tables = [[[int(v) for v in row] for row in layer.Wb.table()] for layer in self.integer]
        self.breakpoints = [layer.activation.breakpoints for layer in network.layers]
        self.neuron_of_column: list[int] = []  # the neuron of each (neuron, breakpoint) column of the signs
        neuron = 0
        for layer in network.layers:
            K = len(layer.activation.breakpoints)
            for _ in range(layer.width if K else 0):
                self.neuron_of_column.extend([neuron] * K)
                neuron += 1

    @cached_property
    def layout(self):
        """The float layout of :mod:`polyregions.regions._linear_regions` (built once: it converts every weight)."""
        from polyregions.regions._linear_regions import _Layout

        return _Layout(self.net)

    def _cut_rows(self, pieces: Sequence[Sequence[int]], layer: int, unit: int) -> list[Row]:
        """The rows ``z <= xi`` (primitive integers) of every breakpoint of ``unit`` in ``layer``, on cells whose
        earlier layers are on ``pieces``: the unit's row of the integer layer pulled back through the earlier
        layers' pieces (FLINT integer products; ``den`` collects the positive denominators)."""
        data = self.integer
        R = fmpz_mat(1, data[layer].Wb.ncols(), self.tables[layer][unit])
        den = data[layer].d
        for m in range(layer - 1, -1, -1):
            L = data[m]
            width = L.width
            entries = [int(v) for v in R.entries()]  # over [h_m; 1]
            chosen = pieces[m]
            if L.pieces_are_01():
                scaled = [v if L.slopes[k] else 0 for v, k in zip(entries, chosen)] + [entries[width]]
            else:  # h = (q / dq) z + p / dp, over the common denominator dq dp
                constant = entries[width] * L.dq * L.dp + sum(v * L.intercepts[k] * L.dq
                                                               for v, k in zip(entries, chosen))
                scaled = [v * L.slopes[k] * L.dp for v, k in zip(entries, chosen)] + [constant]
                den *= L.dq * L.dp
            R = fmpz_mat(1, width + 1, scaled) * L.Wb  # [z_m; 1] = Wb [h_{m-1}; 1] / d
            den *= L.d
        g = [int(v) for v in R.entries()]  # z = (g[:-1] . x + g[-1]) / den
        rows = []
        for xi in self.breakpoints[layer]:
            p, q = xi.numerator, xi.denominator
            row = [q * v for v in g[:-1]] + [p * den - q * g[-1]]
            divisor = math.gcd(*row)
            rows.append(tuple(v // divisor for v in row) if divisor > 1 else tuple(row))
        return rows

    def regions(self, centre: Point, radius: Fraction, norm: Norm, *, X: np.ndarray | None = None,
                EX: np.ndarray | None = None) -> "LocalRegions":
        """The activation regions meeting the neighbourhood of ``centre`` (homogeneous integers); ``X``, ``EX``: the
        centre's doubles and their distance to it, when already known."""
        N = Neighbourhood(centre, radius, norm)
        if X is None or EX is None:
            from polyregions.networks._float_filter import doubles

            X, EX = doubles(list(N.centre))
        r_double, r_error = lf.doubled(radius)
        fnet = self.fnet
        cells = [_Cell((), N.point, (), (), 0)]
        state = lf.first_state(fnet, X.reshape(1, -1), EX.reshape(1, -1))
        patterns: list[list[int]] = [[]]  # per cell: its pieces so far
        layers = self.net.layers
        for l, layer in enumerate(layers):
            K = len(self.breakpoints[l])
            if K:
                codes, signs = lf.classify(fnet, state, radius=r_double, radius_error=r_error, norm=norm)
                refined: list[_Cell] = []
                refined_patterns: list[list[int]] = []
                for cell, pattern in zip(cells, patterns):
                    group = [cell]
                    for u in range(layer.width):
                        rows = None
                        for k in range(K):
                            if codes[cell.state, u, k] == lf.STABLE:
                                group = [c.signed(int(signs[cell.state, u, k])) for c in group]
                                continue
                            if rows is None:
                                rows = self._cut_rows(_split(pattern, layers, l), l, u)
                            group = [child for c in group for child in self._cut(N, c, rows[k])]
                    start = len(cell.signs)
                    for child in group:
                        child_signs = child.signs[start:]
                        refined_patterns.append(pattern + [sum(1 for s in child_signs[u * K:(u + 1) * K] if s > 0)
                                                           for u in range(layer.width)])
                    refined.extend(group)
                cells, patterns = refined, refined_patterns
            else:
                patterns = [pattern + [0] * layer.width for pattern in patterns]
            if l + 1 < len(layers):
                pieces = np.array([_split(pattern, layers, l + 1)[l] for pattern in patterns],
                                  dtype=np.intp).reshape(len(cells), layer.width)
                state = lf.next_state(fnet, state.take([c.state for c in cells]), pieces)
                cells = [_Cell(c.rows, c.point, c.facets, c.signs, i) for i, c in enumerate(cells)]
        neuron_patterns = [tuple(p for l, layer in enumerate(layers) if not layer.activation.is_linear
                                 for p in _split(pattern, layers, len(layers))[l]) for pattern in patterns]
        return LocalRegions(self, N, tuple(cells), tuple(neuron_patterns))

    def _cut(self, N: Neighbourhood, cell: _Cell, row: Row) -> list[_Cell]:
        """The cell split by the hyperplane of ``row`` (``z <= xi``) when it crosses the cell inside ``N``, each
        part with the sign of ``z - xi`` on it; the cell with its sign otherwise."""
        if not any(row[:-1]):  # z is constant: 0 <= c means z <= xi everywhere
            return [cell.signed(0 if row[-1] == 0 else (-1 if row[-1] > 0 else 1))]
        if not N.meets(row):
            side = N.offset(row)  # not 0: the hyperplane misses N, so the centre is off it
            return [cell.signed(1 if side > 0 else -1)]
        at = value(row, cell.point)
        if at == 0:
            return self._split_through(N, cell, row)
        near = row if at < 0 else negated(row)  # the side that holds the cell's point, strictly
        far = negated(near)
        beyond = None
        # Free witnesses first: a facet point beyond the hyperplane (the segment from the cell's point to it stays
        # inside the cell), then the corner of N farthest along the far side.
        for facet in cell.facets:
            if facet is not None and value(near, facet) > 0:
                beyond = toward(cell.point, facet, near, _HALF)
                break
        if beyond is None:
            corner = N.farthest(near[:-1])
            if value(near, corner) > 0:
                # Just past the hyperplane on the segment to the corner first: the cell's rows may cut it later.
                for share in _SHARES if cell.rows else _SHARES[:1]:
                    candidate = toward(cell.point, corner, near, share)
                    if inside_rows(cell.rows, candidate):
                        beyond = candidate
                        break
        if beyond is None:  # (without rows only when the Euclidean ball's corner, rounded inwards, falls short)
            beyond = N.strict_point(cell.rows + (far,))
        sign = -1 if at < 0 else 1
        if beyond is None:
            return [cell.signed(sign)]
        facet = toward(cell.point, beyond, near, Fraction(0))
        return [self._child(cell, near, cell.point, facet, sign), self._child(cell, far, beyond, facet, -sign)]

    @staticmethod
    def _child(cell: _Cell, row: Row, point: Point, facet: Point, sign: int) -> _Cell:
        kept = tuple(f if f is not None and value(row, f) < 0 else None for f in cell.facets)
        return _Cell(cell.rows + (row,), point, kept + (facet,), cell.signs + (sign,), cell.state)

    def _split_through(self, N: Neighbourhood, cell: _Cell, row: Row) -> list[_Cell]:
        """Split a cell whose point lies on the hyperplane: its point moved a little to either side."""
        a = row[:-1]
        X, w = cell.point[:-1], cell.point[-1]
        for k in range(max(v.bit_length() for v in a), 4000, 8):
            below = tuple(x * (1 << k) - w * v for x, v in zip(X, a)) + (w << k,)
            above = tuple(x * (1 << k) + w * v for x, v in zip(X, a)) + (w << k,)
            if all(inside_rows(cell.rows, p) and N.contains(p) for p in (below, above)):
                return [self._child(cell, row, below, cell.point, -1),
                        self._child(cell, negated(row), above, cell.point, 1)]
        raise CertificateError("local complexity: no point found on either side of a hyperplane through a cell's "
                                "interior point, which is impossible")


def _split(pattern: Sequence[int], layers, count: int) -> list[list[int]]:
    """The flat pieces of the first ``count`` layers, layer by layer."""
    out, position = [], 0
    for layer in layers[:count]:
        out.append(list(pattern[position:position + layer.width]))
        position += layer.width
    return out


class LocalRegions:
    """The activation regions meeting one neighbourhood: cells with their rows, points, facet points, signs and
    patterns (of the neurons, in :attr:`Network.neurons` order)."""

    def __init__(self, local: LocalNetwork, N: Neighbourhood, cells: tuple[_Cell, ...],
                 patterns: tuple[tuple[int, ...], ...]):
        self.local = local
        self.N = N
        self.cells = cells
        self.patterns = patterns
        self.holders: dict[Row, list[int]] = {}
        self.opposite_of: dict[Row, Row] = {}
        self.signs = np.zeros((0, 0), dtype=np.int8)

    def crossing(self) -> tuple[int, ...]:
        """The neurons whose pre-activation is above one of its breakpoints on some region and below it on another:
        their breakpoint set crosses the neighbourhood."""
        if len(self.cells) < 2:
            return ()
        signs = np.array([c.signs for c in self.cells], dtype=np.int8)
        both = (signs > 0).any(axis=0) & (signs < 0).any(axis=0)
        return tuple(sorted({self.local.neuron_of_column[j] for j in np.flatnonzero(both).tolist()}))

    def adjacency(self) -> list[tuple[int, int]]:
        """The pairs of regions (``i < j``) that share a facet inside the neighbourhood.

        Each facet of a region meets one region across it (see the module notes), found from a facet point: the
        region with the opposite row that holds the point strictly in its other rows (tried nearest in signs
        first). A region's row without a facet point takes a point of the same hyperplane known from another
        region when it lies inside this region's other rows, or the point where the segment to a region across
        crosses the hyperplane, and only then a certified program.
        """
        cells = self.cells
        holders: dict[Row, list[int]] = defaultdict(list)
        opposite_of: dict[Row, Row] = {}
        known: dict[Row, list[Point]] = defaultdict(list)  # points of each hyperplane, in N
        for i, cell in enumerate(cells):
            for row, facet in zip(cell.rows, cell.facets):
                holders[row].append(i)
                if row not in opposite_of:
                    opposite_of[row] = negated(row)
                    opposite_of[opposite_of[row]] = row
                if facet is not None:
                    known[max(row, opposite_of[row])].append(facet)
        signs = np.array([c.signs for c in cells], dtype=np.int8)
        self.holders, self.opposite_of, self.signs = holders, opposite_of, signs
        pairs: set[tuple[int, int]] = set()
        resolved: set[tuple[int, Row]] = set()  # (region, row) whose neighbour across the row is known

        def settle(i: int, row: Row, facet: Point) -> None:
            opposite = opposite_of[row]
            candidates = self._nearest(i, holders[opposite])
            across = next((j for j in candidates
                           if inside_rows([r for r in cells[j].rows if r != opposite], facet)), None)
            found = [across] if across is not None else \
                [j for j in candidates  # not expected (see the module notes): decide every candidate by programs
                 if self._share([r for r in cells[i].rows if r != row] + [r for r in cells[j].rows if r != opposite],
                                row)]
            for j in found:
                pairs.add((min(i, j), max(i, j)))
                resolved.add((j, opposite))
            resolved.add((i, row))

        todo = [(i, k) for i, cell in enumerate(cells) for k, row in enumerate(cell.rows)
                if holders.get(opposite_of[row])]
        for i, k in todo:
            facet = cells[i].facets[k]
            if facet is not None and (i, cells[i].rows[k]) not in resolved:
                settle(i, cells[i].rows[k], facet)
        for attempt in ("known", "program"):
            for i, k in todo:
                row = cells[i].rows[k]
                if (i, row) in resolved:
                    continue
                plane = max(row, opposite_of[row])
                facet = self._known_facet(i, k, known[plane]) if attempt == "known" else \
                    self._facet_point(cells[i], k)
                if facet is not None:
                    known[plane].append(facet)
                    settle(i, row, facet)
                elif attempt == "program":
                    resolved.add((i, row))  # not a facet inside N
        return sorted(pairs)

    def _nearest(self, i: int, candidates: list[int]) -> list[int]:
        """The candidates ordered by how many signs they share with region ``i`` (the region across a facet
        usually differs in one)."""
        if len(candidates) < 2:
            return candidates
        distance = (self.signs[candidates] != self.signs[i]).sum(axis=1)
        return [candidates[k] for k in np.argsort(distance, kind="stable").tolist()]

    def _known_facet(self, i: int, k: int, points: list[Point]) -> Point | None:
        """A facet point of row ``k`` of region ``i`` without a program: a known point of the hyperplane inside the
        region's other rows, or where the segment from the region's point to the point of a region across
        crosses the hyperplane, when that is inside both regions' other rows (checked exactly)."""
        cells = self.cells
        cell = cells[i]
        row = cell.rows[k]
        rest = cell.rows[:k] + cell.rows[k + 1:]
        # A few tries only: with hundreds of regions, trying them all would cost more than the program.
        for point in points[-_TRIES * 4:]:
            if inside_rows(rest, point):
                return point
        for j in self._nearest(i, self.holders.get(self.opposite_of[row], []))[:_TRIES]:
            crossing = toward(cell.point, cells[j].point, row, Fraction(0))
            if inside_rows(rest, crossing):
                return crossing
        return None

    def _facet_point(self, cell: _Cell, k: int) -> Point | None:
        row = cell.rows[k]
        rest = cell.rows[:k] + cell.rows[k + 1:]
        beyond = self.N.strict_point(rest + (negated(row),))
        return None if beyond is None else toward(cell.point, beyond, row, Fraction(0))

    def _share(self, rows: list[Row], row: Row) -> bool:
        """Whether the open polyhedron of ``rows`` meets the hyperplane of ``row`` inside ``N``: it has points on
        both sides."""
        return all(self.N.strict_point(tuple(rows) + (side,)) is not None for side in (row, negated(row)))

    def linear_count(self) -> int:
        """The number of linear regions inside the neighbourhood: components of the adjacency restricted to pairs
        with the same output map, decided exactly as :func:`polyregions.regions._linear_regions.linear_region_roots`
        does (one switching neuron: its downstream gradient; several: the whole maps)."""
        from polyregions.regions._linear_regions import component_roots, maps_equal, single_switch_equal

        count = len(self.cells)
        if count < 2:
            return count
        patterns = np.array(self.patterns, dtype=np.int64).reshape(count, -1)
        pairs = np.array(self.adjacency(), dtype=np.int64).reshape(-1, 2)
        differ = patterns[pairs[:, 0]] != patterns[pairs[:, 1]]
        switches = differ.sum(axis=1)
        equal = np.zeros(len(pairs), dtype=bool)
        single = np.flatnonzero(switches == 1)
        if single.size:
            equal[single] = single_switch_equal(self.local.net, patterns, pairs[single],
                                                np.argmax(differ[single], axis=1), layout=self.local.layout)
        several = np.flatnonzero(switches > 1)
        if several.size:
            equal[several] = maps_equal(self.local.net, patterns, pairs[several])
        roots = component_roots(count, pairs[equal])
        return int(np.count_nonzero(roots == np.arange(count)))
