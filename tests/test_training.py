"""Training small networks and counting their regions: data, gradients, snapshots, exact counts."""

from fractions import Fraction

import numpy as np
import pytest

from polyregions.errors import InvalidInputError
from polyregions.experiments.datasets import Dataset, gaussian_quantiles, moons, random_labels, square_domain
from polyregions.experiments.models import MLP, train
from polyregions.experiments.training import count_regions, region_history, regions_along_segments, sample_segments
from polyregions.measures.bounds import raghu_bound
from polyregions.networks.initializers import he_normal, pytorch_default
from polyregions.networks.network import Network
from polyregions.regions.domains import box, segment
from polyregions.regions.enumeration import enumerate_regions


def test_datasets_have_the_advertised_shape_range_and_balance():
    for data in (moons(301, seed=1), gaussian_quantiles(300, n_classes=5, seed=1), random_labels(300, seed=1)):
        assert data.X.shape == (len(data), 2) and data.y.shape == (len(data),)
        assert data.X.min() >= -1 and data.X.max() <= 1
        assert not data.X.flags.writeable
    assert np.bincount(moons(301, seed=1).y).tolist() == [150, 151]
    assert np.bincount(gaussian_quantiles(300, n_classes=5, seed=1).y).tolist() == [60] * 5
    # Gaussian quantiles: classes are shells, so the distance from the centre grows with the class.
    raw = gaussian_quantiles(1000, n_classes=4, dim=3, seed=0)
    assert raw.X.shape == (1000, 3) and raw.num_classes == 4
    assert np.array_equal(moons(50, seed=7).X, moons(50, seed=7).X)
    assert not np.array_equal(moons(50, seed=7).X, moons(50, seed=8).X)


def test_moons_without_noise_lie_on_the_two_half_circles():
    data = moons(202, noise=0.0, seed=0)  # 101 angles per moon, pi/2 among them
    # Undo the rescaling onto [-1, 1]^2: the raw moons span x in [-1, 2] and y in [-1/2, 1].
    x = (data.X[:, 0] + 1) * 3 / 2 - 1
    y = (data.X[:, 1] + 1) * 3 / 4 - 0.5
    upper = data.y == 0
    assert np.allclose(x[upper] ** 2 + y[upper] ** 2, 1)
    assert np.allclose((x[~upper] - 1) ** 2 + (y[~upper] - 0.5) ** 2, 1)


@pytest.mark.parametrize("bad, message", [
    (lambda: moons(1), "n_samples"),
    (lambda: gaussian_quantiles(10, n_classes=1), "n_classes"),
    (lambda: random_labels(10, seed=-1), "seed"),
    (lambda: Dataset([[0, 0]], [0.5]), "integer labels"),
    (lambda: Dataset([[np.nan, 0]], [0]), "finite"),
    (lambda: Dataset([[0, 0]], [3], num_classes=2), "num_classes"),
])
def test_bad_data_is_rejected(bad, message):
    with pytest.raises(InvalidInputError, match=message):
        bad()


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    model = MLP.initialize([3, 5, 4, 3], seed=0, dtype=np.float64)
    X = rng.normal(size=(7, 3))
    y = rng.integers(0, 3, size=7)
    _, grads_W, grads_b = model.loss_and_gradients(X, y)
    h = 1e-6
    for params, grads in ((model.weights, grads_W), (model.biases, grads_b)):
        for p, g in zip(params, grads):
            for index in list(np.ndindex(p.shape))[:6]:
                old = p[index]
                p[index] = old + h
                plus = model.loss_and_gradients(X, y)[0]
                p[index] = old - h
                minus = model.loss_and_gradients(X, y)[0]
                p[index] = old
                assert abs((plus - minus) / (2 * h) - g[index]) < 1e-6


def test_initialisation_is_the_initializers_network_exactly():
    model = MLP.initialize([2, 6, 6, 3], seed=5)
    assert model.to_network() == pytorch_default([2, 6, 6], seed=5, output_dim=3)
    assert MLP.initialize([2, 6, 3], seed=5, init="he").to_network() == he_normal([2, 6], seed=5, output_dim=3)
    assert model.num_neurons == 12 and model.widths == [2, 6, 6, 3]
    with pytest.raises(InvalidInputError, match="init"):
        MLP.initialize([2, 6, 3], init="xavier")
    with pytest.raises(InvalidInputError, match="relu layer"):
        MLP.from_network(Network.from_layers(1, [([[1]], [0], "hardtanh"), ([[1]], [0], "linear")]))


def test_training_learns_and_snapshots_are_exact():
    data = moons(200, seed=0)
    model = MLP.initialize([2, 16, 2], seed=0)
    seen = []
    snapshots = train(model, data, epochs=30, lr=0.01, seed=0, checkpoints=[0, 0.5, 30], callback=seen.append)
    assert [s.epoch for s in snapshots] == [0, 0.5, 30] and seen == snapshots
    assert [s.step for s in snapshots] == [0, 4, 30 * 7]  # ceil(200 / 32) = 7 steps per epoch
    assert snapshots[-1].loss < snapshots[0].loss and snapshots[-1].accuracy > 0.85
    final = snapshots[-1].network
    assert final.layers[0].weight[3][1] == Fraction(float(model.weights[0][3, 1]))
    x = data.X[:5]
    exact = np.array([[float(v) for v in final(row.tolist())] for row in x])
    assert np.allclose(exact, model.logits(x), atol=1e-5)
    with pytest.raises(InvalidInputError, match="checkpoints"):
        train(model, data, epochs=1, checkpoints=[2])
    with pytest.raises(InvalidInputError, match="outputs"):
        train(MLP.initialize([2, 4, 1], seed=0), data, epochs=1)


def _crossings_one_layer(net: Network, start, end) -> int:
    """Regions along a segment for a one-hidden-layer network, by hand: 1 + the distinct interior parameters
    t in (0, 1) where some neuron's pre-activation vanishes."""
    start = [Fraction(v) for v in start]
    end = [Fraction(v) for v in end]
    crossings = set()
    layer = net.layers[0]
    for row, bias in zip(layer.weight, layer.bias):
        at0 = sum(w * s for w, s in zip(row, start)) + bias
        at1 = sum(w * e for w, e in zip(row, end)) + bias
        if at0 != at1:
            t = at0 / (at0 - at1)
            if 0 < t < 1:
                crossings.add(t)
    return 1 + len(crossings)


def test_regions_along_segments_match_a_hand_count():
    net = he_normal([4, 12], seed=3, output_dim=2)
    data = random_labels(40, dim=4, seed=2)
    segments = sample_segments(data.X, 6, seed=1) + sample_segments(data.X, 2, seed=1, kind="origin")
    counts = regions_along_segments(net, segments)
    assert [c["activation_regions"] for c in counts] == [_crossings_one_layer(net, a, b) for a, b in segments]
    for (start, _end), c in zip(segments, counts):
        assert c["linear_regions"] <= c["activation_regions"]
        assert np.allclose(start, 0) or any(np.allclose(start, x) for x in data.X)


def test_region_history_counts_are_the_enumerated_counts():
    data = moons(120, seed=3)
    segments = sample_segments(data.X, 3, seed=0)
    run = region_history(data, [6, 6], epochs=2, checkpoints=[0, 1, 2], seed=1, lr=0.01,
                         domain=square_domain(), segments=segments)
    assert run.name == "[6, 6]" and run.widths == (2, 6, 6, 2) and run.neurons == 12
    assert run.epochs == [0, 1, 2]
    first = run.records[0]
    assert first.network == pytorch_default([2, 6, 6], seed=1, output_dim=2)
    for record in run.records:
        complex_ = enumerate_regions(record.network, box([-1, -1], [1, 1]))
        assert (record.activation_regions, record.linear_regions) == (len(complex_), len(complex_.linear_regions))
        assert record.activation_regions <= raghu_bound(2, [6, 6])
        for (start, end), n in zip(segments, record.along_segments):
            assert n == len(enumerate_regions(record.network, segment(start.tolist(), end.tolist())))
            assert n <= raghu_bound(1, [6, 6])
    assert run.series("along_segments", per_neuron=True)[0] == sum(first.along_segments) / 3 / 12
    rows = run.table()
    assert rows[0]["activation_regions"] == first.activation_regions and len(rows) == 3
    with pytest.raises(InvalidInputError, match="domain or segments"):
        region_history(data, [4], epochs=1)
    with pytest.raises(InvalidInputError, match="distance_points"):
        region_history(data, [4], epochs=1, distance_points=[[0, 0, 0]])
    only_lines = region_history(data, [4], epochs=0, segments=segments)
    with pytest.raises(InvalidInputError, match="a domain"):
        only_lines.series("activation_regions")


def test_count_regions_is_the_summary():
    net = pytorch_default([2, 8], seed=0, output_dim=2)
    assert count_regions(net, square_domain()) == enumerate_regions(net, square_domain()).summary()


def test_digits_along_lines():
    pytest.importorskip("sklearn")
    from polyregions.experiments.datasets import digits

    data = digits()
    assert data.X.shape == (1797, 64) and data.num_classes == 10
    assert data.X.min() == 0 and data.X.max() == 1
    segments = sample_segments(data.X, 2, seed=0)
    run = region_history(data, [8, 8], epochs=0.25, checkpoints=[0, 0.25], init="he", segments=segments)
    for record in run.records:
        assert all(1 <= n <= raghu_bound(1, [8, 8]) for n in record.along_segments)


def test_distances_during_training_are_bracketed_by_exact_distances():
    from polyregions.measures.distances import exact_distance

    data = moons(100, seed=2)
    points = np.array([[0.1, 0.2], [-0.5, 0.5], [0.75, -0.25]])
    run = region_history(data, [5, 5], epochs=1, checkpoints=[0, 1], distance_points=points, lr=0.01)
    for record in run.records:
        exact = [exact_distance(record.network, p.tolist(), kind="linear") for p in points]
        lo, hi = record.mean_distance_bounds
        mean = sum(Fraction(d.interval()[0]) for d in exact) / 3, sum(Fraction(d.interval()[1]) for d in exact) / 3
        assert lo <= mean[1] and mean[0] <= hi and lo <= record.mean_distance <= hi
    assert run.series("mean_distance", per_neuron=True) == [r.mean_distance * 10 for r in run.records]
    assert "mean_distance_times_neurons" in run.table()[0]
