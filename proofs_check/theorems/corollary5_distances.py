"""Hanin & Rolnick, Corollary 5 and Figure 6: the distance to the region boundary, times N, stays of order one."""

from __future__ import annotations

from fractions import Fraction

from ._report import CheckResult, Timer

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "BAND", "SPREAD", "SETTINGS"]

NAME = "corollary5_distances"
TITLE = "Hanin & Rolnick, Corollary 5 / Figure 6: E[distance to B_N] x N at initialisation"
KIND = "empirical"
STATEMENT = """
For x uniform in a compact K and a ReLU network with random weights, E[distance(x, B_N)] >= c / (C_bias C_grad N)
(Corollary 5; c is not explicit, so this inequality cannot be checked numerically), and in Hanin & Rolnick's
experiments (784 inputs, He-normal weights, bias variance 1e-6, 10 outputs) the mean distance stays between 0.4/N
and 1.5/N, with the same product distance x N for every architecture at initialisation (Figure 6). Measured here:
distance(x, B_N) to the boundary of the linear regions, in floating point with proven error bounds
(polyregions.measures.distances; points the bounds cannot settle are computed exactly), for He-normal networks with bias
standard deviation 1e-3 and three point distributions: uniform in [0, 1]^784 (Theorem 2's setting), normal with
MNIST's overall pixel mean and deviation N(0.1307, 0.3081^2) (a stand-in for the paper's MNIST-matched samples),
and uniform in [-1, 1]^2 for 2-input networks. Checked: (proven) distance(x, B_N) >= the distance from x to the
boundary of its activation region, min_z |z(x) - xi| / |grad z| (the formula Hanin & Rolnick evaluate; reported
beside it, with the fraction of points where the two are equal), at every point; (band) with uniform points in
[0, 1]^784 the mean distance x N of every architecture lies in [0.4, 1.5], decided on the proven bounds of the
mean; (band) in every setting the architectures' mean products differ by at most a factor 2. The MNIST-like and
2-D numbers are reported beside the band, not held to it: the MNIST-like products come out near its lower edge
(about 0.4 to 0.5 per network) and the 2-D ones near its upper edge.
"""

#: The band for mean distance x N, and the largest allowed ratio between architectures' means in one setting.
BAND = (Fraction(2, 5), Fraction(3, 2))
SPREAD = 2.0
#: (name, input dimension, sampler description); the band is enforced on the first.
SETTINGS = (("uniform [0,1]^784", 784), ("MNIST-like normal", 784), ("uniform [-1,1]^2", 2))
_PLAN = {
    "quick": {"archs": ([96], [32, 32, 32]), "seeds": (0,), "points": 200},
    "full": {"archs": ([128], [48, 48], [32, 32, 32], [64, 64, 64], [24] * 4, [20] * 5), "seeds": (0, 1, 2),
             "points": 1000},
}


def _points(setting: str, n0: int, count: int, seed):
    import numpy as np

    rng = np.random.default_rng(seed)
    if setting.startswith("uniform [0,1]"):
        return rng.uniform(0.0, 1.0, size=(count, n0))
    if setting.startswith("MNIST"):
        return rng.normal(0.1307, 0.3081, size=(count, n0))
    return rng.uniform(-1.0, 1.0, size=(count, n0))


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Measure mean distances to B_N for every setting, architecture and seed."""
    import numpy as np

    from polyregions.measures.distances import boundary_distances
    from polyregions.networks.initializers import he_normal

    plan = _PLAN[size]
    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        for s_index, (setting, n0) in enumerate(SETTINGS):
            means = {}
            for widths in plan["archs"]:
                products, lows, highs, medians, in_band, exact_points, below = [], [], [], [], [], 0, 0
                formula, same = [], []
                for seed in plan["seeds"]:
                    net = he_normal([n0, *widths], seed=seed, output_dim=10 if n0 > 2 else 1)
                    N = net.num_neurons
                    X = _points(setting, n0, plan["points"], (s_index, seed, 6))
                    linear = boundary_distances(net, X, kind="linear")
                    activation = boundary_distances(net, X, kind="activation")
                    # Proven: B_N never meets an open activation region.
                    below += int(np.sum(linear.upper < activation.lower))
                    exact_points += len(linear.exact_points) + len(activation.exact_points)
                    finite = np.isfinite(linear.values)
                    formula.append(float(activation.values[np.isfinite(activation.values)].mean()) * N)
                    same.append(float(np.mean(linear.values == activation.values)))
                    products.append(float(linear.values[finite].mean()) * N)
                    lows.append(float(linear.lower[finite].mean()) * N * (1 - 2 ** -40))
                    highs.append(float(linear.upper[finite].mean()) * N * (1 + 2 ** -40))
                    medians.append(float(np.median(linear.values[finite])) * N)
                    scaled = linear.values[finite] * N
                    in_band.append(float(np.mean((scaled >= 0.4) & (scaled <= 1.5))))
                mean_product = sum(products) / len(products)
                low, high = sum(lows) / len(lows), sum(highs) / len(highs)
                means[tuple(widths)] = mean_product
                row = {"case": f"{setting}: {[n0, *widths]}", "setting": setting, "n0": n0, "widths": widths,
                       "neurons": N, "networks": len(plan["seeds"]), "points": plan["points"],
                       "mean_distance": mean_product / N, "mean_times_N": mean_product, "mean_times_N_lower": low,
                       "mean_times_N_upper": high, "median_times_N": sum(medians) / len(medians),
                       "per_network": products, "fraction_of_points_in_band": sum(in_band) / len(in_band),
                       "formula_mean_times_N": sum(formula) / len(formula),
                       "fraction_equal_to_formula": sum(same) / len(same),
                       "exact_fallbacks": exact_points, "holds": below == 0}
                result.require(below == 0, f"{row['case']}: {below} points closer to B_N than to their activation "
                                           f"region's boundary")
                if s_index == 0:
                    row["in_band"] = float(BAND[0]) <= low and high <= float(BAND[1])
                    result.require(row["in_band"], f"{row['case']}: mean distance x N in [{low:.4f}, {high:.4f}], "
                                                   f"not inside [{float(BAND[0])}, {float(BAND[1])}]")
                result.rows.append(row)
            spread = max(means.values()) / min(means.values())
            result.require(spread <= SPREAD, f"{setting}: the architectures' mean distance x N differ by a factor "
                                             f"{spread:.2f} > {SPREAD}")
            result.summary.append(f"{setting}: mean distance x N from {min(means.values()):.3f} to "
                                  f"{max(means.values()):.3f} over {len(means)} architectures (spread {spread:.2f})"
                                  + (" [band 0.4..1.5 enforced]" if s_index == 0 else ""))
    result.columns = ["case", "neurons", "networks", "points", "mean_distance", "mean_times_N", "median_times_N",
                      "formula_mean_times_N", "fraction_equal_to_formula", "fraction_of_points_in_band", "in_band",
                      "holds"]
    result.numbers["mean_times_N"] = {r["case"]: r["mean_times_N"] for r in result.rows}
    result.summary.append("distance to B_N >= distance to the activation region's boundary at every point "
                          f"({len(result.rows) * len(plan['seeds']) * plan['points']} points)")
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Mean distance against N per setting, with the curves 0.4/N and 1.5/N."""
    ax = fig.add_subplot(1, 1, 1)
    for setting, _ in SETTINGS:
        rows = sorted((r for r in result.rows if r["setting"] == setting), key=lambda r: r["neurons"])
        ax.plot([r["neurons"] for r in rows], [r["mean_distance"] for r in rows], "o", label=setting)
    Ns = sorted({r["neurons"] for r in result.rows})
    lo, hi = min(Ns) * 0.8, max(Ns) * 1.2
    for c in (0.4, 1.5):
        ax.plot([lo, hi], [c / lo, c / hi], "k--", lw=0.7)
        ax.annotate(f"{c}/N", (hi, c / hi), fontsize=7)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("neurons N")
    ax.set_ylabel("mean distance to B_N")
    ax.set_title(result.title, fontsize=9)
    ax.legend(fontsize=7)
