"""The finite-field point count on sets of several words and up to dilations: the set operations against
brute force, the canonical states against their orbits, the counts against brute force and the poset, the
resonance and threshold arrangements against OEIS, and the checkpoint of a long count (resume, bad files)."""

import itertools
import json
import re

import numpy as np
import pytest
from command_line import exit_status
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions import InvalidInputError, PolyregionsError
from polyregions.arrangements import (
    Arrangement,
    _finite_field,
    _point_count,
    braid,
    characteristic_polynomial,
    count_regions,
    resonance,
    shi,
    threshold,
)
from polyregions.arrangements._count_checkpoint import FORMAT, CountCheckpoint, PrimeCount, arrangement_identity
from polyregions.arrangements._dilations import DilationOrbits, primitive_root
from polyregions.arrangements._finite_field import finite_field_polynomial, planned_primes
from polyregions.arrangements._integer_forms import essential_form
from polyregions.arrangements._masks import FieldMasks
from polyregions.arrangements._minors import exact_max_minor, zero_one_bound
from polyregions.arrangements._point_count import count_points
from polyregions.arrangements._polynomials import evaluate
from polyregions.cli import main

# OEIS A034997 (resonance R_n, n = 1..7) and A000609 (threshold functions of n variables, n = 0..6)
RESONANCE = [2, 6, 32, 370, 11292, 1066044, 347326352]
THRESHOLD = [2, 4, 14, 104, 1882, 94572, 15028134]
PRIMES = [2, 3, 5, 7, 13, 61, 67, 71, 127, 131, 257]


# ------------------------------------------------------------------------------------------ sets as masks
@st.composite
def field_sets(draw, primes=PRIMES, count=4):
    q = draw(st.sampled_from(primes))
    sets = draw(st.lists(st.sets(st.integers(0, q - 1), max_size=q), min_size=1, max_size=count))
    return q, sets


@given(field_sets(), st.integers(-300, 300), st.integers(1, 300))
@settings(max_examples=150)
def test_masks_against_sets(case, r, c):
    q, sets = case
    field = FieldMasks(q)
    masks = field.masks(sets)
    assert masks.shape == (len(sets), (q + 63) // 64)
    assert [field.values(m) for m in masks] == [sorted(s) for s in sets]
    translated = field.translate(masks, r)
    assert [field.values(m) for m in translated] == [sorted({(v + r) % q for v in s}) for s in sets]
    assert list(field.holds_zero(masks)) == [0 in s for s in sets]
    assert list(field.sizes(masks)) == [len(s) for s in sets]
    if c % q:
        dilated = field.dilate(masks, c)
        assert [field.values(m) for m in dilated] == [sorted({c * v % q for v in s}) for s in sets]
    # several columns at once: the operations act on the last axis only
    stacked = np.stack([masks, translated])
    assert np.array_equal(field.translate(stacked, r)[0], translated)


def test_masks_at_word_edges():
    for q in (61, 67, 127, 131):
        field = FieldMasks(q)
        top = field.masks([[q - 1], [63], [64], [0, q - 1]])
        for r in (1, 63, 64, 65, q - 1):
            got = [field.values(m) for m in field.translate(top, r)]
            assert got == [sorted({(v + r) % q for v in s}) for s in ([q - 1], [63 % q], [64 % q], [0, q - 1])]


# ------------------------------------------------------------------------------------ states up to dilation
def _orbit(field, state):
    """Every dilate of one state (columns, words), as tuples of value lists."""
    return {tuple(tuple(sorted({c * v % field.q for v in field.values(column)})) for column in state)
            for c in range(1, field.q)}


def _as_values(field, state):
    return tuple(tuple(field.values(column)) for column in state)


@given(st.sampled_from([3, 7, 13, 61, 67, 71, 131]), st.data())
@settings(max_examples=60)
def test_canonical_states_represent_their_orbits(q, data):
    field = FieldMasks(q)
    orbits = DilationOrbits(field)
    columns = data.draw(st.integers(1, 3))
    g = primitive_root(q)
    subgroups = [d for d in range(1, q) if (q - 1) % d == 0]

    def column():  # random sets, and unions of cosets of a subgroup, which dilations fix (ties of the key)
        if data.draw(st.booleans()):
            return data.draw(st.sets(st.integers(0, q - 1), max_size=q))
        d = data.draw(st.sampled_from(subgroups))
        subgroup = {pow(g, (q - 1) // d * i, q) for i in range(d)}
        cosets = data.draw(st.sets(st.integers(1, q - 1), max_size=3))
        return {h * a % q for h in subgroup for a in cosets} | ({0} if data.draw(st.booleans()) else set())

    states = np.stack([field.masks([column() for _ in range(columns)]) for _ in range(data.draw(st.integers(1, 5)))])
    c = data.draw(st.integers(1, q - 1))
    canonical = orbits.canonical(states)
    dilated = orbits.canonical(field.dilate(states, c))
    assert np.array_equal(canonical, dilated)  # the representative depends on the orbit alone
    for state, representative in zip(states, canonical):
        assert _as_values(field, representative) in _orbit(field, state)


def test_primitive_roots():
    for q in (2, 3, 5, 7, 67, 83, 127):
        g = primitive_root(q)
        assert len({pow(g, i, q) for i in range(q - 1)}) == q - 1


# ------------------------------------------------------------------------------------------ point counts
def _brute(rows, k, q):
    return sum(1 for x in itertools.product(range(q), repeat=k)
               if all((sum(a * v for a, v in zip(row[:-1], x)) + row[-1]) % q for row in rows))


@given(st.integers(1, 3), st.lists(st.lists(st.integers(-3, 3), min_size=4, max_size=4), max_size=6),
       st.sampled_from([2, 5, 67, 71, 131]), st.booleans())
@settings(max_examples=60)
def test_wide_point_counts_against_brute_force(k, raw, q, central):
    rows = [tuple(r[:k]) + (0 if central else r[3],) for r in raw]
    if q ** k > 40_000:
        q = 67 if k <= 2 else 5
    assert count_points(rows, k, q) == _brute(rows, k, q)


def test_counts_with_and_without_dilations(monkeypatch):
    rows = [a + (0,) for a in itertools.product((0, 1), repeat=4) if any(a)]
    rows += [(1, -1, 0, 2, 0), (0, 1, 1, -1, 0)]
    with_orbits = [count_points(rows, 4, q) for q in (7, 67, 131)]
    monkeypatch.setattr(_point_count, "MAX_DILATION_PRIME", 0)
    assert [count_points(rows, 4, q) for q in (7, 67, 131)] == with_orbits


@pytest.mark.parametrize("arrangement", [resonance(4), threshold(3), braid(5), shi(3)], ids=str)
def test_wide_primes_give_chi(arrangement):
    """Sets of two and three words give chi(q) of the poset's polynomial at primes above 64 and 128."""
    chi = arrangement.characteristic_polynomial(method="poset")
    form = essential_form(arrangement.hyperplanes, arrangement.dim)
    kernel = [row[:-1] + (-row[-1],) for row in form.rows]
    essential = chi[:form.rank + 1]
    for q in (67, 131):
        assert count_points(kernel, form.rank, q) == evaluate(essential, q)


# ------------------------------------------------------------------------ resonance and threshold, OEIS
@pytest.mark.parametrize("n", range(1, 8))
def test_resonance_counts_are_oeis_a034997(n):
    count = count_regions(resonance(n), method="finite-field")
    assert count.regions == RESONANCE[n - 1]
    _check_whitney(count.characteristic_polynomial, count.regions, n)


@pytest.mark.parametrize("n", range(0, 7))
def test_threshold_counts_are_oeis_a000609(n):
    count = count_regions(threshold(n), method="finite-field")
    assert count.regions == THRESHOLD[n]
    _check_whitney(count.characteristic_polynomial, count.regions, n + 1)


def _check_whitney(chi, regions, rank):
    """chi(-1) is the number of regions up to sign, chi(1) = 0 (central), and the coefficients alternate in sign
    with none zero up to the rank (the Whitney numbers of the first kind)."""
    assert abs(evaluate(chi, -1)) == regions == sum(abs(c) for c in chi)
    assert evaluate(chi, 1) == 0
    assert len(chi) == rank + 1
    assert all(c != 0 and (c > 0) == (i % 2 == 0) for i, c in enumerate(chi))


@pytest.mark.parametrize("arrangement", [resonance(n) for n in range(1, 6)] + [threshold(n) for n in range(0, 5)],
                         ids=lambda a: f"{len(a)} in R^{a.dim}")
def test_symmetric_route_agrees_with_the_plain_routes(arrangement):
    chi = characteristic_polynomial(arrangement, method="finite-field")
    assert chi == characteristic_polynomial(arrangement, method="deletion-restriction")
    if len(arrangement) <= 31:
        assert chi == characteristic_polynomial(arrangement, method="poset")


def test_auto_counts_r7_and_t6_with_point_counts():
    assert count_regions(resonance(7)).method == "finite-field"
    assert count_regions(threshold(6)).regions == THRESHOLD[6]


def test_the_primes_of_r8_and_t7():
    """Rows 0/1: Barba's bound 65 on the 8 x 8 minors (56 is the largest); five primes above it."""
    assert planned_primes(essential_form(resonance(8).hyperplanes, 8)) == [67, 71, 73, 79, 83]
    assert planned_primes(essential_form(threshold(7).hyperplanes, 8)) == [67, 71, 73, 79, 83]


def test_zero_one_bound_holds_where_every_minor_is_computed():
    for r in range(1, 6):
        rows = [a for a in itertools.product((0, 1), repeat=r) if any(a)]
        assert exact_max_minor(rows, r) <= zero_one_bound(r)
    assert [zero_one_bound(r) for r in (2, 4, 6, 8)] == [1, 3, 12, 65]  # Barba: odd orders 3, 5, 7, 9


# ---------------------------------------------------------------------------------------------- checkpoint
class _Interrupt:
    """count_points that raises KeyboardInterrupt at its call number ``at`` and records the primes it counted."""

    def __init__(self, at=None):
        self.at, self.primes = at, []
        self.real = _point_count.count_points

    def __call__(self, rows, k, q, **options):
        if self.at is not None and len(self.primes) + 1 == self.at:
            raise KeyboardInterrupt
        self.primes.append(q)
        return self.real(rows, k, q, **options)


def test_resume_after_an_interruption(tmp_path, monkeypatch):
    form = essential_form(resonance(6).hyperplanes, 6)
    plain = finite_field_polynomial(form)
    primes = planned_primes(form)
    assert len(primes) == 3
    path = tmp_path / "r6.json"
    stop = _Interrupt(at=3)
    monkeypatch.setattr(_finite_field, "count_points", stop)
    with pytest.raises(KeyboardInterrupt):
        finite_field_polynomial(form, checkpoint=path)
    saved = json.loads(path.read_text())
    assert saved["format"] == FORMAT and [c["prime"] for c in saved["counts"]] == primes[:2]
    assert [p.name for p in tmp_path.iterdir()] == ["r6.json"]  # no temporary file left
    again = _Interrupt()
    monkeypatch.setattr(_finite_field, "count_points", again)
    assert finite_field_polynomial(form, checkpoint=path) == plain
    assert again.primes == primes[2:]  # the finished primes were not counted again
    assert finite_field_polynomial(form, checkpoint=path) == plain and again.primes == primes[2:]
    assert count_regions(resonance(6), checkpoint=path).regions == RESONANCE[5]


def test_cli_resumes_after_ctrl_c(tmp_path, monkeypatch, capsys):
    path = tmp_path / "t5.json"
    command = ["arrangement", "--name", "threshold:5", "--count", "--json", "--checkpoint", str(path)]
    monkeypatch.setattr(_finite_field, "count_points", _Interrupt(at=2))
    assert main(command) == 130
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.strip().splitlines() == ["polyregions: interrupted"]
    assert len(json.loads(path.read_text())["counts"]) == 1
    resumed = _Interrupt()
    monkeypatch.setattr(_finite_field, "count_points", resumed)
    assert main(command) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["regions"] == THRESHOLD[5] and summary["method"] == "finite-field"
    assert len(resumed.primes) == len(planned_primes(essential_form(threshold(5).hyperplanes, 6))) - 1
    assert main(["arrangement", "--name", "threshold:5", "--count", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == summary


def _good_file(tmp_path):
    form = essential_form(resonance(5).hyperplanes, 5)
    path = tmp_path / "r5.json"
    primes = planned_primes(form)
    CountCheckpoint(path, form, primes).record(PrimeCount(primes[0], count_points(
        [row[:-1] + (0,) for row in form.rows], 5, primes[0]), 0.5, 0.5))
    return path, json.loads(path.read_text())


BAD = [
    (lambda d: "not json {", "not JSON"),
    (lambda d: [1, 2], "a JSON list"),
    (lambda d: {**d, "format": "polyregions.store/1"}, "format: expected 'polyregions.point-counts/1'"),
    (lambda d: {**d, "arrangement": arrangement_identity(essential_form(resonance(4).hyperplanes, 4))},
     "arrangement: expected the checkpoint of this arrangement"),
    (lambda d: {k: v for k, v in d.items() if k != "arrangement"}, "got no arrangement field"),
    (lambda d: {**d, "counts": {}}, "counts: expected a list"),
    (lambda d: {**d, "counts": [7]}, "counts[0]: expected an object"),
    (lambda d: {**d, "counts": [{**d["counts"][0], "prime": 13}]}, "counts[0].prime: expected one of the primes"),
    (lambda d: {**d, "counts": [{**d["counts"][0], "points": "12"}]}, "counts[0].points: expected an integer"),
    (lambda d: {**d, "counts": [{**d["counts"][0], "points": d["counts"][0]["points"] + 1}]},
     "counts[0].points: expected a multiple of"),
    (lambda d: {**d, "counts": [{**d["counts"][0], "cpu_seconds": -1}]}, "counts[0].cpu_seconds: expected"),
    (lambda d: {**d, "counts": d["counts"] * 2}, "counts[1].prime: expected each prime once"),
]


@pytest.mark.parametrize("damage,message", BAD, ids=[m for _, m in BAD])
def test_bad_checkpoints_are_refused(tmp_path, capsys, damage, message):
    path, document = _good_file(tmp_path)
    bad = damage(document)
    path.write_text(bad if isinstance(bad, str) else json.dumps(bad))
    with pytest.raises(InvalidInputError, match=re.escape(message)) as error:
        count_regions(resonance(5), method="finite-field", checkpoint=path)
    assert isinstance(error.value, PolyregionsError) and str(path) in str(error.value)
    assert exit_status(["arrangement", "--name", "resonance:5", "--count", "--checkpoint", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("polyregions: error: ") and str(path) in lines[0]
    assert message.split(":")[0] in lines[0]


def test_checkpoint_options_are_checked(tmp_path, capsys):
    path = str(tmp_path / "c.json")
    for extra, message in ((["--method", "poset"], "expected --method finite-field or auto"),
                           (["--faces"], "with --faces or --list")):
        assert exit_status(["arrangement", "--name", "resonance:3", "--count", "--checkpoint", path] + extra) == 2
        assert message in capsys.readouterr().err
    assert exit_status(["arrangement", "--name", "resonance:3", "--checkpoint", path]) == 2
    assert "without --count" in capsys.readouterr().err
    assert exit_status(["arrangement", "--name", "resonance:3", "--count", "--checkpoint", "-"]) == 2
    assert "got - (standard output)" in capsys.readouterr().err
    assert exit_status(["arrangement", "--name", "resonance:3", "--count", "--checkpoint", str(tmp_path)]) == 2
    capsys.readouterr()
    with pytest.raises(InvalidInputError, match="method finite-field or auto"):
        count_regions(resonance(3), method="deletion-restriction", checkpoint=path)
    (tmp_path / "empty.json").write_text("")  # an empty file is a new checkpoint
    assert count_regions(resonance(5), checkpoint=tmp_path / "empty.json").regions == RESONANCE[4]
    assert count_regions(Arrangement([[1, 0, 0]]), checkpoint=path).regions == 2  # nothing to count: no file
