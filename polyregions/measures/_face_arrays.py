"""What the topology of decision regions needs of a complex's faces, as arrays: their dimensions, whether they
lie inside the open domain, the facet pairs, an exact point of any one face, and the whole
:class:`~polyregions.measures.faces.FaceComplex` only on demand (the faces read from the mesh engine's cells build
it when asked, the general route has it already)."""

from __future__ import annotations

from dataclasses import dataclass
from dataclasses import field as dataclass_field
from itertools import chain
from typing import TYPE_CHECKING, Callable

import numpy as np

if TYPE_CHECKING:
    from polyregions.exact.linalg import Vector
    from polyregions.measures.faces import FaceComplex

__all__ = ["FaceArrays", "arrays_of"]


@dataclass(frozen=True)
class FaceArrays:
    """The faces of a complex of a bounded ``dim``-dimensional domain, numbered as in its face complex.

    Attributes
    ----------
    dim : int
    dims, interior : numpy.ndarray
        Per face, its dimension (int64) and whether its relative interior is in the open domain (bool).
    covers : numpy.ndarray
        int64, two columns: the pairs ``(i, j)`` with face ``i`` a facet of face ``j``.
    point : callable
        ``point(i)``: an exact point of the relative interior of face ``i`` (the mean of its vertices), in input
        coordinates.
    build : callable
        ``build()``: the :class:`~polyregions.measures.faces.FaceComplex` with these faces in this order.
    """

    dim: int
    dims: np.ndarray = dataclass_field(repr=False)
    interior: np.ndarray = dataclass_field(repr=False)
    covers: np.ndarray = dataclass_field(repr=False)
    point: Callable[[int], "Vector"] = dataclass_field(repr=False)
    build: Callable[[], "FaceComplex"] = dataclass_field(repr=False)


def arrays_of(fc: "FaceComplex") -> FaceArrays:
    """The arrays of a face complex already built."""
    n = len(fc.faces)
    return FaceArrays(fc.dim, np.fromiter((f.dim for f in fc.faces), dtype=np.int64, count=n),
                      np.fromiter((f.interior for f in fc.faces), dtype=bool, count=n),
                      np.fromiter(chain.from_iterable(fc.covers), dtype=np.int64,
                                  count=2 * len(fc.covers)).reshape(-1, 2),
                      lambda i: fc.to_input(fc.point(i)), lambda: fc)
