"""All of R^n against relucent, on relucent's own networks: ``python -m benchmarks.bench_relucent``.

relucent (``pip install relucent``, part of the ``bench`` extra; it solves its programs with Gurobi, whose
size-limited licence comes with the ``gurobipy`` wheel) enumerates the regions of a ReLU network on all of R^n
by a breadth-first search over the dual graph, in floating point. Both count the regions of the same weights
(relucent's ``mlp`` at PyTorch's default initialisation, read exactly by polyregions), in one run, so that the
ratio holds on a shared machine; the counts must agree. ``cases()`` is empty: the benchmark runner does not
need relucent.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from polyregions.networks.io import network_from_arrays
from polyregions.regions._refine import refine
from polyregions.regions.domains import space

WIDTHS = ([3, 12, 12, 1], [4, 16, 16, 1])


def cases():
    return []


def _relucent_network(widths: list[int], seed: int):
    from relucent import mlp, set_seeds

    set_seeds(seed)
    return mlp(widths)


def _relucent(net, workers: int) -> tuple[int, float]:
    from relucent import Complex

    started = time.perf_counter()
    complex_ = Complex(net)
    complex_.bfs(nworkers=workers, verbose=0)
    return len(complex_), time.perf_counter() - started


def _ours(net, workers: int) -> tuple[int, float]:
    layers = [layer for layer in net.layers.values() if hasattr(layer, "weight")]
    exact = network_from_arrays([np.asarray(layer.weight) for layer in layers],
                                [np.asarray(layer.bias).reshape(-1) for layer in layers])
    started = time.perf_counter()
    count = len(refine(exact, space(exact.input_dim), workers=workers))
    return count, time.perf_counter() - started


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--relucent-workers", type=int, default=2)
    parser.add_argument("--workers", type=int, default=1, help="polyregions' processes")
    args = parser.parse_args(argv)
    print(f"{'network':<18} {'tool':<24} {'regions':>8} {'seconds':>8} {'regions/s':>10}")
    for widths in WIDTHS:
        net = _relucent_network(widths, args.seed)
        ours = _ours(net, args.workers)
        theirs = _relucent(net, args.relucent_workers)
        for tool, (count, seconds) in ((f"polyregions, {args.workers} process(es)", ours),
                                       (f"relucent, {args.relucent_workers} workers", theirs)):
            print(f"{str(widths):<18} {tool:<24} {count:>8} {seconds:>8.2f} {count / seconds:>10.0f}", flush=True)
        agree = "agree" if ours[0] == theirs[0] else "DIFFER"
        print(f"  counts {agree}; polyregions / relucent in regions per second: "
              f"{(ours[0] / ours[1]) / (theirs[0] / theirs[1]):.1f}x")


if __name__ == "__main__":
    main()
