"""Hanin & Rolnick, Theorem 1 and Figure 5: regions along lines, divided by T N, stay near one constant."""

from __future__ import annotations

from fractions import Fraction
from statistics import mean

from polyregions.measures.bounds import raghu_bound

from ._report import CheckResult, Timer

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "BAND", "SPREAD", "MNIST_MEAN", "MNIST_STD"]

NAME = "hanin_rolnick_lines"
TITLE = "Hanin & Rolnick, Theorem 1 / Figure 5: regions along lines at initialisation, per neuron"
KIND = "empirical"
STATEMENT = """
For a network with N neurons whose activation has T breakpoints and random weights with bounded gradients, the
expected number of regions along a line or curve grows like T * N, whatever the depth (Theorem 1); in Hanin &
Rolnick's experiments (Figure 5, 784 inputs, He-normal weights of variance 2/fan-in, biases of variance 1e-6,
output width 10) the number of regions along lines through the origin and a data point, divided by N, is close to
1 at initialisation for every architecture. Measured here exactly: each count is the number of activation regions
of the network restricted to the whole infinite line (certified: both end regions are proven unbounded), for
784-input networks along lines through the origin and a point drawn from N(0.1307, 0.3081^2) per pixel (MNIST's
overall pixel mean and deviation: a stand-in for a training image), and for 1-input networks on all of R; ReLU,
leaky ReLU (slope 1/100) and hard tanh (T = 2). Band checked: for every activation, input and architecture, the
mean of regions / (T N) lies in [1/2, 2], and across architectures the largest mean is at most twice the smallest
(the ratio does not depend on how the neurons are arranged). Proven alongside: each count is at most
prod_l (1 + T n_l), Raghu et al.'s bound for a 1-D domain, and the first line of every network gives the same
count with polyregions.measures.trajectories.line_regions (which finds the line's end patterns directly).
"""

#: The band for the mean of regions / (T N), and the largest allowed ratio between architectures' means.
BAND = (Fraction(1, 2), Fraction(2))
SPREAD = Fraction(2)
MNIST_MEAN, MNIST_STD = 0.1307, 0.3081
_PLAN = {
    "quick": {"archs": ([96], [32, 32, 32]), "seeds": (0,), "lines": {"relu": 4, "leaky_relu": 0, "hardtanh": 2},
              "inputs": (784, 1)},
    "full": {"archs": ([96], [48, 48], [32, 32, 32], [16] * 6, [64, 64, 64], [128, 128, 128]),
             "seeds": (0, 1, 2), "lines": {"relu": 20, "leaky_relu": 10, "hardtanh": 10}, "inputs": (784, 1)},
}


def _activation(name: str):
    from polyregions.networks.activations import hardtanh, leaky_relu, relu

    return {"relu": relu(), "leaky_relu": leaky_relu(Fraction(1, 100)), "hardtanh": hardtanh()}[name]


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Count regions along lines of He-normal networks; compare regions / (T N) with the band."""
    import numpy as np

    from polyregions.networks.initializers import he_normal

    from ._lines import regions_on_line

    plan = _PLAN[size]
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    try:
        from polyregions.measures.trajectories import line_regions as library
    except ImportError:
        library = None
    cross_checked = 0
    with Timer() as timer:
        for activation, lines in plan["lines"].items():
            T = 2 if activation == "hardtanh" else 1
            for n0 in plan["inputs"]:
                if lines == 0:
                    continue
                means = {}
                for widths in plan["archs"]:
                    ratios, counts = [], []
                    limit = raghu_bound(1, widths, breakpoints=T)
                    for seed in plan["seeds"]:
                        net = he_normal([n0, *widths], seed=seed, activation=_activation(activation),
                                        output_dim=10 if n0 > 1 else 1)
                        N = net.num_neurons
                        rng = np.random.default_rng((seed, n0, 5))
                        for line_index in range(lines if n0 > 1 else 1):
                            if n0 == 1:
                                line = net
                            else:
                                point = rng.normal(MNIST_MEAN, MNIST_STD, size=n0).tolist()
                                line = net.restrict([0] * n0, [[Fraction(v) for v in point]])
                            regions = regions_on_line(line)[0]
                            if library is not None and line_index == 0:
                                # A second exact method: polyregions.measures.trajectories finds the ends directly.
                                other = library(net, point if n0 > 1 else [1]).regions
                                cross_checked += 1
                                result.require(other == regions, f"{activation} {[n0, *widths]} seed {seed}: "
                                                                 f"{regions} regions here, {other} from "
                                                                 f"polyregions.measures.trajectories.line_regions")
                            counts.append(regions)
                            ratios.append(Fraction(regions, T * N))
                    worst = max(counts)
                    m = sum(ratios) / len(ratios)
                    means[tuple(widths)] = m
                    where = "lines through 0 in R^784" if n0 > 1 else "R (1 input)"
                    row = {"case": f"{activation} {[n0, *widths]} on {where}", "activation": activation, "T": T,
                           "n0": n0, "widths": widths, "neurons": N, "lines": len(counts),
                           "regions_mean": mean(counts), "regions_min": min(counts), "regions_max": worst,
                           "ratio_mean": float(m), "ratio_min": float(min(ratios)), "ratio_max": float(max(ratios)),
                           "bound": limit, "in_band": BAND[0] <= m <= BAND[1], "holds": worst <= limit}
                    result.require(row["holds"], f"{row['case']}: {worst} regions on a line, above {limit}")
                    result.require(row["in_band"], f"{row['case']}: mean regions / (T N) = {float(m):.3f}, outside "
                                                   f"[{float(BAND[0])}, {float(BAND[1])}]")
                    result.rows.append(row)
                spread = max(means.values()) / min(means.values())
                result.require(spread <= SPREAD, f"{activation}, {n0} inputs: the architectures' means of "
                                                 f"regions / (T N) differ by a factor {float(spread):.2f} > {SPREAD}")
                result.summary.append(
                    f"{activation}, {'lines in R^784' if n0 > 1 else 'R'}: mean regions / (T N) from "
                    f"{float(min(means.values())):.3f} to {float(max(means.values())):.3f} across "
                    f"{len(means)} architectures (spread {float(spread):.2f})")
    result.columns = ["case", "neurons", "lines", "regions_mean", "regions_min", "regions_max", "ratio_mean",
                      "ratio_min", "ratio_max", "in_band", "holds"]
    all_ratios = [r["ratio_mean"] for r in result.rows]
    result.numbers.update(ratio_mean_min=min(all_ratios), ratio_mean_max=max(all_ratios),
                          lines=sum(r["lines"] for r in result.rows))
    result.summary.append("the first line of every network counted again by "
                          "polyregions.measures.trajectories.line_regions: "
                          f"{cross_checked} lines, all equal" if library is not None else
                          "polyregions.measures.trajectories is not installed: no second count of the lines")
    result.summary.append(f"{result.numbers['lines']} lines in all; every mean of regions / (T N) in "
                          f"[{min(all_ratios):.3f}, {max(all_ratios):.3f}]")
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Mean regions / (T N) per architecture, with the range over lines."""
    ax = fig.add_subplot(1, 1, 1)
    for i, row in enumerate(result.rows):
        colour = {"relu": "tab:blue", "leaky_relu": "tab:green", "hardtanh": "tab:orange"}[row["activation"]]
        ax.errorbar([i], [row["ratio_mean"]], yerr=[[row["ratio_mean"] - row["ratio_min"]],
                                                    [row["ratio_max"] - row["ratio_mean"]]],
                    fmt="o" if row["n0"] > 1 else "s", color=colour, ms=4, capsize=2)
    ax.axhline(1.0, color="k", lw=0.8, ls="--")
    ax.set_xticks(range(len(result.rows)))
    ax.set_xticklabels([f"{r['activation'][:4]} {r['n0']}:{'-'.join(map(str, r['widths']))}" for r in result.rows],
                       rotation=90, fontsize=6)
    ax.set_ylabel("regions on the line / (T N)")
    ax.set_title(result.title + "\n(circles: lines in R^784; squares: 1-input networks on R)", fontsize=8)
