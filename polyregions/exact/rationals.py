"""Exact rational numbers from user input.

Every number polyregions reads becomes a :class:`fractions.Fraction` holding its exact value:
an ``int`` is itself, a binary ``float`` is the dyadic rational it stores (``0.1`` is
``3602879701896397/36028797018963968``), and a string is read as written (``"0.1"`` is ``1/10``,
``"-7/12"``, ``"1e-3"``). NaN, infinities, booleans, empty strings and ``"1/0"`` are rejected.

Strings hold ASCII digits only (``"\u0661"``, an Arabic-Indic one, is not a number here, although Python's ``int``
reads it), with at most :data:`~polyregions._support.limits.MAX_DIGITS` (10,000) digits in each integer part and a
decimal exponent of at most :data:`~polyregions._support.limits.MAX_EXPONENT` (4000); only ASCII white space around
them is ignored. Numbers of any size are written back exactly, beyond Python's limit on ``str(int)``.
"""

from __future__ import annotations

import math
import numbers
import re
from decimal import Decimal
from fractions import Fraction
from typing import Any

import numpy as np

from polyregions._support.limits import DIGITS_CHUNK as _CHUNK
from polyregions._support.limits import MAX_DIGITS, MAX_EXPONENT, digits_value
from polyregions.errors import InvalidInputError

__all__ = [
    "rational",
    "rational_vector",
    "rational_matrix",
    "format_rational",
    "integer",
    "doubles_hold",
]

# ASCII only: in a str pattern \d and str.isdigit() also take every Unicode decimal digit.
_DECIMAL = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?)([0-9]+))?", re.ASCII)
_QUOTIENT = re.compile(r"([+-]?)([0-9]+)/([0-9]+)", re.ASCII)
_INTEGER = re.compile(r"([+-]?)([0-9]+)", re.ASCII)
_ASCII_SPACE = " \t\n\r\f\v"
# A whole row of plain quotients "p/q" / "-p/q", joined by commas (the digit limits are _plain_quotient's).
_QUOTIENT_ROW = re.compile(r"-?[0-9]{1,600}/[0-9]{1,600}(?:,-?[0-9]{1,600}/[0-9]{1,600})*", re.ASCII)
_CHUNK_BITS = 1990  # below 600 decimal digits


def _describe(value: Any) -> str:
    try:
        text = repr(value)
    except (ValueError, RecursionError):  # an int beyond Python's str limit, a deeply nested list
        return f"a {type(value).__name__}"
    return text if len(text) <= 60 else text[:57] + "..."


def rational(value: Any, *, what: str = "number") -> Fraction:
    """Return the exact rational value of a number.

    Parameters
    ----------
    value : int, float, str, Fraction, Decimal, numpy scalar or any ``numbers.Rational``
        The number. Floats are converted losslessly (a float is the dyadic rational it stores); strings are
        read exactly as written: an integer, a quotient ``"p/q"`` or a decimal with an optional exponent, in
        ASCII digits, within the limits of the module documentation.
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
        ``"1/0"``, a string with non-ASCII digits or beyond the digit and exponent limits, or an object of
        another type.

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
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidInputError(f"{what}: expected a finite number, got {value!r}")
        return Fraction(value)
    if isinstance(value, np.floating):
        # every binary float type at the value it stores: float(value) would round a np.longdouble (64-bit
        # mantissa) to 53 bits, so its own as_integer_ratio() is read instead
        if not np.isfinite(value):
            raise InvalidInputError(f"{what}: expected a finite number, got {value!r}")
        return Fraction(*value.as_integer_ratio())
    if isinstance(value, str):
        return _parse(value, what)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise InvalidInputError(f"{what}: expected a finite number, got {value!r}")
        # The limits of the same number written as text: at most MAX_DIGITS digits, and a decimal exponent (of
        # the leading digit: adjusted()) of at most MAX_EXPONENT, so Decimal("1e-5000") is refused as "1e-5000"
        # is, rather than read into a value whose digits pass Python's 4,300-digit guard on str().
        digits, exponent = len(value.as_tuple().digits), value.adjusted()
        if digits > MAX_DIGITS or abs(exponent) > MAX_EXPONENT:  # Decimal("1e999999999") is finite
            raise InvalidInputError(f"{what}: expected at most {MAX_DIGITS} digits and an exponent of at most "
                                    f"{MAX_EXPONENT} in absolute value, got a Decimal of {digits} digits and "
                                    f"exponent {exponent}")
        return Fraction(value)
    if isinstance(value, numbers.Rational):
        return Fraction(int(value.numerator), int(value.denominator))
    if type(value).__name__ == "fmpq":  # python-flint rationals
        return Fraction(int(value.p), int(value.q))
    raise InvalidInputError(f"{what}: expected a number (int, float, or a string such as \"-7/12\"), "
                            f"got {type(value).__name__} {_describe(value)}")


def _parse(text: str, what: str) -> Fraction:
    stripped = text.strip(_ASCII_SPACE)
    match = _QUOTIENT.fullmatch(stripped)
    if match:
        sign, top, bottom = match.groups()
        numerator = digits_value(top, what, "numerator")
        denominator = digits_value(bottom, what, "denominator")
        if denominator == 0:
            raise InvalidInputError(f"{what}: expected a number, got {_describe(text)} (division by zero)")
        return Fraction(-numerator if sign == "-" else numerator, denominator)
    match = _DECIMAL.fullmatch(stripped)
    if match and (match.group(2) or match.group(3)):
        sign, whole, fraction, exponent_sign, exponent_digits = match.groups()
        fraction = fraction or ""
        mantissa = digits_value(whole + fraction, what, "number")
        exponent = 0
        if exponent_digits is not None:
            significant = exponent_digits.lstrip("0")
            # compare as text first: int() of a 5,000-digit exponent would itself fail
            if len(significant) > len(str(MAX_EXPONENT)) or int(significant or "0") > MAX_EXPONENT:
                raise InvalidInputError(f"{what}: expected an exponent of at most {MAX_EXPONENT} in absolute "
                                        f"value, got {_describe(text)}")
            exponent = -int(significant or "0") if exponent_sign == "-" else int(significant or "0")
        shift = exponent - len(fraction)
        value = Fraction(mantissa * 10 ** shift) if shift >= 0 else Fraction(mantissa, 10 ** -shift)
        return -value if sign == "-" else value
    raise InvalidInputError(f"{what}: expected a number such as \"3\", \"-7/12\", \"0.1\" or \"1e-3\", "
                            f"got {_describe(text)}")


def _plain_quotient(text: str) -> Fraction | None:
    """The value of a short ``"p/q"`` or ``"-p/q"`` in ASCII digits (how network files write their numbers), or
    None for anything else, which :func:`_parse` then reads or rejects with a message."""
    top, slash, bottom = text.partition("/")
    digits = top[1:] if top[:1] == "-" else top
    if not (slash and digits.isascii() and digits.isdigit() and bottom.isascii() and bottom.isdigit()
            and len(digits) <= _CHUNK and len(bottom) <= _CHUNK):
        return None
    denominator = int(bottom)
    return Fraction(int(top), denominator) if denominator else None


def _quotient_row(values: Any) -> tuple[Fraction, ...] | None:
    """The values of a list whose entries are all plain quotients ``"p/q"`` or ``"-p/q"`` (how network files
    write their numbers), or None for any other list, which is then read entry by entry.

    One regular expression checks the whole row and ``int`` reads the digits; a quotient with an odd numerator
    over a power of two (every float, written in lowest terms) is already in lowest terms, so its fraction is
    built without a gcd.
    """
    if type(values) is not list or not values:
        return None
    try:
        joined = ",".join(values)
    except TypeError:  # an entry that is not a string
        return None
    if _QUOTIENT_ROW.fullmatch(joined) is None:
        return None
    parts = joined.replace(",", "/").split("/")
    if len(parts) != 2 * len(values):  # an entry holding a comma: "1/2,3/4" is not one number
        return None
    numerators, denominators = list(map(int, parts[0::2])), list(map(int, parts[1::2]))
    distinct = set(denominators)
    if 0 in distinct:  # "p/0": the entry-by-entry reading says where
        return None
    if all(not d & (d - 1) for d in distinct) and all(n & 1 for n in numerators):
        return tuple(map(_coprime_fraction, numerators, denominators))
    return tuple(map(Fraction, numerators, denominators))


def _coprime_fraction(numerator: int, denominator: int) -> Fraction:
    """``Fraction(numerator, denominator)`` for coprime integers with ``denominator > 0``, without the gcd that
    would only find 1: the two slots every Python 3 ``Fraction`` has, set as ``Fraction._from_coprime_ints`` of
    Python 3.12 sets them."""
    value = object.__new__(Fraction)
    value._numerator = numerator  # type: ignore[attr-defined]
    value._denominator = denominator  # type: ignore[attr-defined]
    return value


def integer(value: Any, *, what: str = "integer") -> int:
    """Return an exact integer from an ``int`` or a string of ASCII digits.

    Parameters
    ----------
    value : int, numpy integer or str
        A string holds an optional sign and at most :data:`~polyregions._support.limits.MAX_DIGITS` ASCII digits
        (``int`` would also take ``"\u0663"``, ``"1_000"`` and Unicode white space; this does not).
    what : str, keyword-only
        What the number is, for the error message (for example ``"--workers"``).

    Returns
    -------
    int

    Raises
    ------
    InvalidInputError
        When ``value`` is a boolean, a float, a string that is not an integer in ASCII digits, or another type.

    Examples
    --------
    >>> from polyregions.exact.rationals import integer
    >>> integer(" -12 "), integer(7)
    (-12, 7)
    >>> integer("\u0663", what="--workers")
    Traceback (most recent call last):
    ...
    polyregions.errors.InvalidInputError: --workers: expected an integer such as "3", got '\u0663'
    """
    if isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(f"{what}: expected an integer, got the boolean {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, str):
        match = _INTEGER.fullmatch(value.strip(_ASCII_SPACE))
        if match:
            number = digits_value(match.group(2), what, "number")
            return -number if match.group(1) == "-" else number
        raise InvalidInputError(f"{what}: expected an integer such as \"3\", got {_describe(value)}")
    raise InvalidInputError(f"{what}: expected an integer, got {type(value).__name__} {_describe(value)}")


def doubles_hold(array: np.ndarray) -> bool:
    """Whether every entry of a float array is a double exactly: always for float16, float32 and float64; for a
    ``np.longdouble`` (float128) array only when each entry survives the round trip through float64, so that
    readers with a fast path for doubles take the exact path for the others (NaN never survives: it is then
    refused entry by entry).

    Examples
    --------
    >>> import numpy as np
    >>> doubles_hold(np.array([0.1], dtype=np.float32)), doubles_hold(np.array([0.5], dtype=np.longdouble))
    (True, True)
    >>> doubles_hold(np.array([1], dtype=np.longdouble) + np.longdouble(2) ** -60)
    False
    """
    if array.dtype.itemsize <= 8:
        return True
    with np.errstate(over="ignore", invalid="ignore"):
        return bool((array.astype(np.float64).astype(array.dtype) == array).all())


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
    row = _quotient_row(values)
    if row is not None:
        return row
    # exact values and plain quotients first: naming every entry for an error message that is never raised is most
    # of the cost
    quick = [v if type(v) is Fraction else _plain_quotient(v) if type(v) is str else None for v in values]
    return tuple(rational(v, what=f"{what}[{i}]") if q is None else q for i, (q, v) in enumerate(zip(quick, values)))


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

    Numbers of any size are written, also beyond Python's limit on ``str(int)`` (4300 digits by default).

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
    >>> len(pr.format_rational(pr.rational(10) ** 5000))
    5001
    """
    if isinstance(value, Fraction):
        if value.denominator == 1:
            return _decimal_text(value.numerator)
        return f"{_decimal_text(value.numerator)}/{_decimal_text(value.denominator)}"
    if isinstance(value, int) and not isinstance(value, bool):
        return _decimal_text(value)
    return str(value)


def _decimal_text(n: int) -> str:
    """``str(n)`` for an integer of any size: halves in decimal, each converted within Python's str limit."""
    if n < 0:
        return "-" + _decimal_text(-n)
    if n.bit_length() <= _CHUNK_BITS:
        return str(n)
    half = int(n.bit_length() * 0.30102999566) // 2  # about half the decimal digits
    high, low = divmod(n, 10 ** half)
    return _decimal_text(high) + _decimal_text(low).rjust(half, "0")
