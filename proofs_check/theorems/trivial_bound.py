"""The trivial bound ``(T + 1)^N`` and the one-hidden-layer arrangement bound, on the shared sweep."""

from __future__ import annotations

from polyregions.measures.bounds import one_layer_bound, trivial_bound

from ._bound_check import check_bound, scatter_figure
from ._report import CheckResult, Timer
from ._sweep import NetSpec, breakpoints_of, count, sweep_specs

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "bound", "arrangement_regions"]

NAME = "trivial_bound"
TITLE = "Trivial bound (T+1)^N and the one-layer arrangement bound"
KIND = "proven"
STATEMENT = """
A region has one activation pattern, so a network with N neurons whose activation has T breakpoints has at most
prod_l (T+1)^(n_l) = (T+1)^N regions (2^N for ReLU). With one hidden layer the regions are the cells of the
arrangement of the T n1 hyperplanes {w_i . x + b_i = xi} (xi a breakpoint), so there are at most
sum_{i=0..n0} C(T n1, i) of them (equality for hyperplanes in general position). For every one-layer network the
count is also compared with the number of cells of that arrangement computed by polyregions.arrangements (an
enumeration by recursive restriction that shares no code with the network engines): they must be equal.
"""


def bound(spec: NetSpec) -> int:
    """The trivial bound for one network of the sweep."""
    return trivial_bound(spec.hidden, breakpoints=breakpoints_of(spec))


def arrangement_regions(spec: NetSpec) -> int:
    """Cells of the first layer's hyperplane arrangement inside the network's domain (one-layer networks)."""
    from polyregions.arrangements import Arrangement
    from polyregions.polyhedra.polytope import Polytope

    net = spec.build()
    layer = net.layers[0]
    rows = [list(w) + [xi - b] for w, b in zip(layer.weight, layer.bias) for xi in layer.activation.breakpoints]
    if spec.domain == "space":
        return Arrangement(rows, dim=spec.n0).num_regions()
    lo = 0 if spec.domain == "unit" else -1
    return Arrangement(rows, dim=spec.n0, domain=Polytope.box([lo] * spec.n0, [1] * spec.n0)).num_regions()


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Check every network of the sweep against (T+1)^N, and the one-layer ones against their arrangement."""
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        specs = sweep_specs(size)
        check_bound(result, specs, bound, workers=workers)
        one_layer, reached = [], 0
        for spec in specs:
            if len(spec.hidden) != 1 or spec.init in ("sawtooth", "montufar"):
                continue
            regions = count(spec).regions
            T = breakpoints_of(spec)
            limit = one_layer_bound(spec.n0, spec.hidden[0], breakpoints=T)
            cells = arrangement_regions(spec)
            reached += regions == limit
            one_layer.append({"case": spec.label, "regions": regions, "arrangement_cells": cells, "bound": limit})
            result.require(regions <= limit, f"{spec.label}: {regions} regions, above the one-layer bound {limit}")
            result.require(regions == cells, f"{spec.label}: {regions} regions, but its arrangement has {cells} cells")
        equal = all(r["regions"] == r["arrangement_cells"] for r in one_layer)
        result.summary.append(f"one hidden layer: {len(one_layer)} networks; the count equals the arrangement's "
                              f"number of cells on all of them: {equal}; "
                              f"the bound sum_i C(T n1, i) is reached exactly on {reached}")
        result.numbers.update(one_layer_networks=len(one_layer), one_layer_bound_reached=reached,
                              one_layer=one_layer)
    result.seconds = timer.seconds
    return result


figure = scatter_figure
