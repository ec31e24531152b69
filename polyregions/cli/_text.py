"""Numbers in the command line's text output: exact first, a float beside a long one for the reader (JSON output
keeps the exact strings alone)."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from polyregions.exact.rationals import format_rational

__all__ = ["with_float", "LONG_EXACT"]

#: Exact numbers longer than this many characters get a float beside them.
LONG_EXACT = 16


def with_float(value: Any, *, limit: int = LONG_EXACT) -> str:
    """An exact integer or rational as text, with ``(~ 1.23457e+18)`` beside it when the text is longer than
    ``limit`` characters: the exact value for the record, the float for the reader. JSON output keeps the exact
    strings alone.

    Examples
    --------
    >>> from fractions import Fraction
    >>> with_float(120), with_float(Fraction(1, 3))
    ('120', '1/3')
    >>> with_float(2432902008176640000)
    '2432902008176640000 (~ 2.4329e+18)'
    >>> with_float(Fraction(10**20 + 1, 3 * 10**19))
    '100000000000000000001/30000000000000000000 (~ 3.33333)'
    """
    exact = Fraction(value)
    text = format_rational(exact)
    if len(text) <= limit:
        return text
    return f"{text} (~ {float(exact):.6g})"
