"""The arrangement listing's ray search keeps a ray's vector and the mask of rows through it, not the value of
every row there: listing 10^4 parallel hyperplanes holds megabytes, not gigabytes; rows too large for int64
products are scanned exactly in Python, to the same regions."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from fractions import Fraction

import pytest

from polyregions.arrangements import Arrangement
from polyregions.arrangements.listing import iter_regions


def _sign(value) -> int:
    return 1 if value > 0 else -1


def _check(arrangement: Arrangement) -> list:
    listed = list(iter_regions(arrangement))
    assert len(listed) == arrangement.predicted_regions()
    assert len({r.signs for r in listed}) == len(listed)
    for region in listed:  # the point lies in the open region of its signs
        for (normal, offset), s in zip(zip(arrangement.normals, arrangement.offsets), region.signs):
            value = sum(Fraction(a) * x for a, x in zip(normal, region.point)) - Fraction(offset)
            assert value != 0 and _sign(value) == s
    return listed


@pytest.mark.parametrize("seed", range(4))
def test_big_rows_are_scanned_exactly_to_the_regions_of_small_ones(seed):
    rng = random.Random(seed)
    dim = rng.choice([2, 3])
    small = [[rng.randint(-3, 3) for _ in range(dim)] + [rng.randint(-4, 4)] for _ in range(8)]
    small = [row for row in small if any(row[:-1])]
    big = [[v * 2 ** 70 for v in row[:-1]] + [row[-1] * 2 ** 70 + 1]
           for row in small]  # the same normals scaled by 2^70, offsets moved by 2^-70 of a unit: int64 overflows
    for rows in (small, big):
        try:
            arrangement = Arrangement(rows)
        except Exception:  # repeated hyperplanes in the random draw
            pytest.skip("degenerate draw")
        _check(arrangement)
    small_regions = sorted(r.signs for r in iter_regions(Arrangement(small)))
    big_regions = sorted(r.signs for r in iter_regions(Arrangement(big)))
    assert len(small_regions) <= len(big_regions)


def test_huge_offsets_force_the_exact_scan():
    rows = [[1, 0, -(3 ** 50) * k] for k in range(6)] + [[0, 1, 0], [1, 1, -(3 ** 50)]]
    listed = _check(Arrangement(rows))
    assert len(listed) == Arrangement(rows).predicted_regions()


def test_listing_10000_parallel_hyperplanes_holds_little_memory(tmp_path):
    path = tmp_path / "p.json"
    path.write_text(json.dumps({"format": "polyregions.arrangement/1", "dimension": 1,
                                "hyperplanes": [[1, i] for i in range(10_000)]}))
    # The peak of this process's own memory (VmHWM): ru_maxrss would also count the pages of the process that
    # forked it (a test run's, hundreds of megabytes by the time this test runs in a whole suite).
    script = ("import sys; from polyregions.cli import main; "
              "status = main(['arrangement', sys.argv[1], '--list', sys.argv[2], '--quiet']); "
              "peak = next(line.split()[1] for line in open('/proc/self/status') if line.startswith('VmHWM:')); "
              "print(status, peak)")
    done = subprocess.run([sys.executable, "-c", script, str(path), str(tmp_path / "r.jsonl")], capture_output=True,
                          text=True, timeout=120)
    status, peak_kib = done.stdout.split()[-2:]
    assert status == "0", done.stderr[-2000:]
    assert int(peak_kib) < 400 * 1024, f"{int(peak_kib) // 1024} MiB"  # rays x rows values: 4 GiB
    with open(tmp_path / "r.jsonl") as handle:
        assert sum(1 for _ in handle) == 10_001 + 2
