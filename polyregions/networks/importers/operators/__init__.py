"""The operator table: every framework operator polyregions reads, as exact operations of a graph network.

One table serves every route in: ``torch.export`` and TorchScript graphs name ATen operators (``linear``,
``conv2d``, ``max_pool2d``, ``view``, ``add``...) with ATen's argument order, and the ONNX reader translates its
nodes into calls of the same entries. An entry takes the builder, the positional arguments and the keyword
arguments of one call, and returns the call's value: a :class:`~._builder.Symbolic` tensor (nodes appended to the
graph), a constant (a shape computation or arithmetic on parameters, folded exactly), or a tuple of them.
Adding an operator is one entry in the module of its family:
:mod:`~.layers`, :mod:`~.elementwise`, :mod:`~.maxima` or :mod:`~.shapes`.

Every tensor axis is counted as the frameworks count it, batch axis first; an operator that mixes inputs of a
batch (an axis-0 reduction, a reshape across the batch) is refused. Parameters are taken at their exact binary
values; the one rounding is a batch normalisation's scale ``weight / sqrt(running_var + eps)``, computed in
binary64 (three correctly rounded operations), as PyTorch computes it in double precision.
"""

from polyregions.networks.importers.operators import elementwise, layers, maxima, shapes  # noqa: F401 (entries)
from polyregions.networks.importers.operators._table import OPERATORS, call, supported_operators
from polyregions.networks.importers.operators.layers import batch_norm_op
from polyregions.networks.importers.operators.maxima import extremum_of_tensors, max_of_tensors, max_over_axis

__all__ = ["OPERATORS", "call", "supported_operators", "max_of_tensors", "extremum_of_tensors", "max_over_axis",
           "batch_norm_op"]
