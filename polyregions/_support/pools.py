"""Local process pools whose workers never outlive the run that started them.

A worker ignores Ctrl-C (it reaches every process of the terminal's group; the parent decides what to do),
dies on SIGTERM, and dies with its parent: on Linux the kernel sends it SIGKILL when the parent ends
(``prctl(PR_SET_PDEATHSIG)``), elsewhere a thread notices that the parent changed and ends the worker. When
the run stops (an error, Ctrl-C, SIGTERM), the running workers are killed at once rather than left to finish
their tasks. So a run stopped by SIGTERM, or its parent killed with SIGKILL alone, leaves no worker behind.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import sys
import threading
import time
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from typing import Any, Callable, Iterable, Iterator

from polyregions._support.limits import usable_cores
from polyregions._support.signals import deferred_interrupts, interrupt_count

__all__ = ["process_pool", "submit_all", "stop_pool"]

_PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
_POLL_SECONDS = 0.5


@contextmanager
def process_pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """A :class:`~concurrent.futures.ProcessPoolExecutor` of ``workers`` processes that die with this one.

    Leaving the block normally waits for the pool to finish; leaving it by an exception (Ctrl-C included)
    kills the workers first (:func:`stop_pool`). More workers than the usable cores count as the cores
    (:func:`polyregions._support.limits.usable_cores`): every process pool of the library starts here, so a library
    caller's ``workers=2**40`` is capped as the command line's ``--workers`` is."""
    workers = max(1, min(workers, usable_cores()))
    context = multiprocessing.get_context()
    executor = ProcessPoolExecutor(max_workers=workers, mp_context=context, initializer=_start_worker,
                                   initargs=(os.getpid(), context.get_start_method()))
    interrupts = interrupt_count()
    try:
        yield executor
    except BaseException as error:
        stop_pool(executor)
        if isinstance(error, BrokenProcessPool) and interrupt_count() > interrupts:
            # SIGTERM to the whole process group: the workers died of it before the parent's exception came
            raise KeyboardInterrupt from None
        raise
    with deferred_interrupts():  # every task is done, so quick; and not left half done (see stop_pool)
        executor.shutdown(wait=True)


def submit_all(executor: ProcessPoolExecutor, function: Callable[..., Any],
               arguments: Iterable[tuple]) -> list[Future]:
    """Submit ``function(*args)`` for each tuple of ``arguments``, with Ctrl-C and SIGTERM held back meanwhile:
    the first submission forks the workers, and an interrupt raised inside the fork's hooks would be lost."""
    with deferred_interrupts():
        return [executor.submit(function, *args) for args in arguments]


def stop_pool(executor: ProcessPoolExecutor) -> None:
    """End a pool at once: drop the queued tasks, kill the workers of the running ones, wait for them all."""
    for process in list((getattr(executor, "_processes", None) or {}).values()):
        process.kill()  # SIGKILL: a worker still starting up may not handle SIGTERM yet
    results = getattr(executor, "_result_queue", None)
    if results is not None:
        # A worker killed while sending its result leaves half a message in the pipe, and the pool's reader
        # would wait for the rest forever: with this process's copy of the write end closed (the parent never
        # writes there), the dead workers' copies were the last, and the reader gets end-of-file instead.
        results._writer.close()
    # Not cut short by a second interrupt: Python 3.11 would then race the pool's thread at exit (writing to
    # the wakeup pipe that thread is closing: "Bad file descriptor").
    with deferred_interrupts():
        executor.shutdown(wait=True, cancel_futures=True)


def _start_worker(parent: int, start_method: str) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # a forked worker inherits the parent's handler otherwise
    # a forkserver's child has the server as its parent, which ends when this run's process ends
    expected = parent if start_method in ("fork", "spawn") else None
    if sys.platform.startswith("linux") and _kill_me_when_parent_dies():
        if expected is not None and os.getppid() != expected:
            os._exit(1)  # the parent died before the request took effect
        return
    _watch_parent(os.getppid())


def _kill_me_when_parent_dies() -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(_PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def _watch_parent(parent: int) -> None:
    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_POLL_SECONDS)
        os._exit(1)

    threading.Thread(target=watch, name="polyregions-parent-watch", daemon=True).start()
