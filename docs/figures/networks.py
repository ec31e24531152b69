"""Figures of the user guide: regions of networks in the plane, layer by layer, 1-D graphs, adjacency.

* ``colorings.png``: a network trained briefly on moons, on [-1, 1]^2, coloured by activation pattern, by
  linear map and by predicted class (the three colourings of ``plot_regions``), after Qi & Wei's Figure 1.
* ``layers.png``: the regions of the network truncated after each hidden layer (Hanin & Rolnick, Figure 2).
* ``graph_1d.png``: the graph of a He-initialised network with one input and one output, with its
  breakpoints (Hanin & Rolnick, Figure 4), next to Telgarsky's sawtooth.
* ``first_layer.png``: the first layer of a network is a hyperplane arrangement (``network_layer``).
* ``adjacency.png``: the adjacency graph of a small network's regions.
"""

from __future__ import annotations

import _common
import matplotlib.pyplot as plt

from polyregions.arrangements import network_layer
from polyregions.experiments.datasets import moons
from polyregions.experiments.models import MLP, train
from polyregions.networks.constructions import sawtooth
from polyregions.networks.initializers import he_normal
from polyregions.plotting import (
    layer_complexes,
    plot_adjacency,
    plot_arrangement,
    plot_graph,
    plot_layers,
    plot_regions,
)
from polyregions.regions.domains import box
from polyregions.regions.enumeration import enumerate_regions

SQUARE = box([-1, -1], [1, 1])


def colorings() -> None:
    # A network trained for a few epochs on moons, as in Qi & Wei's Figure 1 (regions and decision regions).
    data = moons(400, seed=0)
    model = MLP.initialize([2, 16, 16, 16, 2], seed=3)
    train(model, data, epochs=30, lr=0.01, seed=0)
    complex_ = enumerate_regions(model.to_network(), SQUARE)
    figure, axes = plt.subplots(1, 3, figsize=(13, 4.6))
    plot_regions(complex_, ax=axes[0], title=f"by activation pattern: {len(complex_)} regions")
    plot_regions(complex_, color_by="linear", ax=axes[1],
                 title=f"by linear map: {len(complex_.linear_regions)} linear regions")
    plot_regions(complex_, color_by="class", ax=axes[2], points=data.X, point_labels=data.y,
                 title="by predicted class, with the data")
    figure.tight_layout()
    _common.save(figure, "colorings.png")


def layers() -> None:
    net = he_normal([2, 12, 12, 12], seed=1, bias_std=0.3)
    complexes = layer_complexes(net, SQUARE)
    figure = plot_layers(net, SQUARE, complexes=complexes, panel_size=3.6)
    _common.save(figure, "layers.png")
    _common.write_text(", ".join(str(len(c)) for c in complexes), "layers_counts.txt")


def graph_1d() -> None:
    figure, axes = plt.subplots(1, 2, figsize=(12, 3.8))
    # Biases of standard deviation 1e-3 put every breakpoint within a few thousandths of 0.
    net = he_normal([1, 20, 20, 20], seed=0, output_dim=1)
    plot_graph(net, box(["-1/100"], ["1/100"]), ax=axes[0])
    axes[0].set_title("He-normal [1, 20, 20, 20, 1] on [-0.01, 0.01]\n" + axes[0].get_title(), fontsize=10)
    plot_graph(sawtooth(4), box([0], [1]), ax=axes[1])
    axes[1].set_title("Telgarsky's sawtooth, 4 compositions\n" + axes[1].get_title(), fontsize=10)
    figure.tight_layout()
    _common.save(figure, "graph_1d.png")


def first_layer() -> None:
    net = he_normal([2, 6, 6], seed=2, bias_std=0.5, output_dim=1)
    first = net.layers[0]
    arrangement = network_layer(first.weight, first.bias)
    figure, axes = plt.subplots(1, 2, figsize=(10.5, 4.8))
    plot_arrangement(arrangement.within(SQUARE.region), ax=axes[0], fontsize=6,
                     title=f"first layer as an arrangement: {arrangement.within(SQUARE.region).num_regions()} cells")
    complex_ = enumerate_regions(net, SQUARE)
    plot_regions(complex_, ax=axes[1], title=f"whole network: {len(complex_)} regions")
    figure.tight_layout()
    _common.save(figure, "first_layer.png")


def adjacency() -> None:
    net = he_normal([2, 5, 5], seed=4, bias_std=0.4, output_dim=1)
    figure, ax = plt.subplots(figsize=(5.2, 5.2))
    plot_adjacency(enumerate_regions(net, SQUARE), ax=ax)
    _common.save(figure, "adjacency.png")


def main() -> None:
    colorings()
    layers()
    graph_1d()
    first_layer()
    adjacency()
    _common.done(__file__)


if __name__ == "__main__":
    main()
