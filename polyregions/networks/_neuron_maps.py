"""Exact pre-activations in integer arithmetic: affine maps on one region, and values at many rational points.

With the pattern fixed, layer ``l``'s pre-activations are an affine map ``z_l(x) = G_l [x; 1] / D_l`` of the input,
with an integer matrix ``G_l`` and a positive integer ``D_l`` (:class:`PatternMaps`). By continuity the map of a
pattern gives the exact pre-activations on the closure of its region. :func:`exact_preactivations` evaluates the
network exactly at many rational points at once, each point a column ``[X; W]`` of homogeneous integers.

Both run on FLINT integer matrices (``fmpz_mat``), about twenty times faster than rational matrices, whose entries
each carry their own denominator.

Examples
--------
>>> from polyregions.networks.network import Network
>>> net = Network.from_layers(1, [([[2], [-1]], ["1/2", 0], "relu"), ([[1, 1]], [0], "relu")])
>>> maps = PatternMaps.of(net, (1, 0, 1))
>>> maps.value(1, 0, [3]), net.preactivations([3])[1][0]
(Fraction(13, 2), Fraction(13, 2))
>>> exact_preactivations(net, [[3], [Fraction(-1, 4)]])[1]
((Fraction(0, 1), Fraction(1, 4)), (Fraction(1, 4),))
"""

from __future__ import annotations

import bisect
import weakref
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from flint import fmpz_mat

from polyregions.errors import InvalidInputError
from polyregions.exact._integers import lcm
from polyregions.exact.linalg import Vector
from polyregions.exact.rationals import rational_vector

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["PatternMaps", "integer_layers", "exact_preactivations", "tight_neurons"]


@dataclass(frozen=True)
class IntegerLayer:
    """One layer as integers: ``[[d W | d b], [0 ... 0 d]]`` and the activation over common denominators."""

    Wb: fmpz_mat          # (width + 1, fan_in + 1)
    d: int
    slopes: tuple[int, ...]
    dq: int
    intercepts: tuple[int, ...]
    dp: int
    breakpoints: tuple[Fraction, ...]
    is_linear: bool
    width: int

    def pieces_are_01(self) -> bool:
        return self.dq == self.dp == 1 and all(p == 0 for p in self.intercepts) and set(self.slopes) <= {0, 1}


_CACHE: dict[int, tuple[weakref.ref, IntegerLayer]] = {}


def _integer_layer(layer) -> IntegerLayer:
    """The integer form of one layer, cached per layer object (restricted networks share all layers but the
    first with the original)."""
    key = id(layer)
    hit = _CACHE.get(key)
    if hit is not None and hit[0]() is layer:
        return hit[1]
    values = [v for row in layer.weight for v in row] + list(layer.bias)
    d = lcm(values)
    rows = [[v.numerator * (d // v.denominator) for v in row] + [bj.numerator * (d // bj.denominator)]
            for row, bj in zip(layer.weight, layer.bias)]
    rows.append([0] * layer.fan_in + [d])
    act = layer.activation
    dq, dp = lcm(act.slopes), lcm(act.intercepts)
    result = IntegerLayer(fmpz_mat(rows), d, tuple(int(q * dq) for q in act.slopes), dq,
                          tuple(int(p * dp) for p in act.intercepts), dp, act.breakpoints, act.is_linear,
                          layer.width)

    def evict(_: object) -> None:
        _CACHE.pop(key, None)

    try:
        ref = weakref.ref(layer, evict)
    except TypeError:  # pragma: no cover - layers always support weak references
        return result
    _CACHE[key] = (ref, result)
    return result


def integer_layers(net: "Network") -> tuple[IntegerLayer, ...]:
    """The layers of ``net`` in integer form (cached per layer object)."""
    return tuple(_integer_layer(layer) for layer in net.layers)


def _activate_rows(entries: list, cols: int, pieces_of_row, layer: IntegerLayer) -> list:
    """The entries of ``[h; 1]`` from those of ``[z; 1]`` (rows of ``cols`` integers, the last row the common
    denominators), with ``pieces_of_row(i)`` the piece of every column of row ``i``."""
    width = layer.width
    last = entries[width * cols:(width + 1) * cols]
    out: list = []
    if layer.is_linear:
        return entries
    simple = layer.pieces_are_01()
    for i in range(width):
        row = entries[i * cols:(i + 1) * cols]
        pieces = pieces_of_row(i)
        if simple:
            out.extend(v if layer.slopes[p] else 0 for v, p in zip(row, pieces))
            continue
        # (q / dq) (v / c) + p / dp over the common denominator dq dp c
        out.extend(v * (layer.slopes[p] * layer.dp) + layer.intercepts[p] * layer.dq * c
                   for v, p, c in zip(row, pieces, last))
    if simple:
        out.extend(last)
    else:
        out.extend(c * layer.dq * layer.dp for c in last)
    return out


@dataclass(frozen=True)
class PatternMaps:
    """The exact pre-activation maps ``z_l(x) = G_l [x; 1] / D_l`` of every layer for one pattern.

    Attributes
    ----------
    pattern : tuple of int
    maps : tuple of (fmpz_mat, int)
        ``(G_l, D_l)`` per layer (affine layers included); ``G_l`` has ``width_l`` rows and ``input_dim + 1``
        columns.
    """

    pattern: tuple[int, ...]
    maps: tuple[tuple[fmpz_mat, int], ...]

    @classmethod
    def of(cls, net: "Network", pattern: Sequence[int], *, layers: int | None = None,
           integer_form: tuple[IntegerLayer, ...] | None = None) -> "PatternMaps":
        """Build the maps of the first ``layers`` layers (all by default) for ``pattern``.

        ``integer_form`` may pass ``integer_layers(net)`` to share it between calls.
        """
        pattern = tuple(int(p) for p in pattern)
        if len(pattern) != net.num_neurons:
            raise InvalidInputError(f"pattern: expected {net.num_neurons} piece indices, got {len(pattern)}")
        data = integer_form if integer_form is not None else integer_layers(net)
        k = net.input_dim
        cols = k + 1
        H = fmpz_mat(cols, cols, [int(i == j) for i in range(cols) for j in range(cols)])  # [x; 1]
        maps = []
        position = 0
        for layer in data[:len(data) if layers is None else layers]:
            Z = layer.Wb * H  # [z; 1] times the common denominator in the last row
            entries = Z.entries()
            D = int(entries[-1])
            maps.append((fmpz_mat(layer.width, cols, entries[:layer.width * cols]), D))
            if layer.is_linear:
                H = Z
                continue
            pieces = pattern[position:position + layer.width]
            position += layer.width
            # Called within this iteration only; the default binding makes that explicit.
            H = fmpz_mat(layer.width + 1, cols,
                         _activate_rows(entries, cols, lambda i, pieces=pieces: [pieces[i]] * cols, layer))
        return cls(pattern, tuple(maps))

    def row(self, layer: int, unit: int) -> tuple[tuple[int, ...], int]:
        """``(g, D)``: the pre-activation of ``unit`` in ``layer`` is ``(g[:-1] . x + g[-1]) / D``."""
        G, D = self.maps[layer]
        cols = G.ncols()
        return tuple(int(G[unit, j]) for j in range(cols)), D

    def value(self, layer: int, unit: int, point: Sequence) -> Fraction:
        """The exact pre-activation of ``unit`` in ``layer`` at ``point`` (on the closure of the region)."""
        g, D = self.row(layer, unit)
        x = [Fraction(v) for v in point]
        return (sum((gi * xi for gi, xi in zip(g, x)), Fraction(0)) + g[-1]) / D

    def gradient(self, layer: int, unit: int) -> Vector:
        """The exact gradient of the pre-activation of ``unit`` in ``layer``."""
        g, D = self.row(layer, unit)
        return tuple(Fraction(v, D) for v in g[:-1])


def _homogeneous(points: Sequence[Sequence], k: int) -> tuple[list[int], int]:
    """Column-major entries of the ``(k + 1) x n`` integer matrix of the points ``[X; W]``, row by row."""
    columns = []
    for p in points:
        x = p if isinstance(p, tuple) and all(type(v) is Fraction for v in p) else \
            rational_vector(p, what="point", length=k)
        if len(x) != k:
            raise InvalidInputError(f"point: expected {k} coordinates, got {len(x)}")
        w = lcm(x)
        columns.append([int(v * w) for v in x] + [w])
    n = len(columns)
    return [columns[j][i] for i in range(k + 1) for j in range(n)], n


def _integer_preactivations(net: "Network", points: Sequence[Sequence], data=None):
    """Per layer, the entries of ``[z; c]`` (``width + 1`` rows of ``n`` integers; ``z = row / c`` columnwise)."""
    data = data if data is not None else integer_layers(net)
    entries, n = _homogeneous(points, net.input_dim)
    H = fmpz_mat(net.input_dim + 1, n, entries) if n else None
    out: list[list] = []
    for layer in data:
        if n == 0:
            out.append([])
            continue
        Z = layer.Wb * H
        entries = Z.entries()  # fmpz objects: converting to int and back would cost more than the product
        out.append(entries)
        if layer.is_linear:
            H = Z
            continue
        last = entries[layer.width * n:]
        xi = layer.breakpoints

        def pieces_of_row(i, entries=entries, last=last, xi=xi):
            row = entries[i * n:(i + 1) * n]
            if xi == (0,):
                return [int(v > 0) for v in row]
            return [bisect.bisect_left(xi, Fraction(int(v), int(c))) for v, c in zip(row, last)]
        H = fmpz_mat(layer.width + 1, n, _activate_rows(entries, n, pieces_of_row, layer))
    return out, n


def exact_preactivations(net: "Network", points: Sequence[Sequence]) -> tuple[tuple[tuple[Fraction, ...], ...], ...]:
    """The exact pre-activations of every layer at every point: ``result[i][l]`` is layer ``l`` at ``points[i]``.

    One integer matrix product per layer for all points together.
    """
    per_layer, n = _integer_preactivations(net, points)
    result: list[list[tuple[Fraction, ...]]] = [[] for _ in range(n)]
    for layer, entries in zip(net.layers, per_layer):
        w = layer.width
        last = entries[w * n:]
        for j in range(n):
            c = int(last[j])
            result[j].append(tuple(Fraction(int(entries[i * n + j]), c) for i in range(w)))
    return tuple(tuple(r) for r in result)


def tight_neurons(net: "Network", points: Sequence[Sequence]) -> list[frozenset[int]]:
    """For every point, the neurons (indices in ``net.neurons`` order) whose pre-activation is exactly at one of
    their breakpoints there.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])
    >>> tight_neurons(net, [[0, 1], [0, 0], [1, 1]])
    [frozenset({0}), frozenset({0, 1}), frozenset()]
    """
    if hasattr(net, "tight_neurons"):  # a graph network's stages (max units among them)
        return net.tight_neurons(points)
    per_layer, n = _integer_preactivations(net, points)
    found: list[set[int]] = [set() for _ in range(n)]
    base = 0
    for layer, entries in zip(net.layers, per_layer):
        if layer.activation.is_linear:
            continue
        w = layer.width
        last = entries[w * n:]
        for xi in layer.activation.breakpoints:
            num, den = xi.numerator, xi.denominator
            for i in range(w):
                row = entries[i * n:(i + 1) * n]
                hits = ([j for j, v in enumerate(row) if not v] if num == 0 else
                        [j for j, (v, c) in enumerate(zip(row, last)) if v * den == num * c])
                for j in hits:
                    found[j].add(base + i)
        base += w
    return [frozenset(s) for s in found]
