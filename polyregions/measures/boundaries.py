"""The boundary ``B_N`` of a region complex and its pieces ``B_{N,k}`` (Hanin & Rolnick), read off its faces
(:mod:`~polyregions.measures.faces`).

Everything is in the domain's own coordinates ``t`` and about the network restricted to the domain
(``t -> N(origin + directions^T t)``), as for linear regions. ``B_N`` is the closure, inside the open domain, of
the set where the gradient of the network is discontinuous. A ``(d-1)``-face between two regions lies in ``B_N``
exactly when the output map differs on the two sides (two affine maps that agree on a hyperplane and have the
same gradient are equal), and ``B_N`` is the union of these closed faces; a lower-dimensional face is in
``B_N`` when it lies in one of them. Faces on the boundary of the domain are not part of ``B_N`` (for random
weights this changes nothing almost surely; it makes ``B_N`` depend on the network inside the domain only).

``B_{N,k}`` follows Hanin & Rolnick's eq. (5) literally: ``B_{N,1}`` is the set of points of ``B_N`` near which
``B_N`` is a hyperplane, and recursively ``B_{N,k}`` is the set of points of ``B_N`` minus ``B_{N,1..k-1}``
near which that remainder is an affine plane of codimension ``k``. The recursion is constant on the relative
interior of every face; for a face ``G`` it is decided from the faces of ``B_N`` around ``G`` still present at
step ``j``: they form a ``(d-j)``-plane near ``G`` exactly when (a) all of them, with ``G``, span an affine
space of dimension ``d - j`` and (b) around ``G`` every facet of a ``(d-j)``-dimensional one that contains ``G``
is shared by exactly two of them (a closed pseudomanifold link inside a sphere of the same dimension is the
whole sphere). A face of dimension ``d - k`` that is not merged into a lower ``k`` is in ``B_{N,k}``.

In 2-D: ``B_{N,1}`` is the union of the open boundary segments (with the points where a straight boundary line
is crossed by an activation boundary that does not change the output), and ``B_{N,2}`` the vertices of ``B_N``
inside the domain, the points where ``B_N`` is not locally a straight line (crossings, bends, ends). For generic
weights ``B_{N,k}`` is the set of points where exactly ``k`` neurons are tight and each of them is "good" (its
switch changes the output): the ``(d-k)``-faces with ``k`` tight neurons.

Examples
--------
>>> from polyregions.networks.network import Network
>>> from polyregions.regions.domains import box
>>> from polyregions.regions.enumeration import enumerate_regions
>>> net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
>>> b = boundary(enumerate_regions(net, box([-1, -1], [1, 1])))
>>> [len(b.pieces(k)) for k in (1, 2)]
[4, 1]
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from polyregions.regions._arguments import expect_complex

if TYPE_CHECKING:
    pass

from polyregions.measures.faces import FaceComplex, face_complex

__all__ = ["Boundary", "boundary"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class Boundary:
    """``B_N`` and its pieces ``B_{N,k}`` as unions of relatively open faces of the complex.

    Made by :func:`boundary`; faces are indices into ``faces.faces``.

    Attributes
    ----------
    faces : FaceComplex
        The complex the faces belong to.
    facets : tuple of int
        The ``(d-1)``-faces across which the output map changes (``B_N`` is the union of their closures).
    strata : tuple of int
        For every face, the ``k`` with its relative interior in ``B_{N,k}``, or 0 when it is not in ``B_N``.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0]], [0], "relu")])  # one bend, along x = 0
    >>> b = pr.boundary(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])))
    >>> b.dim, len(b.facets), b.pieces(1) == b.facets, b.pieces(2)
    (2, 1, True, ())
    """

    faces: FaceComplex
    facets: tuple[int, ...]
    strata: tuple[int, ...]

    @property
    def dim(self) -> int:
        return self.faces.dim

    def stratum(self, k: int) -> tuple[int, ...]:
        """Every face whose relative interior is in ``B_{N,k}`` (of dimension ``d - k`` or less)."""
        return tuple(i for i, s in enumerate(self.strata) if s == k)

    def pieces(self, k: int) -> tuple[int, ...]:
        """The faces of dimension ``d - k`` in ``B_{N,k}``: they carry its ``(d-k)``-volume (for ``k = d``, its
        points)."""
        d = self.dim
        return tuple(i for i, s in enumerate(self.strata) if s == k and self.faces.faces[i].dim == d - k)


def boundary(source) -> Boundary:
    """``B_N`` and ``B_{N,1..d}`` of a region complex (or of its :class:`FaceComplex`).

    Parameters
    ----------
    source : RegionComplex or FaceComplex
        A region complex on a bounded domain (its face complex is built, without tight neurons), or a face
        complex from :func:`face_complex`.

    Returns
    -------
    Boundary

    Raises
    ------
    InvalidInputError
        When the domain of a region complex is unbounded.
    CertificateError
        When the regions do not form a polyhedral complex (see :func:`face_complex`).

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0]], [0], "relu")])  # one bend, along x = 0
    >>> b = pr.boundary(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])))
    >>> [b.faces.vertices[v] for v in b.faces.faces[b.pieces(1)[0]].vertices]
    [(Fraction(0, 1), Fraction(-1, 1)), (Fraction(0, 1), Fraction(1, 1))]
    """
    expect_complex(source, "source", also=(FaceComplex,))
    fc = source if isinstance(source, FaceComplex) else face_complex(source, neurons=False)
    d = fc.dim
    faces = fc.faces
    facets = _changing_facets(fc)
    in_b = set(facets)
    for i in facets:
        stack = list(fc.facets_of(i))
        while stack:
            j = stack.pop()
            if j not in in_b and faces[j].interior:
                in_b.add(j)
                stack.extend(fc.facets_of(j))
    strata = [0] * len(faces)
    for i in facets:
        strata[i] = 1
    # The star of a face inside B_N is made of faces of B_N only: every face between a face of B_N and one of its
    # cofaces in B_N is a face of the same facet of B_N, and inside the domain. So it is the union of the stars
    # of the faces of B_N just above, kept for one dimension at a time.
    dims = [face.dim for face in faces]
    is_b = [False] * len(faces)
    for i in in_b:
        is_b[i] = True
    up = fc._up
    ranks = _AffineRanks(fc)
    stars: dict[int, set[int]] = {}
    level = d - 1
    # Lower-dimensional faces, highest dimension first: every coface's stratum is known when a face is reached.
    for i in sorted((i for i in in_b if dims[i] < d - 1), key=lambda i: -dims[i]):
        if dims[i] < level - 1:
            level = dims[i] + 1
            stars = {j: star for j, star in stars.items() if dims[j] <= level}
        above = [j for j in up[i] if is_b[j]]
        star = set(above)
        for j in above:
            star.update(stars.get(j, ()))
        stars[i] = star
        m = d - dims[i]
        strata[i] = m
        for j in range(1, m):
            present = [h for h in star if strata[h] >= j]
            if (_is_local_line(fc, i, present) if d - j == 1 else _is_local_plane(fc, i, present, d - j, star, ranks)):
                strata[i] = j
                break
    return Boundary(fc, tuple(sorted(facets)), tuple(strata))


def _changing_facets(fc: FaceComplex) -> list[int]:
    """The interior ``(d-1)``-faces whose two regions have different output maps.

    Two affine maps that agree on the facet's hyperplane are equal or differ at every point off it, so the maps
    of regions ``r`` and ``s`` are compared at the interior point of ``r``: in floating point with proven error
    bounds (a difference larger than the bounds proves them different), exactly otherwise.
    """
    regions = fc.complex.regions
    d = fc.dim
    candidates = [i for i, f in enumerate(fc.faces) if f.dim == d - 1 and f.interior]
    if not candidates:
        return []
    import numpy as np

    from polyregions.networks._float_filter import doubles

    pairs = [fc.faces[i].regions for i in candidates]
    net = regions[0].network
    x, e = doubles([list(region.interior_point) for region in regions])  # each region's point rounded once
    which = np.array([r for r, _ in pairs], dtype=np.int64)
    points = x[which], e[which]
    first = _forced_outputs(net, points, [regions[r].pattern for r, _ in pairs])
    second = _forced_outputs(net, points, [regions[s].pattern for _, s in pairs])
    (v1, e1), (v2, e2) = first, second
    proven = (abs(v1 - v2) > (e1 + e2)).any(axis=1)
    return [i for i, (r, s), p in zip(candidates, pairs, proven.tolist())
            if p or regions[r].output_map != regions[s].output_map]


def _forced_outputs(net, points, patterns):
    """Float outputs, with proven error bounds, of the network with every neuron held on the piece the pattern
    gives it, at exact points given as doubles with their bounds (from
    :func:`~polyregions.networks._float_filter.doubles`)."""
    import numpy as np

    from polyregions.networks._float_filter import U, float_layer, forward_layer, gamma, safety

    x, e = points
    if not hasattr(net.layers[0], "activation"):  # a graph network's stages: no float bound, exact comparisons
        return np.zeros((len(x), net.output_dim)), np.full((len(x), net.output_dim), np.inf)
    pattern = np.asarray(patterns, dtype=np.int64).reshape(len(x), -1)
    position = 0
    for layer in net.layers:
        fl = float_layer(layer)
        z, ez = forward_layer(fl, x, e)
        if layer.activation.is_linear:
            x, e = z, ez
            continue
        act = fl.activation
        pieces = pattern[:, position:position + layer.width]
        position += layer.width
        q, p = act.slopes[pieces], act.intercepts[pieces]
        rel, dq, dp = (act.evaluation_errors[i][pieces] for i in range(3))
        with np.errstate(all="ignore"):
            x = q * z + p
            rounding = (rel * gamma(2) * (np.abs(q * z) + np.abs(p)) + dq * np.abs(z) + dp
                        + 2.0 ** -1000 * ((z != 0) | (p != 0)))  # the last term: a subnormal result
            e = (np.abs(q) * (1 + 4 * U) * ez + rounding) * safety(4)
    bad = ~(np.isfinite(x) & np.isfinite(e))
    e = np.where(bad, np.inf, e)
    return np.where(bad, 0.0, x), e


def _is_local_line(fc: FaceComplex, g: int, present: Sequence[int]) -> bool:
    """Whether the vertex ``g`` and the faces ``present`` around it form a straight line near ``g``: exactly two
    edges, on one line (two distinct edges of a complex on one line through a common vertex point away from each
    other)."""
    if len(present) != 2:
        return False
    faces, vertices = fc.faces, fc.vertices
    v = faces[g].vertices[0]
    ends = []
    for h in present:
        if faces[h].dim != 1:
            return False
        a, b = faces[h].vertices
        ends.append(vertices[b if a == v else a])
    base = vertices[v]
    u = [x - y for x, y in zip(ends[0], base)]
    w = [x - y for x, y in zip(ends[1], base)]
    # Parallel: every 2x2 minor vanishes.
    return all(u[i] * w[j] == u[j] * w[i] for i in range(len(u)) for j in range(i + 1, len(u)))


def _is_local_plane(fc: FaceComplex, g: int, present: Sequence[int], p: int, star: set[int],
                    ranks: "_AffineRanks") -> bool:
    """Whether face ``g`` and the faces ``present`` around it (within ``star``, every face of ``B_N`` having
    ``g`` as a proper face) form a ``p``-dimensional affine plane near ``g``: every facet containing ``g`` of a
    ``p``-face among them is shared by exactly two of those, and they span ``p`` dimensions. The combinatorial
    test goes first: it fails at once where ``B_N`` branches, the usual case."""
    faces = fc.faces
    top = [h for h in present if faces[h].dim == p]
    if not top:
        return False
    if faces[g].dim == p - 1:  # g is the only facet of a p-face that contains g
        if len(top) != 2:
            return False
    else:
        count: dict[int, int] = defaultdict(int)
        for h in top:
            for f in fc.facets_of(h):
                if f == g or f in star:  # the facets of h containing g
                    count[f] += 1
                    if count[f] > 2:
                        return False
        if not count or any(c != 2 for c in count.values()):
            return False
    points = {v for h in present for v in faces[h].vertices} | set(faces[g].vertices)
    return ranks(points) == p


class _AffineRanks:
    """The dimension of the affine hull of vertices of a face complex: the rank of their homogeneous integer
    coordinates, minus one (exact, by FLINT)."""

    def __init__(self, fc: FaceComplex):
        self.vertices = fc.vertices
        self.homogeneous: dict[int, list[int]] = {}

    def __call__(self, points) -> int:
        from flint import fmpz_mat

        rows = []
        for v in points:
            row = self.homogeneous.get(v)
            if row is None:
                point = self.vertices[v]
                w = math.lcm(*(x.denominator for x in point))
                row = self.homogeneous[v] = [w] + [x.numerator * (w // x.denominator) for x in point]
            rows.append(row)
        return fmpz_mat(rows).rank() - 1
