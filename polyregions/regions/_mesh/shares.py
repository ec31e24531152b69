"""The 2-D mesh engine a share at a time: the engine side of a streamed enumeration with ``engine="mesh"``
(:func:`polyregions.regions.stream.stream_regions`).

The domain's mesh is refined by the first layer once and kept: its faces are the first layer's cells, numbered in
pattern order as the store numbers them. A share of them is cut out as a mesh of its own
(:meth:`~.mesh_2d.Mesh2D.restricted`) and refined by the later layers, which gives the regions of the whole mesh
inside those cells and the adjacency among them. The share's other facets lie on its boundary, on lines of the
first layer; each goes out with the exact ends of its segment. Two facets with the same segment, from two
shares, belong to two regions on either side of it that meet along all of it (and nothing else meets either of
them there), so the pair is proved by the ends alone. A facet whose segment no other facet has (one side of it is
cut where the other is not, which only degenerate networks do, or its partner was committed before a resumed
run) stays open in the store for the end of the run.
"""

from __future__ import annotations

from fractions import Fraction
from math import gcd
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np

from polyregions._support.progress import _Silent
from polyregions.regions._mesh.mesh_2d import Mesh2D, Runs
from polyregions.regions._mesh.support import KEY
from polyregions.regions._store import ShareRecords
from polyregions.regions._streamed import matrix_text, neuron_texts, vector_text

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["MeshShares", "Segment"]

#: A facet's segment: its two exact ends ``(X, Y, W)`` (the point ``(X / W, Y / W)``, coprime, ``W > 0``), sorted.
Segment = tuple[tuple[int, int, int], tuple[int, int, int]]


class MeshShares:
    """The domain ``A t <= b`` of a dense network on ``R^2`` (``net``, in domain coordinates) meshed and refined
    by the first layer; :meth:`share` refines a range of its cells further."""

    def __init__(self, net: "Network", A: Sequence[Sequence[Fraction]], b: Sequence[Fraction]) -> None:
        mesh = Mesh2D(net, tuple(tuple(Fraction(v) for v in row) for row in A), tuple(Fraction(v) for v in b))
        mesh.start()
        if mesh.layers:
            mesh.refine_layer(0, _Silent())
        self.mesh = mesh
        pieces = mesh.pieces[0] if mesh.pieces and mesh.pieces[0] is not None else np.zeros((mesh.nf, 0))
        self.order = pattern_order(pieces)

    @property
    def cells(self) -> int:
        """How many cells the first layer has."""
        return int(self.order.size)

    def share(self, first: int, cells: int, itemsize: int) -> tuple[ShareRecords, list[Optional[Segment]]]:
        """Cells ``first .. first + cells - 1`` refined by the later layers, as rows of the store (regions in
        pattern order, the pairs among them, the facets left open with their midpoints), and every open facet's
        segment (None where the segment is not the whole facet)."""
        part = self.mesh.restricted(self.order[first:first + cells])
        for q in range(1, len(part.layers)):
            part.refine_layer(q, _Silent())
        part.release()
        patterns = part._pattern_matrix(part.nf)
        order = pattern_order(patterns)
        rank = np.empty_like(order)
        rank[order] = np.arange(order.size)
        pairs = rank[part._adjacent_pairs()]
        pairs = np.unique(np.sort(pairs, axis=1), axis=0) if len(pairs) else pairs.reshape(0, 2)
        ordered = patterns[order]
        runs = part._runs(patterns)
        integer = [part._integer_row(c >> 1, bool(c & 1)) for c in runs.codes.tolist()]
        rows, domain_rows, facets = _rows_and_facets(part, runs, integer)
        points = part.interior_points(runs, integer)
        blobs = np.ascontiguousarray(ordered.astype(f">u{itemsize}"))
        regions = [(blobs[i].tobytes(), domain_rows[f], matrix_text(row[:-1] for row in rows[f]),
                    vector_text(row[-1] for row in rows[f]), vector_text(points[f]))
                   for i, f in enumerate(order.tolist())]
        open_facets = sorted((int(rank[f]), row, vector_text(point), segment) for f, row, point, segment in facets)
        records = ShareRecords(first, cells, regions, list(zip(*pairs.T.tolist(), neuron_texts(ordered, pairs))),
                               [(i, row, text) for i, row, text, _ in open_facets])
        return records, [segment for *_, segment in open_facets]


def pattern_order(patterns: np.ndarray) -> np.ndarray:
    """The rows of a pattern matrix in the order of their tuples."""
    if not patterns.shape[1]:
        return np.arange(patterns.shape[0], dtype=np.int64)
    return np.lexsort(patterns.T[::-1])


def _rows_and_facets(mesh: Mesh2D, runs: Runs, integer: list[tuple[int, ...]]):
    """Every face's rows (the domain's first, one per line) and how many are the domain's, and the facets on the
    mesh's boundary that are not the domain's, ``(face, row, midpoint, segment)``, from the faces' ``runs`` and
    the primitive ``integer`` row of each of their codes."""
    starts, ends, lines, faces, _, code_of_run, _ = runs
    # A pool position whose edge no other face of the mesh has: on the boundary (the domain's or the share's).
    verts = mesh.pv[:mesh.ptop]
    after = verts[mesh._next_in_cycle()]
    keys = np.minimum(verts, after) * KEY + np.maximum(verts, after)
    _, inverse, counts = np.unique(keys, return_inverse=True, return_counts=True)
    # A run on a first-layer line faces one cell across, so its first edge tells where all of its edges are.
    opened = (counts[inverse[starts]] == 1) & (mesh.lines[lines, 0] >= 0)
    ends_of = np.flatnonzero(opened)
    corners = mesh._homogeneous(np.concatenate([verts[starts[ends_of]], verts[ends[ends_of]]]))
    segment_of = dict(zip(ends_of.tolist(), zip(corners[:ends_of.size], corners[ends_of.size:])))
    rows: list[list[tuple[int, ...]]] = [[] for _ in range(mesh.nf)]
    domain_rows = [0] * mesh.nf
    opened_runs: dict[tuple[int, int], list[int]] = {}
    repeated = set()  # rows that several runs of a face give (a line several events carry)
    for run, (face, code, line) in enumerate(zip(faces.tolist(), code_of_run.tolist(), lines.tolist())):
        row, own = integer[code], rows[face]
        if row in own:
            index = own.index(row)
            repeated.add((face, index))
        else:
            index = len(own)
            own.append(row)
            domain_rows[face] += int(mesh.lines[line, 0] < 0)
        if run in segment_of:
            opened_runs.setdefault((face, index), []).append(run)
    facets = []
    for (face, index), on_row in opened_runs.items():
        if index < domain_rows[face]:
            continue  # the domain's row: nothing lies across
        ends_ = segment_of[on_row[0]]
        whole = len(on_row) == 1 and (face, index) not in repeated
        facets.append((face, index, _midpoint(*ends_), _segment(*ends_) if whole else None))
    return rows, domain_rows, facets


def _normal(point: tuple[int, ...]) -> tuple[int, int, int]:
    X, Y, W = point
    d = gcd(X, Y, W)
    return X // d, Y // d, W // d


def _segment(p: tuple[int, ...], q: tuple[int, ...]) -> Segment:
    a, b = _normal(p), _normal(q)
    return (a, b) if a <= b else (b, a)


def _midpoint(p: tuple[int, ...], q: tuple[int, ...]) -> tuple[Fraction, Fraction]:
    return Fraction(p[0] * q[2] + q[0] * p[2], 2 * p[2] * q[2]), Fraction(p[1] * q[2] + q[1] * p[2], 2 * p[2] * q[2])
