"""Exact distances to activation-region boundaries and to B_N, batches with proven bounds, exact projection."""

from __future__ import annotations

import random
from fractions import Fraction as F

import numpy as np
import pytest

from polyregions.errors import InfeasibleError, InvalidInputError
from polyregions.measures.boundaries import boundary
from polyregions.measures.distances import boundary_distances, distance_scaling, exact_distance, log_distance_histogram
from polyregions.networks.activations import hardtanh, leaky_relu, linear
from polyregions.networks.initializers import he_normal
from polyregions.networks.layer import Layer
from polyregions.networks.network import Network
from polyregions.polyhedra._projection import project
from polyregions.polyhedra.polytope import Polytope
from polyregions.regions.domains import box
from polyregions.regions.enumeration import enumerate_regions


def _segment_distance2(p, a, b):
    """Exact squared distance from p to the segment [a, b]."""
    ab = [y - x for x, y in zip(a, b)]
    t = sum(u * (y - x) for u, x, y in zip(ab, a, p)) / sum(u * u for u in ab)
    t = min(max(t, F(0)), F(1))
    return sum((y - (x + t * u)) ** 2 for x, u, y in zip(a, ab, p))


def _edge(fc, i):
    return [fc.vertices[v] for v in fc.faces[i].vertices]


@pytest.mark.parametrize("seed", [0, 1])
def test_exact_distances_match_the_region_polygons(seed):
    # Brute force: the region complex in a large square; the distance to the boundary of x's activation region
    # (or to B_N) is the least exact point-to-segment distance over its edges (or over B_N's edges).
    net = he_normal([2, 5, 5], seed=seed, bias_std=0.3)
    complex_ = enumerate_regions(net, box([-5, -5], [5, 5]))
    b = boundary(complex_)
    fc = b.faces
    rng = np.random.default_rng(seed)
    points = rng.uniform(-1, 1, size=(12, 2))
    for kind in ("activation", "linear"):
        batch = boundary_distances(net, points, kind=kind)
        for i, p in enumerate(points):
            x = tuple(F(float(v)) for v in p)
            d = exact_distance(net, x, kind=kind)
            if kind == "activation":
                r = complex_.region_of(x)
                edges = [j for j in fc.faces_of_dimension(1) if fc.faces[j].interior and r in fc.faces[j].regions]
            else:
                edges = list(b.facets)
            brute = min(_segment_distance2(x, *_edge(fc, j)) for j in edges)
            if brute < 16:  # the nearest boundary is surely inside the enumerated square
                assert d.squared == brute
            assert batch.lower[i] <= d.value <= batch.upper[i]


def test_the_distance_ball_holds_one_output_map():
    # Dense sampling: every point closer than the distance to B_N has the output map of x (a lower bound
    # check), and the exact nearest point is at that distance.
    net = he_normal([2, 6, 6], seed=3, bias_std=0.3, output_dim=1)
    rng = random.Random(3)
    for _ in range(4):
        x = (F(rng.randint(-100, 100), 100), F(rng.randint(-100, 100), 100))
        d = exact_distance(net, x, kind="linear")
        M = net.affine_map(net.pattern(x))[0]
        radius = d.value * (1 - 1e-6)
        for k in range(64):
            angle = 2 * np.pi * k / 64
            for scale in (0.3, 0.7, 0.999):
                y = (x[0] + F(radius * scale * np.cos(angle)), x[1] + F(radius * scale * np.sin(angle)))
                assert net.affine_map(net.pattern(y))[0] == M
        assert sum((a - b) ** 2 for a, b in zip(d.nearest, x)) == d.squared


def test_degenerate_network_linear_distance_is_larger():
    # relu(x) - relu(-x) + relu(y) = x + relu(y): activation boundaries x = 0 and y = 0, but B_N is y = 0 only.
    net = Network.from_layers(2, [([[1, 0], [-1, 0], [0, 1]], [0, 0, 0], "relu"), ([[1, -1, 1]], [0], "linear")])
    x = ["1/10", "1/2"]
    assert exact_distance(net, x).squared == F(1, 100)
    assert exact_distance(net, x, kind="linear").squared == F(1, 4)
    batch = boundary_distances(net, np.array([[0.1, 0.5], [-0.3, -0.25]]), kind="linear")
    assert batch.lower[0] <= 0.5 <= batch.upper[0] and batch.lower[1] <= 0.25 <= batch.upper[1]
    # The first point needs the exact search (its nearest activation boundary x = 0 is not in B_N); the
    # second is certified in floating point (its nearest activation boundary, y = 0, is in B_N).
    assert batch.exact_points == (0,)


def test_dead_paths_in_deeper_networks():
    # relu(relu(x) + relu(y) - 3): near (1/10, 1/2) the output is 0 and B_N is the segment x + y = 3 (x, y > 0).
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [-3], "relu"),
                                  ([[1]], [0], "linear")])
    d = exact_distance(net, ["1/10", "1/2"], kind="linear")
    assert d.squared == F(72, 25) and d.nearest == (F(13, 10), F(17, 10))


def test_no_boundary_at_all():
    net = Network.from_layers(1, [([[1], [-1]], [0, 0], "relu"), ([[1, -1]], [0], "linear")])  # the identity
    assert exact_distance(net, [2], kind="linear").squared is None
    batch = boundary_distances(net, [[2], [-1]], kind="linear")
    assert np.isinf(batch.values).all() and np.isinf(batch.lower).all()


def test_points_on_a_boundary_are_at_distance_zero():
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
    assert exact_distance(net, [0, "1/2"]).squared == 0
    assert exact_distance(net, [0, "1/2"], kind="linear").squared == 0
    batch = boundary_distances(net, [[0, F(1, 2)], [F(1, 3), 2]])
    assert batch.values[0] == 0 and batch.exact_points == (0,)
    assert batch.lower[1] <= 1 / 3 <= batch.upper[1]


@pytest.mark.parametrize("activation", [hardtanh(), leaky_relu(F(1, 10))])
def test_other_activations(activation):
    net = he_normal([3, 6, 6], seed=5, activation=activation, bias_std=0.4)
    rng = np.random.default_rng(5)
    points = rng.normal(size=(15, 3))
    for kind in ("activation", "linear"):
        batch = boundary_distances(net, points, kind=kind)
        for i in range(0, 15, 3):
            d = exact_distance(net, points[i], kind=kind)
            assert batch.lower[i] <= d.value <= batch.upper[i]


def test_high_dimensional_batches_bracket_the_exact_values():
    net = he_normal([784, 8, 8], seed=1)
    rng = np.random.default_rng(1)
    points = rng.normal(size=(40, 784))
    for kind in ("activation", "linear"):
        batch = boundary_distances(net, points, kind=kind, chunk=16)
        assert batch.relative_error() < 1e-6
        for i in (0, 17, 39):
            d = exact_distance(net, points[i], kind=kind)
            assert batch.lower[i] <= d.value <= batch.upper[i]


def test_float_weights_that_are_not_doubles():
    # Weights given as decimal strings (1/10 is not a double) go through the rounding bounds.
    net = Network.from_layers(2, [([["0.1", "0.7"], ["-0.3", "0.2"], ["0.9", "-0.4"]], ["0.05", "-0.1", "0.2"],
                                   "relu"), ([["0.5", "-1.3", "0.7"]], ["0.1"], "relu"), ([[1]], [0], linear())])
    points = np.random.default_rng(2).normal(size=(20, 2))
    batch = boundary_distances(net, points, kind="linear")
    for i in range(0, 20, 4):
        assert batch.lower[i] <= exact_distance(net, points[i], kind="linear").value <= batch.upper[i]


def test_bad_arguments():
    net = Network.from_layers(2, [([[1, 0]], [0], "relu")])
    with pytest.raises(InvalidInputError, match="kind"):
        boundary_distances(net, [[0, 0]], kind="other")
    with pytest.raises(InvalidInputError, match="shape"):
        boundary_distances(net, np.zeros((3, 5)))
    with pytest.raises(InvalidInputError, match="finite"):
        boundary_distances(net, np.array([[np.nan, 0.0]]))


def test_scaling_data_and_histogram():
    points = np.random.default_rng(0).normal(size=(200, 10))
    rows = distance_scaling([[10, 8], [10, 4, 4]], points, seeds=(0, 1))
    assert [r["neurons"] for r in rows] == [8, 8, 8, 8]
    assert all(r["mean_lower"] <= r["mean"] <= r["mean_upper"] for r in rows)
    counts, edges = log_distance_histogram(np.array([1e-3, 1e-2, 1e-2, 1.0, np.inf]), bins=[-3.5, -2.5, -1.5, 0.5])
    assert counts.tolist() == [1, 2, 1]


# --- exact projection -------------------------------------------------------------------------------------------

def test_projection_closed_forms():
    assert project([2, 2], [[1, 0], [0, 1]], [1, 1]).point == (1, 1)
    assert project([0, 0], [[-1, -1]], [-1]).squared_distance == F(1, 2)
    p = project([0, 0, 0], [[1, 0, 0]], [-1], E=[[0, 0, 1]], e=[2])
    assert p.point == (-1, 0, 2) and p.squared_distance == 5
    with pytest.raises(InfeasibleError):
        project([0, 0], [[1, 0], [-1, 0]], [-1, -1])


def test_projection_is_nearest_among_sampled_points():
    rng = random.Random(1)
    for _ in range(60):
        d = rng.choice([2, 3])
        A = [[F(rng.randint(-5, 5)) for _ in range(d)] for _ in range(rng.randint(d + 1, 7))]
        b = [F(rng.randint(0, 6)) for _ in A]
        x = [F(rng.randint(-12, 12), rng.randint(1, 3)) for _ in range(d)]
        P = Polytope(tuple(map(tuple, A)), tuple(b), d)
        if P.is_empty() or not P.is_bounded():
            continue
        result = project(x, A, b)
        assert P.contains(result.point)
        for v in P.vertices():  # every vertex, and points between them and the projection, are no closer
            for t in (F(1), F(1, 2), F(1, 10)):
                y = [p + t * (w - p) for p, w in zip(result.point, v)]
                assert sum((a - c) ** 2 for a, c in zip(y, x)) >= result.squared_distance


def test_layer_with_a_zero_gradient_neuron_is_skipped():
    # The second-layer neuron sees only a dead first-layer unit on the left: zero gradient there.
    net = Network(1, (Layer(((F(1),),), (F(0),), "relu"), Layer(((F(1),),), (F(1),), "relu")))
    d = exact_distance(net, [-2])
    assert d.squared == 4  # only the first neuron's breakpoint at 0 counts
    assert boundary_distances(net, [[-2.0]]).values[0] == 2.0
