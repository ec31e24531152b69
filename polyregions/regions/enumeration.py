"""One entry point for region enumeration, choosing the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal, get_args

from polyregions.errors import InvalidInputError
from polyregions.regions.complex import RegionComplex

if TYPE_CHECKING:
    from polyregions.exact.lp import Backend
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.network import Network
    from polyregions.regions.domains import Domain

__all__ = ["enumerate_regions", "Engine", "ENGINES"]

#: The refinement engines: ``"mesh"`` (bounded domains), ``"lp"`` (any domain) or ``"auto"``.
Engine = Literal["auto", "mesh", "lp"]
#: The values of ``engine`` parameters.
ENGINES: tuple[Engine, ...] = get_args(Engine)
#: The largest domain dimension for which ``engine="auto"`` takes the mesh engine.
MESH_DIMENSIONS = 6


def enumerate_regions(network: "Network | GraphNetwork", domain: "Domain", *, engine: Engine = "auto",
                      backend: Backend = "highs", progress: bool = False, workers: int = 1,
                      scheduler: Any = None) -> RegionComplex:
    """Return the exact region complex of ``network`` in ``domain``.

    Parameters
    ----------
    network : Network
        Its input dimension is the domain's :attr:`~polyregions.regions.domains.Domain.input_dim`.
    domain : Domain
        Where the regions are counted (:func:`~polyregions.regions.domains.box`, ``segment``, ...).
    engine : {"auto", "mesh", "lp"}, keyword-only
        ``"auto"`` takes the vectorised mesh engine for bounded 1-D and 2-D domains and for bounded domains of
        dimension 3 to :data:`MESH_DIMENSIONS` of a :class:`~polyregions.networks.network.Network` (a graph
        network's regions there may be unions of its rewriting's cells, which those meshes do not merge), and the
        LP-certified engine otherwise; both return the same complex. The mesh holds every face of the complex,
        whose number per region grows exponentially with the dimension: beyond 6 the LP engine's memory is the
        better trade.
    backend : {"highs", "exact", "cvxpy"}, keyword-only
        The solver the LP engine starts each linear program with (every answer is certified exactly).
    progress : bool, keyword-only
        Show a progress bar on a terminal.
    workers : int, keyword-only
        Processes that share the LP engine's work (the complex is the same).
    scheduler : str or dask.distributed.Client, keyword-only
        A Dask scheduler's address (``"tcp://host:8786"``) or a client: the LP engine's work after the first
        layer runs as tasks on that cluster (the complex is the same; needs ``dask[distributed]``). ``"auto"``
        then means the LP engine.

    Returns
    -------
    RegionComplex
        Every activation region with its pattern, H-polytope, output map and interior point (in domain
        coordinates), and the adjacency graph.

    Raises
    ------
    InvalidInputError
        When ``network`` is not a :class:`~polyregions.networks.network.Network` or ``domain`` not a
        :class:`~polyregions.regions.domains.Domain` of the network's input dimension, when ``engine`` or
        ``backend`` is not one of the values above, when ``workers`` is not a positive integer (all checked
        before any work), when the domain does not fit the engine, or when the scheduler cannot be reached or
        the mesh engine is asked to use one.

    Examples
    --------
    >>> import polyregions as pr
    >>> complex_ = pr.enumerate_regions(pr.sawtooth(3), pr.box([0], [1]))
    >>> len(complex_), len(complex_.linear_regions), complex_.engine
    (8, 8, 'mesh')
    >>> len(pr.enumerate_regions(pr.sawtooth(2), pr.box([0], [1]), engine="lp", backend="exact"))
    4
    """
    from polyregions._support.dask_clusters import check_scheduler
    from polyregions.exact.rationals import _describe
    from polyregions.regions._arguments import expect_domain, expect_network

    network = expect_network(network)
    domain = expect_domain(domain, input_dim=network.input_dim)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidInputError(f"workers: expected a positive integer, got {_describe(workers)}")
    if engine not in ENGINES:
        raise InvalidInputError(f"engine: expected one of {', '.join(ENGINES)}, got {_describe(engine)}")
    if backend != "highs":  # the default needs no look-up (loading the LP module costs a 2-D run milliseconds)
        from polyregions.exact.lp import BACKENDS

        if backend not in BACKENDS:
            raise InvalidInputError(f"backend: expected one of {', '.join(BACKENDS)}, got {_describe(backend)}")
    if engine == "auto":
        from polyregions.networks.network import Network

        meshed = domain.dim <= 2 or (domain.dim <= MESH_DIMENSIONS and isinstance(network, Network))
        engine = "mesh" if meshed and domain.is_bounded() and scheduler is None else "lp"
    check_scheduler(scheduler)
    if engine == "mesh" and scheduler is not None:
        raise InvalidInputError("scheduler: the mesh engine runs in one process; use engine=\"lp\" on a cluster")
    if engine == "mesh":
        from polyregions.regions._mesh import refine_mesh
        return refine_mesh(network, domain, progress=progress)
    from polyregions.regions._general.refine import refine
    return refine(network, domain, backend=backend, progress=progress, workers=workers, scheduler=scheduler)
