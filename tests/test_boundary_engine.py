"""The face complex, B_N and the boundary volumes in dimension 3 and more, checked against a slow reference.

The reference is the straightforward computation the fast path replaced: every region's face lattice from its
own exact double description (``Polytope.faces``), ``B_{N,k}`` by the recursion with exact rational ranks over
the whole star of each face, and every piece's volume from the convex hull of its projected vertices
(``Polytope.from_vertices(...).volume()``). Results must agree exactly: the same faces in the same order, the
same strata, and the same surds term by term.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
from collections import defaultdict
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.exact._integers import primitive
from polyregions.exact.linalg import determinant, matmul, rank, rref
from polyregions.exact.surds import SurdSum, sqrt_of_rational
from polyregions.measures._cell_lattice import cell_lattice, cell_vertices, members
from polyregions.measures._face_volumes import _echelon, _hyperplane
from polyregions.measures.boundaries import boundary
from polyregions.measures.faces import face_complex
from polyregions.measures.volumes import boundary_volumes, face_volume, input_metric
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.polyhedra.polytope import Polytope
from polyregions.regions.domains import box, slice_domain
from polyregions.regions.enumeration import enumerate_regions


def _cube(d):
    return box([-1] * d, [1] * d)


# --- the reference ------------------------------------------------------------------------------------------------

def _reference_faces(complex_):
    """``(vertices, {(dim, vertex ids): regions}, covers)`` from each region's own face lattice."""
    d = complex_.domain.dim
    ids, vertices = {}, []
    regions, covers = defaultdict(set), set()
    for r, region in enumerate(complex_.regions):
        polytope = Polytope(region.A, region.b, d)
        lattice = polytope.faces()
        local = []
        for point in polytope.vertices():
            if point not in ids:
                ids[point] = len(vertices)
                vertices.append(point)
            local.append(ids[point])
        keys = [(f.dim, tuple(sorted(local[v] for v in f.vertices))) for f in lattice.faces]
        for key in keys:
            regions[key].add(r)
        covers.update((keys[i], keys[j]) for i, j in lattice.covers)
    return vertices, regions, covers


def _reference_strata(fc):
    """B_N's strata by the recursion of Hanin & Rolnick with the whole star of every face and exact ranks."""
    d, faces, regions = fc.dim, fc.faces, fc.complex.regions
    facets = {i for i, f in enumerate(faces) if f.dim == d - 1 and f.interior
              and regions[f.regions[0]].output_map != regions[f.regions[1]].output_map}
    assert facets == set(boundary(fc).facets)
    in_b = set(facets)
    for i in facets:
        stack = list(fc.facets_of(i))
        while stack:
            j = stack.pop()
            if j not in in_b and faces[j].interior:
                in_b.add(j)
                stack.extend(fc.facets_of(j))
    strata = [0] * len(faces)
    for i in facets:
        strata[i] = 1
    for i in sorted((i for i in in_b if faces[i].dim < d - 1), key=lambda i: -faces[i].dim):
        m = d - faces[i].dim
        star = [j for j in fc.cofaces(i) if j in in_b]
        strata[i] = m
        for j in range(1, m):
            present = [h for h in star if strata[h] >= j]
            if _reference_plane(fc, i, present, d - j):
                strata[i] = j
                break
    return strata


def _reference_plane(fc, g, present, p):
    faces = fc.faces
    top = [h for h in present if faces[h].dim == p]
    if not top:
        return False
    base = fc.vertices[faces[g].vertices[0]]
    points = {v for h in present for v in faces[h].vertices} | set(faces[g].vertices)
    if rank([tuple(x - y for x, y in zip(fc.vertices[v], base)) for v in points]) != p:
        return False
    count = defaultdict(int)
    for h in top:
        for f in fc.facets_of(h):
            if set(faces[g].vertices) <= set(faces[f].vertices):
                count[f] += 1
    return bool(count) and all(c == 2 for c in count.values())


def _reference_volume(fc, i, G):
    """``(radicand, coefficient)`` of face ``i`` from the hull of its projected vertices."""
    face = fc.faces[i]
    points = [fc.vertices[v] for v in face.vertices]
    if face.dim == 0:
        return 1, F(1)
    diffs = [tuple(x - y for x, y in zip(q, points[0])) for q in points[1:]]
    if face.dim == 1:
        w = primitive(diffs[0])
        j = next(t for t, x in enumerate(w) if x)
        c = diffs[0][j] / w[j]
        q = sum((w[a] * (G[a][b] if G else int(a == b)) * w[b] for a in range(len(w)) for b in range(len(w))),
                F(0))
    else:
        B, pivots = rref(diffs)
        c = Polytope.from_vertices([tuple(q[j] for j in pivots) for q in points], dim=face.dim).volume()
        q = determinant(matmul(matmul(B, G), tuple(zip(*B))) if G else matmul(B, tuple(zip(*B))))
    root, n = sqrt_of_rational(q)
    return n, c * root


def _check_against_reference(complex_):
    fc = face_complex(complex_)
    vertices, regions, covers = _reference_faces(complex_)
    assert list(fc.vertices) == vertices
    assert [(f.dim, f.vertices) for f in fc.faces] == sorted(regions)
    assert [f.regions for f in fc.faces] == [tuple(sorted(regions[key])) for key in sorted(regions)]
    keys = [(f.dim, f.vertices) for f in fc.faces]
    assert {(keys[i], keys[j]) for i, j in fc.covers} == covers and len(fc.covers) == len(covers)
    b = boundary(fc)
    assert list(b.strata) == _reference_strata(fc)
    volumes = boundary_volumes(b)
    G = input_metric(complex_.domain)
    for k in range(1, fc.dim + 1):
        expected = SurdSum.from_terms(_reference_volume(fc, i, G) for i in b.pieces(k))
        assert volumes.exact[k - 1].terms == expected.terms
    for i in b.pieces(1)[:5] + b.pieces(2)[:5]:
        assert face_volume(fc, i) == _reference_volume(fc, i, G)
    return volumes


# --- networks ------------------------------------------------------------------------------------------------------

def _degenerate(name):
    layers = {
        # Five planes through the origin, then two neurons of the second layer.
        "through-origin": (3, [([[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, -1, 1]], [0] * 5, "relu"),
                               ([[1, 1, -1, 1, 1], [2, -1, 0, 1, 1]], [0, 1], "relu")]),
        # Ties: x3 + x4 and x1 + x2 + x3 + x4 share lines with the axes' planes.
        "ties": (4, [([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]], [0] * 4, "relu"),
                     ([[1, 1, -1, 1], [1, 0, 0, -1]], [0, 0], "relu")]),
        # Small integer weights: many vertices on more than four hyperplanes.
        "integers": (4, [([[1, 2, 0, -1], [0, 1, 1, 1], [1, -1, 1, 0], [2, 0, 0, 1], [1, 1, 1, 1]],
                          [0, 1, -1, 0, "1/2"], "relu"),
                         ([[1, -1, 1, 0, 2], [0, 1, -1, 1, 1]], [0, 0], "relu"), ([[1, 1]], [0], "linear")]),
        # Six hyperplanes through one point, summed.
        "one-point": (4, [([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1], [1, 1, 1, 1], [1, -1, 1, -1]],
                           [0] * 6, "relu"), ([[1] * 6], [0], "linear")]),
        # Only x + y reaches the output: the plane z = 0 crosses B_N without changing the output.
        "dead": (3, [([[1, 0, 0], [0, 1, 0], [0, 0, 1]], [0, 0, 0], "relu"), ([[1, 1, 0]], [0], "linear")]),
        # relu(relu(x) + y) bends along x = 0.
        "bent": (3, [([[1, 0, 0], [0, 1, 0], [0, -1, 0], [0, 0, 1]], [0, 0, 0, "1/2"], "relu"),
                     ([[1, 1, -1, 0]], [0], "relu"), ([[1]], [0], "linear")]),
    }
    d, spec = layers[name]
    return Network.from_layers(d, spec), d


@pytest.mark.parametrize("name", ["through-origin", "ties", "integers", "one-point", "dead", "bent"])
def test_degenerate_networks_match_the_reference(name):
    net, d = _degenerate(name)
    _check_against_reference(enumerate_regions(net, _cube(d)))


@pytest.mark.parametrize("dims, seed", [([3, 4, 4], 0), ([3, 3, 3, 3], 0), ([4, 3, 3], 0)])
def test_random_networks_match_the_reference(dims, seed):
    _check_against_reference(enumerate_regions(he_normal(dims, seed=seed), _cube(dims[0])))


def test_slices_match_the_reference():
    # A 3-D slice of R^4: volumes in input space carry the metric D D^T.
    domain = slice_domain([0, 0, 0, 0], [[1, 1, 0, 0], [0, 0, 1, 0], [0, 1, 0, 1]], [-1, -1, -1], [1, 1, 1])
    _check_against_reference(enumerate_regions(he_normal([4, 4, 3], seed=4), domain))


@pytest.mark.slow
def test_a_larger_four_dimensional_network_matches_the_reference():
    # 79 regions (35 for the 4-D network above); one cut crosses a cell of more than 80 edges
    _check_against_reference(enumerate_regions(he_normal([4, 4, 3], seed=36), _cube(4)))


# --- closed forms --------------------------------------------------------------------------------------------------

def test_one_hyperplane_through_the_centre_of_the_four_cube():
    # x1 + x2 + x3 + x4 = 0 meets [-1, 1]^4 in a 3-polytope whose projection on x1, x2, x3 is the cube [-1, 1]^3
    # between the planes x1 + x2 + x3 = -1 and 1: 8 - 2 * 4/3 = 16/3, times |a| / |a_4| = 2: 32/3.
    net = Network.from_layers(4, [([[1, 1, 1, 1]], [0], "relu")])
    v = boundary_volumes(enumerate_regions(net, _cube(4)))
    assert [str(x) for x in v.exact] == ["32/3", "0", "0", "0"]
    assert v.density == pytest.approx(32 / 3 / 16, rel=1e-15)


def test_an_oblique_hyperplane_has_an_irrational_volume():
    # x + 2y + 2z = 1 in [0, 1]^3 (|a| = 3): its projection on x, y is {0 <= x, y <= 1, 0 <= (1 - x - 2y) / 2 <= 1},
    # the triangle x + 2y <= 1 of area 1/4; the section's area is 1/4 * 3/2 = 3/8 (a_3 = 2).
    net = Network.from_layers(3, [([[1, 2, 2]], [-1], "relu")])
    v = boundary_volumes(enumerate_regions(net, box([0, 0, 0], [1, 1, 1])))
    assert [str(x) for x in v.exact] == ["3/8", "0", "0"]
    # x + y + z = 1: the triangle with vertices e1, e2, e3, of area sqrt(3)/2.
    net = Network.from_layers(3, [([[1, 1, 1]], [-1], "relu")])
    v = boundary_volumes(enumerate_regions(net, box([0, 0, 0], [1, 1, 1])))
    assert v.exact[0] == SurdSum.sqrt(F(3, 4))


@pytest.mark.parametrize("d, depth", [(3, 2), (3, 3), (4, 2)])
def test_a_sawtooth_along_one_axis_is_a_stack_of_sections(d, depth):
    # t^depth(x1) bends on the planes x1 = j / 2^depth, 0 < j < 2^depth, each meeting [0, 1]^d in a unit cube.
    from polyregions.networks.constructions import sawtooth

    tooth = sawtooth(depth)
    first, *rest = tooth.layers
    lifted = [[row[0]] + [0] * (d - 1) for row in first.weight]
    net = Network.from_layers(d, [(lifted, list(first.bias), first.activation)]
                              + [(layer.weight, layer.bias, layer.activation) for layer in rest])
    v = boundary_volumes(enumerate_regions(net, box([0] * d, [1] * d)))
    assert [str(x) for x in v.exact] == [str(2 ** depth - 1)] + ["0"] * (d - 1)


def test_four_coordinate_hyperplanes_meet_in_one_point():
    net = Network.from_layers(4, [([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]], ["1/3", 0, 0, "-1/2"],
                                   "relu"), ([[1, 1, 1, 1]], [0], "linear")])
    v = boundary_volumes(enumerate_regions(net, _cube(4)))
    # B_{N,1}: four cubes of side 2; B_{N,2}: the 6 squares where two planes cross; 4 edges; one vertex.
    assert [str(x) for x in v.exact] == ["32", "24", "8", "1"]


# --- the cells ----------------------------------------------------------------------------------------------------

@st.composite
def _cells(draw):
    """A box [-2, 2]^d cut by a few integer half-spaces through small integer points (ties are frequent)."""
    d = draw(st.integers(3, 4))
    rows = [tuple(int(i == j) * s for j in range(d)) + (2,) for i in range(d) for s in (1, -1)]
    for _ in range(draw(st.integers(0, 4))):
        a = tuple(draw(st.integers(-2, 2)) for _ in range(d))
        if any(a):
            rows.append(a + (draw(st.integers(-1, 3)),))
    return rows, d


@settings(max_examples=60, deadline=None)
@given(_cells())
def test_cell_vertices_and_lattice_match_the_polytope(cell):
    rows, d = cell
    polytope = Polytope([row[:-1] for row in rows], [row[-1] for row in rows], d)
    expected = polytope.vertices()
    if polytope.interior_point() is None:
        return  # empty or flat: not a region
    points, tight = cell_vertices(rows, d)
    assert [tuple(F(x, p[0]) for x in p[1:]) for p in points] == list(expected)
    assert [set(members(t)) for t in tight] == [set(r) for r in polytope.generators().point_rows]
    faces, covers = cell_lattice(tight, len(rows), d)
    lattice = polytope.faces()
    key = {(f.dim, frozenset(f.vertices)) for f in lattice.faces}
    assert {(dim, frozenset(members(bits))) for dim, bits in faces} == key and len(faces) == len(key)
    ours = {(frozenset(members(faces[i][1])), frozenset(members(faces[j][1]))) for i, j in covers}
    theirs = {(frozenset(lattice.faces[i].vertices), frozenset(lattice.faces[j].vertices)) for i, j in lattice.covers}
    assert ours == theirs and len(covers) == len(theirs)


def test_echelon_and_hyperplane_bases_are_the_reduced_row_echelon_form():
    rng = random.Random(7)
    for _ in range(200):
        d = rng.randint(3, 5)
        p = rng.randint(1, d - 1)
        rows = [[rng.randint(-9, 9) for _ in range(d)] for _ in range(p)]
        if rank(rows) < p:
            continue
        B, pivots = rref(rows)
        echelon, ours = _echelon(rows)
        assert ours == list(pivots)
        assert [tuple(F(x, row[c]) for x in row) for row, c in zip(echelon, ours)] == list(B)
        if p == d - 1:
            q, hyperplane_pivots = _hyperplane(rows)
            assert hyperplane_pivots == list(pivots)
            gram = determinant(matmul(B, tuple(zip(*B))))
            assert F(*q) == gram


def test_every_face_of_a_cell_is_found_once():
    # The cross-polytope in R^4 (16 facets, simplicial): the general walk; the 4-cube: the simple path.
    d = 4
    cross = [tuple(s) + (1,) for s in itertools.product((1, -1), repeat=d)]
    _, tight = cell_vertices(cross, d)
    faces, _ = cell_lattice(tight, len(cross), d)
    assert sorted(dim for dim, _ in faces).count(0) == 8 and len(faces) == 8 + 24 + 32 + 16 + 1
    cube = [tuple(int(i == j) * s for j in range(d)) + (1,) for i in range(d) for s in (1, -1)]
    _, tight = cell_vertices(cube, d)
    faces, _ = cell_lattice(tight, len(cube), d)
    assert len(faces) == 16 + 32 + 24 + 8 + 1


def test_face_complex_is_unchanged_by_engine_details():
    # Both the dataclass fields and the derived views agree with the reference on a network of mixed cells.
    net, d = _degenerate("integers")
    fc = face_complex(enumerate_regions(net, _cube(d)))
    assert all(dataclasses.is_dataclass(face) for face in fc.faces)
    assert fc.f_vector()[-1] == len(fc.complex.regions)
    assert sum((-1) ** k * n for k, n in enumerate(fc.f_vector())) == 1  # a ball: Euler characteristic 1
