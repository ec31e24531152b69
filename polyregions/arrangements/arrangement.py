"""The immutable arrangement of affine hyperplanes ``a . x = c`` in ``R^d``.

Its domain (checks, facet rows, restriction to a flat) is :mod:`._domain`'s, the arrangements made from it
(restriction, essentialization, cone) :mod:`._constructions`'s.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

from polyregions._support.limits import check_at_most
from polyregions.arrangements import _constructions, _domain
from polyregions.arrangements._kernel import IntRow, canonical
from polyregions.errors import InvalidInputError
from polyregions.exact._integers import primitive

if TYPE_CHECKING:
    import networkx as nx

    from polyregions.arrangements.counting import RegionCount
    from polyregions.arrangements.poset import Flat, IntersectionPoset
    from polyregions.arrangements.regions import ArrangementFace, ArrangementRegion
    from polyregions.arrangements.zaslavsky import ZaslavskyReport
    from polyregions.exact.linalg import Matrix, Vector
    from polyregions.polyhedra.polytope import Polytope

__all__ = ["Arrangement", "canonical_hyperplanes"]

#: A notebook shows the picture of an arrangement with at most this many regions (each polygon is exact)...
MAX_DRAWN_REGIONS = 2_000
#: ... and writes the sign vectors of at most this many (more would not fit in a 290-pixel picture).
MAX_LABELLED_REGIONS = 24


def canonical_hyperplanes(rows: Any, *, dim: int | None = None, what: str = "hyperplanes"
                          ) -> tuple[int, tuple[IntRow, ...]]:
    """The dimension and the distinct canonical rows of hyperplanes given as rows ``[a_1, ..., a_d, c]``.

    A canonical row is the primitive integer multiple whose first non-zero normal entry is positive; rows
    describing the same hyperplane (also by a negative multiple) keep their first occurrence.

    Raises
    ------
    InvalidInputError
        Naming ``what[i]`` for a row of the wrong length, a bad number or a zero normal.

    Examples
    --------
    >>> canonical_hyperplanes([[2, 0, 1], [-4, 0, -2], ["1/2", 1, 0]])
    (2, ((2, 0, 1), (1, 2, 0)))
    """
    from polyregions.exact.rationals import rational_vector

    if isinstance(rows, (str, bytes)) or not hasattr(rows, "__len__"):
        raise InvalidInputError(f"{what}: expected a list of rows [a_1, ..., a_d, c], got {type(rows).__name__}")
    if dim is None:
        if not len(rows):
            raise InvalidInputError(f"{what}: expected at least one row, or the dimension given separately")
        first = rows[0]
        if isinstance(first, (str, bytes)) or not hasattr(first, "__len__") or len(first) < 2:
            raise InvalidInputError(f"{what}[0]: expected a row [a_1, ..., a_d, c] with d >= 1, got {first!r}")
        dim = len(first) - 1
    if isinstance(dim, bool) or not isinstance(dim, int) or dim < 0:
        raise InvalidInputError(f"dimension: expected a non-negative integer, got {dim!r}")
    # before anything of that size (a polynomial of degree dim, a point of dim coordinates) is built
    check_at_most("MAX_DOMAIN_DIMENSION", dim, what="dimension", unit="dimensions")
    seen: dict[IntRow, None] = {}
    for i, row in enumerate(rows):
        if isinstance(row, (str, bytes)) or not hasattr(row, "__len__"):
            raise InvalidInputError(f"{what}[{i}]: expected a row of {dim + 1} numbers [a_1, ..., a_{dim}, c], "
                                    f"got {row!r}")
        if len(row) != dim + 1:
            raise InvalidInputError(f"{what}[{i}]: expected {dim + 1} numbers [a_1, ..., a_{dim}, c] for "
                                    f"dimension {dim}, got {len(row)}")
        values = rational_vector(row, what=f"{what}[{i}]")
        if not any(values[:-1]):
            raise InvalidInputError(f"{what}[{i}]: expected a non-zero normal (a_1, ..., a_{dim}), got all zeros "
                                    f"in [{', '.join(str(v) for v in values)}]")
        seen.setdefault(canonical(primitive(values))[0])
    return dim, tuple(seen)


@dataclass(frozen=True, eq=False)
class Arrangement:
    """A finite set of affine hyperplanes ``a . x = c`` in ``R^dim``, optionally restricted to a polytope.

    Parameters
    ----------
    hyperplanes : rows ``[a_1, ..., a_d, c]``
        Numbers in any exact form (ints, floats, ``"-7/12"``, Fractions). Rows describing the same hyperplane
        merge; each is stored in canonical form (primitive integers, first non-zero normal entry positive), in
        the order of first occurrence. A zero normal is bad input.
    dim : int, keyword-only
        Needed only when there are no hyperplanes.
    domain : Polytope, keyword-only
        A full-dimensional polytope ``{x : A x <= b}``: regions and faces are then the cells of its interior.
        Anything with attributes ``A``, ``b`` and ``dim`` is accepted.

    Notes
    -----
    Equality ignores the order of the hyperplanes. Sign vectors use ``sign(a . x - c)``: ``+1`` on the side
    where ``a . x > c`` for the canonical row.

    Examples
    --------
    >>> arrangement = Arrangement([[1, 0, 0], [0, 1, 0], [-2, -2, -1]])
    >>> arrangement.hyperplanes
    ((1, 0, 0), (0, 1, 0), (2, 2, 1))
    >>> arrangement.characteristic_polynomial(), arrangement.num_regions()
    ((1, -3, 3), 7)
    """

    hyperplanes: tuple[IntRow, ...]
    dim: int = field(default=None, kw_only=True)  # type: ignore[assignment]
    domain: "Polytope | None" = field(default=None, kw_only=True)

    if TYPE_CHECKING:
        # The signature of the generated __init__: rows come in any exact form, __post_init__ stores them canonical.
        def __init__(self, hyperplanes: Any, *, dim: int | None = None, domain: "Polytope | None" = None) -> None:
            ...

    def __post_init__(self) -> None:
        dim, rows = canonical_hyperplanes(self.hyperplanes, dim=self.dim)
        object.__setattr__(self, "hyperplanes", rows)
        object.__setattr__(self, "dim", dim)
        if self.domain is not None:
            self._check_domain(self.domain)

    def _check_domain(self, domain: Any) -> None:
        _domain.check_domain(domain, self.dim)

    # ----------------------------------------------------------------------------------------- basics
    def __len__(self) -> int:
        return len(self.hyperplanes)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Arrangement):
            return NotImplemented
        return (self.dim == other.dim and set(self.hyperplanes) == set(other.hyperplanes)
                and self._domain_key() == other._domain_key())

    def __hash__(self) -> int:
        return hash((self.dim, frozenset(self.hyperplanes), self._domain_key()))

    def _domain_key(self):
        if self.domain is None:
            return None
        return (tuple(map(tuple, self.domain.A)), tuple(self.domain.b))

    def __repr__(self) -> str:
        where = "" if self.domain is None else ", restricted to a polytope"
        return f"<Arrangement of {len(self)} hyperplanes in R^{self.dim}{where}>"

    def _repr_html_(self) -> str:
        """A table for notebooks: dimension, rank, hyperplanes, regions, bounded regions and ``chi(t)``; with the
        picture of :meth:`_repr_png_` beside it when there is one.

        Examples
        --------
        >>> from polyregions.arrangements import braid
        >>> html = braid(3)._repr_html_()
        >>> print(html[html.index("<table>"):html.index("</table>") + len("</table>")])
        <table>
        <caption>Arrangement</caption>
        <tr><th>dimension</th><td>3</td></tr>
        <tr><th>rank</th><td>2</td></tr>
        <tr><th>hyperplanes</th><td>3</td></tr>
        <tr><th>regions</th><td>6</td></tr>
        <tr><th>bounded regions</th><td>0</td></tr>
        <tr><th>characteristic polynomial</th><td>t^3 - 3*t^2 + 2*t</td></tr>
        </table>
        """
        from polyregions._support.display import display_html
        from polyregions.arrangements.poset import polynomial_text

        rows: list[tuple[str, Any]] = [("dimension", self.dim), ("rank", self.rank), ("hyperplanes", len(self))]
        if self.domain is not None:
            rows.append(("domain", "a polytope (regions are the cells of its interior)"))
        rows += [("regions", self.num_regions()), ("bounded regions", len(self.bounded_regions())),
                 ("characteristic polynomial", polynomial_text(self.characteristic_polynomial()))]
        return display_html("Arrangement", rows, self._repr_png_())

    def _repr_png_(self) -> bytes | None:
        """The arrangement drawn by :func:`polyregions.plotting.plot_arrangement`, as PNG bytes made once, when
        it is planar (or of rank 2 without a domain, drawn through its essentialization) and has at most
        :data:`MAX_DRAWN_REGIONS` regions (sign vectors written up to :data:`MAX_LABELLED_REGIONS`); None
        otherwise or without matplotlib."""
        from polyregions._support.display import cached_picture, png_picture

        if not (self.dim == 2 or (self.dim > 2 and self.rank == 2 and self.domain is None)):
            return None  # what polyregions.plotting.arrangements.planar accepts
        regions = self.num_regions()
        if regions > MAX_DRAWN_REGIONS:
            return None
        from polyregions.plotting.arrangements import plot_arrangement

        return cached_picture(self, lambda: png_picture(
            lambda ax: plot_arrangement(self, ax=ax, labels=regions <= MAX_LABELLED_REGIONS, fontsize=7.0)))

    @property
    def normals(self) -> tuple[IntRow, ...]:
        """The normal vectors ``a`` of the canonical rows."""
        return tuple(row[:-1] for row in self.hyperplanes)

    @property
    def offsets(self) -> tuple[int, ...]:
        """The right-hand sides ``c`` of the canonical rows."""
        return tuple(row[-1] for row in self.hyperplanes)

    @cached_property
    def rank(self) -> int:
        """The rank of the normal vectors: the largest codimension of a non-empty intersection."""
        from polyregions.exact.linalg import rank
        return rank([tuple(Fraction(v) for v in n) for n in self.normals]) if self.hyperplanes else 0

    def lineality_space(self) -> "Matrix":
        """A basis of ``{v : a . v = 0 for every normal a}``, the directions along which nothing changes."""
        from polyregions.exact.linalg import nullspace
        return nullspace([tuple(Fraction(v) for v in n) for n in self.normals], self.dim)

    def is_essential(self) -> bool:
        """Whether the normals span ``R^dim`` (the lineality space is zero)."""
        return self.rank == self.dim

    def is_central(self) -> bool:
        """Whether all hyperplanes share a point (true for no hyperplanes)."""
        from polyregions.exact.linalg import rank

        augmented = [tuple(Fraction(v) for v in row) for row in self.hyperplanes]
        return not augmented or rank(augmented) == self.rank

    # ---------------------------------------------------------------------------- exact integer form
    @cached_property
    def _rows(self) -> tuple[IntRow, ...]:
        """Homogeneous rows ``(a, -c)``: their value at ``x`` is ``a . x - c``."""
        return tuple(row[:-1] + (-row[-1],) for row in self.hyperplanes)

    @cached_property
    def _system(self) -> tuple[tuple[IntRow, ...], tuple[int, ...]]:
        """The hyperplanes followed by the domain's facet rows, with the signs each may take.

        A domain row ``g.x <= b`` allows only the sign that is negative inside; when it lies on a hyperplane of
        the arrangement, that hyperplane's allowed signs shrink instead.
        """
        return _domain.system(self._rows, self.domain, self.dim)

    # ------------------------------------------------------------------------------- intersection poset
    @cached_property
    def poset(self) -> "IntersectionPoset":
        """The intersection poset (flats ordered by reverse inclusion), exact.

        The domain plays no part in it: it is the poset of the hyperplanes in ``R^dim``.
        """
        from polyregions.arrangements.poset import poset_of_rows
        return poset_of_rows(self._rows, self.dim)

    def characteristic_polynomial(self, *, method: str = "poset") -> tuple[int, ...]:
        """Coefficients of ``chi(t)``, degree ``dim`` first, constant last.

        Parameters
        ----------
        method : {"poset", "auto", "finite-field", "deletion-restriction"}, keyword-only
            ``"poset"`` reads it from :attr:`poset` (every flat listed); the others count without listing
            (see :mod:`polyregions.arrangements.counting`). All are exact and agree.

        Examples
        --------
        >>> from polyregions.arrangements import braid
        >>> braid(3).characteristic_polynomial()
        (1, -3, 2, 0)
        >>> braid(3).characteristic_polynomial(method="finite-field")
        (1, -3, 2, 0)
        """
        if method == "poset":
            return self.poset.characteristic_polynomial()
        from polyregions.arrangements.counting import characteristic_polynomial
        return characteristic_polynomial(self, method=method)

    def count_regions(self, *, method: str = "auto") -> "RegionCount":
        """Regions and relatively bounded regions counted without listing them, from ``chi`` (Zaslavsky); see
        :func:`polyregions.arrangements.count_regions`.

        Examples
        --------
        >>> from polyregions.arrangements import resonance
        >>> resonance(5).count_regions().regions
        11292
        """
        from polyregions.arrangements.counting import count_regions
        return count_regions(self, method=method)

    def whitney_numbers(self, *, kind: int = 1) -> tuple[int, ...]:
        """Whitney numbers of the first (``kind=1``, signed) or second kind (``kind=2``) by rank."""
        return self.poset.whitney_numbers(kind=kind)

    def poincare_polynomial(self) -> tuple[int, ...]:
        """Coefficients of ``pi(t) = sum_X |mu(X)| t^(rank X)``, degree ``rank`` first."""
        return self.poset.poincare_polynomial()

    def predicted_regions(self) -> int:
        """Zaslavsky's count of regions, ``(-1)^dim chi(-1)`` (for the whole space, ignoring any domain)."""
        chi = self.characteristic_polynomial()
        return (-1) ** self.dim * sum(c * (-1) ** (self.dim - k) for k, c in enumerate(chi))

    def predicted_bounded_regions(self) -> int:
        """Zaslavsky's count of relatively bounded regions, ``(-1)^rank chi(1)`` (ignoring any domain)."""
        return (-1) ** self.rank * sum(self.characteristic_polynomial())

    # --------------------------------------------------------------------------------- constructions
    def deletion(self, index: int) -> "Arrangement":
        """The arrangement without hyperplane ``index`` (same domain)."""
        self._check_index(index)
        return Arrangement(self.hyperplanes[:index] + self.hyperplanes[index + 1:], dim=self.dim, domain=self.domain)

    def _check_index(self, index: int) -> None:
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self):
            raise InvalidInputError(f"hyperplane index: expected an integer in [0, {len(self)}), got {index!r}")

    def _flat_of(self, where: "int | Flat") -> "Flat":
        from polyregions.arrangements.poset import Flat

        if isinstance(where, Flat):
            return where
        self._check_index(where)
        return next(f for f in self.poset.flats if f.rank == 1 and where in f.hyperplanes)

    def restriction_chart(self, where: "int | Flat") -> tuple["Vector", "Matrix"]:
        """``(origin, directions)``: the coordinates ``y`` used by :meth:`restriction`,
        ``x = origin + sum_j y_j directions_j``.

        ``where`` is a hyperplane index or a :class:`~polyregions.arrangements.Flat` of :attr:`poset`.
        """
        return _constructions.restriction_chart(self._flat_of(where))

    def restriction(self, where: "int | Flat") -> "Arrangement":
        """The arrangement induced on a hyperplane (given by index) or on a flat of :attr:`poset`.

        Its hyperplanes are the distinct non-empty, proper intersections with the others, in the coordinates
        of :meth:`restriction_chart`; the domain, if any, is restricted too.

        Examples
        --------
        >>> from polyregions.arrangements import braid
        >>> braid(4).restriction(0).num_regions()  # the braid arrangement of R^3 on x_1 = x_2
        6
        """
        return _constructions.restriction(self, self._flat_of(where))

    def essentialization(self) -> "Arrangement":
        """The same arrangement modulo its lineality space, in ``R^rank``.

        The coordinates are ``y = R x`` for the reduced row echelon basis ``R`` of the normals' span; regions,
        faces and the intersection poset correspond one to one. Not defined with a domain.

        Examples
        --------
        >>> from polyregions.arrangements import braid
        >>> braid(3).essentialization().dim
        2
        """
        return _constructions.essentialization(self)

    def cone(self) -> "Arrangement":
        """The cone in ``R^(dim+1)``: ``a . x = c z`` for every hyperplane, and ``z = 0``.

        It has twice as many regions and characteristic polynomial ``(t - 1) chi(t)``. Not defined with a domain.
        """
        return _constructions.cone(self)

    def within(self, polytope: "Polytope") -> "Arrangement":
        """The same hyperplanes restricted to a full-dimensional polytope (its interior is cut into cells)."""
        return Arrangement(self.hyperplanes, dim=self.dim, domain=polytope)

    # ------------------------------------------------------------------------------- regions and faces
    @cached_property
    def _regions(self) -> tuple["ArrangementRegion", ...]:
        from polyregions.arrangements.regions import enumerate_regions
        return enumerate_regions(self)

    def regions(self) -> tuple["ArrangementRegion", ...]:
        """Every region (with the domain: every cell of its interior), sorted by sign vector.

        Each has its sign vector, exact H-polytope, rational interior point and relative boundedness.
        """
        return self._regions

    def num_regions(self) -> int:
        """The number of regions, counted by enumeration."""
        return len(self._regions)

    def bounded_regions(self) -> tuple["ArrangementRegion", ...]:
        """The relatively bounded regions (bounded modulo the lineality space)."""
        return tuple(r for r in self._regions if r.bounded)

    def region_of(self, x: Sequence) -> "ArrangementRegion | None":
        """The region whose interior holds the point ``x``, or None when ``x`` is on a hyperplane or outside."""
        from polyregions.arrangements.regions import region_of
        return region_of(self, x)

    @cached_property
    def _faces(self) -> tuple["ArrangementFace", ...]:
        from polyregions.arrangements.regions import enumerate_faces
        return enumerate_faces(self)

    def faces(self, dim: int | None = None) -> tuple["ArrangementFace", ...]:
        """Every face (relatively open cell) of the given dimension, or of every dimension, sorted by
        dimension, then flat, then sign vector over ``{-1, 0, 1}``."""
        if dim is None:
            return self._faces
        return tuple(f for f in self._faces if f.dim == dim)

    def f_vector(self) -> tuple[int, ...]:
        """The number of faces of each dimension ``0..dim``.

        Examples
        --------
        >>> Arrangement([[1, 0, 0], [0, 1, 0]]).f_vector()
        (1, 4, 4)
        """
        counts = [0] * (self.dim + 1)
        for face in self._faces:
            counts[face.dim] += 1
        return tuple(counts)

    def face_poset(self) -> "nx.DiGraph":
        """Incidences: a networkx DiGraph on face indices with an edge ``F -> G`` when ``F`` is a facet of ``G``."""
        from polyregions.arrangements.regions import face_poset
        return face_poset(self)

    def adjacency_graph(self) -> "nx.Graph":
        """The region adjacency graph: node ``i`` is ``regions()[i]``; one edge per shared facet, with the
        index of its hyperplane as attribute ``hyperplane``."""
        from polyregions.arrangements.regions import adjacency_graph
        return adjacency_graph(self)

    # --------------------------------------------------------------------------------------- checks
    def check_zaslavsky(self, *, faces: bool = True, raise_on_failure: bool = False) -> "ZaslavskyReport":
        """Compare the enumeration with Zaslavsky's formulas and the Euler relation (see
        :func:`polyregions.arrangements.check_zaslavsky`)."""
        from polyregions.arrangements.zaslavsky import check_zaslavsky
        return check_zaslavsky(self, faces=faces, raise_on_failure=raise_on_failure)

    def summary(self, *, faces: bool = True) -> dict[str, Any]:
        """The numbers of ``polyregions arrangement --json``."""
        report = self.check_zaslavsky(faces=faces)
        summary = {
            "dimension": self.dim,
            "rank": self.rank,
            "hyperplanes": len(self),
            "regions": report.regions,
            "bounded_regions": report.bounded_regions,
            "characteristic_polynomial": list(self.characteristic_polynomial()),
            "face_vector": list(self.f_vector()) if faces else None,
            "exact": True,
            "poincare_polynomial": list(self.poincare_polynomial()),
            "flats_by_rank": list(self.whitney_numbers(kind=2)),
            "central": self.is_central(),
            "essential": self.is_essential(),
            "zaslavsky": {"regions": report.regions_predicted, "bounded_regions": report.bounded_predicted,
                          "agrees": report.ok},
        }
        return summary
