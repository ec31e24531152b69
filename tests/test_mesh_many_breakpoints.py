"""Activations with many breakpoints in the mesh engine: each new vertex is signed against the breakpoints next to
it (bisection on the doubles, the rest decided by the exact order of the breakpoints), so 2,000 breakpoints cost
about as much as one; every sign stays proven."""

from __future__ import annotations

import math
import random
from fractions import Fraction

import numpy as np
import pytest
from cpu_clock import timed

import polyregions as pr
from polyregions.networks._float_filter import UNCERTAIN, certified_signs, doubles, sorted_breakpoint_signs
from polyregions.networks.activations import piecewise_linear
from polyregions.regions.domains import box, segment
from polyregions.regions.enumeration import enumerate_regions


def _exact_sign(value: Fraction, xi: Fraction) -> int:
    return (value > xi) - (value < xi)


@pytest.mark.parametrize("seed", range(6))
def test_sorted_breakpoint_signs_are_proven_and_at_least_as_strong_as_the_direct_test(seed):
    rng = random.Random(seed)
    T = rng.choice([9, 40, 300])
    xi_exact = sorted({Fraction(rng.randint(-10 ** 6, 10 ** 6), rng.choice([1, 3, 7, 1024, 10 ** 6 + 3]))
                       for _ in range(T)})
    if seed % 2:  # breakpoints closer than a double can tell apart
        xi_exact += [Fraction(1, 3) + Fraction(k, 10 ** 30) for k in range(5)]
        xi_exact = sorted(set(xi_exact))
    xi, xi_err = doubles(xi_exact)
    exact_values = [rng.choice(xi_exact) + rng.choice([0, Fraction(1, 10 ** 40), -Fraction(1, 10 ** 20),
                                                        Fraction(rng.randint(-10 ** 6, 10 ** 6), 999)])
                    for _ in range(400)]
    values, errors = doubles(exact_values)
    errors = errors + np.array([rng.choice([0.0, 0.0, 1e-12, 1e-3, 10.0]) for _ in exact_values])
    values[:3], errors[3:5] = [np.nan, np.inf, -np.inf], np.inf
    signs = sorted_breakpoint_signs(values, errors, xi, xi_err)
    direct = np.stack([certified_signs(values, errors, xi[k], xi_err[k]) for k in range(len(xi_exact))], axis=1)
    proven = signs != UNCERTAIN
    assert (proven | (direct == UNCERTAIN)).all()  # whatever the direct test proves is proven
    assert (signs[direct != UNCERTAIN] == direct[direct != UNCERTAIN]).all()
    for v, k in zip(*np.nonzero(proven)):
        assert signs[v, k] == _exact_sign(exact_values[v], xi_exact[k]), (v, k)
    assert not proven[:5].any()


def _sawtooth(T: int) -> pr.Activation:
    # breakpoints -1, -1 + 2/T, ..., 1 - 2/T: 2,000 of them in [-1, 1)
    return piecewise_linear([Fraction(2 * k - T, T) for k in range(T)], [(-1) ** k * (1 + k % 3) for k in range(T + 1)])


def _inside(T: int, low: Fraction, high: Fraction) -> int:
    """Breakpoints of :func:`_sawtooth` strictly inside (low, high): brute force."""
    return sum(low < Fraction(2 * k - T, T) < high for k in range(T))


@pytest.mark.parametrize("domain, weight, image", [
    (segment([-2], [2]), [[1]], (Fraction(-2), Fraction(2))),
    (segment([Fraction(-1, 2)], [Fraction(1, 2)]), [[1]], (Fraction(-1, 2), Fraction(1, 2))),  # ends on breakpoints
    (box([-1, -1], [1, 1]), [[1, Fraction(1, 2)]], (Fraction(-3, 2), Fraction(3, 2))),
    (box([0, 0], [Fraction(1, 2), Fraction(1, 3)]), [[1, 1]], (Fraction(0), Fraction(5, 6))),
    (segment([-1, -1], [1, Fraction(1, 3)]), [[1, Fraction(1, 2)]], (Fraction(-3, 2), Fraction(7, 6))),
], ids=["segment", "segment ending on breakpoints", "box", "corner on a breakpoint", "2-D segment"])
def test_2000_breakpoints_on_one_neuron_are_counted_quickly(domain, weight, image):
    T = 2000
    dim = len(weight[0])
    net = pr.Network.from_layers(dim, [(weight, [0], _sawtooth(T)), ([[1]], [0], "linear")])
    with timed() as elapsed:
        complex_ = enumerate_regions(net, domain)
    assert complex_.engine == "mesh"
    assert len(complex_.regions) == _inside(T, *image) + 1
    assert elapsed.seconds < 5.0, f"{elapsed.seconds:.1f} s CPU"


@pytest.mark.parametrize("seed", range(3))
def test_many_breakpoints_in_two_layers_agree_with_the_lp_engine(seed):
    rng = np.random.default_rng(seed)
    T = 12  # above the mesh's few-breakpoint path
    act = piecewise_linear([Fraction(2 * k - T, 2 * T) for k in range(T)],
                           [(-1) ** k * (1 + k % 2) for k in range(T + 1)])
    weights = [rng.integers(-3, 4, size=(3, 2)).tolist(), rng.integers(-3, 4, size=(2, 3)).tolist(),
               rng.integers(-3, 4, size=(1, 2)).tolist()]
    weights = [[[Fraction(int(v), 4) for v in row] for row in W] for W in weights]
    biases = [[Fraction(int(v), 8) for v in rng.integers(-4, 5, size=len(W))] for W in weights]
    net = pr.Network.from_layers(2, [(weights[0], biases[0], act), (weights[1], biases[1], act),
                                     (weights[2], biases[2], "linear")])
    domain = box([-1, -1], [1, 1])
    mesh = enumerate_regions(net, domain, engine="mesh")
    lp = enumerate_regions(net, domain, engine="lp")
    assert sorted(r.pattern for r in mesh.regions) == sorted(r.pattern for r in lp.regions)
    assert len(mesh.regions) > 20


def test_the_1d_mesh_is_near_linear_in_the_breakpoints():
    """Eight times the breakpoints cost about ten times the CPU (n log n), where a quadratic mesh would cost 64
    times. Each size is timed three times, in turn, and its least time kept: load on a shared machine then slows
    both sizes alike instead of one."""
    networks = {T: pr.Network.from_layers(1, [([[1]], [0], _sawtooth(T)), ([[1]], [0], "linear")])
                for T in (500, 4000)}
    best = dict.fromkeys(networks, math.inf)
    for _ in range(3):
        for T, net in networks.items():
            with timed() as elapsed:
                assert len(enumerate_regions(net, segment([-2], [2])).regions) == T + 1
            best[T] = min(best[T], elapsed.seconds)
    assert best[4000] < 24 * best[500] + 0.2, best  # 24: between the linear 8 and the quadratic 64, on a log scale
