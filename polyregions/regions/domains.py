"""Domains: the part of input space where regions are counted.

Every domain is an affine image ``x = origin + sum_i t_i directions[i]`` of a full-dimensional polytope ``P`` in
``R^k`` (``k`` the domain's dimension). Engines work in the *domain coordinates* ``t``, on
``network.restrict(domain.origin, domain.directions)``. For a box, a polytope or the whole space the directions
are the identity and ``t`` is ``x``; a segment has one coordinate ``t`` in ``[0, 1]``; a slice has one coordinate
per direction.

Empty and lower-dimensional domains are rejected with :class:`~polyregions.errors.InvalidInputError`, decided
exactly (for a polytope, by an exact strict interior point or an exact certificate that none exists).

Examples
--------
>>> d = box([0, 0], [1, 2])
>>> d.dim, d.volume()
(2, Fraction(2, 1))
>>> segment([0, 0], [2, 2]).to_input([Fraction(1, 2)])
(Fraction(1, 1), Fraction(1, 1))
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, get_args

from polyregions._support.limits import MAX_DOMAIN_DIMENSION
from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector, dot, rank, solve
from polyregions.exact.rationals import _describe, format_rational, rational, rational_matrix, rational_vector

if TYPE_CHECKING:
    from polyregions.polyhedra.polytope import Polytope

__all__ = [
    "Domain",
    "DomainKind",
    "DOMAIN_TYPES",
    "box",
    "polytope_domain",
    "space",
    "segment",
    "slice_domain",
    "plane_through",
]

#: The kinds of domain: :attr:`Domain.kind`, and ``"type"`` in a domain file.
DomainKind = Literal["box", "polytope", "space", "segment", "slice"]
#: The values of :attr:`Domain.kind` (and of ``"type"`` in a domain file).
DOMAIN_TYPES: tuple[DomainKind, ...] = get_args(DomainKind)

_ZERO = Fraction(0)
_ONE = Fraction(1)


def _identity(n: int, what: str) -> Matrix:
    if n > MAX_DOMAIN_DIMENSION:  # n * n entries: refuse before building them
        raise InvalidInputError(f"{what}: expected at most {MAX_DOMAIN_DIMENSION} dimensions (a larger box, polytope "
                                f"or space is out of reach of exact enumeration; use a slice or a segment), got "
                                f"{n if n < 10 ** 15 else 'more than 10^15'}")
    return tuple(tuple(_ONE if i == j else _ZERO for j in range(n)) for i in range(n))


@dataclass(frozen=True)
class Domain:
    """A full-dimensional polytope ``region`` in domain coordinates ``t`` and its affine map into input space.

    Build one with :func:`box`, :func:`polytope_domain`, :func:`space`, :func:`segment`, :func:`slice_domain`,
    :func:`plane_through` or :func:`load_domain`: they check that the domain is non-empty and full-dimensional.

    Attributes
    ----------
    kind : {"box", "polytope", "space", "segment", "slice"}
        One of :data:`DOMAIN_TYPES`.
    origin : tuple of Fraction
        The input point at ``t = 0``.
    directions : tuple of tuple of Fraction
        ``k`` linearly independent rows of length ``input_dim``; ``x = origin + sum_i t_i directions[i]``.
    region : Polytope
        The polytope ``P`` in ``R^k`` (full-dimensional).
    lower, upper : tuple of Fraction or None
        The bounds of ``P`` when it is a box (boxes, segments, slices), else None.

    Examples
    --------
    >>> import polyregions as pr
    >>> d = pr.slice_domain([0, 0, 1], [[1, 0, 0], [0, 1, 0]], [-1, -1], [1, 1])
    >>> d.kind, d.dim, d.input_dim, d.volume()
    ('slice', 2, 3, Fraction(4, 1))
    >>> d.to_input([1, 0])
    (Fraction(1, 1), Fraction(0, 1), Fraction(1, 1))
    """

    kind: DomainKind
    origin: Vector
    directions: Matrix
    region: "Polytope"
    lower: Vector | None = None
    upper: Vector | None = None

    @property
    def dim(self) -> int:
        """``k``, the dimension of the domain (the number of coordinates ``t``)."""
        return len(self.directions)

    @property
    def input_dim(self) -> int:
        """The dimension of the input space."""
        return len(self.origin)

    def to_input(self, t: Any) -> Vector:
        """The input point ``origin + sum_i t_i directions[i]``."""
        t = rational_vector(t, what="t", length=self.dim)
        return tuple(o + sum((ti * d[j] for ti, d in zip(t, self.directions)), _ZERO)
                     for j, o in enumerate(self.origin))

    def is_bounded(self) -> bool:
        """Whether the domain is bounded."""
        if self.lower is not None:
            return True
        if self.kind == "space":
            return False
        return self.region.is_bounded()

    def volume(self) -> Fraction | None:
        """The exact ``k``-volume of ``P`` in domain coordinates ``t``, or None when it is unbounded.

        For a box this is the volume in input space; for a segment it is 1 and for a slice the volume of its
        box of coordinates (the input-space volume is that times ``sqrt(det(D D^T))``).
        """
        if self.lower is not None and self.upper is not None:
            return math.prod((hi - lo for lo, hi in zip(self.lower, self.upper)), start=_ONE)
        if not self.is_bounded():
            return None
        return Fraction(self.region.volume())


def _bounds(lower: Any, upper: Any, n: int | None, what: str, lower_name: str = "lower",
            upper_name: str = "upper") -> tuple[Vector, Vector]:
    lower = rational_vector(lower, what=f"{what}: {lower_name}", length=n)
    upper = rational_vector(upper, what=f"{what}: {upper_name}", length=len(lower))
    if not lower:
        raise InvalidInputError(f"{what}: {lower_name}: expected at least one coordinate, got none")
    for i, (lo, hi) in enumerate(zip(lower, upper)):
        if not lo < hi:
            shape = "lower-dimensional" if lo == hi else "empty"
            raise InvalidInputError(f"{what}: {upper_name}[{i}]: expected a value above {lower_name}[{i}] = "
                                    f"{format_rational(lo)}, got {format_rational(hi)} (the domain would be {shape})")
    return lower, upper


def box(lower: Any, upper: Any, *, what: str = "box") -> Domain:
    """The box ``lower <= x <= upper`` (every ``lower[i] < upper[i]``).

    Parameters
    ----------
    lower, upper : sequence of numbers
        The corners, of the same length ``n >= 1``; numbers are read exactly (ints, fractions, floats, strings
        such as ``"1/3"``).
    what : str, keyword-only
        What error messages call the box.

    Returns
    -------
    Domain
        Of kind ``"box"`` in ``R^n``, whose coordinates ``t`` are the input ``x``.

    Raises
    ------
    InvalidInputError
        When a number cannot be read exactly, the lengths differ or are zero, some ``lower[i] >= upper[i]``
        (the box would be empty or lower-dimensional), or the box has more than
        :data:`~polyregions._support.limits.MAX_DOMAIN_DIMENSION` (4096) dimensions.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.box([-1], [1]).volume()
    Fraction(2, 1)
    >>> pr.box([0, 0], ["1/2", 3]).upper
    (Fraction(1, 2), Fraction(3, 1))
    """
    from polyregions.polyhedra.polytope import Polytope

    lower, upper = _bounds(lower, upper, None, what)
    n = len(lower)
    identity = _identity(n, what)
    return Domain("box", (_ZERO,) * n, identity, Polytope.box(lower, upper), lower, upper)


def polytope_domain(A: Any, b: Any, *, dim: int | None = None, what: str = "polytope") -> Domain:
    """The polytope ``A x <= b`` (full-dimensional; it may be unbounded).

    Parameters
    ----------
    A : sequence of sequences of numbers
        The rows of the inequalities, each of length ``dim`` (read exactly).
    b : sequence of numbers
        One right-hand side per row.
    dim : int, keyword-only
        The dimension, needed only when ``A`` has no rows.
    what : str, keyword-only
        What error messages call the polytope.

    Returns
    -------
    Domain
        Of kind ``"polytope"``, whose coordinates ``t`` are the input ``x``. Rows ``0 . x <= b`` with
        ``b >= 0`` hold everywhere and are dropped.

    Raises
    ------
    InvalidInputError
        When a number cannot be read exactly, the shapes disagree, the dimension is above
        :data:`~polyregions._support.limits.MAX_DOMAIN_DIMENSION` (4096), or the set is empty or lower-dimensional:
        decided exactly (an exact point satisfying every row strictly, or an exact certificate that there is
        none).

    Examples
    --------
    >>> import polyregions as pr
    >>> triangle = pr.polytope_domain([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])
    >>> triangle.volume(), triangle.is_bounded()
    (Fraction(1, 2), True)
    >>> pr.polytope_domain([[-1, 0], [0, -1]], [0, 0]).volume() is None  # a quadrant: unbounded
    True
    """
    from polyregions.exact.lp import feasible_point, strict_point
    from polyregions.polyhedra.polytope import Polytope

    if dim is not None and (isinstance(dim, bool) or not isinstance(dim, int) or dim < 1):
        raise InvalidInputError(f"{what}: dim: expected a positive integer, got {_describe(dim)}")
    A = rational_matrix(A, what=f"{what}: A", shape=(None, dim))
    if A:
        dim = len(A[0])
    if dim is None or isinstance(dim, bool) or not isinstance(dim, int) or dim < 1:
        raise InvalidInputError(f"{what}: A: expected at least one row or the dimension, got neither"
                                if dim is None else f"{what}: dim: expected a positive integer, got {_describe(dim)}")
    identity = _identity(dim, what)
    b = rational_vector(b, what=f"{what}: b", length=len(A))
    rows, rhs = [], []
    for i, (a, bi) in enumerate(zip(A, b)):
        if any(a):
            rows.append(a)
            rhs.append(bi)
        elif bi < 0:
            raise InvalidInputError(f"{what}: A[{i}]: expected a satisfiable inequality, got 0 <= "
                                    f"{format_rational(bi)} (the domain would be empty)")
    if strict_point(rows, rhs, dim=dim) is None:
        got = ("an empty one" if feasible_point(rows, rhs, dim=dim) is None
               else "a lower-dimensional one (its inequalities force an equation)")
        raise InvalidInputError(f"{what}: A, b: expected a full-dimensional set A x <= b, got {got}")
    region = Polytope.from_inequalities(tuple(rows), tuple(rhs), dim=dim)
    return Domain("polytope", (_ZERO,) * dim, identity, region)


def space(n: int, *, what: str = "space") -> Domain:
    """All of ``R^n``.

    Parameters
    ----------
    n : int
        The dimension, at least 1.
    what : str, keyword-only
        What error messages call the space.

    Returns
    -------
    Domain
        Of kind ``"space"`` (unbounded), whose coordinates ``t`` are the input ``x``.

    Raises
    ------
    InvalidInputError
        When ``n`` is not a positive integer, or above :data:`~polyregions._support.limits.MAX_DOMAIN_DIMENSION` (4096).

    Examples
    --------
    >>> import polyregions as pr
    >>> d = pr.space(3)
    >>> d.dim, d.is_bounded(), d.volume() is None
    (3, False, True)
    """
    from polyregions.polyhedra.polytope import Polytope

    if not isinstance(n, int) or isinstance(n, bool) or n < 1:
        raise InvalidInputError(f"{what}: expected a positive dimension, got {_describe(n)}")
    identity = _identity(n, what)
    return Domain("space", (_ZERO,) * n, identity, Polytope.space(n))


def segment(start: Any, end: Any, *, what: str = "segment") -> Domain:
    """The segment from ``start`` (``t = 0``) to ``end`` (``t = 1``): a 1-D domain.

    Parameters
    ----------
    start, end : sequence of numbers
        Two different input points of the same length (read exactly).
    what : str, keyword-only
        What error messages call the segment.

    Returns
    -------
    Domain
        Of kind ``"segment"``: one coordinate ``t`` in ``[0, 1]``, ``x = start + t (end - start)``.

    Raises
    ------
    InvalidInputError
        When a number cannot be read exactly, the lengths differ or are zero, or ``start == end``.

    Examples
    --------
    >>> import polyregions as pr
    >>> d = pr.segment([0, 0], [3, 4])
    >>> d.directions, d.dim, d.input_dim
    (((Fraction(3, 1), Fraction(4, 1)),), 1, 2)
    >>> d.to_input(["1/2"])
    (Fraction(3, 2), Fraction(2, 1))
    """
    from polyregions.polyhedra.polytope import Polytope

    start = rational_vector(start, what=f"{what}: start")
    if not start:
        raise InvalidInputError(f"{what}: start: expected at least one coordinate, got none")
    end = rational_vector(end, what=f"{what}: end", length=len(start))
    if start == end:
        raise InvalidInputError(f"{what}: end: expected a point other than start, got the same point "
                                f"(the segment would be a single point)")
    direction = tuple(e - s for s, e in zip(start, end))
    return Domain("segment", start, (direction,), Polytope.box((_ZERO,), (_ONE,)), (_ZERO,), (_ONE,))


def slice_domain(origin: Any, directions: Any, lower: Any, upper: Any, *, what: str = "slice") -> Domain:
    """The points ``origin + sum_i t_i directions[i]`` with ``lower <= t <= upper``.

    Parameters
    ----------
    origin : sequence of numbers
        The input point at ``t = 0`` (read exactly).
    directions : sequence of sequences of numbers
        ``k >= 1`` linearly independent rows, each as long as ``origin``, so that the slice is ``k``-dimensional.
    lower, upper : sequence of numbers
        ``k`` bounds each, every ``lower[i] < upper[i]``.
    what : str, keyword-only
        What error messages call the slice.

    Returns
    -------
    Domain
        Of kind ``"slice"``, with coordinates ``t`` in the box ``[lower, upper]``.

    Raises
    ------
    InvalidInputError
        When a number cannot be read exactly, the lengths disagree, the directions are dependent, or some
        ``lower[i] >= upper[i]``.

    Examples
    --------
    >>> import polyregions as pr
    >>> d = pr.slice_domain([0, 0, 0], [[1, 1, 0]], [0], [2])
    >>> d.dim, d.volume(), d.to_input([2])
    (1, Fraction(2, 1), (Fraction(2, 1), Fraction(2, 1), Fraction(0, 1)))
    """
    from polyregions.polyhedra.polytope import Polytope

    origin = rational_vector(origin, what=f"{what}: origin")
    if not origin:
        raise InvalidInputError(f"{what}: origin: expected at least one coordinate, got none")
    directions = rational_matrix(directions, what=f"{what}: directions", shape=(None, len(origin)))
    if not directions:
        raise InvalidInputError(f"{what}: directions: expected at least one direction, got none")
    r = rank(directions)
    if r < len(directions):
        raise InvalidInputError(f"{what}: directions: expected linearly independent directions, got "
                                f"{len(directions)} spanning only {r} dimension{'s' if r != 1 else ''} "
                                f"(the slice would be lower-dimensional)")
    lower, upper = _bounds(lower, upper, len(directions), what)
    return Domain("slice", origin, directions, Polytope.box(lower, upper), lower, upper)


def plane_through(x1: Any, x2: Any, x3: Any, *, half_width: Any = None, what: str = "plane_through") -> Domain:
    """The square in the plane through three inputs, centred at their circumcentre (a 2-D slice).

    The slice of Hanin & Rolnick's Figure 8 (after Novak et al. 2018). Coordinates are in units of the
    circumradius ``R``: ``origin`` is the circumcentre (exact), ``directions[0] = x1 - origin`` (length ``R``)
    and ``directions[1]`` is orthogonal to it (exactly) with length ``R`` up to a relative error below
    ``2**-40`` (an exact length would need a square root). The square is ``[-h, h]^2`` in these coordinates,
    ``h = half_width`` (default 3/2, so the three points, at distance ``R`` from the centre, lie inside).

    Parameters
    ----------
    x1, x2, x3 : sequence of numbers
        Three input points in ``R^n``, ``n >= 2``, not on one line (read exactly).
    half_width : number, keyword-only
        ``h > 0``, in units of the circumradius (default 3/2).
    what : str, keyword-only
        What error messages call the plane.

    Returns
    -------
    Domain
        Of kind ``"slice"``: two coordinates in ``[-h, h]^2``, ``t = (1, 0)`` at ``x1``.

    Raises
    ------
    InvalidInputError
        When a number cannot be read exactly, the points have fewer than 2 or different numbers of
        coordinates, they are collinear, or ``half_width <= 0``.

    Examples
    --------
    >>> import polyregions as pr
    >>> d = pr.plane_through([1, 0], [0, 1], [-1, 0])
    >>> d.origin, d.to_input([1, 0])
    ((Fraction(0, 1), Fraction(0, 1)), (Fraction(1, 1), Fraction(0, 1)))
    >>> d.kind, d.lower, d.upper
    ('slice', (Fraction(-3, 2), Fraction(-3, 2)), (Fraction(3, 2), Fraction(3, 2)))
    """
    x1 = rational_vector(x1, what=f"{what}: x1")
    n = len(x1)
    if n < 2:
        raise InvalidInputError(f"{what}: x1: expected a point in at least 2 dimensions, got {n} coordinates")
    x2 = rational_vector(x2, what=f"{what}: x2", length=n)
    x3 = rational_vector(x3, what=f"{what}: x3", length=n)
    h = Fraction(3, 2) if half_width is None else rational(half_width, what=f"{what}: half_width")
    if h <= 0:
        raise InvalidInputError(f"{what}: half_width: expected a positive number, got {format_rational(h)}")
    u = tuple(b - a for a, b in zip(x1, x2))
    w = tuple(b - a for a, b in zip(x1, x3))
    gram = ((dot(u, u), dot(u, w)), (dot(u, w), dot(w, w)))
    if gram[0][0] * gram[1][1] - gram[0][1] ** 2 == 0:
        raise InvalidInputError(f"{what}: x3: expected three points not on one line, got collinear points")
    # Circumcentre c = x1 + a u + b w with (c - x1).u = |u|^2 / 2 and (c - x1).w = |w|^2 / 2.
    a, b = solve(gram, (gram[0][0] / 2, gram[1][1] / 2))
    centre = tuple(p + a * du + b * dw for p, du, dw in zip(x1, u, w))
    d1 = tuple(p - c for p, c in zip(x1, centre))
    radius2 = dot(d1, d1)
    candidates = []
    for point in (x2, x3):
        v = tuple(p - c for p, c in zip(point, centre))
        v = tuple(vi - dot(v, d1) / radius2 * di for vi, di in zip(v, d1))
        candidates.append((dot(v, v), v))
    length2, v = max(candidates, key=lambda item: item[0])
    d2 = tuple(_sqrt_approx(radius2 / length2) * vi for vi in v)
    return slice_domain(centre, (d1, d2), (-h, -h), (h, h), what=what)


def _sqrt_approx(q: Fraction, bits: int = 40) -> Fraction:
    """A dyadic rational within ``2**-bits`` below ``sqrt(q)`` (``q >= 1``), so within relative ``2**-bits``."""
    scale = 1 << bits
    return Fraction(math.isqrt(q.numerator * scale * scale // q.denominator), scale)
