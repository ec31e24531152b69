"""A region store is input like any other file: a finished or unfinished ``polyregions.store/1`` whose rows or
summary were edited, lost or corrupted is refused when read, with one line naming the store and the field, by
``stream_regions``, by the exports and through the command line (never a wrong count, never a traceback), whichever
engine wrote it."""

import json
import shutil
import sqlite3

import pytest

from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.networks.initializers import he_normal
from polyregions.networks.io import save_network
from polyregions.regions.domains import box
from polyregions.regions.stream import stream_regions, write_store_graphml, write_store_json

NETWORK, DOMAIN = he_normal([2, 4, 4], seed=3), box([-1, -1], [1, 1])


class _Stop(Exception):
    pass


def _stop(shares, regions):
    raise _Stop


@pytest.fixture(scope="module", params=["lp", "mesh"])
def stores(tmp_path_factory, request):
    folder = tmp_path_factory.mktemp("stores")
    finished, unfinished = folder / "finished.sqlite", folder / "unfinished.sqlite"
    summary = stream_regions(NETWORK, DOMAIN, finished, engine=request.param, share_cells=2)
    with pytest.raises(_Stop):
        stream_regions(NETWORK, DOMAIN, unfinished, engine=request.param, share_cells=2, on_share=_stop)
    save_network(NETWORK, folder / "net.json")
    return folder, summary, request.param


def _summary_with(**changes):
    return lambda db: db.execute("UPDATE meta SET value = json_patch(value, ?) WHERE key = 'summary'",
                                 (json.dumps(changes),))


def _sql(statement):
    return lambda db: db.execute(statement)


def _lost_last(db):
    db.execute("DELETE FROM adjacency WHERE second = (SELECT MAX(id) FROM regions)")
    db.execute("DELETE FROM regions WHERE id = (SELECT MAX(id) FROM regions)")


# (name, store edited, the edit, the field named in the message)
EDITS = [
    ("summary of 999 regions", "finished", _summary_with(activation_regions=999), "meta.summary.activation_regions"),
    ("summary of other adjacencies", "finished", _summary_with(adjacencies=1), "meta.summary.adjacencies"),
    ("summary of other linear regions", "finished", _summary_with(linear_regions=2), "linear_regions"),
    ("summary of too many linear regions", "finished", _summary_with(linear_regions=10 ** 6), "linear_regions"),
    ("summary of a negative count", "finished", _summary_with(adjacencies=-1), "meta.summary.adjacencies"),
    ("summary of a string count", "finished", _summary_with(neurons="8"), "meta.summary.neurons"),
    ("summary of other neurons", "finished", _summary_with(neurons=9), "meta.summary.neurons"),
    ("summary not exact", "finished", _summary_with(exact=False), "meta.summary.exact"),
    ("summary not JSON", "finished", _sql("UPDATE meta SET value = '{regions: 3' WHERE key = 'summary'"),
     "meta.summary"),
    ("summary a list", "finished", _sql("UPDATE meta SET value = '[1, 2]' WHERE key = 'summary'"), "meta.summary"),
    ("summary without a key", "finished", _sql("UPDATE meta SET value = json_remove(value, '$.engine') "
                                               "WHERE key = 'summary'"), "meta.summary"),
    ("lost rows", "finished", _sql("DELETE FROM regions WHERE id = 3"), "regions.id"),
    ("lost last row", "finished", _sql("DELETE FROM regions WHERE id = (SELECT MAX(id) FROM regions)"),
     "adjacency"),  # a pair names the lost region
    # the general engine keeps the facets it decided at the end, one of which names the lost region; the mesh
    # engine joins its shares as they come, leaving no facet open
    ("lost last row and its pairs", "finished", _lost_last, {"lp": "open_facets", "mesh": "shares.regions"}),
    ("lost adjacency", "finished", _sql("DELETE FROM adjacency WHERE (first, second) IN "
                                        "(SELECT first, second FROM adjacency LIMIT 1)"),
     "meta.summary.adjacencies"),
    ("zero pattern_bytes", "finished", _sql("UPDATE meta SET value = '0' WHERE key = 'pattern_bytes'"),
     "meta.pattern_bytes"),
    ("pattern_bytes not a number", "finished", _sql("UPDATE meta SET value = 'two' WHERE key = 'pattern_bytes'"),
     "meta.pattern_bytes"),
    ("pattern_bytes 2 for 1-byte patterns", "finished",
     _sql("UPDATE meta SET value = '2' WHERE key = 'pattern_bytes'"), "meta.summary.neurons"),
    ("a short pattern", "finished", _sql("UPDATE regions SET pattern = x'01' WHERE id = 0"), "regions.pattern"),
    ("a pattern as text", "finished", _sql("UPDATE regions SET pattern = '01010101' WHERE id = 0"),
     "regions.pattern"),
    ("a piece out of range", "finished", _sql("UPDATE regions SET pattern = x'0909090909090909' WHERE id = 0"),
     "regions.pattern"),
    ("A not JSON", "finished", _sql("UPDATE regions SET A = '[[1, 2' WHERE id = 1"), "regions (id 1)"),
    ("A of numbers", "finished", _sql("UPDATE regions SET A = '[[1, 2]]', b = '[\"1\"]' WHERE id = 1"),
     "regions (id 1): A"),
    ("A of fractions", "finished", _sql("UPDATE regions SET A = json_set(A, '$[0][0]', '1/2') WHERE id = 2"),
     "regions (id 2): A"),
    ("b longer than A", "finished", _sql("UPDATE regions SET b = json_insert(b, '$[#]', '1') WHERE id = 2"),
     "regions (id 2)"),
    ("a point of three coordinates", "finished",
     _sql("UPDATE regions SET interior_point = '[\"0\", \"0\", \"0\"]' WHERE id = 2"), "regions (id 2)"),
    ("a point with a zero denominator", "finished",
     _sql("UPDATE regions SET interior_point = '[\"1/0\", \"0\"]' WHERE id = 2"), "regions (id 2): interior_point"),
    ("domain rows beyond the rows", "finished", _sql("UPDATE regions SET domain_rows = 99 WHERE id = 0"),
     "regions (id 0)"),
    ("an adjacency out of range", "finished", _sql("UPDATE adjacency SET second = 10000 WHERE (first, second) IN "
                                                   "(SELECT first, second FROM adjacency LIMIT 1)"), "adjacency"),
    ("an adjacency reversed", "finished", _sql("UPDATE adjacency SET first = second + 1 WHERE (first, second) IN "
                                               "(SELECT first, second FROM adjacency LIMIT 1)"), "adjacency"),
    ("a share's regions", "finished", _sql("UPDATE shares SET regions = regions + 1 WHERE id = 0"),
     "shares.regions"),
    ("a lost share", "finished", _sql("DELETE FROM shares WHERE id = 0"), "shares.regions"),
    ("first cells edited", "finished", _sql("UPDATE meta SET value = '1000' WHERE key = 'first_cells'"), "shares"),
    ("first cells not a number", "finished", _sql("UPDATE meta SET value = 'x' WHERE key = 'first_cells'"),
     "meta.first_cells"),
    ("an open facet of a missing region", "unfinished", _sql("UPDATE open_facets SET region = 10000 WHERE "
                                                             "(region, row) IN "
                                                             "(SELECT region, row FROM open_facets LIMIT 1)"),
     "open_facets"),
    ("an open facet's row out of range", "unfinished", _sql("UPDATE open_facets SET row = 500 WHERE (region, row) IN "
                                                            "(SELECT region, row FROM open_facets LIMIT 1)"),
     "open_facets"),
    ("an open facet's point", "unfinished", _sql("UPDATE open_facets SET point = '[1, 2]' WHERE (region, row) IN "
                                                 "(SELECT region, row FROM open_facets LIMIT 1)"), "open_facets"),
    ("unfinished: lost rows", "unfinished", _sql("DELETE FROM regions WHERE id = 0"), "regions.id"),
    ("unfinished: zero pattern_bytes", "unfinished", _sql("UPDATE meta SET value = '0' WHERE key = 'pattern_bytes'"),
     "meta.pattern_bytes"),
]


def _edited(stores, kind, edit, tmp_path):
    folder, _, _ = stores
    path = tmp_path / f"{kind}.sqlite"
    shutil.copy(folder / f"{kind}.sqlite", path)
    with sqlite3.connect(path) as db:
        edit(db)
    db.close()
    return path


@pytest.mark.parametrize("name, kind, edit, field", EDITS, ids=[e[0] for e in EDITS])
def test_an_edited_store_is_refused_naming_the_store_and_the_field(stores, name, kind, edit, field, tmp_path, capsys):
    path = _edited(stores, kind, edit, tmp_path)
    field = field[stores[2]] if isinstance(field, dict) else field
    with pytest.raises(InvalidInputError) as error:
        stream_regions(NETWORK, DOMAIN, path)
    assert str(error.value).startswith(f"{path}: expected a polyregions.store/1 region store") and \
        field in str(error.value), str(error.value)
    if kind == "finished":
        for write in (write_store_json, write_store_graphml):
            with pytest.raises(InvalidInputError) as error:
                write(path, tmp_path / "out")
            assert str(error.value).startswith(f"{path}: ") and field in str(error.value), str(error.value)
        assert not (tmp_path / "out").exists()
    # through the command line: one line, status 2
    folder, _, _ = stores
    with pytest.raises(SystemExit) as stopped:
        main(["regions", str(folder / "net.json"), "--box", "-1,1", "--stream", str(path)])
    out, err = capsys.readouterr()
    assert stopped.value.code == 2 and out == "" and err.count("\n") == 1, err
    assert err.startswith(f"polyregions: error: {path}: ") and field in err, err


def test_the_stores_as_written_are_read_back(stores, tmp_path, capsys):
    folder, summary, engine = stores
    finished = tmp_path / "finished.sqlite"
    shutil.copy(folder / "finished.sqlite", finished)
    assert stream_regions(NETWORK, DOMAIN, finished) == summary
    write_store_json(finished, tmp_path / "export.json")
    assert json.loads((tmp_path / "export.json").read_text())["summary"] == summary
    unfinished = tmp_path / "unfinished.sqlite"
    shutil.copy(folder / "unfinished.sqlite", unfinished)
    assert stream_regions(NETWORK, DOMAIN, unfinished, engine=engine) == summary  # resumed and finished
    assert main(["regions", str(folder / "net.json"), "--box", "-1,1", "--stream", str(finished), "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == summary


@pytest.mark.parametrize("make, kind", [(lambda p: p.mkdir(), "a directory"),
                                        (lambda p: __import__("os").mkfifo(p), "a FIFO")], ids=["directory", "FIFO"])
def test_a_directory_or_fifo_given_as_a_store_is_not_a_finished_store(make, kind, tmp_path):
    path = tmp_path / "store.sqlite"
    make(path)
    for write in (write_store_json, write_store_graphml):
        with pytest.raises(InvalidInputError, match="expected a finished polyregions.store/1 region store") as error:
            write(path, tmp_path / "out.json")
        assert str(error.value).startswith(f"{path}: ") and kind in str(error.value)
