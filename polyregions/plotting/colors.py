"""Colours for regions: as many distinct colours as there are regions, reproducibly.

Colours are RGB triples whose channels are multiples of 1/255, so a PNG written by matplotlib contains each
one exactly (a test can look for every region's colour in the image). Consecutive colours are far apart in
hue (steps of the golden ratio), so regions with neighbouring indices do not look alike.

Examples
--------
>>> colors = distinct_colors(100)
>>> len(set(colors)), all(255 * c == int(255 * c) for rgb in colors for c in rgb)
(100, True)
"""

from __future__ import annotations

import colorsys
import hashlib
from typing import Any, Sequence

from polyregions.errors import InvalidInputError

__all__ = ["distinct_colors", "PALE", "VIVID", "class_colors", "lighten", "to_hex", "pattern_colors", "colormap",
           "cmap_colors", "COLOR_SCHEMES"]

#: How regions are coloured: by their index in the complex (far-apart hues, the default) or by a hash of their
#: activation pattern (a region keeps its colour from one checkpoint of a network to the next).
COLOR_SCHEMES = ("index", "pattern")

_GOLDEN = 0.6180339887498949
_ROOT2 = 0.4142135623730951
_ROOT3 = 0.7320508075688772

#: Lightness bands: vivid colours for regions that matter, pale ones for background regions.
VIVID = (0.45, 0.58, 0.70)
PALE = (0.86, 0.90, 0.94)

# A qualitative palette for classes (colour-blind friendly, after Okabe & Ito), as 8-bit channels.
_CLASS_RGB = ((0, 114, 178), (230, 159, 0), (0, 158, 115), (204, 121, 167), (86, 180, 233), (213, 94, 0),
              (240, 228, 66), (0, 0, 0), (153, 153, 153), (117, 112, 179))


def distinct_colors(n: int, *, lightness: Sequence[float] = VIVID, saturation: Sequence[float] = (0.75, 0.55),
                    offset: int = 0) -> list[tuple[float, float, float]]:
    """``n`` pairwise different RGB colours (channels ``k / 255``), hues spread by the golden ratio.

    ``lightness`` and ``saturation`` give the bands cycled through; ``offset`` starts further along the
    sequence (two palettes with different offsets look different).

    Examples
    --------
    >>> [to_hex(c) for c in distinct_colors(3)]
    ['#3ab326', '#e93d88', '#81cfec']
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise InvalidInputError(f"distinct_colors: expected a non-negative number of colours, got {n!r}")
    if not lightness or not saturation:
        raise InvalidInputError("distinct_colors: expected at least one lightness and one saturation level")
    seen: set[tuple[int, int, int]] = set()
    out: list[tuple[float, float, float]] = []
    i = offset
    # The 8-bit grid of one lightness band holds far more colours than any picture has regions; the guard
    # only stops a pathological request (such as a single grey level) from looping forever.
    limit = offset + 64 * n + 1024
    while len(out) < n:
        if i > limit:
            raise InvalidInputError(f"distinct_colors: cannot find {n} different colours with lightness "
                                    f"{tuple(lightness)} and saturation {tuple(saturation)}")
        hue = ((i + 0.5) * _GOLDEN) % 1.0
        # Small low-discrepancy jitter around the bands: thousands of regions still get distinct colours.
        light = min(max(lightness[i % len(lightness)] + 0.05 * (((i * _ROOT2) % 1.0) - 0.5), 0.0), 1.0)
        sat = min(max(saturation[(i // len(lightness)) % len(saturation)]
                      + 0.2 * (((i * _ROOT3) % 1.0) - 0.5), 0.0), 1.0)
        r, g, b = (int(round(255 * c)) for c in colorsys.hls_to_rgb(hue, light, sat))
        i += 1
        if (r, g, b) in seen:
            continue
        seen.add((r, g, b))
        out.append((r / 255, g / 255, b / 255))
    return out


def class_colors(n: int) -> list[tuple[float, float, float]]:
    """Colours for ``n`` classes: a fixed qualitative palette, extended by :func:`distinct_colors`.

    Examples
    --------
    >>> to_hex(class_colors(2)[1])
    '#e69f00'
    """
    base = [(r / 255, g / 255, b / 255) for r, g, b in _CLASS_RGB[:n]]
    if n > len(base):
        extra = [c for c in distinct_colors(2 * n, offset=7) if c not in base]
        base.extend(extra[:n - len(base)])
    return base


def lighten(rgb: Sequence[float], amount: float = 0.5) -> tuple[float, float, float]:
    """Mix a colour with white (``amount`` of white), keeping channels on the ``k / 255`` grid.

    Examples
    --------
    >>> to_hex(lighten((0, 0, 1), 0.5))
    '#8080ff'
    """
    r, g, b = (round(255 * (c + (1 - c) * amount)) / 255 for c in rgb)
    return r, g, b


def to_hex(rgb: Sequence[float]) -> str:
    """``#rrggbb`` of an RGB triple with channels in ``[0, 1]``.

    Examples
    --------
    >>> to_hex((1, 0, 0.5))
    '#ff0080'
    """
    return "#" + "".join(f"{int(round(255 * c)):02x}" for c in rgb)


def _grid(rgb: Sequence[float]) -> tuple[float, float, float]:
    r, g, b = (round(255 * min(max(float(c), 0.0), 1.0)) / 255 for c in rgb[:3])
    return r, g, b


def colormap(name: str) -> Any:
    """The matplotlib colour map called ``name`` (any registered one: ``viridis``, ``tab20``, ``Pastel1``...);
    :class:`~polyregions.errors.InvalidInputError` naming a few when there is none."""
    from matplotlib import colormaps

    try:
        return colormaps[name]
    except KeyError:
        known = ", ".join(n for n in ("viridis", "cividis", "tab20", "Pastel1", "Set3", "twilight") if n in colormaps)
        raise InvalidInputError(f"colour map: expected a matplotlib colour map such as {known}, got {name!r}") \
            from None


def cmap_colors(n: int, name: str) -> list[tuple[float, float, float]]:
    """``n`` colours from the colour map ``name``: a qualitative map's own colours in turn, or points of a
    continuous map spread by the golden ratio (neighbouring indices far apart), on the ``k / 255`` grid.

    Examples
    --------
    >>> [to_hex(c) for c in cmap_colors(3, "tab10")]
    ['#1f77b4', '#ff7f0e', '#2ca02c']
    """
    cmap = colormap(name)
    listed = getattr(cmap, "colors", None)
    if listed is not None and len(listed) <= 32:
        return [_grid(listed[i % len(listed)]) for i in range(n)]
    return [_grid(cmap(((i + 0.5) * _GOLDEN) % 1.0)) for i in range(n)]


def _pattern_units(patterns: Any) -> list[tuple[float, float, float]]:
    """Three numbers in ``[0, 1)`` per pattern, from a BLAKE2b hash of its pieces as 64-bit integers: the same
    pattern gives the same numbers on every machine, whatever array type it came in."""
    import numpy as np

    rows = np.asarray(patterns, dtype=np.int64)
    if rows.ndim == 1:
        rows = rows.reshape(1, -1) if rows.size else rows.reshape(0, 0)
    out = []
    for row in rows:
        digest = hashlib.blake2b(row.tobytes(), digest_size=6).digest()
        out.append((int.from_bytes(digest[:2], "big") / 65536, int.from_bytes(digest[2:4], "big") / 65536,
                    int.from_bytes(digest[4:], "big") / 65536))
    return out


def pattern_colors(patterns: Any, *, cmap: str | None = None) -> list[tuple[float, float, float]]:
    """One colour per activation pattern (rows of ``patterns``), decided by the pattern alone.

    A region keeps its colour wherever its pattern appears: in two checkpoints of one network, in a complex
    and its refinement's regions, in two engines' output. By default the colours are muted (lightness 0.68 to
    0.84, saturation 0.35 to 0.6), so that thousands of regions do not make a busy picture; with ``cmap`` they
    are points of that matplotlib colour map. Two patterns may get similar colours: stability is bought with
    distinctness (use the default index colouring where every region must differ).

    Examples
    --------
    >>> pattern_colors([(1, 0, 1)]) == pattern_colors([[1, 0, 1]]) != pattern_colors([(0, 1, 1)])
    True
    >>> to_hex(pattern_colors([(1, 0, 1)])[0])
    '#c6bee6'
    """
    units = _pattern_units(patterns)
    if cmap is not None:
        chosen = colormap(cmap)
        return [_grid(chosen(u)) for u, _, _ in units]
    return [_grid(colorsys.hls_to_rgb(u, 0.68 + 0.16 * v, 0.35 + 0.25 * w)) for u, v, w in units]
