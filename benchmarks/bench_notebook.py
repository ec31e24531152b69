"""Notebook display: the formats Jupyter asks for (IPython's formatter when installed), picture included, of a
3,305-region complex, one of its regions, the braid arrangement A_3 and the Shi arrangement of order 3:
``python -m benchmarks notebook``. The goal is half a second each, after matplotlib's first figure (which a
kernel pays once). Each run draws the picture again (an object keeps its picture once drawn). Needs matplotlib.
"""

from __future__ import annotations

from typing import Callable


def _bundle(obj) -> dict:
    try:
        from IPython.core.formatters import DisplayFormatter
    except ImportError:
        return {"text/plain": repr(obj), "text/html": obj._repr_html_(), "image/png": obj._repr_png_()}
    data, _ = DisplayFormatter().format(obj)
    return data


def _displayed(obj) -> int:
    from polyregions._support.display import _PICTURES

    obj.__dict__.pop(_PICTURES, None)
    return len(_bundle(obj)["text/html"])


def cases() -> list[tuple[str, Callable[[], object]]]:
    import polyregions as pr
    from polyregions.arrangements import braid, parse_name

    square = pr.box([-1, -1], [1, 1])
    _bundle(pr.enumerate_regions(pr.Network.from_layers(2, [([[1, 0]], [0], "relu")]), square))  # fonts loaded
    large = pr.enumerate_regions(pr.he_normal([2, 40, 40], seed=0, output_dim=1), square)
    shown = [("a complex of 3,305 regions", large), ("one region of it", large.regions[len(large) // 2]),
             ("the braid arrangement A_3", braid(3)), ("the Shi arrangement of order 3", parse_name("shi:3"))]
    return [(f"notebook display with its picture: {name}", lambda obj=obj: _displayed(obj)) for name, obj in shown]
