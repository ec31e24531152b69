"""Sizes declared in a few bytes, refused before anything of that size is built."""

from __future__ import annotations

import functools
import math
from typing import Any, Sequence

from polyregions.networks.operations._tensors import Shape, flat_size, shape_of

__all__ = ["sized"]


# A shape is a few bytes of JSON (an input of [100000, 100000, 100000], a padding of 10^30, the concatenation of
# 100,000 copies) but the tensor it declares is allocated entry by entry: every operation's output_shape (which
# GraphNetwork calls on each node, before any weight map is built) refuses inputs and outputs above
# polyregions._support.limits.MAX_TENSOR_ENTRIES, and windows above MAX_WINDOW_READS, before the operation's own
# arithmetic runs.

def _window_count(op: Any, shapes: Sequence[Shape]) -> tuple[int, int] | None:
    """The output positions and kernel entries of a convolution or pooling node, by arithmetic only (None
    when the input does not fit the node: its own checks then say why)."""
    if len(shapes) != 1:
        return None
    shape = shapes[0]
    if op.kind == "conv":
        kernel, stride, padding, dilation = op.kernel, op.stride, op.padding, op.dilation
    else:
        kernel, stride, padding = op.kernel, op.stride or op.kernel, op.padding
        if len(kernel) == 1 and len(shape) > 2:
            kernel, stride, padding = (kernel * (len(shape) - 1), stride * (len(shape) - 1),
                                       padding * (len(shape) - 1))
        dilation = (1,) * len(kernel)
    if len(shape) != len(kernel) + 1:
        return None
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    sizes = [(n + 2 * p - span) // s + 1 for n, p, s, span in zip(shape[1:], padding, stride, spans)]
    return (math.prod(sizes) if min(sizes) > 0 else 0), math.prod(kernel)


def _check_sizes(op: Any, shapes: Sequence[Shape], what: str) -> None:
    from polyregions._support.limits import check_at_most

    for i, shape in enumerate(shapes):
        check_at_most("MAX_TENSOR_ENTRIES", flat_size(shape), what=f"{what}: inputs[{i}] of shape "
                      f"[{', '.join(_count(n) for n in shape)}]",
                      unit="entries")
    if op.kind in ("conv", "avgpool", "maxpool"):
        counted = _window_count(op, shapes)
        if counted is not None:
            positions, kernel = counted
            channels = shape_of(op.weight)[0] if op.kind == "conv" else shapes[0][0]
            check_at_most("MAX_TENSOR_ENTRIES", channels * positions, what=f"{what}: output of {channels} x "
                          f"{_count(positions)} positions", unit="entries")
            check_at_most("MAX_WINDOW_READS", positions * kernel, what=f"{what}: {_count(positions)} windows of "
                          f"{_count(kernel)} entries", unit="reads")


def sized(output_shape: Any) -> Any:
    """``output_shape`` behind :func:`_check_sizes` (inputs and windows) and a check of the output's size."""
    @functools.wraps(output_shape)
    def checked(self: Any, shapes: Sequence[Shape], *args: Any, **kwargs: Any) -> Shape:
        from polyregions._support.limits import check_at_most

        what = args[0] if args else kwargs.get("what", self.kind)
        _check_sizes(self, shapes, what)
        shape = output_shape(self, shapes, *args, **kwargs)
        check_at_most("MAX_TENSOR_ENTRIES", flat_size(shape), what=f"{what}: output of shape "
                      f"[{', '.join(_count(n) for n in shape)}]", unit="entries")
        return shape

    return checked


def _count(value: int) -> str:
    from polyregions._support.limits import describe_count

    return str(value) if value < 10 ** 18 else describe_count(value)
