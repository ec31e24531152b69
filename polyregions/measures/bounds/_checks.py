"""Checks of the arguments every bound takes: an input dimension, widths, a number of breakpoints."""


from __future__ import annotations

from typing import Any

from polyregions.errors import InvalidInputError

__all__ = ["check_dim", "check_widths", "check_breakpoints"]


def check_dim(input_dim: Any) -> int:
    if isinstance(input_dim, bool) or not isinstance(input_dim, int) or input_dim < 1:
        raise InvalidInputError(f"input_dim: expected a positive integer, got {input_dim!r}")
    return input_dim


def check_widths(widths: Any) -> tuple[int, ...]:
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__iter__"):
        raise InvalidInputError(f"widths: expected a list of positive integers, got {widths!r}")
    widths = tuple(widths)
    for i, w in enumerate(widths):
        if isinstance(w, bool) or not isinstance(w, int) or w < 1:
            raise InvalidInputError(f"widths[{i}]: expected a positive integer, got {w!r}")
    return widths


def check_breakpoints(breakpoints: Any) -> int:
    if isinstance(breakpoints, bool) or not isinstance(breakpoints, int) or breakpoints < 1:
        raise InvalidInputError(f"breakpoints: expected a positive integer (T), got {breakpoints!r}")
    return breakpoints


