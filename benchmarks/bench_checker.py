"""The independent checker against the exporter: ``python -m benchmarks.bench_checker``.

For each case a network and a 2-D slice domain are written to a temporary folder, ``polyregions regions NET
--domain D --export OUT --json`` runs as its own process, then ``python -m proofs_check verify OUT --quiet`` on
its export; the table gives the regions, the two commands' wall and CPU seconds, and the ratio of the wall times
(verify / export; the goal is at most 1). The cases: an ACAS Xu-sized dense network (5 inputs, 6 hidden layers
of 50 ReLUs, He normal float32 weights, 5 outputs) on slices of growing size, and the convolutional and max-pool
networks of :mod:`benchmarks.bench_conv_slice` (graph networks, exported as their compiled stages) on slices
through a random image.

``--size full`` adds a dense slice of about 23,000 regions and a max-pool one of about 3,900 (minutes each);
``--checker DIR`` times the ``proofs_check`` found in ``DIR`` instead of this tree's (e.g. an older version
unpacked by ``git archive REV proofs_check | tar -x -C DIR``), on the same exports.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import resource
import subprocess
import sys
import tempfile
import time
from typing import Callable

import numpy as np

#: (name, network, slice half-width, in the quick set)
_DENSE = [("dense 5-50x6-5, slice 0.05", 0.05, True), ("dense 5-50x6-5, slice 0.1", 0.1, True),
          ("dense 5-50x6-5, slice 0.2", 0.2, True), ("dense 5-50x6-5, slice 0.6", 0.6, False)]
_GRAPH = [("conv (320 ReLUs), slice 0.1", "conv", 0.1, True), ("conv (320 ReLUs), slice 0.3", "conv", 0.3, True),
          ("max-pool (320 ReLUs, 64 max), slice 0.1", "pooled", 0.1, True),
          ("max-pool (320 ReLUs, 64 max), slice 0.3", "pooled", 0.3, False)]
ROOT = pathlib.Path(__file__).resolve().parent.parent


def _write_networks(folder: pathlib.Path) -> dict[str, pathlib.Path]:
    import polyregions as pr
    from benchmarks.bench_conv_slice import conv_net, pooled_net

    paths = {"dense": folder / "dense.json", "conv": folder / "conv.json", "pooled": folder / "pooled.json"}
    pr.save_network(pr.he_normal([5, 50, 50, 50, 50, 50, 50], seed=0, output_dim=5), paths["dense"])
    for name, net in (("conv", conv_net(0)), ("pooled", pooled_net(0))):
        pr.save_network(net, paths[name])
    return paths


def _dense_slice(half: float) -> dict:
    """A 2-D slice of the 5-D input space through a point off the origin (the network is nearly homogeneous)."""
    return {"type": "slice", "origin": [0.3, -0.2, 0.1, 0.4, -0.1],
            "directions": [[1, 0, 0, 0, 0], [0, 1, 0, 0, 0]], "lower": [-half, -half], "upper": [half, half]}


def _image_slice(half: float) -> dict:
    """Two random directions through a random 8 x 8 image, rounded to three decimals."""
    rng = np.random.default_rng(1)
    return {"type": "slice", "origin": rng.normal(0, 1, 64).round(3).tolist(),
            "directions": rng.normal(0, 1, (2, 64)).round(3).tolist(), "lower": [-half, -half],
            "upper": [half, half]}


def _run(command: list[str], *, cwd: pathlib.Path | None = None, env: dict | None = None,
         timeout: float | None = None) -> tuple[str, float, float]:
    """Run a command to its end: ``(standard output, wall seconds, CPU seconds of the child)``;
    ``subprocess.TimeoutExpired`` past ``timeout`` seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}): {(done.stderr or done.stdout)[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, wall, cpu


def export(network: pathlib.Path, domain: dict, out: pathlib.Path) -> tuple[int, float, float]:
    """``polyregions regions --export``: ``(regions, wall, cpu)``."""
    domain_path = out.with_suffix(".domain.json")
    domain_path.write_text(json.dumps(domain))
    stdout, wall, cpu = _run(["polyregions", "regions", str(network), "--domain", str(domain_path), "--export",
                              str(out), "--json", "--quiet"])
    return json.loads(stdout.strip().splitlines()[-1])["activation_regions"], wall, cpu


def verify(path: pathlib.Path, checker: pathlib.Path | None = None,
           timeout: float | None = None) -> tuple[float, float]:
    """``python -m proofs_check verify --quiet``, of this tree or of the one in ``checker``: ``(wall, cpu)``."""
    env = dict(os.environ, PYTHONPATH=str(checker or ROOT))
    stdout, wall, cpu = _run([sys.executable, "-m", "proofs_check", "verify", str(path.resolve()), "--quiet"],
                             cwd=checker or ROOT, env=env, timeout=timeout)
    if stdout.strip().splitlines()[-1] != "verified":
        raise RuntimeError(f"{path}: not verified: {stdout[-500:]}")
    return wall, cpu


def _cases(size: str) -> list[tuple[str, str, dict]]:
    cases = [(name, "dense", _dense_slice(half)) for name, half, quick in _DENSE if quick or size == "full"]
    cases += [(name, net, _image_slice(half)) for name, net, half, quick in _GRAPH if quick or size == "full"]
    return cases


def cases() -> list[tuple[str, Callable[[], object]]]:
    """For ``python -m benchmarks``: verifying the smallest dense export, in this process."""
    from proofs_check.verify import verify_file

    folder = pathlib.Path(tempfile.mkdtemp(prefix="bench_checker_"))
    path = folder / "dense.export.json"
    export(_write_networks(folder)["dense"], _dense_slice(0.05), path)
    return [("proofs_check verify, dense 5-50x6-5 slice (~250 regions)", lambda: verify_file(str(path)).verified)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--size", choices=("quick", "full"), default="quick")
    parser.add_argument("--checker", type=pathlib.Path, metavar="DIR",
                        help="time the proofs_check package in DIR instead of this tree's")
    parser.add_argument("--only", default="", help="run only the cases whose name contains this text")
    parser.add_argument("--timeout", type=float, default=None, metavar="S",
                        help="stop a verification after S seconds and report it as taking more")
    args = parser.parse_args(argv)
    print(f"{'case':<42} {'regions':>8} {'export s':>9} {'(cpu)':>7} {'verify s':>9} {'(cpu)':>7} {'ratio':>6}")
    with tempfile.TemporaryDirectory(prefix="bench_checker_") as tmp:
        folder = pathlib.Path(tmp)
        networks = _write_networks(folder)
        for index, (name, net, domain) in enumerate(_cases(args.size)):
            if args.only not in name:
                continue
            out = folder / f"case{index}.json"
            regions, export_wall, export_cpu = export(networks[net], domain, out)
            try:
                verify_wall, verify_cpu = verify(out, args.checker, args.timeout)
            except subprocess.TimeoutExpired:
                print(f"{name:<42} {regions:>8} {export_wall:>9.2f} {export_cpu:>7.2f} {'>' + str(args.timeout):>9} "
                      f"{'':>7} {'>' + format(args.timeout / export_wall, '.1f'):>6}", flush=True)
                continue
            print(f"{name:<42} {regions:>8} {export_wall:>9.2f} {export_cpu:>7.2f} {verify_wall:>9.2f} "
                  f"{verify_cpu:>7.2f} {verify_wall / export_wall:>6.2f}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
