"""The region complex: what every refinement engine returns.

An activation region is a full-dimensional cell of the domain on which every neuron stays on one linear piece
of its activation; it is convex, so it is an H-polytope. Regions live in *domain coordinates* t (a box or
polytope domain uses the input coordinates themselves; a segment or a slice uses the parameters of
``origin + directions^T t``). Linear regions are the connected components of the adjacency graph restricted to
edges across which the network's output map does not change.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np

from polyregions.exact.linalg import Vector

if TYPE_CHECKING:
    import networkx as nx

    from polyregions.networks.network import Network
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

from polyregions.regions._switches import adjacency_of, bit_words, ranked_edges, switch_arrays
from polyregions.regions.region import DeferredRegions, Region

__all__ = ["RegionComplex", "complex_from_arrays"]


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
        return linear_region_roots(self._regions_network, self._pattern_matrix, pairs, switches, neurons,
                                   different=self.__dict__.get("_proven_different"))

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
        from polyregions._support.display import count_text

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
        from polyregions._support.display import display_html, yes_no

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
        another dimension, above :data:`polyregions._support.display.MAX_DRAWN_REGIONS` regions, or without matplotlib.
        :func:`polyregions.plotting.plot_regions` draws the exact picture."""
        from polyregions._support.display import MAX_DRAWN_REGIONS, cached_picture, png_picture

        if self.domain.dim != 2 or len(self) > MAX_DRAWN_REGIONS:
            return None
        from polyregions.plotting._quick import draw_complex

        return cached_picture(self, lambda: png_picture(lambda ax: draw_complex(ax, self)))


def complex_from_arrays(network, domain, regions: "Sequence[Region]", patterns: np.ndarray,
                        pairs: np.ndarray, *, exact: bool, engine: "Engine",
                        different: np.ndarray | None = None) -> RegionComplex:
    """Build a complex with regions sorted by pattern from a pattern matrix (one row per region) and index pairs
    of adjacent regions, vectorised for complexes of many thousands of regions; deferred regions are made when
    the complex's ``regions`` are first read. ``different``: per pair, whether the engine proved the two regions'
    output maps different (the linear regions then need no exact test of that pair)."""
    count, width = patterns.shape
    words = None
    if width and 0 <= patterns.min() and patterns.max() <= 1:
        words = bit_words(patterns)
        order = np.lexsort(words.T[::-1])  # the rows' bits, first neuron highest, sort like them
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
    words = None if words is None else words[order]
    adjacency: Any = ()
    edges = np.zeros((0, 2), dtype=np.int64)
    switches = neurons = np.zeros(0, dtype=np.int64)
    if len(pairs):
        edges = ranked_edges(rank, pairs)
        starts, columns, switches, neurons = switch_arrays(ordered, edges, words)
        adjacency = partial(adjacency_of, edges, starts, columns, switches, neurons, count, width)
    del words
    sorted_regions: Any = (partial(regions.ordered, order.tolist()) if isinstance(regions, DeferredRegions)
                           else tuple(map(regions.__getitem__, order.tolist())))
    complex_ = RegionComplex(network, domain, sorted_regions, adjacency, exact=exact, engine=engine)
    # The arrays the counts are computed from, as the cached properties would build them from the tuples.
    complex_.__dict__["_pattern_matrix"] = ordered
    complex_.__dict__["_edge_arrays"] = (edges, switches, neurons)
    if different is not None and different.any():
        complex_.__dict__["_proven_different"] = _among(edges, ranked_edges(rank, pairs[different]))
    if isinstance(regions, DeferredRegions):
        complex_.__dict__["_regions_network"] = regions.network
    return complex_


def _among(edges: np.ndarray, chosen: np.ndarray) -> np.ndarray:
    """Whether each of the sorted distinct ``edges`` (as :func:`ranked_edges` gives them) is one of ``chosen`` (the
    same kind of array)."""
    count = int(edges.max()) + 1 if edges.size else 1
    keys, wanted = edges[:, 0] * count + edges[:, 1], chosen[:, 0] * count + chosen[:, 1]
    at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
    found = np.zeros(len(edges), dtype=bool)
    found[at[keys[at] == wanted]] = True
    return found
