"""Regions, transitions and lengths along segments, polylines and infinite lines."""

from __future__ import annotations

from fractions import Fraction as F

import numpy as np
import pytest

from polyregions.errors import InvalidInputError
from polyregions.exact.surds import SurdSum
from polyregions.measures.trajectories import line_regions, regions_along_lines, trajectory
from polyregions.networks.constructions import sawtooth
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network


@pytest.mark.parametrize("n", [1, 2, 4])
def test_sawtooth_pieces_and_output_length(n):
    # The sawtooth climbs 0 -> 1 or falls 1 -> 0 on each of its 2^n pieces: the output curve has length 2^n.
    t = trajectory(sawtooth(n), [[0], [1]])
    assert t.regions == t.distinct_patterns == t.linear_pieces() == 2 ** n
    lengths = t.lengths_exact()
    assert lengths[0] == SurdSum.rational(1) and lengths[-1] == SurdSum.rational(2 ** n)
    value, error = t.lengths()[-1]
    assert value == 2 ** n and error == 0


def test_polyline_counts_reentries_once_per_pattern():
    net = Network.from_layers(1, [([[1], [1]], [0, -1], "relu")])
    t = trajectory(net, [[-1], [2], [0]])
    assert t.runs == ((0, 0), (1, 0), (1, 1), (1, 0))
    assert (t.regions, t.distinct_patterns, t.transitions) == (4, 3, 3)
    assert t.lengths_exact()[0] == SurdSum.rational(5)


def test_one_layer_lines_cross_every_hyperplane_once():
    # With one hidden layer the regions on a line are cut by each neuron's hyperplane once (generic weights):
    # N + 1 regions on the whole line, N transitions.
    net = he_normal([784, 16], seed=3)
    x = np.random.default_rng(3).normal(size=784)
    t = line_regions(net, x)
    assert t.regions == 17 and t.transitions == 16 and t.distinct_patterns == 17


def test_infinite_line_agrees_with_a_long_segment_and_the_lp_engine():
    net = he_normal([3, 6, 6], seed=4, bias_std=0.5)
    rng = np.random.default_rng(4)
    for _ in range(3):
        x = rng.normal(size=3)
        infinite = line_regions(net, x)
        long = trajectory(net, [(-10 ** 4 * x).tolist(), (10 ** 4 * x).tolist()])
        assert infinite.regions == long.regions
        lp = trajectory(net, list(infinite.points), engine="lp")
        assert [p.pattern for p in lp.pieces] == [p.pattern for p in infinite.pieces]


def test_lines_without_breakpoints_have_one_region():
    net = Network.from_layers(2, [([[0, 1]], [-1], "relu")])  # constant along the x axis
    assert line_regions(net, [1, 0]).regions == 1
    assert regions_along_lines(net, [[1, 0], [0, 1]]) == [1, 2]


def test_lengths_per_layer_are_exact_and_bounded():
    # Along the segment (-1, -1) -> (1, 1) the ReLU layer's image stays at (0, 0), then runs to (1, 1).
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
    t = trajectory(net, [[-1, -1], [1, 1]])
    lengths = t.lengths_exact()
    assert lengths[0] == SurdSum.sqrt(8)      # the input segment
    assert lengths[1] == SurdSum.sqrt(2)      # (0, 0) -> (1, 1) after the ReLU layer
    assert lengths[2] == SurdSum.rational(2)  # the output goes from 0 to 2
    for (value, error), exact in zip(t.lengths(), lengths):
        lo, hi = exact.interval()
        assert float(lo) - error <= value <= float(hi) + error


def test_lengths_match_sampled_images_on_random_networks():
    # The exact image length is the supremum of inscribed polylines: fine sampling comes close from below.
    net = he_normal([2, 8, 8], seed=6, bias_std=0.3)
    t = trajectory(net, [[-1, 0.5], [1, -0.25]])
    exact = [v.bounds()[0] for v in t.lengths_exact()]
    s = np.linspace(0, 1, 20001)
    X = np.array([-1, 0.5])[None, :] + s[:, None] * np.array([2, -0.75])[None, :]
    h = X
    sampled = [np.linalg.norm(np.diff(h, axis=0), axis=1).sum()]
    for W, b in net.float_layers():
        h = np.maximum(h @ W.T + b, 0.0)
        sampled.append(np.linalg.norm(np.diff(h, axis=0), axis=1).sum())
    for e, s_ in zip(exact, sampled):
        assert s_ <= e * (1 + 1e-9) and s_ >= e * (1 - 1e-3)


def test_transitions_per_layer():
    net = he_normal([2, 5, 5], seed=8, bias_std=0.3)
    t = trajectory(net, [[-2, -2], [2, 1], [0, 2]])
    per_layer = t.transitions_per_layer()
    assert sum(per_layer) == t.transitions and len(per_layer) == 2
    # Every run boundary changes at least one neuron.
    assert t.transitions >= t.regions - 1


def test_bad_points():
    net = Network.from_layers(2, [([[1, 0]], [0], "relu")])
    with pytest.raises(InvalidInputError, match="same point"):
        trajectory(net, [[0, 0], [0, 0]])
    with pytest.raises(InvalidInputError, match="at least two"):
        trajectory(net, [[0, 0]])
    with pytest.raises(InvalidInputError, match="points\\[1\\]"):
        trajectory(net, [[0, 0], [1, 2, 3]])


def test_exact_rational_points():
    net = Network.from_layers(1, [([[3]], [-1], "relu")])
    t = trajectory(net, [["0"], ["1"]])
    assert [(p.start, p.end) for p in t.pieces] == [(F(0), F(1, 3)), (F(1, 3), F(1))]
