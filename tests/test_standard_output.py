"""``-`` means standard output for every option that writes one file, and ``/dev/stdout`` works, as Unix tools
take them: standard output then carries the document alone, and the command's own text goes to standard error."""

import json
import subprocess
import sys

import pytest


def _run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "polyregions", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=300)


@pytest.fixture
def net(tmp_path):
    assert _run("network", "--widths", "2,4", "--seed", "1", "-o", "net.json", cwd=tmp_path).returncode == 0
    return tmp_path


@pytest.mark.parametrize("target", ["-", "/dev/stdout"])
def test_an_export_to_standard_output_is_the_document_alone(net, target):
    result = _run("regions", "net.json", "--box", "-1,1", "--export", target, "--json", cwd=net)
    assert result.returncode == 0, result.stderr
    document = json.loads(result.stdout)
    summary = json.loads(result.stderr)
    assert document["format"] == "polyregions.regions/1" and len(document["regions"]) == summary["activation_regions"]
    assert not (net / "-").exists()


def test_graphml_network_and_region_lists_go_to_standard_output(net):
    graphml = _run("regions", "net.json", "--box", "-1,1", "--graphml", "-", cwd=net)
    assert graphml.returncode == 0 and graphml.stdout.startswith("<?xml") and "activation regions" in graphml.stderr
    network = _run("network", "--widths", "2,3", "-o", "-", cwd=net)
    assert network.returncode == 0 and json.loads(network.stdout)["format"] == "polyregions.network/1"
    listed = _run("arrangement", "--name", "braid:3", "--list", "-", cwd=net)
    records = [json.loads(line) for line in listed.stdout.splitlines()]
    assert listed.returncode == 0 and sum("signs" in r for r in records) == 6 and records[-1]["regions"] == 6
    assert not (net / "-").exists()


def test_a_store_cannot_be_standard_output(net):
    result = _run("regions", "net.json", "--box", "-1,1", "--stream", "-", cwd=net)
    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2 and len(lines) == 1 and lines[0].startswith("polyregions: error: --stream: ")
