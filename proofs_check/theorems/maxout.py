"""Serra et al. 2018 (Theorem 10) and Montufar, Ren & Zhang 2021: regions of maxout networks."""

from __future__ import annotations

from polyregions.measures.bounds import maxout_montufar_bound, maxout_serra_bound

from ._bound_check import finish_bound_axes
from ._graph_sweep import count, maxout_specs
from ._report import CheckResult, Timer, ratio, tightest

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure"]

NAME = "maxout"
TITLE = "Maxout networks: Serra et al. 2018 (Theorem 10) and Montufar, Ren & Zhang 2021"
KIND = "proven"
STATEMENT = """
A network of L maxout layers (n_l units of rank k_l, each the maximum of k_l affine functions of the layer's
input) on R^n0 has at most prod_l sum_{j=0..d_l} C(n_l, j) (k_l - 1)^j activation regions (full-dimensional sets
of constant argmax), d_l = min(n0, n_1, ..., n_{l-1}) (Montufar, Ren & Zhang 2021; sharp for one layer), and at
most prod_l sum_{j=0..min(n0, n_1, ..., n_l)} C(k_l (k_l - 1)/2 n_l, j) (Serra, Tjandraatmadja & Ramalingam 2018,
Theorem 10). Checked: every exact count (random maxout networks on 1-D and 2-D inputs, ranks 2 to 4, counted in
[-3, 3]^n0) is at most the Montufar-Ren-Zhang bound, which is at most Serra et al.'s.
"""


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Count the maxout networks and check them against both bounds."""
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        for spec in maxout_specs(size):
            counted = count(spec)
            widths = [units for units, _ in spec.layers]
            ranks = [rank for _, rank in spec.layers]
            montufar = maxout_montufar_bound(spec.input_dim, widths, ranks)
            serra = maxout_serra_bound(spec.input_dim, widths, ranks)
            row = {"case": spec.label, "n0": spec.input_dim, "activation": "maxout", "widths": widths,
                   "ranks": ranks, "regions": counted.regions, "bound": montufar, "serra_bound": serra,
                   "ratio": ratio(counted.regions, montufar), "holds": counted.regions <= montufar <= serra,
                   "seconds": round(counted.seconds, 4)}
            result.require(counted.exact, f"{spec.label}: the count is not certified exact")
            result.require(counted.regions <= montufar, f"{spec.label}: {counted.regions} regions, above "
                                                        f"Montufar-Ren-Zhang's bound {montufar}")
            result.require(montufar <= serra, f"{spec.label}: Montufar-Ren-Zhang's bound {montufar} exceeds "
                                              f"Serra et al.'s {serra}")
            result.rows.append(row)
        result.columns = ["case", "n0", "widths", "ranks", "regions", "bound", "serra_bound", "ratio", "holds"]
        result.tightest = tightest(result.rows)
        held = sum(r["holds"] for r in result.rows)
        result.summary.append(f"{len(result.rows)} maxout networks; regions <= Montufar-Ren-Zhang <= Serra on "
                              f"{held} of {len(result.rows)}")
        if result.rows:
            top = result.tightest[0]
            result.summary.append(f"tightest: {top['case']}: {top['regions']} / {top['bound']} = "
                                  f"{top['ratio']:.4f}")
            result.numbers.update(networks=len(result.rows), max_ratio=top["ratio"],
                                  strictly_tighter=sum(r["bound"] < r["serra_bound"] for r in result.rows))
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Both bounds against the count on log axes; the diagonal is count = bound."""
    ax = fig.add_subplot(1, 1, 1)
    counts = [r["regions"] for r in result.rows]
    ax.scatter(counts, [r["bound"] for r in result.rows], s=14, label="Montufar, Ren & Zhang 2021")
    ax.scatter(counts, [r["serra_bound"] for r in result.rows], s=14, marker="x", label="Serra et al. 2018")
    finish_bound_axes(ax, result, "bound", "serra_bound")
