"""The domain file: a domain as a JSON object, both ways (the format is in ``docs/formats.rst``).

Every number is read exactly and written as an exact string; every error names the file (or object) and the
field, for example ``slice.json: directions[1]: expected 3 numbers, got 2``.
"""

from __future__ import annotations

import os
from typing import Any

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, format_rational
from polyregions.regions.domains import DOMAIN_TYPES, Domain, box, polytope_domain, segment, slice_domain, space

__all__ = ["domain_from_json", "domain_to_json", "load_domain", "save_domain"]


def _field(obj: dict, key: str, what: str) -> Any:
    if key not in obj:
        raise InvalidInputError(f"{what}: {key}: expected a value, got nothing (missing key)")
    value = obj[key]
    if isinstance(value, (str, bytes, dict)) or not isinstance(value, (list, tuple)):
        raise InvalidInputError(f"{what}: {key}: expected a list, got {_describe(value)}")
    return value


def domain_from_json(obj: Any, *, input_dim: int, what: str = "domain") -> Domain:
    """Read a domain-file object for a network on ``R^input_dim``; errors start with ``what`` and name the field.

    Examples
    --------
    >>> domain_from_json({"type": "box", "lower": [0, "-1/2"], "upper": [1, 1]}, input_dim=2).volume()
    Fraction(3, 2)
    """
    n = _input_dim(input_dim)
    if not isinstance(obj, dict):
        raise InvalidInputError(f"{what}: expected a JSON object with \"type\", got {type(obj).__name__}")
    kind = obj.get("type")
    if kind == "box":
        lower = _checked(_field(obj, "lower", what), n, f"{what}: lower")
        upper = _checked(_field(obj, "upper", what), n, f"{what}: upper")
        return box(lower, upper, what=what)
    if kind == "polytope":
        A = _field(obj, "A", what)
        b = _field(obj, "b", what)
        return polytope_domain(A, b, dim=n, what=what)
    if kind == "space":
        return space(n, what=what)
    if kind == "segment":
        start = _checked(_field(obj, "start", what), n, f"{what}: start")
        end = _checked(_field(obj, "end", what), n, f"{what}: end")
        return segment(start, end, what=what)
    if kind == "slice":
        origin = _checked(_field(obj, "origin", what), n, f"{what}: origin")
        directions = _field(obj, "directions", what)
        lower, upper = _field(obj, "lower", what), _field(obj, "upper", what)
        if len(lower) != len(directions) or len(upper) != len(directions):
            bad, values = ("lower", lower) if len(lower) != len(directions) else ("upper", upper)
            raise InvalidInputError(f"{what}: {bad}: expected {len(directions)} numbers (one per direction), "
                                    f"got {len(values)}")
        return slice_domain(origin, directions, lower, upper, what=what)
    expected = ", ".join(f'"{t}"' for t in DOMAIN_TYPES)
    got = "nothing (missing key)" if "type" not in obj else _describe(kind)
    raise InvalidInputError(f"{what}: type: expected one of {expected}, got {got}")


def _input_dim(input_dim: Any) -> int:
    if isinstance(input_dim, bool) or not isinstance(input_dim, int) or input_dim < 1:
        raise InvalidInputError(f"input_dim: expected a positive integer (the network's input dimension), got "
                                f"{_describe(input_dim)}")
    return input_dim


def _checked(values: list, n: int, what: str) -> list:
    if len(values) != n:
        raise InvalidInputError(f"{what}: expected {n} numbers (the input dimension), got {len(values)}")
    return values


def domain_to_json(domain: Domain) -> dict[str, Any]:
    """The domain-file object of a domain, every number an exact string.

    Examples
    --------
    >>> domain_to_json(box([0], ["1/3"]))
    {'type': 'box', 'lower': ['0'], 'upper': ['1/3']}
    """
    def numbers(values):
        return [format_rational(v) for v in values]

    if domain.kind == "box":
        return {"type": "box", "lower": numbers(domain.lower), "upper": numbers(domain.upper)}
    if domain.kind == "polytope":
        return {"type": "polytope", "A": [numbers(row) for row in domain.region.A], "b": numbers(domain.region.b)}
    if domain.kind == "space":
        return {"type": "space"}
    if domain.kind == "segment":
        end = tuple(o + d for o, d in zip(domain.origin, domain.directions[0]))
        return {"type": "segment", "start": numbers(domain.origin), "end": numbers(end)}
    return {"type": "slice", "origin": numbers(domain.origin),
            "directions": [numbers(row) for row in domain.directions],
            "lower": numbers(domain.lower), "upper": numbers(domain.upper)}


def load_domain(path: str | os.PathLike, *, input_dim: int) -> Domain:
    """Read a domain file for a network on ``R^input_dim``.

    The file format is described in :doc:`/formats` (a JSON object with ``"type"``, one of
    :data:`DOMAIN_TYPES`, and the numbers of that kind of domain as exact strings or numbers).

    Parameters
    ----------
    path : str or path-like
        The domain file.
    input_dim : int, keyword-only
        The input dimension of the network the domain is for: boxes, segments and slices are checked against
        it, and ``{"type": "space"}`` becomes ``R^input_dim``.

    Returns
    -------
    Domain

    Raises
    ------
    InvalidInputError
        When the file cannot be read, is not JSON, or its domain is malformed, of another dimension, empty or
        lower-dimensional; the message names the file and the field.

    Examples
    --------
    >>> import os, tempfile
    >>> import polyregions as pr
    >>> path = os.path.join(tempfile.mkdtemp(), "strip.json")
    >>> with open(path, "w") as file:
    ...     _ = file.write('{"type": "box", "lower": [0, "-1/2"], "upper": [1, "1/2"]}')
    >>> pr.load_domain(path, input_dim=2).volume()
    Fraction(1, 1)
    >>> pr.load_domain(path, input_dim=2) == pr.box([0, "-1/2"], [1, "1/2"])
    True
    """
    from polyregions._support.input_files import read_json_file

    _input_dim(input_dim)
    document = read_json_file(path, what="load_domain: path")  # a regular file of bounded size and nesting
    return domain_from_json(document, input_dim=input_dim, what=os.fspath(path))


def save_domain(domain: Domain, path: str | os.PathLike) -> None:
    """Write a domain file atomically (a temporary file renamed over ``path``), every number an exact string.

    Parameters
    ----------
    domain : Domain
    path : str or path-like
        The file to write; :func:`load_domain` reads it back to an equal domain.

    Raises
    ------
    OutputError
        When the file cannot be written (an :class:`OSError`); what stood at ``path`` is unchanged.

    Examples
    --------
    >>> import os, tempfile
    >>> import polyregions as pr
    >>> path = os.path.join(tempfile.mkdtemp(), "segment.json")
    >>> pr.save_domain(pr.segment([0, 0], ["1/3", 1]), path)
    >>> print(open(path).read().strip())
    {"type": "segment", "start": ["0", "0"], "end": ["1/3", "1"]}
    >>> pr.load_domain(path, input_dim=2) == pr.segment([0, 0], ["1/3", 1])
    True
    """
    import json

    from polyregions._support.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(domain_to_json(domain)) + "\n")

