"""Which neurons can cross a neighbourhood: the floating-point filter of local complexity, with proven bounds.

On a cell where the layers before ``l`` stay on fixed pieces, the pre-activation of a unit of layer ``l`` is an
affine function ``z(x) = z(x0) + g . (x - x0)``. Over the open neighbourhood ``N = {x : ||x - x0|| < r}`` it takes
exactly the values strictly between ``z(x0) - r ||g||_*`` and ``z(x0) + r ||g||_*``, with ``||.||_*`` the dual
norm (the sum of absolute values for the box ``norm="inf"``, the largest absolute value for the l1 ball, the
Euclidean norm for the ball). So the hyperplane ``{z = xi}`` of a breakpoint ``xi`` misses ``N`` exactly when
``|z(x0) - xi| >= r ||g||_*``: the neuron is then *stable* on ``N`` (one sign of ``z - xi`` on all of it), and
otherwise its hyperplane *meets* ``N``. This module decides both for many cells at once in floating point, and
leaves what its bounds cannot settle to exact arithmetic.

Gradients
---------
With ``S_l`` the diagonal of layer ``l``'s slopes on the cell's pieces, the gradients of layer ``l``'s
pre-activations are the rows of ``G_1 = W_1`` and ``G_l = P_l W_1`` with ``P_2 = W_2 S_1`` and
``P_l = W_l (S_{l-1} P_{l-1})``: small ``width x width_1`` matrices, then one product with ``W_1`` (for many
cells, one product of ``W_l`` with all their ``S P`` side by side). In IEEE double precision (``u = 2^-53``,
``gamma_n = n u / (1 - n u)``, ``u' = u / (1 - u)``), with ``W^`` and ``q^`` the doubles nearest to the weights and
slopes (``|W^ - W| <= u' |W^|``, ``|q^ - q| <= dq``), the computed ``P^_2 = fl(W^_2 S^_1)`` is within
``E_2 = |W^_2| ((2u + u') |q^| + (1 + u') dq)`` of ``P_2`` entrywise, and ``P^_l = fl(W^_l fl(S^ P^_{l-1}))`` within
(Higham, *Accuracy and Stability of Numerical Algorithms*, eq. 3.5, for the inner products of ``m = width_{l-1}``
terms; the roundings of ``S P``, of ``W`` and of ``q`` folded into ``gamma_{m+3}`` and the factors 2)

    E_l = |W^_l| ((gamma_{m+3} |q^| + 2 dq) |P^_{l-1}| + (1 + 2u) (|q^| + dq) E_{l-1}),

the slopes multiplying the rows of ``P^_{l-1}`` and ``E_{l-1}``.

Then ``G^_l = fl(P^_l W^_1)`` has, in each row, an l1 distance to the exact gradient of at most

    e_l = ((gamma_{n_1} + u') |P^_l| + (1 + u') E_l) w,      w_k = sum_j |W^_1[k, j]|,

(``e_1 = u' w`` for the first layer), and every norm used here differs from the l1 norm by at most it, so
``| ||G^_l[u]||_* - ||G_l[u]||_* | <= e_l[u]``. Products that underflow add at most ``2^-1074`` each, covered by
``2^-1000`` per term; every bound is a sum of non-negative terms evaluated in floating point and multiplied by
:func:`~polyregions.networks._float_filter.safety` to stay an upper bound.

Values at the centre
--------------------
``z(x0)`` on a cell is the network run at ``x0`` with the cell's pieces held fixed: each layer's pre-activations by
:func:`~polyregions.networks._float_filter.forward_layer` (its bound), then ``h = q_k z + p_k`` on the fixed piece
``k``, with ``|h^ - h| <= (|q^| + dq) e + dq |z^| + dp + gamma_2 (|q^ z^| + |p^|) + 2^-1000`` (the ``gamma_2`` term
only when the evaluation is not exact).

Decisions
---------
With ``D = fl(z^ - xi^)`` (``|D - (z - xi)| <= e_z + e_xi + 2u |D|``) and bounds ``R_lo <= r ||g||_* <= R_hi``, the
neuron is proven stable when ``|D| (1 - 8u) > (e_D + R_hi) (1 + 8u)`` and proven to meet ``N`` when
``R_lo (1 - 8u) > (|D| + e_D) (1 + 8u)``; anything else, NaN and infinities included, is :data:`UNDECIDED`. A
cheap ``R_hi`` comes without the gradients, from ``||P_l W_1||_* <= sum_k |P_l[u, k]| ||W_1[k]||_*``
(:func:`reach_upper`): at a small radius it proves most neurons stable, and only the others need their float
gradient (:func:`reach`: ``R = fl(r^ N^)`` for the computed dual norm ``N^``, within ``gamma_{n+2} N^ + e_l`` of the
exact one, and ``|r^ - r| <= dr``).

Examples
--------
>>> import numpy as np
>>> from polyregions.networks.network import Network
>>> net = Network.from_layers(1, [([[1], [1]], [0, -1], "relu")])  # breakpoints at x = 0 and x = 1
>>> fnet = FloatNetwork(net)
>>> state = first_state(fnet, np.array([[0.25]]), np.zeros((1, 1)))
>>> codes, signs = classify(fnet, state, radius=0.5, radius_error=0.0, norm="inf")
>>> codes[0, :, 0].tolist(), signs[0, :, 0].tolist()  # x = 0 is within 1/2 of 1/4, x = 1 is not
([1, 0], [0, -1])
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from polyregions.networks._float_filter import FloatLayer, U, float_layer, forward_layer, gamma, safety

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["STABLE", "MEETS", "UNDECIDED", "FloatNetwork", "LayerState", "doubled", "first_state", "next_state",
           "reach", "reach_upper", "centre_gaps", "classify", "single_region_points"]

#: Codes of :func:`classify`: the hyperplane proven to miss the neighbourhood, proven to meet it, or not proven.
STABLE, MEETS, UNDECIDED = 0, 1, 2

_UP = U / (1 - U)
_TINY = 2.0 ** -1000
_MEMORY = 2 ** 22  # doubles per gradient batch (32 MB)


class FloatNetwork:
    """Doubles of a network's layers and the constants of the bounds.

    ``usable`` is False when some parameter has no double within relative ``u`` of it (beyond the double range,
    or non-zero below ``2^-1000``): then every neuron is left :data:`UNDECIDED`.
    """

    def __init__(self, net: "Network"):
        self.net = net
        self.layers: list[FloatLayer] = [float_layer(layer) for layer in net.layers]
        first = self.layers[0]
        self.first_rows = first.abs_weight.sum(axis=1) * safety(first.fan_in)
        self.first_reach: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        self.first_dual: dict[str, np.ndarray] = {}
        self.usable = all(np.isfinite(layer.tiny).all() and np.isfinite(layer.weight).all()
                          and np.isfinite(layer.bias).all()
                          and np.isfinite(layer.activation.evaluation_errors).all()
                          and np.isfinite(layer.activation.breakpoint_errors).all() for layer in self.layers)


@dataclass(frozen=True)
class LayerState:
    """Layer ``layer``'s pre-activations on a batch of cells: ``P`` (None for the first layer) with its bound
    ``EP``, and the values ``z`` at the centre with their bounds ``f`` (one row per cell)."""

    layer: int
    P: np.ndarray | None
    EP: np.ndarray | None
    z: np.ndarray
    f: np.ndarray

    def take(self, rows: np.ndarray | list[int]) -> "LayerState":
        """The state of the cells ``rows`` (a cell's children share its state until the layer ends)."""
        rows = np.asarray(rows, dtype=np.intp)
        return LayerState(self.layer, None if self.P is None else self.P[rows],
                          None if self.EP is None else self.EP[rows], self.z[rows], self.f[rows])


def doubled(value: Fraction) -> tuple[float, float]:
    """The double nearest to an exact rational and a bound on its distance to it (a radius, for the filter)."""
    from polyregions.networks._float_filter import doubles

    x, e = doubles([value])
    return float(x[0]), float(e[0])


def first_state(fnet: FloatNetwork, X: np.ndarray, EX: np.ndarray) -> LayerState:
    """The first layer's state at the centres ``X`` (one row per cell) with bounds ``EX`` on their distance to
    the exact centres."""
    with np.errstate(all="ignore"):
        z, f = forward_layer(fnet.layers[0], X, EX)
    return LayerState(0, None, None, z, f)


def next_state(fnet: FloatNetwork, state: LayerState, pieces: np.ndarray) -> LayerState:
    """The next layer's state on cells whose pieces in ``state.layer`` are ``pieces`` (one row per cell)."""
    l = state.layer
    act = fnet.layers[l].activation
    nxt = fnet.layers[l + 1]
    with np.errstate(all="ignore"):
        q, dq = act.slopes[pieces], act.evaluation_errors[1][pieces]
        p, dp, rel = act.intercepts[pieces], act.evaluation_errors[2][pieces], act.evaluation_errors[0][pieces]
        z, f = state.z, state.f
        h = q * z + p
        eh = ((np.abs(q) + dq) * f + dq * np.abs(z) + dp + rel * gamma(2) * (np.abs(q * z) + np.abs(p))
              + _TINY) * safety(6)
        z2, f2 = forward_layer(nxt, h, eh)
        if state.P is None:
            P = nxt.weight[None, :, :] * q[:, None, :]
            EP = nxt.abs_weight[None, :, :] * ((2 * U + _UP) * np.abs(q) + (1 + _UP) * dq)[:, None, :] + _TINY
            return LayerState(l + 1, P, EP, z2, f2)
        assert state.EP is not None  # set together with P
        m = state.P.shape[1]
        aq = np.abs(q)[:, :, None]
        P = _left(nxt.weight, q[:, :, None] * state.P)
        EP = _left(nxt.abs_weight, (gamma(m + 3) * aq + 2 * dq[:, :, None]) * np.abs(state.P)
                   + (1 + 2 * U) * (aq + dq[:, :, None]) * state.EP)
        EP = (EP + 2 * m * _TINY) * safety(2 * m + 4)
    return LayerState(l + 1, P, EP, z2, f2)


def _left(W: np.ndarray, M: np.ndarray) -> np.ndarray:
    """``W @ M[i]`` for every matrix of the stack ``M`` at once: one product with all of them side by side."""
    count, k, j = M.shape
    wide = np.ascontiguousarray(M.transpose(1, 0, 2)).reshape(k, count * j)
    return (W @ wide).reshape(W.shape[0], count, j).transpose(1, 0, 2)


def _first_reach(fnet: FloatNetwork, norm: str) -> tuple[np.ndarray, np.ndarray]:
    """The dual norms of the first layer's rows and bounds on their distance to the exact ones (cached)."""
    cached = fnet.first_reach.get(norm)
    if cached is None:
        first = fnet.layers[0]
        with np.errstate(all="ignore"):
            N = _dual_norms(first.weight, norm)
            e = (gamma(first.fan_in + 2) * N + _UP * fnet.first_rows * (1 + 4 * U) + first.tiny) * safety(4)
        cached = fnet.first_reach[norm] = (N, e)
    return cached


def _dual_norms(G: np.ndarray, norm: str) -> np.ndarray:
    if norm == "inf":
        return np.abs(G).sum(axis=-1)
    if norm == "1":
        return np.abs(G).max(axis=-1, initial=0.0)
    return np.sqrt((G * G).sum(axis=-1))


def _reach(N: np.ndarray, eN: np.ndarray, radius: float, radius_error: float) -> tuple[np.ndarray, np.ndarray]:
    """Bounds on ``r ||g||_*`` from a computed dual norm ``N`` within ``eN`` of the exact one."""
    R = radius * N
    e = ((radius + radius_error) * eN + radius_error * N) * (1 + 4 * U) + 2 * U * R
    return R - e, R + e


def reach(fnet: FloatNetwork, state: LayerState, cells: np.ndarray, units: np.ndarray, *, radius: float,
          radius_error: float, norm: str) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds on ``r ||g||_*`` for the gradients ``g`` of the given (cell, unit) pairs, from their
    float gradients (one product with ``W_1`` per pair; see the module notes)."""
    first = fnet.layers[0]
    with np.errstate(all="ignore"):
        if state.P is None:
            N, eN = _first_reach(fnet, norm)
            return _reach(N[units], eN[units], radius, radius_error)
        assert state.EP is not None  # set together with P
        n1 = first.weight.shape[0]
        P, EP = state.P[cells, units], state.EP[cells, units]
        G = P @ first.weight
        e = ((gamma(n1) + _UP) * np.abs(P) + (1 + _UP) * EP) @ fnet.first_rows
        e = (e + (n1 + first.fan_in) * _TINY) * safety(n1 + 4)
        N = _dual_norms(G, norm)
        eN = (gamma(G.shape[-1] + 2) * N + e) * safety(4)
        return _reach(N, eN, radius, radius_error)


def reach_upper(fnet: FloatNetwork, state: LayerState, *, radius: float, radius_error: float,
                norm: str) -> np.ndarray:
    """An upper bound on ``r ||g||_*`` for every unit of every cell without the gradients themselves:
    ``||P W_1||_* <= sum_k |P_k| ||W_1[k]||_*`` (shape ``(cells, width)``; the first layer's bounds are tight)."""
    if state.P is None:
        return np.broadcast_to(reach(fnet, state, np.zeros(0, dtype=np.intp), np.arange(state.z.shape[1]),
                                     radius=radius, radius_error=radius_error, norm=norm)[1], state.z.shape)
    assert state.EP is not None  # set together with P
    rows = fnet.first_dual.get(norm)
    if rows is None:
        first = fnet.layers[0]
        with np.errstate(all="ignore"):
            rows = fnet.first_dual[norm] = _dual_norms(first.weight, norm) * (1 + _UP) * safety(first.fan_in + 2)
    with np.errstate(all="ignore"):
        bound = ((np.abs(state.P) + state.EP) @ rows) * safety(state.P.shape[-1])
        return (radius + radius_error) * bound * (1 + 4 * U)


def centre_gaps(fnet: FloatNetwork, state: LayerState) -> tuple[np.ndarray, np.ndarray]:
    """``D = z(x0) - xi`` for every breakpoint of every unit (shape ``(cells, width, breakpoints)``) and bounds on
    its distance to the exact value."""
    act = fnet.layers[state.layer].activation
    with np.errstate(all="ignore"):
        D = state.z[..., None] - act.breakpoints
        eD = ((state.f[..., None] + act.breakpoint_errors) * (1 + 4 * U) + 2 * U * np.abs(D)) * safety(4)
    return D, eD


def _stable(aD: np.ndarray, eD: np.ndarray, high: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.isfinite(aD) & np.isfinite(eD) & np.isfinite(high) & (aD * (1 - 8 * U) > (eD + high) * (1 + 8 * U))


def classify(fnet: FloatNetwork, state: LayerState, *, radius: float, radius_error: float,
             norm: str) -> tuple[np.ndarray, np.ndarray]:
    """``(codes, signs)``, shape ``(cells, width, breakpoints)``: :data:`STABLE`, :data:`MEETS` or
    :data:`UNDECIDED` for every breakpoint of every unit of the layer, and the sign of ``z(x0) - xi`` for the stable
    ones (0 for the others). The cheap bound of :func:`reach_upper` settles most units; the float gradients of
    :func:`reach` the rest."""
    D, eD = centre_gaps(fnet, state)
    shape = D.shape
    codes = np.full(shape, UNDECIDED, dtype=np.int8)
    if not fnet.usable:
        return codes, np.zeros(shape, dtype=np.int8)
    aD = np.abs(D)
    stable = _stable(aD, eD, reach_upper(fnet, state, radius=radius, radius_error=radius_error,
                                         norm=norm)[..., None])
    cells, units = np.nonzero(~stable.all(axis=2))
    if cells.size:
        low, high = reach(fnet, state, cells, units, radius=radius, radius_error=radius_error, norm=norm)
        sub_a, sub_e = aD[cells, units], eD[cells, units]
        stable[cells, units] = _stable(sub_a, sub_e, high[:, None])
        with np.errstate(all="ignore"):
            meets = (np.isfinite(sub_a) & np.isfinite(sub_e) & np.isfinite(low)[:, None]
                     & (low[:, None] * (1 - 8 * U) > (sub_a + sub_e) * (1 + 8 * U)))
        codes[cells, units] = np.where(meets, MEETS, UNDECIDED)
    codes[stable] = STABLE
    signs = np.where(stable, np.sign(D), 0).astype(np.int8)
    return codes, signs


def single_region_points(fnet: FloatNetwork, X: np.ndarray, EX: np.ndarray, *, radius: float, radius_error: float,
                         norm: str) -> np.ndarray:
    """Whether the filter proves each centre's neighbourhood inside one activation region: every neuron of every
    layer stable on it, each layer on the pieces of the centre (a boolean per row of ``X``)."""
    count = X.shape[0]
    widths = [layer.weight.shape[0] for layer in fnet.layers]
    chunk = max(1, _MEMORY // max(1, max(widths) * max(widths[0], 1)))
    proven = np.zeros(count, dtype=bool)
    if not fnet.usable:
        return proven
    for start in range(0, count, chunk):
        rows = np.arange(start, min(count, start + chunk))
        state = first_state(fnet, X[rows], EX[rows])
        alive = np.ones(rows.size, dtype=bool)
        for l in range(len(fnet.layers)):
            act = fnet.layers[l].activation
            if act.breakpoints.size:
                codes, signs = classify(fnet, state, radius=radius, radius_error=radius_error, norm=norm)
                stable = (codes == STABLE).all(axis=(1, 2))
                alive[np.flatnonzero(alive)[~stable]] = False
                if not alive.any():
                    break
                if not stable.all():
                    keep = np.flatnonzero(stable)
                    state, signs = state.take(keep), signs[keep]
                pieces = (signs > 0).sum(axis=2)
            else:
                pieces = np.zeros(state.z.shape, dtype=np.intp)
            if l + 1 < len(fnet.layers):
                state = next_state(fnet, state, pieces)
        proven[rows[alive]] = True
    return proven
