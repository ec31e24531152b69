"""The arrangement file format ``polyregions.arrangement/1``.

``{"format": "polyregions.arrangement/1", "dimension": d, "hyperplanes": [[a_1, ..., a_d, c], ...]}``: each row
is the hyperplane ``a . x = c``. Numbers follow the project's exact rules (JSON integers, floats at their exact
binary value, strings such as ``"-7/12"`` or ``"0.1"``). ``dimension`` may be left out when there is at least
one row. Files are read within the limits of :mod:`polyregions._support.limits` (a regular file of at most 1 GiB,
nesting at most 100 deep, integers of at most 10,000 digits). Errors name the file and the field.
"""

from __future__ import annotations

import json
import os
from typing import Any

from polyregions.arrangements.arrangement import Arrangement, canonical_hyperplanes
from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe

__all__ = ["FORMAT", "read_arrangement", "write_arrangement", "arrangement_from_json", "arrangement_to_json"]

FORMAT = "polyregions.arrangement/1"


def arrangement_from_json(data: Any, *, source: str = "arrangement") -> Arrangement:
    """An :class:`Arrangement` from the decoded JSON object; errors start with ``source``.

    Examples
    --------
    >>> arrangement_from_json({"format": FORMAT, "dimension": 1, "hyperplanes": [[1, 0], [-2, 0]]}).hyperplanes
    ((1, 0),)
    """
    if not isinstance(data, dict):
        raise InvalidInputError(f"{source}: expected a JSON object with keys format, dimension, hyperplanes, "
                                f"got a JSON {type(data).__name__}")
    if data.get("format") != FORMAT:
        got = "nothing" if "format" not in data else json.dumps(data["format"])
        raise InvalidInputError(f"{source}: format: expected \"{FORMAT}\", got {got}")
    dim = data.get("dimension")
    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int) or dim < 0):
        raise InvalidInputError(f"{source}: dimension: expected a non-negative integer, got {_describe(dim)}")
    if "hyperplanes" not in data:
        raise InvalidInputError(f"{source}: hyperplanes: expected a list of rows [a_1, ..., a_d, c], got nothing")
    rows = data["hyperplanes"]
    if not isinstance(rows, list):
        raise InvalidInputError(f"{source}: hyperplanes: expected a list of rows [a_1, ..., a_d, c], got "
                                f"{_describe(rows)}")
    if dim is None and not rows:
        raise InvalidInputError(f"{source}: dimension: expected the dimension when there are no hyperplanes, "
                                f"got nothing")
    try:
        dim, canonical = canonical_hyperplanes(rows, dim=dim)
    except InvalidInputError as error:
        raise InvalidInputError(f"{source}: {error}") from None
    return Arrangement(canonical, dim=dim)


def read_arrangement(path: str | os.PathLike) -> Arrangement:
    """Read an arrangement file.

    Raises
    ------
    InvalidInputError
        ``"FILE: field: ..."`` for an unreadable file, bad JSON, a wrong format, shape or number.
    """
    from polyregions._support.input_files import input_name, parse_json, read_input_text

    name = input_name(path, what="read_arrangement: path")
    try:  # a regular file of at most 1 GiB, UTF-8
        text = read_input_text(name)
    except InvalidInputError as error:
        raise InvalidInputError(f"{name}: file: {str(error).removeprefix(name + ': ')}") from None
    try:  # nesting and digits bounded; NaN and Infinity become floats that the number reader rejects by field
        data = parse_json(text, what=name)
    except InvalidInputError as error:
        raise InvalidInputError(f"{name}: JSON: {str(error).removeprefix(name + ': ')}") from None
    return arrangement_from_json(data, source=name)


def arrangement_to_json(arrangement: Arrangement) -> dict[str, Any]:
    """The JSON object of an arrangement (canonical integer rows; the domain is not part of the format).

    Examples
    --------
    >>> arrangement_to_json(Arrangement([[2, 0, 1]]))
    {'format': 'polyregions.arrangement/1', 'dimension': 2, 'hyperplanes': [[2, 0, 1]]}
    """
    return {"format": FORMAT, "dimension": arrangement.dim, "hyperplanes": [list(r) for r in arrangement.hyperplanes]}


def write_arrangement(arrangement: Arrangement, path: str | os.PathLike) -> None:
    """Write an arrangement file (read back unchanged by :func:`read_arrangement`)."""
    with open(path, "w", encoding="utf-8") as handle:
        json.dump(arrangement_to_json(arrangement), handle)
        handle.write("\n")
