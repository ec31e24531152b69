"""Layerwise refinement: exact activation regions in any dimension.

Each region of layer l-1 carries the affine map ``t -> M t + c`` of the layer's input on it; the next layer's
neurons pulled back through that map are hyperplanes, and every hyperplane that meets the region's interior
splits it. Whether it meets the interior is decided exactly, never by a tolerance. In a domain of dimension up
to ``VERTEX_DIMENSION`` every cell carries its vertices and edges (:mod:`polyregions.regions._cell_vertices`):
the signs of the vertices decide, and a cut updates them, with no linear program. An unbounded domain is cut
within a box that provably holds every vertex of the complex (:mod:`polyregions.regions._vertex_bound`): every
region, facet and adjacency of the true complex meets the open box, a region is unbounded exactly when its cell
has a facet on the box, and the box's rows are dropped at the end. Otherwise an exact witness on the far side or
a certified linear program decides (:mod:`polyregions.regions._cell_programs`).

Cells cut by programs remember, for their rows, points of the row's hyperplane where every other row holds
strictly (*facet points*). A split hands each facet point to the side that holds it strictly and gives the new
row the point where the segment between the two sides' interior points crosses it. Facet points are free
witnesses that a later hyperplane crosses the cell, and they prove facets for the adjacency graph without a
program. Cells cut by vertices need no point at all while they are cut: a unit's piece on a part is read off the
part's sides, and the points come from the vertices when the cells are final.

The adjacency: the regions form a polyhedral complex, so each facet after the domain's rows is shared by exactly
two regions. Across the last layer's cuts of one cell, the two are read off their sides (:func:`_siblings`).
Across a facet an earlier layer's cut made, only the neuron that cut it changes piece unless a later unit's
hyperplane is the facet's own or a unit sits at a breakpoint on a whole cell, which the cuts see
(:func:`_still_flipping`): the region across is read off the pattern (``_Cell.flips``). Across every other
facet, the region below its hyperplane guesses the one beyond a point of the facet by a float forward pass and
proves the guess in integers (:func:`_share_neighbours`, :func:`_decided`). Every region read off a pattern must be
among the regions found, which is checked.
"""

from __future__ import annotations

import bisect
import math
import operator
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from itertools import compress
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, Optional, get_args

import numpy as np
from flint import fmpq, fmpq_mat, fmpz_mat

from polyregions._progress import progress_bar
from polyregions._runtime import collector_paused, one_blas_thread
from polyregions.errors import CertificateError, InvalidInputError
from polyregions.exact._integers import primitive
from polyregions.exact.lp import Backend, strict_point
from polyregions.regions import _cell_programs as cp
from polyregions.regions import _cell_vertices as cv
from polyregions.regions import _vertex_bound as vb
from polyregions.regions._cell_programs import Point, Row
from polyregions.regions._cell_vertices import CellVertices
from polyregions.regions._shares import Joined, Share
from polyregions.regions.complex import Region, RegionComplex, complex_from_arrays

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions.domains import Domain

__all__ = ["refine", "Method", "METHODS"]

_ZERO = Fraction(0)
_HALF = Fraction(1, 2)
# Bounded domains up to this dimension are cut through their cells' vertices. A box has 2^k of them; measured,
# from dimension 7 on the first layers' cells have so many that certified programs are as fast or faster.
VERTEX_DIMENSION = 6
VERTEX_LIMIT = 4096  # a polytope domain with more vertices goes to the programs

#: How cells are cut: ``"auto"`` (by vertices up to ``VERTEX_DIMENSION``), ``"vertices"`` or ``"programs"``.
Method = Literal["auto", "vertices", "programs"]
METHODS: tuple[Method, ...] = get_args(Method)


#: How the pattern changes across a facet: neuron ``n`` (its index in the pattern) takes piece ``p``.
_Flip = tuple[int, int]


@dataclass(frozen=True)
class _Cell:
    rows: tuple[Row, ...]
    floats: Optional[np.ndarray]  # cp.float_rows(rows); None beyond the double range or when cut by vertices
    point: Optional[Point]        # strictly inside; None while cut by vertices (found when the cell is finished)
    pattern: tuple[int, ...]
    M: fmpq_mat                   # the current layer's input is M t + c on the cell
    c: fmpq_mat                   # (a column)
    # Per row: a point of its hyperplane, every other row strict. Cells cut by vertices need none until they are
    # finished, and carry () until then.
    facet_points: tuple[Optional[Point], ...]
    domain_rows: int              # the first rows are the domain's; every later row is a facet
    vertices: Optional[CellVertices] = None  # a bounded cell's vertices, cut instead of solving programs
    # The patterns of the regions across the last len(siblings) rows: the facets cut by the last layer, whose
    # neighbours are known from the cut (:func:`_siblings`).
    siblings: tuple[tuple[int, ...], ...] = ()
    # A finished cell cut by vertices without a point: the centroid of its vertices rounded to doubles (weighting
    # those on the certified box little), tried first when a point is asked for (:func:`_geometry`).
    centroid: Optional[tuple[float, ...]] = None
    # Per row (none, or one per row): how the pattern changes across its facet when that is read off the cuts,
    # ``(neuron, piece)`` (:func:`_flipped`), else None. Empty: none is known.
    flips: tuple[Optional[_Flip], ...] = ()

    def cut(self, row: Row, point: Point, facet_points) -> "_Cell":
        """The part of the cell where ``row`` holds, with an interior point and the facet points it keeps."""
        new = cp.float_rows([row], len(row) - 1)
        floats = None if self.floats is None or new is None else np.vstack([self.floats, new])
        return _Cell(self.rows + (row,), floats, point, self.pattern, self.M, self.c, facet_points,
                     self.domain_rows)

    def with_pattern(self, pattern: tuple[int, ...], M: fmpq_mat, c: fmpq_mat) -> "_Cell":
        return self.evolved(pattern=pattern, M=M, c=c)

    def evolved(self, **changes: Any) -> "_Cell":
        """``dataclasses.replace`` of the cell, without its per-call introspection of the fields (a cell is
        copied a few times on its way to becoming a region, a hundred thousand times in a run)."""
        assert changes.keys() <= self.__dict__.keys()
        copy = object.__new__(_Cell)
        copy.__dict__.update(self.__dict__, **changes)
        return copy

    def __reduce__(self):
        # FLINT matrices do not pickle: they travel to worker processes as integer pairs.
        return _rebuilt_cell, (self.rows, self.floats, self.point, self.pattern, _plain(self.M), _plain(self.c),
                               self.facet_points, self.domain_rows, self.vertices, self.siblings, self.centroid,
                               self.flips)


#: The affine map of a finished cell: no later layer reads it.
_NO_MAP = fmpq_mat(0, 0)


def _plain(matrix: fmpq_mat) -> tuple[int, int, list[int], int]:
    """The matrix as integers: its shape, the numerators over one common denominator, and that denominator."""
    numerators, denominator = matrix.numer_denom()
    return matrix.nrows(), matrix.ncols(), [int(v) for v in numerators.entries()], int(denominator)


def _rebuilt_cell(rows, floats, point, pattern, M, c, facet_points, domain_rows, vertices, siblings, centroid,
                  flips) -> _Cell:
    def matrix(n, k, numerators, denominator):
        return fmpq_mat(fmpz_mat(n, k, numerators)) / denominator
    return _Cell(rows, floats, point, pattern, matrix(*M), matrix(*c), facet_points, domain_rows, vertices,
                 siblings, centroid, flips)


def refine(network: "Network", domain: "Domain", *, backend: Backend = "highs", progress: bool = False,
           workers: int = 1, method: Method = "auto", scheduler: Any = None) -> RegionComplex:
    """Enumerate the activation regions of ``network`` in ``domain`` exactly, in any dimension.

    With ``workers > 1``, the regions of the first layer are refined through the later layers in that many
    processes (they refine independently), or as tasks on the Dask cluster of ``scheduler`` (an address or a
    client); the complex is the same. With ``method="auto"``, domains of dimension
    up to ``VERTEX_DIMENSION`` are cut through the cells' vertices (an unbounded domain within a certified box
    that holds every vertex of the complex, :mod:`polyregions.regions._vertex_bound`, whose rows are dropped
    at the end), others through certified linear programs (``backend`` names the solver); ``"vertices"`` cuts
    through vertices in any dimension and ``"programs"`` solves programs in any. Every method decides every
    question exactly and gives the same complex. A domain (boxed when unbounded) with more than
    ``VERTEX_LIMIT`` vertices always goes to the programs.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> from polyregions.networks.activations import relu
    >>> from polyregions.regions import domains as dom
    >>> net = Network.from_layers(1, [([[1], [1]], [0, -1], relu())])
    >>> len(refine(net, dom.box([-2], [2])))
    3
    """
    if domain.input_dim != network.input_dim:
        raise InvalidInputError(f"refine: expected a domain in R^{network.input_dim}, got one in R^{domain.input_dim}")
    net = network.restrict(domain.origin, domain.directions)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidInputError(f"workers: expected a positive integer, got {workers!r}")
    if method not in METHODS:
        raise InvalidInputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    with collector_paused(), one_blas_thread():
        return _refine(network, net, domain, backend, progress, workers, method, scheduler)


def _refine(network: "Network", net: "Network", domain: "Domain", backend: Backend, progress: bool, workers: int,
            method: Method, scheduler: Any) -> RegionComplex:
    """:func:`refine` on ``net``, the network restricted to the domain."""
    start, box = domain_cell(net, domain, backend, method)
    cells = [start]
    layers = net.layers
    with progress_bar(total=len(layers), desc="layers", enabled=progress, fractional=True) as bar:
        if scheduler is not None and len(layers) > 1:
            from polyregions.regions._distributed import refined_on_cluster

            cells = _refined(cells, layers[:1], backend, bar, box=box)
            joined = refined_on_cluster(cells, layers[1:], backend, scheduler, bar, box, net)
        elif workers > 1 and len(layers) > 1:
            cells = _refined(cells, layers[:1], backend, bar, box=box)
            joined = _refined_in_processes(cells, layers[1:], backend, workers, bar, box, net)
        else:
            joined = Joined([_handed_on(cells, layers, backend, box, net, bar=bar, packed=False)])
    pairs = np.concatenate([joined.pairs(), _decided(joined, net, backend)])
    regions = Region._deferred_rows(joined.patterns, net, partial(_cell_geometry, joined, backend))
    return complex_from_arrays(network, domain, regions, joined.patterns, pairs, exact=True, engine="lp")


def _cell_geometry(joined: Joined, backend: Backend, index: int):
    """The geometry of the region of cell ``index``, as :func:`_geometry`."""
    return _geometry_of(joined.cell(index), backend)


def domain_cell(net: "Network", domain: "Domain", backend: Backend, method: Method = "auto"
                ) -> tuple[_Cell, frozenset[Row]]:
    """The cell refinement starts from: the domain (``net`` already restricted to it), with a point in every
    facet, and its vertices when it is cut by vertices (an unbounded domain then within the certified box); and
    the box's rows (empty when there is no box)."""
    k = domain.dim
    rows = tuple(primitive((*a, bi)) for a, bi in zip(domain.region.A, domain.region.b))
    interior = domain.region.interior_point()
    if interior is None:
        raise InvalidInputError(f"refine: expected a full-dimensional domain, got an empty or lower-dimensional "
                                f"{domain.kind}")
    identity = fmpq_mat([[fmpq(int(i == j)) for j in range(k)] for i in range(k)]) if k else fmpq_mat(0, 0)
    whole = _Cell(rows, cp.float_rows(rows, k), cp.homogeneous(interior), (), identity,
                  fmpq_mat(k, 1), (None,) * len(rows), 0)
    start = _irredundant(whole, backend)
    box: frozenset[Row] = frozenset()
    by_vertices = k > 0 and (method == "vertices" or (method == "auto" and k <= VERTEX_DIMENSION))
    if not domain.is_bounded() and not hasattr(net.layers[0], "activation"):
        by_vertices = False  # the certified vertex box is proved for dense layers; stages go through programs
    vertices = None
    if by_vertices and domain.is_bounded():
        vertices = cv.cell_vertices(start.rows, k, limit=VERTEX_LIMIT)
    elif by_vertices:
        boxed, box_rows = _boxed(start, net, backend)
        vertices = cv.cell_vertices(boxed.rows, k, limit=VERTEX_LIMIT)
        if vertices is not None:
            start, box = boxed, box_rows
    return start.evolved(domain_rows=len(start.rows), vertices=vertices), box


def _boxed(start: _Cell, net: "Network", backend: Backend) -> tuple[_Cell, frozenset[Row]]:
    """The (irredundant) domain cell within the certified box of :func:`~polyregions.regions._vertex_bound.
    vertex_bound`, with a point strictly inside both, and the box's rows."""
    assert start.point is not None  # the domain's cell has one
    k = len(start.point) - 1
    box = vb.box_rows(vb.vertex_bound(net, start.rows, k), k)
    rows = start.rows + box
    point = start.point
    if not cp.strictly_inside(box, point):
        found = strict_point([row[:-1] for row in rows], [row[-1] for row in rows], dim=k, backend=backend)
        if found is None:  # the box holds a point of every face of the complex, the domain's interior included
            raise CertificateError("the certified vertex box missed the domain's interior")
        point = cp.homogeneous(found)
    # Every row is checked again: a box row may be implied by the domain's (never a domain row by the box's).
    whole = _Cell(rows, cp.float_rows(rows, k), point, (), start.M, start.c, (None,) * len(rows), 0)
    return _irredundant(whole, backend), frozenset(box)


def _unboxed(cell: _Cell, box: frozenset[Row]) -> _Cell:
    """A final cell without the box's rows (kept only among the domain's rows): the true region. No other row of
    a final cell is a box row, as every facet off the box meets the open box."""
    keep = [i for i, row in enumerate(cell.rows) if row not in box]
    if len(keep) == len(cell.rows):
        return cell
    return cell.evolved(rows=tuple(cell.rows[i] for i in keep),
                        floats=None if cell.floats is None else cell.floats[keep],
                        facet_points=tuple(cell.facet_points[i] for i in keep),
                        domain_rows=cell.domain_rows - (len(cell.rows) - len(keep)),
                        flips=tuple(cell.flips[i] for i in keep) if cell.flips else ())


def _geometry_of(cell: _Cell, backend: Backend):
    """:func:`_geometry` of a finished cell."""
    return _geometry(cell.rows, cell.point, cell.centroid, backend)


def _geometry(rows: tuple[Row, ...], point: Optional[Point], centroid: Optional[tuple[float, ...]], backend: Backend):
    """A region's ``A``, ``b`` and interior point as fractions (built when first asked for)."""
    A = tuple(tuple(Fraction(v) for v in row[:-1]) for row in rows)
    b = tuple(Fraction(row[-1]) for row in rows)
    return A, b, cp.to_fractions(point if point is not None else interior(rows, centroid, backend))


def interior(rows: tuple[Row, ...], centroid: Optional[tuple[float, ...]], backend: Backend) -> Point:
    """A point strictly inside a finished cell that has none: its ``centroid`` (doubles) when that is strictly inside
    (checked exactly), otherwise a certified program's point."""
    if centroid is not None and cp.strictly_inside(rows, point := cp.float_point(centroid)):
        return point
    found = strict_point([row[:-1] for row in rows], [row[-1] for row in rows], dim=len(rows[0]) - 1,
                         backend=backend)
    if found is None:
        raise CertificateError("a region without a point strictly inside")
    return cp.homogeneous(found)


def _refined(cells: list[_Cell], layers, backend: Backend, bar=None, finish=None,
             box: frozenset[Row] = frozenset()) -> list[_Cell]:
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
        refined: list[_Cell] = []
        for cell in cells:
            children = _refine_cell(cell, exact_layer, backend, box, last=last)
            refined.extend(finish(children) if last else children)
            if bar is not None:
                bar.update(1 / len(cells))
        cells = refined
    if bar is not None and end < len(layers):
        bar.update(len(layers) - end)
    return finish(cells) if finish is not None and end == 0 else cells


def _finished(cells: list[_Cell], layers, backend: Backend, bar=None, box: frozenset[Row] = frozenset(),
              flipping: bool = True) -> list[_Cell]:
    """``_refined``, each final cell given the facet points it still lacks as soon as it is made (where the
    cells are, and before the vertices of the next ones are built); ``box`` holds the rows of the certified
    box, if any; ``flipping`` as in :func:`_with_facet_points`."""
    return _refined(cells, layers, backend, bar, finish=partial(_with_facet_points, box=box, flipping=flipping),
                    box=box)


def _finished_share(cells: list[_Cell], layers, backend: Backend, box: frozenset[Row], net: "Network",
                    flipping: bool = True, bar=None) -> tuple[list[_Cell], list[_Pair], list[_FacetKey]]:
    """``_finished`` on a share of the cells (in a worker), with the facet neighbours proved among them and the
    facets left open (:func:`_share_neighbours`). The neighbours read off flips may lie in other shares; without
    ``flipping`` every facet a cell proves gets a point, and every pair proved lies within the share."""
    with collector_paused(), one_blas_thread():
        cells = _finished(cells, layers, backend, bar, box, flipping)
        return (cells, *_share_neighbours(cells, net))


def _handed_on(cells: Iterable[_Cell], layers, backend: Backend, box: frozenset[Row], net: "Network", bar=None,
               packed: bool = True) -> Share:
    """``_finished_share`` as a :class:`~polyregions.regions._shares.Share` of the final cells without the
    certified box's rows, ``packed`` to be sent back from a worker; ``cells`` may come packed too."""
    with collector_paused():
        finished, pairs, open_facets = _finished_share(list(cells), layers, backend, box, net, bar=bar)
        if box:
            finished = [_unboxed(cell, box) for cell in finished]
        return Share.of(finished, pairs, open_facets, packed=packed)


def _joined(shares: Iterable[Share], bar, step: float) -> Joined:
    """The finished shares, joined, the bar advanced by ``step`` as each arrives."""
    arrived = []
    for share in shares:
        arrived.append(share)
        bar.update(step)
    return Joined(arrived)


#: Shares of the cells per worker: more balance the load, fewer leave fewer facets to decide after the join.
_SHARES_PER_WORKER = 8


def _shares(cells: list[_Cell], count: int) -> list[list[_Cell]]:
    """``cells`` in at most ``count`` runs of consecutive patterns: cells whose patterns differ only in later
    neurons tend to lie side by side, so most facet neighbours are found within one share."""
    ordered = sorted(cells, key=lambda cell: cell.pattern)
    size = -(-len(ordered) // max(1, count))
    return [ordered[start:start + size] for start in range(0, len(ordered), size)]


def _refined_in_processes(cells: list[_Cell], layers, backend: Backend, workers: int, bar, box: frozenset[Row],
                          net: "Network") -> Joined:
    """``_handed_on`` on shares of the cells in worker processes, joined; an interrupt cancels the rest."""
    from concurrent.futures import as_completed

    from polyregions._pools import process_pool, submit_all

    shares = _shares(cells, _SHARES_PER_WORKER * workers)
    # workers that ignore Ctrl-C, die with this process, and are killed when the run stops early
    with process_pool(workers) as pool:
        futures = submit_all(pool, _handed_on, [(share, layers, backend, box, net) for share in shares])
        return _joined((future.result() for future in as_completed(futures)), bar, len(layers) / len(shares))


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


def _preactivations(layer: _ExactLayer, cell: _Cell) -> tuple[fmpq_mat, fmpq_mat]:
    """``(G, g)``: the layer's pre-activations on the cell are ``G t + g``."""
    if layer.stage is None:
        assert layer.W is not None
        return layer.W * cell.M, layer.W * cell.c + layer.bias
    n = len(layer.stage.rows)
    table, values = layer.stage.products(range(n), cell.M, cell.c)
    G = fmpq_mat(table) if cell.M.ncols() else fmpq_mat(n, 0)
    return G, fmpq_mat([[v] for v in values])


def _refine_cell(cell: _Cell, layer: _ExactLayer, backend: Backend, box: frozenset[Row] = frozenset(), *,
                 last: bool = False) -> list[_Cell]:
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
            piece = piece.evolved(point=_vertex_point(piece, box))
        assert piece.point is not None
        point = fmpq_mat([[fmpq(v, piece.point[-1])] for v in piece.point[:-1]])
        values = (G * point + g).entries()
        choices = [bisect.bisect_left(breakpoints, values[j]) for j, (_, breakpoints, _) in enumerate(layer.units)]
        best = [max(range(len(group)), key=lambda position: values[group[position]]) for group in layer.groups]
        children.append(_child(piece, layer, table, offsets, choices, best, last))
    return children


def _child(piece: _Cell, layer: _ExactLayer, table: list[list[fmpq]], offsets: list[fmpq], choices: list[int],
           best: list[int], last: bool) -> _Cell:
    """The part with its pattern extended by the units' pieces (``choices``, one per element-wise unit) and the
    max groups' winners (``best``), and the next layer's map unless the part is final (``last``)."""
    chosen = [choice for choice, (is_linear, _, _) in zip(choices, layer.units) if not is_linear]
    pattern = piece.pattern + tuple(chosen) + tuple(best)
    if last:
        return piece.with_pattern(pattern, _NO_MAP, _NO_MAP)
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


def _refine_by_vertices(cell: _Cell, layer: _ExactLayer, G: fmpq_mat, table: list[list[fmpq]], offsets: list[fmpq],
                        box: frozenset[Row], last: bool) -> list[_Cell]:
    """``_refine_cell`` for a cell that carries its vertices and a layer of element-wise units, read off signs
    alone: the signs of the cell's vertices say which hyperplanes cross it and on which side the cell lies of the
    others, each cut says on which side its two parts lie, and a unit's piece on a part is the number of its
    breakpoints' hyperplanes the part lies above. No part needs a point.

    When the parts are final (``last``), the regions across the facets cut here are recorded
    (:func:`_siblings`).
    """
    rows: list[Row] = []
    owners: list[int] = []
    flips: list[tuple[_Flip, _Flip]] = []  # per row: across it from below, and from above
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
    parts: list[tuple[_Cell, int, list[int], np.ndarray]] = [(cell, len(cell.rows), [], signs[:, crossing])]
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


def _siblings(parts: list[_Cell], inherited: list[int], sides: np.ndarray, cuts: list[Row]) -> list[_Cell]:
    """The final parts of one cell with the patterns of the parts across the facets the cuts made.

    Every part is the set of points of the (open, convex) cell on given sides of the crossing hyperplanes
    (``sides``, parts x cuts). Two parts whose sides differ at exactly one distinct hyperplane H share a facet:
    the points of the cell on their common sides of all the others form a convex set with points on both sides
    of H, so H cuts its interior. Conversely a facet of a part on a cut's hyperplane H has points of its relative
    interior on no other distinct hyperplane (the part lies on one side of each), so the part across it differs
    only at H. So every row a part owes to the cuts (its rows after the first ``inherited``) has exactly one such
    sibling, which is checked.
    """
    distinct_cuts = {_plane(row)[0]: column for column, row in reversed(list(enumerate(cuts)))}
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


def _still_flipping(cell: _Cell, rows: list[Row], stuck: bool) -> _Cell:
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
    planes = {_plane(row)[0] for row in rows}
    flips = tuple(None if flip is None or _plane(row)[0] in planes else flip
                  for row, flip in zip(cell.rows, cell.flips))
    return cell.evolved(flips=flips) if flips != cell.flips else cell


def _distinct_flips(cuts: list[Row], flips: list[tuple[_Flip, _Flip]]
                    ) -> list[tuple[Optional[_Flip], Optional[_Flip]]]:
    """The flips of the cutting rows, none for rows whose hyperplane another unit's row shares (more than one
    neuron switches there)."""
    planes = [_plane(row)[0] for row in cuts]
    counts: dict[Row, int] = {}
    for plane in planes:
        counts[plane] = counts.get(plane, 0) + 1
    return [flip if counts[plane] == 1 else (None, None) for plane, flip in zip(planes, flips)]


def _flipped(pattern: tuple[int, ...], flip: _Flip) -> tuple[int, ...]:
    neuron, piece = flip
    return pattern[:neuron] + (piece,) + pattern[neuron + 1:]


def _argmax_parts(cell: _Cell, G: fmpq_mat, g: fmpq_mat, group: tuple[int, ...], backend: Backend,
                  box: frozenset[Row]) -> list[_Cell]:
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


def _split(cell: _Cell, row: Row, backend: Backend, box: frozenset[Row] = frozenset()) -> list[_Cell]:
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

    def part(bounding: Row, point: Point, sign: int) -> _Cell:
        # Facet points strictly on this side stay facet points; the others may have gone with the other side.
        kept = tuple(q if s * sign > 0 else None for q, s in zip(cell.facet_points, sides))
        return _irredundant(cell.cut(bounding, point, kept + (crossing,)), backend)
    return [part(row, below, -1), part(cp.negated(row), above, 1)]


def _below(cell: _Cell, row: Row, backend: Backend, box: frozenset[Row]) -> _Cell | None:
    """The non-empty open part of ``cell`` below the hyperplane of ``row``, or None."""
    parts = _split(cell, row, backend, box)
    if len(parts) == 2:
        return parts[0]
    if cell.vertices is not None:
        return None if (cv.vertex_signs(cell.vertices, row) > 0).any() else cell
    assert cell.point is not None
    return cell if cp.value(row, cell.point) < 0 else None  # not zero: the hyperplane misses the open cell


def _vertex_parts(cell: _Cell, row: Row, signs: np.ndarray, later: cv.Later | None = None,
                  crossings: cv.Crossings | None = None, flips: tuple[Optional[_Flip], Optional[_Flip]] = (None, None)
                  ) -> list[tuple[_Cell, np.ndarray, cv.Later | None]]:
    """The parts of a cell that carries its vertices below and above the hyperplane of ``row``, whose vertices lie
    strictly on both sides (``signs``): each with a boolean mask of the cell's rows that are still its facets and
    its own ``later`` (``later`` and ``crossings`` as in :func:`~polyregions.regions._cell_vertices.cut`). Its
    rows are those, in order, followed by the cutting row (``row`` below, its negation above), whose flip is
    ``flips[0]`` below and ``flips[1]`` above. The parts get neither a point nor facet points:
    :func:`_with_facet_points` finds them when they are final."""
    assert cell.vertices is not None
    parts = []
    for bounding, flip, (vertices, facets, part_later) in zip((row, cp.negated(row)), flips,
                                                              cv.cut(cell.vertices, row, signs, len(row) - 1, later,
                                                                     crossings)):
        keep = facets.tolist()
        rows = (*compress(cell.rows, keep), bounding)
        part_flips: tuple[Optional[_Flip], ...] = ()
        if cell.flips or flip is not None:
            kept = tuple(compress(cell.flips, keep)) if cell.flips else (None,) * (len(rows) - 1)
            part_flips = kept + (flip,)
        parts.append((_Cell(rows, None, None, cell.pattern, cell.M, cell.c, (), sum(keep[:cell.domain_rows]),
                            vertices, flips=part_flips), facets, part_later))
    return parts


def _far_vertices(cell: _Cell, box: frozenset[Row]) -> np.ndarray | None:
    """Which vertices of the cell lie on the certified box (rows ``box``), or None when none can."""
    assert cell.vertices is not None
    on_box = [i for i in range(cell.domain_rows) if cell.rows[i] in box] if box else []
    return np.any(cell.vertices.tight[:, on_box], axis=1) if on_box else None


def _vertex_point(cell: _Cell, box: frozenset[Row]) -> Point:
    """A point strictly inside a cell that carries its vertices, near the centroid of those off the certified
    box (a point near vertices far out would have long numbers)."""
    assert cell.vertices is not None
    far = _far_vertices(cell, box)
    return cv.interior_point(cell.vertices, cell.rows,
                             np.zeros(len(cell.vertices.points), dtype=bool) if far is None else far)


def _with_facet_points(cells: list[_Cell], box: frozenset[Row] = frozenset(), flipping: bool = True) -> list[_Cell]:
    """Final cells, each with a point on every facet after the domain's that it proves (:func:`_proves_facet`;
    not those whose neighbours are its ``siblings`` or, when ``flipping``, read off its ``flips``), near the
    centroid of its vertices where it has none, and without its vertices, its float rows and its affine map, which
    nothing after the cuts needs (and which would be most of what worker processes send back); without its flips
    unless ``flipping``.

    On a cell that touches the certified box (rows ``box``: the region is unbounded) those points lie near
    the facets' vertices off the box, weighting those on the box very little: short numbers, and points where
    the float guesses of the adjacency work, instead of ones far out. The other cells' centroids are computed
    together (:func:`~._cell_vertices.centroids`).
    """
    fars = [None if cell.vertices is None else _far_vertices(cell, box) for cell in cells]
    weighted = [far is not None and bool(np.count_nonzero(far)) for far in fars]
    together = iter(cv.centroids([cell.vertices for cell, alone in zip(cells, weighted)
                                  if cell.vertices is not None and cell.point is None and not alone]))
    finished = []
    for cell, far, alone in zip(cells, fars, weighted):
        centroid = None
        if cell.vertices is not None and cell.point is None:
            centroid = cv.centroid(cell.vertices, far) if alone else next(together)
        finished.append(_with_points_on_facets(cell, far, centroid, flipping))
    return finished


def _with_points_on_facets(cell: _Cell, far: np.ndarray | None, centroid: Optional[tuple[float, ...]],
                           flipping: bool) -> _Cell:
    """One cell of :func:`_with_facet_points`, given which of its vertices are ``far`` and its ``centroid``."""
    points = list(cell.facet_points) or [None] * len(cell.rows)
    if cell.vertices is not None:  # cells cut by programs keep a point on every facet
        flips = cell.flips if flipping else ()
        missing = [i for i in range(cell.domain_rows, len(cell.rows) - len(cell.siblings))
                   if points[i] is None and _proves_facet(cell.rows[i]) and not (flips and flips[i])]
        if missing:
            for i, facet_point in zip(missing, cv.facet_points(cell.vertices, cell.rows, missing, far=far)):
                points[i] = facet_point
    return cell.evolved(centroid=centroid, facet_points=tuple(points), vertices=None, floats=None, M=_NO_MAP,
                        c=_NO_MAP, flips=cell.flips if flipping else ())


def _far_point(cell: _Cell, far: Row, backend: Backend) -> Optional[Point]:
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


def _irredundant(cell: _Cell, backend: Backend) -> _Cell:
    """The cell without the rows after the domain's that are not facets, and with a point in every facet.

    A ray from the interior point that leaves the cell through one row alone finds a point of that facet; rays
    along the unknown rows' normals are tried first. Otherwise row i is a facet when the cell without it
    reaches beyond it (a certified program), and the segment from the interior point to such a point crosses
    the facet's relative interior; when it does not, the row is implied by the others and dropped.
    """
    points = list(cell.facet_points)
    unknown = [i for i in range(cell.domain_rows, len(points)) if points[i] is None]
    if not unknown:
        return cell
    assert cell.point is not None  # cells cut by programs always carry one
    for i in unknown:
        if points[i] is None:
            hit = cp.exit_point(cell.rows, cell.point, cell.rows[i][:-1])
            if hit is not None and len(hit[0]) == 1 and points[hit[0][0]] is None:
                points[hit[0][0]] = hit[1]
    keep = list(range(len(points)))
    for i in unknown:
        if points[i] is not None:
            continue
        others = [j for j in keep if j != i]
        floats = None if cell.floats is None else cell.floats[others]
        beyond = cp.point_beyond([cell.rows[j] for j in others], floats, cell.point, cell.rows[i], backend=backend)
        if beyond is None:
            keep = others
        else:
            points[i] = cp.toward(cell.point, beyond, cell.rows[i], _ZERO)
    return cell.evolved(rows=tuple(cell.rows[j] for j in keep),
                        floats=None if cell.floats is None else cell.floats[keep],
                        facet_points=tuple(points[j] for j in keep),
                        flips=tuple(cell.flips[j] for j in keep) if cell.flips else ())


def _plane(row: Row) -> tuple[Row, int]:
    """The hyperplane of a primitive row, signed so that its first non-zero coefficient is positive, and the
    side (+1 or -1) the row's half-space is on."""
    return (row, 1) if _proves_facet(row) else (cp.negated(row), -1)


def _proves_facet(row: Row) -> bool:
    """Whether the region of a facet on ``row`` looks for the region across it: the one below the hyperplane
    (on side +1 of :func:`_plane`).

    The regions form a polyhedral complex: the pre-activations are continuous, so on a facet's hyperplane the
    units that do not switch there take the same pieces from both sides, and the facet of the region across is
    the same set. Each facet after the domain's rows is therefore shared by exactly two regions, one on each
    side, and finding it from one side finds it all.
    """
    for v in row:
        if v:
            return v > 0
    return False


#: Facet neighbours proved, each pair of patterns with the hyperplane of the facet they share (None for those read
#: off the cuts).
_Pair = tuple[tuple[int, ...], tuple[int, ...]]
_Proved = set[tuple[_Pair, Optional[Row]]]
#: A facet named independently of the domain's (or the certified box's) rows, (pattern, row - domain rows), with
#: the float guess of the pattern across it (None when there is none).
_FacetKey = tuple[tuple[int, ...], int, Optional[tuple[int, ...]]]


class _Facets:
    """The facets of finished cells after the domain's rows that they prove, each with its exact point ``q``
    (``_irredundant``, ``_with_facet_points``), and the cells by pattern (``by_pattern.get``) for proving guessed
    neighbours."""

    def __init__(self, by_pattern) -> None:
        self.by_pattern = by_pattern

    def of(self, cells: Iterable[_Cell]) -> list[tuple[_Cell, int]]:
        """The facets whose neighbours are to be found: after the domain's rows and before the siblings', seen
        from below (:func:`_proves_facet`)."""
        return [(cell, i) for cell in cells for i in range(cell.domain_rows, len(cell.rows) - len(cell.siblings))
                if _proves_facet(cell.rows[i]) and not (cell.flips and cell.flips[i])]

    def prove(self, cell: _Cell, i: int, guess: tuple[int, ...] | None, across: _Proved) -> bool:
        """Whether the cell of pattern ``guess`` shares facet ``i`` of ``cell`` (recorded in ``across``), proved
        in integers: it lies across the same hyperplane with every other row strict at the facet point."""
        other = self.by_pattern.get(guess) if guess is not None else None  # None: no float guess
        if other is None or other is cell:
            return False
        plane = _plane(cell.rows[i])[0]
        pair = _ordered(cell.pattern, other.pattern)
        # Two convex cells share at most one facet: a pair proved from the other side of this hyperplane
        # needs nothing more. (Proved across another hyperplane, it says nothing about this facet: an
        # unproved guess may well be a neighbour across another facet.)
        if (pair, plane) in across or _touches(other, _facet_point(cell, i), cell.rows[i]):
            across.add((pair, plane))
            return True
        return False


def _facet_point(cell: _Cell, i: int) -> Point:
    q = cell.facet_points[i]
    assert q is not None  # every facet a cell proves has its point (_irredundant, _with_facet_points)
    return q


def _float_guesses(facets: list[tuple[_Cell, int]], floats: "_FloatPatterns") -> list:
    return floats.patterns_beyond([_facet_point(cell, i) for cell, i in facets], [cell.rows[i] for cell, i in facets])


def _sibling_pairs(cells: Iterable[_Cell]) -> list[_Pair]:
    """The facet neighbours read off the cuts: the last layer's (``_Cell.siblings``, each pair once: both are
    parts the cut made) and the flips (from each side, so that each neighbour read off is checked to exist)."""
    pairs: list[_Pair] = []
    for cell in cells:
        pattern = cell.pattern
        pairs.extend([(pattern, other) for other in cell.siblings if pattern < other])
        if cell.flips:
            first = len(cell.rows) - len(cell.siblings)
            pairs.extend([(pattern, _flipped(pattern, flip)) for flip in cell.flips[:first] if flip is not None])
    return pairs


def _share_neighbours(cells: list[_Cell], net: "Network") -> tuple[list[_Pair], list[_FacetKey]]:
    """The facet neighbours among ``cells`` read off the cuts or proved from float guesses (as :func:`_decided`
    proves them; a pair may appear twice), and the facets left open: those of cells whose neighbour is
    elsewhere, or whose guesses failed. A worker process decides these for its share, so that only the open
    facets are left to the joined regions."""
    facets = _Facets({cell.pattern: cell for cell in cells})
    floats = _FloatPatterns(net)
    wanted = facets.of(cells)
    proved: _Proved = set()
    open_facets = []
    for (cell, i), guess in zip(wanted, _float_guesses(wanted, floats)):
        if not (facets.prove(cell, i, guess, proved) or facets.prove(cell, i, _beyond(floats, cell, i), proved)):
            open_facets.append((cell.pattern, i - cell.domain_rows, guess))
    return _sibling_pairs(cells) + [pair for pair, _ in proved], open_facets


def _beyond(floats: "_FloatPatterns", cell: _Cell, i: int) -> tuple[int, ...] | None:
    """The second float guess: a shorter step beyond the facet point, for points near another neuron's boundary."""
    return floats.patterns_beyond([_facet_point(cell, i)], [cell.rows[i]], step=1e-12)[0]


def _decided(joined: Joined, net: "Network", backend: Backend) -> np.ndarray:
    """The pairs of cells (rows of two indices) whose closures share the facets the shares left open.

    For each facet of each cell a point q in its relative interior is known exactly. The cell across is guessed
    by a float forward pass just beyond q, then *proved* in integers: a cell on the other side of the same
    hyperplane whose other rows all hold strictly at q shares a (k-1)-dimensional neighbourhood of q with the
    facet. The shares tried the float guesses among their own cells (:func:`_share_neighbours`); here they are
    tried on every cell, then the exact lexicographic guess, and only when no guess can be proved do certified
    programs decide.
    """
    cells = _CellsByPattern(lambda pattern: None if (index := joined.index(pattern)) is None else joined.cell(index))
    facets = _Facets(cells)
    floats = _FloatPatterns(net)
    across: _Proved = set()
    by_plane: dict[Row, list[tuple[_Cell, int]]] | None = None
    for pattern, offset, float_guess in joined.open_facets:
        cell = cells[pattern]
        i = cell.domain_rows + offset
        region = _region(cell, net, backend)
        if any(facets.prove(cell, i, guess, across) for guess in _guesses(float_guess, floats, net, cell, i, region)):
            continue
        if by_plane is None:  # every cell, read once
            by_plane = {}
            for other in map(joined.cell, range(len(joined))):
                for j in range(other.domain_rows, len(other.rows)):
                    plane, side = _plane(other.rows[j])
                    by_plane.setdefault(plane, []).append((other, side))
        plane, side = _plane(cell.rows[i])
        for other, other_side in by_plane.get(plane, ()):
            if other_side != side and other.pattern != cell.pattern and _share_facet(
                    region, _region(other, net, backend), i, backend):
                across.add((_ordered(cell.pattern, other.pattern), plane))
    found = [(joined.index(p), joined.index(q)) for (p, q), _ in across]
    return np.array(found, dtype=np.int64).reshape(-1, 2)


class _CellsByPattern(dict):
    """Cells by pattern for :meth:`_Facets.prove`: ``known`` ones, and the others read by ``read`` (None when no
    cell has the pattern) on first asking, then kept."""

    def __init__(self, read: Callable[[tuple[int, ...]], Optional[_Cell]],
                 known: Iterable[tuple[tuple[int, ...], _Cell]] = ()) -> None:
        super().__init__(known)
        self.read = read

    def __missing__(self, pattern: tuple[int, ...]) -> _Cell | None:
        cell = self[pattern] = self.read(pattern)
        return cell

    def get(self, pattern, default=None):
        found = self[pattern]
        return default if found is None else found


def _region(cell: _Cell, net: "Network", backend: Backend) -> Region:
    return Region.deferred(cell.pattern, net, partial(_geometry_of, cell, backend))


def _guesses(float_guess: tuple[int, ...] | None, floats: "_FloatPatterns", net: "Network", cell: _Cell, i: int,
             region: Region) -> Iterator[tuple[int, ...] | None]:
    """Guesses of the pattern just beyond the point of facet ``i`` of ``cell``, each computed only when the ones
    before it failed: the float guesses first, then the exact lexicographic one; each must still be proved. The
    region's exact inequalities are built only for that last guess: most regions never need them."""
    yield float_guess
    yield _beyond(floats, cell, i)
    yield net.pattern_toward(cp.to_fractions(_facet_point(cell, i)), region.A[i])


def _ordered(first: tuple[int, ...], second: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The two patterns in increasing order (as ``sorted`` gives them)."""
    return (second, first) if second < first else (first, second)


def _touches(cell: _Cell, q: Point, facet: Row) -> bool:
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


class _FloatPatterns:
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


def _share_facet(region: Region, other: Region, row: int, backend: Backend) -> bool:
    """Whether the closures meet in a (k-1)-dimensional set inside the hyperplane of ``region.A[row]``."""
    a, bi = region.A[row], region.b[row]
    plane = _plane(primitive((*a, bi)))[0]
    keep = [j for j in range(len(other.A)) if _plane(primitive((*other.A[j], other.b[j])))[0] != plane]
    A = region.A[:row] + region.A[row + 1:] + tuple(other.A[j] for j in keep)
    b = region.b[:row] + region.b[row + 1:] + tuple(other.b[j] for j in keep)
    return strict_point(A, b, E=(a,), e=(bi,), dim=region.dim, backend=backend) is not None
