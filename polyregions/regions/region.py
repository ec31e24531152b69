"""An activation region: a full-dimensional cell of the domain on which every neuron stays on one linear piece.

A region is convex, so it is an H-polytope; it lives in *domain coordinates* t (a box or polytope domain uses the
input coordinates themselves; a segment or a slice uses the parameters of ``origin + directions^T t``). The
engines hand their regions over as rows of one pattern matrix, made into :class:`Region` objects only when read
(:class:`DeferredRegions`).
"""

from __future__ import annotations

from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Callable, Iterable, Iterator, Sequence

import numpy as np

from polyregions.exact.linalg import Matrix, Vector, dot

if TYPE_CHECKING:

    from polyregions.networks.network import Network
    from polyregions.polyhedra.polytope import Polytope

__all__ = ["Region", "DeferredRegions"]


class Region:
    """One activation region (immutable): a full-dimensional cell on which every neuron stays on one piece.

    An engine may defer ``A``, ``b`` and ``interior_point`` (:meth:`deferred`): counts, patterns, adjacency
    and linear regions never need them, and building them exactly for every region up front would dominate
    the time of a 2-D run.

    Parameters
    ----------
    pattern : tuple of int
        The linear piece of every neuron (flat, in the order of ``Network.neurons``).
    A, b : matrix and vector of Fraction
        The region ``{t : A t <= b}`` in domain coordinates (exact; rows may be redundant).
    interior_point : tuple of Fraction
        An exact point with ``A t < b`` in every row.
    network : Network
        The network in domain coordinates (``Network.restrict`` of the original), which gives the region's
        exact output map on demand.

    Attributes
    ----------
    network : Network
        The network in domain coordinates, as given. ``pattern``, ``A``, ``b``, ``interior_point``,
        ``output_map``, ``dim`` and ``polytope`` are properties, documented below.

    See Also
    --------
    RegionComplex : the regions of a network in a domain, which the engines return.

    Notes
    -----
    Two regions are equal when their patterns and their exact ``(A, b, interior_point)`` are equal; the hash
    is the pattern's. A region pickles with its geometry computed.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from polyregions.networks.network import Network
    >>> from polyregions.networks.activations import relu
    >>> net = Network.from_layers(1, [([[1]], [0], relu())])
    >>> region = Region((1,), [[-1], [1]], [0, 1], [Fraction(1, 2)], net)
    >>> region.contains_strictly([Fraction(1, 4)]), region.output_map
    (True, (((Fraction(1, 1),),), (Fraction(0, 1),)))
    """

    network: "Network"
    # A region of an engine's output holds its index in a shared _Rows, in place of a pattern and a callable.
    _pattern: "tuple[int, ...] | int"
    _geometry: "Callable[[], tuple[Matrix, Vector, Vector]] | _Rows"

    def __init__(self, pattern: tuple[int, ...], A: Matrix, b: Vector, interior_point: Vector,
                 network: "Network"):
        geometry = (A, b, interior_point)
        self._set(tuple(pattern), network, lambda: geometry)

    @classmethod
    def deferred(cls, pattern: tuple[int, ...], network: "Network",
                 geometry: Callable[[], tuple[Matrix, Vector, Vector]]) -> "Region":
        """A region whose ``(A, b, interior_point)`` are computed by ``geometry()`` on first use.

        Parameters
        ----------
        pattern : tuple of int
            The region's activation pattern.
        network : Network
            The network in domain coordinates.
        geometry : callable
            Called with no arguments, once, when ``A``, ``b`` or ``interior_point`` is first needed; returns
            the triple ``(A, b, interior_point)``.

        Returns
        -------
        Region

        Examples
        --------
        >>> from fractions import Fraction
        >>> from polyregions.networks.network import Network
        >>> net = Network.from_layers(1, [([[1]], [0], "relu")])
        >>> region = Region.deferred((0,), net, lambda: (((Fraction(1),),), (Fraction(0),), (Fraction(-1),)))
        >>> region.pattern, region.interior_point
        ((0,), (Fraction(-1, 1),))
        """
        region = cls.__new__(cls)
        region._set(tuple(pattern), network, geometry)
        return region

    @classmethod
    def _deferred_rows(cls, patterns: np.ndarray, network: "Network",
                       geometry: Callable[[int], tuple[Matrix, Vector, Vector]]) -> "DeferredRegions":
        """Deferred regions, one per row of the matrix ``patterns``: region ``i``'s pattern is row ``i``, read on
        demand (a tuple per region would be most of a large complex's memory), and its ``(A, b,
        interior_point)`` is ``geometry(i)``."""
        return DeferredRegions(_Rows(patterns, geometry), network)

    @classmethod
    def _of_rows(cls, rows: "_Rows", network: "Network", indices: Iterable[int]) -> list["Region"]:
        """The regions of rows ``indices`` of ``rows``."""
        new = object.__new__
        regions = []
        for i in indices:
            region = new(cls)
            region.__dict__.update(_pattern=i, network=network, _geometry=rows)  # what _set does, faster
            regions.append(region)
        return regions

    def _set(self, pattern, network, geometry) -> None:
        object.__setattr__(self, "_pattern", pattern)
        object.__setattr__(self, "network", network)
        object.__setattr__(self, "_geometry", geometry)

    @property
    def pattern(self) -> tuple[int, ...]:
        """The activation pattern: the piece of every neuron, in the order of ``Network.neurons``.

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).regions[0].pattern
        (1, 0, 1, 0)
        """
        pattern = self._pattern
        if isinstance(pattern, tuple):
            return pattern
        geometry = self._geometry
        assert isinstance(geometry, _Rows)  # an index goes with the rows it indexes
        return geometry.pattern(pattern)

    def __setattr__(self, name, value):
        raise AttributeError(f"Region is immutable: cannot set {name!r}")

    @cached_property
    def _exact(self) -> tuple[Matrix, Vector, Vector]:
        geometry, pattern = self._geometry, self._pattern
        if isinstance(geometry, _Rows):
            assert isinstance(pattern, int)  # the rows go with an index
            return geometry.geometry(pattern)
        return geometry()

    @property
    def A(self) -> Matrix:
        """The rows of ``A t <= b`` (exact; some may be redundant).

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).regions[0].A  # -t <= 0 and t <= 1/4
        ((Fraction(-1, 1),), (Fraction(1, 1),))
        """
        return self._exact[0]

    @property
    def b(self) -> Vector:
        """The right-hand sides of ``A t <= b`` (exact).

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).regions[0].b
        (Fraction(0, 1), Fraction(1, 4))
        """
        return self._exact[1]

    @property
    def interior_point(self) -> Vector:
        """An exact point with ``A t < b`` in every row (in domain coordinates).

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).regions[0].interior_point
        (Fraction(1, 8),)
        """
        return self._exact[2]

    def __eq__(self, other) -> bool:
        if not isinstance(other, Region):
            return NotImplemented
        return self.pattern == other.pattern and self._exact == other._exact

    def __hash__(self) -> int:
        return hash(self.pattern)

    def __repr__(self) -> str:
        """``Region(pattern=...)``; a pattern of more than 40 neurons is shortened to its ends and its length, so
        that a list of regions prints in a few lines."""
        pattern = self.pattern
        if len(pattern) <= 40:
            return f"Region(pattern={pattern!r})"
        ends = ", ".join(map(str, pattern[:8])) + ", ..., " + ", ".join(map(str, pattern[-4:]))
        return f"Region(pattern=({ends}), {len(pattern)} neurons)"

    def __reduce__(self):
        return Region, (self.pattern, self.A, self.b, self.interior_point, self.network)

    @cached_property
    def output_map(self) -> tuple[Matrix, Vector]:
        """``(M, c)``: the network's output on the region is ``M t + c`` (exact).

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).regions[0].output_map  # 4 t on [0, 1/4]
        (((Fraction(4, 1),),), (Fraction(0, 1),))
        """
        return self.network.affine_map(self.pattern)

    @property
    def dim(self) -> int:
        """The dimension of the domain coordinates ``t``.

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).regions[0].dim
        1
        """
        return len(self.interior_point)

    @property
    def polytope(self) -> "Polytope":
        """The region as an exact :class:`~polyregions.polyhedra.polytope.Polytope` ``{t : A t <= b}``.

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).regions[0].polytope.volume()
        Fraction(1, 4)
        """
        from polyregions.polyhedra.polytope import Polytope
        return Polytope(self.A, self.b, self.dim)

    def contains_strictly(self, t: Vector) -> bool:
        """Whether ``t`` lies in the open region (exact).

        Parameters
        ----------
        t : sequence of numbers
            A point in domain coordinates (Fractions for an exact answer).

        Returns
        -------
        bool
            True when ``A t < b`` in every row.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from polyregions.networks.network import Network
        >>> region = Region((1,), [[-1], [1]], [0, 1], [Fraction(1, 2)],
        ...                 Network.from_layers(1, [([[1]], [0], "relu")]))
        >>> region.contains_strictly([Fraction(1, 2)]), region.contains_strictly([1])
        (True, False)
        """
        return all(dot(row, t) < bi for row, bi in zip(self.A, self.b))

    def _repr_html_(self) -> str:
        """A table for notebooks: the pattern, the number of inequalities, the interior point, boundedness; with
        a picture of a 2-D region beside it (:meth:`_repr_png_`).

        Examples
        --------
        >>> from fractions import Fraction
        >>> from polyregions.networks.network import Network
        >>> region = Region((1,), [[-1], [1]], [0, 1], [Fraction(1, 2)],
        ...                 Network.from_layers(1, [([[1]], [0], "relu")]))
        >>> print(region._repr_html_())
        <table>
        <caption>Region</caption>
        <tr><th>pattern</th><td>(1,)</td></tr>
        <tr><th>inequalities</th><td>2</td></tr>
        <tr><th>interior point</th><td>(1/2)</td></tr>
        <tr><th>bounded</th><td>yes</td></tr>
        </table>
        """
        from polyregions._support.display import display_html, yes_no
        from polyregions.exact.rationals import format_rational

        point = "(" + ", ".join(format_rational(Fraction(v)) for v in self.interior_point) + ")"
        rows = [("pattern", self.pattern), ("inequalities", len(self.A)), ("interior point", point),
                ("bounded", yes_no(self.polytope.is_bounded()))]
        return display_html("Region", rows, self._repr_png_())

    def _repr_png_(self) -> bytes | None:
        """A picture of a 2-D region (its polygon and interior point, in floating point) as PNG bytes, made once;
        None in another dimension or without matplotlib."""
        if self.dim != 2:
            return None
        from polyregions._support.display import cached_picture, png_picture
        from polyregions.plotting._quick import draw_region

        return cached_picture(self, lambda: png_picture(lambda ax: draw_region(ax, self)))


class _Rows:
    """The regions of an engine's output: region ``i``'s pattern is row ``i`` of a shared matrix, read as a
    tuple of ints on demand, and its geometry is ``geometry(i)``."""

    __slots__ = ("matrix", "geometry")

    def __init__(self, matrix: np.ndarray, geometry: Callable[[int], tuple[Matrix, Vector, Vector]]):
        self.matrix = matrix
        self.geometry = geometry

    def pattern(self, index: int) -> tuple[int, ...]:
        return tuple(self.matrix[index].tolist())


class DeferredRegions(Sequence[Region]):
    """The regions of an engine's output before anything reads them: a sequence whose :class:`Region` objects
    are made on first access (a complex's counts read the pattern matrix alone, and making a Python object per
    region is a measurable part of a short run)."""

    def __init__(self, rows: _Rows, network: "Network"):
        self.rows, self.network = rows, network
        self._made: list[Region] | None = None

    def __len__(self) -> int:
        return len(self.rows.matrix)

    def _all(self) -> list[Region]:
        if self._made is None:
            self._made = Region._of_rows(self.rows, self.network, range(len(self)))
        return self._made

    def __getitem__(self, index):
        return self._all()[index]

    def __iter__(self) -> Iterator[Region]:
        return iter(self._all())

    def ordered(self, order: list[int]) -> tuple[Region, ...]:
        """The regions in the order of the row indices ``order`` (made directly in that order)."""
        if self._made is not None:
            return tuple(map(self._made.__getitem__, order))
        return tuple(Region._of_rows(self.rows, self.network, order))
