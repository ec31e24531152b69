"""Count the regions of a network as it trains.

This is the experiment of Qi & Wei (region counts of networks on 2-D data, epoch by epoch) and of Hanin &
Rolnick's Figure 5 (regions along lines through high-dimensional inputs, divided by the number of neurons).
Data come from :mod:`polyregions.experiments.datasets`, the model and its training from
:mod:`polyregions.experiments.models`; at each checkpoint the current float parameters are taken at their exact
rational values, so every count is the exact count of the network the float computation holds at that moment.

* Counting: :func:`count_regions` on a domain, :func:`regions_along_segments` on segments through the data
  (:func:`sample_segments`), and :func:`region_history`, which trains and counts and returns a
  :class:`RegionHistory` of :class:`Record`.
* Keeping checkpoints: :func:`train_with_checkpoints` trains and keeps the exact network every ``k`` optimiser
  steps (and can write each as a network file), for :func:`polyregions.experiments.checkpoints.checkpoint_history`.

Examples
--------
>>> from polyregions.experiments.datasets import moons, square_domain
>>> data = moons(200, seed=0)
>>> history = region_history(data, [8, 8], epochs=2, checkpoints=[0, 2], seed=0,
...                          domain=square_domain(), segments=sample_segments(data.X, 3, seed=0))
>>> [r.epoch for r in history.records], history.neurons
([0, 2], 16)
>>> first = history.records[0]
>>> first.activation_regions == count_regions(first.network, square_domain())["activation_regions"]
True
"""

from __future__ import annotations

import math
import os
import typing
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Sequence

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.experiments.datasets import Dataset, _count
from polyregions.experiments.models import MLP, Initializer, Snapshot, train
from polyregions.networks.initializers import random_generator

if TYPE_CHECKING:
    from polyregions.measures.distances import DistanceKind
    from polyregions.networks.network import Network
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["count_regions", "sample_segments", "regions_along_segments", "Record", "RegionHistory", "Quantity",
           "QUANTITIES", "region_history", "train_with_checkpoints"]


def count_regions(network: "Network", domain: "Domain", *, engine: Engine = "auto") -> dict[str, Any]:
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


def sample_segments(X: Any, count: int, *, seed: Any = 0, kind: Literal["pairs", "origin"] = "pairs"
                    ) -> list[tuple[np.ndarray, np.ndarray]]:
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
    rng = random_generator(seed)
    out: list[tuple[np.ndarray, np.ndarray]] = []
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
                           engine: Engine = "auto") -> list[dict[str, int]]:
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
Quantity = Literal["activation_regions", "linear_regions", "loss", "accuracy", "along_segments",
                   "linear_along_segments", "mean_distance"]
#: The values of :data:`Quantity`, in that order.
QUANTITIES: tuple[Quantity, ...] = typing.get_args(Quantity)


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

    def series(self, quantity: Quantity = "activation_regions", *, per_neuron: bool = False) -> list[float]:
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
            row: dict[str, Any] = {"network": self.name, "epoch": r.epoch, "loss": round(r.loss, 6),
                                   "accuracy": round(r.accuracy, 6)}
            if r.activation_regions is not None:
                row["activation_regions"] = r.activation_regions
                row["linear_regions"] = r.linear_regions
            if r.along_segments is not None:
                row["mean_along_segments"] = sum(r.along_segments) / len(r.along_segments)
                row["mean_along_segments_per_neuron"] = row["mean_along_segments"] / self.neurons
                linear_along = r.linear_along_segments
                assert linear_along is not None  # counted together with along_segments
                row["mean_linear_along_segments"] = sum(linear_along) / len(linear_along)
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
                   seed: Any = 0, init: Initializer = "pytorch", lr: float = 1e-3, batch_size: int = 32,
                   domain: "Domain | None" = None, segments: Sequence[tuple[Any, Any]] | None = None,
                   distance_points: Any = None, distance_kind: DistanceKind = "linear", engine: Engine = "auto",
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


def train_with_checkpoints(data: Dataset, hidden: Sequence[int], *, epochs: float, every: int, seed: Any = 0,
                           init: Initializer = "pytorch", lr: float = 1e-3, batch_size: int = 32,
                           directory: str | os.PathLike | None = None, dtype: Any = np.float32) -> list[Snapshot]:
    """Train a ReLU network as :func:`region_history` does and keep a checkpoint every ``every`` optimiser steps.

    The checkpoints are at steps ``0, every, 2 every, ...`` and at the last step; each :class:`Snapshot` holds
    its ``step``, its (fractional) ``epoch`` and the exact network. With ``directory`` (an existing folder) each
    network is also written there as ``step_000000.json`` (:func:`~polyregions.networks.io.save_network`,
    atomically), ready for ``polyregions checkpoints``.

    Examples
    --------
    >>> from polyregions.experiments.datasets import moons
    >>> snapshots = train_with_checkpoints(moons(64, seed=0), [4], epochs=1, every=1, batch_size=16)
    >>> [s.step for s in snapshots]
    [0, 1, 2, 3, 4]
    """
    every = _count(every, "every", 1)
    hidden = list(hidden)
    if not hidden:
        raise InvalidInputError("hidden: expected at least one hidden width, got none")
    if directory is not None and not os.path.isdir(directory):
        raise InvalidInputError(f"directory: expected an existing folder for the checkpoints, got {directory!r}")
    batch_size = _count(batch_size, "batch_size", 1)
    steps_per_epoch = math.ceil(len(data) / batch_size)
    if isinstance(epochs, bool) or not isinstance(epochs, (int, float, np.integer, np.floating)) \
            or not math.isfinite(epochs) or epochs < 0:
        raise InvalidInputError(f"epochs: expected a non-negative number, got {epochs!r}")
    total = round(epochs * steps_per_epoch)
    steps = sorted(set(range(0, total + 1, every)) | {total})
    # train() takes checkpoints as epochs and rounds them back to steps: step / steps_per_epoch returns to step.
    checkpoints = [min(step / steps_per_epoch, epochs) for step in steps]
    model = MLP.initialize([data.dim] + hidden + [data.num_classes], seed=seed, init=init, dtype=dtype)

    def keep(snapshot: Snapshot) -> None:
        if directory is not None:
            from polyregions.networks.io import save_network

            save_network(snapshot.network, os.path.join(directory, f"step_{snapshot.step:06d}.json"))

    return train(model, data, epochs=epochs, lr=lr, batch_size=batch_size, seed=seed, checkpoints=checkpoints,
                 callback=keep)
