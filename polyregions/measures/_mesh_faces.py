"""The faces of a 1-D or 2-D refined complex and the exact signs of the decision functions on them, read straight
from the mesh engine's own cells.

The mesh engine (:mod:`polyregions.regions._mesh`) keeps its regions as intervals or counter-clockwise vertex
cycles over one shared pool of vertex ids, and a vertex on a side of a region appears in that region's cycle (the
engine inserts a new vertex into every region around the edge it splits). So the vertices, the edges (consecutive
pairs of a cycle, each once) and the regions, with their incidences, form a regular cell complex of the domain
without any region's geometry being rebuilt from its inequalities. An edge of the pool may be part of a straight
side of a region cut by a vertex of a neighbour: as a cell complex this is a subdivision of the one of
:func:`~polyregions.measures.faces.face_complex`, with the same topology.

Signs are exact: on a region of the layers before the decision units, each decision function is
``(a . t + c) / Z`` with integers from the engine's exact maps and ``Z > 0``, so its sign at a vertex
``t = x / w`` (integers, ``w > 0``) is the sign of the integer ``a . x + c w``. The sign on the relative
interior of a face follows from the pieces of the regions around it and the signs at its vertices, as in
:func:`~polyregions.measures._decision_signs.face_signs` (whose rule and checks are repeated here).
"""

from __future__ import annotations

from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Any

import numpy as np

from polyregions.errors import CertificateError
from polyregions.measures._decision_signs import signs_from_bounds
from polyregions.measures._face_arrays import FaceArrays
from polyregions.measures.faces import ComplexFace, FaceComplex

if TYPE_CHECKING:
    from polyregions.exact.linalg import Vector
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain

__all__ = ["mesh_faces_and_signs"]


def mesh_cells(network: "Network", domain: "Domain", keeping: Any, *, progress: bool = False) -> tuple:
    """Run the mesh engine on ``network`` (in input coordinates) over a bounded 1-D or 2-D ``domain``, its class
    wrapped by ``keeping`` (which keeps what a caller reads off the run), and return ``(engine, complex_, patterns,
    rank, cells)``: the engine after its run, the region complex, the patterns of the mesh faces in the engine's
    order, the rank of every mesh face among the complex's regions (``complex_from_arrays`` orders them by
    pattern, all distinct), and the engine's cells."""
    from polyregions._support.runtime import one_blas_thread
    from polyregions.regions._mesh.mesh_1d import Mesh1D
    from polyregions.regions._mesh.mesh_2d import Mesh2D
    from polyregions.regions.complex import complex_from_arrays

    net = network.restrict(domain.origin, domain.directions)
    A = tuple(tuple(Fraction(v) for v in row) for row in domain.region.A)
    b = tuple(Fraction(v) for v in domain.region.b)
    engine = keeping(Mesh1D if domain.dim == 1 else Mesh2D)(net, A, b)
    with one_blas_thread():
        regions, patterns, pairs = engine.run(progress=progress)
    complex_ = complex_from_arrays(network, domain, regions, patterns, pairs, exact=True, engine="mesh")
    order = np.lexsort(patterns.T[::-1]) if patterns.shape[1] else np.arange(len(patterns))
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return engine, complex_, patterns, rank, _cells_1d(engine) if domain.dim == 1 else _cells_2d(engine)


def mesh_faces_and_signs(augmented: "Network", domain: "Domain", *,
                         progress: bool = False) -> tuple["RegionComplex", FaceArrays, np.ndarray]:
    """Enumerate the regions of ``augmented`` on a bounded 1-D or 2-D ``domain`` with the mesh engine, and return
    the region complex, its faces and the sign of every decision function on every face.

    Parameters
    ----------
    augmented : Network
        A dense :func:`~polyregions.measures._decision_signs.augmented_network` (its last layer: a ReLU unit on
        each decision function).
    domain : Domain
        A bounded domain of dimension 1 or 2 in the network's input space.
    progress : bool, keyword-only
        Show the engine's progress bar.

    Returns
    -------
    tuple
        The :class:`~polyregions.regions.complex.RegionComplex` (as ``refine_mesh`` makes it), the
        :class:`~polyregions.measures._face_arrays.FaceArrays` of its faces (numbered as in its
        :class:`~polyregions.measures.faces.FaceComplex`, sorted by dimension then vertices, which they build, without
        tight neurons, when asked) and an int8 array of signs, one row per face, one column per decision function.

    Raises
    ------
    CertificateError
        When the cells do not form a complex of the domain, or the vertex signs contradict the regions' pieces.
    """
    from polyregions._support.runtime import collector_paused

    with collector_paused():
        engine, complex_, patterns, rank, cells = mesh_cells(augmented, domain, _keeping_sides, progress=progress)
        n = len(cells.keys)
        dims = np.fromiter((dim for dim, _ in cells.keys), dtype=np.int64, count=n)
        # A subdivision of a convex polytope (a closed ball) has Euler characteristic 1.
        chi = int(np.where(dims % 2 == 0, 1, -1).sum())
        if chi != 1:
            raise CertificateError(f"decision topology: expected the cells of the mesh to have the Euler "
                                   f"characteristic 1 of the domain, got {chi}")
        covers = np.sort(cells.covers[:, 0] * np.int64(n) + cells.covers[:, 1])  # no repeats
        covers = np.stack([covers // n, covers % n], axis=1)
        width = len(engine.layers[-1].weight)
        signs = _face_signs(cells, patterns[:, -width:], _vertex_signs(engine, cells.used), n)
    arrays = FaceArrays(domain.dim, dims, cells.interior, covers, partial(_point, engine, cells, domain),
                        partial(_face_complex, complex_, engine, cells, rank, covers))
    return complex_, arrays, signs


class _Cells:
    """The cells in the engine's numbering, listed in the face complex's order (vertices, edges, regions).

    ``used``: the engine's vertex ids in use, increasing (vertex ``i`` of the complex is ``used[i]``).
    ``keys``: per face, ``(dim, sorted vertex indices)``. ``around``: pairs (face, mesh region) of the regions
    whose closure holds the face. ``corners``: pairs (face, vertex index). ``covers``: pairs (facet, face).
    ``interior``: per face, whether it lies in the open domain."""

    def __init__(self, used, keys, around, corners, covers, interior):
        self.used, self.keys, self.around, self.corners = used, keys, around, corners
        self.covers, self.interior = covers, interior


def _cells_1d(engine) -> _Cells:
    nf = engine.nf
    left, right = engine.left[:nf], engine.right[:nf]
    used, index = np.unique(np.concatenate([left, right]), return_inverse=True)
    lo, hi = index[:nf], index[nf:]
    nv = used.size
    if (lo == hi).any():
        raise CertificateError("decision topology: expected intervals of positive length from the mesh engine")
    ends = np.concatenate([lo, hi])
    owner = np.concatenate([np.arange(nf), np.arange(nf)])
    # Intervals sorted by their (sorted) ends; the regions come after the nv vertices.
    first, second = np.minimum(lo, hi), np.maximum(lo, hi)
    interval_order = np.lexsort((second, first))
    position = np.empty(nf, dtype=np.int64)
    position[interval_order] = nv + np.arange(nf)
    keys: list[tuple[int, tuple[int, ...]]] = [(0, (v,)) for v in range(nv)]
    keys += [(1, (int(u), int(w))) for u, w in zip(first[interval_order].tolist(), second[interval_order].tolist())]
    count = np.bincount(ends, minlength=nv)
    if (count > 2).any() or (count == 0).any():
        raise CertificateError("decision topology: expected every vertex of the segment to end one or two intervals")
    around = np.concatenate([np.stack([ends, owner], axis=1), np.stack([position, np.arange(nf)], axis=1)])
    corners = np.concatenate([np.stack([np.arange(nv), np.arange(nv)], axis=1),
                              np.stack([position[owner], ends], axis=1)])
    covers = np.stack([ends, position[owner]], axis=1)
    interior = np.concatenate([count == 2, np.ones(nf, dtype=bool)])
    return _Cells(used, keys, around, corners, covers, interior)


def _cells_2d(engine) -> _Cells:
    from polyregions.regions._mesh.support import KEY

    engine._compact()
    nf, total = engine.nf, engine.ptop
    lens = engine.flen[:nf]
    present = np.zeros(engine.nv, dtype=bool)
    present[engine.pv[:total]] = True
    if present.all():  # the usual case: every vertex made is on some cycle
        used, pool = np.arange(engine.nv, dtype=np.int64), engine.pv[:total]
    else:
        used, pool = np.unique(engine.pv[:total], return_inverse=True)
    nv = used.size
    owner = np.repeat(np.arange(nf, dtype=np.int64), lens)
    following = pool[engine._next_in_cycle()]
    low, high = np.minimum(pool, following), np.maximum(pool, following)
    if (low == high).any():
        raise CertificateError("decision topology: expected no repeated vertex along a cycle of the mesh engine")
    edge_keys, edge_of = np.unique(low * np.int64(KEY) + high, return_inverse=True)
    ne = edge_keys.size
    sides = np.bincount(edge_of, minlength=ne)
    if (sides > 2).any() or np.unique(edge_of * np.int64(nf) + owner).size != total:
        raise CertificateError("decision topology: expected every edge of the mesh to bound one or two "
                               "distinct regions")
    u, w = edge_keys // KEY, edge_keys % KEY
    # Regions sorted by their sorted vertex tuples, after the vertices and the edges.
    starts = np.cumsum(lens) - lens
    polygon = [tuple(sorted(pool[s:s + n].tolist())) for s, n in zip(starts.tolist(), lens.tolist())]
    polygon_order = sorted(range(nf), key=polygon.__getitem__)
    position = np.empty(nf, dtype=np.int64)
    position[polygon_order] = nv + ne + np.arange(nf)
    keys: list[tuple[int, tuple[int, ...]]] = [(0, (v,)) for v in range(nv)]
    keys += [(1, (a, c)) for a, c in zip(u.tolist(), w.tolist())]
    keys += [(2, polygon[f]) for f in polygon_order]
    edge_face = nv + edge_of
    vertex_regions = np.unique(pool * np.int64(nf) + owner)
    around = np.concatenate([np.stack([vertex_regions // nf, vertex_regions % nf], axis=1),
                             np.stack([edge_face, owner], axis=1),
                             np.stack([position, np.arange(nf)], axis=1)])
    edge_ids = nv + np.arange(ne)
    corners = np.concatenate([np.stack([np.arange(nv), np.arange(nv)], axis=1),
                              np.stack([edge_ids, u], axis=1), np.stack([edge_ids, w], axis=1),
                              np.stack([position[owner], pool], axis=1)])
    covers = np.concatenate([np.stack([u, edge_ids], axis=1), np.stack([w, edge_ids], axis=1),
                             np.stack([edge_face, position[owner]], axis=1)])
    boundary_edge = sides == 1
    on_boundary = np.zeros(nv, dtype=bool)
    on_boundary[u[boundary_edge]] = on_boundary[w[boundary_edge]] = True
    interior = np.concatenate([~on_boundary, ~boundary_edge, np.ones(nf, dtype=bool)])
    return _Cells(used, keys, around, corners, covers, interior)


def _point(engine, cells: _Cells, domain: "Domain", face: int) -> "Vector":
    """The mean of the vertices of a face, exactly, in input coordinates (as ``FaceComplex.point``)."""
    points = engine._homogeneous(cells.used[list(cells.keys[face][1])])
    mean = tuple(sum((Fraction(x, p[-1]) for x, p in zip(column, points)), Fraction(0)) / len(points)
                 for column in zip(*(p[:-1] for p in points)))
    return domain.to_input(mean)


def _face_complex(complex_: "RegionComplex", engine, cells: _Cells, rank: np.ndarray,
                  covers: np.ndarray) -> FaceComplex:
    """The face complex of the cells, its regions numbered as in ``complex_``."""
    n, count = len(cells.keys), np.int64(len(rank))
    around = np.sort(cells.around[:, 0] * count + rank[cells.around[:, 1]])  # by face, then region; no repeats
    ends = np.cumsum(np.bincount(around // count, minlength=n)).tolist()
    flat = (around % count).tolist()
    faces = tuple(ComplexFace(dim, verts, tuple(flat[start:end]), inside)
                  for (dim, verts), start, end, inside in zip(cells.keys, [0] + ends[:-1], ends,
                                                               cells.interior.tolist()))
    points = engine._homogeneous(cells.used)  # exact (x, w) or (x, y, w), w > 0
    vertices = tuple(tuple(Fraction(x, p[-1]) for x in p[:-1]) for p in points)
    return FaceComplex(complex_, vertices, faces, tuple(zip(covers[:, 0].tolist(), covers[:, 1].tolist())))


def _keeping_sides(base):
    """The mesh class ``base`` keeping, when it finishes, the sides of every vertex against the last layer (the
    decision units) and the number of vertices that layer started with."""

    class KeepingSides(base):
        def _start_layer(self, q: int) -> None:
            self.last_layer_start = self.nv
            super()._start_layer(q)

        def _output(self):
            width = len(self.layers[-1].weight)  # one column per unit: a ReLU has one breakpoint
            self.decision_sides = self.S[:self.nv, :width].copy()
            return super()._output()

    return KeepingSides


def _vertex_signs(engine, used: np.ndarray) -> np.ndarray:
    """The sign of every decision function at every vertex in use.

    The engine's sides against the last layer are proven (float filter with error bounds) or exact, except for
    the units before the one whose cut created a vertex in that layer (left unset by the engine, which never reads
    them): those vertices, and any side left unproven, are signed with integers (module notes)."""
    from polyregions.regions._mesh.support import ABOVE, BELOW, ON

    sides = engine.decision_sides[used]
    width = sides.shape[1]
    signs = np.zeros(sides.shape, dtype=np.int8)
    signs[sides == ABOVE] = 1
    signs[sides == BELOW] = -1
    known = (sides == ABOVE) | (sides == BELOW) | (sides == ON)
    redo = ~known.all(axis=1)
    if width > 1:
        redo |= used >= engine.last_layer_start
    again = np.flatnonzero(redo)
    if again.size:
        signs[again] = _exact_vertex_signs(engine, used[again], engine._homogeneous(used[again]), width)
    return signs


def _exact_vertex_signs(engine, vertices: np.ndarray, points, width: int) -> np.ndarray:
    """The signs of the decision functions at the given vertices, with integers."""
    q = len(engine.layers) - 1
    face = engine._face_of_vertex()[vertices]
    level = engine.ancestors[q][face]  # the vertex's region of the layers before the decision units
    regions, which = np.unique(level, return_inverse=True)
    rows = engine.exact.rows(q, np.repeat(regions, width), np.tile(np.arange(width), regions.size),
                             np.zeros(regions.size * width, dtype=np.int64), engine.pieces, engine.ancestors,
                             primitive=False)
    signs = np.empty((vertices.size, width), dtype=np.int8)
    for v, (point, r) in enumerate(zip(points, which.tolist())):
        for j in range(width):
            value = sum(a * x for a, x in zip(rows[r * width + j], point))
            signs[v, j] = (value > 0) - (value < 0)
    return signs


def _face_signs(cells: _Cells, pieces: np.ndarray, vertex: np.ndarray, n: int) -> np.ndarray:
    """The sign of every decision function on the relative interior of every face (rule and checks of
    :func:`~polyregions.measures._decision_signs.face_signs`)."""
    low = np.full((n, pieces.shape[1]), 127, dtype=np.int8)
    high = np.full((n, pieces.shape[1]), -128, dtype=np.int8)
    np.minimum.at(low, cells.around[:, 0], pieces[cells.around[:, 1]].astype(np.int8))
    np.maximum.at(high, cells.around[:, 0], pieces[cells.around[:, 1]].astype(np.int8))
    vmin = np.full_like(low, 127)
    vmax = np.full_like(high, -128)
    np.minimum.at(vmin, cells.corners[:, 0], vertex[cells.corners[:, 1]])
    np.maximum.at(vmax, cells.corners[:, 0], vertex[cells.corners[:, 1]])
    return signs_from_bounds(low, high, vmin, vmax)
