"""Monte-Carlo estimate of the right-hand side of Hanin & Rolnick's Theorem 3, for k = 1 and k = 2.

For a ReLU network with one output and normal biases ``b_z ~ N(0, sigma^2)`` independent of everything else, the
theorem gives ``E[vol_{n0-k}(B_{N,k} ∩ K)]`` as the expectation of

    vol(K) * E_x[ sum over sets {z_1..z_k} of distinct neurons of
                  ||J(x)|| * rho(z_1(x)) ... rho(z_k(x)) * 1{every z_j is good at x} ],

``x`` uniform in ``K``, where ``z(x)`` is a neuron's pre-activation without its own bias, ``J`` the ``k x n0``
Jacobian of ``x -> (z_1(x), ..., z_k(x))``, ``||J|| = sqrt(det(J J^T))`` and ``rho`` the bias density. The density
is evaluated where the biases put every ``z_j`` on its breakpoint, so everything downstream of ``z_j`` is computed
with ``z_j``'s output at the breakpoint value (0): ``z_2(x)`` with ``z_1`` held at 0 when ``z_1`` lies in an
earlier layer (``J``'s determinant does not depend on which side's gradient is used, since the sides differ by a
multiple of ``grad z_1``), and *good* means a path of open neurons (pre-activation > 0) from ``z_j`` to the output,
which, with non-zero weights, is at least one open neuron in every later hidden layer; a neuron held at its
breakpoint counts as open (a path through it changes the gradient on the side where it is active). For a fixed
network the estimate's mean over ``x`` is the theorem's integrand averaged over the biases of the neurons
concerned, so averaging it over networks estimates the same expectation as averaging the exact measured volumes.

This is an independent float implementation (numpy), only for the statistical comparison.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["theorem3_integrand", "theorem3_estimate"]


def _hidden_layers(net: "Network") -> list[tuple[np.ndarray, np.ndarray]]:
    layers = net.layers
    if layers[-1].activation.name != "linear" or layers[-1].width != 1:
        raise ValueError("expected a network with one linear output unit")
    if any(layer.activation.name != "relu" for layer in layers[:-1]):
        raise ValueError("expected ReLU hidden layers")
    if any(v == 0 for v in layers[-1].weight[0]):
        raise ValueError("expected non-zero output weights")
    return [(np.array([[float(v) for v in row] for row in layer.weight]), np.array([float(v) for v in layer.bias]))
            for layer in layers[:-1]]


def _density(z: np.ndarray, sigma: float) -> np.ndarray:
    return np.exp(-0.5 * (z / sigma) ** 2) / (sigma * math.sqrt(2 * math.pi))


def _run(layers, start: int, h: np.ndarray, G: np.ndarray):
    """Layers ``start..``: per layer ``(z, pre, open, grad z)`` from the post-activations ``h`` and their gradients."""
    out = []
    for W, b in layers[start:]:
        z = h @ W.T
        Gz = np.einsum("ij,sjd->sid", W, G)
        pre = z + b
        op = pre > 0
        out.append((z, pre, op, Gz))
        h = np.where(op, pre, 0.0)
        G = Gz * op[:, :, None]
    return out


def _open_everywhere_after(layers, l: int, h: np.ndarray) -> np.ndarray:
    """Whether every hidden layer after ``l`` has an open neuron, from layer ``l``'s post-activations ``h``."""
    ok = np.ones(h.shape[0], dtype=bool)
    for W, b in layers[l + 1:]:
        pre = h @ W.T + b
        op = pre > 0
        ok &= op.any(axis=1)
        h = np.where(op, pre, 0.0)
    return ok


def theorem3_integrand(net: "Network", X: np.ndarray, sigma: float) -> tuple[np.ndarray, np.ndarray]:
    """The theorem's integrands for ``k = 1`` and ``k = 2`` at the points ``X`` (shape ``(S, 2)``)."""
    layers = _hidden_layers(net)
    S, d = X.shape
    if d != 2:
        raise ValueError("expected 2-D inputs")
    G0 = np.broadcast_to(np.eye(d), (S, d, d)).copy()
    base = _run(layers, 0, X, G0)
    post = [np.where(op, pre, 0.0) for _, pre, op, _ in base]
    grads = [Gz * op[:, :, None] for _, _, op, Gz in base]
    neurons = [(l, i) for l, (W, _) in enumerate(layers) for i in range(W.shape[0])]
    k1 = np.zeros(S)
    for l, i in neurons:
        z, _, _, Gz = base[l]
        h = post[l].copy()
        h[:, i] = 0.0
        good = _open_everywhere_after(layers, l, h)
        k1 += np.linalg.norm(Gz[:, i, :], axis=1) * _density(z[:, i], sigma) * good
    k2 = np.zeros(S)
    for a, (l1, i1) in enumerate(neurons):
        z1, g1 = base[l1][0][:, i1], base[l1][3][:, i1, :]
        h1, G1 = post[l1].copy(), grads[l1].copy()
        h1[:, i1], G1[:, i1, :] = 0.0, 0.0
        forced = _run(layers, l1 + 1, h1, G1)  # layers after l1 with z1 held at its breakpoint
        rho1 = _density(z1, sigma)
        for l2, i2 in neurons[a + 1:]:
            if l2 == l1:
                z2, g2 = base[l2][0][:, i2], base[l2][3][:, i2, :]
                h = post[l1].copy()
                h[:, i1] = h[:, i2] = 0.0
                good1 = good2 = _open_everywhere_after(layers, l1, h)
            else:
                z, pre, op, Gz = forced[l2 - l1 - 1]
                z2, g2 = z[:, i2], Gz[:, i2, :]
                h = np.where(op, pre, 0.0)
                h[:, i2] = 0.0
                good2 = _open_everywhere_after(layers, l2, h)
                # z1's paths may run through z2: a held ReLU is open on its active side.
                good1 = good2.copy()
                for _, _, op_j, _ in forced[:l2 - l1 - 1]:
                    good1 &= op_j.any(axis=1)
            det = np.abs(g1[:, 0] * g2[:, 1] - g1[:, 1] * g2[:, 0])
            k2 += det * rho1 * _density(z2, sigma) * good1 * good2
    return k1, k2


def theorem3_estimate(net: "Network", sigma: float, *, points: int, seed, lower=-1.0, upper=1.0
                      ) -> tuple[float, float]:
    """``vol(K)`` times the mean integrand over ``points`` uniform points of the square ``K = [lower, upper]^2``."""
    X = np.random.default_rng(seed).uniform(lower, upper, size=(points, 2))
    k1, k2 = theorem3_integrand(net, X, sigma)
    volume = (upper - lower) ** 2
    return float(k1.mean()) * volume, float(k2.mean()) * volume
