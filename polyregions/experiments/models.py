"""A multilayer perceptron in numpy, trained with Adam, with exact snapshots of its parameters.

:class:`MLP` holds float parameters (ReLU hidden layers, a linear output layer, softmax cross-entropy);
:func:`train` runs Adam on minibatches and takes a :class:`Snapshot` at chosen epochs, each with the exact network
the float parameters stand for (:func:`polyregions.networks.io.network_from_arrays`).

Examples
--------
>>> from polyregions.experiments.datasets import moons
>>> model = MLP.initialize([2, 8, 2], seed=0)
>>> snapshots = train(model, moons(100, seed=0), epochs=1, seed=0)
>>> [s.epoch for s in snapshots], snapshots[-1].network.widths
([0, 1], (8, 2))
"""

from __future__ import annotations

import math
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.experiments.datasets import Dataset, _count
from polyregions.networks.initializers import random_generator

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["MLP", "Snapshot", "train", "Initializer", "INITIALIZERS"]

#: The initialisations of :meth:`MLP.initialize`: PyTorch's default and He-normal.
Initializer = Literal["pytorch", "he"]
#: The values of :data:`Initializer`, in that order.
INITIALIZERS: tuple[Initializer, ...] = typing.get_args(Initializer)


@dataclass(eq=False)
class MLP:
    """Float parameters of a multilayer perceptron: ReLU on every layer but the last, which is linear.

    Mutable on purpose (training updates it in place); :meth:`to_network` takes an exact, immutable snapshot.

    Examples
    --------
    >>> model = MLP.initialize([2, 4, 3], seed=0)
    >>> [W.shape for W in model.weights], model.to_network().widths
    ([(4, 2), (3, 4)], (4, 3))
    """

    weights: list[np.ndarray]
    biases: list[np.ndarray]

    def __post_init__(self) -> None:
        if len(self.weights) != len(self.biases) or not self.weights:
            raise InvalidInputError(f"MLP: expected as many bias vectors as weight matrices (at least one), got "
                                    f"{len(self.biases)} and {len(self.weights)}")
        fan_in = self.weights[0].shape[1] if np.ndim(self.weights[0]) == 2 else None
        for l, (W, b) in enumerate(zip(self.weights, self.biases)):
            if np.ndim(W) != 2 or W.shape[1] != fan_in or np.shape(b) != (W.shape[0],):
                raise InvalidInputError(f"MLP: layer {l}: expected a weight of shape (width, {fan_in}) and a bias of "
                                        f"length width, got {np.shape(W)} and {np.shape(b)}")
            fan_in = W.shape[0]

    @classmethod
    def initialize(cls, widths: Sequence[int], *, seed: Any = 0, init: Initializer = "pytorch",
                   dtype: Any = np.float32) -> "MLP":
        """Random parameters for layer widths ``[input, hidden..., output]``.

        ``init="pytorch"``: weights and biases uniform in ``±1/sqrt(fan_in)`` (PyTorch's ``nn.Linear``, used by
        Qi & Wei); ``init="he"``: He-normal weights and biases with standard deviation ``1e-3`` (Hanin &
        Rolnick). The same draws as :mod:`polyregions.networks.initializers` with the same seed.
        """
        from polyregions.networks.initializers import he_normal, pytorch_default

        widths = list(widths)
        if len(widths) < 3:
            raise InvalidInputError(f"widths: expected [input, hidden..., output] with at least one hidden layer, "
                                    f"got {widths!r}")
        if init not in INITIALIZERS:
            raise InvalidInputError(f"init: expected one of {', '.join(INITIALIZERS)}, got {init!r}")
        make = pytorch_default if init == "pytorch" else he_normal
        network = make(widths[:-1], seed=seed, output_dim=widths[-1], dtype=dtype)
        return cls.from_network(network, dtype=dtype)

    @classmethod
    def from_network(cls, network: "Network", *, dtype: Any = np.float32) -> "MLP":
        """Float copies of a ReLU network's parameters (the nearest ``dtype`` values)."""
        for l, layer in enumerate(network.layers):
            expected = "linear" if l == len(network.layers) - 1 else "relu"
            if layer.activation.name != expected:
                raise InvalidInputError(f"MLP: layers[{l}]: expected a {expected} layer, got "
                                        f"{layer.activation.name}")
        pairs = network.float_layers()
        return cls([W.astype(dtype) for W, _ in pairs], [b.astype(dtype) for _, b in pairs])

    @property
    def widths(self) -> list[int]:
        """``[input, hidden..., output]``."""
        return [self.weights[0].shape[1]] + [W.shape[0] for W in self.weights]

    @property
    def num_neurons(self) -> int:
        """The number of hidden (ReLU) units."""
        return sum(W.shape[0] for W in self.weights[:-1])

    def copy(self) -> "MLP":
        return MLP([W.copy() for W in self.weights], [b.copy() for b in self.biases])

    def to_network(self) -> "Network":
        """The exact network with these float parameters (each entry at its exact rational value)."""
        from polyregions.networks.io import network_from_arrays

        return network_from_arrays([W.astype(np.float64) for W in self.weights],
                                   [b.astype(np.float64) for b in self.biases], what="MLP")

    def logits(self, X: np.ndarray) -> np.ndarray:
        """The outputs (float) on a batch of inputs."""
        return self._forward(np.asarray(X, dtype=self.weights[0].dtype))[0]

    def predict(self, X: np.ndarray) -> np.ndarray:
        """The predicted classes (argmax of the outputs)."""
        return self.logits(X).argmax(axis=1)

    def _forward(self, X: np.ndarray):
        activations = [X]
        h = X
        for l, (W, b) in enumerate(zip(self.weights, self.biases)):
            z = h @ W.T + b
            h = z if l == len(self.weights) - 1 else np.maximum(z, 0)
            activations.append(h)
        return h, activations

    def loss_and_gradients(self, X: np.ndarray, y: np.ndarray) -> tuple[float, list[np.ndarray], list[np.ndarray]]:
        """Mean softmax cross-entropy on a batch and its gradients (backpropagation)."""
        logits, activations = self._forward(X)
        shifted = logits - logits.max(axis=1, keepdims=True)
        log_probabilities = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        n = len(X)
        loss = float(-log_probabilities[np.arange(n), y].mean())
        delta = np.exp(log_probabilities)
        delta[np.arange(n), y] -= 1
        delta /= n
        grads_W, grads_b = [], []
        for l in range(len(self.weights) - 1, -1, -1):
            grads_W.append(delta.T @ activations[l])
            grads_b.append(delta.sum(axis=0))
            if l:
                delta = (delta @ self.weights[l]) * (activations[l] > 0)
        return loss, grads_W[::-1], grads_b[::-1]


class _Adam:
    def __init__(self, model: MLP, lr: float, betas=(0.9, 0.999), eps: float = 1e-8) -> None:
        self.model, self.lr, self.betas, self.eps = model, lr, betas, eps
        self.m = [np.zeros_like(p) for p in model.weights + model.biases]
        self.v = [np.zeros_like(p) for p in model.weights + model.biases]
        self.t = 0

    def step(self, grads: list[np.ndarray]) -> None:
        self.t += 1
        b1, b2 = self.betas
        params = self.model.weights + self.model.biases
        for p, g, m, v in zip(params, grads, self.m, self.v):
            m *= b1
            m += (1 - b1) * g
            v *= b2
            v += (1 - b2) * g * g
            m_hat = m / (1 - b1 ** self.t)
            v_hat = v / (1 - b2 ** self.t)
            p -= (self.lr * m_hat / (np.sqrt(v_hat) + self.eps)).astype(p.dtype)


@dataclass(frozen=True)
class Snapshot:
    """The model at one checkpoint: ``epoch`` (possibly fractional), the optimiser ``step``, the mean
    training ``loss`` and ``accuracy`` (floats) and the exact ``network``."""

    epoch: float
    step: int
    loss: float
    accuracy: float
    network: "Network" = field(repr=False)


def _evaluate(model: MLP, data: Dataset) -> tuple[float, float]:
    X = data.X.astype(model.weights[0].dtype)
    loss, _, _ = model.loss_and_gradients(X, data.y)
    return loss, float((model.predict(X) == data.y).mean())


def train(model: MLP, data: Dataset, *, epochs: float, lr: float = 1e-3, batch_size: int = 32, seed: Any = 0,
          checkpoints: Sequence[float] | None = None,
          callback: Callable[[Snapshot], None] | None = None) -> list[Snapshot]:
    """Train ``model`` in place with Adam on minibatches (reshuffled every epoch); return the snapshots.

    ``checkpoints`` are epochs (fractions allowed: ``0.25`` is a quarter of the first epoch's minibatches) at
    which a :class:`Snapshot` is taken; by default ``0`` and ``epochs``. ``callback`` sees each snapshot as it
    is taken.

    Examples
    --------
    >>> from polyregions.experiments.datasets import moons
    >>> model = MLP.initialize([2, 8, 2], seed=0)
    >>> snapshots = train(model, moons(200, seed=0), epochs=20, lr=0.01, seed=0)
    >>> [s.epoch for s in snapshots], snapshots[-1].loss < snapshots[0].loss
    ([0, 20], True)
    """
    if not isinstance(model, MLP):
        raise InvalidInputError(f"train: expected an MLP, got {type(model).__name__}")
    if model.widths[0] != data.dim or model.widths[-1] < data.num_classes:
        raise InvalidInputError(f"train: expected a model with {data.dim} inputs and at least {data.num_classes} "
                                f"outputs for this data, got widths {model.widths}")
    if isinstance(epochs, bool) or not isinstance(epochs, (int, float, np.integer, np.floating)) \
            or not math.isfinite(epochs) or epochs < 0:
        raise InvalidInputError(f"epochs: expected a non-negative number, got {epochs!r}")
    batch_size = _count(batch_size, "batch_size", 1)
    if not (isinstance(lr, (int, float)) and not isinstance(lr, bool) and math.isfinite(lr) and lr > 0):
        raise InvalidInputError(f"lr: expected a positive learning rate, got {lr!r}")
    checkpoints = [0, epochs] if checkpoints is None else list(checkpoints)
    for c in checkpoints:
        if isinstance(c, bool) or not isinstance(c, (int, float, np.integer, np.floating)) or not 0 <= c <= epochs:
            raise InvalidInputError(f"checkpoints: expected epochs between 0 and {epochs}, got {c!r}")
    rng = random_generator(seed)
    n = len(data)
    steps_per_epoch = math.ceil(n / batch_size)
    total = round(epochs * steps_per_epoch)
    wanted = sorted({(round(c * steps_per_epoch), c) for c in checkpoints})
    X = data.X.astype(model.weights[0].dtype)
    y = data.y
    optimizer = _Adam(model, float(lr))
    snapshots: list[Snapshot] = []

    def take(step: int, epoch: float) -> None:
        loss, accuracy = _evaluate(model, data)
        snapshot = Snapshot(epoch, step, loss, accuracy, model.to_network())
        snapshots.append(snapshot)
        if callback is not None:
            callback(snapshot)

    position = 0
    step = 0
    order = rng.permutation(n)
    while True:
        while position < len(wanted) and wanted[position][0] == step:
            take(step, wanted[position][1])
            position += 1
        if step >= total:
            break
        k = step % steps_per_epoch
        if k == 0 and step:
            order = rng.permutation(n)
        batch = order[k * batch_size:(k + 1) * batch_size]
        _, grads_W, grads_b = model.loss_and_gradients(X[batch], y[batch])
        optimizer.step(grads_W + grads_b)
        step += 1
    return snapshots
