"""Exact rational numbers from user input.

Every number polyregions reads becomes a :class:`fractions.Fraction` holding its exact value:
an ``int`` is itself, a binary ``float`` is the dyadic rational it stores (``0.1`` is
``3602879701896397/36028797018963968``), and a string is read as written (``"0.1"`` is ``1/10``,
``"-7/12"``, ``"1e-3"``). NaN, infinities, booleans, empty strings and ``"1/0"`` are rejected.
"""

from __future__ import annotations

import math
import numbers
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from polyregions.errors import InvalidInputError

__all__ = [
    "rational",
    "rational_vector",
    "rational_matrix",
    "format_rational",
    "MAX_EXPONENT",
]

#: Largest decimal exponent accepted in a string such as ``"1e300"``; beyond it the exact value would
#: need megabytes of digits, which is almost surely a mistake in the input.
MAX_EXPONENT = 4000

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")
_QUOTIENT = re.compile(r"[+-]?\d+/\d+")


def _describe(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def rational(value: Any, *, what: str = "number") -> Fraction:
    """Return the exact rational value of a number.

    Parameters
    ----------
    value : int, float, str, Fraction, Decimal, numpy scalar or any ``numbers.Rational``
        The number. Floats are converted losslessly (a float is the dyadic rational it stores); strings are
        read exactly as written: an integer, a quotient ``"p/q"`` or a decimal with an optional exponent of
        at most :data:`MAX_EXPONENT`.
    what : str, keyword-only
        What the number is, for the error message (for example ``"layers[0].bias[1]"``).

    Returns
    -------
    Fraction
        The exact value.

    Raises
    ------
    InvalidInputError
        When ``value`` is not a finite number: NaN, an infinity, a boolean, an empty or malformed string,
        ``"1/0"``, or an object of another type.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.rational("0.1")
    Fraction(1, 10)
    >>> pr.rational(0.5)
    Fraction(1, 2)
    >>> pr.rational("-7/12")
    Fraction(-7, 12)
    >>> pr.rational(0.1) == pr.rational("0.1")  # the float 0.1 is a dyadic rational, not 1/10
    False
    """
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(f"{what}: expected a number, got the boolean {value!r}")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, (int, np.integer)):
        return Fraction(int(value))
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(float(value)):
            raise InvalidInputError(f"{what}: expected a finite number, got {float(value)!r}")
        return Fraction(float(value))
    if isinstance(value, str):
        return _parse(value, what)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidInputError(f"{what}: expected a finite number, got {value!r}")
        return Fraction(value)
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if type(value).__name__ == "fmpq":  # python-flint rationals
        return Fraction(int(value.p), int(value.q))
    raise InvalidInputError(f"{what}: expected a number (int, float, or a string such as \"-7/12\"), "
                            f"got {type(value).__name__} {_describe(value)}")


def _parse(text: str, what: str) -> Fraction:
    stripped = text.strip()
    if _QUOTIENT.fullmatch(stripped):
        numerator, denominator = stripped.split("/")
        if int(denominator) == 0:
            raise InvalidInputError(f"{what}: expected a number, got {text!r} (division by zero)")
        return Fraction(int(numerator), int(denominator))
    match = _DECIMAL.fullmatch(stripped)
    if match:
        if match.group(1) is not None and abs(int(match.group(1))) > MAX_EXPONENT:
            raise InvalidInputError(f"{what}: expected an exponent of at most {MAX_EXPONENT} in absolute "
                                    f"value, got {text!r}")
        return Fraction(stripped)
    raise InvalidInputError(f"{what}: expected a number such as \"3\", \"-7/12\", \"0.1\" or \"1e-3\", "
                            f"got {_describe(text)}")


def rational_vector(values: Any, *, what: str = "vector", length: int | None = None) -> tuple[Fraction, ...]:
    """Return a tuple of exact rationals from a sequence or a 1-D array.

    Parameters
    ----------
    values : sequence or 1-D numpy array
        The numbers, each read by :func:`rational`.
    what : str, keyword-only
        What the vector is, for error messages; entry ``i`` is named ``what[i]``.
    length : int, optional, keyword-only
        The number of entries expected; any number when omitted.

    Returns
    -------
    tuple of Fraction
        The exact values, in order.

    Raises
    ------
    InvalidInputError
        When ``values`` is not a 1-D sequence, has the wrong length or holds an entry that is not a number.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.rational_vector([1, "1/3", 0.25])
    (Fraction(1, 1), Fraction(1, 3), Fraction(1, 4))
    """
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise InvalidInputError(f"{what}: expected a list of numbers, got {_describe(values)}")
    if isinstance(values, np.ndarray) and values.ndim != 1:
        raise InvalidInputError(f"{what}: expected a 1-D list of numbers, got an array of shape {values.shape}")
    if length is not None and len(values) != length:
        raise InvalidInputError(f"{what}: expected {length} numbers, got {len(values)}")
    return tuple(rational(v, what=f"{what}[{i}]") for i, v in enumerate(values))


def rational_matrix(rows: Any, *, what: str = "matrix", shape: tuple[int | None, int | None] = (None, None)
                    ) -> tuple[tuple[Fraction, ...], ...]:
    """Return a tuple of rows of exact rationals from nested sequences or a 2-D array.

    Parameters
    ----------
    rows : sequence of sequences or 2-D numpy array
        The rows, each read by :func:`rational_vector`.
    what : str, keyword-only
        What the matrix is, for error messages; row ``i`` is named ``what[i]``.
    shape : tuple of (int or None), keyword-only
        The expected number of rows and columns; ``None`` leaves one free. All rows must have the same length.

    Returns
    -------
    tuple of tuple of Fraction
        The exact rows.

    Raises
    ------
    InvalidInputError
        When ``rows`` is not 2-D, the rows differ in length, the shape is not the one expected, or an entry
        is not a number.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.rational_matrix([[1, "-1/2"], [0, 2]])
    ((Fraction(1, 1), Fraction(-1, 2)), (Fraction(0, 1), Fraction(2, 1)))
    >>> pr.rational_matrix([[1, 2]], shape=(None, 3))
    Traceback (most recent call last):
    ...
    polyregions.errors.InvalidInputError: matrix[0]: expected 3 numbers, got 2
    """
    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__"):
        raise InvalidInputError(f"{what}: expected a list of rows, got {_describe(rows)}")
    if isinstance(rows, np.ndarray) and rows.ndim != 2:
        raise InvalidInputError(f"{what}: expected a 2-D array, got an array of shape {rows.shape}")
    n_rows, n_cols = shape
    if n_rows is not None and len(rows) != n_rows:
        raise InvalidInputError(f"{what}: expected {n_rows} rows, got {len(rows)}")
    result = tuple(rational_vector(row, what=f"{what}[{i}]", length=n_cols) for i, row in enumerate(rows))
    if result and n_cols is None:
        width = len(result[0])
        for i, row in enumerate(result):
            if len(row) != width:
                raise InvalidInputError(f"{what}: expected rows of equal length {width}, "
                                        f"got {len(row)} in row {i}")
    return result


def format_rational(value: Fraction) -> str:
    """Write a rational as ``"p/q"`` (or ``"p"`` for an integer), the exact form read back by :func:`rational`.

    Parameters
    ----------
    value : Fraction
        The number.

    Returns
    -------
    str
        ``"p/q"`` in lowest terms with ``q > 1``, or ``"p"`` when the number is an integer.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.format_rational(pr.rational("-14/24")), pr.format_rational(pr.rational(3.0))
    ('-7/12', '3')
    """
    return str(value)
