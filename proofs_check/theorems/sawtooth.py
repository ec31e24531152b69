"""Telgarsky's sawtooth: exactly ``2^n`` pieces from ``2n`` neurons, and their collapse under small noise."""

from __future__ import annotations

from fractions import Fraction
from statistics import mean

from polyregions.measures.bounds import raghu_relu_bound, serra_bound

from ._report import CheckResult, Timer, ratio, tightest

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "perturbed", "COLLAPSE_SIGMA", "COLLAPSE_RATIO"]

NAME = "sawtooth"
TITLE = "Telgarsky's sawtooth: 2^n pieces, and their collapse under noise (Hanin & Rolnick, Figure 3)"
KIND = "empirical"
STATEMENT = """
Composing the tent map t(x) = 2 relu(x) - 4 relu(x - 1/2) n times on [0, 1] gives a function with 2^n linear
pieces from 2n neurons (proven: the count must be exactly 2^n activation regions and 2^n linear regions, and the
function must take the values 0, 1, 0, 1, ... at the points j / 2^n). Hanin & Rolnick (Figure 3) add Gaussian
noise of standard deviation 0.1 to every weight and bias and observe that the number of pieces collapses. Checked
here: every perturbed network respects the ReLU bounds of Raghu et al. and Serra et al. (proven), and with noise
0.1 the mean number of linear regions in [0, 1] is at most half of 2^n for every depth n >= 8 (the collapse; an
empirical band). Smaller noise (1e-3, 1e-2) is reported beside it: there the counts stay near 2^n, and the
activation regions even exceed 2^n, because noise separates neurons that switch at the same point in the exact
construction.
"""

#: The noise of Hanin & Rolnick's Figure 3, and the largest mean fraction of the 2^n pieces that may survive it.
COLLAPSE_SIGMA = 0.1
COLLAPSE_RATIO = Fraction(1, 2)
COLLAPSE_MIN_DEPTH = 8

_PLAN = {"quick": {"exact": range(1, 9), "depths": (4, 8), "sigmas": (1e-3, 0.1), "trials": 5},
         "full": {"exact": range(1, 13), "depths": (4, 6, 8, 10, 12), "sigmas": (1e-3, 1e-2, 0.1), "trials": 20}}


def perturbed(net, sigma: float, seed):
    """``net`` with independent N(0, sigma^2) noise (numpy float64, taken exactly) added to every weight and bias."""
    import numpy as np

    from polyregions.networks.network import Layer, Network

    rng = np.random.default_rng(seed)
    layers = []
    for layer in net.layers:
        noise_w = rng.normal(0.0, sigma, size=(layer.width, layer.fan_in)).tolist()
        noise_b = rng.normal(0.0, sigma, size=layer.width).tolist()
        weight = [[w + Fraction(e) for w, e in zip(row, erow)] for row, erow in zip(layer.weight, noise_w)]
        bias = [b + Fraction(e) for b, e in zip(layer.bias, noise_b)]
        layers.append(Layer(weight, bias, layer.activation))
    return Network(net.input_dim, tuple(layers))


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Count the exact sawtooth and its perturbations."""
    from polyregions.networks.constructions import sawtooth
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    plan = _PLAN[size]
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    unit = box([0], [1])
    with Timer() as timer:
        for n in plan["exact"]:
            net = sawtooth(n)
            complex_ = enumerate_regions(net, unit)
            regions, linear = len(complex_.regions), len(complex_.linear_regions)
            values_ok = all(net([Fraction(j, 2 ** n)])[0] == j % 2 for j in range(2 ** n + 1))
            bound = serra_bound(1, [2] * n)
            row = {"case": f"sawtooth({n})", "n": n, "sigma": 0, "regions": regions, "linear_regions": linear,
                   "pieces": 2 ** n, "bound": bound, "raghu_bound": raghu_relu_bound(1, [2] * n),
                   "ratio": ratio(regions, bound), "holds": regions <= bound}
            result.require(regions == 2 ** n and linear == 2 ** n,
                           f"sawtooth({n}): {regions} activation and {linear} linear regions, expected {2 ** n}")
            result.require(values_ok, f"sawtooth({n}): values at j/2^n are not 0, 1, 0, 1, ...")
            result.require(row["holds"], f"sawtooth({n}): {regions} regions above Serra's bound {bound}")
            result.rows.append(row)
        collapse = []
        for n in plan["depths"]:
            net = sawtooth(n)
            for s_index, sigma in enumerate(plan["sigmas"]):
                counts, linears = [], []
                for trial in range(plan["trials"]):
                    noisy = perturbed(net, sigma, (n, s_index, trial))
                    complex_ = enumerate_regions(noisy, unit)
                    counts.append(len(complex_.regions))
                    linears.append(len(complex_.linear_regions))
                serra, raghu = serra_bound(1, [2] * n), raghu_relu_bound(1, [2] * n)
                worst = max(counts)
                row = {"case": f"sawtooth({n}) + N(0, {sigma}^2) x{plan['trials']}", "n": n, "sigma": sigma,
                       "regions": worst, "regions_mean": mean(counts), "regions_min": min(counts),
                       "linear_regions": max(linears), "linear_mean": mean(linears),
                       "linear_min": min(linears), "pieces": 2 ** n, "linear_fraction": mean(linears) / 2 ** n,
                       "bound": serra, "raghu_bound": raghu, "ratio": ratio(worst, serra),
                       "holds": worst <= serra and worst <= raghu}
                result.require(row["holds"], f"{row['case']}: {worst} regions above a ReLU bound "
                                             f"(Serra {serra}, Raghu {raghu})")
                if sigma == COLLAPSE_SIGMA and n >= COLLAPSE_MIN_DEPTH:
                    collapsed = Fraction(sum(linears), len(linears)) <= COLLAPSE_RATIO * 2 ** n
                    collapse.append((n, mean(linears)))
                    result.require(collapsed, f"{row['case']}: mean {mean(linears):.1f} linear regions, more than "
                                              f"{float(COLLAPSE_RATIO)} x 2^{n}: no collapse")
                result.rows.append(row)
    result.columns = ["case", "n", "sigma", "regions", "regions_mean", "linear_regions", "linear_mean", "pieces",
                      "linear_fraction", "bound", "ratio", "holds"]
    result.tightest = tightest(result.rows)
    result.summary.append(f"sawtooth(n) for n = {plan['exact'][0]}..{plan['exact'][-1]}: exactly 2^n activation "
                          f"and linear regions, values 0, 1, 0, ... at j/2^n")
    for n, m in collapse:
        result.summary.append(f"noise {COLLAPSE_SIGMA}: depth {n}: mean {m:.1f} linear regions of 2^{n} = {2 ** n} "
                              f"({m / 2 ** n:.1%})")
    result.numbers["collapse"] = {str(n): m for n, m in collapse}
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Mean number of linear regions against depth, per noise level, with the exact 2^n."""
    ax = fig.add_subplot(1, 1, 1)
    exact = [r for r in result.rows if r["sigma"] == 0]
    ax.plot([r["n"] for r in exact], [r["linear_regions"] for r in exact], "k-o", ms=3, label="exact: 2^n")
    for sigma in sorted({r["sigma"] for r in result.rows if r["sigma"]}):
        rows = [r for r in result.rows if r["sigma"] == sigma]
        ax.plot([r["n"] for r in rows], [r["linear_mean"] for r in rows], "-s", ms=3, label=f"noise {sigma}")
    ax.set_yscale("log", base=2)
    ax.set_xlabel("depth n")
    ax.set_ylabel("linear regions in [0, 1] (mean over draws)")
    ax.set_title(result.title, fontsize=9)
    ax.legend(fontsize=8)
