import itertools
from fractions import Fraction

import numpy as np
import pytest
from flint import fmpz_mat
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.polyhedra.vertex_enumeration import enumerate_vertices
from polyregions.regions import _cell_vertices as cv
from polyregions.regions._cell_programs import homogeneous, negated, strictly_inside, value


def _cube(k, half=1):
    return [tuple(half * (i == j) if s > 0 else -half * (i == j) for j in range(k)) + (half * half,)
            for i in range(k) for s in (1, -1)]


def _rank(points):
    return fmpz_mat([list(p) for p in points]).rank() if points else 0


def _check_against_enumeration(cell, rows, k):
    """The cell's vertices, tight sets and edges are those of the polytope of ``rows`` (exact, brute force):
    every row is a facet, and two vertices are adjacent exactly when their common tight rows have rank k - 1."""
    found = enumerate_vertices([r[:-1] for r in rows], [r[-1] for r in rows], dim=k)
    expected = {homogeneous(p): on for p, on in zip(found.points, found.point_rows)}
    assert len(cell.points) == len(set(cell.points)) == len(expected)
    for v, point in enumerate(cell.points):
        assert set(np.flatnonzero(cell.tight[v]).tolist()) == expected[point]
        assert all(value(row, point) <= 0 for row in rows)
    for i in range(len(rows)):
        assert _rank([cell.points[v] for v in np.flatnonzero(cell.tight[:, i])]) == k  # a facet
    edges = {tuple(sorted(e)) for e in cell.edges.tolist()}
    assert len(edges) == len(cell.edges)
    for u, v in itertools.combinations(range(len(cell.points)), 2):
        common = [rows[i][:-1] for i in np.flatnonzero(cell.tight[u] & cell.tight[v])]
        assert ((u, v) in edges) == (_rank(common) == k - 1)


@pytest.mark.parametrize("k", [1, 2, 3, 4, 5])
def test_the_cube_has_two_to_the_k_vertices_and_k_two_to_the_k_minus_one_edges(k):
    cell = cv.cell_vertices(_cube(k), k, limit=1000)
    assert len(cell.points) == 2 ** k and len(cell.edges) == k * 2 ** (k - 1)
    _check_against_enumeration(cell, _cube(k), k)


def test_unbounded_cells_and_too_many_vertices_give_none():
    assert cv.cell_vertices([(1, 0, 1), (0, 1, 1)], 2, limit=100) is None
    assert cv.cell_vertices(_cube(4), 4, limit=15) is None


def test_a_plane_through_the_cube_center_cuts_a_hexagon():
    cell = cv.cell_vertices(_cube(3), 3, limit=100)
    row = (1, 1, 1, 0)
    (below, below_facets, _), (above, above_facets, _) = cv.cut(cell, row, cv.vertex_signs(cell, row), 3)
    for part, facets in ((below, below_facets), (above, above_facets)):
        # Four cube corners and the six points of the hexagon; V - E + F = 2 with three whole and three cut
        # squares and the hexagon.
        assert len(part.points) == 10 and len(part.edges) == 15 and facets.all()
    assert np.count_nonzero(below.tight[:, -1]) == 6


def test_a_plane_through_cube_edges_leaves_prisms_and_drops_the_facets_it_misses():
    cell = cv.cell_vertices(_cube(3), 3, limit=100)
    row = (1, 1, 0, 0)  # x + y <= 0 holds with equality on two vertical edges
    signs = cv.vertex_signs(cell, row)
    assert sorted(signs.tolist()) == [-1, -1, 0, 0, 0, 0, 1, 1]
    (below, facets, _), _ = cv.cut(cell, row, signs, 3)
    assert len(below.points) == 6 and len(below.edges) == 9
    rows = [r for r, keep in zip(_cube(3), facets) if keep] + [row]
    assert len(rows) == 5  # x <= 1 and y <= 1 touch the part in an edge only
    _check_against_enumeration(below, rows, 3)


def test_facet_points_lie_in_the_facet_relative_interior():
    cell = cv.cell_vertices(_cube(3), 3, limit=100)
    for i, row in enumerate(_cube(3)):
        [point] = cv.facet_points(cell, _cube(3), [i])
        assert value(row, point) == 0
        assert strictly_inside([r for j, r in enumerate(_cube(3)) if j != i], point)


@st.composite
def _cells_and_cuts(draw):
    k = draw(st.integers(2, 4))
    entry = st.integers(-3, 3)
    extra = draw(st.lists(st.tuples(*[entry] * k, st.integers(-2, 6)), max_size=4))
    cuts = draw(st.lists(st.tuples(*[entry] * k, st.integers(-2, 2)), min_size=1, max_size=4))
    return k, extra, cuts


@settings(max_examples=60, deadline=None)
@given(_cells_and_cuts())
def test_successive_cuts_agree_with_vertex_enumeration_of_each_part(case):
    # Small integer rows make degenerate cuts (through vertices, along facets, repeated planes) common.
    k, extra, cuts = case
    rows = _cube(k, half=2)
    cell = cv.cell_vertices(rows, k, limit=10_000)
    # Extra rows that keep the origin strictly inside shape the cell first; every cut keeps its lower part.
    shaping = [r for r in extra if any(r[:-1]) and value(r, (0,) * k + (1,)) < 0]
    for row in shaping + [c for c in cuts if any(c[:-1])]:
        signs = cv.vertex_signs(cell, row)
        if not (signs < 0).any() or not (signs > 0).any():
            continue
        (below, facets, _), (above, above_facets, _) = cv.cut(cell, row, signs, k)
        below_rows = [r for r, keep in zip(rows, facets) if keep] + [row]
        above_rows = [r for r, keep in zip(rows, above_facets) if keep] + [negated(row)]
        _check_against_enumeration(above, above_rows, k)
        _check_against_enumeration(below, below_rows, k)
        cell, rows = below, below_rows
    _check_against_enumeration(cell, rows, k)


@settings(max_examples=60, deadline=None)
@given(_cells_and_cuts(), st.booleans())
def test_a_cut_carries_the_exact_signs_at_the_hyperplanes_still_to_cut(case, last):
    k, extra, cuts = case
    cuts = [c for c in cuts if any(c[:-1])]
    cell = cv.cell_vertices(_cube(k, half=2), k, limit=10_000)
    signs = cv.vertex_signs(cell, cuts[0]) if cuts else None
    if signs is None or not (signs < 0).any() or not (signs > 0).any():
        return
    rest = cuts[1:] + [e for e in extra if any(e[:-1])]
    if rest:
        later = cv.Later(rest, cv.row_floats(rest), cv.row_signs(cell, rest), last)
    else:
        later = cv.Later(rest, np.empty((0, k + 1)), np.empty((len(cell.points), 0), dtype=np.int8), last)
    plain = cv.cut(cell, cuts[0], signs, k)
    for (part, facets, part_later), (same, same_facets, _) in zip(cv.cut(cell, cuts[0], signs, k, later), plain):
        assert part.points == same.points and (facets == same_facets).all()
        expected = cv.row_signs(part, rest) if rest else np.empty((len(part.points), 0))
        assert (part_later.signs == expected).all()
        crossed = ((expected < 0).any(axis=0) & (expected > 0).any(axis=0)).any()
        if last and not crossed:
            assert len(part.edges) == 0  # cut no more: its edges were not needed
        else:
            assert {tuple(sorted(e)) for e in part.edges.tolist()} == {tuple(sorted(e)) for e in same.edges.tolist()}


def test_signs_are_exact_where_the_float_filter_proves_nothing():
    big = 2 ** 80
    cell = cv.cell_vertices([(1, 0, big), (-1, 0, big), (0, 1, 1), (0, -1, 1)], 2, limit=10)
    # x <= big - 1 + 1/2^60 is one part in 2^140 from passing through the vertices with x = big.
    row = (2 ** 60, 0, (big - 1) * 2 ** 60 + 1)
    assert sorted(cv.vertex_signs(cell, row).tolist()) == [-1, -1, 1, 1]
    assert sorted(cv.vertex_signs(cell, (1, 0, big)).tolist()) == [-1, -1, 0, 0]


def test_a_facet_too_thin_for_doubles_gets_its_exact_centroid():
    # The triangle (0, 0), (1, 1/3), (1, 1/3 + 2^-70): its facet x <= 1 is far shorter than a double's spacing.
    eps = 2 ** 70
    rows = [(1, 0, 1), (1, -3, 0), (-(eps + 3), 3 * eps, 0)]
    cell = cv.cell_vertices(rows, 2, limit=10)
    [point] = cv.facet_points(cell, rows, [0])
    assert point == homogeneous([1, Fraction(1, 3) + Fraction(1, 2 ** 71)])
    assert value(rows[0], point) == 0 and strictly_inside(rows[1:], point)


def _long_box(k, far_side):
    """``[-1, 1]^k`` stretched to ``x_0 <= far_side``: its vertices there are far (the certified box's corners)."""
    rows = _cube(k)
    rows[0] = (1,) + (0,) * (k - 1) + (far_side,)
    return rows


@pytest.mark.parametrize("far_side", [2 ** 10, 2 ** 300, 2 ** 1100])
def test_points_near_the_vertices_off_the_far_side(far_side):
    # Beyond the double range too (2^1100): the exact combination is taken where doubles give nothing.
    k = 3
    rows = _long_box(k, far_side)
    cell = cv.cell_vertices(rows, k, limit=100)
    far = cell.tight[:, 0].copy()
    point = cv.interior_point(cell, rows, far)
    assert strictly_inside(rows, point)
    assert -1 < Fraction(point[0], point[-1]) < 1  # within about one unit of the near centroid, x_0 = -1
    wanted = list(range(2, len(rows)))  # the facets that reach from x_0 = -1 to the far side
    for i, facet_point in zip(wanted, cv.facet_points(cell, rows, wanted, far=far)):
        assert value(rows[i], facet_point) == 0
        assert strictly_inside([r for j, r in enumerate(rows) if j != i], facet_point)
        assert -1 < Fraction(facet_point[0], facet_point[-1]) < 1


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 4), st.lists(st.lists(st.integers(-3, 3), min_size=5, max_size=5), min_size=1, max_size=4))
def test_centroids_of_several_cells_at_once_are_each_cells_mean_of_vertices(k, rows):
    cells = []
    for entries in rows:
        cuts = [tuple(entries[:k]) + (entries[-1],)]
        cell = cv.cell_vertices(_cube(k, half=2), k, limit=10_000)
        row = next((c for c in cuts if any(c[:-1])), None)
        signs = None if row is None else cv.vertex_signs(cell, row)
        if signs is not None and (signs < 0).any() and (signs > 0).any():
            cell = cv.cut(cell, row, signs, k)[0][0]  # cells of different sizes side by side
        cells.append(cell)
    for cell, mean in zip(cells, cv.centroids(cells)):
        k = len(cell.points[0]) - 1
        exact = [sum(Fraction(p[i], p[-1]) for p in cell.points) / len(cell.points) for i in range(k)]
        assert mean is not None and len(mean) == k
        assert all(abs(Fraction(m) - e) <= Fraction(1, 2 ** 40) for m, e in zip(mean, exact))
        assert cv.centroid(cell, None) == mean


def test_near_centroid_is_a_positive_combination_of_every_point():
    near = [(0, 0, 1), (2, 0, 1), (0, 2, 1)]
    far = [(2 ** 200, 2 ** 200, 1)]
    point = cv.near_centroid(near + far, [False] * 3 + [True])
    x, y = Fraction(point[0], point[-1]), Fraction(point[1], point[-1])
    # Strictly inside the triangle's hull with the far point, and close to the near centroid (2/3, 2/3).
    assert x == y and Fraction(2, 3) < x < Fraction(2, 3) + 1
    # Without far points (or without near ones) it is the plain centroid.
    assert cv.near_centroid(near, [False] * 3) == (2, 2, 3)


@given(st.integers(1, 5), st.data())
def test_points_moved_onto_planes_lie_on_them_near_the_means(k, data):
    from polyregions.regions._cell_vertices import _on_planes

    count = data.draw(st.integers(1, 4))
    scale = 2.0 ** data.draw(st.integers(-60, 60))
    means = np.array([[data.draw(st.floats(-1, 1)) * scale for _ in range(k)] for _ in range(count)])
    coefficient = st.integers(-(2 ** 70), 2 ** 70)
    rows = [tuple(data.draw(st.lists(coefficient, min_size=k, max_size=k).filter(any))) + (data.draw(coefficient),)
            for _ in range(count)]
    for mean, row, point in zip(means, rows, _on_planes(means, rows)):
        assert point is not None and point[-1] > 0 and value(row, point) == 0
        # every coordinate but the solved one is the mean's, on a grid as fine as doubles at the largest mean
        moved = [Fraction(v, point[-1]) for v in point[:-1]]
        close = [abs(x - Fraction(m)) <= Fraction(np.abs(means).max()) * Fraction(1, 2 ** 52) for x, m in
                 zip(moved, mean.tolist())]
        assert close.count(False) <= 1


def test_a_mean_that_is_not_finite_gives_no_point():
    from polyregions.regions._cell_vertices import _on_planes

    assert _on_planes(np.array([[np.inf, 0.0], [0.5, 0.5]]), [(1, 0, 1), (1, 1, 1)])[0] is None


def _plane_edges(part):
    """The edges of a part between two of its vertices on the cutting hyperplane (its last row), as point pairs."""
    on = part.tight[:, -1]
    return {frozenset((part.points[u], part.points[v])) for u, v in part.edges.tolist() if on[u] and on[v]}


def _face_edges(points, rows, k):
    """Brute force: the pairs of ``points`` (the vertices of a face, tight at ``rows[-1]``) whose common tight
    rows have rank k - 1."""
    tight = [{i for i, row in enumerate(rows) if value(row, p) == 0} for p in points]
    return {frozenset((points[u], points[v])) for u, v in itertools.combinations(range(len(points)), 2)
            if _rank([rows[i][:-1] for i in tight[u] & tight[v]]) == k - 1}


@settings(max_examples=60, deadline=None)
@given(_cells_and_cuts())
def test_both_parts_have_the_edges_of_the_face_where_the_hyperplane_meets_the_cell(case):
    # They are found once per cut, on the cell's rows and the cutting row, for both parts.
    k, extra, cuts = case
    rows = _cube(k, half=2) + [r for r in extra if any(r[:-1]) and value(r, (0,) * k + (1,)) < 0]
    found = enumerate_vertices([r[:-1] for r in rows], [r[-1] for r in rows], dim=k)
    vertices = [homogeneous(point) for point in found.points]
    rows = [r for i, r in enumerate(rows)  # the facets: their vertices span a hyperplane
            if _rank([v for v, on in zip(vertices, found.point_rows) if i in on]) == k]
    cell = cv.cell_vertices(rows, k, limit=10_000)
    for row in [c for c in cuts if any(c[:-1])]:
        signs = cv.vertex_signs(cell, row)
        if not (signs < 0).any() or not (signs > 0).any():
            continue
        (below, facets, _), (above, above_facets, _) = cv.cut(cell, row, signs, k)
        on_plane = [p for p, on in zip(below.points, below.tight[:, -1]) if on]
        assert set(on_plane) == {p for p, on in zip(above.points, above.tight[:, -1]) if on}
        expected = _face_edges(on_plane, rows + [row], k)
        assert _plane_edges(below) == _plane_edges(above) == expected


def test_a_vertex_on_the_hyperplane_tight_at_a_row_of_one_part_only_keeps_the_right_edges():
    # x + y <= 0 through two vertical edges of the cube: (1, -1, z) is tight at x <= 1, a facet of the part
    # above only, so among the cube's rows and the cutting row it is tight at 4 > k rows and proves no edge by
    # the count: the exact test finds the sides of the rectangle where the hyperplane meets the cube.
    cell = cv.cell_vertices(_cube(3), 3, limit=100)
    row = (1, 1, 0, 0)
    (below, _, _), (above, _, _) = cv.cut(cell, row, cv.vertex_signs(cell, row), 3)
    corners = {(1, -1, 1, 1), (1, -1, -1, 1), (-1, 1, 1, 1), (-1, 1, -1, 1)}
    expected = {frozenset(pair) for pair in itertools.combinations(corners, 2)
                if pair[0][2] == pair[1][2] or pair[0][0] == pair[1][0]}  # the rectangle's sides, not its diagonals
    assert len(expected) == 4
    assert _plane_edges(below) == _plane_edges(above) == expected


@settings(max_examples=40, deadline=None)
@given(_cells_and_cuts())
def test_cuts_that_share_crossings_give_the_parts_of_separate_cuts(case):
    # The parts of one cell share the point objects of their common vertices, so a second hyperplane crosses
    # their common edges once: every part is what a cut alone gives, and equal vertices are one object.
    k, _, cuts = case
    cuts = [c for c in cuts if any(c[:-1])]
    if len(cuts) < 2:
        return
    cell = cv.cell_vertices(_cube(k, half=2), k, limit=10_000)
    first, second = cuts[:2]
    signs = cv.vertex_signs(cell, first)
    if not (signs < 0).any() or not (signs > 0).any():
        return
    crossings, pieces = cv.Crossings(), []
    for part, _, _ in cv.cut(cell, first, signs, k):
        at = cv.vertex_signs(part, second)
        if not (at < 0).any() or not (at > 0).any():
            continue
        shared = cv.cut(part, second, at, k, crossings=crossings)
        for (one, facets, _), (other, other_facets, _) in zip(shared, cv.cut(part, second, at, k)):
            assert one.points == other.points and (facets == other_facets).all()
            assert (one.tight == other.tight).all() and (one.floats == other.floats).all()
            assert (one.edges == other.edges).all()
        pieces += [piece for piece, _, _ in shared]
    objects: dict[tuple, set[int]] = {}
    for piece in pieces:
        for point in piece.points:
            objects.setdefault(point, set()).add(id(point))
    assert all(len(ids) == 1 for ids in objects.values())


@settings(max_examples=40, deadline=None)
@given(st.integers(2, 30), st.integers(0, 200), st.data())
def test_the_crossed_edges_are_those_whose_ends_have_opposite_signs(count, edge_count, data):
    # Short edge lists are walked in Python, long ones in numpy: both give the same ends, in the edges' order.
    signs = np.array(data.draw(st.lists(st.integers(-1, 1), min_size=count, max_size=count)), dtype=np.int8)
    pair = st.tuples(st.integers(0, count - 1), st.integers(0, count - 1))
    edges = np.array(data.draw(st.lists(pair, min_size=edge_count, max_size=edge_count)), dtype=np.int64)
    edges = edges.reshape(edge_count, 2)
    expected = [(u, v) if signs[u] < 0 else (v, u) for u, v in edges.tolist() if signs[u] * signs[v] < 0]
    below, above = cv._crossed(edges, signs)
    assert list(zip(below, above)) == expected


def test_a_cut_of_the_six_cube_agrees_with_vertex_enumeration_of_each_part():
    # 192 edges (the crossed ones are found with numpy past 80), none of the 64 vertices on the hyperplane: the
    # coefficients' sum is odd, so no sum of them with signs is 0.
    k, row = 6, (1, 2, 3, 5, 7, 11, 0)
    cell = cv.cell_vertices(_cube(k), k, limit=1000)
    assert len(cell.edges) == 192
    (below, facets, _), (above, above_facets, _) = cv.cut(cell, row, cv.vertex_signs(cell, row), k)
    _check_against_enumeration(below, [r for r, keep in zip(_cube(k), facets) if keep] + [row], k)
    _check_against_enumeration(above, [r for r, keep in zip(_cube(k), above_facets) if keep] + [negated(row)], k)
    assert _plane_edges(below) == _plane_edges(above)
