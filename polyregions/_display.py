"""Notebook display: the HTML tables and PNG pictures behind ``_repr_html_`` and ``_repr_png_``.

Loaded by those methods on first use, so that importing polyregions loads neither this module nor matplotlib.
"""

from __future__ import annotations

import html
import io
from typing import Any, Callable, Sequence

__all__ = ["html_table", "png_picture", "yes_no"]


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


def yes_no(flag: bool) -> str:
    """``"yes"`` or ``"no"``."""
    return "yes" if flag else "no"


def png_picture(draw: Callable[[Any], Any], *, size: tuple[float, float] = (4.0, 4.0), dpi: int = 100
                ) -> bytes | None:
    """The PNG bytes of what ``draw(ax)`` draws on fresh axes, or None when matplotlib is not installed.

    The figure is made with the Agg canvas directly, never through pyplot: nothing is registered in pyplot's
    list of open figures (which a notebook would show a second time), and the figure is dropped afterwards.
    """
    try:
        from matplotlib.backends.backend_agg import FigureCanvasAgg
        from matplotlib.figure import Figure
    except ImportError:
        return None
    figure = Figure(figsize=size, dpi=dpi)
    FigureCanvasAgg(figure)
    try:
        draw(figure.add_subplot())
        buffer = io.BytesIO()
        figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    finally:
        figure.clear()
    return buffer.getvalue()
