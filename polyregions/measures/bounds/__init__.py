"""Upper bounds on the number of activation regions of a network, from its architecture alone.

Notation: input dimension ``n0``, widths ``n_1, ..., n_L`` of the layers whose activation is not linear
(linear layers compose into the neighbouring affine maps and change no count, so they are left out), and an
activation with ``T`` breakpoints (ReLU and leaky ReLU: ``T = 1``; hard tanh: ``T = 2``). Every function
returns an exact Python ``int``.

A counted number of regions above a bound whose hypotheses hold is a bug in the counter. When regions are
counted inside a ``k``-dimensional domain (a segment, a plane slice), the network restricted to that domain is
a network on ``R^k`` with the same widths, so ``n0 = k`` gives valid, tighter bounds.

Which bound is proven for which activation:

- trivial, ``(T + 1)^N``: any activation with ``T`` breakpoints (a region has one activation pattern).
- one hidden layer, ``sum_{i <= n0} C(T n_1, i)``: any activation; the regions are cells of an arrangement of at
  most ``T n_1`` hyperplanes, and no arrangement of ``m`` hyperplanes in ``R^d`` has more than
  ``sum_{i <= d} C(m, i)`` regions (Zaslavsky's count in general position, which is the maximum).
- Raghu et al. 2017, Theorem 1: stated for ReLU (``prod_l sum_{j <= n0} C(n_l, j)``) and hard tanh
  (``prod_l sum_{j <= n0} C(2 n_l, j)``). Its proof refines the regions layer by layer: inside a region of the
  previous layers the next layer's pre-activations are affine, so its ``n_l`` neurons cut the region with at most
  ``T n_l`` hyperplanes. That argument holds verbatim for any continuous piecewise-linear activation with ``T``
  breakpoints, which gives the T-generalisation ``prod_l sum_{j <= n0} C(T n_l, j)`` (leaky ReLU included).
- Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1: ReLU only. Its proof uses that an inactive ReLU outputs
  a constant, so the image of a region loses a dimension per inactive unit; a leaky ReLU (non-zero negative
  slope) or a general piecewise-linear activation does not lose dimensions, and the theorem says nothing about
  them. An activation with one breakpoint and one flat piece, ``s relu(+-(t - xi)) + c``, is a ReLU up to
  affine maps that fold into the neighbouring layers, so the theorem covers it too.

Other architectures: maxout networks (:func:`maxout_serra_bound`, Serra et al. 2018, Theorem 10;
:func:`maxout_montufar_bound`, Montufar, Ren & Zhang 2021) and convolutional networks (:func:`conv_layer_bound`,
the sharp one-layer count of Xiong et al. 2020 for overlapping receptive fields, and :func:`conv_bound` for deeper
networks, with :func:`conv_field_entries` and :func:`conv_receptive_fields`). Each states its hypotheses and why it
holds.
"""

from polyregions.measures.bounds.convolutional import conv_bound, conv_layer_bound, xiong_conv_bound
from polyregions.measures.bounds.dense import (
    BoundRow,
    arrangement_bound,
    compare_with_bounds,
    one_layer_bound,
    raghu_bound,
    raghu_hardtanh_bound,
    raghu_relu_bound,
    serra_bound,
    serra_index_set,
    trivial_bound,
)
from polyregions.measures.bounds.maxout import maxout_montufar_bound, maxout_serra_bound
from polyregions.measures.bounds.receptive_fields import (
    FieldEntries,
    ReceptiveField,
    conv_field_entries,
    conv_receptive_fields,
)

__all__ = [
    "trivial_bound",
    "arrangement_bound",
    "one_layer_bound",
    "raghu_relu_bound",
    "raghu_hardtanh_bound",
    "raghu_bound",
    "serra_bound",
    "serra_index_set",
    "maxout_serra_bound",
    "maxout_montufar_bound",
    "ReceptiveField",
    "FieldEntries",
    "conv_receptive_fields",
    "conv_field_entries",
    "conv_layer_bound",
    "conv_bound",
    "xiong_conv_bound",
    "BoundRow",
    "compare_with_bounds",
]
