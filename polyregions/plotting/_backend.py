"""Lazy access to matplotlib (an optional dependency: ``pip install "polyregions[plot]"``)."""

from __future__ import annotations

from typing import Any

from polyregions.errors import MissingDependencyError

__all__ = ["pyplot", "new_axes", "save_figure", "SAVE_FORMATS"]

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


def save_figure(figure: Any, path: str, *, dpi: int = 150) -> None:
    """Write a figure to ``path`` (``.png``, ``.svg`` or ``.pdf``), atomically, and close it."""
    import os

    from polyregions.errors import InvalidInputError

    extension = os.path.splitext(str(path))[1].lower().lstrip(".")
    if extension not in SAVE_FORMATS:
        got = "." + extension if extension else "no extension"
        raise InvalidInputError(f"{path}: expected a file name ending in "
                                f"{', '.join('.' + e for e in SAVE_FORMATS)}, got {got}")
    directory = os.path.dirname(os.path.abspath(str(path)))
    if not os.path.isdir(directory):
        raise InvalidInputError(f"{path}: expected a file in an existing directory, got a missing directory "
                                f"{directory}")
    import tempfile

    handle, temporary = tempfile.mkstemp(dir=directory, suffix="." + extension)
    os.close(handle)
    try:
        figure.savefig(temporary, dpi=dpi, format=extension, bbox_inches="tight")
        os.replace(temporary, path)
    except BaseException:
        if os.path.exists(temporary):
            os.unlink(temporary)
        raise
    finally:
        pyplot().close(figure)
