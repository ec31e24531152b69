"""Face lattices against closed forms (cubes, simplices, cross-polytopes, the permutahedron) and invariants."""

import itertools
from collections import Counter
from fractions import Fraction
from math import comb

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.exact.linalg import dot
from polyregions.polyhedra.face_lattice import FaceLattice, face_lattice, facets_of_face
from polyregions.polyhedra.polytope import Polytope

F = Fraction


@pytest.mark.parametrize("d", range(1, 6))
def test_cube_simplex_cross_polytope_f_vectors(d):
    cube = Polytope.box([-1] * d, [1] * d).f_vector()
    assert cube == tuple(2 ** (d - k) * comb(d, k) for k in range(d + 1))
    assert Polytope.simplex(d).f_vector() == tuple(comb(d + 1, k + 1) for k in range(d + 1))
    cross = Polytope.cross_polytope(d).f_vector()
    assert cross == tuple(2 ** (k + 1) * comb(d, k + 1) for k in range(d)) + (1,)


def test_permutahedron_of_order_4():
    P = Polytope.permutahedron(4)
    lattice = P.faces()
    assert lattice.dim == 3
    assert lattice.f_vector() == (24, 36, 14, 1)
    assert sorted(P.vertices()) == sorted(tuple(F(v) for v in p) for p in itertools.permutations([1, 2, 3, 4]))
    # Facets: 8 hexagons (|S| in {1, 3}) and 6 squares (|S| = 2).
    assert Counter(len(f.vertices) for f in lattice.facets()) == {6: 8, 4: 6}
    # The equality rows (14, 15) hold on every face.
    assert all({14, 15} <= face.rows for face in lattice.faces)
    # Edges join permutations that differ by swapping the values k and k+1.
    vertices = P.vertices()
    for edge in lattice.faces_of_dimension(1):
        u, v = (vertices[i] for i in edge.vertices)
        diff = sorted(abs(x - y) for x, y in zip(u, v))
        assert diff == [0, 0, 1, 1]


def check_lattice(P, lattice):
    """Structural invariants: rows exact, covers between consecutive dimensions, diamond property."""
    vertices, rays = P.vertices(), P.rays()
    for face in lattice.faces:
        expected = {i for i, (a, bi) in enumerate(zip(P.A, P.b))
                    if all(dot(a, vertices[v]) == bi for v in face.vertices)
                    and all(dot(a, rays[r]) == 0 for r in face.rays)}
        assert face.rows == expected
    for low, high in lattice.covers:
        lo, hi = lattice.faces[low], lattice.faces[high]
        assert lo.dim == hi.dim - 1 and lo.vertices <= hi.vertices and lo.rays <= hi.rays
    assert len({(f.vertices, f.rays) for f in lattice.faces}) == len(lattice.faces)


def check_diamond(lattice):
    """In a polytope's face lattice, every interval of length 2 has exactly two middle elements."""
    up = {}
    for low, high in lattice.covers:
        up.setdefault(low, set()).add(high)
    for i in range(len(lattice.faces)):
        two_up = Counter(k for j in up.get(i, ()) for k in up.get(j, ()))
        assert all(count == 2 for count in two_up.values())
    # The empty face below: every edge has exactly two vertices.
    assert all(len(f.vertices) == 2 for f in lattice.faces_of_dimension(1))


coordinate = st.integers(-4, 4)


@st.composite
def random_polytopes(draw):
    d = draw(st.integers(1, 4))
    points = draw(st.lists(st.tuples(*[coordinate] * d), min_size=1, max_size=9))
    return Polytope.from_vertices(points)


@given(random_polytopes())
def test_euler_relation_and_lattice_invariants(P):
    lattice = P.faces()
    f = lattice.f_vector()
    assert lattice.dim == P.affine_dimension()
    assert sum((-1) ** i * n for i, n in enumerate(f)) == 1
    assert f[0] == len(P.vertices())
    check_lattice(P, lattice)
    check_diamond(lattice)


@given(st.integers(2, 3).flatmap(lambda n: st.lists(st.tuples(*[st.integers(-2, 2)] * n), min_size=1,
                                                    max_size=5)))
def test_euler_relation_of_unbounded_polyhedra(rows):
    # A pointed unbounded polyhedron has alternating face count 0 (its closure in projective space is a
    # polytope whose faces at infinity form a polytope too); with lineality of dimension l the faces are
    # those of the pointed part shifted by l.
    P = Polytope.from_inequalities(rows, [1] * len(rows))  # contains 0, so non-empty
    lattice = P.faces()
    f = lattice.f_vector()
    euler = sum((-1) ** i * n for i, n in enumerate(f))
    pointed_part_bounded = not P.rays()
    expected = (-1) ** len(P.lineality()) if pointed_part_bounded else 0
    assert euler == expected
    check_lattice(P, lattice)


def test_unbounded_examples():
    quadrant = Polytope.from_inequalities([[-1, 0], [0, -1]], [0, 0])
    assert quadrant.f_vector() == (1, 2, 1)
    half_plane = Polytope.from_inequalities([[1, 0]], [1])
    assert half_plane.f_vector() == (0, 1, 1)
    slab = Polytope.from_inequalities([[1, 0], [-1, 0]], [1, 0])
    assert slab.f_vector() == (0, 2, 1)
    plane = Polytope.space(2)
    assert plane.f_vector() == (0, 0, 1)
    lattice = quadrant.faces()
    assert [sorted(f.rays) for f in lattice.faces_of_dimension(1)] == [[0], [1]]


def test_lower_dimensional_and_empty():
    segment = Polytope.from_inequalities([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 0, 0, 0])
    lattice = segment.faces()
    assert lattice.dim == 1 and lattice.f_vector() == (2, 1)
    assert all({2, 3} <= face.rows for face in lattice.faces)
    point = Polytope.from_inequalities([[1], [-1]], [2, -2])
    assert point.f_vector() == (1,)
    empty = Polytope.from_inequalities([[1], [-1]], [0, -1])
    assert empty.faces() == FaceLattice(-1, (), ()) and empty.f_vector() == ()


def test_repeated_rows_do_not_change_the_lattice():
    square = Polytope.box([0, 0], [1, 1])
    doubled = Polytope(square.A + square.A, square.b + square.b, 2)
    assert doubled.f_vector() == square.f_vector() == (4, 4, 1)
    edge_rows = sorted(tuple(sorted(f.rows)) for f in doubled.faces().faces_of_dimension(1))
    assert all(len(r) == 2 and r[1] == r[0] + 4 for r in edge_rows)


def test_facets_of_face():
    square_edges = [0b0011, 0b0110, 0b1100, 0b1001]
    assert sorted(facets_of_face(0b1111, square_edges + [0b1111, 0b0011])) == [3, 6, 9, 12]
    assert facets_of_face(0b0001, square_edges) == []


def test_face_lattice_function_on_generators():
    vrep = Polytope.simplex(3).generators()
    lattice = face_lattice(vrep, 4)
    assert lattice.f_vector() == (4, 6, 4, 1)
    assert len(lattice.covers) == 4 * 3 + 6 * 2 + 4  # vertices in edges, edges in triangles, triangles


def test_birkhoff_polytope_b4():
    # Doubly stochastic 4x4 matrices: degenerate (each vertex on 12 of 16 facets) and 9-dimensional in R^16.
    # Vertices: the permutation matrices; edges: pairs whose quotient permutation is a single cycle (20 such
    # quotients, so 24 * 20 / 2 = 240 edges); facets: x_ij >= 0.
    n = 4
    A, b = [], []
    for i in range(n * n):
        A.append([-int(j == i) for j in range(n * n)])
        b.append(0)
    for r in range(n):
        for line in ([int(j // n == r) for j in range(n * n)], [int(j % n == r) for j in range(n * n)]):
            A += [line, [-v for v in line]]
            b += [1, -1]
    P = Polytope.from_inequalities(A, b)
    lattice = P.faces()
    f = lattice.f_vector()
    assert lattice.dim == 9 and f[0] == 24 and f[1] == 240 and f[8] == 16 and f[9] == 1
    assert sum((-1) ** i * k for i, k in enumerate(f)) == 1
    permutations = [tuple(next(c for c in range(n) if v[r * n + c] == 1) for r in range(n)) for v in P.vertices()]
    assert sorted(permutations) == sorted(itertools.permutations(range(n)))
    for edge in lattice.faces_of_dimension(1):
        s, t = (permutations[i] for i in edge.vertices)
        quotient = [t[s.index(i)] for i in range(n)]
        moved = [i for i in range(n) if quotient[i] != i]
        cycle, i = set(), moved[0]
        while i not in cycle:
            cycle.add(i)
            i = quotient[i]
        assert cycle == set(moved)  # a single cycle
