"""Whole commands timed as their own processes: wall time, CPU time and peak memory of that child alone."""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from typing import Any

__all__ = ["Measured", "run_json"]


@dataclass(frozen=True)
class Measured:
    """The JSON object a command printed last, and what the command cost."""

    output: dict[str, Any]
    wall: float  # seconds
    cpu: float  # user + system seconds of the child
    peak_mb: float  # peak resident memory of the child


def run_json(command: list[str], *, timeout: float | None = None) -> Measured:
    """Run ``command`` and measure it; raise ``RuntimeError`` when it fails or outlives ``timeout`` seconds.

    ``os.wait4`` gives the resource usage of this child alone; its output goes to temporary files rather than
    pipes, which a chatty child could fill while this process waits for it."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        started = time.perf_counter()
        process = subprocess.Popen(command, stdout=out, stderr=err, text=True)
        timer = threading.Timer(timeout, process.kill) if timeout else None
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
        if process.returncode != 0:
            reason = f"took more than {timeout} s" if timeout and wall >= timeout else f"failed ({process.returncode})"
            raise RuntimeError(f"{' '.join(command)} {reason}: {err.read().strip()[-500:]}")
        lines = out.read().strip().splitlines()
    return Measured(json.loads(lines[-1]), wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024)
