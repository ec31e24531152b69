"""One enumeration streamed to disk, so that runs of millions of regions fit in memory.

:func:`stream_regions` refines the domain one share of the first layer's cells at a time and writes each
finished share to an SQLite database in one transaction: an interrupted run keeps every share it committed, and
the same call on the same file resumes after them. A bounded 2-D domain of a dense network is refined by the 2-D
mesh engine (``polyregions.regions._mesh.shares``: the first layer's mesh is kept, and each share is cut out
of it as a mesh of its own), any other by the LP engine (layerwise refinement, in processes or on a cluster).
Memory holds the first layer's cells, the shares being refined, and at the end the counts' arrays (the patterns
as bytes, the adjacent pairs as integers); no region is kept as a Python object.

The store: format ``polyregions.store/1``
-----------------------------------------
An SQLite 3 database with five tables. Numbers in text columns are exact strings, as in the JSON export
(``"3"``, ``"-7/12"``); ``A``, ``b`` and points are JSON arrays of them. Regions are in *domain coordinates*
(as in the export), with the rows of the certified box of an unbounded domain removed.

``meta (key TEXT PRIMARY KEY, value TEXT)``
    ``format`` (``"polyregions.store/1"``), ``digest`` (SHA-256 of the network's and domain's JSON, which
    a resumed run must match), ``network`` and ``domain`` (their JSON documents), ``pattern_bytes`` (bytes per
    neuron in ``regions.pattern``), ``first_cells`` (how many cells the first layer has), and once the run is
    finished ``summary``: the JSON object ``polyregions regions --json`` prints.
``shares (id INTEGER PRIMARY KEY, first INTEGER, cells INTEGER, regions INTEGER)``
    One row per committed share, in commit order: the first layer's cells ``first .. first + cells - 1``
    (sorted by pattern) and how many regions they gave.
``regions (id INTEGER PRIMARY KEY, pattern BLOB UNIQUE, share, domain_rows INTEGER, A, b, interior_point TEXT)``
    One row per activation region, ids ``0 .. N-1`` in commit order. ``pattern`` holds each neuron's piece as
    an unsigned big-endian integer of ``pattern_bytes`` bytes, so ``ORDER BY pattern`` is the order of the
    complex's regions (and of the JSON export). ``A t <= b`` is the region (primitive integer rows, no
    redundant row after the first ``domain_rows``, which are the domain's); ``interior_point`` satisfies every
    row strictly.
``adjacency (first INTEGER, second INTEGER, neurons TEXT, PRIMARY KEY (first, second))``
    One row per pair of regions that share a facet, ``first < second`` (region ids), with the neurons that
    switch there (``"3"``, ``"3,7"``).
``open_facets (region INTEGER, row INTEGER, point TEXT, PRIMARY KEY (region, row))``
    The facets (row ``row`` of region ``region``) whose neighbours were not proved within their share, each
    with an exact point of its relative interior; the end of the run decides them and writes their pairs and
    the summary in one transaction. The mesh engine proves a facet's neighbour in a later share as that share
    is committed (the same exact segment on both sides) and deletes the facet in the same transaction.

A run holds SQLite's exclusive lock on the file until it ends: a second run on the same store is refused, and
readers open it once the run is over.

The exports of a finished store
-------------------------------
:func:`write_store_json` and :func:`write_store_graphml` write the ``polyregions.regions/1`` JSON export and the
GraphML graph of the complex from the store (regions read in pattern order and written one at a time), the same
documents as :func:`~polyregions.regions.export.write_complex_json` and
:func:`~polyregions.regions.export.write_graphml` write for ``enumerate_regions(..., engine=...)`` with the
engine that wrote the store (the engines write a region's inequalities in their own ways; a store resumed by the
other engine holds each share's as its engine wrote them).
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import TYPE_CHECKING, Any, Callable, Iterable

from polyregions.errors import InvalidInputError
from polyregions.regions import _streamed as st
from polyregions.regions._store import FORMAT, ShareRecords, Store, open_store
from polyregions.regions._store_export import write_store_graphml, write_store_json

if TYPE_CHECKING:
    from polyregions.exact.lp import Backend
    from polyregions.networks.network import Network
    from polyregions.regions._mesh.shares import MeshShares, Segment
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["stream_regions", "write_store_json", "write_store_graphml", "FORMAT", "MESH_SHARE_REGIONS"]

#: Final regions a share of the mesh engine aims at: a share's mesh costs about 20 bytes per region and neuron of
#: a layer (a 512-wide network: 160 MB), and each share cuts every hyperplane of the later layers once, whatever
#: its size, so shares are larger than the LP engine's.
MESH_SHARE_REGIONS = 16384


def stream_regions(network: "Network", domain: "Domain", path: str | os.PathLike, *, engine: "Engine" = "auto",
                   backend: "Backend" = "highs", workers: int = 1, progress: bool = False,
                   share_cells: int | None = None, on_share: Callable[[int, int], None] | None = None,
                   scheduler: Any = None) -> dict[str, Any]:
    """Enumerate the activation regions of ``network`` in ``domain`` into the store at ``path``; return the
    summary that :meth:`RegionComplex.summary` gives for the same enumeration.

    Parameters
    ----------
    network : Network
    domain : Domain
        Any domain of the network's input dimension (bounded or not).
    path : str or os.PathLike
        The store (format ``polyregions.store/1``, see the module documentation): a new file, or the store of
        an earlier run on the same network and domain, which is resumed (a finished one just gives its summary).
    engine : {"auto", "mesh", "lp"}, keyword-only
        ``"mesh"`` refines the shares with the 2-D mesh engine (a bounded 2-D domain of a dense network, in this
        process), ``"lp"`` with the LP-certified engine (any domain and network, in ``workers`` processes or on
        a cluster); ``"auto"`` takes the mesh wherever it applies and no ``scheduler`` is given. A run may be
        resumed with either: the shares and the regions are the same.
    backend : {"highs", "exact", "cvxpy"}, keyword-only
        The solver the certified linear programs start with.
    workers : int, keyword-only
        Processes that refine shares at the same time (results are written as they come).
    progress : bool, keyword-only
        A progress bar on a terminal: the first layer's cells done, with the shares and regions so far.
    share_cells : int or None, keyword-only
        First-layer cells per share; by default each share aims at about 2,048 regions (the mesh engine's at
        :data:`MESH_SHARE_REGIONS`) at the rate seen so far.
    on_share : callable or None, keyword-only
        Called as ``on_share(shares, regions)`` after each share is committed, with the numbers so far.
    scheduler : str, dask.distributed.Client or None, keyword-only
        Refine the shares as tasks of this Dask cluster (an address such as ``"tcp://host:8786"`` or a client;
        needs ``dask[distributed]``) instead of local processes, at most two per worker thread in flight, each
        committed as it arrives; the store is the same.

    Returns
    -------
    dict
        ``input_dim``, ``domain_dim``, ``neurons``, ``activation_regions``, ``linear_regions``,
        ``adjacencies``, ``exact`` and ``engine`` (``"mesh"`` or ``"lp"``, the engine that finished the run); also
        stored in the file.

    Raises
    ------
    InvalidInputError
        Before any work: a bad argument, a path that cannot be written, a file that is not a store, the store of
        another network or domain, one another process is writing, or a scheduler that cannot be reached.
    OutputError
        SQLite failed to write (a full disk); every share committed before stays.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import polyregions as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sawtooth.sqlite"
    >>> summary = stream_regions(pr.sawtooth(2), pr.box([0], [1]), path)
    >>> summary["activation_regions"], summary["linear_regions"], summary["adjacencies"]
    (4, 4, 3)
    >>> stream_regions(pr.sawtooth(2), pr.box([0], [1]), path) == summary  # finished: read back
    True
    """
    from contextlib import nullcontext

    from polyregions._support.atomic import check_output
    from polyregions._support.dask_clusters import check_scheduler, dask_client
    from polyregions.exact.lp import BACKENDS
    from polyregions.exact.rationals import _describe
    from polyregions.regions._arguments import expect_domain, expect_network, expect_path

    network = expect_network(network)
    domain = expect_domain(domain, input_dim=network.input_dim)
    name = expect_path(path)
    for option, value, low in (("workers", workers, 1), ("share_cells", share_cells, 1)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
            raise InvalidInputError(f"{option}: expected a positive integer, got {_describe(value)}")
    if backend not in BACKENDS:
        raise InvalidInputError(f"backend: expected one of {', '.join(BACKENDS)}, got {_describe(backend)}")
    if on_share is not None and not callable(on_share):
        raise InvalidInputError(f"on_share: expected a callable or None, got {_describe(on_share)}")
    check_scheduler(scheduler)
    chosen = _engine(engine, network, domain, scheduler)
    check_output(name, what="path")
    store = open_store(name, _identity(network, domain))
    try:
        summary = store.summary()
        if summary is None:
            with dask_client(scheduler) if scheduler is not None else nullcontext() as client:
                summary = _run(store, network, domain, chosen, backend, workers, progress, share_cells, on_share,
                               client)
        else:
            _check_finished(store, network, domain, summary)
        return summary
    finally:
        store.close()


def _engine(engine: Any, network, domain, scheduler: Any) -> str:
    """The engine that refines the shares: ``"mesh"`` or ``"lp"`` (see :func:`stream_regions`)."""
    from polyregions.exact.rationals import _describe
    from polyregions.networks.network import Network

    if engine not in ("auto", "mesh", "lp"):
        raise InvalidInputError(f"engine: expected one of auto, mesh, lp, got {_describe(engine)}")
    meshed = domain.dim == 2 and domain.is_bounded() and isinstance(network, Network)
    if engine == "mesh" and not meshed:
        what = ("a graph network" if not isinstance(network, Network) else
                f"a {domain.dim}-D domain" if domain.dim != 2 else f"an unbounded {domain.kind}")
        raise InvalidInputError(f"engine: a streamed mesh takes a bounded 2-D domain of a dense network, got {what} "
                                "(engine=\"lp\" streams any)")
    if engine == "mesh" and scheduler is not None:
        raise InvalidInputError("scheduler: the mesh engine runs in one process; use engine=\"lp\" on a cluster")
    if engine == "auto":
        return "mesh" if meshed and scheduler is None else "lp"
    return engine


def _check_finished(store: Store, network, domain, summary: dict[str, Any]) -> None:
    """A finished store's summary (its counts already checked against its rows when it was opened) against the
    network and domain, and its linear regions counted again from the stored patterns and pairs."""
    from polyregions.regions._store_export import check_linear_regions, check_pieces

    for key, value in (("input_dim", network.input_dim), ("domain_dim", domain.dim), ("neurons", network.num_neurons)):
        if summary[key] != value:
            raise InvalidInputError(f"{store.path}: expected a {FORMAT} region store whose meta.summary.{key} is "
                                    f"{value:,} (the network's and domain's), got {summary[key]:,}")
    net = network.restrict(domain.origin, domain.directions)
    patterns = st.pattern_matrix(store.pattern_bytes(), int(store.meta["pattern_bytes"]))
    check_pieces(store.path, patterns, net)
    check_linear_regions(store.path, summary, st.linear_region_count(net, patterns, store.pairs()))


def _identity(network, domain) -> dict[str, str]:
    """What the ``meta`` table of a new store holds about its enumeration."""
    from polyregions.networks.io import network_to_json
    from polyregions.networks.stages import StagedNetwork
    from polyregions.networks.stages_format import stages_to_json
    from polyregions.regions.domain_files import domain_to_json

    document = {"network": stages_to_json(network) if isinstance(network, StagedNetwork) else network_to_json(network),
                "domain": domain_to_json(domain)}
    text = json.dumps(document, sort_keys=True, separators=(",", ":"))
    return {"format": FORMAT, "digest": hashlib.sha256(text.encode()).hexdigest(),
            "network": json.dumps(document["network"]), "domain": json.dumps(document["domain"]),
            "pattern_bytes": str(st.pattern_itemsize(network))}


def _run(store: Store, network, domain, engine: str, backend, workers: int, progress: bool, share_cells: int | None,
         on_share: Callable[[int, int], None] | None, client: Any = None) -> dict[str, Any]:
    from polyregions._support.progress import progress_bar

    if client is not None:
        workers = max(1, sum(client.nthreads().values()))  # the cluster's threads share the run
    itemsize = int(store.meta["pattern_bytes"])
    first: Any
    with progress_bar(total=1, desc="first layer", enabled=progress, fractional=True) as bar:
        if engine == "mesh":
            from polyregions.regions._mesh.shares import MeshShares

            net = network.restrict(domain.origin, domain.directions)
            first = MeshShares(net, domain.region.A, domain.region.b)
            total, workers, aim = first.cells, 1, MESH_SHARE_REGIONS
            bar.update(1)
        else:
            first = st.first_layer(network, domain, backend, bar)
            total, aim = len(first.cells), st.SHARE_REGIONS
    known = store.meta.get("first_cells")
    if known is None:
        store.set_meta({"first_cells": str(total)})
    elif int(known) != total:
        raise InvalidInputError(f"{store.path}: expected a store whose first layer has {total} cells, got one with "
                                f"{known}")
    committed = store.committed()
    st.check_committed(store.path, total, committed)
    done = {"shares": len(committed), "cells": sum(cells for _, cells in committed), "regions": store.region_count(),
            "last": max((cells for _, cells in committed), default=0)}

    def size() -> int:
        done["last"] = share_cells or st.share_size(total, workers, done["cells"], done["regions"], done["last"],
                                                    aim)
        return done["last"]

    plan = st.planned_shares(total, committed, size)
    with progress_bar(total=total, desc="first-layer cells", enabled=progress) as bar:
        bar.update(done["cells"])

        def commit(records: ShareRecords) -> None:
            store.add_share(records)
            done["shares"] += 1
            done["cells"] += records.cells
            done["regions"] = store.region_count()
            bar.update(records.cells)
            bar.set_postfix_str(f"{done['shares']} shares, {done['regions']:,} regions")
            if on_share is not None:
                on_share(done["shares"], done["regions"])

        if engine == "mesh":
            _mesh_shares(first, plan, itemsize, store, commit)
            return _finished(store, network, domain, net, backend, itemsize, engine)
        arguments = (first.layers, backend, first.box, first.net)
        pending: list = list(first.cells)
        del first  # its cells go as their shares are taken

        def take(start: int, cells: int) -> list:
            """The cells of a share, forgotten here: the first layer's memory shrinks as the run goes."""
            share = pending[start:start + cells]
            pending[start:start + cells] = [None] * cells
            return share

        if client is not None:
            _on_cluster(client, plan, take, arguments, itemsize, workers, commit)
        elif workers == 1:
            for start, cells in plan:
                commit(st.share_records(take(start, cells), *arguments, start, itemsize))
        else:
            _in_processes(plan, take, arguments, itemsize, workers, commit)
        net = arguments[3]
    return _finished(store, network, domain, net, backend, itemsize, engine)


def _mesh_shares(shares: "MeshShares", plan, itemsize: int, store: Store, commit: Callable[[ShareRecords], None]
                 ) -> None:
    """Shares refined by the mesh one after another, each open facet whose segment an earlier share left open
    joined to it: the pair written and the earlier facet closed with the share."""
    from dataclasses import replace

    from polyregions._support.runtime import collector_paused, one_blas_thread

    waiting: dict[Segment, tuple[int, int, bytes]] = {}  # an open facet's segment: its region id, row, pattern
    for start, cells in plan:
        with collector_paused(), one_blas_thread():  # as the mesh runs in memory
            records, segments = shares.share(start, cells, itemsize)
        base, kept, joined, opened = store.next_id, [], [], []
        for (i, row, point), segment in zip(records.facets, segments):
            partner = None if segment is None else waiting.pop(segment, None)
            if partner is None:
                kept.append((i, row, point))
                if segment is not None:
                    opened.append((segment, (base + i, row, records.regions[i][0])))
                continue
            region, its_row, pattern = partner
            neurons = st.switched_neurons(st.decoded(pattern, itemsize), st.decoded(records.regions[i][0], itemsize))
            joined.append((region, its_row, i, neurons))
        commit(replace(records, facets=kept, joined=joined))
        waiting.update(opened)


def _in_processes(plan, take: Callable[[int, int], list], arguments: tuple, itemsize: int, workers: int,
                  commit: Callable[[ShareRecords], None]) -> None:
    """Shares refined in a pool, committed as they complete (:func:`_in_flight`); an interrupt kills the
    workers and keeps what was committed."""
    from concurrent.futures import FIRST_COMPLETED, wait

    from polyregions._support.pools import process_pool, submit_all

    with process_pool(workers) as pool:
        def submit(start: int, cells: int):
            return submit_all(pool, st.share_records, [(take(start, cells), *arguments, start, itemsize)])[0]

        _in_flight(plan, submit, lambda pending: wait(pending, return_when=FIRST_COMPLETED)[0], 2 * workers,
                   commit)


def _on_cluster(client: Any, plan, take: Callable[[int, int], list], arguments: tuple, itemsize: int, threads: int,
                commit: Callable[[ShareRecords], None]) -> None:
    """Shares refined as tasks of a Dask cluster, committed as they complete (:func:`_in_flight`); an interrupt
    cancels the tasks still queued or running and keeps what was committed."""
    from dask.distributed import wait

    def submit(start: int, cells: int):
        return client.submit(st.share_records, take(start, cells), *arguments, start, itemsize, pure=False)

    pending: set = set()
    try:
        _in_flight(plan, submit, lambda waiting: wait(waiting, return_when="FIRST_COMPLETED").done, 2 * threads,
                   commit, pending, release=lambda future: future.release())
    finally:
        client.cancel([future for future in pending if not future.done()])


def _in_flight(plan, submit: Callable[[int, int], Any], first_done: Callable[[set], Iterable], limit: int,
               commit: Callable[[ShareRecords], None], pending: set | None = None,
               release: Callable[[Any], None] | None = None) -> None:
    """Submit the shares of ``plan`` with at most ``limit`` in flight (their results wait in memory), and commit
    each as it completes: ``first_done(pending)`` waits for some to complete and gives them; ``release`` drops a
    committed one's result where it was made. ``pending`` (kept by the caller, to cancel what is left) holds the
    futures in flight."""
    pending = set() if pending is None else pending

    def fill() -> None:
        while len(pending) < limit:
            share = next(plan, None)
            if share is None:
                return
            pending.add(submit(*share))

    fill()
    while pending:
        for future in list(first_done(pending)):
            pending.discard(future)
            records = future.result()
            if release is not None:
                release(future)  # its result leaves the worker's memory once committed here
            commit(records)
            del records
        fill()


def _finished(store: Store, network, domain, net, backend, itemsize: int, engine: str) -> dict[str, Any]:
    """Decide the open facets, count, and write the new pairs with the summary (one transaction)."""
    import numpy as np

    new = st.decided_pairs(store, net, backend, itemsize)
    patterns = st.pattern_matrix(store.pattern_bytes(), itemsize)
    count = len(patterns)
    keys = np.unique(np.concatenate([store.pairs(), new]) @ np.array([count, 1], dtype=np.int64))  # first < second
    pairs = np.stack([keys // max(count, 1), keys % max(count, 1)], axis=1)
    del keys
    summary = {
        "input_dim": network.input_dim,
        "domain_dim": domain.dim,
        "neurons": network.num_neurons,
        "activation_regions": len(patterns),
        "linear_regions": st.linear_region_count(net, patterns, pairs),
        "adjacencies": len(pairs),
        "exact": True,
        "engine": engine,
    }
    store.finish(zip(new[:, 0].tolist(), new[:, 1].tolist(), st.neuron_texts(patterns, new)), summary)
    return summary
