"""Python's cyclic garbage collector paused while an engine builds many objects that form no cycles."""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator

__all__ = ["collector_paused"]


@contextlib.contextmanager
def collector_paused() -> Iterator[None]:
    """Pause the cyclic garbage collector while hundreds of thousands of acyclic objects are built: with them
    alive, its repeated scans of the heap find nothing to free and can take longer than the work. The previous
    state is restored.

    The objects that survive (the result) are handed straight to the oldest generation, where two collections
    would have moved them anyway, rather than left for one more scan of the youngest; that is skipped when the
    application keeps objects frozen itself (``gc.freeze``), to leave those alone.

    >>> import gc
    >>> with collector_paused():
    ...     gc.isenabled()
    False
    >>> gc.isenabled()
    True
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()
