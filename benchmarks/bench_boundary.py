"""Boundary geometry: distances of many points in 784-D, regions along lines, exact boundary volumes in 2-D and 4-D.

The 4-D case is ``polyregions boundary NET --box=-1,1`` on He [4, 12, 12] (13337 regions). Before the face complex
was built from integer double descriptions and its faces triangulated through its own lattice (issue 17, item 5),
it did not finish in 300 s; measured in one run on He [4, 8, 8] (2367 regions), ``boundary_volumes`` took 138 s
before and 3.9 s after (35x; 22x with the enumeration), and on He [3, 12, 12] 14.2 s and 1.0 s.
"""

from __future__ import annotations

import functools

import numpy as np

from polyregions.networks.initializers import he_normal


@functools.lru_cache(maxsize=None)
def _mnist_sized():
    return he_normal([784, 64, 64, 64], seed=0)


@functools.lru_cache(maxsize=None)
def _points(count: int, seed: int = 0):
    # Standard normal inputs (Hanin & Rolnick draw from a normal matching the data's mean and variance).
    return np.random.default_rng(seed).normal(size=(count, 784))


def _distances(kind: str):
    def run() -> str:
        from polyregions.measures.distances import boundary_distances

        net = _mnist_sized()
        d = boundary_distances(net, _points(10000), kind=kind)
        return (f"mean x N = {d.values.mean() * net.num_neurons:.3f}, exact fallbacks {len(d.exact_points)}, "
                f"max rel. width {d.relative_error():.1e}")
    return run


def _lines():
    from polyregions.measures.trajectories import regions_along_lines

    net = _mnist_sized()
    counts = regions_along_lines(net, _points(100, seed=1))
    return f"regions / N = {np.mean(counts) / net.num_neurons:.3f}"


def _volumes():
    from polyregions.measures.volumes import boundary_volumes
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    net = he_normal([2, 64, 64, 64], seed=0)
    v = boundary_volumes(enumerate_regions(net, box([-1, -1], [1, 1])))
    return f"length {v.values[0]:.4f}, {int(v.values[1])} vertices"


def _volumes_4d():
    import time

    from polyregions.measures.volumes import boundary_volumes
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    net = he_normal([4, 12, 12], seed=0)
    started = time.perf_counter()
    complex_ = enumerate_regions(net, box([-1] * 4, [1] * 4))
    enumerated = time.perf_counter()
    v = boundary_volumes(complex_)
    done = time.perf_counter()
    return (f"{len(complex_)} regions in {enumerated - started:.1f} s, volumes in {done - enumerated:.1f} s: "
            f"{', '.join(f'{x:.4g}' for x in v.values)}")


def cases():
    return [
        ("distances to activation boundaries, 10k points, [784,64,64,64]", _distances("activation")),
        ("distances to B_N, 10k points, [784,64,64,64]", _distances("linear")),
        ("regions along 100 lines through 0, [784,64,64,64]", _lines),
        ("exact B_N volumes, [2,64,64,64] in [-1,1]^2", _volumes),
        ("exact B_N volumes, He [4,12,12] in [-1,1]^4", _volumes_4d),
    ]
