"""Hanin & Rolnick's Theorem 3: the Monte-Carlo right-hand side against closed forms and exact volumes."""

from __future__ import annotations

import math

import numpy as np
import pytest

from polyregions.errors import InvalidInputError
from polyregions.measures.theorem3 import theorem3_comparison, theorem3_integrand
from polyregions.networks.network import Network

SIGMA = 0.7


def _grid(m=300):
    s = (np.arange(m) + 0.5) / m * 2 - 1  # midpoints of [-1, 1]
    X, Y = np.meshgrid(s, s)
    return np.column_stack([X.ravel(), Y.ravel()]), 4.0 / (m * m)


def _inside(sigma=SIGMA):
    return math.erf(1 / (sigma * math.sqrt(2)))  # P(|b| <= 1) for b ~ N(0, sigma^2)


def test_one_neuron_integrates_to_the_expected_chord_length():
    # z = x: the line x = b crosses [-1, 1]^2 in a chord of length 2 exactly when |b| <= 1.
    net = Network.from_layers(2, [([[1, 0]], [0], "relu")])
    points, cell = _grid()
    integral = theorem3_integrand(net, points, k=1, bias_std=SIGMA).sum() * cell
    assert abs(integral - 2 * _inside()) < 1e-4


def test_two_neurons_integrate_to_the_expected_number_of_crossings():
    # x = b1 and y = b2 meet inside the square exactly when |b1|, |b2| <= 1.
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
    points, cell = _grid()
    integral = theorem3_integrand(net, points, k=2, bias_std=SIGMA).sum() * cell
    assert abs(integral - _inside() ** 2) < 1e-4
    one = theorem3_integrand(net, points, k=1, bias_std=SIGMA).sum() * cell
    assert abs(one - 4 * _inside()) < 1e-4


def _rho(z):
    return math.exp(-0.5 * (z / SIGMA) ** 2) / (SIGMA * math.sqrt(2 * math.pi))


def test_neurons_that_are_not_good_do_not_count():
    # The second unit never reaches the output: only the line x = b counts.
    net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 0]], [0], "linear")])
    points, cell = _grid(100)
    assert abs(theorem3_integrand(net, points, k=1, bias_std=SIGMA).sum() * cell - 2 * _inside()) < 1e-3
    # relu(x) feeds relu(-relu(x) - 1/2), which is always off: the first neuron is never good. The second has
    # z = -relu(x) without its bias: gradient -1 for x > 0.
    dead = Network.from_layers(1, [([[1]], [0], "relu"), ([[-1]], ["-1/2"], "relu")])
    values = theorem3_integrand(dead, np.array([[-0.5], [0.75]]), k=1, bias_std=SIGMA)
    assert values[0] == 0 and values[1] == pytest.approx(_rho(-0.75))


def test_goodness_is_judged_with_the_neuron_at_its_breakpoint():
    # relu(x) feeds relu(1/2 - relu(x)). At x = 3/4 the second neuron is off as the network stands, but where the
    # first neuron sits at its breakpoint (its bias equal to 3/4, its output 0) the second is on: the first is
    # good there, as the co-area argument needs.
    gated = Network.from_layers(1, [([[1]], [0], "relu"), ([[-1]], ["1/2"], "relu")])
    values = theorem3_integrand(gated, np.array([[0.75]]), k=1, bias_std=SIGMA)
    assert values[0] == pytest.approx(2 * _rho(0.75))


def test_monte_carlo_agrees_with_exact_volumes():
    rows = theorem3_comparison([2, 6, 6], networks=16, samples=800, bias_std=0.4, seed=3)
    for row in rows:
        spread = math.hypot(row["predicted_stderr"], row["measured_stderr"])
        assert abs(row["predicted"] - row["measured"]) <= 4 * spread, row


def test_bad_arguments():
    net = Network.from_layers(2, [([[1, 0]], [0], "relu")])
    with pytest.raises(InvalidInputError, match="k"):
        theorem3_integrand(net, np.zeros((1, 2)), k=3, bias_std=1.0)
    with pytest.raises(InvalidInputError, match="bias_std"):
        theorem3_integrand(net, np.zeros((1, 2)), k=1, bias_std=0.0)
    with pytest.raises(InvalidInputError, match="2-D"):
        theorem3_comparison([3, 4], networks=1, samples=10)
