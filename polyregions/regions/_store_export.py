"""The exports of a finished region store, written from the store a piece at a time.

:func:`write_store_json` and :func:`write_store_graphml` write the documents that
:func:`~polyregions.regions.export.write_complex_json` and :func:`~polyregions.regions.export.write_graphml` write
for the complex of the same enumeration (``enumerate_regions(..., engine=...)``, with the store's engine), without
building that complex: the regions come from an SQL cursor in pattern order (the complex's order) and go to the
file one at a time, each with its exact output map computed from its pattern (a block of patterns at once).
Memory holds what the counts of the run held at its end: the patterns as bytes, the adjacent pairs and the
switching neurons as integer arrays.

A regular file is written to a temporary file beside it and renamed over the old one once complete
(:func:`polyregions._support.atomic.atomic_write`), so an error or Ctrl-C leaves the old file as it was; a device
such as ``/dev/null`` or a FIFO receives the document directly, as it is made.
"""

from __future__ import annotations

import itertools
import json
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, Iterator

import numpy as np

from polyregions._support.atomic import streamed_write
from polyregions.errors import InvalidInputError
from polyregions.regions._store import Store, open_finished_store
from polyregions.regions.export import _PIECE, write_joined

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["write_store_json", "write_store_graphml"]



@dataclass(frozen=True)
class _Combinatorics:
    """A store's patterns and adjacency in the complex's terms: region ``i`` is the ``i``-th in pattern order."""

    patterns: np.ndarray   # a row per region, in pattern order (small signed integers, as the counts read them)
    edges: np.ndarray      # the adjacent pairs (i, j), i < j, sorted as the complex's adjacency
    starts: np.ndarray     # the neurons switching across edge e are columns[starts[e]:starts[e + 1]], increasing
    columns: np.ndarray
    switches: np.ndarray   # how many neurons switch across each edge, and the first of them
    neurons: np.ndarray


def check_pieces(path: str, patterns: np.ndarray, net: Any) -> None:
    """Refuse stored patterns whose piece indices are beyond every unit's pieces (the store's rows were checked in
    form when it was opened; which pieces a network has is known here)."""
    from polyregions.networks.stage import units_of

    if not patterns.size:
        return
    largest = 0
    for layer in net.layers:
        activations, groups = units_of(layer)
        largest = max([largest, *(len(a.breakpoints) for a in activations), *(len(g) - 1 for g in groups)])
    low, high = int(patterns.min()), int(patterns.max())
    if low < 0 or high > largest:
        raise InvalidInputError(f"{path}: expected a polyregions.store/1 region store whose regions.pattern holds "
                                f"piece indices 0 .. {largest} of the network's units, got {low} .. {high}")


def check_linear_regions(path: str, summary: dict[str, Any], count: int) -> None:
    """Refuse a summary whose ``linear_regions`` is not the count made from the store's rows."""
    if summary["linear_regions"] != count:
        raise InvalidInputError(f"{path}: expected a polyregions.store/1 region store whose "
                                f"meta.summary.linear_regions is the number of linear regions of its rows, "
                                f"{count:,}, got {summary['linear_regions']:,}")


def _combinatorics(store: Store, net: Any = None) -> _Combinatorics:
    from polyregions.regions._streamed import pattern_matrix
    from polyregions.regions._switches import ranked_edges, switch_arrays

    ids, raw = store.pattern_order()
    count = len(ids)
    patterns = pattern_matrix(raw, int(store.meta["pattern_bytes"]))
    del raw
    if net is not None:
        check_pieces(store.path, patterns, net)
    rank = np.empty(count, dtype=np.int64)
    rank[ids] = np.arange(count)
    del ids
    pairs = store.pairs()
    edges = ranked_edges(rank, pairs) if len(pairs) else np.zeros((0, 2), dtype=np.int64)
    del rank, pairs
    if not len(edges):  # switch_arrays wants at least one edge
        nothing = np.zeros(0, dtype=np.int64)
        return _Combinatorics(patterns, edges, np.zeros(1, dtype=np.int64), nothing, nothing, nothing)
    starts, columns, switches, neurons = switch_arrays(patterns, edges)
    return _Combinatorics(patterns, edges, starts, columns, switches, neurons)


def _linear_regions(net: "Network", combinatorics: _Combinatorics) -> tuple[np.ndarray, np.ndarray]:
    """``(members, bounds)``: linear region ``k`` is ``members[bounds[k]:bounds[k + 1]]`` (increasing), the linear
    regions ordered by their smallest member, as :attr:`RegionComplex.linear_regions` lists them."""
    from polyregions.regions._linear_regions import linear_region_roots

    count = len(combinatorics.patterns)
    if len(combinatorics.edges):
        roots = linear_region_roots(net, combinatorics.patterns, combinatorics.edges, combinatorics.switches,
                                    combinatorics.neurons)
    else:
        roots = np.arange(count, dtype=np.int64)
    members = np.argsort(roots, kind="stable")
    bounds = np.flatnonzero(np.r_[True, roots[members][1:] != roots[members][:-1]]) if count else np.zeros(0, int)
    return members, np.r_[bounds, count].astype(np.int64)


# --- reading the enumeration back -----------------------------------------------------------------------------

def _network(document: Any, path: str) -> Any:
    """The network of a store's ``network`` document: a ``polyregions.network/1`` network or, for a graph
    network, its ``polyregions.stages/1`` stages."""
    from polyregions.networks.io import network_from_json
    from polyregions.networks.stages_format import STAGES_FORMAT, stages_from_json

    if isinstance(document, dict) and document.get("format") == STAGES_FORMAT:
        return stages_from_json(document, what=f"{path}: network")
    return network_from_json(document, what=f"{path}: network")


def _enumeration(store: Store) -> tuple[dict, dict, Any, Any]:
    """The store's network and domain documents, the network, and the network in domain coordinates."""
    from polyregions.regions.domain_files import domain_from_json

    try:
        network_document, domain_document = json.loads(store.meta["network"]), json.loads(store.meta["domain"])
    except (KeyError, ValueError):
        raise InvalidInputError(f"{store.path}: expected a store whose meta table holds the network and domain "
                                "as JSON, got one without them") from None
    network = _network(network_document, store.path)
    domain = domain_from_json(domain_document, input_dim=network.input_dim, what=f"{store.path}: domain")
    return network_document, domain_document, network, network.restrict(domain.origin, domain.directions)


# --- writing ------------------------------------------------------------------------------------------------

def _opened(store_path: str | os.PathLike, path: str | os.PathLike) -> tuple[str, Store]:
    """The output's name and the finished store, once they are known to be two files."""
    from polyregions.regions._arguments import expect_path

    name, store_name = expect_path(path), _store_name(store_path)
    if os.path.realpath(name) == os.path.realpath(store_name):
        raise InvalidInputError(f"{name}: expected an output file other than the store it is written from, got "
                                "the store itself")
    return name, open_finished_store(store_name)


def _store_name(path: Any) -> str:
    """``path`` as a string, once it is a path; what it names is left to :func:`open_finished_store`, which says
    why a directory, a FIFO or a missing file is not a finished store."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        text = repr(path)
        raise InvalidInputError(f"store_path: expected a file path (str or os.PathLike), got {type(path).__name__} "
                                f"{text if len(text) <= 60 else text[:57] + '...'}")
    if not path:
        raise InvalidInputError("store_path: expected a file path, got an empty string")
    return path


def _region_texts(store: Store, net: "Network", itemsize: int) -> Iterator[str]:
    """Each region's entry of the export, in pattern order, with the output map of its pattern."""
    from polyregions.regions._streamed import decoded
    from polyregions.regions.export import _BLOCK, output_map_texts

    texts_of = output_map_texts(net)
    rows = store.regions_by_pattern()
    while block := list(itertools.islice(rows, _BLOCK)):
        patterns = [decoded(blob, itemsize) for blob, *_ in block]
        for (_, A, b, point), pattern, output_map in zip(block, patterns, texts_of(patterns)):
            yield json.dumps({"pattern": list(pattern), "A": json.loads(A), "b": json.loads(b),
                              "interior_point": json.loads(point), "output_map": output_map})


def _switching(combinatorics: _Combinatorics, start: int, stop: int, separator: str) -> list[str]:
    """The switching neurons of edges ``start .. stop - 1`` as text, joined by ``separator``."""
    bounds = combinatorics.starts[start:stop + 1].tolist()
    listed = combinatorics.columns[bounds[0]:bounds[-1]].tolist()
    first = bounds[0]
    return [separator.join(map(str, listed[a - first:b - first])) for a, b in zip(bounds, bounds[1:])]


def _adjacency_texts(combinatorics: _Combinatorics) -> Iterator[str]:
    edges = combinatorics.edges
    for start in range(0, len(edges), _PIECE):
        part = edges[start:start + _PIECE].tolist()
        switching = _switching(combinatorics, start, start + len(part), ", ")
        yield from (f"[{i}, {j}, [{neurons}]]" for (i, j), neurons in zip(part, switching))


def _linear_region_texts(members: np.ndarray, bounds: np.ndarray) -> Iterator[str]:
    for first in range(0, len(bounds) - 1, _PIECE):
        ends = bounds[first:first + _PIECE + 1].tolist()
        listed = members[ends[0]:ends[-1]].tolist()
        yield from ("[" + ", ".join(map(str, listed[a - ends[0]:b - ends[0]])) + "]" for a, b in zip(ends, ends[1:]))


def write_store_json(store_path: str | os.PathLike, path: str | os.PathLike) -> None:
    """Write the ``polyregions.regions/1`` JSON export of a finished region store, atomically, without holding
    its regions in memory.

    The document is the one :func:`~polyregions.regions.export.write_complex_json` writes for the complex of the
    same enumeration (``enumerate_regions(network, domain, engine=...)`` with the engine that wrote the store):
    the same regions in the same order (by pattern), with the same inequalities, interior points and output
    maps, the same adjacency and linear regions.

    Parameters
    ----------
    store_path : str or os.PathLike
        A ``polyregions.store/1`` file whose run has finished (:func:`~polyregions.regions.stream.stream_regions`).
    path : str or os.PathLike
        The file to write (one line of JSON); an existing file is replaced only once the new one is complete
        (a symbolic link is written through, a device such as ``/dev/null`` written directly).

    Raises
    ------
    InvalidInputError
        ``store_path`` is not a finished store (missing, not a store, a run not finished or still running).
    OutputError
        When the file cannot be written (a full disk, a missing folder); what stood at ``path`` is unchanged.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> import polyregions as pr
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> summary = pr.stream_regions(pr.sawtooth(2), pr.box([0], [1]), folder / "store.sqlite")
    >>> pr.write_store_json(folder / "store.sqlite", folder / "sawtooth.json")
    >>> doc = json.loads((folder / "sawtooth.json").read_text())
    >>> len(doc["regions"]), doc["regions"][1]["interior_point"], doc["adjacency"][0], doc["summary"] == summary
    (4, ['3/8'], [0, 1, [3]], True)
    """
    name, store = _opened(store_path, path)
    try:
        network_document, domain_document, _, net = _enumeration(store)
        summary = json.loads(store.meta["summary"])
        combinatorics = _combinatorics(store, net)
        members, bounds = _linear_regions(net, combinatorics)
        check_linear_regions(store.path, summary, len(bounds) - 1)
        itemsize = int(store.meta["pattern_bytes"])

        def write(stream: BinaryIO) -> None:
            from polyregions.regions.export import FORMAT

            # the keys in the order complex_to_json gives them, each written as json.dumps writes it there
            head = {"format": FORMAT, "network": network_document, "domain": domain_document,
                    "exact": summary["exact"], "engine": summary["engine"], "summary": summary}
            stream.write((json.dumps(head)[:-1] + ', "regions": [').encode())
            write_joined(stream, _region_texts(store, net, itemsize))
            stream.write(b'], "adjacency": [')
            write_joined(stream, _adjacency_texts(combinatorics))
            stream.write(b'], "linear_regions": [')
            write_joined(stream, _linear_region_texts(members, bounds))
            stream.write(b"]}\n")

        streamed_write(name, write)
    finally:
        store.close()


def write_store_graphml(store_path: str | os.PathLike, path: str | os.PathLike) -> None:
    """Write the adjacency graph of a finished region store as GraphML, atomically, a node and an edge at a time.

    The graph is the one :func:`~polyregions.regions.export.write_graphml` writes for the complex of the same
    enumeration: node ``i`` is the ``i``-th region in pattern order, with attribute ``pattern``
    (comma-separated piece indices); an edge per shared facet, with attribute ``neurons`` (comma-separated
    indices of the neurons that switch there).

    Parameters
    ----------
    store_path : str or os.PathLike
        A ``polyregions.store/1`` file whose run has finished.
    path : str or os.PathLike
        The file to write, whole or not at all (as in :func:`write_store_json`).

    Raises
    ------
    InvalidInputError
        ``store_path`` is not a finished store.
    OutputError
        When the file cannot be written; what stood at ``path`` is unchanged.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import networkx as nx
    >>> import polyregions as pr
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> summary = pr.stream_regions(pr.sawtooth(2), pr.box([0], [1]), folder / "store.sqlite")
    >>> pr.write_store_graphml(folder / "store.sqlite", folder / "sawtooth.graphml")
    >>> graph = nx.read_graphml(folder / "sawtooth.graphml")
    >>> graph.number_of_nodes(), graph.number_of_edges(), graph.nodes["0"]["pattern"]
    (4, 3, '1,0,1,0')
    """
    name, store = _opened(store_path, path)
    try:
        net = _enumeration(store)[3]
        combinatorics = _combinatorics(store, net)
        # the summary is not written here, but a store whose summary is not its rows' is refused by every reader
        linear = len(_linear_regions(net, combinatorics)[1]) - 1
        check_linear_regions(store.path, json.loads(store.meta["summary"]), linear)

        def write(stream: BinaryIO) -> None:
            # The attribute values are digits and commas, which XML takes as they are: nothing to escape.
            edges = combinatorics.edges
            keys = ['  <key id="d1" for="edge" attr.name="neurons" attr.type="string" />\n'] if len(edges) else []
            keys.append('  <key id="d0" for="node" attr.name="pattern" attr.type="string" />\n')
            stream.write(("<?xml version='1.0' encoding='utf-8'?>\n" + _GRAPHML + "".join(keys)
                          + '  <graph edgedefault="undirected">\n').encode())
            patterns = combinatorics.patterns
            for start in range(0, len(patterns), _PIECE):
                part = patterns[start:start + _PIECE].tolist()
                stream.write("".join(f'    <node id="{start + k}">\n      {_data("d0", ",".join(map(str, p)))}\n'
                                     "    </node>\n" for k, p in enumerate(part)).encode())
            for start in range(0, len(edges), _PIECE):
                part = edges[start:start + _PIECE].tolist()
                switching = _switching(combinatorics, start, start + len(part), ",")
                stream.write("".join(f'    <edge source="{i}" target="{j}">\n      <data key="d1">{neurons}</data>\n'
                                     "    </edge>\n" for (i, j), neurons in zip(part, switching)).encode())
            stream.write(b"  </graph>\n</graphml>\n")

        streamed_write(name, write)
    finally:
        store.close()


def _data(key: str, text: str) -> str:
    """A ``data`` element as networkx writes it (an empty value, of a network without neurons, as an empty tag)."""
    return f'<data key="{key}">{text}</data>' if text else f'<data key="{key}" />'


_GRAPHML = ('<graphml xmlns="http://graphml.graphdrawing.org/xmlns" '
            'xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" '
            'xsi:schemaLocation="http://graphml.graphdrawing.org/xmlns '
            'http://graphml.graphdrawing.org/xmlns/1.0/graphml.xsd">\n')
