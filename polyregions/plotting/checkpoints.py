"""Pictures of regions through training (:mod:`polyregions.experiments.checkpoints`): counts, boundary volume,
local complexity and matched fractions against the checkpoints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.experiments.checkpoints import CheckpointHistory, CheckpointQuantity

__all__ = ["plot_checkpoint_history", "checkpoint_positions"]


def checkpoint_positions(history: "CheckpointHistory") -> tuple[list[float], str]:
    """Where each checkpoint goes on the horizontal axis, and the axis label: the optimiser steps when every
    checkpoint has one, else the epochs, else the indices 0, 1, 2, ...

    Examples
    --------
    >>> import polyregions as pr
    >>> from polyregions.experiments.checkpoints import checkpoint_history
    >>> checkpoint_positions(checkpoint_history([pr.sawtooth(1), pr.sawtooth(2)], pr.box([0], [1])))
    ([0, 1], 'checkpoint')
    """
    records = history.records
    if all(r.step is not None for r in records):
        return [float(r.step) for r in records if r.step is not None], "step"
    if all(r.epoch is not None for r in records):
        return [float(r.epoch) for r in records if r.epoch is not None], "epoch"
    return list(range(len(records))), "checkpoint"


def plot_checkpoint_history(history: "CheckpointHistory", *, title: str | None = None, panel_size: float = 3.2,
                            marker: str = "o"):
    """Panels against the checkpoints: region counts, the boundary's density, the local complexity at the data
    and the fractions of regions matched between consecutive checkpoints; return the figure.

    A panel appears only when its numbers were computed (boundary volumes on a bounded domain, local complexity
    with data points, matchings with two checkpoints or more). Transition numbers are drawn at the later
    checkpoint of each pair.

    Parameters
    ----------
    history : CheckpointHistory
        From :func:`~polyregions.experiments.checkpoints.checkpoint_history`.
    title : str, optional, keyword-only
        A title over the panels.
    panel_size : float, keyword-only
        The height of a panel in inches (its width is 1.25 times that).
    marker : str, keyword-only
        The matplotlib marker of the points.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import polyregions as pr
    >>> from polyregions.experiments.checkpoints import checkpoint_history
    >>> history = checkpoint_history([pr.sawtooth(n) for n in (1, 2, 3)], pr.box([0], [1]))
    >>> figure = plot_checkpoint_history(history)  # doctest: +SKIP
    >>> [ax.get_title() for ax in figure.axes]  # doctest: +SKIP
    ['regions', 'boundary B_N', 'matched between checkpoints']
    """
    from polyregions.experiments.checkpoints import CheckpointHistory
    from polyregions.plotting._backend import pyplot

    if not isinstance(history, CheckpointHistory):
        raise InvalidInputError(f"plot_checkpoint_history: expected a CheckpointHistory, got "
                                f"{type(history).__name__}")
    x, x_label = checkpoint_positions(history)
    panels: list[tuple[str, str, list[tuple[str, list[Any], list[float]]]]] = [
        ("regions", "count", [("activation regions", history.series("activation_regions"), x),
                              ("linear regions", history.series("linear_regions"), x)])]
    density = history.series("density")
    if any(v is not None for v in density):
        panels.append(("boundary B_N", "vol(B_N) / vol(domain)", [("density", density, x)]))
    quantities: tuple[tuple["CheckpointQuantity", str], ...] = (
        ("local_activation_regions", "activation regions"), ("local_linear_regions", "linear regions"),
        ("local_neurons_crossing", "neurons crossing"))
    local = [(f"{name} (mean)", history.series(key), x) for key, name in quantities]
    if any(v is not None for _, values, _ in local for v in values):
        panels.append(("local complexity at the data", "per neighbourhood", local))
    if history.matchings:
        later = x[1:]
        matched = [("patterns persisted", history.series("persisted_fraction"), later),
                   ("regions one-to-one", history.series("one_to_one_fraction"), later),
                   ("domain with the same pattern", history.series("stable_fraction"), later)]
        panels.append(("matched between checkpoints", "fraction", matched))
    plt = pyplot()
    figure, axes = plt.subplots(1, len(panels), figsize=(1.25 * panel_size * len(panels), panel_size),
                                squeeze=False)
    for ax, (name, y_label, curves) in zip(axes[0], panels):
        for style, (label, values, positions) in zip(("-", "--", ":"), curves):  # dashes show coinciding curves
            kept = [(p, v) for p, v in zip(positions, values) if v is not None]
            if kept:
                ax.plot([p for p, _ in kept], [v for _, v in kept], marker=marker, markersize=3, linewidth=1.2,
                        linestyle=style, label=label)
        ax.set_title(name)
        ax.set_xlabel(x_label)
        ax.set_ylabel(y_label)
        if x_label == "checkpoint":
            from matplotlib.ticker import MaxNLocator

            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        if name == "matched between checkpoints":
            ax.set_ylim(-0.03, 1.03)
        if len(curves) > 1:
            ax.legend(fontsize="small", frameon=False)
        ax.grid(True, linewidth=0.3, alpha=0.5)
    if title:
        figure.suptitle(title)
    figure.tight_layout()
    return figure
