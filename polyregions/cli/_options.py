"""Readers of command-line option values: ASCII integers within ranges, worker counts, resolutions, widths.

Each is an ``argparse`` type (it raises :class:`argparse.ArgumentTypeError`, which the parser reports as one
``polyregions: error:`` line naming the option) or, for values read after parsing, raises
:class:`~polyregions.errors.InvalidInputError` naming the option. Integers are ASCII digits only: Python's
``int`` would also read ``"\\u0663"`` (an Arabic-Indic three), ``"1_000"`` and Unicode white space.
"""

from __future__ import annotations

import argparse
from typing import Callable

from polyregions._limits import MAX_DPI, MAX_NETWORK_PARAMETERS, usable_cores
from polyregions.errors import InvalidInputError

__all__ = ["integer_at_least", "dpi", "workers", "integers", "widths"]


def _integer(text: str) -> int:
    from polyregions.exact.rationals import integer

    try:
        return integer(text, what="value")
    except InvalidInputError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("value: ")) from None


def integer_at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer ``>= low`` in ASCII digits."""
    def read(text: str) -> int:
        value = _integer(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value

    return read


def dpi(text: str) -> int:
    """An argparse type: a resolution in dots per inch, 1 to :data:`~polyregions._limits.MAX_DPI`."""
    value = _integer(text)
    if not 1 <= value <= MAX_DPI:
        raise argparse.ArgumentTypeError(f"expected a resolution from 1 to {MAX_DPI} dots per inch, got {text!r}")
    return value


def workers(low: int) -> Callable[[str], int]:
    """An argparse type: a number of worker processes ``>= low``, clamped to the usable cores.

    More processes than cores would only compete for them (and each costs a fork and its memory); the results
    do not depend on the number, so a larger one is taken as the number of cores rather than refused.
    """
    read_integer = integer_at_least(low)

    def read(text: str) -> int:
        return min(read_integer(text), max(low, usable_cores()))

    return read


def integers(text: str, *, what: str) -> list[int]:
    """Comma-separated integers in ASCII digits, such as ``"2,8,8"``."""
    from polyregions.exact.rationals import integer

    try:
        return [integer(part, what=what) for part in text.split(",")]
    except InvalidInputError:
        raise InvalidInputError(f"{what}: expected comma-separated integers such as 2,8,8, got "
                                f"{_short(text)}") from None


def widths(text: str, *, what: str = "--widths", minimum: int = 2, output_dim: int = 0) -> list[int]:
    """An architecture ``N0,N1,...``: at least ``minimum`` positive integers, and a network of at most
    :data:`~polyregions._limits.MAX_NETWORK_PARAMETERS` weights and biases (with ``output_dim`` outputs)."""
    values = integers(text, what=what)
    if len(values) < minimum or any(v < 1 for v in values):
        raise InvalidInputError(f"{what}: expected at least {minimum} positive integers (the input dimension and "
                                f"the hidden widths) such as 2,8,8, got {_short(text)}")
    layers = values + ([output_dim] if output_dim else [])
    size = sum(fan_in * width + width for fan_in, width in zip(layers, layers[1:]))
    if size > MAX_NETWORK_PARAMETERS:
        count = f"{size:,}" if size < 10 ** 15 else "more than 10^15"
        raise InvalidInputError(f"{what}: expected a network of at most {MAX_NETWORK_PARAMETERS:,} weights and "
                                f"biases, got {_short(text)}, which has {count}")
    return values


def _short(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:57] + "...")
