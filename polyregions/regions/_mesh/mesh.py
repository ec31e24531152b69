"""The refinement loop shared by the meshes of every dimension: the mesh's state, the layer loop computing float
pre-activations with proven bounds at the vertices, the exact lines the edges lie on, the new vertices' values where
a split crosses an edge, and the output. The vertices' sides and their exact decisions are :mod:`.vertex_sides`'s,
the regions' float maps on deep networks :mod:`.region_maps`'s (both base classes of :class:`Mesh`).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from polyregions._support.progress import progress_bar
from polyregions.exact._integers import primitive
from polyregions.networks._float_filter import (
    U,
    activate,
    doubles,
    float_layer,
    forward_layer,
    in_single,
    interpolate,
    read_bounds,
    safety,
    stored_bounds,
)
from polyregions.regions._mesh.region_maps import RegionMaps
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
    ComputedOnce,
    distinct,
    distinct_ranks,
    grow,
    padded,
    unproven_rows,
    vertex_arrays,
)
from polyregions.regions._mesh.vertex_sides import VertexSides
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
#: Vertices times units above which the last layer refined keeps its values in single precision
#: (:func:`~polyregions.networks._float_filter.in_single`) and its bounds in 16 bits (every other layer keeps
#: them in single precision): no later layer is computed from them, only that layer's sides and the values of
#: the vertices its splits create, so bounds ``2^-24 |z|`` and ``2^-7`` wider cost a few more exact decisions
#: and save 60% of a wide network's largest arrays.
_SINGLE_ENTRIES = 1 << 25


class Mesh(VertexSides, RegionMaps, ABC):
    """State and layer loop shared by the meshes of every dimension.

    Vertices carry, for the current layer, its pre-activations ``Z`` with bounds ``E`` and the proven signs
    ``S`` against every hyperplane ``h = unit * T + bp`` of the layer. Faces carry ``code``: bit 1 when a vertex
    lies strictly above hyperplane ``h``, bit 2 when one lies strictly below. Lines (where edges lie) are
    events ``(layer, unit, bp, region)``; the domain's own rows are lines with layer -1.
    """

    # Set by the subclasses' ``_initial_mesh``: vertices and faces used, and the domain's corners (exact).
    nv: int
    nf: int
    points_cache: dict[int, tuple[int, ...]]  # the exact points of vertices, once computed
    corner_points: Sequence[Vector]
    vline: np.ndarray  # the lines (planes) each vertex lies on: one column per dimension
    #: Whether the last layer's new vertices skip the columns before their unit's (see :meth:`_crossing`).
    skip_columns = True
    # Set by ``run``: the float layers, the current layer's vertex state and face codes, and each face's region
    # of the previous layers.
    flayers: list
    sparse: list  # per layer: its sparse weights (polyregions.regions._mesh.sparse_layers), or None
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
        self._map_room: tuple[np.ndarray, np.ndarray] | None = None  # the arrays they begin, with room to grow
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
        # Per pair of regions the output returns: whether their float output maps are proven different (None: no
        # proof made).
        self.different_maps: np.ndarray | None = None

    # the parts each dimension provides -----------------------------------------------------------------

    @abstractmethod
    def _initial_mesh(self) -> None:
        """Build the mesh of the domain ``A t <= b``: one face, its vertices, ``nv``, ``nf`` and ``corner_points``."""

    @abstractmethod
    def _homogeneous(self, vertices: np.ndarray) -> Sequence[tuple[int, ...]]:
        """Exact homogeneous integer coordinates ``(X_1, ..., X_k, W)``, ``W > 0``, of the given vertices."""

    def _cached_points(self, vertices: np.ndarray,
                       meet: Callable[[int, list], tuple[int, ...]]) -> list[tuple[int, ...]]:
        """:meth:`_homogeneous` where each vertex is where its lines (planes) meet: ``meet(v, rows)`` from the
        exact rows ``(a_1, ..., a_k, c)`` (``a . t + c = 0``) of vertex ``v``'s lines, computed once per vertex."""
        self._ensure_lines(distinct(self.vline[vertices]))
        out = []
        cache, rows = self.points_cache, self.line_rows
        for v, lines in zip(vertices.tolist(), self.vline[vertices].tolist()):
            point = cache.get(v)
            if point is None:
                point = cache[v] = meet(v, [rows[line] for line in lines])
            out.append(point)
        return out

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

    def _cell_lines(self, q: int, unit: int, bp: int, cells: np.ndarray) -> np.ndarray:
        """Per crossed cell, the line (plane) of breakpoint ``bp`` of ``unit`` of layer ``q`` on its region of the
        previous layers: one line per region, shared by its cells."""
        ancestor = self.anc[cells]
        first_region, region_rank = distinct_ranks(ancestor)
        return self._add_lines(q, unit, bp, ancestor[first_region])[region_rank]

    def _grow_line_rows(self, needed: int) -> None:
        if needed > self.lrow.shape[0]:
            size = max(needed, 2 * self.lrow.shape[0])
            self.lrow = grow(self.lrow, size)
            old = self.lerr.shape[0]
            self.lerr = grow(self.lerr, size)
            self.lerr[old:] = np.inf

    def _ensure_lines(self, ids) -> None:
        """Compute the exact rows of the given lines that are not known yet."""
        unknown = sorted({int(i) for i in ids} - self.line_rows.keys())
        if not unknown:
            return
        assert self.exact is not None  # lines other than the domain's rows come from the layers
        missing = np.array(unknown, dtype=np.int64)
        layer, unit, bp, region = self.lines[missing].T
        rows = self.exact.rows_of_levels(layer, region, unit, bp, self.pieces, self.ancestors)
        self.line_rows.update(zip(missing.tolist(), rows))

    # the layer loop ------------------------------------------------------------------------------------

    def _oriented_row(self, line: int, above: bool) -> tuple[tuple[Fraction, ...], Fraction]:
        """The row ``a . t <= c`` of a line (a plane in 3-D) for a region below (or above) its breakpoint, in
        primitive integers (a domain's row too, as the LP engine and a store write it)."""
        ints = self.line_rows[line]
        sign = -1 if above else 1
        return tuple(Fraction(sign * v) for v in ints[:-1]), Fraction(-sign * ints[-1])

    def _integer_row(self, line: int, above: bool) -> tuple[int, ...]:
        """Primitive integers ``(a_1, ..., a_k, c)`` with the region's side of the line (plane) being
        ``a . t <= c`` (a domain's line: the side of its row, ``above`` False)."""
        *a, c = self.line_rows[line]
        return (*(-v for v in a), c) if above else (*a, -c)

    def run(self, *, progress: bool = False) -> tuple[Sequence[Region], np.ndarray, np.ndarray]:
        """Refine layer by layer; return the regions, their pattern matrix (a row per region, a column per
        neuron) and the pairs ``(i, j)`` of regions sharing a facet (an array with two columns; a pair may
        repeat)."""
        self.start()
        with progress_bar(total=self.breakpoints(range(len(self.layers))), desc="breakpoints",
                          enabled=progress) as bar:
            for q in range(len(self.layers)):
                self.refine_layer(q, bar)
        return self._output()

    def start(self) -> None:
        """The mesh of the domain, and the layers in floating point, before any layer is refined."""
        self._initial_mesh()
        self.flayers = []
        self.sparse = []
        for layer in self.layers:
            if isinstance(layer, SparseLayer):  # kept sparse from the rewriting on: never a dense matrix
                flayer, sparse_pair = sparse_float_layer(layer)
                weights: SparseWeights | None = sparse_pair
            else:
                flayer = float_layer(layer)
                weights = sparse_weights(flayer)  # wide rewritten layers of few inputs per unit
            self.flayers.append(flayer)
            self.sparse.append(weights)

    def breakpoints(self, layers: range) -> int:
        """The hyperplanes that refining the given layers cuts the mesh with (the progress bar's steps)."""
        return sum(self.layers[q].width * len(self.layers[q].activation.breakpoints) for q in layers)

    def refine_layer(self, q: int, bar) -> None:
        """Cut the mesh with every hyperplane of layer ``q`` (the layers before it refined), one step of ``bar``
        per hyperplane."""
        layer, sparse = self.layers[q], self.sparse
        width = layer.width
        large = q == len(self.layers) - 1 and self.nv * width >= _SINGLE_ENTRIES
        precision, bounds = (np.float32, np.uint16) if large else (np.float64, np.float32)
        T = len(layer.activation.breakpoints)
        if (q > 0 and self.Z.dtype == precision and self.Z.shape[1] == width and self.S.shape[1] == padded(width * T)
                and self.Z.shape[0] >= 4 * self.nv):
            # A layer as wide as the one before takes over its arrays while they have room for the vertices it
            # adds: each block of rows is read before it is written, and a deep network's largest arrays are
            # then held once.
            Z, E, S = self.Z, self.E, self.S
        else:
            Z, E, S = vertex_arrays(self.nv, [(width, precision), (width, bounds), (padded(width * T), np.int8)])
        self.S = _RELEASED  # the previous layer's sides are not read again
        use_maps = self._next_maps(q, sparse)
        face = self._face_of_vertex() if use_maps else None
        if q == 0:
            corners, corner_errors = doubles(self.corner_points)
        for start in range(0, self.nv, _ROWS):  # in blocks of rows: no temporary of the whole layer
            rows = slice(start, min(start + _ROWS, self.nv))
            if q > 0:
                h_val, e_val = activate(self.flayers[q - 1], self.Z[rows], read_bounds(self.E[rows]))
            else:
                h_val, e_val = corners[rows], corner_errors[rows]
            weights = sparse[q]
            # Computed in double precision, the values in place when the layer keeps them so.
            n = rows.stop - rows.start
            z, e = Z[rows] if precision is np.float64 else np.empty((n, width)), np.empty((n, width))
            if weights is None:
                forward_layer(self.flayers[q], h_val, e_val, out=(z, e))
            else:
                z[:], e[:] = sparse_forward(self.flayers[q], weights, h_val, e_val)
            if T:
                self._sides(q, z, e, out=S[rows])
            if face is not None:
                # Where the values carried from the last layer leave a side open (their bounds grow with depth),
                # the values from the vertex's region's map at its point, from the rows of its two lines; both
                # enclose the same value, so each entry keeps the smaller bound.
                todo = unproven_rows(S[rows]) if T else np.flatnonzero(~np.isfinite(e).all(axis=1))
                if todo.size:
                    Za, Ea, _ = self._anchored(start + todo, face[start + todo])
                    zc, ec = z[todo], e[todo]
                    tighter = Ea < ec
                    zc[tighter], ec[tighter] = Za[tighter], Ea[tighter]
                    z[todo], e[todo] = zc, ec
                    if T:
                        S[start + todo] = self._sides(q, zc, ec)
            if precision is np.float64:
                E[rows] = stored_bounds(e, bounds)
            else:
                Z[rows], E[rows] = in_single(z, e, bounds)
        self.Z, self.E, self.S = Z, E, S  # the previous layer's values go
        del Z, E, S
        if layer.activation.is_linear:
            self.pieces.append(None)
            self.ancestors.append(np.arange(self.nf, dtype=np.int64))
            return
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

    def release(self) -> None:
        """Drop the float state once every layer is refined: the output needs none of it."""
        self.Z = self.E = self.S = self.code = _RELEASED
        self.fmaps = self.fmap_err = self.xmaps = self.xerr = self._map_room = None

    def _output(self) -> tuple[Sequence[Region], np.ndarray, np.ndarray]:
        maps = self.fmaps, self.fmap_err  # held here past the release, until the pairs' output maps are compared
        self.release()
        pairs = self._adjacent_pairs()
        self.different_maps = None if self.shown_patterns is not None else self._different_output_maps(pairs, *maps)
        del maps
        patterns = self._pattern_matrix(self.nf)
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
        # (arithmetic in double precision always)
        zp, zq = (np.asarray(Z[at], dtype=np.float64) for at in (ends, other_ends))
        ep, eq = (read_bounds(E[at]) for at in (ends, other_ends))
        return interpolate(zp, ep, zq, eq, unit - first, fa.breakpoints[bp], fa.breakpoint_errors[bp])

    def _pattern_matrix(self, faces: int) -> np.ndarray:
        """Pieces of every neuron (columns in the order of ``Network.neurons``) for faces ``0..faces-1``."""
        current = np.arange(faces, dtype=np.int64)
        chain = []
        for q in range(len(self.layers) - 1, -1, -1):
            chain.append(current)
            current = self.ancestors[q][current]
        chain.reverse()  # chain[q]: the level q+1 region of every face
        layers = [q for q in range(len(self.layers)) if self.pieces[q] is not None]
        kind = np.result_type(np.int8, *(self.pieces[q].dtype for q in layers))
        matrix = np.empty((faces, sum(self.pieces[q].shape[1] for q in layers)), dtype=kind)
        start = 0
        for q in layers:  # written in place: a wide network's matrix is never held twice
            width = self.pieces[q].shape[1]
            matrix[:, start:start + width] = self.pieces[q][chain[q]]
            start += width
        return matrix

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
