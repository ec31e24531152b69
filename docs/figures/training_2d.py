"""Region counts during training on 2-D data, after Qi & Wei (their Tables 1-3 and Figures 7-9).

Networks with hidden widths [16, 16, 16], [32, 32, 32] and [64, 64, 64] (PyTorch's default initialisation,
Adam with learning rate 1e-3, minibatches of 32, cross-entropy) are trained on 1000 points of two moons and of
five Gaussian quantiles in [-1, 1]^2; at each checkpoint the activation regions in [-1, 1]^2 are counted
exactly. A short run on random labels (200 and 2000 points) shows the effect of the sample size. Outputs:

* ``counts_moons.csv``, ``counts_quantiles.csv``, ``counts_random.csv``: one row per network (or sample size),
  one column per epoch, as the papers' tables;
* ``counts_2d.png``: the counts against the epoch;
* ``snapshots_moons.png``: regions and decision regions of the [32, 32, 32] network at several epochs.
"""

from __future__ import annotations

import dataclasses

import _common
import matplotlib.pyplot as plt

from polyregions.experiments.datasets import gaussian_quantiles, moons, random_labels, square_domain
from polyregions.experiments.training import region_history
from polyregions.plotting import plot_region_counts, plot_snapshots

EPOCHS = [0, 2, 5, 8, 10, 20, 50, 100]
HIDDEN = [[16, 16, 16], [32, 32, 32], [64, 64, 64]]


def table(runs, label: str = "network") -> list[dict]:
    rows = []
    for name, run in runs:
        row = {label: name}
        row.update({f"epoch {r.epoch}": r.activation_regions for r in run.records})
        row["accuracy at the end"] = f"{run.records[-1].accuracy:.3f}"
        rows.append(row)
    return rows


def main() -> None:
    domain = square_domain()
    results = {}
    for key, data, output in (("moons", moons(1000, seed=0), "counts_moons.csv"),
                              ("quantiles", gaussian_quantiles(1000, n_classes=5, seed=0), "counts_quantiles.csv")):
        runs = [region_history(data, hidden, epochs=EPOCHS[-1], checkpoints=EPOCHS, seed=0, domain=domain)
                for hidden in HIDDEN]
        results[key] = (data, runs)
        _common.write_csv(table([(r.name, r) for r in runs]), output)
    random_runs = []
    for n in (200, 2000):
        data = random_labels(n, seed=0)
        run = region_history(data, [32, 32, 32], epochs=20, checkpoints=[0, 2, 5, 10, 20], seed=0, domain=domain)
        random_runs.append((f"{n} points", run))
    _common.write_csv(table(random_runs, "random labels"), "counts_random.csv")

    figure, axes = plt.subplots(1, 3, figsize=(15, 4))
    plot_region_counts(results["moons"][1], ax=axes[0], title="two moons (1000 points)")
    plot_region_counts(results["quantiles"][1], ax=axes[1], title="Gaussian quantiles (1000 points, 5 classes)")
    by_size = [dataclasses.replace(run, name=name) for name, run in random_runs]  # curves labelled by sample size
    plot_region_counts(by_size, ax=axes[2], title="random labels, [32, 32, 32]")
    axes[2].legend(fontsize="small", frameon=False, title="sample size", title_fontsize="small")
    for ax in axes:
        ax.set_yscale("log")
    figure.tight_layout()
    _common.save(figure, "counts_2d.png")

    data, runs = results["moons"]
    figure = plot_snapshots(runs[1], domain, epochs=[0, 2, 5, 10, 20, 50, 100], data=data, panel_size=2.2)
    _common.save(figure, "snapshots_moons.png", dpi=100)
    _common.done(__file__)


if __name__ == "__main__":
    main()
