"""Ctrl-C and SIGTERM end a ``proofs_check`` command with one line and exit status 130 (standard library only).

SIGINT keeps Python's own handler (it raises ``KeyboardInterrupt``, which code that must not be cut in two may
hold back); SIGTERM is made to raise the same exception, so both signals unwind the run the same way: files
already written stay, and no traceback is printed. Python only reports an exception raised inside a finaliser
(``__del__``, a weak-reference callback) and carries on; such a ``KeyboardInterrupt`` is raised again, quietly,
a moment later, by a SIGALRM timer (where there is one), once the main thread is back in ordinary code. The
run owns SIGALRM meanwhile.
"""

from __future__ import annotations

import signal
import sys
import threading
from types import FrameType
from typing import Callable, Sequence

__all__ = ["run_interruptibly", "EXIT_INTERRUPTED", "MESSAGE"]

EXIT_INTERRUPTED = 130
_AGAIN_SECONDS = 0.01
MESSAGE = "proofs_check: interrupted"


def _terminate(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def run_interruptibly(main: Callable[[Sequence[str] | None], int], argv: Sequence[str] | None = None) -> int:
    """``main(argv)``, or 130 with :data:`MESSAGE` on standard error when Ctrl-C or SIGTERM arrives."""
    in_main_thread = threading.current_thread() is threading.main_thread()
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)} if in_main_thread \
        else {}
    if in_main_thread:
        signal.signal(signal.SIGTERM, _terminate)
    reported = sys.unraisablehook
    can_raise_again = in_main_thread and hasattr(signal, "setitimer")
    if can_raise_again:
        saved[signal.SIGALRM] = signal.signal(signal.SIGALRM, _terminate)

    def raise_again(unraisable) -> None:
        if can_raise_again and unraisable.exc_type is not None \
                and issubclass(unraisable.exc_type, KeyboardInterrupt):
            # a moment later, once the main thread has left the finaliser (should it land in another one, it
            # comes back here and is sent again)
            signal.setitimer(signal.ITIMER_REAL, _AGAIN_SECONDS)
            return
        reported(unraisable)

    sys.unraisablehook = raise_again
    try:
        return main(argv)
    except KeyboardInterrupt:
        if in_main_thread:  # a second Ctrl-C while the message is written would print a traceback
            for number in (signal.SIGINT, signal.SIGTERM):
                signal.signal(number, signal.SIG_IGN)
            if can_raise_again:
                signal.setitimer(signal.ITIMER_REAL, 0)
        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        print(MESSAGE, file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
    finally:
        sys.unraisablehook = reported
        if can_raise_again:
            signal.setitimer(signal.ITIMER_REAL, 0)
        for number, handler in saved.items():
            signal.signal(number, signal.SIG_DFL if handler is None else handler)
