"""Exact vertex, ray and facet enumeration, checked against brute force and closed forms."""

import itertools
import math
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import event, given
from hypothesis import strategies as st

from polyregions import InvalidInputError
from polyregions.exact._integers import primitive
from polyregions.exact.linalg import dot, nullspace, rank, solve
from polyregions.polyhedra.vertex_enumeration import ORDERS, cone_generators, enumerate_facets, enumerate_vertices

F = Fraction


def brute_force_vertices(A, b):
    """Every feasible point where n independent rows are tight."""
    n = len(A[0])
    found = set()
    for rows in itertools.combinations(range(len(A)), n):
        M = [A[i] for i in rows]
        if rank(M) < n:
            continue
        x = solve(M, [b[i] for i in rows])
        if all(dot(a, x) <= bi for a, bi in zip(A, b)):
            found.add(x)
    return found


def brute_force_rays(A):
    """Extreme rays of the pointed cone {A d <= 0}, as primitive integer vectors."""
    n = len(A[0])
    found = set()
    for rows in itertools.combinations(range(len(A)), n - 1):
        basis = nullspace([A[i] for i in rows], n)
        if len(basis) != 1:
            continue
        for sign in (1, -1):
            d = tuple(sign * v for v in basis[0])
            if all(dot(a, d) <= 0 for a in A):
                found.add(primitive(d))
    return found


def tight(A, b, x):
    return frozenset(i for i, (a, bi) in enumerate(zip(A, b)) if dot(a, x) == bi)


def as_fractions(rows):
    return [tuple(F(v) for v in r) for r in rows]


small_int = st.integers(-3, 3)


@st.composite
def bounded_systems(draw, n_min=1, n_max=4, extra_max=6):
    """A random system inside a box (so bounded), with repeats and scaled copies mixed in."""
    n = draw(st.integers(n_min, n_max))
    A, b = [], []
    for i in range(n):
        for sign in (1, -1):
            A.append(tuple(F(sign) if j == i else F(0) for j in range(n)))
            b.append(F(draw(st.integers(1, 3))))
    for _ in range(draw(st.integers(0, extra_max))):
        A.append(tuple(F(draw(small_int)) for _ in range(n)))
        b.append(F(draw(st.integers(-2, 4))))
    for _ in range(draw(st.integers(0, 2))):  # repeated and positively scaled rows
        i = draw(st.integers(0, len(A) - 1))
        k = draw(st.integers(1, 3))
        A.append(tuple(k * v for v in A[i]))
        b.append(k * b[i])
    return A, b


@given(bounded_systems())
def test_vertices_match_brute_force(system):
    A, b = system
    v = enumerate_vertices(A, b)
    assert set(v.points) == brute_force_vertices(A, b)
    assert len(set(v.points)) == len(v.points)
    assert v.rays == () and v.lines == ()
    for p, rows in zip(v.points, v.point_rows):
        assert rows == tight(A, b, p)


@given(st.integers(2, 4).flatmap(lambda n: st.tuples(
    st.lists(st.tuples(*[small_int] * n), min_size=n, max_size=7),
    st.lists(st.integers(-2, 4), min_size=7, max_size=7))))
def test_unbounded_systems_match_brute_force(system):
    rows, rhs = system
    A = as_fractions(rows)
    b = [F(v) for v in rhs[:len(A)]]
    v = enumerate_vertices(A, b)
    n = len(A[0])
    lineality = nullspace(A, n)
    event("empty" if not v.points else "lines" if lineality else "pointed")
    if not v.points:  # empty: certify with the brute force on a system that has vertices if non-empty
        assert not brute_force_vertices(A + [tuple(F(int(i == j)) for j in range(n)) for i in range(n)] +
                                        [tuple(F(-int(i == j)) for j in range(n)) for i in range(n)],
                                        b + [F(10 ** 6)] * (2 * n))
        return
    assert len(v.lines) == len(lineality)
    for line in v.lines:
        assert all(dot(a, line) == 0 for a in A)
    if lineality:
        assert rank(list(v.lines)) == len(lineality)
        return
    assert set(v.points) == brute_force_vertices(A, b)
    assert {primitive(r) for r in v.rays} == brute_force_rays(A)
    for r, rows in zip(v.rays, v.ray_rows):
        assert rows == frozenset(i for i, a in enumerate(A) if dot(a, r) == 0)


def test_square_and_orders_agree():
    A = as_fractions([[1, 0], [-1, 0], [0, 1], [0, -1], [1, 1]])
    b = [F(1)] * 4 + [F(3, 2)]
    answers = {order: enumerate_vertices(A, b, order=order) for order in ORDERS}
    expected = {(F(1), F(1, 2)), (F(1, 2), F(1)), (F(-1), F(-1)), (F(1), F(-1)), (F(-1), F(1))}
    for v in answers.values():
        assert set(v.points) == expected
        assert v == answers["lexmin"]


def test_degenerate_apex_of_pyramid_over_octagon():
    # The apex (0, 0, 1) lies on all 8 side facets: a vertex far from simple.
    octagon = [(2, 1), (1, 2), (-1, 2), (-2, 1), (-2, -1), (-1, -2), (1, -2), (2, -1)]
    points = [(F(x), F(y), F(0)) for x, y in octagon] + [(F(0), F(0), F(1))]
    h = enumerate_facets(points)
    assert len(h.A) == 9 and h.E == ()
    v = enumerate_vertices(h.A, h.b)
    assert set(v.points) == set(points) == brute_force_vertices(h.A, h.b)
    apex_rows = v.point_rows[v.points.index(points[-1])]
    assert len(apex_rows) == 8 and all(len(rows) == 3 for p, rows in zip(v.points, v.point_rows) if p[2] == 0)


def test_repeated_constraints_and_implicit_equalities():
    # x + y <= 1 three times (once scaled), x + y >= 1 (an implicit equality), x, y >= 0.
    A = as_fractions([[1, 1], [1, 1], [2, 2], [-1, -1], [-1, 0], [0, -1]])
    b = [F(1), F(1), F(2), F(-1), F(0), F(0)]
    v = enumerate_vertices(A, b)
    assert set(v.points) == {(F(1), F(0)), (F(0), F(1))}
    for p, rows in zip(v.points, v.point_rows):
        assert rows == tight(A, b, p) and {0, 1, 2, 3} <= rows


def test_empty_and_trivial_systems():
    assert enumerate_vertices([[F(1)], [F(-1)]], [F(-1), F(-1)]).points == ()
    assert enumerate_vertices([[F(0), F(0)]], [F(-1)]).points == ()
    whole = enumerate_vertices([], [], dim=2)
    assert whole.points == ((F(0), F(0)),) and len(whole.lines) == 2 and whole.rays == ()
    zero_row = enumerate_vertices([[F(0)], [F(1)], [F(-1)]], [F(0), F(2), F(0)])
    assert set(zero_row.points) == {(F(0),), (F(2),)}
    assert all(0 in rows for rows in zero_row.point_rows)


def test_half_space_and_orthant():
    half = enumerate_vertices([[F(1), F(1)]], [F(2)])
    assert len(half.lines) == 1 and len(half.rays) == 1 and len(half.points) == 1
    assert dot((F(1), F(1)), half.points[0]) == 2 and dot((F(1), F(1)), half.rays[0]) < 0
    orthant = enumerate_vertices(as_fractions([[-1, 0, 0], [0, -1, 0], [0, 0, -1]]), [F(0)] * 3)
    assert orthant.points == ((F(0),) * 3,)
    assert set(orthant.rays) == {(F(1), F(0), F(0)), (F(0), F(1), F(0)), (F(0), F(0), F(1))}


def test_huge_and_nearly_parallel_coefficients_are_exact():
    # Entries beyond float range take the long-integer path; nearly parallel rows defeat the float filter.
    big = 10 ** 400
    A = [(F(big), F(0)), (F(0), F(big)), (F(-1), F(0)), (F(0), F(-1)), (F(10 ** 20 + 1), F(10 ** 20))]
    b = [F(big), F(big), F(0), F(0), F(10 ** 20 + 1)]
    v = enumerate_vertices(A, b)
    assert set(v.points) == brute_force_vertices(A, b)
    eps = F(1, 10 ** 30)
    A = as_fractions([[1, 0], [-1, 0], [0, 1], [0, -1]]) + [(F(1), F(1) + eps), (F(1), F(1) - eps)]
    b = [F(1)] * 4 + [F(1), F(1)]
    v = enumerate_vertices(A, b)
    assert set(v.points) == brute_force_vertices(A, b)


def test_cube_and_cross_polytope_counts():
    for d in range(1, 6):
        cube_A = [tuple(F(s) if j == i else F(0) for j in range(d)) for i in range(d) for s in (1, -1)]
        assert len(enumerate_vertices(cube_A, [F(1)] * (2 * d)).points) == 2 ** d
        cross_A = [tuple(F(s) for s in signs) for signs in itertools.product((1, -1), repeat=d)]
        v = enumerate_vertices(cross_A, [F(1)] * 2 ** d)
        assert len(v.points) == 2 * d
        assert all(len(rows) == 2 ** (d - 1) for rows in v.point_rows)


def tangent_polytope(dim, m, seed):
    rng = random.Random(seed)
    A, b = [], []
    for _ in range(m):
        normal = [F(round(rng.gauss(0, 1) * 1000), 1000) for _ in range(dim)]
        A.append(tuple(normal))
        b.append(F(math.isqrt(int(sum(v * v for v in normal) * 10 ** 6)) + 1, 1000))
    return A, b


def check_simple_polytope(A, b, v, dim):
    """Every vertex feasible with its exact tight set, and every edge of a simple polytope has two ends.

    The slacks are computed exactly on integers with FLINT (scaled rows times homogenised vertices).
    """
    from flint import fmpz_mat

    rows = [primitive([bi] + [-x for x in a]) for a, bi in zip(A, b)]
    homogeneous = [primitive([F(1)] + list(p)) for p in v.points]
    slacks = (fmpz_mat(homogeneous) * fmpz_mat(rows).transpose()).tolist()
    edges = Counter()
    for row, incidence in zip(slacks, v.point_rows):
        assert all(s >= 0 for s in row)
        assert incidence == frozenset(j for j, s in enumerate(row) if s == 0) and len(incidence) == dim
        edges.update(itertools.combinations(sorted(incidence), dim - 1))
    assert set(edges.values()) == {2}


def test_tangent_polytope_4d_is_a_closed_simple_polytope():
    A, b = tangent_polytope(4, 60, seed=1)
    v = enumerate_vertices(A, b)
    check_simple_polytope(A, b, v, 4)
    assert enumerate_vertices(A, b, order="random") == v


@pytest.mark.slow
def test_tangent_polytope_6d_200_constraints():
    A, b = tangent_polytope(6, 200, seed=0)
    v = enumerate_vertices(A, b)
    check_simple_polytope(A, b, v, 6)


def test_cone_generators():
    cone = cone_generators([[1, 0, 0], [0, 1, 0]])
    assert set(cone.rays) == {(1, 0, 0), (0, 1, 0)} and cone.lines == ((0, 0, 1),)
    assert cone_generators([[1, 0], [-1, 0], [0, 1]]).rays == ((0, 1),)
    assert cone_generators([[1, 1], [-1, -1], [1, -1], [-1, 1]]).rays == ()
    assert set(cone_generators([], dim=2).lines) == {(1, 0), (0, 1)}
    # Incidence includes zero rows, which every ray makes tight.
    cone = cone_generators([[1, 0], [0, 1], [0, 0]])
    assert all(2 in rows for rows in cone.incidence)


def test_enumerate_facets():
    square = enumerate_facets([[0, 0], [1, 0], [1, 1], [0, 1], ["1/2", "1/2"], [1, 1]])
    assert len(square.A) == 4 and square.E == ()
    for a, beta, on in zip(square.A, square.b, square.facet_points):
        values = [dot(a, (F(x), F(y))) for x, y in [(0, 0), (1, 0), (1, 1), (0, 1)]]
        assert max(values) == beta and len(on) >= 2
    segment = enumerate_facets([[0, 0], [2, 2]])
    assert len(segment.E) == 1 and len(segment.A) == 2
    ray = enumerate_facets([[1, 0]], rays=[[1, 0]])
    assert len(ray.A) == 1 and len(ray.E) == 1
    plane = enumerate_facets([[0, 0]], lines=[[1, 0], [0, 1]])
    assert plane.A == () and plane.E == ()


def test_primitive():
    assert primitive([F(1, 2), F(-3, 4), 0]) == (2, -3, 0)
    assert primitive([0, 0]) == (0, 0)
    assert primitive([6, 4]) == (3, 2)


def test_bad_input():
    with pytest.raises(InvalidInputError, match="order"):
        cone_generators([[1]], order="fastest")
    with pytest.raises(InvalidInputError, match="dim="):
        cone_generators([])
    with pytest.raises(InvalidInputError, match="length"):
        cone_generators([[1, 0], [1]])
    with pytest.raises(InvalidInputError, match="right-hand side"):
        enumerate_vertices([[1, 0]], [1, 2])
    with pytest.raises(InvalidInputError, match="dim="):
        enumerate_vertices([], [])
    with pytest.raises(InvalidInputError, match="at least one point"):
        enumerate_facets([], dim=2)
