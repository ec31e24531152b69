"""One enumeration in one process against the same enumeration on a local Dask cluster of two workers.

``python -m benchmarks.bench_distributed [--widths 6,12,12] [--workers 2]`` enumerates the He-normal network in
``[-1, 1]^d`` with the LP engine alone, then on a ``LocalCluster`` of worker processes with one thread each
(started before the clock), checks that the counts agree, and prints both times and the speed-up. The cluster's
start is not timed: a cluster outlives many enumerations. ``cases()`` is empty: the generic runner would time the
cluster's start.
"""

from __future__ import annotations

import argparse
import time


def cases():
    return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_distributed",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--widths", default="6,12,12", help="the network's widths, input first")
    parser.add_argument("--workers", type=int, default=2, help="worker processes of the local cluster")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from dask.distributed import Client, LocalCluster

    from polyregions.networks.initializers import he_normal
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    widths = [int(w) for w in args.widths.split(",")]
    network, d = he_normal(widths, seed=args.seed), widths[0]
    domain = box([-1] * d, [1] * d)
    started = time.perf_counter()
    alone = enumerate_regions(network, domain, engine="lp")
    one = time.perf_counter() - started
    cluster = LocalCluster(n_workers=args.workers, threads_per_worker=1, processes=True, dashboard_address=None)
    with cluster, Client(cluster) as client:
        started = time.perf_counter()
        split = enumerate_regions(network, domain, engine="lp", scheduler=client)
        many = time.perf_counter() - started
    agree = "agree" if (len(split), split.summary()) == (len(alone), alone.summary()) else "DIFFER"
    print(f"{'network':<16} {'regions':>8} {'one process s':>14} {f'{args.workers} Dask workers s':>18} "
          f"{'speed-up':>9}  counts")
    print(f"{str(widths):<16} {len(alone):>8} {one:>14.2f} {many:>18.2f} {one / many:>9.2f}  {agree}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
