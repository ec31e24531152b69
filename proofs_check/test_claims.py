"""Certificates prove their claim: every field of ``claim``, ``summary`` and ``linear_regions`` is re-derived.

Untouched exports and certificates of several networks verify (exit status 0); every edit, removal or null of a
field the checker re-derives is rejected with the field named; a user-defined claim's certificate verifies its
complex but is reported as not independently checkable (exit status 3). The bounds' formulas, restated in
``proofs_check.claims`` without polyregions, agree with polyregions' own.
"""

from __future__ import annotations

import copy
import functools
import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from polyregions.experiments.claims import (
    ALIASES,
    BUILTIN_CLAIMS,
    layered_regions_bound,
    one_layer_regions_bound,
    resolve_claim,
)
from polyregions.experiments.counterexamples import certificate, search
from polyregions.measures.bounds import arrangement_bound
from polyregions.measures.bounds import raghu_bound as pr_raghu_bound
from polyregions.measures.bounds import serra_bound as pr_serra_bound
from polyregions.networks.constructions import sawtooth
from polyregions.networks.initializers import he_normal
from polyregions.networks.network import Network
from polyregions.regions.domains import box, segment, slice_domain
from polyregions.regions.enumeration import enumerate_regions
from polyregions.regions.export import complex_to_json
from polyregions.testing import assert_export_verifies
from proofs_check import claims as pc
from proofs_check.errors import InputError
from proofs_check.verify import main, verify_export

REPO = Path(__file__).resolve().parents[1]
ONE_LAYER = "activation_regions <= one_layer_bound"
LINEAR = "activation_regions == linear_regions"
RAGHU = "activation_regions <= raghu_bound"
SERRA = "activation_regions <= serra_bound"


# ------------------------------------------------------------------------------------------------ the exports

def _plain(doc):
    """The document as it reads back from a file."""
    return json.loads(json.dumps(doc))


@functools.lru_cache(maxsize=None)
def _complex(name):
    cases = {
        "sawtooth": lambda: enumerate_regions(sawtooth(3), box([0], [1])),
        "he 1-D": lambda: enumerate_regions(he_normal([1, 4, 4], seed=0, output_dim=1), box([-1], [1])),
        "he 2-D": lambda: enumerate_regions(he_normal([2, 4, 4], seed=0, output_dim=1), box([-1, -1], [1, 1])),
        "he slice": lambda: enumerate_regions(he_normal([3, 4, 4], seed=0, output_dim=1),
                                              slice_domain([0, 0, 0], [[1, 0, 0], [0, 1, 1]], [-1, -1], [1, 1])),
        "he segment": lambda: enumerate_regions(he_normal([2, 3, 3], seed=1, output_dim=1),
                                                segment([-1, -1], [1, "1/2"])),
        "hardtanh 2-D": lambda: enumerate_regions(he_normal([2, 3, 2], seed=2, activation="hardtanh", output_dim=1),
                                                  box([-1, -1], [1, 1])),
        # relu(x) - relu(-x) = x: the regions left of 1/2 form one linear region, right of it another
        "merging": lambda: enumerate_regions(
            Network.from_layers(1, [([[1], [-1], [1]], [0, 0, "-1/2"], "relu"), ([[1, -1, 1]], [0], "linear")]),
            box([-1], [1])),
    }
    return cases[name]()


COMPLEXES = ["sawtooth", "he 1-D", "he 2-D", "he slice", "he segment", "hardtanh 2-D", "merging"]


def export_of(name):
    return _plain(complex_to_json(_complex(name)))


def certificate_of(name, claim):
    complex_ = _complex(name)
    claim = resolve_claim(claim)
    return _plain(certificate(complex_, claim, claim(complex_)))


@functools.lru_cache(maxsize=None)
def _searched(claim, activation):
    budget = 2000 if claim in (ONE_LAYER, LINEAR) and activation == "relu" else 20
    widths = [2, 2, 2] if claim == LINEAR else [1, 2, 2]
    return _plain(search(claim, widths=widths, activation=activation, seed=0, evaluations=budget).certificate)


def searched(claim, activation="relu"):
    return copy.deepcopy(_searched(claim, activation))


def outcome(doc):
    """``(status, message)`` as the command line would give it, without a file: 2 with the field when unreadable."""
    try:
        result = verify_export(doc)
    except InputError as exc:
        return 2, str(exc)
    return result.status, result.failure or result.lines[-1]


def rejected(doc, start):
    """Assert that the checker rejects ``doc`` with a message starting with ``start``; return the message."""
    status, message = outcome(doc)
    assert status in (1, 2) and message.startswith(start), (status, message)
    return message


# ----------------------------------------------------------------------------------------- untouched files pass

@pytest.mark.parametrize("name", COMPLEXES)
def test_untouched_exports_verify(name):
    result = verify_export(export_of(name))
    assert result.verified and result.status == 0 and result.lines[-1] == "verified", result.report()
    assert any(line.startswith("ok: summary") for line in result.lines)


@pytest.mark.parametrize("name", COMPLEXES)
@pytest.mark.parametrize("claim", [ONE_LAYER, LINEAR, RAGHU, SERRA])
def test_untouched_certificates_of_every_builtin_claim_verify(name, claim):
    if claim == SERRA and name == "hardtanh 2-D":
        pytest.skip("the Serra bound is for ReLU networks; polyregions writes no such certificate")
    doc = certificate_of(name, claim)
    result = verify_export(doc)
    assert result.verified and result.lines[-1] == "verified", result.report()
    assert any(line.startswith(f"ok: claim {claim!r} recomputed") for line in result.lines)


@pytest.mark.parametrize("claim", [ONE_LAYER, LINEAR, RAGHU, SERRA])
def test_search_certificates_verify(claim, tmp_path):
    doc = searched(claim)
    assert doc["search"]["evaluations"] >= 1 and doc["claim"]["name"] == claim
    result = verify_export(doc)
    assert result.verified, result.report()
    assert any("search:" in line and "not re-derived" in line for line in result.lines)
    path = tmp_path / "cert.json"
    path.write_text(json.dumps(doc))
    assert_export_verifies(path)


def test_search_certificates_with_two_breakpoints_verify():
    for claim in (ONE_LAYER, RAGHU):
        result = verify_export(searched(claim, "hardtanh"))
        assert result.verified, result.report()


def test_known_values_of_the_sawtooth():
    # 8 teeth on [0, 1] from 6 neurons: above the one-layer count 7, below Raghu's (1 + 2)^3 = 27.
    result = verify_export(certificate_of("sawtooth", ONE_LAYER))
    assert "value 8 (activation regions), bound 7 (sum_{i <= 1} C(6, i)" in result.report()
    assert "holds false, score 1" in result.report()
    result = verify_export(certificate_of("sawtooth", RAGHU))
    assert "value 8 (activation regions), bound 27 (" in result.report() and "score -19" in result.report()
    result = verify_export(certificate_of("sawtooth", SERRA))
    assert result.verified and "bound 27 (Serra et al. Theorem 1 with d = 1 and widths 2, 2, 2)" in result.report()


# -------------------------------------------------------------------------------------------- the formulas

def test_the_statements_names_and_aliases_are_polyregions_own():
    assert list(pc.BUILTIN_CLAIMS) == list(BUILTIN_CLAIMS)
    for name, claim in BUILTIN_CLAIMS.items():
        assert pc.BUILTIN_CLAIMS[name].statement == claim.statement
    assert pc.ALIASES == ALIASES


@given(st.integers(0, 40), st.integers(1, 6))
def test_arrangement_count_matches_polyregions(hyperplanes, dim):
    assert pc.arrangement_regions(hyperplanes, dim) == arrangement_bound(hyperplanes, dim)


@given(st.lists(st.tuples(st.integers(1, 12), st.integers(1, 3)), min_size=1, max_size=5), st.integers(1, 5))
def test_layered_bounds_match_polyregions(layers, dim):
    net = Network.from_layers(dim, _layers_with_breakpoints(layers, dim))
    assert pc.raghu_bound(layers, dim) == layered_regions_bound(net, dim)
    assert pc.one_layer_bound(layers, dim) == one_layer_regions_bound(net, dim)
    if all(t == 1 for _, t in layers):
        assert pc.raghu_bound(layers, dim) == pr_raghu_bound(dim, [w for w, _ in layers])


def _layers_with_breakpoints(layers, dim):
    """Zero layers of the given widths whose activations have the given numbers of breakpoints."""
    out, fan_in = [], dim
    for width, t in layers:
        act = {"kind": "piecewise_linear", "breakpoints": list(range(t)), "slopes": [i % 2 for i in range(t + 1)],
               "offset": 0}
        out.append(([[0] * fan_in for _ in range(width)], [0] * width, act))
        fan_in = width
    return out


@given(st.lists(st.integers(1, 12), min_size=1, max_size=6), st.integers(1, 6))
def test_serra_bound_matches_polyregions(widths, dim):
    assert pc.serra_bound(widths, dim) == pr_serra_bound(dim, widths)


# -------------------------------------------------------------------------------------------------- claim

def _other_builtin(name):
    return next(other for other in BUILTIN_CLAIMS if other != name)


@pytest.mark.parametrize("claim", [ONE_LAYER, LINEAR, RAGHU, SERRA])
def test_every_claim_field_edited_is_rejected(claim):
    doc = searched(claim)
    edits = {"value": doc["claim"]["value"] + 1, "bound": doc["claim"]["bound"] - 1,
             "score": doc["claim"]["score"] + 2, "holds": not doc["claim"]["holds"],
             "statement": doc["claim"]["statement"] + ".", "name": _other_builtin(claim)}
    for key, value in edits.items():
        tampered = copy.deepcopy(doc)
        tampered["claim"][key] = value
        expected = "claim.statement" if key == "name" else f"claim.{key}"
        message = rejected(tampered, expected)
        if key in ("value", "bound", "holds", "score"):
            assert "recorded" in message and "recomputed" in message


def test_the_issue_example_value_3_bound_99_holds_true_is_rejected():
    doc = searched(ONE_LAYER)
    doc["claim"].update(value=3, bound=99, holds=True)
    message = rejected(doc, "claim.value")
    assert f"recomputed {len(doc['regions'])}" in message


def test_value_bound_and_score_edited_together_consistently_are_still_rejected():
    doc = searched(ONE_LAYER)
    claim = doc["claim"]
    claim.update(value=claim["value"] + 5, bound=claim["bound"] + 5)
    rejected(doc, "claim.value")
    doc = searched(LINEAR)
    doc["claim"].update(bound=doc["claim"]["value"], holds=True, score=0)   # "every activation region is linear"
    rejected(doc, "claim.bound")


@pytest.mark.parametrize("key", pc.CLAIM_KEYS)
def test_every_claim_field_removed_or_null_is_rejected(key):
    doc = searched(RAGHU)
    del doc["claim"][key]
    assert rejected(doc, f"claim.{key}").endswith("missing")
    doc = searched(RAGHU)
    doc["claim"][key] = None
    rejected(doc, f"claim.{key}")


def test_claim_or_search_alone_is_rejected_and_unknown_claim_keys_too():
    doc = searched(ONE_LAYER)
    del doc["search"]
    rejected(doc, "search: missing")
    doc = searched(ONE_LAYER)
    del doc["claim"]
    rejected(doc, "claim: missing")
    doc = searched(ONE_LAYER)
    doc["claim"]["note"] = "also true for leaky ReLU"
    rejected(doc, "claim.note: unknown key")
    doc = searched(ONE_LAYER)
    doc["claim"] = None
    rejected(doc, "claim")


@pytest.mark.parametrize("name", ["one_layer", "activation_regions<=one_layer_bound", "raghu",
                                  " activation_regions <= raghu_bound"])
def test_aliases_and_respaced_builtin_names_are_rejected(name):
    doc = searched(ONE_LAYER)
    doc["claim"]["name"] = name
    assert "full name" in rejected(doc, "claim.name")


def test_builtin_numbers_must_be_integers():
    for bad in ("8", 8.0, True, [8]):
        doc = searched(ONE_LAYER)
        doc["claim"]["value"] = bad
        assert "expected an integer" in rejected(doc, "claim.value")


def test_serra_on_a_network_that_is_not_relu_is_rejected():
    complex_ = _complex("hardtanh 2-D")
    one_layer = resolve_claim(ONE_LAYER)
    doc = _plain(certificate(complex_, one_layer, one_layer(complex_)))
    doc["claim"].update(name=SERRA, statement=BUILTIN_CLAIMS[SERRA].statement)
    assert "ReLU networks only" in rejected(doc, "claim.name")


# ------------------------------------------------------------------------------------------------ summary

@pytest.mark.parametrize("key", ["input_dim", "domain_dim", "neurons", "activation_regions", "linear_regions",
                                 "adjacencies", "exact", "engine"])
def test_every_summary_field_edited_removed_or_null_is_rejected(key):
    doc = export_of("he 2-D")
    value = doc["summary"][key]
    edited = {bool: lambda v: not v, int: lambda v: v + 1, str: lambda v: "lp" if v == "mesh" else "mesh"}
    doc["summary"][key] = edited[type(value)](value)
    assert "recorded" in rejected(doc, f"summary.{key}: recorded")
    doc = export_of("he 2-D")
    del doc["summary"][key]
    assert rejected(doc, f"summary.{key}").endswith("missing")
    doc = export_of("he 2-D")
    doc["summary"][key] = None
    rejected(doc, f"summary.{key}")


def test_summary_missing_null_or_with_unknown_keys_is_rejected():
    doc = export_of("sawtooth")
    del doc["summary"]
    rejected(doc, "summary: missing")
    doc["summary"] = None
    rejected(doc, "summary: expected a JSON object")
    doc = export_of("sawtooth")
    doc["summary"]["bounded_regions"] = 8
    rejected(doc, "summary.bounded_regions: unknown key")
    doc = export_of("sawtooth")
    doc["summary"]["neurons"] = True           # True == 1 in Python: a boolean is not a count
    rejected(doc, "summary.neurons: expected an integer")


def test_exact_and_engine_are_required_and_agree_with_the_summary():
    for key in ("exact", "engine"):
        doc = export_of("sawtooth")
        del doc[key]
        rejected(doc, f"{key}: missing")
        doc[key] = None
        rejected(doc, key)
    doc = export_of("sawtooth")
    doc["exact"] = False
    rejected(doc, "summary.exact: recorded true, verified false")
    doc["summary"]["exact"] = False            # both say "not exact": a weaker statement, still true
    result = verify_export(doc)
    assert result.verified and any("exact: false" in line for line in result.lines)
    doc = export_of("sawtooth")
    doc["engine"] = "lp" if doc["engine"] == "mesh" else "mesh"
    rejected(doc, "summary.engine")
    doc["engine"] = doc["summary"]["engine"] = "magic"
    rejected(doc, "engine: expected one of")


# ------------------------------------------------------------------------------------------ linear regions

def test_linear_regions_removed_null_or_malformed_are_rejected():
    doc = export_of("he 1-D")
    del doc["linear_regions"]
    rejected(doc, "linear_regions: missing")
    doc["linear_regions"] = None
    rejected(doc, "linear_regions: expected a list")
    doc["linear_regions"] = [[0, "1"]]
    rejected(doc, "linear_regions[0][1]: expected an integer")


def test_linear_regions_edited_are_rejected_with_the_reason():
    base = export_of("merging")
    n = len(base["regions"])
    components = base["linear_regions"]
    assert (n, sorted(map(len, components))) == (3, [1, 2])
    big = next(c for c, component in enumerate(components) if len(component) > 1)
    cases = []
    split = copy.deepcopy(base)                                  # one region split off its linear region
    split["linear_regions"][big] = components[big][1:]
    split["linear_regions"].append(components[big][:1])
    cases.append((split, f"linear_regions[{big}]: lists regions"))
    merged = copy.deepcopy(base)                                 # two linear regions merged into one
    other = 1 if big == 0 else 0
    merged["linear_regions"][big] = sorted(components[big] + components[other])
    del merged["linear_regions"][other]
    cases.append((merged, "linear_regions["))
    twice = copy.deepcopy(base)
    twice["linear_regions"][other].append(components[big][0])
    cases.append((twice, f"linear_regions[{max(big, other)}]: region"))
    dropped = copy.deepcopy(base)
    del dropped["linear_regions"][big]
    cases.append((dropped, f"linear_regions: region {min(components[big])} is in no listed component"))
    out_of_range = copy.deepcopy(base)
    out_of_range["linear_regions"][big] = components[big] + [n]
    cases.append((out_of_range, f"linear_regions[{big}]: region index out of range"))
    empty = copy.deepcopy(base)
    empty["linear_regions"].append([])
    cases.append((empty, f"linear_regions[{len(components)}]: an empty component"))
    for doc, start in cases:
        assert outcome(doc)[0] == 1
        rejected(doc, start)


def test_the_order_of_components_and_of_their_regions_does_not_matter():
    doc = export_of("merging")
    doc["linear_regions"] = [list(reversed(component)) for component in reversed(doc["linear_regions"])]
    assert verify_export(doc).verified


# ----------------------------------------------------------------------------------- other fields and keys

@pytest.mark.parametrize("place, where", [
    (lambda d: d, "note"),
    (lambda d: d["network"], "network.note"),
    (lambda d: d["network"]["layers"][0], "network.layers[0].note"),
    (lambda d: d["domain"], "domain.note"),
    (lambda d: d["regions"][0], "regions[0].note"),
    (lambda d: d["regions"][0]["output_map"], "regions[0].output_map.note"),
    (lambda d: d["search"], "search.note"),
])
def test_unknown_keys_are_rejected_at_every_level(place, where):
    doc = searched(ONE_LAYER)
    place(doc)["note"] = 1
    rejected(doc, f"{where}: unknown key")


def test_unknown_keys_of_an_activation_object_are_rejected():
    doc = export_of("he 1-D")
    doc["network"]["layers"][0]["activation"] = {"kind": "leaky_relu", "negative_slope": "1/10", "note": 1}
    rejected(doc, "network.layers[0].activation.note: unknown key")


def test_the_network_format_is_required():
    doc = export_of("sawtooth")
    del doc["network"]["format"]
    rejected(doc, "network.format: missing")


def test_search_records_are_checked_for_consistency():
    doc = searched(ONE_LAYER)
    doc["search"]["engine"] = "lp" if doc["engine"] == "mesh" else "mesh"
    rejected(doc, "search.engine: recorded")
    doc = searched(ONE_LAYER)
    doc["search"]["enumerated"] = doc["search"]["evaluations"] + 1
    rejected(doc, "search.enumerated")
    doc = searched(ONE_LAYER)
    doc["search"]["values"] = list(reversed(doc["search"]["values"]))
    rejected(doc, "search.values")
    for key, bad in (("seed", -1), ("interrupted", "no"), ("evaluations", 0), ("restarts", None)):
        doc = searched(ONE_LAYER)
        doc["search"][key] = bad
        rejected(doc, f"search.{key}")
    doc = searched(ONE_LAYER)
    doc["search"] = {}                           # certificate() called without a search: nothing to check
    assert verify_export(doc).verified


# ---------------------------------------------------------------------------------- random edits (hypothesis)

def _leaves(obj, path=()):
    """Paths to every number, boolean and string inside a JSON value."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from _leaves(value, path + (key,))
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from _leaves(value, path + (i,))
    else:
        yield path


def _set(doc, path, value):
    target = doc
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value


def _get(doc, path):
    for step in path:
        doc = doc[step]
    return doc


DOCS = [("cert", ONE_LAYER), ("cert", LINEAR), ("cert", RAGHU), ("cert", SERRA), ("export", "he 2-D"),
        ("export", "he segment")]


def _document(kind, name):
    return searched(name) if kind == "cert" else export_of(name)


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(DOCS), st.sampled_from(["claim", "summary", "linear_regions", "exact", "engine"]),
       st.data())
def test_random_edits_of_numbers_and_booleans_are_rejected(which, section, data):
    doc = _document(*which)
    assume(section in doc)
    paths = [(section,) + path for path in _leaves(doc[section])]
    path = data.draw(st.sampled_from(paths))
    old = _get(doc, path)
    if isinstance(old, bool):
        new = not old
    elif isinstance(old, int):
        new = data.draw(st.integers(-3, 3 * len(doc["regions"]) + 30).filter(lambda v: v != old))
    else:
        assume(False)   # names, statements and engines: edited in the tests above
    _set(doc, path, new)
    status, message = outcome(doc)
    assert status in (1, 2), (path, old, new, message)
    assert message.startswith((path[0], "summary.")), message   # a top-level exact or engine shows in summary


json_values = st.one_of(st.none(), st.booleans(), st.integers(-5, 50), st.floats(allow_nan=False),
                        st.text(max_size=5), st.lists(st.integers(0, 5), max_size=2), st.just({}))


@settings(max_examples=120, deadline=None)
@given(st.sampled_from(DOCS), st.sampled_from(["claim", "summary", "linear_regions"]), json_values, st.data())
def test_random_replacements_and_removals_are_rejected(which, section, new, data):
    doc = _document(*which)
    assume(section in doc)
    paths = [(section,) + path for path in _leaves(doc[section])]
    path = data.draw(st.sampled_from(paths))
    old = _get(doc, path)
    if data.draw(st.booleans()):
        del _get(doc, path[:-1])[path[-1]]
    else:
        assume(not (type(new) is type(old) and new == old))
        _set(doc, path, new)
    status, message = outcome(doc)
    if path == ("claim", "name") and isinstance(new, str) and status == 3:
        return   # another name is a user-defined claim: the complex verifies, the claim is reported unchecked
    assert status in (1, 2), (path, old, new, message)


# ------------------------------------------------------------------------------------ user-defined claims

CLAIM_FILE = '''
def at_most_three(complex_):
    """At most three regions."""
    return len(complex_.regions) <= 3
'''


@functools.lru_cache(maxsize=None)
def _user_certificate(folder):
    path = Path(folder) / "userclaims.py"
    path.write_text(CLAIM_FILE)
    return _plain(search(f"{path}:at_most_three", widths=[1, 3], seed=0, evaluations=50).certificate)


@pytest.fixture
def user_certificate(tmp_path_factory):
    return copy.deepcopy(_user_certificate(str(tmp_path_factory.getbasetemp())))


def test_a_user_defined_claim_is_not_independently_checkable(user_certificate, tmp_path, capsys):
    doc = user_certificate
    result = verify_export(doc)
    assert result.ok and not result.verified and result.status == 3
    assert result.unchecked == f"claim {doc['claim']['name']!r}"
    assert any("not independently checkable" in line for line in result.lines)
    assert result.lines[-1] != "verified" and "not independently checkable" in result.lines[-1]
    assert not any(line.startswith("ok: claim") for line in result.lines)
    path = tmp_path / "user.json"
    path.write_text(json.dumps(doc))
    assert main([str(path)]) == 3
    out = capsys.readouterr().out
    assert "region complex verified" in out and not out.strip().endswith("\nverified")
    done = subprocess.run([sys.executable, "-m", "proofs_check", "verify", str(path), "--quiet"], cwd=REPO,
                          capture_output=True, text=True)
    assert done.returncode == 3 and "not independently checkable" in done.stdout
    with pytest.raises(AssertionError, match="exit status 3"):
        assert_export_verifies(path)


def test_a_user_defined_claim_from_a_function_is_reported_the_same(tmp_path):
    def at_most_two(complex_):
        return len(complex_.regions) <= 2

    claim = resolve_claim(at_most_two)
    complex_ = _complex("he 1-D")
    doc = _plain(certificate(complex_, claim, claim(complex_)))
    result = verify_export(doc)
    assert result.status == 3 and ":" in doc["claim"]["name"]


def test_the_complex_of_a_user_claim_certificate_is_still_checked(user_certificate):
    doc = user_certificate
    doc["summary"]["activation_regions"] += 1
    assert outcome(doc) == (1, f"summary.activation_regions: recorded {len(doc['regions']) + 1}, verified "
                               f"{len(doc['regions'])}")
    doc = copy.deepcopy(user_certificate)
    doc["claim"]["holds"] = None
    rejected(doc, "claim.holds: expected true or false")


def test_a_builtin_name_turned_into_a_user_claim_is_not_verified():
    doc = searched(ONE_LAYER)
    doc["claim"]["name"] = "mymodule:one_layer"
    assert outcome(doc)[0] == 3
