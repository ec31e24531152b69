"""Progress on standard error: shown when forced (``--progress``) and on a terminal, never on a pipe or with
``--quiet``; standard output is the same either way."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from polyregions._support import progress as _progress
from polyregions.cli import main

ROOT = Path(__file__).resolve().parent.parent

NETWORK = {"format": "polyregions.network/1", "input_dim": 2, "layers": [
    {"weight": [[1, -2], [0.5, "1/3"], [1, 1]], "bias": [0, 1, "-1/2"], "activation": "relu"},
    {"weight": [[1, 1, -1]], "bias": ["-1/2"], "activation": "linear"}]}
ARRANGEMENT = {"format": "polyregions.arrangement/1", "dimension": 2,
               "hyperplanes": [[1, 0, 0], [0, 1, 0], [1, 1, "1/2"]]}


@pytest.fixture
def files(tmp_path, monkeypatch):
    (tmp_path / "net.json").write_text(json.dumps(NETWORK))
    (tmp_path / "arr.json").write_text(json.dumps(ARRANGEMENT))
    (tmp_path / "points.json").write_text(json.dumps([[0, 0], ["1/3", "-1/2"]]))
    monkeypatch.chdir(tmp_path)
    return tmp_path


# Each command with the name of a bar it shows (tqdm prints the name when the bar opens).
COMMANDS = {
    "regions mesh": (["regions", "net.json", "--box", "-1,1", "--json"], "breakpoints"),
    "regions lp": (["regions", "net.json", "--box", "-1,1", "--engine", "lp", "--json"], "layers"),
    "boundary": (["boundary", "net.json", "--box", "-1,1", "--json"], "boundary"),
    "topology": (["topology", "net.json", "--box", "-1,1", "--json"], "homology"),
    "local": (["local", "net.json", "--points", "points.json", "--radius", "1/2", "--json"], "points"),
    "arrangement": (["arrangement", "arr.json", "--json"], "arrangement"),
    "arrangement count": (["arrangement", "--name", "shi:3", "--count", "--json"], "characteristic polynomial"),
    "search": (["search", "--claim", "raghu", "--widths", "1,2", "--evaluations", "5", "--shrink", "0",
                "--json"], "search"),
    "sweep": (["sweep", "--widths", "1,2", "--seeds", "0-1", "--workers", "0", "-o", "table.csv", "--json"],
              "sweep"),
    "demo": (["demo", "--json"], "layers"),
}


def _run(argv: list[str], capsys) -> tuple[int, str, str]:
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def _comparable(name: str, out: str) -> str:
    """Standard output without what differs between two runs anyway (times)."""
    data = json.loads(out)
    for key in [key for key in data if "seconds" in key]:
        del data[key]
    return json.dumps(data, sort_keys=True)


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_progress_forced_shown_quiet_and_pipe_silent_stdout_unchanged(name, files, capsys, tmp_path):
    argv, bar = COMMANDS[name]
    outputs = {}
    for flags in ([], ["--progress"], ["--quiet"]):
        if name == "sweep":
            for table in files.glob("table.csv*"):
                table.unlink()  # a second sweep into the same table would only report rows already there
        status, out, err = _run(argv + flags, capsys)
        assert status == (1 if name == "search" else 0), err  # Raghu's bound is a theorem: no counterexample
        outputs[tuple(flags)] = (_comparable(name, out), err)
    assert outputs[()][0] == outputs[("--progress",)][0] == outputs[("--quiet",)][0]
    assert outputs[()][1] == ""  # captured standard error is not a terminal
    assert outputs[("--quiet",)][1] == ""
    assert bar in outputs[("--progress",)][1]


def test_plot_progress(files, capsys):
    pytest.importorskip("matplotlib")
    argv = ["plot", "layers", "net.json", "--box", "-1,1", "-o", "layers.png", "--json"]
    plain = _run(argv, capsys)
    forced = _run(argv + ["--progress"], capsys)
    quiet = _run(argv + ["--quiet"], capsys)
    assert plain[0] == forced[0] == quiet[0] == 0
    assert plain[1] == forced[1] == quiet[1]
    assert plain[2] == quiet[2] == "" and "hidden layers" in forced[2]


def test_progress_and_quiet_exclude_each_other(files, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["regions", "net.json", "--box", "-1,1", "--progress", "--quiet"])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polyregions: error:") and "--quiet" in err


def test_mode_is_restored_after_a_command(files, capsys):
    assert _progress._mode == "auto"
    _run(["regions", "net.json", "--box", "-1,1", "--progress"], capsys)
    assert _progress._mode == "auto"


def test_showing_follows_the_mode_and_the_terminal(monkeypatch):
    class Stream:
        def __init__(self, tty: bool) -> None:
            self.tty = tty

        def isatty(self) -> bool:
            return self.tty

    for tty in (False, True):
        monkeypatch.setattr(sys, "stderr", Stream(tty))
        assert _progress.showing(True) is tty
        assert _progress.showing(False) is False
        with _progress.progress_mode("on"):
            assert _progress.showing(True) is True and _progress.showing(False) is False
        with _progress.progress_mode("off"):
            assert _progress.showing(True) is False
        assert _progress.showing(True) is tty
    with pytest.raises(ValueError):
        with _progress.progress_mode("sometimes"):  # type: ignore[arg-type]
            pass


def _run_with_terminal(args: list[str], cwd: Path, *, sized: bool = True) -> tuple[int, bytes, bytes]:
    """Run ``python args`` with standard error on a pseudo-terminal and standard output on a pipe."""
    master, slave = pty.openpty()
    if sized:  # a new one reports 0 columns and 0 lines
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    process = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=slave, stdin=subprocess.DEVNULL,
                               cwd=cwd, env=env)
    os.close(slave)
    terminal = b""
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            process.kill()
            raise AssertionError("no output for 60 s")
        try:
            chunk = os.read(master, 4096)
        except OSError:  # the other end closed (Linux reports EIO)
            break
        if not chunk:
            break
        terminal += chunk
    os.close(master)
    out = process.stdout.read() if process.stdout else b""
    return process.wait(), out, terminal


@pytest.mark.parametrize("sized", [True, False], ids=["100x24", "size 0"])
def test_progress_on_a_terminal_by_default_and_not_with_quiet(files, sized):
    command = ["-m", "polyregions", "regions", "net.json", "--box", "-1,1", "--engine", "lp", "--json"]
    status, out, terminal = _run_with_terminal(command, files, sized=sized)
    assert status == 0 and b"layers" in terminal
    status_quiet, out_quiet, terminal_quiet = _run_with_terminal(command + ["--quiet"], files, sized=sized)
    assert status_quiet == 0 and terminal_quiet == b""
    piped = subprocess.run([sys.executable, *command], capture_output=True, cwd=files,
                           env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert piped.returncode == 0 and piped.stderr == b""  # a pipe gets no progress
    assert out == out_quiet == piped.stdout
    assert json.loads(out)["activation_regions"] >= 1
