"""Incidence numbers ``[f : g] = +-1`` of the faces of a :class:`~polyregions.measures.faces.FaceComplex`, exactly.

Every face ``f`` of dimension ``k`` gets an orientation: an ordered basis ``B_f`` of the directions of its affine
hull (the standard basis for a ``d``-face; otherwise the first of the differences ``v - v_0`` of its sorted
vertices that raise the rank). A facet ``g`` of ``f`` carries the orientation induced from ``f`` when an outward
vector ``n`` followed by ``B_g`` is positively oriented in ``f``, and then ``[f : g] = +1`` (Stokes' convention,
for which the cellular boundary squares to zero). ``n = x - p`` for a vertex ``x`` of ``g`` and the interior
point ``p`` of ``f`` is outward up to a component along ``g``, which a determinant with the columns ``B_g``
does not see. The determinant in the basis ``B_f`` is ``det(M_I) / det((B_f)_I)`` over ``k`` coordinates ``I``
on which ``B_f`` is invertible.
"""

from __future__ import annotations

from fractions import Fraction

from polyregions.errors import CertificateError
from polyregions.exact.linalg import Matrix, determinant, rank, rref
from polyregions.measures.faces import FaceComplex

__all__ = ["IncidenceSigns"]


class IncidenceSigns:
    """``signs(g, f)``: the incidence number ``[f : g]`` of a facet ``g`` of face ``f`` (orientations cached).

    Examples
    --------
    >>> import polyregions as pr
    >>> fc = pr.face_complex(pr.enumerate_regions(pr.Network.from_layers(1, [([[1]], [0], "relu")]),
    ...                                           pr.box([-1], [1])))
    >>> signs = IncidenceSigns(fc)
    >>> [(fc.vertices[fc.faces[g].vertices[0]], signs(g, f)) for f in fc.faces_of_dimension(1)
    ...  for g in fc.facets_of(f)][:2]
    [((Fraction(-1, 1),), -1), ((Fraction(0, 1),), 1)]
    """

    def __init__(self, faces: FaceComplex):
        self.fc = faces
        self._frames: dict[int, tuple[Matrix, tuple[int, ...], int]] = {}

    def __call__(self, g: int, f: int) -> int:
        fc = self.fc
        face = fc.faces[f]
        if face.dim == 1:  # [v_a, v_b] with a < b: its boundary is v_b - v_a
            return 1 if fc.faces[g].vertices[0] == face.vertices[1] else -1
        _, coordinates, lead = self._frame(f)
        x, p = fc.vertices[fc.faces[g].vertices[0]], fc.point(f)
        outward = tuple(xi - pi for xi, pi in zip(x, p))
        rows = [outward, *self._frame(g)[0]]
        value = determinant([[row[i] for i in coordinates] for row in rows])
        if value == 0:
            raise CertificateError(f"incidence: expected face {g} to be a facet of face {f}, got a degenerate "
                                   f"orientation")
        return lead if value > 0 else -lead

    def _frame(self, f: int) -> tuple[Matrix, tuple[int, ...], int]:
        """``B_f`` (rows), coordinates ``I`` on which it is invertible, and the sign of ``det((B_f)_I)``."""
        found = self._frames.get(f)
        if found is not None:
            return found
        fc = self.fc
        face, d = fc.faces[f], fc.dim
        if face.dim == d:
            identity = tuple(tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d))
            found = (identity, tuple(range(d)), 1)
        else:
            base = fc.vertices[face.vertices[0]]
            basis: list[tuple[Fraction, ...]] = []
            for v in face.vertices[1:]:
                if len(basis) == face.dim:
                    break
                candidate = tuple(a - b for a, b in zip(fc.vertices[v], base))
                if rank([*basis, candidate]) > len(basis):
                    basis.append(candidate)
            _, coordinates = rref(basis, d) if basis else ((), ())
            lead = determinant([[row[i] for i in coordinates] for row in basis])
            found = (tuple(basis), coordinates, 1 if lead > 0 else -1)
        self._frames[f] = found
        return found
