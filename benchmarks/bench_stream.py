"""The whole ``polyregions regions`` command with and without ``--stream``, each as its own process.

``python -m benchmarks.bench_stream [--widths 12,16,20] [--dim 4] [--workers 1]`` writes He-normal networks
``[dim, w, w]`` to a temporary folder and runs ``python -m polyregions regions NET --box=-1,1 --json --quiet``
with the LP engine, once holding the complex in memory and once streaming it to a fresh ``polyregions.store/1``
file, and prints for each network the regions, the wall time, the peak resident memory of each process, the
peak per 1,000 regions, and the store's size on disk. The counts of the two runs must agree. Streaming keeps
only a share of the regions in memory at a time, so its peak should stay nearly flat as the networks grow,
while the in-memory peak grows with the regions.

``python -m benchmarks.bench_stream --mesh 64^3,128^3,32^16 [--export-below 20000]`` does the same for the 2-D
mesh engine on He-normal networks ``[2] + [w] * depth`` in ``[-1, 1]^2``, in CPU seconds: in memory the command
counts without building a region's inequalities, which the store holds for every region, so on the networks of
fewer regions than ``--export-below`` the runs with ``--export`` (every region's geometry and output map) are
timed too, in memory and streamed (the export then written from the store).

``cases()`` (for ``python -m benchmarks``) streams the smallest network once, in a subprocess.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path
from typing import Callable

from benchmarks._processes import run_json

WIDTHS = (12, 16, 20)


def _command(network: Path, workers: int, store: Path | None, engine: str = "lp") -> list[str]:
    command = [sys.executable, "-m", "polyregions", "regions", str(network), "--box=-1,1", "--json", "--quiet",
               "--engine", engine, "--workers", str(workers)]
    return command + (["--stream", str(store)] if store is not None else [])


def _write(folder: Path, dim: int, width: int, seed: int, depth: int = 2) -> Path:
    from polyregions.networks.initializers import he_normal
    from polyregions.networks.io import save_network

    path = folder / f"he_normal_{dim}_{width}x{depth}_seed{seed}.json"
    save_network(he_normal([dim] + [width] * depth, seed=seed), path)
    return path


def _mesh_table(folder: Path, shapes: str, seed: int, export_below: int) -> None:
    """The 2-D mesh engine's rows: counts in memory and streamed, and both with the export."""
    print(f"{'network':<14} {'regions':>8} | {'memory s':>9} {'peak MB':>8} | {'stream s':>9} {'peak MB':>8} "
          f"{'store MB':>9} {'/memory':>7} | {'+export s':>9} {'peak MB':>8} | {'stream s':>9} {'peak MB':>8} "
          f"{'/memory':>7}  counts")
    for shape in shapes.split(","):
        width, depth = (int(part) for part in shape.split("^"))
        network = _write(folder, 2, width, seed, depth)
        store, export = folder / f"store_{shape}.sqlite", folder / "export.json"
        in_memory = run_json(_command(network, 1, None, "mesh"))
        streamed = run_json(_command(network, 1, store, "mesh"))
        size = store.stat().st_size / 2 ** 20
        store.unlink()
        regions = in_memory.output["activation_regions"]
        runs = [in_memory, streamed]
        line = (f"{f'[2]+[{width}]*{depth}':<14} {regions:>8} | {in_memory.cpu:>9.2f} {in_memory.peak_mb:>8.0f} | "
                f"{streamed.cpu:>9.2f} {streamed.peak_mb:>8.0f} {size:>9.1f} {streamed.cpu / in_memory.cpu:>7.2f} | ")
        if regions < export_below:
            exported = run_json(_command(network, 1, None, "mesh") + ["--export", str(export)])
            both = run_json(_command(network, 1, store, "mesh") + ["--export", str(export)])
            store.unlink()
            export.unlink()
            runs += [exported, both]
            line += (f"{exported.cpu:>9.2f} {exported.peak_mb:>8.0f} | {both.cpu:>9.2f} {both.peak_mb:>8.0f} "
                     f"{both.cpu / exported.cpu:>7.2f}")
        else:
            line += f"{'-':>9} {'-':>8} | {'-':>9} {'-':>8} {'-':>7}"
        agree = "agree" if all(run.output == in_memory.output for run in runs) else "DIFFER"
        print(f"{line}  {agree}", flush=True)


def cases() -> list[tuple[str, Callable[[], object]]]:
    folder = Path(tempfile.mkdtemp(prefix="bench_stream_"))
    network = _write(folder, 4, WIDTHS[0], 0)

    def streamed() -> object:
        store = folder / "store.sqlite"
        store.unlink(missing_ok=True)
        return run_json(_command(network, 1, store)).output["activation_regions"]
    return [(f"polyregions regions --stream, He normal [4,{WIDTHS[0]},{WIDTHS[0]}], process", streamed)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.bench_stream", description=__doc__.split("\n\n")[0])
    parser.add_argument("--widths", default=",".join(map(str, WIDTHS)), help="hidden widths, one network each")
    parser.add_argument("--dim", type=int, default=4, help="the input dimension (the box is [-1, 1]^dim)")
    parser.add_argument("--workers", type=int, default=1, help="processes of each run")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--mesh", metavar="SHAPES",
                        help="the 2-D mesh engine's table instead, on [2] + [w] * depth for each w^depth given")
    parser.add_argument("--export-below", type=int, default=20_000, metavar="REGIONS",
                        help="with --mesh, export in memory only the networks of fewer regions")
    args = parser.parse_args(argv)
    folder = Path(tempfile.mkdtemp(prefix="bench_stream_"))
    if args.mesh:
        _mesh_table(folder, args.mesh, args.seed, args.export_below)
        return 0
    print(f"{'network':<14} {'regions':>8} | {'memory s':>9} {'peak MB':>8} {'MB/1k':>6} | "
          f"{'stream s':>9} {'peak MB':>8} {'MB/1k':>6} {'store MB':>9} {'KB/region':>9}  counts")
    for width in (int(w) for w in args.widths.split(",")):
        network = _write(folder, args.dim, width, args.seed)
        in_memory = run_json(_command(network, args.workers, None))
        store = folder / f"store_{width}.sqlite"
        streamed = run_json(_command(network, args.workers, store))
        regions = in_memory.output["activation_regions"]
        size = store.stat().st_size / 2 ** 20
        agree = "agree" if streamed.output == in_memory.output else "DIFFER"
        print(f"{str([args.dim, width, width]):<14} {regions:>8} | {in_memory.wall:>9.2f} {in_memory.peak_mb:>8.0f} "
              f"{1000 * in_memory.peak_mb / regions:>6.1f} | {streamed.wall:>9.2f} {streamed.peak_mb:>8.0f} "
              f"{1000 * streamed.peak_mb / regions:>6.1f} {size:>9.1f} {1024 * size / regions:>9.2f}  {agree}",
              flush=True)
        store.unlink()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
