"""Run every benchmark module's ``cases()`` and print a table: ``python -m benchmarks [NAME ...]``.

Each module ``benchmarks/bench_*.py`` exposes ``cases() -> list[(name, zero-argument callable)]``; a case is
run repeatedly for at least half a second (at least once) and its best time is reported.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import time

import benchmarks


def _time(function, budget: float = 0.5) -> tuple[float, int, object]:
    best, runs, started, result = float("inf"), 0, time.perf_counter(), None
    while runs == 0 or (time.perf_counter() - started < budget and runs < 1000):
        t0 = time.perf_counter()
        result = function()
        best = min(best, time.perf_counter() - t0)
        runs += 1
    return best, runs, result


def _format(seconds: float) -> str:
    for unit, scale in (("s", 1), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:8.2f} {unit}"
    return f"{seconds / 1e-9:8.1f} ns"


def main(selected: list[str]) -> int:
    names = sorted(m.name for m in pkgutil.iter_modules(benchmarks.__path__) if m.name.startswith("bench_"))
    if selected:
        names = [n for n in names if any(s in n for s in selected)]
    print(f"{'benchmark':<58} {'best':>11} {'runs':>6}  result")
    print("-" * 100)
    for name in names:
        module = importlib.import_module(f"benchmarks.{name}")
        for label, function in module.cases():
            best, runs, result = _time(function)
            print(f"{label:<58} {_format(best):>11} {runs:>6}  {str(result)[:40]}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
