"""One check per statement of the theory polyregions computes or relies on, each a sweep of exact computations
with a report.

Run them all (or some) with ``python -m proofs_check theorems [--size quick|full] [--out DIR] [--only NAME ...]``;
the exit status is 1 when a bound or band is broken. Each check module has ``NAME``, ``TITLE``, ``KIND``
(``"proven"`` or ``"empirical"``), ``STATEMENT``, ``run(size, *, workers) -> CheckResult`` and ``figure(result,
fig)``. Unlike :mod:`proofs_check.verify`, these checks use polyregions to compute. ``raghu_theorem1``, ``serra``
and ``trivial_bound`` share one sweep of exact counts (:mod:`._sweep`), counted once per process by the first.
"""

from __future__ import annotations

import importlib

__all__ = ["CHECKS", "load_check"]

#: The checks, in the order they run.
CHECKS = (
    "zaslavsky",
    "raghu_theorem1",
    "serra",
    "trivial_bound",
    "sawtooth",
    "qi_wei_initialisation",
    "hanin_rolnick_lines",
    "hanin_rolnick_volumes",
    "corollary5_distances",
    "maxout",
    "xiong_conv",
    "gaines_bi_facets",
)


def load_check(name: str):
    """The module of the check called ``name``."""
    if name not in CHECKS:
        raise KeyError(f"unknown check {name!r}; expected one of {', '.join(CHECKS)}")
    return importlib.import_module(f"{__name__}.{name}")
