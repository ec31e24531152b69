"""``polyregions boundary``: the contract keys, known values and one-line errors."""

from __future__ import annotations

import json
import math

import pytest
import sympy

from polyregions.cli import main

# x + 2y = 1 and x = 1/2: in [0, 1]^2 a chord of length sqrt(5)/2, a chord of length 1, one crossing.
NET = {"format": "polyregions.network/1", "input_dim": 2,
       "layers": [{"weight": [[1, 2], [1, 0]], "bias": [-1, "-1/2"], "activation": "relu"},
                  {"weight": [[1, 1]], "bias": [0], "activation": "linear"}]}


def _write(tmp_path, name, content):
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content))
    return str(path)


def test_contract_keys_and_known_values(tmp_path, capsys):
    assert main(["boundary", _write(tmp_path, "net.json", NET), "--box", "0,1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert {"boundary_volumes", "boundary_volumes_exact", "density", "exact"} <= set(out)
    assert out["exact"] is True and len(out["boundary_volumes"]) == 2
    expected = 1 + math.sqrt(5) / 2
    assert abs(out["boundary_volumes"][0] - expected) <= 4e-16 * expected
    assert out["boundary_volumes"][1] == 1.0
    exact = [sympy.sympify(text) for text in out["boundary_volumes_exact"]]
    assert sympy.simplify(exact[0] - (1 + sympy.sqrt(5) / 2)) == 0 and exact[1] == 1
    assert out["density"] == out["boundary_volumes"][0]  # the domain has area 1


def test_negative_box_and_text_output(tmp_path, capsys):
    assert main(["boundary", _write(tmp_path, "net.json", NET), "--box=-1,1"]) == 0
    text = capsys.readouterr().out
    assert "B_N,1" in text and "B_N,2: points 1" in text


def test_slice_domain_measures_in_input_space(tmp_path, capsys):
    # The diagonal slice t (1, 1), t in [-1, 1], meets x + 2y = 1 at t = 1/3 and x = 1/2 at t = 1/2.
    domain = _write(tmp_path, "slice.json", {"type": "slice", "origin": [0, 0], "directions": [[1, 1]],
                                            "lower": [-1], "upper": [1]})
    assert main(["boundary", _write(tmp_path, "net.json", NET), "--domain", domain, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["boundary_volumes_exact"] == ["2"]
    assert abs(out["density"] - 1 / math.sqrt(2)) <= 1e-15  # two points on a segment of length 2 sqrt(2)


@pytest.mark.parametrize("args, field", [
    (["--domain", "DOMAIN"], "bounded"),
    (["--box", "1,1"], "upper"),
])
def test_errors_are_one_line(tmp_path, capsys, args, field):
    args = [_write(tmp_path, "space.json", {"type": "space"}) if a == "DOMAIN" else a for a in args]
    with pytest.raises(SystemExit) as info:
        main(["boundary", _write(tmp_path, "net.json", NET), *args])
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("polyregions: error:") and field in err


def test_bad_network_file(tmp_path, capsys):
    with pytest.raises(SystemExit) as info:
        main(["boundary", _write(tmp_path, "net.json", "{oops"), "--box", "0,1"])
    assert info.value.code == 2
    assert "net.json" in capsys.readouterr().err
