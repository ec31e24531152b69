"""Hanin & Rolnick's Theorem 3 side by side: a Monte-Carlo estimate of its right-hand side and exact volumes.

For random networks whose biases have a density, Theorem 3 (Theorem 6 for ``T`` breakpoints) says

    E[vol_{n-k}(B_{N,k} ∩ K)] = sum over sets {z_1..z_k} of distinct neurons, sum over breakpoints xi_1..xi_k of
        integral over K of E[ |J(x)| rho(z_1(x) - xi_1, ..., z_k(x) - xi_k) 1{every z_j good at x} ] dx,

with ``z_j(x)`` the pre-activation of ``z_j`` without its own bias, ``J`` the ``k x n`` Jacobian of
``x -> (z_1(x), ..., z_k(x))``, ``|J| = sqrt(det(J J^T))`` and ``rho`` the joint density of the biases (here
independent normals with standard deviation ``bias_std``). Sets of neurons are unordered: each set of ``k``
neurons meets in one ``(n-k)``-dimensional piece.

The estimator follows the co-area argument behind the theorem: on the set where ``z_1..z_k`` sit at their
breakpoints, those neurons output the constant ``phi(xi_j)`` whatever their biases, so every quantity in the
integrand is evaluated in the network with ``z_1..z_k`` *held* at ``phi(xi_j)`` (derivative zero through them):
the pre-activations and gradients of the later ones among them, and goodness. A neuron is *good* at ``x`` when a
path of non-zero weights leads from it to an output through neurons that are open at ``x`` (slope of their piece
non-zero; a held neuron counts as open when a piece next to its breakpoint has non-zero slope; the units of a
linear output layer are always open; a neuron of the last layer, when that layer is the output, is good).

The estimate averages ``vol(K) * sum(...)`` over uniform points of ``K`` and over independently drawn networks,
with the standard error over networks. The exact side is the mean over the same networks of
:func:`polyregions.measures.volumes.boundary_volumes`. Small bias deviations make the density a narrow spike, so the
estimate needs many points (its standard error says how many).

Examples
--------
>>> rows = theorem3_comparison([2, 4], networks=2, samples=400, bias_std=0.5, seed=0)
>>> [row["k"] for row in rows]
[1, 2]
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["theorem3_integrand", "theorem3_comparison"]


@dataclass(frozen=True)
class _Net:
    """Float copies of a network for the Monte-Carlo integrand."""

    weights: list[np.ndarray]
    biases: list[np.ndarray]
    breakpoints: list[np.ndarray]
    slopes: list[np.ndarray]
    intercepts: list[np.ndarray]
    linear: list[bool]
    neurons: list[tuple[int, int]]

    @classmethod
    def of(cls, net: "Network") -> "_Net":
        weights, biases = zip(*net.float_layers())
        acts = [layer.activation for layer in net.layers]
        return cls(list(weights), list(biases),
                   [np.array([float(v) for v in a.breakpoints]) for a in acts],
                   [np.array([float(v) for v in a.slopes]) for a in acts],
                   [np.array([float(v) for v in a.intercepts]) for a in acts],
                   [a.is_linear for a in acts], list(net.neurons))


def _forward(net: _Net, X: np.ndarray, held=None, *, start: int = 0, grads: bool = True):
    """Per layer: bias-free pre-activations (B, width), gradients (B, width, n) or None, open flags (B, width)
    and outputs (B, width).

    ``held[l] = (mask, xi)`` holds the masked units of layer ``l`` at ``phi(xi)`` (arrays of shape (B, width)).
    With ``start > 0``, ``X`` is the output of layer ``start - 1`` and only layers ``start..`` are returned.
    """
    B, n = X.shape
    h = X
    Dh: Any = np.broadcast_to(np.eye(n), (B, n, n)) if grads else None  # d h / d x
    out: list[Any] = []
    for l in range(start, len(net.weights)):
        W, b = net.weights[l], net.biases[l]
        z = h @ W.T                     # without the bias
        pre = z + b
        G = np.einsum("ij,bjk->bik", W, Dh) if grads else None
        if net.linear[l]:
            out.append((z, G, np.ones(z.shape, dtype=bool), pre))
            h, Dh = pre, G
            continue
        xi, q, p = net.breakpoints[l], net.slopes[l], net.intercepts[l]
        piece = np.searchsorted(xi, pre, side="left")
        slope = q[piece]
        value = slope * pre + p[piece]
        is_open = slope != 0
        if held is not None and held[l] is not None:
            mask, at = held[l]
            value, slope, is_open = _hold(net, l, mask, at, value, slope, is_open)
        out.append((z, G, is_open, value))
        h = value
        Dh = slope[:, :, None] * G if grads else None
    return out


def _hold(net: _Net, l: int, mask, at, value, slope, is_open):
    """Hold the masked units at ``phi(at)``: that value, zero derivative, open when a piece next to the
    breakpoint has a non-zero slope."""
    xi, q, p = net.breakpoints[l], net.slopes[l], net.intercepts[l]
    k = np.searchsorted(xi, at, side="left")  # the piece left of the breakpoint
    held_value = q[k] * at + p[k]
    next_open = (q[k] != 0) | (q[np.minimum(k + 1, len(q) - 1)] != 0)
    return (np.where(mask, held_value, value), np.where(mask, 0.0, slope), np.where(mask, next_open, is_open))


def _good(net: _Net, layers) -> list[np.ndarray]:
    """Per layer with neurons, whether each neuron is good (a path of open units with non-zero weights to an
    output), shape (B, width)."""
    L = len(layers)
    reach = layers[-1][2].copy()   # the output units reached: open ones (all, for a linear output layer)
    good: list[Any] = [None] * L
    good[L - 1] = np.ones_like(reach)
    for l in range(L - 2, -1, -1):
        edges = (net.weights[l + 1] != 0).astype(np.float64)
        good[l] = (reach.astype(np.float64) @ edges) > 0
        reach = good[l] & layers[l][2]
    return good


def _density(values: np.ndarray, std: float) -> np.ndarray:
    return np.exp(-0.5 * (values / std) ** 2) / (std * math.sqrt(2 * math.pi))


def theorem3_integrand(network: "Network", points: np.ndarray, *, k: int, bias_std: float) -> np.ndarray:
    """The integrand of Theorem 3 at each point: the sum over sets of ``k`` neurons (and their breakpoints) of
    ``|J| rho 1{good}``, evaluated in the network with those neurons held at their breakpoints.

    Parameters
    ----------
    network : Network
    points : array of shape (count, input_dim)
    k : {1, 2}
    bias_std : float
        The standard deviation of the (independent, centred normal) biases.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> # One neuron z = x with bias density N(0, 1): at x = 0 the integrand is |grad z| rho(0) = 0.3989...
    >>> net = Network.from_layers(1, [([[1]], [0], "relu")])
    >>> round(float(theorem3_integrand(net, np.array([[0.0]]), k=1, bias_std=1.0)[0]), 4)
    0.3989
    """
    if k not in (1, 2):
        raise InvalidInputError(f"k: expected 1 or 2, got {k!r}")
    if not (isinstance(bias_std, (int, float)) and bias_std > 0 and math.isfinite(bias_std)):
        raise InvalidInputError(f"bias_std: expected a positive number (the biases need a density), got {bias_std!r}")
    net = _Net.of(network)
    X = np.asarray(points, dtype=np.float64)
    if X.ndim != 2 or X.shape[1] != network.input_dim:
        raise InvalidInputError(f"points: expected an array of shape (count, {network.input_dim}), got {X.shape}")
    P = X.shape[0]
    base = _forward(net, X)
    total = np.zeros(P)
    neurons = net.neurons
    if k == 1:
        for (l, u) in neurons:
            for xi in net.breakpoints[l]:
                z, G = base[l][:2]
                rho = _density(z[:, u] - xi, bias_std)
                live = np.flatnonzero(rho > 0)
                if live.size == 0:
                    continue
                held = _held(net, [(l, u, xi)], live.size)
                layers = _forward(net, X[live], held, grads=False)
                good = _good(net, layers)[l][:, u]
                norm = np.linalg.norm(G[live, u, :], axis=1)
                total[live] += norm * rho[live] * good
        return total
    L = len(net.weights)
    for l1, u1 in neurons:
        for xi1 in net.breakpoints[l1]:
            rho1 = _density(base[l1][0][:, u1] - xi1, bias_std)  # z_1 comes first: holding z_2 cannot change it
            live = np.flatnonzero(rho1 > 0)
            if live.size == 0:
                continue
            first = _forward(net, X[live], _held(net, [(l1, u1, xi1)], live.size))
            g1 = first[l1][1][:, u1, :]
            for l2 in range(l1, L):
                if net.linear[l2]:
                    continue
                units = np.arange(u1 + 1 if l2 == l1 else 0, net.weights[l2].shape[0])
                if units.size == 0:
                    continue
                z2, G2, open2, h2 = first[l2]
                for xi2 in net.breakpoints[l2]:
                    rho2 = _density(z2[:, units] - xi2, bias_std)          # (live, units)
                    rows, cols = np.nonzero(rho2 > 0)
                    if rows.size == 0:
                        continue
                    u2 = units[cols]
                    g2 = G2[rows, u2, :]
                    a = g1[rows]
                    gram = (a * a).sum(1) * (g2 * g2).sum(1) - (a * g2).sum(1) ** 2
                    jac = np.sqrt(np.maximum(gram, 0.0))
                    # Hold z_2 too: its layer's outputs and open flags change, later layers are recomputed.
                    mask = np.zeros(h2[rows].shape, dtype=bool)
                    mask[np.arange(rows.size), u2] = True
                    value, _, opened = _hold(net, l2, mask, np.full(mask.shape, xi2), h2[rows],
                                             np.zeros(mask.shape), open2[rows])
                    layers = [(None, None, first[m][2][rows], None) for m in range(l2)]
                    layers.append((None, None, opened, value))
                    if l2 + 1 < L:
                        layers.extend(_forward(net, value, start=l2 + 1, grads=False))
                    goods = _good(net, layers)
                    contribution = (jac * rho1[live][rows] * rho2[rows, cols]
                                    * goods[l1][:, u1] * goods[l2][np.arange(rows.size), u2])
                    np.add.at(total, live[rows], contribution)
    return total


def _held(net: _Net, items, B: int):
    held: list[Any] = [None] * len(net.weights)
    for l, u, xi in items:
        if held[l] is None:
            width = net.weights[l].shape[0]
            held[l] = (np.zeros((B, width), dtype=bool), np.zeros((B, width)))
        held[l][0][:, u] = True
        held[l][1][:, u] = xi
    return held


def theorem3_comparison(widths: Sequence[int], *, lower: float = -1.0, upper: float = 1.0, networks: int = 10,
                        samples: int = 20000, bias_std: float = 0.1, seed: int = 0, ks: Sequence[int] = (1, 2),
                        initializer=None) -> list[dict[str, Any]]:
    """The Monte-Carlo right-hand side of Theorem 3 beside the exact measured volumes, for 2-D inputs.

    Parameters
    ----------
    widths : ``[2, n1, ..., nL]``
    lower, upper : float, keyword-only
        ``K = [lower, upper]^2``.
    networks : int
        Networks drawn (seeds ``seed, seed + 1, ...``); each gets its own sample points.
    samples : int
        Uniform points of ``K`` per network.
    bias_std : float
        The biases' standard deviation (Hanin & Rolnick's experiments use ``1e-3``, which needs many points).
    ks : subset of (1, 2)
    initializer : callable, optional
        ``initializer(widths, seed=..., bias_std=...)``; He normal in float64 by default.

    Returns
    -------
    list of dict
        Per ``k``: ``predicted`` and ``predicted_stderr`` (Monte Carlo), ``measured`` and ``measured_stderr``
        (exact volumes of ``B_{N,k}``, averaged), ``networks``, ``samples``, ``neurons``.
    """
    from polyregions.measures.volumes import boundary_volumes
    from polyregions.networks.initializers import he_normal
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    if len(widths) < 2 or widths[0] != 2:
        raise InvalidInputError(f"widths: expected [2, n1, ...] (2-D inputs), got {list(widths)!r}")
    for k in ks:
        if k not in (1, 2):
            raise InvalidInputError(f"ks: expected values among 1 and 2, got {k!r}")
    make = initializer or (lambda w, seed, bias_std: he_normal(w, seed=seed, bias_std=bias_std, dtype=np.float64))
    rng = np.random.default_rng(seed)
    area = (upper - lower) ** 2
    predicted: dict[int, list[float]] = {k: [] for k in ks}
    measured: dict[int, list[float]] = {k: [] for k in ks}
    neurons = None
    for i in range(networks):
        net = make(list(widths), seed=seed + i, bias_std=bias_std)
        neurons = net.num_neurons
        X = rng.uniform(lower, upper, size=(samples, 2))
        volumes = boundary_volumes(enumerate_regions(net, box([lower, lower], [upper, upper])))
        for k in ks:
            predicted[k].append(area * float(theorem3_integrand(net, X, k=k, bias_std=bias_std).mean()))
            measured[k].append(volumes.values[k - 1])
    rows = []
    for k in ks:
        p, m = np.array(predicted[k]), np.array(measured[k])
        rows.append({"k": k, "widths": list(widths), "neurons": neurons, "networks": networks, "samples": samples,
                     "bias_std": bias_std, "predicted": float(p.mean()), "predicted_stderr": _stderr(p),
                     "measured": float(m.mean()), "measured_stderr": _stderr(m)})
    return rows


def _stderr(a: np.ndarray) -> float:
    """The standard error of the mean of ``a`` (NaN for fewer than two values)."""
    return float(a.std(ddof=1) / math.sqrt(len(a))) if len(a) > 1 else math.nan
