"""Malformed input, systematically: every command ends bad input with one error line, quickly, in bounded memory.

The corpus (:mod:`fuzz.corpus`, :mod:`fuzz.checker`, :mod:`fuzz.library`) is built deterministically at
collection time. Command lines run in this process through :func:`polyregions.cli.main` (fast); the heavy ones
(devices, FIFOs, huge sparse files, resource-shaped options) and a fixed sample of the others also run as real
processes under a 1 GiB address-space limit and a time limit, where a traceback, a hang or a memory blow-up
would show as it does for a user.
"""

from __future__ import annotations

import copy
import json
import os
import resource
import signal
import subprocess
import sys
import time

import pytest
from command_line import exit_status
from cpu_clock import cpu_seconds
from fuzz.abuse import ABUSE_ACCEPTED, ABUSE_CASES, EXACT_CASES, LIBRARY_ABUSE_CASES, LIBRARY_ACCEPTED
from fuzz.checker import (
    CHECKER_CASES,
    CHECKER_SPECIAL_FILES,
    CheckerCase,
    certificate_document,
    export_document,
)
from fuzz.corpus import ACCEPTED, CASES, NET, Case, materialize
from fuzz.library import LIBRARY_CASES

from polyregions.errors import PolyregionsError
from proofs_check.verify import main as verify_main

# Limits on CPU seconds (:mod:`cpu_clock`), which other processes on the machine do not inflate.
IN_PROCESS_SECONDS = 10.0  # generous: these cases take milliseconds
PROCESS_SECONDS = 30.0  # a process starts in about a second (two with matplotlib)
# Limits on wall time, for hangs that burn no CPU.
ALARM_SECONDS = 60.0  # an in-process case still running then is interrupted
HANG_SECONDS = 120.0  # a process still running then is killed
MEMORY_LIMIT = 1 << 30
SAMPLE_EVERY = 25  # every 25th light case also runs in a process


def _param(case: Case):
    return pytest.param(case, id=case.name)


def _check_error(case: Case, status: int, out: str, err: str, seconds: float, limit: float) -> None:
    assert "Traceback" not in err, err[-2000:]
    assert status == case.status, (status, out[-500:], err[-500:])
    assert seconds < limit, f"{seconds:.1f} s"
    if case.status == 0:
        return
    lines = err.splitlines()
    assert len(lines) == 1, err[-2000:]
    assert lines[0].startswith("polyregions: error: "), lines[0][:300]
    for name in case.names:
        assert name in lines[0], (name, lines[0][:500])
    assert out == "", out[-500:]


class _Alarm(Exception):
    pass


def _alarm(signum, frame):
    raise _Alarm(f"no answer within {ALARM_SECONDS} s")


@pytest.mark.parametrize("case", [_param(c) for c in CASES + ACCEPTED if not c.heavy])
def test_malformed_command_line_gives_one_error_line(case, tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    materialize(case, str(tmp_path))
    previous = signal.signal(signal.SIGALRM, _alarm)  # a blocking open (a FIFO) fails the case, not the run
    signal.setitimer(signal.ITIMER_REAL, ALARM_SECONDS)
    try:
        started = cpu_seconds()
        status = exit_status(case.argv)
        seconds = cpu_seconds() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    _check_error(case, status, out, err, seconds, IN_PROCESS_SECONDS)


def _limited() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


_ENV = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
        "MPLBACKEND": "Agg", "PYTHONDONTWRITEBYTECODE": "1"}
_IN_PROCESSES = [c for c in CASES + ACCEPTED if c.heavy] + \
    [c for c in CASES if not c.heavy][::SAMPLE_EVERY]


@pytest.mark.parametrize("case", [_param(c) for c in _IN_PROCESSES])
def test_malformed_command_line_in_a_process_with_limits(case, tmp_path):
    materialize(case, str(tmp_path))
    started = cpu_seconds()
    try:
        result = subprocess.run([sys.executable, "-m", "polyregions", *case.argv], cwd=tmp_path, env=_ENV,
                                capture_output=True, text=True, preexec_fn=_limited, timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {HANG_SECONDS} s")
    seconds = cpu_seconds() - started
    _check_error(case, result.returncode, result.stdout, result.stderr, seconds, PROCESS_SECONDS)


def test_the_corpus_is_large_and_covers_every_command():
    assert len(CASES) >= 500
    commands = {case.argv[0] for case in CASES if case.argv}
    assert {"regions", "boundary", "arrangement", "plot", "search", "sweep", "topology", "demo", "local"} <= commands
    assert 40 <= len(_IN_PROCESSES) <= 80


# --- proofs_check on tampered exports and certificates ------------------------------------------------------

@pytest.fixture(scope="module")
def documents(tmp_path_factory):
    return {"export": export_document(), "certificate": certificate_document(tmp_path_factory.mktemp("cert"))}


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in CHECKER_CASES])
def test_tampered_export_is_rejected_by_the_checker(case, documents, tmp_path, capsys):
    path = case.write(copy.deepcopy(documents[case.base]), tmp_path)
    started = cpu_seconds()
    status = verify_main([path])
    seconds = cpu_seconds() - started
    out, err = capsys.readouterr()
    assert seconds < IN_PROCESS_SECONDS
    assert status in case.statuses, (status, out[-800:], err[-800:])
    if status == 2:  # unreadable: one line naming the file
        lines = err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"proofs_check: error: {path}: "), err[-800:]
    elif status == 3:  # the complex verified, a user-defined claim cannot be: the report says so
        assert err == "" and "not independently checkable" in out.splitlines()[-1], out[-800:]
    else:  # a failed check: the report says which, on standard output
        assert err == "" and out.splitlines()[-1].startswith("FAILED: "), out[-800:]


@pytest.mark.parametrize("label, content", [pytest.param(label, content, id=label)
                                            for label, content in CHECKER_SPECIAL_FILES])
def test_checker_refuses_special_files_in_a_process_with_limits(label, content, tmp_path):
    path = CheckerCase(label, lambda doc: content).write({}, tmp_path)
    try:
        result = subprocess.run([sys.executable, "-m", "proofs_check", "verify", path], cwd=tmp_path, env=_ENV,
                                capture_output=True, text=True, preexec_fn=_limited, timeout=HANG_SECONDS)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {HANG_SECONDS} s")
    assert result.returncode == 2 and "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.stderr.startswith(f"proofs_check: error: {path}: ") and result.stderr.count("\n") == 1


def test_the_untampered_documents_verify(documents, tmp_path, capsys):
    for name, doc in documents.items():
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(doc))
        assert verify_main([str(path)]) == 0, capsys.readouterr().out
        assert capsys.readouterr().out.splitlines()[-1] == "verified"


# --- the library: bad calls raise a PolyregionsError --------------------------------------------------------

@pytest.mark.parametrize("name, call, shown", [pytest.param(name, call, shown, id=name)
                                               for name, call, shown in LIBRARY_CASES])
def test_bad_library_call_raises_a_polyregions_error(name, call, shown, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    previous = signal.signal(signal.SIGALRM, _alarm)  # a blocking open (a FIFO) fails the case, not the run
    signal.setitimer(signal.ITIMER_REAL, ALARM_SECONDS)
    try:
        started = cpu_seconds()
        with pytest.raises(PolyregionsError) as info:
            call()
        seconds = cpu_seconds() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    assert seconds < IN_PROCESS_SECONDS
    message = str(info.value)
    assert "expected" in message or "cannot" in message, message
    for part in shown:  # the argument (or file) and what arrived
        assert part in message, (part, message)


def test_the_library_corpus_is_large():
    assert len(LIBRARY_CASES) >= 150


# --- the second corpus: resources and setting abused (fuzz.abuse) ------------------------------------------



def _run_case_in_process(case: Case, tmp_path, monkeypatch, capsys) -> tuple[int, str, str, float]:
    monkeypatch.chdir(tmp_path)
    materialize(case, str(tmp_path))
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.setitimer(signal.ITIMER_REAL, ALARM_SECONDS)
    try:
        started = cpu_seconds()
        status = exit_status(case.argv)
        seconds = cpu_seconds() - started
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
    out, err = capsys.readouterr()
    return status, out, err, seconds


@pytest.mark.parametrize("case", [_param(c) for c in ABUSE_CASES + ABUSE_ACCEPTED if not c.heavy])
def test_abused_command_line_in_process(case, tmp_path, monkeypatch, capsys):
    status, out, err, seconds = _run_case_in_process(case, tmp_path, monkeypatch, capsys)
    _check_error(case, status, out, err, seconds, IN_PROCESS_SECONDS)
    assert not (tmp_path / "PWNED").exists()  # a pickle's code never ran


@pytest.mark.parametrize("case", [_param(c) for c in ABUSE_CASES + ABUSE_ACCEPTED if c.heavy])
def test_abused_command_line_in_a_process_with_limits(case, tmp_path):
    test_malformed_command_line_in_a_process_with_limits(case, tmp_path)
    assert not (tmp_path / "PWNED").exists()


def test_the_second_corpus_has_its_families():
    families = {tag for case in ABUSE_CASES + ABUSE_ACCEPTED for tag in case.tags}
    assert {"depth", "sizes", "workers", "slow", "model files", "pickle"} <= families
    assert len(ABUSE_CASES) + len(ABUSE_ACCEPTED) >= 60


@pytest.mark.parametrize("name, call, shown", [pytest.param(name, call, shown, id=name)
                                               for name, call, shown in LIBRARY_ABUSE_CASES])
def test_abused_library_call_raises_a_polyregions_error(name, call, shown, tmp_path, monkeypatch):
    test_bad_library_call_raises_a_polyregions_error(name, call, shown, tmp_path, monkeypatch)


@pytest.mark.parametrize("name, call", [pytest.param(name, call, id=name) for name, call in LIBRARY_ACCEPTED])
def test_deep_bounds_answer(name, call):
    started = cpu_seconds()
    assert call() is not None
    assert cpu_seconds() - started < IN_PROCESS_SECONDS


@pytest.mark.parametrize("name, call, value", [pytest.param(name, call, value, id=name)
                                               for name, call, value in EXACT_CASES])
def test_extended_precision_is_read_exactly(name, call, value, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert call() == value


# --- the environment: standard output, working directory, encoding, signals ----------------------------------

def _polyregions(argv, cwd, **options) -> subprocess.CompletedProcess:
    options.setdefault("stdout", subprocess.PIPE)
    try:
        return subprocess.run([sys.executable, "-m", "polyregions", *argv], cwd=cwd, env=options.pop("env", _ENV),
                              stderr=subprocess.PIPE, text=True, preexec_fn=_limited, timeout=HANG_SECONDS,
                              **options)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within {HANG_SECONDS} s")


_OUTPUTS = [("arrangement", "--name", "braid:4"), ("arrangement", "--name", "braid:4", "--json"),
            ("regions", "net.json", "--box", "-1,1")]


@pytest.mark.parametrize("argv", _OUTPUTS, ids=" ".join)
def test_a_closed_standard_output_ends_quietly(argv, tmp_path):
    (tmp_path / "net.json").write_text(json.dumps(NET))
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first byte: every write fails with EPIPE
    try:
        done = _polyregions(argv, tmp_path, stdout=write)
    finally:
        os.close(write)
    assert done.returncode == 141 and done.stderr == "", done.stderr[-2000:]


@pytest.mark.parametrize("argv", _OUTPUTS, ids=" ".join)
def test_a_full_standard_output_is_one_line(argv, tmp_path):
    (tmp_path / "net.json").write_text(json.dumps(NET))
    with open("/dev/full", "w") as full:
        done = _polyregions(argv, tmp_path, stdout=full)
    assert done.returncode == 2, done.stderr[-2000:]
    assert done.stderr == "polyregions: error: standard output: cannot write: No space left on device\n"


@pytest.mark.parametrize("argv, shown", [
    (("regions", "{net}", "--box", "-1,1", "--export", "out.json"), "--export"),
    (("sweep", "--widths", "1,2", "-o", "t.csv"), "-o"),
    (("regions", "net.json", "--box", "-1,1"), "net.json"),
    (("arrangement", "--name", "braid:3", "--list", "r.jsonl"), "--list"),
], ids=lambda v: v if isinstance(v, str) else " ".join(v)[:40])
def test_a_deleted_working_directory_is_one_line(argv, shown, tmp_path):
    (tmp_path / "net.json").write_text(json.dumps(NET))
    gone = tmp_path / "gone"
    gone.mkdir()
    argv = [a.replace("{net}", str(tmp_path / "net.json")) for a in argv]
    script = ("import os, sys, runpy; os.chdir(sys.argv[1]); os.rmdir(sys.argv[1]); sys.argv = ['polyregions', "
              "*sys.argv[2:]]; runpy.run_module('polyregions', run_name='__main__')")
    done = subprocess.run([sys.executable, "-c", script, str(gone), *argv], env=_ENV, capture_output=True,
                          text=True, preexec_fn=_limited, timeout=HANG_SECONDS)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.stderr.count("\n") == 1 and shown in done.stderr, done.stderr


@pytest.mark.parametrize("argv", [("arrangement", "n\u00e8.json"), ("arrangement", "n\u00e8.json", "--json"),
                                  ("arrangement", "\u7f51.json", "--count"), ("regions", "m\u00e9.json", "--box",
                                                                               "-1,1")], ids=" ".join)
def test_an_ascii_only_encoding_with_a_non_ascii_file_name(argv, tmp_path):
    arrangement = {"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": [[1, 0, 0], [0, 1, 0]]}
    (tmp_path / "n\u00e8.json").write_text(json.dumps(arrangement))
    (tmp_path / "\u7f51.json").write_text(json.dumps(arrangement))
    done = _polyregions(argv, tmp_path, env={**_ENV, "PYTHONIOENCODING": "ascii"})
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert done.returncode in (0, 2) and done.stderr.count("\n") <= 1, done.stderr[-2000:]


def _default_sigint() -> None:
    _limited()
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _ignored_sigint() -> None:
    _limited()
    signal.signal(signal.SIGINT, signal.SIG_IGN)


_LONG_SWEEP = ("sweep", "--widths", "2,6,6", "--seeds", "0-99999", "--workers", "0", "-o", "t.csv", "--quiet")


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_sweep_says_so_in_one_line(signum, tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "polyregions", *_LONG_SWEEP], cwd=tmp_path, env=_ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_default_sigint)
    time.sleep(3.0)
    process.send_signal(signum)
    out, err = process.communicate(timeout=HANG_SECONDS)
    assert process.returncode == 130 and err == "polyregions: interrupted\n", (process.returncode, err[-2000:])


def test_an_inherited_ignored_sigint_stays_ignored(tmp_path):
    process = subprocess.Popen([sys.executable, "-m", "polyregions", *_LONG_SWEEP], cwd=tmp_path, env=_ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=_ignored_sigint)
    time.sleep(3.0)
    process.send_signal(signal.SIGINT)
    time.sleep(1.0)
    assert process.poll() is None  # Ctrl-C ignored, as the parent decided
    process.send_signal(signal.SIGTERM)
    out, err = process.communicate(timeout=HANG_SECONDS)
    assert process.returncode == 130 and err == "polyregions: interrupted\n", (process.returncode, err[-2000:])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_before_the_command_line_runs_ends_in_one_line(signum, tmp_path):
    # the signal arrives while python -m polyregions is still importing (held from its first line)
    script = ("import os, sys, runpy; from polyregions._support.signals import held_until_main; held_until_main(); "
              f"os.kill(os.getpid(), {int(signum)}); sys.argv = ['polyregions', 'arrangement', '--name', 'braid:4']; "
              "from polyregions.cli import command; command()")
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=_ENV, capture_output=True, text=True,
                          preexec_fn=_default_sigint, timeout=HANG_SECONDS)
    assert done.returncode == 130 and done.stderr == "polyregions: interrupted\n" and done.stdout == "", done.stderr


@pytest.mark.parametrize("wrapped", [ImportError, RuntimeError, TypeError])
def test_an_interrupt_inside_an_import_is_an_interruption(wrapped, monkeypatch, capsys):
    # numpy turns a KeyboardInterrupt during its import into an ImportError; class bodies into other errors
    import polyregions.cli.arrangement as command

    def interrupted_import(args):
        try:
            signal.raise_signal(signal.SIGINT)
            time.sleep(1)
        except KeyboardInterrupt as error:
            raise wrapped("half-imported module") from error

    monkeypatch.setattr(command, "run", interrupted_import)
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        status = exit_status(["arrangement", "--name", "braid:3"])
    finally:
        signal.signal(signal.SIGINT, previous)
    out, err = capsys.readouterr()
    assert status == 130 and err == "polyregions: interrupted\n", err
