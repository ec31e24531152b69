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
           "certified_signs", "doubles", "forward_layer", "interpolate"]

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
    proven = np.abs(d) * (1 - 64 * U) > bound * (1 + 64 * U)
    proven &= np.isfinite(d)  # an overflowed value proves nothing: the error model holds for finite results only
    signs = np.full(d.shape, UNCERTAIN, dtype=np.int8)
    np.sign(d, out=signs, where=proven, casting="unsafe")  # -1, 0 or 1 where proven (finite)
    if xi_error == 0.0:
        signs[(d == 0) & (errors == 0)] = 0
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
def forward_layer(layer: FloatLayer, h: np.ndarray, e_h: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pre-activations ``W h + b`` of many points (rows of ``h``) and their bounds, from inputs ``h`` with
    bounds ``e_h``."""
    z = h @ layer.weight.T + layer.bias
    g = gamma(layer.fan_in + 3)
    e = (np.abs(h) * g + e_h * (1 + 2 * U)) @ layer.abs_weight.T + (g * layer.abs_bias + layer.tiny)
    return z, e * safety(layer.fan_in + 4)


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
