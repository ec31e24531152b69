"""CPU time for the few tests that bound how long something takes.

Wall time moves with whatever else the machine runs (another test worker among them); the CPU seconds of this
process and of the child processes it waited for do not, so a bound on them fails only when the work itself
grew. A hang that burns no CPU (a blocked read) is caught by the callers' wall-time timeouts instead.
"""

from __future__ import annotations

import resource
import time
from contextlib import contextmanager
from typing import Iterator


def cpu_seconds() -> float:
    """CPU seconds used so far by this process and by its children that have been waited for."""
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.process_time() + children.ru_utime + children.ru_stime


class Elapsed:
    """The CPU seconds of a ``with timed() as elapsed:`` block, read after it ends."""

    seconds = float("nan")


@contextmanager
def timed() -> Iterator[Elapsed]:
    elapsed = Elapsed()
    started = cpu_seconds()
    try:
        yield elapsed
    finally:
        elapsed.seconds = cpu_seconds() - started
