"""Labelled data for training experiments: Qi & Wei's 2-D sets and scikit-learn's digits.

:func:`moons`, :func:`gaussian_quantiles` and :func:`random_labels` are drawn with numpy (the constructions of
scikit-learn's generators) and rescaled onto ``[-1, 1]^2`` as in Qi & Wei; :func:`digits` are scikit-learn's 8x8
digits (64-D, an optional dependency). :func:`square_domain` is the box where Qi & Wei count regions.

Examples
--------
>>> data = moons(100, seed=0)
>>> data.X.shape, data.num_classes, square_domain().dim
((100, 2), 2, 2)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.networks.initializers import random_generator

if TYPE_CHECKING:
    from polyregions.regions.domains import Domain

__all__ = ["Dataset", "moons", "gaussian_quantiles", "random_labels", "digits", "square_domain"]


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
        if isinstance(classes, bool) or not isinstance(classes, (int, np.integer)) \
                or classes < max(2, int(y.max()) + 1):
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
    rng = random_generator(seed)
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
    rng = random_generator(seed)
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
    rng = random_generator(seed)
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
