"""One entry point for region enumeration, choosing the engine."""

from __future__ import annotations

from typing import TYPE_CHECKING

from polyregions.errors import InvalidInputError
from polyregions.regions.complex import RegionComplex

if TYPE_CHECKING:
    from polyregions.regions.domains import Domain
    from polyregions.networks.network import Network

__all__ = ["enumerate_regions", "ENGINES"]

ENGINES = ("auto", "mesh", "lp")


def enumerate_regions(network: "Network", domain: "Domain", *, engine: str = "auto", backend: str = "highs",
                      progress: bool = False, workers: int = 1) -> RegionComplex:
    """Return the exact region complex of ``network`` in ``domain``.

    ``engine="auto"`` takes the vectorised mesh engine for bounded 1-D and 2-D domains and the LP-certified
    engine otherwise; both return the same complex. ``workers`` processes share the LP engine's work.

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> complex_ = enumerate_regions(sawtooth(3), box([0], [1]))
    >>> len(complex_.linear_regions)
    8
    """
    if engine not in ENGINES:
        raise InvalidInputError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
    if engine == "auto":
        engine = "mesh" if domain.dim <= 2 and domain.region.is_bounded() else "lp"
    if engine == "mesh":
        from polyregions.regions._mesh import refine_mesh
        return refine_mesh(network, domain, progress=progress)
    from polyregions.regions._refine import refine
    return refine(network, domain, backend=backend, progress=progress, workers=workers)
