"""polyregions beside its peers, each as its own process: ``python -m benchmarks.peers``.

One table of the cases that matter for speed, each tool run as the whole command a user would run:

* the whole 2-D job (activation regions, linear regions, adjacency) of He-normal float32 ``[2, w, w, w]``
  (``w`` = 64, 128, 256; 512 with ``--full``) and of deep narrow ``[2] + [w] * d`` (``w * d`` = 512 units) in
  ``[-1, 1]^2``: ``polyregions regions NET --box=-1,1 --json`` beside a Regioncam script on the same layers;
* the whole 3-D job of He ``[3, 16, 16, 16]`` and ``[3, 32, 32, 32]`` in ``[-1, 1]^3`` and of Berzins' two 3-D
  bunny networks (a signed distance function, ``[3] + [16] * 3 + [1]`` and, with ``--full``, ``[3] + [32] * 8 +
  [1]``) in ``[-0.5, 0.5]^3``, beside Berzins' edge subdivision (float32, vertices and edges only, on one thread) when
  ``--berzins DIR`` or ``POLYREGIONS_BERZINS`` names a checkout of it (its code is run there, never copied);
* all of R^n on relucent's own ``mlp`` networks (PyTorch's default initialisation, read exactly):
  ``polyregions regions NET --domain SPACE --json`` beside relucent's ``Complex.bfs`` with its default workers;
* bounded boxes in 4, 5 and 6 dimensions (no peer enumerates them): the default command (the mesh engine there)
  beside the LP engine's (``--engine lp``), regions per second against the goals.

A case whose commands both take under five seconds runs five times, each tool in turn, and one whose commands take
under half a minute three times; each tool's run of median wall time is reported. A single run moves with the
machine's state, by a tenth on a short command and by up to a fifth on a longer one, most of it system time (the
first touch of fresh memory).

A peer that is not installed (``pip install -e .[bench]``) leaves its rows out; every peer runs with one thread
(``OMP_NUM_THREADS=1``: the goals compare CPU time, and spinning threads on a loaded machine cost it without
helping). Counts must agree; a
disagreement is printed, not hidden. The ratios compare the two tools of one run, on one machine at one load;
``--save-baseline`` stores this run's numbers in ``benchmarks/peers_baseline.json`` and later runs print
polyregions' CPU time against it (``then``; CPU time, as the machine's load changes the wall time) so that a change
shows. polyregions' modules are compiled to bytecode first, as an installation has them after its first run (and
as the peers' own packages have them): a shell that sets ``PYTHONDONTWRITEBYTECODE`` would otherwise compile them
again in every timed command.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

from benchmarks._processes import Measured, RunFailed, run_json

BASELINE = Path(__file__).with_name("peers_baseline.json")
#: (seconds, runs): a case whose commands all take less than the seconds runs that many times, interleaved
ROUNDS = ((5.0, 5), (30.0, 3))

#: Regioncam on the network file's float32 layers (the file holds each float32 weight as its exact rational).
REGIONCAM = """
import json, sys
from fractions import Fraction
import numpy as np
import regioncam
network = json.load(open(sys.argv[1]))
camera = regioncam.Regioncam(size=1.0)  # the square [-1, 1]^2
for layer in network["layers"]:
    weight = np.array([[float(Fraction(v)) for v in row] for row in layer["weight"]], dtype=np.float32)
    bias = np.array([float(Fraction(v)) for v in layer["bias"]], dtype=np.float32)
    camera.linear(np.ascontiguousarray(weight.T), bias)
    camera.relu()
print(json.dumps({"regions": camera.num_faces}))
"""

#: Berzins' edge subdivision on the network file's float32 layers; argv: checkout, network file, low, high.
#: Its complex splits at every layer's units (the output's too).
_BERZINS = """
import json, os, sys
from fractions import Fraction
import torch
os.chdir(sys.argv[1])
sys.path.insert(0, sys.argv[1])
from NN import Net
from edge_subdivision import skeletal_subdivision
layers = json.load(open(sys.argv[2]))["layers"]
net = Net([len(layers[0]["weight"][0])] + [len(layer["weight"]) for layer in layers])
with torch.no_grad():
    for linear, layer in zip(net.fcs, layers):
        linear.weight.copy_(torch.tensor([[float(Fraction(v)) for v in row] for row in layer["weight"]]))
        linear.bias.copy_(torch.tensor([float(Fraction(v)) for v in layer["bias"]]))
    vertices, edges, _ = skeletal_subdivision(net, bbox=(float(sys.argv[3]), float(sys.argv[4])), device="cpu",
                                              verbose=False)
print(json.dumps({"vertices": len(vertices), "edges": len(edges)}))
"""

_RELUCENT = """
import json, sys
from relucent import Complex, mlp, set_seeds
set_seeds(int(sys.argv[2]))
complex_ = Complex(mlp(json.loads(sys.argv[1])))
complex_.bfs(verbose=0)
print(json.dumps({"regions": len(complex_)}))
"""


@dataclass(frozen=True)
class Case:
    """One comparison: polyregions' command, and the peer's (None when the peer is not installed)."""

    name: str
    ours: list[str]
    theirs: list[str] | None
    peer: str
    goal: str = ""


def _installed(module: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(module) is not None


def _one_thread(command: list[str]) -> list[str]:
    return ["env", "OMP_NUM_THREADS=1", "OPENBLAS_NUM_THREADS=1", "MKL_NUM_THREADS=1", *command]


def _polyregions(*arguments: str) -> list[str]:
    return [sys.executable, "-m", "polyregions", "regions", *arguments, "--json"]


def _he_normal(folder: Path, widths: list[int]) -> Path:
    from polyregions.networks.initializers import he_normal
    from polyregions.networks.io import save_network

    path = folder / f"he_{'x'.join(map(str, widths))}.json"
    save_network(he_normal(widths, seed=0), path)
    return path


def _relucent_network(folder: Path, widths: list[int], seed: int) -> Path:
    """relucent's ``mlp(widths)`` after ``set_seeds(seed)``, written as a polyregions network file."""
    import numpy as np
    from relucent import mlp, set_seeds

    from polyregions.networks.io import network_from_arrays, save_network

    set_seeds(seed)
    layers = [layer for layer in mlp(widths).layers.values() if hasattr(layer, "weight")]
    network = network_from_arrays([np.asarray(layer.weight) for layer in layers],
                                  [np.asarray(layer.bias).reshape(-1) for layer in layers])
    path = folder / f"relucent_{'x'.join(map(str, widths))}_seed{seed}.json"
    save_network(network, path)
    return path


def _bunny(folder: Path, checkout: Path, depth: int, width: int) -> Path:
    """Berzins' trained bunny network ``[3] + [width] * depth + [1]`` (a state dict, read without running
    code), written as a polyregions network file; a ReLU on its output too, so that its complex is the one Berzins'
    subdivision computes (split by the surface ``f = 0`` as well)."""
    import torch

    from polyregions.networks.io import network_from_arrays, save_network

    state = torch.load(checkout / "models" / f"3,{depth}x{width},relu,bunny", map_location="cpu", weights_only=True)
    weights = [state[f"fcs.{i}.weight"].double().numpy() for i in range(depth + 1)]
    biases = [state[f"fcs.{i}.bias"].double().numpy() for i in range(depth + 1)]
    path = folder / f"bunny_{depth}x{width}.json"
    save_network(network_from_arrays(weights, biases, ["relu"] * (depth + 1)), path)
    return path


def cases(folder: Path, full: bool, berzins: Path | None) -> list[Case]:
    space = folder / "space.json"
    space.write_text(json.dumps({"type": "space"}))
    found = []
    regioncam = _installed("regioncam")
    for width in (64, 128, 256) + ((512,) if full else ()):
        path = _he_normal(folder, [2, width, width, width])
        theirs = _one_thread([sys.executable, "-c", REGIONCAM, str(path)]) if regioncam else None
        found.append(Case(f"2-D job He [2,{width},{width},{width}]", _polyregions(str(path), "--box=-1,1"), theirs,
                          "Regioncam", "CPU at most 0.5x Regioncam's"))
    for width, depth in ((64, 8), (32, 16), (16, 32)):  # deep narrow networks, the same job
        path = _he_normal(folder, [2] + [width] * depth)
        theirs = _one_thread([sys.executable, "-c", REGIONCAM, str(path)]) if regioncam else None
        found.append(Case(f"2-D job He [2]+[{width}]*{depth}", _polyregions(str(path), "--box=-1,1"), theirs,
                          "Regioncam", "CPU at most 0.5x Regioncam's"))
    three_d = [(f"3-D job He [3,{w},{w},{w}]", _he_normal(folder, [3, w, w, w]), "-1", "1") for w in (16, 32)]
    if berzins is not None and _installed("torch"):
        three_d += [(f"3-D bunny [3]+[{w}]*{d}+[1]", _bunny(folder, berzins, d, w), "-0.5", "0.5")
                    for d, w in ((3, 16),) + (((8, 32),) if full else ())]  # the deep one: minutes, ~18 GB
    for name, path, low, high in three_d:
        theirs = (_one_thread([sys.executable, "-c", _BERZINS, str(berzins), str(path), low, high])
                  if berzins is not None and _installed("torch") else None)
        found.append(Case(name, _polyregions(str(path), f"--box={low},{high}"), theirs, "Berzins",
                          "CPU at most 0.5x Berzins'"))
    if _installed("relucent"):
        for widths in ([3, 12, 12, 1], [4, 16, 16, 1]) + (([6, 12, 12, 1],) if full else ()):
            path = _relucent_network(folder, widths, 0)
            found.append(Case(f"R^{widths[0]} relucent mlp {widths}", _polyregions(str(path), "--domain", str(space)),
                              _one_thread([sys.executable, "-c", _RELUCENT, json.dumps(widths), "0"]), "relucent",
                              "10x relucent's regions/s"))
    for widths, goal in (([4, 16, 16], "20000 regions/s"), ([5, 12, 12], ""), ([6, 12, 12], "10000 regions/s")):
        path = _he_normal(folder, widths)
        found.append(Case(f"box He {widths} in [-1,1]^{widths[0]}", _polyregions(str(path), "--box=-1,1"),
                          _polyregions(str(path), "--box=-1,1", "--engine", "lp"), "LP engine", goal))
    return found


def _runs(case: Case, timeout: float) -> tuple[Measured, Measured | RunFailed | None]:
    """Each tool's run of the case: the one run, or for a shorter case the run of median wall time of as many as
    :data:`ROUNDS` gives, the tools taking turns. A peer that fails is reported as failed (a float peer can stop on
    a degenerate configuration); polyregions failing stops the benchmark."""
    ours = [run_json(case.ours, timeout=timeout)]
    try:
        theirs = [run_json(case.theirs, timeout=timeout)] if case.theirs is not None else []
    except RunFailed as failure:
        return ours[0], failure
    longest = max(run.wall for run in ours + theirs)
    rounds = next((count for seconds, count in ROUNDS if longest < seconds), 1)
    for _ in range(rounds - 1):
        ours.append(run_json(case.ours, timeout=timeout))
        if case.theirs is not None:
            theirs.append(run_json(case.theirs, timeout=timeout))
    return _median(ours), _median(theirs) if theirs else None


def _median(runs: list[Measured]) -> Measured:
    return sorted(runs, key=lambda run: run.wall)[len(runs) // 2]


def _regions(measured: Measured) -> int | None:
    """The run's region count (None for a peer that does not count regions)."""
    output = measured.output
    for key in ("activation_regions", "regions"):
        if key in output:
            return int(output[key])
    return None


def _row(name: str, tool: str, measured: Measured, extra: str = "") -> str:
    count = _regions(measured)
    shown, rate = (f"{count:>8}", f"{count / measured.wall:>10.0f}") if count is not None else ("-" * 8, "-" * 10)
    return (f"{name:<34} {tool:<12} {shown} {measured.wall:>8.2f} {measured.cpu:>8.2f} {measured.peak_mb:>8.0f} "
            f"{rate}  {extra}")


def _comparison(case: Case, ours: Measured, theirs: Measured) -> str:
    """The peer's row's note: whether the counts agree, and polyregions' CPU, wall time and memory over the peer's."""
    ratios = (f"polyregions / {case.peer}: CPU {ours.cpu / theirs.cpu:.2f}x, wall {ours.wall / theirs.wall:.2f}x, "
              f"memory {ours.peak_mb / theirs.peak_mb:.2f}x")
    if _regions(theirs) is None:  # Berzins' subdivision gives the complex's vertices and edges, not its regions
        found = ", ".join(f"{value} {key}" for key, value in theirs.output.items())
        return f"{found}; {ratios}"
    agree = "counts agree" if _regions(theirs) == _regions(ours) else "COUNTS DIFFER"
    return f"{agree}; {ratios}"


def _compiled() -> None:
    """polyregions' modules compiled to bytecode where Python looks for it."""
    import compileall

    import polyregions

    compileall.compile_dir(Path(polyregions.__file__).parent, quiet=1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.peers", description=__doc__.split("\n\n")[0])
    parser.add_argument("--full", action="store_true",
                        help="add He [2,512,512,512], the deep bunny and relucent's [6,12,12,1] (many minutes each)")
    parser.add_argument("--save-baseline", action="store_true", help=f"store this run's numbers in {BASELINE.name}")
    parser.add_argument("--timeout", type=float, default=1800, help="seconds allowed to each command")
    parser.add_argument("--only", metavar="TEXT", default="", help="run only the cases whose name contains TEXT")
    parser.add_argument("--berzins", metavar="DIR", type=Path, default=os.environ.get("POLYREGIONS_BERZINS"),
                        help="a checkout of Berzins' relu_edge_subdivision, run beside the 3-D cases "
                             "(default: $POLYREGIONS_BERZINS)")
    args = parser.parse_args(argv)
    if args.berzins is not None and not (Path(args.berzins) / "edge_subdivision.py").is_file():
        parser.error(f"--berzins: expected a checkout of relu_edge_subdivision, got {args.berzins}")
    baseline = json.loads(BASELINE.read_text()) if BASELINE.exists() else {}
    saved: dict[str, dict[str, float | str]] = {}
    print(f"{'case':<34} {'tool':<12} {'regions':>8} {'wall s':>8} {'CPU s':>8} {'peak MB':>8} {'regions/s':>10}  "
          "comparison")
    print("-" * 120)
    _compiled()
    with tempfile.TemporaryDirectory(prefix="bench_peers_") as tmp:
        berzins = Path(args.berzins).resolve() if args.berzins else None
        for case in (case for case in cases(Path(tmp), args.full, berzins) if args.only in case.name):
            ours, theirs = _runs(case, args.timeout)
            if not ours.output.get("exact"):
                raise RuntimeError(f"{case.name}: expected an exact run, got {ours.output}")
            then = baseline.get(case.name, {}).get("cpu")
            notes = [f"CPU then {then:.2f} s ({ours.cpu / then:.2f}x)"] if then else []
            goal = [f"goal: {case.goal}"] if case.goal else []
            print(_row(case.name, "polyregions", ours, "; ".join(notes + goal)), flush=True)
            saved[case.name] = {"wall": ours.wall, "cpu": ours.cpu, "peak_mb": ours.peak_mb,
                                "regions": _regions(ours) or 0}
            if isinstance(theirs, RunFailed):
                print(f"{'':<34} {case.peer:<12} {'-' * 8} {theirs.wall:>8.2f} {theirs.cpu:>8.2f} {'-' * 8} "
                      f"{'-' * 10}  FAILED ({theirs.last_line[:200]})", flush=True)
                saved[case.name] |= {"peer_failed": theirs.last_line[:200], "peer_cpu": theirs.cpu}
            elif theirs is not None:
                print(_row("", case.peer, theirs, _comparison(case, ours, theirs)), flush=True)
                saved[case.name] |= {"peer_wall": theirs.wall, "peer_cpu": theirs.cpu, "peer_peak_mb": theirs.peak_mb}
    if args.save_baseline:  # the cases not run keep their stored numbers
        BASELINE.write_text(json.dumps(baseline | saved, indent=1, sort_keys=True) + "\n")
        print(f"stored in {BASELINE}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
