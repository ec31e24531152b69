"""Notebook display: the HTML tables and pictures behind ``_repr_html_`` and ``_repr_png_``, and short ``repr``\\ s.

Loaded by those methods on first use, so that importing polyregions loads neither this module nor matplotlib.

Jupyter asks an object for every format it offers and shows the richest one, the HTML; a picture offered only
as ``_repr_png_`` was computed and then hidden. So the HTML carries the picture itself (a base64 PNG in an
``<img>``), and the picture is computed once per object (:func:`cached_picture`): ``_repr_png_`` returns the
same bytes, for front ends that prefer images (a PDF export, a terminal console).

Pictures are made for speed, not exactness: they are drawn from floating-point polygons (never clipped again
over the rationals), at a fixed small size, and objects with more than :data:`MAX_DRAWN_REGIONS` regions get
no picture at all, so that displaying a complex never takes much longer than enumerating it.
"""

from __future__ import annotations

import base64
import html
import io
from typing import Any, Callable, Sequence

__all__ = ["html_table", "png_picture", "yes_no", "display_html", "cached_picture", "count_text",
           "MAX_DRAWN_REGIONS", "PICTURE_SIZE", "PICTURE_DPI"]

#: Above this many regions a notebook display shows the table alone (drawing would take seconds).
MAX_DRAWN_REGIONS = 20_000

#: The notebook picture: 3.6 inches square at 80 dots per inch, a 290-pixel image of some 10 to 60 kB.
PICTURE_SIZE = (3.6, 3.6)
PICTURE_DPI = 80


def html_table(title: str, rows: Sequence[tuple[str, Any]]) -> str:
    """A two-column HTML table headed by ``title``, every label and value escaped.

    Examples
    --------
    >>> html_table("Demo", [("sign", "a < b")])
    '<table>\\n<caption>Demo</caption>\\n<tr><th>sign</th><td>a &lt; b</td></tr>\\n</table>'
    """
    lines = ["<table>", f"<caption>{html.escape(title)}</caption>"]
    lines += [f"<tr><th>{html.escape(str(label))}</th><td>{html.escape(str(value))}</td></tr>"
              for label, value in rows]
    lines.append("</table>")
    return "\n".join(lines)


def display_html(title: str, rows: Sequence[tuple[str, Any]], picture: bytes | None) -> str:
    """The table of :func:`html_table`, with the PNG ``picture`` beside it when there is one.

    The picture is inlined as a ``data:`` URI, so that a saved notebook or an exported HTML page shows it with
    no file beside it.

    Examples
    --------
    >>> display_html("Demo", [("a", 1)], None) == html_table("Demo", [("a", 1)])
    True
    >>> display_html("Demo", [("a", 1)], b"png")[:60]
    '<div style="display:flex;flex-wrap:wrap;gap:1em;align-items:'
    """
    table = html_table(title, rows)
    if picture is None:
        return table
    data = base64.b64encode(picture).decode("ascii")
    image = (f'<img src="data:image/png;base64,{data}" alt="{html.escape(title)} (picture)" '
             f'style="max-width:100%;height:auto"/>')
    return (f'<div style="display:flex;flex-wrap:wrap;gap:1em;align-items:flex-start">\n{table}\n{image}\n'
            f'</div>')


def yes_no(flag: bool) -> str:
    """``"yes"`` or ``"no"``."""
    return "yes" if flag else "no"


def count_text(n: int, noun: str) -> str:
    """``n`` and ``noun``, with thousands separated and a plural ``s`` where needed.

    Examples
    --------
    >>> count_text(2874, "region"), count_text(1, "region")
    ('2,874 regions', '1 region')
    """
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


_PICTURES = "_display_picture"


def cached_picture(owner: Any, draw: Callable[[], bytes | None]) -> bytes | None:
    """``draw()`` computed once per ``owner`` (kept in its ``__dict__``): Jupyter asks for the HTML and the PNG
    of one display, and both carry the same picture. The owners are immutable, so the picture never goes
    stale."""
    store = owner.__dict__
    if _PICTURES not in store:
        store[_PICTURES] = draw()
    return store[_PICTURES]


def png_picture(draw: Callable[[Any], Any], *, size: tuple[float, float] = PICTURE_SIZE, dpi: int = PICTURE_DPI
                ) -> bytes | None:
    """The PNG bytes of what ``draw(ax)`` draws on fresh axes, or None when matplotlib is not installed.

    The figure is made with the Agg canvas directly, never through pyplot: nothing is registered in pyplot's
    list of open figures (which a notebook would show a second time), and the figure is dropped afterwards.
    The axes sit at a fixed place with room for ticks, labels and a title: a tight bounding box or a layout
    engine would draw the picture twice to measure it.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    figure = Figure(figsize=size, dpi=dpi)
    FigureCanvasAgg(figure)
    try:
        draw(figure.add_axes((0.21, 0.13, 0.74, 0.77)))
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi)
    finally:
        figure.clear()
    return buffer.getvalue()
