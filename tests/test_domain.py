import json
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import dot
from polyregions.networks.network import Network
from polyregions.regions import domain_files as files
from polyregions.regions import domains as dom

F = Fraction
small = st.fractions(min_value=-5, max_value=5, max_denominator=6)


def test_box():
    d = dom.box([0, "-1/2"], [1, 1])
    assert (d.kind, d.dim, d.input_dim) == ("box", 2, 2)
    assert d.volume() == F(3, 2) and d.is_bounded()
    assert d.origin == (0, 0) and d.directions == ((1, 0), (0, 1))
    assert d.to_input([F(1, 3), 1]) == (F(1, 3), 1)
    assert d.region.dim == 2
    assert d.region.contains((1, F(-1, 2))) and not d.region.contains((F(11, 10), 0))


def test_polytope_space_and_unbounded():
    triangle = dom.polytope_domain([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])
    assert triangle.volume() == F(1, 2) and triangle.dim == 2
    quadrant = dom.polytope_domain([[-1, 0], [0, -1]], [0, 0])
    assert quadrant.volume() is None and not quadrant.is_bounded()
    whole = dom.space(3)
    assert (whole.kind, whole.dim, whole.volume()) == ("space", 3, None)
    # A row 0.x <= b with b >= 0 holds everywhere; it does not make the set lower-dimensional.
    assert dom.polytope_domain([[0, 0], [-1, 0], [0, -1], [1, 1]], [0, 0, 0, 1]).volume() == F(1, 2)
    assert dom.polytope_domain([], [], dim=2).volume() is None


def test_segment_and_slice():
    s = dom.segment([1, 2, 3], [3, 2, 1])
    assert (s.kind, s.dim, s.input_dim, s.volume()) == ("segment", 1, 3, 1)
    assert s.to_input([0]) == (1, 2, 3) and s.to_input([1]) == (3, 2, 1) and s.to_input([F(1, 2)]) == (2, 2, 2)
    sl = dom.slice_domain([1, 1, 1], [[1, 0, 1], [0, 2, 0]], [-1, 0], [1, 3])
    assert (sl.kind, sl.dim, sl.input_dim, sl.volume()) == ("slice", 2, 3, 6)
    assert sl.to_input([1, 3]) == (2, 7, 2)


@given(st.lists(small, min_size=3, max_size=3), st.lists(st.lists(small, min_size=3, max_size=3), min_size=1,
                                                          max_size=2), st.data())
def test_the_restricted_network_agrees_with_the_network_on_the_domain(origin, directions, data):
    from polyregions.exact.linalg import rank
    if rank(directions) < len(directions):
        return
    net = Network.from_layers(3, [([[1, -2, 1], [F(1, 2), 1, 0]], [0, 1], "relu"), ([[1, 1]], [0], "linear")])
    d = dom.slice_domain(origin, directions, [-1] * len(directions), [1] * len(directions))
    t = data.draw(st.lists(small, min_size=d.dim, max_size=d.dim))
    assert net.restrict(d.origin, d.directions)(t) == net(d.to_input(t))


points4 = st.lists(st.integers(-9, 9).map(F), min_size=4, max_size=4)


@given(points4, points4, points4)
def test_plane_through_three_points_is_centred_at_their_circumcentre(x1, x2, x3):
    u = [b - a for a, b in zip(x1, x2)]
    w = [b - a for a, b in zip(x1, x3)]
    if dot(u, u) * dot(w, w) == dot(u, w) ** 2:
        with pytest.raises(InvalidInputError, match="collinear"):
            dom.plane_through(x1, x2, x3)
        return
    d = dom.plane_through(x1, x2, x3)
    c, (d1, d2) = d.origin, d.directions
    radius2 = [dot(*(2 * [[p - q for p, q in zip(x, c)]])) for x in (x1, x2, x3)]
    assert radius2[0] == radius2[1] == radius2[2]  # exact circumcentre
    assert dot(d1, d2) == 0 and dot(d1, d1) == radius2[0]
    assert abs(dot(d2, d2) / dot(d1, d1) - 1) < F(1, 2**38)
    # The three points lie in the plane, inside the square [-3/2, 3/2]^2.
    for x in (x1, x2, x3):
        rel = [p - q for p, q in zip(x, c)]
        t = (dot(rel, d1) / dot(d1, d1), dot(rel, d2) / dot(d2, d2))
        assert d.to_input(t) == tuple(x)
        assert all(abs(ti) < F(3, 2) for ti in t)
    assert d.lower == (F(-3, 2),) * 2 and dom.plane_through(x1, x2, x3, half_width=4).upper == (4, 4)


def test_plane_through_a_right_triangle():
    d = dom.plane_through([0, 0, 5], [2, 0, 5], [0, 2, 5])
    assert d.origin == (1, 1, 5)
    assert d.to_input([1, 0]) == (0, 0, 5)


@pytest.mark.parametrize("obj", [
    {"type": "box", "lower": [0, "-1/2"], "upper": [1, 1]},
    {"type": "polytope", "A": [[-1, 0], [0, -1], [1, 1]], "b": [0, 0, "1/3"]},
    {"type": "polytope", "A": [[-1, 0], [0, -1]], "b": [0, 0]},
    {"type": "space"},
    {"type": "segment", "start": [0, 0], "end": [0.5, "1/3"]},
    {"type": "slice", "origin": [0, 1], "directions": [[1, 1]], "lower": [-1], "upper": [2]},
    {"type": "slice", "origin": [0, 1], "directions": [[1, 1], [1, -1]], "lower": [-1, 0], "upper": [2, 1]},
])
def test_domain_files_round_trip_exactly(obj, tmp_path):
    d = files.domain_from_json(obj, input_dim=2)
    assert d.kind == obj["type"]
    assert files.domain_from_json(json.loads(json.dumps(files.domain_to_json(d))), input_dim=2) == d
    path = tmp_path / "dom.json"
    files.save_domain(d, path)
    assert files.load_domain(path, input_dim=2) == d


def test_json_numbers_are_exact():
    d = files.domain_from_json({"type": "box", "lower": [0.1], "upper": ["0.1e1"]}, input_dim=1)
    assert d.lower == (F(0.1),) and d.lower != (F(1, 10),) and d.upper == (1,)


@pytest.mark.parametrize("obj, message", [
    ([1, 2], "dom.json: expected a JSON object"),
    ({}, "dom.json: type: expected one of"),
    ({"type": "ball"}, "dom.json: type: expected one of"),
    ({"type": "box", "upper": [1, 1]}, "dom.json: lower: expected a value, got nothing"),
    ({"type": "box", "lower": [0], "upper": [1, 1]}, "dom.json: lower: expected 2 numbers"),
    ({"type": "box", "lower": "0,0", "upper": [1, 1]}, "dom.json: lower: expected a list"),
    ({"type": "box", "lower": [0, float("nan")], "upper": [1, 1]}, "dom.json: lower[1]: expected a finite"),
    ({"type": "box", "lower": [0, "1/0"], "upper": [1, 1]}, "dom.json: lower[1]"),
    ({"type": "box", "lower": [0, ""], "upper": [1, 1]}, "dom.json: lower[1]"),
    ({"type": "box", "lower": [0, 0], "upper": [1, "inf"]}, "dom.json: upper[1]"),
    ({"type": "box", "lower": [0, 1], "upper": [1, 1]}, "dom.json: upper[1]: expected a value above lower[1]"),
    ({"type": "box", "lower": [0, 2], "upper": [1, 1]}, "dom.json: upper[1]: expected a value above lower[1]"),
    ({"type": "polytope", "A": [[1, 0], [-1, 0]], "b": [0, 0]}, "dom.json: A, b: expected a full-dimensional"),
    ({"type": "polytope", "A": [[1, 0], [-1, 0]], "b": [0, -1]}, "dom.json: A, b: expected a full-dimensional"),
    ({"type": "polytope", "A": [[0, 0]], "b": [-1]}, "dom.json: A[0]: expected a satisfiable inequality"),
    ({"type": "polytope", "A": [[1, 0, 0]], "b": [1]}, "dom.json: A[0]: expected 2 numbers"),
    ({"type": "polytope", "A": [[1, 0]], "b": [1, 2]}, "dom.json: b: expected 1 numbers"),
    ({"type": "polytope", "A": [[1, 0]]}, "dom.json: b: expected a value, got nothing"),
    ({"type": "segment", "start": [0, 0], "end": [0, 0]}, "dom.json: end: expected a point other than start"),
    ({"type": "segment", "start": [0, 0], "end": [0]}, "dom.json: end: expected 2 numbers"),
    ({"type": "slice", "origin": [0, 0], "directions": [[1, 1], [2, 2]], "lower": [0, 0], "upper": [1, 1]},
     "dom.json: directions: expected linearly independent"),
    ({"type": "slice", "origin": [0, 0], "directions": [[1, 1]], "lower": [0, 0], "upper": [1, 1]},
     "dom.json: lower: expected 1 numbers (one per direction)"),
    ({"type": "slice", "origin": [0, 0], "directions": [], "lower": [], "upper": []},
     "dom.json: directions: expected at least one direction"),
    ({"type": "slice", "origin": [0, 0], "directions": [[1, 0]], "lower": [1], "upper": [1]},
     "dom.json: upper[0]: expected a value above lower[0]"),
    ({"type": "slice", "origin": [0, 0], "directions": [[1, 0, 0]], "lower": [0], "upper": [1]},
     "dom.json: directions[0]: expected 2 numbers"),
])
def test_bad_domain_files_are_rejected_with_the_file_and_field_named(obj, message):
    with pytest.raises(InvalidInputError) as info:
        files.domain_from_json(obj, input_dim=2, what="dom.json")
    assert str(info.value).startswith(message), str(info.value)


def test_unreadable_domain_files_name_the_file(tmp_path):
    with pytest.raises(InvalidInputError, match="missing.json: cannot read"):
        files.load_domain(tmp_path / "missing.json", input_dim=2)
    bad = tmp_path / "bad.json"
    bad.write_text('{"type": "box", ')
    with pytest.raises(InvalidInputError, match="bad.json: expected JSON"):
        files.load_domain(bad, input_dim=2)


def test_degenerate_domains_from_python():
    with pytest.raises(InvalidInputError, match="lower-dimensional"):
        dom.box([0, 0], [1, 0])
    with pytest.raises(InvalidInputError, match="empty"):
        dom.box([0], [-1])
    with pytest.raises(InvalidInputError, match="positive dimension"):
        dom.space(0)
    with pytest.raises(InvalidInputError, match="at least 2 dimensions"):
        dom.plane_through([0], [1], [2])
    with pytest.raises(InvalidInputError, match="half_width"):
        dom.plane_through([0, 0], [1, 0], [0, 1], half_width=0)
