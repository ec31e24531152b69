"""The shared body of the architecture-bound checks: count the sweep, set each count beside its bound."""

from __future__ import annotations

from collections import Counter
from typing import Callable, Iterable

from ._report import CheckResult, ratio, tightest
from ._sweep import Counted, NetSpec, breakpoints_of, count_all

__all__ = ["check_bound", "COLUMNS", "scatter_figure", "finish_bound_axes"]

COLUMNS = ["case", "n0", "activation", "T", "widths", "regions", "bound", "ratio", "holds"]


def check_bound(result: CheckResult, specs: Iterable[NetSpec], bound_of: Callable[[NetSpec], int], *,
                workers: int = 1) -> CheckResult:
    """Fill ``result`` with one row per network: the exact count, ``bound_of(spec)``, their ratio; a count above
    its bound (or a construction whose count differs from its known value) is a failure."""
    counted: list[Counted] = count_all(specs, workers=workers)
    for c in counted:
        spec = c.spec
        bound = int(bound_of(spec))
        row = {"case": spec.label, "n0": spec.n0, "activation": spec.activation, "T": breakpoints_of(spec),
               "widths": list(spec.hidden), "init": spec.init, "domain": spec.domain_text, "regions": c.regions,
               "bound": bound, "ratio": ratio(c.regions, bound), "holds": c.regions <= bound,
               "engine": c.engine, "seconds": round(c.seconds, 4)}
        result.require(row["holds"], f"{spec.label}: {c.regions} regions, above the bound {bound}")
        known = spec.known_count
        if known is not None:
            row["known"] = known
            result.require(c.regions == known, f"{spec.label}: {c.regions} regions, the construction has {known}")
        result.rows.append(row)
    result.columns = list(COLUMNS)
    result.tightest = tightest(result.rows)
    groups = Counter((r["n0"], r["activation"]) for r in result.rows)
    random = sum(1 for r in result.rows if r["init"] not in ("sawtooth", "montufar"))
    result.summary.append(f"{len(result.rows)} networks ({random} random, {len(result.rows) - random} "
                          f"constructions with known counts); per input dimension and activation: "
                          + ", ".join(f"{n0}-D {act}: {k}" for (n0, act), k in sorted(groups.items())))
    broken = sum(not r["holds"] for r in result.rows)
    result.summary.append(f"bound holds on {len(result.rows) - broken} of {len(result.rows)} networks")
    if result.rows:
        top = result.tightest[0]
        result.summary.append(f"tightest: {top['case']}: {top['regions']} / {top['bound']} = {top['ratio']:.4f}")
        result.numbers.update(networks=len(result.rows), random_networks=random, broken=broken,
                              max_ratio=top["ratio"], tightest_case=top["case"],
                              regions_total=sum(r["regions"] for r in result.rows))
        deep = tightest([r for r in result.rows if len(r["widths"]) > 1], limit=1)
        if deep:
            # One hidden layer in general position reaches every bound; deeper networks show how tight it is.
            d = deep[0]
            result.summary.append(f"tightest with two or more hidden layers: {d['case']}: {d['regions']} / "
                                  f"{d['bound']} = {d['ratio']:.4f}")
            result.numbers.update(max_ratio_deep=d["ratio"], tightest_deep_case=d["case"])
    return result


def scatter_figure(result: CheckResult, fig) -> None:
    """Bound against count on log axes, one colour per activation; the diagonal is count = bound."""
    ax = fig.add_subplot(1, 1, 1)
    colours = {"relu": "tab:blue", "hardtanh": "tab:orange", "leaky_relu": "tab:green"}
    for activation, colour in colours.items():
        rows = [r for r in result.rows if r["activation"] == activation]
        if rows:
            ax.scatter([r["regions"] for r in rows], [r["bound"] for r in rows], s=12, c=colour, label=activation,
                       alpha=0.7)
    finish_bound_axes(ax, result, "bound")


def finish_bound_axes(ax, result: CheckResult, *bound_keys: str) -> None:
    """Log axes of count against bound, with the diagonal count = bound up to the largest value of the rows'
    ``bound_keys`` and counts, the labels, the title and the legend."""
    if result.rows:
        top = max(max(r["regions"], *(r[key] for key in bound_keys)) for r in result.rows)
        ax.plot([1, top], [1, top], "k--", lw=0.8, label="count = bound")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("exact number of regions")
    ax.set_ylabel("bound")
    ax.set_title(result.title, fontsize=9)
    ax.legend(fontsize=8)
