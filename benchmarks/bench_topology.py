"""Topology of decision regions: Betti numbers of a He-normal [2,64,64,64] network with one output in [-1,1]^2,
beside the enumeration of its regions (the goal: within twice the enumeration's time).

``python -m benchmarks.bench_topology`` times the two commands as whole processes, CPU time of the child (best of
a few repeats, all in one run): ``polyregions regions NET --box=-1,1 --json`` and ``polyregions topology NET
--box=-1,1 --json``, the latter both by the faces read from the mesh engine's cells (the default for 1-D and 2-D
domains) and by the general route (every region's face lattice, then the signs), which was the only one before.

Measured on the shared 2-core machine (best CPU seconds of 3 repeats within one run, PYTHONDONTWRITEBYTECODE=1 as
set there, so every process also compiles what it imports)::

    before (the general route was the only one; its components through scipy.sparse):
    regions                              0.58 s   1.00 x regions
    topology                             3.00 s   5.17 x regions

    after:
    regions                              0.56 s   1.00 x regions
    topology, general route              2.66 s   4.77 x regions
    topology, faces from the mesh        0.65 s   1.17 x regions

In one process (no start-up): enumeration of the network 0.17 s, topology 0.27 s (it enumerates the refined
network, 16,327 regions and 65,661 faces, then counts). The face complex of the mesh route is built only when
``DecisionTopology.faces`` is asked for (0.3 s more).
"""

from __future__ import annotations

import functools
import sys
import tempfile
from pathlib import Path

from polyregions.networks.initializers import he_normal
from polyregions.regions.domains import box

SQUARE = box([-1, -1], [1, 1])

# The general route as a whole command: the same CLI with the mesh cells switched off.
_GENERAL = ("import sys; import polyregions.measures.topology as t; t._mesh_cells_apply = lambda *a: False; "
            "from polyregions.cli import main; sys.exit(main())")


@functools.lru_cache(maxsize=None)
def _network():
    return he_normal([2, 64, 64, 64], seed=0, output_dim=1)


def _enumeration() -> str:
    from polyregions.regions.enumeration import enumerate_regions

    return f"{len(enumerate_regions(_network(), SQUARE))} regions"


def _topology(field):
    def run() -> str:
        from polyregions.measures.topology import decision_topology

        result = decision_topology(_network(), SQUARE, field=field)
        return ", ".join(f"{s.name} {s.betti}" for s in result.sets)
    return run


def cases():
    return [
        ("region enumeration, [2,64,64,64,1] in [-1,1]^2", _enumeration),
        ("decision topology over GF(2), [2,64,64,64,1] in [-1,1]^2", _topology("GF(2)")),
        ("decision topology over Q, [2,64,64,64,1] in [-1,1]^2", _topology("Q")),
    ]


def whole_commands(repeats: int = 3) -> dict[str, float]:
    """The best CPU seconds of each command as its own process, and check both topology routes agree."""
    from benchmarks._processes import run_json
    from polyregions.networks.io import save_network

    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "net.json")
        save_network(_network(), path)
        commands = {
            "regions": [sys.executable, "-m", "polyregions", "regions", path, "--box=-1,1", "--json"],
            "topology, general route (before)": [sys.executable, "-c", _GENERAL, "topology", path, "--box=-1,1",
                                                 "--json"],
            "topology, faces from the mesh": [sys.executable, "-m", "polyregions", "topology", path, "--box=-1,1",
                                              "--json"],
        }
        best: dict[str, float] = {}
        outputs = {}
        for _ in range(repeats):
            for name, command in commands.items():
                measured = run_json(command)
                best[name] = min(best.get(name, float("inf")), measured.cpu)
                outputs[name] = measured.output
    general, mesh = outputs["topology, general route (before)"], outputs["topology, faces from the mesh"]
    if (general["betti"], general["euler_characteristic"]) != (mesh["betti"], mesh["euler_characteristic"]):
        raise RuntimeError(f"the two topology routes disagree: {general['betti']} and {mesh['betti']}")
    return best


if __name__ == "__main__":
    times = whole_commands()
    for name, seconds in times.items():
        print(f"{name:<36} {seconds:5.2f} s   {seconds / times['regions']:.2f} x regions")
