"""Zaslavsky's theorem, the closed forms of named arrangements and the general-position bound."""

from __future__ import annotations

import math
import random

from polyregions.measures.bounds import arrangement_bound

from ._report import CheckResult, Timer, ratio, tightest

__all__ = ["NAME", "TITLE", "KIND", "STATEMENT", "run", "figure", "arrangements", "closed_form"]

NAME = "zaslavsky"
TITLE = "Zaslavsky's theorem and the region bound for hyperplane arrangements"
KIND = "proven"
STATEMENT = """
For an arrangement A of affine hyperplanes in R^d with characteristic polynomial chi_A(t) = sum over flats X of
mu(R^d, X) t^(dim X): r(A) = (-1)^d chi_A(-1) regions and b(A) = (-1)^rank(A) chi_A(1) relatively bounded ones
(Zaslavsky 1975); the faces satisfy the Euler relation sum_k (-1)^k f_k = (-1)^d. m hyperplanes in general position
give r = sum_{i=0..d} C(m, i) and b = C(m-1, d), and every arrangement of m hyperplanes has r <= sum_{i=0..d} C(m,
i) (Raghu et al. 2017, Theorem 5). Closed forms: braid n! regions (none relatively bounded for n >= 2), coordinate
2^d (none bounded), Shi and Ish (n+1)^(n-1) regions and (n-1)^(n-1) bounded, Catalan n! Catalan(n), Linial 2^-n
sum_k C(n,k) (k+1)^(n-1), semiorder 1, 3, 19, 183, 2371, resonance 2, 6, 32, 370. Regions and faces are enumerated
by recursive restriction (no LP) and compared with the poset's predictions; random arrangements with coefficients
in {-1, 0, 1} (many parallel and concurrent hyperplanes) and the first layers of He-normal networks join the named
ones.
"""

_SEMIORDER = {1: 1, 2: 3, 3: 19, 4: 183, 5: 2371}
_RESONANCE = {1: 2, 2: 6, 3: 32, 4: 370}


def closed_form(family: str, n: int) -> tuple[int | None, int | None]:
    """``(regions, relatively bounded regions)`` a named family has by theory (None where no formula is used).

    Examples
    --------
    >>> closed_form("shi", 3), closed_form("catalan", 3)
    ((16, 4), (30, None))
    """
    if family == "braid":
        return math.factorial(n), 0 if n >= 2 else 1
    if family in ("shi", "ish"):
        return (n + 1) ** (n - 1), (n - 1) ** (n - 1)
    if family == "catalan":
        return math.factorial(n) * math.comb(2 * n, n) // (n + 1), None
    if family == "linial":
        total = sum(math.comb(n, k) * (k + 1) ** (n - 1) for k in range(n + 1))
        return total // 2 ** n, None
    if family == "semiorder":
        return _SEMIORDER.get(n), None
    if family == "resonance":
        return _RESONANCE.get(n), None
    if family == "coordinate":
        return 2 ** n, 0
    return None, None


def arrangements(size: str) -> list[tuple[str, str, int, object]]:
    """``(case, family, n, arrangement)`` for every arrangement of the check at ``size``."""
    from polyregions.arrangements import (
        Arrangement,
        braid,
        catalan,
        coordinate,
        generic,
        ish,
        linial,
        network_layer,
        resonance,
        semiorder,
        shi,
    )
    from polyregions.networks.initializers import he_normal

    full = size == "full"
    named = {"braid": (braid, range(1, 7 if full else 5)), "shi": (shi, range(1, 6 if full else 4)),
             "catalan": (catalan, range(1, 5 if full else 4)), "linial": (linial, range(1, 6 if full else 4)),
             "semiorder": (semiorder, range(1, 6 if full else 4)), "ish": (ish, range(1, 6 if full else 4)),
             "coordinate": (coordinate, range(1, 6 if full else 4)),
             "resonance": (resonance, range(1, 5 if full else 4))}
    cases = []
    for family, (make, sizes) in named.items():
        for n in sizes:
            cases.append((f"{family}({n})", family, n, make(n)))
    pairs = ([(m, d) for d in (1, 2, 3, 4) for m in (1, 2, 3, 5, 8, 12) if not (d == 4 and m > 8)] if full
             else [(4, 1), (5, 2), (6, 3)])
    for m, d in pairs:
        for seed in ((0, 1) if full else (0,)):
            cases.append((f"generic({m},{d}) seed {seed}", "generic", m, generic(m, d, seed=seed)))
    rng = random.Random(2017)
    for i in range(40 if full else 6):
        d = rng.randint(1, 4)
        m = rng.randint(2, 10 if d < 4 else 7)
        rows = []
        while len(rows) < m:
            normal = [rng.randint(-1, 1) for _ in range(d)]
            if any(normal):
                rows.append(normal + [rng.randint(-1, 1)])
        cases.append((f"random 0/+-1 #{i} (d={d})", "random", m, Arrangement(rows, dim=d)))
    for seed in range(10 if full else 2):
        d = 2 + seed % 2
        net = he_normal([d, 6 + seed], seed=seed)
        layer = net.layers[0]
        cases.append((f"first layer of he_normal([{d}, {6 + seed}]) seed {seed}", "network", d,
                      network_layer(layer.weight, layer.bias)))
    return cases


def run(size: str = "quick", *, workers: int = 1) -> CheckResult:
    """Check Zaslavsky's counts, the closed forms and the bound on every arrangement of the check."""
    from polyregions.arrangements import check_zaslavsky, is_generic

    result = CheckResult(NAME, TITLE, STATEMENT, KIND, size)
    with Timer() as timer:
        for case, family, n, arrangement in arrangements(size):
            report = check_zaslavsky(arrangement, faces=True)
            m, d = len(arrangement), arrangement.dim
            limit = arrangement_bound(m, d)
            generic = is_generic(arrangement)
            row = {"case": case, "family": family, "d": d, "m": m, "rank": arrangement.rank,
                   "chi": list(arrangement.characteristic_polynomial()),
                   "regions": report.regions, "predicted": report.regions_predicted,
                   "bounded": report.bounded_regions, "bounded_predicted": report.bounded_predicted,
                   "euler": report.euler_characteristic, "general_position": generic,
                   "bound": limit, "ratio": ratio(report.regions, limit), "holds": report.regions <= limit}
            result.require(report.regions == report.regions_predicted,
                           f"{case}: {report.regions} regions enumerated, (-1)^d chi(-1) = {report.regions_predicted}")
            result.require(report.bounded_regions == report.bounded_predicted,
                           f"{case}: {report.bounded_regions} bounded regions enumerated, (-1)^rank chi(1) = "
                           f"{report.bounded_predicted}")
            result.require(report.euler_characteristic == report.euler_expected,
                           f"{case}: Euler characteristic {report.euler_characteristic}, expected "
                           f"{report.euler_expected}")
            result.require(row["holds"], f"{case}: {report.regions} regions, above sum_i C({m}, i) = {limit}")
            known_regions, known_bounded = closed_form(family, n)
            if family == "generic":
                result.require(generic, f"{case}: not in general position")
                known_regions, known_bounded = limit, math.comb(m - 1, d) if m else 1
            if generic and m >= 1:
                result.require(report.regions == limit,
                               f"{case}: in general position with {report.regions} regions, not {limit}")
                result.require(report.bounded_regions == math.comb(m - 1, d),
                               f"{case}: in general position with {report.bounded_regions} bounded regions, not "
                               f"C({m - 1}, {d}) = {math.comb(m - 1, d)}")
            if known_regions is not None:
                row["closed_form"] = known_regions
                result.require(report.regions == known_regions,
                               f"{case}: {report.regions} regions, the closed form gives {known_regions}")
            if known_bounded is not None:
                result.require(report.bounded_regions == known_bounded,
                               f"{case}: {report.bounded_regions} bounded regions, the closed form gives "
                               f"{known_bounded}")
            result.rows.append(row)
    result.columns = ["case", "d", "m", "chi", "regions", "predicted", "bounded", "bounded_predicted", "euler",
                      "closed_form", "bound", "ratio", "holds"]
    result.tightest = tightest(result.rows)
    families = sorted({r["family"] for r in result.rows})
    result.summary += [
        f"{len(result.rows)} arrangements ({', '.join(families)}) in dimensions "
        f"{min(r['d'] for r in result.rows)}..{max(r['d'] for r in result.rows)}; up to "
        f"{max(r['regions'] for r in result.rows)} regions",
        f"enumerated regions = (-1)^d chi(-1), bounded = (-1)^rank chi(1), Euler relation: "
        f"{sum(r['regions'] == r['predicted'] for r in result.rows)} of {len(result.rows)} agree",
        f"{sum(r['general_position'] for r in result.rows)} arrangements in general position, all reaching "
        f"sum_i C(m, i) exactly; no arrangement above it",
    ]
    result.numbers.update(arrangements=len(result.rows),
                          general_position=sum(r["general_position"] for r in result.rows),
                          max_regions=max(r["regions"] for r in result.rows))
    result.seconds = timer.seconds
    return result


def figure(result: CheckResult, fig) -> None:
    """Regions against the general-position bound (log axes)."""
    ax = fig.add_subplot(1, 1, 1)
    generic = [r for r in result.rows if r["general_position"]]
    other = [r for r in result.rows if not r["general_position"]]
    ax.scatter([r["regions"] for r in other], [r["bound"] for r in other], s=14, label="not in general position")
    ax.scatter([r["regions"] for r in generic], [r["bound"] for r in generic], s=14, marker="x",
               label="general position")
    top = max(r["bound"] for r in result.rows)
    ax.plot([1, top], [1, top], "k--", lw=0.8, label="regions = sum_i C(m, i)")
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("regions (enumerated = Zaslavsky)")
    ax.set_ylabel("sum_{i<=d} C(m, i)")
    ax.set_title(result.title, fontsize=9)
    ax.legend(fontsize=8)
