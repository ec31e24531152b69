"""Property tests on random degenerate arrangements: enumeration against the poset, linear programs and Euler."""

import itertools
import math
from dataclasses import dataclass
from fractions import Fraction

from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.arrangements import Arrangement
from polyregions.exact.lp import maximize, strict_point


@st.composite
def arrangements(draw, dims=(2, 3, 4), max_rows=7):
    """Integer rows in [-2, 2] with parallel, concurrent and repeated hyperplanes (repeats as multiples)."""
    d = draw(st.sampled_from(dims))
    normal = st.lists(st.integers(-2, 2), min_size=d, max_size=d).filter(any)
    rows = draw(st.lists(st.tuples(normal, st.integers(-2, 2)).map(lambda r: list(r[0]) + [r[1]]),
                         min_size=1, max_size=max_rows))
    repeats = draw(st.lists(st.tuples(st.integers(0, len(rows) - 1), st.sampled_from([-2, -1, 3])), max_size=2))
    rows += [[k * v for v in rows[i]] for i, k in repeats]
    if draw(st.booleans()):  # a hyperplane through a common point of others, and a parallel one
        rows.append([a + b for a, b in zip(rows[0][:-1], rows[-1][:-1])] + [rows[0][-1] + rows[-1][-1]]
                    if any(a + b for a, b in zip(rows[0][:-1], rows[-1][:-1])) else rows[0])
        rows.append(rows[0][:-1] + [rows[0][-1] + 1])
    return Arrangement(rows, dim=d)


def _value(row, x):
    return sum((Fraction(a) * v for a, v in zip(row[:-1], x)), Fraction(0)) - row[-1]


@given(arrangements())
@settings(max_examples=40)
def test_enumeration_agrees_with_zaslavsky_and_euler(arrangement):
    report = arrangement.check_zaslavsky()
    assert report.regions == report.regions_predicted
    assert report.bounded_regions == report.bounded_predicted
    assert report.euler_characteristic == (-1) ** arrangement.dim
    assert sum(arrangement.poincare_polynomial()) == report.regions
    m, d = len(arrangement), arrangement.dim
    assert report.regions <= sum(math.comb(m, i) for i in range(d + 1))


def _lp_signs(arrangement, signs):
    """Whether the cell with these signs over {-1, 0, 1} is non-empty, by a certified LP."""
    A, b, E, e = [], [], [], []
    for s, row in zip(signs, arrangement.hyperplanes):
        normal = tuple(Fraction(v) for v in row[:-1])
        if s == 0:
            E.append(normal)
            e.append(Fraction(row[-1]))
        else:
            A.append(tuple(-s * v for v in normal))
            b.append(Fraction(-s * row[-1]))
    return strict_point(A, b, E=E, e=e, dim=arrangement.dim) is not None


@given(arrangements(dims=(2, 3), max_rows=5))
@settings(max_examples=15)
def test_regions_are_exactly_the_feasible_sign_vectors(arrangement):
    found = {r.signs for r in arrangement.regions()}
    brute = {s for s in itertools.product((-1, 1), repeat=len(arrangement)) if _lp_signs(arrangement, s)}
    assert found == brute


@given(arrangements(dims=(2, 3), max_rows=4))
@settings(max_examples=10)
def test_faces_are_exactly_the_feasible_sign_vectors(arrangement):
    found = {f.signs for f in arrangement.faces()}
    assert len(found) == len(arrangement.faces())
    brute = {s for s in itertools.product((-1, 0, 1), repeat=len(arrangement)) if _lp_signs(arrangement, s)}
    assert found == brute


@given(arrangements(max_rows=6))
@settings(max_examples=25)
def test_points_carry_their_signs(arrangement):
    for face in arrangement.faces():
        x = face.interior_point
        assert tuple((v > 0) - (v < 0) for v in (_value(row, x) for row in arrangement.hyperplanes)) == face.signs


@given(arrangements(max_rows=6))
@settings(max_examples=20)
def test_relative_boundedness_agrees_with_linear_programs(arrangement):
    m, d = len(arrangement), arrangement.dim
    for region in arrangement.regions():
        rows = [tuple(Fraction(-s * v) for v in a) for s, a in zip(region.signs, arrangement.normals)]
        objective = [-sum((row[j] for row in rows), Fraction(0)) for j in range(d)]
        bounded = maximize(objective, rows + [tuple(-v for v in r) for r in rows],
                           [Fraction(0)] * m + [Fraction(1)] * m).value == 0
        assert region.bounded == bounded


@given(arrangements(max_rows=6))
@settings(max_examples=20)
def test_adjacency_and_face_poset_structure(arrangement):
    d = arrangement.dim
    graph = arrangement.adjacency_graph()
    assert graph.number_of_edges() == arrangement.f_vector()[d - 1]
    poset = arrangement.face_poset()
    faces = arrangement.faces()
    for i, face in enumerate(faces):
        if face.dim == d - 1:
            assert poset.out_degree(i) == 2
        if face.dim >= 1 and face.is_bounded():
            assert poset.in_degree(i) >= face.dim + 1  # a bounded k-polytope has at least k + 1 facets


@dataclass(frozen=True)
class Box:
    """A box ``lower <= x <= upper`` as rows ``A x <= b`` (what an arrangement's domain needs)."""

    lower: tuple
    upper: tuple

    @property
    def dim(self):
        return len(self.lower)

    @property
    def A(self):
        d = self.dim
        unit = [tuple(Fraction(int(i == j)) for j in range(d)) for i in range(d)]
        return tuple(unit) + tuple(tuple(-v for v in u) for u in unit)

    @property
    def b(self):
        return tuple(Fraction(u) for u in self.upper) + tuple(-Fraction(v) for v in self.lower)


@st.composite
def boxes(draw, d):
    lower = draw(st.lists(st.integers(-3, 1), min_size=d, max_size=d))
    widths = draw(st.lists(st.integers(1, 4), min_size=d, max_size=d))
    return Box(tuple(Fraction(v, 2) for v in lower), tuple(Fraction(v + w, 2) for v, w in zip(lower, widths)))


@given(st.data())
@settings(max_examples=30)
def test_cells_of_a_box(data):
    arrangement = data.draw(arrangements(dims=(2, 3), max_rows=5))
    box = data.draw(boxes(arrangement.dim))
    inside = arrangement.within(box)
    report = inside.check_zaslavsky()
    assert report.ok and report.bounded_regions == report.regions
    # The cells are the regions of the whole arrangement that meet the open box, cut by it.
    expected = {r.signs for r in arrangement.regions() if _meets(arrangement, r.signs, box)}
    assert {r.signs for r in inside.regions()} == expected
    for region in inside.regions():
        x = region.interior_point
        assert all(lo < v < hi for v, lo, hi in zip(x, box.lower, box.upper)) and region.contains(x)


def _meets(arrangement, signs, box):
    A = [tuple(Fraction(-s * v) for v in row[:-1]) for s, row in zip(signs, arrangement.hyperplanes)]
    b = [Fraction(-s * row[-1]) for s, row in zip(signs, arrangement.hyperplanes)]
    return strict_point(A + list(box.A), b + list(box.b), dim=arrangement.dim) is not None
