"""The exact simplex on cell-shaped programs: ``max c.x`` over ``a_i . x <= b_i`` with random integer rows and a
strict interior, n=4 with m=48 rows and n=20 with m=160 (the shapes the refinement engines produce).

``cases()`` times the exact simplex alone. ``python -m benchmarks.bench_exact_lp`` also runs the Fraction
tableau it replaced (kept in ``tests/test_exact_simplex.py`` as the test oracle; about 15 s on the larger shape)
once per program and prints both times and their ratio.
"""

from __future__ import annotations

import time
from fractions import Fraction
from random import Random
from typing import Callable

from polyregions.exact._simplex import ExactLPSolution, exact_simplex
from polyregions.exact.linalg import Matrix, Vector, dot

SHAPES = ((4, 48), (20, 160))


def cell_program(n: int, m: int, seed: int) -> tuple[Vector, Matrix, Vector]:
    """``(c, A, b)``: rows with integer entries in [-10, 10], b_i in [1, 20] so the origin is strictly inside."""
    rng = Random(seed)
    A = tuple(tuple(Fraction(rng.randint(-10, 10)) for _ in range(n)) for _ in range(m))
    b = tuple(Fraction(rng.randint(1, 20)) for _ in range(m))
    c = tuple(Fraction(rng.randint(-10, 10)) for _ in range(n))
    return c, A, b


def _solve(program: tuple[Vector, Matrix, Vector]) -> Callable[[], object]:
    def run() -> object:
        solution = exact_simplex(*program)
        if solution.point is None:
            return solution.status
        return f"{solution.status}, c.x = {float(dot(program[0], solution.point)):.10g}"
    return run


def cases() -> list[tuple[str, Callable[[], object]]]:
    return [(f"exact simplex, cell n={n}, m={m}", _solve(cell_program(n, m, seed=0))) for n, m in SHAPES]


def _best(solver: Callable[..., ExactLPSolution], program: tuple[Vector, Matrix, Vector], runs: int
          ) -> tuple[ExactLPSolution, float]:
    """The solver's answer and its best time over ``runs`` runs."""
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        answer = solver(*program)
        best = min(best, time.perf_counter() - started)
    return answer, best


def main() -> int:
    from tests.test_exact_simplex import fraction_tableau_simplex

    print(f"{'program':<32} {'Fraction tableau':>17} {'revised simplex':>16} {'ratio':>8}")
    for n, m in SHAPES:
        seeds = range(3) if n < 10 else range(1)
        old = new = 0.0
        for seed in seeds:
            program = cell_program(n, m, seed)
            reference, seconds = _best(fraction_tableau_simplex, program, 3 if n < 10 else 1)  # about 15 s at n=20
            old += seconds
            solution, seconds = _best(exact_simplex, program, 5)
            new += seconds
            assert solution.status == reference.status == "optimal"
            assert solution.point is not None and reference.point is not None
            assert dot(program[0], solution.point) == dot(program[0], reference.point)
        count = len(seeds)
        label = f"cell n={n}, m={m} (mean of {count})"
        print(f"{label:<32} {old / count * 1e3:14.2f} ms {new / count * 1e3:13.3f} ms {old / new:7.0f}x", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
