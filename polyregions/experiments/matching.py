"""The regions of two networks on one domain, matched by activation pattern and by overlap.

Two checkpoints of a training run cut the same domain into regions. :func:`match_regions` relates the regions
of the earlier complex (*before*) to those of the later one (*after*) in two ways:

by pattern
    a region *persists* when its activation pattern is still realised after (the networks must have the same
    neurons); a pattern realised only before *died*, one realised only after was *born*;
by overlap
    region ``R`` before and region ``S`` after *overlap* when ``R ∩ S`` is full-dimensional. A region that
    overlaps several regions after was *split*; a region after that several regions before overlap is *merged*.

Overlaps are decided exactly. A float filter that can only say "no" comes first: bounding boxes of the regions
from their exact vertices, rounded outwards, must overlap in every coordinate. The remaining pairs:

* on a bounded 2-D domain, each region is its exact polygon (the domain's bounding box clipped by the region's
  rows, over the rationals) and the intersection is that polygon clipped by the other region's rows: the regions
  overlap exactly when its area is positive, and the area is the overlap's volume;
* otherwise exact certificates decide what they can: a row of one region with every vertex of the other on its
  far side proves that the interiors are disjoint, an interior point of one region strictly inside the other
  proves an overlap; the rest goes to the certified linear program of :func:`~polyregions.exact.lp.strict_point`
  on the rows of both regions (an exact point strictly inside both, or a proof that none exists), and volumes to
  :meth:`Polytope.volume <polyregions.polyhedra.polytope.Polytope.volume>`.

Volumes are in domain coordinates.

Examples
--------
The sawtooth of depth 2 has 4 pieces on ``[0, 1]`` and that of depth 3 has 8: each piece is split in two.

>>> import polyregions as pr
>>> matching = match_regions(pr.enumerate_regions(pr.sawtooth(2), pr.box([0], [1])),
...                          pr.enumerate_regions(pr.sawtooth(3), pr.box([0], [1])))
>>> matching.overlaps[0], matching.overlap_volumes[0], matching.split, matching.merged
((0, 1), (Fraction(1, 8), Fraction(1, 8)), 4, 0)
>>> matching.persisted is None  # 4 neurons and 6: patterns cannot be compared
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.polyhedra.polytope import Polytope
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain
    from polyregions.regions.region import Region

__all__ = ["RegionMatching", "match_regions"]


@dataclass(frozen=True)
class RegionMatching:
    """How the regions of one complex (*before*) relate to those of another on the same domain (*after*).

    Attributes
    ----------
    overlaps : tuple of tuple of int
        For region ``i`` before, the regions after (indices, increasing) that meet it in a full-dimensional set.
    overlap_volumes : tuple of tuple of Fraction or None
        The exact volumes of those intersections, in domain coordinates, aligned with ``overlaps`` (None when
        not computed, e.g. on an unbounded domain).
    by_pattern : tuple of (int or None) or None
        For region ``i`` before, the region after with the same activation pattern (None when the pattern is
        gone); None altogether when the two networks do not have the same neurons.
    after_count : int
        The number of regions after.
    region_volumes : tuple of Fraction or None
        The exact volume of every region before (with ``overlap_volumes``).

    Examples
    --------
    A network matched with itself: every region persists and overlaps itself only.

    >>> import polyregions as pr
    >>> regions = pr.enumerate_regions(pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")]),
    ...                                pr.box([-1, -1], [1, 1]))
    >>> matching = match_regions(regions, regions)
    >>> matching.overlaps, matching.by_pattern, matching.one_to_one, str(matching.stable_volume)
    (((0,), (1,), (2,), (3,)), (0, 1, 2, 3), 4, '4')
    """

    overlaps: tuple[tuple[int, ...], ...]
    overlap_volumes: tuple[tuple[Fraction, ...], ...] | None
    by_pattern: tuple[int | None, ...] | None
    after_count: int
    region_volumes: tuple[Fraction, ...] | None = None

    @property
    def before_count(self) -> int:
        """The number of regions before."""
        return len(self.overlaps)

    @property
    def persisted(self) -> int | None:
        """The number of activation patterns realised both before and after (None when patterns differ in
        length)."""
        if self.by_pattern is None:
            return None
        return sum(j is not None for j in self.by_pattern)

    @property
    def died(self) -> int | None:
        """The number of patterns realised before and not after."""
        persisted = self.persisted
        return None if persisted is None else self.before_count - persisted

    @property
    def born(self) -> int | None:
        """The number of patterns realised after and not before."""
        persisted = self.persisted
        return None if persisted is None else self.after_count - persisted

    @property
    def persisted_overlapping(self) -> int | None:
        """The persisting patterns whose region after still overlaps their region before."""
        if self.by_pattern is None:
            return None
        return sum(j is not None and j in near for j, near in zip(self.by_pattern, self.overlaps))

    @property
    def reverse_overlaps(self) -> tuple[tuple[int, ...], ...]:
        """For region ``j`` after, the regions before that overlap it (indices, increasing)."""
        reverse: list[list[int]] = [[] for _ in range(self.after_count)]
        for i, near in enumerate(self.overlaps):
            for j in near:
                reverse[j].append(i)
        return tuple(map(tuple, reverse))

    @property
    def overlap_pairs(self) -> int:
        """The number of pairs of overlapping regions."""
        return sum(map(len, self.overlaps))

    @property
    def split(self) -> int:
        """The regions before that overlap two or more regions after."""
        return sum(len(near) >= 2 for near in self.overlaps)

    @property
    def merged(self) -> int:
        """The regions after that two or more regions before overlap."""
        return sum(len(near) >= 2 for near in self.reverse_overlaps)

    @property
    def one_to_one(self) -> int:
        """The regions before that overlap exactly one region after, which overlaps no other region before."""
        reverse = self.reverse_overlaps
        return sum(len(near) == 1 and len(reverse[near[0]]) == 1 for near in self.overlaps)

    @property
    def stable_volume(self) -> Fraction | None:
        """The volume (in domain coordinates) of the set where the activation pattern did not change: the sum
        over persisting patterns of the volume their two regions share. None without patterns or volumes."""
        if self.by_pattern is None or self.overlap_volumes is None:
            return None
        total = Fraction(0)
        for j, near, volumes in zip(self.by_pattern, self.overlaps, self.overlap_volumes):
            if j is not None and j in near:
                total += volumes[near.index(j)]
        return total

    def summary(self) -> dict[str, Any]:
        """The numbers of a transition in ``polyregions checkpoints --json``: ``before``, ``after``,
        ``persisted``, ``died``, ``born``, ``persisted_overlapping`` (None when the patterns cannot be compared),
        ``overlap_pairs``, ``split``, ``merged``, ``one_to_one``, and ``stable_volume`` (float) with
        ``stable_volume_exact`` (a string; both None when not computed)."""
        stable = self.stable_volume
        from polyregions.exact.rationals import format_rational

        return {"before": self.before_count, "after": self.after_count, "persisted": self.persisted,
                "died": self.died, "born": self.born, "persisted_overlapping": self.persisted_overlapping,
                "overlap_pairs": self.overlap_pairs, "split": self.split, "merged": self.merged,
                "one_to_one": self.one_to_one, "stable_volume": None if stable is None else float(stable),
                "stable_volume_exact": None if stable is None else format_rational(stable)}


def match_regions(before: "RegionComplex", after: "RegionComplex", *, volumes: bool | None = None
                  ) -> RegionMatching:
    """Match the regions of two complexes on the same domain by pattern and by overlap, exactly.

    Parameters
    ----------
    before, after : RegionComplex
        Region complexes of two networks (e.g. consecutive checkpoints) on equal domains
        (:func:`~polyregions.regions.enumeration.enumerate_regions`).
    volumes : bool, optional, keyword-only
        Also compute the exact volume of every overlap; by default when the domain is bounded.

    Returns
    -------
    RegionMatching

    Raises
    ------
    InvalidInputError
        When an argument is not a region complex, the domains differ, or volumes are asked for on an
        unbounded domain.

    Examples
    --------
    One line ``x = 0`` moved to ``x = 1/2`` in ``[-1, 1]``: the left piece grows over part of the right one.

    >>> import polyregions as pr
    >>> line = lambda c: pr.Network.from_layers(1, [([[1]], [c], "relu")])
    >>> old, new = (pr.enumerate_regions(line(c), pr.box([-1], [1])) for c in (0, "-1/2"))
    >>> m = match_regions(old, new)
    >>> m.overlaps, m.overlap_volumes, (m.persisted, m.split, m.merged), str(m.stable_volume)
    (((0,), (0, 1)), ((Fraction(1, 1),), (Fraction(1, 2), Fraction(1, 2))), (2, 1, 1), '3/2')
    """
    from polyregions.regions.complex import RegionComplex

    for name, value in (("before", before), ("after", after)):
        if not isinstance(value, RegionComplex):
            raise InvalidInputError(f"match_regions: {name}: expected a RegionComplex (pr.enumerate_regions), got "
                                    f"{type(value).__name__}")
    if before.domain != after.domain:
        raise InvalidInputError("match_regions: after: expected a complex on the same domain as before, got a "
                                f"different {after.domain.kind} (dimension {after.domain.dim})")
    bounded = before.domain.is_bounded()
    if volumes is None:
        volumes = bounded
    elif volumes and not bounded:
        raise InvalidInputError(f"match_regions: volumes: expected a bounded domain to measure overlaps in, got "
                                f"an unbounded {before.domain.kind}")
    geometry: Any = _Polygons(before.domain) if bounded and before.domain.dim == 2 else _Polytopes()
    shapes_before = [geometry.shape(r) for r in before.regions]
    shapes_after = [geometry.shape(r) for r in after.regions]
    candidates = _box_candidates(geometry.boxes(shapes_before), geometry.boxes(shapes_after))
    overlaps: list[tuple[int, ...]] = []
    overlap_volumes: list[tuple[Fraction, ...]] = []
    for i, shape in enumerate(shapes_before):
        near, measured = [], []
        for j in candidates[i]:
            volume = geometry.overlap(shape, shapes_after[j], volumes)
            if volume is not None:
                near.append(j)
                measured.append(volume)
        overlaps.append(tuple(near))
        overlap_volumes.append(tuple(measured))
    return RegionMatching(tuple(overlaps), tuple(overlap_volumes) if volumes else None,
                          _pattern_matches(before, after), len(after.regions),
                          tuple(geometry.volume(s) for s in shapes_before) if volumes else None)


def _pattern_matches(before: "RegionComplex", after: "RegionComplex") -> tuple[int | None, ...] | None:
    """For each region before, the region after with its pattern; None when the neurons differ."""
    a, b = before.network, after.network
    layout = (getattr(a, "neurons", None), getattr(a, "piece_counts", None))
    if None in layout or layout != (getattr(b, "neurons", None), getattr(b, "piece_counts", None)):
        return None
    index = {region.pattern: j for j, region in enumerate(after.regions)}
    return tuple(index.get(region.pattern) for region in before.regions)


def _outward(low: Fraction, high: Fraction) -> tuple[float, float]:
    """Floats below ``low`` and above ``high`` (``float`` rounds to nearest; one step out covers it)."""
    return math.nextafter(float(low), -math.inf), math.nextafter(float(high), math.inf)


def _box_candidates(before: tuple[np.ndarray, np.ndarray], after: tuple[np.ndarray, np.ndarray],
                    chunk: int = 1 << 16) -> list[list[int]]:
    """For each region before, the regions after whose box overlaps its box on an open set.

    The boxes contain the exact ones, so a pair whose float boxes do not overlap cannot meet in an open set:
    the filter only removes pairs.
    """
    (lo_a, hi_a), (lo_b, hi_b) = before, after
    rows = max(1, chunk // max(1, len(lo_b)))
    out: list[list[int]] = []
    for start in range(0, len(lo_a), rows):
        meet = (lo_a[start:start + rows, None, :] < hi_b[None, :, :]) & \
               (lo_b[None, :, :] < hi_a[start:start + rows, None, :])
        out.extend(np.flatnonzero(row).tolist() for row in np.asarray(meet.all(axis=2), dtype=bool))
    return out


class _Polygons:
    """Regions of a bounded 2-D domain as exact convex polygons (vertices counter-clockwise, FLINT rationals:
    clipping runs on them many times); overlaps by clipping one polygon with the other region's rows."""

    def __init__(self, domain: "Domain"):
        if domain.lower is not None and domain.upper is not None:
            lower, upper = domain.lower, domain.upper
        else:
            corners = domain.region.vertices()
            lower = tuple(min(p[k] for p in corners) for k in range(2))
            upper = tuple(max(p[k] for p in corners) for k in range(2))
        (x0, y0), (x1, y1) = (tuple(map(_fq, lower)), tuple(map(_fq, upper)))
        self.window = [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]

    def shape(self, region: "Region") -> tuple[list, list]:
        rows = [(_fq(a0), _fq(a1), _fq(c)) for (a0, a1), c in zip(region.A, region.b)]
        polygon = self.window
        for row in rows:
            polygon = _clip(polygon, row)
        return polygon, rows

    @staticmethod
    def boxes(shapes: list[tuple[list, list]]) -> tuple[np.ndarray, np.ndarray]:
        lower, upper = np.empty((len(shapes), 2)), np.empty((len(shapes), 2))
        for k, (polygon, _) in enumerate(shapes):
            for c in range(2):
                values = [_fraction(v[c]) for v in polygon]
                lower[k, c], upper[k, c] = _outward(min(values), max(values))
        return lower, upper

    @staticmethod
    def overlap(shape: tuple[list, list], other: tuple[list, list], volumes: bool) -> Fraction | None:
        """The area of the intersection when positive, else None."""
        piece = shape[0]
        for row in other[1]:  # the other region's rows: small integers, unlike its vertices
            piece = _clip(piece, row)
            if len(piece) < 3:
                return None
        area = _area(piece)
        return _fraction(area) if area > 0 else None

    @staticmethod
    def volume(shape: tuple[list, list]) -> Fraction:
        return _fraction(_area(shape[0]))


def _fq(value: Fraction):
    from flint import fmpq

    return fmpq(value.numerator, value.denominator)


def _fraction(value) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def _clip(polygon: list, row: tuple) -> list:
    """The part of a convex polygon (vertices counter-clockwise) where ``a0 x + a1 y <= c``, exactly; it may
    come out degenerate (fewer than three vertices, or collinear ones, of area 0)."""
    a0, a1, c = row
    values = [a0 * x + a1 * y - c for x, y in polygon]
    if all(v <= 0 for v in values):
        return polygon
    out = []
    n = len(polygon)
    for i in range(n):
        p, vp = polygon[i], values[i]
        q, vq = polygon[i + 1 - n], values[i + 1 - n]
        if vp <= 0:
            out.append(p)
        if (vp < 0 < vq) or (vq < 0 < vp):
            s = vp / (vp - vq)
            out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
    return out


def _area(polygon: list):
    """The exact area of a polygon with vertices counter-clockwise (shoelace)."""
    twice = sum((p[0] * q[1] - q[0] * p[1] for p, q in zip(polygon, polygon[1:] + polygon[:1])), _fq(Fraction(0)))
    return twice / 2


class _Polytopes:
    """Regions as exact H-polytopes with their generators; overlaps by certificates and linear programs."""

    @staticmethod
    def shape(region: "Region") -> tuple["Region", "Polytope", Any, list, list]:
        polytope = region.polytope
        generators = polytope.generators()
        bounded = not (generators.rays or generators.lines)
        # FLINT copies for the separation certificates, which run many times per region
        points = [tuple(map(_fq, p)) for p in generators.points] if bounded else []
        rows = [(tuple(map(_fq, row)), _fq(c)) for row, c in zip(polytope.A, polytope.b)]
        return region, polytope, generators, points, rows

    @staticmethod
    def boxes(shapes: list[tuple["Region", "Polytope", Any, list, list]]) -> tuple[np.ndarray, np.ndarray]:
        d = shapes[0][1].dim if shapes else 0
        lower, upper = np.empty((len(shapes), d)), np.empty((len(shapes), d))
        for k, (_, _, generators, _, _) in enumerate(shapes):
            for c in range(d):
                values = [p[c] for p in generators.points]
                low, high = _outward(min(values), max(values))
                if any(ray[c] < 0 for ray in generators.rays) or any(line[c] for line in generators.lines):
                    low = -math.inf
                if any(ray[c] > 0 for ray in generators.rays) or any(line[c] for line in generators.lines):
                    high = math.inf
                lower[k, c], upper[k, c] = low, high
        return lower, upper

    @staticmethod
    def overlap(shape: tuple["Region", "Polytope", Any, list, list],
                other: tuple["Region", "Polytope", Any, list, list], volumes: bool) -> Fraction | None:
        """The volume of the intersection (0 when not asked for) when it is full-dimensional, else None."""
        from polyregions.exact.lp import strict_point

        region, polytope, _, points, rows = shape
        region2, polytope2, _, points2, rows2 = other
        if _separated(points, rows2) or _separated(points2, rows):
            return None
        both = polytope.intersection(polytope2)
        if not (region2.contains_strictly(region.interior_point) or region.contains_strictly(region2.interior_point)
                or strict_point(both.A, both.b, dim=both.dim) is not None):
            return None
        return both.volume() if volumes else Fraction(0)

    @staticmethod
    def volume(shape: tuple["Region", "Polytope", Any, list, list]) -> Fraction:
        return shape[1].volume()


def _separated(points: list, rows: list) -> bool:
    """Whether a row ``a . x <= c`` of one region has every vertex of a bounded other region (``points``, none for
    an unbounded one) in ``a . x >= c``: then the interiors are disjoint (a proof, never a guess; False proves
    nothing)."""
    if not points:
        return False
    return any(all(sum((ai * xi for ai, xi in zip(a, p)), -c) >= 0 for p in points) for a, c in rows)
