"""Regions along lines through 64-D inputs during training, divided by the number of neurons, after Hanin &
Rolnick's Figure 5 (MNIST there; scikit-learn's 8x8 digits here).

Networks [64, n, n, n, 10] with n = 16, 32, 64 (He-normal weights, biases with standard deviation 1e-3, Adam
with learning rate 1e-3, minibatches of 32) are trained on the 1797 digits. At each checkpoint, including
fractions of the first epoch, the regions crossed by 20 segments between random pairs of digits are counted
exactly (each segment is a 1-D domain), averaged, and divided by the number of neurons 3n. Outputs:
``lines_digits.csv`` and ``lines_digits.png``.
"""

from __future__ import annotations

import _common
import matplotlib.pyplot as plt

from polyregions.plotting import plot_region_counts
from polyregions.training import digits, region_history, sample_segments

CHECKPOINTS = [0, 0.1, 0.25, 0.5, 1, 2, 5, 10, 20]


def main() -> None:
    data = digits()
    segments = sample_segments(data.X, 20, seed=0)
    runs = [region_history(data, [n, n, n], epochs=CHECKPOINTS[-1], checkpoints=CHECKPOINTS, seed=0, init="he",
                           segments=segments) for n in (16, 32, 64)]
    rows = []
    for run in runs:
        row = {"network": run.name, "neurons": run.neurons}
        row.update({f"epoch {e}": f"{v:.3f}" for e, v in zip(run.epochs, run.series("along_segments", per_neuron=True))})
        row["accuracy at the end"] = f"{run.records[-1].accuracy:.3f}"
        rows.append(row)
    _common.write_csv(rows, "lines_digits.csv")
    figure, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    plot_region_counts(runs, quantity="along_segments", per_neuron=True, ax=axes[0], xscale="symlog",
                       title="regions along a segment / neurons")
    plot_region_counts(runs, quantity="accuracy", ax=axes[1], xscale="symlog", title="training accuracy")
    for ax in axes:
        ax.set_xlabel("epoch (linear below 1, logarithmic above)")
    figure.tight_layout()
    _common.save(figure, "lines_digits.png")
    _common.done(__file__)


if __name__ == "__main__":
    main()
