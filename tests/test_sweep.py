"""Sweeps: every bound holds, the pool, Dask and in-process runs agree, and resuming skips finished rows."""

from __future__ import annotations

import itertools
import json
import math
from fractions import Fraction

import pytest

import polyregions.experiments.sweeps as sweep_module
from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.experiments.sweeps import (
    COLUMNS,
    KEY,
    parse_activation,
    parse_seeds,
    read_table,
    run_task,
    sweep,
    sweep_tasks,
    write_table,
)

BREAKPOINTS = {"relu": 1, "leaky_relu": 1, "hardtanh": 2}


def _without_time(rows):
    return [{k: v for k, v in row.items() if k != "seconds"} for row in rows]


# --- the architecture bounds, recomputed from their closed forms ---------------------------------------------

def expected_bounds(widths, activation, d):
    """Every bound of a row, from the bounds' formulas (J of Serra et al. by brute force)."""
    t = BREAKPOINTS[activation]
    hidden = widths[1:]

    def cells(m):
        return sum(math.comb(m, i) for i in range(d + 1))

    serra = 0
    for js in itertools.product(*(range(n + 1) for n in hidden)):
        caps = [d] + [n - j for n, j in zip(hidden, js)]
        if all(js[l] <= min(min(caps[:l + 1]), hidden[l]) for l in range(len(hidden))):
            serra += math.prod(math.comb(n, j) for n, j in zip(hidden, js))
    layered = math.prod(cells(t * n) for n in hidden)
    return {
        "trivial": (t + 1) ** sum(hidden),
        "one_layer": cells(t * hidden[0]) if len(hidden) == 1 else None,
        "raghu2017_relu": layered if activation == "relu" else None,
        "raghu2017_hardtanh": layered if activation == "hardtanh" else None,
        "raghu2017_breakpoints": layered,
        "serra2018": serra if activation == "relu" else None,
    }


SMALL = dict(widths=[[1, 4, 4], [2, 3, 3], [2, 4]], seeds=[0, 1], inits=["he_normal", "pytorch_default"],
             activations=["relu", "hardtanh", "leaky_relu"])


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory):
    path = tmp_path_factory.mktemp("sweep") / "small.csv"
    tasks = sweep_tasks(**SMALL)
    return tasks, sweep(tasks, path, workers=2), path


def test_every_bound_holds_on_a_sweep(small_sweep):
    tasks, result, path = small_sweep
    rows = read_table(path)
    assert len(rows) == len(tasks) == 36 and result.computed == 36 and not result.interrupted
    assert [tuple(r[c] for c in KEY) for r in rows] == [t.key for t in tasks]
    for row, task in zip(rows, tasks):
        count = int(row["activation_regions"])
        assert 1 <= int(row["linear_regions"]) <= count
        assert row["exact"] == "true" and row["bounds_hold"] == "true"
        for name, bound in expected_bounds(task.widths, row["activation"], task.widths[0]).items():
            assert row[f"bound_{name}"] == ("" if bound is None else str(bound)), name
            assert bound is None or count <= bound
    assert {r["activation"] for r in rows} == {"relu", "hardtanh", "leaky_relu"}
    assert {r["input_dim"] for r in rows} == {"1", "2"}


def test_pool_rows_equal_rows_computed_here(small_sweep):
    tasks, result, _ = small_sweep
    assert _without_time(result.rows) == _without_time(run_task(t) for t in tasks)


def test_relu_counts_match_a_brute_force_oracle(small_sweep):
    from region_oracle import brute_force_patterns

    from polyregions.networks.initializers import he_normal, pytorch_default
    from polyregions.regions.domains import box

    tasks, result, _ = small_sweep
    checked = 0
    for task, row in zip(tasks, result.rows):
        if task.widths == (1, 4, 4) and task.activation == "relu" and task.seed == 0:
            init = he_normal if task.init == "he_normal" else pytorch_default
            net = init(list(task.widths), seed=task.seed)
            region = box([-1], [1]).region
            assert len(brute_force_patterns(net, region.A, region.b)) == int(row["activation_regions"])
            checked += 1
    assert checked == 2


def test_dask_gives_the_same_table_as_the_local_pool(tmp_path, small_sweep):
    distributed = pytest.importorskip("dask.distributed")
    tasks = sweep_tasks([[1, 4, 4], [2, 3, 3]], seeds=[0, 1], activations=["relu", "hardtanh"])
    local = sweep(tasks, tmp_path / "local.csv", workers=2)
    with distributed.LocalCluster(n_workers=1, processes=False, dashboard_address=None) as cluster:
        remote = sweep(tasks, tmp_path / "dask.csv", scheduler=cluster.scheduler_address)
        with distributed.Client(cluster) as client:
            with_client = sweep(tasks, tmp_path / "client.csv", scheduler=client)
    assert remote.computed == with_client.computed == len(tasks) == 8
    assert _without_time(read_table(tmp_path / "dask.csv")) == _without_time(read_table(tmp_path / "local.csv"))
    assert _without_time(with_client.rows) == _without_time(local.rows)


# --- resuming -----------------------------------------------------------------------------------------------

class _Stop:
    """Interrupts a sweep (as Ctrl-C would) once ``after`` rows are recorded."""

    def __init__(self, after):
        self.after, self.seen = after, 0

    def __call__(self, row):
        self.seen += 1
        if self.seen == self.after:
            raise KeyboardInterrupt


def test_resuming_does_not_recompute_finished_rows(tmp_path, monkeypatch):
    tasks = sweep_tasks([[1, 3, 3], [2, 3]], seeds=[0, 1, 2], activations=["relu", "leaky_relu"])
    sweep(tasks, tmp_path / "fresh.csv", workers=0)
    path = tmp_path / "resumed.csv"
    first = sweep(tasks, path, workers=0, on_row=_Stop(5))
    assert first.interrupted and first.computed == 5
    kept = read_table(path)
    assert len(kept) == 5
    computed = []

    def counting(task):
        computed.append(task.key)
        return run_task(task)

    monkeypatch.setattr(sweep_module, "run_task", counting)
    second = sweep(tasks, path, workers=0)
    assert (second.computed, second.skipped, second.interrupted) == (len(tasks) - 5, 5, False)
    assert set(computed) == {t.key for t in tasks} - {tuple(r[c] for c in KEY) for r in kept}
    final = read_table(path)
    assert [r for r in final if r in kept] == kept            # finished rows kept verbatim, timings included
    assert _without_time(final) == _without_time(read_table(tmp_path / "fresh.csv"))
    computed.clear()
    third = sweep(tasks, path, workers=0)
    assert (third.computed, third.skipped, computed) == (0, len(tasks), [])


def test_interrupting_the_pool_keeps_the_finished_rows(tmp_path):
    tasks = sweep_tasks([[2, 4, 4]], seeds=range(8))
    path = tmp_path / "pool.csv"
    first = sweep(tasks, path, workers=2, on_row=_Stop(3))
    assert first.interrupted and first.computed == 3 == len(read_table(path))
    second = sweep(tasks, path, workers=2)
    assert (second.computed, second.skipped) == (5, 3)
    assert _without_time(second.rows) == _without_time(run_task(t) for t in tasks)


def test_a_failing_task_keeps_the_finished_rows(tmp_path, monkeypatch):
    tasks = sweep_tasks([[1, 2]], seeds=range(4))

    def flaky(task):
        if task.seed == 2:
            raise RuntimeError("worker lost")
        return run_task(task)

    monkeypatch.setattr(sweep_module, "run_task", flaky)
    with pytest.raises(RuntimeError):
        sweep(tasks, tmp_path / "t.csv", workers=0)
    assert [r["seed"] for r in read_table(tmp_path / "t.csv")] == ["0", "1"]


def test_rows_of_other_sweeps_are_kept(tmp_path):
    path = tmp_path / "t.csv"
    sweep(sweep_tasks([[1, 2]], seeds=[5]), path, workers=0)
    result = sweep(sweep_tasks([[1, 3]], seeds=[0]), path, workers=0)
    assert [(r["architecture"], r["seed"]) for r in result.rows] == [("1-3", "0"), ("1-2", "5")]


def test_four_sweeps_at_once_into_one_table_keep_every_row(tmp_path):
    # Regression: each sweep wrote only its own rows, so the last one to finish erased the others'.
    import os
    import subprocess
    import sys

    path = tmp_path / "shared.csv"
    runs = [subprocess.Popen([sys.executable, "-m", "polyregions", "sweep", "--widths", "1,3,3", "--seeds",
                              f"{10 * k}-{10 * k + 9}", "--workers", "0", "--json", "-o", str(path)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for k in range(4)]
    outcomes = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0, 0, 0], [err for _, err in outcomes]
    assert all(10 <= json.loads(out)["rows"] <= 40 and json.loads(out)["computed"] == 10 for out, _ in outcomes)
    rows = sorted(read_table(path), key=lambda row: int(row["seed"]))
    assert [int(row["seed"]) for row in rows] == list(range(40))
    assert _without_time(rows) == _without_time(run_task(t) for t in sweep_tasks([[1, 3, 3]], seeds=range(40)))
    assert os.listdir(tmp_path) == ["shared.csv"]     # no lock file, no temporary file left
    again = sweep(sweep_tasks([[1, 3, 3]], seeds=range(40)), path, workers=0)
    assert (again.computed, again.skipped) == (0, 40)


def test_rows_written_meanwhile_by_another_sweep_are_merged(tmp_path):
    path = tmp_path / "t.csv"
    other = run_task(sweep_tasks([[1, 2]], seeds=[9])[0])

    def meanwhile(row):
        if row["seed"] == "0":
            write_table(path, read_table(path) + [other])    # as another sweep would, between two writes

    result = sweep(sweep_tasks([[1, 3]], seeds=[0, 1]), path, workers=0, on_row=meanwhile, checkpoint_seconds=0)
    assert [(r["architecture"], r["seed"]) for r in result.rows] == [("1-3", "0"), ("1-3", "1"), ("1-2", "9")]
    assert read_table(path) == list(result.rows)


# --- the table ------------------------------------------------------------------------------------------------

def test_table_round_trip_and_bad_tables(tmp_path):
    row = run_task(sweep_tasks([[1, 2]], seeds=[0])[0])
    path = tmp_path / "t.csv"
    write_table(path, [row])
    assert read_table(path) == [row]
    assert read_table(tmp_path / "missing.csv") == []
    (tmp_path / "other.csv").write_text("a,b\n1,2\n")
    with pytest.raises(InvalidInputError, match="expected a sweep table with columns"):
        read_table(tmp_path / "other.csv")
    (tmp_path / "short.csv").write_text(",".join(COLUMNS) + "\n1-2,0\n")
    with pytest.raises(InvalidInputError, match="row 2"):
        read_table(tmp_path / "short.csv")


def test_parquet_round_trip(tmp_path):
    pytest.importorskip("pyarrow")
    tasks = sweep_tasks([[1, 3, 3]], seeds=[0, 1], activations=["relu", "hardtanh"])
    result = sweep(tasks, tmp_path / "t.parquet", workers=0)
    assert read_table(tmp_path / "t.parquet") == list(result.rows)
    assert sweep(tasks, tmp_path / "t.parquet", workers=0).skipped == 4


def test_bounds_beyond_64_bits_stay_exact():
    row = run_task(sweep_tasks([[1, 40, 40]], seeds=[0])[0])
    assert row["bound_trivial"] == str(2 ** 80)


# --- parsing and bad input --------------------------------------------------------------------------------

def test_parsing():
    assert parse_seeds("0-9") == list(range(10))
    assert parse_seeds("4, 1-2") == [4, 1, 2]
    assert parse_activation("leaky_relu")[1].slopes == (Fraction(1, 100), 1)
    assert parse_activation("leaky_relu:-1/2")[0] == "leaky_relu:-1/2"
    for bad in ("", "a-b", "3-1", "-1"):
        with pytest.raises(InvalidInputError, match="seeds"):
            parse_seeds(bad)
    for bad in ("tanh", "relu:2", "leaky_relu:1", 3):
        with pytest.raises(InvalidInputError, match="activation"):
            parse_activation(bad)


@pytest.mark.parametrize("kwargs, message", [
    (dict(widths=[[2]]), "widths\\[0\\]"),
    (dict(widths=[]), "at least one architecture"),
    (dict(widths=[[2, 0]]), "widths\\[0\\]"),
    (dict(widths=[[2, 3]], inits=["xavier"]), "init"),
    (dict(widths=[[2, 3]], box=(1, -1)), "LO < HI"),
    (dict(widths=[[2, 3]], engine="fast"), "engine"),
])
def test_bad_tasks(kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        sweep_tasks(seeds=[0], **kwargs)


def test_bad_workers_and_scheduler(tmp_path):
    tasks = sweep_tasks([[1, 2]], seeds=[0])
    with pytest.raises(InvalidInputError, match="workers"):
        sweep(tasks, tmp_path / "t.csv", workers=-1)
    with pytest.raises(InvalidInputError, match="existing directory"):
        sweep(tasks, tmp_path / "missing" / "t.csv")
    with pytest.raises(InvalidInputError, match="output: expected a file, got a directory"):
        sweep(tasks, tmp_path)


# --- command line -----------------------------------------------------------------------------------------

def test_cli_sweep_and_resume(tmp_path, capsys):
    out = tmp_path / "results.csv"
    argv = ["sweep", "--widths", "2,3,3", "--widths", "1,4,4", "--seeds", "0-2", "--init",
            "he_normal,pytorch_default", "--activation", "relu", "--activation", "hardtanh", "--box", "-1,1",
            "-o", str(out), "--workers", "2", "--json"]
    assert main(argv) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary == {**summary, "rows": 24, "computed": 24, "skipped": 0, "bounds_hold": True, "exact": True}
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == 24
    with pytest.raises(SystemExit) as exit_:
        main(["sweep", "--widths", "2,x", "-o", str(out)])
    assert exit_.value.code == 2 and "--widths" in capsys.readouterr().err


@pytest.mark.slow
def test_every_bound_holds_on_a_bigger_sweep(tmp_path):
    tasks = sweep_tasks([[1, 16, 16, 16], [2, 16, 16], [2, 32], [2, 8, 8, 8]], seeds=range(5),
                        inits=["he_normal", "pytorch_default"], activations=["relu", "hardtanh", "leaky_relu"])
    result = sweep(tasks, tmp_path / "big.csv", workers=2)
    assert len(result.rows) == 120
    for row, task in zip(result.rows, tasks):
        count = int(row["activation_regions"])
        assert row["exact"] == "true" and row["bounds_hold"] == "true"
        for name, bound in expected_bounds(task.widths, row["activation"], task.widths[0]).items():
            assert row[f"bound_{name}"] == ("" if bound is None else str(bound))
            assert bound is None or count <= bound
