"""Activation regions: domains, the region complex, the engines that compute it, and its export.

:func:`enumerate_regions` takes a network and a domain (:mod:`~polyregions.regions.domains`) and
returns a :class:`RegionComplex`, from the vectorised mesh engine (bounded domains) or from layerwise
refinement (any domain); both engines are private modules of this package.
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".domains": ["Domain", "box", "polytope_domain", "space", "segment", "slice_domain", "plane_through"],
    ".domain_files": ["domain_from_json", "domain_to_json", "load_domain", "save_domain"],
    ".region": ["Region"],
    ".complex": ["RegionComplex"],
    ".enumeration": ["enumerate_regions"],
    ".export": ["complex_to_json", "write_complex_json", "write_graphml"],
    ".stream": ["stream_regions", "write_store_json", "write_store_graphml"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domain_files import domain_from_json, domain_to_json, load_domain, save_domain
    from polyregions.regions.domains import (
        Domain,
        box,
        plane_through,
        polytope_domain,
        segment,
        slice_domain,
        space,
    )
    from polyregions.regions.enumeration import enumerate_regions
    from polyregions.regions.export import complex_to_json, write_complex_json, write_graphml
    from polyregions.regions.region import Region
    from polyregions.regions.stream import stream_regions, write_store_graphml, write_store_json
