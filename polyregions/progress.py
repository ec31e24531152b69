"""Progress bars for long runs (tqdm on a terminal, nothing otherwise)."""

from __future__ import annotations

import contextlib
import sys

__all__ = ["progress_bar"]


class _Silent:
    def update(self, n: int = 1) -> None:
        pass


@contextlib.contextmanager
def progress_bar(*, total: int | None, desc: str, enabled: bool):
    """A tqdm bar on stderr when ``enabled`` and stderr is a terminal; a silent stand-in otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield _Silent()
        return
    from tqdm import tqdm

    with tqdm(total=total, desc=desc, file=sys.stderr, leave=False) as bar:
        yield bar
