"""The ``polyregions.store/1`` database: one enumeration's regions on disk, written a share at a time.

The schema and the number format are documented in :mod:`polyregions.regions.stream` and on the file formats
page of the documentation. This module only opens, checks, writes and reads the file (standard library
``sqlite3``); what the rows mean is the business of :mod:`polyregions.regions._streamed`.
"""

from __future__ import annotations

import itertools
import json
import sqlite3
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Sequence

import numpy as np

from polyregions.errors import InvalidInputError, OutputError

__all__ = ["FORMAT", "Store", "ShareRecords", "open_store", "open_finished_store"]

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
    ``first < second``, and ``facets`` the facets left open as ``(region, row, facet point)``.
    """

    first: int   # the share's first cell among the first layer's cells, in pattern order
    cells: int   # how many first-layer cells it holds
    regions: list[tuple[bytes, int, str, str, str]]
    pairs: list[tuple[int, int, str]]
    facets: list[tuple[int, int, str]]


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

    expected = f"{path}: expected a finished {FORMAT} region store"
    try:
        status = os.stat(path)
    except OSError as error:
        raise InvalidInputError(f"{expected}, got a file that cannot be read: {error.strerror or error}") from None
    if not stat.S_ISREG(status.st_mode):
        kind = "a directory" if stat.S_ISDIR(status.st_mode) else "something other than a regular file"
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
