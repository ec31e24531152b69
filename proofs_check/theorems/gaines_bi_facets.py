"""Gaines & Bi: the regions of a ReLU network on all of R^d have at most 2d facets on average."""

from __future__ import annotations

from fractions import Fraction

from ._report import CheckResult, Timer, tightest

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "simple_arrangement_average"]

NAME = "gaines_bi_facets"
TITLE = "Gaines & Bi: at most 2d facets per region on average (ReLU networks on all of R^d)"
KIND = "proven"
STATEMENT = """
For a ReLU network with input dimension d whose parameters are in general position, the average over its
activation regions in R^d of the number of facets of a region is at most 2d (Gaines & Bi, ICLR 2026). A facet of
a region is a (d-1)-dimensional face of its closure; a facet may border several regions on its other side, so the
count is of facets, not of neighbours. The classical case is one hidden layer: n hyperplanes in general position,
whose average is 2 n sum_{i<d} C(n-1, i) / sum_{i<=d} C(n, i) exactly. Checked here on He-normal networks (general
position with probability one): every average, an exact fraction, is at most 2d, and for one hidden layer it
equals the arrangement's value.
"""

_PLAN = {"quick": {"widths": ([2, 4], [2, 6, 6], [2, 8, 8, 8], [3, 5, 5], [4, 4, 4]), "seeds": range(2)},
         "full": {"widths": ([2, 4], [2, 6, 6], [2, 8, 8, 8], [2, 12, 12], [3, 5, 5], [3, 6, 6, 6], [4, 5, 5],
                             [5, 4, 4]), "seeds": range(5)}}


def simple_arrangement_average(n: int, d: int) -> Fraction:
    """The average number of facets of the regions of ``n`` hyperplanes in general position in ``R^d``: each
    hyperplane carries the regions of ``n - 1`` hyperplanes in general position in ``R^(d-1)`` as facets, each
    facet of two regions."""
    from math import comb

    regions = sum(comb(n, i) for i in range(d + 1))
    facets = n * sum(comb(n - 1, i) for i in range(d))
    return Fraction(2 * facets, regions)


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Count the facets of every region of every network of the plan on all of its input space."""
    from polyregions.measures.statistics import region_statistics
    from polyregions.networks.initializers import he_normal
    from polyregions.regions.domains import space
    from polyregions.regions.enumeration import enumerate_regions

    plan = _PLAN[size]
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        for widths in plan["widths"]:
            d = widths[0]
            for seed in plan["seeds"]:
                statistics = region_statistics(enumerate_regions(he_normal(widths, seed=seed), space(d),
                                                                 workers=workers))
                average = statistics.average_facets()
                case = f"He {widths} seed {seed}"
                row = {"case": case, "d": d, "regions": len(statistics.volumes), "average_facets": average,
                       "bound": 2 * d, "ratio": float(average / (2 * d)), "holds": average <= 2 * d}
                result.require(row["holds"], f"{case}: {average} facets per region on average, above 2d = {2 * d}")
                if len(widths) == 2:
                    expected = simple_arrangement_average(widths[1], d)
                    result.require(average == expected, f"{case}: average {average}, but {widths[1]} hyperplanes "
                                                        f"in general position give {expected}")
                result.rows.append(row)
    result.columns = ["case", "d", "regions", "average_facets", "bound", "ratio", "holds"]
    result.tightest = tightest(result.rows)
    worst = max(result.rows, key=lambda r: r["ratio"])
    result.summary.append(f"{len(result.rows)} networks; the largest average is {worst['average_facets']} "
                          f"({worst['ratio']:.1%} of 2d) on {worst['case']}")
    result.numbers.update(networks=len(result.rows), largest_ratio=worst["ratio"])
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Average facets per region over 2d, against the number of regions."""
    ax = fig.add_subplot(1, 1, 1)
    for d in sorted({r["d"] for r in result.rows}):
        rows = [r for r in result.rows if r["d"] == d]
        ax.plot([r["regions"] for r in rows], [r["ratio"] for r in rows], "o", ms=4, label=f"d = {d}")
    ax.axhline(1.0, color="k", lw=1)
    ax.set_xscale("log")
    ax.set_xlabel("regions in R^d")
    ax.set_ylabel("average facets per region / 2d")
    ax.set_title(result.title, fontsize=9)
    ax.legend(fontsize=8)
