"""The general engine's entry point: exact activation regions in any dimension, by layerwise refinement.

Each region of layer l-1 carries the affine map ``t -> M t + c`` of the layer's input on it; the next layer's
neurons pulled back through that map are hyperplanes, and every hyperplane that meets the region's interior
splits it (:mod:`.cuts`). Whether it meets the interior is decided exactly, never by a tolerance. In a domain of
dimension up to ``VERTEX_DIMENSION`` every cell carries its vertices and edges
(:mod:`polyregions.regions._cell_vertices`): the signs of the vertices decide, and a cut updates them, with no
linear program. An unbounded domain is cut within a box that provably holds every vertex of the complex
(:mod:`polyregions.regions._vertex_bound`): every region, facet and adjacency of the true complex meets the open
box, a region is unbounded exactly when its cell has a facet on the box, and the box's rows are dropped at the
end. Otherwise an exact witness on the far side or a certified linear program decides
(:mod:`polyregions.regions._cell_programs`).

Here: the methods, the domain's first cell (and the certified box), and the run: the layers refine the cells in
this process, in worker processes or on a Dask cluster (:mod:`.workers`), and the facets the shares leave open
are decided on the joined regions (:mod:`.adjacency`).
"""

from __future__ import annotations

from functools import partial
from typing import TYPE_CHECKING, Any, Literal, get_args

import numpy as np
from flint import fmpq, fmpq_mat

from polyregions._support.progress import progress_bar
from polyregions._support.runtime import collector_paused, one_blas_thread
from polyregions.errors import CertificateError, InvalidInputError
from polyregions.exact._integers import primitive
from polyregions.exact.lp import Backend, strict_point
from polyregions.regions import _cell_programs as cp
from polyregions.regions import _cell_vertices as cv
from polyregions.regions import _vertex_bound as vb
from polyregions.regions._cell_programs import Row
from polyregions.regions._general.adjacency import decided
from polyregions.regions._general.cells import Cell, geometry_of
from polyregions.regions._general.cuts import refined
from polyregions.regions._general.facets import irredundant
from polyregions.regions._general.workers import handed_on, refined_in_processes, refined_on_cluster
from polyregions.regions._shares import Joined
from polyregions.regions.complex import RegionComplex, complex_from_arrays
from polyregions.regions.region import Region

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions.domains import Domain

__all__ = ["refine", "Method", "METHODS", "VERTEX_DIMENSION", "VERTEX_LIMIT", "domain_cell"]

# Bounded domains up to this dimension are cut through their cells' vertices. A box has 2^k of them; measured,
# from dimension 7 on the first layers' cells have so many that certified programs are as fast or faster.
VERTEX_DIMENSION = 6
VERTEX_LIMIT = 4096  # a polytope domain with more vertices goes to the programs

#: How cells are cut: ``"auto"`` (by vertices up to ``VERTEX_DIMENSION``), ``"vertices"`` or ``"programs"``.
Method = Literal["auto", "vertices", "programs"]
METHODS: tuple[Method, ...] = get_args(Method)


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
            cells = refined(cells, layers[:1], backend, bar, box=box)
            joined = refined_on_cluster(cells, layers[1:], backend, scheduler, bar, box, net)
        elif workers > 1 and len(layers) > 1:
            cells = refined(cells, layers[:1], backend, bar, box=box)
            joined = refined_in_processes(cells, layers[1:], backend, workers, bar, box, net)
        else:
            joined = Joined([handed_on(cells, layers, backend, box, net, bar=bar, packed=False)])
    pairs = np.concatenate([joined.pairs(), decided(joined, net, backend)])
    regions = Region._deferred_rows(joined.patterns, net, partial(_cell_geometry, joined, backend))
    return complex_from_arrays(network, domain, regions, joined.patterns, pairs, exact=True, engine="lp")


def _cell_geometry(joined: Joined, backend: Backend, index: int):
    """The geometry of the region of cell ``index``, as :func:`~.cells.geometry`."""
    return geometry_of(joined.cell(index), backend)


def domain_cell(net: "Network", domain: "Domain", backend: Backend, method: Method = "auto"
                ) -> tuple[Cell, frozenset[Row]]:
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
    whole = Cell(rows, cp.float_rows(rows, k), cp.homogeneous(interior), (), identity,
                  fmpq_mat(k, 1), (None,) * len(rows), 0)
    start = irredundant(whole, backend)
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


def _boxed(start: Cell, net: "Network", backend: Backend) -> tuple[Cell, frozenset[Row]]:
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
    whole = Cell(rows, cp.float_rows(rows, k), point, (), start.M, start.c, (None,) * len(rows), 0)
    return irredundant(whole, backend), frozenset(box)
