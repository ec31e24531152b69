"""Figures for a lecture and a paper: the options of ``polyregions plot``, stable colours, legends, labels."""

import json
import re
from fractions import Fraction

import numpy as np
import pytest

from polyregions.arrangements import parse_name
from polyregions.cli import main
from polyregions.networks.initializers import he_normal
from polyregions.networks.io import save_network
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network
from polyregions.regions.domains import box
from polyregions.regions.enumeration import enumerate_regions

SQUARE = box([-1, -1], [1, 1])


@pytest.fixture
def mpl():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def _checkpoints():
    """Two checkpoints of one network that differ in the last layer only (a step of training the readout)."""
    first = he_normal([2, 6, 6], seed=3, output_dim=2, bias_std=0.3)
    last = first.layers[-1]
    moved = Layer([[w + Fraction(1, 3) for w in row] for row in last.weight], [b - 1 for b in last.bias],
                  last.activation)
    return first, Network(first.input_dim, first.layers[:-1] + (moved,))


def _png_colors(path):
    from matplotlib.image import imread

    image = np.round(imread(str(path))[:, :, :3] * 255).astype(np.int64)
    return {tuple(c) for c in image.reshape(-1, 3).tolist()}


def _rgb(color):
    return tuple(int(round(255 * c)) for c in color)


def _plot(tmp_path, capsys, *argv) -> dict:
    assert main(["plot", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_pattern_colours_are_equal_across_two_checkpoints(mpl, tmp_path, capsys):
    from polyregions.plotting.regions import region_colors

    one, two = _checkpoints()
    a, b = enumerate_regions(one, SQUARE), enumerate_regions(two, SQUARE)
    colours_a = dict(zip(map(tuple, a._pattern_matrix.tolist()), region_colors(a, colors="pattern")))
    colours_b = dict(zip(map(tuple, b._pattern_matrix.tolist()), region_colors(b, colors="pattern")))
    shared = set(colours_a) & set(colours_b)
    assert shared and all(colours_a[p] == colours_b[p] for p in shared)
    # The index colouring does not promise that: a region's colour follows its place in the list.
    # Through the command line: the two pictures hold the same region colours.
    for name, net in (("one", one), ("two", two)):
        save_network(net, tmp_path / f"{name}.json")
        _plot(tmp_path, capsys, "regions", str(tmp_path / f"{name}.json"), "--box=-1,1", "--colors", "pattern",
              "--no-edges", "-o", str(tmp_path / f"{name}.png"))
    from polyregions.plotting import region_polygons

    visible = {p for p, polygon in zip(map(tuple, a._pattern_matrix.tolist()), region_polygons(a))
               if polygon.area() > Fraction(1, 20)}  # regions large enough to hold pixels of their own colour
    wanted = {_rgb(colours_a[p]) for p in shared & visible}
    assert wanted
    assert wanted <= _png_colors(tmp_path / "one.png") and wanted <= _png_colors(tmp_path / "two.png")


def test_figsize_and_font_size(mpl, tmp_path, capsys):
    from matplotlib.image import imread

    save_network(he_normal([2, 5], seed=0, output_dim=1, bias_std=0.3), tmp_path / "net.json")
    for size in ("2,2", "6,3"):
        path = tmp_path / f"size{size.replace(',', 'x')}.png"
        _plot(tmp_path, capsys, "regions", str(tmp_path / "net.json"), "--box=-1,1", "--figsize", size,
              "--dpi", "100", "-o", str(path))
        height, width = imread(str(path)).shape[:2]
        w, h = (100 * float(v) for v in size.split(","))
        assert (width, height) == (w, h)  # the size asked for is the size written
    svg = tmp_path / "fonts.svg"
    _plot(tmp_path, capsys, "regions", str(tmp_path / "net.json"), "--box=-1,1", "--font-size", "7", "-o", str(svg))
    text = svg.read_text()
    assert "<text" in text  # text stays text in a vector figure (publication default)
    assert re.search(r"font[^;\"]*:\s*(?:\w+\s+)*7px", text) or "font-size: 7px" in text or "7px" in text
    with pytest.raises(SystemExit):
        main(["plot", "regions", str(tmp_path / "net.json"), "--box=-1,1", "--figsize", "0,3", "-o", str(svg)])
    assert "--figsize" in capsys.readouterr().err


def test_any_matplotlib_colour_map(mpl, tmp_path, capsys):
    from polyregions.plotting.colors import cmap_colors

    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])
    save_network(net, tmp_path / "net.json")
    path = tmp_path / "viridis.png"
    _plot(tmp_path, capsys, "regions", str(tmp_path / "net.json"), "--box=-1,1", "--cmap", "viridis", "--no-edges",
          "-o", str(path))
    assert {_rgb(c) for c in cmap_colors(4, "viridis")} <= _png_colors(path)
    path = tmp_path / "arrangement.png"
    _plot(tmp_path, capsys, "arrangement", "--name", "shi:3", "--cmap", "tab20", "-o", str(path))
    assert path.stat().st_size > 1000
    with pytest.raises(SystemExit):
        main(["plot", "regions", str(tmp_path / "net.json"), "--box=-1,1", "--cmap", "no-such-map", "-o", str(path)])
    assert "viridis" in capsys.readouterr().err


def test_class_colouring_has_a_legend(mpl):
    from polyregions.plotting import plot_regions

    one, _ = _checkpoints()
    ax = plot_regions(enumerate_regions(one, SQUARE), color_by="class")
    legend = ax.get_legend()
    assert legend is not None and [t.get_text() for t in legend.get_texts()] == ["class 0", "class 1"]
    assert plot_regions(enumerate_regions(one, SQUARE), color_by="class", legend=False).get_legend() is None


def test_sign_vector_labels_never_overlap(mpl, tmp_path, capsys):
    from polyregions.plotting import plot_arrangement

    for name in ("catalan:3", "shi:3", "braid:3"):
        ax = plot_arrangement(parse_name(name))
        renderer = ax.figure.canvas.get_renderer()
        boxes = [t.get_window_extent(renderer) for t in ax.texts]
        assert boxes
        for i in range(len(boxes)):
            for j in range(i):
                assert not boxes[i].overlaps(boxes[j]), (name, ax.texts[i].get_text(), ax.texts[j].get_text())
        mpl.close(ax.figure)
    # braid:3 has room for all six sign vectors.
    ax = plot_arrangement(parse_name("braid:3"))
    assert sum(1 for t in ax.texts if not t.get_text().startswith("H")) == 6


def test_publication_defaults_keep_text_editable(mpl, tmp_path, capsys):
    path = tmp_path / "shi.pdf"
    _plot(tmp_path, capsys, "arrangement", "--name", "shi:3", "--figsize", "3.5,3.5", "--font-size", "8",
          "-o", str(path))
    data = path.read_bytes()
    assert data.startswith(b"%PDF") and b"/FontFile2" in data  # TrueType embedded (Type 42), not Type 3 outlines


def test_a_rank_3_arrangement_names_its_rank(mpl, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main(["plot", "arrangement", "--name", "braid:4", "-o", str(tmp_path / "x.png")])
    err = capsys.readouterr().err
    assert "expected an arrangement of rank 2" in err and "got rank 3" in err
    _plot(tmp_path, capsys, "arrangement", "--name", "shi:3", "-o", str(tmp_path / "shi.png"))  # dimension 3, rank 2


def test_long_witness_coordinates_are_rounded_in_text():
    from polyregions.cli.topology import _point_text

    long = Fraction(10 ** 60 + 7, 3 * 10 ** 59)
    assert _point_text((Fraction(3, 4), long)) == "(3/4, ~3.33333333333)"
