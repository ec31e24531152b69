"""Raghu et al.'s convolutional experiment on the 8x8 digits, exactly: regions crossed and trajectory lengths per
depth along segments and a closed curve through digit images, and the regions on the plane through three digits.

The network of :mod:`polyregions.experiments.conv_digits` (three 3x3 convolutions with 4 channels each, then a
dense layer) is trained for 5 epochs (seed 0), and also taken at its initialisation (He normal, zero biases).
Outputs: ``conv_digits.csv``, ``conv_digits_depth.png`` and
``conv_digits_plane.png``.
"""

from __future__ import annotations

import _common
import matplotlib.pyplot as plt
import numpy as np

from polyregions.experiments.conv_digits import (
    circle_points,
    depth_profile,
    plane_regions,
    train_conv_digits,
    truncated,
)
from polyregions.experiments.datasets import digits
from polyregions.plotting import plot_regions
from polyregions.regions.domains import plane_through
from polyregions.regions.enumeration import enumerate_regions


def main() -> None:
    data = digits()
    first = {d: int(np.flatnonzero(data.y == d)[0]) for d in range(10)}
    pairs = [(0, 1), (3, 8)]
    nets = {"trained 5 epochs": train_conv_digits(epochs=5, seed=0),
            "initial": train_conv_digits(epochs=0, seed=0)}
    rows, profiles = [], {}
    for label, (net, accuracy) in nets.items():
        graph = net.to_graph()
        curves = {f"segment {a}-{b}": [data.X[first[a]], data.X[first[b]]] for a, b in pairs}
        curves["circle through 0 and 1"] = circle_points(data.X[first[0]], data.X[first[1]], data.X.mean(axis=0), 8)
        for name, points in curves.items():
            profile = depth_profile(graph, points)
            profiles[label, name] = profile
            lengths = profile.float_lengths()
            rows.append({"network": label, "accuracy": f"{accuracy:.3f}", "trajectory": name,
                         **{f"regions after layer {d}": r for d, r in enumerate(profile.regions, start=1)},
                         "input length": f"{lengths[0]:.3f}",
                         **{f"length after layer {d}": f"{v:.3f}" for d, v in enumerate(lengths[1:], start=1)}})
    _common.write_csv(rows, "conv_digits.csv")

    figure, axes = plt.subplots(1, 2, figsize=(11, 3.8))
    for (label, name), profile in profiles.items():
        style = {"trained 5 epochs": "-", "initial": ":"}[label]
        depth = range(len(profile.lengths))
        axes[0].plot(depth[1:], profile.regions, style, marker="o", label=f"{label}: {name}")
        axes[1].plot(depth, np.array(profile.float_lengths()) / profile.float_lengths()[0], style, marker="o")
    axes[0].set(xlabel="depth (convolutional layers)", ylabel="regions crossed", yscale="log",
                title="regions along the trajectory")
    axes[1].set(xlabel="depth (0: the input)", ylabel="length / input length", yscale="log",
                title="exact length of the image")
    axes[0].legend(fontsize=7)
    figure.tight_layout()
    _common.save(figure, "conv_digits_depth.png")

    graph = nets["trained 5 epochs"][0].to_graph()
    a, b, c = (data.X[first[d]] for d in (0, 1, 7))
    counts = plane_regions(graph, a, b, c)
    domain = plane_through(a, b, c)
    figure, axes = plt.subplots(1, 3, figsize=(13, 4.2))
    for depth, (ax, name) in enumerate(zip(axes, ("relu1", "relu2", "relu3")), start=1):
        complex_ = enumerate_regions(truncated(graph, name), domain)
        plot_regions(complex_, ax=ax, edges=False, points=[[1, 0]], title=f"depth {depth}: {counts[depth - 1]} "
                                                                          f"regions")
    figure.tight_layout()
    _common.save(figure, "conv_digits_plane.png")
    _common.write_text(", ".join(map(str, counts)), "conv_digits_plane.txt")
    _common.done(__file__)


if __name__ == "__main__":
    main()
