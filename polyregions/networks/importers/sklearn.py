"""scikit-learn multi-layer perceptrons as exact networks.

scikit-learn stores the weights of layer ``l`` as ``coefs_[l]`` of shape ``(fan_in, fan_out)``: it computes
``x @ W + b``, the transpose of the ``W x + b`` convention of :class:`~polyregions.networks.network.Network`.
:func:`network_from_sklearn` transposes them, so the caller never has to. The output layer is read without its
output function: the network computes the classifier's logits (the values before ``softmax`` or ``logistic``),
which decide the predicted class (the largest logit, or the sign of the single logit of a binary classifier),
and a regressor's prediction itself.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from polyregions.errors import InvalidInputError, MissingDependencyError
from polyregions.networks.activations import Activation, linear, relu
from polyregions.networks.network import Network

__all__ = ["network_from_sklearn"]

_SUPPORTED = {"relu": relu, "identity": linear}


def network_from_sklearn(model: Any, *, what: str | None = None) -> Network:
    """The exact network of a fitted ``MLPClassifier`` or ``MLPRegressor``.

    Parameters
    ----------
    model : sklearn.neural_network.MLPClassifier or MLPRegressor
        A fitted model whose hidden ``activation`` is ``"relu"`` or ``"identity"``.
    what : str, optional
        The name used in error messages (default: the model's class name).

    Returns
    -------
    Network
        One layer per hidden layer with the model's activation, then the output layer with the identity: a
        classifier's logits (before ``softmax`` or ``logistic``), a regressor's prediction. Every weight and bias
        is the exact value of the float scikit-learn stores, with ``coefs_[l]`` transposed to the ``W x + b``
        convention.

    Raises
    ------
    InvalidInputError
        When the model is not an MLP, is not fitted, uses ``tanh`` or ``logistic`` hidden units (not piecewise
        linear, so they have no regions), or holds a non-finite parameter.
    MissingDependencyError
        When scikit-learn is not installed.

    Examples
    --------
    scikit-learn is optional, so the doctest skips the lines that need it:

    >>> from sklearn.neural_network import MLPRegressor  # doctest: +SKIP
    >>> model = MLPRegressor(hidden_layer_sizes=(3,), max_iter=50).fit([[0.0], [1.0]], [0.0, 1.0])  # doctest: +SKIP
    >>> net = network_from_sklearn(model)  # doctest: +SKIP
    >>> net.widths, float(net([0.5])[0]) == model.predict([[0.5]])[0]  # doctest: +SKIP
    ((3, 1), True)
    """
    try:
        from sklearn.neural_network import MLPClassifier, MLPRegressor
    except ImportError:
        raise MissingDependencyError("network_from_sklearn: reading a scikit-learn model needs scikit-learn "
                                     "(pip install scikit-learn)") from None
    if what is not None and not isinstance(what, str):
        raise InvalidInputError(f"what: expected a string or None, got {type(what).__name__}")
    what = what or type(model).__name__
    if not isinstance(model, (MLPClassifier, MLPRegressor)):
        raise InvalidInputError(f"{what}: expected a scikit-learn MLPClassifier or MLPRegressor, "
                                f"got {type(model).__name__}")
    if not hasattr(model, "coefs_") or not hasattr(model, "intercepts_"):
        raise InvalidInputError(f"{what}: expected a fitted model (call fit first), got one without coefs_")
    activation = model.activation
    if activation not in _SUPPORTED:
        raise InvalidInputError(f"{what}: activation: expected 'relu' or 'identity' (piecewise linear), got "
                                f"{activation!r}, which is smooth and has no linear regions")
    weights, biases = [], []
    for index, (coef, intercept) in enumerate(zip(model.coefs_, model.intercepts_)):
        coef, intercept = np.asarray(coef), np.asarray(intercept)
        for field, array in ((f"coefs_[{index}]", coef), (f"intercepts_[{index}]", intercept)):
            if array.dtype.kind != "f" or not np.all(np.isfinite(array)):
                raise InvalidInputError(f"{what}: {field}: expected finite floats, got dtype {array.dtype}"
                                        + ("" if array.dtype.kind != "f" else " with a non-finite entry"))
        weights.append(coef.T)  # scikit-learn computes x @ coef; the network computes coef.T @ x
        biases.append(intercept)
    hidden: list[Activation] = [_SUPPORTED[activation]()] * (len(weights) - 1)
    from polyregions.networks.io import network_from_arrays

    return network_from_arrays(weights, biases, hidden + [linear()], what=what)
