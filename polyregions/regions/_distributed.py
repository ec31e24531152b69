"""One enumeration split across a Dask cluster.

The cells left by the first layer are independent: each is refined by the remaining layers on its own, and the
regions of different cells never coincide, so shares of them are tasks and their results are simply joined.
Each task also proves the facet neighbours it finds among its own regions; the facets it leaves open (those whose
neighbour is in another share) are decided afterwards on the joined regions, in this process, as for a single
process, so the complex is the same whatever the split.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polyregions.regions._shares import Joined

__all__ = ["refined_on_cluster"]

def refined_on_cluster(cells: list, layers, backend: str, scheduler: Any, bar, box: frozenset, net: Any
                       ) -> "Joined":
    """``_handed_on`` of :mod:`polyregions.regions._refine` on shares of ``cells`` as tasks of the cluster at
    ``scheduler`` (an address or a client), joined; an interrupt cancels the tasks still queued or running."""
    from polyregions._dask import dask_client
    from polyregions.regions._refine import _SHARES_PER_WORKER, _handed_on, _joined, _shares
    from polyregions.regions._shares import PackedCells

    with dask_client(scheduler) as client:
        from dask.distributed import as_completed

        threads = max(1, sum(client.nthreads().values()))
        shares = _shares(cells, _SHARES_PER_WORKER * threads)
        # Packed, the cells pass through the scheduler as bytes (it unpickles what it is given)
        futures = [client.submit(_handed_on, PackedCells(share, run=len(share)), layers, backend, box, net, pure=False)
                   for share in shares]
        try:
            return _joined((future.result() for future in as_completed(futures)), bar, len(layers) / len(shares))
        finally:
            client.cancel([future for future in futures if not future.done()])
