"""Exact local complexity in 784 dimensions: 10,000 points of ``[0, 1]^784`` (and scikit-learn's digits upsampled to
28 x 28, when scikit-learn is installed) around a He-normal [784, 64, 64, 64] ReLU network, in boxes of a small
radius. The goal: 10,000 points in under a minute.

``cases()`` times them for the benchmark runner (``python -m benchmarks local``); ``python -m benchmarks.bench_local``
prints, for a few radii, the time of the floating-point filter over all points, how many points it settles (their
neighbourhood inside one activation region), the time per point left to the exact refinement and the total, with
one and with two processes.
"""

from __future__ import annotations

import functools
import time
from fractions import Fraction

import numpy as np

from polyregions.networks.initializers import he_normal

WIDTHS = [784, 64, 64, 64]
COUNT = 10_000


@functools.lru_cache(maxsize=None)
def _network():
    return he_normal(WIDTHS, seed=0)


@functools.lru_cache(maxsize=None)
def _uniform(count: int = COUNT) -> np.ndarray:
    return np.random.default_rng(0).random((count, WIDTHS[0]))


@functools.lru_cache(maxsize=None)
def _digits() -> np.ndarray | None:
    """scikit-learn's 1,797 digits, 8 x 8 in 0..16, scaled to [0, 1] and upsampled to 28 x 28 (bilinear)."""
    try:
        from scipy.ndimage import zoom
        from sklearn.datasets import load_digits
    except ImportError:
        return None
    images = load_digits().images / 16.0
    return np.stack([np.clip(zoom(image, 3.5, order=1), 0.0, 1.0).ravel() for image in images])


def _local(points, radius: str, workers: int = 1):
    def run() -> str:
        from polyregions.measures.local import local_complexity

        data = points()
        result = local_complexity(_network(), data, radius, workers=workers)
        several = int((result.activation_regions > 1).sum())
        return (f"{len(result)} points, {several} in >1 region, mean {result.activation_regions.mean():.3f}, "
                f"max {int(result.activation_regions.max())}")
    return run


def cases():
    found = [(f"local complexity, {COUNT} points of [0,1]^784, box r=1e-5", _local(_uniform, "1/100000")),
             (f"local complexity, {COUNT} points of [0,1]^784, box r=3e-5", _local(_uniform, "3/100000"))]
    if _digits() is not None:
        found.append(("local complexity, 1797 digits at 28x28, box r=1e-4", _local(_digits, "1/10000")))
    return found


def _measure(radius: str, workers: int) -> str:
    from polyregions.measures._local_filter import FloatNetwork, doubled, single_region_points
    from polyregions.measures.local import local_complexity

    X = _uniform()
    r, error = doubled(Fraction(radius))
    started = time.perf_counter()
    single = single_region_points(FloatNetwork(_network()), X, np.zeros_like(X), radius=r, radius_error=error,
                                  norm="inf")
    filtered = time.perf_counter() - started
    started = time.perf_counter()
    result = local_complexity(_network(), X, radius, workers=workers)
    total = time.perf_counter() - started
    left = int((~single).sum())
    each = (total - filtered) / max(left, 1) * 1e3
    regions = result.activation_regions
    return (f"r={radius:>9}  workers={workers}  filter {filtered:5.1f} s, settles {single.mean():6.1%}; "
            f"{left:5d} points refined, {each:5.1f} ms each; total {total:6.1f} s; "
            f"regions per point: mean {regions.mean():.3f}, max {int(regions.max())}")


if __name__ == "__main__":
    for radius in ("1/100000", "3/100000", "1/10000"):
        for workers in (1, 2):
            print(_measure(radius, workers), flush=True)
