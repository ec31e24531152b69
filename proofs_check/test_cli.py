"""The command line of proofs_check: Ctrl-C and SIGTERM end it with one line and status 130, progress goes to
standard error (forced, or on a terminal) and never changes standard output."""

import fcntl
import json
import os
import pathlib
import pty
import select
import signal
import struct
import subprocess
import sys
import termios
import time

import pytest

from proofs_check.__main__ import main as package_main
from proofs_check._interrupts import EXIT_INTERRUPTED, MESSAGE, run_interruptibly
from proofs_check._progress import Progress
from proofs_check.test_verify import crossing

ROOT = pathlib.Path(__file__).resolve().parent.parent


def _interruptible():
    """A child's Ctrl-C as a terminal gives it, whatever this run inherited (``nohup`` and some runners start the
    tests with SIGINT ignored, which children would inherit)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_theorems(tmp_path, *extra):
    """``python -m proofs_check theorems`` in a subprocess, once its first check has printed its line."""
    process = subprocess.Popen([sys.executable, "-u", "-m", "proofs_check", "theorems", "--out", str(tmp_path / "r"),
                                "--quiet", *extra], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               cwd=ROOT, preexec_fn=_interruptible)
    first = process.stdout.readline()
    assert first.startswith("zaslavsky: passed"), first + process.stderr.read()
    return process, first


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_signal_ends_theorems_with_one_line_and_130(tmp_path, signum):
    process, _ = _start_theorems(tmp_path)
    process.send_signal(signum)
    out, err = process.communicate(timeout=120)
    assert process.returncode == EXIT_INTERRUPTED, (process.returncode, out, err)
    assert err == MESSAGE + "\n"  # exactly one line, no traceback
    assert "checks that ran passed" not in out and "checks FAILED" not in out  # no final line: it stopped
    assert (tmp_path / "r" / "zaslavsky.md").is_file()  # what was written is kept


def test_a_signal_ends_verify_with_one_line_and_130(tmp_path):
    # Ctrl-C arriving while the export is checked (the check is replaced by one that receives it).
    path = tmp_path / "export.json"
    path.write_text(json.dumps(crossing()))
    code = ("import signal, sys, proofs_check.verify as v\n"
            "def slow(*a, **k):\n    signal.raise_signal(signal.SIGINT)\n"
            "v.verify_export = slow\n"
            "from proofs_check.__main__ import main\nsys.exit(main(['verify', sys.argv[1]]))\n")
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, cwd=ROOT,
                          preexec_fn=_interruptible)
    assert done.returncode == EXIT_INTERRUPTED and done.stderr == MESSAGE + "\n" and done.stdout == ""


def test_an_interrupt_inside_a_finaliser_still_ends_the_run(tmp_path):
    # Python reports an exception raised in __del__ and carries on: the interrupt must not be lost that way.
    code = ("import sys, time\n"
            "from proofs_check._interrupts import run_interruptibly\n"
            "class Finalised:\n    def __del__(self):\n        raise KeyboardInterrupt\n"
            "def main(argv):\n    Finalised()\n    time.sleep(30)\n    print('finished')\n    return 0\n"
            "sys.exit(run_interruptibly(main))\n")
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60,
                          preexec_fn=_interruptible)
    assert done.returncode == EXIT_INTERRUPTED and done.stderr == MESSAGE + "\n" and done.stdout == ""
    assert time.monotonic() - started < 20


def test_run_interruptibly_restores_the_handlers(capsys):
    before = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGALRM)
    hook = sys.unraisablehook

    def interrupted(argv):
        assert signal.getsignal(signal.SIGTERM) is not before[1]
        raise KeyboardInterrupt

    assert run_interruptibly(interrupted, []) == EXIT_INTERRUPTED
    assert capsys.readouterr().err == MESSAGE + "\n"
    assert (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM), signal.getsignal(signal.SIGALRM)) \
        == before
    assert sys.unraisablehook is hook
    assert run_interruptibly(lambda argv: 7, []) == 7


def test_usage_errors(capsys):
    assert package_main([]) == 2
    assert package_main(["nonsense"]) == 2
    err = capsys.readouterr().err
    assert "'nonsense'" in err and "Traceback" not in err


def _verify(path, *flags):
    return subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(path), *flags], capture_output=True,
                          text=True, cwd=ROOT)


def test_verify_progress_forced_never_on_a_pipe_and_stdout_unchanged(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(crossing()))
    plain, forced = _verify(path), _verify(path, "--progress")
    assert plain.returncode == forced.returncode == 0
    assert plain.stdout == forced.stdout and plain.stdout.strip().endswith("verified")
    assert plain.stderr == ""
    assert "proofs_check verify" in forced.stderr and "interior points" in forced.stderr
    quiet = _verify(path, "--quiet")
    assert quiet.stdout == "verified\n" and quiet.stderr == ""


def _with_terminal(args):
    """Run ``python args`` with standard error on a pseudo-terminal; (status, stdout, what the terminal got)."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 100, 0, 0))
    process = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=slave,
                               stdin=subprocess.DEVNULL, cwd=ROOT)
    os.close(slave)
    received = b""
    while True:
        ready, _, _ = select.select([master], [], [], 120)
        if not ready:
            process.kill()
            raise AssertionError("no output for 120 s")
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        received += chunk
    os.close(master)
    return process.wait(), process.stdout.read(), received


def test_verify_progress_on_a_terminal_and_quiet(tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(crossing()))
    status, out, terminal = _with_terminal(["-m", "proofs_check", "verify", str(path)])
    assert status == 0 and b"proofs_check verify" in terminal
    assert out.decode() == _verify(path).stdout
    status, out, terminal = _with_terminal(["-m", "proofs_check", "verify", str(path), "--quiet"])
    assert status == 0 and terminal == b"" and out == b"verified\n"


def test_theorems_progress_forced_and_stdout_unchanged(tmp_path):
    args = [sys.executable, "-m", "proofs_check", "theorems", "--only", "zaslavsky", "serra"]
    plain = subprocess.run(args + ["--out", str(tmp_path / "a")], capture_output=True, text=True, cwd=ROOT)
    forced = subprocess.run(args + ["--out", str(tmp_path / "a"), "--progress"], capture_output=True, text=True,
                            cwd=ROOT)
    assert plain.returncode == forced.returncode == 0
    strip = [line.split(" in ")[0] for line in plain.stdout.splitlines()]  # check times differ between runs
    assert strip == [line.split(" in ")[0] for line in forced.stdout.splitlines()]
    assert plain.stderr == ""
    assert "proofs_check theorems: 0/2" in forced.stderr and "zaslavsky" in forced.stderr


def test_progress_display_erases_itself_and_keeps_report_lines_apart():
    class Stream:
        def __init__(self):
            self.text = ""

        def write(self, text):
            self.text += text

        def flush(self):
            pass

    stream, printed = Stream(), []
    with Progress("job", total=2, enabled=True, stream=stream) as shown:
        shown.step("first")
        shown.print("line 1", out=lambda line: printed.append((line, stream.text.rsplit("\r", 1)[-1])))
        shown.advance()
        time.sleep(0.01)
    assert printed == [("line 1", "")]  # the display was erased before the report line
    assert "job: 0/2, 0 s: first" in stream.text and "job: 1/2" in stream.text
    assert stream.text.rsplit("\r", 2)[-2].strip() == "" and stream.text.endswith("\r")  # erased at the end
    silent = Stream()
    with Progress("job", total=None, enabled=False, stream=silent) as shown:
        shown.step("x")
        shown.advance()
    assert silent.text == ""
