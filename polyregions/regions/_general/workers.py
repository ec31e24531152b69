"""Where the general engine refines its cells: shares of the first layer's cells, refined in this process, in
worker processes or as tasks of a Dask cluster, and joined.

The cells left by the first layer are independent: each is refined by the remaining layers on its own, and the
regions of different cells never coincide, so shares of them are refined apart and their results are simply
joined (:class:`~polyregions.regions._shares.Joined`). Each share also proves the facet neighbours it finds among
its own regions (:func:`~.adjacency.share_neighbours`); the facets it leaves open (those whose neighbour is in
another share) are decided afterwards on the joined regions, in this process, as for a single process
(:func:`~.adjacency.decided`), so the complex is the same whatever the split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

from polyregions._support.runtime import collector_paused, one_blas_thread
from polyregions.exact.lp import Backend
from polyregions.regions._cell_programs import Row
from polyregions.regions._general.adjacency import FacetKey, Pair, share_neighbours
from polyregions.regions._general.cells import Cell, unboxed
from polyregions.regions._general.cuts import finished
from polyregions.regions._shares import Joined, PackedCells, Share

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["finished_share", "handed_on", "joined_shares", "shares_of", "SHARES_PER_WORKER", "refined_in_processes",
           "refined_on_cluster"]


def finished_share(cells: list[Cell], layers, backend: Backend, box: frozenset[Row], net: "Network",
                   flipping: bool = True, bar=None) -> tuple[list[Cell], list[Pair], list[FacetKey]]:
    """:func:`~.cuts.finished` on a share of the cells (in a worker), with the facet neighbours proved among them
    and the facets left open (:func:`~.adjacency.share_neighbours`). The neighbours read off flips may lie in other
    shares; without ``flipping`` every facet a cell proves gets a point, and every pair proved lies within the
    share."""
    with collector_paused(), one_blas_thread():
        cells = finished(cells, layers, backend, bar, box, flipping)
        return (cells, *share_neighbours(cells, net))


def handed_on(cells: Iterable[Cell], layers, backend: Backend, box: frozenset[Row], net: "Network", bar=None,
              packed: bool = True) -> Share:
    """``finished_share`` as a :class:`~polyregions.regions._shares.Share` of the final cells without the
    certified box's rows, ``packed`` to be sent back from a worker; ``cells`` may come packed too."""
    with collector_paused():
        final, pairs, open_facets = finished_share(list(cells), layers, backend, box, net, bar=bar)
        if box:
            final = [unboxed(cell, box) for cell in final]
        return Share.of(final, pairs, open_facets, packed=packed)


def joined_shares(shares: Iterable[Share], bar, step: float) -> Joined:
    """The finished shares, joined, the bar advanced by ``step`` as each arrives."""
    arrived = []
    for share in shares:
        arrived.append(share)
        bar.update(step)
    return Joined(arrived)


#: Shares of the cells per worker: more balance the load, fewer leave fewer facets to decide after the join.
SHARES_PER_WORKER = 8


def shares_of(cells: list[Cell], count: int) -> list[list[Cell]]:
    """``cells`` in at most ``count`` runs of consecutive patterns: cells whose patterns differ only in later
    neurons tend to lie side by side, so most facet neighbours are found within one share."""
    ordered = sorted(cells, key=lambda cell: cell.pattern)
    size = -(-len(ordered) // max(1, count))
    return [ordered[start:start + size] for start in range(0, len(ordered), size)]


def refined_in_processes(cells: list[Cell], layers, backend: Backend, workers: int, bar, box: frozenset[Row],
                         net: "Network") -> Joined:
    """``handed_on`` on shares of the cells in worker processes, joined; an interrupt cancels the rest."""
    from concurrent.futures import as_completed

    from polyregions._support.pools import process_pool, submit_all

    shares = shares_of(cells, SHARES_PER_WORKER * workers)
    # workers that ignore Ctrl-C, die with this process, and are killed when the run stops early
    with process_pool(workers) as pool:
        futures = submit_all(pool, handed_on, [(share, layers, backend, box, net) for share in shares])
        return joined_shares((future.result() for future in as_completed(futures)), bar, len(layers) / len(shares))


def refined_on_cluster(cells: list[Cell], layers, backend: Backend, scheduler: Any, bar, box: frozenset[Row],
                       net: "Network") -> Joined:
    """``handed_on`` on shares of ``cells`` as tasks of the cluster at ``scheduler`` (an address or a client),
    joined; an interrupt cancels the tasks still queued or running."""
    from polyregions._support.dask_clusters import dask_client

    with dask_client(scheduler) as client:
        from dask.distributed import as_completed

        threads = max(1, sum(client.nthreads().values()))
        shares = shares_of(cells, SHARES_PER_WORKER * threads)
        # Packed, the cells pass through the scheduler as bytes (it unpickles what it is given)
        futures = [client.submit(handed_on, PackedCells(share, run=len(share)), layers, backend, box, net, pure=False)
                   for share in shares]
        try:
            return joined_shares((future.result() for future in as_completed(futures)), bar,
                                 len(layers) / len(shares))
        finally:
            client.cancel([future for future in futures if not future.done()])
