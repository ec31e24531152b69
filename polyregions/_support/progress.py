"""Progress bars for long runs, on standard error only.

A library function asked for progress (``progress=True``) shows a tqdm bar when standard error is a terminal and
nothing otherwise. The command line can change that for the duration of a command with :func:`progress_mode`:
``"on"`` shows bars on any stream (``--progress``), ``"off"`` shows none (``--quiet``), ``"auto"`` is the default
rule. Standard output is never touched, so a command prints the same results with or without bars.
"""

from __future__ import annotations

import contextlib
import os
import sys
from typing import Iterator, Literal

__all__ = ["progress_bar", "progress_mode", "showing", "ProgressMode", "MODES"]

ProgressMode = Literal["auto", "on", "off"]
MODES: tuple[ProgressMode, ...] = ("auto", "on", "off")

_mode: ProgressMode = "auto"


class _Silent:
    """What a bar offers, doing nothing."""

    total: float | None = None

    def update(self, n: float = 1) -> None:
        pass

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        pass

    def refresh(self) -> None:
        pass


@contextlib.contextmanager
def progress_mode(mode: ProgressMode) -> Iterator[None]:
    """Inside, bars follow ``mode``: ``"on"`` on any stream, ``"off"`` never, ``"auto"`` on a terminal only."""
    global _mode
    if mode not in MODES:
        raise ValueError(f"progress mode: expected one of {', '.join(MODES)}, got {mode!r}")
    saved, _mode = _mode, mode
    try:
        yield
    finally:
        _mode = saved


def showing(enabled: bool = True) -> bool:
    """Whether a bar asked for with ``enabled`` is drawn now (see :func:`progress_mode`)."""
    if not enabled or _mode == "off":
        return False
    return _mode == "on" or sys.stderr.isatty()


def _size_known() -> bool:
    try:
        size = os.get_terminal_size(sys.stderr.fileno())
        return size.columns > 0 and size.lines > 0
    except (AttributeError, OSError, ValueError):  # not a terminal, or a stream without a descriptor
        return True  # tqdm's own default applies


@contextlib.contextmanager
def progress_bar(*, total: float | None, desc: str, enabled: bool, fractional: bool = False):
    """A tqdm bar on stderr when ``enabled`` and :func:`showing`; a silent stand-in otherwise.

    ``fractional`` bars advance in fractions of a step and show one decimal. ``total=None`` shows a count and
    the time elapsed, for work whose length is unknown.
    """
    if not showing(enabled):
        yield _Silent()
        return
    from tqdm import tqdm

    style: dict = {"bar_format": "{l_bar}{bar}| {n:.1f}/{total} [{elapsed}<{remaining}]"} if fractional else {}
    if not _size_known():
        style.update(ncols=80, nrows=24)  # tqdm draws nothing on a terminal of size 0 (a fresh pseudo-terminal)
    with tqdm(total=total, desc=desc, file=sys.stderr, leave=False, **style) as bar:
        yield bar
