"""The bounds on what one request to the explorer may ask for, and the exact reading of its numbers.

The explorer answers while a student drags, so every request is small by construction: a body of at most
:attr:`Limits.max_body_bytes`, at most 12 lines, at most 64 neurons, numbers of at most 40 characters. A request
beyond a bound is bad input, answered at once with a message naming the field, the bound and what arrived;
nothing is computed for it.

Examples
--------
>>> LIMITS.max_lines, LIMITS.max_neurons
(12, 64)
>>> read_number("0.25", what="lines[0][0][0]")
Fraction(1, 4)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from fractions import Fraction
from typing import Any, Mapping

from polyregions.errors import InvalidInputError

__all__ = ["Limits", "LIMITS", "read_number", "read_point", "read_window", "check_keys"]


@dataclass(frozen=True)
class Limits:
    """The bounds on one request.

    Attributes
    ----------
    max_body_bytes : int
        The largest request body read (a network of 64 neurons with every weight as ``"-123/100"`` takes about
        25 KB).
    max_lines : int
        Lines of an arrangement.
    max_neurons : int
        Hidden units of a network (the units of every layer but the linear output layer).
    max_outputs : int
        Units of the linear output layer.
    max_number_chars : int
        Characters of one number (``"-7/12"``, ``"0.25"``, an integer's digits): exact numbers stay small, so
        that no request can ask for arithmetic on huge integers.
    """

    max_body_bytes: int = 262_144
    max_lines: int = 12
    max_neurons: int = 64
    max_outputs: int = 4
    max_number_chars: int = 40

    def to_json(self) -> dict[str, int]:
        """The bounds as a JSON object (the page reads them from ``GET /api/config``)."""
        return asdict(self)


#: The bounds the explorer's server applies.
LIMITS = Limits()


def _describe(value: Any) -> str:
    text = json.dumps(value) if isinstance(value, (dict, list, str, int, float, bool, type(None))) else repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def read_number(value: Any, *, what: str, limits: Limits = LIMITS) -> Fraction:
    """The exact value of a JSON number or a string such as ``"0.25"`` or ``"-7/12"``, at most
    ``limits.max_number_chars`` characters long.

    Raises
    ------
    InvalidInputError
        Naming ``what``, for anything else (a boolean, NaN, a list, a number too long to be a coordinate, or
        one such as ``"1e99"`` whose numerator or denominator has more digits than that).
    """
    from polyregions.exact.rationals import rational

    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise InvalidInputError(f"{what}: expected a number such as 0.25, \"0.25\" or \"-7/12\", got "
                                f"{_describe(value)}")
    text = value if isinstance(value, str) else repr(value)
    if len(text) > limits.max_number_chars:
        raise InvalidInputError(f"{what}: expected a number of at most {limits.max_number_chars} characters, got "
                                f"{len(text)} characters ({_describe(text)})")
    number = rational(value, what=what)
    bound = 10 ** limits.max_number_chars  # "1e99" is short but its value is not
    if abs(number.numerator) >= bound or number.denominator >= bound:
        raise InvalidInputError(f"{what}: expected a number whose numerator and denominator have at most "
                                f"{limits.max_number_chars} digits, got {_describe(text)}")
    return number


def read_point(value: Any, *, what: str, limits: Limits = LIMITS) -> tuple[Fraction, Fraction]:
    """A point ``[x, y]`` of the plane, exact."""
    if not isinstance(value, list) or len(value) != 2:
        raise InvalidInputError(f"{what}: expected a point [x, y], got {_describe(value)}")
    return (read_number(value[0], what=f"{what}[0]", limits=limits),
            read_number(value[1], what=f"{what}[1]", limits=limits))


def read_window(value: Any, *, what: str = "window", limits: Limits = LIMITS
                ) -> tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]:
    """A rectangle ``[[x_min, y_min], [x_max, y_max]]`` with ``x_min < x_max`` and ``y_min < y_max``."""
    if not isinstance(value, list) or len(value) != 2:
        raise InvalidInputError(f"{what}: expected [[x_min, y_min], [x_max, y_max]], got {_describe(value)}")
    lower = read_point(value[0], what=f"{what}[0]", limits=limits)
    upper = read_point(value[1], what=f"{what}[1]", limits=limits)
    for k, axis in enumerate("xy"):
        if not lower[k] < upper[k]:
            raise InvalidInputError(f"{what}: expected {axis}_min < {axis}_max, got {axis}_min = {lower[k]} and "
                                    f"{axis}_max = {upper[k]}")
    return lower, upper


def check_keys(request: Any, allowed: tuple[str, ...], *, what: str) -> Mapping[str, Any]:
    """The request itself when it is a JSON object whose keys are all in ``allowed``."""
    if not isinstance(request, dict):
        raise InvalidInputError(f"{what}: expected a JSON object with keys among {', '.join(allowed)}, got "
                                f"{_describe(request)}")
    unknown = sorted(set(request) - set(allowed))
    if unknown:
        raise InvalidInputError(f"{what}: expected keys among {', '.join(allowed)}, got unknown key "
                                f"{_describe(unknown[0])}")
    return request
