"""Sweeps: exact region counts of many random networks, on a local process pool or a Dask cluster.

A sweep runs one task per (architecture, seed, initialisation, activation, domain). A task draws the network
with :func:`polyregions.networks.initializers.he_normal` or :func:`~polyregions.networks.initializers.pytorch_default`
(``widths = [n0, n1, ..., nL]``, every layer with the activation, no output layer: regions are counted over
the hidden layers, as Hanin & Rolnick and Qi & Wei do), enumerates its regions exactly in the box
``[lo, hi]^n0`` (:func:`polyregions.regions.enumeration.enumerate_regions`), and records the counts, every
architecture bound (:func:`polyregions.measures.bounds.compare_with_bounds`) and the time taken. An architecture
may also be a specification with convolutions, pooling, maxout and residual blocks
(``"8-conv1d:2,3-maxpool:2-maxout:4,2"``, :mod:`polyregions.experiments.architectures`) or a template network
file, ``"@FILE"`` (:mod:`polyregions.experiments.templates`): its graph network is drawn per seed the same way,
and its row records the trivial bound (the number of activation patterns) and the convolutional or maxout bounds
whose hypotheses the graph meets (:mod:`polyregions.experiments.graph_bounds`); the dense bounds stay empty.

All rows go into one table (:data:`COLUMNS`), written atomically: CSV through the standard :mod:`csv`
module, or Parquet when the path ends in ``.parquet`` (needs pyarrow). Writing happens every few seconds,
at the end and on Ctrl-C, so an interrupted sweep leaves a valid table; run the same sweep again and the rows
already there are kept and skipped (a row is identified by its :data:`KEY` columns), so only the missing ones
are computed. Sweeps writing one table at the same time keep each other's rows: each write locks the table
(an advisory lock beside it), reads the rows the others wrote meanwhile and writes the union.

Tasks run on a :class:`concurrent.futures.ProcessPoolExecutor` (``workers`` processes, 2 by default), in the
calling process with ``workers=0``, or on a Dask cluster with ``scheduler="tcp://host:port"`` (or a
``dask.distributed.Client``), which needs ``pip install "dask[distributed]"``. A process runs one task at a
time (the enumeration is pure Python and holds the GIL), so give Dask workers one thread each and scale with
processes: ``dask worker tcp://host:8786 --nworkers N --nthreads 1``. The results do not depend on where they
were computed (only the ``seconds`` column does).

Examples
--------
>>> tasks = sweep_tasks([[1, 3, 3]], seeds=[0], inits=["he_normal"], activations=["relu"])
>>> row = run_task(tasks[0])
>>> row["architecture"], row["domain"], row["bounds_hold"]
('1-3-3', 'box[-1,1]', 'true')
"""

from __future__ import annotations

import math
import os
import threading
import time
from concurrent.futures import FIRST_COMPLETED, wait
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, Sized

from polyregions.errors import InvalidInputError
from polyregions.experiments.architectures import ACTIVATIONS, parse_activation
from polyregions.experiments.sweep_tables import BOUND_NAMES, COLUMNS, KEY, is_file, read_table, table_bool, write_table

if TYPE_CHECKING:
    from polyregions.experiments.architectures import ArchitectureSpec
    from polyregions.experiments.templates import ArchitectureTemplate
    from polyregions.regions.enumeration import Engine

__all__ = ["SweepTask", "SweepResult", "sweep_tasks", "run_task", "sweep", "read_table", "write_table",
           "parse_seeds", "INITIALIZERS", "ACTIVATIONS", "KEY", "COLUMNS", "BOUND_NAMES"]

INITIALIZERS = ("he_normal", "pytorch_default")

def parse_seeds(text: str) -> list[int]:
    """Seeds from ``"0-9"``, ``"3"`` or ``"0-4,10,12-13"`` (ranges inclusive), in order, without repeats.

    At most :data:`~polyregions._support.limits.MAX_SEEDS` distinct seeds, counted before the ranges are expanded.

    Examples
    --------
    >>> parse_seeds("0-3,7,2")
    [0, 1, 2, 3, 7]
    """
    from polyregions._support.limits import MAX_SEEDS
    from polyregions.exact.rationals import _describe, format_rational, integer

    if isinstance(text, int) and not isinstance(text, bool):
        text = format_rational(text)
    if not isinstance(text, str):
        raise InvalidInputError(f"seeds: expected text such as \"0-9\" or \"0,3,5-7\", got {type(text).__name__} "
                                f"{_describe(text)}")
    ranges: list[tuple[int, int]] = []
    for part in text.split(","):
        low, dash, high = part.strip(" \t\n\r\f\v").partition("-")
        try:
            first = integer(low, what="seeds")
            last = integer(high, what="seeds") if dash else first
        except InvalidInputError:
            raise InvalidInputError(f"seeds: expected non-negative integers and ranges such as 0-9, "
                                    f"got {_describe(text)}") from None
        if first < 0 or last < first:
            raise InvalidInputError(f"seeds: expected ranges LO-HI with 0 <= LO <= HI, got {_describe(part.strip())}")
        ranges.append((first, last))
    count = _distinct(ranges)
    if count > MAX_SEEDS:
        shown = f"{count:,}" if count < 10 ** 15 else "more than 10^15"
        raise InvalidInputError(f"seeds: expected at most {MAX_SEEDS:,} seeds, got {shown} in {_describe(text)}")
    return list(dict.fromkeys(s for first, last in ranges for s in range(first, last + 1)))


def _distinct(ranges: list[tuple[int, int]]) -> int:
    """The number of integers in a union of inclusive ranges, without expanding them."""
    count, end = 0, -1
    for first, last in sorted(ranges):
        if last > end:
            count += last - max(first, end + 1) + 1
            end = last
    return count


@dataclass(frozen=True)
class SweepTask:
    """One network of a sweep (plain data, so that it travels to worker processes and Dask workers)."""

    widths: tuple[int, ...]
    seed: int
    init: str
    activation: str
    lower: Fraction = Fraction(-1)
    upper: Fraction = Fraction(1)
    engine: Engine = "auto"
    #: A graph architecture (a specification or a template); then ``widths`` is ``(input_dim,)``.
    spec: "ArchitectureSpec | ArchitectureTemplate | None" = None

    @property
    def architecture(self) -> str:
        return self.spec.text if self.spec is not None else "-".join(map(str, self.widths))

    @property
    def domain_text(self) -> str:
        return f"box[{self.lower},{self.upper}]"

    @property
    def key(self) -> tuple[str, str, str, str, str]:
        return (self.architecture, str(self.seed), self.init, self.activation, self.domain_text)


def sweep_tasks(widths: Iterable[Sequence[int]], *, seeds: Iterable[int], inits: Iterable[str] = ("he_normal",),
                activations: Iterable[str] = ("relu",), box: tuple[Any, Any] = (-1, 1),
                engine: Engine = "auto",
                architectures: Iterable["str | ArchitectureSpec | ArchitectureTemplate"] = ()) -> list[SweepTask]:
    """Every combination, architecture-major: for each architecture, seed, initialisation, activation.

    ``architectures`` adds specifications such as ``"4-conv1d:2,2-maxpool:3-maxout:2,2"`` and templates
    ``"@FILE"`` (:func:`polyregions.experiments.templates.read_architecture`; parsed ones pass through) after
    the dense ``widths``, in order; a dense specification (``"2-8-8"``) is the same task as the widths
    ``[2, 8, 8]``. A template keeps its own activations: its tasks take one activation, its
    :attr:`~polyregions.experiments.templates.ArchitectureTemplate.activation_label`, whatever ``activations``
    says.

    Examples
    --------
    >>> [t.key for t in sweep_tasks([[2, 8, 8]], seeds=[0, 1], box=("-1/2", "1/2"))]
    [('2-8-8', '0', 'he_normal', 'relu', 'box[-1/2,1/2]'), ('2-8-8', '1', 'he_normal', 'relu', 'box[-1/2,1/2]')]
    >>> [t.architecture for t in sweep_tasks([], seeds=[0], architectures=["2-maxout:2,3", "2-4"])]
    ['2-maxout:2,3', '2-4']
    """
    from polyregions._support.limits import MAX_NETWORK_PARAMETERS, MAX_SEEDS, MAX_SWEEP_TASKS
    from polyregions.exact.rationals import _describe, format_rational, rational
    from polyregions.experiments.architectures import ArchitectureSpec
    from polyregions.experiments.templates import ArchitectureTemplate, read_architecture
    from polyregions.regions.enumeration import ENGINES

    if isinstance(architectures, (str, bytes, dict)) or not hasattr(architectures, "__iter__"):
        raise InvalidInputError(f"architectures: expected a list of specifications, got "
                                f"{type(architectures).__name__} {_describe(architectures)}")
    specs = [text if isinstance(text, (ArchitectureSpec, ArchitectureTemplate)) else read_architecture(text)
             for text in architectures]
    for name, value in (("widths", widths), ("seeds", seeds), ("inits", inits), ("activations", activations)):
        if isinstance(value, (str, bytes, dict)) or not hasattr(value, "__iter__"):
            raise InvalidInputError(f"{name}: expected a list, got {type(value).__name__} {_describe(value)}")
    archs = []
    for i, w in enumerate(list(widths)):
        arch = list(w) if not isinstance(w, (str, bytes, dict)) and hasattr(w, "__iter__") else None
        if not arch or len(arch) < 2 or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in arch):
            raise InvalidInputError(f"widths[{i}]: expected [input_dim, width_1, ...] of positive integers, "
                                    f"got {_describe(arch if arch is not None else w)}")
        size = sum(fan_in * width + width for fan_in, width in zip(arch, arch[1:]))
        if size > MAX_NETWORK_PARAMETERS:
            raise InvalidInputError(f"widths[{i}]: expected a network of at most {MAX_NETWORK_PARAMETERS:,} weights "
                                    f"and biases, got {_describe(arch)}")
        archs.append(tuple(arch))
    # a dense specification is the dense task; the others are graph tasks, with widths (input_dim,)
    shapes: list[tuple[tuple[int, ...], ArchitectureSpec | ArchitectureTemplate | None]] = [(w, None) for w in archs]
    shapes += [(spec.widths, None) if isinstance(spec, ArchitectureSpec) and spec.is_dense
               else ((spec.input_dim,), spec) for spec in specs]
    if not shapes:
        raise InvalidInputError("widths: expected at least one architecture, got none")
    if isinstance(seeds, Sized) and len(seeds) > MAX_SEEDS:  # before a range(10**10) is listed
        raise InvalidInputError(f"seeds: expected at most {MAX_SEEDS:,} seeds, got {len(seeds):,}")
    seeds = list(seeds)
    if not seeds or any(isinstance(s, bool) or not isinstance(s, int) or s < 0 for s in seeds):
        raise InvalidInputError(f"seeds: expected non-negative integers, got {_describe(seeds)}")
    inits = list(inits)
    for init in inits:
        if init not in INITIALIZERS:
            raise InvalidInputError(f"init: expected one of {', '.join(INITIALIZERS)}, got {init!r}")
    names = [parse_activation(a)[0] for a in activations]
    if not inits or not names:
        raise InvalidInputError("inits, activations: expected at least one of each, got none")
    if isinstance(box, (str, bytes, dict)) or not hasattr(box, "__len__") or len(box) != 2:
        raise InvalidInputError(f"box: expected (LO, HI), got {_describe(box)}")
    lo, hi = (rational(v, what="box") for v in box)
    if not lo < hi:
        raise InvalidInputError(f"box: expected LO < HI, got {_describe(format_rational(lo))} and "
                                f"{_describe(format_rational(hi))}")
    if engine not in ENGINES:
        raise InvalidInputError(f"engine: expected one of {', '.join(ENGINES)}, got {_describe(engine)}")
    sizes = [len(set(values)) for values in (shapes, seeds, inits, names)]  # the tasks, before they are built
    if math.prod(sizes) > MAX_SWEEP_TASKS:
        raise InvalidInputError(f"widths, seeds, inits, activations: expected at most {MAX_SWEEP_TASKS:,} networks "
                                f"in a sweep, got {' x '.join(map(str, sizes))} = {math.prod(sizes):,}")
    seen, tasks = set(), []
    for w, spec in shapes:
        for seed in seeds:
            for init in inits:
                for name in [spec.activation_label] if isinstance(spec, ArchitectureTemplate) else names:
                    task = SweepTask(w, seed, init, name, lo, hi, engine, spec)
                    if task.key not in seen:
                        seen.add(task.key)
                        tasks.append(task)
    return tasks


#: One task at a time per process: the exact enumeration holds the GIL anyway, so threads would not run in
#: parallel, and the LP backend keeps one floating-point solver per process that must not be shared between
#: threads (a Dask worker runs several tasks in threads unless started with ``--nthreads 1``).
_ONE_AT_A_TIME = threading.Lock()


def run_task(task: SweepTask) -> dict[str, str]:
    """Draw the task's network, enumerate its regions exactly, compare with the bounds; one table row.

    Safe to call from several threads (they take turns).
    """
    with _ONE_AT_A_TIME:
        return _run_task(task)


def _run_task(task: SweepTask) -> dict[str, str]:
    from polyregions.experiments.templates import ArchitectureTemplate
    from polyregions.measures.bounds import compare_with_bounds
    from polyregions.networks import initializers
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    if isinstance(task.spec, ArchitectureTemplate):  # it keeps its own activations
        network: Any = task.spec.draw(seed=task.seed, init=task.init)
    else:
        _, activation = parse_activation(task.activation)
        if task.spec is not None:
            network = task.spec.draw(seed=task.seed, init=task.init, activation=activation)
        else:
            network = getattr(initializers, task.init)(list(task.widths), seed=task.seed, activation=activation)
    n0 = task.widths[0]
    domain = box([task.lower] * n0, [task.upper] * n0)
    started = time.perf_counter()
    complex_ = enumerate_regions(network, domain, engine=task.engine)
    count, linear = len(complex_.regions), len(complex_.linear_regions)
    seconds = time.perf_counter() - started
    row = dict(zip(KEY, task.key))
    row.update(input_dim=str(n0), neurons=str(network.num_neurons), activation_regions=str(count),
               linear_regions=str(linear), adjacencies=str(len(complex_.adjacency)),
               exact=table_bool(complex_.exact), engine=complex_.engine, seconds=f"{seconds:.6f}")
    if task.spec is not None:
        row.update(_graph_bounds(count, network, input_dim=domain.dim))
        return {column: row[column] for column in COLUMNS}
    bounds = compare_with_bounds(count, input_dim=domain.dim, widths=list(task.widths[1:]),
                                 activation=activation)
    row.update({f"bound_{name}": "" for name in BOUND_NAMES})
    for bound in bounds:
        row[f"bound_{bound.name}"] = "" if bound.bound is None else str(bound.bound)
    row["bounds_hold"] = table_bool(all(b.holds is not False for b in bounds))
    return {column: row[column] for column in COLUMNS}


def _graph_bounds(count: int, network: Any, *, input_dim: int) -> dict[str, str]:
    """The bound columns of a graph architecture: the trivial bound (the number of activation patterns) and the
    convolutional or maxout bounds whose hypotheses hold (:func:`polyregions.experiments.graph_bounds.graph_bounds`);
    the dense layered bounds stay empty, as they assume dense layers of one activation."""
    from polyregions.experiments.graph_bounds import graph_bounds

    bounds = graph_bounds(network, input_dim=input_dim)
    row = {f"bound_{name}": "" for name in BOUND_NAMES}
    row.update({f"bound_{name}": str(value) for name, value in bounds.items()})
    row["bounds_hold"] = table_bool(all(count <= value for value in bounds.values()))
    return row


class _Table:
    """The rows of a sweep's table: this sweep's (``done``, by key) and the others found in the file.

    Every write locks the file against other sweeps, merges the rows they wrote meanwhile and writes the
    union, so that sweeps running at once into one table keep every row."""

    def __init__(self, path: str | os.PathLike, tasks: Sequence[SweepTask]) -> None:
        self.path, self.tasks = path, tasks
        self.wanted = {t.key for t in tasks}
        self.done: dict[tuple, dict[str, str]] = {}
        self.others: list[dict[str, str]] = []
        self.is_file = is_file(path)
        if self.is_file:
            self._merge(read_table(path))

    def _merge(self, rows: list[dict[str, str]]) -> None:
        """Take the rows of the file: the first row of each of this sweep's keys (unless computed here), and
        every other row, as it stands in the file."""
        seen: set[tuple] = set()
        others = []
        for row in rows:
            key = tuple(row[c] for c in KEY)
            if key in self.wanted and key not in seen:
                seen.add(key)
                self.done.setdefault(key, row)
            else:
                others.append(row)
        self.others = others

    def write(self) -> list[dict[str, str]]:
        """Write the merged table (this sweep's rows in task order, then the others); return its rows."""
        from polyregions._support.atomic import output_lock

        if not self.is_file:
            rows = _ordered(self.tasks, self.done, self.others)
            write_table(self.path, rows)
            return rows
        with output_lock(self.path):
            self._merge(read_table(self.path))
            rows = _ordered(self.tasks, self.done, self.others)
            write_table(self.path, rows)
        return rows


# --- running --------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class SweepResult:
    """What :func:`sweep` did: the final ``rows`` (as written), how many were ``computed`` now and how many
    ``skipped`` because the table already had them, and whether Ctrl-C ``interrupted`` the run."""

    rows: tuple[dict[str, str], ...]
    computed: int
    skipped: int
    interrupted: bool
    seconds: float

    def summary(self) -> dict[str, Any]:
        """The one-line JSON of ``polyregions sweep --json``."""
        return {"rows": len(self.rows), "computed": self.computed, "skipped": self.skipped,
                "interrupted": self.interrupted,
                "bounds_hold": all(row["bounds_hold"] == "true" for row in self.rows),
                "exact": all(row["exact"] == "true" for row in self.rows), "seconds": round(self.seconds, 3)}


def _ordered(tasks: Sequence[SweepTask], rows: dict[tuple, dict[str, str]],
             others: list[dict[str, str]]) -> list[dict[str, str]]:
    """Rows in task order, then rows of the old table that belong to no task of this sweep."""
    return [rows[t.key] for t in tasks if t.key in rows] + others


def sweep(tasks: Sequence[SweepTask], output: str | os.PathLike, *, workers: int = 2,
          scheduler: Any = None, progress: bool = False, checkpoint_seconds: float = 5.0,
          on_row: Callable[[dict[str, str]], None] | None = None) -> SweepResult:
    """Run the tasks not yet in the table at ``output`` and write the whole table there.

    Parameters
    ----------
    tasks : sequence of SweepTask
        From :func:`sweep_tasks`.
    output : path
        The table (``.csv``, or ``.parquet`` with pyarrow). Existing rows are kept; tasks whose :data:`KEY` is
        already there are skipped; rows other sweeps write there meanwhile are kept too.
    workers : int, keyword-only
        Processes of the local pool (0: run in this process). Ignored with ``scheduler``.
    scheduler : str or dask.distributed.Client, keyword-only
        A Dask scheduler address (``"tcp://host:8786"``) or a client: run the tasks on that cluster.
    progress : bool, keyword-only
        A progress bar on a terminal.
    checkpoint_seconds : float, keyword-only
        Write the table at least this often while running (it is also written at the end and on Ctrl-C).
    on_row : callable, keyword-only
        Called with each new row (in the calling process) after it is recorded.

    Returns
    -------
    SweepResult
        On Ctrl-C (and, under the command line, SIGTERM) the finished rows are written and the result has
        ``interrupted=True``.

    Raises
    ------
    InvalidInputError
        Before any task runs, when ``output`` cannot be written (missing or read-only folder, a directory).
    OutputError
        When writing the table fails (a full disk); the table written before stays.
    """
    from polyregions._support.atomic import check_output
    from polyregions._support.progress import progress_bar

    started = time.perf_counter()
    from polyregions.exact.rationals import _describe

    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 0:
        raise InvalidInputError(f"workers: expected a non-negative integer, got {_describe(workers)}")
    if not isinstance(output, (str, os.PathLike)):
        raise InvalidInputError(f"output: expected a file path, got {type(output).__name__} {_describe(output)}")
    check_output(output, what="output")
    if isinstance(tasks, (str, bytes, dict)) or not hasattr(tasks, "__iter__"):
        raise InvalidInputError(f"tasks: expected a list of SweepTask (from sweep_tasks), got {type(tasks).__name__}")
    tasks = list(tasks)
    for i, task in enumerate(tasks):
        if not isinstance(task, SweepTask):
            raise InvalidInputError(f"tasks[{i}]: expected a SweepTask (from sweep_tasks), got {type(task).__name__}")
    table = _Table(output, tasks)
    todo = [t for t in tasks if t.key not in table.done]
    skipped = len(tasks) - len(todo)
    computed = 0
    last_write = time.monotonic()
    interrupted = False

    def record(row: dict[str, str]) -> None:
        nonlocal computed, last_write
        table.done[tuple(row[c] for c in KEY)] = row
        computed += 1
        bar.update(1)
        if on_row is not None:
            on_row(row)
        if table.is_file and time.monotonic() - last_write >= checkpoint_seconds:
            table.write()
            last_write = time.monotonic()

    with progress_bar(total=len(todo), desc="sweep", enabled=progress) as bar:
        try:
            if todo and scheduler is not None:
                _run_dask(todo, scheduler, record)
            elif todo and workers == 0:
                for task in todo:
                    record(run_task(task))
            elif todo:
                _run_pool(todo, workers, record)
        except KeyboardInterrupt:
            interrupted = True
        finally:
            # whatever happened (an interruption, SIGTERM, a failing task), keep the finished rows
            rows = table.write()
    return SweepResult(tuple(rows), computed, skipped, interrupted, time.perf_counter() - started)


def _run_pool(todo: list[SweepTask], workers: int, record: Callable[[dict[str, str]], None]) -> None:
    from polyregions._support.pools import process_pool, submit_all

    # workers that ignore Ctrl-C, die with this process, and are killed when the sweep stops early (the rows
    # of their running tasks are not recorded)
    with process_pool(workers) as executor:
        pending = set(submit_all(executor, run_task, [(task,) for task in todo]))
        while pending:
            finished, pending = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                record(future.result())


def _run_dask(todo: list[SweepTask], scheduler: Any, record: Callable[[dict[str, str]], None]) -> None:
    from polyregions._support.dask_clusters import dask_client

    with dask_client(scheduler) as client:
        from dask.distributed import as_completed

        futures = [client.submit(run_task, task, pure=False) for task in todo]
        try:
            for future in as_completed(futures):
                record(future.result())
        finally:
            client.cancel([f for f in futures if not f.done()])
