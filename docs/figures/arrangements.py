"""Figures and tables of the teaching track on hyperplane arrangements.

Four lines in the plane (x = 0, y = 0, x + y = 1, x - y = 1/2) carry most of the examples: their regions with
sign vectors, their faces of every dimension, the adjacency graph, the intersection poset, and deletion and
restriction of one line. A table compares Zaslavsky's counts with the enumeration for named arrangements.
"""

from __future__ import annotations

import math

import _common
import matplotlib.pyplot as plt

from polyregions.arrangements import Arrangement, braid, catalan, coordinate, generic, linial, shi
from polyregions.plotting import arrangement_window, hyperplane_segments, plot_adjacency, plot_arrangement, plot_poset
from polyregions.plotting.arrangements import planar
from polyregions.plotting.polygons import clip, window_polygon

FOUR = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1], [1, -1, "1/2"]])


def poly(coefficients) -> str:
    degree = len(coefficients) - 1
    terms = []
    for k, c in enumerate(coefficients):
        if c:
            power = degree - k
            body = "" if power == 0 else ("t" if power == 1 else f"t^{power}")
            magnitude = "" if abs(c) == 1 and body else str(abs(c))
            terms.append(("-" if c < 0 else "+", magnitude + body))
    text = ("-" if terms[0][0] == "-" else "") + terms[0][1]
    return text + "".join(f" {s} {t}" for s, t in terms[1:])


def regions_figure() -> None:
    figure, axes = plt.subplots(1, 2, figsize=(10, 4.8))
    plot_arrangement(FOUR, ax=axes[0])
    plot_adjacency(FOUR, ax=axes[1])
    figure.tight_layout()
    _common.save(figure, "four_lines.png")


def face_segment(face, window):
    """The visible closure of a 1-dimensional face: the window cut by its sign conditions."""
    polygon = window_polygon(*window)
    for (a0, a1, c), s in zip(FOUR.hyperplanes, face.signs):
        if s == 0:
            polygon = clip(clip(polygon, (a0, a1), c), (-a0, -a1), -c)
        else:
            polygon = clip(polygon, (-s * a0, -s * a1), -s * c)
    return polygon


def faces_figure() -> None:
    window = arrangement_window(FOUR)
    figure, ax = plt.subplots(figsize=(7.5, 8.5))
    plot_arrangement(FOUR, ax=ax, labels=True, shade_bounded=True, hyperplane_labels=False, fontsize=7,
                     title="faces and their sign vectors (f = %s)" % (FOUR.f_vector(),))
    for face in FOUR.faces(1):
        segment = face_segment(face, window)
        x, y = segment.centroid()
        ax.text(float(x), float(y), face.sign_string.replace("-", "\u2212"), fontsize=6, color="darkred",
                ha="center", va="center", family="monospace", zorder=6,
                bbox=dict(boxstyle="round,pad=0.1", facecolor="white", edgecolor="none", alpha=0.85))
    for face in FOUR.faces(0):
        x, y = (float(v) for v in face.interior_point)
        ax.plot([x], [y], "o", color="black", markersize=4, zorder=7)
        ax.annotate(face.sign_string.replace("-", "\u2212"), (x, y), xytext=(4, 4), textcoords="offset points",
                    fontsize=6.5, color="navy", family="monospace", zorder=7)
    _common.save(figure, "four_lines_faces.png")


def poset_figure() -> None:
    figure, axes = plt.subplots(1, 2, figsize=(12, 4.2), gridspec_kw={"width_ratios": [1.05, 1]})
    plot_poset(FOUR, ax=axes[0])
    plot_poset(braid(4), ax=axes[1], fontsize=7)
    figure.tight_layout()
    _common.save(figure, "posets.png")


def restriction_panel(ax, arrangement: Arrangement, index: int, window) -> int:
    """Draw the line H_index with the points where the other lines cross it; return the number of pieces."""
    restricted = arrangement.restriction(index)
    origin, (direction,) = arrangement.restriction_chart(index)
    (i, segment), = [(i, s) for i, s in hyperplane_segments(arrangement, window=window) if i == index]
    (x0, y0), (x1, y1) = segment.vertices
    ax.plot([float(x0), float(x1)], [float(y0), float(y1)], color="black", linewidth=1.5)
    for face in restricted.faces(0):
        (t,) = face.interior_point
        x, y = (float(o + t * d) for o, d in zip(origin, direction))
        ax.plot([x], [y], "o", color="crimson", markersize=6, zorder=3)
    (lo0, lo1), (hi0, hi1) = window
    ax.set_xlim(float(lo0), float(hi0))
    ax.set_ylim(float(lo1), float(hi1))
    ax.set_aspect("equal")
    ax.set_title(f"A / H{index}: {restricted.num_regions()} pieces of H{index}")
    return restricted.num_regions()


def deletion_restriction_figure() -> None:
    index = 2
    window = arrangement_window(FOUR)
    deleted = FOUR.deletion(index)
    figure, axes = plt.subplots(1, 3, figsize=(13, 4.6))
    plot_arrangement(FOUR, ax=axes[0], window=window, title=f"A: {FOUR.num_regions()} regions")
    names = [f"H{i}" for i in range(len(FOUR)) if i != index]  # keep the names of the lines that stay
    plot_arrangement(deleted, ax=axes[1], window=window, names=names,
                     title=f"A \u2216 H{index}: {deleted.num_regions()} regions")
    pieces = restriction_panel(axes[2], FOUR, index, window)
    assert FOUR.num_regions() == deleted.num_regions() + pieces
    figure.tight_layout()
    _common.save(figure, "deletion_restriction.png")


def named_figure() -> None:
    figure, axes = plt.subplots(1, 2, figsize=(11, 5))
    plot_arrangement(planar(shi(3))[0], ax=axes[0], fontsize=6,
                     title="Shi arrangement, n = 3 (essentialized): 16 regions, 4 bounded")
    plot_arrangement(planar(catalan(3))[0], ax=axes[1], fontsize=5, labels=False,
                     title="Catalan arrangement, n = 3 (essentialized): 30 regions")
    figure.tight_layout()
    _common.save(figure, "shi_catalan.png")


def zaslavsky_table() -> None:
    def catalan_number(n):
        return math.comb(2 * n, n) // (n + 1)

    cases = [
        ("four lines (above)", FOUR, None, None),
        ("coordinate, d = 3", coordinate(3), 8, 0),
        ("braid, n = 4", braid(4), math.factorial(4), 0),
        ("Shi, n = 3", shi(3), 4 ** 2, 2 ** 2),
        ("Shi, n = 4", shi(4), 5 ** 3, 3 ** 3),
        ("Catalan, n = 3", catalan(3), math.factorial(3) * catalan_number(3), None),
        ("Linial, n = 4", linial(4), None, None),
        ("5 generic planes in R^3", generic(5, 3, seed=0), sum(math.comb(5, i) for i in range(4)), math.comb(4, 3)),
    ]
    rows = []
    for name, arrangement, closed_regions, closed_bounded in cases:
        report = arrangement.check_zaslavsky()
        assert report.ok
        for value, closed in ((report.regions, closed_regions), (report.bounded_regions, closed_bounded)):
            assert closed is None or value == closed, (name, value, closed)
        rows.append({
            "arrangement": name,
            "chi(t)": poly(arrangement.characteristic_polynomial()),
            "(-1)^d chi(-1)": report.regions_predicted,
            "regions enumerated": report.regions,
            "(-1)^r chi(1)": report.bounded_predicted,
            "bounded enumerated": report.bounded_regions,
            "f-vector": " ".join(map(str, arrangement.f_vector())),
        })
    _common.write_csv(rows, "zaslavsky.csv")


def main() -> None:
    regions_figure()
    faces_figure()
    poset_figure()
    deletion_restriction_figure()
    named_figure()
    zaslavsky_table()
    _common.done(__file__)


if __name__ == "__main__":
    main()
