"""The whole 2-D ``polyregions regions`` job against Regioncam, each as its own process.

``python -m benchmarks.bench_job_2d [--repeats N] [--seeds 0,1] [--widths 2,64,128]`` writes He-normal float32
networks ``[2, w, w, w]`` to a temporary folder, then runs ``python -m polyregions regions NET --box=-1,1 --json``
(activation regions, linear regions, adjacency, ``exact: true``) and a small Regioncam script on the same float32
layers, alternately, and prints for each network the region counts, the wall time, the CPU time (user + system)
and the peak resident memory of both processes (the best of the repeats), with the ratios ours / Regioncam.
Both pay for starting Python and reading the network file; the network of width 2 shows that start-up cost
alone. Machines shared with other work make absolute times noisy: compare the ratios of one run, and prefer
the CPU times when the machine is busy.

``cases()`` (for ``python -m benchmarks``) times the command once per network, in a subprocess.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Callable

from benchmarks._processes import run_json
from benchmarks.peers import REGIONCAM

WIDTHS = (64, 128)



def _ours(path: Path) -> list[str]:
    return [sys.executable, "-m", "polyregions", "regions", str(path), "--box=-1,1", "--json"]


def _theirs(path: Path) -> list[str]:
    return [sys.executable, "-c", REGIONCAM, str(path)]


def _write(folder: Path, width: int, seed: int) -> Path:
    from polyregions.networks.initializers import he_normal
    from polyregions.networks.io import save_network

    path = folder / f"he_normal_2_{width}x3_seed{seed}.json"
    save_network(he_normal([2, width, width, width], seed=seed), path)
    return path


def cases() -> list[tuple[str, Callable[[], object]]]:
    folder = Path(tempfile.mkdtemp(prefix="bench_job_2d_"))
    found = []
    for width in WIDTHS:
        path = _write(folder, width, 0)
        # The closure runs right away in the runner's loop; the default binds path for ruff's sake.
        found.append((f"polyregions regions, He normal [2,{width},{width},{width}], process",
                      lambda path=path: run_json(_ours(path)).output["activation_regions"]))
    return found


def _have_regioncam() -> bool:
    try:
        import regioncam  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> int:
    """Print the comparison table (see the module's docstring)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_job_2d", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs of each command; the best is kept")
    parser.add_argument("--seeds", default="0", help="comma-separated seeds of the networks")
    parser.add_argument("--widths", default=",".join(map(str, (2,) + WIDTHS)),
                        help="comma-separated hidden widths (2: the start-up cost of both processes)")
    args = parser.parse_args(argv)
    theirs_available = _have_regioncam()
    header = (f"{'network':<22} {'seed':>4} {'regions':>15} {'wall s':>17} {'ratio':>6} {'CPU s':>13} {'ratio':>6} "
              f"{'peak MB':>11} {'ratio':>6}")
    print(header)
    print(f"{'':<22} {'':>4} {'ours / theirs':>15} {'ours / theirs':>17} {'':>6} {'ours / theirs':>13} {'':>6} "
          f"{'ours / theirs':>11}")
    print("-" * len(header))
    with tempfile.TemporaryDirectory(prefix="bench_job_2d_") as tmp:
        for width in (int(w) for w in args.widths.split(",")):
            for seed in (int(s) for s in args.seeds.split(",")):
                path = _write(Path(tmp), width, seed)
                ours, theirs = [], []
                for _ in range(args.repeats):  # alternate, so that both see the same load
                    ours.append(run_json(_ours(path)))
                    if theirs_available:
                        theirs.append(run_json(_theirs(path)))
                summary = ours[0].output
                if not summary["exact"]:
                    raise RuntimeError(f"expected an exact run, got {summary}")
                wall, cpu, peak = (min(getattr(r, key) for r in ours) for key in ("wall", "cpu", "peak_mb"))
                name = f"[2,{width},{width},{width}]"
                if not theirs:
                    print(f"{name:<22} {seed:>4} {summary['activation_regions']:>7} {'-':>7} {wall:>8.2f} {'-':>8} "
                          f"{'':>6} {cpu:>6.2f} {'-':>6} {'':>6} {peak:>5.0f} {'-':>5}   (regioncam not installed)")
                    continue
                count = theirs[0].output["regions"]
                wall2, cpu2, peak2 = (min(getattr(r, key) for r in theirs) for key in ("wall", "cpu", "peak_mb"))
                print(f"{name:<22} {seed:>4} {summary['activation_regions']:>7} {count:>7} {wall:>8.2f} {wall2:>8.2f} "
                      f"{wall / wall2:>6.2f} {cpu:>6.2f} {cpu2:>6.2f} {cpu / cpu2:>6.2f} {peak:>5.0f} {peak2:>5.0f} "
                      f"{peak / peak2:>6.2f}", flush=True)
                print(f"{'':<22} {'':>4} linear regions {summary['linear_regions']}, adjacencies "
                      f"{summary['adjacencies']}, exact {summary['exact']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
