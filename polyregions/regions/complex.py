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
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Literal

import networkx as nx
import numpy as np

from polyregions.exact.linalg import Matrix, Vector, dot

if TYPE_CHECKING:
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
    pattern : tuple of int
        The activation pattern, as given.
    network : Network
        The network in domain coordinates, as given. ``A``, ``b``, ``interior_point``, ``output_map``,
        ``dim`` and ``polytope`` are properties, documented below.

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

    pattern: tuple[int, ...]
    network: "Network"
    _geometry: Callable[[], tuple[Matrix, Vector, Vector]]

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
        region._set(pattern, network, geometry)
        return region

    def _set(self, pattern, network, geometry) -> None:
        object.__setattr__(self, "pattern", pattern)
        object.__setattr__(self, "network", network)
        object.__setattr__(self, "_geometry", geometry)

    def __setattr__(self, name, value):
        raise AttributeError(f"Region is immutable: cannot set {name!r}")

    @cached_property
    def _exact(self) -> tuple[Matrix, Vector, Vector]:
        return self._geometry()

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
        return f"Region(pattern={self.pattern!r})"

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
        """A table for notebooks: the pattern, the number of inequalities, the interior point, boundedness.

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
        from polyregions._display import html_table, yes_no
        from polyregions.exact.rationals import format_rational

        point = "(" + ", ".join(format_rational(Fraction(v)) for v in self.interior_point) + ")"
        return html_table("Region", [("pattern", self.pattern), ("inequalities", len(self.A)),
                                     ("interior point", point), ("bounded", yes_no(self.polytope.is_bounded()))])

    def _repr_png_(self) -> bytes | None:
        """A picture of a 2-D region (its polygon and interior point) as PNG bytes; None in another dimension
        or without matplotlib."""
        if self.dim != 2:
            return None
        from polyregions._display import png_picture
        from polyregions.plotting.polygons import default_window, polygon_from_inequalities, window_polygon
        from polyregions.plotting.regions import _edge_collection, _finish, draw_polygons

        point = self.interior_point
        window = default_window([point, *self.polytope.vertices()])
        polygon = polygon_from_inequalities(self.A, self.b, window=window_polygon(*window))

        def draw(ax):
            draw_polygons(ax, [polygon], ["#8fb3de"])
            rows = polygon.edge_segments(lambda label: label[0] == "row")  # not the window's edges
            _edge_collection(ax, rows, color="black", linewidth=0.8, zorder=2)
            ax.plot([float(point[0])], [float(point[1])], "k.", zorder=3)
            _finish(ax, window, labels=("t1", "t2"), title=f"pattern {self.pattern}")

        return png_picture(draw)


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
    regions: tuple[Region, ...]
    adjacency: tuple[tuple[int, int, frozenset[int]], ...]
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
        return len(self.regions)

    @cached_property
    def graph(self) -> nx.Graph:
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
        the output map ``(M, c)`` stays the same (decided exactly).

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
        from polyregions.regions._affine_maps import float_output_maps, maps_certainly_differ

        same_map = nx.Graph()
        same_map.add_nodes_from(range(len(self.regions)))
        if self.adjacency:
            net = self.regions[0].network
            maps, bounds = float_output_maps(net, [r.pattern for r in self.regions])
            same_map.add_edges_from(
                (i, j) for i, j, _ in self.adjacency
                if not maps_certainly_differ(maps, bounds, i, j)
                and self.regions[i].output_map == self.regions[j].output_map)
        return tuple(sorted((frozenset(c) for c in nx.connected_components(same_map)), key=min))

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
            "activation_regions": len(self.regions),
            "linear_regions": len(self.linear_regions),
            "adjacencies": len(self.adjacency),
            "exact": self.exact,
            "engine": self.engine,
        }

    def _repr_html_(self) -> str:
        """A table for notebooks: the domain, the counts, the exact flag and the engine.

        Examples
        --------
        >>> from polyregions.networks.constructions import sawtooth
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> print(enumerate_regions(sawtooth(2), box([0], [1]))._repr_html_())
        <table>
        <caption>RegionComplex</caption>
        <tr><th>domain</th><td>box, dimension 1</td></tr>
        <tr><th>activation regions</th><td>4</td></tr>
        <tr><th>linear regions</th><td>4</td></tr>
        <tr><th>adjacent pairs</th><td>3</td></tr>
        <tr><th>neurons</th><td>4</td></tr>
        <tr><th>exact</th><td>yes</td></tr>
        <tr><th>engine</th><td>mesh</td></tr>
        </table>
        """
        from polyregions._display import html_table, yes_no

        return html_table("RegionComplex", [
            ("domain", f"{self.domain.kind}, dimension {self.domain.dim}"),
            ("activation regions", len(self.regions)),
            ("linear regions", len(self.linear_regions)),
            ("adjacent pairs", len(self.adjacency)),
            ("neurons", self.network.num_neurons),
            ("exact", yes_no(self.exact)),
            ("engine", self.engine or "unnamed"),
        ])

    def _repr_png_(self) -> bytes | None:
        """The regions of a 2-D domain drawn by :func:`polyregions.plotting.plot_regions`, as PNG bytes; None
        for a domain of another dimension or without matplotlib."""
        if self.domain.dim != 2:
            return None
        from polyregions._display import png_picture
        from polyregions.plotting.regions import plot_regions

        return png_picture(lambda ax: plot_regions(self, ax=ax))


def sorted_complex(network, domain, regions: list[Region], adjacency_by_pattern: set[tuple[tuple, tuple]],
                   *, exact: bool, engine: "Engine") -> RegionComplex:
    """Build a complex with regions sorted by pattern from adjacency given as pairs of patterns."""
    position = {r.pattern: i for i, r in enumerate(regions)}
    width = len(regions[0].pattern) if regions else 0
    patterns = np.array([r.pattern for r in regions], dtype=np.int64).reshape(len(regions), width)
    pairs = np.array([(position[p], position[q]) for p, q in adjacency_by_pattern], dtype=np.int64).reshape(-1, 2)
    return complex_from_arrays(network, domain, regions, patterns, pairs, exact=exact, engine=engine)


def complex_from_arrays(network, domain, regions: list[Region], patterns: np.ndarray, pairs: np.ndarray,
                        *, exact: bool, engine: "Engine") -> RegionComplex:
    """Build a complex with regions sorted by pattern from a pattern matrix (one row per region) and index pairs
    of adjacent regions, vectorised for complexes of many thousands of regions."""
    count, width = patterns.shape
    if width and 0 <= patterns.min() and patterns.max() < 255:
        # Rows as byte strings sort like the tuples; +1 keeps numpy from dropping trailing zero bytes.
        keys = np.ascontiguousarray((patterns + 1).astype(np.uint8)).view(f"S{width}").ravel()
        order = np.argsort(keys, kind="stable")
    else:
        order = np.lexsort(patterns.T[::-1]) if width else np.arange(count)
    rank = np.empty(count, dtype=np.int64)
    rank[order] = np.arange(count)
    adjacency: tuple = ()
    if len(pairs):
        edges = np.unique(np.sort(rank[np.asarray(pairs)], axis=1), axis=0)
        ordered = patterns[order]
        rows, columns = np.nonzero(ordered[edges[:, 0]] != ordered[edges[:, 1]])
        bounds = np.searchsorted(rows, np.arange(len(edges) + 1)).tolist()
        neurons = columns.tolist()
        adjacency = tuple((i, j, frozenset(neurons[bounds[e]:bounds[e + 1]]))
                          for e, (i, j) in enumerate(edges.tolist()))
    return RegionComplex(network, domain, tuple(regions[i] for i in order.tolist()), adjacency,
                         exact=exact, engine=engine)


__all__ += ["sorted_complex", "complex_from_arrays"]
