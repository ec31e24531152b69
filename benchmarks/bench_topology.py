"""Topology of decision regions: Betti numbers of a He-normal [2,64,64,64] network with one output in [-1,1]^2,
beside the enumeration of its regions (the goal: within twice the enumeration's time)."""

from __future__ import annotations

import functools

from polyregions.networks.initializers import he_normal
from polyregions.regions.domains import box

SQUARE = box([-1, -1], [1, 1])


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
