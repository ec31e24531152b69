"""The faces of a region complex: every face of every dimension once, with its regions and tight neurons.

The closed activation regions of a network in a bounded domain form a polyhedral complex: every refinement step
cuts each cell by the hyperplane of one neuron's affine function on that cell, and because the neuron is
continuous the cuts of two cells agree on their common face, so any two closed cells meet in a common face.
:func:`face_complex` lists every face of every dimension once (vertices, edges, ..., the regions themselves),
identified by its exact vertex set, with the regions around it, whether it lies inside the open domain, and the
neurons *tight* on it (pre-activation at one of the neuron's breakpoints on the whole face: on the closure of a
region each neuron lies between two consecutive breakpoints, so a neuron tight at one relative-interior point of
a face is tight on all of it). The complex property is checked (every interior ``(d-1)``-face has exactly two
regions, every boundary one exactly one); a failure raises :class:`~polyregions.errors.CertificateError`.
In dimension 3 and more each region's vertices come from a double description on integers
(:mod:`~polyregions.measures._cell_lattice`), and the faces of all regions are read off the rows tight at their
vertices at once (:mod:`~polyregions.measures._complex_faces`): no linear program and no hull is involved.

The boundary ``B_N`` and its pieces are read off these faces by :mod:`~polyregions.measures.boundaries`.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property
from typing import TYPE_CHECKING, Sequence

from polyregions.errors import CertificateError, InvalidInputError
from polyregions.exact.linalg import Vector
from polyregions.measures._cell_faces import interior_flags, interval, polygon_edges
from polyregions.measures._cell_lattice import cell_vertices, integer_rows
from polyregions.measures._complex_faces import complex_faces
from polyregions.regions._arguments import expect_complex

if TYPE_CHECKING:
    from polyregions.regions.complex import RegionComplex

__all__ = ["ComplexFace", "FaceComplex", "face_complex"]

_ZERO = Fraction(0)


@dataclass(frozen=True)
class ComplexFace:
    """One face of the region complex (each face once, whatever the number of regions around it).

    Attributes
    ----------
    dim : int
        Its dimension (0 for a vertex, ``d`` for a region).
    vertices : tuple of int
        Sorted indices into :attr:`FaceComplex.vertices`.
    regions : tuple of int
        The regions (indices into ``complex.regions``) whose closure contains the face.
    interior : bool
        Whether its relative interior lies in the open domain (False on the domain's boundary).
    neurons : frozenset of int or None
        The neurons (indices in ``Network.neurons`` order) tight on the whole face; None when not computed.
    """

    dim: int
    vertices: tuple[int, ...]
    regions: tuple[int, ...]
    interior: bool
    neurons: frozenset[int] | None = None


@dataclass(frozen=True)
class FaceComplex:
    """Every face of the closed activation regions of a bounded domain, each once.

    Attributes
    ----------
    complex : RegionComplex
    vertices : tuple of Vector
        The exact vertices in domain coordinates ``t``.
    faces : tuple of ComplexFace
        Sorted by dimension, then by vertices; the regions themselves come last (dimension ``d``).
    covers : tuple of (int, int)
        The pairs ``(i, j)`` with ``faces[i]`` a facet of ``faces[j]``.
    """

    complex: "RegionComplex"
    vertices: tuple[Vector, ...]
    faces: tuple[ComplexFace, ...]
    covers: tuple[tuple[int, int], ...]

    @property
    def dim(self) -> int:
        """The dimension ``d`` of the domain."""
        return self.complex.domain.dim

    def f_vector(self) -> tuple[int, ...]:
        """The numbers of faces of dimensions ``0..d``.

        Examples
        --------
        >>> from polyregions.networks.network import Network
        >>> from polyregions.regions.domains import box
        >>> from polyregions.regions.enumeration import enumerate_regions
        >>> net = Network.from_layers(2, [([[1, 1]], ["-1/2"], "relu")])
        >>> face_complex(enumerate_regions(net, box([-1, -1], [1, 1]))).f_vector()
        (6, 7, 2)
        """
        counts = [0] * (self.dim + 1)
        for face in self.faces:
            counts[face.dim] += 1
        return tuple(counts)

    def faces_of_dimension(self, k: int) -> tuple[int, ...]:
        """The indices of the faces of dimension ``k``."""
        return tuple(i for i, face in enumerate(self.faces) if face.dim == k)

    @cached_property
    def _up(self) -> tuple[tuple[int, ...], ...]:
        up: list[list[int]] = [[] for _ in self.faces]
        for i, j in self.covers:
            up[i].append(j)
        return tuple(tuple(u) for u in up)

    @cached_property
    def _down(self) -> tuple[tuple[int, ...], ...]:
        down: list[list[int]] = [[] for _ in self.faces]
        for i, j in self.covers:
            down[j].append(i)
        return tuple(tuple(d) for d in down)

    def facets_of(self, i: int) -> tuple[int, ...]:
        """The facets of face ``i``."""
        return self._down[i]

    def cofaces(self, i: int) -> tuple[int, ...]:
        """Every face having face ``i`` as a proper face (its open star, without itself), sorted."""
        seen, stack = set(), list(self._up[i])
        while stack:
            j = stack.pop()
            if j not in seen:
                seen.add(j)
                stack.extend(self._up[j])
        return tuple(sorted(seen))

    def point(self, i: int) -> Vector:
        """An exact point in the relative interior of face ``i`` (the mean of its vertices)."""
        vs = [self.vertices[v] for v in self.faces[i].vertices]
        return tuple(sum(c, _ZERO) / len(vs) for c in zip(*vs))

    def to_input(self, t: Vector) -> Vector:
        """The input-space point of domain coordinates ``t``."""
        return self.complex.domain.to_input(t)

    def tight_neurons(self, i: int) -> frozenset[int]:
        """The neurons tight on face ``i`` (computed now when the complex was built without them)."""
        face = self.faces[i]
        if face.neurons is not None:
            return face.neurons
        from polyregions.networks._neuron_maps import tight_neurons

        net = self.complex.regions[0].network
        sets = tight_neurons(net, [self.vertices[v] for v in face.vertices])
        return frozenset.intersection(*sets)


# --- the complex -----------------------------------------------------------------------------------------------

def face_complex(complex_: "RegionComplex", *, neurons: bool = True) -> FaceComplex:
    """Every face of the region complex of a bounded domain, each once.

    Parameters
    ----------
    complex_ : RegionComplex
        From :func:`polyregions.regions.enumeration.enumerate_regions` on a bounded domain.
    neurons : bool, keyword-only
        Compute the neurons tight on every face (one exact integer forward pass at all vertices together);
        without them :meth:`FaceComplex.tight_neurons` computes them face by face on demand.

    Returns
    -------
    FaceComplex
        Vertices, edges, ..., the regions themselves, each with its regions around it, whether it lies inside
        the open domain, and (with ``neurons``) the neurons tight on it.

    Raises
    ------
    InvalidInputError
        When the domain is unbounded.
    CertificateError
        When the regions do not form a polyhedral complex (an interior ``(d-1)``-face without exactly two
        regions, or one on the domain's boundary without exactly one).

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])  # the two axes cut the square
    >>> fc = pr.face_complex(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])))
    >>> fc.f_vector(), [sorted(fc.faces[i].neurons) for i in fc.faces_of_dimension(0) if fc.faces[i].interior]
    ((9, 12, 4), [[0, 1]])
    """
    expect_complex(complex_)
    domain = complex_.domain
    if not domain.is_bounded():
        raise InvalidInputError(f"face_complex: expected a bounded domain, got an unbounded {domain.kind}")
    if domain.dim >= 3:
        return _polytope_complex(complex_, neurons=neurons)
    return _polygon_complex(complex_, neurons=neurons)


def _polygon_complex(complex_: "RegionComplex", *, neurons: bool) -> FaceComplex:
    """:func:`face_complex` for ``d <= 2``: the ends of intervals, the edges of polygons."""
    d = complex_.domain.dim
    vertex_id: dict[tuple, int] = {}  # keyed by (numerator, denominator) pairs: hashing Fractions is slow
    vertices: list[Vector] = []
    face_id: dict[tuple[int, tuple[int, ...]], int] = {}  # (dim, sorted vertex ids) -> a provisional id
    keys: list[tuple[int, tuple[int, ...]]] = []
    face_regions: list[list[int]] = []
    covers: set[int] = set()  # provisional ids packed as (facet << 32) | face

    def vid(point) -> int:
        key = tuple((x.numerator, x.denominator) for x in point)
        found = vertex_id.get(key)
        if found is None:
            found = vertex_id[key] = len(vertices)
            vertices.append(tuple(point))
        return found

    def fid(key: tuple[int, tuple[int, ...]], r: int) -> int:
        found = face_id.get(key)
        if found is None:
            found = face_id[key] = len(keys)
            keys.append(key)
            face_regions.append([r])
        elif face_regions[found][-1] != r:  # regions come in order: a repeat is the last one
            face_regions[found].append(r)
        return found

    for r, region in enumerate(complex_.regions):
        if d == 1:
            lo, hi = interval(region.A, region.b)
            ids = (vid((lo,)), vid((hi,)))
            top = fid((1, tuple(sorted(ids))), r)
            for v in ids:
                covers.add(fid((0, (v,)), r) << 32 | top)
        else:
            edges = polygon_edges(region.A, region.b)
            all_ids: set[int] = set()
            sides = []
            for p, q in edges:
                i, j = vid(p), vid(q)
                side = fid((1, (min(i, j), max(i, j))), r)
                sides.append(side)
                all_ids.update((i, j))
                for v in (i, j):
                    covers.add(fid((0, (v,)), r) << 32 | side)
            top = fid((2, tuple(sorted(all_ids))), r)
            for side in sides:
                covers.add(side << 32 | top)
    order = sorted(range(len(keys)), key=keys.__getitem__)
    index = [0] * len(keys)
    for position, i in enumerate(order):
        index[i] = position
    mask = (1 << 32) - 1
    return _finished(complex_, vertices, [keys[i] for i in order], [tuple(face_regions[i]) for i in order],
                     sorted((index[c >> 32], index[c & mask]) for c in covers), neurons=neurons)


def _polytope_complex(complex_: "RegionComplex", *, neurons: bool) -> FaceComplex:
    """:func:`face_complex` for ``d >= 3``: each region's vertices by an integer double description, then the
    faces of all regions at once (:func:`~polyregions.measures._complex_faces.complex_faces`)."""
    d = complex_.domain.dim
    vertex_id: dict[tuple[int, ...], int] = {}  # homogeneous primitive integers (w, X): one key per point
    vertices: list[Vector] = []
    cells = []
    for region in complex_.regions:
        rows = integer_rows(region.A, region.b)
        points, tight = cell_vertices(rows, d)
        ids = []
        for point in points:
            found = vertex_id.get(point)
            if found is None:
                found = vertex_id[point] = len(vertices)
                w = point[0]
                vertices.append(tuple(Fraction(x, w) for x in point[1:]))
            ids.append(found)
        order = sorted(range(len(ids)), key=ids.__getitem__)  # complex_faces wants the ids in increasing order
        cells.append(([ids[v] for v in order], [tight[v] for v in order], len(rows)))
    keys, regions, covers = complex_faces(cells, d)
    return _finished(complex_, vertices, keys, regions, covers, neurons=neurons)


def _finished(complex_, vertices, keys, regions, covers, *, neurons: bool) -> FaceComplex:
    """The face complex from its sorted face keys ``(dim, vertex ids)``, their regions and sorted covers."""
    domain = complex_.domain
    interior = interior_flags(keys, vertices, domain.region.A, domain.region.b)
    tight_sets = _face_neurons(complex_, keys, vertices) if neurons else [None] * len(keys)
    faces = tuple(ComplexFace(dim, verts, around, inside, t)
                  for (dim, verts), around, inside, t in zip(keys, regions, interior, tight_sets))
    _check_complex(faces, domain.dim)
    return FaceComplex(complex_, tuple(vertices), faces, tuple(covers))


def _face_neurons(complex_, order, vertices) -> list[frozenset[int]]:
    from polyregions.networks._neuron_maps import tight_neurons

    net = complex_.regions[0].network
    at_vertex = tight_neurons(net, vertices)
    result = []
    for _, verts in order:
        found = at_vertex[verts[0]]
        for v in verts[1:]:
            if not found:
                break
            found = found & at_vertex[v]
        result.append(found)
    return result


def _check_complex(faces: Sequence[ComplexFace], d: int) -> None:
    for face in faces:
        if face.dim == d - 1:
            expected = 2 if face.interior else 1
            if len(face.regions) != expected:
                where = "inside the domain" if face.interior else "on the domain's boundary"
                raise CertificateError(f"face_complex: expected {expected} region(s) around a ({d - 1})-face "
                                       f"{where}, got {len(face.regions)} (the regions do not form a complex)")
