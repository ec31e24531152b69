"""Receptive fields of a convolutional layer as sets of input entries (padding, stride, dilation and groups
included), the data the convolutional bounds count with."""



from __future__ import annotations

from typing import Any, Iterator, NamedTuple, Sequence

from polyregions.errors import InvalidInputError
from polyregions.measures.bounds._checks import check_dim, check_widths

__all__ = ["ReceptiveField", "FieldEntries", "conv_receptive_fields", "conv_field_entries"]


class ReceptiveField(NamedTuple):
    """Neurons of a first convolutional layer that read the same input entries: ``neurons`` of them, reading
    ``inputs`` entries of the input (padding excluded)."""

    neurons: int
    inputs: int


class FieldEntries(NamedTuple):
    """Neurons of a convolutional layer that read the same input entries: ``neurons`` of them, reading the input
    entries whose flat indices are ``entries`` (channel first, then row-major positions; padding excluded).

    Unlike :class:`ReceptiveField`, which keeps only how many entries are read, the sets show how fields
    overlap, which :func:`conv_layer_bound` needs.
    """

    neurons: int
    entries: frozenset[int]

    @property
    def inputs(self) -> int:
        """How many input entries the neurons read."""
        return len(self.entries)


def _positive_pair(value: Any, name: str, *, minimum: int, axes: int) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        values: tuple[Any, ...] = (value,) * axes
    elif isinstance(value, (list, tuple)):
        values = tuple(value)
    else:
        raise InvalidInputError(f"{name}: expected {axes} integer(s) >= {minimum}, got {value!r}")
    if len(values) != axes or any(isinstance(v, bool) or not isinstance(v, int) or v < minimum for v in values):
        raise InvalidInputError(f"{name}: expected {axes} integer(s) >= {minimum}, got {value!r}")
    return values


def _conv_taps(input_shape: Any, out_channels: Any, kernel: Any, stride: Any, padding: Any, dilation: Any,
               groups: Any) -> tuple[tuple[int, ...], int, list[list[list[int]]]]:
    """(input shape, C_out, taps): ``taps[a][o]`` lists the input coordinates along spatial axis ``a`` that the
    kernel reads at output coordinate ``o`` (taps on padding left out)."""
    shape = check_widths(input_shape)
    if len(shape) not in (2, 3):
        raise InvalidInputError(f"input_shape: expected (C_in, L) or (C_in, H, W), got {tuple(input_shape)!r}")
    axes = len(shape) - 1
    kernel_ = _positive_pair(kernel, "kernel", minimum=1, axes=axes)
    stride_ = _positive_pair(stride, "stride", minimum=1, axes=axes)
    padding_ = _positive_pair(padding, "padding", minimum=0, axes=axes)
    dilation_ = _positive_pair(dilation, "dilation", minimum=1, axes=axes)
    out_channels = check_dim(out_channels)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or shape[0] % groups \
            or out_channels % groups:
        raise InvalidInputError(f"groups: expected a positive integer dividing C_in = {shape[0]} and C_out = "
                                f"{out_channels}, got {groups!r}")
    taps = []
    for size, k, s, p, d in zip(shape[1:], kernel_, stride_, padding_, dilation_):
        count = (size + 2 * p - d * (k - 1) - 1) // s + 1
        if count < 1:
            raise InvalidInputError(f"kernel: expected a kernel that fits the padded input ({size} + 2*{p}), got "
                                    f"{k} with dilation {d}")
        taps.append([[o * s - p + t * d for t in range(k) if 0 <= o * s - p + t * d < size] for o in range(count)])
    return shape, out_channels, taps


def conv_receptive_fields(input_shape: Sequence[int], out_channels: int, kernel: int | Sequence[int], *,
                          stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                          dilation: int | Sequence[int] = 1, groups: int = 1) -> tuple[ReceptiveField, ...]:
    """The receptive fields of a convolution applied to the input, one per output position and group.

    Parameters
    ----------
    input_shape : sequence of int
        ``(C_in, L)`` for a 1-D convolution or ``(C_in, H, W)`` for a 2-D one (channel first, no batch axis).
    out_channels : int
        ``C_out``, a multiple of ``groups``.
    kernel, stride, padding, dilation : int or sequence of int
        As in PyTorch's ``Conv1d`` / ``Conv2d`` (zero padding).
    groups : int
        Channel groups, dividing ``C_in`` and ``C_out``.

    Returns
    -------
    tuple of ReceptiveField
        For every output position and group: the ``C_out / groups`` neurons there, and how many input entries
        they read (``C_in / groups`` times the kernel taps that fall inside the input, not on padding). The sets
        of entries are :func:`conv_field_entries`, in the same order.

    Raises
    ------
    InvalidInputError
        When a shape or parameter is not a positive integer (padding: non-negative), the groups do not divide
        the channels, or the output would be empty.

    Examples
    --------
    >>> conv_receptive_fields((1, 4), 2, 2, stride=2)
    (ReceptiveField(neurons=2, inputs=2), ReceptiveField(neurons=2, inputs=2))
    >>> [f.inputs for f in conv_receptive_fields((1, 3), 1, 3, padding=1)]   # the border taps read padding
    [2, 3, 2]
    """
    return tuple(ReceptiveField(f.neurons, f.inputs) for f in conv_field_entries(
        input_shape, out_channels, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups))


def conv_field_entries(input_shape: Sequence[int], out_channels: int, kernel: int | Sequence[int], *,
                       stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                       dilation: int | Sequence[int] = 1, groups: int = 1) -> tuple[FieldEntries, ...]:
    """The input entries read at every output position and group of a convolution applied to the input.

    Parameters
    ----------
    input_shape, out_channels, kernel, stride, padding, dilation, groups
        As in :func:`conv_receptive_fields`.

    Returns
    -------
    tuple of FieldEntries
        For every output position (row-major) and, within it, every group: the ``C_out / groups`` neurons there
        and the flat indices ``c * (H * W) + i * W + j`` (1-D: ``c * L + i``) of the input entries they read: the
        group's ``C_in / groups`` channels at the kernel taps that fall inside the input.

    Raises
    ------
    InvalidInputError
        As :func:`conv_receptive_fields`.

    Examples
    --------
    A kernel of two with stride one: neighbouring fields share an entry.

    >>> [sorted(f.entries) for f in conv_field_entries((1, 3), 2, 2)]
    [[0, 1], [1, 2]]
    >>> [sorted(f.entries) for f in conv_field_entries((2, 2), 2, 1, groups=2)]   # channel c at position i: 2c + i
    [[0], [2], [1], [3]]
    """
    shape, out_channels, taps = _conv_taps(input_shape, out_channels, kernel, stride, padding, dilation, groups)
    plane = 1
    for size in shape[1:]:
        plane *= size
    per_group = shape[0] // groups
    width = shape[2] if len(shape) == 3 else 1
    fields: list[FieldEntries] = []
    for spots in taps_positions(taps, width):
        for g in range(groups):
            channels = range(g * per_group, (g + 1) * per_group)
            fields.append(FieldEntries(out_channels // groups, frozenset(c * plane + s for c in channels
                                                                           for s in spots)))
    return tuple(fields)


def taps_positions(taps: list[list[list[int]]], width: int) -> Iterator[list[int]]:
    """For every output position in row-major order, the flat spatial indices its kernel reads."""
    if len(taps) == 1:
        yield from taps[0]
        return
    for rows in taps[0]:
        for cols in taps[1]:
            yield [i * width + j for i in rows for j in cols]
