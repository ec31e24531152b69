"""Pictures of training runs (:mod:`polyregions.experiments.training`): counts per epoch and snapshots of the
regions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.experiments.datasets import Dataset
    from polyregions.experiments.training import Quantity, RegionHistory
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["plot_region_counts", "plot_snapshots"]

_LABELS = {
    "activation_regions": "activation regions",
    "linear_regions": "linear regions",
    "along_segments": "regions along a segment",
    "linear_along_segments": "linear regions along a segment",
    "loss": "training loss",
    "accuracy": "training accuracy",
    "mean_distance": "mean distance to the boundary",
}


def plot_region_counts(histories: "RegionHistory | list[RegionHistory] | tuple[RegionHistory, ...]", *,
                       quantity: "Quantity" = "activation_regions", per_neuron: bool = False, ax: Any = None,
                       xscale: str = "linear", title: str | None = None, marker: str = "o"):
    """One curve per training run: a count (or the loss or accuracy) against the epoch; return the axes.

    ``per_neuron`` divides counts by the number of hidden neurons, as in Hanin & Rolnick's Figure 5 (regions
    along lines divided by ``N``), and multiplies distances by it, as in their Figure 6. ``xscale="symlog"``
    spreads out early, fractional epochs.

    Examples
    --------
    >>> from polyregions.experiments.datasets import moons, square_domain
    >>> from polyregions.experiments.training import region_history
    >>> run = region_history(moons(100), [8, 8], epochs=1, domain=square_domain())
    >>> ax = plot_region_counts(run)  # doctest: +SKIP
    """
    from polyregions.plotting._backend import new_axes

    if not isinstance(histories, (list, tuple)):
        histories = [histories]
    if not histories:
        raise InvalidInputError("plot_region_counts: expected at least one training run, got none")
    ax = new_axes(ax, figsize=(5.5, 3.6))
    for history in histories:
        ax.plot(history.epochs, history.series(quantity, per_neuron=per_neuron), marker=marker, markersize=3,
                linewidth=1.2, label=history.name)
    ax.set_xscale(xscale, **({"linthresh": 1.0} if xscale == "symlog" else {}))
    ax.set_xlabel("epoch")
    label = _LABELS.get(quantity, quantity)
    if per_neuron:
        label = f"{label} \u00d7 neurons" if quantity == "mean_distance" else f"{label} / neurons"
    ax.set_ylabel(label)
    ax.legend(fontsize="small", frameon=False, title="hidden widths", title_fontsize="small")
    ax.grid(True, linewidth=0.3, alpha=0.5)
    if title:
        ax.set_title(title)
    return ax


def plot_snapshots(history: "RegionHistory", domain: "Domain", *, epochs: Sequence[float] | None = None,
                   data: "Dataset | None" = None, engine: "Engine" = "auto", panel_size: float = 2.4):
    """Regions (top row) and decision regions (bottom row) at several checkpoints of a 2-D run, as in Qi &
    Wei's Figure 9; return the figure.

    ``epochs`` picks checkpoints of the run (default: all); ``data`` is scattered over the decision regions.
    """
    from polyregions.plotting._backend import pyplot
    from polyregions.plotting.regions import plot_regions
    from polyregions.regions.enumeration import enumerate_regions

    if domain.dim != 2:
        raise InvalidInputError(f"plot_snapshots: expected a 2-D domain, got a {domain.dim}-D domain")
    records = list(history.records)
    if epochs is not None:
        by_epoch = {r.epoch: r for r in records}
        missing = [e for e in epochs if e not in by_epoch]
        if missing:
            raise InvalidInputError(f"epochs: expected checkpoints of the run ({history.epochs}), got {missing}")
        records = [by_epoch[e] for e in epochs]
    plt = pyplot()
    figure, axes = plt.subplots(2, len(records), figsize=(panel_size * len(records), 2 * panel_size + 0.6),
                                squeeze=False)
    for k, record in enumerate(records):
        complex_ = enumerate_regions(record.network, domain, engine=engine)
        plot_regions(complex_, ax=axes[0][k], edges=False, title=f"epoch {record.epoch}: {len(complex_)}")
        plot_regions(complex_, ax=axes[1][k], color_by="class", title="",
                     points=None if data is None else data.X, point_labels=None if data is None else data.y)
        for row in (0, 1):
            ax = axes[row][k]
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_xlabel("")
            ax.set_ylabel("")
    axes[0][0].set_ylabel("regions")
    axes[1][0].set_ylabel("decision regions")
    figure.suptitle(f"network {history.name}")
    figure.tight_layout()
    return figure
