"""Deep networks on the 2-D mesh engine: the regions' float maps (vertex values from a region's map at the point
where its two lines cross, extended precision on the first layers of deep networks) and exact work on the open
units only change nothing: the complex equals the LP engine's on deep narrow random, integer-weight and degenerate
networks, and every bound of the maps' filter holds against exact arithmetic (and fails when its margin is cut)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import polyregions as pr
from polyregions.networks import _float_filter as ff
from polyregions.networks import activations as act
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions._mesh import mesh as mesh_loop
from polyregions.regions._mesh import refine_mesh
from polyregions.testing import assert_complexes_equal

SETTINGS = settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _integer_net(seed: int, widths: list[int], low: int, high: int, dead: float = 0.0) -> Network:
    """Small integer weights (many ties, parallel lines and lines through one point); a fraction ``dead`` of the
    units get a large negative bias (dead on the domain)."""
    rng = np.random.default_rng(seed)
    layers = []
    for fan_in, width in zip(widths, widths[1:]):
        bias = rng.integers(low, high + 1, width)
        bias[rng.random(width) < dead] = -100
        layers.append((rng.integers(low, high + 1, (width, fan_in)).tolist(), bias.tolist(), act.relu()))
    return Network.from_layers(widths[0], layers)


def _same_as_lp(net: Network, domain) -> None:
    mesh = refine_mesh(net, domain)
    lp = pr.enumerate_regions(net, domain, engine="lp")
    assert_complexes_equal(mesh, lp)


@SETTINGS
@given(seed=st.integers(0, 10 ** 6), depth=st.integers(4, 9), width=st.integers(2, 4))
def test_deep_narrow_he_networks_equal_the_lp_engine(seed, depth, width):
    _same_as_lp(he_normal([2] + [width] * depth, seed=seed), dom.box([-1, -1], [1, 1]))


@SETTINGS
@given(seed=st.integers(0, 10 ** 6), depth=st.integers(3, 6), dead=st.sampled_from([0.0, 0.3]))
def test_deep_integer_and_degenerate_networks_equal_the_lp_engine(seed, depth, dead):
    # weights in {-1, 0, 1} and biases in {-1, 0, 1}: ties, zero rows, dead units, many lines through a point
    _same_as_lp(_integer_net(seed, [2] + [3] * depth, -1, 1, dead), dom.box([-2, -2], [2, 2]))


def test_lines_through_one_point_over_many_layers():
    # every unit's line goes through the origin, in every layer: one vertex on many lines
    layers = [([[1, 0], [0, 1], [1, 1], [1, -1]], [0, 0, 0, 0], act.relu())]
    layers += [([[1, -1, 0, 1], [0, 1, -1, 1], [1, 1, 1, -2], [-1, 0, 1, 1]], [0, 0, 0, 0], act.relu())] * 5
    _same_as_lp(Network.from_layers(2, layers), dom.box([-1, -1], [1, 1]))


def test_a_deep_network_uses_extended_maps_on_its_first_layers_and_agrees_without_them(monkeypatch):
    net = he_normal([2] + [16] * 20, seed=3)
    domain = dom.box(["-1/400", "-1/400"], ["1/400", "1/400"])
    seen = []
    original = mesh_loop.Mesh._extended_maps

    def recorded(self):
        seen.append(original(self))
        return seen[-1]

    monkeypatch.setattr(mesh_loop.Mesh, "_extended_maps", recorded)
    fast = refine_mesh(net, domain)
    assert seen and seen[0][0] and not seen[0][-1]  # the first layers only
    monkeypatch.setattr(mesh_loop.Mesh, "_next_maps", lambda self, q, sparse: False)  # carried and interpolated
    slow = refine_mesh(net, domain)
    assert sorted(r.pattern for r in fast.regions) == sorted(r.pattern for r in slow.regions)


_ACTIVATIONS = {"relu": act.relu(), "leaky": act.leaky_relu(Fraction(1, 10)), "hardtanh": act.hardtanh(),
                "linear": act.linear()}


@SETTINGS
@given(seed=st.integers(0, 10 ** 6),
       kinds=st.lists(st.sampled_from(sorted(_ACTIVATIONS)), min_size=5, max_size=7)
       .filter(lambda kinds: sum(kind != "linear" for kind in kinds) >= 4))
def test_deep_networks_of_mixed_activations_and_affine_layers_equal_the_lp_engine(seed, kinds):
    # hardtanh's two breakpoints and affine hidden layers (no sides) through the maps' layers
    he = he_normal([2] + [3] * len(kinds), seed=seed)
    layers = [(layer.weight, layer.bias, _ACTIVATIONS[kind]) for layer, kind in zip(he.layers, kinds)]
    _same_as_lp(Network.from_layers(2, layers + [(he.layers[-1].weight, he.layers[-1].bias, act.linear())]),
                dom.box([-1, -1], [1, 1]))


def test_sides_the_carried_values_leave_open_come_from_the_maps(monkeypatch):
    # Carried values that prove nothing (wrong values with infinite bounds): every vertex's values at a layer's
    # start come from its region's map.
    net = he_normal([2] + [6] * 6, seed=5)
    domain = dom.box([-1, -1], [1, 1])
    expected = refine_mesh(net, domain)
    anchored, original = [], mesh_loop.Mesh._anchored

    def recorded(self, vertices, regions, first=0):
        anchored.append(vertices.size)
        return original(self, vertices, regions, first)

    def proving_nothing(layer, h, e, out):
        out[0][:], out[1][:] = 7.0, np.inf
        return out

    monkeypatch.setattr(mesh_loop.Mesh, "_anchored", recorded)
    monkeypatch.setattr(mesh_loop, "forward_layer", proving_nothing)
    assert_complexes_equal(refine_mesh(net, domain), expected)
    assert sum(anchored) > len(expected)  # the layers' starting vertices, beside the new ones


# --- the bounds against exact arithmetic ---------------------------------------------------------------------

def _exact(x: float) -> Fraction:
    return Fraction(x) if np.isfinite(x) else Fraction(0)


def _maps_case(seed: int, depth: int, width: int):
    """A random ReLU network of float32 weights, random patterns, the float maps with their bounds and the exact
    maps (Fractions) of one region per layer."""
    rng = np.random.default_rng(seed)
    net = he_normal([2] + [width] * depth, seed=seed)
    H, EH = ff.root_maps(2)
    exact = [[Fraction(int(i == c)) for c in range(2)] for i in range(3)]  # rows: x, y, constant; columns: inputs
    out = []
    for layer in net.layers[:-1]:
        fl = ff.float_layer(layer)
        Z, E = ff.forward_maps(fl, H, EH)
        W, b = layer.weight, layer.bias
        Zx = [[sum((W[j][i] * exact[r][i] for i in range(len(exact[r]))), Fraction(0)) + (b[j] if r == 2 else 0)
               for j in range(len(W))] for r in range(3)]
        out.append((Z[0], E[0], Zx))
        pieces = rng.integers(0, 2, (1, len(W)))
        H, EH = ff.activate_maps(fl.activation, Z, E, pieces)
        exact = [[v if pieces[0, j] == 1 else Fraction(0) for j, v in enumerate(row)] for row in Zx]
    return out


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10 ** 6), depth=st.integers(1, 8), width=st.integers(1, 6))
def test_every_map_bound_holds_exactly(seed, depth, width):
    for Z, E, Zx in _maps_case(seed, depth, width):
        for r in range(3):
            for j in range(Z.shape[1]):
                assert abs(_exact(Z[r, j]) - Zx[r][j]) <= _exact(E[j])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 10 ** 6), scale=st.sampled_from([1.0, 1e-8, 1e8]), wiggle=st.sampled_from([0.0, 1e-9]))
def test_a_vertex_from_its_two_lines_and_its_value_are_within_their_bounds(seed, scale, wiggle):
    rng = np.random.default_rng(seed)
    L = rng.normal(size=(2, 3)) * scale
    L[1] = L[0] + wiggle * rng.normal(size=3) if wiggle else L[1]  # nearly parallel lines too
    EL = np.abs(L) * 1e-12
    t, dt = ff.line_points(L[:1], EL[:1], L[1:], EL[1:])
    if not np.isfinite(dt).all():
        return  # nothing proven: the caller then interpolates or decides exactly
    # every pair of exact lines within the bounds crosses within dt of t: check the corners of the boxes
    for s1 in (-1, 1):
        for s2 in (1, -1):
            a1, b1, c1 = (_exact(v) + s1 * _exact(e) for v, e in zip(L[0], EL[0]))
            a2, b2, c2 = (_exact(v) + s2 * _exact(e) for v, e in zip(L[1], EL[1]))
            w = a1 * b2 - b1 * a2
            x, y = (b1 * c2 - c1 * b2) / w, (c1 * a2 - a1 * c2) / w
            assert abs(x - _exact(t[0, 0])) <= _exact(dt[0, 0])
            assert abs(y - _exact(t[0, 1])) <= _exact(dt[0, 1])
    A = rng.normal(size=(1, 3, 4)) * scale
    EA = np.abs(A).max(axis=1) * 1e-10
    Z, E = ff.evaluate_maps(A, EA, t, dt)
    x, y = _exact(t[0, 0]), _exact(t[0, 1])
    for j in range(4):
        for sx in (-1, 1):
            for sy in (-1, 1):
                for se in (-1, 1):
                    X, Y, C = (_exact(A[0, r, j]) + se * _exact(EA[0, j]) for r in range(3))
                    px, py = x + sx * _exact(dt[0, 0]), y + sy * _exact(dt[0, 1])
                    assert abs(X * px + Y * py + C - _exact(Z[0, j])) <= _exact(E[0, j])


def test_a_weakened_map_bound_fails(monkeypatch):
    """The exact check above catches a margin cut: without the roundings' term, some bound is too small."""
    monkeypatch.setattr(ff, "safety", lambda m: 1.0)
    original = ff.forward_maps

    def weak(layer, H, EH):
        Z, E = original(layer, H, EH)
        return Z, E * 1e-6

    monkeypatch.setattr(ff, "forward_maps", weak)
    with pytest.raises(AssertionError):
        for seed in range(20):
            for Z, E, Zx in _maps_case(seed, 4, 5):
                for r in range(3):
                    for j in range(Z.shape[1]):
                        assert abs(_exact(Z[r, j]) - Zx[r][j]) <= _exact(E[j])


def test_a_weakened_vertex_bound_fails():
    rng = np.random.default_rng(0)
    failures = 0
    for _ in range(200):
        L = rng.normal(size=(2, 3))
        EL = np.abs(L) * 1e-9
        t, dt = ff.line_points(L[:1], EL[:1], L[1:], EL[1:])
        a1, b1, c1 = (_exact(v) + _exact(e) for v, e in zip(L[0], EL[0]))
        a2, b2, c2 = (_exact(v) - _exact(e) for v, e in zip(L[1], EL[1]))
        w = a1 * b2 - b1 * a2
        x = (b1 * c2 - c1 * b2) / w
        failures += abs(x - _exact(t[0, 0])) > _exact(dt[0, 0]) / 4
    assert failures > 0


def _sparse_network():
    """Two sparse layers after a dense one (as a graph network's rewriting keeps its wide layers): each unit
    reads one to three units of the layer before, so a level's maps need only the units read above."""
    from polyregions.regions._mesh.sparse_layers import LayeredNetwork, SparseLayer

    rng = np.random.default_rng(11)

    def sparse(fan_in, width):
        rows = [sorted((int(c), Fraction(int(rng.integers(-2, 3)) or 1))
                       for c in rng.choice(fan_in, int(rng.integers(1, 4)), replace=False)) for _ in range(width)]
        return SparseLayer(rows, fan_in, [Fraction(int(v)) for v in rng.integers(-1, 2, width)], act.relu())

    first = Network.from_layers(2, [(rng.integers(-2, 3, (12, 2)).tolist(), rng.integers(-1, 2, 12).tolist(),
                                     act.relu())]).layers[0]
    last = Network.from_layers(8, [(rng.integers(-2, 3, (3, 8)).tolist(), [0, 1, -1], act.relu())]).layers[0]
    return LayeredNetwork(2, (first, sparse(12, 10), sparse(10, 8), last))


@pytest.mark.parametrize("make", [lambda: he_normal([2] + [4] * 7, seed=3),
                                  lambda: _integer_net(5, [2] + [3] * 6, -2, 2), _sparse_network],
                         ids=["deep He", "integer", "sparse layers"])
def test_rows_asked_for_all_levels_at_once_equal_the_rows_asked_level_by_level(make):
    from polyregions._support.progress import _Silent
    from polyregions.regions._mesh.mesh_2d import Mesh2D

    square = (((1, 0), (-1, 0), (0, 1), (0, -1)), (2, 2, 2, 2))
    mesh = Mesh2D(make(), *(tuple(tuple(Fraction(v) for v in row) if isinstance(row, tuple) else Fraction(row)
                                  for row in part) for part in square))
    mesh.start()
    for q in range(len(mesh.layers)):
        mesh.refine_layer(q, _Silent())
    lines = mesh.lines[:mesh.nlines]
    layer, unit, bp, region = lines[lines[:, 0] >= 0].T
    assert layer.max() >= 2  # rows of several levels, their maps from many levels below
    together = mesh.exact.rows_of_levels(layer, region, unit, bp, mesh.pieces, mesh.ancestors, chunk=5)
    apart: list = [None] * layer.size
    for q in np.unique(layer).tolist():
        at = np.flatnonzero(layer == q)
        for i, row in zip(at.tolist(), mesh.exact.rows(q, region[at], unit[at], bp[at], mesh.pieces, mesh.ancestors)):
            apart[i] = row
    assert together == apart


def _with_silent_unit(seed: int, depth: int, width: int) -> Network:
    """An integer-weight deep network whose first layer's unit 0 feeds nothing (its column in the second layer is
    zero): the regions on the two sides of that unit's line have one output map."""
    rng = np.random.default_rng(seed)
    layers, fan_in = [], 2
    for q in range(depth):
        weight = rng.integers(-3, 4, (width, fan_in))
        if q == 1:
            weight[:, 0] = 0
        layers.append((weight.tolist(), rng.integers(-2, 3, width).tolist(), act.relu()))
        fan_in = width
    return Network.from_layers(2, layers)


def _proofs(net: Network, domain):
    """The mesh's pairs of adjacent regions, their patterns and which pairs its float maps prove to have
    different output maps (as ``refine_mesh`` makes them)."""
    from polyregions.regions._mesh.engine import _run

    restricted = net.restrict(domain.origin, domain.directions)
    regions, patterns, pairs, different = _run(restricted, domain.region.A, domain.region.b, progress=False)
    return restricted, patterns, pairs, different


def _with_affine_tail(net: Network, seed: int, outputs: int) -> Network:
    """``net`` followed by an integer affine layer of ``outputs`` units that ignores about a third of its inputs."""
    rng = np.random.default_rng(seed)
    weight = rng.integers(-3, 4, (outputs, net.layers[-1].width)) * (rng.random(net.layers[-1].width) > 0.3)
    layers = [(layer.weight, layer.bias, layer.activation) for layer in net.layers]
    return Network.from_layers(2, layers + [(weight.tolist(), rng.integers(-2, 3, outputs).tolist(), act.linear())])


@SETTINGS
@given(seed=st.integers(0, 10 ** 6), depth=st.integers(4, 6), width=st.integers(3, 4),
       silent=st.booleans(), outputs=st.integers(0, 2))
def test_pairs_the_float_maps_call_different_have_different_exact_output_maps(seed, depth, width, silent,
                                                                               outputs):
    net = (_with_silent_unit(seed, depth, width) if silent else
           _integer_net(seed, [2] + [width] * depth, -2, 2, dead=0.2))
    if outputs:  # the output maps pass through an affine layer after the last ReLU layer
        net = _with_affine_tail(net, seed, outputs)
    restricted, patterns, pairs, different = _proofs(net, dom.box([-2, -2], [2, 2]))
    assert different is not None and different.shape == (len(pairs),)  # deep ReLU networks: maps, proofs
    for (i, j), proven in zip(pairs.tolist(), different.tolist()):
        if proven:
            assert restricted.affine_map(patterns[i].tolist()) != restricted.affine_map(patterns[j].tolist())


def test_regions_split_by_a_unit_that_feeds_nothing_stay_one_linear_region():
    net = _with_silent_unit(7, 5, 4)
    domain = dom.box([-2, -2], [2, 2])
    restricted, patterns, pairs, different = _proofs(net, domain)
    silent = net.neurons.index((0, 0))
    across = patterns[pairs[:, 0], silent] != patterns[pairs[:, 1], silent]
    alone = across & ((patterns[pairs[:, 0]] != patterns[pairs[:, 1]]).sum(axis=1) == 1)
    assert alone.any() and not different[alone].any()  # equal maps: never called different
    assert different[~across].any()  # and the proofs are made elsewhere
    mesh = refine_mesh(net, domain)
    assert len(mesh.linear_regions) < len(mesh)
    assert_complexes_equal(mesh, pr.enumerate_regions(net, domain, engine="lp"))


def test_an_affine_layer_that_ignores_a_unit_leaves_its_two_sides_one_linear_region():
    inner = _with_silent_unit(11, 5, 4)
    weight = np.random.default_rng(11).integers(-3, 4, (2, 4))
    weight[:, 0] = 0  # the last ReLU layer's unit 0 feeds no output
    layers = [(layer.weight, layer.bias, layer.activation) for layer in inner.layers]
    net = Network.from_layers(2, layers + [(weight.tolist(), [0, 1], act.linear())])
    domain = dom.box([-2, -2], [2, 2])
    restricted, patterns, pairs, different = _proofs(net, domain)
    ignored = net.neurons.index((len(inner.layers) - 1, 0))
    alone = (patterns[pairs[:, 0]] != patterns[pairs[:, 1]]).sum(axis=1) == 1
    alone &= patterns[pairs[:, 0], ignored] != patterns[pairs[:, 1], ignored]
    assert alone.any() and not different[alone].any()  # equal output maps: never called different
    assert different.any()  # and the proofs pass through the affine layer elsewhere
    mesh = refine_mesh(net, domain)
    assert len(mesh.linear_regions) < len(mesh)
    assert_complexes_equal(mesh, pr.enumerate_regions(net, domain, engine="lp"))


def test_without_the_float_proofs_the_linear_regions_are_the_same(monkeypatch):
    net = he_normal([2] + [6] * 5, seed=3)
    domain = dom.box([-1, -1], [1, 1])
    with_proofs = refine_mesh(net, domain)
    assert "_proven_different" in with_proofs.__dict__
    monkeypatch.setattr(mesh_loop.Mesh, "_different_output_maps", lambda self, pairs, maps, bounds: None)
    without = refine_mesh(net, domain)
    assert "_proven_different" not in without.__dict__
    assert with_proofs.linear_regions == without.linear_regions


def _projection_case(seed: int, scale: float, factor: float = 1.0):
    """Two float versions of one map, each entry off by up to its bound (most at the bound), and whether their
    projections are called apart with their bounds scaled by ``factor``."""
    from polyregions.regions._mesh.region_maps import _apart, _projected

    rng = np.random.default_rng(seed)
    M = rng.normal(size=(1, 3, 7)) * scale
    E = np.abs(rng.normal(size=(1, 7))) * scale * 1e-9
    sides = []
    for sign in (1, -1):
        shift = sign * E[:, None, :] * rng.choice([1.0, 1.0, 0.5, 0.0], size=M.shape)
        value, error = _projected(M + shift, E)
        sides += [value, error * factor]
    return bool(_apart(*sides)[0])


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 10 ** 6), scale=st.sampled_from([1.0, 1e-8, 1e8, 1e-300]))
def test_projections_of_one_map_known_within_its_bounds_are_never_apart(seed, scale):
    assert not _projection_case(seed, scale)


def test_projections_with_weakened_bounds_are_called_apart():
    assert any(_projection_case(seed, 1.0, factor=0.1) for seed in range(50))


def test_maps_computed_in_the_previous_layers_arrays_equal_maps_computed_afresh(monkeypatch):
    """Layers as wide as the one before compute their maps in its arrays (the regions cut from others first):
    every map so computed encloses the same exact map as one computed from a copy of the previous layer's."""
    from polyregions.regions._mesh import region_maps as rm

    original, checked = rm.RegionMaps._next_maps, []

    def checking(self, q, sparse):
        before = None if self.fmaps is None else (self.fmaps.copy(), self.fmap_err.copy(), self._map_room)
        found = original(self, q, sparse)
        if found and before is not None and self.xmaps is None and not self.extended[q - 1]:
            maps, errors, room = before
            up, on = self.ancestors[q - 1], self.pieces[q - 1]
            H, EH = ff.activate_maps(self.flayers[q - 1].activation, maps[up], errors[up], on)
            fresh, fresh_errors = ff.forward_maps(self.flayers[q], H, EH)
            assert (np.abs(fresh - self.fmaps) <= (fresh_errors + self.fmap_err)[:, None, :]).all()
            checked.append(room is not None and self._map_room is room)
        return found

    monkeypatch.setattr(rm.RegionMaps, "_next_maps", checking)
    net = he_normal([2] + [8] * 7, seed=5)
    domain = dom.box([-1, -1], [1, 1])
    assert_complexes_equal(refine_mesh(net, domain), pr.enumerate_regions(net, domain, engine="lp"))
    assert any(checked)  # computed in place on some layer
