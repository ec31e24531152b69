"""Pictures of hyperplane arrangements in the plane and of their intersection posets.

:func:`plot_arrangement` draws the lines, shades the bounded regions, and writes each region's sign vector
inside it. Unbounded regions are clipped to a window that holds every vertex of the arrangement, so that all
the bounded structure is visible. :func:`plot_poset` draws the intersection poset as a Hasse diagram: one row
per rank, the whole plane at the bottom, with the Moebius value of each flat if asked for.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Sequence

from polyregions.arrangements.poset import polynomial_text
from polyregions.errors import InvalidInputError
from polyregions.plotting.polygons import Polygon, clip, default_window, polygon_from_inequalities, window_polygon

if TYPE_CHECKING:
    from polyregions.arrangements import Arrangement, IntersectionPoset

__all__ = ["planar", "arrangement_window", "arrangement_polygons", "hyperplane_segments", "plot_arrangement",
           "hasse_layout", "plot_poset"]


def _check_plane(arrangement: "Arrangement", what: str) -> None:
    from polyregions.arrangements import Arrangement

    if not isinstance(arrangement, Arrangement):
        raise InvalidInputError(f"{what}: expected an Arrangement, got {type(arrangement).__name__}")
    if arrangement.dim != 2:
        reason = (f"rank {arrangement.rank}: its regions are not a picture in the plane" if arrangement.rank != 2
                  else "rank 2 but restricted to a polytope, so it cannot be essentialized")
        raise InvalidInputError(f"{what}: expected an arrangement of rank 2 (lines in the plane, or hyperplanes "
                                f"of R^{arrangement.dim} whose normals span a plane), got {reason}")


def planar(arrangement: "Arrangement") -> tuple["Arrangement", bool]:
    """The arrangement itself when it lies in the plane, or its essentialization when that does (rank 2, no
    domain); the flag says whether it was essentialized. Regions, faces and the poset correspond one to one.

    Examples
    --------
    >>> from polyregions.arrangements import braid
    >>> essential, changed = planar(braid(3))
    >>> essential.dim, changed, essential.num_regions()
    (2, True, 6)
    """
    from polyregions.arrangements import Arrangement

    if isinstance(arrangement, Arrangement) and arrangement.dim > 2 and arrangement.rank == 2 \
            and arrangement.domain is None:
        return arrangement.essentialization(), True
    _check_plane(arrangement, "plot_arrangement")
    return arrangement, False


def arrangement_window(arrangement: "Arrangement") -> tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]]:
    """A window showing all of the arrangement's bounded structure.

    With a domain: the domain's bounding box. Otherwise: a margin around every vertex (0-dimensional face),
    or, without vertices, around the point of each line nearest the origin.

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> arrangement_window(Arrangement([[1, 0, 0], [0, 1, 0]]))
    ((Fraction(-1, 2), Fraction(-1, 2)), (Fraction(1, 2), Fraction(1, 2)))
    """
    _check_plane(arrangement, "arrangement_window")
    if arrangement.domain is not None:
        from polyregions.polyhedra.polytope import Polytope

        domain = arrangement.domain
        polytope = Polytope(tuple(map(tuple, domain.A)), tuple(domain.b), domain.dim)
        if polytope.is_bounded():
            xs, ys = [v[0] for v in polytope.vertices()], [v[1] for v in polytope.vertices()]
            return (min(xs), min(ys)), (max(xs), max(ys))
    points = [face.interior_point for face in arrangement.faces(0)]
    if not points:
        for a0, a1, c in arrangement.hyperplanes:
            norm2 = Fraction(a0 * a0 + a1 * a1)
            points.append((a0 * c / norm2, a1 * c / norm2))
    return default_window(points)


def _base(arrangement: "Arrangement", window: Any) -> Polygon:
    lower, upper = arrangement_window(arrangement) if window is None else window
    polygon = window_polygon(lower, upper)
    if arrangement.domain is not None:
        domain = arrangement.domain
        polygon = polygon_from_inequalities(domain.A, domain.b, window=polygon,
                                            labels=[("domain", k) for k in range(len(domain.A))])
    return polygon


def arrangement_polygons(arrangement: "Arrangement", *, window: Any = None) -> tuple[Polygon, ...]:
    """The exact polygon of every region (in the order of ``arrangement.regions()``), clipped to ``window``.

    Edges on hyperplane ``i`` are labelled ``("hyperplane", i)``. A region that misses the window gives an empty
    polygon.

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> lines = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]])
    >>> [p.area() for p, r in zip(arrangement_polygons(lines), lines.regions()) if r.bounded]
    [Fraction(1, 2)]
    """
    _check_plane(arrangement, "arrangement_polygons")
    base = _base(arrangement, window)
    n = len(arrangement)
    out = []
    for region in arrangement.regions():
        labels = [("hyperplane", i) for i in range(n)] + [("domain", k) for k in range(len(region.A) - n)]
        out.append(polygon_from_inequalities(region.A, region.b, window=base, labels=labels))
    return tuple(out)


def hyperplane_segments(arrangement: "Arrangement", *, window: Any = None) -> list[tuple[int, Polygon]]:
    """``(index, segment)`` for every line of the arrangement that crosses the window (exact endpoints).

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> [(i, s.vertices) for i, s in hyperplane_segments(Arrangement([[1, 0, 0]]), window=((-1, -1), (1, 1)))]
    [(0, ((Fraction(0, 1), Fraction(-1, 1)), (Fraction(0, 1), Fraction(1, 1))))]
    """
    _check_plane(arrangement, "hyperplane_segments")
    base = _base(arrangement, window)
    out = []
    for i, (a0, a1, c) in enumerate(arrangement.hyperplanes):
        segment = clip(clip(base, (a0, a1), c), (-a0, -a1), -c)
        if len(segment) == 2:
            out.append((i, segment))
    return out


def plot_arrangement(arrangement: "Arrangement", *, ax: Any = None, window: Any = None, labels: bool = True,
                     shade_bounded: bool = True, hyperplane_labels: bool = True, fontsize: float = 8.0,
                     title: str | None = None, names: Sequence[str] | None = None, cmap: str | None = None):
    """Draw a planar arrangement: lines, regions (bounded ones shaded), sign-vector labels; return the axes.

    Every region gets its own colour, vivid when it is (relatively) bounded and pale otherwise (with
    ``shade_bounded=False`` all are pale). An arrangement of rank 2 in a higher dimension (such as the braid
    arrangement of ``R^3``) is drawn through its essentialization (:func:`planar`). A region's label is its sign
    vector over ``-``/``+`` (hyperplane order), written at the centroid of its visible part; hyperplane ``i`` is
    labelled ``names[i]`` (default ``H{i}``) near one end. A sign vector that does not fit inside its region, or
    would overlap another, is left out (:func:`place_labels`). ``cmap`` takes the regions' colours from a
    matplotlib colour map (unbounded regions lightened).

    Examples
    --------
    >>> from polyregions.arrangements import braid
    >>> ax = plot_arrangement(braid(3).essentialization())  # doctest: +SKIP
    """
    from polyregions.plotting._backend import new_axes
    from polyregions.plotting.colors import PALE, VIVID, cmap_colors, distinct_colors, lighten
    from polyregions.plotting.regions import _edge_collection, _finish, draw_polygons

    arrangement, essentialized = planar(arrangement)
    if names is None:
        names = [f"H{i}" for i in range(len(arrangement))]
    elif len(names) != len(arrangement):
        raise InvalidInputError(f"names: expected {len(arrangement)} names (one per hyperplane), got {len(names)}")
    ax = new_axes(ax)
    window = arrangement_window(arrangement) if window is None else window
    regions = arrangement.regions()
    polygons = arrangement_polygons(arrangement, window=window)
    if cmap is None:
        vivid = distinct_colors(len(regions), lightness=VIVID, saturation=(0.55, 0.4))
        pale = distinct_colors(len(regions), lightness=PALE, saturation=(0.6, 0.4))
    else:
        vivid = cmap_colors(len(regions), cmap)
        pale = [lighten(c, 0.7) for c in vivid]
    colors = [vivid[i] if shade_bounded and r.bounded else pale[i] for i, r in enumerate(regions)]
    draw_polygons(ax, polygons, colors)
    segments = hyperplane_segments(arrangement, window=window)
    _edge_collection(ax, [s.vertices for _, s in segments], color="black", linewidth=1.0, zorder=2)
    # (labels are placed once the axes have their final limits, so that their extents can be measured)
    if title is None:
        bounded = sum(1 for r in regions if r.bounded)
        title = f"{len(arrangement)} lines, {len(regions)} regions, {bounded} bounded"
        if essentialized:
            title += " (essentialized)"
    _finish(ax, window, labels=("x1", "x2"), title=title)
    names_drawn = []
    if hyperplane_labels:
        for i, segment in segments:
            (x0, y0), (x1, y1) = segment.vertices
            x, y = x0 + (x1 - x0) / 20, y0 + (y1 - y0) / 20
            names_drawn.append(ax.text(float(x), float(y), names[i], fontsize=fontsize, color="black", zorder=5,
                                       bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none",
                                                 alpha=0.8)))
    if labels:
        shown = [(polygon, region.sign_string.replace("-", "\u2212")) for region, polygon in zip(regions, polygons)
                 if not polygon.is_degenerate]
        place_labels(ax, shown, fontsize=fontsize, avoid=names_drawn)
    return ax


def place_labels(ax: Any, items: Sequence[tuple[Polygon, str]], *, fontsize: float, avoid: Sequence[Any] = ()
                 ) -> int:
    """Write each text at the centroid of its polygon, never two overlapping; return how many were left out.

    Largest polygons first: a label that fits inside its polygon is written plainly; then each of the others on
    a white box over the lines if it overlaps no label already written, and left out otherwise (the Catalan
    arrangement's small triangles: its neighbours' labels identify such a region). Extents are measured in
    display coordinates, so the rule holds at any figure and font size. No label overlaps the texts ``avoid``
    either (the hyperplanes' names).
    """
    renderer = _renderer(ax)
    ax.apply_aspect()
    placed: list[Any] = [] if renderer is None else [t.get_window_extent(renderer) for t in avoid]
    later = []
    for polygon, text in sorted(items, key=lambda item: -float(item[0].area())):
        artist = _label(ax, polygon, text, fontsize)
        if renderer is None:
            continue
        box = artist.get_window_extent(renderer).expanded(1.08, 1.15)
        if _box_inside(ax, box, polygon) and not any(box.overlaps(other) for other in placed):
            placed.append(box)
        else:
            artist.remove()
            later.append((polygon, text))
    dropped = 0
    for polygon, text in later:
        artist = _label(ax, polygon, text, fontsize, boxed=True)
        box = artist.get_window_extent(renderer).expanded(1.1, 1.2)
        if any(box.overlaps(other) for other in placed):
            artist.remove()
            dropped += 1
        else:
            placed.append(box)
    return dropped


def _label(ax: Any, polygon: Polygon, text: str, fontsize: float, *, boxed: bool = False) -> Any:
    x, y = polygon.centroid()
    box = dict(boxstyle="round,pad=0.12", facecolor="white", edgecolor="none", alpha=0.85) if boxed else None
    return ax.text(float(x), float(y), text, ha="center", va="center", fontsize=fontsize, family="monospace",
                   zorder=4, bbox=box)


def _renderer(ax: Any) -> Any:
    """The renderer of the axes' figure, to measure text (None on a canvas that cannot give one)."""
    get = getattr(ax.figure.canvas, "get_renderer", None)
    return get() if get is not None else None


def _box_inside(ax: Any, box: Any, polygon: Polygon) -> bool:
    """Whether the four corners of a display-space box lie in the (convex) polygon, in floating point."""
    corners = ax.transData.inverted().transform([(box.x0, box.y0), (box.x1, box.y0), (box.x1, box.y1),
                                                 (box.x0, box.y1)])
    vertices = polygon.to_float()
    n = len(vertices)
    for i in range(n):
        (x0, y0), (x1, y1) = vertices[i], vertices[(i + 1) % n]
        for cx, cy in corners:
            if (x1 - x0) * (cy - y0) - (y1 - y0) * (cx - x0) < 0:  # right of a counter-clockwise edge
                return False
    return True


def _poset_of(source: Any) -> "IntersectionPoset":
    from polyregions.arrangements import Arrangement, IntersectionPoset

    if isinstance(source, Arrangement):
        return source.poset
    if isinstance(source, IntersectionPoset):
        return source
    raise InvalidInputError(f"plot_poset: expected an Arrangement or an IntersectionPoset, got "
                            f"{type(source).__name__}")


def hasse_layout(poset: "IntersectionPoset", *, sweeps: int = 4) -> dict[int, tuple[float, float]]:
    """Positions ``(x, rank)`` of the flats for a Hasse diagram.

    Each rank is a row; flats in a row are ordered by the mean position of the flats they cover (and then of
    the flats covering them), a few sweeps up and down, which keeps most cover lines short. Positions in a
    row are evenly spaced and centred on 0.

    Examples
    --------
    >>> from polyregions.arrangements import coordinate
    >>> layout = hasse_layout(coordinate(2).poset)
    >>> sorted(layout.values())
    [(-0.5, 1), (0.0, 0), (0.0, 2), (0.5, 1)]
    """
    rows: dict[int, list[int]] = {}
    for flat in poset.flats:
        rows.setdefault(flat.rank, []).append(flat.index)
    above: dict[int, list[int]] = {f.index: [] for f in poset.flats}
    for upper, lowers in enumerate(poset.below):
        for lower in lowers:
            above[lower].append(upper)
    x = {}

    def place(row: list[int]) -> None:
        for k, index in enumerate(row):
            x[index] = k - (len(row) - 1) / 2

    for rank in sorted(rows):
        place(rows[rank])
    ranks = sorted(rows)
    for _ in range(sweeps):
        for neighbours, order in ((poset.below, ranks[1:]), (above, list(reversed(ranks[:-1])))):
            for rank in order:
                row = rows[rank]
                key = {i: (sum(x[j] for j in neighbours[i]) / len(neighbours[i]) if neighbours[i] else x[i], x[i])
                       for i in row}
                row.sort(key=key.__getitem__)
                place(row)
    return {i: (x[i], poset.flats[i].rank) for i in x}


def _flat_label(flat, dim: int) -> str:
    if flat.rank == 0:
        return f"R{_superscript(dim)}"
    return ",".join(f"H{i}" for i in sorted(flat.hyperplanes))


def _superscript(n: int) -> str:
    return str(n).translate(str.maketrans("0123456789", "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"))


def plot_poset(source: "Arrangement | IntersectionPoset", *, ax: Any = None, mobius: bool = True,
               fontsize: float = 8.0, title: str | None = None):
    """Draw the intersection poset as a Hasse diagram; return the axes.

    Each flat is a box labelled by the hyperplanes containing it (``H0,H2``), with ``mu = ...`` under it when
    ``mobius`` is true; the whole space ``R^d`` is at the bottom and rank increases upwards. A line joins each
    flat to each flat covering it.

    Examples
    --------
    >>> from polyregions.arrangements import braid
    >>> ax = plot_poset(braid(3))  # doctest: +SKIP
    """
    from polyregions.plotting._backend import new_axes

    poset = _poset_of(source)
    layout = hasse_layout(poset)
    width = max(sum(1 for f in poset.flats if f.rank == r) for r in range(poset.rank + 1))
    ax = new_axes(ax, figsize=(max(3.0, 1.1 * width + 1), 1.4 * (poset.rank + 1) + 0.6))
    from matplotlib.collections import LineCollection

    lines = [[layout[lower], layout[upper]] for upper, lowers in enumerate(poset.below) for lower in lowers]
    ax.add_collection(LineCollection(lines, colors="grey", linewidths=0.8, zorder=1))
    values = poset.mobius
    for flat in poset.flats:
        x, y = layout[flat.index]
        text = _flat_label(flat, poset.dim)
        if mobius:
            text += f"\n\u03bc = {values[flat.index]}".replace("-", "\u2212")
        ax.text(x, y, text, ha="center", va="center", fontsize=fontsize, zorder=3,
                bbox=dict(boxstyle="round,pad=0.3", facecolor="white", edgecolor="black", linewidth=0.6))
    xs = [p[0] for p in layout.values()]
    ax.set_xlim(min(xs) - 0.8, max(xs) + 0.8)
    ax.set_ylim(-0.6, poset.rank + 0.6)
    ax.set_yticks(range(poset.rank + 1))
    ax.set_ylabel("rank (codimension)")
    ax.set_xticks([])
    for side in ("top", "right", "bottom"):
        ax.spines[side].set_visible(False)
    if title is None:
        chi = poset.characteristic_polynomial()
        title = f"intersection poset: {len(poset)} flats, \u03c7(t) = {polynomial_text(chi, pretty=True)}"
    ax.set_title(title, fontsize=fontsize + 1)
    return ax


