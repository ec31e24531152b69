"""Export of a region complex: JSON with its certificates, and GraphML for the adjacency graph.

The JSON document (``polyregions.regions/1``) holds everything an independent checker needs to re-verify the
complex exactly: the network, the domain, and for each region its pattern, its inequalities, its exact
interior point and its output map. Every number is an exact string such as ``"-7/12"``.
"""

from __future__ import annotations

import json
import os
from fractions import Fraction
from typing import Any

from polyregions._atomic import atomic_write_text
from polyregions.regions.complex import RegionComplex

__all__ = ["complex_to_json", "write_complex_json", "write_graphml", "FORMAT"]

FORMAT = "polyregions.regions/1"


def _numbers(values) -> list:
    return [_numbers(v) if isinstance(v, (tuple, list)) else str(Fraction(v)) for v in values]


def complex_to_json(complex_: RegionComplex) -> dict[str, Any]:
    """The JSON document of a region complex (a dict ready for ``json.dumps``)."""
    from polyregions.regions.domains import domain_to_json
    from polyregions.networks.io import network_to_json

    return {
        "format": FORMAT,
        "network": network_to_json(complex_.network),
        "domain": domain_to_json(complex_.domain),
        "exact": complex_.exact,
        "engine": complex_.engine,
        "summary": complex_.summary(),
        "regions": [{
            "pattern": list(region.pattern),
            "A": _numbers(region.A),
            "b": _numbers(region.b),
            "interior_point": _numbers(region.interior_point),
            "output_map": {"M": _numbers(region.output_map[0]), "c": _numbers(region.output_map[1])},
        } for region in complex_.regions],
        "adjacency": [[i, j, sorted(neurons)] for i, j, neurons in complex_.adjacency],
        "linear_regions": [sorted(component) for component in complex_.linear_regions],
    }


def write_complex_json(complex_: RegionComplex, path: str | os.PathLike) -> None:
    """Write the JSON export atomically."""
    atomic_write_text(path, json.dumps(complex_to_json(complex_)) + "\n")


def write_graphml(complex_: RegionComplex, path: str | os.PathLike) -> None:
    """Write the adjacency graph as GraphML (patterns and neuron labels as strings), atomically."""
    import io

    import networkx as nx

    graph = nx.Graph()
    for node, data in complex_.graph.nodes(data=True):
        graph.add_node(node, pattern=",".join(map(str, data["pattern"])))
    for i, j, data in complex_.graph.edges(data=True):
        graph.add_edge(i, j, neurons=",".join(map(str, data["neurons"])))
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer)
    atomic_write_text(path, buffer.getvalue().decode("utf-8"))
