import json
import pickle
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import (
    Activation,
    activation_from_json,
    hardtanh,
    leaky_relu,
    linear,
    piecewise_linear,
    relu,
)

F = Fraction
fractions = st.fractions(min_value=-20, max_value=20, max_denominator=50)


def test_named_activations_have_the_documented_parameters():
    assert (relu().breakpoints, relu().slopes, relu().offset) == ((0,), (0, 1), 0)
    assert (hardtanh().breakpoints, hardtanh().slopes, hardtanh().offset) == ((-1, 1), (0, 1, 0), -1)
    assert (leaky_relu(F(1, 10)).breakpoints, leaky_relu(F(1, 10)).slopes) == ((0,), (F(1, 10), 1))
    assert (linear().breakpoints, linear().slopes, linear().offset) == ((), (1,), 0)
    assert linear().is_linear and not relu().is_linear
    assert [a.name for a in (relu(), hardtanh(), leaky_relu(-2), linear())] == \
        ["relu", "hardtanh", "leaky_relu", "linear"]


@given(fractions)
def test_named_activations_compute_their_textbook_formulas(t):
    assert relu()(t) == max(t, 0)
    assert hardtanh()(t) == min(max(t, -1), 1)
    assert leaky_relu(F(1, 100))(t) == max(t, t / 100)
    assert linear()(t) == t
    assert hardtanh(min_val=0, max_val=6)(t) == min(max(t, 0), 6)  # torch ReLU6


def test_a_breakpoint_belongs_to_the_piece_on_its_left():
    assert relu().piece(0) == 0
    assert relu().piece(F(-1, 10**30)) == 0
    assert relu().piece(F(1, 10**30)) == 1
    assert [hardtanh().piece(t) for t in (-2, -1, 0, 1, 2)] == [0, 0, 1, 1, 2]
    assert linear().piece(123) == 0


@st.composite
def activations(draw):
    breakpoints = sorted(draw(st.sets(fractions, min_size=0, max_size=4)))
    if not breakpoints:  # the only activation without breakpoints is the identity
        return piecewise_linear([], [1], 0)
    slopes = [draw(fractions)]
    for _ in breakpoints:
        slopes.append(draw(fractions.filter(lambda q, prev=slopes[-1]: q != prev)))
    return piecewise_linear(breakpoints, slopes, draw(fractions))


@given(activations(), fractions)
def test_value_equals_the_relu_expansion_of_a_continuous_piecewise_linear_function(f, t):
    # f(t) = q_0 t + p_0 + sum_k (q_k - q_{k-1}) relu(t - xi_k), the standard expansion.
    expected = f.slopes[0] * t + f.offset + sum((f.slopes[k + 1] - f.slopes[k]) * max(t - xi, 0)
                                                for k, xi in enumerate(f.breakpoints))
    assert f(t) == expected
    slope, intercept = f.piece_map(f.piece(t))
    assert slope * t + intercept == expected


@given(activations())
def test_pieces_meet_at_every_breakpoint(f):
    for k, xi in enumerate(f.breakpoints):
        (q0, c0), (q1, c1) = f.piece_map(k), f.piece_map(k + 1)
        assert q0 * xi + c0 == q1 * xi + c1
    assert f.num_pieces == len(f.breakpoints) + 1


@given(activations())
def test_json_round_trip_is_exact(f):
    text = json.dumps(f.to_json())
    assert activation_from_json(json.loads(text)) == f
    assert pickle.loads(pickle.dumps(f)) == f


def test_json_forms_follow_the_network_file_format():
    assert relu().to_json() == "relu" and linear().to_json() == "linear" and hardtanh().to_json() == "hardtanh"
    assert leaky_relu(F(-7, 12)).to_json() == {"kind": "leaky_relu", "negative_slope": "-7/12"}
    assert piecewise_linear([0, 2], [1, 0, 3], F(1, 2)).to_json() == {
        "kind": "piecewise_linear", "breakpoints": ["0", "2"], "slopes": ["1", "0", "3"], "offset": "1/2"}
    assert activation_from_json({"kind": "leaky_relu", "negative_slope": 0.5}) == leaky_relu(F(1, 2))
    assert activation_from_json({"kind": "leaky_relu", "negative_slope": "0.1"}).slopes[0] == F(1, 10)
    assert activation_from_json({"kind": "leaky_relu", "negative_slope": 0.1}).slopes[0] == F(0.1)


def test_parameters_of_a_named_function_give_that_function():
    assert piecewise_linear([0], [0, 1], 0).name == "relu"
    assert piecewise_linear([-1, 1], [0, 1, 0], -1).name == "hardtanh"
    assert piecewise_linear([], [1], 0).name == "linear"
    assert piecewise_linear([0], [F(1, 3), 1], 0).name == "leaky_relu"
    assert piecewise_linear([0], [0, 2], 0).name == "piecewise_linear"
    assert Activation("piecewise_linear", (F(0),), (F(0), F(1)), F(0)) == relu()  # same function


def test_the_identity_is_the_only_activation_without_breakpoints():
    f = piecewise_linear([], [1], 0)
    assert f.is_linear and f == linear() and f(5) == 5 and f.piece_map(0) == (1, 0)
    assert Activation("piecewise_linear", (), (F(1),), F(0)).to_json() == "linear"


@pytest.mark.parametrize("make", [lambda: piecewise_linear([], [2], 3), lambda: piecewise_linear([], [1], 1),
                                  lambda: Activation("piecewise_linear", (), (F(2),), F(0))])
def test_regression_an_affine_activation_was_taken_for_the_identity(make):
    # t -> 2 t + 3 without breakpoints was accepted, and the engines that take a layer without breakpoints for
    # the identity answered wrongly (exact_distance gave 25/4 instead of 1/16 for such a first layer).
    with pytest.raises(InvalidInputError, match=r"breakpoints: expected at least one breakpoint"):
        make()


@pytest.mark.parametrize("obj, field", [
    ("tanh", "net.json: layers[0].activation"),
    ("", "net.json: layers[0].activation"),
    (3, "net.json: layers[0].activation"),
    ({"kind": "softplus"}, "net.json: layers[0].activation: kind"),
    ({"negative_slope": 1}, "net.json: layers[0].activation: kind"),
    ({"kind": "leaky_relu"}, "net.json: layers[0].activation: negative_slope"),
    ({"kind": "leaky_relu", "negative_slope": 1}, "net.json: layers[0].activation: negative_slope"),
    ({"kind": "leaky_relu", "negative_slope": "nan"}, "net.json: layers[0].activation: negative_slope"),
    ({"kind": "leaky_relu", "negative_slope": float("nan")}, "net.json: layers[0].activation: negative_slope"),
    ({"kind": "leaky_relu", "negative_slope": "1/0"}, "net.json: layers[0].activation: negative_slope"),
    ({"kind": "leaky_relu", "negative_slope": ""}, "net.json: layers[0].activation: negative_slope"),
    ({"kind": "piecewise_linear", "breakpoints": [1, 0], "slopes": [0, 1, 0], "offset": 0},
     "net.json: layers[0].activation: breakpoints"),
    ({"kind": "piecewise_linear", "breakpoints": [0, 0], "slopes": [0, 1, 0], "offset": 0},
     "net.json: layers[0].activation: breakpoints"),
    ({"kind": "piecewise_linear", "breakpoints": [0, 1], "slopes": [0, 1, 1], "offset": 0},
     "net.json: layers[0].activation: slopes"),
    ({"kind": "piecewise_linear", "breakpoints": [0, 1], "slopes": [0, 1], "offset": 0},
     "net.json: layers[0].activation: slopes"),
    ({"kind": "piecewise_linear", "breakpoints": [0], "slopes": [0, 1]},
     "net.json: layers[0].activation: offset"),
    ({"kind": "piecewise_linear", "breakpoints": "0", "slopes": [0, 1], "offset": 0},
     "net.json: layers[0].activation: breakpoints"),
    ({"kind": "piecewise_linear", "breakpoints": [0], "slopes": [0, "x"], "offset": 0},
     "net.json: layers[0].activation: slopes[1]"),
    ({"kind": "piecewise_linear", "breakpoints": [0], "slopes": [0, 1], "offset": float("inf")},
     "net.json: layers[0].activation: offset"),
    ({"kind": "piecewise_linear", "breakpoints": [], "slopes": [1], "offset": 0},
     "net.json: layers[0].activation: breakpoints"),
    ({"kind": "piecewise_linear", "breakpoints": [], "slopes": [2], "offset": 3},
     "net.json: layers[0].activation: breakpoints"),
    ({"kind": ["relu"]}, "net.json: layers[0].activation: kind"),
    ({"kind": {"relu": 1}}, "net.json: layers[0].activation: kind"),
    ({"kind": "piecewise_linear", "breakpoints": ["\u0661"], "slopes": [0, 1], "offset": 0},
     "net.json: layers[0].activation: breakpoints[0]"),
    ({"kind": "leaky_relu", "negative_slope": "1" * 10_001}, "net.json: layers[0].activation: negative_slope"),
    ({"kind": "leaky_relu", "negative_slope": "1e-400000000"}, "net.json: layers[0].activation: negative_slope"),
])
def test_bad_activations_are_rejected_with_the_field_named(obj, field):
    with pytest.raises(InvalidInputError) as info:
        activation_from_json(obj, what="net.json: layers[0].activation")
    assert str(info.value).startswith(field + ":"), str(info.value)


def test_direct_construction_is_validated():
    with pytest.raises(InvalidInputError, match="name"):
        Activation("tanh", (), (F(1),), F(0))
    with pytest.raises(InvalidInputError, match="parameters of relu"):
        Activation("relu", (F(1),), (F(0), F(1)), F(0))
    with pytest.raises(InvalidInputError, match="slopes"):
        Activation("piecewise_linear", (F(0),), (F(1), F(1)), F(0))
    with pytest.raises(InvalidInputError, match="piece index"):
        relu().piece_map(2)
    with pytest.raises(InvalidInputError, match="min_val < max_val"):
        hardtanh(min_val=1, max_val=1)
