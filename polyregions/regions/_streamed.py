"""The engine side of a streamed enumeration: the general engine (:mod:`polyregions.regions._general`) driven one
share of the first layer's cells at a time, each share turned into rows of the store as soon as it is finished,
and the facets between shares decided from the store afterwards.

The first layer's cells are refined in this process (they are few); the later layers refine each cell
independently, so a share of them is refined alone, in this process or in a worker, exactly as the workers of
``refine`` do (:func:`~polyregions.regions._general.workers.finished_share`). What the share proves of the
adjacency among its own cells is kept; its open facets go to the store with their exact points, and
:func:`decided_pairs` decides them at the end as :func:`~polyregions.regions._general.adjacency.decided` does
(float guesses proved in integers, then the exact lexicographic guess, then certified programs), reading the
cells across from the store by pattern.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Optional, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.lp import Backend
from polyregions.regions import _cell_programs as cp
from polyregions.regions._cell_programs import Point, Row
from polyregions.regions._general.adjacency import (
    Candidate,
    CellsByPattern,
    Facets,
    FloatPatterns,
    Proved,
    by_programs,
    float_guesses,
    guesses,
)
from polyregions.regions._general.cells import NO_MAP, Cell, interior, unboxed
from polyregions.regions._general.cuts import refined
from polyregions.regions._general.refine import domain_cell
from polyregions.regions._general.workers import finished_share
from polyregions.regions._store import ShareRecords, Store
from polyregions.regions.region import Region

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions.domains import Domain

__all__ = ["FirstLayer", "first_layer", "pattern_itemsize", "encoded", "decoded", "switched_neurons",
           "share_records", "share_size", "vector_text", "matrix_text", "planned_shares", "check_committed",
           "decided_pairs", "pattern_matrix",
           "neuron_texts", "linear_region_count", "SHARE_REGIONS"]

#: Final regions aimed at per share. A finished cell takes about 10-15 KB while its share is refined and turned
#: into rows (its rows, facet points and interior point as Python integers), so about 2,000 keep one share near
#: 30 MB, whatever the size of the run; larger shares would leave fewer facets between shares for the end, but
#: the memory of a share (times the shares in flight in a pool) is what has to stay flat.
SHARE_REGIONS = 2048
_FACETS_PER_CHUNK = 1024  # open facets decided together: one float pass, and the cells they read (a few MB)


@dataclass(frozen=True)
class FirstLayer:
    """The first layer's cells (sorted by pattern) and what refining them further needs."""

    net: "Network"            # the network in domain coordinates
    cells: tuple[Cell, ...]
    layers: tuple              # the later layers
    box: frozenset[Row]        # the certified box's rows of an unbounded domain cut by vertices, else empty


def first_layer(network: "Network", domain: "Domain", backend: Backend, bar=None) -> FirstLayer:
    """The domain's cell refined by the first layer, set up as ``refine`` sets it up (the vertex method up to
    ``VERTEX_DIMENSION``, an unbounded domain within the certified vertex box)."""
    net = network.restrict(domain.origin, domain.directions)
    start, box = domain_cell(net, domain, backend)
    cells = refined([start], net.layers[:1], backend, bar, box=box)
    return FirstLayer(net, tuple(sorted(cells, key=lambda cell: cell.pattern)), tuple(net.layers[1:]), box)


def pattern_itemsize(net: "Network") -> int:
    """Bytes per neuron of a stored pattern: enough for the largest piece index of any unit."""
    from polyregions.networks.stage import units_of

    largest = 0
    for layer in net.layers:
        activations, groups = units_of(layer)
        largest = max([largest, *(len(a.breakpoints) for a in activations), *(len(g) - 1 for g in groups)])
    return 1 if largest < 2 ** 8 else 2 if largest < 2 ** 16 else 4


def encoded(pattern: Sequence[int], itemsize: int) -> bytes:
    """A pattern as stored: unsigned big-endian integers, so that bytes compare as the tuples do."""
    return bytes(pattern) if itemsize == 1 else np.array(pattern, dtype=f">u{itemsize}").tobytes()


def decoded(blob: bytes, itemsize: int) -> tuple[int, ...]:
    return tuple(blob) if itemsize == 1 else tuple(np.frombuffer(blob, dtype=f">u{itemsize}").tolist())


def vector_text(values: Iterable) -> str:
    """Exact numbers as the store writes them: a JSON array of strings (``["3","-7/12"]``), which ``str`` of an
    integer or a Fraction gives without any character JSON escapes."""
    return "[" + ",".join([f'"{v}"' for v in values]) + "]"


def matrix_text(rows: Iterable[Iterable]) -> str:
    return "[" + ",".join([vector_text(row) for row in rows]) + "]"


def switched_neurons(first: Sequence[int], second: Sequence[int]) -> str:
    """The neurons whose pieces differ, as the store writes them (``"3"``, ``"3,7"``)."""
    return ",".join(str(n) for n, (a, b) in enumerate(zip(first, second)) if a != b)


def share_records(cells: Sequence[Cell], layers: Sequence, backend: Backend, box: frozenset[Row],
                  net: "Network", first: int, itemsize: int) -> ShareRecords:
    """A share of the first layer's cells refined by the later layers (``finished_share``), as rows of the
    store: regions in pattern order without the certified box's rows, the pairs proved among them, and the
    facets left open with their exact points."""
    # Without flips: every pair proved lies within the share, and every other facet keeps its point in the store.
    finished, proved, open_facets = finished_share(list(cells), list(layers), backend, box, net, flipping=False)
    if box:
        finished = [unboxed(cell, box) for cell in finished]
    finished.sort(key=lambda cell: cell.pattern)
    index = {cell.pattern: i for i, cell in enumerate(finished)}
    regions = [(encoded(cell.pattern, itemsize), cell.domain_rows, matrix_text(row[:-1] for row in cell.rows),
                vector_text(row[-1] for row in cell.rows),
                vector_text(cp.to_fractions(cell.point if cell.point is not None
                                            else interior(cell.rows, cell.centroid, backend))))
               for cell in finished]
    pairs = sorted({tuple(sorted((index[p], index[q]))) for p, q in proved})
    patterns = [cell.pattern for cell in finished]
    facets = []
    for pattern, offset, _ in open_facets:
        i = index[pattern]
        row = finished[i].domain_rows + offset
        point = finished[i].facet_points[row]
        assert point is not None  # every facet after the domain's rows has one
        facets.append((i, row, vector_text(cp.to_fractions(point))))
    return ShareRecords(first, len(cells), regions,
                        [(i, j, switched_neurons(patterns[i], patterns[j])) for i, j in pairs], sorted(facets))


def share_size(total: int, workers: int, cells_done: int, regions_done: int, last: int = 0,
               regions: int = SHARE_REGIONS) -> int:
    """First-layer cells for the next share: about ``regions`` final regions at the rate seen so far,
    but at most twice the ``last`` share's cells (one to start: a rate read off a few cells can be far too low,
    and one share too large would be the run's peak memory), and at most a quarter of a worker's part of the run,
    for balance."""
    balance = max(1, math.ceil(total / (4 * workers)))
    if not cells_done or not regions_done:
        return 1
    return max(1, min(balance, 2 * max(last, 1), round(regions * cells_done / regions_done)))


def planned_shares(total: int, committed: Sequence[tuple[int, int]], size: Callable[[], int]
                   ) -> Iterator[tuple[int, int]]:
    """``(first, cells)`` ranges of the first layer's ``total`` cells that no committed share covers, each as
    large as ``size()`` says when it is taken (but within the gap it fills)."""
    position = 0
    for first, cells in [*sorted(committed), (total, 0)]:
        while position < first:
            step = max(1, min(size(), first - position))
            yield position, step
            position += step
        position = max(position, first + cells)


def check_committed(path: str, total: int, committed: Sequence[tuple[int, int]]) -> None:
    """The committed shares must be disjoint ranges of the first layer's cells."""
    end = 0
    for first, cells in sorted(committed):
        if first < end or cells < 1 or first + cells > total:
            raise InvalidInputError(f"{path}: expected committed shares that split the first layer's {total} cells, "
                                    f"got a share of cells {first} to {first + cells - 1}")
        end = first + cells


# --- the open facets, decided from the store ----------------------------------------------------------------

def _rows(A: str, b: str) -> tuple[Row, ...]:
    return tuple((*map(int, a), int(c)) for a, c in zip(json.loads(A), json.loads(b)))


def _point(text: str) -> Point:
    return cp.homogeneous([Fraction(v) for v in json.loads(text)])


def _region(pattern: tuple[int, ...], rows: tuple[Row, ...], interior: str, net: "Network") -> Region:
    def geometry():
        return (tuple(tuple(Fraction(v) for v in row[:-1]) for row in rows), tuple(Fraction(row[-1]) for row in rows),
                tuple(Fraction(v) for v in json.loads(interior)))
    return Region.deferred(pattern, net, geometry)


def _cell(pattern: tuple[int, ...], rows: tuple[Row, ...], domain_rows: int,
          facet_points: tuple[Optional[Point], ...] = ()) -> Cell:
    return Cell(rows, None, None, pattern, NO_MAP, NO_MAP, facet_points, domain_rows)


def _stored_cell(store: Store, itemsize: int, ids: dict[tuple[int, ...], int]
                 ) -> Callable[[tuple[int, ...]], Optional[Cell]]:
    """A reader of the cell of a pattern from the store (None when no region has it), recording its region id in
    ``ids``."""
    def read(pattern: tuple[int, ...]) -> Optional[Cell]:
        found = store.region_by_pattern(encoded(pattern, itemsize))
        if found is None:
            return None
        region, domain_rows, A, b, _ = found
        ids[pattern] = region
        return _cell(tuple(pattern), _rows(A, b), domain_rows)
    return read


def _grouped(facets: Iterable[tuple], size: int) -> Iterator[list[tuple]]:
    """The open facets in chunks of about ``size``, never splitting one region's facets."""
    chunk: list[tuple] = []
    for facet in facets:
        if len(chunk) >= size and facet[0] != chunk[-1][0]:
            yield chunk
            chunk = []
        chunk.append(facet)
    if chunk:
        yield chunk


def decided_pairs(store: Store, net: "Network", backend: Backend, itemsize: int, *,
                  chunk: int = _FACETS_PER_CHUNK) -> np.ndarray:
    """The pairs of regions (ids, two columns) proved to share the store's open facets, as ``_decided``
    decides them: float guesses and the exact lexicographic one proved in integers against the cell read
    from the store, and certified programs for the facets where every guess fails."""
    floats = FloatPatterns(net)
    found: list[np.ndarray] = []
    unproved: list[tuple[int, Cell, int, Region]] = []
    for group in _grouped(store.open_facets(), chunk):
        own: dict[tuple[int, ...], tuple[Cell, int]] = {}
        regions: dict[int, Region] = {}
        wanted_rows: list[tuple[int, int]] = []
        for region_id, facets in _by_region(group):
            _, _, _, blob, domain_rows, A, b, inside = facets[0]
            pattern, rows = decoded(blob, itemsize), _rows(A, b)
            points: list[Optional[Point]] = [None] * len(rows)
            for _, row, point, *_ in facets:
                points[row] = _point(point)
                wanted_rows.append((region_id, row))
            own[pattern] = (_cell(pattern, rows, domain_rows, tuple(points)), region_id)
            regions[region_id] = _region(pattern, rows, inside, net)
        cells_by_id = {region_id: cell for cell, region_id in own.values()}
        # The cells of the facets being decided, and the others read from the store when a guess names them
        # (kept for one chunk of facets).
        ids = {pattern: region for pattern, (_, region) in own.items()}
        stored = CellsByPattern(_stored_cell(store, itemsize, ids), ((p, cell) for p, (cell, _) in own.items()))
        facets_ = Facets(stored)
        wanted = [(cells_by_id[region_id], row) for region_id, row in wanted_rows]
        across: Proved = set()
        for (cell, i), (region_id, _), float_guess in zip(wanted, wanted_rows, float_guesses(wanted, floats)):
            region = regions[region_id]
            if any(facets_.prove(cell, i, guess, across)
                   for guess in guesses(float_guess, floats, net, cell, i, region)):
                continue
            unproved.append((region_id, cell, i, region))
        found.append(np.array([sorted((ids[p], ids[q])) for (p, q), _ in across],
                              dtype=np.int64).reshape(-1, 2))
    if unproved:
        found.append(_by_programs(store, unproved, net, backend, itemsize))
    pairs = np.concatenate(found) if found else np.zeros((0, 2), dtype=np.int64)
    return np.unique(pairs, axis=0) if len(pairs) else pairs


def _by_region(group: list[tuple]) -> Iterator[tuple[int, list[tuple]]]:
    start = 0
    for end in range(1, len(group) + 1):
        if end == len(group) or group[end][0] != group[start][0]:
            yield group[start][0], group[start:end]
            start = end


def _by_programs(store: Store, unproved: list[tuple[int, Cell, int, Region]], net: "Network", backend: Backend,
                 itemsize: int) -> np.ndarray:
    """The regions sharing the facets no guess proved, among every stored region with a facet on the same
    hyperplane from the other side, each decided by a certified program (:func:`by_programs` over one pass of the
    store)."""
    def stored() -> Iterator[Candidate]:
        for other_id, blob, domain_rows, A, b, inside in store.regions():
            rows = _rows(A, b)
            yield other_id, rows, domain_rows, partial(_region, decoded(blob, itemsize), rows, inside, net)
    return by_programs(unproved, stored(), backend)


# --- the counts ---------------------------------------------------------------------------------------------

def pattern_matrix(raw: np.ndarray, itemsize: int) -> np.ndarray:
    """The stored pattern bytes (a row per region) as a matrix of small signed integers (int8 when every piece
    fits: one byte per neuron, which the switching neurons are found from eight at a time)."""
    if itemsize == 1:
        return raw.view(np.int8) if not raw.size or int(raw.max()) < 128 else raw.astype(np.int16)
    return raw.view(f">u{itemsize}").astype(np.int64)


def neuron_texts(patterns: np.ndarray, pairs: np.ndarray, chunk: int = 65536) -> list[str]:
    """:func:`switched_neurons` of every pair of rows of ``patterns``, vectorised in chunks."""
    texts: list[str] = []
    for start in range(0, len(pairs), chunk):
        part = pairs[start:start + chunk]
        rows, columns = np.nonzero(patterns[part[:, 0]] != patterns[part[:, 1]])
        bounds = np.searchsorted(rows, np.arange(len(part) + 1)).tolist()
        listed = columns.tolist()
        texts.extend(",".join(map(str, listed[a:b])) for a, b in zip(bounds, bounds[1:]))
    return texts


def linear_region_count(net: "Network", patterns: np.ndarray, pairs: np.ndarray) -> int:
    """The number of linear regions of the regions ``patterns`` with the adjacent ``pairs`` (unique, two
    columns), as :meth:`RegionComplex.summary` counts them."""
    from polyregions.regions._linear_regions import linear_region_roots
    from polyregions.regions._switches import switch_arrays

    if not len(pairs):
        return len(patterns)
    _, _, switches, neurons = switch_arrays(patterns, pairs)
    roots = linear_region_roots(net, patterns, pairs, switches, neurons)
    return int(np.count_nonzero(roots == np.arange(roots.size)))
