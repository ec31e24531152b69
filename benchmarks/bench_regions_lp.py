"""The general engine in dimensions above two: regions per second in a box, by vertex cuts (the default up to
dimension six) and, for comparison, by certified linear programs alone."""

from __future__ import annotations

import time
from contextlib import nullcontext
from unittest import mock

from polyregions.networks.initializers import he_normal
from polyregions.regions import _refine as refine_module
from polyregions.regions._refine import refine
from polyregions.regions.domains import box


def _rate(widths: list[int], workers: int = 1, *, programs_only: bool = False):
    net = he_normal(widths, seed=0)
    domain = box([-1] * widths[0], [1] * widths[0])

    def run() -> str:
        started = time.perf_counter()
        with mock.patch.object(refine_module, "VERTEX_DIMENSION", 0) if programs_only else nullcontext():
            complex_ = refine(net, domain, workers=workers)
        seconds = time.perf_counter() - started
        return f"{len(complex_)} regions, {len(complex_) / seconds:.0f} regions/s"
    return run


def cases():
    found = [(f"LP engine, He normal {w} in [-1,1]^{w[0]}, {n} process{'es' if n > 1 else ''}", _rate(w, n))
             for w in ([3, 8, 8], [4, 16, 16], [6, 12, 12]) for n in (1, 2)]
    found += [(f"LP engine, programs only, He normal {w} in [-1,1]^{w[0]}", _rate(w, programs_only=True))
              for w in ([3, 8, 8], [4, 10, 10])]
    return found
