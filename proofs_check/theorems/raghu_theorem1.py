"""Raghu et al. 2017, Theorem 1: ``regions <= prod_l sum_{j <= n0} C(T n_l, j)``, on the shared sweep."""

from __future__ import annotations

from polyregions.measures.bounds import raghu_bound

from ._bound_check import check_bound, scatter_figure
from ._report import CheckResult, Timer
from ._sweep import NetSpec, breakpoints_of, sweep_specs

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "bound"]

NAME = "raghu_theorem1"
TITLE = "Raghu et al. 2017, Theorem 1: regions of a deep network"
KIND = "proven"
STATEMENT = """
A network with input dimension n0 and hidden widths n1..nL has at most prod_{l=1..L} sum_{j=0..n0} C(n_l, j)
activation regions with ReLU, and prod_l sum_{j=0..n0} C(2 n_l, j) with hard tanh (two hyperplanes per neuron).
Leaky ReLU (T = 1) is checked against prod_l sum_{j=0..n0} C(T n_l, j): the paper's proof (each layer cuts every
region of the previous layers with at most T n_l hyperplanes) holds for any continuous piecewise-linear activation
with T breakpoints. Regions are counted exactly in all of R^n0, or in a full-dimensional box (the bound holds in
any sub-domain of dimension n0).
"""


def bound(spec: NetSpec) -> int:
    """The bound for one network of the sweep."""
    return raghu_bound(spec.n0, spec.hidden, breakpoints=breakpoints_of(spec))


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Count every network of the sweep and check it against Raghu et al.'s bound."""
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        check_bound(result, sweep_specs(size), bound, workers=workers)
    result.seconds = timer.seconds
    return result


figure = scatter_figure
