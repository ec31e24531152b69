"""Arrangements made from an arrangement: its restriction to a flat (in the flat's chart), its essentialization and
its cone (the bodies of :class:`~polyregions.arrangements.arrangement.Arrangement`'s ``restriction_chart``,
``restriction``, ``essentialization`` and ``cone``, which document them). Each result is built by the argument's own
class."""

from __future__ import annotations

from fractions import Fraction
from operator import mul
from typing import TYPE_CHECKING

from polyregions.arrangements._domain import restricted_domain
from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.arrangements.arrangement import Arrangement
    from polyregions.arrangements.poset import Flat
    from polyregions.exact.linalg import Matrix, Vector

__all__ = ["restriction_chart", "restriction", "essentialization", "cone"]


def restriction_chart(flat: Flat) -> tuple[Vector, Matrix]:
    """``(origin, directions)`` of the flat, from its homogeneous columns."""
    point = flat.columns[-1]
    w = point[-1]
    return (tuple(Fraction(v, w) for v in point[:-1]),
            tuple(tuple(Fraction(v, w) for v in c[:-1]) for c in flat.columns[:-1]))


def restriction(arrangement: Arrangement, flat: Flat) -> Arrangement:
    """The distinct non-empty, proper intersections of the hyperplanes with ``flat``, in its chart."""
    columns = flat.columns
    rows = []
    for row in arrangement._rows:
        r = tuple(sum(map(mul, row, c)) for c in columns)
        if any(r[:-1]):
            rows.append(r[:-1] + (-r[-1],))
    domain = None
    if arrangement.domain is not None:
        domain = restricted_domain(arrangement.domain, arrangement.dim, columns)
    return type(arrangement)(rows, dim=flat.dim, domain=domain)


def essentialization(arrangement: Arrangement) -> Arrangement:
    """The arrangement in the coordinates ``y = R x``, ``R`` the reduced row echelon basis of the normals' span."""
    from polyregions.exact.linalg import rref

    if arrangement.domain is not None:
        raise InvalidInputError("essentialization: expected an arrangement without a domain")
    if not arrangement.hyperplanes:
        return type(arrangement)((), dim=0)
    _, pivots = rref([tuple(Fraction(v) for v in n) for n in arrangement.normals], arrangement.dim)
    return type(arrangement)([tuple(row[p] for p in pivots) + (row[-1],) for row in arrangement.hyperplanes],
                             dim=len(pivots))


def cone(arrangement: Arrangement) -> Arrangement:
    """``a . x = c z`` for every hyperplane, and ``z = 0``, in ``R^(dim+1)``."""
    if arrangement.domain is not None:
        raise InvalidInputError("cone: expected an arrangement without a domain")
    rows = [row[:-1] + (-row[-1], 0) for row in arrangement.hyperplanes]
    rows.append(tuple([0] * arrangement.dim) + (1, 0))
    return type(arrangement)(rows, dim=arrangement.dim + 1)
