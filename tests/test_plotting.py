"""Plots: the exact geometry behind them (always) and rendered pictures (when matplotlib is installed)."""

import json
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.arrangements import Arrangement, braid, shi
from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import dot
from polyregions.networks.constructions import sawtooth
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.plotting import (
    adjacency_drawing,
    arrangement_polygons,
    arrangement_window,
    class_polygons,
    clip,
    distinct_colors,
    graph_1d,
    hasse_layout,
    hyperplane_segments,
    layer_complexes,
    polygon_from_inequalities,
    region_intervals,
    region_polygons,
    shared_facet,
    truncations,
    window_polygon,
)
from polyregions.plotting.arrangements import planar
from polyregions.plotting.colors import PALE, class_colors, lighten
from polyregions.polyhedra.polytope import Polytope
from polyregions.regions.domains import box, polytope_domain, segment, space
from polyregions.regions.enumeration import enumerate_regions

SQUARE = box([-1, -1], [1, 1])
# x = 0, y = 0 and x + y = 1/2: seven regions in the square, the output separates them by sign.
NET = Network.from_layers(2, [([[1, 0], [0, 1], [1, 1]], [0, 0, "-1/2"], "relu"), ([[1, -1, 2]], [0], "linear")])


# --- exact polygons --------------------------------------------------------------------------------------

small = st.fractions(min_value=-4, max_value=4, max_denominator=6)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(small, small, small).filter(lambda r: r[0] or r[1]), min_size=1, max_size=5))
def test_clipped_polygon_is_the_polytope_of_the_inequalities(rows):
    # Independent check: exact double description of the same system (window rows included).
    A = [(a, b) for a, b, _ in rows]
    rhs = [c for _, _, c in rows]
    polygon = polygon_from_inequalities(A, rhs, window=window_polygon((-3, -3), (3, 3)))
    window_rows = [(-1, 0), (1, 0), (0, -1), (0, 1)]
    P = Polytope(tuple(tuple(Fraction(v) for v in r) for r in A + window_rows),
                 tuple(Fraction(v) for v in rhs + [3] * 4), 2)
    if P.is_empty():
        assert polygon.is_empty
        return
    assert set(polygon.vertices) == set(P.vertices())
    if P.affine_dimension() == 2:
        assert polygon.area() == P.volume()
        assert P.contains_strictly(polygon.centroid())
    # counter-clockwise: every consecutive triple turns left
    v = polygon.vertices
    for i in range(len(v) if len(v) > 2 else 0):
        (x0, y0), (x1, y1), (x2, y2) = v[i], v[(i + 1) % len(v)], v[(i + 2) % len(v)]
        assert (x1 - x0) * (y2 - y0) - (y1 - y0) * (x2 - x0) > 0


def test_clip_labels_and_degenerate_results():
    square = window_polygon((0, 0), (1, 1))
    half = clip(square, (1, 0), Fraction(1, 2), label="cut")
    assert half.area() == Fraction(1, 2) and half.edges.count("cut") == 1
    assert clip(square, (1, 0), 0).vertices == ((0, 0), (0, 1))  # touches along a side: a segment
    assert clip(square, (1, 1), 0).vertices == ((0, 0),)  # touches at a corner: a point
    assert clip(square, (1, 1), -1).is_empty
    assert clip(square, (0, 0), 1) is square and clip(square, (0, 0), -1).is_empty
    with pytest.raises(InvalidInputError, match="upper\\[0\\]"):
        window_polygon((0, 0), (0, 1))


def _complexes():
    return [enumerate_regions(NET, SQUARE),
            enumerate_regions(he_normal([2, 5, 5], seed=3, output_dim=3), SQUARE),
            enumerate_regions(he_normal([2, 4, 4], seed=1, output_dim=1), box([0, -1], [2, 1]), engine="lp")]


def test_region_polygons_tile_the_domain_and_hold_their_patterns():
    for complex_ in _complexes():
        polygons = region_polygons(complex_)
        assert sum(p.area() for p in polygons) == complex_.domain.volume()
        for region, polygon in zip(complex_.regions, polygons):
            assert not polygon.is_degenerate
            centre = polygon.centroid()
            assert region.contains_strictly(centre)
            assert complex_.network.pattern(complex_.domain.to_input(centre)) == region.pattern


def test_region_polygons_of_polytope_slice_and_unbounded_domains():
    triangle = polytope_domain([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])
    assert sum(p.area() for p in region_polygons(enumerate_regions(NET, triangle))) == Fraction(1, 2)
    net3 = Network.from_layers(3, [([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0], "relu")])
    from polyregions.regions.domains import slice_domain
    plane = slice_domain([0, 0, 0], [[1, 0, 0], [0, 1, 1]], [-1, -1], [1, 1])
    assert [p.area() for p in region_polygons(enumerate_regions(net3, plane))] == [1, 1, 1, 1]
    whole = enumerate_regions(NET, space(2))
    polygons = region_polygons(whole, window=((-3, -3), (3, 3)))
    assert sum(p.area() for p in polygons) == 36 and len(whole) == 7
    with pytest.raises(InvalidInputError, match="2-D domain"):
        region_polygons(enumerate_regions(sawtooth(2), box([0], [1])))


def test_class_polygons_split_regions_by_the_exact_argmax():
    for complex_ in _complexes():
        polygons = region_polygons(complex_)
        pieces = class_polygons(complex_, polygons=polygons)
        area = {}
        for i, k, piece in pieces:
            area[i] = area.get(i, 0) + piece.area()
            output = complex_.network(complex_.domain.to_input(piece.centroid()))
            if len(output) == 1:
                # class 0 also where the output vanishes on the whole region (a tie, won by the lower class)
                assert output[0] > 0 if k == 1 else (output[0] < 0 or not any(complex_.regions[i].output_map[0][0]))
            else:
                assert output[k] == max(output) and all(output[j] < output[k] for j in range(k))
        assert area == {i: p.area() for i, p in enumerate(polygons)}


def test_single_output_class_boundary_is_where_the_output_vanishes():
    pieces = class_polygons(enumerate_regions(NET, SQUARE))
    for _, _, piece in pieces:
        for p, q in piece.edge_segments(lambda label: label[0] == "class"):
            assert NET(p) == (0,) and NET(q) == (0,)


# --- layers, 1-D graphs --------------------------------------------------------------------------------------

def test_truncations_refine_each_other():
    net = he_normal([2, 6, 5, 4], seed=2, output_dim=2)
    assert [t.widths for t in truncations(net)] == [(6,), (6, 5), (6, 5, 4)]
    complexes = layer_complexes(net, SQUARE)
    counts = [len(c) for c in complexes]
    assert counts == sorted(counts) and counts[-1] == len(enumerate_regions(net, SQUARE))
    for coarse, fine in zip(complexes, complexes[1:]):
        prefixes = {r.pattern for r in coarse.regions}
        assert {r.pattern[:len(coarse.regions[0].pattern)] for r in fine.regions} == prefixes
    with pytest.raises(InvalidInputError, match="non-linear"):
        truncations(Network.from_layers(1, [([[1]], [0], "linear")]))


@pytest.mark.parametrize("n", [1, 2, 4])
def test_sawtooth_graph_is_known_exactly(n):
    graph = graph_1d(enumerate_regions(sawtooth(n), box([0], [1])))
    assert graph.knots == tuple(Fraction(k, 2 ** n) for k in range(2 ** n + 1))
    assert graph.values == tuple(Fraction(k % 2) for k in range(2 ** n + 1))
    assert graph.pieces == 2 ** n and graph.breakpoints == graph.knots[1:-1]


def test_graph_values_are_the_network_on_a_segment():
    net = he_normal([3, 6, 6], seed=4, output_dim=2)
    domain = segment([-1, 0, 1], [1, 1, -1])
    complex_ = enumerate_regions(net, domain)
    for output in (0, 1):
        graph = graph_1d(complex_, output=output)
        assert graph.knots[0] == 0 and graph.knots[-1] == 1 and list(graph.knots) == sorted(set(graph.knots))
        for t, value in zip(graph.knots, graph.values):
            assert net(domain.to_input([t]))[output] == value
        assert len(graph.breakpoints) + len(graph.pattern_changes) == len(complex_) - 1
    intervals = region_intervals(complex_)
    assert sum(hi - lo for lo, hi in intervals) == 1
    with pytest.raises(InvalidInputError, match="output index"):
        graph_1d(complex_, output=2)


# --- arrangements ------------------------------------------------------------------------------------------

ARRANGEMENTS = [Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1], [1, -1, "1/2"]]), planar(shi(3))[0],
                Arrangement([[1, 0, 0], [1, 0, 1], [0, 1, 0]])]


@pytest.mark.parametrize("arrangement", ARRANGEMENTS)
def test_arrangement_polygons_meet_the_default_window_and_bounded_ones_are_whole(arrangement):
    polygons = arrangement_polygons(arrangement)
    regions = arrangement.regions()
    lower, upper = arrangement_window(arrangement)
    assert sum(p.area() for p in polygons) == (upper[0] - lower[0]) * (upper[1] - lower[1])
    for region, polygon in zip(regions, polygons):
        assert not polygon.is_degenerate  # essential: every region's closure has a vertex, inside the window
        assert region.contains(polygon.centroid())
        if region.bounded:
            assert polygon.area() == region.polytope.volume()
    for i, segment_ in hyperplane_segments(arrangement):
        a0, a1, c = arrangement.hyperplanes[i]
        assert all(a0 * x + a1 * y == c for x, y in segment_.vertices)


def test_planar_essentializes_rank_two_arrangements():
    essential, changed = planar(braid(3))
    assert changed and essential.dim == 2 and essential.num_regions() == 6
    with pytest.raises(InvalidInputError, match="plane"):
        planar(braid(4))


def test_hasse_layout_rows_are_ranks():
    poset = braid(4).poset
    layout = hasse_layout(poset)
    assert set(layout) == {f.index for f in poset.flats}
    for flat in poset.flats:
        assert layout[flat.index][1] == flat.rank
    for rank in range(poset.rank + 1):
        xs = [layout[f.index][0] for f in poset.flats_of_rank(rank)]
        assert len(set(xs)) == len(xs) and abs(sum(xs)) < 1e-12


@pytest.mark.parametrize("source", [ARRANGEMENTS[0], ARRANGEMENTS[1], "complex"])
def test_adjacency_paths_cross_the_shared_facet(source):
    if source == "complex":
        source = enumerate_regions(he_normal([2, 5, 5], seed=3, output_dim=1), SQUARE)
        inequalities = [(r.A, r.b) for r in source.regions]
        graph = source.graph
    else:
        inequalities = [(r.A, r.b) for r in source.regions()]
        graph = source.adjacency_graph()
    nodes, edges = adjacency_drawing(source)
    assert len(nodes) == graph.number_of_nodes() and set(edges) == {tuple(sorted(e)) for e in graph.edges()}
    for (i, j), path in edges.items():
        assert len(path) == 3
        middle = path[1]
        for A, b in (inequalities[i], inequalities[j]):
            assert all(dot(row, middle) <= bi for row, bi in zip(A, b))


def test_shared_facet_of_non_adjacent_regions_is_small():
    regions = ARRANGEMENTS[0].regions()
    polygons = arrangement_polygons(ARRANGEMENTS[0])
    graph = ARRANGEMENTS[0].adjacency_graph()
    for i in range(len(regions)):
        for j in range(len(regions)):
            if i != j and not graph.has_edge(i, j):
                assert len(shared_facet(polygons[i], regions[j].A, regions[j].b)) <= 1  # a vertex at most


def test_colors_are_distinct_on_the_8_bit_grid():
    for colors in (distinct_colors(3000), distinct_colors(500, lightness=PALE), class_colors(15)):
        assert len(set(colors)) == len(colors)
        assert all(float(round(255 * c)) == 255 * c for rgb in colors for c in rgb)
    assert lighten((0, 0, 0), 1) == (1, 1, 1)


# --- rendered pictures -------------------------------------------------------------------------------------

@pytest.fixture
def mpl():
    matplotlib = pytest.importorskip("matplotlib")
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    yield plt
    plt.close("all")


def _pixels(figure, tmp_path, name="figure.png"):
    from matplotlib.image import imread

    path = tmp_path / name
    figure.savefig(path, dpi=100)
    image = imread(str(path))[:, :, :3]
    return np.round(image * 255).astype(np.int64)


def _colors(image):
    return {tuple(c) for c in image.reshape(-1, 3).tolist()}


def _rgb(color):
    return tuple(int(round(255 * c)) for c in color)


def test_regions_by_pattern_show_every_region_colour(mpl, tmp_path):
    from polyregions.plotting import plot_regions

    complex_ = enumerate_regions(NET, SQUARE)
    ax = plot_regions(complex_)
    colors = _colors(_pixels(ax.figure, tmp_path))
    palette = [_rgb(c) for c in distinct_colors(len(complex_))]
    assert len(colors) >= len(complex_) and set(palette) <= colors
    assert ax.get_title() == "7 activation regions, 7 linear regions"


def test_regions_by_linear_map_and_by_class(mpl, tmp_path):
    from polyregions.plotting import plot_regions

    # Output x1 + x2 + relu(x1 - x2): two linear regions; the class picture has both classes.
    net = Network.from_layers(2, [([[1, 0], [0, 1], [1, -1]], [2, 2, 0], "relu"), ([[1, 1, 1]], [-4], "linear")])
    complex_ = enumerate_regions(net, SQUARE)
    assert len(complex_.linear_regions) == 2
    linear = _colors(_pixels(plot_regions(complex_, color_by="linear").figure, tmp_path, "linear.png"))
    assert {_rgb(c) for c in distinct_colors(2)} <= linear
    assert not {_rgb(c) for c in distinct_colors(3)[2:]} & linear
    classes = _colors(_pixels(plot_regions(complex_, color_by="class").figure, tmp_path, "class.png"))
    assert {_rgb(lighten(c, 0.45)) for c in class_colors(2)} <= classes
    with pytest.raises(InvalidInputError, match="color_by"):
        plot_regions(complex_, color_by="rainbow")


def test_layers_panels(mpl, tmp_path):
    from polyregions.plotting import plot_layers

    net = he_normal([2, 3, 3], seed=0, output_dim=1)
    figure = plot_layers(net, SQUARE)
    assert len(figure.axes) == 2
    counts = [len(c) for c in layer_complexes(net, SQUARE)]
    assert [ax.get_title() for ax in figure.axes] == [f"after layer {l + 1}: {n} regions" for l, n in enumerate(counts)]
    assert len(_colors(_pixels(figure, tmp_path))) >= counts[-1]


def test_graph_plot_draws_the_exact_knots(mpl, tmp_path):
    from polyregions.plotting import plot_graph

    ax = plot_graph(sawtooth(3), box([0], [1]))
    assert list(ax.lines[0].get_xdata()) == [k / 8 for k in range(9)]
    assert list(ax.lines[0].get_ydata()) == [k % 2 for k in range(9)]
    assert ax.get_title() == "8 linear pieces, 8 activation regions"
    assert len(_colors(_pixels(ax.figure, tmp_path))) > 2
    with pytest.raises(InvalidInputError, match="1-D domain"):
        plot_graph(NET, SQUARE)


def test_arrangement_plot_colours_labels_and_lines(mpl, tmp_path):
    from polyregions.plotting import plot_arrangement

    arrangement = ARRANGEMENTS[0]
    ax = plot_arrangement(arrangement)
    regions = arrangement.regions()
    texts = [t.get_text() for t in ax.texts]
    assert texts[:len(arrangement)] == [f"H{i}" for i in range(len(arrangement))]  # the names, then the signs
    assert sorted(texts[len(arrangement):]) == sorted(r.sign_string.replace("-", "\u2212") for r in regions)
    colors = _colors(_pixels(ax.figure, tmp_path))
    from polyregions.plotting.colors import VIVID
    vivid = distinct_colors(len(regions), lightness=VIVID, saturation=(0.55, 0.4))
    assert {_rgb(vivid[i]) for i, r in enumerate(regions) if r.bounded} <= colors
    assert len(colors) >= len(regions)


def test_adjacency_and_poset_plots(mpl, tmp_path):
    from matplotlib.collections import LineCollection

    from polyregions.plotting import plot_adjacency, plot_poset

    arrangement = ARRANGEMENTS[0]
    ax = plot_adjacency(arrangement)
    lines = [c for c in ax.collections if isinstance(c, LineCollection)]
    assert len(lines[0].get_segments()) == arrangement.adjacency_graph().number_of_edges()
    assert len(_colors(_pixels(ax.figure, tmp_path, "adjacency.png"))) >= len(arrangement.regions())
    poset = braid(4).poset
    ax = plot_poset(braid(4))
    assert len(ax.texts) == len(poset)
    edges = [c for c in ax.collections if isinstance(c, LineCollection)][0]
    assert len(edges.get_segments()) == sum(len(b) for b in poset.below)
    assert "\u03c7(t) = t\u2074 \u2212 6t\u00b3 + 11t\u00b2 \u2212 6t" in ax.get_title()


def test_save_figure_formats_and_errors(mpl, tmp_path):
    from polyregions.plotting import plot_arrangement, save_figure

    for extension in ("png", "svg", "pdf"):
        path = tmp_path / f"a.{extension}"
        save_figure(plot_arrangement(ARRANGEMENTS[0]).figure, str(path))
        assert path.stat().st_size > 1000
    with pytest.raises(InvalidInputError, match="ending in"):
        save_figure(plot_arrangement(ARRANGEMENTS[0]).figure, str(tmp_path / "a.jpeg"))
    with pytest.raises(InvalidInputError, match="missing directory"):
        save_figure(plot_arrangement(ARRANGEMENTS[0]).figure, str(tmp_path / "no" / "a.png"))


def test_training_plots(mpl, tmp_path):
    from polyregions.experiments.datasets import moons, square_domain
    from polyregions.experiments.training import region_history, sample_segments
    from polyregions.plotting import plot_region_counts, plot_snapshots

    data = moons(64, seed=0)
    run = region_history(data, [4, 4], epochs=1, checkpoints=[0, 0.5, 1], domain=square_domain(),
                         segments=sample_segments(data.X, 2, seed=0), lr=0.01)
    ax = plot_region_counts([run], quantity="along_segments", per_neuron=True)
    assert list(ax.lines[0].get_ydata()) == run.series("along_segments", per_neuron=True)
    figure = plot_snapshots(run, square_domain(), epochs=[0, 1], data=data)
    assert len(figure.axes) == 4
    assert len(_colors(_pixels(figure, tmp_path))) >= run.records[0].activation_regions
    with pytest.raises(InvalidInputError, match="checkpoints"):
        plot_snapshots(run, square_domain(), epochs=[3])


# --- the command line ----------------------------------------------------------------------------------------

def _files(tmp_path):
    from polyregions.networks.io import save_network

    save_network(NET, tmp_path / "net.json")
    save_network(sawtooth(3), tmp_path / "saw.json")
    (tmp_path / "arr.json").write_text(json.dumps({"format": "polyregions.arrangement/1", "dimension": 2,
                                                   "hyperplanes": [[1, 0, 0], [0, 1, 0], [1, 1, 1]]}))
    (tmp_path / "seg.json").write_text(json.dumps({"type": "segment", "start": [-1, -1], "end": [1, 1]}))
    return tmp_path


@pytest.mark.parametrize("argv, expected", [
    (["regions", "net.json", "--box", "-1,1", "--color-by", "class"], {"activation_regions": 7}),
    (["regions", "net.json", "--box=-1,1", "--no-edges"], {"linear_regions": 7}),
    (["layers", "net.json", "--box", "-1,1"], {"regions_per_layer": [7]}),
    (["graph", "saw.json", "--box", "0,1"], {"breakpoints": 7}),
    (["graph", "net.json", "--domain", "seg.json"], {"activation_regions": 3}),
    (["adjacency", "net.json", "--box", "-1,1"], {"adjacencies": 9}),
    (["arrangement", "arr.json"], {"regions": 7, "bounded_regions": 1}),
    (["arrangement", "--name", "braid:3", "--adjacency"], {"regions": 6}),
    (["arrangement", "--name", "shi:3", "--window=-1,-1,2,2", "--no-labels"], {"regions": 16}),
    (["poset", "--name", "braid:4"], {"flats": 15}),
])
def test_plot_command_writes_pictures(mpl, tmp_path, capsys, monkeypatch, argv, expected):
    from polyregions.cli import main

    monkeypatch.chdir(_files(tmp_path))
    output = "out.svg" if len(argv) % 2 else "out.png"
    assert main(["plot", *argv, "-o", output, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["file"] == output and (tmp_path / output).stat().st_size > 1000
    assert {k: summary[k] for k in expected} == expected


@pytest.mark.parametrize("argv, message", [
    (["regions", "net.json", "--box", "-1,1", "-o", "out.jpg"], "ending in .png"),
    (["graph", "net.json", "--box", "-1,1", "-o", "out.png"], "expected a 1-D domain"),
    (["regions", "saw.json", "--box", "0,1", "-o", "out.png"], "expected a 2-D domain"),
    (["arrangement", "-o", "out.png"], "exactly one of FILE or --name"),
    (["arrangement", "--name", "braid:4", "-o", "out.png"], "expected an arrangement of rank 2"),
    (["arrangement", "arr.json", "--window", "0,0,1", "-o", "out.png"], "X0,Y0,X1,Y1"),
    (["regions", "missing.json", "--box", "-1,1", "-o", "out.png"], "missing.json"),
])
def test_plot_command_errors_are_one_line(mpl, tmp_path, capsys, monkeypatch, argv, message):
    from polyregions.cli import main

    monkeypatch.chdir(_files(tmp_path))
    with pytest.raises(SystemExit) as exit_:
        main(["plot", *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("polyregions: error:") and message in err and err.count("\n") == 1


def test_plot_command_without_matplotlib_says_what_to_install(tmp_path, capsys, monkeypatch):
    import sys

    from polyregions.cli import main

    monkeypatch.chdir(_files(tmp_path))
    monkeypatch.setitem(sys.modules, "matplotlib.pyplot", None)
    with pytest.raises(SystemExit):
        main(["plot", "arrangement", "arr.json", "-o", "out.png"])
    assert 'pip install "polyregions[plot]"' in capsys.readouterr().err
