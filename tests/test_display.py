"""Notebook display: HTML summaries and PNG pictures of complexes, regions and arrangements."""

import dataclasses
import subprocess
import sys

import pytest

from polyregions.arrangements import Arrangement, braid
from polyregions.networks.constructions import sawtooth
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions.enumeration import enumerate_regions

PNG = b"\x89PNG\r\n\x1a\n"
NET_2D = Network.from_layers(2, [([[1, 1], [1, -1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])


def _row(label, value):
    return f"<tr><th>{label}</th><td>{value}</td></tr>"


def test_complex_html_holds_the_known_counts():
    html = enumerate_regions(sawtooth(3), dom.box([0], [1]))._repr_html_()
    for label, value in [("domain", "box [0, 1]"), ("activation regions", 8), ("linear regions", 8),
                         ("adjacent pairs", 7), ("neurons", 6), ("exact", "yes"), ("engine", "mesh")]:
        assert _row(label, value) in html
    assert html.startswith("<table>") and html.endswith("</table>")


def test_every_value_is_escaped():
    complex_ = dataclasses.replace(enumerate_regions(sawtooth(1), dom.box([0], [1])), engine="<b>&")
    html = complex_._repr_html_()
    assert _row("engine", "&lt;b&gt;&amp;") in html and "<b>" not in html


def test_region_html_holds_pattern_inequalities_point_and_boundedness():
    region = enumerate_regions(sawtooth(2), dom.box([0], [1])).regions[0]
    html = region._repr_html_()
    for label, value in [("pattern", "(1, 0, 1, 0)"), ("inequalities", 2), ("interior point", "(1/8)"),
                         ("bounded", "yes")]:
        assert _row(label, value) in html
    # On all of the plane the quadrant x1 > 0, x2 > 0 of two crossing neurons is unbounded.
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])
    quadrants = enumerate_regions(net, dom.space(2))
    assert len(quadrants) == 4
    assert all(_row("bounded", "no") in r._repr_html_() for r in quadrants.regions)


def test_arrangement_html_holds_the_known_counts_and_chi():
    arrangement = braid(3)
    # chi(t) = t (t - 1) (t - 2) = t^3 - 3 t^2 + 2 t
    assert arrangement.characteristic_polynomial() == (1, -3, 2, 0)
    html = arrangement._repr_html_()
    for label, value in [("dimension", 3), ("rank", 2), ("hyperplanes", 3), ("regions", 6), ("bounded regions", 0),
                         ("characteristic polynomial", "t^3 - 3*t^2 + 2*t")]:
        assert _row(label, value) in html
    assert "domain" not in html
    # Three lines in general position: 7 regions, one bounded triangle; chi(t) = t^2 - 3t + 3.
    lines = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]])
    html = lines._repr_html_()
    assert _row("regions", 7) in html and _row("bounded regions", 1) in html
    assert _row("characteristic polynomial", "t^2 - 3*t + 3") in html
    square = dom.box([-1, -1], [1, 1]).region
    # In the square: four quadrants, the upper right one cut by x + y = 1; every cell is bounded.
    html = lines.within(square)._repr_html_()
    assert _row("regions", 5) in html and _row("bounded regions", 5) in html and "<th>domain</th>" in html


def test_pngs_of_drawable_objects():
    pytest.importorskip("matplotlib")
    complex_ = enumerate_regions(NET_2D, dom.box([-1, -1], [1, 1]))
    pictures = [complex_._repr_png_(), complex_.regions[0]._repr_png_(), braid(3)._repr_png_(),
                Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]])._repr_png_()]
    for picture in pictures:
        assert isinstance(picture, bytes) and picture.startswith(PNG)
    # An unbounded region is drawn around its interior point and vertices.
    unbounded = enumerate_regions(NET_2D, dom.space(2)).regions[0]
    assert unbounded._repr_png_().startswith(PNG)


def test_objects_that_cannot_be_drawn_give_none():
    one_d = enumerate_regions(sawtooth(3), dom.box([0], [1]))
    assert one_d._repr_png_() is None
    assert one_d.regions[0]._repr_png_() is None
    net = Network.from_layers(3, [([[1, 0, 0]], [0], "relu")])
    assert enumerate_regions(net, dom.box([0, 0, 0], [1, 1, 1]))._repr_png_() is None
    assert braid(4)._repr_png_() is None  # rank 3


def test_no_picture_without_matplotlib(monkeypatch):
    for name in ("matplotlib", "matplotlib.figure", "matplotlib.backends.backend_agg"):
        monkeypatch.setitem(sys.modules, name, None)  # makes importing it raise ImportError
    assert enumerate_regions(NET_2D, dom.box([-1, -1], [1, 1]))._repr_png_() is None
    assert braid(3)._repr_png_() is None
    # The HTML needs nothing optional.
    assert _row("regions", 6) in braid(3)._repr_html_()


def test_importing_the_modules_loads_nothing_for_display():
    code = ("import sys, polyregions, polyregions.regions.complex, polyregions.arrangements.arrangement; "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'matplotlib' "
            "or m in ('polyregions._support.display', 'polyregions.plotting')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_repr_is_unchanged():
    assert repr(enumerate_regions(sawtooth(1), dom.box([0], [1])).regions[0]) == "Region(pattern=(1, 0))"
    assert repr(braid(3)) == "<Arrangement of 3 hyperplanes in R^3>"
