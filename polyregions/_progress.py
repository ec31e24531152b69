"""Progress bars for long runs (tqdm on a terminal, nothing otherwise)."""

from __future__ import annotations

import contextlib
import sys

__all__ = ["progress_bar"]


class _Silent:
    def update(self, n: float = 1) -> None:
        pass


@contextlib.contextmanager
def progress_bar(*, total: int | None, desc: str, enabled: bool, fractional: bool = False):
    """A tqdm bar on stderr when ``enabled`` and stderr is a terminal; a silent stand-in otherwise.

    ``fractional`` bars advance in fractions of a step and show one decimal.
    """
    if not enabled or not sys.stderr.isatty():
        yield _Silent()
        return
    from tqdm import tqdm

    style = {"bar_format": "{l_bar}{bar}| {n:.1f}/{total} [{elapsed}<{remaining}]"} if fractional else {}
    with tqdm(total=total, desc=desc, file=sys.stderr, leave=False, **style) as bar:
        yield bar
