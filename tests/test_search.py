"""Counterexample search: certificates that proofs_check accepts, claims recomputed from the export alone."""

from __future__ import annotations

import copy
import json
import math
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import pytest

from polyregions.cli import main
from polyregions.errors import InvalidInputError
from polyregions.experiments.claims import (
    BUILTIN_CLAIMS,
    Verdict,
    layered_regions_bound,
    one_layer_regions_bound,
    resolve_claim,
)
from polyregions.experiments.counterexamples import search, simple_values
from polyregions.networks.constructions import sawtooth
from polyregions.regions.domains import box
from polyregions.regions.enumeration import enumerate_regions
from proofs_check.verify import verify_export, verify_file

REPO = Path(__file__).resolve().parents[1]
ONE_LAYER = "activation_regions <= one_layer_bound"
LINEAR = "activation_regions == linear_regions"


# --- the claimed quantities, recomputed from the export with the standard library only ----------------------

def _breakpoints(activation) -> int:
    """T of an activation in the network-file form (0 for linear)."""
    if activation == "linear":
        return 0
    if activation == "relu" or (isinstance(activation, dict) and activation["kind"] == "leaky_relu"):
        return 1
    if activation == "hardtanh":
        return 2
    return len(activation["breakpoints"])


def export_one_layer_bound(doc) -> int:
    """sum_{i <= d} C(T N, i): the most regions of a one-hidden-layer network with the export's neurons."""
    hyperplanes = sum(len(layer["bias"]) * _breakpoints(layer["activation"]) for layer in doc["network"]["layers"])
    d = {"box": len(doc["domain"].get("lower", [])), "segment": 1}.get(doc["domain"]["type"])
    return sum(math.comb(hyperplanes, i) for i in range(d + 1))


def export_linear_regions(doc) -> int:
    """Components of the adjacency graph restricted to pairs with exactly equal output maps (union-find)."""
    def exact(m):
        return (tuple(tuple(Fraction(v) for v in row) for row in m["M"]), tuple(Fraction(v) for v in m["c"]))

    maps = [exact(region["output_map"]) for region in doc["regions"]]
    parent = list(range(len(maps)))

    def find(u):
        while parent[u] != u:
            u = parent[u]
        return u

    for i, j, _ in doc["adjacency"]:
        if maps[i] == maps[j]:
            parent[find(i)] = find(j)
    return len({find(u) for u in range(len(maps))})


def nonlinear_layers(doc) -> int:
    return sum(1 for layer in doc["network"]["layers"] if layer["activation"] != "linear")


# --- showcases --------------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def depth(tmp_path_factory):
    """A 2-hidden-layer ReLU network on [-1, 1] with more regions than one layer of 4 neurons allows."""
    cert = tmp_path_factory.mktemp("search") / "depth.json"
    return search(ONE_LAYER, widths=[1, 2, 2], seed=0, output=cert), cert


@pytest.fixture(scope="module")
def unshrunk():
    return search(ONE_LAYER, widths=[1, 2, 2], seed=0, shrink=0)


def test_depth_beats_the_one_layer_count_on_the_line(depth):
    result, cert = depth
    assert result.found and not result.interrupted
    doc = json.loads(cert.read_text())
    assert verify_file(str(cert)).ok
    assert nonlinear_layers(doc) == 2
    count, bound = len(doc["regions"]), export_one_layer_bound(doc)
    assert bound == 5                               # 4 neurons: 4 points cut a line into 5 intervals at most
    assert count > bound
    assert (doc["claim"]["name"], doc["claim"]["holds"]) == (ONE_LAYER, False)
    assert (doc["claim"]["value"], doc["claim"]["bound"]) == (count, bound)
    grid = set(simple_values())
    assert all(Fraction(v) in grid for layer in doc["network"]["layers"]
               for v in [*sum(layer["weight"], []), *layer["bias"]])


def test_sawtooth_breaks_the_one_layer_claim():
    result = search(ONE_LAYER, start=sawtooth(3), evaluations=1, shrink=0, domain=box([0], [1]))
    assert result.found
    assert (result.verdict.value, result.verdict.bound) == (8, 7)   # 2^3 pieces from 6 neurons, 6 + 1 = 7
    assert verify_export(json.loads(json.dumps(result.certificate))).ok


def test_one_hidden_layer_never_breaks_the_one_layer_claim():
    result = search(ONE_LAYER, widths=[1, 4], seed=1, evaluations=120)
    assert not result.found and result.verdict.holds
    assert result.verdict.value <= result.verdict.bound == 5


@pytest.mark.slow
def test_depth_beats_the_one_layer_count_in_the_plane(tmp_path):
    cert = tmp_path / "plane.json"
    result = search(ONE_LAYER, widths=[2, 3, 3], seed=0, output=cert)
    doc = json.loads(cert.read_text())
    assert result.found and verify_file(str(cert)).ok
    assert export_one_layer_bound(doc) == 1 + 6 + 15
    assert len(doc["regions"]) > 22


def test_activation_regions_differ_from_linear_regions(tmp_path):
    cert = tmp_path / "linear.json"
    result = search(LINEAR, widths=[2, 2, 2], seed=0, output=cert)
    assert result.found
    doc = json.loads(cert.read_text())
    assert verify_file(str(cert)).ok
    activation, linear = len(doc["regions"]), export_linear_regions(doc)
    assert linear < activation
    assert (doc["claim"]["value"], doc["claim"]["bound"]) == (activation, linear)


def test_a_single_altered_weight_is_rejected(depth):
    doc = json.loads(depth[1].read_text())
    assert verify_export(doc).ok
    # a first-layer neuron that switches inside the domain: moving its breakpoint must break a region
    switching = sorted({q for _, _, neurons in doc["adjacency"] for q in neurons if q < 2})
    assert switching
    altered = copy.deepcopy(doc)
    row = altered["network"]["layers"][0]["weight"][switching[0]]
    row[0] = str(Fraction(row[0]) + Fraction(1, 3))
    outcome = verify_export(altered)
    assert not outcome.ok and outcome.failure.startswith("region")


# --- the search itself ------------------------------------------------------------------------------------

def test_same_seed_same_certificate():
    first = search(ONE_LAYER, widths=[1, 2, 2], seed=3, evaluations=300)
    second = search(ONE_LAYER, widths=[1, 2, 2], seed=3, evaluations=300)
    assert first.certificate == second.certificate
    assert (first.evaluations, first.restarts) == (second.evaluations, second.restarts)


def test_maximize_finds_at_least_the_first_violation(unshrunk):
    more = search(ONE_LAYER, widths=[1, 2, 2], seed=0, shrink=0, maximize=True,
                  evaluations=unshrunk.evaluations + 60)
    assert unshrunk.found and more.found
    assert more.verdict.score >= unshrunk.verdict.score
    assert more.evaluations == unshrunk.evaluations + 60


def test_shrinking_keeps_the_claim_broken_and_simplifies(depth, unshrunk):
    raw, shrunk = unshrunk, depth[0]
    assert not shrunk.verdict.holds and shrunk.evaluations > raw.evaluations

    def zeros(network):
        return sum(v == 0 for layer in network.layers for v in [*sum(layer.weight, ()), *layer.bias])
    assert zeros(shrunk.network) >= zeros(raw.network)


def test_interruption_writes_the_best_so_far_atomically(tmp_path):
    cert = tmp_path / "best.json"
    cert.write_text("old\n")
    calls = []

    def impatient(complex_):
        """Regions at most 3, interrupted on the 25th network."""
        calls.append(1)
        if len(calls) == 25:
            raise KeyboardInterrupt
        return Verdict(holds=len(complex_.regions) <= 100, value=len(complex_.regions), bound=100,
                       score=len(complex_.regions) - 100)

    result = search(impatient, widths=[1, 3, 3], seed=0, output=cert)
    assert result.interrupted and not result.found
    doc = json.loads(cert.read_text())
    assert verify_export(doc).ok
    assert doc["search"]["interrupted"] is True
    assert doc["claim"]["value"] == len(doc["regions"]) == result.verdict.value
    assert [p.name for p in tmp_path.iterdir()] == ["best.json"]     # no temporary file left behind


def test_interruption_before_any_network_writes_nothing(tmp_path):
    def stop(complex_):
        raise KeyboardInterrupt

    result = search(stop, widths=[1, 2], output=tmp_path / "none.json")
    assert result.interrupted and result.verdict is None and result.certificate is None
    assert not (tmp_path / "none.json").exists()


# --- claims -----------------------------------------------------------------------------------------------

def test_builtin_claims_on_known_networks():
    saw3 = enumerate_regions(sawtooth(3), box([0], [1]))
    assert one_layer_regions_bound(sawtooth(3), 1) == 7
    assert layered_regions_bound(sawtooth(3), 1) == 27                     # (1 + 2)^3
    assert resolve_claim("raghu")(saw3) == Verdict(True, 8, 27, -19)
    assert resolve_claim("serra")(saw3).holds
    assert resolve_claim(LINEAR)(saw3) == Verdict(True, 8, 8, 0)          # every tooth is its own linear piece
    saw2 = enumerate_regions(sawtooth(2), box([0], [1]))
    assert resolve_claim(ONE_LAYER)(saw2) == Verdict(True, 4, 5, -1)


def test_claim_names_and_aliases():
    assert resolve_claim("activation_regions<=one_layer_bound") is BUILTIN_CLAIMS[ONE_LAYER]
    assert resolve_claim("linear_equals_activation") is BUILTIN_CLAIMS[LINEAR]
    assert set(BUILTIN_CLAIMS) == {ONE_LAYER, LINEAR, "activation_regions <= raghu_bound",
                                   "activation_regions <= serra_bound"}


CLAIM_FILE = '''
from polyregions.experiments.claims import Verdict

def claim(complex_):
    """At most three regions."""
    return len(complex_.regions) <= 3

def graded(complex_):
    n = len(complex_.regions)
    return Verdict(holds=n <= 3, value=n, bound=3, score=n - 3)

def wrong(complex_):
    return 3
'''


def test_user_claims_from_a_file_and_a_module(tmp_path, monkeypatch):
    path = tmp_path / "myclaims.py"
    path.write_text(CLAIM_FILE)
    plain = resolve_claim(str(path))
    assert plain.statement == "At most three regions."
    result = search(str(path), widths=[1, 3], seed=0, evaluations=200)
    assert result.found and result.verdict.holds is False and len(result.complex.regions) > 3
    graded = search(f"{path}:graded", widths=[1, 3], seed=0, evaluations=200)
    assert graded.found and graded.verdict.value == 4 == len(graded.certificate["regions"])
    monkeypatch.syspath_prepend(str(tmp_path))
    assert resolve_claim("myclaims:graded").name == "myclaims:graded"
    with pytest.raises(InvalidInputError, match="True, False or a Verdict"):
        search("myclaims:wrong", widths=[1, 2], evaluations=5)


@pytest.mark.parametrize("spec, message", [
    ("regions <= 3", "expected one of"),
    ("no_such_module_xyz:claim", "importable module"),
    ("polyregions.experiments.claims:nothing_here", "expected a function 'nothing_here'"),
    ("/no/such/file.py", "does not exist"),
    ("", "expected a built-in claim name"),
])
def test_bad_claims(spec, message):
    with pytest.raises(InvalidInputError, match=message):
        resolve_claim(spec)


def test_bad_search_input():
    with pytest.raises(InvalidInputError, match="widths"):
        search(ONE_LAYER, widths=[1])
    with pytest.raises(InvalidInputError, match="widths"):
        search(ONE_LAYER)
    with pytest.raises(InvalidInputError, match="activation"):
        search(ONE_LAYER, widths=[1, 2], activation="tanh")
    with pytest.raises(InvalidInputError, match="seed"):
        search(ONE_LAYER, widths=[1, 2], seed=-1)
    with pytest.raises(InvalidInputError, match="domain"):
        search(ONE_LAYER, widths=[1, 2], domain=box([0, 0], [1, 1]))
    with pytest.raises(InvalidInputError, match="ReLU"):
        search("serra", widths=[1, 2], activation="hardtanh", evaluations=3)
    with pytest.raises(InvalidInputError, match="max_abs"):
        simple_values(max_abs=0)
    with pytest.raises(InvalidInputError, match="existing directory"):
        search(ONE_LAYER, widths=[1, 2], output="/no/such/directory/cert.json")

    def never(complex_):
        raise AssertionError("a network was evaluated before the engine was checked")
    with pytest.raises(InvalidInputError, match="engine: expected one of auto, mesh, lp, got 'nope'"):
        search(never, widths=[1, 2], engine="nope")

    def broken(complex_):
        raise ValueError("no idea")
    with pytest.raises(InvalidInputError, match="raised ValueError: no idea"):
        search(broken, widths=[1, 2], evaluations=3)
    with pytest.raises(InvalidInputError, match="Verdict.holds"):
        search(lambda c: Verdict(holds=None), widths=[1, 2], evaluations=3)
    assert resolve_claim(lambda c: Verdict(holds=False, score=None))(None).score == 1


# --- command line -----------------------------------------------------------------------------------------

def test_cli_certificate_passes_proofs_check(tmp_path, capsys):
    cert = tmp_path / "cert.json"
    status = main(["search", "--claim", ONE_LAYER, "--widths", "1,2,2", "--box", "-1,1", "--seed", "0",
                   "-o", str(cert), "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and summary["found"] and summary["certificate"] == str(cert)
    assert summary["value"] > summary["bound"] == 5
    checked = subprocess.run([sys.executable, "-m", "proofs_check.verify", str(cert)], cwd=REPO,
                             capture_output=True, text=True)
    assert checked.returncode == 0, checked.stdout
    assert checked.stdout.strip().endswith("verified")


def test_cli_not_found_and_errors(tmp_path, capsys):
    assert main(["search", "--claim", "raghu", "--widths", "1,2", "--evaluations", "20"]) == 1
    assert "no counterexample" in capsys.readouterr().out
    with pytest.raises(SystemExit) as exit_:
        main(["search", "--claim", "nonsense", "--widths", "1,2"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith("polyregions: error: claim: expected one of")
    with pytest.raises(SystemExit):
        main(["search", "--claim", ONE_LAYER])
    assert "--widths" in capsys.readouterr().err
    assert main(["search", "--list-claims"]) == 0
    assert ONE_LAYER in capsys.readouterr().out


def test_cli_start_network(tmp_path, capsys):
    from polyregions.networks.io import save_network

    path = tmp_path / "saw.json"
    save_network(sawtooth(3), path)
    status = main(["search", "--claim", "one_layer", "--start", str(path), "--box", "0,1", "--evaluations", "1",
                   "--shrink", "0", "--json"])
    summary = json.loads(capsys.readouterr().out)
    assert status == 0 and (summary["value"], summary["bound"]) == (8, 7)
