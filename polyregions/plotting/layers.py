"""Layer by layer: how each hidden layer refines the regions of the layers before it.

The network truncated after hidden layer ``l`` is ``Network(input_dim, layers[:l])``; its regions are the
regions of the first ``l`` layers. Every region of the truncation after layer ``l + 1`` lies inside one region
of the truncation after layer ``l`` (its pattern starts with that region's pattern), so the panels show a
sequence of ever finer partitions, as in Hanin & Rolnick's Figure 2.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["truncations", "layer_complexes", "plot_layers"]


def truncations(network: "Network") -> list["Network"]:
    """The network truncated after each layer that has neurons (affine layers add no regions).

    Examples
    --------
    >>> from polyregions.networks.initializers import he_normal
    >>> [t.widths for t in truncations(he_normal([2, 4, 3], seed=0, output_dim=1))]
    [(4,), (4, 3)]
    """
    from polyregions.networks.network import Network
    from polyregions.regions._arguments import expect_network

    network = expect_network(network)
    out = []
    for l, layer in enumerate(network.layers):
        if not hasattr(layer, "activation"):  # a graph network's stage: truncated after it when it has neurons
            if layer.neurons:  # type: ignore[attr-defined]
                out.append(type(network)(network.input_dim, network.layers[:l + 1]))
        elif not layer.activation.is_linear:
            out.append(Network(network.input_dim, network.layers[:l + 1]))
    if not out:
        raise InvalidInputError("network: expected at least one layer with a non-linear activation, got only "
                                "affine layers (a single region)")
    return out


def layer_complexes(network: "Network", domain: "Domain", *, engine: "Engine" = "auto") -> list["RegionComplex"]:
    """The region complex of every truncation (:func:`truncations`) on ``domain``.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> from polyregions.regions.domains import box
    >>> net = Network.from_layers(1, [([[1], [1]], [0, -1], "relu"), ([[1, -2]], ["-1/4"], "relu")])
    >>> [len(c) for c in layer_complexes(net, box([-1], [3]))]
    [3, 5]
    """
    from polyregions.regions.enumeration import enumerate_regions

    return [enumerate_regions(t, domain, engine=engine) for t in truncations(network)]


def plot_layers(network: "Network", domain: "Domain", *, color_by: str = "pattern", engine: "Engine" = "auto",
                window: Any = None, panel_size: float = 3.2, edges: bool | None = None, complexes: Any = None,
                colors: str = "index", cmap: str | None = None):
    """One panel per hidden layer: the regions of the network truncated after it, on a 2-D domain.

    Returns the matplotlib figure. ``complexes`` may pass the result of :func:`layer_complexes` to avoid
    computing it again. ``colors`` and ``cmap`` are passed to :func:`~polyregions.plotting.plot_regions`.

    Examples
    --------
    >>> from polyregions.networks.initializers import he_normal
    >>> from polyregions.regions.domains import box
    >>> figure = plot_layers(he_normal([2, 8, 8, 8], seed=0), box([-1, -1], [1, 1]))  # doctest: +SKIP
    """
    from polyregions.plotting._backend import figure_size, pyplot
    from polyregions.plotting.regions import plot_regions

    if domain.dim != 2:
        raise InvalidInputError(f"plot_layers: expected a 2-D domain, got a {domain.dim}-D domain")
    if complexes is None:
        complexes = layer_complexes(network, domain, engine=engine)
    plt = pyplot()
    figure, axes = plt.subplots(1, len(complexes), squeeze=False,
                                figsize=figure_size((panel_size * len(complexes), panel_size + 0.4)))
    for l, (ax, complex_) in enumerate(zip(axes[0], complexes)):
        title = f"after layer {l + 1}: {len(complex_)} regions"
        plot_regions(complex_, color_by=color_by, ax=ax, window=window, edges=edges, title=title, colors=colors,
                     cmap=cmap)
        if l:
            ax.set_ylabel("")
    figure.tight_layout()
    return figure
