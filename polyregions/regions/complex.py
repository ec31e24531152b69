"""The region complex: what every refinement engine returns.

An activation region is a full-dimensional cell of the domain on which every neuron stays on one linear piece
of its activation; it is convex, so it is an H-polytope. Regions live in *domain coordinates* t (a box or
polytope domain uses the input coordinates themselves; a segment or a slice uses the parameters of
``origin + directions^T t``). Linear regions are the connected components of the adjacency graph restricted to
edges across which the network's output map does not change.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Literal, Sequence

import numpy as np

from polyregions.exact.linalg import Matrix, Vector, dot

if TYPE_CHECKING:
    import networkx as nx

    from polyregions.networks.network import Network
    from polyregions.polyhedra.polytope import Polytope
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["Region", "RegionComplex"]


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
        from polyregions._display import display_html, yes_no
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
        from polyregions._display import cached_picture, png_picture
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


class _Built:
    """A field given either as its value or as a function that builds it, called on the first read: the engines
    give the regions and the adjacency as arrays, and most runs (counts, linear regions) never read them as tuples
    of Python objects, which for a million pairs takes seconds."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = "_" + name

    def __get__(self, instance, owner=None):
        if instance is None:
            raise AttributeError(self.name)  # the field has no default
        value = instance.__dict__[self.name]
        if callable(value):
            value = instance.__dict__[self.name] = value()
        return value

    def __set__(self, instance, value) -> None:
        instance.__dict__[self.name] = value


@dataclass(frozen=True)
class RegionComplex:
    """The activation regions of a network in a domain, their adjacency and their linear regions.

    Every refinement engine returns one (:func:`polyregions.regions.enumeration.enumerate_regions`); two
    engines give equal complexes on the same input.

    Parameters
    ----------
    network : Network
        The network, on its own input space.
    domain : Domain
        Where the regions live; they are in its coordinates.
    regions : tuple of Region
        Sorted by pattern, so that two engines give equal complexes.
    adjacency : tuple of (i, j, neurons)
        One entry per pair of regions (i < j) whose closures share a facet; ``neurons`` is the frozenset of
        neurons whose piece differs between them.
    exact : bool
        True when every decision behind the complex was certified exactly.
    engine : {"mesh", "lp"}
        Which refinement engine produced it.

    See Also
    --------
    Region : one activation region.
    polyregions.regions.export.write_complex_json : the JSON export with certificates.

    Examples
    --------
    The sawtooth of depth 2 folds [0, 1] into 4 pieces, each adjacent to the next:

    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> complex_ = enumerate_regions(sawtooth(2), box([0], [1]))
    >>> len(complex_), len(complex_.adjacency), complex_.exact, complex_.engine
    (4, 3, True, 'mesh')
    """

    network: "Network"
    domain: "Domain"
    regions: tuple[Region, ...] = _Built()  # type: ignore[assignment]
    adjacency: tuple[tuple[int, int, frozenset[int]], ...] = _Built()  # type: ignore[assignment]
    exact: bool = True
    engine: "Engine | Literal['']" = ""  # "" when no engine is named

    def __len__(self) -> int:
        """The number of activation regions.

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> len(enumerate_regions(sawtooth(3), box([0], [1])))
        8
        """
        return len(self._pattern_matrix) if "_pattern_matrix" in self.__dict__ else len(self.regions)

    def __getstate__(self) -> dict[str, Any]:
        # The fields built on first read hold the engine's state until then: pickle them built.
        return {**self.__dict__, "_regions": self.regions, "_adjacency": self.adjacency}

    @cached_property
    def graph(self) -> "nx.Graph":
        """The region adjacency graph: node i is ``regions[i]`` (attribute ``pattern``); an edge per shared
        facet, with attribute ``neurons`` (the sorted neurons that switch there).

        Examples
        --------
        >>> from polyregions.networks.network import Network
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])  # the two axes cut the square
        >>> sorted(enumerate_regions(net, box([-1, -1], [1, 1])).graph.edges(data="neurons"))
        [(0, 1, (1,)), (0, 2, (0,)), (1, 3, (0,)), (2, 3, (1,))]
        """
        import networkx as nx

        graph = nx.Graph()
        for i, region in enumerate(self.regions):
            graph.add_node(i, pattern=region.pattern)
        for i, j, neurons in self.adjacency:
            graph.add_edge(i, j, neurons=tuple(sorted(neurons)))
        return graph

    @cached_property
    def linear_regions(self) -> tuple[frozenset[int], ...]:
        """The linear regions, as sets of activation-region indices (sorted by smallest member).

        A linear region is a connected component of the adjacency graph restricted to the edges across which
        the output map ``(M, c)`` stays the same (decided exactly: neighbours that differ in one neuron have the
        same map exactly when the output's gradient with respect to that neuron is zero; see
        :mod:`polyregions.regions._linear_regions`).

        Examples
        --------
        ``relu(x) - relu(x)`` is zero on both of its activation regions:

        >>> from polyregions.networks.network import Network
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> net = Network.from_layers(1, [([[1], [1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
        >>> enumerate_regions(net, box([-1], [1])).linear_regions
        (frozenset({0, 1}),)
        """
        roots = self._linear_roots
        order = np.argsort(roots, kind="stable")  # members of a component in increasing order, components by root
        starts = np.flatnonzero(np.r_[True, roots[order][1:] != roots[order][:-1]]).tolist()
        members = order.tolist()
        return tuple(frozenset(members[a:b]) for a, b in zip(starts, starts[1:] + [len(members)]))

    @cached_property
    def _linear_roots(self) -> np.ndarray:
        """The smallest region of every region's linear region (one entry per region)."""
        from polyregions.regions._linear_regions import linear_region_roots

        pairs, switches, neurons = self._edge_arrays
        if not len(pairs):
            return np.arange(len(self), dtype=np.int64)
        return linear_region_roots(self._regions_network, self._pattern_matrix, pairs, switches, neurons)

    @cached_property
    def _regions_network(self) -> "Network":
        """The network in domain coordinates, as the regions hold it (set by the engines)."""
        return self.regions[0].network

    def _num_linear_regions(self) -> int:
        roots = self._linear_roots
        return int(np.count_nonzero(roots == np.arange(roots.size)))

    @cached_property
    def _pattern_matrix(self) -> np.ndarray:
        """The patterns as a matrix, a row per region (set by the engines; built from the regions otherwise)."""
        width = self.network.num_neurons
        return np.array([r.pattern for r in self.regions], dtype=np.int64).reshape(len(self.regions), width)

    @cached_property
    def _edge_arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(pairs, switches, neurons)``: the adjacent pairs as an array with two columns, how many neurons
        switch across each and one of them (set by the engines; built from ``adjacency`` otherwise)."""
        pairs = np.array([(i, j) for i, j, _ in self.adjacency], dtype=np.int64).reshape(-1, 2)
        switches = np.array([len(n) for _, _, n in self.adjacency], dtype=np.int64)
        neurons = np.array([min(n, default=0) for _, _, n in self.adjacency], dtype=np.int64)
        return pairs, switches, neurons

    def region_of(self, t: Vector) -> int | None:
        """The index of the region whose interior holds ``t``.

        Parameters
        ----------
        t : sequence of numbers
            A point in domain coordinates (Fractions for an exact answer).

        Returns
        -------
        int or None
            The region's index in ``regions``, or None when ``t`` lies on a boundary or outside the domain.

        Examples
        --------
        >>> from fractions import Fraction
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> complex_ = enumerate_regions(sawtooth(2), box([0], [1]))
        >>> complex_.region_of([Fraction(3, 10)]), complex_.region_of([Fraction(1, 4)])
        (1, None)
        """
        for i, region in enumerate(self.regions):
            if region.contains_strictly(t):
                return i
        return None

    def summary(self) -> dict[str, Any]:
        """The numbers of ``polyregions regions --json``.

        Returns
        -------
        dict
            ``input_dim``, ``domain_dim``, ``neurons``, ``activation_regions``, ``linear_regions``,
            ``adjacencies``, ``exact`` and ``engine``.

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> enumerate_regions(sawtooth(2), box([0], [1])).summary()  # doctest: +NORMALIZE_WHITESPACE
        {'input_dim': 1, 'domain_dim': 1, 'neurons': 4, 'activation_regions': 4, 'linear_regions': 4,
         'adjacencies': 3, 'exact': True, 'engine': 'mesh'}
        """
        return {
            "input_dim": self.network.input_dim,
            "domain_dim": self.domain.dim,
            "neurons": self.network.num_neurons,
            "activation_regions": len(self),
            "linear_regions": self._num_linear_regions(),
            "adjacencies": len(self._edge_arrays[0]),
            "exact": self.exact,
            "engine": self.engine,
        }

    def __repr__(self) -> str:
        """The counts, the domain and the engine in one line (the network and the regions are in the fields)."""
        from polyregions._display import count_text

        exact = "exact" if self.exact else "not certified"
        return (f"<RegionComplex: {count_text(len(self), 'activation region')}, "
                f"{count_text(self._num_linear_regions(), 'linear region')}, "
                f"{count_text(self.network.num_neurons, 'neuron')} on a {self._domain_text()}; "
                f"engine {self.engine or 'unnamed'}, {exact}>")

    def _domain_text(self) -> str:
        """``box [-1, 1]^2``, ``box [0, 1] x [-1, 2]`` or ``slice, dimension 2``: the bounds of a box when they are
        short to write, else its kind and dimension."""
        from polyregions.exact.rationals import format_rational

        domain = self.domain
        if domain.kind == "box" and domain.lower is not None and domain.upper is not None:
            sides = [f"[{format_rational(lo)}, {format_rational(hi)}]" for lo, hi in zip(domain.lower, domain.upper)]
            text = " x ".join(sides) if len(set(sides)) > 1 else sides[0] + (f"^{len(sides)}" if len(sides) > 1 else "")
            if len(text) <= 60:
                return f"box {text}"
        return f"{domain.kind}, dimension {domain.dim}"

    def _repr_html_(self) -> str:
        """A table for notebooks: the domain, the counts, the exact flag and the engine; on a 2-D domain, with
        the picture of :meth:`_repr_png_` beside it.

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> print(enumerate_regions(sawtooth(2), box([0], [1]))._repr_html_())
        <table>
        <caption>RegionComplex</caption>
        <tr><th>domain</th><td>box [0, 1]</td></tr>
        <tr><th>activation regions</th><td>4</td></tr>
        <tr><th>linear regions</th><td>4</td></tr>
        <tr><th>adjacent pairs</th><td>3</td></tr>
        <tr><th>neurons</th><td>4</td></tr>
        <tr><th>exact</th><td>yes</td></tr>
        <tr><th>engine</th><td>mesh</td></tr>
        </table>
        """
        from polyregions._display import display_html, yes_no

        return display_html("RegionComplex", [
            ("domain", self._domain_text()),
            ("activation regions", len(self)),
            ("linear regions", self._num_linear_regions()),
            ("adjacent pairs", len(self._edge_arrays[0])),
            ("neurons", self.network.num_neurons),
            ("exact", yes_no(self.exact)),
            ("engine", self.engine or "unnamed"),
        ], self._repr_png_())

    def _repr_png_(self) -> bytes | None:
        """The regions of a 2-D domain as PNG bytes, drawn once from floating-point polygons
        (:mod:`polyregions.plotting._quick`) with colours hashed from the patterns; None for a domain of
        another dimension, above :data:`polyregions._display.MAX_DRAWN_REGIONS` regions, or without matplotlib.
        :func:`polyregions.plotting.plot_regions` draws the exact picture."""
        from polyregions._display import MAX_DRAWN_REGIONS, cached_picture, png_picture

        if self.domain.dim != 2 or len(self) > MAX_DRAWN_REGIONS:
            return None
        from polyregions.plotting._quick import draw_complex

        return cached_picture(self, lambda: png_picture(lambda ax: draw_complex(ax, self)))


def complex_from_arrays(network, domain, regions: "Sequence[Region]", patterns: np.ndarray,
                        pairs: np.ndarray, *, exact: bool, engine: "Engine") -> RegionComplex:
    """Build a complex with regions sorted by pattern from a pattern matrix (one row per region) and index pairs
    of adjacent regions, vectorised for complexes of many thousands of regions; deferred regions are made when
    the complex's ``regions`` are first read."""
    count, width = patterns.shape
    if width and 0 <= patterns.min() and patterns.max() <= 1:
        order = np.lexsort(_bit_words(patterns).T[::-1])  # the rows' bits, first neuron highest, sort like them
    elif width and 0 <= patterns.min() and patterns.max() < 255:
        # Rows as byte strings sort like the tuples; +1 keeps numpy from dropping trailing zero bytes. The
        # patterns are distinct, so any sort gives the one order.
        keys = np.ascontiguousarray((patterns + 1).astype(np.uint8)).view(f"S{width}").ravel()
        order = np.argsort(keys)
        del keys
    else:
        order = np.lexsort(patterns.T[::-1]) if width else np.arange(count)
    rank = np.empty(count, dtype=np.int64)
    rank[order] = np.arange(count)
    ordered = patterns[order]
    adjacency: Any = ()
    edges = np.zeros((0, 2), dtype=np.int64)
    switches = neurons = np.zeros(0, dtype=np.int64)
    if len(pairs):
        edges = ranked_edges(rank, pairs)
        starts, columns, switches, neurons = switch_arrays(ordered, edges)
        adjacency = partial(_adjacency, edges, starts, columns, switches, neurons, count, width)
    sorted_regions: Any = (partial(regions.ordered, order.tolist()) if isinstance(regions, DeferredRegions)
                           else tuple(map(regions.__getitem__, order.tolist())))
    complex_ = RegionComplex(network, domain, sorted_regions, adjacency, exact=exact, engine=engine)
    # The arrays the counts are computed from, as the cached properties would build them from the tuples.
    complex_.__dict__["_pattern_matrix"] = ordered
    complex_.__dict__["_edge_arrays"] = (edges, switches, neurons)
    if isinstance(regions, DeferredRegions):
        complex_.__dict__["_regions_network"] = regions.network
    return complex_


def ranked_edges(rank: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """The pairs of regions ``pairs`` (an array with two columns; a pair may repeat, either way round) with region
    ``r`` renumbered ``rank[r]``, as ``(i, j)`` with ``i < j``, each once, sorted.

    >>> ranked_edges(np.array([2, 0, 1]), np.array([[0, 1], [1, 0], [2, 0]])).tolist()
    [[0, 2], [1, 2]]
    """
    count = len(rank)
    ranked = np.sort(rank[np.asarray(pairs, dtype=np.int64)], axis=1)
    keys = np.sort(ranked[:, 0] * count + ranked[:, 1])  # sorted like the pairs (i, j)
    keys = keys[np.r_[True, keys[1:] != keys[:-1]]]  # np.unique's masked-array import costs the 2-D job 7 ms
    return np.stack([keys // count, keys % count], axis=1)


def switch_arrays(patterns: np.ndarray, edges: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, columns, switches, neurons)`` of the ``edges`` (pairs of rows of ``patterns``): the neurons
    that switch across edge ``e`` are ``columns[starts[e]:starts[e + 1]]``, ``switches[e]`` of them, and
    ``neurons[e]`` is the first (0 when none), as :func:`~polyregions.regions._linear_regions.linear_region_roots`
    reads them."""
    starts, columns = _switching(patterns, edges)
    switches = np.diff(starts)
    neurons = np.zeros(len(edges), dtype=np.int64)
    neurons[switches > 0] = columns[starts[:-1][switches > 0]]
    return starts, columns, switches, neurons


def _bit_words(patterns: np.ndarray) -> np.ndarray:
    """Patterns of zeros and ones as 64-bit words, 64 neurons each, neuron ``64 w + i`` at bit ``63 - i`` of
    word ``w``."""
    packed = np.packbits(patterns.astype(bool), axis=1)
    padded = np.zeros((len(patterns), -(-packed.shape[1] // 8) * 8), dtype=np.uint8)
    padded[:, :packed.shape[1]] = packed
    return padded.view(">u8").astype(np.uint64)


def _bit_neuron(value: np.ndarray, word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For the XORs ``value`` of two rows of :func:`_bit_words` that differ in word ``word`` alone: whether they
    differ in one bit (one neuron), and for those the neuron."""
    single = (value & (value - np.uint64(1))) == 0  # one set bit: a power of two, exact as a double
    bit = np.log2(value[single].astype(np.float64)).astype(np.int64)
    return single, 64 * word[single] + 63 - bit


def _byte_words(patterns: np.ndarray) -> np.ndarray:
    """Patterns of one byte per neuron as 64-bit words, eight neurons each (neuron ``8 w + b`` at byte ``b`` of
    word ``w``, little-endian)."""
    bytes_ = np.zeros((len(patterns), -(-patterns.shape[1] // 8) * 8), dtype=np.uint8)
    bytes_[:, :patterns.shape[1]] = patterns.view(np.uint8)
    return bytes_.view(np.uint64)


def _byte_neuron(value: np.ndarray, word: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """As :func:`_bit_neuron` for rows of :func:`_byte_words`: whether they differ in one byte (one neuron)."""
    low = value & (~value + np.uint64(1))  # the lowest set bit, a power of two: exact as a double
    byte = (np.log2(low.astype(np.float64)).astype(np.int64)) // 8
    single = (value >> (8 * byte).astype(np.uint64)) < 256  # every set bit in that one byte
    return single, (8 * word + byte)[single]


def _switching(patterns: np.ndarray, edges: np.ndarray, chunk: int = 16384) -> tuple[np.ndarray, np.ndarray]:
    """The neurons that switch across every edge: ``columns[starts[e]:starts[e + 1]]`` for edge ``e``.

    Patterns of small pieces are compared many neurons at a time, as 64-bit words (64 neurons a word when every
    piece is 0 or 1, eight otherwise): an edge whose words differ in one bit (one byte) of one word has one
    switching neuron, found from the lowest set bit of the words' XOR; the others are compared neuron by neuron.
    Edges go in chunks, so that no edges x neurons matrix is ever whole.
    """
    count, width = patterns.shape
    number = np.ones(len(edges), dtype=np.int64)
    first = np.zeros(len(edges), dtype=np.int64)
    slow = np.arange(len(edges))
    packed: tuple[np.ndarray, Callable] | None = None
    if width and len(patterns) and 0 <= patterns.min() and patterns.max() <= 1:
        packed = _bit_words(patterns), _bit_neuron
    elif width and patterns.dtype.itemsize == 1:
        packed = _byte_words(patterns), _byte_neuron
    if packed is not None and len(edges):
        words, neuron_of = packed
        slow_parts = []
        for start in range(0, len(edges), chunk):
            part = edges[start:start + chunk]
            x = words[part[:, 0]] ^ words[part[:, 1]]
            differ = x != 0
            one = np.flatnonzero(differ.sum(axis=1) == 1)
            word = differ[one].argmax(axis=1)
            single, neuron = neuron_of(x[one, word], word)
            first[start + one[single]] = neuron
            mask = np.ones(len(part), dtype=bool)
            mask[one[single]] = False
            slow_parts.append(start + np.flatnonzero(mask))
        slow = np.concatenate(slow_parts)
        del words, packed
    listed: dict[int, np.ndarray] = {}
    for start in range(0, len(slow), chunk):
        part = slow[start:start + chunk]
        rows, columns = np.nonzero(patterns[edges[part, 0]] != patterns[edges[part, 1]])
        number[part] = np.bincount(rows, minlength=len(part))
        bounds = np.searchsorted(rows, np.arange(len(part) + 1))
        for k, e in enumerate(part.tolist()):
            listed[e] = columns[bounds[k]:bounds[k + 1]]
    starts = np.zeros(len(edges) + 1, dtype=np.int64)
    np.cumsum(number, out=starts[1:])
    columns = first[np.repeat(np.arange(len(edges)), number)] if not listed else np.empty(int(starts[-1]), np.int64)
    if listed:
        columns[starts[:-1][number == 1]] = first[number == 1]
        for e, found in listed.items():
            columns[starts[e]:starts[e + 1]] = found
    return starts, columns


def _adjacency(edges: np.ndarray, starts: np.ndarray, columns: np.ndarray, switches: np.ndarray,
               neurons: np.ndarray, count: int, width: int) -> tuple[tuple[int, int, frozenset[int]], ...]:
    """The ``adjacency`` tuple; equal neuron sets (one neuron, mostly) share one frozenset, and region indices
    share their int objects."""
    single = [frozenset((n,)) for n in range(width)]
    sets: list[frozenset[int]] = list(map(single.__getitem__, neurons.tolist()))
    bounds, listed = starts.tolist(), columns.tolist()
    for e in np.flatnonzero(switches != 1).tolist():
        sets[e] = frozenset(listed[bounds[e]:bounds[e + 1]])
    index = list(range(count))
    return tuple(zip(map(index.__getitem__, edges[:, 0].tolist()), map(index.__getitem__, edges[:, 1].tolist()),
                     sets))


__all__ += ["complex_from_arrays", "ranked_edges", "switch_arrays"]
