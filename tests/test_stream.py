"""A streamed enumeration (``polyregions.store/1``) holds the complex the LP engine gives in memory, resumes
after an interruption to the same store, and refuses stores of other enumerations."""

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions._support import dask_clusters
from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.networks.activations import leaky_relu
from polyregions.networks.initializers import he_normal
from polyregions.regions import _streamed, stream
from polyregions.regions.domains import box, polytope_domain, segment, slice_domain, space
from polyregions.regions.enumeration import enumerate_regions
from tests.store_reading import (
    Stopped,
    assert_exports_are_the_complexs,
    assert_store_holds,
    both_exports,
    network_file,
    read_store,
    stop_after,
)


def stream_regions(*args, **kwargs):
    """The general engine's stream (a bounded 2-D domain's own, the mesh engine's, is tested in
    test_stream_mesh.py)."""
    return stream.stream_regions(*args, engine="lp", **kwargs)


CASES = [
    ("box 2-D", [2, 6, 6], box([-1, -1], [1, 1])),
    ("box 3-D", [3, 5, 5], box([-1] * 3, [1] * 3)),
    ("box 4-D", [4, 5, 4], box([-1] * 4, [1] * 4)),
    ("space 2-D", [2, 4, 4, 3], space(2)),
    ("space 3-D", [3, 6, 4], space(3)),
    ("polytope", [3, 5, 5], polytope_domain([[-1, 0, 0], [0, -1, 0], [0, 0, -1], [1, 1, 1]], [1, 1, 1, 2])),
]


@pytest.mark.parametrize("name, widths, domain", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("share_cells", [None, 1, 4])
def test_the_store_holds_the_complex_of_the_lp_engine(tmp_path, name, widths, domain, share_cells):
    network = he_normal(widths, seed=3)
    complex_ = enumerate_regions(network, domain, engine="lp")
    path = tmp_path / "store.sqlite"
    assert stream_regions(network, domain, path, share_cells=share_cells) == complex_.summary()
    stored = assert_store_holds(path, complex_)
    if share_cells == 1:
        assert len(stored["shares"]) == int(stored["meta"]["first_cells"]) > 1  # shares to join
        assert stored["facets"]  # facets between shares decided at the end


OTHER_CASES = [
    ("segment", he_normal([3, 5, 4], seed=1), segment([-1, -1, -1], [1, 2, 1])),
    ("slice", he_normal([3, 5, 4], seed=1), slice_domain([0, 0, 0], [[1, 0, 0], [0, 1, 1]], [-1, -1], [1, 1])),
    ("one layer and an output", he_normal([3, 5], seed=2, output_dim=2), box([-1] * 3, [1] * 3)),
    ("hard tanh in space", he_normal([2, 4, 4], seed=3, activation="hardtanh", bias_std=0.3), space(2)),
    ("leaky relu", he_normal([2, 4, 4], seed=3, activation=leaky_relu(0.1)), box([-1, -1], [1, 1])),
]


@pytest.mark.parametrize("name, network, domain", OTHER_CASES, ids=[case[0] for case in OTHER_CASES])
def test_other_domains_and_activations_stream_to_their_complex(tmp_path, name, network, domain):
    complex_ = enumerate_regions(network, domain, engine="lp")
    path = tmp_path / "store.sqlite"
    assert stream_regions(network, domain, path, share_cells=2) == complex_.summary()
    assert_store_holds(path, complex_)


@pytest.mark.parametrize("name, widths, domain", [CASES[2], CASES[3]], ids=["box 4-D", "space 2-D"])
def test_two_workers_give_the_same_store(tmp_path, name, widths, domain):
    network = he_normal(widths, seed=4)
    complex_ = enumerate_regions(network, domain, engine="lp")
    path = tmp_path / "store.sqlite"
    assert stream_regions(network, domain, path, workers=2, share_cells=2) == complex_.summary()
    assert_store_holds(path, complex_)


# (a 3-D box of 45 regions: with every facet its own program, [3, 5, 5]'s 115 regions take 20 s)
@pytest.mark.parametrize("name, widths, domain", [("box 3-D", [3, 4, 4], CASES[1][2]), CASES[3]],
                         ids=["box 3-D", "space 2-D"])
def test_facets_no_guess_proves_are_decided_by_certified_programs(tmp_path, monkeypatch, name, widths, domain):
    network = he_normal(widths, seed=5)
    complex_ = enumerate_regions(network, domain, engine="lp")
    monkeypatch.setattr(_streamed, "guesses", lambda *args: iter(()))  # every open facet goes to the programs
    path = tmp_path / "store.sqlite"
    assert stream_regions(network, domain, path, share_cells=2) == complex_.summary()
    assert assert_store_holds(path, complex_)["facets"]


def test_a_streamed_2d_box_is_tiled_by_its_regions(tmp_path):
    from polyregions.polyhedra.polytope import Polytope

    network = he_normal([2, 5, 5], seed=5)
    path = tmp_path / "store.sqlite"
    stream_regions(network, box([-1, -1], [1, 1]), path, share_cells=2)
    regions = read_store(path)["regions"].values()
    volumes = [Polytope([[Fraction(v) for v in row] for row in A], [Fraction(v) for v in b], 2).volume()
               for A, b, _, _ in regions]
    assert sum(volumes) == 4 and all(volume > 0 for volume in volumes)


@settings(max_examples=12, deadline=None)
@given(widths=st.lists(st.integers(1, 5), min_size=1, max_size=3), dim=st.integers(1, 3),
       seed=st.integers(0, 10 ** 6), share_cells=st.integers(1, 3), bounded=st.booleans())
def test_random_small_networks_stream_to_their_complex(tmp_path_factory, widths, dim, seed, share_cells, bounded):
    network = he_normal([dim, *widths], seed=seed, bias_std=0.5)
    domain = box([-1] * dim, [2] * dim) if bounded else space(dim)
    complex_ = enumerate_regions(network, domain, engine="lp")
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    assert stream_regions(network, domain, path, share_cells=share_cells) == complex_.summary()
    assert_store_holds(path, complex_)


@pytest.mark.parametrize("workers", [1, 2])
def test_an_interrupted_run_keeps_its_shares_and_resumes_to_the_same_store(tmp_path, workers):
    network, domain = he_normal([3, 6, 6], seed=6), box([-1] * 3, [1] * 3)
    whole = tmp_path / "whole.sqlite"
    summary = stream_regions(network, domain, whole, share_cells=3)
    path = tmp_path / "stopped.sqlite"
    with pytest.raises(Stopped):
        stream_regions(network, domain, path, share_cells=3, workers=workers, on_share=stop_after(2))
    stopped = read_store(path)
    assert len(stopped["shares"]) == 2 and "summary" not in stopped["meta"]
    assert len(stopped["ids"]) == sum(regions for _, _, regions in stopped["shares"]) > 0
    seen = []
    assert stream_regions(network, domain, path, share_cells=3, workers=workers,
                          on_share=lambda shares, regions: seen.append(shares)) == summary
    assert seen and seen[0] == 3  # the committed shares were not refined again
    resumed, complete = read_store(path), read_store(whole)
    assert set(resumed["patterns"].values()) == set(complete["patterns"].values())
    assert resumed["adjacency"] == complete["adjacency"]
    assert resumed["meta"]["summary"] == complete["meta"]["summary"]


def test_a_finished_store_gives_its_summary_without_work(tmp_path, monkeypatch):
    network, domain = he_normal([2, 4, 4], seed=7), box([-1, -1], [1, 1])
    path = tmp_path / "store.sqlite"
    summary = stream_regions(network, domain, path)

    def no_work(*args, **kwargs):
        raise AssertionError("a finished store was refined again")
    monkeypatch.setattr(_streamed, "first_layer", no_work)
    assert stream_regions(network, domain, path) == summary


def test_the_share_plan_covers_the_gaps_between_committed_shares():
    assert list(_streamed.planned_shares(10, [(2, 3), (7, 1)], lambda: 2)) == [(0, 2), (5, 2), (8, 2)]
    assert list(_streamed.planned_shares(3, [], lambda: 5)) == [(0, 3)]
    assert _streamed.share_size(1000, 1, 0, 0) == 1
    assert _streamed.share_size(1000, 1, 10, 2048 * 10, 8) == 1
    assert _streamed.share_size(1000, 1, 10, 100, 1) == 2  # 204.8 cells at the rate seen, but at most doubling
    assert _streamed.share_size(1000, 2, 10, 100, 100) == 125  # capped for balance
    assert _streamed.share_size(1000, 2, 10, 100, 60) == 120


def test_bad_stores_and_arguments_are_refused(tmp_path):
    network, domain = he_normal([2, 3, 3], seed=8), box([-1, -1], [1, 1])
    text = tmp_path / "notes.txt"
    text.write_text("not a database, long enough to be read as one " * 4)
    with pytest.raises(InvalidInputError, match=f"{text}: expected a polyregions.store/1 region store"):
        stream_regions(network, domain, text)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    with pytest.raises(InvalidInputError, match="an SQLite database with other tables"):
        stream_regions(network, domain, other)
    path = tmp_path / "store.sqlite"
    stream_regions(network, domain, path)
    with pytest.raises(InvalidInputError, match=f"{path}: expected the store of this network and domain"):
        stream_regions(he_normal([2, 3, 3], seed=9), domain, path)
    with pytest.raises(InvalidInputError, match="another network or domain"):
        stream_regions(network, box([-1, -1], [2, 2]), path)
    with pytest.raises(InvalidInputError, match="share_cells: expected a positive integer"):
        stream_regions(network, domain, tmp_path / "new.sqlite", share_cells=0)
    with pytest.raises(InvalidInputError, match="workers: expected a positive integer"):
        stream_regions(network, domain, tmp_path / "new.sqlite", workers=True)
    with pytest.raises(InvalidInputError, match="missing directory"):
        stream_regions(network, domain, tmp_path / "missing" / "store.sqlite")
    assert not (tmp_path / "new.sqlite").exists()


# --- the command line ---------------------------------------------------------------------------------------

def test_the_command_prints_the_same_summary_with_and_without_stream(tmp_path, capsys):
    net = network_file(tmp_path, [3, 5, 5], 10)
    assert main(["regions", net, "--box", "-1,1", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    store = str(tmp_path / "store.sqlite")
    assert main(["regions", net, "--box", "-1,1", "--json", "--stream", store, "--workers", "2"]) == 0
    streamed = json.loads(capsys.readouterr().out)
    # a 3-D box is the mesh engine's in memory; a store is written by the general engine
    assert (alone.pop("engine"), streamed.pop("engine")) == ("mesh", "lp")
    assert streamed == alone
    assert main(["regions", net, "--box", "-1,1", "--stream", store]) == 0  # finished: read back, as text
    assert capsys.readouterr().out.startswith(f"{alone['activation_regions']} activation regions")


@pytest.mark.parametrize("extra, message", [
    (["--scheduler", "tcp://127.0.0.1:9"], "scheduler: cannot connect"),
    (["--export", "{tmp}/s.sqlite"], "--export: expected a file other than the --stream store"),
    (["--graphml", "{tmp}/s.sqlite"], "--graphml: expected a file other than the --stream store"),
])
def test_options_that_do_not_go_with_stream_give_one_line(tmp_path, capsys, monkeypatch, extra, message):
    monkeypatch.setattr(dask_clusters, "_CONNECT_SECONDS", 1)  # nothing listens on port 9: no need to wait 10 s
    net = network_file(tmp_path, [2, 3, 3], 11)
    extra = [part.format(tmp=tmp_path) for part in extra]
    with pytest.raises(SystemExit) as stopped:
        main(["regions", net, "--box", "-1,1", "--stream", str(tmp_path / "s.sqlite"), *extra])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith(f"polyregions: error: {message}")


def test_bad_stores_through_the_command_give_one_line_naming_the_file(tmp_path, capsys):
    net = network_file(tmp_path, [2, 3, 3], 12)
    text = tmp_path / "notes.txt"
    text.write_text("x" * 200)
    store = tmp_path / "store.sqlite"
    assert main(["regions", net, "--box", "-1,1", "--stream", str(store)]) == 0
    capsys.readouterr()
    other = network_file(tmp_path, [2, 3, 3], 13)
    for arguments, named in ((["regions", net, "--box", "-1,1", "--stream", str(text)], str(text)),
                             (["regions", other, "--box", "-1,1", "--stream", str(store)], str(store)),
                             (["regions", net, "--box", "-1,1", "--stream", str(tmp_path / "no" / "s.sqlite")],
                              "--stream"),
                             (["regions", net, "--box", "-1,1", "--stream", str(tmp_path)], "--stream")):
        with pytest.raises(SystemExit) as stopped:
            main(arguments)
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("polyregions: error: ") and named in err


def test_ctrl_c_keeps_the_committed_shares_and_the_same_command_resumes(tmp_path):
    net = network_file(tmp_path, [4, 10, 10], 0)
    store = tmp_path / "store.sqlite"
    command = [sys.executable, "-m", "polyregions", "regions", net, "--box", "-1,1", "--json", "--quiet"]
    process = subprocess.Popen([*command, "--stream", str(store)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True)
    # the store is locked while the run writes it, but it grows on disk only as shares are committed
    deadline = time.monotonic() + 120
    while (not store.exists() or store.stat().st_size < 100_000) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert process.poll() is None  # a run of several seconds more
    process.send_signal(signal.SIGINT)
    out, err = process.communicate(timeout=60)
    assert (process.returncode, out, err) == (130, "", "polyregions: interrupted\n")
    stopped = read_store(store)
    assert "summary" not in stopped["meta"] and stopped["shares"]
    assert len(stopped["ids"]) == sum(regions for _, _, regions in stopped["shares"])
    with sqlite3.connect(store) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    resumed = subprocess.run([*command, "--stream", str(store)], capture_output=True, text=True, timeout=300)
    alone = subprocess.run([*command, "--engine", "lp"], capture_output=True, text=True, timeout=300)  # as streamed
    assert resumed.returncode == alone.returncode == 0 and resumed.stderr == ""
    assert json.loads(resumed.stdout) == json.loads(alone.stdout)
    assert read_store(store)["shares"][:len(stopped["shares"])] == stopped["shares"]
    assert not [name for name in os.listdir(tmp_path) if name.startswith("store.sqlite-")]  # no journal left


# --- the exports, written from a finished store -------------------------------------------------------------

def _maxout_graph_network():
    from polyregions.networks.graph import GraphNetwork, Node
    from polyregions.networks.operations import Dense, Maxout

    first = Dense([[1, 2], [-2, 1], [3, -1], [1, 1], [2, -3], [-1, -1]], [0, 1, -1, 0, "1/2", "1/3"])
    return GraphNetwork((2,), (Node("d", first, ("input",)), Node("m", Maxout(2), ("d",)),
                               Node("e", Dense([[1, -1, 2], [2, 1, -1]], [0, "-1/2"]), ("m",))), "e")


EXPORT_CASES = [
    ("box 2-D", he_normal([2, 6, 6], seed=3), box([-1, -1], [1, 1])),
    ("box 3-D", he_normal([3, 5, 5], seed=3), box([-1] * 3, [1] * 3)),
    ("space 2-D", he_normal([2, 4, 4, 3], seed=3), space(2)),
    ("polytope", he_normal([3, 5, 5], seed=3),
     polytope_domain([[-1, 0, 0], [0, -1, 0], [0, 0, -1], [1, 1, 1]], [1, 1, 1, 2])),
    ("segment", he_normal([3, 5, 4], seed=1), segment([-1, -1, -1], [1, 2, 1])),
    ("slice", he_normal([3, 5, 4], seed=1), slice_domain([0, 0, 0], [[1, 0, 0], [0, 1, 1]], [-1, -1], [1, 1])),
    ("two outputs", he_normal([3, 5], seed=2, output_dim=2), box([-1] * 3, [1] * 3)),
    ("maxout graph network", _maxout_graph_network(), box([-1, -1], [1, 1])),
]


@pytest.mark.parametrize("name, network, domain", EXPORT_CASES, ids=[case[0] for case in EXPORT_CASES])
def test_the_exports_written_from_the_store_are_those_of_the_complex(tmp_path, name, network, domain):
    complex_ = enumerate_regions(network, domain, engine="lp")
    store = tmp_path / "store.sqlite"
    stream_regions(network, domain, store, share_cells=2)
    streamed_graph = assert_exports_are_the_complexs(tmp_path, complex_, store)
    assert list(streamed_graph.nodes) == [str(i) for i in range(len(complex_))]
    assert [streamed_graph.nodes[str(i)]["pattern"] for i in range(len(complex_))] == [
        ",".join(map(str, region.pattern)) for region in complex_.regions]


def test_the_exports_of_a_store_hold_the_regions_exactly(tmp_path):
    """Checked against the network itself: the regions by pattern, each output map the network's values at
    points of the region, the adjacency by the patterns, the linear regions by merging equal maps."""
    network, domain = he_normal([2, 5, 5], seed=11), box([-1, -1], [1, 1])
    store = tmp_path / "store.sqlite"
    summary = stream_regions(network, domain, store, share_cells=1)
    from polyregions.regions.stream import write_store_json

    write_store_json(store, tmp_path / "streamed.json")
    doc = json.loads((tmp_path / "streamed.json").read_text())
    assert doc["summary"] == summary and len(doc["regions"]) == summary["activation_regions"]
    patterns = [tuple(region["pattern"]) for region in doc["regions"]]
    assert patterns == sorted(patterns) and len(set(patterns)) == len(patterns)
    for region in doc["regions"]:
        t = [Fraction(v) for v in region["interior_point"]]
        assert network.pattern(t) == tuple(region["pattern"])
        M = [[Fraction(v) for v in row] for row in region["output_map"]["M"]]
        c = [Fraction(v) for v in region["output_map"]["c"]]
        assert tuple(sum((m * x for m, x in zip(row, t)), ci) for row, ci in zip(M, c)) == network(t)
    assert [(i, j) for i, j, _ in doc["adjacency"]] == sorted({(i, j) for i, j, _ in doc["adjacency"]})
    for i, j, neurons in doc["adjacency"]:
        assert i < j and neurons == [n for n, (a, b) in enumerate(zip(patterns[i], patterns[j])) if a != b]
    assert len(doc["adjacency"]) == summary["adjacencies"] and len(doc["linear_regions"]) == summary["linear_regions"]
    members = [i for component in doc["linear_regions"] for i in component]
    assert sorted(members) == list(range(len(patterns)))
    assert [component[0] for component in doc["linear_regions"]] == sorted(c[0] for c in doc["linear_regions"])
    assert all(component == sorted(component) for component in doc["linear_regions"])


@pytest.mark.parametrize("activation, pattern", [("relu", "1"), ("linear", "")],
                         ids=["a neuron that does not cut the box", "no neuron"])
def test_a_store_of_one_region_exports_a_graph_without_edges(tmp_path, activation, pattern):
    from polyregions.networks.network import Network

    network = Network.from_layers(2, [([[1, 1]], [5], activation)])  # its hyperplane misses the box
    complex_ = enumerate_regions(network, box([-1, -1], [1, 1]), engine="lp")
    store = tmp_path / "store.sqlite"
    stream_regions(network, box([-1, -1], [1, 1]), store)
    (memory, streamed), (memory_graph, streamed_graph) = both_exports(tmp_path, complex_, store)
    assert streamed == memory and streamed["adjacency"] == [] and streamed["linear_regions"] == [[0]]
    assert list(streamed_graph.nodes(data=True)) == [("0", {"pattern": pattern})]
    assert list(memory_graph.nodes(data=True)) == [("0", {"pattern": pattern})]
    assert streamed_graph.number_of_edges() == 0


@settings(max_examples=8, deadline=None)
@given(widths=st.lists(st.integers(1, 4), min_size=1, max_size=3), dim=st.integers(1, 3),
       seed=st.integers(0, 10 ** 6), share_cells=st.integers(1, 3), bounded=st.booleans())
def test_random_small_stores_export_the_complex(tmp_path_factory, widths, dim, seed, share_cells, bounded):
    import networkx as nx

    network = he_normal([dim, *widths], seed=seed, bias_std=0.5)
    domain = box([-1] * dim, [2] * dim) if bounded else space(dim)
    complex_ = enumerate_regions(network, domain, engine="lp")
    folder = tmp_path_factory.mktemp("exports")
    stream_regions(network, domain, folder / "store.sqlite", share_cells=share_cells)
    (memory, streamed), (memory_graph, streamed_graph) = both_exports(folder, complex_, folder / "store.sqlite")
    assert streamed == memory
    assert nx.utils.graphs_equal(streamed_graph, memory_graph)


def test_exports_go_to_a_device_directly(tmp_path):
    import stat

    from polyregions.regions.stream import write_store_graphml, write_store_json

    store = tmp_path / "store.sqlite"
    stream_regions(he_normal([2, 3, 3], seed=8), box([-1, -1], [1, 1]), store)
    write_store_json(store, os.devnull)
    write_store_graphml(store, os.devnull)
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode)
    assert not [name for name in os.listdir("/dev") if "polyregions-tmp" in name]


def test_an_interrupted_export_leaves_the_old_file_and_no_temporary_file(tmp_path, monkeypatch):
    from polyregions.regions import _store_export
    from polyregions.regions.stream import write_store_graphml, write_store_json

    store = tmp_path / "store.sqlite"
    stream_regions(he_normal([2, 4, 4], seed=8), box([-1, -1], [1, 1]), store)
    target = tmp_path / "export.json"
    target.write_text("old")

    def stopped(*args):
        yield "{}"
        raise Stopped
    monkeypatch.setattr(_store_export, "_region_texts", stopped)
    monkeypatch.setattr(_store_export, "_PIECE", 1)  # the first piece reaches the temporary file
    with pytest.raises(Stopped):
        write_store_json(store, target)
    with pytest.raises(Stopped):
        write_store_json(store, tmp_path / "new")
    assert target.read_text() == "old" and not (tmp_path / "new").exists()
    assert sorted(os.listdir(tmp_path)) == ["export.json", "store.sqlite"]
    monkeypatch.undo()
    write_store_graphml(store, tmp_path / "graph.graphml")  # the store is still readable and unlocked
    write_store_json(store, target)
    assert json.loads(target.read_text())["format"] == "polyregions.regions/1"


def test_stores_that_cannot_be_exported_are_refused_by_name(tmp_path):
    from polyregions.errors import OutputError
    from polyregions.regions.stream import write_store_graphml, write_store_json

    network, domain = he_normal([3, 6, 6], seed=6), box([-1] * 3, [1] * 3)
    unfinished = tmp_path / "unfinished.sqlite"
    with pytest.raises(Stopped):
        stream_regions(network, domain, unfinished, share_cells=3, on_share=stop_after(1))
    text = tmp_path / "notes.txt"
    text.write_text("not a database, long enough to be read as one " * 4)
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as db:
        db.execute("CREATE TABLE t (x)")
    out = tmp_path / "out"
    for write in (write_store_json, write_store_graphml):
        for path, message in ((unfinished, "got the store of a run that has not finished"),
                              (text, "got a file that is not an SQLite database"),
                              (other, "got an SQLite database with other tables"),
                              (tmp_path / "missing.sqlite", "got a file that cannot be read"),
                              (tmp_path, "got a directory")):
            with pytest.raises(InvalidInputError, match="expected a finished polyregions.store/1 region") as error:
                write(path, out)
            assert str(error.value).startswith(f"{path}: ") and message in str(error.value)
        with pytest.raises(InvalidInputError, match="expected an output file other than the store"):
            write(unfinished, unfinished)
        with pytest.raises(InvalidInputError, match="store_path: expected a file path"):
            write(3, out)
    store = tmp_path / "store.sqlite"
    stream_regions(network, domain, store, share_cells=3)
    with pytest.raises(OutputError, match="missing"):
        write_store_json(store, tmp_path / "missing" / "x.json")
    assert not out.exists()
    assert "summary" not in read_store(unfinished)["meta"]  # reading a store never writes it


def test_the_command_writes_the_exports_of_a_streamed_run(tmp_path, capsys):
    import networkx as nx

    net = network_file(tmp_path, [3, 5, 5], 14)
    memory = [str(tmp_path / name) for name in ("memory.json", "memory.graphml")]
    streamed = [str(tmp_path / name) for name in ("streamed.json", "streamed.graphml")]
    assert main(["regions", net, "--box", "-1,1", "--json", "--engine", "lp", "--export", memory[0],
                 "--graphml", memory[1]]) == 0
    alone = capsys.readouterr().out
    store = str(tmp_path / "store.sqlite")
    assert main(["regions", net, "--box", "-1,1", "--json", "--stream", store, "--workers", "2",
                 "--export", streamed[0], "--graphml", streamed[1]]) == 0
    assert capsys.readouterr().out == alone
    assert json.loads(open(streamed[0]).read()) == json.loads(open(memory[0]).read())
    assert nx.utils.graphs_equal(nx.read_graphml(streamed[1]), nx.read_graphml(memory[1]))
    os.remove(streamed[0])
    assert main(["regions", net, "--box", "-1,1", "--stream", store, "--export", streamed[0]]) == 0  # finished
    assert json.loads(open(streamed[0]).read()) == json.loads(open(memory[0]).read())


def test_ctrl_c_while_the_command_writes_the_export_leaves_no_file(tmp_path, capsys, monkeypatch):
    from polyregions.regions import _store_export

    net = network_file(tmp_path, [2, 4, 4], 15)
    store, export = tmp_path / "store.sqlite", tmp_path / "export.json"

    def interrupted(*args):
        yield "{}"
        raise KeyboardInterrupt
    monkeypatch.setattr(_store_export, "_region_texts", interrupted)
    monkeypatch.setattr(_store_export, "_PIECE", 1)
    assert main(["regions", net, "--box", "-1,1", "--stream", str(store), "--export", str(export)]) == 130
    assert capsys.readouterr().err == "polyregions: interrupted\n"
    assert sorted(os.listdir(tmp_path)) == ["net15.json", "store.sqlite"]
    assert "summary" in read_store(store)["meta"]  # the run itself finished before the export began


def test_a_bad_store_or_export_path_through_the_command_gives_one_line(tmp_path, capsys):
    net = network_file(tmp_path, [2, 3, 3], 16)
    text = tmp_path / "notes.txt"
    text.write_text("x" * 200)
    for arguments, named in (
            (["--stream", str(text), "--export", str(tmp_path / "x.json")], str(text)),
            (["--stream", str(tmp_path / "s.sqlite"), "--export", str(tmp_path / "no" / "x.json")], "--export"),
            (["--stream", str(tmp_path / "s.sqlite"), "--graphml", str(tmp_path)], "--graphml")):
        with pytest.raises(SystemExit) as stopped:
            main(["regions", net, "--box", "-1,1", *arguments])
        assert stopped.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("polyregions: error: ") and named in err
    assert not (tmp_path / "s.sqlite").exists()  # refused before the run


# --- shares as tasks of a Dask cluster ----------------------------------------------------------------------

@pytest.fixture(scope="module")
def cluster():
    distributed = pytest.importorskip("dask.distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as local:
        yield local


@pytest.mark.parametrize("name, widths, domain", [CASES[1], CASES[3]], ids=["box 3-D", "space 2-D"])
def test_a_cluster_streams_the_store_of_one_process(cluster, tmp_path, name, widths, domain):
    from dask.distributed import Client

    network = he_normal(widths, seed=1)
    complex_ = enumerate_regions(network, domain, engine="lp")
    path = tmp_path / "by_address.sqlite"
    assert stream_regions(network, domain, path, share_cells=2, scheduler=cluster.scheduler_address) == \
        complex_.summary()
    assert len(assert_store_holds(path, complex_)["shares"]) > 2
    with Client(cluster) as client:
        assert stream_regions(network, domain, tmp_path / "by_client.sqlite", share_cells=1,
                              scheduler=client) == complex_.summary()
    assert_store_holds(tmp_path / "by_client.sqlite", complex_)


def test_a_run_on_a_cluster_commits_each_share_and_resumes_anywhere(cluster, tmp_path):
    network, domain = he_normal([3, 6, 6], seed=6), box([-1] * 3, [1] * 3)
    summary = stream_regions(network, domain, tmp_path / "whole.sqlite", share_cells=3)
    path = tmp_path / "stopped.sqlite"
    with pytest.raises(Stopped):
        stream_regions(network, domain, path, share_cells=3, scheduler=cluster.scheduler_address,
                       on_share=stop_after(2))
    stopped = read_store(path)
    assert len(stopped["shares"]) == 2 and "summary" not in stopped["meta"]
    assert stream_regions(network, domain, path, share_cells=3) == summary  # resumed in this process
    assert read_store(path)["adjacency"] == read_store(tmp_path / "whole.sqlite")["adjacency"]


def test_the_command_streams_on_a_cluster_with_its_exports(cluster, tmp_path, capsys):
    net = network_file(tmp_path, [3, 5, 5], 17)
    assert main(["regions", net, "--box", "-1,1", "--json", "--engine", "lp", "--export",
                 str(tmp_path / "memory.json")]) == 0
    alone = capsys.readouterr().out
    assert main(["regions", net, "--box", "-1,1", "--json", "--stream", str(tmp_path / "store.sqlite"),
                 "--scheduler", cluster.scheduler_address, "--export", str(tmp_path / "streamed.json")]) == 0
    assert capsys.readouterr().out == alone
    assert json.loads((tmp_path / "streamed.json").read_text()) == json.loads((tmp_path / "memory.json").read_text())


def test_a_bad_scheduler_is_refused_before_any_work(tmp_path):
    network, domain = he_normal([2, 3, 3], seed=8), box([-1, -1], [1, 1])
    with pytest.raises(InvalidInputError, match="scheduler: expected an address"):
        stream_regions(network, domain, tmp_path / "store.sqlite", scheduler=3)
    assert not (tmp_path / "store.sqlite").exists()
