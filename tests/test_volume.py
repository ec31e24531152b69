"""Exact volumes against closed forms, an independent 2-D formula, and additivity under cuts."""

from fractions import Fraction
from math import factorial

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from polyregions import InvalidInputError, UnboundedError
from polyregions.exact.linalg import determinant
from polyregions.polyhedra.polytope import Polytope
from polyregions.polyhedra.volume import pulling_triangulation, simplex_volume, volume

F = Fraction


@pytest.mark.parametrize("d", range(1, 7))
def test_cubes_simplices_cross_polytopes(d):
    assert Polytope.box([0] * d, [1] * d).volume() == 1
    assert Polytope.box([-1] * d, [1] * d).volume() == 2 ** d
    assert Polytope.simplex(d).volume() == F(1, factorial(d))
    assert Polytope.cross_polytope(d).volume() == F(2 ** d, factorial(d))


def test_boxes_with_rational_sides():
    assert Polytope.box(["-1/2", 0, "1/3"], [1, "2/7", 2]).volume() == F(3, 2) * F(2, 7) * F(5, 3)


def test_permutahedra_have_volume_n_to_the_n_minus_2():
    # In the coordinates of the lattice basis e_i - e_{i+1} of {sum x = 0} (unimodular), the permutahedron of
    # order n has volume n^(n-2), the number of labelled trees on n vertices.
    for n in (3, 4):
        P = Polytope.permutahedron(n)
        assert P.volume() == 0  # lower-dimensional in R^n
        directions = [[int(j == i) - int(j == i + 1) for j in range(n)] for i in range(n - 1)]
        Q = P.restrict(list(range(1, n + 1)), directions)
        assert Q.volume() == n ** (n - 2)


def test_non_simple_vertices():
    # Square pyramid (apex on 4 facets) of base 2x2 and height 3: volume 4.
    pyramid = Polytope.from_vertices([[0, 0, 0], [2, 0, 0], [0, 2, 0], [2, 2, 0], [1, 1, 3]])
    assert pyramid.volume() == 4
    octahedron = Polytope.from_vertices([[1, 0, 0], [-1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1], [0, 0, -1]])
    assert octahedron.volume() == F(4, 3)


def test_degenerate_cases():
    assert Polytope.from_inequalities([[1], [-1]], [0, 1]).volume() == 1
    empty = Polytope.from_inequalities([[1, 0], [-1, 0]], [0, -1])
    assert empty.volume() == 0
    flat = Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 0, 0, 0])
    assert flat.volume() == 0
    point = Polytope.from_vertices([[1, 2, 3]])
    assert point.volume() == 0
    with pytest.raises(UnboundedError, match="bounded"):
        Polytope.from_inequalities([[-1, 0], [0, -1]], [0, 0]).volume()
    with pytest.raises(UnboundedError):
        Polytope.from_inequalities([[1, 0], [-1, 0]], [1, 0]).volume()  # a slab: lines
    with pytest.raises(UnboundedError):
        Polytope.space(3).volume()


def shoelace(points):
    """Area of the convex hull of points in the plane: sort around an interior point exactly, then shoelace."""
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)

    def half(p):
        return 0 if (p[1] > cy or (p[1] == cy and p[0] > cx)) else 1

    def before(p, q):
        cross = (p[0] - cx) * (q[1] - cy) - (p[1] - cy) * (q[0] - cx)
        return (half(p), half(q)) != (1, 0) and ((half(p), half(q)) == (0, 1) or cross > 0)

    ordered = sorted(points, key=_key(before))
    return abs(sum(p[0] * q[1] - q[0] * p[1] for p, q in zip(ordered, ordered[1:] + ordered[:1]))) / 2


def _key(before):
    import functools

    return functools.cmp_to_key(lambda p, q: -1 if before(p, q) else (1 if before(q, p) else 0))


coordinate = st.integers(-6, 6)


@given(st.lists(st.tuples(coordinate, coordinate), min_size=3, max_size=12))
def test_area_matches_shoelace(points):
    P = Polytope.from_vertices(points)
    assume(P.affine_dimension() == 2)
    assert P.volume() == shoelace(list(P.vertices()))


@st.composite
def cut_polytopes(draw):
    d = draw(st.integers(2, 4))
    points = draw(st.lists(st.tuples(*[coordinate] * d), min_size=d + 1, max_size=8))
    normal = draw(st.tuples(*[st.integers(-3, 3)] * d).filter(any))
    offset = draw(st.integers(-4, 4))
    return points, normal, offset


@given(cut_polytopes())
def test_volume_is_additive_under_a_hyperplane_cut(case):
    points, normal, offset = case
    P = Polytope.from_vertices(points)
    assume(P.affine_dimension() == P.dim)
    below = P.intersection(Polytope.from_inequalities([normal], [offset]))
    above = P.intersection(Polytope.from_inequalities([[-v for v in normal]], [-offset]))
    assert below.volume() + above.volume() == P.volume()


@given(cut_polytopes(), st.lists(st.integers(-2, 2), min_size=16, max_size=16))
def test_volume_scales_by_the_determinant(case, entries):
    points, _, _ = case
    P = Polytope.from_vertices(points)
    d = P.dim
    M = [[F(entries[i * d + j]) for j in range(d)] for i in range(d)]
    image = P.image(M, [1] * d)
    assert image.volume() == abs(determinant(M)) * P.volume()


def test_triangulation_is_made_of_full_simplices():
    cube = Polytope.box([0, 0, 0], [1, 1, 1])
    vrep = cube.generators()
    tight = [sum(1 << g for g, rows in enumerate(vrep.point_rows) if i in rows) for i in range(len(cube.A))]
    simplices = pulling_triangulation(len(vrep.points), tight, 3)
    volumes = [simplex_volume([vrep.points[i] for i in s]) for s in simplices]
    assert all(v > 0 for v in volumes) and sum(volumes) == 1
    assert len(simplices) == 6  # pulling a corner of the cube: 3 facets missing it, 2 triangles each


def test_simplex_volume_and_volume_function():
    assert simplex_volume([[0, 0, 0], [2, 0, 0], [0, 3, 0], [0, 0, 1]]) == 1
    assert simplex_volume([[0, 0], [1, 1], [2, 2]]) == 0
    square = [(0, 0), (1, 0), (1, 1), (0, 1)]
    assert volume(square, [{0, 1}, {1, 2}, {2, 3}, {3, 0}], 2) == 1
    with pytest.raises(InvalidInputError, match="points of length"):
        simplex_volume([[0, 0], [1, 0]])
