"""Arrangements at scale: streamed region listing, face vectors from the flats, the Orlik-Solomon Hilbert series.

Known truths only: closed forms for named families, brute-force cross-checks against the enumeration of
:meth:`Arrangement.regions` and :meth:`Arrangement.faces` on small inputs, and invariants on random ones.
"""

import json
import os
from fractions import Fraction
from math import comb, factorial

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions import InvalidInputError
from polyregions.arrangements import (
    Arrangement,
    braid,
    catalan,
    coordinate,
    face_vector,
    generic,
    hilbert_series,
    iter_regions,
    linial,
    nbc_sets,
    read_regions,
    resonance,
    restriction_regions,
    shi,
    threshold,
    write_regions,
)
from polyregions.cli import main
from polyregions.polyhedra.polytope import Polytope


def catalan_number(n):
    return comb(2 * n, n) // (n + 1)


def linial_regions(n):
    return sum(comb(n, k) * (k + 1) ** (n - 1) for k in range(n + 1)) // 2 ** n


def stirling2(n, k):
    return sum((-1) ** (k - j) * comb(k, j) * j ** n for j in range(k + 1)) // factorial(k)


def polynomial_product(factors):
    out = [1]
    for factor in factors:
        new = [0] * (len(out) + len(factor) - 1)
        for i, a in enumerate(out):
            for j, b in enumerate(factor):
                new[i + j] += a * b
        out = new
    return tuple(out)


def listed(arrangement):
    regions = list(iter_regions(arrangement))
    signs = [r.signs for r in regions]
    assert len(set(signs)) == len(signs), "a region listed twice"
    return regions


def assert_inside(arrangement, region):
    """The interior point has every sign of the region, exactly."""
    for (*a, c), s in zip(arrangement.hyperplanes, region.signs):
        assert s * (sum(Fraction(ai) * xi for ai, xi in zip(a, region.point)) - c) > 0
    if arrangement.domain is not None:
        for row, b in zip(arrangement.domain.A, arrangement.domain.b):
            assert sum(Fraction(ai) * xi for ai, xi in zip(row, region.point)) < b


# --- closed forms for every size reached cheaply ---------------------------------------------------------------

@pytest.mark.parametrize("n", range(1, 7))
def test_braid_lists_n_factorial_regions(n):
    assert len(listed(braid(n))) == factorial(n)


@pytest.mark.parametrize("n", range(1, 6))
def test_shi_lists_closed_form_regions_and_bounded_regions(n):
    regions = listed(shi(n))
    assert len(regions) == (n + 1) ** (n - 1)
    assert sum(r.bounded for r in regions) == (n - 1) ** (n - 1)


@pytest.mark.parametrize("n", range(1, 5))
def test_catalan_lists_n_factorial_times_catalan_number(n):
    assert len(listed(catalan(n))) == factorial(n) * catalan_number(n)


@pytest.mark.parametrize("n", range(1, 6))
def test_linial_lists_its_closed_form(n):
    assert len(listed(linial(n))) == linial_regions(n)


@pytest.mark.parametrize("n, regions", [(1, 2), (2, 6), (3, 32), (4, 370), (5, 11292)])
def test_resonance_sequence(n, regions):
    assert len(listed(resonance(n))) == regions  # OEIS A034997


@pytest.mark.parametrize("n, regions", [(0, 2), (1, 4), (2, 14), (3, 104), (4, 1882)])
def test_threshold_sequence(n, regions):
    assert len(listed(threshold(n))) == regions  # OEIS A000609


def test_generic_arrangements_list_the_binomial_sum():
    for m, d in [(5, 2), (6, 3), (7, 3), (6, 4)]:
        regions = listed(generic(m, d, seed=m + d))
        assert len(regions) == sum(comb(m, i) for i in range(d + 1))
        assert sum(r.bounded for r in regions) == comb(m - 1, d)


# --- the streamed listing against the enumeration --------------------------------------------------------------

SMALL = [braid(4), shi(3), catalan(3), linial(4), resonance(4), threshold(3), coordinate(3), generic(7, 3, seed=2),
         Arrangement([[1, 0, 0], [1, 0, 1], [0, 1, 0]]), Arrangement([[1, 1, 0, 0]]), Arrangement([[1, 2, 3]]),
         Arrangement([], dim=2), Arrangement([], dim=0), Arrangement([[1, 0], [1, 1], [2, 1]]),
         Arrangement([[1, -1, 0, 0], [0, 1, -1, 1]])]


@pytest.mark.parametrize("arrangement", SMALL, ids=repr)
def test_listing_equals_enumeration(arrangement):
    regions = listed(arrangement)
    expected = {r.signs: r.bounded for r in arrangement.regions()}
    assert {r.signs: r.bounded for r in regions} == expected
    for region in regions:
        assert_inside(arrangement, region)


def test_listing_inside_a_domain_equals_enumeration():
    box = Polytope([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1], 2)
    arrangement = Arrangement([[1, 0, 0], [1, 1, "1/2"], [1, -1, 3], [0, 1, 1]]).within(box)  # y = 1 is a side
    regions = listed(arrangement)
    assert {r.signs for r in regions} == {r.signs for r in arrangement.regions()}
    assert all(r.bounded for r in regions)
    for region in regions:
        assert_inside(arrangement, region)


rows_2d = st.lists(st.tuples(st.integers(-3, 3), st.integers(-3, 3), st.integers(-3, 3)).filter(lambda r: r[0] or r[1]),
                   min_size=1, max_size=7)
rows_3d = st.lists(st.tuples(st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2), st.integers(-2, 2))
                   .filter(lambda r: any(r[:3])), min_size=1, max_size=6)


@settings(max_examples=60, deadline=None)
@given(st.one_of(rows_2d, rows_3d))
def test_random_listing_equals_enumeration_and_zaslavsky(rows):
    arrangement = Arrangement(rows)
    regions = listed(arrangement)
    assert {r.signs: r.bounded for r in regions} == {r.signs: r.bounded for r in arrangement.regions()}
    assert len(regions) == arrangement.predicted_regions()
    for region in regions:
        assert_inside(arrangement, region)


@settings(max_examples=40, deadline=None)
@given(rows_2d, st.integers(1, 3), st.integers(1, 3))
def test_random_listing_inside_a_box_equals_enumeration(rows, width, height):
    box = Polytope([[1, 0], [-1, 0], [0, 1], [0, -1]], [width, width, height, height], 2)
    arrangement = Arrangement(rows).within(box)
    regions = listed(arrangement)
    assert {r.signs for r in regions} == {r.signs for r in arrangement.regions()}
    assert all(r.bounded for r in regions)
    for region in regions:
        assert_inside(arrangement, region)


# --- the file: written whole or not at all ---------------------------------------------------------------------

def test_written_file_reads_back(tmp_path):
    path = tmp_path / "shi4.jsonl"
    seen = []
    assert write_regions(shi(4), path, progress=seen.append, every=20) == 125
    assert seen[-1] == 125 and seen[:-1] == list(range(20, 125, 20))
    lines = path.read_text().splitlines()
    header, trailer = json.loads(lines[0]), json.loads(lines[-1])
    assert header["format"] == "polyregions.arrangement-regions/1" and header["dimension"] == 4
    assert header["hyperplanes"] == [list(row) for row in shi(4).hyperplanes]
    assert trailer == {"end": True, "regions": 125, "bounded_regions": 27}
    back = list(read_regions(path))
    assert [(r.signs, r.point, r.bounded) for r in back] == [(r.signs, r.point, r.bounded)
                                                             for r in iter_regions(shi(4))]


def test_interrupted_listing_leaves_no_file(tmp_path):
    path = tmp_path / "r5.jsonl"

    def stop(count):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_regions(resonance(5), path, progress=stop, every=5000)
    assert os.listdir(tmp_path) == []


def test_interrupted_listing_keeps_the_previous_file(tmp_path):
    path = tmp_path / "regions.jsonl"
    write_regions(braid(3), path)
    before = path.read_bytes()

    def stop(count):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_regions(resonance(5), path, progress=stop, every=1000)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["regions.jsonl"]


def test_truncated_or_damaged_files_are_rejected(tmp_path):
    path = tmp_path / "b.jsonl"
    write_regions(braid(4), path)
    lines = path.read_text().splitlines(keepends=True)
    cut = tmp_path / "cut.jsonl"
    cut.write_text("".join(lines[:-1]))
    with pytest.raises(InvalidInputError, match="truncated"):
        list(read_regions(cut))
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text("".join(lines[:3] + [lines[3].replace('"signs":"', '"signs":"+')] + lines[4:]))
    with pytest.raises(InvalidInputError, match="line 4: signs"):
        list(read_regions(wrong))
    with pytest.raises(InvalidInputError, match="format"):
        list(read_regions(write_json(tmp_path, {"format": "other"})))
    with pytest.raises(InvalidInputError, match="every"):
        write_regions(braid(3), tmp_path / "x.jsonl", every=0)


def write_json(tmp_path, data):
    path = tmp_path / "other.jsonl"
    path.write_text(json.dumps(data) + "\n")
    return path


# --- face vectors from the flats -------------------------------------------------------------------------------

@pytest.mark.parametrize("arrangement", SMALL + [shi(4), catalan(4), Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0],
                                                                                  [1, -1, 1]])], ids=repr)
def test_face_vector_equals_face_enumeration(arrangement):
    assert face_vector(arrangement, method="restrictions") == arrangement.f_vector()


@settings(max_examples=40, deadline=None)
@given(st.one_of(rows_2d, rows_3d))
def test_random_face_vectors_equal_enumeration(rows):
    arrangement = Arrangement(rows)
    assert face_vector(arrangement) == arrangement.f_vector()


@pytest.mark.parametrize("n", range(1, 8))
def test_braid_faces_are_ordered_set_partitions(n):
    # a face of the braid arrangement is an ordered set partition of {1..n}; its dimension is the number of blocks
    assert face_vector(braid(n)) == (0,) + tuple(factorial(k) * stirling2(n, k) for k in range(1, n + 1))


@pytest.mark.parametrize("arrangement", [resonance(5), shi(5), catalan(5), threshold(4)], ids=repr)
def test_larger_face_vectors_satisfy_euler_and_zaslavsky(arrangement):
    f = face_vector(arrangement)
    assert sum((-1) ** k * c for k, c in enumerate(f)) == (-1) ** arrangement.dim
    assert f[-1] == arrangement.count_regions().regions


def test_restriction_regions_follow_the_poset():
    arrangement = coordinate(3)
    counts = restriction_regions(arrangement)
    for flat, regions in zip(arrangement.poset.flats, counts):
        assert regions == 2 ** flat.dim  # a coordinate flat cut by the remaining coordinate hyperplanes


def test_face_vector_with_a_domain_and_bad_method():
    box = Polytope([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1], 2)
    inside = Arrangement([[1, 0, 0], [0, 1, 0]]).within(box)
    assert face_vector(inside) == inside.f_vector() == (1, 4, 4)
    with pytest.raises(InvalidInputError, match="restricted to a polytope"):
        face_vector(inside, method="restrictions")
    with pytest.raises(InvalidInputError, match="method"):
        face_vector(braid(3), method="fast")


# --- the Orlik-Solomon algebra -----------------------------------------------------------------------------------

@pytest.mark.parametrize("arrangement", SMALL + [shi(4), catalan(4), linial(5), threshold(4), resonance(5)],
                         ids=repr)
def test_hilbert_series_equals_poincare_polynomial(arrangement):
    assert hilbert_series(arrangement) == tuple(reversed(arrangement.poincare_polynomial()))


@pytest.mark.parametrize("arrangement", [braid(4), shi(3), linial(3), coordinate(3), generic(6, 2, seed=1),
                                         Arrangement([[1, 0, 0], [1, 0, 1], [0, 1, 0], [1, 1, 0]]),
                                         Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0], [1, -1, 1]])], ids=repr)
def test_relations_of_the_algebra_give_the_nbc_count(arrangement):
    assert hilbert_series(arrangement, method="relations") == hilbert_series(arrangement)


@pytest.mark.parametrize("n", range(1, 9))
def test_braid_hilbert_series_is_a_product(n):
    assert hilbert_series(braid(n)) == polynomial_product([(1, k) for k in range(1, n)])


@pytest.mark.parametrize("n", range(1, 7))
def test_shi_hilbert_series(n):
    assert hilbert_series(shi(n)) == polynomial_product([(1, n)] * (n - 1))  # chi = t (t - n)^(n - 1)


@pytest.mark.parametrize("m, d", [(4, 2), (6, 3), (8, 3), (7, 5)])
def test_generic_hilbert_series_is_binomial(m, d):
    assert hilbert_series(generic(m, d, seed=3)) == tuple(comb(m, k) for k in range(min(m, d) + 1))


@settings(max_examples=40, deadline=None)
@given(st.one_of(rows_2d, rows_3d))
def test_random_nbc_bases(rows):
    arrangement = Arrangement(rows)
    sets = list(nbc_sets(arrangement))
    assert len(set(sets)) == len(sets) == arrangement.num_regions()
    series = [0] * (arrangement.rank + 1)
    for s in sets:
        assert list(s) == sorted(s)
        series[len(s)] += 1
    assert tuple(series) == hilbert_series(arrangement) == tuple(reversed(arrangement.poincare_polynomial()))
    if len(arrangement) <= 6:
        assert hilbert_series(arrangement, method="relations") == tuple(series)


def test_hilbert_series_bad_input():
    with pytest.raises(InvalidInputError, match="method"):
        hilbert_series(braid(3), method="fast")
    with pytest.raises(InvalidInputError, match="at most"):
        hilbert_series(resonance(4), method="relations")


# --- the command line --------------------------------------------------------------------------------------------

def test_cli_list_and_faces(tmp_path, capsys):
    out = tmp_path / "catalan3.jsonl"
    assert main(["arrangement", "--name", "catalan:3", "--faces", "--list", str(out), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["regions"] == 30 and summary["face_vector"] == list(catalan(3).f_vector())
    assert summary["listed"] == {"file": str(out), "regions": 30, "agrees": True}
    assert {r.signs for r in read_regions(out)} == {r.signs for r in catalan(3).regions()}
    assert main(["arrangement", "--name", "braid:4", "--faces"]) == 0
    text = capsys.readouterr().out
    assert "[0, 1, 14, 36, 24]" in text and "none listed" in text


def test_cli_list_to_a_bad_path(tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        main(["arrangement", "--name", "braid:3", "--list", str(tmp_path / "missing" / "x.jsonl")])
    assert stop.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("polyregions: error: --list") and err.count("\n") == 1


def test_resonance_six_regions_is_only_counted_here():
    # R6 is listed in benchmarks/bench_arrangement_scale.py; here its count and Hilbert series agree cheaply
    count = resonance(6).count_regions()
    assert count.regions == 1066044 and sum(count.poincare_polynomial) == 1066044
