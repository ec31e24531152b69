"""The whole 3-D job (activation regions, linear regions, adjacency) through the 3-D mesh engine, beside the general
(LP-certified) engine and Berzins' edge subdivision: ``python -m benchmarks.bench_mesh_3d``.

Cases: He-normal float32 ``[3, 16, 16, 16]`` and ``[3, 32, 32, 32]`` (seed 0) in ``[-1, 1]^3``, and, when the
environment variable ``POLYREGIONS_BERZINS`` (or ``--berzins DIR``) names a checkout of Berzins' code, his two
bunny networks ``[3] + [16] * 3 + [1]`` and (with ``--full``) ``[3] + [32] * 8 + [1]`` in ``[-0.5, 0.5]^3``: the latter
has about ten million regions, takes minutes and about 18 GB of memory in polyregions (and about as much in
Berzins' code), and is left to the two of them (the general engine would take hours). Every tool runs as its
own process on one thread: ``polyregions regions NET --box=LO,HI --json --engine mesh`` (and ``--engine lp``
unless ``--no-lp``), and Berzins' script (vertices and edges only, float32, no pruning) run from his checkout.
The table gives each run's CPU time (user + system), wall time, peak memory and regions per CPU-second, and the
CPU ratio of the mesh engine to each other tool. The engines' counts must agree; a disagreement is printed.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
from pathlib import Path
from typing import Callable

from benchmarks._processes import Measured, RunFailed, run_json
from benchmarks.peers import _BERZINS, _bunny, _he_normal, _installed, _one_thread, _polyregions


def cases() -> list[tuple[str, Callable[[], object]]]:
    """In-process cases for ``python -m benchmarks``: the 3-D mesh engine on He-normal networks in the cube."""
    import polyregions as pr
    from polyregions.networks.initializers import he_normal

    cube = pr.box([-1, -1, -1], [1, 1, 1])
    return [(f"3-D mesh engine, He normal [3,{w},{w},{w}] in [-1,1]^3",
             lambda w=w: len(pr.enumerate_regions(he_normal([3, w, w, w], seed=0), cube, engine="mesh")))
            for w in (8, 16)]


def _cases(folder: Path, berzins: Path | None, full: bool) -> list[tuple[str, Path, str, str]]:
    found = [(f"He [3,{w},{w},{w}]", _he_normal(folder, [3, w, w, w]), "-1", "1") for w in (16, 32)]
    if berzins is not None and _installed("torch"):
        found += [(f"bunny [3]+[{w}]*{d}+[1]", _bunny(folder, berzins, d, w), "-0.5", "0.5")
                  for d, w in ((3, 16),) + (((8, 32),) if full else ())]
    return found


def _row(name: str, tool: str, run: Measured, mesh: Measured | None) -> str:
    regions = run.output.get("activation_regions")
    counts = (f"{regions:>8} {run.output['linear_regions']:>8} {run.output['adjacencies']:>8}" if regions is not None
              else f"{run.output.get('vertices', '-'):>8} {run.output.get('edges', '-'):>8} {'-':>8}")
    rate = f"{regions / run.cpu:>9.0f}" if regions is not None else f"{'-':>9}"
    ratio = f"mesh/this CPU {mesh.cpu / run.cpu:.2f}x" if mesh is not None and run is not mesh else ""
    return (f"{name:<22} {tool:<8} {counts} {run.cpu:>7.2f} {run.wall:>7.2f} {run.peak_mb:>7.0f} {rate}  {ratio}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_mesh_3d", description=__doc__)
    parser.add_argument("--berzins", metavar="DIR", default=os.environ.get("POLYREGIONS_BERZINS"),
                        help="a checkout of Berzins' edge subdivision (default: $POLYREGIONS_BERZINS)")
    parser.add_argument("--no-lp", action="store_true", help="leave out the general engine (minutes on He [3,32^3])")
    parser.add_argument("--full", action="store_true", help="also the deep bunny [3]+[32]*8+[1] (minutes, ~18 GB)")
    parser.add_argument("--timeout", type=float, default=3600.0, help="seconds per command")
    args = parser.parse_args(argv)
    berzins = Path(args.berzins).resolve() if args.berzins else None
    print(f"{'case':<22} {'tool':<8} {'regions':>8} {'linear':>8} {'adjacent':>8} {'CPU s':>7} {'wall s':>7} "
          f"{'peak MB':>7} {'regions/s':>9}  (Berzins: vertices, edges)")
    status = 0
    with tempfile.TemporaryDirectory() as folder:
        for name, path, low, high in _cases(Path(folder), berzins, args.full):
            box = f"--box={low},{high}"
            mesh = run_json(_one_thread(_polyregions(str(path), box, "--engine", "mesh")), timeout=args.timeout)
            print(_row(name, "mesh", mesh, None), flush=True)
            if not args.no_lp and "*8" not in name:
                lp = run_json(_one_thread(_polyregions(str(path), box, "--engine", "lp")), timeout=args.timeout)
                print(_row("", "lp", lp, mesh), flush=True)
                keys = ("activation_regions", "linear_regions", "adjacencies")
                if any(lp.output[key] != mesh.output[key] for key in keys):
                    print("  ENGINES DIFFER", flush=True)
                    status = 1
            if berzins is not None and _installed("torch"):
                try:
                    theirs = run_json(_one_thread([sys.executable, "-c", _BERZINS, str(berzins), str(path), low,
                                                   high]), timeout=args.timeout)
                except RunFailed as failure:  # a float peer can stop on a degenerate configuration
                    print(f"{'':<22} {'Berzins':<8} FAILED after {failure.cpu:.2f} s CPU ({failure.last_line[:200]})",
                          flush=True)
                else:
                    print(_row("", "Berzins", theirs, mesh), flush=True)
    return status


if __name__ == "__main__":
    sys.exit(main())
