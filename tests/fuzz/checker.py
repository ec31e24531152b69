"""Tampered exports and certificates for ``python -m proofs_check verify``.

The base documents are a region complex export written by polyregions (the 7 regions of
:data:`fuzz.corpus.NET` on ``[-1, 1]^2``) and a ``polyregions search`` certificate. Each case changes one thing:
a key removed, nulled, mistyped or unknown, a number made unreadable (non-ASCII digits, too many digits, a huge
exponent), a geometric fact made false, or the file itself broken. The checker must answer 2 (one line on
standard error naming the file) or 1 (a ``FAILED:`` report line), never a traceback.
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass
from typing import Any, Callable

from fuzz.corpus import NET, Directory, Fifo, Sparse, materialize

__all__ = ["CheckerCase", "CHECKER_CASES", "CHECKER_SPECIAL_FILES", "export_document", "certificate_document"]


def export_document() -> dict[str, Any]:
    """The export of the 7 regions of ``NET`` on ``[-1, 1]^2``, as polyregions writes it."""
    from polyregions.networks.io import network_from_json
    from polyregions.regions.domains import box
    from polyregions.regions.enumeration import enumerate_regions
    from polyregions.regions.export import complex_to_json

    complex_ = enumerate_regions(network_from_json(NET), box([-1, -1], [1, 1]))
    return json.loads(json.dumps(complex_to_json(complex_)))


def certificate_document(directory) -> dict[str, Any]:
    """A certificate of ``polyregions search`` that breaks the one-layer bound (a network of two layers)."""
    from polyregions.experiments.counterexamples import search

    path = os.path.join(str(directory), "cert.json")
    result = search("activation_regions <= one_layer_bound", widths=[1, 2, 2], seed=0, output=path)
    assert result.found
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


@dataclass(frozen=True)
class CheckerCase:
    """One tampered file: ``mutate`` returns the new document, its text or bytes, or a special file."""

    name: str
    mutate: Callable[[dict], Any]
    base: str = "export"
    statuses: tuple[int, ...] = (1, 2)

    def write(self, doc: dict, directory) -> str:
        content = self.mutate(doc)
        if isinstance(content, _Path):
            return content.path
        path = os.path.join(str(directory), "export.json")
        if isinstance(content, (Fifo, Directory, Sparse)):
            from fuzz.corpus import Case

            materialize(Case("file", (), (("export.json", content),)), str(directory))
        elif isinstance(content, _Missing):
            pass
        elif isinstance(content, bytes):
            with open(path, "wb") as handle:
                handle.write(content)
        elif isinstance(content, str):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)
        else:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(content, handle)
        return path


@dataclass(frozen=True)
class _Path:
    path: str


@dataclass(frozen=True)
class _Missing:
    pass


def _set(path: tuple, value: Any) -> Callable[[dict], dict]:
    def mutate(doc: dict) -> dict:
        target = doc
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = copy.deepcopy(value)
        return doc
    return mutate


def _raw(path: tuple, text: str) -> Callable[[dict], str]:
    """The document's JSON text with the value at ``path`` replaced by raw JSON text."""
    def mutate(doc: dict) -> str:
        return json.dumps(_set(path, "@@RAW@@")(doc)).replace('"@@RAW@@"', text)
    return mutate


_DELETE = object()

_BAD_NUMBER_STRINGS = [("arabic-indic", "\u0661"), ("fullwidth", "\uff11"), ("em space", "\u2003 1"),
                       ("10001 digits", "1" * 10001), ("100001 digits", "3" * 100_001),
                       ("exponent 1e-400000000", "1e-400000000"), ("exponent of 5000 digits", "1e" + "9" * 5000),
                       ("division by zero", "1/0"), ("underscore", "1_0"), ("empty", "")]


def _cases() -> list[CheckerCase]:
    cases: list[CheckerCase] = []
    keys = ("format", "network", "domain", "exact", "engine", "summary", "regions", "adjacency", "linear_regions")
    for key in keys:
        cases.append(CheckerCase(f"{key} missing", _set((key,), _DELETE), statuses=(2,)))
        cases.append(CheckerCase(f"{key} null", _set((key,), None), statuses=(2,)))
        cases.append(CheckerCase(f"{key} a number", _set((key,), 7), statuses=(2,)))
    cases += [
        CheckerCase("unknown top-level key", _set(("note",), "trust me"), statuses=(2,)),
        CheckerCase("unknown region key", _set(("regions", 0, "volume"), "1"), statuses=(2,)),
        CheckerCase("unknown network key", _set(("network", "name"), "x"), statuses=(2,)),
        CheckerCase("format wrong", _set(("format",), "polyregions.regions/2"), statuses=(2,)),
        CheckerCase("exact a string", _set(("exact",), "yes"), statuses=(2,)),
        CheckerCase("engine unknown", _set(("engine",), "magic")),
        CheckerCase("pattern out of range", _set(("regions", 0, "pattern"), [5, 0, 0])),
        CheckerCase("pattern text", _set(("regions", 0, "pattern"), "000"), statuses=(2,)),
        CheckerCase("pattern too short", _set(("regions", 0, "pattern"), [0])),
        CheckerCase("pattern of another region", _set(("regions", 0, "pattern"), [1, 1, 1])),
        CheckerCase("A ragged", _set(("regions", 0, "A"), [["1", "0"], ["1"]]), statuses=(2,)),
        CheckerCase("A text", _set(("regions", 0, "A"), "x"), statuses=(2,)),
        CheckerCase("b too short", _set(("regions", 0, "b"), ["1"])),
        CheckerCase("interior point outside", _set(("regions", 0, "interior_point"), ["5", "5"]), statuses=(1,)),
        CheckerCase("interior point in another region", _set(("regions", 0, "interior_point"), ["1/2", "1/2"]),
                    statuses=(1,)),
        CheckerCase("interior point too short", _set(("regions", 0, "interior_point"), ["0"])),
        CheckerCase("output map changed", _set(("regions", 0, "output_map", "c"), ["1"]), statuses=(1,)),
        CheckerCase("output map without c", _set(("regions", 0, "output_map"), {"M": [["0", "0"]]}), statuses=(2,)),
        CheckerCase("region removed", lambda doc: {**doc, "regions": doc["regions"][1:]}, statuses=(1, 2)),
        CheckerCase("region repeated", lambda doc: {**doc, "regions": doc["regions"] + doc["regions"][:1]}),
        CheckerCase("regions empty", _set(("regions",), []), statuses=(1,)),
        CheckerCase("adjacency pair added", lambda doc: {**doc, "adjacency": doc["adjacency"] + [[0, 6, [0, 1]]]},
                    statuses=(1,)),
        CheckerCase("adjacency pair removed", lambda doc: {**doc, "adjacency": doc["adjacency"][1:]}, statuses=(1,)),
        CheckerCase("adjacency self loop", lambda doc: {**doc, "adjacency": doc["adjacency"] + [[0, 0, []]]}),
        CheckerCase("adjacency index out of range", _set(("adjacency", 0, 1), 99)),
        CheckerCase("adjacency index negative", _set(("adjacency", 0, 1), -1)),
        CheckerCase("adjacency index text", _set(("adjacency", 0, 1), "1"), statuses=(2,)),
        CheckerCase("adjacency wrong label", _set(("adjacency", 0, 2), [2]), statuses=(1,)),
        CheckerCase("adjacency entry short", _set(("adjacency", 0), [0, 1]), statuses=(2,)),
        CheckerCase("linear regions merged", _set(("linear_regions",), [[0, 1], [2], [3], [4], [5], [6]]),
                    statuses=(1,)),
        CheckerCase("linear regions missing one", _set(("linear_regions",), [[0], [1], [2], [3], [4], [5]])),
        CheckerCase("summary count changed", _set(("summary", "activation_regions"), 8), statuses=(1,)),
        CheckerCase("summary neurons changed", _set(("summary", "neurons"), 4), statuses=(1,)),
        CheckerCase("summary exact changed", _set(("summary", "exact"), False), statuses=(1, 2)),
        CheckerCase("summary key unknown", _set(("summary", "volume"), 4), statuses=(2,)),
        CheckerCase("network weight changed", _set(("network", "layers", 0, "weight", 0, 0), "2"), statuses=(1,)),
        CheckerCase("network activation unknown", _set(("network", "layers", 0, "activation"), "tanh"),
                    statuses=(2,)),
        CheckerCase("network empty breakpoints", _set(("network", "layers", 0, "activation"),
                                                      {"kind": "piecewise_linear", "breakpoints": [],
                                                       "slopes": [2], "offset": "0"})),
        CheckerCase("network format wrong", _set(("network", "format"), "x"), statuses=(2,)),
        CheckerCase("domain larger", _set(("domain", "upper"), ["2", "2"]), statuses=(1,)),
        CheckerCase("domain type unknown", _set(("domain", "type"), "ball"), statuses=(2,)),
        CheckerCase("domain of another dimension", _set(("domain", "lower"), ["-1"])),
        CheckerCase("patterns swapped", lambda doc: _swap_patterns(doc), statuses=(1,)),
    ]
    for label, text in _BAD_NUMBER_STRINGS:
        for where, path in (("interior point", ("regions", 0, "interior_point", 0)),
                            ("weight", ("network", "layers", 0, "weight", 0, 1)),
                            ("domain bound", ("domain", "lower", 0))):
            readable = label == "10001 digits"  # within the checker's limit: a wrong value, not a wrong number
            cases.append(CheckerCase(f"{where} {label}", _set(path, text), statuses=(1, 2) if readable else (2,)))
    raw = [("integer literal of 5000 digits", "7" * 5000), ("integer literal of 100001 digits", "7" * 100_001),
           ("NaN literal", "NaN"), ("Infinity literal", "Infinity"), ("float literal 1e400", "1e400"),
           ("list nested 150 deep", "[" * 150 + "]" * 150)]
    for label, text in raw:
        cases.append(CheckerCase(f"weight {label}", _raw(("network", "layers", 0, "weight", 0, 1), text),
                                 statuses=(1, 2)))
    files: list[tuple[str, Callable[[dict], Any]]] = [
        ("empty file", lambda doc: b""),
        ("truncated", lambda doc: json.dumps(doc)[:500]),
        ("not UTF-8", lambda doc: b"\xff\xfe" + json.dumps(doc).encode("utf-16-le")),
        ("a list", lambda doc: [doc]),
        ("nested 100000 deep", lambda doc: b"[" * 100_000 + b"]" * 100_000),
        ("missing file", lambda doc: _Missing()),
        ("directory", lambda doc: Directory()),
    ]
    for label, mutate in files:
        cases.append(CheckerCase(f"file {label}", mutate, statuses=(2,)))
    claim = ("claim",)
    cases += [
        # a name the checker does not know is a user-defined claim: the complex verifies, the claim cannot (3)
        CheckerCase("certificate claim name unknown", _set(claim + ("name",), "my claim"), "certificate", (1, 2, 3)),
        CheckerCase("certificate claim value changed", _set(claim + ("value",), 1), "certificate", (1,)),
        CheckerCase("certificate claim holds flipped", _set(claim + ("holds",), True), "certificate", (1,)),
        CheckerCase("certificate claim bound text", _set(claim + ("bound",), "5"), "certificate"),
        CheckerCase("certificate claim statement changed", _set(claim + ("statement",), "anything"), "certificate"),
        CheckerCase("certificate claim key unknown", _set(claim + ("proof",), "trust me"), "certificate", (2,)),
        CheckerCase("certificate claim missing", _set(claim, _DELETE), "certificate", (2,)),
        CheckerCase("certificate search missing", _set(("search",), _DELETE), "certificate", (2,)),
        CheckerCase("certificate search seed text", _set(("search", "seed"), "x"), "certificate", (2,)),
        CheckerCase("certificate search evaluations negative", _set(("search", "evaluations"), -1), "certificate"),
        CheckerCase("certificate search values unsorted", lambda doc: _reverse_values(doc), "certificate"),
        CheckerCase("certificate search values arabic-indic", _set(("search", "values", 0), "\u0661"),
                    "certificate"),
        CheckerCase("certificate search engine unknown", _set(("search", "engine"), "magic"), "certificate"),
        CheckerCase("certificate search a list", _set(("search",), []), "certificate", (2,)),
    ]
    names = [case.name for case in cases]
    assert len(names) == len(set(names)), [n for n in names if names.count(n) > 1]
    return cases


def _swap_patterns(doc: dict) -> dict:
    regions = doc["regions"]
    regions[0]["pattern"], regions[1]["pattern"] = regions[1]["pattern"], regions[0]["pattern"]
    return doc


def _reverse_values(doc: dict) -> dict:
    doc["search"]["values"] = list(reversed(doc["search"]["values"]))
    return doc


#: Every tampered file (deterministic, built at import).
CHECKER_CASES: list[CheckerCase] = _cases()
#: Files the checker must refuse without reading them (a FIFO would block it, a device never ends); run in a
#: process with a time and memory limit.
CHECKER_SPECIAL_FILES: list[tuple[str, Any]] = [("FIFO", Fifo()), ("/dev/zero", _Path("/dev/zero")),
                                                ("sparse 5 GiB", Sparse(5 << 30))]
