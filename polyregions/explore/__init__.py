"""An interactive explorer for teaching, in the browser: ``polyregions explore``.

A student drags lines in the plane (or starts from a named arrangement) and watches the regions, the
intersection poset with its Moebius values, ``chi(t)`` and Zaslavsky's counts change, and deletes or restricts
a line; or moves the weights of a small ReLU network with sliders and watches its activation and linear regions.
Everything is computed exactly by polyregions on a local server (:mod:`~polyregions.explore.server`, standard
library only); the page is plain JavaScript and SVG packaged with polyregions, with nothing fetched from
elsewhere. The JSON answers are :func:`arrangement_view` and :func:`network_view`, usable without a browser.

Examples
--------
>>> from polyregions.explore import arrangement_view
>>> view = arrangement_view({"name": "shi:3"})
>>> view["summary"]["regions"], view["zaslavsky"], view["essentialized"]
(16, {'regions': 16, 'bounded_regions': 4}, True)
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".arrangement_api": ["NAMED_ARRANGEMENTS", "arrangement_view", "line_through"],
    ".network_api": ["network_view", "initial_layers"],
    ".limits": ["Limits", "LIMITS"],
    ".server": ["ExplorerServer", "serve", "has_display", "HOST", "DEFAULT_PORT"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.explore.arrangement_api import NAMED_ARRANGEMENTS, arrangement_view, line_through
    from polyregions.explore.limits import LIMITS, Limits
    from polyregions.explore.network_api import initial_layers, network_view
    from polyregions.explore.server import DEFAULT_PORT, HOST, ExplorerServer, has_display, serve
