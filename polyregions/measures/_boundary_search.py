"""The exact distance from a point to ``B_N``, the boundary of linear regions, when no touching point of the nearest
neuron hyperplanes proves it: a best-first search over activation regions, in order of their distance to the point,
entering each across a facet on which the output map does not change, until the nearest facet of ``B_N`` found is
closer than every region not yet visited (see the notes of :mod:`polyregions.measures.distances`)."""

from __future__ import annotations

import heapq
import random
from fractions import Fraction
from typing import TYPE_CHECKING

from polyregions.exact._integers import primitive
from polyregions.exact.linalg import Vector, dot
from polyregions.measures._neuron_distances import neuron_rows

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["search", "region_rows_of"]

_ZERO = Fraction(0)


def region_rows_of(net: "Network", pattern) -> list[tuple[Vector, Fraction]]:
    """The rows ``a . y <= beta`` of the closed activation region of ``pattern`` (zero-gradient neurons skipped)."""
    from polyregions.networks._neuron_maps import PatternMaps

    if hasattr(net, "region_rows"):  # a graph network's stages
        from polyregions.measures._staged_distances import region_rows

        return [_primitive_row(a, beta) for a, beta in region_rows(net, pattern)]  # type: ignore[arg-type]

    maps = PatternMaps.of(net, pattern)
    rows = []
    for index, l, _u, g, D in neuron_rows(net, pattern, maps):
        if not any(g[:-1]):
            continue
        act = net.layers[l].activation
        k = pattern[index]
        a = tuple(Fraction(v) for v in g[:-1])
        if k < len(act.breakpoints):
            rows.append(_primitive_row(a, act.breakpoints[k] * D - g[-1]))
        if k > 0:
            rows.append(_primitive_row(tuple(-v for v in a), g[-1] - act.breakpoints[k - 1] * D))
    return rows


def _primitive_row(a: Vector, beta: Fraction) -> tuple[Vector, Fraction]:
    """The same half-space with coprime integer coefficients (smaller numbers for the linear programs)."""
    key = primitive((*a, beta))
    return tuple(Fraction(v) for v in key[:-1]), Fraction(key[-1])


def search(net: "Network", x: Vector, start) -> tuple[Fraction | None, Vector | None]:
    """Exact ``dist(x, B_N)`` squared and a nearest point of ``B_N`` (None, None when there is none), by visiting
    activation regions in order of distance through facets that are not in ``B_N`` (see the notes of
    :mod:`polyregions.measures.distances`); ``start`` is ``x``'s pattern when ``x`` is off every hyperplane, else
    None."""
    from polyregions.exact.lp import strict_point
    from polyregions.polyhedra._projection import project

    n = net.input_dim
    if start is None:
        rng = random.Random(0)
        while True:
            r = tuple(Fraction(rng.randint(-10 ** 6, 10 ** 6), 10 ** 6) for _ in range(n))
            start = net.pattern_toward(x, r)
            rows = region_rows_of(net, start)
            if strict_point([a for a, _ in rows], [c for _, c in rows], dim=n) is not None:
                break
    best, best_point = None, None
    heap = [(_ZERO, 0, start)]
    seen = {start}
    counter = 1
    while heap:
        d2, _, pattern = heapq.heappop(heap)
        if best is not None and d2 >= best:
            break
        rows = region_rows_of(net, pattern)
        inside = strict_point([a for a, _ in rows], [c for _, c in rows], dim=n)
        order = sorted(range(len(rows)), key=lambda i: (dot(rows[i][0], x) - rows[i][1]) ** 2 / dot(rows[i][0],
                                                                                                    rows[i][0]))
        keys = [primitive((*a, beta)) for a, beta in rows]
        done = set()
        for i in order:
            a, beta = rows[i]
            plane2 = (dot(a, x) - beta) ** 2 / dot(a, a)
            if best is not None and plane2 >= best:
                break
            if keys[i] in done:
                continue  # the same hyperplane from another neuron
            done.add(keys[i])
            # Rows of other neurons on the same hyperplane are not strict on the facet: leave them out.
            others = [r for j, r in enumerate(rows) if keys[j] != keys[i]]
            A = [r[0] for r in others]
            b = [r[1] for r in others]
            # A facet when some point beyond it keeps every other row strict: the segment from the region's
            # interior point to it crosses the facet's relative interior (no equality constraint needed).
            beyond = strict_point(A + [tuple(-v for v in a)], b + [-beta], dim=n)
            if beyond is None:
                continue  # not a facet
            # Every region visited has an interior: the start holds x strictly (or was checked to), the others
            # are entered across a facet.
            assert inside is not None
            step = (beta - dot(a, inside)) / dot(a, tuple(o - p for o, p in zip(beyond, inside)))
            q = tuple(p + step * (o - p) for p, o in zip(inside, beyond))
            facet = project(x, A, b, E=[a], e=[beta])
            if best is not None and facet.squared_distance >= best:
                continue
            across = net.pattern_toward(q, a)
            if across == pattern:
                continue  # a neuron constant at its breakpoint on both sides
            off = tuple(qi + ai for qi, ai in zip(q, a))
            if net.forward_with_pattern(off, pattern) != net.forward_with_pattern(off, across):
                best, best_point = facet.squared_distance, facet.point
            elif across not in seen:
                seen.add(across)
                heapq.heappush(heap, (facet.squared_distance, counter, across))
                counter += 1
    return best, best_point
