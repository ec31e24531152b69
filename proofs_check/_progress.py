"""A one-line progress display on standard error (standard library only).

Shown when standard error is a terminal, or always with ``--progress``; never with ``--quiet``. The line says
what is running, how many steps are done and the time elapsed; a daemon thread redraws it every half second so
that a long step still shows the clock moving. Standard output is never written here, so a report is the same
with or without the display (:meth:`Progress.print` prints a report line while keeping the display below it).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import threading
import time
from typing import Callable, TextIO

__all__ = ["Progress", "add_progress_options", "wanted"]

_REDRAW_SECONDS = 0.5


def add_progress_options(parser: argparse.ArgumentParser, *, quiet_help: str | None = None) -> None:
    """``--progress`` (show it on any stream) and ``--quiet`` (never show it)."""
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="show progress on standard error even when it is not a terminal (by default progress "
                            "is shown only when standard error is a terminal)")
    shown.add_argument("--quiet", action="store_true", help=quiet_help or "show no progress, even on a terminal")


def wanted(args: argparse.Namespace, stream: TextIO | None = None) -> bool:
    """Whether to show progress: ``--progress``, or standard error a terminal and no ``--quiet``."""
    stream = sys.stderr if stream is None else stream
    if getattr(args, "quiet", False):
        return False
    if getattr(args, "progress", False):
        return True
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # a replaced or closed stream
        return False


class Progress:
    """The display of ``title`` over ``total`` steps (None: unknown); does nothing when not ``enabled``.

    Use as a context manager: the line is erased at the end, also when the run is interrupted.
    """

    def __init__(self, title: str, *, total: int | None, enabled: bool, stream: TextIO | None = None) -> None:
        self.title, self.total, self.enabled = title, total, enabled
        self.stream = sys.stderr if stream is None else stream
        self.done, self.label = 0, ""
        self._started = time.monotonic()
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._width = 0
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._draw()
            self._thread = threading.Thread(target=self._tick, name="progress", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        if not self.enabled:
            return
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        with self._lock:
            self._erase()
            self.enabled = False

    def step(self, label: str) -> None:
        """Say what runs now."""
        self.label = label
        self._redraw()

    def advance(self, n: int = 1) -> None:
        """Count ``n`` more steps done."""
        self.done += n
        self._redraw()

    def print(self, line: str, *, out: Callable[[str], None] = print) -> None:
        """Print a report line on standard output with the display erased first and drawn again after."""
        if not self.enabled:
            out(line)
            return
        with self._lock:
            self._erase()
            out(line)
            sys.stdout.flush()
            self._draw_unlocked()

    def _tick(self) -> None:
        while not self._stop.wait(_REDRAW_SECONDS):
            self._redraw()

    def _redraw(self) -> None:
        if self.enabled:
            with self._lock:
                self._draw_unlocked()

    def _draw(self) -> None:
        with self._lock:
            self._draw_unlocked()

    def _text(self) -> str:
        count = f"{self.done}/{self.total}" if self.total is not None else f"{self.done} done"
        elapsed = time.monotonic() - self._started
        text = f"{self.title}: {count}, {elapsed:.0f} s" + (f": {self.label}" if self.label else "")
        limit = max(20, shutil.get_terminal_size((100, 24)).columns - 1)
        return text if len(text) <= limit else text[:limit - 3] + "..."

    def _draw_unlocked(self) -> None:
        if not self.enabled:
            return
        text = self._text()
        try:
            self.stream.write("\r" + text + " " * max(0, self._width - len(text)))
            self.stream.flush()
        except (OSError, ValueError):  # a closed stream: no display rather than a failed check
            self.enabled = False
            return
        self._width = len(text)

    def _erase(self) -> None:
        if self._width:
            try:
                self.stream.write("\r" + " " * self._width + "\r")
                self.stream.flush()
            except (OSError, ValueError):
                pass
            self._width = 0
