"""Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1 on the ReLU networks of the shared sweep."""

from __future__ import annotations

from polyregions.measures.bounds import raghu_relu_bound, serra_bound

from ._bound_check import check_bound, scatter_figure
from ._report import CheckResult, Timer
from ._sweep import NetSpec, sweep_specs

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "bound"]

NAME = "serra"
TITLE = "Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1 (ReLU)"
KIND = "proven"
STATEMENT = """
A ReLU network with input dimension n0 and hidden widths n1..nL has at most
sum over (j1..jL) in J of prod_l C(n_l, j_l) activation regions, where J is the set of integer vectors with
0 <= j_l <= min(n0, n1 - j1, ..., n_{l-1} - j_{l-1}, n_l) for every l. Proven for ReLU only (an inactive unit
must output a constant), so the check runs on the ReLU networks of the sweep and on the ReLU constructions
(sawtooth, Montufar et al.). Also checked: the bound never exceeds Raghu et al.'s ReLU bound (J is a subset of
the index set of that product's expansion).
"""


def bound(spec: NetSpec) -> int:
    """The bound for one network of the sweep."""
    return serra_bound(spec.n0, spec.hidden)


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Count the ReLU networks of the sweep and check them against Serra et al.'s bound."""
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        specs = [s for s in sweep_specs(size) if s.activation == "relu"]
        check_bound(result, specs, bound, workers=workers)
        looser = 0
        for row in result.rows:
            raghu = raghu_relu_bound(row["n0"], row["widths"])
            row["raghu_bound"] = raghu
            looser += row["bound"] < raghu
            result.require(row["bound"] <= raghu, f"{row['case']}: Serra's bound {row['bound']} exceeds Raghu's "
                                                  f"{raghu}")
        result.columns.append("raghu_bound")
        result.summary.append(f"Serra's bound <= Raghu's on every architecture; strictly smaller on {looser} of "
                              f"{len(result.rows)}")
        result.numbers["strictly_tighter_than_raghu"] = looser
    result.seconds = timer.seconds
    return result


figure = scatter_figure
