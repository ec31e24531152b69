"""Graph networks downstream of the engines: distances, trajectories, topology, local complexity and plots give
what they give on an equivalent dense network (the same function, rewritten exactly)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

import polyregions as pr
from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.operations import Dense, Maxout


def _maxout_and_rewriting(seed: int, units: int = 2):
    """A maxout-2 network and the dense ReLU network max(a, b) = a + relu(b - a), a = relu(a) - relu(-a)."""
    rng = random.Random(seed)
    first = [[rng.randint(-3, 3) for _ in range(2)] for _ in range(2 * units)]
    bias = [rng.randint(-2, 2) for _ in range(2 * units)]
    head = [[rng.randint(-2, 2) or 1 for _ in range(units)]]
    graph = GraphNetwork((2,), (Node("d", Dense(first, bias), ("input",)), Node("m", Maxout(2), ("d",)),
                                Node("o", Dense(head, [0]), ("m",))), "o")
    rows, shifts, out = [], [], []
    for u in range(units):
        a, b = first[2 * u], first[2 * u + 1]
        rows += [a, [-v for v in a], [y - x for x, y in zip(a, b)]]
        shifts += [bias[2 * u], -bias[2 * u], bias[2 * u + 1] - bias[2 * u]]
        out += [head[0][u], -head[0][u], head[0][u]]
    dense = pr.Network.from_layers(2, [(rows, shifts, "relu"), ([out], [0], "linear")])
    # only the difference neurons: the same activation regions as the maxout units
    differences = pr.Network.from_layers(2, [(rows[2::3], shifts[2::3], "relu"),
                                             ([head[0]], [0], "linear")])
    return graph, dense, differences


def _points(seed: int, count: int = 12):
    rng = random.Random(seed)
    return [[Fraction(rng.randint(-20, 20), 7), Fraction(rng.randint(-20, 20), 9)] for _ in range(count)]


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_distances_equal_those_of_the_rewriting(seed):
    graph, dense, differences = _maxout_and_rewriting(seed)
    for point in _points(seed):
        assert graph(point) == dense(point)
        assert pr.exact_distance(graph, point, kind="linear").squared == \
            pr.exact_distance(dense, point, kind="linear").squared
        assert pr.exact_distance(graph, point).squared == pr.exact_distance(differences, point).squared
    batch = pr.boundary_distances(graph, _points(seed), kind="linear")
    assert (batch.lower <= batch.values).all() and (batch.values <= batch.upper).all()
    other = pr.boundary_distances(dense, _points(seed), kind="linear")
    assert ((batch.lower <= other.upper) & (other.lower <= batch.upper)).all()  # both hold the exact distance


def test_trajectory_on_a_graph_network():
    graph, dense, differences = _maxout_and_rewriting(3)
    path = [[-2, 1], [2, -1], [0, 2]]
    ours, theirs = pr.trajectory(graph, path), pr.trajectory(differences, path)
    assert ours.regions == theirs.regions and ours.transitions_per_layer() == theirs.transitions_per_layer()
    assert ours.lengths_exact()[0] == theirs.lengths_exact()[0]  # the input curve
    assert ours.linear_pieces() == pr.trajectory(dense, path).linear_pieces()
    same = GraphNetwork.from_network(dense)  # a dense network as a graph: every length per layer unchanged
    assert pr.trajectory(same, path).lengths_exact() == pr.trajectory(dense, path).lengths_exact()


@pytest.mark.parametrize("field", ["GF(2)", "Q"])
def test_decision_topology_equals_that_of_the_rewriting(field):
    graph, dense, _ = _maxout_and_rewriting(4, units=3)
    domain = pr.box([-2, -2], [2, 2])
    ours, theirs = pr.decision_topology(graph, domain, field=field), pr.decision_topology(dense, domain, field=field)
    assert [(s.name, s.betti) for s in ours.sets] == [(s.name, s.betti) for s in theirs.sets]


@pytest.mark.parametrize("norm", ["inf", "1", "2"])
def test_local_complexity_of_a_dense_network_as_a_graph(norm):
    net = pr.Network.from_layers(2, [([[1, 2], [-1, 1], [2, 0]], [0, 1, "-1/2"], "relu"),
                                     ([[1, -1, 2]], [0], "linear")])
    graph = GraphNetwork.from_network(net)
    points = [[0, 0], ["1/2", -1], [1, 1]]
    ours, theirs = pr.local_complexity(graph, points, "1/2", norm=norm), pr.local_complexity(net, points, "1/2",
                                                                                            norm=norm)
    assert ours.activation_regions.tolist() == theirs.activation_regions.tolist()
    assert ours.linear_regions.tolist() == theirs.linear_regions.tolist()
    assert ours.crossing == theirs.crossing


def test_local_complexity_of_maxout_counts_argmax_regions():
    graph, _, differences = _maxout_and_rewriting(5)
    points = _points(5, 4)
    ours, theirs = pr.local_complexity(graph, points, 1), pr.local_complexity(differences, points, 1)
    assert ours.activation_regions.tolist() == theirs.activation_regions.tolist()
    assert ours.neurons_crossing.tolist() == theirs.neurons_crossing.tolist()


def test_plots_of_graph_complexes(tmp_path):
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    from polyregions import plotting

    graph, _, _ = _maxout_and_rewriting(6)
    complex_ = pr.enumerate_regions(graph, pr.box([-2, -2], [2, 2]))
    assert len(plotting.region_polygons(complex_)) == len(complex_)
    plotting.plot_regions(complex_)
    figure = plotting.plot_layers(graph, pr.box([-2, -2], [2, 2]))
    assert len(figure.axes) >= 1
    plotting.plot_graph(pr.enumerate_regions(graph, pr.segment([-2, 1], [2, -1])))
