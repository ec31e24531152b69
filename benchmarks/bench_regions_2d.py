"""The mesh engine on 2-D domains, and a side-by-side comparison with Regioncam.

``cases()`` times exact enumeration for the benchmark runner (``python -m benchmarks regions_2d``);
``python -m benchmarks.bench_regions_2d`` prints the comparison with Regioncam (float32, ``pip install
regioncam``, part of the ``bench`` extra) on the same He-normal networks, measured in the same run.
"""

from __future__ import annotations

import time
from typing import Callable

import numpy as np

from polyregions.networks.constructions import sawtooth
from polyregions.networks.initializers import he_normal
from polyregions.regions._mesh import refine_mesh
from polyregions.regions.domains import box

WIDTHS = ([2, 32, 32, 32], [2, 64, 64, 64], [2, 128, 128, 128])
SQUARE = box([-1, -1], [1, 1])


def _count(net, domain) -> Callable[[], int]:
    return lambda: len(refine_mesh(net, domain))


def cases() -> list[tuple[str, Callable[[], object]]]:
    found = [(f"mesh engine, He normal {w} (float32) in [-1,1]^2", _count(he_normal(w, seed=0), SQUARE))
             for w in WIDTHS]
    found.append(("mesh engine, sawtooth of depth 14 on [0,1]", _count(sawtooth(14), box([0], [1]))))
    return found


def _regioncam(net):
    """Regioncam's region count and time on the square for the network's (float32) layers, or None."""
    try:
        import regioncam
    except ImportError:
        return None
    layers = [(np.array([[float(v) for v in row] for row in layer.weight], dtype=np.float32),
               np.array([float(v) for v in layer.bias], dtype=np.float32)) for layer in net.layers]
    started = time.perf_counter()
    camera = regioncam.Regioncam(size=1.0)  # the square [-1, 1]^2
    for weight, bias in layers:
        camera.linear(np.ascontiguousarray(weight.T), bias)
        camera.relu()
    return camera.num_faces, time.perf_counter() - started


def _best(function, repeats: int):
    best, result = float("inf"), None
    for _ in range(repeats):
        started = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - started)
    return result, best


def main(seeds: tuple[int, ...] = (0, 1)) -> int:
    """Print exact counts and times next to Regioncam's on He-normal ReLU networks in [-1, 1]^2.

    ``time`` is :func:`refine_mesh` (the region complex: patterns and adjacency, every region's exact
    inequalities and interior point deferred until first asked for); ``geometry`` adds building those for
    every region; ``ratio`` compares ``time`` with Regioncam's float32 run on the same weights.
    """
    print(f"{'network':<20} {'seed':>4} {'exact':>11} {'time':>8} {'geometry':>8} {'regioncam':>10} "
          f"{'time':>8} {'ratio':>6}")
    print("-" * 82)
    for widths in WIDTHS:
        for seed in seeds:
            net = he_normal(widths, seed=seed)
            repeats = 3 if widths[1] <= 64 else 1
            # _best calls each closure right away, inside this iteration; the default binds net for ruff's sake.
            exact, ours = _best(lambda net=net: len(refine_mesh(net, SQUARE)), repeats)
            _, geometry = _best(lambda net=net: [r.interior_point for r in refine_mesh(net, SQUARE).regions], repeats)
            other = _best(lambda net=net: _regioncam(net), 3 * repeats)
            line = f"{str(widths):<20} {seed:>4} {exact:>11} {ours:>7.3f}s {geometry:>7.3f}s"
            if other[0] is None:
                print(f"{line} {'(regioncam not installed)':>26}")
                continue
            (count, _), theirs = other
            print(f"{line} {count:>10} {theirs:>7.3f}s {ours / theirs:>5.1f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
