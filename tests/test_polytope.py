"""The Polytope class: factories, bad input, LP questions, canonical forms, round trips, operations."""

import itertools
import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions import InfeasibleError, InvalidInputError, UnboundedError
from polyregions.exact.linalg import dot, rank
from polyregions.exact.surds import sqrt_upper_bound
from polyregions.polyhedra.polytope import Polytope

F = Fraction


# ---------------------------------------------------------------------------------------------------------
# Factories and bad input


def test_factories():
    P = Polytope.from_inequalities([[1, 0], [0, 1.5]], ["1/2", 1])
    assert P.A == ((F(1), F(0)), (F(0), F(3, 2))) and P.b == (F(1, 2), F(1)) and P.dim == 2
    assert Polytope.from_inequalities(np.array([[1.0, 2.0]]), np.array([3.0])).A == ((F(1), F(2)),)
    assert Polytope.from_inequalities([], [], dim=3) == Polytope.space(3)
    assert Polytope.box([0, -1], [1, 1]).contains([1, -1])
    assert Polytope.simplex(3).contains([0, 0, 1]) and not Polytope.simplex(3).contains([1, 1, 0])
    assert len(Polytope.cross_polytope(4).A) == 16
    assert Polytope.empty(2).is_empty()
    direct = Polytope([[1, 2]], [3], 2)  # plain numbers are converted exactly
    assert direct.A == ((F(1), F(2)),) and direct.b == (F(3),)
    assert Polytope.from_inequalities([[0.1]], [1]).A[0][0] == F(0.1)  # the float's exact binary value


@pytest.mark.parametrize("call, message", [
    (lambda: Polytope.from_inequalities([[1, 2], [3]], [1, 2]), "equal length"),
    (lambda: Polytope.from_inequalities([[1, 2]], [1, 2]), "expected 1 numbers"),
    (lambda: Polytope.from_inequalities([[float("nan"), 1]], [1]), "finite"),
    (lambda: Polytope.from_inequalities([[1]], [float("inf")]), "finite"),
    (lambda: Polytope.from_inequalities([[True]], [1]), "boolean"),
    (lambda: Polytope.from_inequalities([["x"]], [1]), "number"),
    (lambda: Polytope.from_inequalities("rows", [1]), "list of rows"),
    (lambda: Polytope.from_inequalities([], []), "dim="),
    (lambda: Polytope.from_inequalities([[1, 2]], [1], dim=3), "dim=3"),
    (lambda: Polytope.from_inequalities([], [], dim=-1), "non-negative integer"),
    (lambda: Polytope.from_inequalities(np.zeros((2, 2, 2)), [1, 1]), "2-D"),
    (lambda: Polytope([[1, 2]], [1], 3), "length dim=3"),
    (lambda: Polytope([[1, 2]], [1, 2], 2), "one entry of b"),
    (lambda: Polytope([], [], True), "non-negative integer"),
    (lambda: Polytope([], [], 2.0), "non-negative integer"),
    (lambda: Polytope.box([0, 1], [1]), "expected 2 numbers"),
    (lambda: Polytope.box([2], [1]), "lower <= upper"),
    (lambda: Polytope.box([], []), "positive integer"),
    (lambda: Polytope.box([float("nan")], [1]), "finite"),
    (lambda: Polytope.space(-1), "non-negative integer"),
    (lambda: Polytope.simplex(0), "positive integer"),
    (lambda: Polytope.cross_polytope("3"), "positive integer"),
    (lambda: Polytope.from_vertices([]), "dim="),
    (lambda: Polytope.from_vertices([], rays=[[1]], dim=1), "at least one point"),
    (lambda: Polytope.from_vertices([[0, 0], [1]]), "equal length"),
    (lambda: Polytope.from_vertices([[0, 0]], rays=[[1]]), "expected 2 numbers"),
    (lambda: Polytope.from_vertices([[0, 0]], dim=3), "dim=3"),
    (lambda: Polytope.from_vertices([[float("nan"), 0]]), "finite"),
])
def test_bad_input(call, message):
    with pytest.raises(InvalidInputError, match=message):
        call()


def test_zero_dimensional_space():
    # R^0 is a single point; restrictions of domains to points produce it.
    point = Polytope.space(0)
    assert not point.is_empty() and point.is_bounded() and point.affine_dimension() == 0
    assert point.vertices() == ((),) and point.f_vector() == (1,) and point.contains(())
    assert point.volume() == 1  # counting measure in dimension 0
    empty = Polytope(((),), (-1,), 0)
    assert empty.is_empty() and empty.irredundant() == Polytope.empty(0) and empty.f_vector() == ()


def test_bad_input_to_methods():
    square = Polytope.box([0, 0], [1, 1])
    with pytest.raises(InvalidInputError, match="expected 2 numbers"):
        square.contains([1])
    with pytest.raises(InvalidInputError, match="finite"):
        square.contains_strictly([0, float("nan")])
    with pytest.raises(InvalidInputError, match="dimension 2"):
        square.intersection(Polytope.box([0], [1]))
    with pytest.raises(InvalidInputError, match="dimension 2"):
        square.equals("square")
    with pytest.raises(InvalidInputError, match="expected 2 rows"):
        square.preimage([[1, 0]])
    with pytest.raises(InvalidInputError, match="expected 2 numbers"):
        square.preimage([[1], [1]], [0])
    with pytest.raises(InvalidInputError, match="expected 2 numbers"):
        square.image([[1, 0, 0]])
    with pytest.raises(InvalidInputError, match="expected 1 numbers"):
        square.image([[1, 0]], [0, 0])
    with pytest.raises(InvalidInputError, match="number of directions"):
        square.restrict([0, 0], [])
    with pytest.raises(InvalidInputError, match="bits"):
        square.chebyshev_ball(bits=0)
    with pytest.raises(InvalidInputError, match="non-negative"):
        sqrt_upper_bound(F(-1))


# ---------------------------------------------------------------------------------------------------------
# LP questions on known sets


def test_membership():
    square = Polytope.box([0, 0], [1, 1])
    assert square.contains(["1", "1/2"]) and not square.contains_strictly([1, "1/2"])
    assert square.contains_strictly([F(1, 3), F(2, 3)])
    assert Polytope.space(2).contains_strictly([10 ** 9, -1])


def test_empty_bounded_dimension():
    square = Polytope.box([0, 0], [1, 1])
    assert not square.is_empty() and square.is_bounded() and square.affine_dimension() == 2
    assert square.is_full_dimensional() and square.contains_strictly(square.interior_point())
    empty = Polytope.from_inequalities([[1, 0], [-1, 0]], [0, -1])
    assert empty.is_empty() and empty.is_bounded() and empty.affine_dimension() == -1
    assert empty.interior_point() is None and empty.relative_interior_point() is None
    assert empty.implicit_equalities() == (0, 1)
    half = Polytope.from_inequalities([[1, 1]], [0])
    assert not half.is_bounded() and half.affine_dimension() == 2
    assert not Polytope.space(1).is_bounded()
    wedge = Polytope.from_inequalities([[1, 0], [0, 1], [-1, -1]], [0, 0, 0])  # a single point
    assert wedge.is_bounded() and wedge.affine_dimension() == 0 and not wedge.is_full_dimensional()
    assert wedge.relative_interior_point() == (0, 0)
    # Rank 2 but not bounded: a cone.
    assert not Polytope.from_inequalities([[-1, 0], [0, -1]], [0, 0]).is_bounded()


def test_implicit_equalities_and_relative_interior():
    # x + y <= 1, -x - y <= -1 (so x + y = 1), x >= 0, y >= 0, y <= 1 repeated.
    P = Polytope.from_inequalities([[1, 1], [-1, -1], [-1, 0], [0, -1], [0, 1], [0, 1]], [1, -1, 0, 0, 1, 1])
    assert P.implicit_equalities() == (0, 1)
    assert P.affine_dimension() == 1 and not P.is_full_dimensional() and P.interior_point() is None
    x = P.relative_interior_point()
    assert dot((F(1), F(1)), x) == 1 and x[0] > 0 and x[1] > 0
    # Equalities hidden among several rows: x <= y, y <= z, z <= x.
    Q = Polytope.from_inequalities([[1, -1, 0], [0, 1, -1], [-1, 0, 1], [1, 0, 0]], [0, 0, 0, 5])
    assert Q.implicit_equalities() == (0, 1, 2) and Q.affine_dimension() == 1


def test_redundant_rows_and_irredundant():
    P = Polytope.from_inequalities([[1, 0], [1, 0], [2, 0], [-1, 0], [0, 1], [0, -1], [1, 1]],
                                   [1, 1, 5, 0, 1, 0, 3])
    assert P.redundant_rows() == (1, 2, 6)
    canonical = P.irredundant()
    assert canonical == Polytope.box([0, 0], [1, 1]).irredundant()
    assert canonical.A == ((-1, 0), (0, -1), (0, 1), (1, 0)) and canonical.b == (0, 0, 1, 1)
    # Lower-dimensional: the equation first (as a pair), facets reduced modulo it.
    segment = Polytope.from_inequalities([[1, 1], [-1, -1], [1, 0], [-1, 0], [3, 3]], [2, -2, 2, 0, 7])
    c = segment.irredundant()
    assert c.A[:2] == ((1, 1), (-1, -1)) and c.b[:2] == (2, -2)
    assert set(zip(c.A[2:], c.b[2:])) == {((0, 1), 2), ((0, -1), 0)}
    assert Polytope.from_inequalities([[1], [-1]], [0, -1]).irredundant() == Polytope.empty(1)
    assert Polytope.space(2).irredundant() == Polytope.space(2)


def check_irredundant_subsystem(P):
    removed = set(P.redundant_rows())
    rest = [i for i in range(len(P.A)) if i not in removed]
    Q = Polytope(tuple(P.A[i] for i in rest), tuple(P.b[i] for i in rest), P.dim)
    assert Q.equals(P)
    assert Q.redundant_rows() == ()


def test_chebyshev_ball():
    centre, radius = Polytope.box([0, 0], [2, 4]).chebyshev_ball()
    assert radius == 1 and centre[0] == 1
    # Right triangle with legs 1: inradius 1 - 1/sqrt(2), irrational.
    triangle = Polytope.simplex(2)
    bits = 30
    centre, r = triangle.chebyshev_ball(bits=bits)
    true_radius_bounds = (1 - r) ** 2 >= F(1, 2), (1 - r * (1 + F(1, 2 ** bits))) ** 2 <= F(1, 2)
    assert all(true_radius_bounds)  # r <= R <= r (1 + 2^-bits)
    for a, bi in zip(triangle.A, triangle.b):
        slack = bi - dot(a, centre)
        assert slack >= 0 and slack ** 2 >= r ** 2 * dot(a, a)  # the ball lies inside
    assert Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1]], [0, 0, 1]).chebyshev_ball()[1] == 0
    with pytest.raises(UnboundedError, match="every radius"):
        Polytope.from_inequalities([[1, 1]], [0]).chebyshev_ball()
    with pytest.raises(InfeasibleError, match="empty"):
        Polytope.empty(2).chebyshev_ball()


@given(st.fractions(min_value=0, max_value=10 ** 6, max_denominator=10 ** 6), st.integers(1, 80))
def test_sqrt_upper_bound(q, bits):
    u = sqrt_upper_bound(q, bits=bits)
    assert u * u >= q and u * u <= q * (1 + F(1, 2 ** bits)) ** 2
    if q.denominator == 1 and math.isqrt(q.numerator) ** 2 == q.numerator:
        assert u * u == q  # integer squares are exact


# ---------------------------------------------------------------------------------------------------------
# Round trips and cross-checks between the LP side and the double description side


small = st.integers(-3, 3)


@st.composite
def h_polytopes(draw, bounded=True):
    d = draw(st.integers(1, 3))
    A, b = [], []
    if bounded:
        for i in range(d):
            for sign in (1, -1):
                A.append([sign * int(j == i) for j in range(d)])
                b.append(draw(st.integers(0, 3)))
    for _ in range(draw(st.integers(0 if bounded else 1, 5))):
        A.append([draw(small) for _ in range(d)])
        b.append(draw(st.integers(-2, 3)))
    if draw(st.booleans()):  # an equality hidden as two rows
        i = draw(st.integers(0, len(A) - 1))
        A.append([-v for v in A[i]])
        b.append(-b[i])
    if draw(st.booleans()):  # a repeated row
        i = draw(st.integers(0, len(A) - 1))
        A.append(list(A[i]))
        b.append(b[i])
    return Polytope.from_inequalities(A, b)


@given(h_polytopes())
def test_h_to_v_to_h_round_trip(P):
    vertices = P.vertices()
    if not vertices:
        assert P.is_empty()
        return
    assert Polytope.from_vertices(vertices) == P.irredundant()
    assert P.affine_dimension() == rank([tuple(x - y for x, y in zip(v, vertices[0])) for v in vertices])


@given(h_polytopes(bounded=False))
def test_h_to_v_to_h_round_trip_unbounded(P):
    vrep = P.generators()
    if not vrep.points:
        assert P.is_empty()
        return
    Q = Polytope.from_vertices(vrep.points, rays=vrep.rays, lines=vrep.lines)
    assert Q == P.irredundant()
    assert P.is_bounded() == (not vrep.rays and not vrep.lines)


@given(st.integers(1, 3).flatmap(lambda d: st.lists(st.tuples(*[small] * d), min_size=1, max_size=8)))
def test_v_to_h_to_v_round_trip(points):
    P = Polytope.from_vertices(points)
    vertices = set(P.vertices())
    assert vertices <= {tuple(F(v) for v in p) for p in points}
    assert all(P.contains(p) for p in points)
    assert Polytope.from_vertices(sorted(vertices)) == P
    # Every vertex is needed: dropping one changes the set.
    for v in vertices:
        rest = sorted(vertices - {v})
        if rest:
            assert not Polytope.from_vertices(rest).contains(v)


@settings(max_examples=15)
@given(h_polytopes())
def test_redundant_rows_leave_an_irredundant_system_for_the_same_set(P):
    check_irredundant_subsystem(P)


@given(h_polytopes(bounded=False))
def test_interior_points_are_certified(P):
    x = P.interior_point()
    if x is not None:
        assert P.contains_strictly(x) and P.affine_dimension() == P.dim
    y = P.relative_interior_point()
    if y is None:
        assert P.is_empty()
        return
    implicit = set(P.implicit_equalities())
    for i, (a, bi) in enumerate(zip(P.A, P.b)):
        assert (dot(a, y) == bi) if i in implicit else (dot(a, y) < bi)


# ---------------------------------------------------------------------------------------------------------
# Operations


def test_intersection_preimage_image_restrict():
    square = Polytope.box([0, 0], [2, 2])
    shifted = Polytope.box([1, 1], [3, 3])
    assert square.intersection(shifted).equals(Polytope.box([1, 1], [2, 2]))
    # {y : 2 y in [0, 2]^2} = [0, 1]^2; {y : y + (1, 1) in square} = [-1, 1]^2.
    assert square.preimage([[2, 0], [0, 2]]).equals(Polytope.box([0, 0], [1, 1]))
    assert square.preimage([[1, 0], [0, 1]], [1, 1]).equals(Polytope.box([-1, -1], [1, 1]))
    # A line through the square: s -> (s, s).
    assert square.preimage([[1], [1]]).equals(Polytope.box([0], [2]))
    cube = Polytope.box([0, 0, 0], [1, 1, 1])
    assert cube.image([[1, 0, 0], [0, 1, 0]]).equals(Polytope.box([0, 0], [1, 1]))
    assert cube.image([[1, 1, 1]], [-1]).equals(Polytope.box([-1], [2]))
    lifted = square.image([[1, 0], [0, 1], [1, 1]])
    assert lifted.affine_dimension() == 2 and lifted.contains([2, 2, 4]) and not lifted.contains([2, 2, 3])
    assert Polytope.empty(2).image([[1, 1]]).is_empty()
    quadrant = Polytope.from_inequalities([[-1, 0], [0, -1]], [0, 0])
    assert quadrant.image([[1, 1]]).equals(Polytope.from_inequalities([[-1]], [0]))
    diagonal = square.restrict([0, 0], [[1, 1]])
    assert diagonal.equals(Polytope.box([0], [2]))
    plane = cube.restrict(["1/2", "1/2", "1/2"], [[1, 0, 0], [0, 1, 0]])
    assert plane.equals(Polytope.box(["-1/2", "-1/2"], ["1/2", "1/2"]))


def test_equals_and_canonical_form_ignore_description():
    a = Polytope.from_inequalities([[2, 0], [0, 3], [-1, 0], [0, -1], [1, 1]], [2, 3, 0, 0, 5])
    b = Polytope.from_vertices([[0, 0], [1, 0], [0, 1], [1, 1], ["1/2", "1/2"]])
    assert a.equals(b) and a != b and a.irredundant() == b
    assert not a.equals(Polytope.box([0, 0], [1, 2]))


def test_vertices_rays_lineality():
    half = Polytope.from_inequalities([[0, 1]], [1])
    assert len(half.lineality()) == 1 and len(half.rays()) == 1 and len(half.vertices()) == 1
    assert half.rays()[0] == (0, -1)
    cube = Polytope.box([0, 0, 0], [1, 1, 1])
    assert sorted(cube.vertices()) == sorted(tuple(F(v) for v in p) for p in itertools.product((0, 1), repeat=3))
    assert cube.rays() == () and cube.lineality() == ()
