"""Counting regions without listing them: the characteristic polynomial by finite fields and by
deletion-restriction, against closed forms, OEIS, the poset and the enumeration."""

import itertools
import json
import math
from fractions import Fraction

import networkx as nx
import pytest
import sympy
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions import InvalidInputError
from polyregions.arrangements import (
    Arrangement,
    braid,
    catalan,
    characteristic_polynomial,
    count_regions,
    coxeter,
    coxeter_number,
    decide_freeness,
    exponents,
    generic,
    graphical,
    parse_name,
    positive_roots,
    resonance,
    shi,
    threshold,
    varchenko_determinant,
    varchenko_formula,
    varchenko_matrix,
    weyl_group_order,
)
from polyregions.arrangements._finite_field import finite_field_polynomial, good_prime_bound
from polyregions.arrangements._integer_forms import echelon_pivots, essential_form
from polyregions.arrangements._low_rank import central_rank3, second_whitney_number
from polyregions.arrangements._minors import exact_max_minor, hadamard_bound, minor_bound, zero_one_bound
from polyregions.arrangements._point_count import OverBudget, count_points, primes_above
from polyregions.arrangements._polynomials import divide_linear, interpolate_low, power_linear, times_linear
from polyregions.arrangements.counting import (
    bounded_regions_from_polynomial,
    poincare_from_characteristic,
    regions_from_polynomial,
)
from polyregions.arrangements.freeness import integer_roots
from polyregions.arrangements.varchenko import beta_invariants
from polyregions.cli import main

COUNTING = ["finite-field", "deletion-restriction", "auto"]

# OEIS A034997 (resonance R_n, n = 1..7) and A000609 (threshold functions of n variables, n = 0..6)
RESONANCE = [2, 6, 32, 370, 11292, 1066044, 347326352]
THRESHOLD = [2, 4, 14, 104, 1882, 94572, 15028134]


def _poly(roots, extra_t=0):
    out = (1,)
    for root in roots:
        out = times_linear(out, root)
    return out + (0,) * extra_t


# ------------------------------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("method, n", [(method, n) for method in COUNTING for n in range(1, 8)
                                       if n < 7 or method != "deletion-restriction"])
def test_braid_shi_catalan_closed_forms(method, n):
    assert count_regions(braid(n), method=method).regions == math.factorial(n)
    count = count_regions(shi(n), method=method)
    assert (count.regions, count.bounded_regions) == ((n + 1) ** (n - 1), max(n - 1, 0) ** (n - 1))
    assert count.characteristic_polynomial == times_linear(power_linear(n, n - 1), 0)  # t (t - n)^(n-1)
    catalan_number = math.comb(2 * n, n) // (n + 1)
    assert count_regions(catalan(n), method=method).regions == math.factorial(n) * catalan_number


@pytest.mark.parametrize("method, m, d, bound", [
    *[(method, m, d, 50) for method in ("deletion-restriction", "auto")
      for m, d in [(5, 2), (8, 3), (10, 3), (9, 4), (12, 4), (8, 5)]],
    ("finite-field", 7, 2, 3), ("finite-field", 12, 2, 9),  # in the plane chi is t^2 - m t + b_2: no prime needed
    ("finite-field", 6, 3, 2),  # a count over F_q with q > 63, on Python integers
])
def test_generic_arrangements(method, m, d, bound):
    count = count_regions(generic(m, d, seed=m + d, bound=bound), method=method)
    assert count.regions == sum(math.comb(m, i) for i in range(d + 1))
    assert count.bounded_regions == math.comb(m - 1, d)


TYPES = ["A1", "A2", "A4", "B2", "B3", "B5", "C2", "C3", "C4", "D2", "D3", "D4", "D5", "G2", "F4", "E6"]


@pytest.mark.parametrize("name", TYPES)
def test_root_system_arrangements(name):
    n, h, e = len(exponents(name)), coxeter_number(name), exponents(name)
    lineality = coxeter(name).dim - n
    count = count_regions(coxeter(name))
    assert count.characteristic_polynomial == _poly(e, lineality)
    assert count.regions == weyl_group_order(name)
    count = count_regions(shi(name))
    assert count.characteristic_polynomial == _poly([h] * n, lineality)
    assert (count.regions, count.bounded_regions) == ((h + 1) ** n, (h - 1) ** n)
    count = count_regions(catalan(name))
    assert count.characteristic_polynomial == _poly([h + ei for ei in e], lineality)
    assert count.regions == math.prod(h + ei + 1 for ei in e)


def test_the_e6_values():
    assert weyl_group_order("E6") == 51840 and (coxeter_number("E6") + 1) ** 6 == 4826809
    assert math.prod(13 + e for e in exponents("E6")) == 51840 * 833 == 43182720


@pytest.mark.parametrize("name", ["A3", "B4", "D4", "G2"])
def test_root_system_arrangements_by_deletion_restriction(name):
    assert (count_regions(catalan(name), method="deletion-restriction").characteristic_polynomial
            == count_regions(catalan(name), method="finite-field").characteristic_polynomial)


def test_root_systems():
    for name, count in [("A4", 10), ("B4", 16), ("C4", 16), ("D4", 12), ("E6", 36), ("E7", 63), ("E8", 120),
                        ("F4", 24), ("G2", 6)]:
        roots = positive_roots(name)
        assert len(roots) == count == len(exponents(name)) * coxeter_number(name) // 2
    assert shi("A3") == shi(4) and coxeter("A3") == braid(4) and catalan("A2") == catalan(3)
    assert parse_name("shi:e6") == shi("E6") and parse_name("coxeter:B3") == coxeter("B3")
    for bad in ("H3", "D1", "E9", "B0", "x", ""):
        with pytest.raises(InvalidInputError, match="root system"):
            shi(bad)
    for bad in ("coxeter:3", "shi:Q4", "catalan:E9", "threshold:B3"):
        with pytest.raises(InvalidInputError, match="--name"):
            parse_name(bad)
    with pytest.raises(InvalidInputError, match="coxeter"):
        coxeter(3)


# ----------------------------------------------------------------------------------------------- OEIS
@pytest.mark.parametrize("n", range(1, 7))
def test_resonance_regions_are_oeis_a034997(n):
    assert count_regions(resonance(n)).regions == RESONANCE[n - 1]


@pytest.mark.parametrize("n", range(0, 6))
def test_threshold_regions_are_oeis_a000609(n):
    arrangement = threshold(n)
    assert (arrangement.dim, len(arrangement)) == (n + 1, 2 ** n)
    assert count_regions(arrangement).regions == THRESHOLD[n]


@pytest.mark.parametrize("n", range(1, 6))
def test_resonance_and_threshold_by_deletion_restriction(n):
    assert count_regions(resonance(n), method="deletion-restriction").regions == RESONANCE[n - 1]
    assert count_regions(threshold(n - 1), method="deletion-restriction").regions == THRESHOLD[n - 1]


@pytest.mark.slow
def test_resonance_7_and_threshold_6():
    count = count_regions(resonance(7))
    assert count.regions == RESONANCE[6] == 347326352 and count.method == "finite-field"
    assert count_regions(threshold(6)).regions == THRESHOLD[6] == 15028134
    assert count_regions(resonance(6), method="deletion-restriction").regions == RESONANCE[5]


def test_threshold_restricted_to_x0_is_resonance():
    for n in range(1, 5):
        t = threshold(n)
        assert t.restriction(0).characteristic_polynomial() == resonance(n).characteristic_polynomial()


# --------------------------------------------------------------- against the poset and the enumeration
@st.composite
def arrangements(draw, dims=(1, 2, 3, 4), max_rows=7, coefficient=2):
    """Integer rows with parallel, repeated and concurrent hyperplanes (repeats as multiples)."""
    d = draw(st.sampled_from(dims))
    normal = st.lists(st.integers(-coefficient, coefficient), min_size=d, max_size=d).filter(any)
    rows = draw(st.lists(st.tuples(normal, st.integers(-coefficient, coefficient)).map(lambda r: list(r[0]) + [r[1]]),
                         min_size=1, max_size=max_rows))
    repeats = draw(st.lists(st.tuples(st.integers(0, len(rows) - 1), st.sampled_from([-2, -1, 3])), max_size=2))
    rows += [[k * v for v in rows[i]] for i, k in repeats]
    if draw(st.booleans()):  # more hyperplanes through the common point of the first two, and a parallel one
        for k in (1, 2, -3):
            combined = [a + k * b for a, b in zip(rows[0], rows[-1])]
            if any(combined[:-1]):
                rows.append(combined)
        rows.append(rows[0][:-1] + [rows[0][-1] + 1])
    if draw(st.booleans()):  # a central arrangement
        rows = [row[:-1] + [0] for row in rows]
    return Arrangement(rows, dim=d)


@given(arrangements())
@settings(max_examples=60)
def test_every_method_agrees_with_the_enumeration(arrangement):
    chi = arrangement.characteristic_polynomial()
    regions = arrangement.num_regions()
    bounded = len(arrangement.bounded_regions())
    for method in COUNTING + ["poset"]:
        try:
            count = count_regions(arrangement, method=method)
        except InvalidInputError as error:  # minors too large for small primes: only the finite-field method
            assert method == "finite-field" and "minors are small enough" in str(error)
            continue
        assert count.characteristic_polynomial == chi
        assert (count.regions, count.bounded_regions, count.rank) == (regions, bounded, arrangement.rank)
        assert count.poincare_polynomial == arrangement.poincare_polynomial()


@given(arrangements(dims=(3, 4, 5), max_rows=12, coefficient=9))
@settings(max_examples=40)
def test_deletion_restriction_agrees_with_the_poset_for_larger_coefficients(arrangement):
    assert characteristic_polynomial(arrangement, method="deletion-restriction") == \
        arrangement.characteristic_polynomial()
    assert characteristic_polynomial(arrangement) == arrangement.characteristic_polynomial()


def test_the_arrangement_method_and_the_domain():
    from polyregions.polyhedra.polytope import Polytope

    square = Polytope(((1, 0), (-1, 0), (0, 1), (0, -1)), (1, 1, 1, 1), 2)
    inside = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 5]], domain=square)
    assert inside.characteristic_polynomial(method="finite-field") == (1, -3, 3)  # chi ignores the domain
    with pytest.raises(InvalidInputError, match="restricted to a polytope"):
        count_regions(inside)
    with pytest.raises(InvalidInputError, match="method: expected one of auto, finite-field"):
        count_regions(braid(3), method="fast")
    assert braid(4).count_regions().regions == 24
    empty = Arrangement([], dim=3)
    assert count_regions(empty).characteristic_polynomial == (1, 0, 0, 0)
    assert (count_regions(empty).regions, count_regions(empty).bounded_regions) == (1, 1)


def test_finite_field_refuses_huge_primes_and_auto_falls_back():
    big = Arrangement([[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0], [1, 3000, 7000, 0], [5000, 1, 9000, 1]])
    with pytest.raises(InvalidInputError, match="finite-field: expected an arrangement whose maximal minors are "
                                                "small enough for counts over F_q"):
        count_regions(big, method="finite-field")
    assert count_regions(big).characteristic_polynomial == big.characteristic_polynomial()
    rows = [[1 if i == j else 0 for j in range(5)] + [0] for i in range(5)]
    rows += [[7 * (i + 1) + j * j for j in range(5)] + [k] for i in range(30) for k in (0, 1)]
    wide = Arrangement(rows)  # more than the small ones, large minors: auto takes deletion-restriction
    assert count_regions(wide).method == "deletion-restriction"
    assert count_regions(resonance(6)).method == "finite-field"


# ------------------------------------------------------------------------------------------ internals
@given(arrangements(dims=(1, 2, 3), max_rows=6), st.sampled_from([2, 3, 5, 7, 67]))
@settings(max_examples=40)
def test_point_counts_against_brute_force(arrangement, q):
    rows = [row[:-1] + (-row[-1],) for row in arrangement.hyperplanes]  # normals may vanish modulo q
    if arrangement.dim == 3 and q == 67:
        q = 11
    expected = sum(1 for x in itertools.product(range(q), repeat=arrangement.dim)
                   if all((sum(a * v for a, v in zip(row[:-1], x)) + row[-1]) % q for row in rows))
    assert count_points(rows, arrangement.dim, q) == expected


def test_point_count_budget_and_primes():
    rows = [a + (0,) for a in itertools.product((0, 1), repeat=6) if any(a)]
    with pytest.raises(OverBudget):
        count_points(rows, 6, 61, max_states=10)
    assert count_points(rows, 6, 17) == 217056  # chi_{R_6}(17)
    assert primes_above(32, 4) == [37, 41, 43, 47] and primes_above(0, 3) == [2, 3, 5]


def _det(matrix):
    """Laplace expansion along the first row (exact, for tiny matrices)."""
    if len(matrix) == 1:
        return matrix[0][0]
    return sum((-1) ** j * matrix[0][j] * _det([row[:j] + row[j + 1:] for row in matrix[1:]])
               for j in range(len(matrix)) if matrix[0][j])


def test_minor_bounds():
    rows = [a for a in itertools.product((0, 1), repeat=4) if any(a)]
    assert exact_max_minor(rows, 4) == 3 <= zero_one_bound(4) == minor_bound(rows, 4)
    brute = max(abs(_det([list(row) for row in c])) for c in itertools.combinations(rows, 4))
    assert exact_max_minor(rows, 4) == brute
    assert hadamard_bound([(3, 4), (1, 0)], 2) == 5
    assert minor_bound(positive_roots("E6"), 6) == 3


def test_low_rank_and_polynomials():
    assert central_rank3([(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 0), (1, -1, 0)]) == (1, -5, 7, -3)
    assert second_whitney_number([(1, 0, 0), (1, 0, 1)], 2) == 0  # two parallel lines
    assert divide_linear((1, -3, 2), 2) == (1, -1)
    with pytest.raises(Exception, match="divide"):
        divide_linear((1, 0, 1), 1)
    assert interpolate_low((1,), 2, [2, 3], [0, 2]) == (1, -3, 2)
    assert echelon_pivots([(0, 2, 4), (0, 1, 2)], 3) == (1,)
    form = essential_form(braid(4).hyperplanes, 4)
    assert (form.rank, form.homogeneous, len(form.rows)) == (3, True, 6)
    assert finite_field_polynomial(form) == (1, -6, 11, -6)
    assert good_prime_bound(essential_form(shi(3).hyperplanes, 3)) == 3


def test_zaslavsky_readings():
    assert regions_from_polynomial((1, -3, 3)) == 7 and bounded_regions_from_polynomial((1, -3, 3)) == 1
    assert poincare_from_characteristic((1, -6, 11, -6, 0)) == (6, 11, 6, 1)
    assert bounded_regions_from_polynomial((1, -1, 0)) == 0  # a line through the origin of R^2


# ---------------------------------------------------------------------------------------------- theory
@pytest.mark.parametrize("n", range(2, 6))
def test_poincare_polynomial_is_a_product_for_braid(n):
    # pi(t) = (1 + t)(1 + 2t)...(1 + (n-1)t), the Hilbert series of the Orlik-Solomon algebra of braid(n)
    t = sympy.Symbol("t")
    expected = sympy.Poly(sympy.prod([1 + k * t for k in range(1, n)]), t).all_coeffs()
    assert list(count_regions(braid(n)).poincare_polynomial) == expected


def test_freeness_of_graphic_arrangements():
    chordal = nx.Graph([(0, 1), (1, 2), (2, 0), (2, 3), (3, 4), (4, 2)])  # two triangles sharing a vertex
    report = decide_freeness(graphical(chordal))
    assert report.free is True and report.supersolvable is True and report.exponents == (0, 1, 1, 2, 2)
    assert integer_roots(graphical(chordal).characteristic_polynomial()) == report.exponents
    for cycle in (4, 5, 6):
        report = decide_freeness(graphical(nx.cycle_graph(cycle)))
        assert report.free is False and report.supersolvable is False and "not chordal" in report.reason
    assert decide_freeness(braid(5)).exponents == (0, 1, 2, 3, 4)


def test_freeness_from_the_roots_of_chi():
    for name in ("B3", "D4", "F4"):
        report = decide_freeness(coxeter(name))
        assert report.exponents == exponents(name) and report.free is None  # Terao's theorem is one-way
    assert decide_freeness(coxeter("G2")).free is True  # rank 2
    report = decide_freeness(generic(5, 3, seed=1).cone())
    assert report.free is False and "Terao" in report.reason
    report = decide_freeness(Arrangement([[1, 0, 0, 0], [0, 1, 0, 0], [1, 1, 0, 0], [1, 2, 0, 0]]))
    assert report.free is True and report.exponents == (0, 1, 3)  # rank 2
    with pytest.raises(InvalidInputError, match="central"):
        decide_freeness(shi(3))
    assert integer_roots((1, 0, 1)) is None and integer_roots((1,)) == ()


VARCHENKO = [
    [[1, 0]],  # one point on the line
    [[1, 0], [1, 1], [1, 3]],  # three points on the line
    [[1, 0, 0], [0, 1, 0]],  # two crossing lines
    [[1, 0, 0], [1, 0, 1]],  # two parallel lines
    [[1, 0, 0], [0, 1, 0], [1, 1, 1]],  # three lines in general position
    [[1, 0, 0], [0, 1, 0], [1, 1, 0]],  # three lines through a point
    [[1, 0, 0], [1, 0, 1], [0, 1, 0]],  # two parallel lines and a third
]


@pytest.mark.parametrize("rows", VARCHENKO)
def test_varchenko_determinant_formula(rows):
    arrangement = Arrangement(rows)
    determinant = varchenko_determinant(arrangement)
    assert sympy.expand(determinant - varchenko_formula(arrangement)) == 0
    matrix = varchenko_matrix(arrangement)
    assert matrix.shape == (arrangement.num_regions(),) * 2 and matrix == matrix.T


def test_varchenko_values():
    a1, a2, a3 = sympy.symbols("a1:4")
    concurrent = Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0]])
    assert beta_invariants(concurrent) == (0, 1, 1, 1, 1)
    expected = (1 - a1 ** 2) ** 2 * (1 - a2 ** 2) ** 2 * (1 - a3 ** 2) ** 2 * (1 - (a1 * a2 * a3) ** 2)
    assert sympy.expand(varchenko_formula(concurrent) - expected) == 0
    half = Fraction(1, 2)
    assert varchenko_determinant(concurrent, weights=[half] * 3) == Fraction(3, 4) ** 6 * Fraction(63, 64)
    with pytest.raises(InvalidInputError, match="weights"):
        varchenko_matrix(concurrent, weights=[1])


# ----------------------------------------------------------------------------------------- the command
def _run_json(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return json.loads(out)


def test_count_json_contract(capsys):
    summary = _run_json(capsys, ["arrangement", "--name", "resonance:5", "--count", "--json"])
    assert {"regions", "bounded_regions", "characteristic_polynomial", "exact", "face_vector", "dimension", "rank",
            "hyperplanes"} <= set(summary)
    assert summary["regions"] == 11292 and summary["bounded_regions"] == 0
    assert summary["exact"] is True and summary["face_vector"] is None
    assert summary["characteristic_polynomial"] == [1, -31, 375, -2130, 5270, -3485]
    assert summary["poincare_polynomial"] == [3485, 5270, 2130, 375, 31, 1]
    assert summary["central"] is True and summary["essential"] is True and summary["method"] == "finite-field"


def test_count_agrees_with_the_listing_command(capsys, tmp_path):
    path = tmp_path / "a.json"
    path.write_text(json.dumps({"format": "polyregions.arrangement/1", "dimension": 2,
                                "hyperplanes": [[1, 0, 0], [0, 1, 0], [1, 1, "1/2"], [-2, 0, 0]]}))
    listed = _run_json(capsys, ["arrangement", str(path), "--json"])
    for method in COUNTING + ["poset"]:
        counted = _run_json(capsys, ["arrangement", str(path), "--count", "--method", method, "--json"])
        for key in ("dimension", "rank", "hyperplanes", "regions", "bounded_regions", "characteristic_polynomial",
                    "exact", "poincare_polynomial", "central", "essential"):
            assert counted[key] == listed[key]
        assert counted["face_vector"] is None


def test_count_readable_and_errors(capsys):
    assert main(["arrangement", "--name", "threshold:4", "--count"]) == 0
    text = capsys.readouterr().out
    assert "1882" in text and "t^5 - 16*t^4" in text and "exact" in text
    with pytest.raises(SystemExit) as exit_info:
        main(["arrangement", "--name", "braid:3", "--method", "poset"])
    assert exit_info.value.code == 2
    assert capsys.readouterr().err.startswith("polyregions: error: --method: expected it with --count")
