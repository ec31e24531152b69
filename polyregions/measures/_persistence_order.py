"""The exact order of the vertex values of ``f`` with exact arithmetic only where floats cannot decide.

The filtration needs every vertex's place in the order of ``(value, id)``, and the result needs exact values at
few vertices (births, deaths, critical points). Exact values at every vertex cost more than the rest of the
computation, so every value is first enclosed: one float64 forward pass of all vertices with a proven radius
(:func:`float_enclosures`), then the vertices are sorted by the lower ends of their intervals and cut into
*clusters* wherever the largest upper end so far is below the next lower end. Values in different clusters are
ordered as their clusters (and differ); inside a cluster of two or more the exact values are computed and
sorted. A degenerate network (many vertices of equal value) thus gets exact arithmetic exactly where it needs
it.

The radius. With ``u = 2^-53`` and ``g_m = m u / (1 - m u)``, a layer ``z = W h + b`` of fan-in ``n`` computed in
float64 from rounded weights ``W~, b~`` (each within ``u`` relatively of the exact one) and an approximation
``h~`` within ``e`` of ``h`` satisfies ``|z~ - z| <= g_{n+2} (|W~| |h~| + |b~|) + (1 + u) |W~| e`` in any order
of summation (Higham, *Accuracy and Stability of Numerical Algorithms*, 3.5). A ReLU or the identity does not
increase it. The radius is evaluated in floats and enlarged by the factor ``1 + 2 g_{n+2}`` plus ``1e-300``,
which covers the rounding of its own evaluation. Other activations, and any value that is not finite, make the
radius infinite: every vertex is then computed exactly.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["VertexValues", "float_enclosures", "identity_or_relu"]

_U = 2.0 ** -53


class VertexValues:
    """``f`` at the vertices: float enclosures of all, exact values on demand (cached).

    Parameters
    ----------
    approx, radius : numpy.ndarray
        Per vertex, a float and a bound on its distance to the exact value.
    exact : callable
        ``exact(vertices)``: the exact values at a list of vertex ids.
    """

    def __init__(self, approx: np.ndarray, radius: np.ndarray, exact: Callable[[Sequence[int]], list[Fraction]]):
        self.approx, self.radius, self._exact = approx, radius, exact
        self._known: dict[int, Fraction] = {}
        self.by_value, self.cluster = self._sorted()

    def __len__(self) -> int:
        return len(self.approx)

    def __getitem__(self, v: int) -> Fraction:
        return self.values([v])[0]

    def values(self, vertices: Sequence[int]) -> list[Fraction]:
        """The exact values at ``vertices``."""
        missing = sorted({v for v in vertices if v not in self._known})
        if missing:
            self._known.update(zip(missing, self._exact(missing)))
        return [self._known[v] for v in vertices]

    def equal(self, a: int, b: int) -> bool:
        """Whether ``f`` takes the same value at vertices ``a`` and ``b``."""
        return a == b or (self.cluster[a] == self.cluster[b] and self[a] == self[b])

    def _sorted(self) -> tuple[list[int], list[int]]:
        """The vertex ids in the order of ``(value, id)``, and a cluster label per vertex (module notes)."""
        n = len(self.approx)
        if n == 0:
            return [], []
        with np.errstate(invalid="ignore", over="ignore"):
            lo = self.approx - self.radius
            hi = self.approx + self.radius
        bad = ~(np.isfinite(lo) & np.isfinite(hi))
        lo[bad], hi[bad] = -np.inf, np.inf
        order = np.lexsort((np.arange(n), lo))
        reach = np.maximum.accumulate(hi[order])
        starts = np.concatenate([[True], reach[:-1] < lo[order][1:]])
        label = np.cumsum(starts) - 1
        cluster = np.empty(n, dtype=np.int64)
        cluster[order] = label
        by_value = order.tolist()
        bounds = np.flatnonzero(np.concatenate([starts, [True]])).tolist()
        groups = [(start, end) for start, end in zip(bounds[:-1], bounds[1:]) if end - start > 1]
        self.values([v for start, end in groups for v in by_value[start:end]])  # one exact evaluation for all
        for start, end in groups:
            group = by_value[start:end]
            by_value[start:end] = [v for _, v in sorted(zip(self.values(group), group))]
        return by_value, cluster.tolist()


def float_enclosures(network: "Network", points: np.ndarray, *, layers: int | None = None) -> tuple[np.ndarray,
                                                                                                    np.ndarray]:
    """Float values of the first output of ``network`` (its first ``layers`` layers) at ``points`` (rows, float64,
    each the nearest double of an exact point) and proven radii (module notes)."""
    from polyregions.networks.network import Network

    if not isinstance(network, Network):
        infinite = np.full(len(points), np.inf)
        return infinite, infinite
    chosen = network.layers if layers is None else network.layers[:layers]
    h = np.asarray(points, dtype=np.float64).T
    e = _U * np.abs(h)
    for layer, (W, b) in zip(chosen, network.float_layers()):
        if not identity_or_relu(layer):
            infinite = np.full(h.shape[1], np.inf)
            return infinite, infinite
        n = W.shape[1]
        g = (n + 2) * _U / (1 - (n + 2) * _U)
        absW = np.abs(W)
        z = W @ h + b[:, None]
        e = (g * (absW @ np.abs(h) + np.abs(b)[:, None]) + (1 + _U) * (absW @ e)) * (1 + 2 * g) + 1e-300
        h = z if layer.activation.is_linear else np.maximum(z, 0.0)  # the identity or a ReLU (identity_or_relu)
    return h[0].copy(), e[0].copy()


def identity_or_relu(layer) -> bool:
    """Whether the layer's activation is the identity or a ReLU (the float filter's cases, ``|act(z)| <= |z|``)."""
    act = layer.activation
    if act.is_linear:
        return list(act.slopes) == [1] and not any(act.intercepts)
    return (list(act.breakpoints) == [0] and list(act.slopes) == [0, 1] and not any(act.intercepts))
