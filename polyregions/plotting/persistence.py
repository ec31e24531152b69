"""Pictures of a sublevel persistence diagram and its barcode (:func:`~polyregions.measures.persistence.persistence`).

The values are exact; they are rounded to floats only here, for drawing. An essential class (death ``inf``) is
drawn at a line above every finite value, labelled ``inf``, so that it stays visible on finite axes.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polyregions.measures.persistence import Persistence

__all__ = ["diagram_points", "plot_persistence_diagram", "plot_barcode"]


def diagram_points(result: "Persistence") -> tuple[list[tuple[int, float, float]], float, float]:
    """The pairs as floats ``(dimension, birth, death)``, an essential class's death at the returned ``top``, and
    ``(low, top)``: the range the pictures span.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(1, [([[1], [-1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])  # |x|
    >>> diagram_points(pr.persistence(net, pr.box([-1], [2])))
    ([(0, 0.0, 1.0)], 0.0, 1.0)
    """
    finite = [float(v) for _, b, d in result.pairs for v in (b, d) if v != math.inf]
    finite += [float(p.value) for p in result.critical_points]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    top = high + 0.1 * (high - low) if high > low else high + 1.0
    points = [(k, float(b), top if d == math.inf else float(d)) for k, b, d in result.pairs]
    return points, low, top


def plot_persistence_diagram(result: "Persistence", *, ax: Any = None, title: str | None = None):
    """The diagram: a point ``(birth, death)`` per class, one colour per dimension, the diagonal, and the
    essential classes on the dashed ``inf`` line; return the axes."""
    from polyregions.plotting._backend import new_axes
    from polyregions.plotting.colors import distinct_colors

    points, low, top = diagram_points(result)
    ax = new_axes(ax, figsize=(4.6, 4.6))
    colors = distinct_colors(result.dim + 1)
    span = top - low or 1.0
    ax.plot([low - 0.05 * span, top], [low - 0.05 * span, top], color="0.6", linewidth=0.8)
    ax.axhline(top, color="0.6", linestyle="--", linewidth=0.8)
    for k in range(result.dim + 1):
        mine = [(b, d) for j, b, d in points if j == k]
        if mine:
            ax.scatter([b for b, _ in mine], [d for _, d in mine], s=22, color=colors[k], label=f"H{k}", zorder=3)
    ax.set_xlabel("birth")
    ax.set_ylabel("death")
    ax.text(low, top, " inf", va="bottom", fontsize="small", color="0.4")
    if points:
        ax.legend(loc="lower right", fontsize="small")
    ax.set_title(title if title is not None else f"sublevel persistence over {result.field}")
    return ax


def plot_barcode(result: "Persistence", *, ax: Any = None, title: str | None = None):
    """The barcode: one bar ``[birth, death)`` per class, grouped by dimension, an essential class's bar ending in
    an arrow at the ``inf`` line; return the axes."""
    from polyregions.plotting._backend import new_axes
    from polyregions.plotting.colors import distinct_colors

    points, low, top = diagram_points(result)
    ax = new_axes(ax, figsize=(5.5, 0.3 * len(points) + 1.4))
    colors = distinct_colors(result.dim + 1)
    row = 0
    ticks, labels = [], []
    for k in range(result.dim + 1):
        for j, b, d in sorted(points, key=lambda p: (p[1], p[2])):
            if j != k:
                continue
            ax.hlines(row, b, d, color=colors[k], linewidth=3)
            if d == top:
                ax.annotate("", xy=(top, row), xytext=(top - 0.001, row), arrowprops={"arrowstyle": "->"})
            ticks.append(row)
            labels.append(f"H{k}")
            row += 1
    ax.axvline(top, color="0.6", linestyle="--", linewidth=0.8)
    ax.set_yticks(ticks, labels)
    ax.invert_yaxis()
    ax.set_xlabel("t (sublevel set f <= t)")
    ax.set_title(title if title is not None else "barcode")
    return ax
