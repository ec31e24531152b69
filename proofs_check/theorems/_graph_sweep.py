"""Small random maxout and convolutional networks (graph networks) and their exact region counts, for the
architecture-bound checks of :mod:`.maxout` and :mod:`.xiong_conv`.

Weights are seeded normal numbers rounded to multiples of 1/64 (exact, and generic enough that counts come near
the bounds); biases likewise, with unit spread so that the hyperplanes cross inside the domain.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["GraphSpec", "Counted", "count", "maxout_specs", "conv_specs"]


@dataclass(frozen=True)
class GraphSpec:
    """One network: ``kind`` is ``maxout`` (``layers`` = ((units, rank), ...)) or ``conv`` (``layers`` = the
    first layer ``(C_out, kernel, stride, padding)`` then the widths of later dense ReLU layers);
    ``input_shape`` is the network's input; ``domain`` is ``box`` ([-3, 3]^n) or ``slice`` (a 2-D slice through
    the origin along two seeded directions, ``[-2, 2]^2``)."""

    kind: str
    input_shape: tuple[int, ...]
    layers: tuple
    seed: int
    domain: str = "box"

    @property
    def input_dim(self) -> int:
        return int(np.prod(self.input_shape))

    @property
    def domain_dim(self) -> int:
        return 2 if self.domain == "slice" else self.input_dim

    @property
    def label(self) -> str:
        shape = "x".join(map(str, self.input_shape))
        where = "2-D slice" if self.domain == "slice" else f"[-3,3]^{self.input_dim}"
        return f"{self.kind} {shape} {list(self.layers)} seed {self.seed} in {where}"


@dataclass(frozen=True)
class Counted:
    spec: GraphSpec
    regions: int
    exact: bool
    seconds: float


def _numbers(rng: np.random.Generator, shape: tuple[int, ...], scale: float = 1.0) -> np.ndarray:
    return np.round(rng.normal(size=shape) * scale * 64) / 64  # multiples of 1/64: exact binary numbers


def build(spec: GraphSpec):
    """The :class:`~polyregions.networks.graph.GraphNetwork` of a spec."""
    from polyregions.networks import operations as ops
    from polyregions.networks.graph import GraphNetwork, Node

    rng = np.random.default_rng(spec.seed)
    nodes: list[Node] = []
    previous, size = "input", spec.input_dim
    if spec.kind == "maxout":
        for i, (units, rank) in enumerate(spec.layers):
            nodes.append(Node(f"dense{i}", ops.Dense(_numbers(rng, (units * rank, size), size ** -0.5),
                                                     _numbers(rng, (units * rank,))), (previous,)))
            nodes.append(Node(f"maxout{i}", ops.Maxout(rank), (f"dense{i}",)))
            previous, size = f"maxout{i}", units
        return GraphNetwork(spec.input_shape, tuple(nodes), previous)
    (c_out, kernel, stride, padding), *later = spec.layers
    c_in = spec.input_shape[0]
    axes = len(spec.input_shape) - 1
    weight = _numbers(rng, (c_out, c_in) + (kernel,) * axes, (c_in * kernel ** axes) ** -0.5)
    nodes.append(Node("conv", ops.Conv(weight, _numbers(rng, (c_out,)), stride=(stride,) * axes,
                                       padding=(padding,) * axes), ("input",)))
    nodes.append(Node("relu0", ops.Activation("relu"), ("conv",)))
    nodes.append(Node("flat", ops.Flatten(), ("relu0",)))
    previous = "flat"
    net = GraphNetwork(spec.input_shape, tuple(nodes), previous)
    size = net.output_dim
    for i, width in enumerate(later, start=1):
        nodes.append(Node(f"dense{i}", ops.Dense(_numbers(rng, (width, size), size ** -0.5),
                                                 _numbers(rng, (width,))), (previous,)))
        nodes.append(Node(f"relu{i}", ops.Activation("relu"), (f"dense{i}",)))
        previous, size = f"relu{i}", width
    return GraphNetwork(spec.input_shape, tuple(nodes), previous)


def _domain(spec: GraphSpec):
    from polyregions.regions.domains import box, slice_domain

    n = spec.input_dim
    if spec.domain == "box":
        return box([-3] * n, [3] * n)
    rng = np.random.default_rng(spec.seed + 1000)
    directions = [[Fraction(v) for v in _numbers(rng, (n,))] for _ in range(2)]
    return slice_domain([0] * n, directions, [-2, -2], [2, 2])


_CACHE: dict[GraphSpec, Counted] = {}


def count(spec: GraphSpec) -> Counted:
    """The exact number of activation regions of a spec in its domain (cached per process)."""
    if spec not in _CACHE:
        from polyregions.regions.enumeration import enumerate_regions

        started = time.perf_counter()
        complex_ = enumerate_regions(build(spec), _domain(spec))
        _CACHE[spec] = Counted(spec, len(complex_.regions), bool(complex_.exact), time.perf_counter() - started)
    return _CACHE[spec]


def maxout_specs(size: str) -> list[GraphSpec]:
    """Maxout networks on 1-D and 2-D inputs (quick: 12; full: 60), ranks 2 to 4, one to three layers."""
    archs = {1: [((3, 3),), ((2, 4), (2, 3)), ((2, 2), (2, 2), (2, 3))],
             2: [((3, 3),), ((2, 3), (2, 3)), ((4, 2),) + ((2, 4),)]}
    seeds = range(2) if size == "quick" else range(10)
    return [GraphSpec("maxout", (n0,), arch, seed) for n0, group in archs.items() for arch in group
            for seed in seeds]


def conv_specs(size: str) -> list[GraphSpec]:
    """Convolutional ReLU networks: 1-D inputs of 3 and 4 entries and a 2x2 image counted in the whole input box,
    a 5x5 image on 2-D slices (quick: 10; full: 40)."""
    archs = [((1, 4), ((2, 2, 2, 0),)), ((1, 4), ((2, 2, 1, 0), 3)), ((1, 3), ((2, 2, 1, 1),)),
             ((1, 2, 2), ((2, 2, 1, 1),)), ((1, 5, 5), ((2, 3, 2, 0), 4), "slice")]
    seeds = range(2) if size == "quick" else range(8)
    return [GraphSpec("conv", shape, layers, seed, *rest) for shape, layers, *rest in archs for seed in seeds]
