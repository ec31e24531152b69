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

__all__ = ["MAX_EXPONENT", "MAX_DIGITS", "MAX_FILE_BYTES", "MAX_DEPTH", "read_document", "parse_number",
           "describe", "get_key", "check_keys", "read_int", "read_bool", "read_str", "read_list", "read_vector",
           "read_matrix", "dot"]

MAX_EXPONENT = 4000  # decimal exponents beyond this are rejected, as polyregions does
#: Most digits in one integer, numerator or denominator: ten times what polyregions reads (its results may be
#: longer than its inputs), small enough to convert in a few hundredths of a second.
MAX_DIGITS = 100_000
MAX_FILE_BYTES = 4 << 30  # a regular file larger than this is refused before it is read
MAX_DEPTH = 100  # the export nests 5 deep; Python's JSON parser recurses

# ASCII only: \d in a str pattern also matches every Unicode decimal digit (and int() reads them).
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE]([+-]?[0-9]+))?", re.ASCII)
_QUOTIENT = re.compile(r"([+-]?)([0-9]+)/([0-9]+)", re.ASCII)
_INTEGER = re.compile(r"-?[0-9]+", re.ASCII)
_ASCII_SPACE = " \t\n\r\f\v"
_CHUNK = 600  # digits converted at a time: always within Python's limit on int(str) (at least 640)
_LONG_DIGITS = re.compile(f"[0-9]{{{_CHUNK + 1}}}", re.ASCII)  # a run of digits longer than _CHUNK
_ZERO = Fraction(0)
#: Strings read most often (a convolution's weight matrix is mostly zeros), with their values.
_COMMON = {"0": _ZERO, "1": Fraction(1), "-1": Fraction(-1)}


def describe(value: Any) -> str:
    """A short JSON rendering of a value for an error message (strings quoted, long values cut)."""
    try:
        text = json.dumps(value) if not isinstance(value, str) else repr(value)
    except (ValueError, RecursionError):  # an integer beyond Python's str limit, a deeply nested list
        return f"a JSON {type(value).__name__}"
    return text if len(text) <= 50 else text[:47] + "..."


def _integer(digits: str, where: str) -> int:
    """The integer written by ASCII ``digits`` (optionally after ``-``), whatever Python's str limit."""
    if len(digits) <= _CHUNK:  # the common case: within Python's limit on int(str), and far below MAX_DIGITS
        return int(digits)
    sign, digits = ("-", digits[1:]) if digits.startswith("-") else ("", digits)
    if len(digits) > MAX_DIGITS:
        raise InputError(where, f"expected at most {MAX_DIGITS} digits in a number, got {len(digits)}")
    value = _halves(digits)
    return -value if sign else value


def _halves(digits: str) -> int:
    """Convert by halves: fast multiplications of large numbers instead of many small steps."""
    if len(digits) <= _CHUNK:
        return int(digits)
    half = len(digits) // 2
    return _halves(digits[:half]) * 10 ** (len(digits) - half) + _halves(digits[half:])


def _json_integer(digits: str) -> int:
    """A JSON integer (ASCII digits, the JSON parser checked them): :func:`_integer`, one call shorter."""
    return int(digits) if len(digits) <= _CHUNK else _integer(digits, "json")


def _reject_constant(name: str) -> Any:
    raise InputError("json", f"{name} is not a number")


def read_document(path: str) -> Any:
    """Read and parse a JSON file: a regular file (a FIFO, a device or a directory is refused before reading)
    of at most :data:`MAX_FILE_BYTES` bytes, UTF-8, nested at most :data:`MAX_DEPTH` deep, without NaN or
    Infinity. Raises :class:`InputError` with field ``file`` or ``json``."""
    import os
    import stat

    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # a FIFO must not block the open
    except OSError as exc:
        raise InputError("file", f"cannot read: {exc}") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_FILE_BYTES:
        os.close(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError("file", "cannot read: expected a regular file, got a directory")
        if not stat.S_ISREG(info.st_mode):
            raise InputError("file", "cannot read: expected a regular file, got a device, a FIFO or a socket")
        raise InputError("file", f"cannot read: expected at most {MAX_FILE_BYTES} bytes, got {info.st_size}")
    with os.fdopen(fd, "rb") as handle:
        try:
            data = handle.read(info.st_size + 1)
            text = data.decode("utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError("file", f"cannot read: {exc}") from None
    try:
        # Python's own integer parsing when no run of digits is long enough to need _integer (a digit run in a
        # string, too, sends the whole document the slow way: a shortcut, never a change of what is read)
        long_digits = _LONG_DIGITS.search(text) is not None
        doc = json.loads(text, parse_constant=_reject_constant, parse_int=_json_integer if long_digits else None)
    except RecursionError:
        raise InputError("json", "nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise InputError("json", f"not valid JSON: {exc}") from None
    stack = [(doc, 1)]
    while stack:  # iteratively: a deep value would break the readers' recursion and the error messages
        value, depth = stack.pop()
        if depth > MAX_DEPTH:
            raise InputError("json", f"nested too deeply (more than {MAX_DEPTH} levels)")
        if isinstance(value, (list, dict)):
            stack.extend((child, depth + 1) for child in (value.values() if isinstance(value, dict) else value)
                         if isinstance(child, (list, dict)))
    return doc


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
    if type(value) is str and value in _COMMON:  # noqa: E721 (a str subclass takes the general path)
        return _COMMON[value]
    if isinstance(value, bool):
        raise InputError(where, f"expected a number, got the boolean {describe(value)}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(where, f"expected a finite number, got {value!r}")
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip(_ASCII_SPACE)
        if _INTEGER.fullmatch(text):  # the common case, read as the decimal branch below reads it
            return Fraction(_integer(text, where))
        quotient = _QUOTIENT.fullmatch(text)
        if quotient:
            sign, numerator, denominator = quotient.groups()
            q = _integer(denominator, where)
            if q == 0:
                raise InputError(where, f"expected a number, got {describe(value)} (division by zero)")
            p = _integer(numerator, where)
            return Fraction(-p if sign == "-" else p, q)
        match = _DECIMAL.fullmatch(text)
        if match:
            mantissa, _, exponent = text.upper().partition("E")
            if exponent and (len(exponent.lstrip("+-0")) > len(str(MAX_EXPONENT))
                             or int(exponent.lstrip("+-0") or "0") > MAX_EXPONENT):
                raise InputError(where, f"expected an exponent of at most {MAX_EXPONENT}, got {describe(value)}")
            sign = "-" if mantissa.startswith("-") else ""
            whole, _, fraction = mantissa.lstrip("+-").partition(".")
            scale = (int(exponent.lstrip("+-") or "0") * (-1 if exponent.startswith("-") else 1)) - len(fraction)
            digits = _integer(sign + ((whole + fraction) or "0"), where)
            return Fraction(digits * 10 ** scale) if scale >= 0 else Fraction(digits, 10 ** -scale)
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
