"""Whole commands timed as their own processes: wall time, CPU time and peak memory of that child alone."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["Measured", "RunFailed", "run_json"]


@dataclass(frozen=True)
class Measured:
    """The JSON object a command printed last, and what the command cost."""

    output: dict[str, Any]
    wall: float  # seconds
    cpu: float  # user + system seconds of the child
    peak_mb: float  # peak resident memory of the child


class RunFailed(RuntimeError):
    """A command that failed or outlived its time, with what it cost and the last line it wrote to stderr."""

    def __init__(self, message: str, wall: float, cpu: float, last_line: str) -> None:
        super().__init__(message)
        self.wall, self.cpu, self.last_line = wall, cpu, last_line


#: Runs the command given as its JSON argument and reports the command's own peak memory on its last stderr
#: line. A child's peak memory counts the pages of the process that forked it, so the command is started by
#: this small interpreter (no site packages) rather than by a benchmark that has imported torch.
_LAUNCHER = """
import json, os, sys
command = json.loads(sys.argv[1])
pid = os.posix_spawnp(command[0], command, os.environ)
_, status, usage = os.wait4(pid, 0)
sys.stderr.write("\\n" + json.dumps({"peak_kb": usage.ru_maxrss}) + "\\n")
sys.exit(os.waitstatus_to_exitcode(status) & 255)
"""


def run_json(command: list[str], *, timeout: float | None = None) -> Measured:
    """Run ``command`` and measure it; raise :class:`RunFailed` when it fails or outlives ``timeout`` seconds.

    ``os.wait4`` gives the resource usage of the child alone (its peak memory through the launcher above); its
    output goes to temporary files rather than pipes, which a chatty child could fill while this process waits for
    it."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen([sys.executable, "-S", "-c", _LAUNCHER, json.dumps(command)], stdout=out,
                                   stderr=err, text=True, start_new_session=True)
        timer = threading.Timer(timeout, os.killpg, (process.pid, signal.SIGKILL)) if timeout else None
        if timer:
            timer.start()
        try:
            _, status, usage = os.wait4(process.pid, 0)
        finally:
            if timer:
                timer.cancel()
        wall = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        errors = err.read().strip()
        if process.returncode != 0:
            reason = f"took more than {timeout} s" if timeout and wall >= timeout else f"failed ({process.returncode})"
            own = [line for line in errors.splitlines() if line.strip() and not line.startswith('{"peak_kb"')]
            raise RunFailed(f"{' '.join(command)} {reason}: {errors[-500:]}", wall, usage.ru_utime + usage.ru_stime,
                            f"{reason}: {own[-1].strip() if own else 'no message'}")
        peak_kb = json.loads(errors.splitlines()[-1])["peak_kb"]
        lines = out.read().strip().splitlines()
    return Measured(json.loads(lines[-1]), wall, usage.ru_utime + usage.ru_stime, peak_kb / 1024)
