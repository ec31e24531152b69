"""The faces of one cell of a region complex, exactly: the ends of an interval, the edges of a polygon (the face
lattice of a polytope is in :mod:`polyregions.measures._cell_lattice`); and the rows of the domain tight at given
points (which faces lie on its boundary)."""

from __future__ import annotations

from fractions import Fraction

from polyregions.errors import CertificateError
from polyregions.exact._integers import primitive
from polyregions.exact.linalg import dot

__all__ = ["interval", "polygon_edges", "interior_flags", "tight_rows"]


def interval(A, b) -> tuple[Fraction, Fraction]:
    """The ends ``lo < hi`` of the bounded interval ``A t <= b`` (one coordinate)."""
    lo = hi = None
    for (a,), bi in zip(A, b):
        if a > 0:
            hi = bi / a if hi is None else min(hi, bi / a)
        elif a < 0:
            lo = bi / a if lo is None else max(lo, bi / a)
    if lo is None or hi is None or not lo < hi:
        raise CertificateError(f"face_complex: expected a bounded interval region, got rows {A}, {b}")
    return lo, hi


def polygon_edges(A, b) -> list[tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]]:
    """The edges (pairs of exact end points) of the bounded polygon ``A t <= b`` with non-empty interior.

    Each row's line is clipped by the others in integer arithmetic: on the line ``a.t = c``, written
    ``q + s (-a2, a1)``, row ``(b1, b2, e)`` bounds ``s`` by ``num / (n den)`` (``n = |a|^2`` cancels in every
    comparison); an end point is the intersection of two lines, by Cramer's rule.
    """
    rows = sorted({primitive((*a, bi)) for a, bi in zip(A, b) if any(a)})
    edges: list[tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]] = []
    for a1, a2, c in rows:
        n = a1 * a1 + a2 * a2
        lo = hi = None  # (num, den, row) of the binding bounds
        empty = False
        for row in rows:
            b1, b2, e = row
            den = a1 * b2 - a2 * b1
            num = e * n - c * (a1 * b1 + a2 * b2)
            if den == 0:
                if num < 0:
                    empty = True
                    break
                continue
            if den > 0:  # s <= num / (n den); smaller is tighter
                if hi is None or num * hi[1] < hi[0] * den:
                    hi = (num, den, row)
            elif lo is None or num * lo[1] > lo[0] * den:  # s >= num / (n den), den < 0: larger is tighter
                lo = (num, den, row)
        # lo < hi, with den_lo < 0 < den_hi: num_lo / den_lo < num_hi / den_hi  <=>  num_lo den_hi > num_hi den_lo
        if empty or lo is None or hi is None or not lo[0] * hi[1] > hi[0] * lo[1]:
            continue
        ends = []
        for _, _, (b1, b2, e) in (lo, hi):
            det = a1 * b2 - a2 * b1
            ends.append((Fraction(c * b2 - a2 * e, det), Fraction(a1 * e - c * b1, det)))
        edges.append((ends[0], ends[1]))
    if len(edges) < 3:
        raise CertificateError(f"face_complex: expected a bounded polygon, got {len(edges)} edges from rows {rows}")
    return edges


def interior_flags(order, vertices, A, b) -> list[bool]:
    """For every face ``(dim, vertex ids)`` of ``order``, whether it lies inside the open domain ``A t < b``: no
    row of the domain is tight at all of its vertices."""
    on = tight_rows(vertices, A, b)
    flags = []
    for _, verts in order:
        rows = on[verts[0]]
        for v in verts[1:]:
            if not rows:
                break
            rows = rows & on[v]
        flags.append(not rows)
    return flags


def tight_rows(vertices, A, b) -> list[frozenset[int]]:
    """For every vertex, the rows of ``A t <= b`` tight at it; a float evaluation with a crude but safe margin
    skips the exact check for rows clearly not tight."""
    import numpy as np

    if not vertices:
        return []
    V = np.array([[float(x) for x in v] for v in vertices])
    Af = np.array([[float(x) for x in a] for a in A]).reshape(len(A), -1)
    bf = np.array([float(x) for x in b])
    slack = np.abs(V @ Af.T - bf)
    scale = np.abs(V) @ np.abs(Af).T + np.abs(bf) + 1e-300
    maybe = ~(slack > 1e-9 * scale)  # doubles carry relative errors near 1e-16: far below this margin
    result = []
    for v, row in zip(vertices, maybe.tolist()):
        result.append(frozenset(i for i, m in enumerate(row) if m and dot(A[i], v) == b[i]))
    return result
