"""Reading the fields of a parsed JSON document: exact numbers, integers, lists, and the keys an object may hold.

Every reader names the field it reads (``where``) and raises :class:`~proofs_check.errors.InputError` with what
was expected and what arrived.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from typing import Any, Iterable, Sequence

from .errors import InputError

__all__ = ["MAX_EXPONENT", "parse_number", "describe", "get_key", "check_keys", "read_int", "read_bool",
           "read_str", "read_list", "read_vector", "read_matrix", "dot"]

MAX_EXPONENT = 4000  # decimal exponents beyond this are rejected, as polyregions does

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")
_QUOTIENT = re.compile(r"[+-]?\d+/\d+")
_ZERO = Fraction(0)


def describe(value: Any) -> str:
    """A short JSON rendering of a value for an error message (strings quoted, long values cut)."""
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 50 else text[:47] + "..."


def parse_number(value: Any, where: str) -> Fraction:
    """The exact value of a number as CONTRACT.md reads it.

    A JSON integer is itself, a JSON float the exact value of its binary64 number, a string is read exactly
    (``"-7/12"``, ``"0.1"`` = 1/10, ``"1e-3"``). Anything else raises :class:`InputError` naming ``where``.

    Examples
    --------
    >>> parse_number("0.1", "x")
    Fraction(1, 10)
    >>> parse_number(0.5, "x")
    Fraction(1, 2)
    """
    if isinstance(value, bool):
        raise InputError(where, f"expected a number, got the boolean {describe(value)}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(where, f"expected a finite number, got {value!r}")
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip()
        if _QUOTIENT.fullmatch(text):
            numerator, denominator = text.split("/")
            if int(denominator) == 0:
                raise InputError(where, f"expected a number, got {value!r} (division by zero)")
            return Fraction(int(numerator), int(denominator))
        match = _DECIMAL.fullmatch(text)
        if match:
            if match.group(1) is not None and abs(int(match.group(1))) > MAX_EXPONENT:
                raise InputError(where, f"expected an exponent of at most {MAX_EXPONENT}, got {value!r}")
            return Fraction(text)
    raise InputError(where, f"expected a number (integer, float or a string such as \"-7/12\"), "
                            f"got {describe(value)}")


def get_key(obj: Any, key: str, where: str) -> Any:
    """``obj[key]``, once ``obj`` is known to be an object holding ``key`` (a missing key is an error)."""
    if not isinstance(obj, dict):
        raise InputError(where or "(top level)", f"expected a JSON object, got {describe(obj)}")
    if key not in obj:
        raise InputError(f"{where}.{key}" if where else key, "missing")
    return obj[key]


def check_keys(obj: Any, allowed: Iterable[str], where: str) -> None:
    """Reject an object with a key outside ``allowed``: what the checker does not know, it cannot verify."""
    if not isinstance(obj, dict):
        raise InputError(where or "(top level)", f"expected a JSON object, got {describe(obj)}")
    allowed = tuple(allowed)
    for key in obj:
        if key not in allowed:
            raise InputError(f"{where}.{key}" if where else str(key),
                             f"unknown key (the checker cannot verify what it does not know; expected only "
                             f"{', '.join(allowed)})")


def read_int(value: Any, where: str, *, low: int | None = None) -> int:
    """A JSON integer (not a boolean, not a string), at least ``low`` when given."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, f"expected an integer, got {describe(value)}")
    if low is not None and value < low:
        raise InputError(where, f"expected an integer >= {low}, got {value}")
    return value


def read_bool(value: Any, where: str) -> bool:
    """A JSON ``true`` or ``false``."""
    if not isinstance(value, bool):
        raise InputError(where, f"expected true or false, got {describe(value)}")
    return value


def read_str(value: Any, where: str) -> str:
    """A JSON string."""
    if not isinstance(value, str):
        raise InputError(where, f"expected a string, got {describe(value)}")
    return value


def read_list(value: Any, where: str, length: int | None = None) -> list:
    """A JSON list, of ``length`` entries when given."""
    if not isinstance(value, list):
        raise InputError(where, f"expected a list, got {describe(value)}")
    if length is not None and len(value) != length:
        raise InputError(where, f"expected {length} entries, got {len(value)}")
    return value


def read_vector(value: Any, where: str, length: int | None = None) -> tuple[Fraction, ...]:
    """A list of exact numbers (:func:`parse_number`)."""
    return tuple(parse_number(v, f"{where}[{i}]") for i, v in enumerate(read_list(value, where, length)))


def read_matrix(value: Any, where: str, rows: int | None, cols: int | None) -> tuple[tuple[Fraction, ...], ...]:
    """A list of ``rows`` rows of ``cols`` exact numbers each (None: any number)."""
    return tuple(read_vector(row, f"{where}[{i}]", cols) for i, row in enumerate(read_list(value, where, rows)))


def dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    """The exact inner product."""
    return sum((x * y for x, y in zip(a, b)), _ZERO)
