"""Linear regions from the adjacency: which neighbouring activation regions share their output map.

Two regions that share a facet differ in known neurons (the adjacency's labels). When exactly one neuron ``u``
switches, from piece ``p`` (``s t + c``) to piece ``p'`` (``s' t + c'``), the layers before ``u``'s are on the
same pieces on both sides, so ``u``'s pre-activation ``z_u`` is the same affine function there; the layers after
are on the same pieces too, so the output is the same affine function ``A`` of ``u``'s layer's activations
``h``. The output maps therefore differ by ``g_u ((s - s') z_u + (c - c'))``, with ``g_u`` the column of ``A``'s
linear part for ``u`` (the gradient of the output with respect to ``h_u``). ``z_u`` is not constant on the
domain (it takes values in two disjoint open pieces on the two regions), so the second factor is a non-zero
affine function unless the two pieces are one function; the maps are equal exactly when ``g_u = 0`` or the pieces
are equal. Regions that differ in several neurons are compared by their whole output maps.

Float gradients with a proven bound
-----------------------------------
``g_u`` is pushed forward from the unit vector ``e_u``: ``v_l = e_u`` and ``v_m = D_m W_m v_{m-1}`` through the
later layers (``W_m`` the weights, ``D_m`` the diagonal of the pieces' slopes), ``g_u = v_L``. In IEEE double
precision (unit roundoff ``u = 2^-53``, ``gamma_n = n u / (1 - n u)``) with ``Ŵ``, ``D̂`` the doubles nearest
to the exact weights and slopes, each within relative ``u`` of them (``|W| <= |Ŵ| / (1 - u)``; a parameter
beyond the double range or non-zero below the normal range makes every bound infinite), the computed
``v̂_m = fl(D̂ fl(Ŵ v̂_{m-1}))`` has entries ``v̂_{m,i} = sum_j D_i W_ij v̂_j (1 + phi_ij)`` with
``|phi_ij| <= gamma_{n+3}`` (an inner product of ``n`` terms in any order, Higham, *Accuracy and Stability of
Numerical Algorithms*, eq. 3.5 and lemma 3.1, then the roundings of ``W``, ``D`` and of the product by ``D``), so
that with ``n`` the layer's fan-in and ``E_l = 0``

    |v̂_m - v_m| <= E_m := (1 - u)^-2 |D̂| |Ŵ| (E_{m-1} + gamma_{n+3} |v̂_{m-1}|) + tau_m.           (1)

``tau_m`` covers underflow: a product that underflows adds at most ``2^-1075`` (additions of subnormals are
exact), later multiplied by at most ``1 + gamma_{n+1} <= 2``, so ``tau_m = (n + 2) 2^-1000`` in every entry whose
slope is non-zero and whose row has a product ``Ŵ_ij v̂_j`` that may be non-zero (``Ŵ_ij != 0`` and ``v̂_j``
or ``E_{m-1,j}`` non-zero); elsewhere the entry is exactly zero in both computations, ``tau = 0``. The same
``tau`` covers the underflow of the bound's own evaluation (each lost term is below ``2^-1074``).

Two filters use (1). The *screen*, for every pair: with ``sigma_m = max |D̂|`` over the layer's pieces and
``rho_m = max_i sum_j |Ŵ_ij|``, the scalars ``e_m >= max_i E_{m,i}`` and ``a_m = max_j |v̂_{m,j}|`` follow

    e_m = (1 - u)^-2 sigma_m rho_m (e_{m-1} + gamma_{n+3} a_{m-1}) + (n + 2) 2^-1000,   e_l = 0, a_l = 1,  (2)

at the cost of one matrix product per layer (the values) and two reductions; ``a_L > e_L`` proves
``g_u != 0``. Since ``e_L`` bounds the error of every output and one proven non-zero output suffices, the last
layer computes a fixed sample of at most 16 outputs only (a product with 16 columns instead of ``output_dim``).
The pairs it leaves get (1) entrywise (a second product, with ``|Ŵ|``): ``|ĝ_k| > E_k`` for some output ``k``
proves ``g_u != 0``; ``ĝ = 0`` with ``E = 0`` in every entry proves ``g_u = 0`` (structural zeros:
dead or disconnected paths, where every product is exactly zero). A non-finite value or bound proves nothing
(after an overflow the error model says nothing). Both bounds are evaluated in floating point: at most
``n + 12`` roundings of non-negative terms (``gamma`` itself included), each downward by a factor no smaller than
``1 - u``, so multiplying by ``kappa_n = 1 + 4 (n + 14) u >= (1 - u)^-2 / (1 - gamma_{n+12})`` keeps them upper
bounds (for ``n u <= 2^-20``). Every other pair is decided exactly: the same forward push in integers (weights
times their common denominator, slopes times theirs; positive scales do not change whether a vector is zero).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Sequence

import numpy as np

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["DIFFERENT", "EQUAL", "UNDECIDED", "screen_different", "switch_gradients", "single_switch_equal",
           "maps_equal", "component_roots", "linear_region_roots"]

_U = 2.0 ** -53
_TINY = 2.0 ** -1000
_CHUNK = 8192  # edges per float batch: a few megabytes per array

#: Outcomes of the float filter for one pair of regions.
DIFFERENT, EQUAL, UNDECIDED = 0, 1, 2


def _gamma(n: int) -> float:
    return n * _U / (1 - n * _U)


def _kappa(n: int) -> float:
    return 1 + 4 * (n + 14) * _U


class _Layout:
    """Where each layer's neurons sit in a pattern, and the float copies of the layers (None when a parameter
    has no double within relative ``u``)."""

    def __init__(self, net: "Network"):
        self.net = net
        self.offsets: list[int | None] = []         # pattern column of each layer's first unit; None: affine
        self.weights: list[np.ndarray | None] = []  # Ŵ
        self.columns: list[np.ndarray | None] = []  # Ŵ transposed (contiguous): a unit's outgoing weights
        self.full: list[bool] = []                  # Ŵ has no zero entry
        self.rows: list[np.ndarray | None] = []     # sum_j |Ŵ_ij| per row
        self.slopes: list[np.ndarray | None] = []
        self.screen: list[float] = []               # kappa_n sigma_m rho_m of (2); infinite without doubles
        layer_of: list[int] = []
        unit_of: list[int] = []
        position = 0
        for q, layer in enumerate(net.layers):
            if layer.activation.is_linear:
                self.offsets.append(None)
            else:
                self.offsets.append(position)
                layer_of += [q] * layer.width
                unit_of += range(layer.width)
                position += layer.width
            W = _checked(layer.weight_doubles, layer.weight)
            slopes = _doubles([layer.activation.slopes], 1, layer.activation.num_pieces)
            if W is None or slopes is None:
                for listed in (self.weights, self.columns, self.rows, self.slopes):
                    listed.append(None)
                self.full.append(False)
                self.screen.append(np.inf)
                continue
            slopes = slopes[0]
            rows = np.abs(W).sum(axis=1)
            self.weights.append(W)
            self.columns.append(np.ascontiguousarray(W.T))
            self.full.append(bool(W.all()))
            self.rows.append(rows)
            self.slopes.append(slopes)
            with np.errstate(over="ignore"):
                self.screen.append(_kappa(layer.fan_in) * float(np.abs(slopes).max()) * float(rows.max(initial=0.0)))
        self.layer_of = np.array(layer_of, dtype=np.int64)
        self.unit_of = np.array(unit_of, dtype=np.int64)
        # The outputs the screen computes: all of few, an evenly spread sample of many.
        out = net.output_dim
        self.probe = np.arange(out)[::-(-out // 16)]
        last = self.columns[-1]
        self.probe_columns = None if last is None else np.ascontiguousarray(last[:, self.probe])

    def pieces(self, q: int, rows: np.ndarray) -> np.ndarray:
        """Layer ``q``'s pieces in the given pattern rows (zeros for an affine layer)."""
        offset = self.offsets[q]
        width = self.net.layers[q].width
        if offset is None:
            return np.zeros((rows.shape[0], width), dtype=np.int64)
        return rows[:, offset:offset + width]

    def slopes_of(self, q: int, rows: np.ndarray, units: np.ndarray | None = None) -> np.ndarray:
        """``D̂``: layer ``q``'s float slopes on the pieces of the given pattern rows (layer ``q`` has doubles),
        of all units or of the given ``units``; for ReLU's slopes 0 and 1, the pieces themselves (integers, equal
        to the slopes, and products with them are the same doubles)."""
        slopes = self.slopes[q]
        assert slopes is not None  # asked only of layers whose parameters have doubles
        pieces = self.pieces(q, rows)
        if units is not None:
            pieces = pieces[:, units]
        if slopes.size == 2:  # the common case, and several times faster than a gather
            if slopes[0] == 0.0 and slopes[1] == 1.0:  # ReLU's slopes are its pieces: the same products, exactly
                return pieces
            return np.where(pieces != 0, slopes[1], slopes[0])
        return np.take(slopes, pieces)


def _doubles(matrix: Sequence[Sequence], height: int, width: int) -> np.ndarray | None:
    """The doubles nearest to a matrix of Fractions, or None when one of them is not within relative ``u`` of its
    rational: beyond the double range, or non-zero below the normal range (a zero double must be an exact zero)."""
    try:
        # int / int is correctly rounded, and quicker than float(Fraction)
        doubles = np.array([[v.numerator / v.denominator for v in row] for row in matrix],
                           dtype=np.float64).reshape(height, width)
    except OverflowError:
        return None
    return _checked(doubles, matrix)


def _checked(doubles: np.ndarray, matrix: Sequence[Sequence]) -> np.ndarray | None:
    """``doubles``, the nearest doubles to the Fractions of ``matrix``, or None when one of them is not within
    relative ``u`` of its rational (as :func:`_doubles`)."""
    magnitude = np.abs(doubles)
    if not np.isfinite(doubles).all() or ((magnitude > 0) & (magnitude < 2.0 ** -1022)).any():
        return None
    if any(matrix[i][j] != 0 for i, j in zip(*np.nonzero(doubles == 0))):
        return None
    return doubles


def screen_different(net: "Network", rows: np.ndarray, layer: int, units: np.ndarray, *,
                     layout: _Layout | None = None) -> np.ndarray:
    """Whether the screen (2) proves ``g_u != 0`` for each of ``units`` of ``layer``, the later layers on the
    pieces of the pattern ``rows`` (one row per unit); False proves nothing.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[1], [1]], [0, 0], "relu"), ([[1, 0]], [0], "linear")])
    >>> screen_different(net, np.array([[1, 1], [1, 1]]), 0, np.array([0, 1])).tolist()
    [True, False]
    """
    layout = layout or _Layout(net)
    count = units.size
    a, e = np.ones(count), np.zeros(count)
    V: np.ndarray | None = None
    last = len(net.layers) - 1
    with np.errstate(all="ignore"):
        for m in range(layer + 1, len(net.layers)):
            columns, slopes = layout.columns[m], layout.slopes[m]
            if columns is None or slopes is None:
                return np.zeros(count, dtype=bool)
            sample = layout.probe if m == last else None
            if sample is not None:
                assert layout.probe_columns is not None  # the last layer has doubles
                columns = layout.probe_columns
            n = net.layers[m].fan_in
            Y = columns[units] if V is None else V @ columns
            V = np.multiply(Y, layout.slopes_of(m, rows, sample), out=Y)
            e = layout.screen[m] * (e + _gamma(n + 3) * a) + (n + 2) * _TINY
            a = np.abs(V).max(axis=1, initial=0.0)  # NaN stays NaN
    return (a > e) & np.isfinite(a) & np.isfinite(e)


def switch_gradients(net: "Network", rows: np.ndarray, layer: int, units: np.ndarray, *,
                     layout: _Layout | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Float gradients ``ĝ`` of the output with respect to the activations of ``units`` of ``layer``, with the
    later layers on the pieces of the pattern ``rows`` (one row per unit), and the bounds (1) with
    ``|ĝ - g| <= E`` entrywise (a non-finite entry proves nothing); both of shape ``(len(units), output_dim)``.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[1], [1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
    >>> g, bound = switch_gradients(net, np.array([[1, 1], [1, 1]]), 0, np.array([0, 1]))
    >>> g.tolist(), bool(bound.max() < 1e-15)
    ([[1.0], [-1.0]], True)
    """
    layout = layout or _Layout(net)
    count = units.size
    width = net.layers[layer].width
    V = np.zeros((count, width))
    V[np.arange(count), units] = 1.0
    E = np.zeros((count, width))
    valid = np.ones(count, dtype=bool)
    one_hot = True
    for m in range(layer + 1, len(net.layers)):
        W, columns, slopes = layout.weights[m], layout.columns[m], layout.slopes[m]
        n = net.layers[m].fan_in
        if W is None or columns is None or slopes is None:
            shape = (count, net.output_dim)
            return np.zeros(shape), np.full(shape, np.inf)
        D = layout.slopes_of(m, rows)
        with np.errstate(all="ignore"):
            if one_hot:
                # v̂ = e_u exactly and E = 0: (1) with the column of Ŵ for each unit.
                Y = columns[units]
                bound = _kappa(n) * _gamma(n + 3) * np.abs(D) * np.abs(Y)
                live = Y != 0
            else:
                Y = V @ columns
                bound = _kappa(n) * np.abs(D) * ((E + _gamma(n + 3) * np.abs(V)) @ np.abs(columns))
                nonzero = (V != 0) | (E != 0)
                if layout.full[m]:  # no zero weight: a non-zero input reaches every unit
                    live = nonzero.any(axis=1, keepdims=True)
                else:
                    live = nonzero.astype(float) @ (columns != 0).astype(float) > 0  # exact counts
            bound += (n + 2) * _TINY * ((D != 0) & live)
            V = D * Y
        E = bound
        valid &= np.isfinite(V).all(axis=1) & np.isfinite(E).all(axis=1)
        one_hot = False
    E[~valid] = np.inf
    return V, E


def _classify(g: np.ndarray, bound: np.ndarray) -> np.ndarray:
    """DIFFERENT where some entry is proven non-zero, EQUAL where every entry is proven zero, else UNDECIDED."""
    with np.errstate(invalid="ignore"):
        nonzero = (np.abs(g) > bound).any(axis=1)  # a NaN compares False: it proves nothing
        zero = ((g == 0) & (bound == 0)).all(axis=1)
    return np.where(nonzero, DIFFERENT, np.where(zero, EQUAL, UNDECIDED))


def _exact_zero_gradients(net: "Network", layout: _Layout, rows: np.ndarray, layer: int,
                          units: Sequence[int]) -> list[bool]:
    """Whether each ``g_u`` is exactly zero: the forward push of ``e_u`` in integers (FLINT matrices)."""
    from flint import fmpz_mat

    from polyregions.networks._neuron_maps import integer_layers

    data = integer_layers(net)
    count = len(units)
    width = net.layers[layer].width
    entries = [0] * (width * count)  # row-major: entry (i, e) at i * count + e
    for e, unit in enumerate(units):
        entries[unit * count + e] = 1
    for m in range(layer + 1, len(net.layers)):
        integer = data[m]
        V = fmpz_mat(integer.Wb.ncols(), count, entries + [0] * count)  # a zero last row: no bias
        Z = (integer.Wb * V).entries()
        pieces = layout.pieces(m, rows).tolist()
        slopes = integer.slopes
        entries = [Z[i * count + e] * slopes[pieces[e][i]] for i in range(integer.width) for e in range(count)]
    return [not any(entries[i * count + e] for i in range(len(entries) // count)) for e in range(count)]


def _layers_present(layer_of: np.ndarray) -> list[int]:
    """The distinct layer indices in ``layer_of``, increasing (``np.unique`` without its check for masked arrays,
    whose first use imports ``numpy.ma``: milliseconds of a short run)."""
    return np.flatnonzero(np.bincount(layer_of)).tolist()


def single_switch_equal(net: "Network", patterns: np.ndarray, pairs: np.ndarray, neurons: np.ndarray,
                        *, layout: _Layout | None = None) -> np.ndarray:
    """Whether each pair of adjacent regions ``pairs[e]`` (pattern rows), which differ in the one neuron
    ``neurons[e]`` only, has the same output map (exact; a boolean array).

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[1], [1]], [0, 0], "relu"), ([[1, 0]], [0], "linear")])
    >>> patterns = np.array([[0, 0], [1, 0], [0, 1]])
    >>> single_switch_equal(net, patterns, np.array([[0, 1], [0, 2]]), np.array([0, 1])).tolist()
    [False, True]
    """
    layout = layout or _Layout(net)
    count = len(pairs)
    equal = np.zeros(count, dtype=bool)
    if count == 0:
        return equal
    layer_of, unit_of = layout.layer_of[neurons], layout.unit_of[neurons]
    # Pieces that are one function (never two distinct pieces of a valid activation) keep the map.
    same_piece = np.zeros(count, dtype=bool)
    for q in _layers_present(layer_of):
        act = net.layers[q].activation
        # One id per distinct (slope, intercept): two pieces are one function exactly when their ids agree
        # (a table of all pairs would be quadratic in the pieces, 4 million comparisons for 2,000 breakpoints).
        ids: dict = {}
        piece_id = np.array([ids.setdefault(piece, len(ids)) for piece in zip(act.slopes, act.intercepts)])
        sel = np.flatnonzero(layer_of == q)
        same_piece[sel] = (piece_id[patterns[pairs[sel, 0], neurons[sel]]]
                           == piece_id[patterns[pairs[sel, 1], neurons[sel]]])
    equal[same_piece] = True
    todo = np.flatnonzero(~same_piece)
    screening = True
    # From the last layer back: the screen's scalar bound grows with the layers after the switch, so once it
    # leaves most pairs of a chunk open it is skipped for the rest (the entrywise bound decides all it would have).
    for q in reversed(_layers_present(layer_of[todo])):
        group = todo[layer_of[todo] == q]
        for start in range(0, group.size, _CHUNK):
            edges = group[start:start + _CHUNK]
            rows = patterns[pairs[edges, 0]]  # later layers: the same pieces on both sides
            if screening:
                left = ~screen_different(net, rows, q, unit_of[edges], layout=layout)
                screening = 2 * left.sum() < left.size
                edges, rows = edges[left], rows[left]
            if not edges.size:
                continue
            g, bound = switch_gradients(net, rows, q, unit_of[edges], layout=layout)
            outcome = _classify(g, bound)
            equal[edges[outcome == EQUAL]] = True
            unsure = edges[outcome == UNDECIDED]
            if unsure.size:
                zero = _exact_zero_gradients(net, layout, patterns[pairs[unsure, 0]], q, unit_of[unsure].tolist())
                equal[unsure[np.array(zero, dtype=bool)]] = True
    return equal


def maps_equal(net: "Network", patterns: np.ndarray, pairs: np.ndarray) -> np.ndarray:
    """Whether the two regions of each pair (pattern rows) have the same output map, compared whole: float maps
    with proven bounds (:mod:`polyregions.regions._affine_maps`) prove most pairs different, the rest are compared
    exactly.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[1], [1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
    >>> maps_equal(net, np.array([[0, 0], [1, 1], [1, 0]]), np.array([[0, 1], [0, 2]])).tolist()
    [True, False]
    """
    from polyregions.regions._affine_maps import certainly_differ, float_output_maps

    equal = np.zeros(len(pairs), dtype=bool)
    exact: dict[int, tuple] = {}  # exact maps of the regions met so far
    for start in range(0, len(pairs), _CHUNK):
        chunk = pairs[start:start + _CHUNK]
        regions, local = np.unique(chunk, return_inverse=True)
        local = local.reshape(chunk.shape)
        maps, bounds = float_output_maps(net, patterns[regions])
        differ = certainly_differ(maps, bounds, local[:, 0], local[:, 1])
        for e in np.flatnonzero(~differ).tolist():
            i, j = chunk[e].tolist()
            equal[start + e] = _exact_map(net, patterns, i, exact) == _exact_map(net, patterns, j, exact)
    return equal


def _exact_map(net: "Network", patterns: np.ndarray, region: int, known: dict[int, tuple]) -> tuple:
    if region not in known:
        known[region] = net.affine_map(tuple(int(v) for v in patterns[region]))
    return known[region]


def component_roots(count: int, pairs: np.ndarray) -> np.ndarray:
    """For every node ``0..count-1`` of the graph with the edges ``pairs``, the smallest node of its connected
    component (vectorised union-find: hook the larger root under the smaller, then halve paths to the roots).

    Examples
    --------
    >>> component_roots(5, np.array([[3, 4], [1, 4], [0, 2]])).tolist()
    [0, 1, 0, 1, 1]
    """
    parent = np.arange(count, dtype=np.int64)
    a, b = np.asarray(pairs, dtype=np.int64).reshape(-1, 2).T
    while a.size:
        ra, rb = parent[a], parent[b]
        low, high = np.minimum(ra, rb), np.maximum(ra, rb)
        joined = low != high
        if not joined.any():
            break
        a, b = a[joined], b[joined]  # an edge within one component stays there
        np.minimum.at(parent, high[joined], low[joined])  # roots only: every parent is a root after the loop
        while True:
            grand = parent[parent]
            if np.array_equal(grand, parent):
                break
            parent = grand
    return parent


def linear_region_roots(net: "Network", patterns: np.ndarray, pairs: np.ndarray, switches: np.ndarray,
                        neurons: np.ndarray, *, different: np.ndarray | None = None) -> np.ndarray:
    """The linear regions, as the smallest region of each region's component (an array with one entry per
    region) of the adjacency restricted to pairs with the same output map (decided exactly).

    Parameters
    ----------
    net : Network
        The network in the regions' coordinates.
    patterns : array of int, shape (regions, neurons)
        The activation patterns.
    pairs : array of int, shape (edges, 2)
        Adjacent regions.
    switches, neurons : arrays of int, shape (edges,)
        How many neurons switch across each pair, and one of them.
    different : array of bool, shape (edges,), optional, keyword-only
        Pairs already proven to have different output maps (by an engine's float maps); the others are decided
        here.

    Returns
    -------
    numpy.ndarray

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[1], [1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
    >>> linear_region_roots(net, np.array([[0, 0], [1, 1]]), np.array([[0, 1]]), np.array([2]),
    ...                     np.array([0])).tolist()
    [0, 0]
    """
    from polyregions._support.runtime import one_blas_thread

    patterns = np.asarray(patterns, dtype=np.int64) if patterns.dtype.kind != "i" else patterns
    equal = switches == 0  # the same pattern: the same map
    undecided = ~different if different is not None else np.ones(len(pairs), dtype=bool)
    single = np.flatnonzero((switches == 1) & undecided)
    dense = hasattr(net.layers[0], "activation")  # stages (max units, per-unit activations): whole maps
    if not dense:
        single = single[:0]
    with one_blas_thread():
        if single.size:
            equal[single] = single_switch_equal(net, patterns, pairs[single], neurons[single])
        several = np.flatnonzero((switches > (1 if dense else 0)) & undecided)
        if several.size:
            equal[several] = maps_equal(net, patterns, pairs[several])
    return component_roots(len(patterns), pairs[equal])

