"""Which architecture bounds a graph network meets the hypotheses of, and their values.

A graph network (:class:`~polyregions.networks.graph.GraphNetwork`) compiles into stages
(:mod:`polyregions.networks.stages`): each an affine map of the previous stage's values followed by units. The
hypotheses are read from those stages (all but the last, the output's affine map, which has no neuron):

* ``trivial``: always, the number of activation patterns (the product of every unit's pieces; a max unit's is
  its window).
* ``conv_xiong2020`` (:func:`~polyregions.measures.bounds.conv_bound`): every stage's units are element-wise
  neurons (no max unit, no value carried through unchanged, as a residual input is), and the first stage's are
  the activation of one convolution of the input (after reshapes, optionally followed by batch norm, which is
  per channel). Its receptive fields, as sets of input entries, come from
  :func:`~polyregions.measures.bounds.conv_field_entries` (Xiong et al.'s sharp count for the first stage);
  ``T`` is the largest number of breakpoints of any unit (a unit with fewer adds fewer hyperplanes).
* ``maxout_serra2018`` and ``maxout_montufar2021`` (:func:`~polyregions.measures.bounds.maxout_serra_bound`,
  :func:`~polyregions.measures.bounds.maxout_montufar_bound`): every stage's units are max units (maxout, or max
  pooling of values that no activation followed; affine maps between them fold in) and nothing else. A stage's
  rank is its largest window: a unit over fewer values is one whose extra affine functions repeat one of its
  own, which neither bound excludes.

Otherwise (ReLU and max units together, residual blocks) only the trivial bound applies.

Examples
--------
>>> from polyregions.experiments.architectures import parse_architecture
>>> net = parse_architecture("2-maxout:3,3").draw(seed=0, init="he_normal", activation="relu")
>>> graph_bounds(net)
{'trivial': 27, 'maxout_serra2018': 46, 'maxout_montufar2021': 19}
>>> net = parse_architecture("4-conv1d:1,2,2").draw(seed=0, init="he_normal", activation="relu")
>>> graph_bounds(net)
{'trivial': 4, 'conv_xiong2020': 4}
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.stage import Stage

__all__ = ["graph_bounds", "GRAPH_BOUND_NAMES"]

#: The bounds :func:`graph_bounds` may add to the trivial one, in the order of the sweep table's columns.
GRAPH_BOUND_NAMES = ("conv_xiong2020", "maxout_serra2018", "maxout_montufar2021")


def graph_bounds(network: "GraphNetwork", *, input_dim: int | None = None) -> dict[str, int]:
    """The architecture bounds whose hypotheses ``network`` meets, by name (see the module documentation).

    Parameters
    ----------
    network : GraphNetwork
    input_dim : int, keyword-only
        The dimension of the domain the regions are counted in (default: the network's input size).

    Returns
    -------
    dict of str to int
        ``"trivial"`` always, then the names of :data:`GRAPH_BOUND_NAMES` that apply, with exact values.
    """
    from polyregions.measures.bounds import maxout_montufar_bound, maxout_serra_bound

    staged = network.staged
    dim = network.input_dim if input_dim is None else input_dim
    bounds = {"trivial": math.prod(staged.piece_counts)}
    hidden = staged.layers[:-1]  # the last stage is the output's affine map
    if not hidden:
        return bounds
    if all(_elementwise_only(stage) for stage in hidden):
        first = _first_convolution(network, len(hidden[0].activations))
        if first is not None:
            bounds["conv_xiong2020"] = _conv_bound(*first, hidden, dim)
    elif all(not stage.activations and stage.groups for stage in hidden):
        widths = [len(stage.groups) for stage in hidden]
        ranks = [max(map(len, stage.groups)) for stage in hidden]
        bounds["maxout_serra2018"] = maxout_serra_bound(dim, widths, ranks)
        bounds["maxout_montufar2021"] = maxout_montufar_bound(dim, widths, ranks)
    return bounds


def _elementwise_only(stage: "Stage") -> bool:
    """Whether every unit of the stage is an element-wise neuron (none carried through, no max unit)."""
    return bool(stage.activations) and not stage.groups and not any(a.is_linear for a in stage.activations)


def _first_convolution(network: "GraphNetwork", units: int) -> tuple[Any, tuple[int, ...]] | None:
    """The convolution and the shape it reads when the first stage's ``units`` units are the element-wise
    activation of a convolution of the input (through reshapes, then batch norms); None otherwise."""
    from polyregions.networks import operations as ops

    by_name = {node.name: node for node in network.nodes}
    shapes = network.shapes
    for node in network.nodes:
        op: Any = node.op
        nonlinear = (isinstance(op, ops.Activation) and not op.activation.is_linear) or (
            isinstance(op, ops.PReLU) and any(slope != 1 for slope in op.slopes))
        # the stage's units are all neurons, so a neuron node of that many units is the whole first stage
        if not nonlinear or math.prod(shapes[node.name]) != units:
            continue
        source = by_name.get(node.inputs[0])
        while source is not None and isinstance(source.op, ops.BatchNorm):
            source = by_name.get(source.inputs[0])
        if source is None or not isinstance(source.op, ops.Conv):
            continue
        name = source.inputs[0]
        while name in by_name and isinstance(by_name[name].op, (ops.Reshape, ops.Flatten)):
            name = by_name[name].inputs[0]
        if name == "input":
            return source.op, shapes[source.inputs[0]]
    return None


def _conv_bound(conv: Any, shape_in: tuple[int, ...], hidden: "tuple[Stage, ...]", dim: int) -> int:
    """Xiong et al.'s bound: the first stage by the convolution's receptive fields, the others by their widths."""
    from polyregions.measures.bounds import conv_bound, conv_field_entries

    weight_shape = []
    weight = conv.weight
    while isinstance(weight, tuple):
        weight_shape.append(len(weight))
        weight = weight[0]
    fields = conv_field_entries(shape_in, weight_shape[0], tuple(weight_shape[2:]), stride=conv.stride,
                                   padding=conv.padding, dilation=conv.dilation, groups=conv.groups)
    breakpoints = max(len(a.breakpoints) for stage in hidden for a in stage.activations)
    return conv_bound(dim, fields, [stage.width for stage in hidden[1:]], breakpoints=breakpoints)
