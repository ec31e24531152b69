"""How often ``python -m benchmarks.peers`` runs a case: more often the shorter it is, each tool's median reported."""

import pytest

from benchmarks import peers
from benchmarks._processes import Measured

JITTER = [0.0, 0.3, -0.2, 0.1, -0.1]  # seconds added to polyregions' successive runs


@pytest.mark.parametrize("seconds, runs", [(1.0, 5), (4.9, 5), (5.0, 3), (29.0, 3), (30.0, 1), (600.0, 1)])
def test_a_case_runs_more_often_the_shorter_it_is(monkeypatch, seconds, runs):
    walls = {"ours": [], "theirs": []}

    def run_json(command, timeout):
        tool = command[0]
        wall = seconds + (JITTER[len(walls[tool])] if tool == "ours" else 0.0)
        walls[tool].append(wall)
        return Measured(wall=wall, cpu=wall, peak_mb=1.0, output={"regions": 1})

    monkeypatch.setattr(peers, "run_json", run_json)
    ours, theirs = peers._runs(peers.Case("case", ["ours"], ["theirs"], "peer"), timeout=1.0)
    assert len(walls["ours"]) == len(walls["theirs"]) == runs
    assert ours.wall == sorted(walls["ours"])[runs // 2]  # the run of median wall time
    assert theirs.wall == seconds
