"""The cells of a mesh of dimension 3 and up, each a list of facets on known planes: which cells share a facet,
and their exact geometry (their inequalities, one per plane of their facets, and an exact point strictly inside
each)."""

from __future__ import annotations

import math
from abc import abstractmethod
from fractions import Fraction
from typing import TYPE_CHECKING

import numpy as np

from polyregions.networks._float_filter import gamma, safety
from polyregions.regions._mesh.mesh import Mesh
from polyregions.regions._mesh.support import KEY, MeshError, distinct

if TYPE_CHECKING:
    from polyregions.exact.linalg import Matrix, Vector

__all__ = ["CellMesh", "cell_geometry"]


class CellMesh(Mesh):
    """A mesh whose cells (the regions) list their facets, each facet on one plane and listed by the one or two
    cells it bounds; the mesh supplies its cells' facets, the cells' vertices and the planes of facets."""

    xyz: np.ndarray  # the vertices' approximate points (vertices, k)

    @abstractmethod
    def _cell_facets(self) -> tuple[np.ndarray, np.ndarray, int]:
        """Per cell and facet, in cell order: the cell and the facet; and the number of facets in the mesh."""

    @abstractmethod
    def _facet_planes(self, facets: np.ndarray) -> np.ndarray:
        """The plane (a line id) of each given facet."""

    @abstractmethod
    def _cell_vertices(self, cells: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """The vertices of the given cells, cell after cell, each once, and every cell's number of vertices."""

    def _adjacent_pairs(self) -> np.ndarray:
        """The two cells of every interior facet (a facet is listed by both); cells sharing a facet cut into several
        facets appear once per facet."""
        owner, facet, facets = self._cell_facets()
        last = np.empty(facets, dtype=np.int64)
        last[facet] = owner  # one cell of each facet; the entry of its other cell (if any) differs
        other = (last[facet] != owner).nonzero()[0]
        first, second = owner[other], last[facet[other]]
        return np.stack([np.minimum(first, second), np.maximum(first, second)], axis=1)

    def _cell_planes(self) -> tuple[np.ndarray, np.ndarray]:
        """Per cell and facet, in cell order: the cell and the facet's plane (a line id)."""
        owner, facet, _ = self._cell_facets()
        return owner, self._facet_planes(facet)

    def _face_geometry(self, patterns: np.ndarray) -> list[tuple[Matrix, Vector, Vector]]:
        return cell_geometry(self, patterns)


def cell_geometry(mesh: CellMesh, patterns: np.ndarray) -> list[tuple["Matrix", "Vector", "Vector"]]:
    """Every cell's exact inequalities ``A t <= b`` (a row per distinct plane of its facets, facets on one plane
    giving one row) and an exact interior point."""
    nf = mesh.nf
    owner, planes = mesh._cell_planes()
    key = distinct(owner * KEY + planes)
    run_cells, run_planes = key // KEY, key % KEY
    mesh._ensure_lines(distinct(run_planes))
    above = mesh._line_sides(run_planes, run_cells, patterns)
    codes, code_of_run = np.unique(run_planes * 2 + above, return_inverse=True)
    oriented = [mesh._oriented_row(int(c) >> 1, bool(c & 1)) for c in codes.tolist()]
    integers = [mesh._integer_row(int(c) >> 1, bool(c & 1)) for c in codes.tolist()]
    points = _interior_points(mesh, run_cells, code_of_run, integers)
    all_A = [oriented[i][0] for i in code_of_run.tolist()]
    all_b = [oriented[i][1] for i in code_of_run.tolist()]
    ends = np.cumsum(np.bincount(run_cells, minlength=nf)).tolist()
    return [(tuple(all_A[start:end]), tuple(all_b[start:end]), point)
            for start, end, point in zip([0] + ends[:-1], ends, points)]


def _to_double(value: int) -> float:
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _strictly_inside(points: np.ndarray, r: np.ndarray, run_cells: np.ndarray, integers, code_of_run,
                     cells: np.ndarray) -> np.ndarray:
    """Whether each cell's candidate point (doubles) satisfies each of its rows strictly, for the cells in the
    mask ``cells``: proven in floating point (the rows' integers rounded to doubles, ``k`` products and ``k`` sums
    in dimension ``k``: within ``gamma_{2k+2}`` of the sum of the terms' magnitudes), else checked with integers."""
    p = points[run_cells]
    k = p.shape[1]
    with np.errstate(all="ignore"):
        terms = r[:, :k] * p
        value = terms.sum(axis=1) - r[:, k]
        bound = gamma(2 * k + 2) * (np.abs(terms).sum(axis=1) + np.abs(r[:, k])) * safety(4)
        proven = value < -bound
    ok = np.isfinite(points).all(axis=1) & cells
    unsure = np.flatnonzero(~proven & ok[run_cells])
    if unsure.size:
        coordinates = points.tolist()
        for run in unsure.tolist():
            c = int(run_cells[run])
            if not ok[c]:
                continue
            *a, bound_ = integers[int(code_of_run[run])]
            x = [Fraction(v) for v in coordinates[c]]
            if sum(ai * xi for ai, xi in zip(a, x)) >= bound_:
                ok[c] = False
    return ok


def _interior_points(mesh: CellMesh, run_cells, code_of_run, integers) -> list[tuple[Fraction, ...]]:
    """An exact point strictly inside every cell: the mean of its vertices' approximate points rounded to a grid of
    powers of two finer than its (approximate) inradius, or that mean unrounded, when a check proves it inside;
    else the exact mean of its vertices (inside: the vertices of a full-dimensional polytope do not lie on one of
    its facets)."""
    nf, k = mesh.nf, mesh.k
    cells = np.arange(nf, dtype=np.int64)
    verts, counts = mesh._cell_vertices(cells)
    starts = counts.cumsum() - counts
    floats = np.array([[_to_double(v) for v in row] for row in integers], dtype=np.float64).reshape(-1, k + 1)
    r = floats[code_of_run]
    runs = np.bincount(run_cells, minlength=nf)
    run_starts = runs.cumsum() - runs
    with np.errstate(all="ignore"):
        centre = np.add.reduceat(mesh.xyz[verts], starts, axis=0) / counts[:, None]
        slack = (r[:, k] - (r[:, :k] * centre[run_cells]).sum(axis=1)) / np.sqrt((r[:, :k] ** 2).sum(axis=1))
        radius = np.minimum.reduceat(slack, run_starts)
        step = np.exp2(np.floor(np.log2(radius)) - 2)
        rounded = np.round(centre / step[:, None]) * step[:, None]
    good = np.isfinite(rounded).all(axis=1) & (radius > 0)
    rounded[~good] = centre[~good]
    everything = np.ones(nf, dtype=bool)
    ok = _strictly_inside(rounded, r, run_cells, integers, code_of_run, everything)
    retry = ~ok & good
    if retry.any():
        rounded[retry] = centre[retry]
        ok[retry] = _strictly_inside(rounded, r, run_cells, integers, code_of_run, retry)[retry]
    points: list = [tuple(Fraction(v) for v in row) if inside else None
                    for inside, row in zip(ok.tolist(), rounded.tolist())]
    missing = np.flatnonzero(~ok)
    if missing.size:
        owner = cells.repeat(counts)
        chosen = np.isin(owner, missing)
        pairs = distinct(owner[chosen] * KEY + verts[chosen])
        homogeneous = mesh._homogeneous(pairs % KEY)
        by_cell: dict[int, list] = {}
        for c, point in zip((pairs // KEY).tolist(), homogeneous):
            by_cell.setdefault(c, []).append(point)
        for c, corner in by_cell.items():
            mean = tuple(sum(Fraction(p[d], p[k]) for p in corner) / len(corner) for d in range(k))
            start, end = int(run_starts[c]), int(run_starts[c] + runs[c])
            for run in range(start, end):
                *a, bound_ = integers[int(code_of_run[run])]
                if sum(ai * xi for ai, xi in zip(a, mean)) >= bound_:
                    raise MeshError(f"cell {c}: the mean of its vertices is not inside it")
            points[c] = mean
    return points
