"""The explorer's arrangement view: lines of the plane in, everything a student looks at out, computed exactly.

A request is a JSON object: either ``{"name": "shi:3"}``, one of :data:`NAMED_ARRANGEMENTS` (drawn in the plane
directly, or through its essentialization when it lives in a higher dimension with rank 2), or
``{"lines": [[[x0, y0], [x1, y1]], ...]}``, each line through two different points (exact numbers: ``"0.25"``,
``"-7/12"``). Optional keys: ``"window"`` (``[[x_min, y_min], [x_max, y_max]]``: the part of the plane shown; by
default a square around every vertex, with short decimal corners) and ``"selected"`` (the index of a line, for
its deletion and restriction).

The answer holds the lines (with two exact handle points each, to drag), the arrangement's canonical
hyperplanes, every region (sign vector, relative boundedness, exact interior point, polygon in the window), the
intersection poset (flats, Moebius values, covers, a Hasse layout), ``chi(t)``, Zaslavsky's two counts
``(-1)^d chi(-1)`` and ``(-1)^rank chi(1)`` beside the enumerated ones, and under ``"summary"`` exactly what
``polyregions arrangement FILE --json`` prints for these lines.

Examples
--------
>>> view = arrangement_view({"lines": [[[0, 0], [1, 0]], [[0, 0], [0, 1]], [["0.5", 0], [0, "0.5"]]]})
>>> view["summary"]["regions"], view["summary"]["bounded_regions"], view["zaslavsky"]
(7, 1, {'regions': 7, 'bounded_regions': 1})
>>> [r["signs"] for r in view["regions"] if r["bounded"]]
['++-']
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any, Mapping, Sequence

from polyregions.errors import InvalidInputError
from polyregions.explore.limits import LIMITS, Limits, check_keys, read_point, read_window

if TYPE_CHECKING:
    from polyregions.arrangements import Arrangement

__all__ = ["NAMED_ARRANGEMENTS", "arrangement_view", "line_through"]

#: Named arrangements that the explorer draws: planar, or of rank 2 (drawn through their essentialization),
#: with at most 12 lines.
NAMED_ARRANGEMENTS = ("braid:3", "shi:3", "catalan:3", "linial:3", "semiorder:3", "ish:3", "coordinate:2",
                      "resonance:2", "coxeter:B2", "coxeter:G2", "shi:B2", "shi:G2", "catalan:B2", "generic:5,2",
                      "generic:8,2", "generic:12,2")

Point = tuple[Fraction, Fraction]
Window = tuple[Point, Point]


def line_through(p: Point, q: Point) -> tuple[Fraction, Fraction, Fraction]:
    """The row ``[a1, a2, c]`` of the line ``a1 x + a2 y = c`` through two different points.

    Examples
    --------
    >>> line_through((Fraction(0), Fraction(1)), (Fraction(1), Fraction(0)))  # x + y = 1, up to sign
    (Fraction(-1, 1), Fraction(-1, 1), Fraction(-1, 1))
    """
    a1, a2 = q[1] - p[1], p[0] - q[0]
    return a1, a2, a1 * p[0] + a2 * p[1]


def _text(value: Fraction) -> str:
    return str(value)


def _point_text(point: Sequence[Fraction]) -> list[str]:
    return [_text(point[0]), _text(point[1])]


def _read_lines(value: Any, limits: Limits) -> list[tuple[Point, Point]]:
    if not isinstance(value, list):
        raise InvalidInputError(f"lines: expected a list of lines [[x0, y0], [x1, y1]], got {type(value).__name__}")
    if len(value) > limits.max_lines:
        raise InvalidInputError(f"lines: expected at most {limits.max_lines} lines, got {len(value)}")
    lines = []
    for i, line in enumerate(value):
        if not isinstance(line, list) or len(line) != 2:
            raise InvalidInputError(f"lines[{i}]: expected two points [[x0, y0], [x1, y1]], got "
                                    f"{str(line)[:60]}")
        p = read_point(line[0], what=f"lines[{i}][0]", limits=limits)
        q = read_point(line[1], what=f"lines[{i}][1]", limits=limits)
        if p == q:
            raise InvalidInputError(f"lines[{i}]: expected two different points, got ({p[0]}, {p[1]}) twice")
        lines.append((p, q))
    return lines


def _named(name: Any) -> "Arrangement":
    from polyregions.arrangements import parse_name
    from polyregions.plotting.arrangements import planar

    if name not in NAMED_ARRANGEMENTS:  # a fixed list: parse_name("generic:100000,2") would be a lot of work
        raise InvalidInputError(f"name: expected one of {', '.join(NAMED_ARRANGEMENTS)}, got {str(name)[:60]!r}")
    return planar(parse_name(name))[0]


def _nice_window(window: Window) -> Window:
    """The window widened to a square around its centre (the plane is drawn without distortion), its corners
    rounded outwards to a step of about a hundredth of its size, so that they stay short decimals."""
    import math

    (x0, y0), (x1, y1) = window
    half = max(x1 - x0, y1 - y0) / 2
    cx, cy = (x0 + x1) / 2, (y0 + y1) / 2
    step = Fraction(10) ** (math.floor(math.log10(2 * half)) - 2)
    lower = tuple(math.floor((v - half) / step) * step for v in (cx, cy))
    upper = tuple(math.ceil((v + half) / step) * step for v in (cx, cy))
    side = max(upper[0] - lower[0], upper[1] - lower[1])
    return (lower[0], lower[1]), (lower[0] + side, lower[1] + side)


def _on_line(row: Sequence[int], near: Point, step: Fraction) -> Point:
    """A point of the line near ``near`` whose coordinate along the line's longer extent is a multiple of
    ``step`` (the other follows exactly), so that handles stay short numbers."""
    a1, a2, c = row
    if abs(a2) >= abs(a1):
        x = round(near[0] / step) * step
        return x, (c - a1 * x) / Fraction(a2)
    y = round(near[1] / step) * step
    return (c - a2 * y) / Fraction(a1), y


def _handles(arrangement: "Arrangement", window: Window) -> list[tuple[Point, Point]]:
    """Two exact points on each hyperplane, a fifth to a third of the way in from each end of its visible
    segment."""
    from polyregions.plotting.arrangements import hyperplane_segments

    segments = dict(hyperplane_segments(arrangement, window=window))
    step = (window[1][0] - window[0][0]) / 200
    handles = []
    for i, row in enumerate(arrangement.hyperplanes):
        a1, a2, c = row
        if i in segments:
            p, q = segments[i].vertices
        else:  # the line misses the window: its point nearest the origin and one step along it
            norm2 = Fraction(a1 * a1 + a2 * a2)
            p = (a1 * c / norm2, a2 * c / norm2)
            q = (p[0] - a2, p[1] + a1)
        d = (q[0] - p[0], q[1] - p[1])
        t = Fraction(1, 5) + Fraction(i, 60)  # staggered, so that lines through one point keep apart handles
        first, second = (p[0] + t * d[0], p[1] + t * d[1]), (q[0] - t * d[0], q[1] - t * d[1])
        short = _on_line(row, first, step), _on_line(row, second, step)
        handles.append(short if short[0] != short[1] else (first, second))
    return handles


def _regions(arrangement: "Arrangement", window: Window) -> list[dict[str, Any]]:
    from polyregions.explore._polygons import clip_rows, float_vertices, window_vertices

    base = window_vertices(*window)
    out = []
    for region in arrangement.regions():
        rows = [(-s * a1, -s * a2, -s * c) for s, (a1, a2, c) in zip(region.signs, arrangement.hyperplanes)]
        out.append({"signs": region.sign_string, "bounded": region.bounded,
                    "interior_point": _point_text(region.interior_point),
                    "polygon": float_vertices(clip_rows(base, rows))})
    return out


def _poset(arrangement: "Arrangement") -> dict[str, Any]:
    from polyregions.plotting.arrangements import hasse_layout

    poset = arrangement.poset
    layout = hasse_layout(poset)
    flats = []
    for flat, mu in zip(poset.flats, poset.mobius):
        flats.append({"rank": flat.rank, "hyperplanes": sorted(flat.hyperplanes), "mobius": mu,
                      "x": layout[flat.index][0],
                      "point": [float(v) for v in flat.point] if flat.dim == 0 else None})
    covers = [[lower, upper] for upper, lowers in enumerate(poset.below) for lower in lowers]
    return {"flats": flats, "covers": covers}


def _zaslavsky(arrangement: "Arrangement") -> dict[str, int]:
    return {"regions": arrangement.predicted_regions(), "bounded_regions": arrangement.predicted_bounded_regions()}


def _selected(arrangement: "Arrangement", index: int) -> dict[str, Any]:
    """Deletion and restriction of hyperplane ``index``, with the points where the others cross it."""
    from polyregions.arrangements.poset import polynomial_text

    deletion, restriction = arrangement.deletion(index), arrangement.restriction(index)
    origin, directions = arrangement.restriction_chart(index)
    points = []
    for a, c in restriction.hyperplanes:  # a y = c in the line's coordinate y
        y = Fraction(c, a)
        points.append([float(o + y * d) for o, d in zip(origin, directions[0])])
    chi = arrangement.characteristic_polynomial()
    chi_deletion, chi_restriction = deletion.characteristic_polynomial(), restriction.characteristic_polynomial()
    difference = [d - r for d, r in zip(chi_deletion, (0,) + tuple(chi_restriction))]

    def part(piece: "Arrangement", polynomial: tuple[int, ...]) -> dict[str, Any]:
        return {"regions": piece.num_regions(), "bounded_regions": len(piece.bounded_regions()),
                "characteristic_polynomial": list(polynomial), "text": polynomial_text(polynomial, pretty=True)}

    return {"hyperplane": index, "deletion": part(deletion, chi_deletion),
            "restriction": dict(part(restriction, chi_restriction), points=points),
            "regions_add_up": deletion.num_regions() + restriction.num_regions() == arrangement.num_regions(),
            "polynomials_agree": tuple(difference) == chi}


def arrangement_view(request: Mapping[str, Any], *, limits: Limits = LIMITS) -> dict[str, Any]:
    """Everything the explorer shows of an arrangement of lines, computed exactly (see the module's text).

    Parameters
    ----------
    request : dict
        The decoded JSON request: ``name`` or ``lines``, optionally ``window`` and ``selected``.
    limits : Limits, keyword-only
        The bounds on the request.

    Returns
    -------
    dict
        A JSON object: ``source``, ``essentialized``, ``window``, ``lines``, ``hyperplanes``, ``regions``,
        ``poset``, ``characteristic_polynomial``, ``characteristic_polynomial_text``, ``zaslavsky``,
        ``summary``, ``selected``.

    Raises
    ------
    InvalidInputError
        Naming the field, for a request that is not of that form or beyond ``limits``.
    """
    from polyregions.arrangements import Arrangement, canonical_hyperplanes, parse_name
    from polyregions.arrangements.poset import polynomial_text
    from polyregions.plotting.arrangements import arrangement_window

    request = check_keys(request, ("name", "lines", "window", "selected"), what="arrangement request")
    if ("name" in request) == ("lines" in request):
        raise InvalidInputError("arrangement request: expected exactly one of name or lines, got "
                                + ("both" if "name" in request else "neither"))
    window = read_window(request["window"], limits=limits) if request.get("window") is not None else None
    essentialized = False
    if "name" in request:
        arrangement = _named(request["name"])
        essentialized = parse_name(request["name"]).dim != 2
        window = window or _nice_window(arrangement_window(arrangement))
        handles = _handles(arrangement, window)
        hyperplane_of = list(range(len(arrangement)))
    else:
        handles = _read_lines(request["lines"], limits)
        arrangement = Arrangement([line_through(p, q) for p, q in handles], dim=2)
        where = {row: i for i, row in enumerate(arrangement.hyperplanes)}
        hyperplane_of = [where[canonical_hyperplanes([line_through(p, q)])[1][0]] for p, q in handles]
        if window is None:
            from polyregions.plotting.polygons import default_window

            points = [f.interior_point for f in arrangement.faces(0)] + [p for line in handles for p in line]
            window = _nice_window(default_window(points))
    selected = request.get("selected")
    if selected is not None and (isinstance(selected, bool) or not isinstance(selected, int)
                                 or not 0 <= selected < len(handles)):
        raise InvalidInputError(f"selected: expected the index of a line in [0, {len(handles)}) or null, got "
                                f"{str(selected)[:60]}")
    chi = arrangement.characteristic_polynomial()
    return {
        "source": request.get("name", "lines"),
        "essentialized": essentialized,
        "window": [_point_text(window[0]), _point_text(window[1])],
        "lines": [{"points": [_point_text(p), _point_text(q)], "hyperplane": j}
                  for (p, q), j in zip(handles, hyperplane_of)],
        "hyperplanes": [list(row) for row in arrangement.hyperplanes],
        "regions": _regions(arrangement, window),
        "poset": _poset(arrangement),
        "characteristic_polynomial": list(chi),
        "characteristic_polynomial_text": polynomial_text(chi, pretty=True),
        "zaslavsky": _zaslavsky(arrangement),
        "summary": arrangement.summary(),
        "selected": None if selected is None else _selected(arrangement, hyperplane_of[selected]),
    }
