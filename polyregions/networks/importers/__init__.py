"""Models from other frameworks as exact networks: thin readers over one operator table.

* PyTorch (:mod:`~.torch_module`, :mod:`~.torch_export`, :mod:`~.torchscript`, :mod:`~.torch_files`): any
  ``nn.Module`` that ``torch.export`` captures, ``.pt2`` programs, TorchScript archives traced or scripted, and
  pickled modules only when the caller trusts the file;
* ONNX (:mod:`~.onnx`), from either of torch's exporters, constant shape computations folded;
* scikit-learn multi-layer perceptrons (:mod:`~.sklearn`).

Every framework operator maps to exact operations of :mod:`polyregions.networks.operations` through the table of
:mod:`~.operators`; adding an operator is one entry there. Optional frameworks are imported only when a model of
theirs is read.
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".torch_module": ["network_from_torch"],
    ".torch_export": ["network_from_exported"],
    ".torchscript": ["network_from_torchscript"],
    ".torch_files": ["load_torch_file"],
    ".onnx": ["graph_from_onnx", "load_onnx"],
    ".sklearn": ["network_from_sklearn"],
    ".layering": ["layered"],
    ".operators": ["supported_operators"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.networks.importers.layering import layered
    from polyregions.networks.importers.onnx import graph_from_onnx, load_onnx
    from polyregions.networks.importers.operators import supported_operators
    from polyregions.networks.importers.sklearn import network_from_sklearn
    from polyregions.networks.importers.torch_export import network_from_exported
    from polyregions.networks.importers.torch_files import load_torch_file
    from polyregions.networks.importers.torch_module import network_from_torch
    from polyregions.networks.importers.torchscript import network_from_torchscript
