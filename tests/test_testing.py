"""polyregions.testing: each helper passes on a true case and raises AssertionError on a case that breaks it."""

import dataclasses
import json
import re
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions import InvalidInputError
from polyregions.exact.lp import LPResult, maximize
from polyregions.networks.constructions import sawtooth
from polyregions.networks.network import Network
from polyregions.regions import domains as dom
from polyregions.regions.complex import RegionComplex
from polyregions.regions.enumeration import enumerate_regions
from polyregions.regions.export import write_complex_json
from polyregions.regions.region import Region
from polyregions.testing import assert_certified_lp, assert_complexes_equal, assert_export_verifies

# --- assert_certified_lp -------------------------------------------------------------------------------------

SQUARE = [[1, 0], [0, 1], [-1, 0], [0, -1]], [1, 1, 1, 1]  # [-1, 1]^2


def test_true_certificates_of_every_status_pass():
    A, b = SQUARE
    assert_certified_lp(maximize([1, 2], A, b), [1, 2], A, b)
    assert_certified_lp(maximize([1, 0], [[0, 1]], [1]), [1, 0], [[0, 1]], [1])
    infeasible = maximize([1], [[1], [-1]], [0, -1])  # x <= 0 and x >= 1
    assert infeasible.status == "infeasible"
    assert_certified_lp(infeasible, [1], [[1], [-1]], [0, -1])


def test_certificates_with_equalities_pass():
    A, b = SQUARE
    E, e = [[1, 1]], [1]  # the segment of x + y = 1 in the square, from (0, 1) to (1, 0)
    optimal = maximize([1, 2], A, b, E=E, e=e)
    assert optimal.point == (0, 1) and optimal.value == 2
    assert_certified_lp(optimal, [1, 2], A, b, E=E, e=e)
    bounded = maximize([1, 0], [[0, 1]], [1], E=[[1, -1]], e=[0])  # along the line x = y, below y = 1
    assert bounded.status == "optimal" and bounded.value == 1
    assert_certified_lp(bounded, [1, 0], [[0, 1]], [1], E=[[1, -1]], e=[0])
    ray = maximize([1, 0], [[0, -1]], [1], E=[[1, -1]], e=[0])  # x = y >= -1: unbounded
    assert ray.status == "unbounded"
    assert_certified_lp(ray, [1, 0], [[0, -1]], [1], E=[[1, -1]], e=[0])
    empty = maximize([1, 0], A, b, E=[[1, 1]], e=[3])  # x + y = 3 misses the square
    assert empty.status == "infeasible"
    assert_certified_lp(empty, [1, 0], A, b, E=[[1, 1]], e=[3])
    inconsistent = maximize([1, 0], A, b, E=[[1, 0], [2, 0]], e=[0, 1])
    assert inconsistent.status == "infeasible" and inconsistent.multipliers is None
    assert_certified_lp(inconsistent, [1, 0], A, b, E=[[1, 0], [2, 0]], e=[0, 1])


coefficient = st.integers(-3, 3).map(Fraction)


@given(st.integers(1, 3).flatmap(lambda n: st.tuples(
    st.lists(coefficient, min_size=n, max_size=n),
    st.lists(st.lists(coefficient, min_size=n, max_size=n), min_size=1, max_size=5),
    st.lists(st.lists(coefficient, min_size=n, max_size=n), min_size=0, max_size=2),
    st.data())))
def test_every_answer_with_equalities_carries_a_certificate_that_checks(case):
    c, A, E, data = case
    b = data.draw(st.lists(st.integers(-3, 3).map(Fraction), min_size=len(A), max_size=len(A)))
    e = data.draw(st.lists(st.integers(-2, 2).map(Fraction), min_size=len(E), max_size=len(E)))
    for backend in ("highs", "exact"):
        assert_certified_lp(maximize(c, A, b, E=E, e=e, backend=backend), c, A, b, E=E, e=e)


def _tampered(result, **changes):
    return dataclasses.replace(result, **changes)


def test_tampered_optimal_certificates_fail():
    A, b = SQUARE
    c = [1, 2]
    result = maximize(c, A, b)
    assert result.value == 3
    cases = [
        (_tampered(result, value=Fraction(4)), "objective at the point is 3, the result says value 4"),
        (_tampered(result, point=(Fraction(2), Fraction(1)), value=Fraction(4)), "violates row 0"),
        (_tampered(result, multipliers=(Fraction(1), Fraction(2), Fraction(0), Fraction(1))), "differs from c"),
        (_tampered(result, multipliers=(Fraction(2), Fraction(2), Fraction(1), Fraction(0))), "bound the objective"),
        (_tampered(result, multipliers=(Fraction(-1), Fraction(2), Fraction(-2), Fraction(0))), "multipliers >= 0"),
        (_tampered(result, multipliers=(Fraction(1), Fraction(2))), "expected multipliers"),
        (_tampered(result, point=None), "expected a point of length 2"),
        (_tampered(result, status="solved"), "expected status"),
    ]
    for forged, message in cases:
        with pytest.raises(AssertionError, match=message):
            assert_certified_lp(forged, c, A, b)
    # The point of x + y = 1 that is optimal without the equality is not on it.
    with pytest.raises(AssertionError, match="violates equality 0"):
        assert_certified_lp(result, c, A, b, E=[[1, 1]], e=[1])


def test_tampered_unbounded_and_infeasible_certificates_fail():
    unbounded = maximize([1, 0], [[0, 1]], [1])
    for forged, message in [(_tampered(unbounded, ray=(Fraction(-1), Fraction(0))), "does not improve"),
                            (_tampered(unbounded, ray=(Fraction(1), Fraction(1))), "leaves row 0"),
                            (_tampered(unbounded, point=(Fraction(0), Fraction(2))), "violates row 0")]:
        with pytest.raises(AssertionError, match=message):
            assert_certified_lp(forged, [1, 0], [[0, 1]], [1])
    with pytest.raises(AssertionError, match="leaves equality 0"):
        assert_certified_lp(unbounded, [1, 0], [[0, 1]], [1], E=[[1, 0]], e=[unbounded.point[0]])
    A, b = [[1], [-1]], [0, -1]
    infeasible = maximize([1], A, b)
    for forged, message in [(_tampered(infeasible, multipliers=(Fraction(1), Fraction(0))), "not zero"),
                            (_tampered(infeasible, multipliers=(Fraction(0), Fraction(0))), "expected a negative"),
                            (_tampered(infeasible, multipliers=None), "expected multipliers")]:
        with pytest.raises(AssertionError, match=message):
            assert_certified_lp(forged, [1], A, b)
    # A feasible program called infeasible has no Farkas certificate.
    forged = LPResult("infeasible", multipliers=(Fraction(1), Fraction(1)))
    with pytest.raises(AssertionError, match="expected a negative value"):
        assert_certified_lp(forged, [1], [[1], [-1]], [1, 0])


def test_bad_arguments_are_input_errors():
    with pytest.raises(InvalidInputError, match="expected an LPResult, got dict"):
        assert_certified_lp({"status": "optimal"}, [1], [[1]], [1])
    with pytest.raises(InvalidInputError, match="A\\[0\\]"):
        assert_certified_lp(maximize([1], [[1]], [1]), [1], [[1, 2]], [1])


# --- assert_complexes_equal ------------------------------------------------------------------------------------

NET_2D = Network.from_layers(2, [([[1, 1], [1, -1], [0, 1]], [0, 0, Fraction(-1, 2)], "relu"),
                                 ([[1, -1, 2]], [0], "linear")])
BOX = dom.box([-1, -1], [1, 1])


def _reversed(complex_):
    """The same complex with its regions in the opposite order (and the adjacency re-indexed to match)."""
    n = len(complex_)
    adjacency = tuple((n - 1 - j, n - 1 - i, neurons) for i, j, neurons in complex_.adjacency)
    return dataclasses.replace(complex_, regions=complex_.regions[::-1], adjacency=adjacency)


def test_the_two_engines_give_equal_complexes_in_any_order():
    mesh, lp = enumerate_regions(NET_2D, BOX, engine="mesh"), enumerate_regions(NET_2D, BOX, engine="lp")
    assert len(mesh) == 7
    assert_complexes_equal(mesh, lp)
    assert_complexes_equal(_reversed(mesh), lp)


@pytest.mark.parametrize("domain", [BOX, dom.space(2)], ids=["bounded", "unbounded"])
def test_a_changed_polytope_fails(domain):
    complex_ = enumerate_regions(NET_2D, domain)
    region = complex_.regions[2]
    # Cut the region through its interior point: the same pattern, a smaller set.
    cut = Region(region.pattern, region.A + ((Fraction(1), Fraction(0)),), region.b + (region.interior_point[0],),
                 region.interior_point, region.network)
    changed = dataclasses.replace(complex_, regions=complex_.regions[:2] + (cut,) + complex_.regions[3:])
    with pytest.raises(AssertionError, match=re.escape(f"different sets: [{region.pattern!r}]")):
        assert_complexes_equal(complex_, changed)
    # Redundant rows do not change the set: the sum of two rows (so the descriptions differ).
    implied = (tuple(x + y for x, y in zip(region.A[0], region.A[1])),)
    padded = Region(region.pattern, region.A + implied, region.b + (region.b[0] + region.b[1],),
                    region.interior_point, region.network)
    assert_complexes_equal(complex_, dataclasses.replace(
        complex_, regions=complex_.regions[:2] + (padded,) + complex_.regions[3:]))


def test_changed_patterns_adjacency_linear_regions_or_exact_flag_fail():
    complex_ = enumerate_regions(NET_2D, BOX)
    i, j, neurons = complex_.adjacency[0]
    cases = [
        (dataclasses.replace(complex_, adjacency=complex_.adjacency[1:]), "adjacency .* only in the first"),
        (dataclasses.replace(complex_, adjacency=((i, j, neurons | {99}),) + complex_.adjacency[1:]),
         "adjacency .* only in the first"),
        (dataclasses.replace(complex_, exact=False), "exact is True against False"),
        (dataclasses.replace(complex_, regions=complex_.regions[1:], adjacency=()), "7 activation regions against 6"),
        (dataclasses.replace(complex_, regions=complex_.regions[:1] * 2 + complex_.regions[2:]), "repeated patterns"),
    ]
    for other, message in cases:
        with pytest.raises(AssertionError, match=message):
            assert_complexes_equal(complex_, other)
    # relu(x) - relu(x) and relu(x) + relu(x): the same regions and adjacency, one linear region against two.
    layer = ([[1], [1]], [0, 0], "relu")
    difference = enumerate_regions(Network.from_layers(1, [layer, ([[1, -1]], [0], "linear")]), dom.box([-1], [1]))
    total = enumerate_regions(Network.from_layers(1, [layer, ([[1, 1]], [0], "linear")]), dom.box([-1], [1]))
    with pytest.raises(AssertionError, match="1 linear regions against 2"):
        assert_complexes_equal(difference, total)
    with pytest.raises(InvalidInputError, match="second: expected a RegionComplex, got tuple"):
        assert_complexes_equal(complex_, complex_.regions)


# --- assert_export_verifies --------------------------------------------------------------------------------------


def test_an_export_verifies_and_a_tampered_one_fails(tmp_path):
    path = tmp_path / "sawtooth.json"
    write_complex_json(enumerate_regions(sawtooth(3), dom.box([0], [1])), path)
    assert_export_verifies(path)
    assert_export_verifies(str(path), max_subsets=1000)
    doc = json.loads(path.read_text())
    doc["regions"][0]["b"][1] = "1/4"  # the first piece claims [0, 1/4] instead of [0, 1/8]
    tampered = tmp_path / "tampered.json"
    tampered.write_text(json.dumps(doc))
    with pytest.raises(AssertionError, match="(?s)did not verify the export \\(exit status 1\\).*FAILED"):
        assert_export_verifies(tampered)
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    with pytest.raises(AssertionError, match="(?s)exit status 2\\).*not valid JSON"):
        assert_export_verifies(broken)


def test_regions_of_a_complex_built_by_hand_compare_too():
    # A RegionComplex made directly (no engine) compares like any other.
    net = Network.from_layers(1, [([[1]], [0], "relu")])
    regions = (Region((0,), [[1], [-1]], [0, 1], [Fraction(-1, 2)], net),
               Region((1,), [[-1], [1]], [0, 1], [Fraction(1, 2)], net))
    by_hand = RegionComplex(net, dom.box([-1], [1]), regions, ((0, 1, frozenset({0})),))
    assert_complexes_equal(by_hand, enumerate_regions(net, dom.box([-1], [1])))
