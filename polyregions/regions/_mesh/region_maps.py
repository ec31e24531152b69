"""The float maps of the mesh's regions on deep networks: every current region's affine map of the layer being
refined, in double (or, on the first layers, extended) precision with a proven bound per unit, built layer by layer
from the previous layer's maps and the regions' pieces. A new vertex's values then come from its region's map at its
point, with bounds that do not grow with depth, and so do an older vertex's where the values carried from the layer
before leave one of its sides open.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from polyregions.networks._float_filter import (
    U,
    activate_maps,
    evaluate_maps,
    float_layer,
    forward_maps,
    gamma,
    largest_entries,
    line_points,
    root_maps,
    safety,
)
from polyregions.regions._mesh.sparse_layers import SparseLayer

if TYPE_CHECKING:
    from polyregions.networks.layer import Layer
    from polyregions.networks.network import Network

__all__ = ["RegionMaps"]

_REGIONS = 1024  # regions per block when a layer's maps are computed (their temporaries then stay in cache)
_PAIRS = 8192  # pairs of regions per block when their output maps are compared
# The float maps of regions (2-D, dense layers) are kept while they take at most this many bytes; without them a
# vertex's values are only carried from layer to layer and interpolated along edges.
_MAP_BYTES = 1 << 30
# Maps on networks of at least this many layers with breakpoints: on shallower ones the carried bounds stay tight
# and the maps' products cost more than they save (He [2,128,128,128]: 1.3 s CPU without, 1.7 s with).
_DEEP = 4


class RegionMaps:
    """The region-map part of :class:`~.mesh.Mesh` (a base class of it): the current layer's float maps on the
    regions of the previous layers ``fmaps`` (regions, k + 1, width) with bounds ``fmap_err`` (regions, width), or
    None (in double precision, they are the first rows of the arrays ``_map_room``, which the next layer's maps may
    grow into); in extended precision ``xmaps`` and ``xerr`` on the layers ``extended`` marks. The other attributes
    below are the mesh's, set by it."""

    fmaps: np.ndarray | None
    fmap_err: np.ndarray | None
    _map_room: tuple[np.ndarray, np.ndarray] | None
    xmaps: np.ndarray | None
    xerr: np.ndarray | None
    extended: list[bool]
    layers: tuple[Layer, ...]
    net: Network
    flayers: list
    k: int
    nf: int
    pieces: list
    ancestors: list
    vline: np.ndarray
    lrow: np.ndarray
    lerr: np.ndarray

    def _next_maps(self, q: int, sparse: list) -> bool:
        """Compute layer ``q``'s float maps on the current faces (the regions of layers ``0..q-1``) from layer
        ``q - 1``'s, while they fit in :data:`_MAP_BYTES` (2-D domains and dense layers only); whether they are
        there."""
        previous, previous_err, extended = self.fmaps, self.fmap_err, self.xmaps
        if extended is not None and self.extended[q]:
            previous_err = self.xerr  # the bounds of the extended maps, not widened by their rounding to double
        self.fmaps = self.fmap_err = self.xmaps = self.xerr = None
        room, self._map_room = self._map_room, None
        if (self.k != 2 or any(weights is not None for weights in sparse) or (q > 0 and previous is None)
                or sum(not layer.activation.is_linear for layer in self.layers) < _DEEP):
            return False
        width = self.layers[q].width
        if self.nf * width * (self.k + 2) * 8 > _MAP_BYTES:
            return False  # and never again: the later layers' maps are built from these
        flayer = self.flayers[q]
        if q == 0:
            self.extended = self._extended_maps()
            H, EH = root_maps(self.k)
            self._store_maps(*forward_maps(flayer, H.astype(np.longdouble) if self.extended[0] else H, EH))
            return True
        assert previous_err is not None
        parent = self.ancestors[q - 1]
        pieces = self.pieces[q - 1]
        source = extended if self.extended[q] else previous  # the layer before was extended too
        assert source is not None
        before = previous_err.shape[0]
        if not (source is previous and previous.shape[2] == width and room is not None
                and room[0].shape[0] >= self.nf and np.array_equal(parent[:before], np.arange(before))):
            room = _map_arrays(self.nf, self.k, width, source.dtype)
        maps, errors = room[0][:self.nf], room[1][:self.nf]
        self._map_room = room if maps.dtype == np.float64 else None
        act = self.flayers[q - 1].activation
        # The regions cut from others first: they read only the maps of the regions they were cut from. Those keep
        # their numbers, so that on the previous layer's arrays each of them is then computed in place.
        for start in [*range(before, self.nf, _REGIONS), *range(0, before, _REGIONS)]:
            block = slice(start, min(start + _REGIONS, self.nf if start >= before else before))
            up = parent[block]  # (np.take: fancy indexing of a 3-D array is slower)
            H, EH = activate_maps(act, np.take(source, up, axis=0), np.take(previous_err, up, axis=0),
                                  None if pieces is None else pieces[block], overwrite=True)
            forward_maps(flayer, H, EH, out=(maps[block], errors[block]))
        del previous, previous_err, extended, source, room
        self._store_maps(maps, errors)
        return True

    def _store_maps(self, maps: np.ndarray, errors: np.ndarray) -> None:
        """Keep the current layer's maps: as they are in double precision; in extended precision, as they are for
        the next layer and rounded to doubles (bounds widened by ``2u`` times the largest entry) for use here."""
        if maps.dtype == np.float64:
            self.fmaps, self.fmap_err = maps, errors
            return
        self.xmaps, self.xerr = maps, errors
        self.fmaps = maps.astype(np.float64)
        self.fmap_err = (errors + 2 * U * largest_entries(self.fmaps)) * (1 + 4 * U)

    def _extended_maps(self) -> list[bool]:
        """Which layers' maps to compute in extended precision (``np.longdouble``): the first ones, those whose
        roundings in double precision would grow past ``2^-30`` of the values by the last layer. Each layer
        multiplies a map's relative bound by about half the sum of a row's absolute weights (half the units
        being active on a region of a He-normal network) and adds ``fan_in`` roundings. Only when the platform's
        ``np.longdouble`` has at least 64 bits of mantissa, every activation before the last layer is ReLU and
        every weight and bias is a double exactly (checked with integers); else none."""
        n = len(self.flayers)
        # (the middle row sum; numpy's median would load numpy.ma)
        growth = [max(1.0, 0.5 * float(np.sort(flayer.abs_weight.sum(axis=1))[flayer.abs_weight.shape[0] // 2]))
                  for flayer in self.flayers]
        fan_in = max(flayer.fan_in for flayer in self.flayers)
        tail, wanted = 1.0, [False] * n
        for q in range(n - 1, -1, -1):
            wanted[q] = tail * fan_in * U > 2.0 ** -30
            tail *= growth[q]
        if not any(wanted) or np.finfo(np.longdouble).nmant < 63:
            return [False] * n
        if not all(flayer.activation.is_relu for flayer in self.flayers[:-1]):
            return [False] * n
        if not all(_is_double(v) for layer in self.layers for row in layer.weight for v in row) or not all(
                _is_double(v) for layer in self.layers for v in layer.bias):
            return [False] * n
        return wanted

    def _different_output_maps(self, pairs: np.ndarray, maps: np.ndarray | None, bounds: np.ndarray | None
                               ) -> np.ndarray | None:
        """Which pairs of final regions (``pairs``, two columns) the last layer's float maps (``maps`` with
        ``bounds``, as ``fmaps`` and ``fmap_err`` were) prove to have different output maps: some coefficient
        apart by more than both bounds (False proves nothing; None without maps, or when a sparse layer follows
        the last one refined).

        A region's output map is its last-layer map through that layer's activation on the region's pieces and
        through the affine layers after it, each step with a proven bound; so the float maps decide almost every
        adjacent pair with different maps, leaving the exact test only the pairs that may share one (a linear
        region's cells, and the pairs whose maps differ only where the affine layers do not look)."""
        if maps is None or bounds is None:  # (as on a network with no layer refined)
            return None
        q = len(self.layers) - 1
        after = self.net.layers[q + 1:]  # affine
        if any(isinstance(layer, SparseLayer) for layer in after):
            return None
        affine = [float_layer(layer) for layer in after]
        act, parent, pieces = self.flayers[q].activation, self.ancestors[q], self.pieces[q]

        def output_maps(regions: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            up = parent[regions]
            M, E = activate_maps(act, np.take(maps, up, axis=0), np.take(bounds, up, axis=0),
                                 None if pieces is None else pieces[regions], overwrite=True)
            for flayer in affine:
                M, E = activate_maps(flayer.activation, *forward_maps(flayer, M, E), None)
            return M, E

        with np.errstate(all="ignore"):  # NaN and infinite bounds prove nothing
            # A region's output map projected on one direction, with its bound, decides most pairs at the cost of
            # the regions; only the pairs it leaves open compare their maps coefficient by coefficient.
            values, errors = np.empty(self.nf), np.empty(self.nf)
            for start in range(0, self.nf, _REGIONS):
                block = np.arange(start, min(start + _REGIONS, self.nf))
                values[block], errors[block] = _projected(*output_maps(block))
            different = _apart(values[pairs[:, 0]], errors[pairs[:, 0]], values[pairs[:, 1]], errors[pairs[:, 1]])
            open_ = np.flatnonzero(~different)
            for start in range(0, len(open_), _PAIRS):
                block = open_[start:start + _PAIRS]
                (M1, E1), (M2, E2) = output_maps(pairs[block, 0]), output_maps(pairs[block, 1])
                different[block] = _apart(M1, E1[:, None, :], M2, E2[:, None, :]).any(axis=(1, 2))
        return different

    def _anchored(self, vertices: np.ndarray, regions: np.ndarray, first: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The current layer's values (from unit ``first`` on) and bounds at the given vertices, from the maps of
        ``regions`` (a region of the previous layers whose closure holds each vertex) at the vertices' points,
        which come from the float rows of their two lines (returned too); infinite bounds where those prove
        nothing."""
        assert self.fmaps is not None and self.fmap_err is not None
        l1, l2 = self.vline[vertices, 0], self.vline[vertices, 1]
        t, dt = line_points(self.lrow[l1], self.lerr[l1], self.lrow[l2], self.lerr[l2])
        # Rows gathered whole, then cut: np.take copies a non-contiguous source (a slice of columns) whole first,
        # and fancy indexing of a 3-D array is slower.
        maps = np.take(self.fmaps, regions, axis=0)[:, :, first:]
        errors = np.take(self.fmap_err, regions, axis=0)[:, first:]
        return (*evaluate_maps(maps, errors, t, dt), t)


def _map_arrays(count: int, k: int, width: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    """Arrays for the maps and bounds of ``count`` regions with room for the regions later layers add: eight
    times as many, up to as many as maps are ever kept for (rows are touched only when written), and no more
    than ``count`` where the system refuses that much address space."""
    rows = max(count, min(8 * count + 4096, _MAP_BYTES // ((k + 2) * width * 8)))
    try:
        return np.empty((rows, k + 1, width), dtype=dtype), np.empty((rows, width))
    except MemoryError:
        return np.empty((count, k + 1, width), dtype=dtype), np.empty((count, width))


def _apart(a: np.ndarray, ea: np.ndarray, b: np.ndarray, eb: np.ndarray) -> np.ndarray:
    """Where values ``a`` and ``b``, known within ``ea`` and ``eb``, are proven to stand for different numbers.

    |fl(a - b)| <= (1 + u)|a - b|, and the bounds' sum, rounded and taken (1 + 4u) larger, is at least (1 + u)
    times their true sum: a difference above it is above the true bounds' sum. NaN proves nothing."""
    return np.abs(a - b) > (ea + eb) * (1 + 4 * U)


def _projected(M: np.ndarray, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Maps ``M`` (regions, k + 1, width) known within ``E`` (regions, width) projected on a fixed direction with
    coefficients in [1, 2): one value per region and its bound. Equal maps give values within their bounds' sum,
    whatever order the sums take: n products summed carry at most gamma_n of the sum of their absolute values."""
    rows, width = M.shape[1:]
    direction = 1 + np.random.default_rng(0).random((rows, width))
    n = rows * width
    values = np.einsum("rkw,kw->r", M, direction)
    errors = E @ direction.sum(axis=0) + gamma(n) * np.einsum("rkw,kw->r", np.abs(M), direction)
    errors += 2.0 ** -1000  # the roundings of subnormal products
    errors *= safety(n + width)
    errors[~np.isfinite(values)] = np.inf
    return values, errors


def _is_double(value) -> bool:
    """Whether an exact rational is a double exactly and far from the ends of the double range (a dyadic fraction
    with at most 53 significant bits and a binary exponent within +-1000).

    >>> from fractions import Fraction
    >>> [_is_double(Fraction(v)) for v in ("3/8", "1/3", 0, 2 ** 60 + 1)]
    [True, False, True, False]
    """
    n, d = abs(value.numerator), value.denominator
    if d & (d - 1):
        return False
    if n == 0:
        return True
    odd = n >> ((n & -n).bit_length() - 1)
    return odd.bit_length() <= 53 and abs(n.bit_length() - d.bit_length()) < 1000
