"""Exact volumes of the boundary pieces ``B_{N,k}`` (Hanin & Rolnick's ``vol_{d-k}(B_{N,k} ∩ K)``).

Volumes are measured in INPUT space. A domain of dimension ``d`` is the image ``x = origin + D^T t`` of its
coordinates ``t`` (``D`` the ``d x n`` matrix of directions; the identity for a box or a polytope), so the input
metric on ``t`` is the Gram matrix ``G = D D^T``. A ``p``-face with rational vertices spans directions with a
basis ``B`` in reduced row echelon form (``p`` rows, the identity on its pivot columns); its pivot coordinates
parametrise it, so its volume is ``vol_p(projection on the pivot coordinates) * sqrt(det(B G B^T))``: a rational
times the square root of a rational. An edge ``v - u = c w`` (``w`` a primitive integer vector) has length
``c sqrt(w^T G w)``. Points (``k = d``) are counted. Sums are exact :class:`~polyregions.exact.surds.SurdSum` values;
floats carry proven error bounds. The projected volumes come from triangulations through the face complex's own
lattice, on integers (:mod:`~polyregions.measures._face_volumes`).

Examples
--------
>>> import polyregions as pr
>>> net = pr.Network.from_layers(2, [([[1, 1]], [0], "relu")])
>>> v = pr.boundary_volumes(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])))
>>> [str(x) for x in v.exact], v.density
(['2*sqrt(2)', '0'], 0.7071067811865476)
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Matrix, determinant, matmul
from polyregions.exact.surds import SurdSum, sqrt_of_rational
from polyregions.measures._face_volumes import FaceVolumes
from polyregions.measures.boundaries import Boundary, boundary
from polyregions.measures.faces import FaceComplex
from polyregions.regions._arguments import expect_complex

if TYPE_CHECKING:
    from polyregions.regions.domains import Domain

__all__ = ["BoundaryVolumes", "boundary_volumes", "face_volume", "domain_volume", "input_metric"]

_U = 2.0 ** -53


def input_metric(domain: "Domain") -> Matrix | None:
    """``G = D D^T``, the input-space metric in the domain's coordinates (None for the identity)."""
    D = domain.directions
    n, k = domain.input_dim, domain.dim
    if k == n and all(D[i][j] == (i == j) for i in range(k) for j in range(n)):
        return None
    return matmul(D, tuple(zip(*D)))


def face_volume(fc: FaceComplex, i: int, *, metric: Matrix | None | str = "domain") -> tuple[int, Fraction]:
    """The input-space volume of face ``i`` (of its own dimension; 1 for a vertex) as ``(radicand, coefficient)``:
    ``coefficient * sqrt(radicand)``.

    ``metric`` is the domain's :func:`input_metric` (None for the identity), computed when left as "domain".

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 1]], [0], "relu")])
    >>> fc = pr.face_complex(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])))
    >>> [face_volume(fc, i) for i in fc.faces_of_dimension(1) if fc.faces[i].interior]  # the diagonal
    [(2, Fraction(2, 1))]
    """
    G = input_metric(fc.complex.domain) if isinstance(metric, str) else metric
    return FaceVolumes(fc, G)(i)


def domain_volume(domain: "Domain") -> SurdSum:
    """The ``d``-volume of a bounded domain in input space (``vol(P) sqrt(det(D D^T))``)."""
    volume = domain.volume()
    if volume is None:
        raise InvalidInputError(f"domain_volume: expected a bounded domain, got an unbounded {domain.kind}")
    G = input_metric(domain)
    if G is None:
        return SurdSum.rational(volume)
    root, n = sqrt_of_rational(determinant(G))
    return SurdSum.from_terms([(n, volume * root)])


@dataclass(frozen=True)
class BoundaryVolumes:
    """``vol_{d-k}(B_{N,k} ∩ K)`` for ``k = 1..d`` (for ``k = d``, the number of points), exactly and as floats.

    Returned by :func:`boundary_volumes`; ``B_{N,k}`` is the part of the boundary where ``k`` neurons switch
    at once (Hanin & Rolnick), and ``K`` is the domain. All volumes are measured in input space.

    Attributes
    ----------
    exact : tuple of SurdSum
        Entry ``k - 1`` is the ``(d-k)``-volume of ``B_{N,k}`` in input space.
    values, errors : tuple of float
        Doubles and proven bounds on their distance to the exact values.
    domain_volume : SurdSum
        ``vol_d(K)`` in input space.
    density, density_error : float
        ``vol_{d-1}(B_N ∩ K) / vol_d(K)`` (``B_{N,1}`` carries all of ``B_N``'s ``(d-1)``-volume) and a bound.
    boundary : Boundary
        The boundary the volumes were measured on.

    Examples
    --------
    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], ["-1/2", 0], "relu"), ([[1, 1]], [0], "linear")])
    >>> volumes = pr.boundary_volumes(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1])))
    >>> volumes.values, volumes.errors, str(volumes.domain_volume), str(volumes.density_exact)
    ((4.0, 1.0), (0.0, 0.0), '4', '1')
    """

    exact: tuple[SurdSum, ...]
    values: tuple[float, ...]
    errors: tuple[float, ...]
    domain_volume: SurdSum
    density: float
    density_error: float
    boundary: Boundary

    @property
    def density_exact(self) -> SurdSum:
        """The density as an exact sum of surds (the domain's volume is a rational times one square root)."""
        (n, c), = self.domain_volume.terms
        return self.exact[0].times_sqrt(n) * (1 / (c * n))

    def summary(self) -> dict[str, Any]:
        """The keys of ``polyregions boundary --json``."""
        return {
            "boundary_volumes": [float(v) for v in self.values],
            "boundary_volumes_exact": [str(v) for v in self.exact],
            "boundary_volume_errors": list(self.errors),
            "density": self.density,
            "density_error": self.density_error,
            "density_exact": str(self.density_exact),
            "domain_volume": float(self.domain_volume),
            "domain_volume_exact": str(self.domain_volume),
            "exact": self.boundary.faces.complex.exact,
        }


def boundary_volumes(source, *, progress: bool = False) -> BoundaryVolumes:
    """The volumes of ``B_{N,1}, ..., B_{N,d}`` inside a bounded domain, exactly.

    Parameters
    ----------
    source : RegionComplex, FaceComplex or Boundary
        The regions of a network on a bounded domain of dimension ``d`` (from
        :func:`~polyregions.regions.enumeration.enumerate_regions`), or their faces or boundary if already computed.
    progress : bool, keyword-only
        Show a progress bar on a terminal (the faces of ``B_N``, then each piece's volume).

    Returns
    -------
    BoundaryVolumes
        The exact volumes (sums of square roots of rationals), their doubles with proven error bounds, and
        the density ``vol_{d-1}(B_N ∩ K) / vol_d(K)``.

    Raises
    ------
    InvalidInputError
        When the domain is unbounded, or its volume is too small to be a positive double.

    Examples
    --------
    The lines ``x = 1/2`` and ``y = 0`` cut the square ``[-1, 1]^2`` along a length of 4 and meet at one point:

    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], ["-1/2", 0], "relu"), ([[1, 1]], [0], "linear")])
    >>> [str(v) for v in pr.boundary_volumes(pr.enumerate_regions(net, pr.box([-1, -1], [1, 1]))).exact]
    ['4', '1']

    The diagonal ``x + y = 0`` has the irrational length ``2 sqrt(2)``:

    >>> diagonal = pr.Network.from_layers(2, [([[1, 1]], [0], "relu")])
    >>> volumes = pr.boundary_volumes(pr.enumerate_regions(diagonal, pr.box([-1, -1], [1, 1])))
    >>> [str(v) for v in volumes.exact], volumes.density
    (['2*sqrt(2)', '0'], 0.7071067811865476)
    """
    expect_complex(source, "source", also=(FaceComplex, Boundary))
    from polyregions._support.progress import progress_bar

    with progress_bar(total=None, desc="boundary", enabled=progress) as bar:
        b = source if isinstance(source, Boundary) else boundary(source)
        fc = b.faces
        d = fc.dim
        bar.total = d + 1
        bar.update(1)
        volume = FaceVolumes(fc, input_metric(fc.complex.domain))  # shares triangulations among the pieces
        exact = []
        for k in range(1, d + 1):
            exact.append(SurdSum.from_terms(volume.total(b.pieces(k))))
            bar.update(1)
    values, errors = zip(*(v.bounds() for v in exact))
    dom = domain_volume(fc.complex.domain)
    a, ea = values[0], errors[0]
    v, ev = dom.bounds()
    if v - ev <= 0:
        raise InvalidInputError("boundary_volumes: the domain's volume is too small for a double")
    density = a / v
    # |a/v - A/V| <= (ea + (a/v) ev) / (v - ev), plus the rounding of the division.
    density_error = ((ea + abs(density) * ev) / (v - ev) + _U * abs(density)) * (1 + 8 * _U)
    return BoundaryVolumes(tuple(exact), tuple(values), tuple(errors), dom, density, density_error, b)
