"""Figure of the teaching page on the topology of decision regions.

* ``topology.png``: two networks built from diamond bumps ``relu(r - |x - c|_1)`` on [-3, 3]^2, their sets
  ``f > 0`` (blue) and ``f < 0`` (orange) and decision boundary ``f = 0`` (black), with a witness point per
  component (circles for ``f > 0``, squares for ``f < 0``) and the exact Betti numbers in the titles. On the
  right the holes are moved out until they reach the rim of the big diamond, along which ``f`` now only touches
  0 from below: ``{f > 0}`` loses its loops, ``{f >= 0}`` keeps them.
"""

from __future__ import annotations

import math
from fractions import Fraction

import _common
import matplotlib.pyplot as plt

from polyregions.measures.topology import decision_topology
from polyregions.networks.network import Network
from polyregions.regions.domains import box

DOMAIN = box([-3, -3], [3, 3])
BLUE, ORANGE, GREY = "#9ec5e8", "#f6c48f", "#d9d9d9"


def bumps(centers, radii, weights, bias) -> Network:
    """``sum_i weights_i relu(radii_i - |x - centers_i|_1) + bias``, with exact weights."""
    first, shift = [], []
    for c in centers:
        for i in range(2):
            for s in (1, -1):
                first.append([s if j == i else 0 for j in range(2)])
                shift.append(-s * Fraction(c[i]))
    second = [[-1 if j // 4 == i else 0 for j in range(len(first))] for i in range(len(centers))]
    return Network.from_layers(2, [(first, shift, "relu"), (second, radii, "relu"), ([weights], [bias], "linear")])


def draw(ax, net: Network, title: str) -> None:
    result = decision_topology(net, DOMAIN)
    fc = result.faces
    sign = {}
    for name, value in (("positive", 1), ("negative", -1), ("boundary", 0)):
        for i in result[name].faces:
            sign[i] = value
    points = [tuple(float(x) for x in v) for v in fc.vertices]
    for i in fc.faces_of_dimension(2):
        corners = [points[v] for v in fc.faces[i].vertices]
        cx, cy = sum(p[0] for p in corners) / len(corners), sum(p[1] for p in corners) / len(corners)
        corners.sort(key=lambda p: math.atan2(p[1] - cy, p[0] - cx))
        ax.fill(*zip(*corners), color={1: BLUE, -1: ORANGE, 0: GREY}[sign[i]], linewidth=0.3,
                edgecolor="white")
    for i in fc.faces_of_dimension(1):
        if sign[i] == 0:
            (x0, y0), (x1, y1) = (points[v] for v in fc.faces[i].vertices)
            ax.plot([x0, x1], [y0, y1], color="black", linewidth=1.6)
    for name, marker in (("positive", "o"), ("negative", "s")):
        for w in result[name].witnesses:
            ax.plot([float(w[0])], [float(w[1])], marker, color="black", markerfacecolor="white", markersize=6)
    b = {s.name: s.betti for s in result.sets}
    ax.set_title(f"{title}\nf > 0: b = {b['positive']},  f >= 0: b = {b['nonnegative']}\n"
                 f"f < 0: b = {b['negative']},  f = 0: b = {b['boundary']}", fontsize=9)
    ax.set_xlim(-3, 3)
    ax.set_ylim(-3, 3)
    ax.set_aspect("equal")


def main() -> None:
    half = Fraction(1, 2)
    island = [Fraction(5, 2), Fraction(3, 2)]
    apart = bumps([[0, 0], [Fraction(3, 4), 0], [Fraction(-3, 4), 0], island], [2, half, half, half],
                  [1, -2, -2, 2], -half)
    touching = bumps([[0, 0], [1, 0], [-1, 0], island], [2, half, half, half], [1, -2, -2, 2], -half)
    figure, axes = plt.subplots(1, 2, figsize=(10, 5.4))
    draw(axes[0], apart, "two holes and an island")
    draw(axes[1], touching, "the holes reach the rim")
    figure.tight_layout()
    _common.save(figure, "topology.png")
    _common.done(__file__)


if __name__ == "__main__":
    main()
