"""Ctrl-C and SIGTERM as one ``KeyboardInterrupt``, held back while a file is being put in its place.

The command line stops the same way on either signal: the exception unwinds the run, which keeps what it
finished (a sweep writes its rows, a search its best certificate) and removes its temporary files. Python
delivers a signal between two bytecodes of the main thread, so an interrupt could land between creating a
temporary file and removing it; :func:`deferred_interrupts` marks such steps, and an interrupt that arrives
inside one is raised when it ends.
"""

from __future__ import annotations

import os
import signal
import threading
from contextlib import contextmanager
from types import FrameType
from typing import Any, Iterator

__all__ = ["interrupts_raise", "deferred_interrupts", "interrupt_count", "held_until_main", "SIGNALS"]

#: The signals that stop a run cleanly.
SIGNALS = (signal.SIGINT, signal.SIGTERM)

_pending: list[int] = []
_received = 0  # stopping signals handled so far (their exception can be lost)
_depth = 0
_owner = 0  # the process that installed the handler (a forked worker inherits it without being meant to use it)


def _raise_or_defer(signum: int, frame: FrameType | None) -> None:
    global _received
    if os.getpid() != _owner:
        # a freshly forked worker, before its initializer: the parent decides about Ctrl-C, SIGTERM ends it
        if signum == signal.SIGTERM:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
        return
    _received += 1
    if _depth:
        _pending.append(signum)
        return
    raise KeyboardInterrupt


def _record(signum: int, frame: FrameType | None) -> None:
    """Remember a stopping signal for :func:`deferred_interrupts` to raise once the command line runs."""
    global _received
    _received += 1
    _pending.append(signum)


def held_until_main() -> None:
    """For the ``polyregions`` program only, before it imports the command line: Ctrl-C and SIGTERM are
    remembered instead of raised (a traceback from the middle of an import) or fatal (SIGTERM's default), and
    the command line raises them as soon as it has parsed its arguments: the run ends with the documented
    ``polyregions: interrupted`` and status 130. A signal ignored by the parent stays ignored."""
    global _owner
    _owner = os.getpid()
    for number in SIGNALS:
        if signal.getsignal(number) is not signal.SIG_IGN:
            signal.signal(number, _record)


def _is_main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


@contextmanager
def interrupts_raise() -> Iterator[None]:
    """Inside, SIGINT and SIGTERM raise ``KeyboardInterrupt`` in the main thread (elsewhere: no change); a
    signal whose disposition is "ignore" (inherited from the parent) is left ignored."""
    global _owner
    if not _is_main_thread():
        yield
        return
    _owner = os.getpid()
    # A signal ignored when the process started (nohup, a runner that ignores SIGINT) stays ignored: the
    # disposition the process inherits is the caller's decision.
    saved: dict[int, Any] = {number: signal.signal(number, _raise_or_defer) for number in SIGNALS
                             if signal.getsignal(number) is not signal.SIG_IGN}
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)


def interrupt_count() -> int:
    """How many times Ctrl-C or SIGTERM arrived while :func:`interrupts_raise` (or a deferral) was active.

    Python reports an exception raised inside a fork hook, a finaliser or a weak-reference callback instead of
    propagating it, so a handler's ``KeyboardInterrupt`` can be lost; the count remembers the signal anyway."""
    return _received


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold back Ctrl-C and SIGTERM (when :func:`interrupts_raise` is active) until the block ends.

    Only for short steps that must not be cut in two (create-and-register, rename, remove): a blocking call
    inside would make the process deaf to Ctrl-C. Outside the main thread, where Python never runs signal
    handlers, it does nothing.
    """
    global _depth, _owner
    if not _is_main_thread():
        yield
        return
    swapped = None
    if _depth == 0 and signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        _owner = os.getpid()
        swapped = signal.signal(signal.SIGINT, _raise_or_defer)  # a library caller's Ctrl-C, deferred too
    _depth += 1
    try:
        yield
    finally:
        _depth -= 1
        if swapped is not None:
            signal.signal(signal.SIGINT, swapped)
        if _depth == 0 and _pending:
            _pending.clear()
            raise KeyboardInterrupt
