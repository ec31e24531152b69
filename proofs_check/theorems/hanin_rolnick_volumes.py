"""Hanin & Rolnick, Theorems 2-3: exact volumes of B_{N,1} and B_{N,2} against a Monte-Carlo right-hand side."""

from __future__ import annotations

import math
from statistics import mean, stdev

from ._report import CheckResult, Timer

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "Z_LIMIT", "SETTINGS"]

NAME = "hanin_rolnick_volumes"
TITLE = "Hanin & Rolnick, Theorems 2-3: E[vol(B_{N,k} ∩ K)] for k = 1, 2 on 2-D inputs"
KIND = "proven"
STATEMENT = """
Theorem 3: for a ReLU network with one output whose biases have a density rho (independent of the other
parameters), E[vol_{n0-k}(B_{N,k} ∩ K)] = sum over sets of k distinct neurons of the integral over K of
E[ ||J(x)|| rho(z_1(x), ..., z_k(x)) 1{each z_j good at x} ], with z_j(x) the pre-activation without its own bias,
||J|| = sqrt(det(J J^T)) for the k x n0 Jacobian J (Theorem 2: for k = 1 the density vol(B_N ∩ K) / vol(K) is of
order T N). Checked on 2-D inputs in K = [-1, 1]^2 (k = 1: the length of the boundary of the linear regions;
k = 2: the number of its vertices, the points where it is not locally a line), for networks with normal weights of
variance 2/fan-in and normal biases of standard deviation sigma (1, 1/2 or 3/10: a theorem for any bias density;
Hanin & Rolnick's 1e-3 makes rho a spike that a Monte-Carlo estimate over x cannot resolve). Left side: the mean
over M random networks of the exact volumes (polyregions.measures.volumes, exact sums of square roots with proven
float bounds). Right side: for the same networks, vol(K) times the mean of the integrand over uniform points of K
(proofs_check.theorems._theorem3, a numpy implementation written for this check), which estimates the same
expectation. The test is statistical: the mean paired difference must be within 4 standard errors of 0 (for a
correct pair of computations this fails with probability about 6e-5). Where polyregions.measures.theorem3 is installed
its integrand must agree with this check's at the same points (two implementations of one formula).
"""

#: The largest accepted |mean difference| / standard error.
Z_LIMIT = 4.0
#: (hidden widths, bias standard deviation) per size.
SETTINGS = {
    "quick": [((8, 8), 1.0)],
    "full": [((16,), 1.0), ((8, 8), 1.0), ((10, 10), 0.5), ((6, 6, 6), 0.3), ((3, 3, 3, 3), 0.5)],
}
_NETWORKS = {"quick": 24, "full": 120}
_POINTS = {"quick": 2000, "full": 4000}


def _library_integrand():
    try:
        from polyregions.measures.theorem3 import theorem3_integrand
    except ImportError:
        return None
    return theorem3_integrand


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Compare exact boundary volumes with the Monte-Carlo right-hand side of Theorem 3."""
    import numpy as np

    from polyregions.measures.volumes import boundary_volumes
    from polyregions.networks.initializers import gaussian
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions

    from ._theorem3 import theorem3_integrand

    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    square = box([-1, -1], [1, 1])
    library = _library_integrand()
    cross_checked = 0
    with Timer() as timer:
        for setting, (hidden, sigma) in enumerate(SETTINGS[size]):
            M, S = _NETWORKS[size], _POINTS[size]
            measured, estimated, densities = [], [], []
            for seed in range(M):
                net = gaussian([2, *hidden], seed=seed, bias_std=sigma, output_dim=1)
                volumes = boundary_volumes(enumerate_regions(net, square))
                result.require(all(e <= 1e-9 * max(1.0, abs(v)) for v, e in zip(volumes.values, volumes.errors)),
                               f"{hidden} seed {seed}: boundary volumes with float error bounds {volumes.errors}")
                measured.append(volumes.values[:2])
                densities.append(volumes.density / net.num_neurons)
                X = np.random.default_rng((setting, seed, 3)).uniform(-1.0, 1.0, size=(S, 2))
                k1, k2 = theorem3_integrand(net, X, sigma)
                estimated.append((4.0 * float(k1.mean()), 4.0 * float(k2.mean())))
                if library is not None and seed < 3:
                    for k, ours in ((1, k1), (2, k2)):
                        theirs = library(net, X, k=k, bias_std=sigma)
                        scale = float(np.abs(ours).mean()) or 1.0
                        gap = float(np.abs(theirs - ours).max()) / scale
                        result.require(gap <= 1e-6, f"{hidden} seed {seed}, k = {k}: "
                                                    "polyregions.measures.theorem3's integrand "
                                                    f"differs from this check's by {gap:.2e} (relative)")
                    cross_checked += 1
            for k in (1, 2):
                lhs = [m[k - 1] for m in measured]
                rhs = [e[k - 1] for e in estimated]
                diffs = [a - b for a, b in zip(lhs, rhs)]
                se = stdev(diffs) / math.sqrt(M)
                z = mean(diffs) / se if se > 0 else 0.0
                row = {"case": f"[2, {', '.join(map(str, hidden))}] sigma_b = {sigma}, k = {k}", "k": k,
                       "widths": list(hidden), "bias_std": sigma, "networks": M, "points": S,
                       "measured": mean(lhs), "measured_se": stdev(lhs) / math.sqrt(M), "estimated": mean(rhs),
                       "estimated_se": stdev(rhs) / math.sqrt(M), "relative_difference": mean(diffs) / mean(rhs),
                       "z": z, "holds": abs(z) <= Z_LIMIT}
                if k == 1:
                    row["density_per_neuron"] = mean(densities)
                result.require(row["holds"], f"{row['case']}: exact mean {row['measured']:.4f}, Monte-Carlo "
                                             f"{row['estimated']:.4f}, {z:+.2f} standard errors apart")
                result.rows.append(row)
                result.summary.append(
                    f"{row['case']}: exact {row['measured']:.3f} ± {row['measured_se']:.3f} (standard error), "
                    f"right-hand side "
                    f"{row['estimated']:.3f} ± {row['estimated_se']:.3f} ({row['relative_difference']:+.1%}, "
                    f"z = {z:+.2f})")
        result.summary.append("polyregions.measures.theorem3's integrand agrees with this check's on "
                              f"{cross_checked} networks" if library is not None else
                              "polyregions.measures.theorem3 is not installed: its integrand was not compared")
        result.summary.append(f"largest |z| = {max(abs(r['z']) for r in result.rows):.2f} (limit {Z_LIMIT}) over "
                              f"{len(result.rows)} comparisons")
    result.columns = ["case", "networks", "points", "measured", "measured_se", "estimated", "estimated_se",
                      "relative_difference", "z", "density_per_neuron", "holds"]
    result.numbers.update(max_abs_z=max(abs(r["z"]) for r in result.rows), library_cross_checked=cross_checked)
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Exact against estimated mean volumes, with two standard errors."""
    for k in (1, 2):
        ax = fig.add_subplot(1, 2, k)
        rows = [r for r in result.rows if r["k"] == k]
        ax.errorbar([r["measured"] for r in rows], [r["estimated"] for r in rows],
                    xerr=[2 * r["measured_se"] for r in rows], yerr=[2 * r["estimated_se"] for r in rows],
                    fmt="o", ms=4, capsize=2)
        top = max(max(r["measured"], r["estimated"]) for r in rows) * 1.1
        ax.plot([0, top], [0, top], "k--", lw=0.8)
        ax.set_xlabel(f"exact mean vol(B_N,{k} ∩ K)")
        ax.set_ylabel("Monte-Carlo right-hand side")
        ax.set_title("k = 1: length" if k == 1 else "k = 2: vertices", fontsize=9)
    fig.suptitle(result.title, fontsize=8)
