"""The ``polyregions.store/1`` database: one enumeration's regions on disk, written a share at a time.

The schema and the number format are documented in :mod:`polyregions.regions.stream` and on the file formats
page of the documentation. This module only opens, checks, writes and reads the file (standard library
``sqlite3``); what the rows mean is the business of :mod:`polyregions.regions._streamed`.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Iterator, NoReturn, Sequence

import numpy as np

from polyregions.errors import InvalidInputError, OutputError

__all__ = ["FORMAT", "Store", "ShareRecords", "open_store", "open_finished_store", "check_store", "SUMMARY_KEYS",
           "ENGINES"]

#: The format name stored in the ``meta`` table.
FORMAT = "polyregions.store/1"

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE shares (id INTEGER PRIMARY KEY, first INTEGER NOT NULL, cells INTEGER NOT NULL,
                     regions INTEGER NOT NULL);
CREATE TABLE regions (id INTEGER PRIMARY KEY, pattern BLOB NOT NULL UNIQUE, share INTEGER NOT NULL,
                      domain_rows INTEGER NOT NULL, A TEXT NOT NULL, b TEXT NOT NULL, interior_point TEXT NOT NULL);
CREATE TABLE adjacency (first INTEGER NOT NULL, second INTEGER NOT NULL, neurons TEXT NOT NULL,
                        PRIMARY KEY (first, second)) WITHOUT ROWID;
CREATE TABLE open_facets (region INTEGER NOT NULL, row INTEGER NOT NULL, point TEXT NOT NULL,
                          PRIMARY KEY (region, row)) WITHOUT ROWID;
"""
_TABLES = {"meta", "shares", "regions", "adjacency", "open_facets"}
_FETCH = 1024  # rows per fetch of regions or facets (with their rows as text: a few MB)


@dataclass(frozen=True)
class ShareRecords:
    """A finished share as rows of the store, its regions numbered from 0 in pattern order.

    ``regions`` holds ``(pattern bytes, domain rows, A, b, interior point)`` (the last three as JSON text),
    ``pairs`` the adjacent regions proved within the share as ``(first, second, neurons)`` with
    ``first < second``, and ``facets`` the facets left open as ``(region, row, facet point)``; ``joined`` the
    pairs with regions of committed shares proved by this one, as ``(region id, its open facet's row, region of
    this share, neurons)``, whose open facets it closes.
    """

    first: int   # the share's first cell among the first layer's cells, in pattern order
    cells: int   # how many first-layer cells it holds
    regions: list[tuple[bytes, int, str, str, str]]
    pairs: list[tuple[int, int, str]]
    facets: list[tuple[int, int, str]]
    joined: list[tuple[int, int, int, str]] = field(default_factory=list)


def _locked(path: str) -> InvalidInputError:
    return InvalidInputError(f"{path}: expected a region store no other run is using, got one that another "
                             "process holds")


def _failed(path: str, error: sqlite3.Error) -> OutputError:
    return OutputError(f"{path}: expected to write the region store, got an error: {error}")


class Store:
    """An open store; every method that writes runs one transaction (all of it or nothing reaches the file)."""

    def __init__(self, path: str, connection: sqlite3.Connection, meta: dict[str, str]) -> None:
        self.path = path
        self._db = connection
        self.meta = meta
        self.next_id = self._scalar("SELECT COALESCE(MAX(id) + 1, 0) FROM regions")

    # --- reading -------------------------------------------------------------------------------------------

    def _scalar(self, query: str, parameters: Sequence[Any] = ()) -> Any:
        return self._db.execute(query, parameters).fetchone()[0]

    def summary(self) -> dict[str, Any] | None:
        """The finished run's summary, or None while shares or the open facets are left."""
        text = self.meta.get("summary")
        return None if text is None else json.loads(text)

    def committed(self) -> list[tuple[int, int]]:
        """``(first, cells)`` of every committed share."""
        return [(int(a), int(b)) for a, b in self._db.execute("SELECT first, cells FROM shares ORDER BY first")]

    def region_count(self) -> int:
        return int(self.next_id)

    def open_facets(self) -> Iterator[tuple[int, int, str, bytes, int, str, str, str]]:
        """``(region, row, facet point, pattern, domain rows, A, b, interior point)`` of every open facet, by
        region then row."""
        cursor = self._db.execute(
            "SELECT f.region, f.row, f.point, r.pattern, r.domain_rows, r.A, r.b, r.interior_point "
            "FROM open_facets f JOIN regions r ON r.id = f.region ORDER BY f.region, f.row")
        while rows := cursor.fetchmany(_FETCH):
            yield from rows

    def region_by_pattern(self, pattern: bytes) -> tuple[int, int, str, str, str] | None:
        """``(id, domain rows, A, b, interior point)`` of the region of ``pattern``, or None."""
        return self._db.execute("SELECT id, domain_rows, A, b, interior_point FROM regions WHERE pattern = ?",
                                (pattern,)).fetchone()

    def regions(self) -> Iterator[tuple[int, bytes, int, str, str, str]]:
        """``(id, pattern, domain rows, A, b, interior point)`` of every region, by id."""
        cursor = self._db.execute("SELECT id, pattern, domain_rows, A, b, interior_point FROM regions ORDER BY id")
        while rows := cursor.fetchmany(_FETCH):
            yield from rows

    def regions_by_pattern(self) -> Iterator[tuple[bytes, str, str, str]]:
        """``(pattern, A, b, interior point)`` of every region, in pattern order (the complex's order)."""
        cursor = self._db.execute("SELECT pattern, A, b, interior_point FROM regions ORDER BY pattern")
        while rows := cursor.fetchmany(_FETCH):
            yield from rows

    def pattern_order(self) -> tuple[np.ndarray, np.ndarray]:
        """``(ids, patterns)``: the region ids in pattern order, and their pattern bytes in that order (a matrix of
        uint8, a row per region), both read from the pattern index alone."""
        count = self.region_count()
        ids: list[np.ndarray] = []
        data = bytearray()
        cursor = self._db.execute("SELECT id, pattern FROM regions ORDER BY pattern")
        while rows := cursor.fetchmany(64 * _FETCH):
            ids.append(np.fromiter((i for i, _ in rows), dtype=np.int64, count=len(rows)))
            data += b"".join(blob for _, blob in rows)
        order = np.concatenate(ids) if ids else np.zeros(0, dtype=np.int64)
        patterns = np.frombuffer(data, dtype=np.uint8).reshape(count, -1) if count else np.zeros((0, 0), np.uint8)
        return order, patterns

    def pattern_bytes(self) -> np.ndarray:
        """Every region's pattern bytes, row ``id`` for region ``id`` (a matrix of uint8)."""
        count = self.region_count()
        cursor = self._db.execute("SELECT pattern FROM regions ORDER BY id")
        data = b"".join(itertools.chain.from_iterable(cursor))
        return np.frombuffer(data, dtype=np.uint8).reshape(count, -1) if count else np.zeros((0, 0), np.uint8)

    def pairs(self) -> np.ndarray:
        """The adjacent regions, as an array with two columns."""
        cursor = self._db.execute("SELECT first, second FROM adjacency")
        flat = np.fromiter(itertools.chain.from_iterable(cursor), dtype=np.int64)
        return flat.reshape(-1, 2)

    # --- writing -------------------------------------------------------------------------------------------

    def _transaction(self, write) -> None:
        try:
            self._db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as error:
            raise (_locked(self.path) if "locked" in str(error) else _failed(self.path, error)) from None
        try:
            write(self._db)
            self._db.execute("COMMIT")
        except BaseException as error:
            self._db.rollback()
            if isinstance(error, sqlite3.Error):
                raise _failed(self.path, error) from None
            raise

    def add_share(self, records: ShareRecords) -> None:
        """Write a finished share: its regions (numbered from :attr:`next_id` on), pairs and open facets."""
        base = self.next_id
        share = self._scalar("SELECT COALESCE(MAX(id) + 1, 0) FROM shares")

        def write(db: sqlite3.Connection) -> None:
            db.execute("INSERT INTO shares VALUES (?, ?, ?, ?)", (share, records.first, records.cells,
                                                                  len(records.regions)))
            db.executemany("INSERT INTO regions VALUES (?, ?, ?, ?, ?, ?, ?)",
                           ((base + i, pattern, share, rows, A, b, point)
                            for i, (pattern, rows, A, b, point) in enumerate(records.regions)))
            db.executemany("INSERT INTO adjacency VALUES (?, ?, ?)",
                           ((base + i, base + j, neurons) for i, j, neurons in records.pairs))
            db.executemany("INSERT INTO open_facets VALUES (?, ?, ?)",
                           ((base + i, row, point) for i, row, point in records.facets))
            db.executemany("INSERT INTO adjacency VALUES (?, ?, ?)",
                           ((region, base + i, neurons) for region, _, i, neurons in records.joined))
            db.executemany("DELETE FROM open_facets WHERE region = ? AND row = ?",
                           ((region, row) for region, row, _, _ in records.joined))

        self._transaction(write)
        self.next_id = base + len(records.regions)

    def set_meta(self, values: dict[str, str]) -> None:
        self._transaction(lambda db: db.executemany("INSERT OR REPLACE INTO meta VALUES (?, ?)", values.items()))
        self.meta.update(values)

    def finish(self, pairs: Iterable[tuple[int, int, str]], summary: dict[str, Any]) -> None:
        """Write the pairs decided from the open facets and the summary, together."""
        text = json.dumps(summary)

        def write(db: sqlite3.Connection) -> None:
            db.executemany("INSERT OR IGNORE INTO adjacency VALUES (?, ?, ?)", pairs)
            db.execute("INSERT OR REPLACE INTO meta VALUES ('summary', ?)", (text,))

        self._transaction(write)
        self.meta["summary"] = text

    def close(self) -> None:
        self._db.close()


def open_store(path: str, identity: dict[str, str]) -> Store:
    """The store at ``path``: created (with ``identity`` in its ``meta`` table) when the file is missing or
    empty, otherwise checked to be a store whose ``format`` and ``digest`` match ``identity``.

    Raises
    ------
    InvalidInputError
        The file is not a store, belongs to another network or domain, or another process is writing it.
    OutputError
        SQLite could not read or write the file.
    """
    try:
        connection = sqlite3.connect(path, timeout=0, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise _failed(path, error) from None
    try:
        meta = _checked(path, connection, identity)
    except BaseException:
        connection.close()
        raise
    return Store(path, connection, meta)


def _checked(path: str, db: sqlite3.Connection, identity: dict[str, str]) -> dict[str, str]:
    """The store's ``meta`` table, after creating the store in an empty file or checking an existing one."""
    try:
        # one run at a time: the lock taken by the first write is kept until the store is closed
        db.execute("PRAGMA locking_mode = EXCLUSIVE")
        db.execute("BEGIN IMMEDIATE")
        tables = {name for (name,) in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if not tables:
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.executemany("INSERT INTO meta VALUES (?, ?)", identity.items())
        db.execute("COMMIT")
    except sqlite3.DatabaseError as error:
        if db.in_transaction:
            db.rollback()
        if "locked" in str(error):
            raise _locked(path) from None
        if isinstance(error, sqlite3.OperationalError):
            raise _failed(path, error) from None
        raise InvalidInputError(f"{path}: expected a {FORMAT} region store (or a new file), got a file that is not "
                                "an SQLite database") from None
    if not _TABLES <= tables and tables:
        raise InvalidInputError(f"{path}: expected a {FORMAT} region store (or a new file), got an SQLite database "
                                f"with other tables ({', '.join(sorted(tables)) or 'none'})")
    meta = dict(db.execute("SELECT key, value FROM meta"))
    if meta.get("format") != FORMAT:
        raise InvalidInputError(f"{path}: expected a {FORMAT} region store, got format {meta.get('format')!r}")
    if meta.get("digest") != identity["digest"]:
        raise InvalidInputError(f"{path}: expected the store of this network and domain (digest "
                                f"{identity['digest'][:16]}...), got one of another network or domain (digest "
                                f"{str(meta.get('digest'))[:16]}...)")
    if tables:  # a store written before: input like any other file
        check_store(path, db, meta)
    return meta


def open_finished_store(path: str) -> Store:
    """The store of a finished run at ``path``, opened read-only (nothing is ever written to it).

    Raises
    ------
    InvalidInputError
        The file is missing, not a store, a store whose run has not finished, or one a run is writing now.
    """
    import os
    import pathlib
    import stat

    from polyregions._support.input_files import _KINDS

    expected = f"{path}: expected a finished {FORMAT} region store"
    try:
        status = os.stat(path)
    except (OSError, ValueError) as error:
        reason = (error.strerror or error) if isinstance(error, OSError) else error
        raise InvalidInputError(f"{expected}, got a file that cannot be read: {reason}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = next((kind for is_kind, kind in _KINDS if is_kind(status.st_mode)), "something other than a regular "
                    "file")
        raise InvalidInputError(f"{expected}, got {kind}")
    if not status.st_size:
        raise InvalidInputError(f"{expected}, got an empty file")
    uri = pathlib.Path(os.path.abspath(path)).as_uri() + "?mode=ro"
    try:
        connection = sqlite3.connect(uri, uri=True, timeout=0, isolation_level=None, check_same_thread=False)
    except sqlite3.Error as error:
        raise InvalidInputError(f"{expected}, got a file SQLite cannot open: {error}") from None
    try:
        try:
            tables = {name for (name,) in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            meta = dict(connection.execute("SELECT key, value FROM meta")) if "meta" in tables else {}
            if _TABLES <= tables and meta.get("format") == FORMAT and "summary" in meta:
                check_store(path, connection, meta)
                return Store(path, connection, meta)
        except sqlite3.DatabaseError as error:
            if "locked" in str(error):
                raise _locked(path) from None
            if isinstance(error, sqlite3.OperationalError):
                raise InvalidInputError(f"{expected}, got a file SQLite cannot read: {error}") from None
            raise InvalidInputError(f"{expected}, got a file that is not an SQLite database") from None
        if not _TABLES <= tables:
            raise InvalidInputError(f"{expected}, got an SQLite database with other tables "
                                    f"({', '.join(sorted(tables)) or 'none'})")
        if meta.get("format") != FORMAT:
            raise InvalidInputError(f"{expected}, got format {meta.get('format')!r}")
        raise InvalidInputError(f"{expected}, got the store of a run that has not finished (run the same "
                                "enumeration on it again to finish it)")
    except BaseException:
        connection.close()
        raise


# --- a store read back: validated as input ------------------------------------------------------------------

#: The keys of a finished run's summary, each a non-negative integer but ``exact`` (true) and ``engine`` (one of
#: :data:`ENGINES`).
SUMMARY_KEYS = ("input_dim", "domain_dim", "neurons", "activation_regions", "linear_regions", "adjacencies", "exact",
                "engine")
#: The engines that write stores.
ENGINES = ("lp", "mesh")
_PATTERN_BYTES = ("1", "2", "4")
_MAX_NUMBER_CHARS = 20_003  # a numerator and a denominator of MAX_DIGITS digits each, a sign and a slash
# An integer as the store writes it ("-12"), and an exact rational ("-7/12"), tested in SQL on every JSON atom.
_INTEGER = "(({x}) GLOB '[0-9]*' OR ({x}) GLOB '-[0-9]*') AND substr(({x}), 1 + (({x}) GLOB '-*')) NOT GLOB '*[^0-9]*'"
_RATIONAL = ("(({x}) GLOB '[0-9]*' OR ({x}) GLOB '-[0-9]*') AND substr(({x}), 1 + (({x}) GLOB '-*')) NOT GLOB "
             "'*[^0-9/]*' AND ({x}) NOT GLOB '*/*/*' AND ({x}) NOT GLOB '*/' AND ({x}) NOT GLOB '*/0' "
             "AND ({x}) NOT GLOB '*/0[0-9]*' AND ({x}) NOT GLOB '-/*'")


def _natural(text: Any) -> int | None:
    """The value of a decimal non-negative integer written as the store writes it, else None."""
    if isinstance(text, str) and text.isascii() and text.isdigit() and len(text) <= 30:
        return int(text)
    return None


def check_store(path: str, db: sqlite3.Connection, meta: dict[str, str]) -> None:
    """Refuse a store whose fields do not have the types and ranges the format gives them, or whose summary's
    counts are not those of its rows, with one message naming the store and the field.

    A store is input like any other file: what it says is read, then believed only once checked. The rows are
    checked in SQL (every region's pattern length, ids, row counts and numbers; every pair and open facet in range),
    the summary against the counts of the rows. Whether the regions are the network's is what resuming decides
    (the digest), and what the exports' checker (``proofs_check``) proves.

    Raises
    ------
    InvalidInputError
        Naming ``path`` and the field: ``meta.pattern_bytes``, ``meta.summary.activation_regions``,
        ``regions.A`` (of a region id), ``adjacency``, ``open_facets``, ``shares``.
    """
    expected = f"{path}: expected a {FORMAT} region store whose"

    def refuse(field: str, what: str, got: str) -> NoReturn:
        raise InvalidInputError(f"{expected} {field} {what}, got {got}")

    def one(query: str, parameters: Sequence[Any] = ()) -> Any:
        return db.execute(query, parameters).fetchone()

    try:
        itemsize_text = meta.get("pattern_bytes")
        if itemsize_text not in _PATTERN_BYTES:
            refuse("meta.pattern_bytes", "is 1, 2 or 4", _shown(itemsize_text))
        itemsize = int(itemsize_text)
        if "first_cells" in meta and _natural(meta["first_cells"]) is None:
            refuse("meta.first_cells", "is a non-negative integer", _shown(meta["first_cells"]))
        count, low, high, short, long, blobs = one(
            "SELECT COUNT(*), MIN(id), MAX(id), MIN(LENGTH(pattern)), MAX(LENGTH(pattern)), "
            "SUM(typeof(pattern) = 'blob') FROM regions")
        if count and (low != 0 or high != count - 1):
            refuse("regions.id", "are 0 .. N-1 (N regions)", f"{count:,} regions with ids {low} .. {high} (rows lost "
                   "or added)")
        if count and (blobs != count or short != long or long % itemsize):
            refuse("regions.pattern", f"is a blob of the same length for every region, a multiple of "
                   f"pattern_bytes = {itemsize}", f"lengths {short} .. {long}, {count - blobs} not blobs")
        neurons = (long // itemsize) if count else None
        bad = one("SELECT id FROM regions WHERE typeof(domain_rows) != 'integer' OR typeof(share) != 'integer' "
                  "OR typeof(A) != 'text' OR typeof(b) != 'text' OR typeof(interior_point) != 'text' "
                  "OR NOT json_valid(A) OR NOT json_valid(b) OR NOT json_valid(interior_point) "
                  "OR json_type(A) != 'array' OR json_type(b) != 'array' OR json_type(interior_point) != 'array' "
                  "OR json_array_length(A) != json_array_length(b) OR domain_rows < 0 "
                  "OR domain_rows > json_array_length(A) OR share < 0 LIMIT 1")
        if bad:
            refuse(f"regions (id {bad[0]}): A, b, interior_point, domain_rows", "are JSON arrays of matching "
                   "lengths and integers in range", "something else")
        dimension = one("SELECT json_array_length(interior_point) FROM regions LIMIT 1")
        if dimension is not None:
            bad = one("SELECT r.id FROM regions r, json_each(r.A) row WHERE row.type != 'array' "
                      "OR json_array_length(row.value) != ? LIMIT 1", (dimension[0],))
            bad = bad or one("SELECT id FROM regions WHERE json_array_length(interior_point) != ? LIMIT 1",
                             (dimension[0],))
            if bad:
                refuse(f"regions (id {bad[0]}): A, interior_point", f"have {dimension[0]} coordinates as every "
                       "region's", "another number")
        atom = "t.atom"
        for column, test in (("A", _INTEGER), ("b", _INTEGER), ("interior_point", _RATIONAL)):
            bad = one(f"SELECT r.id FROM regions r, json_tree(r.{column}) t WHERE t.type != 'array' AND "
                      f"(t.type != 'text' OR LENGTH({atom}) > {_MAX_NUMBER_CHARS} OR NOT ({test.format(x=atom)})) "
                      "LIMIT 1")
            if bad:
                refuse(f"regions (id {bad[0]}): {column}", "holds exact numbers as strings (\"-7/12\")" if
                       column == "interior_point" else "holds integers as strings (\"-12\")", "something else")
        bad = one("SELECT first, second FROM adjacency WHERE typeof(first) != 'integer' OR typeof(second) != 'integer' "
                  "OR typeof(neurons) != 'text' OR first < 0 OR first >= second OR second >= ? LIMIT 1", (count,))
        if bad:
            refuse("adjacency", f"pairs are region ids first < second < {count:,}", f"({_shown(bad[0])}, "
                   f"{_shown(bad[1])})")
        bad = one("SELECT f.region, f.row FROM open_facets f LEFT JOIN regions r ON r.id = f.region "
                  "WHERE typeof(f.row) != 'integer' OR typeof(f.point) != 'text' OR r.id IS NULL OR f.row < 0 "
                  "OR f.row >= json_array_length(r.A) OR NOT json_valid(f.point) OR json_type(f.point) != 'array' "
                  "OR json_array_length(f.point) != json_array_length(r.interior_point) LIMIT 1")
        bad = bad or one(f"SELECT f.region, f.row FROM open_facets f, json_tree(f.point) t WHERE t.type != 'array' "
                         f"AND (t.type != 'text' OR LENGTH({atom}) > {_MAX_NUMBER_CHARS} OR NOT "
                         f"({_RATIONAL.format(x=atom)})) LIMIT 1")
        if bad:
            refuse("open_facets", "are rows of stored regions with exact points", f"region {_shown(bad[0])} row "
                   f"{_shown(bad[1])}")
        shares, share_regions, bad_shares = one(
            "SELECT COUNT(*), SUM(regions), SUM(typeof(first) != 'integer' OR typeof(cells) != 'integer' "
            "OR typeof(regions) != 'integer' OR first < 0 OR cells < 1 OR regions < 0) FROM shares")
        if bad_shares:
            refuse("shares", "are ranges of first-layer cells with their region counts", "a share with another "
                   "value")
        if shares and share_regions != count:
            refuse("shares.regions", f"add up to the {count:,} stored regions", f"{share_regions:,}")
        bad = one("SELECT id FROM regions WHERE share NOT IN (SELECT id FROM shares) LIMIT 1")
        if bad:
            refuse(f"regions (id {bad[0]}): share", "is a committed share", "another")
        if "summary" in meta:
            _check_summary(path, db, meta, count, neurons, dimension[0] if dimension else None, refuse)
    except sqlite3.DatabaseError as error:
        if "locked" in str(error):
            raise _locked(path) from None
        raise InvalidInputError(f"{path}: expected a {FORMAT} region store SQLite can read, got an error: "
                                f"{error}") from None


def _check_summary(path: str, db: sqlite3.Connection, meta: dict[str, str], count: int, neurons: int | None,
                   dimension: int | None, refuse: Callable[[str, str, str], NoReturn]) -> None:
    """The finished run's summary: a JSON object of :data:`SUMMARY_KEYS`, its counts those of the rows."""
    try:
        summary = json.loads(meta["summary"])
    except (TypeError, ValueError, RecursionError):
        summary = None
    if not isinstance(summary, dict) or sorted(summary) != sorted(SUMMARY_KEYS):
        refuse("meta.summary", f"is a JSON object with the keys {', '.join(SUMMARY_KEYS)}",
               _shown(meta.get("summary")))
    for key in SUMMARY_KEYS[:-2]:
        value = summary[key]
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            refuse(f"meta.summary.{key}", "is a non-negative integer", _shown(value))
    if summary["exact"] is not True or summary["engine"] not in ENGINES:
        refuse("meta.summary.exact, engine", "are true and \"lp\" or \"mesh\"", f"{_shown(summary['exact'])} "
               f"and {_shown(summary['engine'])}")
    adjacencies = db.execute("SELECT COUNT(*) FROM adjacency").fetchone()[0]
    for key, rows, what in (("activation_regions", count, "rows of the regions table"),
                            ("adjacencies", adjacencies, "rows of the adjacency table"),
                            ("neurons", neurons, "neurons of each stored pattern"),
                            ("domain_dim", dimension, "coordinates of each stored interior point")):
        if rows is not None and summary[key] != rows:
            refuse(f"meta.summary.{key}", f"is the number of {what}, {rows:,}", f"{summary[key]:,}")
    if not min(count, 1) <= summary["linear_regions"] <= count:
        refuse("meta.summary.linear_regions", f"is between 1 and the {count:,} activation regions",
               f"{summary['linear_regions']:,}")
    first_cells = _natural(meta.get("first_cells"))
    if first_cells is None:
        refuse("meta.first_cells", "is the number of first-layer cells of the finished run",
               _shown(meta.get("first_cells")))
    committed = sorted(db.execute("SELECT first, cells FROM shares"))
    end = 0
    for first, cells in committed:
        if first != end:
            break
        end = first + cells
    if end != first_cells:
        refuse("shares", f"cover the first layer's {first_cells:,} cells once each (the run finished)",
               f"shares covering cells 0 .. {end - 1} then a gap or an overlap" if end else "no such shares")


def _shown(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."
