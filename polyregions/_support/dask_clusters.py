"""A client of a Dask cluster, for the work that can run on one (sweeps, one enumeration split in tasks)."""

from __future__ import annotations

from contextlib import contextmanager
from typing import Any, Iterator

from polyregions.errors import InvalidInputError

__all__ = ["check_scheduler", "dask_client"]

_CONNECT_SECONDS = 10  # how long a scheduler may take to answer (an unreachable one is retried until then)


def check_scheduler(scheduler: Any) -> None:
    """Refuse, before any work, what is neither a scheduler's address nor a client (None: no cluster)."""
    if scheduler is None:
        return
    try:
        from dask.distributed import Client
    except ImportError:
        raise InvalidInputError("scheduler: running on a Dask cluster needs dask.distributed "
                                "(pip install \"dask[distributed]\")") from None
    if not isinstance(scheduler, (str, Client)):
        raise InvalidInputError(f"scheduler: expected an address such as \"tcp://host:8786\" or a "
                                f"dask.distributed.Client, got {type(scheduler).__name__}")


@contextmanager
def dask_client(scheduler: Any) -> Iterator[Any]:
    """A ``dask.distributed.Client`` of ``scheduler``: an address such as ``"tcp://host:8786"`` (connected here and
    closed on leaving) or a client, used as it is and left open."""
    check_scheduler(scheduler)
    if not isinstance(scheduler, str):
        yield scheduler
        return
    from dask.distributed import Client

    try:
        client = Client(scheduler, timeout=f"{_CONNECT_SECONDS}s")
    except (OSError, TimeoutError, ValueError) as error:
        raise InvalidInputError(f"scheduler: cannot connect to {scheduler!r}: {error}") from None
    try:
        yield client
    finally:
        client.close()
