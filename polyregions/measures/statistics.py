"""Statistics of the regions of a complex: exact volumes, numbers of facets, inradii, and their histograms.

For every activation region of a :class:`~polyregions.regions.complex.RegionComplex`, in the domain's coordinates
(the input coordinates for boxes and polytopes):

``volumes``
    the exact ``d``-volume (:meth:`Polytope.volume() <polyregions.polyhedra.polytope.Polytope.volume>`), None for
    an unbounded region; the volumes of a bounded domain's regions sum to its volume exactly.
``facets``
    the number of facets, as two counts: ``neighbours``, the facets shared with another region (the region's
    degree in the adjacency graph: two convex regions share at most one facet, and across the relative interior
    of a facet there is a single region, since a neuron whose zero set split the far side there would be affine
    on the near region and cut it too), and ``boundary_facets``, the facets on the boundary of the domain. The
    facets are counted independently, from the region's exact vertices (a row is a facet when its tight
    vertices span a hyperplane) or, for an unbounded region, from its irredundant inequalities, and must equal
    the sum (else :class:`~polyregions.errors.CertificateError`).
``inradius``
    the radius of the largest Euclidean ball inside the region, as a certified interval ``(lo, hi)`` of exact
    rationals (:meth:`Polytope.chebyshev_ball <polyregions.polyhedra.polytope.Polytope.chebyshev_ball>`: the
    radius is a ratio involving the square roots of the rows' norms, so neither a rational nor in general a sum
    of surds), ``hi <= lo (1 + 2^-bits)``, and ``lo == hi`` when the program's bounds on the rows' lengths are
    exact (rows of integer length); None when the region holds arbitrarily large balls.

The average number of facets and Gaines & Bi's bound
------------------------------------------------------
Gaines & Bi (ICLR 2026) bound the average number of facets of the regions of a ReLU network by ``2 d`` in input
dimension ``d``. We have not been able to check the paper's exact statement; as we understand it, its
hypotheses are: the regions of the network on all of ``R^d`` (no domain boundary), parameters in general
position (no two neurons' hyperplanes coinciding, no degenerate bends), so that every facet is shared by exactly
two regions. The classical case it extends is a simple arrangement of ``n`` hyperplanes, where the average is
``2 n sum_{i<d} C(n-1, i) / sum_{i<=d} C(n, i)``, below ``2 d`` and tending to it. In a bounded domain the facets
on the boundary count too, and a box cut by parallel hyperplanes already reaches ``2 d`` exactly; so
:meth:`RegionStatistics.within_gaines_bi` is a comparison, not a check of the theorem.

Examples
--------
A square cut by its two diagonals: four triangles of area 1/4, each with two neighbours and one side on the
boundary:

>>> import polyregions as pr
>>> from polyregions.measures.statistics import region_statistics
>>> net = pr.Network.from_layers(2, [([[1, 1], [1, -1]], [-1, 0], "relu")])  # x + y = 1, x = y
>>> stats = region_statistics(pr.enumerate_regions(net, pr.box([0, 0], [1, 1])))
>>> stats.volumes
(Fraction(1, 4), Fraction(1, 4), Fraction(1, 4), Fraction(1, 4))
>>> stats.neighbours.tolist(), stats.boundary_facets.tolist(), stats.average_facets(), stats.gaines_bi_bound()
([2, 2, 2, 2], [1, 1, 1, 1], Fraction(3, 1), 4)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from polyregions.errors import CertificateError, InvalidInputError, UnboundedError
from polyregions.exact._integers import primitive
from polyregions.exact.linalg import rank
from polyregions.regions._arguments import expect_complex

if TYPE_CHECKING:
    from polyregions.polyhedra.polytope import Polytope
    from polyregions.regions.complex import RegionComplex

__all__ = ["RegionStatistics", "region_statistics"]


@dataclass(frozen=True)
class RegionStatistics:
    """Per-region statistics of a complex (see :mod:`polyregions.measures.statistics`).

    Attributes
    ----------
    dim : int
        The dimension ``d`` of the domain.
    volumes : tuple of (Fraction or None)
        Exact ``d``-volumes in domain coordinates; None for unbounded regions.
    neighbours : ndarray of int64
        Facets shared with another region (the degree in the adjacency graph).
    boundary_facets : ndarray of int64
        Facets on the boundary of the domain.
    inradii : tuple of ((Fraction, Fraction) or None)
        Certified bounds ``lo <= r <= hi`` on the Euclidean inradius; None when unbounded.

    Examples
    --------
    >>> import polyregions as pr
    >>> from polyregions.measures.statistics import region_statistics
    >>> stats = region_statistics(pr.enumerate_regions(pr.sawtooth(2), pr.box([0], [1])))
    >>> len(stats), stats.facets.tolist(), stats.inradii[0]
    (4, [2, 2, 2, 2], (Fraction(1, 8), Fraction(1, 8)))
    """

    dim: int
    volumes: tuple[Fraction | None, ...]
    neighbours: np.ndarray
    boundary_facets: np.ndarray
    inradii: tuple[tuple[Fraction, Fraction] | None, ...]

    def __len__(self) -> int:
        return len(self.volumes)

    @property
    def facets(self) -> np.ndarray:
        """The number of facets of every region: ``neighbours + boundary_facets``."""
        return self.neighbours + self.boundary_facets

    def average_facets(self) -> Fraction:
        """The exact average number of facets over the regions (0 for no region)."""
        return Fraction(int(self.facets.sum()), len(self)) if len(self) else Fraction(0)

    def gaines_bi_bound(self) -> int:
        """``2 d``: Gaines & Bi's bound on the average number of facets (see the module notes for its
        hypotheses)."""
        return 2 * self.dim

    def within_gaines_bi(self) -> bool:
        """Whether the average number of facets is at most ``2 d`` (a comparison, not a check of the theorem: see
        the module notes)."""
        return self.average_facets() <= self.gaines_bi_bound()

    def volume_histogram(self, *, bins: int | Sequence[float] = 10) -> tuple[np.ndarray, np.ndarray]:
        """``(counts, edges)`` of the bounded regions' volumes (as doubles), as :func:`numpy.histogram`."""
        return np.histogram([float(v) for v in self.volumes if v is not None], bins=bins)

    def facet_histogram(self) -> np.ndarray:
        """``counts[k]``: the number of regions with ``k`` facets (:func:`numpy.bincount`)."""
        return np.bincount(self.facets, minlength=1)

    def inradius_histogram(self, *, bins: int | Sequence[float] = 10) -> tuple[np.ndarray, np.ndarray]:
        """``(counts, edges)`` of the inradii (lower bounds, as doubles) of the regions with a finite one."""
        return np.histogram([float(r[0]) for r in self.inradii if r is not None], bins=bins)

    def summary(self) -> dict[str, Any]:
        """Counts and averages: ``regions``, ``dim``, ``bounded_regions``, ``total_volume`` (exact string, or
        None when a region is unbounded), ``average_facets`` (exact string), ``gaines_bi_bound`` and
        ``facet_histogram``."""
        from polyregions.exact.rationals import format_rational

        bounded = [v for v in self.volumes if v is not None]
        total = sum(bounded, Fraction(0)) if len(bounded) == len(self) else None
        return {"regions": len(self), "dim": self.dim, "bounded_regions": len(bounded),
                "total_volume": None if total is None else format_rational(total),
                "average_facets": format_rational(self.average_facets()), "gaines_bi_bound": self.gaines_bi_bound(),
                "facet_histogram": self.facet_histogram().tolist()}


def _facet_rows(polytope: "Polytope") -> list[tuple[int, ...]]:
    """The primitive rows ``(a, b)`` of the facets of a full-dimensional polytope, one per facet."""
    vrep = polytope.generators()
    if vrep.rays or vrep.lines:
        canonical = polytope.irredundant()
        return [primitive((*a, b)) for a, b in zip(canonical.A, canonical.b)]
    tight: list[set[int]] = [set() for _ in polytope.A]
    for g, rows in enumerate(vrep.point_rows):
        for i in rows:
            tight[i].add(g)
    facets: dict[frozenset[int], tuple[int, ...]] = {}
    d = polytope.dim
    for i, vertices in enumerate(tight):
        key = frozenset(vertices)
        if len(vertices) < d or key in facets:
            continue
        points = [vrep.points[g] for g in sorted(vertices)]
        base = points[0]
        if rank([tuple(x - y for x, y in zip(p, base)) for p in points[1:]]) == d - 1:
            facets[key] = primitive((*polytope.A[i], polytope.b[i]))
    return list(facets.values())


def _length_is_exact(row: Sequence[Fraction], bits: int) -> bool:
    from polyregions.exact.surds import sqrt_upper_bound

    squared = sum((v * v for v in row), Fraction(0))
    return sqrt_upper_bound(squared, bits=bits) ** 2 == squared


def region_statistics(complex_: "RegionComplex", *, bits: int = 40) -> RegionStatistics:
    """Exact volumes, facet counts and certified inradii of every region of a complex.

    Parameters
    ----------
    complex_ : RegionComplex
    bits : int, keyword-only
        The inradius intervals are within a relative ``2^-bits``.

    Returns
    -------
    RegionStatistics

    Raises
    ------
    InvalidInputError
        When ``bits`` is not a positive integer.
    CertificateError
        When a region's facets counted from its own geometry differ from its neighbours plus its facets on the
        domain's boundary (which would mean an inconsistent complex).

    Examples
    --------
    A square cut by the lines ``x = 1/2`` and ``y = 1/4``: four rectangles, each with two neighbours and two
    sides on the boundary, with inradii 1/8, 1/8, 1/4 and 1/4:

    >>> import polyregions as pr
    >>> from polyregions.measures.statistics import region_statistics
    >>> net = pr.Network.from_layers(2, [([[2, 0], [0, 4]], [-1, -1], "relu")])
    >>> stats = region_statistics(pr.enumerate_regions(net, pr.box([0, 0], [1, 1])))
    >>> sorted(stats.volumes)
    [Fraction(1, 8), Fraction(1, 8), Fraction(3, 8), Fraction(3, 8)]
    >>> sorted(lo for lo, hi in stats.inradii)
    [Fraction(1, 8), Fraction(1, 8), Fraction(1, 4), Fraction(1, 4)]
    >>> stats.facets.tolist(), stats.within_gaines_bi()
    ([4, 4, 4, 4], True)
    """
    expect_complex(complex_)
    if isinstance(bits, bool) or not isinstance(bits, int) or bits < 1:
        raise InvalidInputError(f"bits: expected a positive integer, got {bits!r}")
    domain = complex_.domain
    boundary = set(_facet_rows(domain.region)) if domain.region.A else set()
    degree = np.zeros(len(complex_.regions), dtype=np.int64)
    for i, j, _ in complex_.adjacency:
        degree[i] += 1
        degree[j] += 1
    volumes: list[Fraction | None] = []
    on_boundary = np.zeros(len(complex_.regions), dtype=np.int64)
    inradii: list[tuple[Fraction, Fraction] | None] = []
    for index, region in enumerate(complex_.regions):
        polytope = region.polytope
        rows = _facet_rows(polytope)
        on_boundary[index] = sum(1 for row in rows if row in boundary)
        if len(rows) != degree[index] + on_boundary[index]:
            raise CertificateError(f"region {index}: expected {degree[index]} neighbours plus {on_boundary[index]} "
                                   f"facets on the domain's boundary, got {len(rows)} facets")
        vrep = polytope.generators()  # computed for the facets already: bounded when it has no rays or lines
        volumes.append(polytope.volume() if vrep.points and not (vrep.rays or vrep.lines) else None)
        try:
            _, radius = polytope.chebyshev_ball(bits=bits)
        except UnboundedError:
            inradii.append(None)
            continue
        # When the bounds the program uses for the rows' lengths are the lengths, its radius is exact.
        exact = all(_length_is_exact(row, bits) for row in polytope.A)
        inradii.append((radius, radius if exact else radius * (1 + Fraction(1, 2 ** bits))))
    return RegionStatistics(domain.dim, tuple(volumes), degree, on_boundary, tuple(inradii))
