"""Exact rationals as integers: common denominators, primitive integer rows, signs.

Every module that turns a row of exact rationals into integers (to compare hyperplanes, to run integer
arithmetic, to hand smaller numbers to a linear program) uses these, so that a row has one integer form
everywhere: scaled by a positive number only, so a half-space ``a . x <= c`` keeps its side.

Examples
--------
>>> from fractions import Fraction
>>> lcm([Fraction(1, 4), Fraction(5, 6), 3])
12
>>> primitive([Fraction(1, 2), Fraction(-3, 4), 0])
(2, -3, 0)
>>> sign(-7), sign(0)
(-1, 0)
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any, Iterable

__all__ = ["lcm", "primitive", "sign"]


def _ratio(value: Any) -> tuple[int, int]:
    """``(numerator, denominator)`` of an exact rational: an int, a Fraction, FLINT's ``fmpq`` or ``fmpz``, or
    anything :class:`~fractions.Fraction` reads exactly (a float, a decimal string such as ``"1/3"``)."""
    numerator = getattr(value, "numerator", None)
    if numerator is None:
        value = Fraction(value)
        return value.numerator, value.denominator
    return int(numerator), int(value.denominator)


def lcm(values: Iterable[Any]) -> int:
    """The least common multiple of the denominators of exact rationals (1 for none): the smallest positive
    integer that makes every one of them an integer.

    Parameters
    ----------
    values : iterable of exact rationals
        Ints, Fractions, FLINT numbers, or anything :class:`~fractions.Fraction` reads exactly.

    Returns
    -------
    int

    Examples
    --------
    >>> from fractions import Fraction
    >>> lcm([Fraction(1, 4), Fraction(5, 6)]), lcm([2, 3]), lcm([])
    (12, 1, 1)
    """
    return math.lcm(*{_ratio(v)[1] for v in values})


def primitive(values: Iterable[Any]) -> tuple[int, ...]:
    """The primitive integer vector on the ray of a rational vector: scaled by a positive rational to coprime
    integers (so the row ``a . x <= c`` of ``(a, c)`` stays the same half-space). A zero vector stays zero.

    Parameters
    ----------
    values : iterable of exact rationals
        Ints, Fractions, FLINT numbers, or anything :class:`~fractions.Fraction` reads exactly.

    Returns
    -------
    tuple of int

    Examples
    --------
    >>> from fractions import Fraction
    >>> primitive([Fraction(1, 2), Fraction(-3, 4), 0])
    (2, -3, 0)
    >>> primitive([6, -4]), primitive([0, 0])
    ((3, -2), (0, 0))
    """
    pairs = [_ratio(v) for v in values]
    scale = math.lcm(*(q for _, q in pairs))
    ints = [p * (scale // q) for p, q in pairs]
    g = math.gcd(*ints)
    return tuple(v // g for v in ints) if g > 1 else tuple(ints)


def sign(value: Any) -> int:
    """``-1``, ``0`` or ``1``: the sign of an exact number.

    Examples
    --------
    >>> sign(-3), sign(0), sign(10 ** 100)
    (-1, 0, 1)
    """
    return (value > 0) - (value < 0)
