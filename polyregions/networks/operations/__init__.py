"""The exact operations of a :class:`~polyregions.networks.graph.GraphNetwork`.

Every operation is a frozen dataclass with exact parameters (:class:`fractions.Fraction`, in nested tuples);
numbers, strings such as ``"1/3"`` and numpy arrays are read exactly (:mod:`polyregions.exact.rationals`).
Tensors are channel-first and carry no batch axis. An operation is one of two kinds:

* *affine* (:class:`Dense`, :class:`Conv`, :class:`AvgPool`, :class:`BatchNorm`, :class:`Scale`, :class:`Add`,
  :class:`Concat`, :class:`Flatten`, :class:`Reshape`, :class:`Permute`, :class:`Pad`, :class:`Take`):
  :meth:`affine` gives every output entry as a sparse exact combination of input entries plus a constant;
* *piecewise linear* (:class:`Activation`, :class:`PReLU`, :class:`MaxPool`, :class:`Maxout`): element-wise
  units (:meth:`elementwise`, one activation per entry) or max units (:meth:`max_groups`, the input entries each
  output entry is the maximum of; its piece is the argmax).

Examples
--------
>>> from polyregions.networks.operations import Conv
>>> conv = Conv([[[1, -1]]], [0])
>>> conv.output_shape([(1, 4)])
(1, 3)
"""

from typing import Union

from polyregions.networks.operations._tensors import SparseAffine, flat_size
from polyregions.networks.operations.affine import Add, AvgPool, BatchNorm, Conv, Dense, Scale
from polyregions.networks.operations.piecewise import Activation, Maxout, MaxPool, PReLU, relu6
from polyregions.networks.operations.shapes import Concat, Flatten, Pad, Permute, Reshape, Take

__all__ = ["Dense", "Conv", "AvgPool", "MaxPool", "BatchNorm", "Scale", "Activation", "PReLU", "Maxout", "Add",
           "Concat", "Flatten", "Reshape", "Permute", "Pad", "Take", "Operation", "SparseAffine", "relu6", "flat_size"]

Operation = Union[Dense, Conv, AvgPool, MaxPool, BatchNorm, Scale, Activation, PReLU, Maxout, Add, Concat, Flatten,
                  Reshape, Permute, Pad, Take]
