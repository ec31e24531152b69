"""The ``polyregions arrangement`` command and the arrangement file format."""

import json
import subprocess
import sys

import pytest

from polyregions import InvalidInputError
from polyregions.arrangements import Arrangement, arrangement_from_json, braid, read_arrangement, shi, write_arrangement
from polyregions.cli import main

CONTRACT_KEYS = {"dimension", "rank", "hyperplanes", "regions", "bounded_regions", "characteristic_polynomial",
                 "face_vector", "exact"}


def write(tmp_path, data, name="arrangement.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data))
    return path


def run_json(capsys, argv):
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    return json.loads(out)


def test_contract_example(tmp_path, capsys):
    path = write(tmp_path, {"format": "polyregions.arrangement/1", "dimension": 2,
                            "hyperplanes": [[1, 0, 0], [0, 1, 0], [1, 1, "1/2"], [-2, 0, 0]]})
    summary = run_json(capsys, ["arrangement", str(path), "--json"])
    assert CONTRACT_KEYS <= set(summary)
    # Three lines in general position: 7 regions, 1 bounded, chi = t^2 - 3t + 3, f = (3, 9, 7).
    assert summary["dimension"] == 2 and summary["rank"] == 2 and summary["hyperplanes"] == 3
    assert summary["regions"] == 7 and summary["bounded_regions"] == 1
    assert summary["characteristic_polynomial"] == [1, -3, 3]
    assert summary["face_vector"] == [3, 9, 7]
    assert summary["exact"] is True and summary["zaslavsky"]["agrees"] is True


def test_named_example_and_readable_summary(capsys):
    summary = run_json(capsys, ["arrangement", "--name", "shi:3", "--json"])
    assert (summary["regions"], summary["bounded_regions"], summary["rank"]) == (16, 4, 2)
    assert summary["characteristic_polynomial"] == [1, -6, 9, 0]
    assert main(["arrangement", "--name", "braid:4"]) == 0
    text = capsys.readouterr().out
    assert "24" in text and "t^4 - 6*t^3 + 11*t^2 - 6*t" in text and "agree" in text


def test_no_faces_option(capsys):
    summary = run_json(capsys, ["arrangement", "--name", "catalan:3", "--json", "--no-faces"])
    assert summary["face_vector"] is None and summary["regions"] == 30


def test_file_round_trip(tmp_path):
    arrangement = Arrangement([[1, 2, "1/3"], [0.5, 0, 1]])
    path = tmp_path / "a.json"
    write_arrangement(arrangement, path)
    assert read_arrangement(path) == arrangement
    assert read_arrangement(path).hyperplanes == arrangement.hyperplanes


def test_empty_arrangement_file(tmp_path, capsys):
    path = write(tmp_path, {"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": []})
    summary = run_json(capsys, ["arrangement", str(path), "--json"])
    assert summary["regions"] == 1 and summary["characteristic_polynomial"] == [1, 0, 0]
    assert summary["face_vector"] == [0, 0, 1]


BAD = [
    ('{"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": [[0, 0, 1]]}', "hyperplanes[0]"),
    ('{"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": [[1, 0]]}', "hyperplanes[0]"),
    ('{"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": [[1, "1/0", 0]]}', "hyperplanes[0][1]"),
    ('{"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": [[1, NaN, 0]]}', "hyperplanes[0][1]"),
    ('{"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": [[1, 2, ""]]}', "hyperplanes[0][2]"),
    ('{"format": "polyregions.arrangement/1", "dimension": -1, "hyperplanes": []}', "dimension"),
    ('{"format": "polyregions.arrangement/1", "dimension": 2, "hyperplanes": {"a": 1}}', "hyperplanes"),
    ('{"format": "polyregions.arrangement/1", "hyperplanes": []}', "dimension"),
    ('{"format": "polyregions.network/1", "dimension": 2, "hyperplanes": []}', "format"),
    ('{"dimension": 2, "hyperplanes": []}', "format"),
    ('[1, 2]', "expected a JSON object"),
    ('{"format": ', "JSON"),
]


@pytest.mark.parametrize("text, field", BAD)
def test_bad_files_exit_2_with_one_line(tmp_path, capsys, text, field):
    path = write(tmp_path, text)
    with pytest.raises(SystemExit) as exit_info:
        main(["arrangement", str(path), "--json"])
    assert exit_info.value.code == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"polyregions: error: {path}: {field}")


def test_missing_file_and_bad_usage(tmp_path, capsys):
    for argv, start in [(["arrangement", str(tmp_path / "missing.json")], f"{tmp_path / 'missing.json'}: file"),
                        (["arrangement", "--name", "braid:x"], "--name"),
                        (["arrangement"], "arrangement: expected exactly one"),
                        (["arrangement", "f.json", "--name", "braid:3"], "arrangement: expected exactly one")]:
        with pytest.raises(SystemExit) as exit_info:
            main(argv)
        assert exit_info.value.code == 2
        lines = capsys.readouterr().err.splitlines()
        assert len(lines) == 1 and lines[0].startswith(f"polyregions: error: {start}")


def test_command_line_process(tmp_path):
    path = write(tmp_path, {"format": "polyregions.arrangement/1", "dimension": 1, "hyperplanes": [[1, 0], [2, 1]]})
    done = subprocess.run([sys.executable, "-m", "polyregions", "arrangement", str(path), "--json"],
                          capture_output=True, text=True, check=True)
    assert json.loads(done.stdout)["regions"] == 3
    bad = write(tmp_path, '{"format": "polyregions.arrangement/1", "dimension": 1, "hyperplanes": [[0, 1]]}',
                "b.json")
    done = subprocess.run([sys.executable, "-m", "polyregions", "arrangement", str(bad)], capture_output=True,
                          text=True)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.count("\n") == 1 and "Traceback" not in done.stderr


def test_from_json_names_the_source():
    with pytest.raises(InvalidInputError, match=r"^mine: hyperplanes\[1\]: expected a non-zero normal"):
        arrangement_from_json({"format": "polyregions.arrangement/1", "dimension": 1,
                               "hyperplanes": [[1, 0], [0, 3]]}, source="mine")
    assert arrangement_from_json({"format": "polyregions.arrangement/1",
                                  "hyperplanes": [[1, -1, 0, 0], [1, 0, -1, 0], [0, 1, -1, 0]]}) == braid(3)
    assert shi(2).hyperplanes == ((1, -1, 0), (1, -1, 1))  # x1 - x2 = 0 and x1 - x2 = 1


def test_a_big_listing_says_that_count_answers_at_once(capsys, monkeypatch):
    from polyregions.cli import arrangement as command

    # The thresholds lowered so that braid:4 (6 hyperplanes, 24 regions) stands for braid:9's 362,880.
    monkeypatch.setattr(command, "LISTING_NOTICE_REGIONS", 10)
    monkeypatch.setattr(command, "_FEW_HYPERPLANES", 1)
    assert main(["arrangement", "--name", "braid:4", "--no-faces"]) == 0
    captured = capsys.readouterr()
    assert "braid:4 has 24 regions (from its characteristic polynomial)" in captured.err
    assert "'polyregions arrangement --name braid:4 --count' gives the counts at once" in captured.err
    assert "regions:                   24" in captured.out
    assert main(["arrangement", "--name", "braid:4", "--no-faces", "--quiet"]) == 0
    assert capsys.readouterr().err == ""


def test_long_counts_have_a_float_beside_them_in_text_only(capsys):
    # 2^64 regions of the coordinate arrangement: 20 digits, with a float for the reader.
    assert main(["arrangement", "--name", "coordinate:64", "--count"]) == 0
    assert "regions:                   18446744073709551616 (~ 1.84467e+19)" in capsys.readouterr().out
    summary = run_json(capsys, ["arrangement", "--name", "coordinate:64", "--count", "--json"])
    assert summary["regions"] == 2 ** 64
