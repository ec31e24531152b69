"""Sublevel persistence of a network's output, polyregions beside relucent, on relucent's own ``mlp`` networks:
``python -m benchmarks.bench_persistence_relucent`` (needs relucent; ``cases()`` is empty for the generic runner).

Two spaces, one function
------------------------
relucent 1.0 computes the persistence diagram over GF(2) of the lower-star filtration of ``f`` on its complex of
all of ``R^n``, truncated at infinity (``compactify="truncate"``): a cap closing an unbounded cell takes the value
of ``f`` at one interior point of that cell. polyregions computes the diagram of ``t -> {f <= t}`` on a bounded
domain, exactly. The two are compared twice:

* **As drawn** (``f`` of the ``mlp`` itself), polyregions in the box ``[-B, B]^n``, ``B`` a power of two at least
  twice the largest coordinate of relucent's vertices. ``f`` is unbounded below on these networks, so ``{f <= t}``
  in ``R^n`` is unbounded; neither diagram is the other's. The pairs born and dying at values of ``f`` at vertices
  of the complex are compared apart; the others are born at relucent's caps or on the box's boundary.
* **Made coercive**: ``g = f + c sum_i (relu(x_i - s_i - d) + relu(s_i - d - x_i))`` (``s`` a point off every
  plane, ``d`` small), ``c`` 1.1 times a bound ``L`` on the slopes ``|grad f|_inf`` (``L`` 1.1 times the largest
  over relucent's regions), written as a network for both tools: two more units per hidden layer carry those
  ``2n`` terms, with bias 1 after the first layer so that they never switch. Every vertex value of ``g`` is at
  most ``T``, and ``g > T`` on the boundary of ``[-B, B]^n`` once ``(c - L) (B - |s|_inf) > T - f(s) + 2 c n d``,
  so ``{g <= t}`` is the same set in the box and in ``R^n`` for every ``t <= T``, and no class of ``R^n`` is born
  above ``T`` (a coercive PL function has no critical point above its largest vertex value). The two diagrams
  must then agree on every pair born at or below ``T`` (in polyregions' diagram, pairs born above ``T`` are the
  box's corners entering). Where they differ, the pairs say which: a class of relucent's born at a truncation cap
  is born at the value of ``g`` at an arbitrary point of an unbounded cell, not at a level where the sublevel set
  changes.

The comparison of values is to ``1e-7`` (relucent's are floats); polyregions' are exact rationals, shown rounded.
"""

from __future__ import annotations

import math
import time

from benchmarks.bench_topology_relucent import relucent_networks

__all__ = ["cases", "main"]

TOLERANCE = 1e-7
SLOPE_MARGIN = 1.1  # over the largest |grad f|_inf of relucent's regions, for its float error
GAP = 0.015625  # two planes per coordinate, GAP either side of the centre: relucent needs them distinct
CENTRE = (0.1171875, -0.0859375, 0.0703125)  # binary fractions, so that both tools read the same centre


def cases():
    return []  # relucent is optional: run this module itself


def _relucent_diagram(model):
    """relucent's finite-persistence pairs ``(dimension, birth, death)`` and its vertices' coordinates and values."""
    import numpy as np
    from relucent import Complex
    from relucent.topology.filtration import Filtration
    from relucent.topology.persistence import compute_persistent_homology

    def output(poly):
        x = np.asarray(poly.interior_point).reshape(-1)
        return x, float((x @ np.asarray(poly.W) + np.asarray(poly.b).reshape(-1))[-1])

    class Output(Filtration):  # as in bench_topology_relucent: relucent's own filtration multiplies W @ x
        lower_star = True

        def raw_cell_value(self, tag, attrs):
            poly = attrs.get("poly")
            return float("inf") if poly is None else output(poly)[1]

    complex_ = Complex(model)
    complex_.bfs(verbose=0)
    diagram = compute_persistent_homology(complex_, Output(), verbose=0)
    pairs = sorted((p.dimension, p.birth, p.death) for p in diagram.pairs if p.death - p.birth > TOLERANCE)
    cells = [(int(attrs.get("dim", -1)), attrs["poly"]) for _, attrs in complex_.meta_graph().nodes(data=True)
             if attrs.get("poly") is not None]
    vertices = [output(poly) for dim, poly in cells if dim == 0]
    slope = max(float(np.abs(np.asarray(poly.W)[:, -1]).max()) for dim, poly in cells if dim == model.input_shape[0])
    return pairs, vertices, slope


def _ours(weights, biases, bound: int):
    import polyregions as pr
    from polyregions.networks.io import network_from_arrays

    n = weights[0].shape[1]
    result = pr.persistence(network_from_arrays(weights, biases), pr.box([-bound] * n, [bound] * n))
    return sorted((p.dimension, float(p.birth), float(p.death)) for p in result.pairs)


def _coercive(weights, biases, c: float, centre):
    """``f + c sum_i (relu(x_i - s_i - d) + relu(s_i - d - x_i))`` (``s = centre``, ``d = GAP``) as a network:
    the ``2n`` units carried (shifted by 1) to the output."""
    import numpy as np

    n, depth = weights[0].shape[1], len(weights)
    carried = np.vstack([np.eye(n), -np.eye(n)])
    W = [np.vstack([weights[0], carried])]
    b = [np.concatenate([biases[0], -centre - GAP, centre - GAP])]
    for layer in range(1, depth - 1):
        h = weights[layer].shape[1]
        W.append(np.block([[weights[layer], np.zeros((weights[layer].shape[0], 2 * n))],
                           [np.zeros((2 * n, h)), np.eye(2 * n)]]))
        b.append(np.concatenate([biases[layer], np.ones(2 * n)]))
    W.append(np.hstack([weights[-1], np.full((1, 2 * n), c)]))
    b.append(biases[-1] - c * 2 * n * (depth - 2))
    return W, b


def _relucent_model(weights, biases):
    from relucent.model.model import LinearLayer, ReLULayer, ReLUNetwork

    layers = []
    for i, (w, v) in enumerate(zip(weights, biases)):
        layers.append(LinearLayer(weight=w.copy(), bias=v.reshape(1, -1).copy()))
        if i < len(weights) - 1:
            layers.append(ReLULayer())
    return ReLUNetwork(layers, input_shape=(weights[0].shape[1],))


def _close(a: float, b: float) -> bool:
    return a == b or math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def _matched(theirs, ours, top: float = math.inf) -> tuple[int, int, int]:
    """Pairs of each diagram born at or below ``top``, and how many of relucent's have an equal pair in ours."""
    theirs = [p for p in theirs if p[1] <= top]
    ours = [p for p in ours if p[1] <= top]
    left = list(ours)
    found = 0
    for pair in theirs:
        for other in left:
            if pair[0] == other[0] and _close(pair[1], other[1]) and _close(pair[2], other[2]):
                left.remove(other)
                found += 1
                break
    return len(theirs), len(ours), found


def _at_vertices(pairs, values) -> list:
    """The pairs born and dying (or never dying) at values of ``f`` at vertices of the complex."""
    return [p for p in pairs if any(_close(p[1], v) for v in values)
            and (p[2] == math.inf or any(_close(p[2], v) for v in values))]


def _power_of_two(x: float) -> int:
    return 2 ** max(0, math.ceil(math.log2(x)))


def main() -> int:
    import numpy as np

    print(f"{'network':<14} {'seed':>4} {'function':<9} {'relucent':>9} {'ours':>5} {'equal':>6} "
          f"{'relucent s':>10} {'ours s':>7}  box")
    for widths, seed, model, weights, biases in relucent_networks():
        started = time.process_time()
        theirs, vertices, slope = _relucent_diagram(model)
        middle = time.process_time()
        bound = _power_of_two(2 * max(np.abs(x).max() for x, _ in vertices))
        ours = _ours(weights, biases, bound)
        done = time.process_time()
        values = [value for _, value in vertices]
        inner = _matched(_at_vertices(theirs, values), _at_vertices(ours, values))
        print(f"{str(widths):<14} {seed:>4} {'f':<9} {_row(theirs, ours, math.inf)} {middle - started:>10.2f} "
              f"{done - middle:>7.2f}  [-{bound}, {bound}]^{widths[0]}; born and dying at vertices: "
              f"{inner[0]} and {inner[1]}, {inner[2]} equal", flush=True)
        lipschitz = SLOPE_MARGIN * slope  # at least f's largest slope, relucent's float error covered
        c = SLOPE_MARGIN * lipschitz  # then g >= floor + (c - lipschitz) |x - s|_1
        centre = np.array(CENTRE[:widths[0]])  # relucent starts at the origin, which must be off every plane
        W, b = _coercive(weights, biases, c, centre)
        started = time.process_time()
        theirs, vertices, _ = _relucent_diagram(_relucent_model(W, b))
        middle = time.process_time()
        top = max(value for _, value in vertices)
        floor = float(_value(weights, biases, centre)) - 2 * c * widths[0] * GAP
        bound = _power_of_two(max(2 * max(np.abs(x).max() for x, _ in vertices),
                                  1 + np.abs(centre).max() + (top - floor) / (c - lipschitz)))
        ours = _ours(W, b, bound)
        done = time.process_time()
        print(f"{'':<14} {'':>4} {'coercive':<9} {_row(theirs, ours, top)} {middle - started:>10.2f} "
              f"{done - middle:>7.2f}  [-{bound}, {bound}]^{widths[0]}, pairs born <= T = {top:.4g}", flush=True)
    return 0


def _row(theirs, ours, top: float) -> str:
    count_theirs, count_ours, equal = _matched(theirs, ours, top)
    return f"{count_theirs:>9} {count_ours:>5} {equal:>6}"


def _value(weights, biases, x):
    for i, (w, v) in enumerate(zip(weights, biases)):
        x = w @ x + v
        if i < len(weights) - 1:
            x = x.clip(min=0)
    return x[0]


if __name__ == "__main__":
    raise SystemExit(main())
