"""Independent, exact re-check of a ``polyregions.regions/1`` export (a region complex with its certificates).

Standard library only: the checker reads the numbers, rebuilds the network and redoes the geometry itself,
so that a bug in polyregions cannot hide in it. Usage::

    python -m proofs_check.verify FILE      (or: python -m proofs_check verify FILE)

Exit status 0 when everything the file states is verified; 1 when a check fails (the report names the first
failing region or field, what the file says and what was verified); 2 when the file cannot be read as an export
(one line ``proofs_check: error: FILE: field: ...``: a field missing, null, of the wrong type, or a key the
checker does not know); 3 when the region complex verifies but the file is the certificate of a user-defined
claim, whose verdict is not independently checkable (the report says so and never ends in ``verified``).

What is checked, all in exact rational or integer arithmetic. Regions live in domain coordinates ``t``; the
input point is ``x = origin + directions^T t`` (identity for box, polytope and space domains; ``start +
t (end - start)`` for a segment). Each region ``i`` is taken as ``Q_i = {A_i t <= b_i} ∩ domain``.

1. Certificates of each region: the interior point satisfies every row of ``A t < b`` strictly and lies in
   the open domain; an exact forward pass there gives the recorded pattern (piece index = number of
   breakpoints strictly below the pre-activation); the recorded map ``(M, c)`` has ``M`` equal to the exact
   Jacobian ``d output / d t`` of the network with that pattern fixed, and ``M t + c`` equals the network's
   output at the interior point.
2. Patterns are unique, and every interior point lies in exactly one region's open set (tested pairwise up to
   ``PAIRWISE_LIMIT`` regions; beyond, it is left to check 3, which implies it).
3. Each pattern is constant on its whole region: with earlier layers fixed to the recorded pattern every
   neuron's pre-activation is affine on ``Q_i``, and it stays between the breakpoints of its recorded piece
   at every vertex of ``Q_i`` (so on all of ``Q_i``; on the open region the piece is then the recorded one,
   the only alternative, a pre-activation constantly equal to the lower breakpoint, being excluded by
   check 1). With check 2 this makes the open regions pairwise disjoint: a common point would have two
   patterns.
4. Coverage: the regions tile the domain. In 1-D the intervals are sorted and must meet end to end from one
   end of the domain to the other; in any other dimension the regions' volumes must add up to the domain's
   (disjoint open regions whose closures miss an open piece of the domain would fall short).
5. Adjacency: entries name two distinct existing regions, each unordered pair once, with neuron labels equal
   to the set of neurons whose pieces differ. Then, for every facet ``F`` of every region (a row whose
   vertices span dimension ``k - 1``, not on the domain's boundary), the regions listed as adjacent across
   ``F``'s hyperplane must cover ``F`` exactly: the ``(k-1)``-volumes of ``F ∩ Q_j`` add up to that of
   ``F``. Every listed pair must contribute a piece of positive ``(k-1)``-volume, which is the shared
   ``(k-1)``-dimensional piece of the two closures. So the adjacency list is both correct and complete.
6. Linear regions: ``linear_regions`` lists exactly the connected components of the adjacency graph restricted
   to pairs with exactly equal output maps (:mod:`proofs_check.derived`).
7. Summary: every count equals the verified one; ``summary.exact`` and ``summary.engine`` repeat the export's
   ``exact`` and ``engine`` (:mod:`proofs_check.derived`).
8. Certificates of ``polyregions search``: a built-in claim's name, statement, value, bound, ``holds`` and score
   are recomputed from the verified counts and the network (:mod:`proofs_check.claims`); the ``search`` record is
   checked for consistency only (it says how the network was found, which the checker cannot rerun).

Checks 1 and 3 run in one pass over the regions in pattern order (:func:`_scan`, :mod:`proofs_check.compose`:
integer maps over common denominators, shared between regions with a common pattern prefix); they accept exactly
what the reference tests (:func:`_certificate_failure`, :func:`_constant_pattern_failure`, a full Fraction forward
pass per region) accept, and a failure is reported by the reference test of the first failing region.

Vertices come from brute force over row subsets (``proofs_check.geometry``), so the cost grows like
``C(rows, k)`` per region; ``--max-subsets`` bounds it (a region beyond it fails as "too large", never
passes unchecked). Unbounded domains (a polytope without bound, or all of space) are cut to a box
``[-R, R]^k`` with ``R`` above every vertex of the arrangement of all hyperplanes involved (the regions', the
domain's, the coordinate hyperplanes and the neurons' piece bounds, see ``geometry.radius_bound``). Every open
cell of that arrangement has a vertex, hence a piece of positive volume, inside the box; so a gap, a pattern
change or an uncovered facet anywhere shows inside the box as well, and the checks above stay proofs.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from operator import mul
from typing import Any, Callable, Sequence

from . import geometry as geo
from .claims import check_claim
from .compose import Composer, RegionMaps, bound_heights, keeps_pieces, scaled_point
from .derived import check_linear_regions, check_search, check_summary, components
from .errors import InputError, VerificationError
from .export import Export, load_export
from .reading import dot, read_document

__all__ = ["Result", "verify_export", "verify_file", "main", "DEFAULT_MAX_SUBSETS", "PAIRWISE_LIMIT",
           "EXIT_VERIFIED", "EXIT_FAILED", "EXIT_UNREADABLE", "EXIT_CLAIM_UNCHECKED"]

DEFAULT_MAX_SUBSETS = 2_000_000
PAIRWISE_LIMIT = 500  # above it the quadratic interior-point test is skipped: constant patterns imply it
EXIT_VERIFIED, EXIT_FAILED, EXIT_UNREADABLE, EXIT_CLAIM_UNCHECKED = 0, 1, 2, 3
_ZERO = Fraction(0)


@dataclass
class Result:
    """The outcome: ``ok`` (no check failed), the report lines, and what could not be checked.

    ``failure`` names the failing check when not ``ok``; ``unchecked`` names what the file states that the
    checker cannot re-derive (a user-defined claim). ``verified`` holds when both are None.
    """

    ok: bool = True
    lines: list[str] = field(default_factory=list)
    failure: str | None = None
    unchecked: str | None = None

    @property
    def verified(self) -> bool:
        return self.ok and self.unchecked is None

    @property
    def status(self) -> int:
        """The exit status: 0 verified, 1 a check failed, 3 the complex verified but a claim is unchecked."""
        if not self.ok:
            return EXIT_FAILED
        return EXIT_VERIFIED if self.unchecked is None else EXIT_CLAIM_UNCHECKED

    def report(self) -> str:
        return "\n".join(self.lines)


def _fmt(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _certificate_failure(ex: Export, i: int) -> str | None:
    """Check 1 for region ``i`` by the reference pass (Fractions, a full forward pass): the report of its first
    failure, or None. The fast scan (:func:`_scan`) decides the same; this writes the report."""
    net, dom, region = ex.network, ex.domain, ex.regions[i]
    t = region.point
    for r, (row, bi) in enumerate(zip(region.A, region.b)):
        if not dot(row, t) < bi:
            return f"region {i}: interior_point: row {r} of A t < b fails ({dot(row, t)} >= {bi})"
    for r, (row, bi) in enumerate(zip(dom.A, dom.b)):
        if not dot(row, t) < bi:
            return f"region {i}: interior_point: not inside the open domain (domain row {r})"
    ev = net.evaluate(region.pattern, t, dom.origin, dom.directions)
    if ev.pattern != region.pattern:
        return (f"region {i}: pattern: recorded {_fmt(region.pattern)}, the forward pass at the interior point "
                f"gives {_fmt(ev.pattern)}")
    if region.M != ev.M:
        return (f"region {i}: output_map.M: not the Jacobian of the network with this pattern fixed (expected "
                f"{[_fmt(r) for r in ev.M]})")
    value = tuple(dot(row, t) + ci for row, ci in zip(region.M, region.c))
    if value != ev.output:
        return (f"region {i}: output_map.c: M t + c = {_fmt(value)} at the interior point, the network gives "
                f"{_fmt(ev.output)}")
    return None


def _check_certificates(ex: Export) -> list:
    """Check 1 by the reference pass for every region; returns each region's neuron pre-activations under its
    fixed pattern. Kept as the reference :func:`_scan` is tested against."""
    affine = []
    for i, region in enumerate(ex.regions):
        failure = _certificate_failure(ex, i)
        if failure is not None:
            raise VerificationError(failure)
        dom = ex.domain
        affine.append(ex.network.evaluate(region.pattern, region.point, dom.origin, dom.directions).neurons)
    return affine


def _check_unique(ex: Export) -> None:
    seen: dict[tuple[int, ...], int] = {}
    for i, region in enumerate(ex.regions):
        if region.pattern in seen:
            raise VerificationError(f"region {i}: pattern: {_fmt(region.pattern)} repeats region "
                                    f"{seen[region.pattern]}")
        seen[region.pattern] = i

def _check_points_in_one_region(ex: Export, rows: list | None = None, candidates: Callable | None = None) -> None:
    """Each interior point lies in no other open region (integer arithmetic; quadratic in the regions).

    ``candidates(i, point)``, when given, lists in increasing order the regions ``j`` whose open set may hold
    region ``i``'s interior point (:func:`_box_candidates`); the others are known not to, and are skipped."""
    if rows is None:
        rows = [[geo.integer_row(a, b) for a, b in zip(r.A, r.b)] for r in ex.regions]
    points = [scaled_point(region.point) for region in ex.regions]
    for i, (nums, den) in enumerate(points):
        for j in range(len(rows)) if candidates is None else candidates(i, ex.regions[i].point):
            if j != i and all(sum(map(mul, a, nums)) < b * den for a, b in rows[j]):
                raise VerificationError(f"region {i}: interior_point: also inside the open region {j} "
                                        "(regions overlap)")


def _box_candidates(verts: list, radius: int | None) -> Callable[[int, Sequence[Fraction]], list[int]]:
    """For :func:`_check_points_in_one_region`: the regions whose bounding box holds a point, found on a grid.

    A point of the open domain inside region ``j``'s open set lies in ``Q_j``, the convex hull of ``j``'s vertices
    (when the domain was cut to the box ``[-R, R]^k``, for points inside that box), so in ``j``'s bounding box.
    The grid's cells are found by exact floors; a region is listed in every cell its box meets, a region without
    vertices (its geometry failed, reported later) in every cell, and a point outside the box ``[-R, R]^k`` gets
    every region."""
    n = len(verts)
    known = [j for j in range(n) if verts[j]]
    boxes = {j: [(min(p), max(p)) for p in zip(*(v.point for v in verts[j]))] for j in known}
    everyone, unknown = list(range(n)), [j for j in range(n) if not verts[j]]
    if not boxes:
        return lambda i, point: everyone
    k = len(next(iter(boxes.values())))
    low = [min(box[c][0] for box in boxes.values()) for c in range(k)]
    high = [max(box[c][1] for box in boxes.values()) for c in range(k)]
    side = max(1, round(len(boxes) ** (1 / k)))

    def cell(x: Fraction, c: int) -> int:
        if high[c] == low[c]:
            return 0
        return min(side - 1, max(0, math.floor((x - low[c]) * side / (high[c] - low[c]))))

    grid: dict[tuple[int, ...], list[int]] = {}
    for j in known:
        ranges = [range(cell(lo, c), cell(hi, c) + 1) for c, (lo, hi) in enumerate(boxes[j])]
        for key in itertools.product(*ranges):
            grid.setdefault(key, []).append(j)

    def candidates(i: int, point: Sequence[Fraction]) -> list[int]:
        if radius is not None and any(abs(x) > radius for x in point):
            return everyone
        if any(not low[c] <= x <= high[c] for c, x in enumerate(point)):
            return unknown
        found = grid.get(tuple(cell(x, c) for c, x in enumerate(point)), [])
        return sorted(found + unknown) if unknown else found

    return candidates


def _check_adjacency_entries(ex: Export) -> dict[frozenset, int]:
    n = len(ex.regions)
    pairs: dict[frozenset, int] = {}
    for e, (i, j, labels) in enumerate(ex.adjacency):
        if not (0 <= i < n and 0 <= j < n):
            raise VerificationError(f"adjacency[{e}]: region index out of range 0..{n - 1}: {i}, {j}")
        if i == j:
            raise VerificationError(f"adjacency[{e}]: a region is not adjacent to itself ({i})")
        pair = frozenset((i, j))
        if pair in pairs:
            raise VerificationError(f"adjacency[{e}]: the pair {min(i, j)}, {max(i, j)} is listed twice "
                                    f"(also adjacency[{pairs[pair]}])")
        pairs[pair] = e
        differ = {q for q, (u, v) in enumerate(zip(ex.regions[i].pattern, ex.regions[j].pattern)) if u != v}
        if len(labels) != len(set(labels)) or set(labels) != differ:
            raise VerificationError(f"adjacency[{e}]: neurons: listed {_fmt(labels)}, the patterns of regions "
                                    f"{i} and {j} differ at {_fmt(sorted(differ))}")
    return pairs


@dataclass
class _Geometry:
    rows: list            # per region: its own integer rows
    clip: list            # domain rows (+ box rows when the domain may be unbounded)
    verts: list           # per region: vertices of Q_i
    radius: int | None

    @cached_property
    def integer_points(self) -> list[list[tuple[list[int], int]]]:
        """Per region, each vertex as ``(numerators, denominator)``."""
        return [[(v.nums, v.den) for v in vs] for vs in self.verts]


def _geometry(ex: Export, affine: list, max_subsets: int) -> _Geometry:
    k = ex.domain.dim
    domain_rows = [geo.integer_row(a, b) for a, b in zip(ex.domain.A, ex.domain.b)]
    rows = [[geo.integer_row(a, b) for a, b in zip(r.A, r.b)] for r in ex.regions]
    radius = None
    clip = list(domain_rows)
    if not ex.domain.bounded_by_construction:
        everything = list(domain_rows) + [row for region in rows for row in region]
        everything += geo.box_rows(1, k)
        for neurons in affine:
            for a, d, den, piece, act in neurons:
                if any(a):  # (a.t + d) / den = p / q
                    everything += [geo.integer_row([xi.denominator * v for v in a],
                                                   xi.numerator * den - xi.denominator * d)
                                   for xi in act.bounds(piece) if xi is not None]
        radius = geo.radius_bound(everything, k)
        clip += geo.box_rows(radius, k)
    verts = []
    for i, region_rows in enumerate(rows):
        try:
            vs = geo.vertices(region_rows + clip, k, max_subsets=max_subsets)
        except geo.TooLarge as exc:
            raise VerificationError(f"region {i}: too large to check by brute force: {exc}; raise "
                                    "--max-subsets") from None
        if geo.affine_dimension([v.point for v in vs]) < k:
            raise VerificationError(f"region {i}: A, b: the region's vertices do not span dimension {k}")
        verts.append(vs)
    return _Geometry(rows, clip, verts, radius)


def _constant_pattern_failure(ex: Export, i: int, neurons: list, vs: list) -> str | None:
    """Check 3 for region ``i`` by the reference test (every neuron at every vertex): the report of its first
    failure, or None. ``neurons`` is the reference pass's, ``vs`` the region's vertices."""
    neuron_names = getattr(ex.network, "entry_names", ex.network.neurons)  # stages: k - 1 entries per max unit
    for q, (a, d, den, piece, act) in enumerate(neurons):
        low, high = act.bounds(piece)
        for v in vs:
            # the pre-activation at the vertex is value / (den * vden)
            value = sum(x * y for x, y in zip(a, v.nums)) + d * v.den
            scale = den * v.den
            if ((low is not None and value * low.denominator < low.numerator * scale)
                    or (high is not None and value * high.denominator > high.numerator * scale)):
                layer, unit = neuron_names[q]
                return (f"region {i}: pattern: neuron {q} (layer {layer}, unit {unit}) leaves piece {piece} "
                        f"inside the region (pre-activation {Fraction(value, scale)} at vertex {_fmt(v.point)})")
    return None


def _check_constant_patterns(ex: Export, affine: list, g: _Geometry) -> None:
    """Check 3 by the reference test for every region: each neuron stays in its piece's closed interval on the
    whole region. Kept as the reference :func:`_scan` is tested against."""
    for i, (neurons, vs) in enumerate(zip(affine, g.verts)):
        failure = _constant_pattern_failure(ex, i, neurons, vs)
        if failure is not None:
            raise VerificationError(failure)


@dataclass
class _Scan:
    """What one pass over the regions found: the regions failing check 1, the geometry's failures (region index to
    report), the regions failing check 3, each region's vertices, and the largest entry of the neurons' piece-bound
    rows (for the radius of an unbounded domain)."""

    certificates: list[int] = field(default_factory=list)
    geometry: dict[int, str] = field(default_factory=dict)
    patterns: list[int] = field(default_factory=list)
    verts: list = field(default_factory=list)
    height: int = 1


def _scan(ex: Export, rows: list, clip: list | None, max_subsets: int) -> _Scan:
    """Checks 1 and 3 and each region's vertices in one pass over the regions, fast (:mod:`proofs_check.compose`).

    The regions are taken in the order of their patterns, so the composed maps of shared pattern prefixes are
    reused; each region's maps are dropped once its checks are done. Failures are collected, not raised: the
    caller reports the first region (by index) of the first failing check, with the reference's report. Without
    ``clip`` (an unbounded domain, whose box needs every neuron's rows first) only check 1 runs, and the height of
    the neurons' rows is recorded."""
    dom, k = ex.domain, ex.domain.dim
    domain_rows = [geo.integer_row(a, b) for a, b in zip(dom.A, dom.b)]
    composer = Composer(ex.network, dom.origin, dom.directions)
    out = _Scan(verts=[None] * len(ex.regions))
    for i in sorted(range(len(ex.regions)), key=lambda i: ex.regions[i].pattern):
        region = ex.regions[i]
        point = scaled_point(region.point)
        maps = _certified_maps(region, rows[i] + domain_rows, point, composer, k)
        if maps is None:
            out.certificates.append(i)
            continue
        if clip is None:
            out.height = max(out.height, bound_heights(maps, composer.stages))
            continue
        try:
            vs = geo.vertices(rows[i] + clip, k, max_subsets=max_subsets)
        except geo.TooLarge as exc:
            out.geometry[i] = f"region {i}: too large to check by brute force: {exc}; raise --max-subsets"
            continue
        if geo.vertex_dimension(vs) < k:
            out.geometry[i] = f"region {i}: A, b: the region's vertices do not span dimension {k}"
            continue
        out.verts[i] = vs
        if not keeps_pieces(maps, composer.stages, point, [(v.nums, v.den) for v in vs]):
            out.patterns.append(i)
    return out


def _certified_maps(region, rows: list, point: tuple[tuple[int, ...], int], composer: Composer,
                    k: int) -> RegionMaps | None:
    """The region's maps when it passes check 1 (as :func:`_certificate_failure` decides it), else None.

    The rows (the region's, then the domain's) are primitive positive multiples of the file's, so the strict
    inequalities are the same; with the pattern the actual one, the network's output at the point is ``G t + g``
    for the composed map, so ``M t + c`` equals it iff ``M = G`` and ``c = g``."""
    tnums, tden = point
    if not all(sum(map(mul, a, tnums)) < b * tden for a, b in rows):
        return None
    maps = composer.run(region.pattern, point)
    if maps is None:
        return None
    den = maps.den
    for m_row, c, computed in zip(region.M, region.c, maps.output):
        if any(m.numerator * den != v * m.denominator for m, v in zip(m_row, computed[:k])):
            return None
        if c.numerator * den != computed[k] * c.denominator:
            return None
    return maps


def _check_coverage(ex: Export, g: _Geometry, max_subsets: int) -> str:
    k = ex.domain.dim
    try:
        domain_verts = geo.vertices(g.clip, k, max_subsets=max_subsets)
    except geo.TooLarge as exc:
        raise VerificationError(f"domain: too large to check by brute force: {exc}") from None
    box_start = len(ex.domain.A)
    unbounded = any(index >= box_start for v in domain_verts for index in v.tight)
    where = "" if g.radius is None or not unbounded else f" (cut to the box [-R, R]^{k}, R = {g.radius})"
    if k == 1:
        intervals = sorted((min(v.point[0] for v in vs), max(v.point[0] for v in vs), i)
                           for i, vs in enumerate(g.verts))
        lo = min(v.point[0] for v in domain_verts)
        hi = max(v.point[0] for v in domain_verts)
        position = lo
        for start, end, i in intervals:
            if start != position:
                kind = "gap" if start > position else "overlap"
                raise VerificationError(f"region {i}: coverage: {kind} at t = {position} "
                                        f"(region {i} starts at {start})")
            position = end
        if position != hi:
            raise VerificationError(f"coverage: the regions end at t = {position}, the domain at {hi}")
        return f"coverage: {len(intervals)} intervals tile [{lo}, {hi}]{where}"
    total = _ZERO
    for vs in g.verts:
        total += geo.volume(vs, k)
    domain_volume = geo.volume(domain_verts, k)
    if total != domain_volume:
        raise VerificationError(f"coverage: the regions' volumes add up to {total}, the domain's volume is "
                                f"{domain_volume}{where}")
    return f"coverage: region volumes add up to the domain's volume {domain_volume}{where}"


def _check_facets(ex: Export, g: _Geometry, pairs: dict[frozenset, int], max_subsets: int) -> None:
    """Check 5: listed neighbours cover every interior facet; each listed pair shares a piece."""
    k = ex.domain.dim
    boundary = {geo.hyperplane_key(row) for row in g.clip}
    keyed = [[geo.hyperplane_key(row) for row in rows] for rows in g.rows]
    neighbours: dict[int, list[int]] = {i: [] for i in range(len(ex.regions))}
    for pair in pairs:
        i, j = sorted(pair)
        neighbours[i].append(j)
        neighbours[j].append(i)
    confirmed: set[frozenset] = set()
    for i, rows in enumerate(g.rows):
        vs, ints = g.verts[i], g.integer_points[i]
        memo: dict = {}
        all_rows = rows + g.clip
        done = set()
        for r, row in enumerate(rows):
            key = keyed[i][r]
            if key in boundary or key in done or not any(row[0]):
                continue
            done.add(key)
            face = frozenset(v for v, vertex in enumerate(vs) if r in vertex.tight)
            drop = next(q for q, x in enumerate(row[0]) if x)
            facet_volume = geo.volume(vs, k - 1, face=face, drop=drop, memo=memo)
            if facet_volume == 0:
                continue   # the row does not carry a facet
            plane_key = key[0]
            face_rows = [all_rows[s] for s in set().union(*(vs[v].tight for v in face))
                         if geo.hyperplane_key(all_rows[s])[0] != plane_key]
            covered = _ZERO
            for j in neighbours[i]:
                if (plane_key, -key[1]) not in keyed[j]:
                    continue
                cutting = [row_j for row_j, key_j in zip(g.rows[j], keyed[j]) if key_j[0] != plane_key and
                           any(sum(x * y for x, y in zip(row_j[0], ints[v][0])) > row_j[1] * ints[v][1]
                               for v in face)]
                on_plane = geo.restrict_to_hyperplane(face_rows + cutting, row, drop)
                try:
                    piece = geo.volume(geo.vertices(on_plane, k - 1, max_subsets=max_subsets), k - 1)
                except geo.TooLarge as exc:
                    raise VerificationError(f"region {i}: too large to check by brute force: {exc}") from None
                if piece:
                    confirmed.add(frozenset((i, j)))
                    covered += piece
            if covered != facet_volume:
                raise VerificationError(
                    f"region {i}: adjacency: the facet on row {r} of A is "
                    f"{'not ' if covered < facet_volume else 'over-'}covered by the regions listed as adjacent to it "
                    f"(covered {covered} of {facet_volume}, in "
                    f"coordinates without t[{drop}])")
    for pair, e in sorted(pairs.items(), key=lambda item: item[1]):
        if pair not in confirmed:
            i, j = sorted(pair)
            raise VerificationError(f"adjacency[{e}]: regions {i} and {j} share no {k - 1}-dimensional piece")


def verify_export(doc: Any, *, max_subsets: int = DEFAULT_MAX_SUBSETS,
                  progress: Callable[[str], None] | None = None) -> Result:
    """Verify an export (a parsed JSON document); :class:`InputError` when it is unreadable.

    ``progress``, when given, is called with each line of the report as the check that writes it finishes.

    Examples
    --------
    >>> doc = {"format": "polyregions.regions/1",
    ...        "network": {"format": "polyregions.network/1", "input_dim": 1,
    ...                    "layers": [{"weight": [[1]], "bias": [0], "activation": "relu"}]},
    ...        "domain": {"type": "box", "lower": [-1], "upper": [1]}, "exact": True, "engine": "mesh",
    ...        "summary": {"input_dim": 1, "domain_dim": 1, "neurons": 1, "activation_regions": 2,
    ...                    "linear_regions": 2, "adjacencies": 1, "exact": True, "engine": "mesh"},
    ...        "regions": [{"pattern": [0], "A": [[1]], "b": [0], "interior_point": ["-1/2"],
    ...                     "output_map": {"M": [[0]], "c": [0]}},
    ...                    {"pattern": [1], "A": [[-1]], "b": [0], "interior_point": ["1/2"],
    ...                     "output_map": {"M": [[1]], "c": [0]}}],
    ...        "adjacency": [[0, 1, [0]]], "linear_regions": [[0], [1]]}
    >>> result = verify_export(doc)
    >>> result.verified, result.lines[-1]
    (True, 'verified')
    >>> doc["summary"]["linear_regions"] = 1
    >>> verify_export(doc).failure
    'summary.linear_regions: recorded 1, verified 2'
    """
    ex = load_export(doc)
    result = Result()
    if progress is not None:
        result.lines = _ReportedLines(progress)
    k, n = ex.domain.dim, len(ex.regions)
    result.lines.append(f"{n} regions, {len(ex.adjacency)} adjacencies; network {ex.network.input_dim} -> "
                        f"{ex.network.output_dim} with {len(ex.network.neurons)} neurons; {ex.domain.kind} "
                        f"domain of dimension {k}")
    try:
        linear = _verify_complex(ex, result, max_subsets)
        _verify_derived(ex, result, linear)
        if ex.claim is not None:
            outcome = check_claim(ex.claim, network=ex.network, dim=k, activation_regions=n,
                                  linear_regions=len(linear))
            result.lines.append(outcome.line)
            if not outcome.checked:
                result.unchecked = f"claim {ex.claim.name!r}"
    except VerificationError as exc:
        result.ok, result.failure = False, str(exc)
        result.lines.append(f"FAILED: {exc}")
        return result
    if not ex.exact:
        result.lines.append("note: the export says exact: false; the checks above are exact regardless")
    if result.unchecked is not None:
        result.lines.append("region complex verified; the claim is user-defined and not independently checkable")
    else:
        result.lines.append("verified")
    return result


def _verify_complex(ex: Export, result: Result, max_subsets: int) -> set[frozenset[int]]:
    """Checks 1 to 5, a report line each; returns the verified linear regions.

    One scan over the regions does checks 1 and 3 and finds the vertices (two for an unbounded domain, whose clip
    box needs every neuron first); the failures are reported in the order of the checks below, each for the first
    region by index, with the report of the reference test of that check."""
    k, n = ex.domain.dim, len(ex.regions)
    if n == 0:
        raise VerificationError("regions: none listed (a full-dimensional domain has at least one)")
    rows = [[geo.integer_row(a, b) for a, b in zip(r.A, r.b)] for r in ex.regions]
    domain_rows = [geo.integer_row(a, b) for a, b in zip(ex.domain.A, ex.domain.b)]
    radius, clip = None, list(domain_rows)
    scan = _scan(ex, rows, clip if ex.domain.bounded_by_construction else None, max_subsets)
    if scan.certificates:
        raise VerificationError(_certificate_failure(ex, min(scan.certificates)) or
                                f"region {min(scan.certificates)}: the fast and the reference check 1 disagree")
    result.lines.append("ok: interior points strictly inside, patterns and output maps match the network")
    if not ex.domain.bounded_by_construction:
        everything = domain_rows + [row for region in rows for row in region] + geo.box_rows(1, k)
        radius = geo.radius_of_height(max(scan.height, geo.row_height(everything)), k)
        clip += geo.box_rows(radius, k)
        scan = _scan(ex, rows, clip, max_subsets)
    _check_unique(ex)
    if n <= PAIRWISE_LIMIT:
        _check_points_in_one_region(ex, rows, _box_candidates(scan.verts, radius))
        result.lines.append("ok: patterns unique; each interior point lies in exactly one open region")
    else:
        result.lines.append(f"ok: patterns unique (more than {PAIRWISE_LIMIT} regions: that each interior point "
                            "lies in one open region is not tested pairwise; it follows from the next check)")
    pairs = _check_adjacency_entries(ex)
    result.lines.append("ok: adjacency entries distinct, in range, labelled by the neurons that differ")
    if scan.geometry:
        raise VerificationError(scan.geometry[min(scan.geometry)])
    if scan.patterns:
        i = min(scan.patterns)
        region, dom = ex.regions[i], ex.domain
        neurons = ex.network.evaluate(region.pattern, region.point, dom.origin, dom.directions).neurons
        raise VerificationError(_constant_pattern_failure(ex, i, neurons, scan.verts[i]) or
                                f"region {i}: the fast and the reference check 3 disagree")
    g = _Geometry(rows, clip, scan.verts, radius)
    result.lines.append("ok: every pattern is constant on its region (checked at the region's vertices)")
    result.lines.append("ok: " + _check_coverage(ex, g, max_subsets))
    _check_facets(ex, g, pairs, max_subsets)
    result.lines.append(f"ok: adjacency: every listed pair shares a {k - 1}-dimensional piece, and the listed "
                        "neighbours cover every facet inside the domain")
    maps = [(region.M, region.c) for region in ex.regions]
    # equal maps compared, not hashed: a Fraction's hash costs a modular inverse of its denominator
    return components(n, [(i, j) for i, j in map(sorted, pairs) if maps[i] == maps[j]])


def _verify_derived(ex: Export, result: Result, linear: set[frozenset[int]]) -> None:
    """Checks 6 and 7, and the search record of a certificate: what the export derives from its complex."""
    n = len(ex.regions)
    check_linear_regions(ex.linear_regions, linear, n)
    result.lines.append(f"ok: {len(linear)} linear regions, as listed")
    check_summary(ex.summary, {"input_dim": ex.network.input_dim, "domain_dim": ex.domain.dim,
                               "neurons": len(ex.network.neurons), "activation_regions": n,
                               "linear_regions": len(linear), "adjacencies": len(ex.adjacency),
                               "exact": ex.exact, "engine": ex.engine})
    result.lines.append("ok: summary: every count as verified, exact and engine as the export's")
    if ex.search is not None:
        result.lines.append(check_search(ex.search, engine=ex.engine))


class _ReportedLines(list):
    """The lines of a report, each passed to ``report`` as it is added (the checks add one as each finishes)."""

    def __init__(self, report: Callable[[str], None]) -> None:
        super().__init__()
        self._report = report

    def append(self, line: str) -> None:
        super().append(line)
        self._report(line)


def verify_file(path: str, *, max_subsets: int = DEFAULT_MAX_SUBSETS,
                progress: Callable[[str], None] | None = None) -> Result:
    """Read and verify an export file; :class:`InputError` (field ``file``/``json``/...) when unreadable.

    Only a regular file is read (a FIFO or a device is refused before reading: one would block, the other never
    end), through :func:`proofs_check.reading.read_document`. ``progress`` is as in :func:`verify_export`."""
    return verify_export(read_document(path), max_subsets=max_subsets, progress=progress)


def build_parser(prog: str = "python -m proofs_check verify") -> argparse.ArgumentParser:
    """The command line of the verifier."""
    from ._progress import add_progress_options

    parser = argparse.ArgumentParser(
        prog=prog,
        description="Re-check a polyregions.regions/1 export (a region complex with its certificates, written by "
                    "'polyregions regions --export FILE' or 'polyregions search -o CERT') exactly, in rational "
                    "arithmetic, without polyregions: certificates, unique patterns, constant patterns, coverage "
                    "of the domain, adjacency, linear regions, summary and the claim of a certificate.",
        epilog="Exit status: 0 verified; 1 a check failed; 2 the file is not a readable export; 3 the region "
               "complex verified, but the claim of the certificate is user-defined and not independently "
               "checkable; 130 interrupted by Ctrl-C or SIGTERM.")
    parser.add_argument("file", metavar="FILE", help="the JSON export or certificate to check")
    parser.add_argument("--max-subsets", type=int, default=DEFAULT_MAX_SUBSETS, metavar="N",
                        help="largest number of row subsets tried per vertex enumeration; a region that needs "
                             f"more fails as too large, never passes unchecked (default {DEFAULT_MAX_SUBSETS})")
    add_progress_options(parser, quiet_help="print only the last line of the report, and show no progress")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: verify one export, print the report, return the exit status (0, 1, 2 or 3)."""
    from ._progress import Progress, wanted

    args = build_parser().parse_args(argv)
    # Every number read has at most reading.MAX_DIGITS digits, but a report may print longer ones (and ones
    # beyond Python's guard of 4,300 digits on str(int)): lift the guard while the check runs.
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        try:
            with Progress("proofs_check verify", total=None, enabled=wanted(args)) as shown:
                result = verify_file(args.file, max_subsets=args.max_subsets, progress=_reporter(shown))
        except InputError as exc:
            print(f"proofs_check: error: {args.file}: {exc}", file=sys.stderr)
            return EXIT_UNREADABLE
        except RecursionError:
            print(f"proofs_check: error: {args.file}: json: nested too deeply", file=sys.stderr)
            return EXIT_UNREADABLE
        lines = result.lines[-1:] if args.quiet else [f"proofs_check: {args.file}"] + result.lines
        print("\n".join(lines))
        return result.status
    finally:
        sys.set_int_max_str_digits(limit)


def _reporter(shown):
    def report(line: str) -> None:
        shown.step(line.removeprefix("ok: "))
        shown.advance()
    return report


if __name__ == "__main__":
    from ._interrupts import run_interruptibly

    sys.exit(run_interruptibly(main))
