"""Floating-point pre-activations with proven error bounds: the filter in front of exact sign decisions.

A value is carried as a double ``v`` and a bound ``e`` with ``|v - exact| <= e``. A sign is taken from the
double only when the bound proves it; otherwise the caller decides it exactly (the filtered-predicate technique
of exact geometry libraries). Nothing here ever decides a sign by a tolerance.

Error model
-----------
IEEE double precision, unit roundoff ``u = 2^-53``: ``fl(a op b) = (a op b)(1 + d)``, ``|d| <= u``, plus an
absolute error below ``2^-1074`` when the result is subnormal. Write ``gamma_n = n u / (1 - n u)``.

*Rounding of exact data.* An exact rational ``x`` stored as the nearest double ``x^`` has
``|x^ - x| <= 2u |x^| + 2^-1000`` (relative error ``u`` of ``x``, plus an absolute term for a result that may be
subnormal); data that are doubles exactly (all float32 weights, ReLU's slopes) carry no error. A weight or
bias of absolute value below ``2^-1000`` makes its row's bound infinite, so that row's signs are decided
exactly.

*One layer.* With ``h^`` the computed input, ``|h^ - h| <= e_h``, ``W^`` and ``b^`` the doubles nearest to the
exact weight ``W`` and bias ``b`` (fan-in ``n``), the computed ``z^ = fl(W^ h^ + b^)`` (any summation order,
with or without fused multiply-adds) satisfies (Higham, *Accuracy and Stability of Numerical Algorithms*,
eq. 3.5 for an inner product of ``n + 1`` terms, then the rounding of ``W`` and ``b``)::

    |z^ - z| <= gamma_{n+1} (|W^| |h^| + |b^|) + u |W| |h^| + |W| e_h + u |b|
             <= gamma_{n+3} (|W^| |h^| + |b^|) + (1 + 2u) |W^| e_h

since ``|W| <= |W^| / (1 - u)`` and ``gamma_{n+1} + 2u (1 + u) <= gamma_{n+3}``. Subnormal products add at most
``2^-1074`` each, covered by ``2^-1000`` per non-zero term.

*The activation.* ``h = act(z)`` is Lipschitz with constant ``L = max |q_k|``, so ``|act(z^) - act(z)| <= L e``;
when ``z^ +- e`` provably lies inside one piece ``k`` the factor is ``|q_k|`` (zero on a flat piece: a dead
ReLU passes no error on). Evaluating piece ``k`` at ``z^`` as ``fl(q^_k z^ + p^_k)`` adds
``gamma_2 (|q^_k z^| + |p^_k|)`` unless that is exact (``q_k`` zero or a power of two with ``p_k = 0``, or
``q_k = 0`` with ``p_k`` a double), plus ``|q^_k - q_k| |z^| + |p^_k - p_k|`` for rounded parameters, plus
``max_k |q_k - q_{k-1}| |xi^_k - xi_k|`` in case ``z^`` falls between a breakpoint and its double.

*Interpolation along an edge.* If a neuron takes the values ``xi - A`` and ``xi + B`` (``A, B > 0``) at the ends
``p`` and ``q`` of a segment on which the layer is affine, it crosses ``xi`` at ``lambda = A / (A + B)`` of the
way, and every other pre-activation there is ``x + lambda (y - x)`` with ``x, y`` its values at ``p, q``. With
computed ``A^, B^`` (errors ``e_A < A^``, ``e_B < B^``), ``lambda^ = fl(A^ / fl(A^ + B^))`` obeys::

    |lambda^ - lambda| <= (e_A (B^ + e_B) + (A^ + e_A) e_B) / ((A^ + B^)(A^ + B^ - e_A - e_B)) + gamma_2

and ``fl(x^ + lambda^ fl(y^ - x^))`` is within
``(1 - lambda^) e_x + lambda^ e_y + |lambda^ - lambda| (|y^ - x^| + e_x + e_y) + gamma_3 (|x^| + lambda^ |y^ - x^|)``
of the exact value (expand ``x^ + lambda^ (y^ - x^) - (x + lambda (y - x))`` and bound the three roundings),
plus ``2^-1000`` for subnormal intermediate results unless ``y^ = x^`` (then the result is ``x^`` exactly).

*The bound's own rounding.* Every bound is a sum of at most ``m`` non-negative terms (``m <= n + 8``) evaluated in
floating point, hence at least ``(1 - gamma_m)`` times its exact value; multiplying by
``1 + 4 (m + 8) u >= 1 / ((1 - gamma_m)(1 - u))`` (and rounding that product) keeps it an upper bound.

*Affine maps of regions.* On a region the pre-activations of a layer are an affine map of the domain coordinates
``t`` (dimension ``k``), carried as ``k + 1`` rows of doubles (the coefficients of ``t_1 .. t_k``, then the
constant) with ONE bound per unit covering all ``k + 1`` entries of its column (:func:`forward_maps`,
:func:`activate_maps`). The activation's piece of every unit is known exactly on a region, so a ReLU map is a
mask (exact) and any other piece a product ``q_k g + p_k`` with the rounding of the activation paragraph (no
misplacement term). The layer's formula above holds for each row of a map, with ``|h^|`` replaced by the
largest absolute entry of the unit's column (an upper bound of each row's) and the bias only in the constant row.

*A vertex from its two lines* (:func:`line_points`, ``k = 2``). A line ``a x + b y + c = 0`` is carried as
doubles with entrywise bounds. The lines' crossing is ``P = L_1 x L_2`` (homogeneous); each entry of ``P`` is a
difference of two products, computed within ``gamma_2`` of the products of the doubles, and a product of values
``x^ +- e_x``, ``y^ +- e_y`` is within ``e_x (|y^| + e_y) + |x^| e_y`` of ``x^ y^``. With ``|P^_w| > 2 dP_w``,
``t^ = fl(P^_xy / P^_w)`` is within ``(|t^| dP_w + dP_xy) / (|P^_w| - dP_w) + 2u |t^|`` of the exact point
(expand ``P^_x / P^_w - P_x / P_w``). A map evaluated there (:func:`evaluate_maps`),
``fl(t_x A_x + t_y A_y + A_c)``, is within
``(|t_x| + |t_y| + 1) e_A + dt_x (|A_x| + e_A) + dt_y (|A_y| + e_A) + gamma_3 (|t_x A_x| + |t_y A_y| + |A_c|)`` of
the exact value: a bound computed per vertex from its own region's map, which does not grow with the chain of
interpolations that made the vertex.

*Storage in single precision* (:func:`in_single`). A value ``v^`` kept as the float32 ``s`` nearest to it (then
read back as a double, exactly) is within ``e + |s - v^|`` of the exact value; ``s - v^`` is computed exactly (the
two are within a factor of two of each other, or ``s`` is 0 or infinite). Its bound is stored as a float32 no
smaller than that sum: the sum times ``1 + 2^-20`` plus ``2^-140`` rounds to nearest above it (relative error
``2^-24`` of a normal float32, absolute ``2^-150`` of a subnormal one, an infinite bound beyond the float32 range);
an exact value that is a float32 keeps the bound 0. The mesh keeps every layer's bounds so
(:func:`single_bounds`), and its values in double precision but on a large last layer, whose bounds it keeps in 16
bits (:func:`half_bounds`).

*Signs.* ``d = fl(v - xi^)`` has ``|d - (exact - xi)| <= e + e_xi + 2u |d|``; the sign of ``d`` is proven when
``|d| (1 - 64u) > (e + e_xi)(1 + 64u)`` (a wider margin than needed, so that a proven sign also gives the
interpolation above a positive denominator), and the value is proven equal to ``xi`` when ``d == 0`` with
``e == e_xi == 0`` (a zero bound means the double is exact). Everything else is left to exact arithmetic,
including NaN and infinite values (after an overflow the error model says nothing).

Examples
--------
>>> import numpy as np
>>> certified_signs(np.array([1.0, 1e-20, 0.0]), np.array([1e-16, 1e-16, 0.0]), 0.0, 0.0).tolist()
[1, 2, 0]
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from polyregions.networks.activations import Activation
    from polyregions.networks.network import Layer

__all__ = ["U", "gamma", "safety", "UNCERTAIN", "FloatActivation", "FloatLayer", "float_layer",
           "certified_signs", "certified_signs_each", "sorted_breakpoint_signs", "doubles", "forward_layer",
           "interpolate", "in_single", "single_bounds", "half_bounds", "stored_bounds", "read_bounds",
           "root_maps", "forward_maps", "activate_maps", "largest_entries", "line_points", "evaluate_maps"]

#: The unit roundoff of IEEE double precision.
U = 2.0 ** -53
_TINY = 2.0 ** -1000
#: The sign code of a value whose sign the float filter could not prove.
UNCERTAIN = 2


def _quiet(function):
    """Run ``function`` without floating-point warnings: NaN and infinite values prove nothing downstream."""
    @functools.wraps(function)
    def wrapper(*args, **kwargs):
        with np.errstate(all="ignore"):
            return function(*args, **kwargs)
    return wrapper


def gamma(n: int) -> float:
    """``gamma_n = n u / (1 - n u)``, the relative error bound of ``n`` chained roundings."""
    return n * U / (1 - n * U)


def safety(m: int) -> float:
    """The factor that keeps a float-evaluated sum of ``m`` non-negative terms an upper bound."""
    return 1.0 + 4.0 * (m + 8) * U


def _float(value) -> float:
    """The nearest double to an exact rational (correctly rounded), infinite beyond the double range."""
    try:
        return float(value)
    except OverflowError:
        return math.inf if value > 0 else -math.inf


def _double(value: Fraction) -> tuple[float, float]:
    """The nearest double and a bound on its distance to ``value`` (zero when exact; infinite on overflow)."""
    x = _float(value)
    if math.isinf(x):
        return x, math.inf
    return x, (0.0 if Fraction(x) == value else 2 * U * abs(x) + _TINY)


def _power_of_two(value: Fraction) -> bool:
    n, d = abs(value.numerator), value.denominator
    return n > 0 and n & (n - 1) == 0 and d & (d - 1) == 0


@dataclass(frozen=True)
class FloatActivation:
    """Double copies of an activation's parameters with their rounding errors."""

    breakpoints: np.ndarray        # xi^_k
    breakpoint_errors: np.ndarray  # |xi^_k - xi_k|
    slopes: np.ndarray             # q^_k
    intercepts: np.ndarray         # p^_k
    evaluation_errors: np.ndarray  # per piece: (relative gamma_2 flag, |q^ - q|, |p^ - p|) as three arrays
    lipschitz: float
    misplacement: float            # max_k |q_k - q_{k-1}| |xi^_k - xi_k|
    is_relu: bool

    @classmethod
    def of(cls, activation: "Activation") -> "FloatActivation":
        xi = [_double(v) for v in activation.breakpoints]
        q = [_double(v) for v in activation.slopes]
        p = [_double(v) for v in activation.intercepts]
        rounded = []
        for qk, pk in zip(activation.slopes, activation.intercepts):
            exact = (pk == 0 and (qk == 0 or _power_of_two(qk))) or (qk == 0 and _double(pk)[1] == 0)
            rounded.append(0.0 if exact else 1.0)
        misplacement = max((_float(abs(activation.slopes[k + 1] - activation.slopes[k])) * (1 + 4 * U) * xi[k][1]
                            for k in range(len(xi))), default=0.0)
        lipschitz = _float(max(abs(v) for v in activation.slopes)) * (1 + 4 * U)
        return cls(np.array([v for v, _ in xi]), np.array([e for _, e in xi]), np.array([v for v, _ in q]),
                   np.array([v for v, _ in p]),
                   np.array([rounded, [e for _, e in q], [e for _, e in p]]),
                   lipschitz, misplacement,
                   activation.breakpoints == (0,) and activation.slopes == (0, 1) and activation.intercepts[0] == 0)


@dataclass(frozen=True)
class FloatLayer:
    """Double copies of one layer's weights and bias, their absolute values and per-row constants."""

    weight: np.ndarray      # (width, fan_in)
    bias: np.ndarray
    abs_weight: np.ndarray
    abs_bias: np.ndarray
    tiny: np.ndarray        # per row: 2^-1000 times the number of non-zero terms
    fan_in: int
    activation: FloatActivation


def float_layer(layer: "Layer") -> FloatLayer:
    """The :class:`FloatLayer` of an exact layer."""
    weight, bias, activation = layer.weight, layer.bias, layer.activation
    W = layer.weight_doubles
    b = np.array([_float(v) for v in bias], dtype=np.float64)
    # Subnormal products: at most 2^-1074 each, and none at all in a row of zeros (whose value is exact).
    tiny = _TINY * ((W != 0).sum(axis=1) + (b != 0))
    # A parameter too small for a relative rounding bound (its double may underflow): that row proves nothing.
    # (Rounding is monotone, so only entries whose double is at most 2^-1000 need the exact look.)
    for i, j in zip(*np.nonzero(np.abs(np.column_stack([W, b])) <= _TINY)):
        value = weight[i][j] if j < W.shape[1] else bias[i]
        if value != 0 and abs(value) < _TINY:
            tiny[i] = np.inf
    return FloatLayer(W, b, np.abs(W), np.abs(b), tiny, W.shape[1], FloatActivation.of(activation))


@_quiet
def certified_signs(values: np.ndarray, errors: np.ndarray, xi: float, xi_error: float) -> np.ndarray:
    """Signs of ``exact - xi`` (int8: -1, 0, 1) where the bounds prove them, :data:`UNCERTAIN` elsewhere."""
    # In few passes over the arrays: the mesh engine calls this on every vertex of every layer.
    d = values - xi if xi else values
    bound = errors + xi_error if xi_error else errors
    margin = np.abs(d)
    margin *= 1 - 64 * U
    proven = margin > bound * (1 + 64 * U)  # (NaN: False)
    proven &= margin != np.inf  # an overflowed value proves nothing: the error model holds for finite results only
    signs = np.full(d.shape, UNCERTAIN, dtype=np.int8)
    np.sign(d, out=signs, where=proven, casting="unsafe")  # -1, 0 or 1 where proven (finite)
    if xi_error == 0.0:
        zero = d == 0
        if zero.any():  # (rare: checked before the second comparison)
            signs[zero & (errors == 0)] = 0
    return signs


@_quiet
def certified_signs_each(values: np.ndarray, errors: np.ndarray, xi: np.ndarray, xi_error: np.ndarray
                         ) -> np.ndarray:
    """:func:`certified_signs` with a breakpoint per value (arrays that broadcast together): the same test,
    element by element."""
    d = values - xi
    bound = errors + xi_error
    proven = np.abs(d) * (1 - 64 * U) > bound * (1 + 64 * U)
    proven &= np.isfinite(d)
    signs = np.full(d.shape, UNCERTAIN, dtype=np.int8)
    np.sign(d, out=signs, where=proven, casting="unsafe")
    signs[(d == 0) & (errors == 0) & (xi_error == 0)] = 0
    return signs


def sorted_breakpoint_signs(values: np.ndarray, errors: np.ndarray, xi: np.ndarray, xi_error: np.ndarray, *,
                            window: int = 4) -> np.ndarray:
    """Signs (N, T) of ``exact value - exact xi_k`` for values (N,) with bounds against the doubles ``xi`` (T,)
    of strictly increasing exact breakpoints (bounds ``xi_error``), as :func:`certified_signs` of every pair would
    prove them, in about O(N log T + N T) numpy work and a few calls rather than T.

    Each value's place among the doubles is found by bisection; the breakpoints next to it, up to ``window`` on
    either side, are signed by :func:`certified_signs_each`; the first proven sign on either side decides all the
    breakpoints beyond it exactly: ``value > xi_j`` proven implies ``value > xi_k`` for every ``k < j`` since the
    exact breakpoints increase strictly (and ``value < xi_j`` or ``value = xi_j`` proven, ``value < xi_k`` for
    ``k > j``). A value with no proven sign within the window has every breakpoint signed directly."""
    N, T = values.size, xi.size
    signs = np.full((N, T), UNCERTAIN, dtype=np.int8)
    if N == 0 or T == 0:
        return signs
    finite = np.isfinite(values) & np.isfinite(errors)  # otherwise nothing is proven: left UNCERTAIN
    place = np.searchsorted(xi, values, side="left")  # xi[place - 1] < value <= xi[place] in doubles
    below = np.zeros(N, dtype=np.int64)  # breakpoints k < below[v]: value above them, proven
    above = np.full(N, T - 1, dtype=np.int64)  # breakpoints k > above[v]: value below them, proven
    unresolved = np.zeros(N, dtype=bool)
    for step, start, ahead in ((-1, place - 1, True), (1, place, False)):
        rows = np.flatnonzero(finite)
        j = start[rows]
        for _ in range(window):
            inside = (j >= 0) & (j < T)
            rows, j = rows[inside], j[inside]
            if not rows.size:
                break
            s = certified_signs_each(values[rows], errors[rows], xi[j], xi_error[j])
            signs[rows, j] = s
            done = s != UNCERTAIN
            if ahead:
                below[rows[done]] = j[done]
            else:
                above[rows[done]] = j[done]
            rows, j = rows[~done], j[~done] + step
        unresolved[rows[(j >= 0) & (j < T)]] = True
    columns = np.arange(T)
    signs[columns[None, :] < below[:, None]] = 1
    signs[columns[None, :] > above[:, None]] = -1
    if unresolved.any():  # a value within its bound of many breakpoints: every breakpoint, in one call
        rows = np.flatnonzero(unresolved)
        signs[rows] = certified_signs_each(values[rows, None], errors[rows, None], xi[None, :], xi_error[None, :])
    return signs


def doubles(values) -> tuple[np.ndarray, np.ndarray]:
    """The nearest doubles to exact rationals (any nesting of sequences) and bounds on their distances."""
    flat = np.asarray(values, dtype=object)
    pairs = [_double(v) for v in flat.ravel().tolist()]
    return (np.array([x for x, _ in pairs], dtype=np.float64).reshape(flat.shape),
            np.array([e for _, e in pairs], dtype=np.float64).reshape(flat.shape))


@_quiet
def _activate(layer_act: FloatActivation, z: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``act`` applied to values ``z`` with bounds ``e``: the computed values and their bounds."""
    if layer_act.is_relu:
        h = np.maximum(z, 0.0)
        # A provably negative value is exactly zero after the activation.
        dead = z * (1 - 4 * U) < -e * (1 + 4 * U)
        return h, np.where(dead, 0.0, e)
    xi = layer_act.breakpoints
    piece = np.searchsorted(xi, z, side="left") if xi.size else np.zeros(z.shape, dtype=np.intp)
    q, p = layer_act.slopes[piece], layer_act.intercepts[piece]
    h = q * z + p
    rel, dq, dp = (layer_act.evaluation_errors[i][piece] for i in range(3))
    rounding = (rel * gamma(2) * (np.abs(q * z) + np.abs(p)) + dq * np.abs(z) + dp + layer_act.misplacement
                + _TINY * ((z != 0) | (p != 0)))  # a subnormal result
    # Inside one piece with margin, the error passes on with that piece's slope only.
    inside = np.isfinite(z) & np.isfinite(e)
    for k in range(xi.size):
        inside &= np.abs(z - xi[k]) * (1 - 4 * U) > (e + layer_act.breakpoint_errors[k]) * (1 + 4 * U)
    factor = np.where(inside, np.abs(q) * (1 + 4 * U), layer_act.lipschitz)
    bound = (factor * e + rounding) * safety(4)
    return h, bound


@_quiet
def forward_layer(layer: FloatLayer, h: np.ndarray, e_h: np.ndarray,
                  out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Pre-activations ``W h + b`` of many points (rows of ``h``) and their bounds, from inputs ``h`` with
    bounds ``e_h``; written into ``out`` (two arrays of shape (points, width)) when given."""
    if out is None:
        out = np.empty((h.shape[0], layer.weight.shape[0])), np.empty((h.shape[0], layer.weight.shape[0]))
    z, e = out
    np.matmul(h, layer.weight.T, out=z)
    z += layer.bias
    g = gamma(layer.fan_in + 3)
    scaled = np.abs(h)
    scaled *= g
    scaled += e_h * (1 + 2 * U)
    np.matmul(scaled, layer.abs_weight.T, out=e)
    e += g * layer.abs_bias + layer.tiny
    e *= safety(layer.fan_in + 4)
    return z, e


def activate(layer: FloatLayer, z: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The layer's activation applied to pre-activations ``z`` with bounds ``e``."""
    return _activate(layer.activation, z, e)


__all__.append("activate")


@_quiet
def interpolate(zp: np.ndarray, ep: np.ndarray, zq: np.ndarray, eq: np.ndarray, unit: int, xi: float,
                xi_error: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Pre-activations and bounds where ``unit`` crosses ``xi`` on segments ``p -> q`` (rows).

    The signs of ``z[:, unit] - xi`` at the two ends must be proven opposite. Returns the values, the bounds
    and ``lambda^`` (the computed fraction of the way from ``p`` to ``q``).
    """
    dp = zp[:, unit] - xi
    dq = zq[:, unit] - xi
    a, b = np.abs(dp), np.abs(dq)
    e_a = (ep[:, unit] + xi_error + 2 * U * a + _TINY) * safety(3)
    e_b = (eq[:, unit] + xi_error + 2 * U * b + _TINY) * safety(3)
    s = a + b
    lam = a / s
    margin = s - e_a - e_b
    e_lam = np.where(margin > 0, (e_a * (b + e_b) + (a + e_a) * e_b) / (s * margin) * safety(6) + gamma(2),
                     np.inf) * (1 + 4 * U)
    lam_c = lam[:, None]
    diff = zq - zp
    z = zp + lam_c * diff
    adiff = np.abs(diff)
    e = ((1 - lam_c) * ep + lam_c * eq + e_lam[:, None] * (adiff + ep + eq)
         + gamma(3) * (np.abs(zp) + lam_c * adiff) + _TINY * (diff != 0)) * safety(8)
    return z, e, lam


@_quiet
def in_single(z: np.ndarray, e: np.ndarray, bounds: type = np.float32) -> tuple[np.ndarray, np.ndarray]:
    """Values ``z`` with bounds ``e`` stored in single precision: the nearest float32 values, and bounds that
    cover ``e`` and that rounding (half the memory, bounds about ``2^-24 |z|`` wider), stored as
    :func:`stored_bounds` of the type ``bounds`` stores them."""
    single = z.astype(np.float32)
    moved = np.abs(single.astype(np.float64) - z)
    moved[np.isnan(moved)] = np.inf  # an infinite value (or NaN) proves nothing
    return single, stored_bounds(e + moved, bounds)


def stored_bounds(e: np.ndarray, kind: type) -> np.ndarray:
    """Bounds ``e`` (doubles) stored as an array of type ``kind``: doubles as they are, float32
    (:func:`single_bounds`) or 16 bits (uint16: :func:`half_bounds`); :func:`read_bounds` reads them back."""
    if kind == np.float64:
        return e
    return single_bounds(e) if kind == np.float32 else half_bounds(e)


def read_bounds(stored: np.ndarray) -> np.ndarray:
    """Bounds as :func:`stored_bounds` keeps them, as doubles no smaller than the bounds stored."""
    if stored.dtype != np.uint16:
        return stored.astype(np.float64)
    return (stored.astype(np.uint32) << 16).view(np.float32).astype(np.float64)


def half_bounds(e: np.ndarray) -> np.ndarray:
    """Bounds ``e`` stored in 16 bits: the upper half of the bits of their float32 :func:`single_bounds`, rounded
    up (the sign, the whole exponent and 7 bits of mantissa: half the memory of float32, bounds at most ``2^-7``
    wider; 0 stays 0, infinity infinite). Non-negative floats order like their bits, so rounding the bits up
    rounds the bound up."""
    bits = single_bounds(e).view(np.uint32).astype(np.uint64)
    return ((bits + 0xFFFF) >> 16).astype(np.uint16)


@_quiet
def single_bounds(e: np.ndarray) -> np.ndarray:
    """Bounds ``e`` stored in single precision: float32 bounds no smaller than them (0 stays 0, NaN becomes
    infinite), read back as doubles exactly. Half the memory of a layer's bounds, for a relative ``2^-24``."""
    bound = e * (1 + 2.0 ** -20) + 2.0 ** -140
    bound[e == 0] = 0.0
    bound[np.isnan(bound)] = np.inf
    return bound.astype(np.float32)


# affine maps of regions --------------------------------------------------------------------------------------


def root_maps(k: int) -> tuple[np.ndarray, np.ndarray]:
    """The identity map of ``R^k`` on one region: values (1, k + 1, k), exact (bounds (1, k) of zeros)."""
    H = np.zeros((1, k + 1, k))
    H[0, np.arange(k), np.arange(k)] = 1.0
    return H, np.zeros((1, k))


def largest_entries(H: np.ndarray) -> np.ndarray:
    """``np.abs(H).max(axis=1)`` of maps (regions, k + 1, width), a row at a time: a reduction over a short middle
    axis is about twice as slow."""
    M = np.abs(H[:, 0])
    for r in range(1, H.shape[1]):
        np.maximum(M, np.abs(H[:, r]), out=M)
    return M


@_quiet
def forward_maps(layer: FloatLayer, H: np.ndarray, EH: np.ndarray,
                 out: tuple[np.ndarray, np.ndarray] | None = None) -> tuple[np.ndarray, np.ndarray]:
    """A layer's pre-activation maps (regions, k + 1, width) and bounds (regions, width) from its input maps ``H``
    (regions, k + 1, fan_in) with one bound per input column ``EH`` (regions, fan_in); written into ``out`` (two
    C-contiguous arrays of those shapes and dtypes) when given.

    The maps are computed in ``H``'s precision (double, or ``np.longdouble`` when the caller has checked that
    the layer's weights and biases are doubles exactly, so that only the products and sums round: unit
    roundoff ``u_H`` of that precision in ``gamma``); the bounds in double, the largest entries ``|H|`` rounded
    to double taken ``(1 + 4u)`` larger.
    """
    u_h = float(np.finfo(H.dtype).eps) / 2
    R, rows, n = H.shape
    # np.dot with a C-contiguous right factor: without BLAS (long doubles) it runs about 3 times as fast as np.matmul
    WT = np.ascontiguousarray(layer.weight.T, dtype=H.dtype)
    width = WT.shape[1]
    Z, E = out if out is not None else (np.empty((R, rows, width), dtype=H.dtype), np.empty((R, width)))
    np.dot(H.reshape(R * rows, n), WT, out=Z.reshape(R * rows, width))
    Z[:, rows - 1, :] += layer.bias
    g = (layer.fan_in + 3) * u_h / (1 - (layer.fan_in + 3) * u_h) * (1 + 4 * U)
    # The largest entries of H's doubles are H's largest entries rounded (rounding is monotone), at double speed.
    M = largest_entries(H if H.dtype == np.float64 else H.astype(np.float64))
    M *= g
    M += EH * (1 + 2 * U)
    np.matmul(M, layer.abs_weight.T, out=E)
    E += g * layer.abs_bias + layer.tiny
    E *= safety(layer.fan_in + 4)
    return Z, E


@_quiet
def activate_maps(act: FloatActivation, G: np.ndarray, EG: np.ndarray, pieces: np.ndarray | None,
                  overwrite: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """The activation applied to maps ``G`` (regions, k + 1, width) with bounds ``EG`` (regions, width), the
    piece of every unit on every region given exactly (``pieces``: regions x width; None: piece 0); a ReLU
    writes its result into ``G`` and ``EG`` when ``overwrite``. A ReLU multiplies by the pieces (0 or 1; three
    times as fast as selecting): an infinite entry of an inactive unit then gives NaN, which proves nothing, as
    every non-finite value."""
    if pieces is None:
        pieces = np.zeros(EG.shape, dtype=np.int8)
    if act.is_relu:
        if not overwrite:
            return G * pieces[:, None, :], EG * pieces
        G *= pieces[:, None, :]
        EG *= pieces
        return G, EG
    q, p = act.slopes[pieces], act.intercepts[pieces]
    rel, dq, dp = (act.evaluation_errors[i][pieces] for i in range(3))
    H = G * q[:, None, :]
    H[:, -1, :] += p
    M = largest_entries(G)
    aq = np.abs(q)
    E = (aq * EG + dq * (M + EG) + rel * gamma(2) * (aq * M + np.abs(p)) + dp + _TINY) * safety(6)
    return H, E


@_quiet
def line_points(L1: np.ndarray, E1: np.ndarray, L2: np.ndarray, E2: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """Where lines ``a x + b y + c = 0`` (rows ``(a, b, c)`` with entrywise bounds) cross, pairwise: the points
    (n, 2) and bounds (n, 2) on their coordinates' errors; infinite where the bounds do not prove the lines
    cross (nearly parallel lines, or unknown rows)."""
    a1, b1, c1 = L1.T
    a2, b2, c2 = L2.T
    ea1, eb1, ec1 = E1.T
    ea2, eb2, ec2 = E2.T

    def term(x, ex, y, ey):
        """The product of ``x +- ex`` and ``y +- ey``: its double and the bound on the error it carries."""
        return x * y, ex * (np.abs(y) + ey) + np.abs(x) * ey

    def minor(x1, ex1, y2, ey2, y1, ey1, x2, ex2):
        """``x1 y2 - y1 x2`` and its bound."""
        p, ep = term(x1, ex1, y2, ey2)
        r, er = term(y1, ey1, x2, ex2)
        return p - r, ep + er + gamma(2) * (np.abs(p) + np.abs(r)) + 4 * _TINY

    Px, ex = minor(b1, eb1, c2, ec2, c1, ec1, b2, eb2)
    Py, ey = minor(c1, ec1, a2, ea2, a1, ea1, c2, ec2)
    Pw, ew = minor(a1, ea1, b2, eb2, b1, eb1, a2, ea2)
    m = safety(12)
    ex, ey, ew = ex * m, ey * m, ew * m
    t = np.stack([Px / Pw, Py / Pw], axis=1)
    margin = np.abs(Pw) - ew
    good = (margin > ew) & np.isfinite(t).all(axis=1) & np.isfinite(ew)
    at = np.abs(t)
    dt = ((at * ew[:, None] + np.stack([ex, ey], axis=1)) / margin[:, None] + 2 * U * at + _TINY) * safety(4)
    dt[~(good & np.isfinite(dt).all(axis=1))] = np.inf
    return t, dt


@_quiet
def evaluate_maps(A: np.ndarray, EA: np.ndarray, t: np.ndarray, dt: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maps ``A`` (n, 3, width) with bounds ``EA`` (n, width) at points ``t`` (n, 2) known within ``dt`` (n, 2): the
    values (n, width) and their bounds (non-finite inputs give infinite bounds)."""
    tx, ty = t[:, 0:1], t[:, 1:2]
    X, Y, C = A[:, 0, :], A[:, 1, :], A[:, 2, :]
    px, py = tx * X, ty * Y
    Z = px + py + C
    dx, dy = dt[:, 0:1], dt[:, 1:2]
    # The bound (|tx| + |ty| + 1) EA + dx (|X| + EA) + dy (|Y| + EA) + gamma_3 (|tx X| + |ty Y| + |C|), its terms
    # gathered per factor (equal in exact arithmetic; the safety factor covers the order of the float sums) and
    # summed in place: this is the inner loop of deep networks' vertices.
    g3 = gamma(3)
    ax, ay = np.abs(tx), np.abs(ty)
    E = EA * (ax + ay + 1 + dx + dy)
    term = np.abs(X)
    term *= dx + g3 * ax
    E += term
    np.abs(Y, out=term)
    term *= dy + g3 * ay
    E += term
    np.abs(C, out=term)
    term *= g3
    E += term
    E += _TINY
    E *= safety(12)
    E[~np.isfinite(Z) | np.isnan(E)] = np.inf
    return Z, E
