"""Exact H-polytopes: the sets ``{x in Q^dim : A x <= b}``.

A :class:`Polytope` is immutable and may be empty, unbounded or lower-dimensional. Questions about the
set (emptiness, interior points, implicit equalities, redundancy, boundedness, dimension) are answered by
certified linear programs (:mod:`polyregions.exact.lp`); questions about its combinatorics (vertices, rays,
faces, volume) by exact double description (:mod:`polyregions.polyhedra.vertex_enumeration`). Every answer is exact.
The longer methods' bodies live in modules of functions by concept: ``_rows`` (reading the rows), ``_programs``,
``_affine_hull`` (dimension, relative interior, canonical form), ``_combinatorics`` (double description) and
``_affine_maps``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, Vector, dot
from polyregions.exact.rationals import rational_vector
from polyregions.polyhedra import _affine_hull, _affine_maps, _combinatorics, _rows
from polyregions.polyhedra._programs import chebyshev_ball, implicit_rows, is_bounded, redundant_rows
from polyregions.polyhedra.named import box_rows, check_dim, cross_polytope_rows, permutahedron_rows, simplex_rows

if TYPE_CHECKING:
    from polyregions.polyhedra.face_lattice import FaceLattice
    from polyregions.polyhedra.vertex_enumeration import VRepresentation

__all__ = ["Polytope"]

_ZERO, _ONE = Fraction(0), Fraction(1)


@dataclass(frozen=True)
class Polytope:
    """The set ``{x in Q^dim : A x <= b}``; it may be unbounded, empty or lower-dimensional.

    Build one with a factory (:meth:`from_inequalities`, :meth:`box`, :meth:`from_vertices`, :meth:`simplex`,
    :meth:`cross_polytope`, :meth:`permutahedron`, :meth:`space`, :meth:`empty`) or directly from ``A``,
    ``b`` and ``dim``; every entry is read at its exact rational value (see
    :func:`~polyregions.exact.rationals.rational`).

    Parameters
    ----------
    A : sequence of sequences of numbers
        The rows ``a_i``, each of length ``dim``.
    b : sequence of numbers
        The right-hand sides, one per row.
    dim : int
        The ambient dimension (explicit, so that a polytope without rows, all of R^dim, works).

    Attributes
    ----------
    A : tuple of tuple of Fraction
        The rows ``a_i``.
    b : tuple of Fraction
        The right-hand sides.
    dim : int
        The ambient dimension.

    Raises
    ------
    InvalidInputError
        When an entry is not a number, a row does not have ``dim`` entries, or ``b`` does not have one entry
        per row.

    Notes
    -----
    ``==`` compares descriptions (rows in order); :meth:`equals` compares sets, through the canonical form
    of :meth:`irredundant`. Generators are computed once per object and kept (the object is immutable).
    Every operation returns a new polytope.

    Examples
    --------
    >>> import polyregions as pr
    >>> square = pr.Polytope.box([0, 0], [1, 1])
    >>> square.volume(), len(square.vertices()), square.contains(["1/2", 1])
    (Fraction(1, 1), 4, True)
    >>> pr.Polytope([[1, 1]], [1], 2).is_bounded()
    False
    """

    A: Matrix
    b: Vector
    dim: int

    def __post_init__(self) -> None:
        A, b = _rows.exact_rows(self.A, self.b, self.dim)
        object.__setattr__(self, "A", A)
        object.__setattr__(self, "b", b)

    # ---------------------------------------------------------------------------------------------------
    # Factories

    @classmethod
    def from_inequalities(cls, A: Any, b: Any, *, dim: int | None = None) -> "Polytope":
        """The set ``{x : A x <= b}``.

        Parameters
        ----------
        A : sequence of sequences of numbers or 2-D array
            The rows, read exactly.
        b : sequence of numbers or 1-D array
            The right-hand sides, one per row.
        dim : int, optional, keyword-only
            The ambient dimension; needed only when ``A`` has no rows.

        Returns
        -------
        Polytope

        Raises
        ------
        InvalidInputError
            When the shapes disagree, an entry is not a number, or ``A`` has no rows and ``dim`` is missing.

        Examples
        --------
        >>> Polytope.from_inequalities([[1, 0], [0, 1]], ["1/2", 1]).b
        (Fraction(1, 2), Fraction(1, 1))
        """
        return cls(*_rows.inequality_rows(A, b, dim))

    @classmethod
    def box(cls, lower: Any, upper: Any) -> "Polytope":
        """The box ``{lower <= x <= upper}``.

        Parameters
        ----------
        lower, upper : sequence of numbers
            The corners, of equal length (the dimension), with ``lower <= upper`` in every coordinate.

        Returns
        -------
        Polytope
            Rows ``x_i <= upper_i`` and ``-x_i <= -lower_i`` for each coordinate in turn.

        Raises
        ------
        InvalidInputError
            When the lengths differ, are zero, or ``lower_i > upper_i``.

        Examples
        --------
        >>> Polytope.box([0, 0], [2, 3]).volume()
        Fraction(6, 1)
        """
        return cls(*box_rows(lower, upper))

    @classmethod
    def space(cls, dim: int) -> "Polytope":
        """All of R^dim (no rows)."""
        return cls((), (), check_dim(dim, "Polytope.space", minimum=0))

    @classmethod
    def empty(cls, dim: int) -> "Polytope":
        """The empty set, in its canonical form ``0 <= -1``."""
        dim = check_dim(dim, "Polytope.empty", minimum=0)
        return cls(((_ZERO,) * dim,), (-_ONE,), dim)

    @classmethod
    def simplex(cls, dim: int) -> "Polytope":
        """The standard simplex ``{x >= 0, sum x <= 1}`` (volume ``1/dim!``)."""
        return cls(*simplex_rows(dim))

    @classmethod
    def cross_polytope(cls, dim: int) -> "Polytope":
        """The cross-polytope ``{sum |x_i| <= 1}`` (2^dim rows, volume ``2^dim/dim!``)."""
        return cls(*cross_polytope_rows(dim))

    @classmethod
    def permutahedron(cls, n: int) -> "Polytope":
        """The permutahedron of order n in ``R^n``: the convex hull of the permutations of ``(1, ..., n)``, given
        by ``sum x = n(n+1)/2`` and ``sum_{i in S} x_i >= |S|(|S|+1)/2`` for every proper non-empty S.

        Examples
        --------
        >>> Polytope.permutahedron(4).f_vector()
        (24, 36, 14, 1)
        """
        return cls(*permutahedron_rows(n))

    @classmethod
    def from_vertices(cls, points: Any, *, rays: Any = (), lines: Any = (), dim: int | None = None
                      ) -> "Polytope":
        """The convex hull of points (plus the cone of rays and the span of lines), exactly.

        Parameters
        ----------
        points : sequence of points
            The points; none gives the empty set (then ``dim`` is needed).
        rays, lines : sequence of vectors, keyword-only
            Directions of the recession cone and of the lineality space (default none).
        dim : int, optional, keyword-only
            The ambient dimension; needed only when there are no points.

        Returns
        -------
        Polytope
            The set, in the canonical irredundant form of :meth:`irredundant`.

        Examples
        --------
        >>> triangle = Polytope.from_vertices([[0, 0], [1, 0], [0, 1]])
        >>> triangle == Polytope.simplex(2).irredundant(), triangle.volume()
        (True, Fraction(1, 2))
        """
        return _combinatorics.convex_hull(cls, points, rays, lines, dim)

    # ---------------------------------------------------------------------------------------------------
    # Membership and LP questions

    def contains(self, x: Any) -> bool:
        """True when ``A x <= b`` (closed, exact).

        Parameters
        ----------
        x : sequence of numbers
            A point of length ``dim``, read exactly.

        Examples
        --------
        >>> square = Polytope.box([0, 0], [1, 1])
        >>> square.contains([1, "1/2"]), square.contains_strictly([1, "1/2"])
        (True, False)
        """
        x = rational_vector(x, what="x", length=self.dim)
        return all(dot(row, x) <= bi for row, bi in zip(self.A, self.b))

    def contains_strictly(self, x: Any) -> bool:
        """True when ``A x < b`` in every row."""
        x = rational_vector(x, what="x", length=self.dim)
        return all(dot(row, x) < bi for row, bi in zip(self.A, self.b))

    def is_empty(self) -> bool:
        """True when no point satisfies ``A x <= b`` (certified).

        Examples
        --------
        >>> Polytope.from_inequalities([[1], [-1]], [0, -1]).is_empty(), Polytope.empty(2).is_empty()
        (True, True)
        """
        from polyregions.exact.lp import feasible_point

        return feasible_point(self.A, self.b, dim=self.dim) is None

    def is_bounded(self) -> bool:
        """True when the set is bounded (the empty set is bounded).

        ``{A d <= 0} = {0}`` exactly when ``A`` has rank ``dim`` and some ``y > 0`` has ``y A = 0``
        (Stiemke's lemma); that ``y`` is found by a certified program.

        Examples
        --------
        >>> Polytope.simplex(3).is_bounded(), Polytope.from_inequalities([[1, 0]], [1]).is_bounded()
        (True, False)
        """
        return is_bounded(self.A, self.b, self.dim, self.dim == 0 or self.is_empty())

    def implicit_equalities(self) -> tuple[int, ...]:
        """The rows that hold with equality on the whole set (all rows when it is empty)."""
        return self._implicit

    @cached_property
    def _implicit(self) -> tuple[int, ...]:
        return implicit_rows(self.A, self.b, self.dim, self.is_empty())

    def affine_dimension(self) -> int:
        """The dimension of the affine hull (-1 when empty).

        Examples
        --------
        >>> Polytope.from_inequalities([[1, 0], [-1, 0]], [0, 0]).affine_dimension()
        1
        """
        return _affine_hull.affine_dimension(self)

    def is_full_dimensional(self) -> bool:
        """True when the set has interior points."""
        return self.interior_point() is not None

    def interior_point(self) -> Vector | None:
        """An exact ``x`` with ``A x < b`` in every row, or None when there is none.

        Returns
        -------
        tuple of Fraction or None
            A point of the interior, certified exactly; None for an empty or lower-dimensional set.

        Examples
        --------
        >>> square = Polytope.box([0, 0], [1, 1])
        >>> square.contains_strictly(square.interior_point())
        True
        >>> print(Polytope.from_inequalities([[1, 0], [-1, 0]], [0, 0]).interior_point())
        None
        """
        from polyregions.exact.lp import strict_point

        return strict_point(self.A, self.b, dim=self.dim)

    def relative_interior_point(self) -> Vector | None:
        """An exact point strict in every row that is not an implicit equality, or None when empty."""
        return _affine_hull.relative_interior_point(self)

    def chebyshev_ball(self, *, bits: int = 40) -> tuple[Vector, Fraction]:
        """A centre and radius of a largest Euclidean ball inside the set, with an exact guarantee.

        Euclidean norms of the rows are irrational in general, so the program uses rational upper bounds
        ``w_i >= ||a_i||`` within a relative ``2**-bits``. The returned ball (centre ``c``, radius ``r``,
        both exact rationals) is certified to lie inside the set, and the true Chebyshev radius ``R``
        satisfies ``r <= R <= r * (1 + 2**-bits)``. The radius is 0 for a lower-dimensional set.

        Raises
        ------
        InfeasibleError
            When the set is empty.
        UnboundedError
            When the set contains arbitrarily large balls.

        Examples
        --------
        >>> Polytope.box([0, 0], [2, 4]).chebyshev_ball()[1]
        Fraction(1, 1)
        """
        return chebyshev_ball(self.A, self.b, self.dim, bits)

    def redundant_rows(self) -> tuple[int, ...]:
        """Rows whose removal (all together) leaves the set unchanged; the remaining rows are irredundant.

        Rows are examined from the last to the first, each against the rows kept so far and those not yet
        examined, so of repeated rows the first is kept.

        Examples
        --------
        >>> Polytope.from_inequalities([[1], [1], [2]], [1, 1, 5]).redundant_rows()
        (1, 2)
        """
        return redundant_rows(self.A, self.b, self.dim)

    def irredundant(self) -> "Polytope":
        """The canonical irredundant description of the same set.

        Equations of the affine hull come first, each as a pair of rows ``e.x <= c``, ``-e.x <= -c`` (from
        the reduced row echelon form, scaled to primitive integers); then one row per facet, reduced modulo
        those equations (zero in their pivot columns), scaled to a primitive integer vector ``(a, beta)``,
        in lexicographic order. Two polytopes are equal as sets exactly when their canonical forms are
        equal; the empty set is ``0 <= -1``.

        Examples
        --------
        >>> Polytope.from_inequalities([[2], [1], [-1]], [2, 5, 0]).irredundant().A
        ((Fraction(-1, 1),), (Fraction(1, 1),))
        """
        return _affine_hull.irredundant(self)

    def equals(self, other: "Polytope") -> bool:
        """True when both describe the same set (compares canonical forms).

        Raises
        ------
        InvalidInputError
            When ``other`` is not a :class:`Polytope` of the same dimension.

        Examples
        --------
        >>> interval = Polytope.from_inequalities([[1], [2], [-1]], [1, 5, 0])
        >>> interval == Polytope.box([0], [1]), interval.equals(Polytope.box([0], [1]))
        (False, True)
        """
        if not isinstance(other, Polytope) or other.dim != self.dim:
            raise InvalidInputError(f"equals: expected a Polytope of dimension {self.dim}, got {other!r}")
        return self.irredundant() == other.irredundant()

    # ---------------------------------------------------------------------------------------------------
    # Generators, faces, volume

    @cached_property
    def _vrep(self) -> VRepresentation:
        return _combinatorics.generators(self)

    def generators(self) -> VRepresentation:
        """Points, rays and lines with ``P = conv(points) + cone(rays) + span(lines)``, with incidences."""
        return self._vrep

    def vertices(self) -> tuple[Vector, ...]:
        """The vertices (when there are lines, the vertices of ``P`` cut by a complement of them).

        Returns
        -------
        tuple of tuple of Fraction
            The exact vertices; empty for the empty set.

        Examples
        --------
        >>> sorted(Polytope.simplex(2).vertices())
        [(Fraction(0, 1), Fraction(0, 1)), (Fraction(0, 1), Fraction(1, 1)), (Fraction(1, 1), Fraction(0, 1))]
        """
        return self._vrep.points

    def rays(self) -> tuple[Vector, ...]:
        """The extreme rays of the recession cone (modulo the lineality space), primitive integer vectors."""
        return self._vrep.rays

    def lineality(self) -> tuple[Vector, ...]:
        """A basis of the lineality space ``{d : A d = 0}``."""
        return self._vrep.lines

    def faces(self) -> FaceLattice:
        """Every non-empty face with its dimension, vertices, rays and tight rows."""
        return _combinatorics.faces(self)

    def f_vector(self) -> tuple[int, ...]:
        """The numbers of faces of dimensions 0, ..., affine dimension (the last entry, 1, is the set).

        Examples
        --------
        >>> Polytope.cross_polytope(3).f_vector()
        (6, 12, 8, 1)
        """
        return self.faces().f_vector()

    def volume(self) -> Fraction:
        """The exact ``dim``-volume (0 for empty and lower-dimensional sets).

        Returns
        -------
        Fraction

        Raises
        ------
        UnboundedError
            When the set is unbounded and full-dimensional (infinite volume) or unbounded at all.

        Examples
        --------
        >>> Polytope.cross_polytope(3).volume()
        Fraction(4, 3)
        """
        return _combinatorics.volume(self)

    # ---------------------------------------------------------------------------------------------------
    # Operations

    def intersection(self, other: "Polytope") -> "Polytope":
        """The intersection (rows of both).

        Raises
        ------
        InvalidInputError
            When ``other`` is not a :class:`Polytope` of the same dimension.

        Examples
        --------
        >>> Polytope.box([0, 0], [1, 1]).intersection(Polytope.simplex(2)).volume()
        Fraction(1, 2)
        """
        if not isinstance(other, Polytope) or other.dim != self.dim:
            raise InvalidInputError(f"intersection: expected a Polytope of dimension {self.dim}, got {other!r}")
        return _affine_maps.intersection(self, other)

    def preimage(self, M: Any, t: Any = None) -> "Polytope":
        """``{y : M y + t in P}`` for a ``dim x k`` matrix ``M`` (t defaults to 0).

        Parameters
        ----------
        M : sequence of sequences of numbers
            A ``dim x k`` matrix.
        t : sequence of numbers, optional
            A vector of length ``dim``; 0 when omitted.

        Returns
        -------
        Polytope
            A polytope in ``R^k`` with one row per row of ``P`` (no row is dropped or simplified).

        Examples
        --------
        >>> Polytope.box([0], [1]).preimage([[2, 2]]).contains(["1/4", "1/4"])
        True
        """
        return _affine_maps.preimage(self, M, t)

    def image(self, M: Any, t: Any = None) -> "Polytope":
        """``{M x + t : x in P}`` for a ``k x dim`` matrix ``M``, in canonical form (uses the generators).

        Parameters
        ----------
        M : sequence of sequences of numbers
            A ``k x dim`` matrix.
        t : sequence of numbers, optional
            A vector of length ``k``; 0 when omitted.

        Returns
        -------
        Polytope
            The image in ``R^k``, in the canonical form of :meth:`irredundant`.

        Examples
        --------
        >>> sorted(Polytope.box([0, 0], [1, 1]).image([[1, 1]]).vertices())
        [(Fraction(0, 1),), (Fraction(2, 1),)]
        """
        return _affine_maps.image(self, M, t)

    def restrict(self, origin: Any, directions: Any) -> "Polytope":
        """``{s : origin + sum_i s_i directions_i in P}`` (a slice in the coordinates ``s``).

        Parameters
        ----------
        origin : sequence of numbers
            A point of ``R^dim``.
        directions : sequence of vectors
            ``k`` vectors of ``R^dim``; the slice lives in ``R^k``.

        Returns
        -------
        Polytope

        Examples
        --------
        >>> sorted(Polytope.box([0, 0], [1, 1]).restrict([0, 0], [[1, 1]]).vertices())
        [(Fraction(0, 1),), (Fraction(1, 1),)]
        """
        return _affine_maps.restrict(self, origin, directions)
