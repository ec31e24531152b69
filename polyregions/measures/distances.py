"""Exact distances from points to the boundaries of activation regions and of linear regions (``B_N``).

Distances are Euclidean, in input space, to boundaries in the whole input space (no domain).

Activation regions
------------------
The activation region ``R`` of ``x`` (the open set of points with ``x``'s pattern) is the polytope where every
neuron ``z`` stays between the two breakpoints around its piece, ``z`` being affine on ``R``. For ``x`` inside a
convex polytope, the largest ball around ``x`` inside it touches one of its hyperplanes, so the distance from
``x`` to the boundary of ``R`` is the distance to the nearest of its hyperplanes, whether or not that hyperplane
carries a facet (the touching point is on the facet of the nearest one):

    dist(x, boundary of R) = min over neurons z and breakpoints xi of |z(x) - xi| / |grad z|,

the gradient taken on ``R``, neurons with zero gradient on ``R`` skipped (Hanin & Rolnick, Corollary 5). No
projection onto a polytope is needed. Exactly, the squared distance is a rational; the nearest point is
``x - (z(x) - xi) grad z / |grad z|^2``.

Linear regions
--------------
``B_N`` is the set where the gradient of the output is discontinuous; ``dist(x, B_N) >= dist(x, boundary of R)``
because ``B_N`` never meets an open activation region. Equality is proved by finding a touching point ``p``
(of a neuron ``z`` attaining the minimum) that is in ``B_N``: at ``p`` no other neuron may be at a breakpoint
(every other neuron strictly inside ``R``'s piece), so the only regions around ``p`` are ``R`` and the region
``R'`` with ``z`` on the next piece, and the two output maps differ exactly when the derivative of the output
with respect to ``z``'s post-activation (through the later layers, with ``R``'s pattern) is not zero. When no
touching point qualifies (dead paths, coinciding hyperplanes), an exact search decides: activation regions are
visited in order of their distance to ``x`` through facets across which the output map does not change, each
facet's exact distance being the projection of ``x`` onto it (:mod:`polyregions.polyhedra._projection`), until the nearest
facet of ``B_N`` is closer than every unvisited region.

Batches and error bounds
------------------------
:func:`boundary_distances` handles thousands of points in any dimension in floating point with proven bounds,
``lower <= distance <= upper``. Pre-activations carry the bounds of :mod:`polyregions.networks._float_filter`. For the
gradients, the Gram matrices ``Q_l = J_l J_l^T`` of each layer's Jacobian are propagated, ``Q_1 = W_1 W_1^T`` and
``Q_l = A Q_{l-1} A^T`` with ``A = W_l S_{l-1}`` (``S`` the slopes of the pieces), so ``|grad z_i|^2`` is a
diagonal entry. With ``n`` the inner dimension, ``gamma_n = n u / (1 - n u)`` and ``|Â - A| <= delta |Â|``
(``delta = 0`` when weights and slopes are doubles exactly, as for float32 ReLU networks, else ``6u (1 + 4u)``),
the standard bound ``|fl(X Y) - X Y| <= gamma_n |X| |Y|`` gives, entrywise,

    |Q̂_1 - Q_1| <= (gamma_{n_0} + delta (2 + delta)) |Ŵ_1| |Ŵ_1|^T,
    |Q̂_l - Q_l| <= |Â| [ (1 + delta)^2 E_{l-1} + (2 gamma_n + gamma_n^2 + 2 delta + delta^2) |Q̂_{l-1}| ] |Â|^T,

each bound evaluated in floating point with non-negative terms and multiplied by ``1 + 4 (2n + 16) u`` (which
covers its own rounding), plus ``2n 2^-1000`` for subnormal results. A point whose pattern the float bounds do
not prove, or with a non-finite value, is computed exactly. The ratio bounds round outwards by ``8u``.

The linear-region certificate of the batch works the same way in floating point: the gradient of each candidate
neuron by back-propagation, the touching point's pre-activations from the directional derivatives along it,
the output's derivative by forward propagation, each with the inner-product bound above.

Examples
--------
>>> from polyregions.networks.network import Network
>>> net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
>>> exact_distance(net, ["3/10", "1/2"]).squared
Fraction(9, 100)
>>> d = boundary_distances(net, [[0.25, -2.0], [1.0, 1.0]])
>>> d.values.tolist(), bool((d.lower <= d.values).all() and (d.values <= d.upper).all())
([0.25, 1.0], True)
"""

from __future__ import annotations

import heapq
import math
import random
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Vector, dot

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["Distances", "ExactDistance", "boundary_distances", "exact_distance", "distance_scaling",
           "log_distance_histogram", "KINDS"]

#: The two kinds of boundary: of activation regions, and of linear regions (``B_N``).
KINDS = ("activation", "linear")

_U = 2.0 ** -53
_TINY = 2.0 ** -1000
_ZERO = Fraction(0)


def _gamma(n: int) -> float:
    return n * _U / (1 - n * _U)


def _safety(m: int) -> float:
    return 1.0 + 4.0 * (m + 8) * _U


def _check_kind(kind: str) -> None:
    if kind not in KINDS:
        raise InvalidInputError(f"kind: expected one of {', '.join(KINDS)}, got {kind!r}")


# --- exact distances ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class ExactDistance:
    """An exact distance: ``sqrt(squared)``, with a nearest boundary point.

    Attributes
    ----------
    squared : Fraction or None
        The squared distance (None: there is no boundary, the distance is infinite).
    nearest : tuple of Fraction or None
        A boundary point at that distance.
    """

    squared: Fraction | None
    nearest: Vector | None

    @property
    def value(self) -> float:
        """The distance as a double (correctly rounded up to one unit in the last place)."""
        return math.inf if self.squared is None else math.sqrt(float(self.squared))

    def interval(self, *, bits: int = 64) -> tuple[Fraction, Fraction] | None:
        """Rational bounds ``lo <= distance <= hi``, within a relative ``2^-bits`` (None when infinite)."""
        if self.squared is None:
            return None
        from polyregions.polyhedra.polytope import sqrt_upper_bound

        hi = sqrt_upper_bound(self.squared, bits=bits)
        lo = self.squared / hi if hi else _ZERO
        return lo, hi

    def to_sympy(self):
        """The distance as a sympy expression (``sqrt`` of a rational)."""
        import sympy

        if self.squared is None:
            return sympy.oo
        return sympy.sqrt(sympy.Rational(self.squared.numerator, self.squared.denominator))


def _exact_point(point: Any, n: int) -> Vector:
    from polyregions.exact.rationals import rational_vector

    return rational_vector(point, what="point", length=n)


def _neuron_rows(net: "Network", pattern, maps) -> list[tuple[int, int, int, tuple[int, ...], int]]:
    """``(neuron, layer, unit, g, D)`` for every neuron: its pre-activation on the region is ``(g . [x; 1]) / D``."""
    rows = []
    index = 0
    for l, layer in enumerate(net.layers):
        if layer.activation.is_linear:
            continue
        G, D = maps.maps[l]
        cols = G.ncols()
        entries = [int(v) for v in G.entries()]
        for u in range(layer.width):
            rows.append((index, l, u, tuple(entries[u * cols:(u + 1) * cols]), D))
            index += 1
    return rows


def _activation_exact(net: "Network", x: Vector):
    """Exact activation-region distance data: ``(squared, nearest, minimisers)`` with ``minimisers`` the
    ``(neuron, layer, unit, xi)`` attaining the minimum, and the pattern and maps used."""
    from polyregions.networks._neuron_maps import PatternMaps, exact_preactivations

    pre = exact_preactivations(net, [x])[0]
    pattern = tuple(layer.activation.piece(v) for layer, values in zip(net.layers, pre)
                    if not layer.activation.is_linear for v in values)
    maps = PatternMaps.of(net, pattern)
    best, found = None, []
    for index, l, u, g, D in _neuron_rows(net, pattern, maps):
        gg = sum(v * v for v in g[:-1])
        if gg == 0:
            continue
        value = sum((gi * xi for gi, xi in zip(g, x)), _ZERO) + g[-1]  # D times the pre-activation
        for xi in net.layers[l].activation.breakpoints:
            s2 = (value - xi * D) ** 2 / gg
            if best is None or s2 < best:
                best, found = s2, [(index, l, u, xi, g, D, value)]
            elif s2 == best:
                found.append((index, l, u, xi, g, D, value))
    if best is None:
        return None, None, [], pattern, maps
    index, l, u, xi, g, D, value = found[0]
    gg = sum(v * v for v in g[:-1])
    step = (value - xi * D) / gg  # x - step * g is on the hyperplane
    nearest = tuple(xi_ - step * gi for xi_, gi in zip(x, g[:-1]))
    return best, nearest, found, pattern, maps


def exact_distance(network: "Network", point: Any, *, kind: str = "activation") -> ExactDistance:
    """The exact distance from ``point`` to the boundary of its activation region or to ``B_N``.

    Parameters
    ----------
    network : Network
    point : sequence of numbers
        Read exactly (a float is its binary value).
    kind : {"activation", "linear"}, keyword-only

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> # relu(x) - relu(-x) = x: the neurons switch at x = 0 but the output never bends.
    >>> net = Network.from_layers(1, [([[1], [-1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
    >>> exact_distance(net, [2]).squared, exact_distance(net, [2], kind="linear").squared is None
    (Fraction(4, 1), True)
    """
    _check_kind(kind)
    x = _exact_point(point, network.input_dim)
    squared, nearest, found, pattern, maps = _activation_exact(network, x)
    if kind == "activation" or squared is None:
        if kind == "linear" and squared is None:
            return ExactDistance(None, None)  # one region on all of space, no boundary at all
        return ExactDistance(squared, nearest)
    if squared > 0:
        for index, l, u, xi, g, D, value in found:
            p = _touching_point(x, g, D, value, xi)
            if _touching_point_in_boundary(network, x, p, index, pattern, xi, value, D):
                return ExactDistance(squared, p)
    return _search(network, x, pattern if squared > 0 else None)


def _touching_point(x: Vector, g, D, value, xi) -> Vector:
    gg = sum(v * v for v in g[:-1])
    step = (value - xi * D) / gg
    return tuple(a - step * b for a, b in zip(x, g[:-1]))


def _touching_point_in_boundary(net: "Network", x: Vector, p: Vector, neuron: int, pattern, xi, value, D) -> bool:
    """Whether the touching point ``p`` on neuron ``neuron``'s hyperplane is in ``B_N``, proved exactly: no other
    neuron at a breakpoint at ``p`` and every one on ``pattern``'s piece, and different outputs (off the
    hyperplane, at ``x``) of the two patterns on either side."""
    from polyregions.networks._neuron_maps import exact_preactivations

    pre = exact_preactivations(net, [p])[0]
    index = 0
    for layer, values in zip(net.layers, pre):
        act = layer.activation
        if act.is_linear:
            continue
        for v in values:
            if index != neuron and (v in act.breakpoints or act.piece(v) != pattern[index]):
                return False
            index += 1
    k = pattern[neuron]
    other = list(pattern)
    # x is on the side of p's breakpoint given by the sign of (value - xi D).
    other[neuron] = k + 1 if value < xi * D else k - 1
    return net.forward_with_pattern(x, pattern) != net.forward_with_pattern(x, tuple(other))


def _region_rows(net: "Network", pattern) -> list[tuple[Vector, Fraction]]:
    """The rows ``a . y <= beta`` of the closed activation region of ``pattern`` (zero-gradient neurons skipped)."""
    from polyregions.networks._neuron_maps import PatternMaps

    maps = PatternMaps.of(net, pattern)
    rows = []
    for index, l, u, g, D in _neuron_rows(net, pattern, maps):
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
    key = _plane_key(a, beta)
    return tuple(Fraction(v) for v in key[:-1]), Fraction(key[-1])


def _plane_key(a: Vector, beta: Fraction) -> tuple[int, ...]:
    """The primitive integer form of the half-space ``a . y <= beta`` (equal for positive multiples)."""
    values = list(a) + [beta]
    scale = math.lcm(*(v.denominator for v in values))
    ints = [int(v * scale) for v in values]
    g = math.gcd(*ints)
    return tuple(v // g for v in ints)


def _search(net: "Network", x: Vector, start) -> ExactDistance:
    """Exact ``dist(x, B_N)`` by visiting activation regions in order of distance through facets that are not in
    ``B_N`` (see the module notes)."""
    from polyregions.exact.lp import strict_point
    from polyregions.polyhedra._projection import project

    n = net.input_dim
    if start is None:
        rng = random.Random(0)
        while True:
            r = tuple(Fraction(rng.randint(-10 ** 6, 10 ** 6), 10 ** 6) for _ in range(n))
            start = net.pattern_toward(x, r)
            rows = _region_rows(net, start)
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
        rows = _region_rows(net, pattern)
        inside = strict_point([a for a, _ in rows], [c for _, c in rows], dim=n)
        order = sorted(range(len(rows)), key=lambda i: (dot(rows[i][0], x) - rows[i][1]) ** 2 / dot(rows[i][0],
                                                                                                    rows[i][0]))
        keys = [_plane_key(a, beta) for a, beta in rows]
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
    return ExactDistance(best, best_point)


# --- batches in floating point ----------------------------------------------------------------------------------

@dataclass(frozen=True)
class Distances:
    """Distances of many points with proven bounds: ``lower <= exact distance <= upper`` for every point.

    Attributes
    ----------
    kind : str
    values : ndarray
        The computed distances (``inf`` when there is no boundary).
    lower, upper : ndarray
        Proven bounds.
    exact_points : tuple of int
        The points decided by exact arithmetic (their bounds bracket the double nearest the exact value).
    """

    kind: str
    values: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    exact_points: tuple[int, ...]

    def __len__(self) -> int:
        return len(self.values)

    def relative_error(self) -> float:
        """The largest ``(upper - lower) / value`` over points with a finite positive distance."""
        finite = np.isfinite(self.values) & (self.values > 0)
        if not finite.any():
            return 0.0
        return float(np.max((self.upper[finite] - self.lower[finite]) / self.values[finite]))


class _FloatNetwork:
    """Double copies of a network for the batch computations, built once."""

    def __init__(self, net: "Network"):
        from polyregions.networks.activations import linear
        from polyregions.networks._float_filter import FloatActivation, FloatLayer, float_layer

        self.net = net
        self.layers = [float_layer(layer.weight, layer.bias, layer.activation) for layer in net.layers]
        identity = FloatActivation.of(linear())
        self.linear, self.transposed = [], []
        for fl in self.layers:
            # The same doubles without bias (directional derivatives) and transposed (back-propagation); a row
            # whose bound was infinite (a weight below the double range) makes every derived row infinite too.
            poisoned = np.isinf(fl.tiny).any()
            for W, out in ((fl.weight, self.linear), (fl.weight.T.copy(), self.transposed)):
                tiny = np.full(W.shape[0], np.inf) if poisoned else _TINY * (W != 0).sum(axis=1)
                zeros = np.zeros(W.shape[0])
                out.append(FloatLayer(W, zeros, np.abs(W), zeros, tiny, W.shape[1], identity))
        self.is_linear = [layer.activation.is_linear for layer in net.layers]
        # Whether the weights are doubles exactly, and the slopes zero or signed powers of two (then scaling by
        # them is exact too); a weight too small for relative bounds makes every bound through it infinite.
        exact_w, self.slope_exact, tiny = [], [], []
        for layer in net.layers:
            exact_w.append(all(v.denominator & (v.denominator - 1) == 0 and Fraction(float(v)) == v
                               for row in layer.weight for v in row))
            self.slope_exact.append(all(q == 0 or (abs(q).numerator & (abs(q).numerator - 1) == 0
                                                   and abs(q).denominator & (abs(q).denominator - 1) == 0)
                                        for q in layer.activation.slopes))
            tiny.append(any(v != 0 and abs(v) < 2 ** -500 for row in layer.weight for v in row))
        # delta[m]: the relative error of Â = Ŵ_m S_{m-1} (for m = 0: of Ŵ_0 alone).
        self.delta = []
        for m in range(len(net.layers)):
            exact = exact_w[m] and (m == 0 or self.slope_exact[m - 1])
            self.delta.append(math.inf if tiny[m] else 0.0 if exact else 6 * _U * (1 + 4 * _U))
        W1 = self.layers[0].weight
        n0 = W1.shape[1]
        self.Q1 = W1 @ W1.T
        d = self.delta[0]
        self.E1 = ((_gamma(n0) + d * (2 + d)) * (self.layers[0].abs_weight @ self.layers[0].abs_weight.T)
                   * _safety(2 * n0) + 2 * n0 * _TINY * (self.Q1 != 0))


def _slopes(fl, pieces: np.ndarray) -> np.ndarray:
    return fl.activation.slopes[pieces]


def _activation_chunk(fn: _FloatNetwork, X: np.ndarray, EX: np.ndarray):
    """Activation distances of a chunk of points and the per-layer data the linear certificate needs."""
    from polyregions.networks._float_filter import UNCERTAIN, activate, certified_signs, forward_layer

    P = X.shape[0]
    lower = np.full(P, np.inf)
    upper = np.full(P, np.inf)
    value = np.full(P, np.inf)
    ok = np.isfinite(X).all(axis=1) & np.isfinite(EX).all(axis=1)
    h, eh = X, EX
    layers = []
    Q = E = None  # per-point Gram matrices of the current layer's Jacobian and their bounds
    n_layers = len(fn.layers)
    for m, fl in enumerate(fn.layers):
        z, ez = forward_layer(fl, h, eh)
        act = fl.activation
        record = {"z": z, "ez": ez}
        if fn.is_linear[m]:
            S = np.ones_like(z)
            record["pieces"] = None
        else:
            if m == 0:
                q_diag = np.broadcast_to(np.diag(fn.Q1), z.shape)
                e_diag = np.broadcast_to(np.diag(fn.E1), z.shape)
            else:
                q_diag = Q if Q.ndim == 2 else np.diagonal(Q, axis1=1, axis2=2)
                e_diag = E if E.ndim == 2 else np.diagonal(E, axis1=1, axis2=2)
            pieces = np.searchsorted(act.breakpoints, z, side="left")
            signs = []
            for k in range(act.breakpoints.size):
                sk = certified_signs(z, ez, act.breakpoints[k], act.breakpoint_errors[k])
                signs.append(sk)
                ok &= ~((sk == UNCERTAIN) | (sk == 0)).any(axis=1)
            S = _slopes(fl, pieces)
            # Distance to the nearest breakpoint over the neuron's gradient norm, bounded both ways.
            with np.errstate(all="ignore"):
                a = np.full(z.shape, np.inf)
                ea = np.zeros(z.shape)
                near = np.zeros(z.shape, dtype=np.int64)
                for k in range(act.breakpoints.size):
                    d = np.abs(z - act.breakpoints[k])
                    closer = d < a
                    a = np.where(closer, d, a)
                    ea = np.where(closer, (ez + act.breakpoint_errors[k] + 2 * _U * d) * (1 + 4 * _U), ea)
                    near = np.where(closer, k, near)
                zero = (q_diag == 0) & (e_diag == 0)  # an exactly zero gradient: no constraint
                hi_q = (q_diag + e_diag) * (1 + 4 * _U)
                lo_q = (q_diag - e_diag) * (1 - 4 * _U)
                lo_r = np.maximum(a - ea, 0.0) * (1 - 4 * _U) / np.sqrt(hi_q) * (1 - 8 * _U)
                up_r = np.where(lo_q > 0, (a + ea) * (1 + 4 * _U) / np.sqrt(np.where(lo_q > 0, lo_q, 1.0))
                                * (1 + 8 * _U), np.inf)
                est = a / np.sqrt(q_diag)
                lo_r = np.where(zero, np.inf, lo_r)
                up_r = np.where(zero, np.inf, up_r)
                est = np.where(zero, np.inf, est)
            lower = np.minimum(lower, lo_r.min(axis=1))
            upper = np.minimum(upper, up_r.min(axis=1))
            value = np.minimum(value, est.min(axis=1))
            record.update(pieces=pieces, lo=lo_r, up=up_r, near=near, signs=signs)
        record["S"] = S
        layers.append(record)
        h, eh = activate(fl, z, ez)
        if m + 1 < n_layers and any(not fn.is_linear[j] for j in range(m + 1, n_layers)):
            Q, E = _next_gram(fn, m, S, Q, E, full=m + 2 < n_layers)
    # A finite distance without a proven finite upper bound, or anything NaN, goes to exact arithmetic.
    ok &= ~(np.isinf(upper) & np.isfinite(value)) & ~np.isnan(lower) & ~np.isnan(upper) & ~np.isnan(value)
    return lower, upper, value, ok, layers


def _next_gram(fn: _FloatNetwork, m: int, S: np.ndarray, Q, E, *, full: bool = True):
    """``Q_{m+1} = A Q_m A^T`` with ``A = W_{m+1} S_m`` for every point, and its bound (see the module notes);
    only the diagonals (shape ``(points, width)``) unless ``full``."""
    nxt = fn.layers[m + 1]
    W, absW = nxt.weight, nxt.abs_weight
    n = W.shape[1]
    delta = fn.delta[m + 1]
    P = S.shape[0]
    A = W[None, :, :] * S[:, None, :]
    absA = absW[None, :, :] * np.abs(S)[:, None, :]
    if Q is None:
        Qm, Em = fn.Q1, fn.E1
        AQ = (A.reshape(-1, n) @ Qm).reshape(P, -1, n)
        absQ = np.abs(Qm)
        c = 2 * _gamma(n) + _gamma(n) ** 2 + 2 * delta + delta * delta
        M = (1 + delta) ** 2 * Em + c * absQ
        AM = (absA.reshape(-1, n) @ M).reshape(P, -1, n)
    else:
        AQ = A @ Q
        c = 2 * _gamma(n) + _gamma(n) ** 2 + 2 * delta + delta * delta
        M = (1 + delta) ** 2 * E + c * np.abs(Q)
        AM = absA @ M
    with np.errstate(all="ignore"):
        if full:
            Qn = AQ @ np.swapaxes(A, 1, 2)
            En = AM @ np.swapaxes(absA, 1, 2)
            nonzero = (Qn != 0) | (AM.sum(axis=2)[:, :, None] != 0)
        else:
            Qn = (AQ * A).sum(axis=2)  # the same inner products, in another order: the same bound
            En = (AM * absA).sum(axis=2)
            nonzero = (Qn != 0) | (AM.sum(axis=2) != 0)
        En = En * _safety(2 * n + 8) + 2 * n * _TINY * nonzero
    return Qn, En


def _matvec(fl, v: np.ndarray, ev: np.ndarray):
    """``v W^T`` for the rows ``v`` with bounds (the float filter's inner-product bound, zero bias)."""
    from polyregions.networks._float_filter import forward_layer

    return forward_layer(fl, v, ev)


def _scaled(fn: _FloatNetwork, layer: int, v: np.ndarray, ev: np.ndarray, s: np.ndarray):
    """``v * s`` for the slopes ``s`` of ``layer``'s pieces, with bounds: ``|ŝ - s| <= 2u |ŝ|`` and the product's
    rounding add ``4u |v ŝ|`` unless the slopes are exact and the products exact (zero or powers of two)."""
    with np.errstate(all="ignore"):
        out = v * s
        e = ev * np.abs(s) * (1 + 4 * _U)
        if not fn.slope_exact[layer]:
            e = e + 4 * _U * np.abs(out)
    return out, e


def _certify_linear(fn: _FloatNetwork, layers, lower, upper, ok) -> np.ndarray:
    """For every point, whether a touching point of every neuron that may attain the activation distance is
    proved to lie in ``B_N`` (then the linear-region distance equals the activation distance)."""
    certified = ok.copy()
    L = len(fn.layers)
    nonlinear = [m for m in range(L) if not fn.is_linear[m]]
    for m in nonlinear:
        rec = layers[m]
        lo = rec["lo"]
        cand_p, cand_u = np.nonzero((lo <= upper[:, None]) & ok[:, None])
        if cand_p.size == 0:
            continue
        B = cand_p.size
        width = lo.shape[1]
        # The output's derivative with respect to the neuron's post-activation (with x's pattern).
        c = np.zeros((B, width))
        c[np.arange(B), cand_u] = 1.0
        ec = np.zeros((B, width))
        for j in range(m + 1, L):
            c, ec = _matvec(fn.linear[j], c, ec)
            s = layers[j]["S"][cand_p]
            c, ec = _scaled(fn, j, c, ec, s)
        good = (np.abs(c) > ec).any(axis=1)
        # The neuron's gradient, by back-propagation.
        r = np.zeros((B, width))
        r[np.arange(B), cand_u] = 1.0
        er = np.zeros((B, width))
        for j in range(m, -1, -1):
            r, er = _matvec(fn.transposed[j], r, er)
            if j > 0:
                s = layers[j - 1]["S"][cand_p]
                r, er = _scaled(fn, j - 1, r, er, s)
        g, eg = r, er
        n0 = g.shape[1]
        with np.errstate(all="ignore"):
            gg = (g * g).sum(axis=1)
            egg = ((2 * np.abs(g) * eg + eg * eg).sum(axis=1) + _gamma(n0 + 2) * gg) * _safety(2 * n0)
            # The step t with x - t g on the neuron's hyperplane: t = (z - xi) / |g|^2.
            z = rec["z"][cand_p, cand_u]
            ez = rec["ez"][cand_p, cand_u]
            k = rec["near"][cand_p, cand_u]
            act = fn.layers[m].activation
            dz = z - act.breakpoints[k]
            edz = (ez + act.breakpoint_errors[k] + 2 * _U * np.abs(dz)) * (1 + 4 * _U)
            t = dz / gg
            et = ((edz * gg + np.abs(dz) * egg) / (gg * (gg - egg)) + 2 * _U * np.abs(t)) * (1 + 8 * _U)
            good &= (gg - egg > 0) & np.isfinite(et)
        # Directional derivatives of every pre-activation along g, and the pre-activations at the touching point.
        v, ev = g, eg
        for j in range(L):
            v, ev = _matvec(fn.linear[j], v, ev)
            recj = layers[j]
            if not fn.is_linear[j]:
                zj, ezj = recj["z"][cand_p], recj["ez"][cand_p]
                with np.errstate(all="ignore"):
                    tv = t[:, None] * v
                    zp = zj - tv
                    ezp = ((ezj + np.abs(t)[:, None] * ev + et[:, None] * (np.abs(v) + ev)
                            + 2 * _U * (np.abs(zj) + np.abs(tv) + np.abs(zp))) * _safety(6))
                actj = fn.layers[j].activation
                for kk in range(actj.breakpoints.size):
                    at_x = recj["signs"][kk][cand_p]
                    d = zp - actj.breakpoints[kk]
                    proven = (np.abs(d) * (1 - 64 * _U) > (ezp + actj.breakpoint_errors[kk]) * (1 + 64 * _U))
                    same = proven & (np.sign(d) == at_x)
                    if j == m:
                        same[np.arange(B), cand_u] = True  # the neuron itself is at its breakpoint there
                    good &= same.all(axis=1)
            s = recj["S"][cand_p]
            v, ev = _scaled(fn, j, v, ev, s)
        bad_points = np.unique(cand_p[~good])
        certified[bad_points] = False
    return certified


def _as_points(points: Any, n: int) -> tuple[np.ndarray, np.ndarray, list | None]:
    """Doubles, their bounds, and the exact points when they are not doubles already."""
    from polyregions.networks._float_filter import doubles

    if isinstance(points, np.ndarray) and points.dtype.kind == "f":
        X = np.asarray(points, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != n:
            raise InvalidInputError(f"points: expected an array of shape (count, {n}), got {X.shape}")
        if not np.isfinite(X).all():
            raise InvalidInputError("points: expected finite coordinates, got NaN or infinity")
        return X, np.zeros_like(X), None
    exact = [_exact_point(p, n) for p in points]
    if not exact:
        return np.zeros((0, n)), np.zeros((0, n)), []
    X, EX = doubles([list(p) for p in exact])
    return X.reshape(len(exact), n), EX.reshape(len(exact), n), exact


def boundary_distances(network: "Network", points: Any, *, kind: str = "activation", chunk: int | None = None
                       ) -> Distances:
    """Distances from many points to the boundary of their activation region, or to ``B_N``, with proven bounds.

    Parameters
    ----------
    network : Network
    points : array of shape (count, input_dim), or sequence of points
        A float array is read as the exact doubles it holds; other entries are read exactly.
    kind : {"activation", "linear"}, keyword-only
    chunk : int, keyword-only
        Points per vectorised batch (default: about 20 MB of Gram matrices).

    Returns
    -------
    Distances
        Points that the float bounds cannot settle are computed exactly (:func:`exact_distance`).

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[2]], [-1], "relu")])
    >>> boundary_distances(net, [[0.0], [2.0]]).values.tolist()
    [0.5, 1.5]
    """
    _check_kind(kind)
    n = network.input_dim
    X, EX, exact = _as_points(points, n)
    P = X.shape[0]
    fn = _FloatNetwork(network)
    widest = max(layer.width for layer in network.layers)
    size = chunk if chunk is not None else max(1, int(2.5e6 // (widest * widest)))
    lower = np.full(P, np.inf)
    upper = np.full(P, np.inf)
    value = np.full(P, np.inf)
    settled = np.zeros(P, dtype=bool)
    for start in range(0, P, size):
        sl = slice(start, min(P, start + size))
        lo, up, val, ok, layers = _activation_chunk(fn, X[sl], EX[sl])
        if kind == "linear":
            ok = _certify_linear(fn, layers, lo, up, ok)
        lower[sl], upper[sl], value[sl], settled[sl] = lo, up, val, ok
    fallback = tuple(int(i) for i in np.flatnonzero(~settled))
    for i in fallback:
        point = exact[i] if exact is not None else tuple(Fraction(float(v)) for v in X[i])
        d = exact_distance(network, point, kind=kind)
        if d.squared is None:
            lower[i] = upper[i] = value[i] = np.inf
            continue
        lo, hi = d.interval(bits=60)
        lower[i], upper[i], value[i] = float(lo) * (1 - 4 * _U), float(hi) * (1 + 4 * _U) + 2.0 ** -1074, d.value
    return Distances(kind, value, lower, upper, fallback)


# --- Corollary 5 data --------------------------------------------------------------------------------------------

def distance_scaling(architectures: Sequence[Sequence[int]], points: np.ndarray, *, seeds: Sequence[int] = (0,),
                     kind: str = "activation", initializer=None) -> list[dict[str, Any]]:
    """Mean distance to the boundary times the number of neurons, across architectures (Hanin & Rolnick,
    Corollary 5 and Figure 6: the product stays of order one).

    Parameters
    ----------
    architectures : sequence of widths lists ``[n0, n1, ..., nL]``
    points : array of shape (count, n0)
        The sample points (Hanin & Rolnick draw them from a normal matching the data's mean and variance).
    seeds : sequence of int
        One network per seed and architecture.
    initializer : callable, optional
        ``initializer(widths, seed=...)`` returning a network; :func:`polyregions.networks.initializers.he_normal` by
        default.

    Returns
    -------
    list of dict
        Per architecture and seed: ``widths``, ``seed``, ``neurons``, ``mean`` (with ``mean_lower`` and
        ``mean_upper``, proven), ``mean_times_neurons``, ``median`` and the quartiles of the distances.
    """
    from polyregions.networks.initializers import he_normal

    make = initializer or he_normal
    rows = []
    for widths in architectures:
        for seed in seeds:
            net = make(list(widths), seed=seed)
            d = boundary_distances(net, points, kind=kind)
            finite = np.isfinite(d.values)
            vals = d.values[finite]
            N = net.num_neurons
            mean = float(vals.mean()) if vals.size else math.inf
            rows.append({
                "widths": list(widths), "seed": seed, "neurons": N, "points": int(finite.sum()),
                "mean": mean, "mean_lower": float(d.lower[finite].mean()) if vals.size else math.inf,
                "mean_upper": float(d.upper[finite].mean()) if vals.size else math.inf,
                "mean_times_neurons": mean * N,
                "median": float(np.median(vals)) if vals.size else math.inf,
                "quartiles": [float(q) for q in np.quantile(vals, [0.25, 0.75])] if vals.size else [],
            })
    return rows


def log_distance_histogram(distances: Distances | np.ndarray, *, bins: int | Sequence[float] = 30,
                           base: float = 10.0) -> tuple[np.ndarray, np.ndarray]:
    """The histogram of ``log_base`` of the (finite, positive) distances (Hanin & Rolnick, Figure 7).

    Returns ``(counts, edges)`` as :func:`numpy.histogram` does.

    Examples
    --------
    >>> counts, edges = log_distance_histogram(np.array([0.01, 0.1, 0.1, 1.0]), bins=[-2.5, -1.5, -0.5, 0.5])
    >>> counts.tolist()
    [1, 2, 1]
    """
    values = distances.values if isinstance(distances, Distances) else np.asarray(distances, dtype=np.float64)
    values = values[np.isfinite(values) & (values > 0)]
    return np.histogram(np.log(values) / np.log(base), bins=bins)
