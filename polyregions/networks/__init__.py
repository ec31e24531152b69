"""Piecewise-linear networks with exact rational parameters, their files and their construction.

Activations (:mod:`~polyregions.networks.activations`), the network type (:mod:`~polyregions.networks.network`),
file formats (:mod:`~polyregions.networks.io`), importers from other frameworks
(:mod:`~polyregions.networks.importers`), seeded initialisers and constructions with known numbers of regions.
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".activations": ["Activation", "relu", "linear", "hardtanh", "leaky_relu", "piecewise_linear",
                     "activation_from_json"],
    ".layer": ["Layer"],
    ".network": ["Network"],
    ".graph": ["GraphNetwork", "Node"],
    ".graph_files": ["graph_to_json", "graph_network_from_json"],
    ".io": ["load_network", "save_network", "network_document", "network_from_json", "network_to_json", "load_npz",
            "network_from_arrays"],
    ".importers": ["network_from_torch", "network_from_exported", "network_from_torchscript", "load_torch_file",
                   "graph_from_onnx", "load_onnx", "network_from_sklearn"],
    ".initializers": ["he_normal", "pytorch_default", "gaussian"],
    ".constructions": ["sawtooth", "montufar", "montufar_regions"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.networks.activations import (
        Activation,
        activation_from_json,
        hardtanh,
        leaky_relu,
        linear,
        piecewise_linear,
        relu,
    )
    from polyregions.networks.constructions import montufar, montufar_regions, sawtooth
    from polyregions.networks.graph import GraphNetwork, Node
    from polyregions.networks.graph_files import graph_network_from_json, graph_to_json
    from polyregions.networks.importers import (
        graph_from_onnx,
        load_onnx,
        load_torch_file,
        network_from_exported,
        network_from_sklearn,
        network_from_torch,
        network_from_torchscript,
    )
    from polyregions.networks.initializers import gaussian, he_normal, pytorch_default
    from polyregions.networks.io import (
        load_network,
        load_npz,
        network_document,
        network_from_arrays,
        network_from_json,
        network_to_json,
        save_network,
    )
    from polyregions.networks.layer import Layer
    from polyregions.networks.network import Network
