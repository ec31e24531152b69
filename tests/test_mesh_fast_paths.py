"""The mesh engine's shortcuts change nothing: the last layer's skipped columns, the array helpers checked against
the numpy calls they replace, the primes found without FLINT, and a 2-D run that loads only what it uses."""

import json
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from polyregions.networks import activations as act
from polyregions.networks._float_filter import half_bounds, in_single, read_bounds
from polyregions.networks.initializers import he_normal
from polyregions.networks.io import save_network
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._mesh import mesh as mesh_loop
from polyregions.regions._mesh import refine_mesh
from polyregions.regions._mesh.exact_maps import _is_prime
from polyregions.regions._mesh.support import (
    ABOVE,
    BELOW,
    ON,
    UNPROVEN,
    distinct,
    distinct_ranks,
    padded,
    ragged,
    unproven_rows,
)
from polyregions.testing import assert_complexes_equal


def _integer_net(seed, activation):
    rng = np.random.default_rng(seed)
    widths = [2, 9, 8, 6]
    layers = [(rng.integers(-3, 4, (w, v)).tolist(), rng.integers(-2, 3, w).tolist(), activation)
              for v, w in zip(widths, widths[1:])]
    return Network.from_layers(2, layers)


@given(hnp.arrays(np.float64, st.integers(0, 20),
                  elements=st.one_of(st.just(0.0), st.just(np.nan), st.floats(min_value=0, allow_infinity=True))))
def test_bounds_kept_in_16_bits_cover_the_bounds_and_stay_close(bounds):
    from fractions import Fraction

    kept = read_bounds(half_bounds(bounds))
    for bound, back in zip(bounds.tolist(), kept.tolist()):
        if np.isnan(bound) or bound > 3.4e38:
            assert back == np.inf  # nothing proven
        elif bound == 0:
            assert back == 0  # an exact value stays exact
        else:
            assert Fraction(bound) <= Fraction(back) <= Fraction(bound) * (1 + Fraction(1, 64)) + Fraction(2) ** -126


@pytest.mark.parametrize("net, domain", [
    (he_normal([2, 12, 12, 10], seed=4), dom.box(["-3/2", -1], [1, "5/3"])),
    (_integer_net(1, act.relu()), dom.box([-2, -2], [2, 2])),  # ties: vertices exactly on later lines
    (_integer_net(2, act.hardtanh()), dom.box([-2, -2], [2, 2])),  # two breakpoints per neuron
    (he_normal([1, 10, 10, 10], seed=2), dom.box([-2], [3])),
])
def test_skipping_the_last_layers_earlier_columns_gives_the_same_complex(monkeypatch, net, domain):
    fast = refine_mesh(net, domain)
    monkeypatch.setattr(mesh_loop.Mesh, "skip_columns", False)  # every column computed
    reference = refine_mesh(net, domain)
    assert_complexes_equal(fast, reference)
    assert [r.interior_point for r in fast.regions] == [r.interior_point for r in reference.regions]
    assert len(fast.linear_regions) == len(reference.linear_regions)


@given(hnp.arrays(np.int64, hnp.array_shapes(min_dims=1, max_dims=2, min_side=0, max_side=12),
                  elements=st.integers(-5, 5)))
def test_distinct_is_numpys_unique(values):
    assert distinct(values).tolist() == np.unique(values).tolist()


@given(hnp.arrays(np.int64, st.integers(0, 40), elements=st.integers(-6, 6)))
def test_distinct_ranks_are_numpys_unique_up_to_the_element_picked(values):
    one, rank = distinct_ranks(values)
    unique, inverse = np.unique(values, return_inverse=True)
    assert values[one].tolist() == unique.tolist()
    assert rank.tolist() == inverse.tolist()


@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(0, 6)), max_size=12))
def test_ragged_concatenates_the_ranges(pairs):
    starts = np.array([s for s, _ in pairs], dtype=np.int64)
    lengths = np.array([n for _, n in pairs], dtype=np.int64)
    assert ragged(starts, lengths).tolist() == [s + i for s, n in pairs for i in range(n)]


@given(st.integers(1, 30), st.data())
def test_unproven_rows_are_the_rows_holding_an_unproven_side(columns, data):
    rows = data.draw(st.integers(0, 10))
    sides = data.draw(hnp.arrays(np.int8, (rows, columns), elements=st.sampled_from([ON, ABOVE, BELOW, UNPROVEN])))
    S = np.zeros((rows, padded(columns)), dtype=np.int8)
    S[:, :columns] = sides
    assert unproven_rows(S).tolist() == np.flatnonzero((sides == UNPROVEN).any(axis=1)).tolist()


def test_primes_agree_with_a_sieve_and_with_flint():
    flint = pytest.importorskip("flint")
    limit = 100_000
    sieve = np.ones(limit, dtype=bool)
    sieve[:2] = False
    for p in range(2, int(limit ** 0.5) + 1):
        if sieve[p]:
            sieve[p * p::p] = False
    assert [n for n in range(limit) if _is_prime(n)] == np.flatnonzero(sieve).tolist()
    rng = np.random.default_rng(0)
    for n in rng.integers(2 ** 26, 2 ** 40, 3000).tolist() + [2 ** 27 - 39, 2 ** 31 - 1, 2 ** 61 - 1]:
        assert _is_prime(n) == bool(flint.fmpz(n).is_prime()), n
    # strong pseudoprimes to the first few prime bases: Miller-Rabin with twelve bases sees through them
    for n in (2047, 1373653, 25326001, 3215031751, 2152302898747, 3474749660383, 341550071728321,
              3825123056546413051):
        assert not _is_prime(n)
    with pytest.raises(ValueError):
        _is_prime(318665857834031151167461)  # strong pseudoprime to all twelve bases: beyond the exact range


def test_a_two_dimensional_run_loads_only_what_it_uses(tmp_path):
    path = tmp_path / "net.json"
    save_network(he_normal([2, 16, 16, 16], seed=1), path)
    script = (
        "import json, sys\n"
        "from polyregions.cli import main\n"
        f"main(['regions', {str(path)!r}, '--box=-1,1', '--json'])\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    summary, modules = (json.loads(line) for line in done.stdout.splitlines()[-2:])
    assert summary["exact"] and summary["activation_regions"] > 1
    loaded = set(modules)
    # FLINT, the LP solvers, the polytope algorithms and the other commands stay unloaded, and so does numpy.ma
    # (numpy's unique imports it on first use).
    for module in ("flint", "polyregions.exact.lp", "polyregions.polyhedra.vertex_enumeration",
                   "polyregions.polyhedra.face_lattice", "polyregions.cli.plot", "polyregions.cli.sweep",
                   "polyregions.regions._mesh.mesh_1d", "numpy.ma"):
        assert module not in loaded, module
    assert "polyregions.cli.regions" in loaded


# --- the last layer's values in single precision ----------------------------------------------------------------


@given(st.floats(allow_nan=False, allow_infinity=False, width=64),
       st.one_of(st.just(0.0), st.floats(min_value=0, max_value=1e300, allow_nan=False)))
def test_values_kept_in_single_precision_keep_bounds_that_cover_them(value, bound):
    from fractions import Fraction

    single, cover = in_single(np.array([value]), np.array([bound]))
    assert single.dtype == cover.dtype == np.float32
    s, c = float(single[0]), float(cover[0])
    if np.isfinite(s) and np.isfinite(c):
        assert abs(Fraction(s) - Fraction(value)) + Fraction(bound) <= Fraction(c)
    else:
        assert c == np.inf  # beyond the float32 range: nothing proven
    if bound == 0 and np.isfinite(s) and Fraction(s) == Fraction(value):
        assert c == 0  # an exact value stays exact


@pytest.mark.parametrize("net, domain", [
    (he_normal([2, 12, 12, 10], seed=4), dom.box(["-3/2", -1], [1, "5/3"])),
    (_integer_net(1, act.relu()), dom.box([-2, -2], [2, 2])),  # ties: vertices exactly on later lines
    (_integer_net(2, act.hardtanh()), dom.box([-2, -2], [2, 2])),  # two breakpoints per neuron
    (he_normal([1, 10, 10, 10], seed=2), dom.box([-2], [3])),
    (he_normal([3, 6, 6], seed=3), dom.box([-1, -1, -1], [1, 1, 1])),
])
def test_a_last_layer_kept_in_single_precision_gives_the_same_complex(monkeypatch, net, domain):
    reference = refine_mesh(net, domain)
    kept = []
    monkeypatch.setattr(mesh_loop, "_SINGLE_ENTRIES", 0)  # every last layer kept in single precision
    monkeypatch.setattr(mesh_loop, "in_single", lambda z, e, kind: kept.append(z.size) or in_single(z, e, kind))
    single = refine_mesh(net, domain)
    assert kept  # the single-precision arrays were used
    assert_complexes_equal(single, reference)
    assert len(single.linear_regions) == len(reference.linear_regions)


def test_a_layers_vertex_arrays_have_room_and_fall_back_when_address_space_is_refused(monkeypatch):
    from polyregions.regions._mesh import support

    Z, S = support.vertex_arrays(100, [(3, np.float32), (8, np.int8)])
    assert Z.shape == (8 * 100 + 4096, 3) and S.shape == (8 * 100 + 4096, 8)
    assert Z.dtype == np.float32 and S.dtype == np.int8 and not Z.any() and not S.any()
    zeros = np.zeros

    def refusing(shape, dtype):
        if shape[0] > 4 * 100 + 4096:
            raise MemoryError
        return zeros(shape, dtype=dtype)

    monkeypatch.setattr(support.np, "zeros", refusing)
    (Z,) = support.vertex_arrays(100, [(3, np.float64)])
    assert Z.shape == (4 * 100 + 4096, 3)
