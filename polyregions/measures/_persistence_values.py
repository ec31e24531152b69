"""The cells of a region complex and the exact value of a one-output network at each of their vertices, by two
routes that give complexes with the same sublevel sets.

* From any :class:`~polyregions.regions.complex.RegionComplex` (any dimension the face complex reaches): the faces
  of :func:`~polyregions.measures.faces.face_complex`, and the values by one exact forward pass of all vertices
  at once (:func:`forward_values`).
* From a dense network on a 1-D or 2-D domain: the mesh engine's own cells, as the decision topology reads them
  (:mod:`~polyregions.measures._mesh_faces`), with the values from the engine's exact integer maps. The engine
  runs on the network followed by one ReLU unit on ``f + B``, ``B`` a power of two above ``|f|`` on the domain
  (interval arithmetic), so that the unit cuts nothing and its pre-activation has exact rows: on a region,
  ``Z (f + B) = a . t + c`` with integers, so at a vertex ``t = x / w`` (integers, ``w > 0``)
  ``f = (a . x + c w) / (Z w) - B``. Exact values are asked for only where float enclosures cannot order the
  vertices (:mod:`~polyregions.measures._persistence_order`).
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass
from dataclasses import field as dataclass_field
from fractions import Fraction
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np

from polyregions.measures._persistence_order import VertexValues, float_enclosures, identity_or_relu
from polyregions.networks._float_filter import read_bounds

if TYPE_CHECKING:
    from polyregions.exact.linalg import Vector
    from polyregions.measures.faces import FaceComplex
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain

__all__ = ["Cells", "cells_of_complex", "cells_from_mesh", "forward_values"]


@dataclass(frozen=True)
class Cells:
    """A regular cell complex of a bounded domain with the exact values of ``f`` at its vertices.

    Attributes
    ----------
    dim : int
        The domain's dimension.
    complex : RegionComplex
    keys : list of (int, tuple of int)
        Per cell, its dimension and sorted vertex ids.
    covers : numpy.ndarray
        Pairs ``(facet, cell)``, two int64 columns.
    interior : numpy.ndarray
        Per cell, whether its relative interior lies in the open domain.
    values : VertexValues
        Per vertex id, ``f`` there: enclosed in floats, exact on demand.
    point : callable
        ``point(v)``: vertex ``v`` in input coordinates, exactly.
    build : callable
        ``build()``: the :class:`~polyregions.measures.faces.FaceComplex` with these cells in this order.
    """

    dim: int
    complex: "RegionComplex"
    keys: list[tuple[int, tuple[int, ...]]] = dataclass_field(repr=False)
    covers: np.ndarray = dataclass_field(repr=False)
    interior: np.ndarray = dataclass_field(repr=False)
    values: VertexValues = dataclass_field(repr=False)
    point: Callable[[int], "Vector"] = dataclass_field(repr=False)
    build: Callable[[], "FaceComplex"] = dataclass_field(repr=False)


def cells_of_complex(complex_: "RegionComplex") -> Cells:
    """The faces of a region complex of a bounded domain, with ``f`` at their vertices."""
    from polyregions.measures.faces import face_complex

    fc = face_complex(complex_, neurons=False)
    points = [fc.to_input(v) for v in fc.vertices]
    network = complex_.network
    floats = np.array([[x.numerator / x.denominator for x in p] for p in points], dtype=np.float64)
    approx, radius = float_enclosures(network, floats.reshape(len(points), network.input_dim))
    values = VertexValues(approx, radius, lambda vertices: forward_values(network, [points[v] for v in vertices]))
    keys = [(face.dim, face.vertices) for face in fc.faces]
    covers = np.array(fc.covers, dtype=np.int64).reshape(-1, 2)
    interior = np.array([face.interior for face in fc.faces], dtype=bool)
    return Cells(fc.dim, complex_, keys, covers, interior, values, points.__getitem__, lambda: fc)


def forward_values(network: "Network", points: Sequence["Vector"]) -> list[Fraction]:
    """The exact output of a one-output network at every point.

    A dense network runs all points at once, one FLINT matrix product per layer; the activation is applied
    entry by entry with the piece left of a breakpoint (activations are continuous, so either piece gives the
    value there). Other networks are evaluated point by point.
    """
    from polyregions.networks.network import Network

    if not points:
        return []
    if not isinstance(network, Network):
        return [network(x)[0] for x in points]
    from flint import fmpq, fmpq_mat

    n = len(points)
    value = fmpq_mat(network.input_dim, n, [fmpq(x.numerator, x.denominator) for x in _by_rows(points)])
    ones = fmpq_mat(1, n, [1] * n)
    for layer in network.layers:
        W, b, breakpoints, slopes, intercepts = layer._flint
        z = W * value + b * ones
        if layer.activation.is_linear and (slopes[0], intercepts[0]) == (1, 0):
            value = z
            continue
        entries = z.entries()
        out = [slopes[k] * v + intercepts[k] for k, v in
               zip((bisect.bisect_left(breakpoints, v) for v in entries), entries)]
        value = fmpq_mat(z.nrows(), n, out)
    return [Fraction(int(v.p), int(v.q)) for v in value.entries()]


def _by_rows(points: Sequence["Vector"]) -> list[Fraction]:
    """The coordinates of the points as a matrix with one column per point, row by row."""
    return [x for row in zip(*points) for x in row]


def cells_from_mesh(network: "Network", domain: "Domain", *, progress: bool = False) -> Cells:
    """The mesh engine's cells of a dense one-output network on a 1-D or 2-D domain, with ``f`` at their vertices
    (module notes)."""
    from polyregions._support.runtime import collector_paused
    from polyregions.measures._mesh_faces import _face_complex, mesh_cells

    shifted, shift = _shifted_network(network, domain)
    with collector_paused():
        engine, complex_, _, rank, cells = mesh_cells(shifted, domain, _keeping_values, progress=progress)
        n = len(cells.keys)
        covers = np.sort(cells.covers[:, 0] * np.int64(n) + cells.covers[:, 1])
        covers = np.stack([covers // n, covers % n], axis=1)
    approx, radius = _enclosures(engine, cells.used, shift)
    values = VertexValues(approx, radius, lambda vertices: _mesh_values(engine, cells.used, vertices, shift))

    def point(v: int) -> "Vector":
        p = engine._homogeneous(cells.used[[v]])[0]
        return domain.to_input(tuple(Fraction(x, p[-1]) for x in p[:-1]))

    def build() -> "FaceComplex":
        return _face_complex(complex_, engine, cells, rank, covers)

    return Cells(domain.dim, complex_, cells.keys, covers, cells.interior, values, point, build)


def _shifted_network(network: "Network", domain: "Domain") -> tuple["Network", Fraction]:
    """``network`` followed by one ReLU unit on ``f + B``, and ``B``: a power of two above ``|f|`` on the
    domain, so the unit never cuts a region and its pre-activation's exact rows give ``f``. Without a finite
    bound, ``B = 0``: the unit cuts along ``f = 0`` (a subdivision, as in the decision topology)."""
    from polyregions.networks.activations import relu
    from polyregions.networks.layer import Layer
    from polyregions.networks.network import Network

    corners = np.array([[float(x) for x in domain.to_input(v)] for v in domain.region.vertices()], dtype=np.float64)
    h = np.abs(corners).max(axis=0)
    for (W, b), layer in zip(network.float_layers(), network.layers):
        if not identity_or_relu(layer):
            h = np.full(1, np.inf)
            break
        h = np.abs(W) @ h + np.abs(b)
    bound = float(h[0]) * 2 + 1
    shift = Fraction(2) ** (int(np.ceil(np.log2(bound))) + 1) if np.isfinite(bound) and bound < 2.0 ** 900 else \
        Fraction(0)
    last = Layer(((Fraction(1),),), (shift,), relu())
    return Network(network.input_dim, network.layers + (last,)), shift


def _keeping_values(base):
    """The mesh class ``base`` keeping, when it finishes, the float values of the last layer's unit at every
    vertex and their proven error bounds (the engine's own filter: ``|exact - Z| <= E``)."""

    class KeepingValues(base):
        def _output(self):
            self.last_values = self.Z[:self.nv, 0].copy(), self.E[:self.nv, 0].copy()
            return super()._output()

    return KeepingValues


def _enclosures(engine, used: np.ndarray, shift: Fraction) -> tuple[np.ndarray, np.ndarray]:
    """Floats of ``f = z - B`` at the vertices ``used`` and radii: the engine's bound on ``z``, widened as its
    own sign test widens it (``64 u``), plus the rounding of the subtraction."""
    u = 2.0 ** -53
    z, e = engine.last_values
    z, e = z[used].astype(np.float64), read_bounds(e[used])  # (as the mesh keeps them)
    B = float(shift)
    with np.errstate(invalid="ignore", over="ignore"):
        return z - B, e * (1 + 128 * u) + 2 * u * (np.abs(z) + B) + 1e-300


def _mesh_values(engine, used: np.ndarray, vertices: Sequence[int], shift: Fraction) -> list[Fraction]:
    """``f`` at ``vertices`` (indices into the engine's vertex ids ``used``), from the integer rows of the last
    layer at their exact homogeneous points (module notes)."""
    q = len(engine.layers) - 1
    ids = used[list(vertices)]
    points = engine._homogeneous(ids)
    face = engine._face_of_vertex()[ids]
    level = engine.ancestors[q][face]  # the vertex's region of the layers before the output's ReLU
    regions, which = np.unique(level, return_inverse=True)
    zeros = np.zeros(regions.size, dtype=np.int64)
    rows = engine.exact.rows(q, regions, zeros, zeros, engine.pieces, engine.ancestors, primitive=False)
    scale = engine.exact.Z[q]
    values = []
    for point, r in zip(points, which.tolist()):
        row = rows[r]
        values.append(Fraction(sum(a * x for a, x in zip(row, point)), scale * point[-1]) - shift)
    return values
