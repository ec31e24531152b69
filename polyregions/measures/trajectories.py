"""Regions, transitions and lengths along one-dimensional trajectories (Raghu et al. 2017; Hanin & Rolnick 2019).

A trajectory is a polyline through input points (a segment, a sampled curve). Each segment is a 1-D domain
(:func:`polyregions.regions.domains.segment`) whose activation regions are found exactly by the vectorised mesh engine;
along it every neuron is piecewise affine in the segment's parameter, so the regions are intervals with exact
rational end points. The whole curve is the list of these *pieces* in order.

- ``regions``: the maximal runs of constant activation pattern along the curve (on a straight line, the number
  of regions it crosses; a curve that re-enters a region counts it again).
- ``distinct_patterns``: the number of different patterns met (Raghu et al.'s count of activation patterns).
- ``transitions``: the number of neuron transitions, the sum over consecutive runs of the number of neurons whose
  piece changes (also per layer).
- ``lengths``: the length of the image of the curve after each layer (layer 0 is the input; Raghu et al.,
  Theorem 3, predict growth exponential in depth for random ReLU networks of large weight variance). On a piece
  the first ``l`` layers are affine, so the image is a segment of length ``dt |v_l|`` with ``v_l`` the exact
  derivative of the layer's output along the piece (``dt`` the parameter length): exact sums of square roots of
  rationals.

Infinite lines (:func:`line_regions`, Hanin & Rolnick's Figure 5: lines through the origin and an input) are
reduced exactly to a segment: the pattern at ``s -> +inf`` is found lexicographically (each pre-activation
``alpha s + beta`` compared as ``(alpha, beta)``); the interval of that pattern along the line starts at the last
breakpoint (the largest ``s`` at which one of its neurons leaves its piece), and likewise at ``-inf``; the segment
between them, widened by one on each side, holds every breakpoint.

Examples
--------
>>> import polyregions as pr
>>> t = pr.trajectory(pr.sawtooth(3), [[0], [1]])
>>> t.regions, t.distinct_patterns, t.transitions > 0
(8, 8, True)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Any, Sequence

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Vector
from polyregions.exact.surds import SurdSum
from polyregions.regions._arguments import expect_network, expect_points

if TYPE_CHECKING:
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.network import Network
    from polyregions.regions.enumeration import Engine

__all__ = ["Piece", "Trajectory", "trajectory", "line_regions", "regions_along_lines"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class Piece:
    """A maximal interval of one segment of the polyline on which the activation pattern is constant.

    Attributes
    ----------
    segment : int
        The index of the segment (from ``points[segment]`` to ``points[segment + 1]``).
    start, end : Fraction
        The parameter interval on the segment (0 at its start, 1 at its end).
    pattern : tuple of int
    """

    segment: int
    start: Fraction
    end: Fraction
    pattern: tuple[int, ...]


@dataclass(frozen=True)
class Trajectory:
    """The pieces of a network along a polyline, in order.

    Returned by :func:`trajectory` (and :func:`line_regions`). Its counts are :attr:`regions` (maximal runs of
    constant pattern), :attr:`distinct_patterns`, :attr:`transitions` (also :meth:`transitions_per_layer`) and
    :meth:`linear_pieces`; its lengths after each layer are :meth:`lengths_exact` and :meth:`lengths`.

    Attributes
    ----------
    network : Network
        The network.
    points : tuple of Vector
        The polyline's vertices in input space.
    pieces : tuple of Piece
        The maximal intervals of constant pattern on each segment, in order along the curve.
    maps : tuple of Network
        The network restricted to each segment (``t -> N(points[i] + t (points[i+1] - points[i]))``).

    Examples
    --------
    The sawtooth of depth 3 crosses ``2^3`` regions on ``[0, 1]``, and its graph climbs 8 times by 1:

    >>> import polyregions as pr
    >>> t = pr.trajectory(pr.sawtooth(3), [[0], [1]])
    >>> t.regions, t.transitions_per_layer(), t.linear_pieces()
    (8, (1, 2, 4), 8)
    >>> [str(length) for length in t.lengths_exact()]
    ['1', 'sqrt(2)/2 + 1/2', 'sqrt(2) + 1', '2*sqrt(2) + 2', '8']
    """

    network: "Network"
    points: tuple[Vector, ...]
    pieces: tuple[Piece, ...]
    maps: tuple["Network", ...]

    @cached_property
    def runs(self) -> tuple[tuple[int, ...], ...]:
        """The patterns of the maximal runs of constant pattern along the curve."""
        out: list[tuple[int, ...]] = []
        for piece in self.pieces:
            if not out or out[-1] != piece.pattern:
                out.append(piece.pattern)
        return tuple(out)

    @property
    def regions(self) -> int:
        """The number of regions crossed (maximal runs of constant pattern)."""
        return len(self.runs)

    @property
    def distinct_patterns(self) -> int:
        """The number of different activation patterns along the curve."""
        return len(set(self.runs))

    def transitions_per_layer(self) -> tuple[int, ...]:
        """Neuron transitions along the curve, per layer with neurons."""
        layers = [layer for layer, _ in self.network.neurons]  # per neuron, its layer (or stage)
        bounds = [(layers.index(layer), len(layers) - layers[::-1].index(layer)) for layer in sorted(set(layers))]
        counts = [0] * len(bounds)
        for p, q in zip(self.runs, self.runs[1:]):
            for i, (a, b) in enumerate(bounds):
                counts[i] += sum(1 for u, v in zip(p[a:b], q[a:b]) if u != v)
        return tuple(counts)

    @property
    def transitions(self) -> int:
        """The total number of neuron transitions along the curve."""
        return sum(self.transitions_per_layer())

    def linear_pieces(self) -> int:
        """The number of maximal intervals of each segment on which the network along the segment is affine
        (consecutive pieces merge when the output's derivative along the segment is the same; joints of the
        polyline always start a new interval)."""
        count = 0
        previous = None
        for piece, derivative in zip(self.pieces, self._output_derivatives()):
            key = (piece.segment, derivative)
            if key != previous:
                count += 1
            previous = key
        return count

    def _output_derivatives(self) -> list[Vector]:
        out = []
        for piece in self.pieces:
            M, _ = self.maps[piece.segment].affine_map(piece.pattern)
            out.append(tuple(row[0] for row in M))
        return out

    @cached_property
    def _squared_speeds(self) -> tuple[tuple[Fraction, ...], ...]:
        """Per piece: ``|v_l|^2`` for layers ``0..L`` (the derivative of layer ``l``'s output along the segment)."""
        from polyregions.networks._neuron_maps import PatternMaps, integer_layers

        forms = {}
        result = []
        for piece in self.pieces:
            net = self.maps[piece.segment]
            if hasattr(net, "selection"):  # a graph network's stages
                result.append(_staged_squared_speeds(net, piece.pattern, self.points[piece.segment],
                                                     self.points[piece.segment + 1]))
                continue
            if piece.segment not in forms:
                forms[piece.segment] = integer_layers(net)
            maps = PatternMaps.of(net, piece.pattern, integer_form=forms[piece.segment])
            a, b = self.points[piece.segment], self.points[piece.segment + 1]
            speeds = [sum(((y - x) ** 2 for x, y in zip(a, b)), _ZERO)]
            position = 0
            for layer, (G, D) in zip(net.layers, maps.maps):
                act = layer.activation
                column = [Fraction(int(G[i, 0]), D) for i in range(layer.width)]
                if act.is_linear:
                    v = column
                else:
                    v = [act.slopes[k] * c for k, c in zip(piece.pattern[position:position + layer.width], column)]
                    position += layer.width
                speeds.append(sum((c * c for c in v), _ZERO))
            result.append(tuple(speeds))
        return tuple(result)

    def lengths_exact(self) -> tuple[SurdSum, ...]:
        """The exact length of the curve's image after each layer (entry 0: the input curve)."""
        layers = len(self.network.layers) + 1
        terms: list[list[SurdSum]] = [[] for _ in range(layers)]
        for piece, speeds in zip(self.pieces, self._squared_speeds):
            dt = piece.end - piece.start
            for l, s in enumerate(speeds):
                if s:
                    terms[l].append(SurdSum.sqrt(s) * dt)
        return tuple(SurdSum.total(t) for t in terms)

    def lengths(self) -> tuple[tuple[float, float], ...]:
        """``(length, error bound)`` after each layer (entry 0: the input curve)."""
        return tuple(v.bounds() for v in self.lengths_exact())


def _check_points(points: Any, n: int) -> tuple[Vector, ...]:
    from polyregions.exact.rationals import rational_vector

    if isinstance(points, (str, bytes)) or not hasattr(points, "__len__"):
        raise InvalidInputError(f"points: expected a list of at least two input points, got {points!r}")
    exact = tuple(rational_vector(p, what=f"points[{i}]", length=n) for i, p in enumerate(points))
    if len(exact) < 2:
        raise InvalidInputError(f"points: expected at least two input points, got {len(exact)}")
    for i in range(len(exact) - 1):
        if exact[i] == exact[i + 1]:
            raise InvalidInputError(f"points[{i + 1}]: expected a point other than points[{i}] "
                                    f"(a polyline segment of length zero), got the same point")
    return exact


def _segment_pieces(network: "Network", a: Vector, b: Vector, index: int, engine: Engine):
    from polyregions.regions.domains import segment
    from polyregions.regions.enumeration import enumerate_regions

    complex_ = enumerate_regions(network, segment(a, b), engine=engine)
    pieces = []
    for region in complex_.regions:
        lo, hi = _interval(region)
        pieces.append(Piece(index, lo, hi, region.pattern))
    pieces.sort(key=lambda p: p.start)
    return pieces, complex_.regions[0].network


def _interval(region) -> tuple[Fraction, Fraction]:
    lo, hi = Fraction(0), Fraction(1)
    for (a,), c in zip(region.A, region.b):
        if a > 0:
            hi = min(hi, c / a)
        elif a < 0:
            lo = max(lo, c / a)
    return lo, hi


def _staged_squared_speeds(net, pattern, a, b) -> tuple[Fraction, ...]:
    """``|v_s|^2`` for the input and each stage's output along the segment of a staged network on ``t``."""
    from flint import fmpq_mat

    pieces = net._check_pattern(pattern)
    speeds = [sum(((y - x) ** 2 for x, y in zip(a, b)), _ZERO)]
    v = fmpq_mat([[1]])
    position = 0
    for stage in net.layers:
        count = len(stage.neurons)
        units = stage.unit_maps(pieces[position:position + count])
        position += count
        # The stage's velocity W v (its non-zero weights only), then each unit's slope times its source's entry.
        table, _ = stage.products(range(len(stage.rows)), v, None)
        v = fmpq_mat([[slope * table[source][0]] for source, slope, _ in units])
        speeds.append(sum((Fraction(int(c.p), int(c.q)) ** 2 for c in v.entries()), _ZERO))
    return tuple(speeds)


def trajectory(network: "Network | GraphNetwork", points: Any, *, engine: Engine = "mesh") -> Trajectory:
    """The regions, transitions and lengths of ``network`` along the polyline through ``points``.

    Parameters
    ----------
    network : Network
        The network.
    points : sequence of at least two input points
        A segment (two points), or samples of a curve (read exactly; consecutive points must differ).
    engine : {"mesh", "lp"}, keyword-only
        The 1-D enumeration engine (both exact).

    Returns
    -------
    Trajectory
        The pieces along the curve, with their counts and lengths.

    Raises
    ------
    InvalidInputError
        When there are fewer than two points, a point has the wrong length or is not made of numbers, or two
        consecutive points are equal.

    Examples
    --------
    The curve ``-1 -> 2 -> 0`` crosses the breakpoints 0 and 1, then 1 again: four runs, three patterns.

    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(1, [([[1], [1]], [0, -1], "relu")])
    >>> t = pr.trajectory(net, [[-1], [2], [0]])
    >>> t.regions, t.distinct_patterns, t.transitions_per_layer()
    (4, 3, (3,))
    """
    network = expect_network(network)
    pts = _check_points(points, network.input_dim)
    pieces, maps = [], []
    for i in range(len(pts) - 1):
        seg, restricted = _segment_pieces(network, pts[i], pts[i + 1], i, engine)
        pieces.extend(seg)
        maps.append(restricted)
    return Trajectory(network, pts, tuple(pieces), tuple(maps))


def _end_interval(net: "Network", sign: int) -> Fraction | None:
    """For a network on ``R^1``: the finite end of the interval of the pattern at ``s -> sign * inf`` (the last
    breakpoint in that direction), or None when that pattern holds on the whole line.

    Layer by layer in integer form, each pre-activation ``(alpha s + beta)`` (a row ``(a, b) / D``) is compared
    with a breakpoint ``xi`` as the pair ``(sign a, b - xi D)``; the chosen pieces fix the next layer's map.
    """
    from flint import fmpz_mat

    from polyregions.networks._neuron_maps import _activate_rows, integer_layers

    H = fmpz_mat(2, 2, [1, 0, 0, 1])  # rows: [s; 1]
    end = None
    for layer in integer_layers(net):
        Z = layer.Wb * H
        entries = Z.entries()
        D = int(entries[-1])
        if layer.is_linear:
            H = Z
            continue
        pieces = []
        for i in range(layer.width):
            a, b = int(entries[2 * i]), int(entries[2 * i + 1])
            k = sum(1 for xi in layer.breakpoints if (sign * a, b * xi.denominator - xi.numerator * D) > (0, 0))
            pieces.append(k)
            if a == 0:
                continue
            # The neuron stays on piece k beyond the breakpoint next to it on the side it comes from.
            side = k - 1 if sign * a > 0 else k
            if 0 <= side < len(layer.breakpoints):
                s = (layer.breakpoints[side] * D - b) / a
                end = s if end is None else (max(end, s) if sign > 0 else min(end, s))
        # _activate_rows calls the closure within this iteration; the default binds this layer's pieces.
        H = fmpz_mat(layer.width + 1, 2, _activate_rows(entries, 2, lambda i, pieces=pieces: [pieces[i]] * 2, layer))
    return end


def line_regions(network: "Network", point: Any, *, through: Any = None, engine: Engine = "mesh") -> Trajectory:
    """The pieces of ``network`` along the whole line through ``through`` (default: the origin) and ``point``.

    Returns the trajectory over a segment of that line that holds every breakpoint, so its ``regions`` is the
    number of regions on the infinite line.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[1], [1]], [0, -5], "relu")])
    >>> line_regions(net, [1]).regions
    3
    """
    n = expect_network(network).input_dim
    p = _check_points([through if through is not None else [0] * n, point], n)
    origin, end = p
    direction = tuple(b - a for a, b in zip(origin, end))
    line = network.restrict(origin, [direction])
    top, bottom = _end_interval(line, -1), _end_interval(line, 1)
    if top is None or bottom is None:
        lo, hi = Fraction(-1), Fraction(1)  # one region on the whole line
    else:
        lo, hi = min(top, bottom) - 1, max(top, bottom) + 1
    a = tuple(o + lo * d for o, d in zip(origin, direction))
    b = tuple(o + hi * d for o, d in zip(origin, direction))
    return trajectory(network, [a, b], engine=engine)


def regions_along_lines(network: "Network", inputs: Sequence[Any], *, through: Any = None) -> list[int]:
    """The number of regions on each line through ``through`` (default: the origin) and an input.

    Hanin & Rolnick's Figure 5 plots their mean divided by the number of neurons.

    Parameters
    ----------
    network : Network
        The network.
    inputs : sequence of input points
        One line per input; each must differ from ``through``.
    through : sequence of numbers, optional, keyword-only
        The common point of the lines; the origin when omitted.

    Returns
    -------
    list of int
        The number of regions on each whole (infinite) line, counted exactly (see :func:`line_regions`).

    Raises
    ------
    InvalidInputError
        When a point has the wrong length, is not made of numbers, or equals ``through``.

    Examples
    --------
    The lines ``x = 1`` and ``y = 1``: the line through the origin and ``(1, 0)`` crosses only the first.

    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], [-1, -1], "relu")])
    >>> pr.regions_along_lines(net, [[1, 0], [1, 1], [1, 2]])
    [2, 2, 3]
    """
    points = expect_points(inputs, "inputs", dim=expect_network(network).input_dim)
    return [line_regions(network, x, through=through).regions for x in points]
