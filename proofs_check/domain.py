"""The domain of an export in its own coordinates ``t``: the input point is ``origin + directions^T t``.

Boxes, polytopes and the whole space use the input coordinates (identity directions); a segment has the one
coordinate ``t`` in ``[0, 1]``; a slice the coordinates of its directions, between ``lower`` and ``upper``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Sequence

from . import geometry as geo
from .errors import InputError
from .reading import check_keys, describe, get_key, read_matrix, read_vector

__all__ = ["Domain", "DOMAIN_KEYS", "read_domain"]

#: The keys of each type of domain object.
DOMAIN_KEYS = {"box": ("type", "lower", "upper"), "polytope": ("type", "A", "b"), "space": ("type",),
               "segment": ("type", "start", "end"), "slice": ("type", "origin", "directions", "lower", "upper")}
_ZERO = Fraction(0)


@dataclass(frozen=True)
class Domain:
    """A domain in its coordinates ``t``: the points ``origin + directions^T t`` with ``A t <= b``."""

    kind: str
    origin: tuple[Fraction, ...]
    directions: tuple[tuple[Fraction, ...], ...]   # k rows of length input_dim
    A: tuple[tuple[Fraction, ...], ...]            # the domain in t coordinates: A t <= b
    b: tuple[Fraction, ...]

    @property
    def dim(self) -> int:
        return len(self.directions)

    @property
    def bounded_by_construction(self) -> bool:
        return self.kind in ("box", "segment", "slice")

    def to_input(self, t: Sequence[Fraction]) -> tuple[Fraction, ...]:
        return tuple(o + sum((ti * d[q] for ti, d in zip(t, self.directions)), _ZERO)
                     for q, o in enumerate(self.origin))


def _identity(n: int) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))


def _interval_rows(lower, upper, where):
    A, b = [], []
    for q, (lo, hi) in enumerate(zip(lower, upper)):
        if not lo < hi:
            raise InputError(where, f"expected lower < upper in every coordinate, got {lo} and {hi} at {q}")
        unit = tuple(Fraction(int(i == q)) for i in range(len(lower)))
        A += [tuple(-v for v in unit), unit]
        b += [-lo, hi]
    return tuple(A), tuple(b)


def _rank(rows) -> int:
    return geo.affine_dimension([tuple(_ZERO for _ in rows[0])] + list(rows)) if rows else 0


def read_domain(obj: Any, input_dim: int, where: str) -> Domain:
    """The domain object of an export for a network on ``R^input_dim`` (the keys of its type, nothing else)."""
    kind = get_key(obj, "type", where)
    if isinstance(kind, str) and kind in DOMAIN_KEYS:
        check_keys(obj, DOMAIN_KEYS[kind], where)
    n = input_dim
    zero = tuple(_ZERO for _ in range(n))
    if kind == "box":
        lower = read_vector(get_key(obj, "lower", where), f"{where}.lower", n)
        upper = read_vector(get_key(obj, "upper", where), f"{where}.upper", n)
        return Domain(kind, zero, _identity(n), *_interval_rows(lower, upper, where))
    if kind == "polytope":
        A = read_matrix(get_key(obj, "A", where), f"{where}.A", None, n)
        b = read_vector(get_key(obj, "b", where), f"{where}.b", len(A))
        return Domain(kind, zero, _identity(n), A, b)
    if kind == "space":
        return Domain(kind, zero, _identity(n), (), ())
    if kind == "segment":
        start = read_vector(get_key(obj, "start", where), f"{where}.start", n)
        end = read_vector(get_key(obj, "end", where), f"{where}.end", n)
        if start == end:
            raise InputError(f"{where}.end", "expected an end point different from start")
        direction = tuple(e - s for s, e in zip(start, end))
        return Domain(kind, start, (direction,), ((Fraction(-1),), (Fraction(1),)), (_ZERO, Fraction(1)))
    if kind == "slice":
        origin = read_vector(get_key(obj, "origin", where), f"{where}.origin", n)
        directions = read_matrix(get_key(obj, "directions", where), f"{where}.directions", None, n)
        if not directions or _rank(directions) < len(directions):
            raise InputError(f"{where}.directions", "expected one or more linearly independent directions")
        k = len(directions)
        lower = read_vector(get_key(obj, "lower", where), f"{where}.lower", k)
        upper = read_vector(get_key(obj, "upper", where), f"{where}.upper", k)
        return Domain(kind, origin, directions, *_interval_rows(lower, upper, where))
    raise InputError(f"{where}.type", f"expected box, polytope, space, segment or slice, got {describe(kind)}")
