"""Regions through training: a small network trained on two moons with a checkpoint every epoch (13 optimiser
steps), and what happens to its regions between checkpoints (a few seconds). Outputs:

* ``checkpoints_moons.png``: counts, boundary density, local complexity at the data and matched fractions
  against the step;
* ``checkpoints_moons.csv``: one row per pair of consecutive checkpoints.
"""

from __future__ import annotations

import _common

from polyregions.experiments.checkpoints import checkpoint_history
from polyregions.experiments.datasets import moons, square_domain
from polyregions.experiments.training import train_with_checkpoints
from polyregions.plotting import plot_checkpoint_history


def main() -> None:
    data = moons(400, seed=0)
    snapshots = train_with_checkpoints(data, [16, 16], epochs=6, every=13, lr=0.01, seed=0)  # 13 steps an epoch
    history = checkpoint_history(snapshots, square_domain(), points=data.X[:100], radius="1/20")
    figure = plot_checkpoint_history(history, title="[16, 16] on two moons (400 points), Adam, learning rate 0.01")
    _common.save(figure, "checkpoints_moons.png")
    rows = []
    for record, after, transition in zip(history.records, history.records[1:], history.summary()["transitions"]):
        rows.append({"steps": f"{record.step} to {after.step}", "regions": f"{record.activation_regions} to "
                     f"{after.activation_regions}", "patterns persisted": transition["persisted"],
                     "died": transition["died"], "born": transition["born"], "split": transition["split"],
                     "merged": transition["merged"], "one-to-one": transition["one_to_one"],
                     "same pattern (fraction of the square)": f"{transition['stable_fraction']:.3f}"})
    _common.write_csv(rows, "checkpoints_moons.csv")
    _common.done(__file__)


if __name__ == "__main__":
    main()
