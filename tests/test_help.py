"""Help that reads as help: every option of every command described in plain text, choices and defaults stated,
and ``--json`` (and the progress options) on every command that prints results."""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

import pytest

from polyregions.cli import _build_parser, main

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # proofs_check lives beside the package

from proofs_check.__main__ import build_parser as proofs_check_parser  # noqa: E402
from proofs_check.theorems.run import build_parser as theorems_parser  # noqa: E402
from proofs_check.verify import build_parser as verify_parser  # noqa: E402

# reST and Sphinx markup that must not leak from docstrings into --help
MARKUP = re.compile(r"``|:(?:func|mod|class|meth|attr|data|exc|ref|doc|term):`|\.\. [a-z]+::")


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _walk(parser: argparse.ArgumentParser, name: str):
    """Every parser below ``parser`` (itself included), with its command line."""
    yield name, parser
    for sub_name, sub in _subparsers(parser).items():
        yield from _walk(sub, f"{name} {sub_name}")


POLYREGIONS = dict(_walk(_build_parser(), "polyregions"))
PROOFS_CHECK = {"python -m proofs_check": proofs_check_parser(),
                "python -m proofs_check verify": verify_parser(),
                "python -m proofs_check theorems": theorems_parser()}
ALL = {**POLYREGIONS, **PROOFS_CHECK}
LEAVES = {name: p for name, p in POLYREGIONS.items() if not _subparsers(p)}


def _options(parser: argparse.ArgumentParser):
    return [a for a in parser._actions
            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))]


def test_every_command_is_walked():
    commands = {name.split()[1] for name in LEAVES}
    assert {"regions", "boundary", "topology", "local", "arrangement", "search", "sweep", "plot", "demo",
            "explore"} <= commands
    assert {"polyregions plot regions", "polyregions plot poset"} <= set(LEAVES)


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_option_has_a_help_text(name):
    for action in _options(ALL[name]):
        if name == "python -m proofs_check":
            continue  # its commands read their own options; only -h is its own
        text = action.help
        assert text and text is not argparse.SUPPRESS and len(text.split()) >= 3, \
            f"{name}: {action.option_strings or action.dest} has no help text"


@pytest.mark.parametrize("name", sorted(ALL))
def test_choices_are_explained_and_defaults_stated(name):
    for action in _options(ALL[name]):
        if action.choices is not None and not isinstance(action, argparse._SubParsersAction):
            for choice in action.choices:
                assert str(choice) in action.help, \
                    f"{name}: {action.option_strings}: choice {choice!r} not explained"
        if action.default not in (None, False, argparse.SUPPRESS) and not isinstance(action, argparse._VersionAction):
            assert "default" in action.help, f"{name}: {action.option_strings}: default {action.default!r} not stated"


@pytest.mark.parametrize("name", sorted(ALL))
def test_help_is_plain_text_with_a_description(name):
    parser = ALL[name]
    text = parser.format_help()
    assert not MARKUP.search(text), f"{name} --help has reST markup: {MARKUP.search(text).group()!r}"
    assert parser.description and len(parser.description.split()) >= 5, f"{name} has no description"


@pytest.mark.parametrize("name", sorted(LEAVES))
def test_every_command_that_prints_has_json(name):
    flags = {flag for action in _options(LEAVES[name]) for flag in action.option_strings}
    assert "--json" in flags, f"{name} has no --json"
    if name != "polyregions explore":  # a server: no long computation to follow
        assert {"--progress", "--quiet"} <= flags, f"{name} has no --progress/--quiet"


@pytest.mark.parametrize("name", sorted(POLYREGIONS))
def test_help_exits_0_and_prints_on_stdout(name, capsys):
    with pytest.raises(SystemExit) as stop:
        main(name.split()[1:] + ["--help"])
    assert stop.value.code == 0
    captured = capsys.readouterr()
    assert captured.out.startswith("usage: ") and captured.err == ""
    assert not MARKUP.search(captured.out)


@pytest.mark.parametrize("argv", [["--help"], ["verify", "--help"], ["theorems", "--help"]])
def test_proofs_check_help(argv):
    done = subprocess.run([sys.executable, "-m", "proofs_check", *argv], capture_output=True, text=True, cwd=ROOT)
    assert done.returncode == 0 and done.stderr == ""
    assert done.stdout.startswith("usage: python -m proofs_check")
    assert not MARKUP.search(done.stdout)
    if argv == ["--help"]:
        assert "verify" in done.stdout and "theorems" in done.stdout


def test_list_claims_as_json(capsys):
    import json

    assert main(["search", "--list-claims", "--json"]) == 0
    out = capsys.readouterr().out
    assert out.count("\n") == 1
    claims = json.loads(out)["claims"]
    from polyregions.experiments.claims import BUILTIN_CLAIMS

    assert [c["name"] for c in claims] == list(BUILTIN_CLAIMS)


def test_explore_prints_its_address_as_json_and_stops_on_ctrl_c():
    import json
    import os
    import signal

    process = subprocess.Popen([sys.executable, "-m", "polyregions", "explore", "--port", "0", "--no-open", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=ROOT,
                               env=dict(os.environ, PYTHONPATH=str(ROOT)))
    try:
        line = process.stdout.readline()
        address = json.loads(line)
        assert address["url"] == f"http://127.0.0.1:{address['port']}/" and address["port"] > 0
    finally:
        process.send_signal(signal.SIGINT)
        out, err = process.communicate(timeout=60)
    assert process.returncode == 130 and out == "" and err == "polyregions: interrupted\n"
