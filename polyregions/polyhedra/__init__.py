"""Exact polyhedra: H-polytopes, their vertices, faces and volumes.

:class:`Polytope` is the immutable set ``{x : A x <= b}`` over the rationals; double description
(:mod:`~polyregions.polyhedra.vertex_enumeration`) turns it into vertices and rays and back; the face
lattice and exact volumes are read off those.
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".polytope": ["Polytope"],
    ".vertex_enumeration": ["VRepresentation", "HRepresentation", "enumerate_vertices", "enumerate_facets"],
    ".face_lattice": ["Face", "FaceLattice"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.polyhedra.face_lattice import Face, FaceLattice
    from polyregions.polyhedra.polytope import Polytope
    from polyregions.polyhedra.vertex_enumeration import (
        HRepresentation,
        VRepresentation,
        enumerate_facets,
        enumerate_vertices,
    )
