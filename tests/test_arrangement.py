"""Hyperplane arrangements: canonical form, closed forms of named arrangements, constructions, faces."""

import itertools
import math
from fractions import Fraction

import networkx as nx
import pytest

from polyregions import CertificateError, InvalidInputError
from polyregions.arrangements import (
    Arrangement,
    braid,
    catalan,
    check_zaslavsky,
    coordinate,
    generic,
    graphical,
    intersection_poset,
    is_generic,
    ish,
    linial,
    network_layer,
    parse_name,
    resonance,
    semiorder,
    shi,
)
from polyregions.exact.lp import maximize


def poly_from_roots(roots, times=1):
    """Coefficients (highest degree first) of t^times * prod (t - r)."""
    coefficients = [1]
    for r in roots:
        coefficients = [a - r * b for a, b in zip(coefficients + [0], [0] + coefficients)]
    return tuple(coefficients + [0] * times)


def evaluate(coefficients, t):
    value = 0
    for c in coefficients:
        value = value * t + c
    return value


# ------------------------------------------------------------------------------------------ canonical form
def test_rows_merge_when_they_describe_the_same_hyperplane():
    arrangement = Arrangement([[2, -4, 6], [-1, 2, -3], ["1/2", -1, "3/2"], [0, -3, 3], [0.5, 0, 0]])
    assert arrangement.hyperplanes == ((1, -2, 3), (0, 1, -1), (1, 0, 0))
    assert len(arrangement) == 3 and arrangement.dim == 2


def test_canonical_rows_are_primitive_with_positive_leading_normal_entry():
    arrangement = Arrangement([[0, -6, 4, 2], [0, 0, -3, 9]])
    assert arrangement.hyperplanes == ((0, 3, -2, -1), (0, 0, 1, -3))
    for row in arrangement.hyperplanes:
        assert math.gcd(*row) == 1
        assert next(v for v in row[:-1] if v) > 0


def test_exact_numbers_from_floats_and_strings():
    # 0.1 is a dyadic rational, "0.1" is one tenth: different hyperplanes.
    arrangement = Arrangement([[1, 0.1], [1, "0.1"], [10, 1]])
    assert arrangement.hyperplanes == ((36028797018963968, 3602879701896397), (10, 1))


@pytest.mark.parametrize("rows, message", [
    ([[0, 0, 1]], "non-zero normal"),
    ([[1, 0, 0], [1, 2]], "expected 3 numbers"),
    ([[1, "x", 0]], "hyperplanes[0][1]"),
    ([[1, float("nan"), 0]], "finite"),
    ([[1]], "d >= 1"),
    ("not rows", "list of rows"),
])
def test_bad_rows_are_rejected(rows, message):
    with pytest.raises(InvalidInputError, match=message.replace("[", r"\[").replace("]", r"\]")):
        Arrangement(rows)


def test_empty_arrangement_needs_a_dimension():
    with pytest.raises(InvalidInputError, match="dimension"):
        Arrangement([])
    empty = Arrangement([], dim=3)
    assert empty.num_regions() == 1 and empty.characteristic_polynomial() == (1, 0, 0, 0)
    assert empty.f_vector() == (0, 0, 0, 1) and len(empty.bounded_regions()) == 1


def test_equality_ignores_order_and_repeats():
    a = Arrangement([[1, 0, 0], [0, 1, 0]])
    b = Arrangement([[0, 2, 0], [1, 0, 0], [-1, 0, 0]])
    assert a == b and hash(a) == hash(b)
    assert a != Arrangement([[1, 0, 0]], dim=2)


# -------------------------------------------------------------------------------- named arrangements
@pytest.mark.parametrize("n", range(1, 7))
def test_braid_regions_and_characteristic_polynomial(n):
    arrangement = braid(n)
    assert arrangement.num_regions() == math.factorial(n)
    assert arrangement.characteristic_polynomial() == poly_from_roots(range(1, n), times=1)
    assert len(arrangement.bounded_regions()) == (1 if n == 1 else 0)
    assert arrangement.rank == n - 1 and arrangement.is_central()


@pytest.mark.slow
def test_braid_7_has_5040_regions():
    arrangement = braid(7)
    assert arrangement.num_regions() == 5040
    assert arrangement.check_zaslavsky(faces=False).ok


@pytest.mark.parametrize("n", range(1, 6))
def test_shi(n):
    arrangement = shi(n)
    assert arrangement.num_regions() == (n + 1) ** (n - 1)
    assert len(arrangement.bounded_regions()) == (n - 1) ** (n - 1)
    assert arrangement.characteristic_polynomial() == poly_from_roots([n] * (n - 1), times=1)


@pytest.mark.parametrize("n", range(1, 5))
def test_catalan(n):
    arrangement = catalan(n)
    catalan_number = math.comb(2 * n, n) // (n + 1)
    assert arrangement.num_regions() == math.factorial(n) * catalan_number
    assert len(arrangement.bounded_regions()) == math.factorial(n) * math.comb(2 * n - 2, n - 1) // n
    assert arrangement.characteristic_polynomial() == poly_from_roots(range(n + 1, 2 * n), times=1)


@pytest.mark.parametrize("n", range(1, 6))
def test_linial(n):
    expected = sum(math.comb(n, k) * (k + 1) ** (n - 1) for k in range(n + 1)) // 2 ** n
    assert linial(n).num_regions() == expected


@pytest.mark.parametrize("n, expected", [(1, 1), (2, 3), (3, 19), (4, 183)])
def test_semiorder_counts_labelled_semiorders(n, expected):
    assert semiorder(n).num_regions() == expected


@pytest.mark.parametrize("n", range(1, 5))
def test_ish_shares_shi_counts(n):
    arrangement = ish(n)
    assert arrangement.characteristic_polynomial() == shi(n).characteristic_polynomial()
    assert arrangement.num_regions() == (n + 1) ** (n - 1)
    assert len(arrangement.bounded_regions()) == (n - 1) ** (n - 1)


@pytest.mark.parametrize("d, expected", [(1, 2), (2, 6), (3, 32), (4, 370)])
def test_resonance(d, expected):
    assert resonance(d).num_regions() == expected


@pytest.mark.parametrize("d", range(1, 5))
def test_coordinate(d):
    arrangement = coordinate(d)
    assert arrangement.num_regions() == 2 ** d
    assert arrangement.f_vector() == tuple(math.comb(d, k) * 2 ** k for k in range(d + 1))


@pytest.mark.parametrize("m, d, seed", [(3, 2, 0), (7, 2, 1), (8, 3, 2), (9, 4, 3), (2, 4, 4), (6, 1, 5)])
def test_generic(m, d, seed):
    arrangement = generic(m, d, seed=seed)
    assert len(arrangement) == m and is_generic(arrangement)
    assert arrangement.num_regions() == sum(math.comb(m, i) for i in range(d + 1))
    assert len(arrangement.bounded_regions()) == math.comb(m - 1, d)
    assert arrangement.f_vector()[0] == (math.comb(m, d) if m >= d else 0)


def test_genericity_is_decided_exactly():
    assert not is_generic(Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0]]))       # concurrent
    assert not is_generic(Arrangement([[1, 0, 0], [1, 0, 1]]))                   # parallel
    assert is_generic(Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]]))
    assert generic(6, 3, seed=7) == generic(6, 3, seed=7)


def test_graphical_has_the_chromatic_polynomial():
    for n in range(3, 7):
        chi = graphical(nx.cycle_graph(n)).characteristic_polynomial()
        for t in range(-2, 5):
            assert evaluate(chi, t) == (t - 1) ** n + (-1) ** n * (t - 1)
    assert graphical(nx.complete_graph(4)) == braid(4)


def test_graphical_regions_are_acyclic_orientations():
    graph = nx.petersen_graph().subgraph(range(7)).copy()
    edges = list(graph.edges)
    acyclic = 0
    for flips in itertools.product((False, True), repeat=len(edges)):
        directed = nx.DiGraph([(v, u) if f else (u, v) for (u, v), f in zip(edges, flips)])
        acyclic += nx.is_directed_acyclic_graph(directed)
    assert graphical(graph).num_regions() == acyclic


def test_network_layer_rows():
    arrangement = network_layer([[1, 2], [2, 4], [0, "1/3"]], [1, 2, 0])
    assert arrangement.hyperplanes == ((1, 2, -1), (0, 1, 0))
    with pytest.raises(InvalidInputError, match=r"weight\[1\]"):
        network_layer([[1, 2], [0, 0]], [0, 1])
    with pytest.raises(InvalidInputError, match="bias"):
        network_layer([[1, 2]], [0, 1])


def test_parse_name():
    assert parse_name("braid:4") == braid(4)
    assert parse_name("generic:5,2,3") == generic(5, 2, seed=3)
    for bad in ("braid", "braid:x", "braid:1,2", "nope:3", "generic:5"):
        with pytest.raises(InvalidInputError, match="--name"):
            parse_name(bad)


# ----------------------------------------------------------------------------------- the examples asked
def test_grid_of_lines():
    rows = [[1, 0, k] for k in range(9)] + [[0, 1, k] for k in range(9)]
    arrangement = Arrangement(rows)
    assert arrangement.num_regions() == 100
    assert len(arrangement.bounded_regions()) == 64
    assert arrangement.f_vector()[0] == 81
    assert arrangement.check_zaslavsky(raise_on_failure=True).ok


def test_cube_facet_planes():
    rows = [[int(i == j) for j in range(3)] + [c] for i in range(3) for c in (0, 1)]
    arrangement = Arrangement(rows)
    assert arrangement.num_regions() == 27
    assert len(arrangement.bounded_regions()) == 1
    assert arrangement.f_vector() == (8, 36, 54, 27)


# -------------------------------------------------------------------------------------- constructions
EXAMPLES = [
    Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, -1, 1], [1, 0, 2]]),
    Arrangement([[1, 1, 0, 0], [0, 1, 1, 1], [1, 0, -1, 0], [1, 2, 1, 3], [0, 0, 1, 0]]),
    shi(3),
    catalan(3),
]


@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_deletion_restriction(arrangement):
    for i in range(len(arrangement)):
        deleted, restricted = arrangement.deletion(i), arrangement.restriction(i)
        assert arrangement.num_regions() == deleted.num_regions() + restricted.num_regions()
        chi, chi_deleted = arrangement.characteristic_polynomial(), deleted.characteristic_polynomial()
        chi_restricted = (0,) + restricted.characteristic_polynomial()
        assert chi == tuple(a - b for a, b in zip(chi_deleted, chi_restricted))


@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_restriction_chart_maps_into_the_hyperplane(arrangement):
    origin, directions = arrangement.restriction_chart(0)
    a, c = arrangement.normals[0], arrangement.offsets[0]
    assert sum(x * y for x, y in zip(a, origin)) == c
    assert all(sum(x * y for x, y in zip(a, v)) == 0 for v in directions)
    restricted = arrangement.restriction(0)
    for region in restricted.regions():
        y = region.interior_point
        x = tuple(o + sum((yj * v[i] for yj, v in zip(y, directions)), Fraction(0)) for i, o in enumerate(origin))
        values = [sum((p * q for p, q in zip(row[:-1], x)), Fraction(0)) - row[-1] for row in arrangement.hyperplanes]
        assert values[0] == 0 and all(v != 0 for v in values[1:])  # inside a facet on hyperplane 0


@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_cone_and_essentialization(arrangement):
    cone = arrangement.cone()
    assert cone.num_regions() == 2 * arrangement.num_regions()
    chi = arrangement.characteristic_polynomial()
    assert cone.characteristic_polynomial() == tuple(a - b for a, b in zip(chi + (0,), (0,) + chi))
    essential = arrangement.essentialization()
    assert essential.is_essential() and essential.dim == arrangement.rank
    assert essential.num_regions() == arrangement.num_regions()
    assert len(essential.bounded_regions()) == len(arrangement.bounded_regions())
    lineality = arrangement.dim - arrangement.rank
    assert arrangement.characteristic_polynomial() == essential.characteristic_polynomial() + (0,) * lineality


def test_restriction_to_a_flat():
    arrangement = braid(4)
    flat = next(f for f in arrangement.poset.flats if f.hyperplanes == frozenset({0, 1, 3}))  # x1 = x2 = x3
    restricted = arrangement.restriction(flat)
    assert restricted.dim == 2 and len(restricted) == 1  # x_i = x4 for i <= 3 all become one line
    assert restricted.num_regions() == 2


# --------------------------------------------------------------------------------- regions and faces
@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_regions_carry_exact_points_and_polytopes(arrangement):
    for region in arrangement.regions():
        x = region.interior_point
        assert region.contains(x)
        assert all(sum((a * v for a, v in zip(row, x)), Fraction(0)) < b for row, b in zip(region.A, region.b))
        assert arrangement.region_of(x) is region
        assert len(region.signs) == len(arrangement) and set(region.signs) <= {-1, 1}


def _lp_relatively_bounded(arrangement, region):
    # The recession cone {v : -s a . v <= 0} is the lineality space iff the total of s a . v over it is 0.
    rows = [tuple(Fraction(-s * v) for v in a) for s, a in zip(region.signs, arrangement.normals)]
    rows += [tuple(-v for v in row) for row in rows]
    rhs = [Fraction(0)] * len(arrangement) + [Fraction(1)] * len(arrangement)
    objective = [sum((-row[j] for row in rows[:len(arrangement)]), Fraction(0)) for j in range(arrangement.dim)]
    return maximize(objective, rows, rhs).value == 0


@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_relative_boundedness_agrees_with_linear_programs(arrangement):
    for region in arrangement.regions():
        assert region.bounded == _lp_relatively_bounded(arrangement, region)


@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_faces_have_points_with_their_signs(arrangement):
    for face in arrangement.faces():
        x = face.interior_point
        for s, row in zip(face.signs, arrangement.hyperplanes):
            value = sum((a * v for a, v in zip(row[:-1], x)), Fraction(0)) - row[-1]
            assert (value > 0) - (value < 0) == s
        assert face.dim == arrangement.dim - arrangement.poset.flats[face.flat].rank


@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_adjacency_graph(arrangement):
    graph = arrangement.adjacency_graph()
    regions = arrangement.regions()
    assert graph.number_of_nodes() == len(regions)
    assert graph.number_of_edges() == arrangement.f_vector()[arrangement.dim - 1]
    assert nx.is_connected(graph)
    for i, j, data in graph.edges(data=True):
        differ = [k for k, (s, t) in enumerate(zip(regions[i].signs, regions[j].signs)) if s != t]
        assert differ == [data["hyperplane"]]


@pytest.mark.parametrize("arrangement", EXAMPLES)
def test_face_poset_incidences(arrangement):
    graph = arrangement.face_poset()
    faces = arrangement.faces()
    for f, g in graph.edges:
        assert faces[g].dim == faces[f].dim + 1
        assert all(s == 0 or s == t for s, t in zip(faces[f].signs, faces[g].signs))
    # Brute force: conformal pairs one dimension apart are exactly the edges.
    expected = {(i, j) for i, f in enumerate(faces) for j, g in enumerate(faces) if g.dim == f.dim + 1
                and all(s == 0 or s == t for s, t in zip(f.signs, g.signs))}
    assert set(graph.edges) == expected
    for i, face in enumerate(faces):
        if face.dim == arrangement.dim - 1:
            assert graph.out_degree(i) == 2


def test_bounded_faces():
    arrangement = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]])
    bounded = [f for f in arrangement.faces() if f.is_bounded()]
    assert sorted(f.dim for f in bounded) == [0, 0, 0, 1, 1, 1, 2]
    assert not any(f.is_bounded() for f in braid(3).faces())


# ---------------------------------------------------------------------------------------- the poset
def test_poset_invariants():
    arrangement = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, -1, 1]])
    poset = arrangement.poset
    assert poset.rank == 2 and len(poset) == 1 + 4 + 4
    assert poset.whitney_numbers(kind=1) == (1, -4, 5)
    assert poset.poincare_polynomial() == (5, 4, 1)
    assert sum(poset.poincare_polynomial()) == arrangement.num_regions() == 10
    origin = next(f for f in poset.flats if f.hyperplanes == frozenset({0, 1, 2}))
    assert poset.mobius[origin.index] == 2 and origin.contains([0, 0]) and not origin.contains([0, 1])
    diagram = poset.hasse_diagram()
    assert diagram.number_of_edges() == 4 + 3 + 2 + 2 + 2
    assert intersection_poset(Arrangement([], dim=2)).characteristic_polynomial() == (1, 0, 0)


def test_flat_points_and_directions():
    arrangement = Arrangement([[1, 1, 1, 3], [1, -1, 0, 1]])
    for flat in arrangement.poset.flats:
        for i in flat.hyperplanes:
            row = arrangement.hyperplanes[i]
            assert sum(a * x for a, x in zip(row, flat.point)) == row[-1]
            assert all(sum(a * x for a, x in zip(row, v)) == 0 for v in flat.directions)
        assert len(flat.directions) == flat.dim


def test_zaslavsky_report_and_failure():
    report = check_zaslavsky(shi(3))
    assert (report.regions, report.regions_predicted, report.bounded_regions, report.bounded_predicted,
            report.euler_characteristic, report.euler_expected) == (16, 16, 4, 4, -1, -1)
    assert "all agree" in str(report)


def test_zaslavsky_raises_only_when_asked(monkeypatch):
    arrangement = shi(2)
    monkeypatch.setattr(Arrangement, "predicted_regions", lambda self: 4)
    report = arrangement.check_zaslavsky()
    assert not report.ok and "DISAGREEMENT" in str(report)
    with pytest.raises(CertificateError):
        arrangement.check_zaslavsky(raise_on_failure=True)


def test_index_errors():
    with pytest.raises(InvalidInputError, match="hyperplane index"):
        braid(3).deletion(3)
    with pytest.raises(InvalidInputError, match="hyperplane index"):
        braid(3).restriction(-1)


# ------------------------------------------------------------------------------------------- domains
class Rows:
    """A polytope given only by its rows ``A x <= b`` (an arrangement's domain needs nothing more)."""

    def __init__(self, A, b):
        self.A = tuple(tuple(Fraction(v) for v in row) for row in A)
        self.b = tuple(Fraction(v) for v in b)
        self.dim = len(self.A[0])


def square(lo, hi):
    lo, hi = Fraction(lo), Fraction(hi)
    return Rows([[1, 0], [0, 1], [-1, 0], [0, -1]], [hi, hi, -lo, -lo])


def test_points_on_a_line_within_an_interval():
    arrangement = Arrangement([[1, k] for k in range(4)]).within(Rows([[1], [-1]], ["5/2", "-1/2"]))
    assert arrangement.num_regions() == 3  # (1/2, 1), (1, 2), (2, 5/2)
    assert arrangement.f_vector() == (2, 3)
    assert [r.interior_point[0] for r in arrangement.regions()] == [Fraction(3, 4), Fraction(3, 2), Fraction(9, 4)]
    assert arrangement.check_zaslavsky().ok


def test_domain_facets_on_hyperplanes():
    # x = 0 is a side of the square: it cuts nothing and has no face inside.
    arrangement = Arrangement([[1, 0, 0], [1, 0, "1/2"], [0, 1, "1/2"]]).within(square(0, 1))
    assert arrangement.num_regions() == 4 and arrangement.f_vector() == (1, 4, 4)
    assert all(r.signs[0] == 1 for r in arrangement.regions())
    report = arrangement.check_zaslavsky(raise_on_failure=True)
    assert report.bounded_predicted == report.bounded_regions == 4


def test_grid_within_a_square():
    rows = [[1, 0, k] for k in range(9)] + [[0, 1, k] for k in range(9)]
    inside = Arrangement(rows).within(square("1/2", "7/2"))
    assert inside.num_regions() == 16 and inside.f_vector() == (9, 24, 16)  # lines 1, 2, 3 each way
    region = inside.region_of(["3/4", "3/4"])
    assert region is not None and region.contains([Fraction(3, 4), Fraction(3, 4)])
    assert inside.region_of([0, 0]) is None  # outside the domain
    assert inside.region_of([1, "3/4"]) is None  # on a line


def test_unbounded_domain():
    half_plane = Rows([[0, -1]], [0])  # y >= 0
    inside = Arrangement([[1, 0, 0], [0, 1, 1]]).within(half_plane)
    report = inside.check_zaslavsky()
    assert report.regions == report.regions_predicted == 4 and report.bounded_predicted is None
    assert report.ok and len(inside.bounded_regions()) == 0
    assert inside.restriction(1).num_regions() == 2  # the line y = 1 lies inside


def test_bad_domains():
    with pytest.raises(InvalidInputError, match="R\\^2"):
        Arrangement([[1, 0, 0]]).within(Rows([[1]], [1]))
    with pytest.raises(InvalidInputError, match="full-dimensional"):
        Arrangement([[1, 0, 0]]).within(Rows([[1, 0], [-1, 0]], [0, 0]))
    with pytest.raises(InvalidInputError, match="Polytope"):
        Arrangement([[1, 0, 0]]).within("box")
    with pytest.raises(InvalidInputError, match="misses"):
        Arrangement([[1, 0, 5]]).within(square(0, 1)).restriction(0)
    for construction in ("essentialization", "cone"):
        with pytest.raises(InvalidInputError, match="without a domain"):
            getattr(Arrangement([[1, 0, 0]]).within(square(-1, 1)), construction)()


def test_regions_as_polytopes():
    from polyregions.polyhedra.polytope import Polytope

    rows = [[1, 0, k] for k in range(4)] + [[0, 1, k] for k in range(4)] + [[1, 1, 3]]
    box = Polytope.box([0, 0], [3, 3])
    inside = Arrangement(rows).within(box)
    regions = inside.regions()
    # The cells tile the box: their volumes add up to its volume, each is bounded and holds its point.
    assert sum(r.polytope.volume() for r in regions) == box.volume() == 9
    for region in regions:
        polytope = region.polytope
        assert polytope.is_bounded() and polytope.contains_strictly(region.interior_point)
    whole = Arrangement(rows)
    for region in whole.regions():
        assert region.polytope.is_bounded() == region.bounded  # essential: relative is ordinary boundedness
    assert isinstance(inside.restriction(8).domain, Polytope)
    # x + y = 3 meets the grid lines only at (1, 2) and (2, 1) inside the box: three open segments.
    assert inside.restriction(8).num_regions() == 3


def test_whole_space_as_a_domain():
    from polyregions.polyhedra.polytope import Polytope

    arrangement = shi(3)
    inside = arrangement.within(Polytope.space(3))
    assert inside.num_regions() == arrangement.num_regions()
    assert inside.check_zaslavsky(faces=False).ok
