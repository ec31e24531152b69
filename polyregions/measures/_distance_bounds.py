"""The batched float path of :func:`polyregions.measures.distances.boundary_distances`: distances of many points
at once in floating point, with proven bounds ``lower <= distance <= upper``.

Pre-activations carry the bounds of :mod:`polyregions.networks._float_filter`. For the gradients, the Gram matrices
``Q_l = J_l J_l^T`` of each layer's Jacobian are propagated, ``Q_1 = W_1 W_1^T`` and ``Q_l = A Q_{l-1} A^T`` with
``A = W_l S_{l-1}`` (``S`` the slopes of the pieces), so ``|grad z_i|^2`` is a diagonal entry. With ``n`` the
inner dimension, ``gamma_n = n u / (1 - n u)`` and ``|Â - A| <= delta |Â|`` (``delta = 0`` when weights and
slopes are doubles exactly, as for float32 ReLU networks, else ``6u (1 + 4u)``), the standard bound
``|fl(X Y) - X Y| <= gamma_n |X| |Y|`` gives, entrywise,

    |Q̂_1 - Q_1| <= (gamma_{n_0} + delta (2 + delta)) |Ŵ_1| |Ŵ_1|^T,
    |Q̂_l - Q_l| <= |Â| [ (1 + delta)^2 E_{l-1} + (2 gamma_n + gamma_n^2 + 2 delta + delta^2) |Q̂_{l-1}| ] |Â|^T,

each bound evaluated in floating point with non-negative terms and multiplied by ``1 + 4 (2n + 16) u`` (which
covers its own rounding), plus ``2n 2^-1000`` for subnormal results. A point whose pattern the float bounds do
not prove, or with a non-finite value, is left unsettled, for exact arithmetic to decide. The ratio bounds round
outwards by ``8u``.

The linear-region certificate works the same way: the gradient of each candidate neuron by back-propagation,
the touching point's pre-activations from the directional derivatives along it, the output's derivative by
forward propagation, each with the inner-product bound above.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from polyregions.networks._float_filter import (
    UNCERTAIN,
    FloatActivation,
    FloatLayer,
    activate,
    certified_signs,
    float_layer,
    forward_layer,
)
from polyregions.networks.activations import linear

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["batch_distances", "outward_bounds"]

_U = 2.0 ** -53
_TINY = 2.0 ** -1000


def _gamma(n: int) -> float:
    return n * _U / (1 - n * _U)


def _safety(m: int) -> float:
    return 1.0 + 4.0 * (m + 8) * _U


class _FloatNetwork:
    """Double copies of a network for the batch computations, built once."""

    def __init__(self, net: "Network"):
        self.net = net
        self.layers = [float_layer(layer) for layer in net.layers]
        identity = FloatActivation.of(linear())
        self.linear: list[FloatLayer] = []
        self.transposed: list[FloatLayer] = []
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
    P = X.shape[0]
    lower = np.full(P, np.inf)
    upper = np.full(P, np.inf)
    value = np.full(P, np.inf)
    ok = np.isfinite(X).all(axis=1) & np.isfinite(EX).all(axis=1)
    h, eh = X, EX
    layers = []
    # Per-point Gram matrices of the current layer's Jacobian and their bounds.
    Q: np.ndarray | None = None
    E: np.ndarray | None = None
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
                # Set by _next_gram after layer m - 1: this layer is not linear.
                assert Q is not None and E is not None
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


def _next_gram(fn: _FloatNetwork, m: int, S: np.ndarray, Q: np.ndarray | None, E: np.ndarray | None, *,
               full: bool = True) -> tuple[np.ndarray, np.ndarray]:
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
        assert E is not None  # Q and E are made together
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


def batch_distances(network: "Network", X: np.ndarray, EX: np.ndarray, *, kind: str, chunk: int | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Distances of the points ``X`` (doubles, rows; ``EX`` bounds on their distance to the exact points) to the
    boundary of activation regions or (``kind="linear"``) of linear regions.

    Returns ``(lower, upper, value, settled)``: proven bounds and the computed distance for every point whose
    ``settled`` flag is true; the others are left for exact arithmetic. ``chunk`` points go through one
    vectorised batch (default: about 20 MB of Gram matrices).
    """
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
    return lower, upper, value, settled


def outward_bounds(lo: Fraction, hi: Fraction) -> tuple[float, float]:
    """Doubles ``lower <= lo`` and ``upper >= hi`` for exact rational bounds (rounded outwards)."""
    return float(lo) * (1 - 4 * _U), float(hi) * (1 + 4 * _U) + 2.0 ** -1074
