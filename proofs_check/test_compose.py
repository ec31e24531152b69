"""The fast integer composition (:mod:`proofs_check.compose`) pinned against the reference Fraction passes.

For random dense networks and staged networks (element-wise units of several activations, max groups), random
slices, points and patterns: the fast pass accepts a recorded pattern iff the reference forward pass gives it,
and then its maps are the reference's, as rationals; the fast check 3 decides as the reference vertex test; the
heights of the neurons' bound rows are the reference's. Regions go through one :class:`Composer` in pattern order,
so the reuse of shared prefixes is exercised too.
"""

from __future__ import annotations

import math
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from proofs_check import geometry as geo
from proofs_check.compose import Composer, _entries, bound_heights, integer_stages, keeps_pieces, scaled_point
from proofs_check.network import read_network


def _fractions(low, high, max_denominator):
    """The values of ``st.fractions(low, high, max_denominator=...)`` without its flatmap, which builds two
    strategies per draw: drawing them took most of these tests' time."""
    return st.one_of([st.builds(Fraction, st.integers(low * d, high * d), st.just(d))
                      for d in range(1, max_denominator + 1)])


small = _fractions(-3, 3, 6)
ACTIVATIONS = ["relu", "linear", "hardtanh", {"kind": "leaky_relu", "negative_slope": "1/3"},
               {"kind": "piecewise_linear", "breakpoints": ["-1/2", "1"], "slopes": ["1/2", "-1", "2"],
                "offset": "1/5"}]


def _matrix(draw, rows, cols, sparse):
    entries = st.one_of(st.just(Fraction(0)), small) if sparse else small
    return [[str(draw(entries)) for _ in range(cols)] for _ in range(rows)]


@st.composite
def dense_networks(draw):
    widths = draw(st.lists(st.integers(1, 4), min_size=1, max_size=3))
    n = draw(st.integers(1, 3))
    layers, fan_in = [], n
    for width in widths:
        layers.append({"weight": _matrix(draw, width, fan_in, draw(st.booleans())),
                       "bias": [str(draw(small)) for _ in range(width)],
                       "activation": draw(st.sampled_from(ACTIVATIONS))})
        fan_in = width
    return {"format": "polyregions.network/1", "input_dim": n, "layers": layers}


@st.composite
def staged_networks(draw):
    n = draw(st.integers(1, 3))
    stages, fan_in = [], n
    for _ in range(draw(st.integers(1, 3))):
        rows = draw(st.integers(2, 5))
        units = draw(st.integers(0, rows))
        groups = [draw(st.lists(st.integers(0, rows - 1), min_size=2, max_size=3, unique=True))
                  for _ in range(draw(st.integers(0 if units else 1, 2)))]
        activations = ACTIVATIONS[:draw(st.integers(1, len(ACTIVATIONS)))]
        stages.append({"weight": _matrix(draw, rows, fan_in, draw(st.booleans())),
                       "bias": [str(draw(small)) for _ in range(rows)], "activations": activations,
                       "units": [draw(st.integers(0, len(activations) - 1)) for _ in range(units)],
                       "groups": groups})
        fan_in = units + len(groups)
    return {"format": "polyregions.stages/1", "input_dim": n, "stages": stages}


def _slice(draw, n):
    k = draw(st.integers(1, 2))
    origin = tuple(draw(small) for _ in range(n))
    directions = tuple(tuple(draw(small) for _ in range(n)) for _ in range(k))
    return origin, directions


def _rational_rows(rows, den):
    return [tuple(Fraction(v, den) for v in row) for row in rows]


def _check_against_reference(network, draw):
    origin, directions = _slice(draw, network.input_dim)
    k = len(directions)
    points = [tuple(draw(small) for _ in range(k)) for _ in range(draw(st.integers(1, 5)))]
    neurons = len(network.neurons)
    cases = []
    for t in points:
        actual = network.evaluate([-1] * neurons, t, origin, directions).pattern
        pattern = list(actual)
        if neurons and draw(st.booleans()):  # a recorded pattern that may not be the actual one
            q = draw(st.integers(0, neurons - 1))
            pattern[q] = draw(st.integers(-1, 3))
        cases.append((tuple(pattern), t))
    composer = Composer(network, origin, directions)
    stages = integer_stages(network)
    for pattern, t in sorted(cases):
        ev = network.evaluate(pattern, t, origin, directions)
        point = scaled_point(t)
        maps = composer.run(pattern, point)
        assert (maps is not None) == (ev.pattern == pattern)
        if maps is None:
            continue
        assert [row[:k] for row in _rational_rows(maps.output, maps.den)] == [tuple(r) for r in ev.M]
        assert [row[k] for row in _rational_rows(maps.output, maps.den)] == list(ev.c)
        entries = [([Fraction(v, smaps.den) for v in row], Fraction(value, smaps.den * point[1]), low, high)
                   for stage, smaps in zip(stages, maps.stages) for row, value, low, high in _entries(stage, smaps)]
        assert len(entries) == len(ev.neurons)
        for (row, value, low, high), (a, d, den, piece, act) in zip(entries, ev.neurons):
            assert row == [Fraction(v, den) for v in a] + [Fraction(d, den)]
            assert sum((x * y for x, y in zip(row, t)), row[-1]) == value
            assert (None if low is None else Fraction(*low), None if high is None else Fraction(*high)) \
                == act.bounds(piece)
        # the fast check 3 against the reference vertex test, on random vertex sets
        vertices = [tuple(draw(small) for _ in range(k)) for _ in range(draw(st.integers(1, 4)))]
        vs = [scaled_point(v) for v in vertices]
        expected = all(_reference_holds(a, d, den, piece, act, v) for a, d, den, piece, act in ev.neurons
                       for v in vertices)
        assert keeps_pieces(maps, stages, point, vs) == expected
        assert bound_heights(maps, stages) == geo.row_height(
            [geo.integer_row([xi.denominator * v for v in a], xi.numerator * den - xi.denominator * d)
             for a, d, den, piece, act in ev.neurons if any(a)
             for xi in act.bounds(piece) if xi is not None])


def _reference_holds(a, d, den, piece, act, vertex):
    value = (sum((x * y for x, y in zip(a, vertex)), Fraction(0)) + d) / den
    low, high = act.bounds(piece)
    return (low is None or value >= low) and (high is None or value <= high)


@settings(max_examples=60, deadline=None)
@given(dense_networks(), st.data())
def test_dense_networks_compose_as_the_reference(doc, data):
    _check_against_reference(read_network(doc, "network"), data.draw)


@settings(max_examples=60, deadline=None)
@given(staged_networks(), st.data())
def test_staged_networks_compose_as_the_reference(doc, data):
    _check_against_reference(read_network(doc, "network"), data.draw)


@given(st.lists(small, min_size=0, max_size=4))
def test_scaled_point_is_the_point(values):
    nums, den = scaled_point(values)
    assert den > 0 and [Fraction(v, den) for v in nums] == values


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.tuples(st.integers(-5, 5), st.integers(-5, 5)), st.integers(-9, 9)), min_size=0,
                max_size=7), st.integers(0, 1))
def test_plane_vertices_and_segment_lengths_match_the_general_path(rows, drop):
    """The written-out 2-D Cramer's rule and segment length give what the general code gives."""
    box = geo.box_rows(6, 2)
    verts = geo.vertices(rows + box, 2)
    for subset in [(a, b) for a in rows + box for b in rows + box]:
        assert geo._cramer2(subset) == geo._cramer(subset)
    for i in range(len(verts)):
        for j in range(i):
            face = frozenset((i, j))
            general = _general_volume(verts, face, drop)
            assert geo.volume(verts, 1, face=face, drop=drop) == general


def _general_volume(verts, face, drop):
    """:func:`geo.volume` of a 1-dimensional face by the triangulation, as before the written-out segment."""
    if geo.vertex_dimension([verts[v] for v in face]) < 1:
        return Fraction(0)
    den = math.lcm(*(verts[v].den for v in face))
    scaled = {v: [x * (den // verts[v].den) for q, x in enumerate(verts[v].nums) if q != drop] for v in face}
    total = 0
    for simplex in geo.triangulate(verts, face, 1, {}):
        base = scaled[simplex[0]]
        total += abs(geo._det([[x - y for x, y in zip(scaled[v], base)] for v in simplex[1:]]))
    return Fraction(total, den)


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.lists(st.tuples(st.tuples(small, small), small), min_size=1, max_size=4),
                          st.tuples(_fractions(-1, 1, 5), _fractions(-1, 1, 5))),
                min_size=1, max_size=12), st.booleans())
def test_pairwise_test_on_the_grid_reports_as_all_pairs(regions, unbounded):
    """The grid of bounding boxes skips only pairs the all-pairs test passes, so both report the same overlap."""
    from types import SimpleNamespace

    from proofs_check.errors import VerificationError
    from proofs_check.verify import _box_candidates, _check_points_in_one_region

    ex = SimpleNamespace(regions=[SimpleNamespace(A=[a for a, _ in rows], b=[b for _, b in rows], point=point)
                                  for rows, point in regions])
    rows = [[geo.integer_row(a, b) for a, b in zip(r.A, r.b)] for r in ex.regions]
    radius = 2 if unbounded else None
    clip = geo.box_rows(2 if unbounded else 1, 2)
    # vertices of each region cut to the clip; points outside the domain [-1, 1]^2 are not interior points
    verts = [geo.vertices(r + clip, 2) for r in rows]

    def outcome(candidates):
        try:
            _check_points_in_one_region(ex, rows, candidates)
        except VerificationError as exc:
            return str(exc)
        return None

    assert outcome(None) == outcome(_box_candidates(verts, radius))


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(-10 ** 700, 10 ** 700), min_size=1, max_size=5))
def test_documents_with_and_without_long_integers_read_the_same(values):
    """Short integers are parsed by Python's JSON reader, long ones by the reader's own: the values agree."""
    import json
    import os
    import tempfile

    from proofs_check.reading import read_document

    text = json.dumps({"v": values, "s": ["1/3"]})
    fd, path = tempfile.mkstemp(suffix=".json")
    try:
        os.write(fd, text.encode())
        os.close(fd)
        assert read_document(path) == {"v": values, "s": ["1/3"]}
    finally:
        os.unlink(path)
