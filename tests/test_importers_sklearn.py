"""scikit-learn MLPs read as exact networks: the exact forward pass equals scikit-learn's to float precision."""

import warnings

import numpy as np
import pytest

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import linear, relu

sklearn = pytest.importorskip("sklearn")
from sklearn.exceptions import ConvergenceWarning  # noqa: E402
from sklearn.neural_network import MLPClassifier, MLPRegressor  # noqa: E402

from polyregions.networks.importers.sklearn import network_from_sklearn  # noqa: E402


def _fit(model, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return model.fit(X, y)


def _data(seed=0, n=40, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    return X, rng


def test_regressor_matches_predict():
    X, rng = _data()
    y = np.sin(X[:, 0]) + X[:, 1]
    model = _fit(MLPRegressor(hidden_layer_sizes=(5, 4), max_iter=200, random_state=0), X, y)
    net = network_from_sklearn(model)
    assert net.input_dim == 3 and net.widths == (5, 4, 1)
    assert [layer.activation for layer in net.layers] == [relu(), relu(), linear()]
    for x in X[:10]:
        assert float(net(x)[0]) == pytest.approx(model.predict(x[None])[0], rel=1e-12, abs=1e-12)


def test_multiclass_logits_decide_the_class():
    X, rng = _data(1)
    y = rng.integers(0, 3, size=len(X))
    model = _fit(MLPClassifier(hidden_layer_sizes=(6,), max_iter=100, random_state=0), X, y)
    net = network_from_sklearn(model)
    assert net.widths == (6, 3)
    for x in X:
        logits = [float(v) for v in net(x)]
        probabilities = np.exp(logits - np.max(logits))
        probabilities /= probabilities.sum()
        np.testing.assert_allclose(probabilities, model.predict_proba(x[None])[0], rtol=1e-9, atol=1e-12)
        assert model.classes_[int(np.argmax(logits))] == model.predict(x[None])[0]


def test_binary_classifier_has_one_logit_whose_sign_is_the_class():
    X, _ = _data(2)
    y = (X[:, 0] + X[:, 2] > 0).astype(int)
    model = _fit(MLPClassifier(hidden_layer_sizes=(4,), activation="identity", max_iter=100, random_state=0), X, y)
    net = network_from_sklearn(model)
    assert net.widths == (4, 1) and net.layers[0].activation == linear()
    for x in X:
        assert model.predict(x[None])[0] == int(net(x)[0] > 0)


def test_weights_are_transposed_and_exact():
    X, _ = _data(3, d=2)
    model = _fit(MLPRegressor(hidden_layer_sizes=(3,), max_iter=20, random_state=0), X, X[:, 0])
    net = network_from_sklearn(model)
    from fractions import Fraction

    assert net.layers[0].weight[2][1] == Fraction(float(model.coefs_[0][1, 2]))
    assert net.layers[1].bias[0] == Fraction(float(model.intercepts_[1][0]))


@pytest.mark.parametrize("activation", ["tanh", "logistic"])
def test_smooth_activations_are_refused_by_name(activation):
    X, _ = _data(4)
    model = _fit(MLPRegressor(hidden_layer_sizes=(2,), activation=activation, max_iter=5, random_state=0), X, X[:, 0])
    with pytest.raises(InvalidInputError, match=f"MLPRegressor: activation: expected 'relu' or 'identity'.*"
                                                f"got '{activation}'"):
        network_from_sklearn(model)


def test_unfitted_and_foreign_models_are_refused():
    with pytest.raises(InvalidInputError, match="expected a fitted model"):
        network_from_sklearn(MLPClassifier())
    from sklearn.linear_model import LinearRegression

    with pytest.raises(InvalidInputError, match="expected a scikit-learn MLPClassifier or MLPRegressor, got "
                                                "LinearRegression"):
        network_from_sklearn(LinearRegression())
    X, _ = _data(5)
    model = _fit(MLPRegressor(hidden_layer_sizes=(2,), max_iter=5, random_state=0), X, X[:, 0])
    model.coefs_[0][0, 0] = np.nan
    with pytest.raises(InvalidInputError, match=r"coefs_\[0\]: expected finite floats"):
        network_from_sklearn(model, what="model.pkl")
