"""The region complex: what every refinement engine returns.

An activation region is a full-dimensional cell of the domain on which every neuron stays on one linear piece
of its activation; it is convex, so it is an H-polytope. Regions live in *domain coordinates* t (a box or
polytope domain uses the input coordinates themselves; a segment or a slice uses the parameters of
``origin + directions^T t``). Linear regions are the connected components of the adjacency graph restricted to
edges across which the network's output map does not change.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable

import networkx as nx
import numpy as np

from polyregions.exact.linalg import Matrix, Vector, dot

if TYPE_CHECKING:
    from polyregions.regions.domains import Domain
    from polyregions.networks.network import Network
    from polyregions.polyhedra.polytope import Polytope

__all__ = ["Region", "RegionComplex"]


class Region:
    """One activation region (immutable).

    An engine may defer ``A``, ``b`` and ``interior_point`` (:meth:`deferred`): counts, patterns, adjacency
    and linear regions never need them, and building them exactly for every region up front would dominate
    the time of a 2-D run.

    Attributes
    ----------
    pattern : tuple of int
        The linear piece of every neuron (flat, in the order of ``Network.neurons``).
    A, b : the region ``{t : A t <= b}`` in domain coordinates (exact; rows may be redundant).
    interior_point : tuple of Fraction
        An exact point with ``A t < b`` in every row.
    network : Network
        The network in domain coordinates (``Network.restrict`` of the original), which gives the region's
        exact output map on demand.

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

    def __init__(self, pattern: tuple[int, ...], A: Matrix, b: Vector, interior_point: Vector,
                 network: "Network"):
        geometry = (A, b, interior_point)
        self._set(tuple(pattern), network, lambda: geometry)

    @classmethod
    def deferred(cls, pattern: tuple[int, ...], network: "Network",
                 geometry: Callable[[], tuple[Matrix, Vector, Vector]]) -> "Region":
        """A region whose ``(A, b, interior_point)`` are computed by ``geometry()`` on first use."""
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
        return self._exact[0]

    @property
    def b(self) -> Vector:
        return self._exact[1]

    @property
    def interior_point(self) -> Vector:
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
        """``(M, c)``: the network's output on the region is ``M t + c`` (exact)."""
        return self.network.affine_map(self.pattern)

    @property
    def dim(self) -> int:
        return len(self.interior_point)

    @property
    def polytope(self) -> "Polytope":
        from polyregions.polyhedra.polytope import Polytope
        return Polytope(self.A, self.b, self.dim)

    def contains_strictly(self, t: Vector) -> bool:
        """Whether t lies in the open region (exact)."""
        return all(dot(row, t) < bi for row, bi in zip(self.A, self.b))


@dataclass(frozen=True)
class RegionComplex:
    """The activation regions of a network in a domain, their adjacency and their linear regions.

    Attributes
    ----------
    network : Network
        The network, on its own input space.
    domain : Domain
    regions : tuple of Region
        Sorted by pattern, so that two engines give equal complexes.
    adjacency : tuple of (i, j, neurons)
        One entry per pair of regions (i < j) whose closures share a facet; ``neurons`` is the frozenset of
        neurons whose piece differs between them.
    exact : bool
        True when every decision behind the complex was certified exactly.
    engine : str
        Which refinement engine produced it.
    """

    network: "Network"
    domain: "Domain"
    regions: tuple[Region, ...]
    adjacency: tuple[tuple[int, int, frozenset[int]], ...]
    exact: bool = True
    engine: str = ""

    def __len__(self) -> int:
        return len(self.regions)

    @cached_property
    def graph(self) -> nx.Graph:
        """The region adjacency graph: node i is ``regions[i]``; edges carry ``neurons``."""
        graph = nx.Graph()
        for i, region in enumerate(self.regions):
            graph.add_node(i, pattern=region.pattern)
        for i, j, neurons in self.adjacency:
            graph.add_edge(i, j, neurons=tuple(sorted(neurons)))
        return graph

    @cached_property
    def linear_regions(self) -> tuple[frozenset[int], ...]:
        """The linear regions, as sets of activation-region indices (sorted by smallest member)."""
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
        """The index of the region whose interior holds t, or None (t on a boundary or outside)."""
        for i, region in enumerate(self.regions):
            if region.contains_strictly(t):
                return i
        return None

    def summary(self) -> dict[str, Any]:
        """The numbers of ``polyregions regions --json``."""
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


def sorted_complex(network, domain, regions: list[Region], adjacency_by_pattern: set[tuple[tuple, tuple]],
                   *, exact: bool, engine: str) -> RegionComplex:
    """Build a complex with regions sorted by pattern from adjacency given as pairs of patterns."""
    position = {r.pattern: i for i, r in enumerate(regions)}
    width = len(regions[0].pattern) if regions else 0
    patterns = np.array([r.pattern for r in regions], dtype=np.int64).reshape(len(regions), width)
    pairs = np.array([(position[p], position[q]) for p, q in adjacency_by_pattern], dtype=np.int64).reshape(-1, 2)
    return complex_from_arrays(network, domain, regions, patterns, pairs, exact=exact, engine=engine)


def complex_from_arrays(network, domain, regions: list[Region], patterns: np.ndarray, pairs: np.ndarray,
                        *, exact: bool, engine: str) -> RegionComplex:
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
        columns = columns.tolist()
        adjacency = tuple((i, j, frozenset(columns[bounds[e]:bounds[e + 1]]))
                          for e, (i, j) in enumerate(edges.tolist()))
    return RegionComplex(network, domain, tuple(regions[i] for i in order.tolist()), adjacency,
                         exact=exact, engine=engine)


__all__ += ["sorted_complex", "complex_from_arrays"]
