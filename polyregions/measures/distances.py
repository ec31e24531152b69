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
facet's exact distance being the projection of ``x`` onto it (:mod:`polyregions.polyhedra._projection`), until the
nearest facet of ``B_N`` is closer than every unvisited region. The neuron hyperplanes and touching points are
:mod:`polyregions.measures._neuron_distances`'s, the search :mod:`polyregions.measures._boundary_search`'s.

Batches and error bounds
------------------------
:func:`boundary_distances` handles thousands of points in any dimension in floating point with proven bounds,
``lower <= distance <= upper`` (the float path and its error analysis are in
:mod:`polyregions.measures._distance_bounds`); a point the bounds do not settle is computed exactly.

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

import math
import typing
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Vector
from polyregions.measures._boundary_search import search
from polyregions.measures._neuron_distances import activation_exact, touching_point, touching_point_in_boundary
from polyregions.regions._arguments import expect_network, expect_points

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["Distances", "ExactDistance", "boundary_distances", "exact_distance", "distance_scaling",
           "log_distance_histogram", "DistanceKind", "KINDS"]

#: The two kinds of boundary: of activation regions, and of linear regions (``B_N``).
DistanceKind = Literal["activation", "linear"]
#: The values of :data:`DistanceKind`, in that order.
KINDS: tuple[DistanceKind, ...] = typing.get_args(DistanceKind)

_ZERO = Fraction(0)


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
        from polyregions.exact.surds import sqrt_upper_bound

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


def exact_distance(network: "Network", point: Any, *, kind: DistanceKind = "activation") -> ExactDistance:
    """The exact distance from ``point`` to the boundary of its activation region or to ``B_N``.

    Parameters
    ----------
    network : Network
    point : sequence of numbers
        ``network.input_dim`` coordinates, read exactly (a float is its binary value, ``"1/3"`` is one third).
    kind : {"activation", "linear"}, keyword-only
        The boundary: of the activation region of ``point``, or ``B_N``, the boundary of linear regions.

    Returns
    -------
    ExactDistance
        The squared distance as a Fraction and a nearest boundary point; ``squared`` is None when there is no
        boundary at all (the distance is infinite).

    Raises
    ------
    InvalidInputError
        For an unknown ``kind``, or a point that is not ``network.input_dim`` exact numbers.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(1, [([[2]], [-1], "relu")])  # relu(2x - 1) bends at x = 1/2
    >>> pr.exact_distance(net, [2])
    ExactDistance(squared=Fraction(9, 4), nearest=(Fraction(1, 2),))
    >>> # relu(x) - relu(-x) = x: the neurons switch at x = 0 but the output never bends.
    >>> net = pr.Network.from_layers(1, [([[1], [-1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
    >>> pr.exact_distance(net, [2]).squared, pr.exact_distance(net, [2], kind="linear").squared is None
    (Fraction(4, 1), True)
    """
    network = expect_network(network)
    _check_kind(kind)
    x = _exact_point(point, network.input_dim)
    if hasattr(network, "region_rows"):  # a graph network's stages
        return _staged_exact_distance(network, x, kind)
    squared, nearest, found, pattern, maps = activation_exact(network, x)
    if kind == "activation" or squared is None:
        if kind == "linear" and squared is None:
            return ExactDistance(None, None)  # one region on all of space, no boundary at all
        return ExactDistance(squared, nearest)
    if squared > 0:
        for index, _l, _u, xi, g, D, value in found:
            p = touching_point(x, g, D, value, xi)
            if touching_point_in_boundary(network, x, p, index, pattern, xi, value, D):
                return ExactDistance(squared, p)
    return ExactDistance(*search(network, x, pattern if squared > 0 else None))


def _staged_exact_distance(net, x: Vector, kind: DistanceKind) -> ExactDistance:
    """:func:`exact_distance` for a graph network's stages (:mod:`polyregions.measures._staged_distances`)."""
    from polyregions.measures import _staged_distances as sd

    squared, found, pattern = sd.nearest_rows(net, x)
    if squared is None:
        return ExactDistance(None, None)  # one region on all of space
    if kind == "activation":
        return ExactDistance(squared, sd.touching_point(x, found[0][1], found[0][2]))
    if squared > 0:
        for row in found:
            p = sd.touching_point(x, row[1], row[2])
            if sd.in_boundary(net, x, p, row, pattern):
                return ExactDistance(squared, p)
    return ExactDistance(*search(net, x, pattern if squared > 0 else None))


# --- many points: floats with proven bounds ---------------------------------------------------------------------

@dataclass(frozen=True)
class Distances:
    """Distances of many points with proven bounds: ``lower <= exact distance <= upper`` for every point.

    Returned by :func:`boundary_distances`; ``len()`` is the number of points.

    Attributes
    ----------
    kind : {"activation", "linear"}
        The boundary the distances are to (see :data:`DistanceKind`).
    values : ndarray
        The computed distances, one per point (``inf`` when there is no boundary).
    lower, upper : ndarray
        Proven bounds on the exact distances.
    exact_points : tuple of int
        The indices of the points decided by exact arithmetic (their bounds bracket the double nearest the exact
        value).

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(1, [([[2]], [-1], "relu")])
    >>> d = pr.boundary_distances(net, [[0.0], [2.0]])
    >>> len(d), d.kind, d.values.tolist(), d.relative_error() < 1e-12
    (2, 'activation', [0.5, 1.5], True)
    """

    kind: DistanceKind
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


def boundary_distances(network: "Network", points: Any, *, kind: DistanceKind = "activation", chunk: int | None = None
                       ) -> Distances:
    """Distances from many points to the boundary of their activation region, or to ``B_N``, with proven bounds.

    Parameters
    ----------
    network : Network
    points : array of shape (count, input_dim), or sequence of points
        A float array is read as the exact doubles it holds; other entries are read exactly.
    kind : {"activation", "linear"}, keyword-only
        The boundary: of each point's activation region, or ``B_N``, the boundary of linear regions.
    chunk : int, keyword-only
        Points per vectorised batch (default: about 20 MB of Gram matrices).

    Returns
    -------
    Distances
        Points that the float bounds cannot settle are computed exactly (:func:`exact_distance`).

    Raises
    ------
    InvalidInputError
        When ``network`` is not a Network, for an unknown ``kind``, no points, a float array that is not of shape
        ``(count, input_dim)`` or holds NaN or infinity, or a point that is not ``input_dim`` exact numbers.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(1, [([[2]], [-1], "relu")])  # relu(2x - 1) bends at x = 1/2
    >>> d = pr.boundary_distances(net, [[0.0], [2.0]])
    >>> d.values.tolist(), bool((d.lower <= [0.5, 1.5]).all() and (d.upper >= [0.5, 1.5]).all())
    ([0.5, 1.5], True)
    """
    network = expect_network(network)
    points = expect_points(points, "points", dim=network.input_dim)
    _check_kind(kind)
    from polyregions.measures._distance_bounds import batch_distances, outward_bounds

    X, EX, exact = _as_points(points, network.input_dim)
    if hasattr(network, "region_rows"):  # a graph network's stages: every point exactly
        lower, upper, value = (np.zeros(len(X)) for _ in range(3))
        settled = np.zeros(len(X), dtype=bool)
    else:
        lower, upper, value, settled = batch_distances(network, X, EX, kind=kind, chunk=chunk)
    fallback = tuple(int(i) for i in np.flatnonzero(~settled))
    for i in fallback:
        point = exact[i] if exact is not None else tuple(Fraction(float(v)) for v in X[i])
        d = exact_distance(network, point, kind=kind)
        if d.squared is None:
            lower[i] = upper[i] = value[i] = np.inf
            continue
        interval = d.interval(bits=60)
        assert interval is not None  # d.squared is not None
        lower[i], upper[i] = outward_bounds(*interval)
        value[i] = d.value
    return Distances(kind, value, lower, upper, fallback)


# --- Corollary 5 data --------------------------------------------------------------------------------------------

def distance_scaling(architectures: Sequence[Sequence[int]], points: np.ndarray, *, seeds: Sequence[int] = (0,),
                     kind: DistanceKind = "activation", initializer=None) -> list[dict[str, Any]]:
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
