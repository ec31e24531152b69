"""The general engine in dimensions above two: regions per second in a box, by vertex cuts (the default up to
dimension six) and, for comparison, by certified linear programs alone; and on all of R^n, cut through vertices
within the certified vertex box, against the box [-1, 1]^n of the same network.

``cases()`` times them for the benchmark runner (``python -m benchmarks regions_lp``);
``python -m benchmarks.bench_regions_lp`` prints regions per second on all of R^n and in the box, by vertex cuts
and by programs only, measured in one run (so that the ratios hold on a shared machine).
"""

from __future__ import annotations

import time

from polyregions.networks.initializers import he_normal, pytorch_default
from polyregions.regions._general.refine import Method, refine
from polyregions.regions.domains import Domain, box, space

#: relucent's ``mlp([3, 12, 12, 1])`` and a larger one, at PyTorch's default initialisation.
SPACE_WIDTHS = ([3, 12, 12, 1], [4, 16, 16, 1])


def _rate(widths: list[int], workers: int = 1, *, method: Method = "auto"):
    net = he_normal(widths, seed=0)
    domain = box([-1] * widths[0], [1] * widths[0])

    def run() -> str:
        started = time.perf_counter()
        complex_ = refine(net, domain, workers=workers, method=method)
        seconds = time.perf_counter() - started
        return f"{len(complex_)} regions, {len(complex_) / seconds:.0f} regions/s"
    return run


def _measured(widths: list[int], domain: Domain, method: Method = "auto") -> tuple[int, float]:
    """The number of regions of ``pytorch_default(widths, seed=0)`` in ``domain`` and the seconds it took."""
    net = pytorch_default(widths, seed=0)
    started = time.perf_counter()
    count = len(refine(net, domain, method=method))
    return count, time.perf_counter() - started


def _space_rate(widths: list[int], inside_box: bool):
    n = widths[0]
    domain = box([-1] * n, [1] * n) if inside_box else space(n)

    def run() -> str:
        count, seconds = _measured(widths, domain)
        return f"{count} regions, {count / seconds:.0f} regions/s"
    return run


def cases():
    found = [(f"LP engine, He normal {w} in [-1,1]^{w[0]}, {n} process{'es' if n > 1 else ''}", _rate(w, n))
             for w in ([3, 8, 8], [4, 16, 16], [6, 12, 12]) for n in (1, 2)]
    found += [(f"LP engine, programs only, He normal {w} in [-1,1]^{w[0]}", _rate(w, method="programs"))
              for w in ([3, 8, 8], [4, 10, 10])]
    for w in SPACE_WIDTHS:
        found += [(f"LP engine, PyTorch default {w} on all of R^{w[0]}", _space_rate(w, inside_box=False)),
                  (f"LP engine, PyTorch default {w} in [-1,1]^{w[0]}", _space_rate(w, inside_box=True))]
    return found


def main() -> None:
    """Regions per second on all of R^n and in [-1, 1]^n, by vertex cuts and by programs only, in one run."""
    print(f"{'network (PyTorch default, seed 0)':<36} {'domain':<12} {'method':<9} {'regions':>8} {'seconds':>8} "
          f"{'regions/s':>10}")
    for widths in SPACE_WIDTHS:
        n = widths[0]
        rates = {}
        for label, domain in ((f"R^{n}", space(n)), (f"[-1,1]^{n}", box([-1] * n, [1] * n))):
            for method in ("auto", "programs"):
                count, seconds = _measured(widths, domain, method)
                rates[label, method] = count / seconds
                print(f"{str(widths):<36} {label:<12} {method:<9} {count:>8} {seconds:>8.2f} {count / seconds:>10.0f}",
                      flush=True)
        whole, cube = f"R^{n}", f"[-1,1]^{n}"
        print(f"  all of R^{n} against the box, per region: {rates[whole, 'auto'] / rates[cube, 'auto']:.2f}; "
              f"vertex box against programs only on R^{n}: {rates[whole, 'auto'] / rates[whole, 'programs']:.1f}x")


if __name__ == "__main__":
    main()
