"""The entry points of the mesh engine: a network and a bounded domain in, exact regions out."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

import numpy as np

from polyregions._support.runtime import collector_paused, one_blas_thread
from polyregions.errors import InvalidInputError
from polyregions.regions._mesh.mesh_2d import Mesh2D
from polyregions.regions.complex import Region, RegionComplex, complex_from_arrays

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions._mesh.mesh_1d import Mesh1D
    from polyregions.regions._mesh.mesh_3d import Mesh3D
    from polyregions.regions._mesh.mesh_nd import MeshND
    from polyregions.regions.domains import Domain

__all__ = ["refine_mesh", "mesh_regions"]


def refine_mesh(network: "Network", domain: "Domain", *, progress: bool = False) -> RegionComplex:
    """Enumerate the activation regions of ``network`` on a bounded ``domain`` exactly.

    Parameters
    ----------
    network : Network
    domain : Domain
        A bounded domain of any dimension: a segment, a polygon, a polytope, a box or a slice. The mesh holds the
        complex's whole face lattice, whose size per region grows exponentially with the dimension.
    progress : bool, keyword-only
        Show a progress bar over the neurons' breakpoints (on a terminal).

    Returns
    -------
    RegionComplex
        With ``engine="mesh"`` and ``exact=True``; regions in domain coordinates.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> from polyregions.networks.activations import relu
    >>> from polyregions.regions import domains as dom
    >>> net = Network.from_layers(2, [([[1, 0], [0, 1], [1, 1]], [0, 0, 0], relu())])
    >>> len(refine_mesh(net, dom.box([-1, -1], [1, 1])))
    6
    """
    if domain.input_dim != network.input_dim:
        raise InvalidInputError(f"refine_mesh: expected a domain in R^{network.input_dim} (the network's input "
                                f"space), got one in R^{domain.input_dim}")
    if not domain.is_bounded():
        raise InvalidInputError(f"refine_mesh: expected a bounded domain, got an unbounded {domain.kind}")
    net = network.restrict(domain.origin, domain.directions)
    with collector_paused():
        regions, patterns, pairs, different = _run(net, domain.region.A, domain.region.b, progress=progress)
        return complex_from_arrays(network, domain, regions, patterns, pairs, exact=True, engine="mesh",
                                   different=different)


def mesh_regions(net: "Network", A: Sequence[Sequence[Fraction]], b: Sequence[Fraction], *,
                 progress: bool = False) -> tuple[Sequence[Region], set[tuple[tuple[int, ...], tuple[int, ...]]]]:
    """The regions of ``net`` in the bounded polytope ``A t <= b`` and the pairs of
    patterns of regions sharing a facet: the engine behind :func:`refine_mesh`, on plain inequalities.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> from polyregions.networks.activations import hardtanh
    >>> regions, pairs = mesh_regions(Network.from_layers(1, [([[2]], [0], hardtanh())]), [[1], [-1]], [1, 1])
    >>> for pattern, low, high in sorted((r.pattern, -r.b[0], r.b[1]) for r in regions):
    ...     print(pattern, low, high)
    (0,) -1 -1/2
    (1,) -1/2 1/2
    (2,) 1/2 1
    >>> len(pairs)
    2
    """
    with collector_paused():
        regions, _, pairs, _ = _run(net, A, b, progress=progress)
        return regions, {(regions[i].pattern, regions[j].pattern) for i, j in pairs.tolist()}


def _run(net: "Network", A, b, *, progress: bool
         ) -> tuple[Sequence[Region], np.ndarray, np.ndarray, np.ndarray | None]:
    """Regions, their pattern matrix, index pairs of adjacent regions and which pairs are proven to have different
    output maps (or None: see ``Mesh.different_maps``)."""
    A = tuple(tuple(Fraction(v) for v in row) for row in A)
    b = tuple(Fraction(v) for v in b)
    if hasattr(net.layers[0], "activation"):
        engine = _mesh_class(net.input_dim)(net, A, b)
        with one_blas_thread():
            return (*engine.run(progress=progress), engine.different_maps)
    # a graph network's stages, through a dense network with the same regions on the domain
    from polyregions.regions._mesh.merged_cells import merged
    from polyregions.regions._mesh.stages import dense_twin

    twin = dense_twin(net, _domain_box(A, b))  # type: ignore[arg-type]
    if twin.may_split and net.input_dim >= 3:
        # Merging the cells of one stage pattern takes the convex hull of their vertices, written for 1-D and 2-D.
        raise InvalidInputError("refine_mesh: this graph network's regions are unions of cells of its dense "
                                f"rewriting, which the {net.input_dim}-D mesh does not merge; use engine=\"lp\"")
    engine = _mesh_class(net.input_dim)(twin.network, A, b)
    engine.shown_net = net
    if not twin.identity:
        engine.shown_patterns = twin.patterns
    if twin.ties is not None:
        engine.constant_rounds = twin.ties
    with one_blas_thread():
        regions, patterns, pairs = engine.run(progress=progress)
    if twin.may_split:
        return (*merged(regions, patterns, pairs, net), None)
    return regions, patterns, pairs, None


def _mesh_class(dim: int) -> type[Mesh1D | Mesh2D | Mesh3D | MeshND]:
    """The mesh of a domain of dimension ``dim`` (all but the 2-D one imported only when used)."""
    if dim == 1:
        from polyregions.regions._mesh.mesh_1d import Mesh1D

        return Mesh1D
    if dim == 3:
        from polyregions.regions._mesh.mesh_3d import Mesh3D

        return Mesh3D
    if dim > 3:
        from polyregions.regions._mesh.mesh_nd import MeshND

        return MeshND
    return Mesh2D


def _domain_box(A, b):
    """Exact bounds of every coordinate on the bounded domain ``A t <= b``."""
    if len(A[0]) >= 3:
        from polyregions.regions._mesh.polytope_lattice import polytope_points

        points = polytope_points(A, b)
        return [(min(x[i] for x in points), max(x[i] for x in points)) for i in range(len(A[0]))]
    from polyregions.regions._mesh.polygons import domain_box

    return domain_box(A, b)
