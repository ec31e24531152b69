"""Output maps of many regions at once, in floating point with a proven error bound.

On a region with a fixed pattern the network is affine. Writing it in homogeneous coordinates,
``H_0 = [I 0; 0 1]`` and ``H_l = D_l W_l H_{l-1} + e_l`` (``W_l`` the layer's weight with its bias as an extra
column, ``D_l`` the diagonal of the pieces' slopes, ``e_l`` their intercepts in the constant column), the map
is ``H_L``. In IEEE double precision with unit roundoff ``u = 2^-53`` and no overflow or underflow, each
inner product of length ``n`` carries an error of at most ``gamma_n |a|.|x|`` with
``gamma_n = n u / (1 - n u)`` (Higham, *Accuracy and Stability of Numerical Algorithms*, eq. 3.5); rounding the
exact rational weights, slopes and intercepts into doubles adds a relative error of at most ``u`` to each.
By induction the computed ``Ĥ_l`` satisfies ``|Ĥ_l - H_l| <= E_l`` with

    E_l = |D̂_l| |Ŵ_l| (E_{l-1} + gamma_{n+3} |Ĥ_{l-1}|) + u |ê_l|,

where ``n`` is the layer's fan-in (the extra 3 covers the rounding of ``W``, of ``D`` and of the bias column).
Results that fall below the normal range add an absolute error of at most ``2^-1074`` per operation, covered by
adding ``(n + 3) 2^-1000`` to every entry of ``E_l``. The bound itself is evaluated in floating point; multiplying
it by ``1 + 4 (n + 3) u`` per layer keeps it an upper bound. A parameter whose double is not within relative
``u`` of it (beyond the double range, or non-zero below the normal range) makes every bound infinite, and an
entry that overflowed proves nothing. A float answer is used only to prove two maps *different*; maps that may
be equal are compared exactly.

Two entries ``a``, ``b`` with bounds ``e_a``, ``e_b`` differ when ``|a - b| > e_a + e_b``; evaluated in floating
point, ``fl(|a - b|) > fl(e_a + e_b)`` proves it, since rounding to nearest is monotone.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

from polyregions.networks.stage import piece_columns, units_of

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["float_output_maps", "maps_certainly_differ", "certainly_differ"]

_U = 2.0 ** -53
_SMALLEST_NORMAL = 2.0 ** -1022
_ENTRIES = 1 << 22  # entries of the largest array of one block of regions


def _gamma(n: int) -> float:
    return n * _U / (1 - n * _U)


def float_output_maps(net: "Network", patterns: Sequence[Sequence[int]] | np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Float output maps ``[M | c]`` of the given patterns and entrywise error bounds, both of shape
    ``(regions, output_dim, input_dim + 1)``, for a dense network or a graph network's stages.

    A stage's unit is its own row of ``W H`` times its piece's slope (an element-wise unit, each with its own
    activation) or the row of the value a max unit selects, taken as it is (slope exactly 1, intercept 0: fewer
    roundings than the bound allows for).
    """
    k = net.input_dim
    R = len(patterns)
    piece_table = np.asarray(patterns, dtype=np.int64).reshape(R, -1)
    block = max(1, _ENTRIES // ((max(len(layer.bias) for layer in net.layers) + 1) * (k + 1)))
    if R > block:  # a few tens of megabytes per array, however wide the layers
        parts = [float_output_maps(net, piece_table[start:start + block]) for start in range(0, R, block)]
        return np.concatenate([m for m, _ in parts]), np.concatenate([e for _, e in parts])
    H = np.broadcast_to(np.eye(k + 1), (R, k + 1, k + 1)).copy()  # rows: layer values, columns: t and 1
    E = np.zeros_like(H)
    position = 0
    for layer in net.layers:
        n = len(layer.weight[0]) if layer.weight else 0
        W = _doubles([v for row, bj in zip(layer.weight, layer.bias) for v in (*row, bj)])
        units = _units(layer, piece_table[:, position:])
        if W is None or units is None:
            shape = (R, net.output_dim, k + 1)
            return np.zeros(shape), np.full(shape, np.inf)
        rows, D, e, used = units
        position += used
        W = W.reshape(len(layer.bias), n + 1)
        # Rows of the homogeneous state: the layer's values, then the constant 1 (kept exactly).
        values = D[:, :, None] * _rows(W @ H, rows)
        values[:, :, k] += e
        bound = np.abs(D)[:, :, None] * _rows(np.abs(W) @ (E + _gamma(n + 3) * np.abs(H)), rows)
        bound[:, :, k] += _U * np.abs(e)
        bound += (n + 3) * 2.0 ** -1000
        bound *= 1 + 4 * (n + 3) * _U
        H = np.concatenate([values, np.broadcast_to(np.eye(1, k + 1, k), (R, 1, k + 1))], axis=1)
        E = np.concatenate([bound, np.zeros((R, 1, k + 1))], axis=1)
    return H[:, :-1, :], E[:, :-1, :]


def _rows(Z: np.ndarray, rows: np.ndarray | None) -> np.ndarray:
    """The rows ``rows[r]`` of each region's ``Z[r]`` (all of them when ``rows`` is None)."""
    return Z if rows is None else np.take_along_axis(Z, rows[:, :, None], axis=1)


def _units(layer, pieces: np.ndarray) -> tuple[np.ndarray | None, np.ndarray, np.ndarray, int] | None:
    """For a dense layer or a stage, with the regions' pieces from its first neuron on: which row of ``W H``
    each unit reads per region (None: row ``i`` for unit ``i``), the doubles of its slope and intercept per
    region, and how many columns of ``pieces`` the layer's neurons take; None when a parameter is out of the
    double range."""
    R = len(pieces)
    activations, groups = units_of(layer)
    columns = piece_columns(activations, groups)
    width = len(columns)
    D, e = np.ones((R, width)), np.zeros((R, width))
    column = sum(c >= 0 for c in columns[:len(activations)])  # the pattern columns the element-wise units take
    by_activation: dict = {}
    for i, activation in enumerate(activations):
        flat, varying = by_activation.setdefault(activation, ([], []))
        if columns[i] < 0:
            flat.append(i)
        else:
            varying.append((i, columns[i]))
    for activation, (flat, varying) in by_activation.items():
        slopes = _doubles(activation.slopes)
        intercepts = _doubles([activation.piece_map(p)[1] for p in range(len(activation.slopes))])
        if slopes is None or intercepts is None:
            return None
        if flat:
            D[:, flat], e[:, flat] = slopes[0], intercepts[0]
        if varying:
            units, taken = map(list, zip(*varying))
            D[:, units], e[:, units] = slopes[pieces[:, taken]], intercepts[pieces[:, taken]]
    if not groups:
        return None, D, e, column
    rows = np.broadcast_to(np.arange(width), (R, width)).copy()
    longest = max(map(len, groups))
    members = np.array([group + (group[0],) * (longest - len(group)) for group in groups])
    rows[:, len(activations):] = members[np.arange(len(groups)), pieces[:, column:column + len(groups)]]
    return rows, D, e, column + len(groups)


def maps_certainly_differ(maps: np.ndarray, bounds: np.ndarray, i: int, j: int) -> bool:
    """Whether the float maps of regions i and j prove the exact maps different."""
    return bool(certainly_differ(maps, bounds, np.array([i]), np.array([j]))[0])


def certainly_differ(maps: np.ndarray, bounds: np.ndarray, first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """For every pair ``(first[e], second[e])`` of regions, whether their float maps prove the exact maps
    different (a boolean array).

    Examples
    --------
    >>> maps = np.array([[[1.0, 0.0]], [[1.0, 0.0]], [[2.0, 0.0]]])
    >>> certainly_differ(maps, np.full_like(maps, 1e-15), np.array([0, 0]), np.array([1, 2])).tolist()
    [False, True]
    """
    a, b = maps[first], maps[second]
    with np.errstate(all="ignore"):
        finite = np.isfinite(a) & np.isfinite(b)  # an overflow leaves the error analysis
        apart = np.abs(a - b) > bounds[first] + bounds[second]
    return (finite & apart).reshape(len(a), -1).any(axis=1)


def _doubles(values: Sequence) -> np.ndarray | None:
    """The doubles nearest to exact rationals, or None when one of them is not within relative ``u`` of its
    rational: beyond the double range, or non-zero below the normal range."""
    try:
        doubles = np.array([float(v) for v in values], dtype=float)
    except OverflowError:
        return None
    nonzero = np.array([v != 0 for v in values], dtype=bool)
    if not np.isfinite(doubles).all() or np.any(nonzero & (np.abs(doubles) < _SMALLEST_NORMAL)):
        return None
    return doubles
