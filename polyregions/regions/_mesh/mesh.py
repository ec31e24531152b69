"""The refinement loop shared by the 1-D and 2-D meshes: float pre-activations with proven bounds at the vertices,
exact decisions where the bounds do not settle a side, the exact lines the edges lie on, and the output.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from functools import cached_property, partial
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from polyregions._support.progress import progress_bar
from polyregions.exact._integers import primitive
from polyregions.networks._float_filter import (
    UNCERTAIN,
    U,
    activate,
    activate_maps,
    certified_signs,
    doubles,
    evaluate_maps,
    float_layer,
    forward_layer,
    forward_maps,
    interpolate,
    line_points,
    root_maps,
    safety,
    sorted_breakpoint_signs,
)
from polyregions.regions._mesh.exact_maps import ExactMaps
from polyregions.regions._mesh.sparse_layers import (
    SparseLayer,
    SparseWeights,
    sparse_float_layer,
    sparse_forward,
    sparse_weights,
)
from polyregions.regions._mesh.support import (
    ABOVE,
    BELOW,
    ON,
    SIDE_OF_SIGN,
    UNPROVEN,
    ComputedOnce,
    distinct,
    distinct_ranks,
    grow,
    padded,
    unproven_rows,
)
from polyregions.regions.complex import Region

if TYPE_CHECKING:
    from polyregions.exact.linalg import Matrix, Vector
    from polyregions.networks.network import Network
    from polyregions.regions._mesh.ties import ConstantRounds

__all__ = ["Mesh"]

# What the float state becomes once the output is built (read-only: nothing may write to it then).
_RELEASED = np.empty((0, 0), dtype=np.int8)
_RELEASED.flags.writeable = False
_ROWS = 8192  # vertices per block when a layer's values are computed
_REGIONS = 4096  # regions per block when a layer's maps are computed
_FEW_BREAKPOINTS = 8  # above: each value signed against the breakpoints next to it only (sorted_breakpoint_signs)
# The float maps of regions (2-D, dense layers) are kept while they take at most this many bytes: a vertex's
# values then come from its region's map at its point (bounds that do not grow with depth), else they are carried
# from layer to layer and interpolated along edges.
_MAP_BYTES = 1 << 30
# Maps on networks of at least this many layers with breakpoints: on shallower ones the carried bounds stay tight
# and the maps' products cost more than they save (He [2,128,128,128]: 1.3 s CPU without, 1.7 s with).
_DEEP = 4


class Mesh(ABC):
    """State and layer loop shared by the 1-D and 2-D meshes.

    Vertices carry, for the current layer, its pre-activations ``Z`` with bounds ``E`` and the proven signs
    ``S`` against every hyperplane ``h = unit * T + bp`` of the layer. Faces carry ``code``: bit 1 when a vertex
    lies strictly above hyperplane ``h``, bit 2 when one lies strictly below. Lines (where edges lie) are
    events ``(layer, unit, bp, region)``; the domain's own rows are lines with layer -1.
    """

    # Set by the subclasses' ``_initial_mesh``: vertices and faces used, and the domain's corners (exact).
    nv: int
    nf: int
    corner_points: Sequence[Vector]
    vline: np.ndarray  # the line(s) each vertex lies on: one column in 1-D, two in 2-D
    #: Whether the last layer's new vertices skip the columns before their unit's (see :meth:`_crossing`).
    skip_columns = True
    # Set by ``run``: the float layers, the current layer's vertex state and face codes, and each face's region
    # of the previous layers.
    flayers: list
    Z: np.ndarray
    E: np.ndarray
    S: np.ndarray
    code: np.ndarray
    anc: np.ndarray

    def __init__(self, net: "Network", A, b):
        self.net = net
        nonlinear = [q for q, layer in enumerate(net.layers) if not layer.activation.is_linear]
        self.layers = net.layers[:nonlinear[-1] + 1] if nonlinear else ()
        self.k = net.input_dim
        self.A, self.b = A, b
        # Lines: (layer, unit, breakpoint, region) per line id, rows of a growing array; nlines used.
        self.lines = np.zeros((64, 4), dtype=np.int64)
        self.nlines = 0
        # Float rows (a, b, c) of the lines (a t_1 + b t_2 + c = 0) with entrywise bounds (infinite: unknown).
        self.lrow = np.zeros((64, 3))
        self.lerr = np.full((64, 3), np.inf)
        # The current layer's float maps on the regions of the previous layers (regions, k + 1, width) and
        # their bounds (regions, width), or None.
        self.fmaps: np.ndarray | None = None
        self.fmap_err: np.ndarray | None = None
        # The maps in extended precision (np.longdouble) that the next layer's are computed from, on deep networks
        # (see _extended_maps), else None.
        self.xmaps: np.ndarray | None = None
        self.xerr: np.ndarray | None = None
        self.extended: list[bool] = []  # per layer: its maps computed in extended precision
        self.line_rows: dict[int, tuple[int, ...]] = {}
        self.pieces: list = []      # per layer: (regions at level q+1, width) int8, or None for affine layers
        self.ancestors: list = []   # per layer: level q+1 region -> level q region
        # The network the regions report and how its patterns are read off this one's (a graph network's stages,
        # refined through their dense rewriting: polyregions.regions._mesh.stages); by default unchanged.
        self.shown_net = net
        self.shown_patterns: Callable[[np.ndarray], np.ndarray] | None = None
        # Max units' rounds whose sign a region's pieces may fix (ties: polyregions.regions._mesh.ties); by
        # default none.
        self.constant_rounds: ConstantRounds | None = None

    # the parts each dimension provides -----------------------------------------------------------------

    @abstractmethod
    def _initial_mesh(self) -> None:
        """Build the mesh of the domain ``A t <= b``: one face, its vertices, ``nv``, ``nf`` and ``corner_points``."""

    @abstractmethod
    def _homogeneous(self, vertices: np.ndarray) -> Sequence[tuple[int, ...]]:
        """Exact homogeneous integer coordinates ``(X_1, ..., X_k, W)``, ``W > 0``, of the given vertices."""

    @abstractmethod
    def _face_of_vertex(self) -> np.ndarray:
        """A current face whose closure holds each vertex."""

    @abstractmethod
    def _start_layer(self, q: int) -> None:
        """Set the faces' codes from their vertices' sides against layer ``q``."""

    @abstractmethod
    def _split(self, q: int, h: int) -> None:
        """Split every face that hyperplane ``h`` of layer ``q`` crosses."""

    @abstractmethod
    def _adjacent_pairs(self) -> np.ndarray:
        """Index pairs ``(i, j)`` of faces sharing a facet (an array with two columns; a pair may repeat)."""

    @abstractmethod
    def _face_geometry(self, patterns: np.ndarray) -> list[tuple[Matrix, Vector, Vector]]:
        """Every face's exact inequalities ``A``, ``b`` and interior point."""

    # lines ---------------------------------------------------------------------------------------------

    def _add_boundary_line(self, row: int) -> int:
        line = self.nlines
        self.line_rows[line] = primitive((*self.A[row], -self.b[row]))
        self.lines = grow(self.lines, line + 1)
        self.lines[line] = (-1, row, 0, 0)
        self._grow_line_rows(line + 1)
        if self.k == 2:
            self.lrow[line], self.lerr[line] = doubles((*self.A[row], -self.b[row]))
        self.nlines += 1
        return line

    def _add_lines(self, q: int, unit: int, bp: int, regions: np.ndarray) -> np.ndarray:
        first, n = self.nlines, regions.size
        self.lines = grow(self.lines, first + n)
        self.lines[first:first + n, :3] = (q, unit, bp)
        self.lines[first:first + n, 3] = regions
        self.nlines += n
        self._grow_line_rows(first + n)
        if self.fmaps is not None:
            assert self.fmap_err is not None
            fa = self.flayers[q].activation
            row = self.fmaps[regions, :, unit]
            e = self.fmap_err[regions, unit]
            with np.errstate(all="ignore"):
                row[:, 2] -= fa.breakpoints[bp]
                self.lrow[first:first + n] = row
                self.lerr[first:first + n, :2] = e[:, None]
                self.lerr[first:first + n, 2] = ((e + fa.breakpoint_errors[bp] + U * np.abs(row[:, 2]) + 2.0 ** -1000)
                                                 * safety(4))
        return np.arange(first, first + n, dtype=np.int64)

    def _grow_line_rows(self, needed: int) -> None:
        if needed > self.lrow.shape[0]:
            size = max(needed, 2 * self.lrow.shape[0])
            self.lrow = grow(self.lrow, size)
            old = self.lerr.shape[0]
            self.lerr = grow(self.lerr, size)
            self.lerr[old:] = np.inf

    @cached_property
    def exact(self) -> ExactMaps | None:
        """The exact integer maps of the layers, built on first use: most runs never leave the float filter."""
        return ExactMaps(self.layers, self.k) if self.layers else None

    def _ensure_lines(self, ids) -> None:
        """Compute the exact rows of the given lines that are not known yet."""
        unknown = sorted({int(i) for i in ids} - self.line_rows.keys())
        if not unknown:
            return
        assert self.exact is not None  # lines other than the domain's rows come from the layers
        missing = np.array(unknown, dtype=np.int64)
        layer, unit, bp, region = self.lines[missing].T
        for q in distinct(layer):
            sel = layer == q
            rows = self.exact.rows(int(q), region[sel], unit[sel], bp[sel], self.pieces, self.ancestors)
            self.line_rows.update(zip(missing[sel].tolist(), rows))

    # exact evaluation ----------------------------------------------------------------------------------

    def _resolve(self, q: int, vertices: np.ndarray, faces: np.ndarray) -> None:
        """Decide exactly every side that the bounds leave open at the given vertices, and replace the float
        pre-activations of those units by correctly rounded exact values (``faces[i]``: a current face whose
        closure holds ``vertices[i]``).

        On the face's region of the previous layers, layer ``q`` is ``z_j = (row_j . [t; 1]) / Z_q + xi_0`` with
        exact integer rows; with the vertex at ``t = x / w`` (integers, ``w > 0``) the sign of ``z_j - xi_k`` is
        that of ``row_j . [x; w] + (xi_0 - xi_k) Z_q w``, an integer. Rows are computed only for the units with a
        side open at some vertex of a region, once per region and unit: every other side is proven already, and
        a float value with its proven bound stays valid.
        """
        if vertices.size == 0:
            return
        exact = self.exact
        assert exact is not None  # vertices are resolved while refining by a layer
        width = self.layers[q].width
        xi = exact.xi_int[q]
        T = len(xi)
        Zq = exact.Z[q]
        at, units = np.nonzero((self.S[vertices, :width * T] == UNPROVEN).reshape(vertices.size, width, T)
                               .any(axis=2))
        regions = self.anc[faces[at]]
        key = regions * width + units
        first, pair = distinct_ranks(key)
        rows = exact.rows(q, regions[first], units[first], np.zeros(first.size, dtype=np.int64), self.pieces,
                          self.ancestors, primitive=False)
        points = self._homogeneous(vertices)
        values, errors, sides = [], [], []
        for i, r in zip(at.tolist(), pair.tolist()):
            point = points[i]
            w = point[-1]
            n = sum(a * x for a, x in zip(rows[r], point))
            try:
                x = (n + xi[0] * w) / (Zq * w)  # int / int: correctly rounded
                values.append(x)
                errors.append(2.0 ** -52 * abs(x) + 2.0 ** -1000)
            except OverflowError:
                values.append(math.inf)
                errors.append(math.inf)
            for xk in xi:
                d = n + (xi[0] - xk) * w
                sides.append(ABOVE if d > 0 else (BELOW if d < 0 else ON))
        where, unit = vertices[at], units
        self.Z[where, unit] = values
        self.E[where, unit] = errors
        columns = (unit[:, None] * T + np.arange(T)).ravel()
        self.S[np.repeat(where, T), columns] = sides

    def _settle(self, q: int, vertices: np.ndarray, faces: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Write the sides that :attr:`constant_rounds` fixes from the regions' pieces (on a ReLU layer); return
        the vertices still unsure and their faces.

        A pre-activation constant on a region is that constant on the closure of every face of the region, so
        its sign is the vertex's side; a zero is stored exactly (value and bound 0). Units whose pre-activation
        is at a breakpoint on a line through the vertex are known there too, whatever the region's piece.
        """
        rules = self.constant_rounds
        if rules is None or not vertices.size or self.layers[q].activation.breakpoints != (0,):
            return vertices, faces
        units = rules.units(q)
        if units is None:
            return vertices, faces
        # One breakpoint: a unit's hyperplane is its column of the side matrix.
        at, rounds = np.nonzero(self.S[vertices][:, units] == UNPROVEN)
        if not at.size:
            return vertices, faces
        # The lines through each vertex: (layer, unit, breakpoint), the layer negative for the domain's rows.
        lines = self.lines[self.vline[vertices[at]].reshape(at.size, -1), :3]
        signs = rules.signs(q, rounds, self.anc[faces[at]], partial(self._earlier_pieces, q), lines)
        known = signs != UNCERTAIN
        where, unit, sign = vertices[at[known]], units[rounds[known]], signs[known]
        self.S[where, unit] = SIDE_OF_SIGN[sign + 1]
        zero = sign == 0
        self.Z[where[zero], unit[zero]] = 0.0
        self.E[where[zero], unit[zero]] = 0.0
        still = (self.S[vertices] == UNPROVEN).any(axis=1)
        return vertices[still], faces[still]

    def _earlier_pieces(self, q: int, layer: int, regions: np.ndarray, units: np.ndarray) -> np.ndarray:
        """The pieces of units of layer ``layer`` (``< q``) on regions of the layers before ``q`` (element-wise)."""
        for s in range(q - 1, layer, -1):
            regions = self.ancestors[s][regions]
        return self.pieces[layer][regions, units]

    def _sides(self, q: int, Z: np.ndarray, E: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
        """Proven sides (vertices x hyperplanes; ``ON``, ``ABOVE``, ``BELOW`` or ``UNPROVEN``) of the
        pre-activations ``Z`` (columns: units) with bounds ``E`` against layer ``q``'s breakpoints, written into
        the first columns of ``out`` when given; a new matrix has its columns padded with ``ON`` to a multiple of
        8 (:func:`~.support.padded`)."""
        fa = self.flayers[q].activation
        T = fa.breakpoints.size
        columns = Z.shape[1] * T
        S = np.zeros((Z.shape[0], padded(columns)), dtype=np.int8) if out is None else out
        if not Z.size:
            return S
        if T > _FEW_BREAKPOINTS:  # each value against the breakpoints next to it (sorted_breakpoint_signs)
            signs = sorted_breakpoint_signs(Z.reshape(-1), E.reshape(-1), fa.breakpoints, fa.breakpoint_errors)
            S[:, :columns] = SIDE_OF_SIGN[signs + 1].reshape(Z.shape[0], columns)  # column unit * T + k
            return S
        for k in range(T):
            S[:, k:columns:T] = SIDE_OF_SIGN[certified_signs(Z, E, fa.breakpoints[k], fa.breakpoint_errors[k]) + 1]
        return S

    # the layer loop ------------------------------------------------------------------------------------

    def run(self, *, progress: bool = False) -> tuple[Sequence[Region], np.ndarray, np.ndarray]:
        """Refine layer by layer; return the regions, their pattern matrix (a row per region, a column per
        neuron) and the pairs ``(i, j)`` of regions sharing a facet (an array with two columns; a pair may
        repeat)."""
        self._initial_mesh()
        self.flayers = []
        sparse: list[SparseWeights | None] = []
        for layer in self.layers:
            if isinstance(layer, SparseLayer):  # kept sparse from the rewriting on: never a dense matrix
                flayer, sparse_pair = sparse_float_layer(layer)
                weights: SparseWeights | None = sparse_pair
            else:
                flayer = float_layer(layer)
                weights = sparse_weights(flayer)  # wide rewritten layers of few inputs per unit
            self.flayers.append(flayer)
            sparse.append(weights)
        total = sum(layer.width * len(layer.activation.breakpoints) for layer in self.layers)
        corners, corner_errors = doubles(self.corner_points)
        with progress_bar(total=total, desc="breakpoints", enabled=progress) as bar:
            for q, layer in enumerate(self.layers):
                width = layer.width
                # Room for the vertices the layer will add (a few times as many as it starts with, as measured
                # on He-normal networks): rows are touched only when written, so unused room costs address
                # space rather than memory, while growing a large array copies it.
                room = 4 * self.nv + 4096
                Z, E = np.zeros((room, width)), np.zeros((room, width))
                use_maps = self._next_maps(q, sparse)
                face = self._face_of_vertex() if use_maps else None
                for start in range(0, self.nv, _ROWS):  # in blocks of rows: no temporary of the whole layer
                    rows = slice(start, min(start + _ROWS, self.nv))
                    todo = np.arange(rows.start, rows.stop)
                    if face is not None:
                        # Each vertex's values from its region's map at its point, from the rows of its two lines.
                        Z[rows], E[rows], _ = self._anchored(todo, face[rows])
                        todo = todo[~np.isfinite(E[rows]).all(axis=1)]
                        if not todo.size:
                            continue
                    if q > 0:
                        h_val, e_val = activate(self.flayers[q - 1], self.Z[todo], self.E[todo])
                    else:
                        h_val, e_val = corners[todo], corner_errors[todo]
                    weights = sparse[q]
                    Z[todo], E[todo] = (forward_layer(self.flayers[q], h_val, e_val) if weights is None
                                        else sparse_forward(self.flayers[q], weights, h_val, e_val))
                self.Z, self.E, self.S = Z, E, _RELEASED  # the previous layer's state goes
                del Z, E
                if layer.activation.is_linear:
                    self.pieces.append(None)
                    self.ancestors.append(np.arange(self.nf, dtype=np.int64))
                    continue
                T = len(layer.activation.breakpoints)
                self.S = np.zeros((room, padded(width * T)), dtype=np.int8)
                for start in range(0, self.nv, _ROWS):
                    rows = slice(start, min(start + _ROWS, self.nv))
                    self._sides(q, self.Z[rows], self.E[rows], out=self.S[rows])
                self.anc = grow(np.arange(self.nf, dtype=np.int64), 2 * self.nf)
                unsure = unproven_rows(self.S[:self.nv])
                if unsure.size:
                    self._resolve(q, *self._settle(q, unsure, self._face_of_vertex()[unsure]))
                self._start_layer(q)
                for h in range(width * T):
                    self._split(q, h)
                    bar.update(1)
                above = (self.code[:self.nf, :width * T] == ABOVE).reshape(self.nf, width, T)
                kind = np.int8 if T < 127 else np.int32
                self.pieces.append(above[:, :, 0].astype(kind) if T == 1 else above.sum(axis=2, dtype=kind))
                self.ancestors.append(self.anc[:self.nf].copy())
        return self._output()

    def _next_maps(self, q: int, sparse: list) -> bool:
        """Compute layer ``q``'s float maps on the current faces (the regions of layers ``0..q-1``) from layer
        ``q - 1``'s, while they fit in :data:`_MAP_BYTES` (2-D domains and dense layers only); whether they are
        there."""
        previous, previous_err, extended = self.fmaps, self.fmap_err, self.xmaps
        if extended is not None and self.extended[q]:
            previous_err = self.xerr  # the bounds of the extended maps, not widened by their rounding to double
        self.fmaps = self.fmap_err = self.xmaps = self.xerr = None
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
        maps = np.empty((self.nf, self.k + 1, width), dtype=source.dtype)
        errors = np.empty((self.nf, width))
        act = self.flayers[q - 1].activation
        for start in range(0, self.nf, _REGIONS):
            block = slice(start, min(start + _REGIONS, self.nf))
            up = parent[block]
            H, EH = activate_maps(act, source[up], previous_err[up], None if pieces is None else pieces[block])
            maps[block], errors[block] = forward_maps(flayer, H, EH)
        del previous, previous_err, extended, source
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
        self.fmap_err = (errors + 2 * U * np.abs(self.fmaps).max(axis=1)) * (1 + 4 * U)

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

    def _anchored(self, vertices: np.ndarray, regions: np.ndarray, first: int = 0
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The current layer's values (from unit ``first`` on) and bounds at the given vertices, from the maps of
        ``regions`` (a region of the previous layers whose closure holds each vertex) at the vertices' points,
        which come from the float rows of their two lines (returned too); infinite bounds where those prove
        nothing."""
        assert self.fmaps is not None and self.fmap_err is not None
        l1, l2 = self.vline[vertices, 0], self.vline[vertices, 1]
        t, dt = line_points(self.lrow[l1], self.lerr[l1], self.lrow[l2], self.lerr[l2])
        return (*evaluate_maps(self.fmaps[regions, :, first:], self.fmap_err[regions, first:], t, dt), t)

    def _output(self) -> tuple[Sequence[Region], np.ndarray, np.ndarray]:
        self.Z = self.E = self.S = self.code = _RELEASED  # the float state is no longer needed
        self.fmaps = self.fmap_err = self.xmaps = self.xerr = None
        patterns = self._pattern_matrix(self.nf)
        pairs = self._adjacent_pairs()
        geometry = ComputedOnce(partial(self._face_geometry, patterns))
        if self.shown_patterns is not None:
            patterns = self.shown_patterns(patterns)
        regions = Region._deferred_rows(patterns, self.shown_net, geometry.item)
        return regions, patterns, pairs

    def _crossed(self, q: int, h: int):
        """Faces that hyperplane ``h`` of layer ``q`` crosses (vertices proven on both sides), with the float
        activation, the unit and the breakpoint index the hyperplane stands for."""
        fa = self.flayers[q].activation
        unit, bp = divmod(h, fa.breakpoints.size)
        return (self.code[:self.nf, h] == ABOVE | BELOW).nonzero()[0], fa, unit, bp

    def _crossing(self, q: int, h: int, ends: np.ndarray, other_ends: np.ndarray, new_ids: np.ndarray | None = None,
                  regions: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int, np.ndarray | None]:
        """Where hyperplane ``h`` of layer ``q`` crosses the edges ``ends -> other_ends``: the new vertices'
        pre-activations and bounds in the columns from a first column on, the fractions of the way along the edges
        (NaN where not computed), that first column, and the vertices' approximate points (or None).

        Given the new vertices ``new_ids`` (their lines set) and their regions of the previous layers, the values
        come from the regions' float maps at the points where the vertices' lines cross (:meth:`_anchored`), where
        those maps exist and prove bounds; elsewhere they are interpolated along the edges (:func:`interpolate`).

        On the last layer refined no later layer is computed from the vertices, so a vertex created on a unit's
        hyperplane is read only for the sides of that unit and the later ones: there the first column is the
        unit's, which about halves that layer's interpolation (the largest of all); on other layers it is 0.
        """
        fa = self.flayers[q].activation
        unit, bp = divmod(h, fa.breakpoints.size)
        first = unit if self.skip_columns and q == len(self.layers) - 1 else 0
        points = None
        if self.fmaps is not None and new_ids is not None and regions is not None:
            # The new vertices' values from their region's map at their point, where that proves bounds: they
            # do not grow along the chains of vertices interpolated from vertices.
            Zn, En, points = self._anchored(new_ids, regions, first)
            bad = ~np.isfinite(En).all(axis=1)
            lam = np.full(new_ids.size, np.nan)
            if bad.any():
                Zb, Eb, lam[bad] = self._interpolated(q, h, first, ends[bad], other_ends[bad])
                Zn[bad], En[bad] = Zb, Eb
                points[bad] = np.nan
            return Zn, En, lam, first, points
        Zn, En, lam = self._interpolated(q, h, first, ends, other_ends)
        return Zn, En, lam, first, points

    def _interpolated(self, q: int, h: int, first: int, ends: np.ndarray, other_ends: np.ndarray
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        fa = self.flayers[q].activation
        unit, bp = divmod(h, fa.breakpoints.size)
        Z, E = self.Z[:, first:], self.E[:, first:]
        return interpolate(Z[ends], E[ends], Z[other_ends], E[other_ends], unit - first, fa.breakpoints[bp],
                           fa.breakpoint_errors[bp])

    def _store_vertices(self, q: int, h: int, new_ids: np.ndarray, Zn: np.ndarray, En: np.ndarray, first: int,
                        vertex_faces: np.ndarray) -> None:
        """Append vertices created on hyperplane ``h`` of layer ``q`` with their float values and error bounds in
        the columns from ``first`` on (as :meth:`_crossing` gives them; the earlier ones are marked unknown: NaN
        with an infinite bound) and their proven sides; sides the bounds leave open are decided exactly in
        ``vertex_faces``."""
        fa = self.flayers[q].activation
        unit, bp = divmod(h, fa.breakpoints.size)
        Zn[:, unit - first] = fa.breakpoints[bp]
        En[:, unit - first] = fa.breakpoint_errors[bp]
        start, end = self.nv, self.nv + len(new_ids)
        assert not new_ids.size or (new_ids[0] == start and new_ids[-1] == end - 1)  # the next ids, in order
        self.Z, self.E, self.S = grow(self.Z, end), grow(self.E, end), grow(self.S, end)
        self.Z[start:end, first:], self.E[start:end, first:] = Zn, En
        if first:
            self.Z[start:end, :first], self.E[start:end, :first] = np.nan, np.inf  # never read; proves nothing
        Sn = self.S[start:end]
        Sn[:] = ON
        self._new_vertex_sides(q, h, Zn[:, unit - first + 1:], En[:, unit - first + 1:], Sn)
        self.nv = end
        unsure = unproven_rows(Sn)
        self._resolve(q, *self._settle(q, new_ids[unsure], vertex_faces[unsure]))

    def _new_vertex_sides(self, q: int, h: int, Z_later: np.ndarray, E_later: np.ndarray, S: np.ndarray) -> None:
        """Write into ``S`` (all ``ON``) the sides of new vertices created on hyperplane ``h``, given the values
        ``Z_later`` and bounds ``E_later`` of the units after ``h``'s: proven for those units, exact on ``h``'s own
        unit, ``ON`` (never read) for the earlier ones."""
        T = self.flayers[q].activation.breakpoints.size
        unit, bp = divmod(h, T)
        self._sides(q, Z_later, E_later, out=S[:, (unit + 1) * T:(unit + 1 + Z_later.shape[1]) * T])
        # On h's own unit the vertex is at breakpoint bp exactly: above the earlier ones, below the later ones
        # (an activation's exact breakpoints increase strictly).
        S[:, unit * T:unit * T + bp] = ABOVE
        S[:, unit * T + bp] = ON
        S[:, unit * T + bp + 1:(unit + 1) * T] = BELOW

    def _pattern_matrix(self, faces: int) -> np.ndarray:
        """Pieces of every neuron (columns in the order of ``Network.neurons``) for faces ``0..faces-1``."""
        columns = []
        current = np.arange(faces, dtype=np.int64)
        chain = []
        for q in range(len(self.layers) - 1, -1, -1):
            chain.append(current)
            current = self.ancestors[q][current]
        chain.reverse()  # chain[q]: the level q+1 region of every face
        for q in range(len(self.layers)):
            if self.pieces[q] is not None:
                columns.append(self.pieces[q][chain[q]])
        if not columns:
            return np.zeros((faces, 0), dtype=np.int8)
        return np.concatenate(columns, axis=1)

    def _line_sides(self, lines: np.ndarray, faces: np.ndarray, patterns: np.ndarray) -> np.ndarray:
        """Whether each face lies above its line's breakpoint (boundary lines: False)."""
        layer, unit, bp = self.lines[lines, :3].T
        offsets = np.zeros(len(self.layers) + 1, dtype=np.int64)
        for q, layer_ in enumerate(self.layers):
            offsets[q + 1] = offsets[q] + (0 if layer_.activation.is_linear else layer_.width)
        above = np.zeros(lines.size, dtype=bool)
        event = layer >= 0
        column = offsets[layer[event]] + unit[event]
        above[event] = patterns[faces[event], column] > bp[event]
        return above


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
