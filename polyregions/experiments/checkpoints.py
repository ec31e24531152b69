"""Regions through training: the exact region complex of every checkpoint and how regions move between them.

Qi & Wei count regions of 2-D networks epoch by epoch; Hanin & Rolnick follow the number of regions and the volume
of the boundary ``B_N`` through training. :func:`checkpoint_history` does both for any sequence of checkpoints
(networks, :class:`~polyregions.experiments.models.Snapshot` objects of the project's training loop, or files
read by :func:`~polyregions.experiments.checkpoint_files.load_checkpoint`: network files, ``.npz``, PyTorch state
dicts, ONNX through :func:`~polyregions.networks.io.load_network`), on one domain:

* per checkpoint, the numbers of activation regions and of linear regions
  (:func:`~polyregions.regions.enumeration.enumerate_regions`), the volumes of ``B_{N,k}`` when the domain is
  bounded (:func:`~polyregions.measures.volumes.boundary_volumes`), and, given data points and a radius, the local
  complexity at the data (:func:`~polyregions.measures.local.local_complexity`);
* between consecutive checkpoints, the matching of their regions by pattern and by overlap
  (:func:`~polyregions.experiments.matching.match_regions`): patterns that persisted, died or were born, regions
  split and merged, and the fraction of the domain where the activation pattern did not change.

Every count and every overlap is decided exactly; :func:`polyregions.plotting.plot_checkpoint_history` draws the
numbers against the checkpoints.

Examples
--------
The sawtooth of depth ``n`` has ``2^n`` pieces on ``[0, 1]``, each split in two by the next depth:

>>> import polyregions as pr
>>> history = checkpoint_history([pr.sawtooth(n) for n in (1, 2, 3)], pr.box([0], [1]))
>>> history.series("activation_regions"), history.series("split")
([2, 4, 8], [2, 4])
"""

from __future__ import annotations

import os
import typing
from dataclasses import dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal, Sequence

from polyregions.errors import InvalidInputError
from polyregions.experiments.matching import RegionMatching, match_regions

if TYPE_CHECKING:
    from polyregions.measures.local import LocalComplexity, Norm
    from polyregions.measures.volumes import BoundaryVolumes
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["CheckpointRecord", "CheckpointHistory", "checkpoint_history", "CheckpointQuantity",
           "CHECKPOINT_QUANTITIES"]

#: The numbers :meth:`CheckpointHistory.series` follows: per checkpoint (the first seven) and per transition
#: between consecutive checkpoints (the rest).
CheckpointQuantity = Literal["activation_regions", "linear_regions", "boundary_volume", "density",
                             "local_activation_regions", "local_linear_regions", "local_neurons_crossing",
                             "persisted", "died", "born", "split", "merged", "one_to_one", "persisted_fraction",
                             "one_to_one_fraction", "stable_fraction"]
#: The values of :data:`CheckpointQuantity`, in that order.
CHECKPOINT_QUANTITIES: tuple[CheckpointQuantity, ...] = typing.get_args(CheckpointQuantity)
_PER_CHECKPOINT = CHECKPOINT_QUANTITIES[:7]
# Boundary volumes by default up to this domain dimension (the face lattice grows fast above it).
_BOUNDARY_DIMENSION = 3


@dataclass(frozen=True)
class CheckpointRecord:
    """The regions of one checkpoint.

    Attributes
    ----------
    label : str
        The file name, ``"step S"`` for a snapshot of the training loop, or ``"checkpoint K"``.
    step : int or None
        The optimiser step of a snapshot (None otherwise), and
    epoch : float or None
        its epoch.
    network : Network
        The exact network (as read: a file may also give a graph of operations).
    regions : RegionComplex
        Its region complex in the history's domain.
    boundary : BoundaryVolumes or None
        The volumes of ``B_{N,k}`` (None when not computed).
    local : LocalComplexity or None
        The local complexity at the data points (None without points).
    """

    label: str
    step: int | None
    epoch: float | None
    network: "Network" = field(repr=False)
    regions: "RegionComplex" = field(repr=False)
    boundary: "BoundaryVolumes | None" = field(default=None, repr=False)
    local: "LocalComplexity | None" = field(default=None, repr=False)

    @property
    def activation_regions(self) -> int:
        """The number of activation regions."""
        return len(self.regions)

    @property
    def linear_regions(self) -> int:
        """The number of linear regions."""
        return int(self.regions.summary()["linear_regions"])

    @property
    def exact(self) -> bool:
        """True when every decision behind the record was certified exactly."""
        return self.regions.exact and (self.local is None or self.local.exact)

    def summary(self) -> dict[str, Any]:
        """One checkpoint of ``polyregions checkpoints --json`` (see :doc:`/formats`)."""
        counts = self.regions.summary()
        out: dict[str, Any] = {"label": self.label, "step": self.step, "epoch": self.epoch,
                               "neurons": counts["neurons"], "activation_regions": counts["activation_regions"],
                               "linear_regions": counts["linear_regions"]}
        if self.boundary is not None:
            volumes = self.boundary.summary()
            for key in ("boundary_volumes", "boundary_volumes_exact", "density", "density_exact"):
                out[key] = volumes[key]
        else:
            out.update(boundary_volumes=None, boundary_volumes_exact=None, density=None, density_exact=None)
        out["local"] = None if self.local is None else self.local.summary()
        out["exact"] = self.exact
        return out


@dataclass(frozen=True)
class CheckpointHistory:
    """The regions of a sequence of checkpoints on one domain, and their matchings.

    Attributes
    ----------
    domain : Domain
    records : tuple of CheckpointRecord
        One per checkpoint, in order.
    matchings : tuple of RegionMatching
        ``matchings[k]`` relates the regions of ``records[k]`` (before) to those of ``records[k + 1]`` (after).
    """

    domain: "Domain"
    records: tuple[CheckpointRecord, ...]
    matchings: tuple[RegionMatching, ...]

    def __len__(self) -> int:
        return len(self.records)

    @property
    def exact(self) -> bool:
        """True when every count and every decision was certified exactly."""
        return all(r.exact for r in self.records)

    def stable_fraction(self, k: int) -> Fraction | None:
        """The fraction of the domain where the activation pattern is the same at checkpoints ``k`` and ``k + 1``
        (exact; None without overlap volumes or comparable patterns)."""
        stable = self.matchings[k].stable_volume
        volume = self.domain.volume()
        return None if stable is None or not volume else stable / volume

    def series(self, quantity: CheckpointQuantity = "activation_regions") -> list[Any]:
        """One number per checkpoint (for the first seven quantities of :data:`CHECKPOINT_QUANTITIES`) or per
        transition (one fewer, for the others); None where it was not computed.

        ``"boundary_volume"`` is the ``(d-1)``-volume of ``B_N`` (a float), ``"density"`` that divided by the
        domain's volume, the ``local_*`` quantities are means over the points, and the fractions are of the
        regions before (``persisted``, ``one_to_one``) or of the domain's volume (``stable``).

        Examples
        --------
        >>> import polyregions as pr
        >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])
        >>> history = checkpoint_history([net, net], pr.box([-1, -1], [1, 1]), points=[[0, 0]], radius=1)
        >>> history.series("boundary_volume"), history.series("local_neurons_crossing")
        ([4.0, 4.0], [2.0, 2.0])
        >>> history.series("persisted_fraction"), history.series("stable_fraction")
        ([1.0], [1.0])
        """
        if quantity not in CHECKPOINT_QUANTITIES:
            raise InvalidInputError(f"quantity: expected one of {', '.join(CHECKPOINT_QUANTITIES)}, got "
                                    f"{quantity!r}")
        if quantity in _PER_CHECKPOINT:
            return [_record_value(r, quantity) for r in self.records]
        out: list[Any] = []
        for k, m in enumerate(self.matchings):
            if quantity == "stable_fraction":
                value = self.stable_fraction(k)
                out.append(None if value is None else float(value))
            elif quantity == "persisted_fraction":
                out.append(None if m.persisted is None else m.persisted / m.before_count)
            elif quantity == "one_to_one_fraction":
                out.append(m.one_to_one / m.before_count)
            else:
                out.append(getattr(m, quantity))
        return out

    def summary(self) -> dict[str, Any]:
        """The one-line JSON of ``polyregions checkpoints --json``: ``input_dim``, ``domain_dim``,
        ``checkpoints`` (one object per checkpoint), ``transitions`` (one per consecutive pair) and ``exact``
        (the keys are listed in :doc:`/formats`)."""
        from polyregions.exact.rationals import format_rational

        transitions = []
        for k, matching in enumerate(self.matchings):
            row: dict[str, Any] = {"from": k, "to": k + 1}
            row.update(matching.summary())
            del row["stable_volume_exact"]  # the exact fraction below says the same in the domain's units
            fraction = self.stable_fraction(k)
            row["stable_fraction"] = None if fraction is None else float(fraction)
            row["stable_fraction_exact"] = None if fraction is None else format_rational(fraction)
            transitions.append(row)
        return {"input_dim": self.domain.input_dim, "domain_dim": self.domain.dim,
                "checkpoints": [r.summary() for r in self.records], "transitions": transitions,
                "exact": self.exact}


def _record_value(record: CheckpointRecord, quantity: str) -> Any:
    if quantity in ("activation_regions", "linear_regions"):
        return getattr(record, quantity)
    if quantity in ("boundary_volume", "density"):
        if record.boundary is None:
            return None
        return record.boundary.values[0] if quantity == "boundary_volume" else record.boundary.density
    local = record.local
    if local is None or not len(local):
        return None
    return float(getattr(local, quantity.removeprefix("local_")).mean())


def checkpoint_history(checkpoints: Sequence[Any], domain: "Domain", *, points: Any = None, radius: Any = None,
                       norm: "Norm" = "inf", boundary: bool | None = None, volumes: bool | None = None,
                       template: Any = None, labels: Sequence[str] | None = None, engine: "Engine" = "auto",
                       progress: bool = False) -> CheckpointHistory:
    """Count, measure and match the regions of a sequence of checkpoints on one domain, exactly.

    Parameters
    ----------
    checkpoints : sequence
        At least one checkpoint: each a :class:`~polyregions.networks.network.Network`, a
        :class:`~polyregions.experiments.models.Snapshot` (e.g. from
        :func:`~polyregions.experiments.training.train_with_checkpoints`) or a file path
        (:func:`~polyregions.experiments.checkpoint_files.load_checkpoint`; a state dict takes the architecture of
        ``template`` or else of the first checkpoint).
    domain : Domain
        Where the regions are counted, in the networks' input space.
    points : array or sequence of points, optional, keyword-only
        Data points for the local complexity (with ``radius``; see
        :func:`~polyregions.measures.local.local_complexity`, whose ``norm`` is passed on).
    radius : number, optional, keyword-only
        The radius of the neighbourhoods, read exactly.
    norm : {"inf", "1", "2"}, keyword-only
    boundary : bool, optional, keyword-only
        Measure the volumes of ``B_{N,k}``; by default when the domain is bounded and of dimension at most 3.
    volumes : bool, optional, keyword-only
        Measure the overlaps of matched regions; by default when the domain is bounded.
    template : torch.nn.Module or Network, optional, keyword-only
        The architecture of state-dict files.
    labels : sequence of str, optional, keyword-only
        One name per checkpoint, for the records and error messages (default: the file name, ``"step S"`` for a
        snapshot, ``"checkpoint K"`` for a network).
    engine : {"auto", "mesh", "lp"}, keyword-only
        The refinement engine (the complexes are the same).
    progress : bool, keyword-only
        Show the progress of each enumeration and local count on a terminal.

    Returns
    -------
    CheckpointHistory

    Raises
    ------
    InvalidInputError
        When a checkpoint cannot be read or does not fit the domain (the message names it), when only one of
        ``points`` and ``radius`` is given, or when boundary volumes are asked for on an unbounded domain.

    Examples
    --------
    A network and the same network with the sign of its first neuron flipped cut the square along the same two
    lines, so every region overlaps one region; but the patterns of the four quadrants are permuted, and no
    pattern stays where it was:

    >>> import polyregions as pr
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])
    >>> flipped = pr.Network.from_layers(2, [([[-1, 0], [0, 1]], [0, 0], "relu")])
    >>> history = checkpoint_history([net, flipped], pr.box([-1, -1], [1, 1]))
    >>> m = history.matchings[0]
    >>> m.one_to_one, m.persisted, m.persisted_overlapping, history.stable_fraction(0)
    (4, 4, 0, Fraction(0, 1))
    """
    from polyregions.measures.local import local_complexity
    from polyregions.measures.volumes import boundary_volumes
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import enumerate_regions

    if not isinstance(domain, Domain):
        raise InvalidInputError(f"domain: expected a Domain (pr.box, pr.load_domain, ...), got {type(domain).__name__}")
    if isinstance(checkpoints, (str, bytes, os.PathLike)) or not hasattr(checkpoints, "__len__") \
            or not len(checkpoints):
        raise InvalidInputError(f"checkpoints: expected a non-empty list of networks, snapshots or files, got "
                                f"{type(checkpoints).__name__}")
    if (points is None) != (radius is None):
        raise InvalidInputError("points, radius: expected both (local complexity at the data) or neither, got only "
                                + ("points" if radius is None else "radius"))
    bounded = domain.is_bounded()
    if boundary is None:
        boundary = bounded and domain.dim <= _BOUNDARY_DIMENSION
    elif boundary and not bounded:
        raise InvalidInputError(f"boundary: expected a bounded domain to measure B_N in, got an unbounded "
                                f"{domain.kind}")
    loaded = _networks(checkpoints, template)
    if labels is not None:
        if isinstance(labels, str) or len(labels) != len(loaded) or not all(isinstance(t, str) for t in labels):
            raise InvalidInputError(f"labels: expected {len(loaded)} strings (one per checkpoint), got {labels!r}")
        loaded = [(label, step, epoch, network) for label, (_, step, epoch, network) in zip(labels, loaded)]
    records = []
    for label, step, epoch, network in loaded:
        if network.input_dim != domain.input_dim:
            raise InvalidInputError(f"{label}: expected a network with {domain.input_dim} inputs (the domain's "
                                    f"input dimension), got {network.input_dim}")
        regions = enumerate_regions(network, domain, engine=engine, progress=progress)
        records.append(CheckpointRecord(
            label, step, epoch, network, regions,
            boundary_volumes(regions) if boundary else None,
            None if points is None else local_complexity(network, points, radius, norm=norm, progress=progress)))
    matchings = tuple(match_regions(a.regions, b.regions, volumes=volumes) for a, b in zip(records, records[1:]))
    return CheckpointHistory(domain, tuple(records), matchings)


def _networks(checkpoints: Sequence[Any], template: Any) -> list[tuple[str, int | None, float | None, Any]]:
    """``(label, step, epoch, network)`` per checkpoint; files are read with the first network as template."""
    from polyregions.experiments.checkpoint_files import load_checkpoint
    from polyregions.experiments.models import Snapshot
    from polyregions.networks.network import Network

    out: list[tuple[str, int | None, float | None, Any]] = []
    for k, item in enumerate(checkpoints):
        if isinstance(item, Snapshot):
            out.append((f"step {item.step}", item.step, item.epoch, item.network))
        elif isinstance(item, (str, os.PathLike)):
            shape = template if template is not None or not out else out[0][3]
            out.append((str(os.fspath(item)), None, None, load_checkpoint(item, template=shape)))
        elif isinstance(item, Network) or hasattr(item, "input_dim"):
            out.append((f"checkpoint {k}", None, None, item))  # a layered network, or a graph of operations
        else:
            raise InvalidInputError(f"checkpoints[{k}]: expected a Network, a Snapshot or a file path, got "
                                    f"{type(item).__name__}")
    return out
