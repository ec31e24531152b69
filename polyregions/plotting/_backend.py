"""Lazy access to matplotlib (an optional dependency: ``pip install "polyregions[plot]"``)."""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Iterator

from polyregions.errors import MissingDependencyError

__all__ = ["pyplot", "new_axes", "save_figure", "check_figure_path", "SAVE_FORMATS", "figure_style", "figure_size",
           "PUBLICATION_RC"]

#: What every figure written by ``polyregions plot`` uses: text kept as text in an SVG and as embedded TrueType
#: (editable, searchable) in a PDF, thin frames, and titles no larger than the labels, so that a picture made
#: at column width (3.5 inches) reads at 1:1 in a paper.
PUBLICATION_RC = {"svg.fonttype": "none", "pdf.fonttype": 42, "ps.fonttype": 42, "axes.titlesize": "medium",
                  "axes.linewidth": 0.6, "xtick.major.width": 0.6, "ytick.major.width": 0.6,
                  "legend.fontsize": "small", "savefig.pad_inches": 0.03}

_SIZE: ContextVar[tuple[float, float] | None] = ContextVar("polyregions_figure_size", default=None)

#: File extensions :func:`save_figure` writes.
SAVE_FORMATS = ("png", "svg", "pdf")


def pyplot():
    """``matplotlib.pyplot``, imported on first use (matplotlib itself falls back to Agg without a display)."""
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        raise MissingDependencyError('plotting needs matplotlib: pip install "polyregions[plot]"') from None

    return plt


def figure_size(default: tuple[float, float]) -> tuple[float, float]:
    """The size of a new figure in inches: the one :func:`figure_style` set, else each picture's own
    ``default``."""
    chosen = _SIZE.get()
    return default if chosen is None else chosen


@contextmanager
def figure_style(*, figsize: tuple[float, float] | None = None, font_size: float | None = None,
                 publication: bool = True) -> Iterator[None]:
    """Within the block, new figures have size ``figsize`` (inches) and text of ``font_size`` points, with the
    :data:`PUBLICATION_RC` settings: what the options ``--figsize`` and ``--font-size`` of ``polyregions plot``
    do. Figures made inside keep the style when saved inside the block."""
    plt = pyplot()
    rc: dict[str, Any] = dict(PUBLICATION_RC) if publication else {}
    if font_size is not None:
        rc["font.size"] = font_size
    if figsize is not None:
        rc["figure.constrained_layout.use"] = True  # the size asked for is the size written (see save_figure)
    token = _SIZE.set(figsize)
    try:
        with plt.rc_context(rc):
            yield
    finally:
        _SIZE.reset(token)


def new_axes(ax: Any = None, *, figsize: tuple[float, float] = (5.0, 5.0)):
    """``ax`` itself, or the axes of a new figure (of the size :func:`figure_style` chose, else ``figsize``)."""
    if ax is not None:
        return ax
    plt = pyplot()
    _, ax = plt.subplots(figsize=figure_size(figsize))
    return ax


def check_figure_path(path: str, *, what: str | None = None) -> str:
    """The format of a picture file (``png``, ``svg`` or ``pdf``, from its extension), once ``path`` is known to
    be writable; :class:`~polyregions.errors.InvalidInputError` otherwise. ``what`` names the argument in the
    message (the path itself by default)."""
    import os

    from polyregions._support.atomic import check_output
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
    from polyregions._support.atomic import atomic_write

    extension = check_figure_path(path)
    # Cropped to what is drawn, unless figure_style fixed the size: a figure asked for at 3.5 inches (a column)
    # is written at 3.5 inches, laid out inside by the constrained layout.
    box = "tight" if _SIZE.get() is None else None
    try:
        atomic_write(path, lambda stream: figure.savefig(stream, dpi=dpi, format=extension, bbox_inches=box))
    finally:
        pyplot().close(figure)
