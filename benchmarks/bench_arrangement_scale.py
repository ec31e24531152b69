"""Arrangements at research scale: regions listed to a file, face vectors from the flats, the Orlik-Solomon
Hilbert series; each count checked against its closed form, and SageMath beside it when it imports.

``python -m benchmarks.bench_arrangement_scale [--sage] [NAME ...]`` prints the table: every case runs once in
a fresh child process (so that its peak resident memory, ``ru_maxrss``, is its own), with its wall time, its
result and the check of the result against the closed form or published value (OEIS A034997 for the resonance
arrangement, A000609 for threshold functions; ``n!`` braid, ``(n+1)^(n-1)`` Shi, ``n! C_n`` Catalan, the Linial
sum). ``--sage`` adds SageMath's times on the same arrangements (built as ``HyperplaneArrangements(QQ, ...)``
from the same rows; ``pip install passagemath-polyhedra``, the ``bench`` extra) for the cases it finishes in
minutes. ``python -m benchmarks bench_arrangement_scale`` times the quick cases alone.

Measured on this machine (2 cores shared with other jobs, Python 3.11, passagemath 10.8.13; one run of
``--sage``, every case in its own process; SageMath's times exclude its import and the construction of the
arrangement):

==============================================  ======================  =============================================
case                                            polyregions (peak RSS)  SageMath
==============================================  ======================  =============================================
R5: 11,292 regions listed                       0.29 s (41 MB)          ``A.regions()`` 21.9 s
R5: regions counted                             (``count_regions``)     ``A.n_regions()`` 7.7 s
R6: 1,066,044 regions listed to a file          36 s (68 MB; 140 MB     not run: at R5's 2 ms a region, at least
                                                file)                   35 minutes, every region a polyhedron
R6: regions counted                             (``count_regions``)     ``A.n_regions()`` stopped after 900 s
R6: face vector, 12,923,989 faces               53 s (562 MB)           (no face counts without listing them)
braid(9): face vector, 7,087,261 faces          13.7 s (307 MB)
R5: Orlik-Solomon Hilbert series                0.25 s                  ``A.poincare_polynomial()`` 5.2 s
braid(8): Orlik-Solomon Hilbert series          0.60 s                  ``A.poincare_polynomial()`` 25.2 s
R6: Orlik-Solomon Hilbert series                21.5 s (46 MB)
threshold T5: 94,572 regions listed             2.6 s (44 MB)
shi(7): 262,144 regions listed                  16.2 s (47 MB)
catalan(6): 95,040 regions listed               10.1 s (45 MB)
R7: 347,326,352 regions counted                 0.39 s (44 MB)
R8: 419,172,756,930 regions counted             161 s (734 MB)
threshold T6: 15,028,134 regions counted        0.30 s (41 MB)
threshold T7: 8,378,070,864 regions counted     70 s (533 MB)
==============================================  ======================  =============================================

Every count above equals its closed form or published value. The counts of R7, R8, T6 and T7 are the
finite-field method's (``count_regions``, five primes for R8 and T7: 108 s and 46 s of CPU time, the wall times
measured with the other core busy);
``python -m benchmarks.bench_arrangement_scale R8 T7`` runs those two alone and checks their characteristic
polynomials (Whitney numbers alternating in sign, ``chi(1) = 0``). The whole command line run
``polyregions arrangement --name resonance:6 --faces --list r6.jsonl`` (count, face vector and listing) took
56 s and 583 MB.
"""

from __future__ import annotations

import json
import math
import subprocess
import sys
import time
from typing import Callable

from polyregions.arrangements import (
    braid,
    catalan,
    face_vector,
    hilbert_series,
    iter_regions,
    linial,
    resonance,
    shi,
    threshold,
)


def _factorial_stirling(n: int) -> tuple[int, ...]:
    """The face vector of braid(n): ordered set partitions by number of blocks, ``k! S(n, k)``."""
    def stirling(k: int) -> int:
        return sum((-1) ** (k - j) * math.comb(k, j) * j ** n for j in range(k + 1)) // math.factorial(k)
    return (0,) + tuple(math.factorial(k) * stirling(k) for k in range(1, n + 1))


def _linial(n: int) -> int:
    return sum(math.comb(n, k) * (k + 1) ** (n - 1) for k in range(n + 1)) // 2 ** n


def _braid_series(n: int) -> tuple[int, ...]:
    out = [1]
    for k in range(1, n):
        out = [a + k * b for a, b in zip(out + [0], [0] + out)]
    return tuple(out)


RESONANCE = {1: 2, 2: 6, 3: 32, 4: 370, 5: 11292, 6: 1066044, 7: 347326352, 8: 419172756930}
THRESHOLD = {0: 2, 1: 4, 2: 14, 3: 104, 4: 1882, 5: 94572, 6: 15028134, 7: 8378070864}

#: (label, kind, arrangement expression, expected result)
CASES: list[tuple[str, str, str, object]] = (
    [(f"resonance R{n}: regions listed", "list", f"resonance({n})", RESONANCE[n]) for n in range(1, 7)]
    + [(f"threshold T{n}: regions listed", "list", f"threshold({n})", THRESHOLD[n]) for n in range(0, 6)]
    + [(f"braid({n}): regions listed", "list", f"braid({n})", math.factorial(n)) for n in (6, 7, 8)]
    + [(f"shi({n}): regions listed", "list", f"shi({n})", (n + 1) ** (n - 1)) for n in (5, 6, 7)]
    + [(f"catalan({n}): regions listed", "list", f"catalan({n})",
        math.factorial(n) * math.comb(2 * n, n) // (n + 1)) for n in (4, 5, 6)]
    + [(f"linial({n}): regions listed", "list", f"linial({n})", _linial(n)) for n in (5, 6, 7)]
    + [(f"braid({n}): face vector", "faces", f"braid({n})", _factorial_stirling(n)) for n in (8, 9)]
    + [("resonance R5: face vector", "faces", "resonance(5)", None),
       ("resonance R6: face vector", "faces", "resonance(6)", None),
       ("catalan(6): face vector", "faces", "catalan(6)", None)]
    + [(f"braid({n}): Orlik-Solomon Hilbert series", "hilbert", f"braid({n})", _braid_series(n)) for n in (8, 9)]
    + [("resonance R5: Orlik-Solomon Hilbert series", "hilbert", "resonance(5)", None),
       ("resonance R6: Orlik-Solomon Hilbert series", "hilbert", "resonance(6)", None)]
    + [(f"resonance R{n}: regions counted", "count", f"resonance({n})", RESONANCE[n]) for n in (7, 8)]
    + [(f"threshold T{n}: regions counted", "count", f"threshold({n})", THRESHOLD[n]) for n in (6, 7)]
)

_CHILD = """
import json, resource, sys, time, os, tempfile
from polyregions.arrangements import *
from polyregions.arrangements.face_counts import face_vector
kind, expression = sys.argv[1], sys.argv[2]
arrangement = eval(expression)
started, cpu_started = time.perf_counter(), time.process_time()
if kind == "list":
    path = os.path.join(tempfile.mkdtemp(), "regions.jsonl")
    result = write_regions(arrangement, path)
    size = os.path.getsize(path)
    os.remove(path)
elif kind == "faces":
    result, size = list(face_vector(arrangement, method="restrictions")), None
elif kind == "count":  # the finite-field method: chi from point counts, the regions from chi(-1)
    count, size = count_regions(arrangement), None
    result = count.regions
else:
    result, size = list(hilbert_series(arrangement)), None
elapsed = time.perf_counter() - started
extra = {"cpu": time.process_time() - cpu_started}
if kind == "count":  # the Whitney numbers alternate in sign, and chi(1) = 0 (central)
    chi = count.characteristic_polynomial
    extra["polynomial"] = list(chi)
    extra["whitney"] = sum(chi) == 0 and all(c and (c > 0) == (i % 2 == 0) for i, c in enumerate(chi))
elif kind != "list":  # closed forms that need no table: Euler's relation, Zaslavsky, pi(1) = regions
    regions = count_regions(arrangement).regions
    if kind == "faces":
        euler = sum((-1) ** k * c for k, c in enumerate(result)) == (-1) ** arrangement.dim
        extra["check"] = euler and result[-1] == regions
    else:
        poincare = count_regions(arrangement).poincare_polynomial
        extra["check"] = sum(result) == regions and tuple(result) == tuple(reversed(poincare))
print(json.dumps({"result": result, "seconds": elapsed, "bytes": size,
                  "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, **extra}))
"""

_SAGE = """
import itertools, json, sys, time
from sage.all__sagemath_polyhedra import QQ
from sage.geometry.hyperplane_arrangement.arrangement import HyperplaneArrangements
from polyregions.arrangements import *
kind, expression = sys.argv[1], sys.argv[2]
arrangement = eval(expression)
H = HyperplaneArrangements(QQ, tuple(f"x{i}" for i in range(arrangement.dim)))
A = H([[list(row[:-1]), -row[-1]] for row in arrangement.hyperplanes])
started = time.perf_counter()
if kind == "list":
    result = len(A.regions())
elif kind == "count":
    result = int(A.n_regions())
else:
    result = [int(c) for c in A.poincare_polynomial().list()]
print(json.dumps({"result": result, "seconds": time.perf_counter() - started}))
"""

#: SageMath cases that finish in minutes: (label, kind, expression).
SAGE_CASES = [(f"resonance R{n}", kind, f"resonance({n})") for n in (3, 4, 5) for kind in ("list", "count")] + [
    ("braid(6)", "list", "braid(6)"), ("shi(5)", "list", "shi(5)"), ("catalan(4)", "list", "catalan(4)"),
    ("resonance R5", "hilbert", "resonance(5)"), ("braid(8)", "hilbert", "braid(8)")]


def _child(code: str, kind: str, expression: str, timeout: float) -> dict | None:
    try:
        done = subprocess.run([sys.executable, "-c", code, kind, expression], capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else f"exit {done.returncode}"}
    return json.loads(done.stdout.strip().splitlines()[-1])


def cases() -> list[tuple[str, Callable[[], object]]]:
    """Quick cases for ``python -m benchmarks``."""
    return [
        ("resonance R5: 11,292 regions listed", lambda: sum(1 for _ in iter_regions(resonance(5)))),
        ("braid(7): 5,040 regions listed", lambda: sum(1 for _ in iter_regions(braid(7)))),
        ("shi(5): 1,296 regions listed", lambda: sum(1 for _ in iter_regions(shi(5)))),
        ("catalan(4): face vector from the flats", lambda: face_vector(catalan(4))),
        ("linial(5): Orlik-Solomon Hilbert series", lambda: hilbert_series(linial(5))),
        ("threshold T4: Orlik-Solomon Hilbert series", lambda: hilbert_series(threshold(4))),
    ]


def main(argv: list[str]) -> int:
    sage = "--sage" in argv or "--sage-only" in argv
    selected = [a for a in argv if a not in ("--sage", "--sage-only")]
    if "--sage-only" in argv:
        return _sage_table(selected)
    print(f"{'case':<46} {'time':>9} {'peak':>8}  {'check':<6} result")
    print("-" * 120)
    for label, kind, expression, expected in CASES:
        if selected and not any(s in label for s in selected):
            continue
        out = _child(_CHILD, kind, expression, timeout=900)
        if out is None or "error" in out:
            print(f"{label:<46} {'-':>9} {'-':>8}  {'FAIL':<6} {out}", flush=True)
            continue
        result = out["result"]
        check = out.get("check", True) if expected is None else result == (list(expected) if isinstance(
            expected, tuple) else expected)
        check = check and out.get("whitney", True)
        size = f", file {out['bytes'] / 1e6:.0f} MB" if out.get("bytes") else ""
        cpu = f" ({out['cpu']:.1f} s CPU; chi = {out['polynomial']})" if "polynomial" in out else ""
        print(f"{label:<46} {out['seconds']:>8.2f}s {out['peak_mb']:>6.0f}MB  {'ok' if check else 'WRONG':<6} "
              f"{result}{size}{cpu}", flush=True)
    if sage:
        print()
        _sage_table(selected)
    return 0


def _sage_table(selected: list[str]) -> int:
    """SageMath's times on the same arrangements, each case in a fresh child process."""
    what = {"list": "regions() listed", "count": "n_regions() (chi)", "hilbert": "poincare_polynomial()"}
    print(f"{'SageMath (passagemath), same arrangement':<46} {'time':>9}  result")
    print("-" * 120)
    for label, kind, expression in SAGE_CASES:
        if selected and not any(s in label for s in selected):
            continue
        out = _child(_SAGE, kind, expression, timeout=600)
        if out is None or "error" in out:
            print(f"{label + ': ' + what[kind]:<46} {'-':>9}  {out or 'over 600 s'}", flush=True)
            continue
        print(f"{label + ': ' + what[kind]:<46} {out['seconds']:>8.2f}s  {out['result']}", flush=True)
    return 0


if __name__ == "__main__":
    started = time.perf_counter()
    status = main(sys.argv[1:])
    print(f"\ntotal {time.perf_counter() - started:.0f} s")
    raise SystemExit(status)
