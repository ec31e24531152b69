"""A region store (``polyregions.store/1``) read with sqlite3 alone, and checked against a complex in memory; the
network files the streaming commands are given, and a run stopped after some shares."""

import json
import sqlite3
from fractions import Fraction


def read_store(path):
    """What a store holds, read with sqlite3 alone: meta, patterns by id, and the adjacency by patterns."""
    with sqlite3.connect(path) as db:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        size = int(meta["pattern_bytes"])
        patterns = {i: tuple(int.from_bytes(blob[k:k + size], "big") for k in range(0, len(blob), size))
                    for i, blob in db.execute("SELECT id, pattern FROM regions")}
        regions = {patterns[i]: (json.loads(A), json.loads(b), json.loads(point), rows)
                   for i, A, b, point, rows in db.execute("SELECT id, A, b, interior_point, domain_rows FROM regions")}
        adjacency = {tuple(sorted((patterns[i], patterns[j]))): neurons for i, j, neurons in
                     db.execute("SELECT first, second, neurons FROM adjacency")}
        facets = list(db.execute("SELECT region, row, point FROM open_facets"))
        shares = list(db.execute("SELECT first, cells, regions FROM shares"))
        ids = sorted(patterns)
    return {"meta": meta, "patterns": patterns, "regions": regions, "adjacency": adjacency, "facets": facets,
            "shares": shares, "ids": ids}


def assert_store_holds(path, complex_):
    """The store's summary, patterns, adjacency (with the switching neurons) and geometry are the complex's."""
    stored = read_store(path)
    assert json.loads(stored["meta"]["summary"]) == complex_.summary()
    assert stored["ids"] == list(range(len(complex_)))
    assert set(stored["patterns"].values()) == {region.pattern for region in complex_.regions}
    expected = {}
    for i, j, neurons in complex_.adjacency:
        p, q = sorted((complex_.regions[i].pattern, complex_.regions[j].pattern))
        expected[(p, q)] = ",".join(map(str, sorted(neurons)))
    assert stored["adjacency"] == expected
    net = complex_.regions[0].network  # in domain coordinates, as the store's regions are
    for pattern, (A, b, point, domain_rows) in stored["regions"].items():
        t = [Fraction(v) for v in point]
        assert net.pattern(t) == pattern
        for row, bound in zip(A, b):
            assert sum(Fraction(a) * x for a, x in zip(row, t)) < Fraction(bound)
        assert 0 <= domain_rows <= len(A)
    rows_of = {i: stored["regions"][pattern] for i, pattern in stored["patterns"].items()}
    for region, row, point in stored["facets"]:
        A, b, _, domain_rows = rows_of[region]
        q = [Fraction(v) for v in json.loads(point)]
        assert row >= domain_rows
        for r, (a, bound) in enumerate(zip(A, b)):
            value = sum(Fraction(x) * y for x, y in zip(a, q)) - Fraction(bound)
            assert value == 0 if r == row else value < 0
    return stored


def both_exports(tmp_path, complex_, store):
    """The JSON documents and GraphML graphs of the complex (in memory) and of the store."""
    import networkx as nx

    from polyregions.regions.export import write_complex_json, write_graphml
    from polyregions.regions.stream import write_store_graphml, write_store_json

    write_complex_json(complex_, tmp_path / "memory.json")
    write_graphml(complex_, tmp_path / "memory.graphml")
    write_store_json(store, tmp_path / "streamed.json")
    write_store_graphml(store, tmp_path / "streamed.graphml")
    return ([json.loads((tmp_path / name).read_text()) for name in ("memory.json", "streamed.json")],
            [nx.read_graphml(tmp_path / name) for name in ("memory.graphml", "streamed.graphml")])


def assert_exports_are_the_complexs(tmp_path, complex_, store):
    """The store's JSON export and GraphML graph are the complex's, and the JSON verifies; the graph returned."""
    import networkx as nx

    from proofs_check.verify import verify_export

    (memory, streamed), (memory_graph, streamed_graph) = both_exports(tmp_path, complex_, store)
    assert streamed == memory
    result = verify_export(streamed)
    assert result.verified, result.failure
    assert nx.utils.graphs_equal(streamed_graph, memory_graph)
    return streamed_graph


def network_file(tmp_path, widths, seed):
    """A He-normal network of these widths saved in ``tmp_path``: its path."""
    from polyregions.networks.initializers import he_normal
    from polyregions.networks.io import save_network

    path = tmp_path / f"net{seed}.json"
    save_network(he_normal(widths, seed=seed), path)
    return str(path)


class Stopped(KeyboardInterrupt):
    """What :func:`stop_after` raises: an interruption, as Ctrl-C is."""


def stop_after(count):
    """An ``on_share`` callback that interrupts the run once ``count`` shares are committed."""
    def on_share(shares, regions):
        if shares >= count:
            raise Stopped
    return on_share
