"""Lazy access to matplotlib (an optional dependency: ``pip install "polyregions[plot]"``)."""

from __future__ import annotations

from typing import Any

from polyregions.errors import MissingDependencyError

__all__ = ["pyplot", "new_axes", "save_figure", "check_figure_path", "SAVE_FORMATS"]

#: File extensions :func:`save_figure` writes.
SAVE_FORMATS = ("png", "svg", "pdf")


def pyplot():
    """``matplotlib.pyplot``, imported on first use (matplotlib itself falls back to Agg without a display)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError('plotting needs matplotlib: pip install "polyregions[plot]"') from None

    return plt


def new_axes(ax: Any = None, *, figsize: tuple[float, float] = (5.0, 5.0)):
    """``ax`` itself, or the axes of a new figure."""
    if ax is not None:
        return ax
    plt = pyplot()
    _, ax = plt.subplots(figsize=figsize)
    return ax


def check_figure_path(path: str, *, what: str | None = None) -> str:
    """The format of a picture file (``png``, ``svg`` or ``pdf``, from its extension), once ``path`` is known to
    be writable; :class:`~polyregions.errors.InvalidInputError` otherwise. ``what`` names the argument in the
    message (the path itself by default)."""
    import os

    from polyregions._atomic import check_output
    from polyregions.errors import InvalidInputError

    label = str(path) if what is None else what
    extension = os.path.splitext(str(path))[1].lower().lstrip(".")
    if extension not in SAVE_FORMATS:
        got = "." + extension if extension else "no extension"
        raise InvalidInputError(f"{label}: expected a file name ending in "
                                f"{', '.join('.' + e for e in SAVE_FORMATS)}, got {got}")
    check_output(path, what=label)
    return extension


def save_figure(figure: Any, path: str, *, dpi: int = 150) -> None:
    """Write a figure to ``path`` (``.png``, ``.svg`` or ``.pdf``), atomically, and close it.

    The file gets the permissions ``open`` would give it; a failed write raises
    :class:`~polyregions.errors.OutputError` and leaves what stood at ``path``."""
    from polyregions._atomic import atomic_write

    extension = check_figure_path(path)
    try:
        atomic_write(path, lambda stream: figure.savefig(stream, dpi=dpi, format=extension, bbox_inches="tight"))
    finally:
        pyplot().close(figure)
