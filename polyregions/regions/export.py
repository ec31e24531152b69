"""Export of a region complex: JSON with its certificates, and GraphML for the adjacency graph.

The JSON document (``polyregions.regions/1``) holds everything an independent checker needs to re-verify the
complex exactly: the network, the domain, and for each region its pattern, its inequalities, its exact
interior point and its output map. Every number is an exact string such as ``"-7/12"``.
"""

from __future__ import annotations

import json
import math
import os
from fractions import Fraction
from typing import Any, BinaryIO, Callable, Iterable, Iterator, Sequence

from polyregions._support.atomic import atomic_write_bytes, streamed_write
from polyregions.regions._arguments import expect_complex, expect_path
from polyregions.regions.complex import RegionComplex

__all__ = ["complex_to_json", "write_complex_json", "write_graphml", "FORMAT"]

FORMAT = "polyregions.regions/1"


#: Regions whose output maps are computed together.
_BLOCK = 512
_PIECE = 1024  # regions, pairs or linear regions per write (a few hundred KB of text)


def _numbers(values) -> list:
    return [_numbers(v) if isinstance(v, (tuple, list)) else str(v) if type(v) in (int, Fraction)
            else str(Fraction(v)) for v in values]


def _quotient(numerator: int, scale: int) -> str:
    """``str(Fraction(numerator, scale))`` for a positive ``scale``, without building the Fraction."""
    g = math.gcd(numerator, scale)
    return str(numerator // g) if g == scale else f"{numerator // g}/{scale // g}"


def output_map_texts(network: Any) -> Callable[[Sequence[Sequence[int]]], list[dict[str, list]]]:
    """A function from activation patterns to the export's ``output_map`` entries (``M``, ``c``) of their regions,
    as ``network.affine_map`` gives each: for a dense network by modular arithmetic, the patterns of a call
    through each layer at once (rational matrix products region by region cost a hundred times more)."""
    from polyregions.networks.network import Network

    if not isinstance(network, Network):
        def one_by_one(patterns):
            return [{"M": _numbers(M), "c": _numbers(c)} for M, c in map(network.affine_map, patterns)]
        return one_by_one
    import numpy as np

    from polyregions.regions._mesh.exact_maps import ExactMaps

    maps = ExactMaps(network.layers, network.input_dim)

    def together(patterns):
        rows_of, scale = maps.output_maps(np.array(patterns, dtype=np.int64).reshape(len(patterns), -1))
        return [{"M": [[_quotient(v, scale) for v in row[:-1]] for row in rows],
                 "c": [_quotient(row[-1], scale) for row in rows]} for rows in rows_of]
    return together


def _region_entries(complex_: RegionComplex) -> Iterator[dict[str, Any]]:
    regions = complex_.regions
    shared = regions[0].network if regions else None
    texts_of = output_map_texts(shared) if all(region.network is shared for region in regions) else None
    for start in range(0, len(regions), _BLOCK):
        block = regions[start:start + _BLOCK]
        maps = (texts_of([r.pattern for r in block]) if texts_of else
                [{"M": _numbers(r.output_map[0]), "c": _numbers(r.output_map[1])} for r in block])
        for region, output_map in zip(block, maps):
            yield {"pattern": list(region.pattern), "A": _numbers(region.A), "b": _numbers(region.b),
                   "interior_point": _numbers(region.interior_point), "output_map": output_map}


def complex_to_json(complex_: RegionComplex) -> dict[str, Any]:
    """The JSON document of a region complex (a dict ready for ``json.dumps``)."""
    return {**_head(complex_), "regions": list(_region_entries(complex_)),
            "adjacency": [[i, j, sorted(neurons)] for i, j, neurons in complex_.adjacency],
            "linear_regions": [sorted(component) for component in complex_.linear_regions]}


def _head(complex_: RegionComplex) -> dict[str, Any]:
    """The document's entries before its regions."""
    from polyregions.networks.io import network_to_json
    from polyregions.networks.stages import StagedNetwork
    from polyregions.networks.stages_format import stages_to_json
    from polyregions.regions.domain_files import domain_to_json

    expect_complex(complex_)
    network = complex_.network
    return {
        "format": FORMAT,
        "network": stages_to_json(network) if isinstance(network, StagedNetwork) else network_to_json(network),
        "domain": domain_to_json(complex_.domain),
        "exact": complex_.exact,
        "engine": complex_.engine,
        "summary": complex_.summary(),
    }


def write_joined(stream: BinaryIO, texts: Iterable[str], separator: str = ", ") -> None:
    """Write ``texts`` joined by ``separator``, a piece of :data:`_PIECE` of them at a time."""
    piece: list[str] = []
    first = True
    for text in texts:
        piece.append(text)
        if len(piece) == _PIECE:
            stream.write(((separator if not first else "") + separator.join(piece)).encode())
            piece, first = [], False
    if piece:
        stream.write(((separator if not first else "") + separator.join(piece)).encode())


def write_complex_json(complex_: RegionComplex, path: str | os.PathLike) -> None:
    """Write the ``polyregions.regions/1`` JSON export of a region complex, atomically.

    Parameters
    ----------
    complex_ : RegionComplex
        The complex, from :func:`~polyregions.regions.enumeration.enumerate_regions`.
    path : str or os.PathLike
        The file to write (one line of JSON); an existing file is replaced only once the new one is complete
        (a symbolic link is written through, a device such as ``/dev/null`` written directly).

    Raises
    ------
    OutputError
        When the file cannot be written (a full disk, a missing folder); what stood at ``path`` is unchanged.

    Notes
    -----
    The document holds ``format``, ``network``, ``domain``, ``exact``, ``engine``, ``summary``, and for each
    region its ``pattern``, inequalities ``A``, ``b``, exact ``interior_point`` and ``output_map``, then the
    ``adjacency`` (``[i, j, neurons]``) and the ``linear_regions``. ``python -m proofs_check verify`` re-checks it
    without polyregions. See the file formats page of the documentation.

    Examples
    --------
    >>> import json, pathlib, tempfile
    >>> import polyregions as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sawtooth.json"
    >>> pr.write_complex_json(pr.enumerate_regions(pr.sawtooth(2), pr.box([0], [1])), path)
    >>> doc = json.loads(path.read_text())
    >>> doc["format"], len(doc["regions"]), doc["regions"][1]["interior_point"], doc["adjacency"][0]
    ('polyregions.regions/1', 4, ['3/8'], [0, 1, [3]])
    """
    expect_complex(complex_)
    expect_path(path)
    head = _head(complex_)

    def write(stream: BinaryIO) -> None:
        # The document as json.dumps(complex_to_json(complex_)) writes it, a region at a time: the whole text of
        # a large complex is many times its regions' size in memory.
        stream.write((json.dumps(head)[:-1] + ', "regions": [').encode())
        write_joined(stream, map(json.dumps, _region_entries(complex_)))
        stream.write(b'], "adjacency": [')
        write_joined(stream, (json.dumps([i, j, sorted(neurons)]) for i, j, neurons in complex_.adjacency))
        stream.write(b'], "linear_regions": [')
        write_joined(stream, (json.dumps(sorted(component)) for component in complex_.linear_regions))
        stream.write(b"]}\n")

    streamed_write(path, write)


def write_graphml(complex_: RegionComplex, path: str | os.PathLike) -> None:
    """Write the adjacency graph as GraphML (patterns and neuron labels as strings), atomically.

    Parameters
    ----------
    complex_ : RegionComplex
        The complex, from :func:`~polyregions.regions.enumeration.enumerate_regions`.
    path : str or os.PathLike
        The file to write, whole or not at all (as in :func:`write_complex_json`).

    Raises
    ------
    OutputError
        When the file cannot be written; what stood at ``path`` is unchanged.

    Notes
    -----
    A node per region, with attribute ``pattern`` (comma-separated piece indices); an edge per shared facet,
    with attribute ``neurons`` (comma-separated indices of the neurons that switch there). Any GraphML reader
    (networkx, Gephi, igraph) opens it.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import networkx as nx
    >>> import polyregions as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "sawtooth.graphml"
    >>> pr.write_graphml(pr.enumerate_regions(pr.sawtooth(2), pr.box([0], [1])), path)
    >>> graph = nx.read_graphml(path)
    >>> graph.number_of_nodes(), graph.number_of_edges(), graph.nodes["0"]["pattern"]
    (4, 3, '1,0,1,0')
    """
    import io

    import networkx as nx

    expect_complex(complex_)
    expect_path(path)
    graph = nx.Graph()
    for node, data in complex_.graph.nodes(data=True):
        graph.add_node(node, pattern=",".join(map(str, data["pattern"])))
    for i, j, data in complex_.graph.edges(data=True):
        graph.add_edge(i, j, neurons=",".join(map(str, data["neurons"])))
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer)
    atomic_write_bytes(path, buffer.getvalue())
