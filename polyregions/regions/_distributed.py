"""One enumeration split across a Dask cluster.

The cells left by the first layer are independent: each is refined by the remaining layers on its own, and the
regions of different cells never coincide, so shares of them are tasks and their results are simply joined.
Adjacency is decided afterwards on the joined regions, in this process, as for a single process, so the complex
is the same whatever the split.
"""

from __future__ import annotations

from typing import Any

__all__ = ["refined_on_cluster"]

_SHARES_PER_THREAD = 4  # smaller shares balance the load across workers; the cost is one task each


def refined_on_cluster(cells: list, layers, backend: str, scheduler: Any, bar, box: frozenset) -> list:
    """``_finished`` of :mod:`polyregions.regions._refine` on shares of ``cells`` as tasks of the cluster at
    ``scheduler`` (an address or a client); an interrupt cancels the tasks still queued or running."""
    from polyregions._dask import dask_client
    from polyregions.regions._refine import _finished

    with dask_client(scheduler) as client:
        from dask.distributed import as_completed

        threads = max(1, sum(client.nthreads().values()))
        count = min(len(cells), _SHARES_PER_THREAD * threads)
        shares = [cells[i::count] for i in range(count)]
        futures = [client.submit(_finished, share, layers, backend, None, box, pure=False) for share in shares]
        done: list = []
        try:
            for future in as_completed(futures):
                done.extend(future.result())
                bar.update(len(layers) / len(shares))
        finally:
            client.cancel([future for future in futures if not future.done()])
    return done
