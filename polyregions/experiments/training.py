"""Train small ReLU networks and count their regions as training goes.

This is the experiment of Qi & Wei (region counts of networks on 2-D data, epoch by epoch) and of Hanin &
Rolnick's Figure 5 (regions along lines through high-dimensional inputs, divided by the number of neurons).
Training runs in numpy (a multilayer perceptron with ReLU hidden layers, a linear output layer, softmax
cross-entropy and Adam); at each checkpoint the current float parameters are taken at their exact rational
values (:func:`polyregions.networks.io.network_from_arrays`), so every count is the exact count of the network
the float computation holds at that moment.

* Data: :func:`moons`, :func:`gaussian_quantiles`, :func:`random_labels` (numpy, scaled to ``[-1, 1]^2`` as in
  Qi & Wei) and :func:`digits` (scikit-learn's 8x8 digits, 64-D, an optional dependency).
* Training: :class:`MLP` (float parameters), :func:`train` (snapshots at chosen epochs, fractions allowed).
* Counting: :func:`count_regions` on a domain, :func:`regions_along_segments` on segments through the data
  (:func:`sample_segments`), and :func:`region_history`, which does all of it and returns a
  :class:`RegionHistory`.

Examples
--------
>>> data = moons(200, seed=0)
>>> history = region_history(data, [8, 8], epochs=2, checkpoints=[0, 2], seed=0,
...                          domain=square_domain(), segments=sample_segments(data.X, 3, seed=0))
>>> [r.epoch for r in history.records], history.neurons
([0, 2], 16)
>>> history.records[0].activation_regions == count_regions(history.records[0].network, square_domain())["activation_regions"]
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Sequence

import numpy as np

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.regions.domains import Domain
    from polyregions.networks.network import Network

__all__ = [
    "Dataset",
    "moons",
    "gaussian_quantiles",
    "random_labels",
    "digits",
    "square_domain",
    "MLP",
    "Snapshot",
    "train",
    "count_regions",
    "sample_segments",
    "regions_along_segments",
    "Record",
    "RegionHistory",
    "QUANTITIES",
    "region_history",
]


# --- data ---------------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class Dataset:
    """Labelled points: ``X`` of shape ``(n, dim)`` (float64) and integer labels ``y`` in ``0..num_classes-1``.

    The arrays are read-only copies.

    Examples
    --------
    >>> Dataset([[0, 0], [1, 1]], [0, 1]).num_classes
    2
    """

    X: np.ndarray
    y: np.ndarray
    num_classes: int = field(default=None)  # type: ignore[assignment]
    name: str = ""

    def __post_init__(self) -> None:
        X = np.array(self.X, dtype=np.float64)
        y = np.array(self.y)
        if X.ndim != 2 or not len(X):
            raise InvalidInputError(f"dataset: X: expected a non-empty 2-D array, got shape {X.shape}")
        if not np.all(np.isfinite(X)):
            raise InvalidInputError("dataset: X: expected finite numbers, got NaN or infinity")
        if y.shape != (len(X),) or (len(y) and not np.issubdtype(y.dtype, np.integer)):
            raise InvalidInputError(f"dataset: y: expected {len(X)} integer labels, got an array of shape {y.shape} "
                                    f"and type {y.dtype}")
        y = y.astype(np.int64)
        if y.min() < 0:
            raise InvalidInputError(f"dataset: y: expected labels 0, 1, ..., got {int(y.min())}")
        classes = int(y.max()) + 1 if self.num_classes is None else self.num_classes
        if isinstance(classes, bool) or not isinstance(classes, (int, np.integer)) or classes < max(2, int(y.max()) + 1):
            raise InvalidInputError(f"dataset: num_classes: expected an integer of at least "
                                    f"{max(2, int(y.max()) + 1)}, got {classes!r}")
        X.setflags(write=False)
        y.setflags(write=False)
        object.__setattr__(self, "X", X)
        object.__setattr__(self, "y", y)
        object.__setattr__(self, "num_classes", int(classes))

    def __len__(self) -> int:
        return len(self.X)

    @property
    def dim(self) -> int:
        """The input dimension."""
        return self.X.shape[1]


def _count(n_samples: Any, what: str, minimum: int = 2) -> int:
    if isinstance(n_samples, bool) or not isinstance(n_samples, (int, np.integer)) or n_samples < minimum:
        raise InvalidInputError(f"{what}: expected an integer of at least {minimum}, got {n_samples!r}")
    return int(n_samples)


def _rng(seed: Any) -> np.random.Generator:
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, (int, np.integer)) and not isinstance(seed, bool) and seed >= 0:
        return np.random.default_rng(int(seed))
    raise InvalidInputError(f"seed: expected a non-negative integer or a numpy Generator, got {seed!r}")


def _to_square(X: np.ndarray) -> np.ndarray:
    """Rescale each coordinate affinely onto [-1, 1] (Qi & Wei's data range)."""
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = np.where(hi > lo, hi - lo, 1.0)
    return 2 * (X - lo) / span - 1


def moons(n_samples: int = 1000, *, noise: float = 0.1, seed: Any = 0) -> Dataset:
    """Two interleaving half circles with Gaussian noise (the construction of scikit-learn's ``make_moons``),
    rescaled onto ``[-1, 1]^2``; labels 0 (upper moon) and 1 (lower moon).

    Examples
    --------
    >>> data = moons(100, seed=0)
    >>> data.X.shape, float(data.X.min()), float(data.X.max()), np.bincount(data.y).tolist()
    ((100, 2), -1.0, 1.0, [50, 50])
    """
    n = _count(n_samples, "moons: n_samples")
    rng = _rng(seed)
    outer, inner = n // 2, n - n // 2
    a = np.linspace(0, np.pi, outer)
    b = np.linspace(0, np.pi, inner)
    X = np.concatenate([np.stack([np.cos(a), np.sin(a)], axis=1),
                        np.stack([1 - np.cos(b), 0.5 - np.sin(b)], axis=1)])
    y = np.concatenate([np.zeros(outer, dtype=np.int64), np.ones(inner, dtype=np.int64)])
    X = X + rng.normal(0.0, float(noise), size=X.shape)
    order = rng.permutation(n)
    return Dataset(_to_square(X[order]), y[order], 2, "moons")


def gaussian_quantiles(n_samples: int = 1000, *, n_classes: int = 5, dim: int = 2, seed: Any = 0) -> Dataset:
    """Standard normal points in nested shells of equal size (the construction of scikit-learn's
    ``make_gaussian_quantiles``): class ``k`` holds the ``k``-th fifth (for 5 classes) of the points by distance
    from the centre. Rescaled onto ``[-1, 1]^dim``.

    Examples
    --------
    >>> np.bincount(gaussian_quantiles(100, seed=0).y).tolist()
    [20, 20, 20, 20, 20]
    """
    n = _count(n_samples, "gaussian_quantiles: n_samples")
    k = _count(n_classes, "gaussian_quantiles: n_classes")
    d = _count(dim, "gaussian_quantiles: dim", 1)
    rng = _rng(seed)
    X = rng.normal(size=(n, d))
    order = np.argsort((X ** 2).sum(axis=1), kind="stable")
    y = np.empty(n, dtype=np.int64)
    y[order] = np.arange(n) * k // n
    return Dataset(_to_square(X), y, k, "gaussian quantiles")


def random_labels(n_samples: int, *, n_classes: int = 2, dim: int = 2, seed: Any = 0) -> Dataset:
    """Points uniform in ``[-1, 1]^dim`` with labels drawn uniformly at random (Qi & Wei's random data).

    Examples
    --------
    >>> data = random_labels(50, seed=1)
    >>> bool(np.all(np.abs(data.X) <= 1)), data.num_classes
    (True, 2)
    """
    n = _count(n_samples, "random_labels: n_samples")
    k = _count(n_classes, "random_labels: n_classes")
    d = _count(dim, "random_labels: dim", 1)
    rng = _rng(seed)
    return Dataset(rng.uniform(-1.0, 1.0, size=(n, d)), rng.integers(0, k, size=n), k, "random labels")


def digits() -> Dataset:
    """scikit-learn's 8x8 handwritten digits: 1797 points in ``[0, 1]^64`` (pixel values / 16), 10 classes.

    Needs scikit-learn (the data ship with it; nothing is downloaded).
    """
    try:
        from sklearn.datasets import load_digits
    except ImportError:
        from polyregions.errors import MissingDependencyError
        raise MissingDependencyError("digits: needs scikit-learn: pip install scikit-learn") from None
    bunch = load_digits()
    return Dataset(np.asarray(bunch.data, dtype=np.float64) / 16.0, np.asarray(bunch.target), 10, "digits")


def square_domain(half_width: Any = 1) -> "Domain":
    """The box ``[-h, h]^2`` where Qi & Wei count regions (``h = 1``).

    Examples
    --------
    >>> square_domain().volume()
    Fraction(4, 1)
    """
    from polyregions.regions.domains import box

    return box([-half_width, -half_width], [half_width, half_width], what="square_domain")


# --- the model ----------------------------------------------------------------------------------------------

INITIALIZERS = ("pytorch", "he")


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
    def initialize(cls, widths: Sequence[int], *, seed: Any = 0, init: str = "pytorch",
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
    rng = _rng(seed)
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


# --- counting -----------------------------------------------------------------------------------------------

def count_regions(network: "Network", domain: "Domain", *, engine: str = "auto") -> dict[str, Any]:
    """Exact numbers of activation and linear regions of ``network`` in ``domain`` (the summary of
    :meth:`RegionComplex.summary <polyregions.regions.complex.RegionComplex.summary>`).

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> count_regions(sawtooth(3), box([0], [1]))["linear_regions"]
    8
    """
    from polyregions.regions.enumeration import enumerate_regions

    return enumerate_regions(network, domain, engine=engine).summary()


def sample_segments(X: Any, count: int, *, seed: Any = 0, kind: str = "pairs") -> list[tuple[np.ndarray, np.ndarray]]:
    """Random segments through the data: between two distinct data points (``kind="pairs"``) or from the
    origin to a data point (``kind="origin"``, Qi & Wei's lines).

    Examples
    --------
    >>> [(start, end)] = sample_segments([[0, 0], [1, 2]], 1, seed=0)  # the only pair, in some order
    >>> sorted([start.tolist(), end.tolist()])
    [[0.0, 0.0], [1.0, 2.0]]
    """
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or len(X) < 2:
        raise InvalidInputError(f"sample_segments: X: expected at least two points in a 2-D array, got shape {X.shape}")
    count = _count(count, "sample_segments: count", 1)
    if kind not in ("pairs", "origin"):
        raise InvalidInputError(f"sample_segments: kind: expected 'pairs' or 'origin', got {kind!r}")
    rng = _rng(seed)
    out = []
    while len(out) < count:
        if kind == "pairs":
            i, j = rng.choice(len(X), size=2, replace=False)
            start, end = X[i], X[j]
        else:
            start, end = np.zeros(X.shape[1]), X[rng.integers(len(X))]
        if np.array_equal(start, end):
            continue
        out.append((start.copy(), end.copy()))
    return out


def regions_along_segments(network: "Network", segments: Sequence[tuple[Any, Any]], *,
                           engine: str = "auto") -> list[dict[str, int]]:
    """For each segment, the exact numbers of activation regions and of linear regions it crosses.

    Endpoints are read exactly (floats at their binary value); each count comes from the region complex of
    the 1-D domain :func:`polyregions.regions.domains.segment`.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")])
    >>> regions_along_segments(net, [([-1, -1], [1, 1]), ([-1, 1], [1, 1])])
    [{'activation_regions': 2, 'linear_regions': 2}, {'activation_regions': 2, 'linear_regions': 2}]
    """
    from polyregions.regions.domains import segment
    from polyregions.regions.enumeration import enumerate_regions

    out = []
    for k, (start, end) in enumerate(segments):
        complex_ = enumerate_regions(network, segment(list(np.asarray(start, dtype=float).tolist()),
                                                      list(np.asarray(end, dtype=float).tolist()),
                                                      what=f"segments[{k}]"), engine=engine)
        out.append({"activation_regions": len(complex_), "linear_regions": len(complex_.linear_regions)})
    return out


@dataclass(frozen=True)
class Record:
    """Counts at one checkpoint of a training run.

    Attributes
    ----------
    epoch, loss, accuracy : float
    activation_regions, linear_regions : int or None
        Exact counts in the run's domain (None without a domain).
    along_segments, linear_along_segments : tuple of int or None
        Exact numbers of activation / linear regions crossed by each segment (None without segments).
    network : Network
        The exact network at this checkpoint.
    mean_distance : float or None
        The mean distance from the run's sample points to the boundary (None without points), and
    mean_distance_bounds : (float, float) or None
        proven bounds on it (:func:`polyregions.measures.distances.boundary_distances`).
    """

    epoch: float
    loss: float
    accuracy: float
    activation_regions: int | None
    linear_regions: int | None
    along_segments: tuple[int, ...] | None
    linear_along_segments: tuple[int, ...] | None
    network: "Network" = field(repr=False)
    mean_distance: float | None = None
    mean_distance_bounds: tuple[float, float] | None = None


#: The quantities :meth:`RegionHistory.series` follows.
QUANTITIES = ("activation_regions", "linear_regions", "loss", "accuracy", "along_segments", "linear_along_segments",
              "mean_distance")


@dataclass(frozen=True)
class RegionHistory:
    """Region counts of one training run, checkpoint by checkpoint.

    Attributes
    ----------
    name : str
        A label such as ``"[16, 16, 16]"`` (the hidden widths, as in the papers' legends).
    widths : tuple of int
        ``(input, hidden..., output)``.
    records : tuple of Record
    """

    name: str
    widths: tuple[int, ...]
    records: tuple[Record, ...]

    @property
    def neurons(self) -> int:
        """The number of hidden neurons ``N``."""
        return sum(self.widths[1:-1])

    @property
    def epochs(self) -> list[float]:
        return [r.epoch for r in self.records]

    def series(self, quantity: str = "activation_regions", *, per_neuron: bool = False) -> list[float]:
        """One number per checkpoint: ``"activation_regions"``, ``"linear_regions"``, ``"loss"``,
        ``"accuracy"``, ``"along_segments"`` / ``"linear_along_segments"`` (the mean over the segments), or
        ``"mean_distance"`` (to the boundary, from the run's sample points).

        ``per_neuron`` divides counts by :attr:`neurons` and multiplies distances by it (Hanin & Rolnick's
        normalisations: both products stay of order one).
        """
        if quantity not in QUANTITIES:
            raise InvalidInputError(f"quantity: expected one of {', '.join(QUANTITIES)}, got {quantity!r}")
        out = []
        for record in self.records:
            value = getattr(record, quantity)
            if quantity == "mean_distance" and value is not None:
                out.append(value * self.neurons if per_neuron else value)
                continue
            if value is None:
                needed = {"along_segments": "segments", "linear_along_segments": "segments",
                          "mean_distance": "distance_points"}.get(quantity, "a domain")
                raise InvalidInputError(f"{quantity}: expected a run that counted it (with {needed}), got "
                                        f"a run without")
            if isinstance(value, tuple):
                value = sum(value) / len(value)
            out.append(value / self.neurons if per_neuron else value)
        return out

    def table(self) -> list[dict[str, Any]]:
        """One row per checkpoint (numbers only), for printing or CSV."""
        rows = []
        for r in self.records:
            row = {"network": self.name, "epoch": r.epoch, "loss": round(r.loss, 6), "accuracy": round(r.accuracy, 6)}
            if r.activation_regions is not None:
                row["activation_regions"] = r.activation_regions
                row["linear_regions"] = r.linear_regions
            if r.along_segments is not None:
                row["mean_along_segments"] = sum(r.along_segments) / len(r.along_segments)
                row["mean_along_segments_per_neuron"] = row["mean_along_segments"] / self.neurons
                row["mean_linear_along_segments"] = sum(r.linear_along_segments) / len(r.linear_along_segments)
            if r.mean_distance is not None:
                row["mean_distance"] = r.mean_distance
                row["mean_distance_times_neurons"] = r.mean_distance * self.neurons
            rows.append(row)
        return rows


def _mean_bounds(lower: np.ndarray, upper: np.ndarray) -> tuple[float, float]:
    """Bounds on the mean of numbers known to lie in ``[lower_i, upper_i]``, rounded outwards.

    ``math.fsum`` is correctly rounded and the division by ``n`` rounds once more: two steps of one unit in the
    last place outwards cover both roundings.
    """
    n = len(lower)
    low = math.fsum(lower.tolist()) / n
    high = math.fsum(upper.tolist()) / n
    for _ in range(2):
        low, high = math.nextafter(low, -math.inf), math.nextafter(high, math.inf)
    return low, high


def region_history(data: Dataset, hidden: Sequence[int], *, epochs: float, checkpoints: Sequence[float] | None = None,
                   seed: Any = 0, init: str = "pytorch", lr: float = 1e-3, batch_size: int = 32,
                   domain: "Domain | None" = None, segments: Sequence[tuple[Any, Any]] | None = None,
                   distance_points: Any = None, distance_kind: str = "linear", engine: str = "auto",
                   dtype: Any = np.float32) -> RegionHistory:
    """Train a ReLU network with hidden widths ``hidden`` on ``data`` and count its regions at each checkpoint.

    Counts are exact: in ``domain`` (activation and linear regions, e.g. :func:`square_domain` for 2-D data)
    and/or along each of ``segments`` (e.g. :func:`sample_segments`, for data in any dimension). With
    ``distance_points`` (an array of inputs), the mean distance from them to the boundary of linear regions
    (``distance_kind="linear"``, Hanin & Rolnick's Figure 6) or of activation regions is recorded too, with
    proven bounds (:func:`polyregions.measures.distances.boundary_distances`). The model has ``data.num_classes``
    outputs, Adam with learning rate ``lr`` and minibatches of ``batch_size`` (Qi & Wei: ``1e-3`` and 32);
    ``init`` as in :meth:`MLP.initialize`.
    """
    hidden = list(hidden)
    if not hidden:
        raise InvalidInputError("hidden: expected at least one hidden width, got none")
    if domain is None and not segments and distance_points is None:
        raise InvalidInputError("region_history: expected a domain or segments to count regions in (or points "
                                "to measure distances from), got none of them")
    if distance_points is not None:
        distance_points = np.asarray(distance_points, dtype=np.float64)
        if distance_points.ndim != 2 or distance_points.shape[1] != data.dim or not len(distance_points):
            raise InvalidInputError(f"distance_points: expected an array of shape (count, {data.dim}), got shape "
                                    f"{distance_points.shape}")
    widths = [data.dim] + hidden + [data.num_classes]
    model = MLP.initialize(widths, seed=seed, init=init, dtype=dtype)
    records = []

    def count(snapshot: Snapshot) -> None:
        net = snapshot.network
        active = linear = along = linear_along = None
        if domain is not None:
            summary = count_regions(net, domain, engine=engine)
            active, linear = summary["activation_regions"], summary["linear_regions"]
        if segments:
            counts = regions_along_segments(net, segments, engine=engine)
            along = tuple(c["activation_regions"] for c in counts)
            linear_along = tuple(c["linear_regions"] for c in counts)
        distance = bounds = None
        if distance_points is not None:
            from polyregions.measures.distances import boundary_distances

            result = boundary_distances(net, distance_points, kind=distance_kind)
            finite = np.isfinite(result.values)  # a point with no boundary at all is left out
            if finite.any():
                distance = float(result.values[finite].mean())
                bounds = _mean_bounds(result.lower[finite], result.upper[finite])
        records.append(Record(snapshot.epoch, snapshot.loss, snapshot.accuracy, active, linear, along, linear_along,
                              net, distance, bounds))

    train(model, data, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed, checkpoints=checkpoints,
          callback=count)
    return RegionHistory(str(hidden), tuple(widths), tuple(records))

