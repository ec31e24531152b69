"""Hyperplane arrangements: region enumeration, faces and the characteristic polynomial, timed separately; and
counts of regions too many to list (``count_regions``: finite fields, deletion-restriction).

Every case builds a fresh :class:`~polyregions.arrangements.Arrangement` from canonical rows (cheap), so no
cached result is reused between runs. ``python -m benchmarks.bench_arrangements`` prints the counting table
alone, each case run once, next to the times measured for other tools.
"""

from __future__ import annotations

import math
import sys
import time
from typing import Callable

from polyregions.arrangements import (
    Arrangement,
    braid,
    catalan,
    count_regions,
    coxeter_number,
    exponents,
    generic,
    resonance,
    shi,
    threshold,
)


def _fresh(arrangement: Arrangement) -> Callable[[], Arrangement]:
    rows, dim = arrangement.hyperplanes, arrangement.dim
    return lambda: Arrangement(rows, dim=dim)


def _shi_regions(name: str) -> int:
    return (coxeter_number(name) + 1) ** len(exponents(name))


def _catalan_regions(name: str) -> int:
    return math.prod(coxeter_number(name) + e + 1 for e in exponents(name))


#: (label, arrangement, method, expected regions, what others take: measured or published)
COUNTING = [
    ("resonance R5, 31 hyperplanes in R^5", lambda: resonance(5), "auto", 11292,
     "listing it: polyregions 2.4 s, SageMath n_regions() 3.9 s"),
    ("resonance R5", lambda: resonance(5), "deletion-restriction", 11292, ""),
    ("resonance R6, 63 hyperplanes in R^6", lambda: resonance(6), "auto", 1066044,
     "listing it: polyregions > 900 s; goal 10 s"),
    ("resonance R6", lambda: resonance(6), "deletion-restriction", 1066044, ""),
    ("resonance R6", lambda: resonance(6), "poset", 1066044, ""),
    ("resonance R7, 127 hyperplanes in R^7", lambda: resonance(7), "auto", 347326352,
     "CountingChambers.jl 5.07 s; goal 60 s"),
    ("threshold T5, 32 hyperplanes in R^6", lambda: threshold(5), "auto", 94572, ""),
    ("threshold T6, 64 hyperplanes in R^7", lambda: threshold(6), "auto", 15028134,
     "CountingChambers.jl 9.95 s; goal 60 s"),
    ("Shi A6 = shi(7), 42 hyperplanes in R^7", lambda: shi(7), "auto", _shi_regions("A6"), ""),
    ("Catalan A6 = catalan(7), 63 hyperplanes in R^7", lambda: catalan(7), "auto", _catalan_regions("A6"), ""),
    ("Catalan A6", lambda: catalan(7), "deletion-restriction", _catalan_regions("A6"), ""),
    ("Shi B6, 72 hyperplanes in R^6", lambda: shi("B6"), "auto", _shi_regions("B6"), ""),
    ("Catalan D6, 90 hyperplanes in R^6", lambda: catalan("D6"), "auto", _catalan_regions("D6"), ""),
    ("Shi E6, 72 hyperplanes in R^6", lambda: shi("E6"), "auto", _shi_regions("E6"), ""),
    ("Shi E6", lambda: shi("E6"), "deletion-restriction", _shi_regions("E6"), ""),
    ("Catalan E6, 108 hyperplanes in R^6", lambda: catalan("E6"), "auto", _catalan_regions("E6"), ""),
]


def cases() -> list[tuple[str, Callable[[], object]]]:
    examples = [
        ("braid(7), 21 hyperplanes in R^7", braid(7)),
        ("Catalan(4), 18 hyperplanes in R^4", catalan(4)),
        ("Catalan(5), 30 hyperplanes in R^5", catalan(5)),
        ("Shi(5), 20 hyperplanes in R^5", shi(5)),
        ("generic, 20 hyperplanes in R^4 (seed 0)", generic(20, 4, seed=0)),
        ("resonance(5), 31 hyperplanes in R^5", resonance(5)),
    ]
    out: list[tuple[str, Callable[[], object]]] = []
    for label, arrangement in examples:
        make = _fresh(arrangement)
        out.append((f"{label}: regions", lambda make=make: make().num_regions()))
        out.append((f"{label}: characteristic polynomial", lambda make=make: make().characteristic_polynomial()))
    for label, arrangement in examples[:2] + examples[4:5]:
        make = _fresh(arrangement)
        out.append((f"{label}: all faces", lambda make=make: make().f_vector()))
    grid = Arrangement([[1, 0, k] for k in range(30)] + [[0, 1, k] for k in range(30)])
    out.append(("grid of 30 + 30 lines: regions and f-vector", lambda: _fresh(grid)().f_vector()))
    for label, build, method, _, _ in COUNTING:
        make = _fresh(build())
        out.append((f"{label}: count ({method})",
                    lambda make=make, method=method: count_regions(make(), method=method).regions))
    return out


def main(selected: list[str]) -> int:
    """The counting table: each case once, its time, the method ``auto`` chose, and the check of the count."""
    print(f"{'arrangement':<48} {'method':<21} {'time':>9} {'regions':>11}  check  others")
    print("-" * 130)
    for label, build, method, expected, others in COUNTING:
        if selected and not any(s in label for s in selected):
            continue
        arrangement = build()
        started = time.perf_counter()
        count = count_regions(arrangement, method=method)
        elapsed = time.perf_counter() - started
        used = method if method == count.method else f"{method}: {count.method}"
        check = "ok" if count.regions == expected else f"EXPECTED {expected}"
        print(f"{label:<48} {used:<21} {elapsed:>8.2f}s {count.regions:>11}  {check:<5}  {others}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
