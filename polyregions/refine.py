"""LP-certified layerwise refinement: exact activation regions in any dimension.

Each region of layer l-1 carries the affine map ``t -> M t + c`` of the layer's input on it; the next layer's
neurons pulled back through that map are hyperplanes, and every hyperplane that meets the region's interior
splits it. Whether it meets the interior is decided by an exact interior point (certified LP), never by a
tolerance.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from .errors import InvalidInputError
from .linalg import Matrix, Vector, dot
from .lp import strict_point
from .progress import progress_bar
from .region_complex import Region, RegionComplex, sorted_complex

if TYPE_CHECKING:
    from .domain import Domain
    from .network import Network

__all__ = ["refine"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class _Cell:
    A: Matrix
    b: Vector
    point: Vector            # exact, strictly inside
    pattern: tuple[int, ...]
    M: Matrix                # the current layer's input is M t + c on the cell
    c: Vector


def refine(network: "Network", domain: "Domain", *, backend: str = "highs", progress: bool = False
           ) -> RegionComplex:
    """Enumerate the activation regions of ``network`` in ``domain`` exactly, in any dimension.

    Examples
    --------
    >>> from polyregions.network import Network
    >>> from polyregions.activations import relu
    >>> from polyregions import domain as dom
    >>> net = Network.from_layers(1, [([[1], [1]], [0, -1], relu())])
    >>> len(refine(net, dom.box([-2], [2])))
    3
    """
    if domain.input_dim != network.input_dim:
        raise InvalidInputError(f"refine: expected a domain in R^{network.input_dim}, got one in R^{domain.input_dim}")
    net = network.restrict(domain.origin, domain.directions)
    k = domain.dim
    start = domain.region.interior_point()
    identity = tuple(tuple(Fraction(int(i == j)) for j in range(k)) for i in range(k))
    cells = [_Cell(domain.region.A, domain.region.b, start, (), identity, tuple([_ZERO] * k))]
    with progress_bar(total=len(net.layers), desc="layers", enabled=progress) as bar:
        for layer in net.layers:
            cells = [child for cell in cells for child in _refine_cell(cell, layer, backend)]
            bar.update(1)
    regions = [Region(cell.pattern, cell.A, cell.b, cell.point, net) for cell in cells]
    adjacency = _adjacency(regions, net, len(domain.region.A), backend)
    return sorted_complex(network, domain, regions, adjacency, exact=True, engine="lp")


def _refine_cell(cell: _Cell, layer, backend: str) -> list[_Cell]:
    W, bias, activation = layer.weight, layer.bias, layer.activation
    G = tuple(tuple(dot(row, column) for column in zip(*cell.M)) for row in W) if cell.M else tuple(() for _ in W)
    g = tuple(dot(row, cell.c) + bj for row, bj in zip(W, bias))
    pieces = [cell]
    if not activation.is_linear:
        for a, d in zip(G, g):
            if any(a):
                for xi in activation.breakpoints:
                    pieces = [part for piece in pieces for part in _split(piece, a, xi - d, backend)]
    children = []
    for piece in pieces:
        pattern, M, c = piece.pattern, [], []
        values = [dot(a, piece.point) + d for a, d in zip(G, g)]
        chosen = []
        for a, d, value in zip(G, g, values):
            k = activation.piece(value)
            slope, intercept = activation.piece_map(k)
            M.append(tuple(slope * x for x in a))
            c.append(slope * d + intercept)
            chosen.append(k)
        if not activation.is_linear:
            pattern = pattern + tuple(chosen)
        children.append(_Cell(piece.A, piece.b, piece.point, pattern, tuple(M), tuple(c)))
    return children


def _split(cell: _Cell, a: Vector, rhs: Fraction, backend: str) -> list[_Cell]:
    """The non-empty open parts of ``cell`` on each side of ``a.t = rhs``."""
    value = dot(a, cell.point) - rhs
    negated = tuple(-x for x in a)
    below = (cell.A + (a,), cell.b + (rhs,))
    above = (cell.A + (negated,), cell.b + (-rhs,))
    if value < 0:
        other = strict_point(*above, backend=backend)
        if other is None:
            return [cell]
        return [_Cell(*below, cell.point, cell.pattern, cell.M, cell.c),
                _Cell(*above, other, cell.pattern, cell.M, cell.c)]
    if value > 0:
        other = strict_point(*below, backend=backend)
        if other is None:
            return [cell]
        return [_Cell(*below, other, cell.pattern, cell.M, cell.c),
                _Cell(*above, cell.point, cell.pattern, cell.M, cell.c)]
    # The hyperplane passes through an interior point, so both open sides are non-empty.
    return [_Cell(*side, strict_point(*side, backend=backend), cell.pattern, cell.M, cell.c)
            for side in (below, above)]


def hyperplane_key(a: Vector, b: Fraction) -> tuple[tuple[int, ...], int]:
    """The primitive integer form of the hyperplane ``a.t = b`` and the side ``a.t <= b`` lies on (+1 or -1)."""
    values = list(a) + [b]
    scale = math.lcm(*(v.denominator for v in values))
    integers = [int(v * scale) for v in values]
    divisor = math.gcd(*integers)
    integers = [v // divisor for v in integers]
    sign = 1 if next(v for v in integers if v) > 0 else -1
    return tuple(sign * v for v in integers), sign


def _facets(region: Region, first: int, backend: str):
    """Each facet row from ``first`` on, with an exact point in the facet's relative interior.

    Row i is a facet when some point violates it while keeping every other row strict; the segment from
    the region's interior point to that point crosses the facet's relative interior. This needs no equality
    constraint, which keeps the program small.
    """
    inside = region.interior_point
    for i in range(first, len(region.A)):
        a, bi = region.A[i], region.b[i]
        A = region.A[:i] + region.A[i + 1:] + (tuple(-v for v in a),)
        b = region.b[:i] + region.b[i + 1:] + (-bi,)
        outside = strict_point(A, b, dim=region.dim, backend=backend)
        if outside is None:
            continue
        step = (bi - dot(a, inside)) / dot(a, tuple(o - x for o, x in zip(outside, inside)))
        yield i, tuple(x + step * (o - x) for x, o in zip(inside, outside))


def _adjacency(regions: list[Region], net: "Network", domain_rows: int, backend: str
               ) -> set[tuple[tuple, tuple]]:
    """Pairs of patterns of regions whose closures share a facet (the first ``domain_rows`` rows of every
    region are the domain's own, never shared).

    For each facet of each region, a point q in the facet's relative interior is known exactly. The region
    across is guessed by a float forward pass just beyond q, then *proved* by exact arithmetic: a region S
    with the opposite side of the same hyperplane whose other inequalities all hold strictly at q shares a
    (k-1)-dimensional neighbourhood of q with the facet. Only when the guess cannot be proved do exact
    lexicographic evaluation and certified LPs decide.
    """
    by_pattern = {r.pattern: r for r in regions}
    keys = {id(r): [hyperplane_key(a, bi) for a, bi in zip(r.A, r.b)] for r in regions}
    by_facet: dict[tuple, list[tuple[Region, int]]] = {}
    facets = []
    for region in regions:
        for i, point in _facets(region, domain_rows, backend):
            key, side = keys[id(region)][i]
            by_facet.setdefault(key, []).append((region, side))
            facets.append((region, i, point, key, side))
    float_net = _FloatPatterns(net)
    edges = set()
    for region, i, point, key, side in facets:
        outward = region.A[i]
        proved = False
        # A cheap float guess first, then the exact lexicographic one; either must still be proved.
        for guess in (lambda: float_net.pattern_beyond(point, outward), lambda: net.pattern_toward(point, outward)):
            other = by_pattern.get(guess())
            if other is not None and other is not region and _touches(other, keys[id(other)], point, key, side):
                edges.add(tuple(sorted((region.pattern, other.pattern))))
                proved = True
                break
        if proved:
            continue
        for other, other_side in by_facet.get(key, ()):
            if other_side != side and other is not region and _share_facet(region, other, i, backend):
                edges.add(tuple(sorted((region.pattern, other.pattern))))
    return edges


def _touches(region: Region, keys, point: Vector, key, side: int) -> bool:
    """Whether ``region`` lies on the other side of hyperplane ``key`` with every other row strict at
    ``point`` (a point of that hyperplane), exactly."""
    found = False
    for (row_key, row_side), a, bi in zip(keys, region.A, region.b):
        if row_key == key:
            if row_side == side:
                return False
            found = True
        elif not dot(a, point) < bi:
            return False
    return found


class _FloatPatterns:
    """Float forward passes used only to *guess* patterns; every guess is proved exactly before use."""

    def __init__(self, net: "Network"):
        import numpy as np

        self.np = np
        self.layers = [(np.array([[float(v) for v in row] for row in layer.weight]),
                        np.array([float(v) for v in layer.bias]),
                        np.array([float(v) for v in layer.activation.breakpoints]),
                        layer.activation) for layer in net.layers]

    def pattern_beyond(self, point: Vector, direction: Vector) -> tuple[int, ...]:
        np = self.np
        x = np.array([float(v) for v in point])
        d = np.array([float(v) for v in direction])
        x = x + d * (1e-9 * max(1.0, float(np.abs(x).max())) / max(float(np.abs(d).max()), 1e-300))
        pattern: list[int] = []
        for W, bias, breakpoints, activation in self.layers:
            z = W @ x + bias
            pieces = np.searchsorted(breakpoints, z, side="left")
            x = np.array([float(activation.piece_map(int(k))[0]) * v + float(activation.piece_map(int(k))[1])
                          for k, v in zip(pieces, z)])
            if not activation.is_linear:
                pattern.extend(int(k) for k in pieces)
        return tuple(pattern)


def _share_facet(region: Region, other: Region, row: int, backend: str) -> bool:
    """Whether the closures meet in a (k-1)-dimensional set inside the hyperplane of ``region.A[row]``."""
    a, bi = region.A[row], region.b[row]
    key = hyperplane_key(a, bi)[0]
    keep = [j for j in range(len(other.A)) if hyperplane_key(other.A[j], other.b[j])[0] != key]
    A = region.A[:row] + region.A[row + 1:] + tuple(other.A[j] for j in keep)
    b = region.b[:row] + region.b[row + 1:] + tuple(other.b[j] for j in keep)
    return strict_point(A, b, E=(a,), e=(bi,), dim=region.dim, backend=backend) is not None
