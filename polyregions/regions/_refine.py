"""The general engine's entry point, as :mod:`polyregions.regions.enumeration` reaches it: :func:`refine` (and its
methods) from :mod:`polyregions.regions._general.refine`. The engine lives in :mod:`polyregions.regions._general`,
one concept per module; nothing there imports this front."""

from polyregions.regions._general.refine import METHODS, Method, refine

__all__ = ["refine", "Method", "METHODS"]
