"""The sides of the mesh's vertices against a layer's breakpoints: proven by the float values' bounds, fixed by a
region's pieces where max units' rounds are constant on it, else decided exactly from the layer's integer map on
the vertex's region; and the storing of the vertices a split creates, with their values and sides.
"""

from __future__ import annotations

import math
from functools import cached_property, partial
from typing import TYPE_CHECKING, Sequence

import numpy as np

from polyregions.networks._float_filter import (
    UNCERTAIN,
    certified_signs,
    in_single,
    sorted_breakpoint_signs,
    stored_bounds,
)
from polyregions.regions._mesh.exact_maps import ExactMaps
from polyregions.regions._mesh.support import (
    ABOVE,
    BELOW,
    ON,
    SIDE_OF_SIGN,
    UNPROVEN,
    distinct_ranks,
    grow,
    padded,
    unproven_rows,
)

if TYPE_CHECKING:
    from polyregions.networks.layer import Layer
    from polyregions.regions._mesh.ties import ConstantRounds

__all__ = ["VertexSides"]

_FEW_BREAKPOINTS = 8  # above: each value signed against the breakpoints next to it only (sorted_breakpoint_signs)


class VertexSides:
    """The vertex part of :class:`~.mesh.Mesh` (a base class of it): the current layer's pre-activations ``Z``
    with bounds ``E`` and proven sides ``S`` at the vertices, their exact decisions and the storing of new
    vertices. The attributes below are the mesh's, set by it."""

    layers: tuple[Layer, ...]
    flayers: list
    k: int
    nv: int
    Z: np.ndarray
    E: np.ndarray
    S: np.ndarray
    anc: np.ndarray
    lines: np.ndarray
    vline: np.ndarray
    pieces: list
    ancestors: list
    constant_rounds: ConstantRounds | None

    if TYPE_CHECKING:
        def _homogeneous(self, vertices: np.ndarray) -> Sequence[tuple[int, ...]]: ...

    @cached_property
    def exact(self) -> ExactMaps | None:
        """The exact integer maps of the layers, built on first use: most runs never leave the float filter."""
        return ExactMaps(self.layers, self.k) if self.layers else None

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
        self.Z[where, unit], self.E[where, unit] = self._kept(np.array(values), np.array(errors))
        columns = (unit[:, None] * T + np.arange(T)).ravel()
        self.S[np.repeat(where, T), columns] = sides

    def _kept(self, z: np.ndarray, e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Values and bounds (doubles) as the current layer's arrays keep them: the bounds as
        :func:`~polyregions.networks._float_filter.stored_bounds` of the bounds' type, and the values in single
        precision, with their rounding in the bounds (:func:`~polyregions.networks._float_filter.in_single`),
        when those are float32."""
        if self.Z.dtype == np.float32:
            return in_single(z, e, self.E.dtype.type)
        return z, stored_bounds(e, self.E.dtype.type)

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
        exact = np.zeros(int(zero.sum()))
        self.Z[where[zero], unit[zero]], self.E[where[zero], unit[zero]] = self._kept(exact, exact)
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
        self.Z[start:end, first:], self.E[start:end, first:] = self._kept(Zn, En)
        if first:
            # Never read; proves nothing.
            self.Z[start:end, :first], self.E[start:end, :first] = self._kept(np.full(1, np.nan), np.full(1, np.inf))
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
