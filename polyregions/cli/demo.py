"""``polyregions demo``: the main job on small built-in examples, with its results checked.

It enumerates the exact regions of Telgarsky's sawtooth (2^n linear pieces on [0, 1]) and of a seeded
He-initialised ReLU network on [-1, 1]^2, checks the second against the LP-certified engine and the
architecture bounds, and exits non-zero if anything disagrees.
"""

from __future__ import annotations

import json
import time

from polyregions.cli._options import add_json_option, add_progress_options, wants_progress

__all__ = ["add_parser", "run"]


def add_parser(subparsers) -> None:
    parser = subparsers.add_parser(
        "demo", help="run the main job on small built-in examples and check it",
        description="The main job on small built-in examples, with its results checked: the exact regions of "
                    "Telgarsky's sawtooth (2^n linear pieces on [0, 1]) and of a seeded He-initialised ReLU "
                    "network on [-1, 1]^2, the second checked against the LP-certified engine and the "
                    "architecture bounds.",
        epilog="Exit status: 0 every check passed; 1 a check failed.")
    add_json_option(parser)
    add_progress_options(parser)
    parser.set_defaults(run=run)


def run(args) -> int:
    from polyregions.measures.bounds import compare_with_bounds
    from polyregions.networks.constructions import sawtooth
    from polyregions.networks.initializers import he_normal
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    depth = 5
    progress = wants_progress(args)
    started = time.perf_counter()
    saw = enumerate_regions(sawtooth(depth), box([0], [1]), progress=progress)
    widths = [2, 8, 8]
    net = he_normal(widths, seed=0, output_dim=1)
    square = box([-1, -1], [1, 1])
    fast = enumerate_regions(net, square, progress=progress)
    certified = enumerate_regions(net, square, engine="lp", progress=progress)
    elapsed = time.perf_counter() - started
    engines_agree = [r.pattern for r in fast.regions] == [r.pattern for r in certified.regions] and \
        len(fast.linear_regions) == len(certified.linear_regions)
    bounds = compare_with_bounds(len(fast), input_dim=2, widths=widths[1:], activation="relu")
    checks = {
        f"sawtooth({depth}) has 2^{depth} linear regions": len(saw.linear_regions) == 2 ** depth,
        "both engines give the same regions": engines_agree,
        "every applicable bound holds": all(row.holds is not False for row in bounds),
        "every decision exact": fast.exact and certified.exact and saw.exact,
    }
    report = {
        "sawtooth": saw.summary(),
        "he_normal_2_8_8": fast.summary(),
        "bounds": {row.name: row.bound for row in bounds if row.bound is not None},
        "checks": checks,
        "seconds": round(elapsed, 3),
    }
    if args.json:
        print(json.dumps(report))
    else:
        print(f"sawtooth of depth {depth} on [0, 1]: {len(saw)} activation regions, "
              f"{len(saw.linear_regions)} linear regions")
        print(f"He-initialised ReLU network {widths} (seed 0) on [-1, 1]^2: {len(fast)} activation regions, "
              f"{len(fast.linear_regions)} linear regions, {len(fast.adjacency)} adjacent pairs")
        for row in bounds:
            if row.bound is not None:
                print(f"  bound {row.name}: {row.bound}")
        for name, ok in checks.items():
            print(f"  [{'ok' if ok else 'FAILED'}] {name}")
        print(f"done in {elapsed:.2f} s")
    return 0 if all(checks.values()) else 1
