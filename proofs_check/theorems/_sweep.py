"""The sweep of networks whose exact region counts the architecture-bound checks share.

Random networks on 1-D, 2-D and 3-D inputs with ReLU, hard tanh and leaky ReLU (slope 1/100, torch's default),
drawn three ways: He normal with bias variance 1e-6 (Hanin & Rolnick's set-up), normal weights of variance
2/fan-in with unit-variance biases (which spread the hyperplanes so that counts come near the bounds), and
PyTorch's default uniform initialisation. Small networks are counted in all of ``R^n0`` (1-D: the certified line
count of :mod:`._lines`; 2-D and 3-D: the LP-certified engine on the whole space), larger 2-D ones in the box
``[-1, 1]^2`` (any domain of full dimension ``n0`` satisfies the bounds). Two constructions with known counts
join them: Telgarsky's sawtooth (``2^n`` regions in ``[0, 1]``) and Montufar et al.'s folding network.

Counts are cached per process, so the checks that share the sweep count each network once.
"""

from __future__ import annotations

import os
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["NetSpec", "Counted", "sweep_specs", "count", "count_all", "breakpoints_of", "ACTIVATIONS"]

ACTIVATIONS = ("relu", "hardtanh", "leaky_relu")
LEAKY_SLOPE = Fraction(1, 100)


@dataclass(frozen=True)
class NetSpec:
    """One network of the sweep, as plain data (it travels to worker processes).

    ``init`` is ``he_normal``, ``gaussian`` (unit bias variance), ``pytorch_default``, ``sawtooth`` (``hidden``
    is ``(2,) * n``) or ``montufar`` (``hidden`` is ``(k,) * L``); ``domain`` is ``space``, ``box`` (``[-1, 1]^n0``)
    or ``unit`` (``[0, 1]^n0``).
    """

    n0: int
    hidden: tuple[int, ...]
    activation: str
    init: str
    seed: int
    domain: str

    @property
    def label(self) -> str:
        arch = "-".join(map(str, (self.n0,) + self.hidden))
        if self.init == "sawtooth":
            return f"sawtooth({len(self.hidden)}) in {self.domain_text}"
        if self.init == "montufar":
            return f"montufar({self.n0},{self.hidden[0]},{len(self.hidden)}) in {self.domain_text}"
        return f"{arch} {self.activation} {self.init} seed {self.seed} in {self.domain_text}"

    @property
    def domain_text(self) -> str:
        return {"space": f"R^{self.n0}", "box": f"[-1,1]^{self.n0}", "unit": f"[0,1]^{self.n0}"}[self.domain]

    def activation_object(self):
        from polyregions.networks.activations import hardtanh, leaky_relu, relu

        return {"relu": relu, "hardtanh": hardtanh, "leaky_relu": lambda: leaky_relu(LEAKY_SLOPE)}[self.activation]()

    def build(self) -> "Network":
        from polyregions.networks import constructions, initializers

        widths = [self.n0, *self.hidden]
        act = self.activation_object()
        if self.init == "he_normal":
            return initializers.he_normal(widths, seed=self.seed, activation=act)
        if self.init == "gaussian":
            return initializers.gaussian(widths, seed=self.seed, bias_std=1.0, activation=act)
        if self.init == "pytorch_default":
            return initializers.pytorch_default(widths, seed=self.seed, activation=act)
        if self.init == "sawtooth":
            return constructions.sawtooth(len(self.hidden))
        if self.init == "montufar":
            return constructions.montufar(self.n0, self.hidden[0], len(self.hidden))
        raise ValueError(f"unknown init {self.init!r}")

    @property
    def known_count(self) -> int | None:
        """The count a construction has by theory (None for random networks)."""
        from polyregions.networks.constructions import montufar_regions

        if self.init == "sawtooth" and self.domain == "unit":
            return 2 ** len(self.hidden)
        if self.init == "montufar" and self.domain == "unit":
            return montufar_regions(self.n0, self.hidden[0], len(self.hidden))
        return None


@dataclass(frozen=True)
class Counted:
    """The exact number of activation regions of a :class:`NetSpec` and the seconds it took."""

    spec: NetSpec
    regions: int
    engine: str
    seconds: float


def breakpoints_of(spec: NetSpec) -> int:
    """``T``: 2 for hard tanh, 1 otherwise."""
    return 2 if spec.activation == "hardtanh" else 1


def _domain(spec: NetSpec):
    from polyregions.regions.domains import box, space

    if spec.domain == "space":
        return space(spec.n0)
    lo = 0 if spec.domain == "unit" else -1
    return box([lo] * spec.n0, [1] * spec.n0)


def _count(spec: NetSpec) -> Counted:
    from polyregions.regions.enumeration import enumerate_regions

    from ._lines import regions_on_line

    net = spec.build()
    started = time.perf_counter()
    if spec.domain == "space" and spec.n0 == 1:
        regions, engine = regions_on_line(net)[0], "mesh, certified line"
    else:
        complex_ = enumerate_regions(net, _domain(spec))
        if not complex_.exact:
            raise RuntimeError(f"{spec.label}: the region count is not certified exact")
        regions, engine = len(complex_.regions), complex_.engine
    return Counted(spec, regions, engine, time.perf_counter() - started)


_CACHE: dict[NetSpec, Counted] = {}


def count(spec: NetSpec) -> Counted:
    """The exact count of one network (cached)."""
    if spec not in _CACHE:
        _CACHE[spec] = _count(spec)
    return _CACHE[spec]


def count_all(specs: Iterable[NetSpec], *, workers: int = 1) -> list[Counted]:
    """Exact counts of every spec, in order; ``workers > 1`` runs the uncached ones on a process pool."""
    specs = list(specs)
    todo = [s for s in dict.fromkeys(specs) if s not in _CACHE]
    if workers > 1 and len(todo) > 1:
        # Largest first, so that one slow network does not finish alone at the end.
        todo.sort(key=lambda s: -(sum(s.hidden) * breakpoints_of(s)) ** s.n0)
        with ProcessPoolExecutor(max_workers=workers) as pool:
            for counted in pool.map(_count, todo, chunksize=1):
                _CACHE[counted.spec] = counted
    return [count(s) for s in specs]


def default_workers() -> int:
    return max(1, min(4, os.cpu_count() or 1))


# Architectures (hidden widths) per input dimension. "space" ones are counted in all of R^n0.
_QUICK = {
    1: [((3, 3), "space"), ((4,), "space")],
    2: [((3, 3), "space"), ((8, 8), "box")],
    3: [((3, 3), "space")],
}
_FULL = {
    1: [((3,), "space"), ((8,), "space"), ((2, 2), "space"), ((4, 4), "space"), ((3, 3, 3), "space"),
        ((6, 6, 6), "space"), ((2, 2, 2, 2, 2), "space")],
    2: [((3,), "space"), ((6,), "space"), ((3, 3), "space"), ((4, 4), "space"), ((3, 3, 3), "space"),
        ((16, 16), "box"), ((8, 8, 8), "box"), ((32,), "box")],
    3: [((4,), "space"), ((6,), "space"), ((3, 3), "space"), ((4, 4), "space"), ((2, 2, 2), "space")],
}
_INITS = ("he_normal", "gaussian", "pytorch_default")


def sweep_specs(size: str) -> list[NetSpec]:
    """The networks of the sweep at ``size`` (``quick``: 15 random networks and 4 constructions; ``full``: 243
    random networks and 11 constructions).

    Examples
    --------
    >>> specs = sweep_specs("full")
    >>> sum(s.init not in ("sawtooth", "montufar") for s in specs) >= 200
    True
    >>> sorted({s.n0 for s in specs}), sorted({s.activation for s in specs})
    ([1, 2, 3], ['hardtanh', 'leaky_relu', 'relu'])
    """
    if size not in ("quick", "full"):
        raise ValueError(f"size: expected quick or full, got {size!r}")
    specs = []
    if size == "quick":
        for activation in ACTIVATIONS:
            for n0, archs in _QUICK.items():
                for i, (hidden, domain) in enumerate(archs):
                    specs.append(NetSpec(n0, hidden, activation, _INITS[(i + n0) % 3], 0, domain))
        specs += [NetSpec(1, (2,) * n, "relu", "sawtooth", 0, "unit") for n in (2, 4)]
        specs += [NetSpec(1, (3, 3, 3), "relu", "montufar", 0, "unit"),
                  NetSpec(2, (4, 4), "relu", "montufar", 0, "unit")]
        return specs
    for activation in ACTIVATIONS:
        for n0, archs in _FULL.items():
            seeds = (0, 1) if n0 == 1 else (0,)
            for hidden, domain in archs:
                for init in _INITS:
                    for seed in seeds:
                        specs.append(NetSpec(n0, hidden, activation, init, seed, domain))
    specs += [NetSpec(1, (2,) * n, "relu", "sawtooth", 0, "unit") for n in (1, 2, 3, 4, 5, 6, 8)]
    specs += [NetSpec(1, (3, 3, 3), "relu", "montufar", 0, "unit"),
              NetSpec(1, (4, 4, 4, 4), "relu", "montufar", 0, "unit"),
              NetSpec(2, (4, 4), "relu", "montufar", 0, "unit"), NetSpec(2, (4, 4, 4), "relu", "montufar", 0, "unit")]
    return specs
