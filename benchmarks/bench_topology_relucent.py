"""Betti numbers of a decision region, polyregions beside relucent, on relucent's own ``mlp`` networks:
``python -m benchmarks.bench_topology_relucent`` (needs relucent; ``cases()`` is empty for the generic runner).

The set
-------
relucent 1.0 computes Betti numbers of a decision region as persistent homology over GF(2) of a sublevel
filtration of its output ``f`` (``compute_persistent_homology`` then ``betti_curve`` at 0), on its complex of all
of ``R^n`` truncated at infinity (``compactify="truncate"``). Its set at level 0 is the *lower-star subcomplex*
``L``: every closed cell of the activation complex (the network's regions and their faces, not refined by
``f = 0``) whose value, the largest value of ``f`` at the cell's vertices and truncation caps, is at most 0, a
truncation cap taking the value of ``f`` at one interior point of the unbounded cell it caps. (relucent's own
``LogitSublevelFiltration`` fails on an ``mlp`` network: it multiplies ``W @ x`` where relucent stores ``W``
input by output; the filtration here is the same one with ``x @ W + b``.)

polyregions computes ``{f <= 0}`` itself (the ``nonnegative`` set of the network with its last layer negated)
in the box ``[-B, B]^n`` of :func:`polyregions.regions._vertex_bound.vertex_bound` for the network refined by
``f = 0``, a box certified to hold every vertex of that complex strictly inside.

Who is right where they differ
------------------------------
``L`` is a subset of ``{f <= 0}`` but not the same set: a cell on which ``f`` takes both signs is left out of
``L`` entirely, although its part where ``f <= 0`` belongs to the set; and at infinity a cap is in or out by the
value of ``f`` at one arbitrary point of its cell. Two pieces of ``{f <= 0}`` joined only through such cells are
two components of ``L``. On ``[3, 8, 8, 1]`` with seed 1 relucent reports ``b_0 = 4`` and polyregions ``b_0 = 2``:
three of relucent's four classes are born at truncation caps and die at the small positive levels (about 0.005,
0.05 and 0.33) at which a cell joining them to another class enters, that is a cell whose vertices carry both
signs of ``f``: each of those cells meets ``f < 0`` and ``f > 0``, so the two classes it joins lie in one
component of ``{f <= 0}`` unless ``{f = 0}`` separates them inside it, which the exact refinement decides.
polyregions refines every cell by ``f = 0`` and decides every sign exactly, so its numbers are those of
``{f <= 0}``; relucent's are those of the coarser subcomplex ``L`` (a persistence approximation of the set,
not the set). On the other eight networks both give the same numbers.
"""

from __future__ import annotations

import time

__all__ = ["cases", "main"]

NETWORKS = ([2, 8, 8, 1], [2, 16, 16, 1], [3, 8, 8, 1])
SEEDS = (0, 1, 2)


def cases():
    return []  # relucent is optional: run this module itself


def _relucent(model, n: int):
    """relucent's Betti numbers of its sublevel set ``f <= 0``, and its live degree-0 classes' death levels."""
    import numpy as np
    from relucent import Complex
    from relucent.topology.filtration import Filtration
    from relucent.topology.persistence import betti_curve, compute_persistent_homology

    class Output(Filtration):
        lower_star = True

        def raw_cell_value(self, tag, attrs):
            poly = attrs.get("poly")
            if poly is None:
                return float("inf")
            x = np.asarray(poly.interior_point).reshape(-1)
            return float((x @ np.asarray(poly.W) + np.asarray(poly.b).reshape(-1))[-1])

    complex_ = Complex(model)
    complex_.bfs(verbose=0)
    diagram = compute_persistent_homology(complex_, Output(), verbose=0)
    curve = betti_curve(diagram, [0.0])
    deaths = sorted(p.death for p in diagram.pairs if p.dimension == 0 and p.birth <= 0.0 < p.death)
    return tuple(int(curve.get(k, [0])[0]) for k in range(n)), deaths


def _polyregions(weights, biases, n: int):
    """polyregions' Betti numbers of ``{f <= 0}`` in the certified vertex box."""
    import polyregions as pr
    from polyregions.measures._decision_signs import augmented_network
    from polyregions.networks.io import network_from_arrays
    from polyregions.regions._vertex_bound import vertex_bound

    negated = network_from_arrays(weights[:-1] + [-weights[-1]], biases[:-1] + [-biases[-1]])
    bound = vertex_bound(augmented_network(negated), [], n)
    return pr.decision_topology(negated, pr.box([-bound] * n, [bound] * n))["nonnegative"].betti


def relucent_networks():
    """relucent's ``mlp`` networks of :data:`NETWORKS` for every seed of :data:`SEEDS`: the widths, the seed, the
    model, and its weight matrices and bias vectors."""
    import numpy as np
    from relucent import mlp, set_seeds

    for widths in NETWORKS:
        for seed in SEEDS:
            set_seeds(seed)
            model = mlp(widths)
            layers = [layer for layer in model.layers.values() if hasattr(layer, "weight")]
            weights = [np.asarray(layer.weight) for layer in layers]
            biases = [np.asarray(layer.bias).reshape(-1) for layer in layers]  # type: ignore[union-attr]
            yield widths, seed, model, weights, biases


def main() -> int:
    print(f"{'network':<16} {'seed':>4}  {'relucent':<12} {'time':>7}  {'polyregions':<12} {'time':>7}  note")
    for widths, seed, model, weights, biases in relucent_networks():
        started = time.perf_counter()
        theirs, deaths = _relucent(model, widths[0])
        middle = time.perf_counter()
        ours = _polyregions(weights, biases, widths[0])
        done = time.perf_counter()
        note = "" if tuple(ours) == theirs else f"differ: relucent's classes die at {[round(x, 3) for x in deaths]}"
        print(f"{str(widths):<16} {seed:>4}  {str(theirs):<12} {middle - started:6.2f}s  {str(tuple(ours)):<12} "
              f"{done - middle:6.2f}s  {note}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
