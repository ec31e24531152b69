"""Exact sublevel persistence and PL Morse points of a one-output network on a bounded domain.

What
----
For ``f`` with one output on a bounded domain ``D``, the sublevel sets ``{f <= t}`` grow with ``t``; their
homology changes only at values of ``f`` at vertices of the region complex (``f`` is affine on each region).
:func:`persistence` gives the persistence diagram of that filtration, with exact birth and death values
(Fractions; ``math.inf`` for the essential classes, which give the homology of ``D``), and the PL Morse critical
vertices with their index and the reduced Betti numbers of their lower links.

How
---
Every face of the complex enters the *lower-star filtration* with the last of its vertices, vertices ordered by
``(value, vertex id)``, and the cells by ``(entry vertex, dimension)``: each prefix ending with the vertices of
value ``t`` is a subcomplex whose union is ``{f <= t}`` (a face lies in ``{f <= t}`` exactly when its largest
vertex value does, because ``f`` is affine on it). The pairs of that filtration are found exactly by
:mod:`~polyregions.measures._persistence_pairs` (union-find in dimensions 0 and ``d - 1``, the standard column
reduction between) and the critical vertices by the homology of each vertex's lower star
(:mod:`~polyregions.measures._persistence_morse`). A pair whose two cells enter at the same value has zero
persistence: it is counted (:attr:`Persistence.zero_pairs`) and left out of :attr:`Persistence.pairs`.

Fields. In dimensions 1 and 2 every column that is reduced is a graph's incidence column (``d_1``, and the
coboundary of ``(d-1)``-cells), so GF(2) and Q give the same pairs, and the result says which was asked for. In
dimension 3 the pairs in degrees ``(1, 2)`` come from a reduction over the asked field (with incidence numbers
over Q) and may differ: the rank of ``H_1(X_s) -> H_1(X_t)`` is field dependent (a solid torus wound twice
inside another maps ``H_1`` by ``2``). Betti numbers of each ``{f <= t}`` themselves never differ in ``R^3``.

Checks (a failure raises :class:`~polyregions.errors.CertificateError`): the essential classes are the homology
of the domain (a point: ``1, 0, ...``); at every vertex the homology of its lower star equals the count read off
the pairs; the Euler characteristic of the complex equals ``sum (-1)^index`` over the critical points (with
multiplicity); the strong Morse inequalities hold.

Examples
--------
A double well ``min(|x - 1|, |x + 1|)`` on ``[-2, 2]``: two minima at 0, one dies at the saddle value 1.

>>> import polyregions as pr
>>> net = pr.Network.from_layers(1, [([[1], [-1], [1], [-1]], [-1, 1, 1, -1], "relu"),
...                                  ([[1, 1, 0, 0], [0, 0, 1, 1]], [0, 0], "relu"),
...                                  ([[1, 0], [1, -1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
>>> [(k, str(b), str(d)) for k, b, d in persistence(net, pr.box([-2], [2])).pairs]
[(0, '0', '1'), (0, '0', 'inf')]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, NamedTuple

import numpy as np

from polyregions.errors import CertificateError, InvalidInputError
from polyregions.measures._homology import FIELDS, Field, homology
from polyregions.measures._persistence_morse import (
    counts_from_pairs,
    lower_star_homology,
    lower_stars,
    plane_lower_star_homology,
)
from polyregions.measures._persistence_pairs import Filtration, fast_pairs, filtration, matrix_pairs
from polyregions.measures._persistence_values import Cells

if TYPE_CHECKING:
    from polyregions.exact.linalg import Vector
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["PersistencePair", "CriticalPoint", "Persistence", "persistence"]

#: The reductions: ``"fast"`` (union-find where it is exact) or ``"matrix"`` (the whole boundary matrix).
Method = Literal["fast", "matrix"]


class PersistencePair(NamedTuple):
    """One class of the diagram: born in ``{f <= birth}``, dead in ``{f <= death}`` (``math.inf``: never)."""

    dimension: int
    birth: Fraction
    death: Fraction | float


@dataclass(frozen=True)
class CriticalPoint:
    """A PL Morse critical vertex.

    Attributes
    ----------
    point : tuple of Fraction
        The vertex, in input coordinates.
    value : Fraction
        ``f`` there.
    lower_link_betti : tuple of int
        The reduced Betti numbers of its lower link in degrees ``-1, 0, ..., d - 1`` (degree ``-1`` is 1 for
        the empty lower link of a minimum); ``h_k = lower_link_betti[k]`` is the homology of the lower star in
        degree ``k``.
    boundary : bool
        Whether the vertex lies on the domain's boundary.
    """

    point: "Vector"
    value: Fraction
    lower_link_betti: tuple[int, ...]
    boundary: bool

    @property
    def indices(self) -> tuple[int, ...]:
        """Every index with its multiplicity (a monkey saddle in the plane is ``(1, 1)``)."""
        return tuple(k for k, h in enumerate(self.lower_link_betti) for _ in range(h))

    @property
    def index(self) -> int:
        """The lowest index (the only one of a nondegenerate critical point)."""
        return self.indices[0]


@dataclass(frozen=True)
class Persistence:
    """The sublevel persistence of ``f`` on a bounded domain (:func:`persistence`).

    Attributes
    ----------
    dim : int
        The domain's dimension.
    field : {"GF(2)", "Q"}
    pairs : tuple of PersistencePair
        The classes of positive persistence and the essential ones, sorted by dimension, birth, death.
    zero_pairs : tuple of int
        Per dimension, the pairs of zero persistence left out of :attr:`pairs`.
    critical_points : tuple of CriticalPoint
        In the filtration's vertex order (by value, then vertex id).
    pair_points : tuple
        Per pair, its birth vertex and its death vertex (None for an essential class), in input coordinates.
    cells : int
        The number of cells of the filtered complex.
    exact : bool
        Whether the complex was certified exactly.
    """

    dim: int
    field: Field
    pairs: tuple[PersistencePair, ...]
    zero_pairs: tuple[int, ...]
    critical_points: tuple[CriticalPoint, ...]
    pair_points: tuple[tuple["Vector", "Vector | None"], ...] = dataclass_field(repr=False)
    cells: int = 0
    exact: bool = True

    @property
    def betti(self) -> tuple[int, ...]:
        """The Betti numbers of the domain, from the essential classes."""
        counts = [0] * (self.dim + 1)
        for k, _, death in self.pairs:
            if death == math.inf:
                counts[k] += 1
        return tuple(counts)

    @property
    def morse_counts(self) -> tuple[int, ...]:
        """``c_k``: the critical points of index ``k``, with multiplicity."""
        counts = [0] * (self.dim + 1)
        for p in self.critical_points:
            for k in p.indices:
                counts[k] += 1
        return tuple(counts)

    @property
    def critical_values(self) -> tuple[Fraction, ...]:
        """The distinct values of ``f`` at critical points, increasing."""
        return tuple(sorted({p.value for p in self.critical_points}))

    def diagram(self, k: int) -> tuple[tuple[Fraction, Fraction | float], ...]:
        """The ``(birth, death)`` points of dimension ``k``."""
        return tuple((b, d) for j, b, d in self.pairs if j == k)

    def betti_at(self, t: Any) -> tuple[int, ...]:
        """The Betti numbers of ``{f <= t}`` read off the diagram: the classes with ``birth <= t < death``."""
        t = Fraction(t)
        counts = [0] * (self.dim + 1)
        for k, b, d in self.pairs:
            if b <= t < d:
                counts[k] += 1
        return tuple(counts)

    def summary(self) -> dict[str, Any]:
        """The JSON of ``polyregions topology --persistence --json``: values as exact strings, ``"inf"`` for an
        essential class's death.

        Examples
        --------
        >>> import polyregions as pr
        >>> net = pr.Network.from_layers(1, [([[1], [-1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])  # |x|
        >>> s = persistence(net, pr.box([-1], [2])).summary()
        >>> s["pairs"], s["critical_points"], s["zero_pairs"]
        ([[0, '0', 'inf']], [{'point': ['0'], 'value': '0', 'index': 0, 'lower_link_betti': [1, 0], \
'boundary': False}], [2, 0])
        """
        from polyregions.exact.rationals import format_rational

        def text(v: Fraction | float) -> str:
            return "inf" if v == math.inf else format_rational(Fraction(v))

        return {
            "dim": self.dim,
            "field": self.field,
            "pairs": [[k, text(b), text(d)] for k, b, d in self.pairs],
            "zero_pairs": list(self.zero_pairs),
            "critical_points": [{"point": [text(x) for x in p.point], "value": text(p.value), "index": p.index,
                                 "lower_link_betti": list(p.lower_link_betti), "boundary": p.boundary}
                                for p in self.critical_points],
            "morse_counts": list(self.morse_counts),
            "betti": list(self.betti),
            "cells": self.cells,
            "exact": self.exact,
        }


def persistence(source: "RegionComplex | Network", domain: "Domain | None" = None, *, field: Field = "GF(2)",
                engine: "Engine" = "auto", method: Method = "fast", progress: bool = False) -> Persistence:
    """The sublevel persistence diagram and the PL Morse points of a one-output network, exactly.

    Parameters
    ----------
    source : RegionComplex or Network
        A region complex of a bounded domain (its faces are filtered), or a network with ``domain``: a dense
        network on a 1-D or 2-D domain then reads the mesh engine's cells directly (faster; the same diagram).
    domain : Domain, optional
        With a network: a bounded domain.
    field : {"GF(2)", "Q"}, keyword-only
        The coefficients (module notes: they differ only in dimension 3 and more).
    engine : {"auto", "mesh", "lp"}, keyword-only
        With a network: the enumeration engine.
    method : {"fast", "matrix"}, keyword-only
        ``"matrix"`` reduces the whole boundary matrix (the reference for the union-find routes).
    progress : bool, keyword-only
        Show the enumeration's progress bar.

    Returns
    -------
    Persistence

    Raises
    ------
    InvalidInputError
        For a network without exactly one output, an unbounded domain, or an unknown field or method.
    CertificateError
        When a check of the module notes fails.

    Examples
    --------
    ``|x| + |y|`` on the square: one minimum, one class that never dies.

    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [-1, 0], [0, 1], [0, -1]], [0, 0, 0, 0], "relu"),
    ...                                  ([[1, 1, 1, 1]], [0], "linear")])
    >>> result = persistence(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])))
    >>> result.pairs, [(p.point, p.index) for p in result.critical_points]
    ((PersistencePair(dimension=0, birth=Fraction(0, 1), death=inf),), [((Fraction(0, 1), Fraction(0, 1)), 0)])
    """
    if field not in FIELDS:
        raise InvalidInputError(f"field: expected one of {', '.join(FIELDS)}, got {field!r}")
    if method not in ("fast", "matrix"):
        raise InvalidInputError(f"method: expected 'fast' or 'matrix', got {method!r}")
    cells = _cells(source, domain, engine, progress)
    return _persistence(cells, field, method)


def _cells(source: Any, domain: "Domain | None", engine: "Engine", progress: bool) -> Cells:
    """The filtered cells: the faces of a given complex, or the cells of the network's complex on ``domain``."""
    from polyregions.measures._persistence_values import cells_from_mesh, cells_of_complex
    from polyregions.regions._arguments import expect_domain, expect_network
    from polyregions.regions.complex import RegionComplex

    if isinstance(source, RegionComplex):
        if domain is not None:
            raise InvalidInputError("persistence: expected no domain with a region complex (it has its own)")
        _one_output(source.network)
        if not source.domain.is_bounded():
            raise InvalidInputError(f"persistence: expected a bounded domain, got an unbounded {source.domain.kind}")
        return cells_of_complex(source)
    network = expect_network(source)
    if domain is None:
        raise InvalidInputError("persistence: expected a domain with a network")
    expect_domain(domain, input_dim=network.input_dim)
    _one_output(network)
    if not domain.is_bounded():
        raise InvalidInputError(f"persistence: expected a bounded domain, got an unbounded {domain.kind}")
    if _mesh_applies(network, domain, engine):
        return cells_from_mesh(network, domain, progress=progress)
    from polyregions.regions.enumeration import enumerate_regions

    return cells_of_complex(enumerate_regions(network, domain, engine=engine, progress=progress))


def _one_output(network: "Network") -> None:
    if network.output_dim != 1:
        raise InvalidInputError(f"persistence: expected a network with one output, got {network.output_dim}")


def _mesh_applies(network: "Network", domain: "Domain", engine: "Engine") -> bool:
    """Whether the mesh engine's cells can be read directly: a dense network on a 1-D or 2-D domain (as the
    decision topology decides)."""
    from polyregions.networks.network import Network

    return (engine in ("auto", "mesh") and domain.dim in (1, 2) and isinstance(network, Network)
            and hasattr(network.layers[0], "activation"))


def _persistence(cells: Cells, field: Field, method: Method) -> Persistence:
    """Filter, pair, find the critical vertices and check them against each other (module notes)."""
    from polyregions._support.runtime import collector_paused

    with collector_paused():
        d = cells.dim
        dims = np.fromiter((k for k, _ in cells.keys), dtype=np.int64, count=len(cells.keys))
        vertex_cells = np.flatnonzero(dims == 0)
        cell_of_vertex = np.empty(len(vertex_cells), dtype=np.int64)
        cell_of_vertex[[cells.keys[c][1][0] for c in vertex_cells.tolist()]] = vertex_cells
        f = filtration(cells.values.by_value, cell_of_vertex, dims, cells.covers)
        facets = _Facets(cells.covers, len(dims))
        sign = None
        if field == "Q" and (d >= 3 or method == "matrix"):
            from polyregions.measures._incidence import IncidenceSigns

            sign = IncidenceSigns(cells.build())
        found = (fast_pairs(f, dims, cells.covers, d, facets.lists, field=field, sign=sign) if method == "fast"
                 else matrix_pairs(f, dims.tolist(), facets.lists(), d, field=field, sign=sign))
        pairs = np.array(found, dtype=np.int64).reshape(-1, 2)
        lower = _lower_star_homology(cells, f, dims, facets, cell_of_vertex, method)
        _check(cells, f, dims, facets, pairs, lower, field, sign, full=method == "matrix" or d >= 3)
        return _result(cells, f, dims, pairs, lower, cell_of_vertex, field)


class _Facets:
    """The facets of every cell, as lists, built when first asked for (the plane's fast route needs none)."""

    def __init__(self, covers: np.ndarray, n: int):
        self.covers, self.n = covers, n
        self._lists: list[list[int]] | None = None

    def lists(self) -> list[list[int]]:
        if self._lists is None:
            self._lists = [[] for _ in range(self.n)]
            for g, c in self.covers.tolist():
                self._lists[c].append(g)
        return self._lists


def _lower_star_homology(cells: Cells, f: Filtration, dims: np.ndarray, facets: _Facets, cell_of_vertex: np.ndarray,
                         method: Method) -> dict[int, tuple[int, ...]]:
    """Per critical vertex, the homology of its lower star: counted on a line or in the plane, from the chain
    complex otherwise (and with ``method="matrix"``, the reference)."""
    if cells.dim <= 2 and method == "fast":
        vertex_of_cell = np.full(len(dims), -1, dtype=np.int64)
        vertex_of_cell[cell_of_vertex] = np.arange(len(cell_of_vertex))
        return plane_lower_star_homology(np.asarray(f.entry, dtype=np.int64), dims, cells.covers, vertex_of_cell,
                                         cells.interior[cell_of_vertex], cells.dim)
    return lower_star_homology(lower_stars(f), dims.tolist(), facets.lists(), cells.dim)


def _check(cells: Cells, f: Filtration, dims: np.ndarray, facets: _Facets, pairs: np.ndarray,
           lower: dict[int, tuple[int, ...]], field: Field, sign: Any, *, full: bool) -> None:
    """The checks of the module notes; ``full`` adds the homology of the whole complex (from its chain complex,
    independently of the pairs) to compare the essential classes with (else they are compared with a point's)."""
    d = cells.dim
    counted = counts_from_pairs(np.asarray(f.entry, dtype=np.int64), dims, pairs, len(cells.values), d)
    if counted != lower:
        wrong = next(v for v in sorted(set(counted) | set(lower)) if counted.get(v) != lower.get(v))
        raise CertificateError(f"persistence: expected the homology of the lower star of vertex "
                               f"{cells.point(wrong)} to be {lower.get(wrong, (0,) * (d + 1))} as read off the "
                               f"pairs, got {counted.get(wrong, (0,) * (d + 1))}")
    essential = tuple(np.bincount(dims[_unpaired(pairs, len(dims))], minlength=d + 1).tolist())
    point = (1,) + (0,) * d
    chi = int(np.where(dims % 2 == 0, 1, -1).sum())
    domain = homology(range(len(dims)), dims.tolist(), facets.lists(), top=d, field=field, sign=sign) if full \
        else point
    if essential != domain or domain != point or chi != 1:
        raise CertificateError(f"persistence: expected the essential classes {essential} to be the homology "
                               f"{domain} of the complex, that of a point {point}, of Euler characteristic {chi}")
    counts = [sum(h[k] for h in lower.values()) for k in range(d + 1)]
    if sum((-1) ** k * c for k, c in enumerate(counts)) != chi:
        raise CertificateError(f"persistence: expected sum (-1)^index over the critical points {counts} to be the "
                               f"Euler characteristic {chi} of the complex")
    for k in range(d + 1):
        if sum((-1) ** (k - j) * (counts[j] - point[j]) for j in range(k + 1)) < 0:
            raise CertificateError(f"persistence: the strong Morse inequality of degree {k} fails for the critical "
                                   f"counts {counts}")


def _unpaired(pairs: np.ndarray, n: int) -> np.ndarray:
    """The cells in no pair (the essential classes), increasing."""
    alone = np.ones(n, dtype=bool)
    alone[pairs.ravel()] = False
    return np.flatnonzero(alone)


def _result(cells: Cells, f: Filtration, dims: np.ndarray, pairs: np.ndarray, lower: dict[int, tuple[int, ...]],
            cell_of_vertex: np.ndarray, field: Field) -> Persistence:
    """The immutable result: the pairs of positive persistence and the essential classes, with their vertices.

    A pair is of zero persistence when its cells enter with one vertex, or with two vertices of one cluster of
    the value order and equal exact values; vertices of different clusters have different values."""
    values = cells.values
    entry = np.asarray(f.entry, dtype=np.int64)
    ends = entry[pairs] if pairs.size else np.zeros((0, 2), dtype=np.int64)
    cluster = np.asarray(values.cluster, dtype=np.int64)
    maybe = (ends[:, 0] != ends[:, 1]) & (cluster[ends[:, 0]] == cluster[ends[:, 1]])
    values.values(ends[maybe].ravel().tolist())  # the ties to decide, in one exact evaluation
    positive = ends[:, 0] != ends[:, 1]
    positive[maybe] = [values[a] != values[b] for a, b in ends[maybe].tolist()]
    zero = tuple(np.bincount(dims[pairs[~positive, 0]], minlength=cells.dim + 1).tolist())
    alone = _unpaired(pairs, len(dims))
    shown = ends[positive].ravel().tolist() + entry[alone].tolist() + list(lower)
    values.values(shown)  # the values shown, in one exact evaluation
    found: list[tuple[PersistencePair, tuple["Vector", "Vector | None"]]] = []
    for (a, _), (u, w) in zip(pairs[positive].tolist(), ends[positive].tolist()):
        found.append((PersistencePair(int(dims[a]), values[u], values[w]), (cells.point(u), cells.point(w))))
    for c, u in zip(alone.tolist(), entry[alone].tolist()):
        found.append((PersistencePair(int(dims[c]), values[u], math.inf), (cells.point(u), None)))
    found.sort(key=lambda item: item[0])
    critical = tuple(CriticalPoint(cells.point(v), values[v], lower[v], not bool(cells.interior[cell_of_vertex[v]]))
                     for v in sorted(lower, key=f.rank.__getitem__))
    return Persistence(cells.dim, field, tuple(p for p, _ in found), zero, critical,
                       tuple(w for _, w in found), len(dims), bool(cells.complex.exact))
