"""Large structured layers on a 2-D slice: ``python -m benchmarks.bench_structured``.

The max-pool conv net (:func:`maxpool_conv_net`) reads a 1 x 28 x 28 image: a 2 x 2 convolution with 32 output
channels and ReLU (23,328 ReLUs), 4 x 4 max pooling (1,152 max units over 16 values), a dense read-out of 10.
Its stages are kept sparse from the operations' maps on (:mod:`polyregions.networks.stages`): no dense matrix
of size neurons^2 is ever made, neither when compiling nor in the engines. The dense net has He-normal ReLU
layers of about the same neuron count on the same 784 inputs. Both are enumerated by the mesh engine on a 2-D
slice through an image; the table gives the neurons, the regions, the seconds (compilation, restriction and the
rewriting of the stages included) and the nanoseconds per region and neuron, the engine's rate per neuron.

Measured (2 shared cores, seed 0, slice half-side 0.01): the conv net (24,480 neurons) compiles in 0.7 s (81 MB
resident; the dense compile took 77 s and 8.5 GB) and its 413 regions take 16 s, 1,590 ns per region and neuron;
the dense net [784, 23315, 1165, 10] has 5,943 regions on the same slice in 116 s, 800 ns per region and neuron
(the conv net's fixed cost, compiling and rewriting 24,480 units, is spread over few regions). With ``--channels
8 --scale 0.02``: 2,310 ns (951 regions) against 1,750 ns (877 regions).
"""

from __future__ import annotations

import argparse
import time
import tracemalloc
from typing import Callable

import numpy as np

from polyregions.networks.graph import GraphNetwork, Node
from polyregions.networks.network import Network
from polyregions.networks.operations import Activation, Conv, Dense, Flatten, MaxPool
from polyregions.regions.domains import slice_domain
from polyregions.regions.enumeration import enumerate_regions

SIDE = 28


def maxpool_conv_net(seed: int = 0, channels: int = 32, side: int = SIDE, kernel: int = 2,
                     pool: int = 4) -> GraphNetwork:
    """Conv (``channels`` x ``kernel`` x ``kernel``) + ReLU, ``pool`` x ``pool`` max pooling, dense read-out of 10
    on a 1 x ``side`` x ``side`` image; weights are small halves (seeded), exact."""
    rng = np.random.default_rng(seed)
    weight = rng.integers(-4, 5, (channels, 1, kernel, kernel)) / 2
    bias = rng.integers(-2, 3, channels) / 2
    out = (side - kernel + 1 - pool) // pool + 1
    head = rng.integers(-2, 3, (10, channels * out * out)) / 2
    return GraphNetwork((1, side, side), (
        Node("c", Conv(weight, bias), ("input",)),
        Node("r", Activation("relu"), ("c",)),
        Node("p", MaxPool(pool), ("r",)),
        Node("f", Flatten(), ("p",)),
        Node("o", Dense(head, np.zeros(10)), ("f",))), "o")


def dense_net(seed: int, widths: tuple[int, ...], inputs: int = SIDE * SIDE) -> Network:
    """He-normal dense ReLU layers of the given widths and a read-out of 10."""
    rng = np.random.default_rng(seed)
    sizes = (inputs,) + widths
    layers = [(rng.normal(0, np.sqrt(2 / n), (m, n)), rng.normal(0, 0.1, m), "relu")
              for n, m in zip(sizes, sizes[1:])]
    layers.append((rng.normal(0, np.sqrt(2 / sizes[-1]), (10, sizes[-1])), np.zeros(10), "linear"))
    return Network.from_layers(inputs, layers)


def image_slice(seed: int, scale: float = 1.0, side: int = SIDE):
    """Two random directions through a random image (pixels in [0, 1], halves of 1/16), ``[-scale, scale]^2``."""
    rng = np.random.default_rng(seed + 1000)
    origin = rng.integers(0, 17, side * side) / 16
    directions = rng.integers(-8, 9, (2, side * side)) / 16
    return slice_domain(origin, directions, [-scale, -scale], [scale, scale])


def compile_stats(net: GraphNetwork) -> tuple[float, float]:
    """Seconds and peak megabytes (tracemalloc) of compiling the graph into stages."""
    tracemalloc.start()
    started = time.perf_counter()
    net.staged  # noqa: B018 - compiles and caches
    seconds = time.perf_counter() - started
    peak = tracemalloc.get_traced_memory()[1] / 2 ** 20
    tracemalloc.stop()
    return seconds, peak


def _run(net, domain, engine: str = "mesh") -> tuple[int, int, float]:
    started = time.perf_counter()
    complex_ = enumerate_regions(net, domain, engine=engine)
    return len(complex_), complex_.network.num_neurons, time.perf_counter() - started


def cases() -> list[tuple[str, Callable[[], object]]]:
    net, domain = maxpool_conv_net(0, channels=8), image_slice(0, 0.25)
    return [("mesh engine, conv 2x2 (8 ch) + 4x4 max pool net (6,962 neurons), 2-D slice",
             lambda: len(enumerate_regions(net, domain, engine="mesh")))]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=1)
    parser.add_argument("--channels", type=int, default=32)
    parser.add_argument("--scale", type=float, default=0.01, help="half the side of the slice's square")
    parser.add_argument("--engine", default="mesh", choices=("mesh", "lp"))
    args = parser.parse_args(argv)
    net = maxpool_conv_net(0, args.channels)
    seconds, peak = compile_stats(net)
    staged = net.staged
    print(f"compile: {seconds:.2f} s, peak {peak:.0f} MB (tracemalloc), {staged.num_neurons} neurons, "
          f"{sum(stage.nnz for stage in staged.layers)} non-zero weights in {len(staged.layers)} stages")
    print(f"{'case':<34} {'seed':>4} {'neurons':>7} {'regions':>8} {'seconds':>8} {'ns/(region*neuron)':>19}")
    for seed in range(args.seeds):
        domain = image_slice(seed, args.scale)
        conv = maxpool_conv_net(seed, args.channels)
        neurons = conv.staged.num_neurons
        relus = neurons - neurons // 21  # the dense net: a wide layer and a narrower one, as many neurons
        for name, case in ((f"conv 2x2 ({args.channels} ch) + 4x4 max pool", conv),
                           (f"dense [784, {relus}, {neurons - relus}, 10]", dense_net(seed, (relus, neurons - relus)))):
            regions, count, seconds = _run(case, domain, args.engine)
            print(f"{name:<34} {seed:>4} {count:>7} {regions:>8} {seconds:>8.2f} "
                  f"{1e9 * seconds / (regions * count):>19.1f}", flush=True)


if __name__ == "__main__":
    main()
