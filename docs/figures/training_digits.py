"""Regions along lines through 64-D inputs during training, divided by the number of neurons, and the distance
to the boundary times the number of neurons, after Hanin & Rolnick's Figures 5 and 6 (MNIST there;
scikit-learn's 8x8 digits here).

Networks [64, n, n, n, 10] with n = 16, 32, 64 (He-normal weights, biases with standard deviation 1e-3, Adam
with learning rate 1e-3, minibatches of 32) are trained on the 1797 digits. At each checkpoint, including
fractions of the first epoch, the regions crossed by 20 segments between random pairs of digits are counted
exactly (each segment is a 1-D domain), averaged, and divided by the number of neurons 3n; and the mean
distance from 1000 points drawn from a normal distribution with the digits' mean and variance (per pixel) to
the boundary of the linear regions, with proven bounds, is multiplied by 3n. Outputs: ``lines_digits.csv``,
``distances_digits.csv`` and ``lines_digits.png``.
"""

from __future__ import annotations

import _common
import matplotlib.pyplot as plt
import numpy as np

from polyregions.experiments.datasets import digits
from polyregions.experiments.training import region_history, sample_segments
from polyregions.plotting import plot_region_counts

CHECKPOINTS = [0, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20]


def main() -> None:
    data = digits()
    segments = sample_segments(data.X, 20, seed=0)
    points = np.random.default_rng(0).normal(data.X.mean(axis=0), data.X.std(axis=0), size=(1000, data.dim))
    runs = [region_history(data, [n, n, n], epochs=CHECKPOINTS[-1], checkpoints=CHECKPOINTS, seed=0, init="he",
                           segments=segments, distance_points=points) for n in (16, 32, 64)]
    rows = []
    for run in runs:
        row = {"network": run.name, "neurons": run.neurons}
        series = run.series("along_segments", per_neuron=True)
        row.update({f"epoch {e}": f"{v:.3f}" for e, v in zip(run.epochs, series)})
        row["accuracy at the end"] = f"{run.records[-1].accuracy:.3f}"
        rows.append(row)
    _common.write_csv(rows, "lines_digits.csv")
    rows = []
    for run in runs:
        row = {"network": run.name}
        row.update({f"epoch {r.epoch}": f"{r.mean_distance * run.neurons:.3f}" for r in run.records})
        bounds = [hi / lo - 1 for r in run.records for lo, hi in [r.mean_distance_bounds]]
        row["largest relative width of the proven bounds"] = f"{max(bounds):.1e}"
        rows.append(row)
    _common.write_csv(rows, "distances_digits.csv")
    figure, axes = plt.subplots(1, 3, figsize=(15, 3.8))
    plot_region_counts(runs, quantity="along_segments", per_neuron=True, ax=axes[0], xscale="symlog",
                       title="regions along a segment / neurons")
    plot_region_counts(runs, quantity="mean_distance", per_neuron=True, ax=axes[1], xscale="symlog",
                       title="distance to the boundary \u00d7 neurons")
    plot_region_counts(runs, quantity="accuracy", ax=axes[2], xscale="symlog", title="training accuracy")
    for ax in axes:
        ax.set_xlabel("epoch (linear below 1, logarithmic above)")
    figure.tight_layout()
    _common.save(figure, "lines_digits.png")
    _common.done(__file__)


if __name__ == "__main__":
    main()
