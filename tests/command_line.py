"""The command line run in the test process: its exit status, whether it returns one or ends in SystemExit (as
it does on an error)."""

from __future__ import annotations

from typing import Sequence

from polyregions.cli import main


def exit_status(argv: Sequence[str]) -> int:
    try:
        return main(list(argv))
    except SystemExit as stop:
        return stop.code if isinstance(stop.code, int) else 1
