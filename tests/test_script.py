"""The installed ``polyregions`` script starts as ``python -m polyregions`` does: Ctrl-C and SIGTERM are held from
its first line, so a signal while the command line is still being imported ends in one line and status 130."""

import os
import shutil
import signal
import subprocess
import sys
import textwrap

import pytest

SCRIPT = shutil.which("polyregions")
pytestmark = pytest.mark.skipif(SCRIPT is None, reason="the polyregions script is not installed (pip install -e .)")

# Imported by the interpreter at start-up (from PYTHONPATH): the signal is sent to the process at the moment the
# command line's package is about to be imported, before anything of it has run.
_SITECUSTOMIZE = textwrap.dedent("""
    import os, sys

    class _SignalOnImport:
        def find_spec(self, name, path=None, target=None):
            if name == "polyregions.cli" and "POLYREGIONS_TEST_SIGNAL" in os.environ:
                sys.meta_path.remove(self)
                os.kill(os.getpid(), int(os.environ["POLYREGIONS_TEST_SIGNAL"]))
            return None

    sys.meta_path.insert(0, _SignalOnImport())
""")


def _environment(tmp_path, signum=None):
    (tmp_path / "sitecustomize.py").write_text(_SITECUSTOMIZE)
    env = {**os.environ, "PYTHONPATH": str(tmp_path), "OPENBLAS_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
    if signum is not None:
        env["POLYREGIONS_TEST_SIGNAL"] = str(int(signum))
    return env


def _default_signals() -> None:
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_DFL)


def test_the_script_runs_the_command_line(tmp_path):
    done = subprocess.run([SCRIPT, "arrangement", "--name", "braid:3", "--count"], cwd=tmp_path,
                          env=_environment(tmp_path), capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stderr == "" and "6" in done.stdout, done.stderr[-2000:]
    done = subprocess.run([SCRIPT, "arrangement", "--name", "braid:0"], cwd=tmp_path, env=_environment(tmp_path),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stderr.startswith("polyregions: error: ") and \
        done.stderr.count("\n") == 1, done.stderr


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_the_script_imports_the_command_line_ends_in_one_line(signum, tmp_path):
    done = subprocess.run([SCRIPT, "arrangement", "--name", "braid:4"], cwd=tmp_path,
                          env=_environment(tmp_path, signum), capture_output=True, text=True,
                          preexec_fn=_default_signals, timeout=60)
    assert done.returncode == 130 and done.stderr == "polyregions: interrupted\n" and done.stdout == "", \
        (done.returncode, done.stderr[-2000:])


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_python_dash_m_starts_the_same_way(signum, tmp_path):
    done = subprocess.run([sys.executable, "-m", "polyregions", "arrangement", "--name", "braid:4"], cwd=tmp_path,
                          env=_environment(tmp_path, signum), capture_output=True, text=True,
                          preexec_fn=_default_signals, timeout=60)
    assert done.returncode == 130 and done.stderr == "polyregions: interrupted\n" and done.stdout == "", \
        (done.returncode, done.stderr[-2000:])
