"""Shared by the figure scripts: where pictures and tables go.

Each script in this directory makes the pictures of one part of the documentation and can be run on its own
(``python docs/figures/NAME.py``); ``docs/conf.py`` runs the ones whose output is missing or out of date.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path

OUT = Path(__file__).resolve().parent / "_generated"
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))


def path(name: str) -> str:
    """The path of an output file."""
    OUT.mkdir(exist_ok=True)
    return str(OUT / name)


def save(figure, name: str, *, dpi: int = 110) -> None:
    """Write a picture."""
    from polyregions.plotting import save_figure

    save_figure(figure, path(name), dpi=dpi)


def write_csv(rows: list[dict], name: str) -> None:
    """Write a table (the first row's keys are the header)."""
    with open(path(name), "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def write_text(text: str, name: str) -> None:
    with open(path(name), "w") as handle:
        handle.write(text)


def done(script: str) -> None:
    """Mark a script's outputs complete (written last, so that an interrupted run is redone)."""
    Path(path(Path(script).stem + ".done")).write_text("")
