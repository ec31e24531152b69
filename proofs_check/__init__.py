"""Independent checks of what polyregions computes.

``proofs_check.verify`` re-verifies a ``polyregions.regions/1`` export exactly, with the Python standard
library only (it never imports polyregions): ``python -m proofs_check verify FILE``.
"""

__all__ = ["verify", "geometry"]
