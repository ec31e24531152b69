"""Local counts from the exact region complex of the neighbourhood taken as a domain.

The box (max norm) is :func:`~polyregions.regions.domains.box`, the l1 ball the polytope of its ``2^n`` facets
``sum_j s_j (x_j - x0_j) <= r`` (``s`` in ``{-1, 1}^n``; small dimensions only), and the Euclidean ball is handled
inside the box that holds it: a region of the box meets the open ball exactly when its exact squared distance to
the centre is below ``r^2`` (the exact projection of :mod:`polyregions.polyhedra._projection`), and two regions are
adjacent inside the ball when the intersection of their closures (their common facet) is that close.

An enumeration in a closed domain returns the full-dimensional cells of the domain, which are exactly the
regions meeting its interior, the open neighbourhood: an open region meets the open box when their intersection
is a non-empty open set.

Examples
--------
>>> from fractions import Fraction
>>> from polyregions.networks.constructions import sawtooth
>>> complex_counts(sawtooth(2), (Fraction(1, 2),), Fraction(1, 8), "inf")  # [3/8, 5/8]: relu(x - 1/2) bends
(2, 2, (1,))
"""

from __future__ import annotations

from fractions import Fraction
from itertools import product
from typing import TYPE_CHECKING

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Vector
from polyregions.measures._local_programs import Norm

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain

__all__ = ["L1_COMPLEX_LIMIT", "neighbourhood_domain", "check_l1_dimension", "complex_counts", "crossing_neurons"]

#: The largest dimension whose l1 ball is written out as a polytope (it has ``2^n`` facets).
L1_COMPLEX_LIMIT = 10


def neighbourhood_domain(centre: Vector, radius: Fraction, norm: Norm) -> "Domain":
    """The domain enumerated for the neighbourhood: the box, the l1 ball, or the box around the Euclidean ball.

    Raises
    ------
    InvalidInputError
        For the l1 ball in a dimension above :data:`L1_COMPLEX_LIMIT`.
    """
    from polyregions.regions.domains import box, polytope_domain

    if norm != "1":
        return box([c - radius for c in centre], [c + radius for c in centre], what="neighbourhood")
    n = len(centre)
    check_l1_dimension(n)
    A = [tuple(Fraction(s) for s in signs) for signs in product((1, -1), repeat=n)]
    b = [radius + sum((a * c for a, c in zip(row, centre)), Fraction(0)) for row in A]
    return polytope_domain(A, b, what="neighbourhood")


def check_l1_dimension(n: int) -> None:
    """Raise :class:`~polyregions.errors.InvalidInputError` when the l1 ball of ``R^n`` is too large to write out."""
    if n > L1_COMPLEX_LIMIT:
        raise InvalidInputError(f"engine: expected \"cells\" for the l1 ball in dimension {n} (its polytope has "
                                f"2^{n} facets; \"complex\" writes it out up to dimension {L1_COMPLEX_LIMIT})")


def complex_counts(network: "Network", centre: Vector, radius: Fraction,
                   norm: Norm) -> tuple[int, int, tuple[int, ...]]:
    """``(activation regions, linear regions, crossing neurons)`` inside the neighbourhood, from its complex."""
    from polyregions.regions.enumeration import enumerate_regions

    complex_ = enumerate_regions(network, neighbourhood_domain(centre, radius, norm))
    if norm == "2":
        complex_ = _inside_ball(complex_, centre, radius)
    return len(complex_), len(complex_.linear_regions), crossing_neurons(complex_)


def _inside_ball(complex_: "RegionComplex", centre: Vector, radius: Fraction) -> "RegionComplex":
    """The regions of the box that meet the open ball, and their adjacency inside it."""
    from polyregions.polyhedra._projection import project
    from polyregions.regions.complex import RegionComplex

    limit = radius * radius
    kept = [i for i, region in enumerate(complex_.regions)
            if project(centre, region.A, region.b).squared_distance < limit]
    index = {i: k for k, i in enumerate(kept)}
    regions = complex_.regions
    adjacency = tuple((index[i], index[j], neurons) for i, j, neurons in complex_.adjacency
                      if i in index and j in index
                      and project(centre, regions[i].A + regions[j].A, regions[i].b + regions[j].b).squared_distance
                      < limit)
    return RegionComplex(complex_.network, complex_.domain, tuple(regions[i] for i in kept), adjacency,
                         exact=complex_.exact, engine=complex_.engine)


def crossing_neurons(complex_: "RegionComplex") -> tuple[int, ...]:
    """The neurons whose pre-activation is above one of its breakpoints on some region of the complex and below it
    on another (exact: a region on a piece left of the breakpoint is below it unless the pre-activation is
    constant there, which its interior point tells)."""
    from polyregions.networks._neuron_maps import exact_preactivations

    regions = complex_.regions
    if len(regions) < 2:
        return ()
    patterns = np.array([r.pattern for r in regions], dtype=np.int64)
    net = regions[0].network
    if hasattr(net, "region_rows"):  # a graph network's stages
        return _staged_crossing(net, regions, patterns)
    values: dict[int, tuple] = {}
    found = []
    for u, (l, unit) in enumerate(net.neurons):
        for k, xi in enumerate(net.layers[l].activation.breakpoints):
            column = patterns[:, u]
            if not (column > k).any():
                continue
            below = bool((column < k).any())
            for i in np.flatnonzero(column == k).tolist() if not below else ():
                if i not in values:
                    values[i] = exact_preactivations(net, [regions[i].interior_point])[0]
                if values[i][l][unit] < xi:
                    below = True
                    break
            if below:
                found.append(u)
                break
    return tuple(found)


def _staged_crossing(net, regions, patterns: np.ndarray) -> tuple[int, ...]:
    """:func:`crossing_neurons` for a graph network's stages: an element-wise neuron as for dense networks (its
    exact pre-activation at an interior point settles a region on the piece left of a breakpoint), a max unit
    when its argmax is not the same on every region."""
    values: dict[int, tuple] = {}
    found = []
    for u, (s, unit) in enumerate(net.neurons):
        column = patterns[:, u]
        stage = net.layers[s]
        if unit >= len(stage.activations):
            if (column != column[0]).any():
                found.append(u)
            continue
        for k, xi in enumerate(stage.activations[unit].breakpoints):
            if not (column > k).any():
                continue
            below = bool((column < k).any())
            for i in np.flatnonzero(column == k).tolist() if not below else ():
                if i not in values:
                    values[i] = net.preactivations(regions[i].interior_point)
                if values[i][s][unit] < xi:
                    below = True
                    break
            if below:
                found.append(u)
                break
    return tuple(found)
