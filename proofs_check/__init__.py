"""Independent checks of what polyregions computes.

``proofs_check.verify`` re-verifies a ``polyregions.regions/1`` export exactly, with the Python standard
library only (it never imports polyregions): ``python -m proofs_check verify FILE``. It reads the export
(``reading``, ``network``, ``domain``, ``export``), re-checks the complex (``verify``, ``geometry``), re-derives
every recorded count and summary (``derived``) and, for a ``polyregions search`` certificate, recomputes its
claim (``claims``).

``proofs_check.theorems`` checks every statement of the theory polyregions relies on (the region bounds,
Zaslavsky's theorem, Hanin & Rolnick's theorems; the user guide's Bounds page states them) on sweeps of exact
computations, with a report per statement (it uses polyregions to compute):
``python -m proofs_check theorems [--size quick|full]``.
"""

__all__ = ["verify", "geometry", "reading", "network", "domain", "export", "derived", "claims", "errors"]
