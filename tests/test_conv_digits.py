"""Raghu et al.'s convolutional experiment: the numpy training is a correct gradient descent, the exact network
is the trained one, regions refine with depth and exact lengths equal the lengths of the image polylines."""

import math
from fractions import Fraction

import numpy as np
import pytest

from polyregions.errors import InvalidInputError
from polyregions.experiments.conv_digits import (
    ConvNet,
    _gradients,
    activation_nodes,
    circle_points,
    depth_profile,
    plane_regions,
    truncated,
)

pytest.importorskip("sklearn")


def _loss(net, X, y):
    logits = net.logits(X)
    logits = logits - logits.max(axis=1, keepdims=True)
    return float(np.mean(np.log(np.exp(logits).sum(axis=1)) - logits[np.arange(len(y)), y]))


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    net = ConvNet.initialize((2, 2, 2), seed=1)
    for b in net.biases:
        b[:] = rng.normal(size=b.shape) * 0.1
    X, y = rng.random((5, 64)), rng.integers(0, 10, size=5)
    grads = _gradients(net, net._plans(), X, y)
    params = net.kernels + net.biases + list(net.dense)
    for p, g in zip(params, grads):
        for index in list(np.ndindex(p.shape))[:4]:
            old = p[index]
            p[index] = old + 1e-6
            up = _loss(net, X, y)
            p[index] = old - 1e-6
            down = _loss(net, X, y)
            p[index] = old
            assert g[index] == pytest.approx((up - down) / 2e-6, rel=1e-4, abs=1e-7)


def test_the_exact_graph_is_the_numpy_network():
    rng = np.random.default_rng(1)
    net = ConvNet.initialize((3, 2, 2), seed=2)
    net.biases[1][:] = rng.normal(size=2)
    graph = net.to_graph()
    X = rng.random((3, 64))
    for x, expected in zip(X, net.logits(X)):
        np.testing.assert_allclose([float(v) for v in graph(x)], expected, rtol=1e-12, atol=1e-12)
    assert activation_nodes(graph) == ("relu1", "relu2", "relu3")
    assert truncated(graph, "relu2").output_shape == (2, 4, 4)
    with pytest.raises(InvalidInputError, match="name: expected a node of the network"):
        truncated(graph, "relu9")


def test_regions_refine_with_depth_and_exact_lengths_are_the_image_polylines():
    rng = np.random.default_rng(3)
    net = ConvNet.initialize((2, 2, 2), seed=4)
    for b in net.biases:
        b[:] = rng.normal(size=b.shape) * 0.3
    graph = net.to_graph()
    a, b = rng.random(64), rng.random(64)
    profile = depth_profile(graph, [a, b])
    assert list(profile.regions) == sorted(profile.regions) and profile.regions[0] >= 1
    assert float(profile.lengths[0]) == pytest.approx(float(np.linalg.norm(a - b)), rel=1e-12)
    from polyregions.measures.trajectories import trajectory

    for depth, name in enumerate(activation_nodes(graph), start=1):
        cut = truncated(graph, name)
        # the image is a polyline through the images of the breakpoints: add up its segments
        pieces = trajectory(cut, [a, b]).pieces
        ends = sorted({Fraction(0), Fraction(1)} | {p.start for p in pieces} | {p.end for p in pieces})
        points = [cut([Fraction(x) + t * (Fraction(y) - Fraction(x)) for x, y in zip(a, b)]) for t in ends]
        polyline = sum(math.dist([float(v) for v in p], [float(v) for v in q]) for p, q in zip(points, points[1:]))
        assert float(profile.lengths[depth]) == pytest.approx(polyline, rel=1e-9)


def test_circle_points_lie_exactly_on_the_curve():
    points = circle_points([2, 0], [0, 2], [0, 0], 12)
    assert points[0] == points[-1] == (2, 0) and len(points) == 13
    assert all(x * x + y * y == 4 for x, y in points)
    with pytest.raises(InvalidInputError, match="samples: expected an integer >= 3"):
        circle_points([1, 0], [0, 1], [0, 0], 2)


def test_plane_regions_grow_with_depth():
    net = ConvNet.initialize((2, 2, 2), seed=5)
    rng = np.random.default_rng(5)
    for b in net.biases:
        b[:] = rng.normal(size=b.shape) * 0.3
    counts = plane_regions(net.to_graph(), rng.random(64), rng.random(64), rng.random(64))
    assert list(counts) == sorted(counts) and counts[0] > 1
