"""The table a sweep writes: its columns, and reading and writing it as CSV or Parquet, atomically, so that a run
resumes from the rows already there."""

from __future__ import annotations

import csv
import io
import os
import stat
from pathlib import Path
from typing import Any, Sequence

from polyregions.errors import InvalidInputError

__all__ = ["KEY", "COLUMNS", "BOUND_NAMES", "read_table", "write_table", "table_bool"]

#: Columns that identify a row: a sweep skips the tasks whose key is already in the table.
KEY = ("architecture", "seed", "init", "activation", "domain")
#: The dense bounds (:func:`polyregions.measures.bounds.compare_with_bounds`), then those of graph networks
#: (:data:`polyregions.experiments.graph_bounds.GRAPH_BOUND_NAMES`).
BOUND_NAMES = ("trivial", "one_layer", "raghu2017_relu", "raghu2017_hardtanh", "raghu2017_breakpoints",
               "serra2018", "conv_xiong2020", "maxout_serra2018", "maxout_montufar2021")
_COUNTS = ("input_dim", "neurons", "activation_regions", "linear_regions", "adjacencies", "exact", "engine",
           "seconds")
#: Every column of the table, in order. ``bound_*`` is empty where the bound's hypotheses fail;
#: ``bounds_hold`` is ``true`` when every applicable bound holds.
COLUMNS = KEY + _COUNTS + tuple(f"bound_{name}" for name in BOUND_NAMES) + ("bounds_hold",)
#: The columns of tables written before the graph bounds: read with those bounds empty.
_COLUMNS_WITHOUT_GRAPH_BOUNDS = KEY + _COUNTS + tuple(f"bound_{name}" for name in BOUND_NAMES[:6]) + ("bounds_hold",)
_INTEGER_COLUMNS = ("seed", "input_dim", "neurons", "activation_regions", "linear_regions", "adjacencies")
_BOOLEAN_COLUMNS = ("exact", "bounds_hold")


def _is_parquet(path: str | os.PathLike) -> bool:
    return str(path).lower().endswith(".parquet")


def _pyarrow(path):
    try:
        import pyarrow
        import pyarrow.parquet
    except ImportError:
        raise InvalidInputError(f"{path}: Parquet tables need pyarrow (pip install pyarrow); "
                                "use a .csv path otherwise") from None
    return pyarrow


def read_table(path: str | os.PathLike) -> list[dict[str, str]]:
    """The rows of a sweep table (every value as its CSV text); ``[]`` when the file does not exist."""
    if not Path(path).exists():
        return []
    if _is_parquet(path):
        pa = _pyarrow(path)
        try:
            records = pa.parquet.read_table(path).to_pylist()
        except (OSError, pa.ArrowException) as error:
            raise InvalidInputError(f"{path}: expected a Parquet sweep table, got {error}") from None
        header = list(records[0]) if records else list(COLUMNS)
        rows = [{k: _from_parquet(k, v) for k, v in record.items()} for record in records]
    else:
        try:
            with open(path, newline="", encoding="utf-8") as handle:
                reader = csv.DictReader(handle)
                header = list(reader.fieldnames or [])
                rows = list(reader)
        except (OSError, UnicodeDecodeError, csv.Error) as error:
            raise InvalidInputError(f"{path}: expected a CSV sweep table, got {error}") from None
        if not header and not rows:
            return []
    if tuple(header) not in (COLUMNS, _COLUMNS_WITHOUT_GRAPH_BOUNDS):
        raise InvalidInputError(f"{path}: expected a sweep table with columns {','.join(COLUMNS)}, got "
                                f"{','.join(map(str, header))}")
    for i, row in enumerate(rows):
        if None in row or any(v is None for v in row.values()):
            raise InvalidInputError(f"{path}: row {i + 2}: expected {len(header)} fields")
    if tuple(header) != COLUMNS:  # an older table: the graph bounds were not recorded
        rows = [{column: row.get(column, "") for column in COLUMNS} for row in rows]
    return rows


def table_bool(value: bool) -> str:
    """A boolean as the table writes it."""
    return "true" if value else "false"


def _from_parquet(column: str, value: Any) -> str:
    if value is None:
        return ""
    if column in _BOOLEAN_COLUMNS:
        return table_bool(bool(value))
    if column == "seconds":
        return f"{value:.6f}"
    return str(value)


def write_table(path: str | os.PathLike, rows: Sequence[dict[str, str]]) -> None:
    """Write the rows atomically: CSV, or Parquet for a ``.parquet`` path (counts as int64, flags as booleans,
    bounds as exact decimal strings since they outgrow 64 bits).

    Raises :class:`~polyregions.errors.OutputError` when the file cannot be written (the old one stays)."""
    from polyregions._support.atomic import atomic_write, atomic_write_text

    if _is_parquet(path):
        pa = _pyarrow(path)
        columns = {}
        for column in COLUMNS:
            values = [row[column] for row in rows]
            if column in _INTEGER_COLUMNS:
                columns[column] = pa.array([int(v) for v in values], pa.int64())
            elif column in _BOOLEAN_COLUMNS:
                columns[column] = pa.array([v == "true" for v in values], pa.bool_())
            elif column == "seconds":
                columns[column] = pa.array([float(v) for v in values], pa.float64())
            else:
                columns[column] = pa.array(values, pa.string())
        atomic_write(path, lambda stream: pa.parquet.write_table(pa.table(columns), stream))
        return
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows)
    atomic_write_text(path, buffer.getvalue())


def is_file(path: str | os.PathLike) -> bool:
    """Whether ``path`` is (or will be) a regular file: only then is it read back, merged and checkpointed
    (a device or a FIFO only receives the final table)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except FileNotFoundError:
        return True
