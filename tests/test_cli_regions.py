import json
import subprocess
import sys

import pytest

from polyregions.cli import main
from polyregions.networks.constructions import sawtooth
from polyregions.networks.io import save_network

NET = {"format": "polyregions.network/1", "input_dim": 2,
       "layers": [{"weight": [[1, 0], [0, 1], [1, 1]], "bias": [0, 0, "-1/2"], "activation": "relu"},
                  {"weight": [[1, -1, 2]], "bias": [0], "activation": "linear"}]}


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


@pytest.mark.parametrize("box", [["--box", "-1,1"], ["--box=-1,1"]])
def test_contract_keys_and_known_counts(tmp_path, capsys, box):
    # x = 0, y = 0 and x + y = 1/2 cut the square [-1, 1]^2 into 7 regions (the lines meet pairwise inside).
    assert main(["regions", _write(tmp_path, "net.json", NET), *box, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"input_dim", "domain_dim", "neurons", "activation_regions", "linear_regions", "exact"} <= set(out)
    assert (out["input_dim"], out["domain_dim"], out["neurons"]) == (2, 2, 3)
    assert out["activation_regions"] == 7 and out["exact"] is True


def test_lp_engine_in_two_processes_gives_the_same_counts(tmp_path, capsys):
    path = _write(tmp_path, "net.json", NET)
    counts = []
    for extra in ([], ["--workers", "2"]):
        assert main(["regions", path, "--box", "-1,1", "--engine", "lp", "--json", *extra]) == 0
        counts.append(json.loads(capsys.readouterr().out))
    assert counts[0] == counts[1] and counts[0]["activation_regions"] == 7


def test_segment_domain_and_export(tmp_path, capsys):
    net = tmp_path / "saw.json"
    save_network(sawtooth(4), net)
    domain = _write(tmp_path, "seg.json", {"type": "segment", "start": [0], "end": [1]})
    export = tmp_path / "complex.json"
    assert main(["regions", str(net), "--domain", domain, "--json", "--export", str(export),
                 "--graphml", str(tmp_path / "g.graphml")]) == 0
    assert json.loads(capsys.readouterr().out)["linear_regions"] == 16
    document = json.loads(export.read_text())
    assert document["format"] == "polyregions.regions/1" and len(document["regions"]) == 16
    assert "<graphml" in (tmp_path / "g.graphml").read_text()


@pytest.mark.parametrize("content, field", [
    ("{not json", "net.json"),
    ({**NET, "format": "other/1"}, "format"),
    ({**NET, "layers": [{**NET["layers"][0], "bias": [0, "1/0", 0]}, NET["layers"][1]]}, "bias[1]"),
    ({**NET, "layers": [{**NET["layers"][0], "activation": "swish"}, NET["layers"][1]]}, "activation"),
    ({**NET, "layers": [{**NET["layers"][0], "weight": [[1, 0], [0, 1]]}, NET["layers"][1]]}, "layers[0]"),
])
def test_bad_network_files_give_one_error_line(tmp_path, capsys, content, field):
    path = _write(tmp_path, "net.json", content)
    with pytest.raises(SystemExit) as info:
        main(["regions", path, "--box", "-1,1"])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polyregions: error:") and field in err


@pytest.mark.parametrize("domain, field", [
    ({"type": "box", "lower": [0, 0], "upper": [1, 0]}, "upper"),
    ({"type": "segment", "start": [0, 0], "end": [0, 0]}, "end"),
    ({"type": "ball"}, "type"),
])
def test_bad_domains_give_one_error_line(tmp_path, capsys, domain, field):
    with pytest.raises(SystemExit) as info:
        main(["regions", _write(tmp_path, "net.json", NET), "--domain", _write(tmp_path, "d.json", domain)])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "d.json" in err and field in err


def test_bad_usage_and_missing_files_give_one_line(tmp_path, capsys):
    for argv in (["regions", str(tmp_path / "missing.json"), "--box", "-1,1"],
                 ["regions", _write(tmp_path, "net.json", NET)],
                 ["regions", _write(tmp_path, "net.json", NET), "--box", "1"],
                 ["regions", _write(tmp_path, "net.json", NET), "--box", "-1,1", "--workers", "0"],
                 ["nonsense"]):
        with pytest.raises(SystemExit) as info:
            main(argv)
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith("polyregions: error:")


def test_the_installed_command_never_prints_a_traceback(tmp_path):
    path = _write(tmp_path, "net.json", {**NET, "input_dim": "two"})
    done = subprocess.run([sys.executable, "-m", "polyregions", "regions", path, "--box", "-1,1"],
                          capture_output=True, text=True)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stderr.startswith("polyregions: error:") and "input_dim" in done.stderr


def test_demo_checks_pass(capsys):
    assert main(["demo", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert all(report["checks"].values())


@pytest.mark.parametrize("engine", ["lp", "mesh"])
def test_json_output_is_one_line_even_when_the_lp_solver_starts(tmp_path, engine):
    # Regression: the LP solver's version banner reached standard output before the JSON object.
    path = _write(tmp_path, "net.json", NET)
    done = subprocess.run([sys.executable, "-m", "polyregions", "regions", path, "--box", "-1,1", "--json",
                           "--engine", engine], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.count("\n") == 1
    assert json.loads(done.stdout)["activation_regions"] == 7


def _no_enumeration(*args, **kwargs):
    raise AssertionError("the enumeration started before the output paths were checked")


@pytest.mark.parametrize("option", ["--export", "--graphml"])
def test_bad_output_paths_give_one_line_before_the_enumeration(tmp_path, capsys, monkeypatch, option):
    # Regression: a missing folder or a directory was found only after the whole enumeration, by a traceback.
    import polyregions.regions.enumeration as enumeration
    monkeypatch.setattr(enumeration, "enumerate_regions", _no_enumeration)
    (tmp_path / "folder").mkdir()
    (tmp_path / "plain").write_text("a file, not a folder")
    for path, message in ((tmp_path / "missing" / "c.json", "in a missing directory"),
                          (tmp_path / "folder", "expected a file, got a directory"),
                          (tmp_path / "plain" / "c.json", "is not a directory")):
        with pytest.raises(SystemExit) as info:
            main(["regions", _write(tmp_path, "net.json", NET), "--box", "-1,1", option, str(path)])
        assert info.value.code == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"polyregions: error: {option}: ") and message in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "net.json", "plain"]
