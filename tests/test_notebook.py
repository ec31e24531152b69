"""Notebook display as Jupyter performs it: short reprs, and HTML that carries the picture (its speed is
``python -m benchmarks notebook``'s).

Jupyter asks an object for every format it offers (IPython's DisplayFormatter) and shows the HTML; the tests do
the same, through IPython's formatter when it is installed and through the methods themselves otherwise. A
notebook is executed end to end with nbclient where nbclient and a kernel are installed.
"""

import base64
import json
import re

import pytest

import polyregions as pr
from polyregions.arrangements import braid, parse_name

pytest.importorskip("matplotlib")

PNG = b"\x89PNG\r\n\x1a\n"
IMAGE = re.compile(r'<img src="data:image/png;base64,([A-Za-z0-9+/=]+)"')


@pytest.fixture(scope="module")
def large():
    """About 3,000 regions on [-1, 1]^2 (a He-normal [2, 40, 40] network: 3,305 regions)."""
    complex_ = pr.enumerate_regions(pr.he_normal([2, 40, 40], seed=0, output_dim=1), pr.box([-1, -1], [1, 1]))
    assert len(complex_) >= 3000
    return complex_


def _bundle(obj) -> dict:
    """The formats Jupyter would receive for ``obj`` (IPython's own formatter when installed)."""
    try:
        from IPython.core.formatters import DisplayFormatter
    except ImportError:
        return {"text/plain": repr(obj), "text/html": obj._repr_html_(), "image/png": obj._repr_png_()}
    data, _ = DisplayFormatter().format(obj)
    return data


def _image_in(html: str) -> bytes:
    match = IMAGE.search(html)
    assert match, "the HTML carries no picture"
    picture = base64.b64decode(match.group(1))
    assert picture.startswith(PNG)
    return picture


def test_a_3000_region_complex_displays_with_its_picture(large):
    data = _bundle(large)
    picture = _image_in(data["text/html"])
    assert len(picture) < 400_000  # capped: a small picture, whatever the number of regions
    assert data.get("image/png", picture) == picture  # the PNG is the same picture, computed once
    assert "3,305 activation regions" in data["text/plain"]


def test_a_region_and_an_arrangement_display_with_a_picture(large):
    for obj in (large.regions[len(large) // 2], braid(3), parse_name("shi:3")):
        _image_in(_bundle(obj)["text/html"])


def test_reprs_are_short(large):
    net = pr.he_normal([2, 16, 16], seed=0, output_dim=1)
    complex_ = pr.enumerate_regions(net, pr.box([-1, -1], [1, 1]))
    assert len(repr(complex_)) < 500 and len(repr(large)) < 500
    assert repr(complex_) == ("<RegionComplex: 450 activation regions, 450 linear regions, 32 neurons on a box "
                              "[-1, 1]^2; engine mesh, exact>")
    assert repr(net) == "Network(input_dim=2, widths=(16, 16, 1), activations=(relu, relu, linear), 32 neurons)"
    assert len(repr(large.regions[0])) < 200
    assert repr(net.layers[0]) == "Layer(16x2, relu)"


def test_no_picture_above_the_cap(monkeypatch, large):
    from polyregions._support import display as _display

    monkeypatch.setattr(_display, "MAX_DRAWN_REGIONS", 1000)
    html = pr.enumerate_regions(pr.he_normal([2, 40, 40], seed=0, output_dim=1), pr.box([-1, -1], [1, 1])) \
        ._repr_html_()
    assert "<img" not in html and "<td>3305</td>" in html


def test_float_polygons_cover_the_domain(large):
    # Drawn from the regions' own rows in floating point: the areas add up to the square's, to rounding.
    from polyregions.plotting._quick import float_polygons

    polygons = float_polygons(large, ((-1, -1), (1, 1)))

    def area(p):
        return abs(sum(p[i][0] * p[i - 1][1] - p[i - 1][0] * p[i][1] for i in range(len(p)))) / 2

    assert all(len(p) >= 3 for p in polygons)
    assert sum(map(area, polygons)) == pytest.approx(4.0, rel=1e-9)


NOTEBOOK_CELLS = [
    "import polyregions as pr",
    "net = pr.he_normal([2, 16, 16], seed=0, output_dim=1)\nnet",
    "complex_ = pr.enumerate_regions(net, pr.box([-1, -1], [1, 1]))\ncomplex_",
    "complex_.regions[0]",
    "pr.arrangements.braid(3)",
]


def test_a_notebook_runs_and_shows_pictures(tmp_path):
    """Executed with nbclient and a Python kernel where they are installed: every displayed object's HTML
    output carries a picture."""
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(c) for c in NOTEBOOK_CELLS])
    nbclient.NotebookClient(notebook, timeout=120, kernel_name="python3").execute()
    outputs = [cell.outputs for cell in notebook.cells]
    html = [o["data"]["text/html"] for cell in outputs[2:] for o in cell if "text/html" in o.get("data", {})]
    assert len(html) == 3 and all(IMAGE.search(h) for h in html)
    assert "32 neurons" in outputs[1][0]["data"]["text/plain"]
    json.dumps(notebook)  # a notebook file can hold it
