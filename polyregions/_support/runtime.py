"""How an engine's process runs its heavy part: the cyclic garbage collector paused, one BLAS thread."""

from __future__ import annotations

import contextlib
import gc
from typing import Iterator

__all__ = ["collector_paused", "one_blas_thread"]


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


def one_blas_thread() -> contextlib.AbstractContextManager:
    """One BLAS thread, when threadpoolctl is installed: the engines' mid-sized matrix products gain little from
    threads and lose an order of magnitude when the cores are shared with other work (idle BLAS threads also
    spin, which costs CPU time for nothing)."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")
