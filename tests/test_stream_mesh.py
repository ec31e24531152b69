"""A bounded 2-D domain streamed through the mesh engine (``engine="mesh"``, which ``"auto"`` picks there): the
store holds the complex the mesh engine gives in memory, on random, deep, integer-weight and degenerate networks,
whatever the shares; an interrupted run resumes to the same store (from either engine's shares); the exports
written from the store verify; what the streamed mesh does not take is refused by name."""

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.networks import activations as act
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions.domains import box, polytope_domain, slice_domain, space
from polyregions.regions.enumeration import enumerate_regions
from polyregions.regions.stream import stream_regions
from tests.command_line import exit_status
from tests.store_reading import (
    Stopped,
    assert_exports_are_the_complexs,
    assert_store_holds,
    network_file,
    read_store,
    stop_after,
)

SQUARE = box([-1, -1], [1, 1])


def _streams_to_its_complex(path, network, domain, **options):
    complex_ = enumerate_regions(network, domain, engine="mesh")
    assert stream_regions(network, domain, path, engine="mesh", **options) == complex_.summary()
    return assert_store_holds(path, complex_)


CASES = [
    ("He [2,6,6]", he_normal([2, 6, 6], seed=3), SQUARE),
    ("He [2,8,8,8]", he_normal([2, 8, 8, 8], seed=4), SQUARE),
    ("deep [2]+[4]*6", he_normal([2] + [4] * 6, seed=5), SQUARE),
    ("leaky relu", he_normal([2, 6, 6], seed=6, activation=act.leaky_relu(0.1)), SQUARE),
    ("hard tanh", he_normal([2, 6, 5], seed=7, activation="hardtanh", bias_std=0.3), SQUARE),
    ("an output layer", he_normal([2, 6, 6], seed=8, output_dim=2), box([-2, -1], [1, 3])),
    ("polygon", he_normal([2, 6, 6], seed=9), polytope_domain([[-1, 0], [0, -1], [1, 1]], [1, 1, 1])),
    ("slice of a 3-D input", he_normal([3, 6, 6], seed=10),
     slice_domain([0, 0, 0], [[1, 0, 0], [0, 1, 1]], [-1, -1], [1, 1])),
    ("polygon of rational rows", he_normal([2, 6, 6], seed=15),
     polytope_domain([[-1, 0], [0, -1], ["1/2", "1/3"]], [1, 1, "3/4"])),
]


@pytest.mark.parametrize("name, network, domain", CASES, ids=[case[0] for case in CASES])
@pytest.mark.parametrize("share_cells", [None, 1, 3])
def test_the_store_holds_the_complex_of_the_mesh_engine(tmp_path, name, network, domain, share_cells):
    stored = _streams_to_its_complex(tmp_path / "store.sqlite", network, domain, share_cells=share_cells)
    assert json.loads(stored["meta"]["summary"])["engine"] == "mesh"
    if share_cells == 1:
        assert len(stored["shares"]) == int(stored["meta"]["first_cells"]) > 1  # every cell a share of its own
        # on these generic networks every facet between shares is joined by its segment as the shares go
        assert not stored["facets"]


def test_auto_streams_a_bounded_2d_domain_through_the_mesh(tmp_path):
    network = he_normal([2, 5, 5], seed=11)
    summary = stream_regions(network, SQUARE, tmp_path / "store.sqlite", share_cells=2)
    assert summary == enumerate_regions(network, SQUARE, engine="mesh").summary()
    assert summary["engine"] == "mesh"
    lp = stream_regions(network, SQUARE, tmp_path / "lp.sqlite", engine="lp", share_cells=2)
    assert {**lp, "engine": "mesh"} == summary


def _integer_network(seed, widths, low, high, duplicated):
    """Small integer weights: ties, parallel lines, lines through vertices of earlier layers, dead units; with
    ``duplicated``, every layer's first unit twice."""
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, width in zip(widths, widths[1:]):
        weight, bias = rng.integers(low, high + 1, (width, fan_in)), rng.integers(low, high + 1, width)
        if duplicated and width > 1:
            weight[1], bias[1] = weight[0], bias[0]
        layers.append((weight.tolist(), bias.tolist(), act.relu()))
    return Network.from_layers(widths[0], layers)


SETTINGS = settings(max_examples=25, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@SETTINGS
@given(seed=st.integers(0, 10 ** 6), widths=st.lists(st.integers(1, 4), min_size=1, max_size=5),
       share_cells=st.integers(1, 3), weights=st.sampled_from([(-1, 1), (-2, 2)]), duplicated=st.booleans())
def test_integer_weight_and_degenerate_networks_stream_to_their_complex(tmp_path_factory, seed, widths, share_cells,
                                                                       weights, duplicated):
    network = _integer_network(seed, [2, *widths], *weights, duplicated)
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    _streams_to_its_complex(path, network, box([-2, -2], [2, 2]), share_cells=share_cells)


@SETTINGS
@given(seed=st.integers(0, 10 ** 6), widths=st.lists(st.integers(1, 6), min_size=1, max_size=4),
       share_cells=st.integers(1, 4), activation=st.sampled_from(["relu", "hardtanh", act.leaky_relu(0.25)]))
def test_random_networks_stream_to_their_complex(tmp_path_factory, seed, widths, share_cells, activation):
    network = he_normal([2, *widths], seed=seed, activation=activation, bias_std=0.5)
    path = tmp_path_factory.mktemp("store") / "store.sqlite"
    _streams_to_its_complex(path, network, box([-1, -2], [2, 1]), share_cells=share_cells)


def test_duplicated_units_and_lines_through_the_corners_and_one_point_stream_to_their_complex(tmp_path):
    # the first layer: x + y = 0 twice, x - y = 0 (both through two corners of the square) and y = 0, all through
    # the origin; the later layers' lines go through the vertices of the earlier ones
    network = Network.from_layers(2, [([[1, 1], [1, 1], [1, -1], [0, 1]], [0, 0, 0, 0], act.relu()),
                                      ([[1, -1, 1, 0], [0, 1, -1, 1], [1, 0, 0, -1]], [0, -1, 1], act.relu()),
                                      ([[1, 1, -1]], [0], act.relu())])
    for share_cells in (1, 2, None):
        _streams_to_its_complex(tmp_path / f"store{share_cells}.sqlite", network, SQUARE, share_cells=share_cells)


@pytest.mark.parametrize("started_by", ["mesh", "lp"])
def test_an_interrupted_run_resumes_to_the_same_store(tmp_path, started_by):
    network = he_normal([2, 8, 8, 8], seed=12)
    whole = tmp_path / "whole.sqlite"
    summary = stream_regions(network, SQUARE, whole, share_cells=3)
    path = tmp_path / "stopped.sqlite"
    with pytest.raises(Stopped):
        stream_regions(network, SQUARE, path, engine=started_by, share_cells=3, on_share=stop_after(2))
    stopped = read_store(path)
    assert len(stopped["shares"]) == 2 and "summary" not in stopped["meta"]
    assert stopped["facets"]  # the facets towards the shares not yet refined, left open for the end
    seen = []
    assert stream_regions(network, SQUARE, path, engine="mesh", share_cells=3,
                          on_share=lambda shares, regions: seen.append(shares)) == summary
    assert seen and seen[0] == 3  # the committed shares were not refined again
    resumed, complete = read_store(path), read_store(whole)
    assert sorted(resumed["patterns"].values()) == sorted(complete["patterns"].values())
    assert resumed["adjacency"] == complete["adjacency"]
    assert_store_holds(path, enumerate_regions(network, SQUARE, engine="mesh"))


@pytest.mark.parametrize("name, network, domain", [CASES[1], CASES[4], CASES[7], CASES[8]],
                         ids=["He", "hard tanh", "slice", "rational rows"])
def test_the_exports_of_a_streamed_mesh_are_those_of_the_complex_and_verify(tmp_path, name, network, domain):
    complex_ = enumerate_regions(network, domain, engine="mesh")
    store = tmp_path / "store.sqlite"
    stream_regions(network, domain, store, share_cells=2)
    assert_exports_are_the_complexs(tmp_path, complex_, store)


@pytest.mark.parametrize("network, domain, options, message", [
    (he_normal([3, 4, 4], seed=1), box([-1] * 3, [1] * 3), {}, "got a 3-D domain"),
    (he_normal([2, 4, 4], seed=1), space(2), {}, "got an unbounded"),
    (he_normal([2, 4, 4], seed=1), SQUARE, {"engine": "exact"}, "engine: expected one of auto, mesh, lp"),
    (he_normal([2, 4, 4], seed=1), SQUARE, {"scheduler": "tcp://127.0.0.1:9"}, "scheduler: the mesh engine"),
])
def test_what_the_streamed_mesh_does_not_take_is_refused_by_name(tmp_path, network, domain, options, message):
    path = tmp_path / "store.sqlite"
    options = {"engine": "mesh", **options}
    with pytest.raises(InvalidInputError, match=message):
        stream_regions(network, domain, path, **options)


def test_a_graph_network_is_refused_by_the_streamed_mesh(tmp_path):
    from polyregions.networks.graph import GraphNetwork

    graph = GraphNetwork.from_network(he_normal([2, 3, 3], seed=2))
    with pytest.raises(InvalidInputError, match="got a graph network"):
        stream_regions(graph, SQUARE, tmp_path / "store.sqlite", engine="mesh")


def test_the_command_streams_a_2d_box_through_the_mesh_with_the_in_memory_summary(tmp_path, capsys):
    net = network_file(tmp_path, [2, 8, 8], 13)
    assert main(["regions", net, "--box", "-1,1", "--json"]) == 0
    alone = json.loads(capsys.readouterr().out)
    assert main(["regions", net, "--box", "-1,1", "--json", "--stream", str(tmp_path / "store.sqlite")]) == 0
    streamed = json.loads(capsys.readouterr().out)
    assert streamed == alone and streamed["engine"] == "mesh"


def test_the_command_refuses_a_streamed_mesh_of_a_3d_box_in_one_line(tmp_path, capsys):
    net = network_file(tmp_path, [3, 4, 4], 14)
    store = tmp_path / "store.sqlite"
    assert exit_status(["regions", net, "--box", "-1,1", "--engine", "mesh", "--stream", str(store)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polyregions: error: engine: a streamed mesh takes a bounded 2-D")
    assert not store.exists()  # refused before any file is made
