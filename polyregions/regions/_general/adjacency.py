"""The adjacency of the general engine's regions: which two regions share each facet.

The regions form a polyhedral complex, so each facet after the domain's rows is shared by exactly two regions,
and the one below its hyperplane looks for the other (:func:`~.facets.proves_facet`). Across the last layer's
cuts of one cell, the two are read off their sides (``Cell.siblings``); across a facet an earlier layer's cut
made, the region across is read off the pattern (``Cell.flips``; both kept by :mod:`.cuts`). Across every other
facet, the region below its hyperplane guesses the one beyond a point of the facet by a float forward pass
(:class:`FloatPatterns`) and proves the guess in integers (:func:`share_neighbours` within a share,
:func:`decided` on the joined shares); a facet no guess proves is decided by certified programs
(:func:`by_programs`, which a store's open facets go through too). Every region read off a pattern must be among
the regions found, which is checked.
"""

from __future__ import annotations

import operator
from functools import partial
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional

import numpy as np

from polyregions.exact._integers import primitive
from polyregions.exact.lp import Backend, strict_point
from polyregions.regions import _cell_programs as cp
from polyregions.regions._cell_programs import Point, Row
from polyregions.regions._general.cells import Cell, Flip, geometry_of
from polyregions.regions._general.facets import facet_point, plane_of, proves_facet
from polyregions.regions.region import Region

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions._shares import Joined

__all__ = ["Pair", "Proved", "FacetKey", "Facets", "CellsByPattern", "FloatPatterns", "float_guesses", "guesses",
           "share_neighbours", "decided", "by_programs", "Candidate", "share_facet"]


def _flipped(pattern: tuple[int, ...], flip: Flip) -> tuple[int, ...]:
    neuron, piece = flip
    return pattern[:neuron] + (piece,) + pattern[neuron + 1:]


#: Facet neighbours proved, each pair of patterns with the hyperplane of the facet they share (None for those read
#: off the cuts).
Pair = tuple[tuple[int, ...], tuple[int, ...]]
Proved = set[tuple[Pair, Optional[Row]]]
#: A facet named independently of the domain's (or the certified box's) rows, (pattern, row - domain rows), with
#: the float guess of the pattern across it (None when there is none).
FacetKey = tuple[tuple[int, ...], int, Optional[tuple[int, ...]]]
#: A region as :func:`by_programs` reads it: its id, its rows, how many of them are the domain's, and a way to make
#: its region (called only when a program needs it).
Candidate = tuple[int, tuple[Row, ...], int, Callable[[], Region]]


class Facets:
    """The facets of finished cells after the domain's rows that they prove, each with its exact point ``q``
    (:mod:`.facets`), and the cells by pattern (``by_pattern.get``) for proving guessed neighbours."""

    def __init__(self, by_pattern) -> None:
        self.by_pattern = by_pattern

    def of(self, cells: Iterable[Cell]) -> list[tuple[Cell, int]]:
        """The facets whose neighbours are to be found: after the domain's rows and before the siblings', seen
        from below (:func:`proves_facet`)."""
        return [(cell, i) for cell in cells for i in range(cell.domain_rows, len(cell.rows) - len(cell.siblings))
                if proves_facet(cell.rows[i]) and not (cell.flips and cell.flips[i])]

    def prove(self, cell: Cell, i: int, guess: tuple[int, ...] | None, across: Proved) -> bool:
        """Whether the cell of pattern ``guess`` shares facet ``i`` of ``cell`` (recorded in ``across``), proved
        in integers: it lies across the same hyperplane with every other row strict at the facet point."""
        other = self.by_pattern.get(guess) if guess is not None else None  # None: no float guess
        if other is None or other is cell:
            return False
        plane = plane_of(cell.rows[i])[0]
        pair = _ordered(cell.pattern, other.pattern)
        # Two convex cells share at most one facet: a pair proved from the other side of this hyperplane
        # needs nothing more. (Proved across another hyperplane, it says nothing about this facet: an
        # unproved guess may well be a neighbour across another facet.)
        if (pair, plane) in across or _touches(other, facet_point(cell, i), cell.rows[i]):
            across.add((pair, plane))
            return True
        return False


def float_guesses(facets: list[tuple[Cell, int]], floats: "FloatPatterns") -> list:
    return floats.patterns_beyond([facet_point(cell, i) for cell, i in facets], [cell.rows[i] for cell, i in facets])


def _sibling_pairs(cells: Iterable[Cell]) -> list[Pair]:
    """The facet neighbours read off the cuts: the last layer's (``Cell.siblings``, each pair once: both are
    parts the cut made) and the flips (from each side, so that each neighbour read off is checked to exist)."""
    pairs: list[Pair] = []
    for cell in cells:
        pattern = cell.pattern
        pairs.extend([(pattern, other) for other in cell.siblings if pattern < other])
        if cell.flips:
            first = len(cell.rows) - len(cell.siblings)
            pairs.extend([(pattern, _flipped(pattern, flip)) for flip in cell.flips[:first] if flip is not None])
    return pairs


def share_neighbours(cells: list[Cell], net: "Network") -> tuple[list[Pair], list[FacetKey]]:
    """The facet neighbours among ``cells`` read off the cuts or proved from float guesses (as :func:`decided`
    proves them; a pair may appear twice), and the facets left open: those of cells whose neighbour is
    elsewhere, or whose guesses failed. A worker process decides these for its share, so that only the open
    facets are left to the joined regions."""
    facets = Facets({cell.pattern: cell for cell in cells})
    floats = FloatPatterns(net)
    wanted = facets.of(cells)
    proved: Proved = set()
    open_facets = []
    for (cell, i), guess in zip(wanted, float_guesses(wanted, floats)):
        if not (facets.prove(cell, i, guess, proved) or facets.prove(cell, i, _beyond(floats, cell, i), proved)):
            open_facets.append((cell.pattern, i - cell.domain_rows, guess))
    return _sibling_pairs(cells) + [pair for pair, _ in proved], open_facets


def _beyond(floats: "FloatPatterns", cell: Cell, i: int) -> tuple[int, ...] | None:
    """The second float guess: a shorter step beyond the facet point, for points near another neuron's boundary."""
    return floats.patterns_beyond([facet_point(cell, i)], [cell.rows[i]], step=1e-12)[0]


def decided(joined: Joined, net: "Network", backend: Backend) -> np.ndarray:
    """The pairs of cells (rows of two indices) whose closures share the facets the shares left open.

    For each facet of each cell a point q in its relative interior is known exactly. The cell across is guessed
    by a float forward pass just beyond q, then *proved* in integers: a cell on the other side of the same
    hyperplane whose other rows all hold strictly at q shares a (k-1)-dimensional neighbourhood of q with the
    facet. The shares tried the float guesses among their own cells (:func:`share_neighbours`); here they are
    tried on every cell, then the exact lexicographic guess, and only when no guess can be proved do certified
    programs decide.
    """
    cells = CellsByPattern(lambda pattern: None if (index := joined.index(pattern)) is None else joined.cell(index))
    facets = Facets(cells)
    floats = FloatPatterns(net)
    across: Proved = set()
    unproved: list[tuple[int, Cell, int, Region]] = []
    for pattern, offset, float_guess in joined.open_facets:
        cell = cells[pattern]
        i = cell.domain_rows + offset
        region = _region(cell, net, backend)
        if any(facets.prove(cell, i, guess, across) for guess in guesses(float_guess, floats, net, cell, i, region)):
            continue
        index = joined.index(pattern)
        assert index is not None  # the cell of the facet
        unproved.append((index, cell, i, region))
    found = np.array([(joined.index(p), joined.index(q)) for (p, q), _ in across], dtype=np.int64).reshape(-1, 2)
    if not unproved:
        return found
    return np.concatenate([found, by_programs(unproved, _joined_regions(joined, net, backend), backend)])


def _joined_regions(joined: Joined, net: "Network", backend: Backend) -> Iterator[Candidate]:
    """Every joined cell for :func:`by_programs`, by index."""
    for index in range(len(joined)):
        cell = joined.cell(index)
        yield index, cell.rows, cell.domain_rows, partial(_region, cell, net, backend)


def by_programs(unproved: Iterable[tuple[int, Cell, int, Region]], candidates: Iterable[Candidate],
                backend: Backend) -> np.ndarray:
    """The regions sharing the facets no guess proved (``(id, cell, row, region)`` each), among the
    ``candidates`` with a facet on the same hyperplane from the other side, each decided by a certified program
    (:func:`share_facet`): rows of two ids, the smaller first (a pair may appear twice). One pass over the
    candidates, the joined shares' cells or a store's regions alike."""
    by_plane: dict[Row, list[tuple[int, int, Region, int]]] = {}
    for region_id, cell, i, region in unproved:
        plane, side = plane_of(cell.rows[i])
        by_plane.setdefault(plane, []).append((region_id, i, region, side))
    if not by_plane:
        return np.zeros((0, 2), dtype=np.int64)
    pairs: list[list[int]] = []
    for other_id, rows, domain_rows, made in candidates:
        other: Region | None = None
        for j in range(domain_rows, len(rows)):
            plane, side = plane_of(rows[j])
            for region_id, i, region, own_side in by_plane.get(plane, ()):
                if own_side == side or region_id == other_id:
                    continue
                if other is None:
                    other = made()
                if share_facet(region, other, i, backend):
                    pairs.append(sorted((region_id, other_id)))
    return np.array(pairs, dtype=np.int64).reshape(-1, 2)


class CellsByPattern(dict):
    """Cells by pattern for :meth:`Facets.prove`: ``known`` ones, and the others read by ``read`` (None when no
    cell has the pattern) on first asking, then kept."""

    def __init__(self, read: Callable[[tuple[int, ...]], Optional[Cell]],
                 known: Iterable[tuple[tuple[int, ...], Cell]] = ()) -> None:
        super().__init__(known)
        self.read = read

    def __missing__(self, pattern: tuple[int, ...]) -> Cell | None:
        cell = self[pattern] = self.read(pattern)
        return cell

    def get(self, pattern, default=None):
        found = self[pattern]
        return default if found is None else found


def _region(cell: Cell, net: "Network", backend: Backend) -> Region:
    return Region.deferred(cell.pattern, net, partial(geometry_of, cell, backend))


def guesses(float_guess: tuple[int, ...] | None, floats: "FloatPatterns", net: "Network", cell: Cell, i: int,
             region: Region) -> Iterator[tuple[int, ...] | None]:
    """Guesses of the pattern just beyond the point of facet ``i`` of ``cell``, each computed only when the ones
    before it failed: the float guesses first, then the exact lexicographic one; each must still be proved. The
    region's exact inequalities are built only for that last guess: most regions never need them."""
    yield float_guess
    yield _beyond(floats, cell, i)
    yield net.pattern_toward(cp.to_fractions(facet_point(cell, i)), region.A[i])


def _ordered(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The two patterns in increasing order (as ``sorted`` gives them)."""
    return (second, first) if second < first else (first, second)


def _touches(cell: Cell, q: Point, facet: Row) -> bool:
    """Whether ``cell`` lies on the other side of the hyperplane of the row ``facet`` (it has the negated row:
    rows are primitive) with every other row strict at ``q`` (a point of that hyperplane), exactly."""
    across = cp.negated(facet)
    reflected = q[:-1] + (-q[-1],)  # row . reflected is cp.value(row, q)
    found = False
    for row in cell.rows:
        if row == across:
            found = True
        elif sum(map(operator.mul, row, reflected)) >= 0:  # the row ``facet`` itself included: zero at q
            return False
    return found


class FloatPatterns:
    """Float forward passes used only to *guess* patterns; every guess is proved exactly before use."""

    def __init__(self, net: "Network"):
        self.layers: list | None = []
        self.staged = net if hasattr(net, "float_patterns") else None  # stages guess through their own pass
        if self.staged is not None:
            return
        try:
            for layer in net.layers:
                activation = layer.activation
                pieces = [activation.piece_map(k) for k in range(len(activation.breakpoints) + 1)]
                self.layers.append((np.array([[float(v) for v in row] for row in layer.weight]),
                                    np.array([float(v) for v in layer.bias]),
                                    np.array([float(v) for v in activation.breakpoints]),
                                    np.array([float(slope) for slope, _ in pieces]),
                                    np.array([float(intercept) for _, intercept in pieces]),
                                    activation.is_linear))
        except OverflowError:
            self.layers = None  # parameters beyond the double range: no guesses, the exact pass decides

    def patterns_beyond(self, points: list[Point], rows: list[Row], *, step: float = 1e-9,
                        chunk: int = 65536) -> list:
        """The pattern a step (relative to the point's size) beyond each point (homogeneous) of its row's
        hyperplane, outside the row's half-space (None for all when the numbers leave the double range)."""
        if self.layers is None:
            return [None] * len(points)
        patterns: list = []
        for start in range(0, len(points), chunk):
            try:
                x = np.array([[v / p[-1] for v in p[:-1]] for p in points[start:start + chunk]])
                d = np.array([r[:-1] for r in rows[start:start + chunk]], dtype=float)
            except OverflowError:
                return [None] * len(points)
            length = step * np.maximum(1.0, np.abs(x).max(axis=1)) / np.maximum(np.abs(d).max(axis=1), 1e-300)
            x = x + d * length[:, None]
            if self.staged is not None:
                patterns.extend(map(tuple, self.staged.float_patterns(x).tolist()))
                continue
            columns = []
            for W, bias, breakpoints, slopes, intercepts, is_linear in self.layers:
                z = x @ W.T + bias
                pieces = np.searchsorted(breakpoints, z, side="left")
                x = slopes[pieces] * z + intercepts[pieces]
                if not is_linear:
                    columns.append(pieces)
            patterns.extend(map(tuple, np.hstack(columns).tolist()) if columns else [()] * len(x))
        return patterns


def share_facet(region: Region, other: Region, row: int, backend: Backend) -> bool:
    """Whether the closures meet in a (k-1)-dimensional set inside the hyperplane of ``region.A[row]``."""
    a, bi = region.A[row], region.b[row]
    plane = plane_of(primitive((*a, bi)))[0]
    keep = [j for j in range(len(other.A)) if plane_of(primitive((*other.A[j], other.b[j])))[0] != plane]
    A = region.A[:row] + region.A[row + 1:] + tuple(other.A[j] for j in keep)
    b = region.b[:row] + region.b[row + 1:] + tuple(other.b[j] for j in keep)
    return strict_point(A, b, E=(a,), e=(bi,), dim=region.dim, backend=backend) is not None
