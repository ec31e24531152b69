"""The command-line fuzz corpus: malformed files and option values for every ``polyregions`` command.

Every case is built here, deterministically, from a few valid inputs: bad numbers (non-ASCII digits, Unicode
white space, too many digits, huge exponents, NaN, wrong types) put in every place a number is read, broken
structure, broken JSON and encodings, files that are not regular files or are too large, malformed ``.npz``
archives, and out-of-range option values. Each case says what the one-line error must name (the file or the
option). ``python -m fuzz.corpus DIR`` (from ``tests/``) writes the files of every case to ``DIR`` with a
``cases.txt`` listing the command lines, to replay them by hand.
"""

from __future__ import annotations

import io
import json
import os
import sys
from dataclasses import dataclass, field
from typing import Any, Iterator

import numpy as np

__all__ = ["Case", "Fifo", "Directory", "Sparse", "Symlink", "CASES", "ACCEPTED", "materialize", "NET", "SAW",
           "DOMAIN", "ARRANGEMENT"]


# --- the valid inputs every case starts from ----------------------------------------------------------------

#: x = 0, y = 0 and x + y = 1/2 in [-1, 1]^2: 7 activation regions.
NET = {"format": "polyregions.network/1", "input_dim": 2,
       "layers": [{"weight": [[1, 0], [0, 1], [1, 1]], "bias": [0, 0, "-1/2"], "activation": "relu"},
                  {"weight": [[1, -1, 2]], "bias": [0], "activation": "linear"}]}
#: A hat function on R: 2 neurons.
SAW = {"format": "polyregions.network/1", "input_dim": 1,
       "layers": [{"weight": [[1], [1]], "bias": [0, "-1/2"], "activation": "relu"},
                  {"weight": [[2, -4]], "bias": [0], "activation": "linear"}]}
DOMAIN = {"type": "box", "lower": [-1, -1], "upper": [1, 1]}
ARRANGEMENT = {"format": "polyregions.arrangement/1", "dimension": 2,
               "hyperplanes": [[1, 0, 0], [0, 1, 0], [1, 1, "1/2"]]}


# --- special files ------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Fifo:
    """A named pipe with no writer: opening it for reading the usual way blocks forever."""


@dataclass(frozen=True)
class Directory:
    """A directory where a file is expected."""


@dataclass(frozen=True)
class Sparse:
    """A sparse regular file of ``size`` bytes (nothing is stored, reading it would be)."""

    size: int


@dataclass(frozen=True)
class Symlink:
    """A symbolic link to ``target``."""

    target: str


@dataclass(frozen=True)
class Case:
    """One malformed command line.

    ``files`` maps names (relative to the working directory of the run) to their content: text, bytes, a
    dict or list (written as JSON), ``np.ndarray`` dicts (an ``.npz``) or a special file. The run must end
    with ``status`` and exactly one ``polyregions: error:`` line on standard error mentioning every string
    of ``names``. A ``heavy`` case runs only in a subprocess under a memory limit.
    """

    name: str
    argv: tuple[str, ...]
    files: tuple[tuple[str, Any], ...] = ()
    names: tuple[str, ...] = ()
    status: int = 2
    heavy: bool = False
    tags: tuple[str, ...] = field(default=())


def materialize(case: Case, directory: str) -> None:
    """Write the files of ``case`` into ``directory``."""
    for name, content in case.files:
        path = os.path.join(directory, name)
        if isinstance(content, Fifo):
            os.mkfifo(path)
        elif isinstance(content, Directory):
            os.mkdir(path)
        elif isinstance(content, Sparse):
            with open(path, "wb") as handle:
                handle.truncate(content.size)
        elif isinstance(content, Symlink):
            os.symlink(content.target, path)
        elif isinstance(content, bytes):
            with open(path, "wb") as handle:
                handle.write(content)
        elif isinstance(content, str):
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)
        elif isinstance(content, NpzArrays):
            buffer = io.BytesIO()
            np.savez(buffer, **dict(content.arrays))
            with open(path, "wb") as handle:
                handle.write(buffer.getvalue())
        else:
            with open(path, "w", encoding="utf-8") as handle:
                json.dump(content, handle)


@dataclass(frozen=True)
class NpzArrays:
    """An ``.npz`` archive of these named arrays (written with ``np.savez``, so object arrays are pickled)."""

    arrays: tuple[tuple[str, Any], ...]


def _npz(**arrays: Any) -> NpzArrays:
    return NpzArrays(tuple(arrays.items()))


def _npz_bytes(**arrays: Any) -> bytes:
    buffer = io.BytesIO()
    np.savez(buffer, **arrays)
    return buffer.getvalue()


# --- bad numbers --------------------------------------------------------------------------------------------

#: (label, JSON text): each is wrong wherever a number is expected.
BAD_NUMBERS: list[tuple[str, str]] = [
    ("arabic-indic quotient", json.dumps("\u0661/\u0662")),
    ("arabic-indic digit", json.dumps("\u0663")),
    ("arabic-indic decimal", json.dumps("\u0660.\u0665")),
    ("fullwidth digit", json.dumps("\uff11")),
    ("devanagari digit", json.dumps("\u0969")),
    ("em space before", json.dumps("\u2003 1")),
    ("no-break space before", json.dumps("\u00a01")),
    ("thin space after", json.dumps("1\u2009")),
    ("ideographic space", json.dumps("\u30001/2")),
    ("superscript two", json.dumps("\u00b2")),
    ("vulgar fraction", json.dumps("\u00bd")),
    ("underscore", json.dumps("1_000")),
    ("hexadecimal", json.dumps("0x10")),
    ("division by zero", json.dumps("1/0")),
    ("nan text", json.dumps("nan")),
    ("inf text", json.dumps("inf")),
    ("empty text", json.dumps("")),
    ("blank text", json.dumps(" ")),
    ("minus alone", json.dumps("-")),
    ("dot alone", json.dumps(".")),
    ("exponent alone", json.dumps("e5")),
    ("dangling exponent", json.dumps("1e")),
    ("two dots", json.dumps("1.2.3")),
    ("double minus", json.dumps("--1")),
    ("plus minus", json.dumps("+-1")),
    ("two slashes", json.dumps("1/2/3")),
    ("negative denominator", json.dumps("3/-4")),
    ("decimal numerator", json.dumps("1.5/2")),
    ("exponent 99999", json.dumps("1e99999")),
    ("exponent -400000000", json.dumps("1e-400000000")),
    ("exponent of 5000 digits", json.dumps("1e" + "9" * 5000)),
    ("10001 digits", json.dumps("1" * 10001)),
    ("denominator of 10001 digits", json.dumps("1/" + "7" * 10001)),
    ("decimal of 10001 digits", json.dumps("0." + "3" * 10001)),
    ("integer literal of 10001 digits", "1" * 10001),
    ("negative integer literal of 20000 digits", "-" + "2" * 20000),
    ("float literal 1e400", "1e400"),
    ("NaN literal", "NaN"),
    ("Infinity literal", "Infinity"),
    ("-Infinity literal", "-Infinity"),
    ("true", "true"),
    ("null", "null"),
    ("list", "[1]"),
    ("object", '{"n": 1}'),
    ("empty list", "[]"),
    ("list nested 150 deep", "[" * 150 + "1" + "]" * 150),
]

#: Option texts that are not numbers (for --box LO,HI and friends).
BAD_NUMBER_TEXTS: list[tuple[str, str]] = [
    (label, json.loads(text)) for label, text in BAD_NUMBERS
    if text.startswith('"') and "," not in json.loads(text) and json.loads(text).strip() != ""
]

_HOLE = '"@@HOLE@@"'


def _with_hole(doc: Any, path: tuple, raw: str) -> str:
    """The JSON text of ``doc`` with the value at ``path`` replaced by the raw JSON text ``raw``."""
    doc = json.loads(json.dumps(doc))
    target = doc
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = "@@HOLE@@"
    return json.dumps(doc).replace(_HOLE, raw)


# --- how each command reads a network or a domain -----------------------------------------------------------

def _network_commands(file: str) -> list[tuple[str, ...]]:
    return [("regions", file, "--box", "-1,1"),
            ("boundary", file, "--box", "-1,1", "--json"),
            ("topology", file, "--box", "-1,1"),
            ("plot", "regions", file, "--box", "-1,1", "-o", "picture.png"),
            ("search", "--claim", "raghu", "--start", file, "--evaluations", "2"),
            ("regions", file, "--box", "-1,1", "--engine", "lp", "--json"),
            ("local", file, "--points", "points.json", "--radius", "1/2")]


def _domain_commands(file: str) -> list[tuple[str, ...]]:
    return [("regions", "net.json", "--domain", file),
            ("boundary", "net.json", "--domain", file, "--json"),
            ("topology", "net.json", "--domain", file),
            ("plot", "adjacency", "net.json", "--domain", file, "-o", "picture.svg"),
            ("search", "--claim", "raghu", "--widths", "2,2", "--domain", file, "--evaluations", "2")]


def _cycle(commands: list[tuple[str, ...]], i: int) -> tuple[str, ...]:
    return commands[i % len(commands)]


def _number_cases() -> Iterator[Case]:
    places = [
        ("weight", ("layers", 0, "weight", 0, 0)),
        ("bias", ("layers", 0, "bias", 1)),
        ("second weight", ("layers", 1, "weight", 0, 2)),
    ]
    i = 0
    for place, path in places:
        for label, raw in BAD_NUMBERS:
            yield Case(f"network {place}: {label}", _cycle(_network_commands("net.json"), i),
                       (("net.json", _with_hole(NET, path, raw)),), ("net.json",), tags=("number",))
            i += 1
    for place, path in (("lower", ("lower", 0)), ("upper", ("upper", 1))):
        for label, raw in BAD_NUMBERS:
            yield Case(f"domain {place}: {label}", _cycle(_domain_commands("dom.json"), i),
                       (("net.json", NET), ("dom.json", _with_hole(DOMAIN, path, raw))), ("dom.json",),
                       tags=("number",))
            i += 1
    leaky = json.loads(json.dumps(NET))
    leaky["layers"][0]["activation"] = {"kind": "leaky_relu", "negative_slope": 0}
    for label, raw in BAD_NUMBERS:
        read_by_the_parser = "literal of" in label or "nested" in label  # refused before any field is read
        yield Case(f"leaky_relu slope: {label}", _cycle(_network_commands("net.json"), i),
                   (("net.json", _with_hole(leaky, ("layers", 0, "activation", "negative_slope"), raw)),),
                   ("net.json",) if read_by_the_parser else ("net.json", "negative_slope"), tags=("number",))
        i += 1
    for label, text in BAD_NUMBER_TEXTS:
        yield Case(f"--box: {label}", ("regions", "net.json", f"--box={text},1"), (("net.json", NET),),
                   ("--box",), tags=("number",))
        yield Case(f"--box upper: {label}", ("boundary", "net.json", f"--box=-1,{text}"), (("net.json", NET),),
                   ("--box",), tags=("number",))
    for label, text in BAD_NUMBER_TEXTS[::3]:
        yield Case(f"sweep --box: {label}", ("sweep", "--widths", "2,2", "--box", f"{text},1", "-o", "t.csv"),
                   (), ("box",), tags=("number",))
        yield Case(f"search --max-abs: {label}", ("search", "--claim", "raghu", "--widths", "1,2",
                                                  "--max-abs", text), (), ("--max-abs",), tags=("number",))
        yield Case(f"plot --window: {label}", ("plot", "arrangement", "arr.json", "--window", f"{text},0,1,1",
                                               "-o", "picture.png"), (("arr.json", ARRANGEMENT),), ("--window",),
                   tags=("number",))


# --- network structure --------------------------------------------------------------------------------------

def _edit(doc: Any, path: tuple, value: Any) -> Any:
    doc = json.loads(json.dumps(doc))
    target = doc
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return doc


_DELETE = object()


def _network_structure_cases() -> Iterator[Case]:
    layer = ("layers", 0)
    edits: list[tuple[str, tuple, Any, str]] = [
        ("format missing", ("format",), _DELETE, "format"),
        ("format wrong", ("format",), "polyregions.network/0", "format"),
        ("format a number", ("format",), 1, "format"),
        ("input_dim missing", ("input_dim",), _DELETE, "input_dim"),
        ("input_dim zero", ("input_dim",), 0, "input_dim"),
        ("input_dim negative", ("input_dim",), -2, "input_dim"),
        ("input_dim text", ("input_dim",), "2", "input_dim"),
        ("input_dim float", ("input_dim",), 2.0, "input_dim"),
        ("input_dim boolean", ("input_dim",), True, "input_dim"),
        ("input_dim null", ("input_dim",), None, "input_dim"),
        ("input_dim huge", ("input_dim",), 10 ** 30, "net.json"),
        ("input_dim list", ("input_dim",), [2], "input_dim"),
        ("layers missing", ("layers",), _DELETE, "layers"),
        ("layers an object", ("layers",), {"0": NET["layers"][0]}, "layers"),
        ("layers text", ("layers",), "relu", "layers"),
        ("layers empty", ("layers",), [], "layers"),
        ("layer a number", ("layers", 0), 1, "layers[0]"),
        ("layer null", ("layers", 0), None, "layers[0]"),
        ("weight missing", layer + ("weight",), _DELETE, "weight"),
        ("bias missing", layer + ("bias",), _DELETE, "bias"),
        ("activation missing", layer + ("activation",), _DELETE, "activation"),
        ("weight text", layer + ("weight",), "1", "weight"),
        ("weight empty", layer + ("weight",), [], "weight"),
        ("weight empty rows", layer + ("weight",), [[], [], []], "weight"),
        ("weight one column", layer + ("weight",), [[1], [0], [1]], "weight"),
        ("weight ragged", layer + ("weight",), [[1, 0], [0], [1, 1]], "weight"),
        ("weight 3-D", layer + ("weight",), [[[1, 0]], [[0, 1]], [[1, 1]]], "weight"),
        ("weight rows of text", layer + ("weight",), ["10", "01", "11"], "weight"),
        ("weight rows of objects", layer + ("weight",), [{"a": 1}, {}, {}], "weight"),
        ("too few rows for the bias", layer + ("weight",), [[1, 0], [0, 1]], "layers[0]"),
        ("bias text", layer + ("bias",), "0", "bias"),
        ("bias short", layer + ("bias",), [0], "bias"),
        ("bias nested", layer + ("bias",), [[0], [0], [0]], "bias"),
        ("bias an object", layer + ("bias",), {"0": 0}, "bias"),
        ("second layer columns", ("layers", 1, "weight"), [[1, -1]], "layers[1]"),
        ("activation unknown", layer + ("activation",), "tanh", "activation"),
        ("activation empty", layer + ("activation",), "", "activation"),
        ("activation a number", layer + ("activation",), 3, "activation"),
        ("activation null", layer + ("activation",), None, "activation"),
        ("activation a list", layer + ("activation",), ["relu"], "activation"),
        ("activation upper case", layer + ("activation",), "ReLU", "activation"),
        ("activation kind a list", layer + ("activation",), {"kind": ["relu"]}, "activation"),
        ("activation kind an object", layer + ("activation",), {"kind": {"relu": 1}}, "activation"),
        ("activation kind missing", layer + ("activation",), {"negative_slope": 1}, "activation"),
        ("activation kind unknown", layer + ("activation",), {"kind": "softplus"}, "activation"),
        ("leaky_relu without slope", layer + ("activation",), {"kind": "leaky_relu"}, "negative_slope"),
        ("leaky_relu slope 1", layer + ("activation",), {"kind": "leaky_relu", "negative_slope": 1}, "negative_slope"),
        ("piecewise_linear empty breakpoints", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": [], "slopes": [2], "offset": 3}, "breakpoints"),
        ("piecewise_linear identity without breakpoints", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": [], "slopes": [1], "offset": 0}, "breakpoints"),
        ("piecewise_linear decreasing", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": [1, 0], "slopes": [0, 1, 0], "offset": 0}, "breakpoints"),
        ("piecewise_linear equal slopes", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": [0, 1], "slopes": [0, 1, 1], "offset": 0}, "slopes"),
        ("piecewise_linear too few slopes", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": [0, 1], "slopes": [0, 1], "offset": 0}, "slopes"),
        ("piecewise_linear without offset", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": [0], "slopes": [0, 1]}, "offset"),
        ("piecewise_linear breakpoints text", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": "0", "slopes": [0, 1], "offset": 0}, "breakpoints"),
        ("piecewise_linear slopes null", layer + ("activation",),
         {"kind": "piecewise_linear", "breakpoints": [0], "slopes": None, "offset": 0}, "slopes"),
    ]
    for i, (label, path, value, field_) in enumerate(edits):
        yield Case(f"network: {label}", _cycle(_network_commands("net.json"), i),
                   (("net.json", _edit(NET, path, value)),), ("net.json", field_), tags=("structure",))
    for i, (label, doc) in enumerate([("a list", [NET]), ("a number", 3), ("a string", "net"), ("null", None),
                                       ("an empty object", {})]):
        yield Case(f"network is {label}", _cycle(_network_commands("net.json"), i), (("net.json", doc),),
                   ("net.json",), tags=("structure",))
    wide = {"format": "polyregions.network/1", "input_dim": 5000,
            "layers": [{"weight": [[1] * 5000], "bias": [0], "activation": "relu"}]}
    for command in (("regions", "wide.json", "--box", "0,1"), ("boundary", "wide.json", "--box", "0,1"),
                    ("regions", "wide.json", "--domain", "space.json")):
        yield Case(f"network of 5000 inputs: {' '.join(command[0:1] + command[2:])}", command,
                   (("wide.json", wide), ("space.json", {"type": "space"})), (command[-1].replace("0,1", "--box"),),
                   tags=("structure",))


# --- JSON text, encodings, nesting --------------------------------------------------------------------------

def _json_text_cases() -> Iterator[Case]:
    valid = json.dumps(NET)
    texts: list[tuple[str, Any]] = [
        ("empty file", b""),
        ("white space only", b" \n\t "),
        ("open brace", b"{"),
        ("open bracket", b"["),
        ("truncated after 10 bytes", valid[:10].encode()),
        ("truncated in the middle", valid[:len(valid) // 2].encode()),
        ("truncated before the end", valid[:-1].encode()),
        ("trailing garbage", (valid + " x").encode()),
        ("two documents", (valid + valid).encode()),
        ("byte order mark", b"\xef\xbb\xbf" + valid.encode()),
        ("UTF-16", valid.encode("utf-16")),
        ("latin-1 byte", valid.replace('"relu"', '"rel\xe9"').encode("latin-1")),
        ("NUL bytes", b"\x00" * 64),
        ("random bytes", bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8))),
        ("comment", ("// a network\n" + valid).encode()),
        ("single quotes", valid.replace('"', "'").encode()),
        ("unquoted keys", valid.replace('"format"', "format").encode()),
        ("arrays nested 100000 deep", b"[" * 100_000 + b"]" * 100_000),
        ("objects nested 5000 deep", b'{"a":' * 5000 + b"1" + b"}" * 5000),
        ("arrays nested 500 deep", b"[" * 500 + b"]" * 500),
        ("weight nested 200 deep", _with_hole(NET, ("layers", 0, "weight"), "[" * 200 + "]" * 200).encode()),
        ("layers nested 101 deep", _with_hole(NET, ("layers",), "[" * 101 + "]" * 101).encode()),
        ("lone surrogate escape", valid.replace('"relu"', '"\\ud800"').encode()),
        ("control character in a string", valid.replace('"relu"', '"re\x01lu"').encode()),
    ]
    for i, (label, content) in enumerate(texts):
        yield Case(f"network JSON: {label}", _cycle(_network_commands("net.json"), i), (("net.json", content),),
                   ("net.json",), tags=("json",))
    for i, (label, content) in enumerate(texts[::2]):
        yield Case(f"domain JSON: {label}", _cycle(_domain_commands("dom.json"), i),
                   (("net.json", NET), ("dom.json", content)), ("dom.json",), tags=("json",))


# --- files that are not regular, or too large ---------------------------------------------------------------

def _file_kind_cases() -> Iterator[Case]:
    # (label, name, content, heavy): a heavy file, if it were read, would exhaust memory: it runs only in a
    # process under the memory limit, once per reader. A FIFO would block: the in-process runs have an alarm.
    kinds: list[tuple[str, str, Any, bool]] = [
        ("missing file", "missing.json", None, False),
        ("directory", "folder.json", Directory(), False),
        ("FIFO", "pipe.json", Fifo(), False),
        ("/dev/zero", "/dev/zero", None, True),
        ("/dev/null", "/dev/null", None, False),
        ("symbolic link to /dev/zero", "zero.json", Symlink("/dev/zero"), True),
        ("dangling symbolic link", "dangling.json", Symlink("nowhere.json"), False),
        ("sparse file of 2 GiB", "big.json", Sparse(2 << 30), True),
        ("sparse file of 1 GiB + 1 byte", "big1.json", Sparse((1 << 30) + 1), True),
        ("empty path", "", None, False),
    ]
    for i, (label, name, content, heavy) in enumerate(kinds):
        files = ((name, content),) if content is not None else ()
        shown = (name,) if name else ("path",)
        for j, command in enumerate(_network_commands(name)[:1 if heavy else 4]):
            yield Case(f"network {label} ({command[0]} {j})", command, files, shown, heavy=heavy, tags=("file",))
        yield Case(f"domain {label}", _cycle(_domain_commands(name), i), (("net.json", NET),) + files, shown,
                   heavy=heavy, tags=("file",))
        if name and not name.startswith("/"):
            npz_files = tuple((n + ".npz", c) for n, c in files)
            yield Case(f"network .npz {label}", ("regions", name + ".npz", "--box", "-1,1"), npz_files,
                       (name + ".npz",), heavy=heavy, tags=("file",))


# --- .npz archives ------------------------------------------------------------------------------------------

def _npz_cases() -> Iterator[Case]:
    W0, b0 = np.array([[1.0], [1.0]]), np.array([0.0, -0.5])
    W1, b1 = np.array([[2.0, -4.0]]), np.array([0.0])
    archives: list[tuple[str, Any, str]] = [
        ("string weights", _npz(W0=np.array([["1"], ["1"]]), b0=b0, W1=W1, b1=b1), "W0"),
        ("string biases", _npz(W0=W0, b0=np.array(["0", "-1/2"]), W1=W1, b1=b1), "b0"),
        ("bytes weights", _npz(W0=np.array([[b"1"], [b"1"]]), b0=b0, W1=W1, b1=b1), "W0"),
        ("boolean weights", _npz(W0=np.array([[True], [True]]), b0=b0, W1=W1, b1=b1), "W0"),
        ("complex weights", _npz(W0=W0 + 1j, b0=b0, W1=W1, b1=b1), "W0"),
        ("object weights (pickle)", _npz(W0=np.array([[1], [1]], dtype=object), b0=b0, W1=W1, b1=b1), "net.npz"),
        ("NaN weight", _npz(W0=np.array([[np.nan], [1.0]]), b0=b0, W1=W1, b1=b1), "W0"),
        ("infinite bias", _npz(W0=W0, b0=np.array([np.inf, 0.0]), W1=W1, b1=b1), "b0"),
        ("extra array", _npz(W0=W0, b0=b0, W1=W1, b1=b1, W0x=W0), "W0x"),
        ("missing b0", _npz(W0=W0, W1=W1, b1=b1), "b0"),
        ("missing W1", _npz(W0=W0, b0=b0, b1=b1), "b1"),
        ("no arrays", _npz(), "W0"),
        ("3-D weights", _npz(W0=W0[None], b0=b0, W1=W1, b1=b1), "W0"),
        ("2-D bias", _npz(W0=W0, b0=b0[None], W1=W1, b1=b1), "b0"),
        ("bias too long", _npz(W0=W0, b0=np.zeros(3), W1=W1, b1=b1), "b0"),
        ("layers that do not fit", _npz(W0=W0, b0=b0, W1=np.ones((1, 3)), b1=b1), "W1"),
        ("activations of integers", _npz(W0=W0, b0=b0, W1=W1, b1=b1, activations=np.array([1, 2])),
         "activations"),
        ("activations too few", _npz(W0=W0, b0=b0, W1=W1, b1=b1, activations=np.array(["relu"])), "activations"),
        ("activation unknown", _npz(W0=W0, b0=b0, W1=W1, b1=b1, activations=np.array(["relu", "tanh"])),
         "activations[1]"),
        ("activation broken JSON", _npz(W0=W0, b0=b0, W1=W1, b1=b1, activations=np.array(["{", "linear"])),
         "activations[0]"),
        ("activation JSON nested 5000 deep",
         _npz(W0=W0, b0=b0, W1=W1, b1=b1, activations=np.array(['{"kind":' + "[" * 5000 + "]" * 5000 + "}",
                                                                 "linear"])), "activations[0]"),
        ("activation empty breakpoints",
         _npz(W0=W0, b0=b0, W1=W1, b1=b1,
              activations=np.array(['{"kind": "piecewise_linear", "breakpoints": [], "slopes": [2], "offset": 0}',
                                    "linear"])), "activations[0]"),
        ("not a zip archive", b"this is not an archive", "net.npz"),
        ("empty file", b"", "net.npz"),
        ("truncated archive", _npz_bytes(W0=W0, b0=b0, W1=W1, b1=b1)[:200], "net.npz"),
        ("JSON network named .npz", json.dumps(SAW).encode(), "net.npz"),
        ("a single .npy array", b"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (2,), }"
         + b" " * 50 + b"\n" + b"\x00" * 16, "net.npz"),
    ]
    commands = [("regions", "net.npz", "--box", "0,1"), ("boundary", "net.npz", "--box", "0,1"),
                ("plot", "graph", "net.npz", "--box", "0,1", "-o", "picture.png"),
                ("search", "--claim", "raghu", "--start", "net.npz", "--box", "0,1", "--evaluations", "2")]
    for i, (label, content, field_) in enumerate(archives):
        yield Case(f"npz: {label}", _cycle(commands, i), (("net.npz", content),), ("net.npz", field_),
                   tags=("npz",))


# --- domain structure ---------------------------------------------------------------------------------------

def _domain_structure_cases() -> Iterator[Case]:
    domains: list[tuple[str, Any, str]] = [
        ("type missing", {"lower": [0, 0], "upper": [1, 1]}, "type"),
        ("type unknown", {"type": "ball", "centre": [0, 0]}, "type"),
        ("type a list", {"type": ["box"], "lower": [0, 0], "upper": [1, 1]}, "type"),
        ("type null", {"type": None}, "type"),
        ("a list", [DOMAIN], "dom.json"),
        ("box without lower", {"type": "box", "upper": [1, 1]}, "lower"),
        ("box lower text", {"type": "box", "lower": "0,0", "upper": [1, 1]}, "lower"),
        ("box lower short", {"type": "box", "lower": [0], "upper": [1, 1]}, "lower"),
        ("box bounds empty", {"type": "box", "lower": [], "upper": []}, "lower"),
        ("box empty", {"type": "box", "lower": [0, 0], "upper": [1, -1]}, "upper"),
        ("box flat", {"type": "box", "lower": [0, 0], "upper": [1, 0]}, "upper"),
        ("box in three dimensions", {"type": "box", "lower": [0, 0, 0], "upper": [1, 1, 1]}, "lower"),
        ("polytope without A", {"type": "polytope", "b": [1]}, "A"),
        ("polytope A text", {"type": "polytope", "A": "1 0", "b": [1]}, "A"),
        ("polytope ragged A", {"type": "polytope", "A": [[1, 0], [1]], "b": [1, 1]}, "A"),
        ("polytope b short", {"type": "polytope", "A": [[1, 0], [0, 1]], "b": [1]}, "b"),
        ("polytope empty", {"type": "polytope", "A": [[1, 0], [-1, 0]], "b": [-1, -1]}, "A, b"),
        ("polytope flat", {"type": "polytope", "A": [[1, 0], [-1, 0]], "b": [0, 0]}, "A, b"),
        ("polytope zero row", {"type": "polytope", "A": [[0, 0]], "b": [-1]}, "A[0]"),
        ("polytope wrong width", {"type": "polytope", "A": [[1, 0, 0]], "b": [1]}, "A"),
        ("segment of one point", {"type": "segment", "start": [0, 0], "end": [0, 0]}, "end"),
        ("segment start short", {"type": "segment", "start": [0], "end": [1, 1]}, "start"),
        ("segment without end", {"type": "segment", "start": [0, 0]}, "end"),
        ("slice dependent directions", {"type": "slice", "origin": [0, 0], "directions": [[1, 1], [2, 2]],
                                        "lower": [0, 0], "upper": [1, 1]}, "directions"),
        ("slice without directions", {"type": "slice", "origin": [0, 0], "directions": [], "lower": [],
                                      "upper": []}, "directions"),
        ("slice bounds short", {"type": "slice", "origin": [0, 0], "directions": [[1, 0]], "lower": [0, 0],
                                "upper": [1]}, "lower"),
        ("slice direction short", {"type": "slice", "origin": [0, 0], "directions": [[1]], "lower": [0],
                                   "upper": [1]}, "directions"),
        ("slice origin an object", {"type": "slice", "origin": {"x": 0}, "directions": [[1, 0]], "lower": [0],
                                    "upper": [1]}, "origin"),
    ]
    for i, (label, doc, field_) in enumerate(domains):
        yield Case(f"domain: {label}", _cycle(_domain_commands("dom.json"), i),
                   (("net.json", NET), ("dom.json", doc)), ("dom.json", field_), tags=("structure",))
    unbounded = [("space", {"type": "space"}), ("half-plane", {"type": "polytope", "A": [[1, 0]], "b": [0]})]
    for label, doc in unbounded:  # volumes and Betti numbers need a bounded domain
        for command in (("boundary", "net.json", "--domain", "dom.json"),
                        ("topology", "net.json", "--domain", "dom.json")):
            yield Case(f"domain {label} for {command[0]}", command, (("net.json", NET), ("dom.json", doc)),
                       ("dom.json",), tags=("structure",))


# --- options ------------------------------------------------------------------------------------------------

_BAD_INTEGERS = [("arabic-indic", "\u0663"), ("fullwidth", "\uff13"), ("underscore", "1_0"), ("decimal", "1.5"),
                 ("empty", ""), ("blank", " "), ("letters", "abc"), ("exponent", "1e3"), ("hexadecimal", "0x3"),
                 ("em space", "\u20033"), ("10001 digits", "9" * 10001)]


def _option_cases() -> Iterator[Case]:
    net = (("net.json", NET),)
    saw = (("saw.json", SAW),)
    regions = ("regions", "net.json", "--box", "-1,1")
    for label, text in _BAD_INTEGERS + [("zero", "0"), ("negative", "-1")]:
        yield Case(f"regions --workers {label}", regions + ("--workers", text), net, ("--workers",),
                   tags=("option",))
    for label, text in _BAD_INTEGERS + [("negative", "-1")]:
        yield Case(f"sweep --workers {label}", ("sweep", "--widths", "2,2", "--workers", text, "-o", "t.csv"), (),
                   ("--workers",), tags=("option",))
    for label, text in _BAD_INTEGERS + [("zero", "0"), ("negative", "-5"), ("1201", "1201"), ("huge", "100000")]:
        yield Case(f"plot --dpi {label}", ("plot", "graph", "saw.json", "--box", "0,1", "-o", "picture.png",
                                           "--dpi", text), saw, ("--dpi",), tags=("option",))
    for label, text in _BAD_INTEGERS + [("negative", "-1")]:
        yield Case(f"plot --output-index {label}", ("plot", "graph", "saw.json", "--box", "0,1", "-o",
                                                    "picture.png", "--output-index", text), saw,
                   ("--output-index",), tags=("option",))
    yield Case("plot --output-index out of range", ("plot", "graph", "saw.json", "--box", "0,1", "-o",
                                                   "picture.png", "--output-index", "5"), saw, ("output",),
               tags=("option",))
    for label, text in [("no comma", "1"), ("three parts", "-1,0,1"), ("empty", ""), ("comma only", ","),
                        ("letters", "a,b"), ("reversed", "1,-1"), ("equal", "0,0"), ("spaces", " , "),
                        ("semicolon", "-1;1"), ("arabic-indic", "\u0661,\u0662")]:
        yield Case(f"regions --box {label}", ("regions", "net.json", f"--box={text}"), net, ("--box",),
                   tags=("option",))
    usage = [
        ("no command", (), "usage"),
        ("unknown command", ("frobnicate",), "frobnicate"),
        ("unknown option", ("--frobnicate", "demo"), "frobnicate"),
        ("regions without a network", ("regions", "--box", "-1,1"), "NETWORK"),
        ("regions without a domain", ("regions", "net.json"), "--box"),
        ("regions with both domains", ("regions", "net.json", "--box", "-1,1", "--domain", "dom.json"), "--domain"),
        ("regions unknown engine", ("regions", "net.json", "--box", "-1,1", "--engine", "fast"), "--engine"),
        ("regions unknown option", ("regions", "net.json", "--box", "-1,1", "--fast"), "--fast"),
        ("regions export to a missing folder", ("regions", "net.json", "--box", "-1,1", "--export",
                                                "missing/out.json"), "--export"),
        ("regions export to a folder", ("regions", "net.json", "--box", "-1,1", "--export", "."), "--export"),
        ("regions graphml to a missing folder", ("regions", "net.json", "--box", "-1,1", "--graphml",
                                                 "missing/g.graphml"), "--graphml"),
        ("boundary unknown engine", ("boundary", "net.json", "--box", "-1,1", "--engine", "exact"), "--engine"),
        ("topology unknown field", ("topology", "net.json", "--box", "-1,1", "--field", "GF3"), "--field"),
        ("demo with an argument", ("demo", "extra"), "extra"),
        ("demo unknown option", ("demo", "--fast"), "--fast"),
        ("demo --json with a value", ("demo", "--json=yes"), "--json"),
        ("plot without a kind", ("plot",), "KIND"),
        ("plot unknown kind", ("plot", "surface", "net.json"), "surface"),
        ("plot without output", ("plot", "regions", "net.json", "--box", "-1,1"), "--output"),
        ("plot to a missing folder", ("plot", "regions", "net.json", "--box", "-1,1", "-o", "missing/p.png"),
         "--output"),
        ("plot to an unknown format", ("plot", "regions", "net.json", "--box", "-1,1", "-o", "picture.xyz"),
         "--output"),
        ("plot to a folder", ("plot", "regions", "net.json", "--box", "-1,1", "-o", "."), "--output"),
        ("plot unknown colouring", ("plot", "regions", "net.json", "--box", "-1,1", "-o", "p.png", "--color-by",
                                    "rainbow"), "--color-by"),
        ("plot graph of a 2-D network", ("plot", "graph", "net.json", "--box", "-1,1", "-o", "p.png"), "plot graph"),
        ("plot regions of a 1-D network", ("plot", "regions", "saw.json", "--box", "0,1", "-o", "p.png"),
         "plot regions"),
        ("plot layers of a 1-D network", ("plot", "layers", "saw.json", "--box", "0,1", "-o", "p.png"),
         "plot layers"),
        ("plot arrangement without a file", ("plot", "arrangement", "-o", "p.png"), "FILE"),
        ("plot poset with a file and a name", ("plot", "poset", "arr.json", "--name", "braid:3", "-o", "p.png"),
         "FILE"),
        ("plot arrangement window of three numbers", ("plot", "arrangement", "arr.json", "--window", "0,0,1",
                                                      "-o", "p.png"), "--window"),
        ("plot arrangement empty window", ("plot", "arrangement", "arr.json", "--window=1,1,0,0", "-o", "p.png"),
         "--window"),
    ]
    files = net + saw + (("arr.json", ARRANGEMENT), ("dom.json", DOMAIN))
    for label, argv, shown in usage:
        yield Case(f"usage: {label}", argv, files, (shown,), tags=("option",))
    yield from _sweep_cases()
    yield from _search_cases()


def _sweep_cases() -> Iterator[Case]:
    sweep = ("sweep", "-o", "t.csv")
    bad: list[tuple[str, tuple[str, ...], str]] = [
        ("no widths", (), "--widths"),
        ("no output", ("--widths", "2,2"), "--output"),
        ("widths empty", ("--widths", ""), "--widths"),
        ("widths one number", ("--widths", "2"), "--widths"),
        ("widths letters", ("--widths", "a,b"), "--widths"),
        ("widths zero width", ("--widths", "2,0"), "--widths"),
        ("widths zero input", ("--widths", "0,2"), "--widths"),
        ("widths negative", ("--widths", "2,-1"), "--widths"),
        ("widths double comma", ("--widths", "2,,3"), "--widths"),
        ("widths arabic-indic", ("--widths", "\u0662,\u0663"), "--widths"),
        ("widths fullwidth", ("--widths", "\uff12,\uff13"), "--widths"),
        ("widths decimal", ("--widths", "2,2.5"), "--widths"),
        ("widths too many parameters", ("--widths", "2,100000000"), "--widths"),
        ("widths of 10001 digits", ("--widths", "2," + "9" * 10001), "--widths"),
        ("seeds empty", ("--widths", "2,2", "--seeds", ""), "seeds"),
        ("seeds letters", ("--widths", "2,2", "--seeds", "a"), "seeds"),
        ("seeds reversed", ("--widths", "2,2", "--seeds", "5-3"), "seeds"),
        ("seeds negative", ("--widths", "2,2", "--seeds=-1"), "seeds"),
        ("seeds open range", ("--widths", "2,2", "--seeds", "1-"), "seeds"),
        ("seeds dash", ("--widths", "2,2", "--seeds", "-"), "seeds"),
        ("seeds double dash", ("--widths", "2,2", "--seeds", "0--3"), "seeds"),
        ("seeds arabic-indic", ("--widths", "2,2", "--seeds", "\u0663"), "seeds"),
        ("seeds ten billion", ("--widths", "2,2", "--seeds", "0-10000000000"), "seeds"),
        ("seeds of 10001 digits", ("--widths", "2,2", "--seeds", "0-" + "9" * 10001), "seeds"),
        ("seeds too many in all", ("--widths", "2,2", "--seeds", "0-60000,100000-160000"), "seeds"),
        ("too many networks", ("--widths", "2,2", "--widths", "2,3", "--seeds", "0-59999"), "networks"),
        ("init unknown", ("--widths", "2,2", "--init", "xavier"), "init"),
        ("init empty", ("--widths", "2,2", "--init", ","), "init"),
        ("activation unknown", ("--widths", "2,2", "--activation", "tanh"), "activation"),
        ("activation slope 1", ("--widths", "2,2", "--activation", "leaky_relu:1"), "activation"),
        ("activation slope letters", ("--widths", "2,2", "--activation", "leaky_relu:x"), "activation"),
        ("activation slope 1/0", ("--widths", "2,2", "--activation", "leaky_relu:1/0"), "activation"),
        ("activation slope arabic-indic", ("--widths", "2,2", "--activation", "leaky_relu:\u0661/\u0662"),
         "activation"),
        ("activation relu with a slope", ("--widths", "2,2", "--activation", "relu:2"), "activation"),
        ("box one number", ("--widths", "2,2", "--box", "1"), "--box"),
        ("box reversed", ("--widths", "2,2", "--box", "1,-1"), "box"),
        ("engine unknown", ("--widths", "2,2", "--engine", "fast"), "--engine"),
    ]
    for label, extra, shown in bad:
        argv = sweep + extra if label != "no output" else ("sweep",) + extra
        yield Case(f"sweep: {label}", argv, (), (shown,), tags=("option",))
    for label, output, files in [("output in a missing folder", "missing/t.csv", ()),
                                 ("output a folder", "folder", (("folder", Directory()),))]:
        yield Case(f"sweep: {label}", ("sweep", "--widths", "2,2", "-o", output), files, ("--output",),
                   tags=("option",))


def _search_cases() -> Iterator[Case]:
    search = ("search", "--claim", "raghu", "--evaluations", "2")
    bad: list[tuple[str, tuple[str, ...], str]] = [
        ("no claim", ("search", "--widths", "1,2"), "--claim"),
        ("claim unknown", ("search", "--claim", "regions <= 3", "--widths", "1,2"), "claim"),
        ("claim empty", ("search", "--claim", "", "--widths", "1,2"), "--claim"),
        ("claim module missing", ("search", "--claim", "no_such_module_xyz:claim", "--widths", "1,2"), "claim"),
        ("claim file missing", ("search", "--claim", "missing.py", "--widths", "1,2"), "claim"),
        ("claim function missing", ("search", "--claim", "polyregions.experiments.claims:nothing", "--widths",
                                    "1,2"), "claim"),
        ("no widths", search, "--widths"),
        ("widths and start", search + ("--widths", "1,2", "--start", "saw.json"), "--widths"),
        ("widths one number", search + ("--widths", "1"), "--widths"),
        ("widths zero input", search + ("--widths", "0,2"), "--widths"),
        ("widths letters", search + ("--widths", "a"), "--widths"),
        ("widths arabic-indic", search + ("--widths", "\u0661,\u0662"), "--widths"),
        ("widths too many parameters", search + ("--widths", "1,2000,2000"), "--widths"),
        ("output dim too many parameters", search + ("--widths", "1,2", "--output-dim", "10000000"), "--widths"),
        ("output dim negative", search + ("--widths", "1,2", "--output-dim=-1"), "--output-dim"),
        ("output dim arabic-indic", search + ("--widths", "1,2", "--output-dim", "\u0661"), "--output-dim"),
        ("seed negative", search + ("--widths", "1,2", "--seed=-1"), "--seed"),
        ("seed letters", search + ("--widths", "1,2", "--seed", "x"), "--seed"),
        ("seed arabic-indic", search + ("--widths", "1,2", "--seed", "\u0663"), "--seed"),
        ("evaluations zero", ("search", "--claim", "raghu", "--widths", "1,2", "--evaluations", "0"),
         "--evaluations"),
        ("evaluations fullwidth", ("search", "--claim", "raghu", "--widths", "1,2", "--evaluations",
                                   "\uff15"), "--evaluations"),
        ("patience zero", search + ("--widths", "1,2", "--patience", "0"), "--patience"),
        ("shrink negative", search + ("--widths", "1,2", "--shrink=-1"), "--shrink"),
        ("max-abs zero", search + ("--widths", "1,2", "--max-abs", "0"), "--max-abs"),
        ("max-abs negative", search + ("--widths", "1,2", "--max-abs=-2"), "--max-abs"),
        ("max-abs letters", search + ("--widths", "1,2", "--max-abs", "two"), "--max-abs"),
        ("max-abs huge", search + ("--widths", "1,2", "--max-abs", "1e4000"), "--max-abs"),
        ("max-abs a million", search + ("--widths", "1,2", "--max-abs", "1000000"), "--max-abs"),
        ("denominators zero", search + ("--widths", "1,2", "--denominators", "0"), "--denominators"),
        ("denominators negative", search + ("--widths", "1,2", "--denominators=-1,2"), "--denominators"),
        ("denominators empty", search + ("--widths", "1,2", "--denominators", ""), "--denominators"),
        ("denominators decimal", search + ("--widths", "1,2", "--denominators", "1,1.5"), "--denominators"),
        ("denominators a million", search + ("--widths", "1,2", "--denominators", "1000000"), "--denominators"),
        ("denominators of 10001 digits", search + ("--widths", "1,2", "--denominators", "9" * 10001),
         "--denominators"),
        ("denominators arabic-indic", search + ("--widths", "1,2", "--denominators", "\u0661,\u0662"),
         "--denominators"),
        ("activation unknown", search + ("--widths", "1,2", "--activation", "tanh"), "activation"),
        ("activation linear", search + ("--widths", "1,2", "--activation", "linear"), "activation"),
        ("box reversed", search + ("--widths", "1,2", "--box", "1,-1"), "--box"),
        ("box and domain", search + ("--widths", "1,2", "--box", "0,1", "--domain", "dom.json"), "--domain"),
        ("domain of another dimension", search + ("--widths", "1,2", "--domain", "dom.json"), "dom.json"),
        ("output in a missing folder", search + ("--widths", "1,2", "-o", "missing/cert.json"), "--output"),
        ("engine unknown", search + ("--widths", "1,2", "--engine", "fast"), "--engine"),
        ("start of a linear network", search + ("--start", "linear.json"), "start"),
    ]
    linear = {"format": "polyregions.network/1", "input_dim": 1,
              "layers": [{"weight": [[1]], "bias": [0], "activation": "linear"}]}
    files = (("saw.json", SAW), ("dom.json", DOMAIN), ("linear.json", linear))
    for label, argv, shown in bad:
        yield Case(f"search: {label}", argv, files, (shown,), tags=("option",))


# --- arrangements -------------------------------------------------------------------------------------------

def _arrangement_cases() -> Iterator[Case]:
    commands = [("arrangement", "arr.json"), ("arrangement", "arr.json", "--json"),
                ("plot", "arrangement", "arr.json", "-o", "p.png"), ("plot", "poset", "arr.json", "-o", "p.svg")]
    docs: list[tuple[str, Any, str]] = [
        ("format missing", _edit(ARRANGEMENT, ("format",), _DELETE), "format"),
        ("format wrong", _edit(ARRANGEMENT, ("format",), "polyregions.network/1"), "format"),
        ("dimension missing with no hyperplanes",
         _edit(_edit(ARRANGEMENT, ("dimension",), _DELETE), ("hyperplanes",), []), "dimension"),
        ("dimension text", _edit(ARRANGEMENT, ("dimension",), "2"), "dimension"),
        ("dimension negative", _edit(ARRANGEMENT, ("dimension",), -1), "dimension"),
        ("dimension boolean", _edit(ARRANGEMENT, ("dimension",), True), "dimension"),
        ("dimension wrong", _edit(ARRANGEMENT, ("dimension",), 3), "arr.json"),
        ("hyperplanes missing", _edit(ARRANGEMENT, ("hyperplanes",), _DELETE), "hyperplanes"),
        ("hyperplanes an object", _edit(ARRANGEMENT, ("hyperplanes",), {"a": 1}), "hyperplanes"),
        ("zero row", _edit(ARRANGEMENT, ("hyperplanes", 0), [0, 0, 1]), "arr.json"),
        ("ragged row", _edit(ARRANGEMENT, ("hyperplanes", 0), [1, 0]), "arr.json"),
        ("a list", [ARRANGEMENT], "arr.json"),
        ("arabic-indic entry", _edit(ARRANGEMENT, ("hyperplanes", 0, 0), "\u0661"), "arr.json"),
        ("entry of 10001 digits", _edit(ARRANGEMENT, ("hyperplanes", 0, 0), "1" * 10001), "arr.json"),
        ("entry 1e-400000000", _edit(ARRANGEMENT, ("hyperplanes", 0, 0), "1e-400000000"), "arr.json"),
        ("NaN entry", _with_hole(ARRANGEMENT, ("hyperplanes", 0, 0), "NaN"), "arr.json"),
        ("integer literal of 10001 digits", _with_hole(ARRANGEMENT, ("hyperplanes", 0, 0), "7" * 10001),
         "arr.json"),
        ("nested 100000 deep", b"[" * 100_000 + b"]" * 100_000, "arr.json"),
        ("not JSON", b"{", "arr.json"),
        ("not UTF-8", b"\xff\xfe\x00", "arr.json"),
    ]
    for i, (label, doc, shown) in enumerate(docs):
        yield Case(f"arrangement file: {label}", _cycle(commands, i), (("arr.json", doc),), (shown,),
                   tags=("arrangement",))
    # (label, name, content, heavy): a heavy file or name would exhaust memory if it were read or built, so it
    # runs only in a process under the memory limit.
    files_ = [("directory", "arr.json", Directory(), False),
              ("FIFO", "arr.json", Fifo(), False),
              ("/dev/zero", "/dev/zero", None, True),
              ("sparse 2 GiB", "arr.json", Sparse(2 << 30), True)]
    for label, name, content, heavy in files_:
        files = ((name, content),) if content is not None else ()
        for command in commands[::2][:1 if heavy else 2]:
            command = tuple(name if part == "arr.json" else part for part in command)
            yield Case(f"arrangement file {label} ({command[0]})", command, files, (name,), heavy=heavy,
                       tags=("arrangement",))
    names = [("empty", "", False), ("no size", "braid", False), ("letters", "braid:x", False),
             ("negative", "braid:-1", False), ("unknown", "nope:3", False), ("generic too few", "generic:1", False),
             ("arabic-indic size", "braid:\u0663", False), ("braid of 100000", "braid:100000", True),
             ("generic of a million hyperplanes", "generic:1000000,3", True),
             ("size of 10001 digits", "braid:" + "9" * 10001, True)]
    for label, name, heavy in names:
        commands_ = (("arrangement", "--name", name), ("plot", "poset", "--name", name, "-o", "p.png"))
        for command in commands_[:1 if heavy else 2]:  # an arrangement too large to build: once, in a process
            yield Case(f"arrangement --name {label} ({command[0]})", command, (), ("--name",), heavy=heavy,
                       tags=("arrangement",))
    for command in (("arrangement",), ("arrangement", "arr.json", "--name", "braid:3")):
        yield Case(f"arrangement usage {len(command)}", command, (("arr.json", ARRANGEMENT),), ("FILE",),
                   tags=("arrangement",))


# --- polyregions local: points files and neighbourhoods --------------------------------------------------------

#: Three points of ``NET``'s input space, in every spelling a points file allows.
POINTS = [[0, 0], ["1/2", "-1/3"], [0.25, 1]]


def _npy_bytes(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array)  # an object array is pickled: the reader must refuse it
    return buffer.getvalue()


def _local_cases() -> Iterator[Case]:
    local = ("local", "net.json", "--radius", "1/2", "--points")
    # (label, file name, content or None for no file, what the error names besides the file, heavy)
    files: list[tuple[str, str, Any, str, bool]] = [
        ("missing", "points.json", None, "", False),
        ("directory", "points.json", Directory(), "directory", False),
        ("FIFO", "points.json", Fifo(), "FIFO", False),
        ("FIFO .npy", "points.npy", Fifo(), "FIFO", False),
        ("FIFO .npz", "points.npz", Fifo(), "FIFO", False),
        ("dangling symbolic link", "points.json", Symlink("nowhere.json"), "", False),
        ("/dev/null", "/dev/null", None, "", False),
        ("/dev/zero", "/dev/zero", None, "", True),
        ("symbolic link to /dev/zero .npy", "zero.npy", Symlink("/dev/zero"), "", True),
        ("sparse 2 GiB", "points.json", Sparse(2 << 30), "", True),
        ("sparse 2 GiB .npy", "points.npy", Sparse(2 << 30), "", True),
        ("empty file", "points.json", b"", "", False),
        ("white space only", "points.json", b" \n", "", False),
        ("not JSON", "points.json", b"[[0, 0]", "", False),
        ("not UTF-8", "points.json", b"\xff\xfe[\x00[\x000\x00", "", False),
        ("nested 100000 deep", "points.json", b"[" * 100_000 + b"]" * 100_000, "", False),
        ("an object", "points.json", {"points": POINTS}, "dict", False),
        ("a number", "points.json", 3, "int", False),
        ("empty list", "points.json", [], "points", False),
        ("a point of three numbers", "points.json", POINTS + [[0, 0, 0]], "points[3]", False),
        ("a point of one number", "points.json", [[0]], "points[0]", False),
        ("a flat list", "points.json", [0, 0], "points[0]", False),
        ("a point that is text", "points.json", ["0,0"], "points[0]", False),
        ("NaN literal", "points.json", "[[0, 0], [NaN, 1]]", "points[1][0]", False),
        ("Infinity literal", "points.json", "[[0, -Infinity]]", "points[0][1]", False),
        ("float literal 1e400", "points.json", "[[1e400, 0]]", "points[0][0]", False),
        ("null entry", "points.json", [[None, 0]], "points[0][0]", False),
        ("boolean entry", "points.json", [[True, 0]], "points[0][0]", False),
        ("arabic-indic entry", "points.json", [["\u0661", 0]], "points[0][0]", False),
        ("em space entry", "points.json", [["\u2003 1", 0]], "points[0][0]", False),
        ("entry 1/0", "points.json", [[0, "1/0"]], "points[0][1]", False),
        ("entry of 10001 digits", "points.json", [["1" * 10001, 0]], "points[0][0]", False),
        ("entry exponent 1e-400000000", "points.json", [["1e-400000000", 0]], "points[0][0]", False),
        ("integer literal of 10001 digits", "points.json", "[[" + "7" * 10001 + ", 0]]", "", False),
        (".npy of three columns", "points.npy", _npy_bytes(np.zeros((2, 3))), "(2, 3)", False),
        (".npy of one dimension", "points.npy", _npy_bytes(np.zeros(2)), "(2,)", False),
        (".npy NaN", "points.npy", _npy_bytes(np.array([[0.0, np.nan]])), "NaN", False),
        (".npy infinity", "points.npy", _npy_bytes(np.array([[np.inf, 0.0]], dtype=np.float32)), "NaN", False),
        (".npy empty", "points.npy", _npy_bytes(np.zeros((0, 2))), "points", False),
        (".npy strings", "points.npy", _npy_bytes(np.array([["0", "1"]])), "dtype", False),
        (".npy complex", "points.npy", _npy_bytes(np.zeros((1, 2)) + 1j), "dtype", False),
        (".npy booleans", "points.npy", _npy_bytes(np.ones((1, 2), dtype=bool)), "dtype", False),
        (".npy of objects (pickle)", "points.npy", _npy_bytes(np.array([[0, 1]], dtype=object)), "", False),
        (".npy not an array", "points.npy", b"not an array", "", False),
        (".npy truncated", "points.npy", _npy_bytes(np.zeros((100, 2)))[:200], "", False),
        (".npy empty file", "points.npy", b"", "", False),
        (".npy JSON points", "points.npy", json.dumps(POINTS).encode(), "", False),
        (".npz two arrays", "points.npz", _npz(a=np.zeros((1, 2)), b=np.zeros((1, 2))), "points", False),
        (".npz no arrays", "points.npz", _npz(), "points", False),
        (".npz points of three columns", "points.npz", _npz(points=np.zeros((1, 3))), "(1, 3)", False),
        (".npz not a zip archive", "points.npz", b"PK\x03\x04 not a zip archive", "", False),
    ]
    for label, name, content, shown, heavy in files:
        materialised = ((name, content),) if content is not None else ()
        yield Case(f"local --points {label}", local + (name,), (("net.json", NET),) + materialised,
                   (name, shown) if shown else (name,), heavy=heavy, tags=("local",))
    points = (("net.json", NET), ("points.json", POINTS))
    radii = [("negative", "-1/2"), ("zero", "0"), ("zero as a quotient", "0/5"), ("text", "one"), ("empty", ""),
             ("nan", "nan"), ("inf", "inf"), ("division by zero", "1/0"), ("arabic-indic", "\u0661/\u0662"),
             ("fullwidth", "\uff11"), ("10001 digits", "1" * 10001), ("exponent 99999", "1e99999"),
             ("two numbers", "1,2"), ("underscore", "1_0")]
    for label, text in radii:
        yield Case(f"local --radius {label}", ("local", "net.json", "--points", "points.json", f"--radius={text}"),
                   points, ("--radius",), tags=("local",))
    options: list[tuple[str, tuple[str, ...], str]] = [
        ("--norm 3", ("--radius", "1", "--norm", "3"), "--norm"),
        ("--norm l2", ("--radius", "1", "--norm", "l2"), "--norm"),
        ("--norm empty", ("--radius", "1", "--norm", ""), "--norm"),
        ("--norm upper case", ("--radius", "1", "--norm", "INF"), "--norm"),
        ("--norm 2.0", ("--radius", "1", "--norm", "2.0"), "--norm"),
        ("--norm arabic-indic", ("--radius", "1", "--norm", "\u0662"), "--norm"),
        ("--engine unknown", ("--radius", "1", "--engine", "mesh"), "--engine"),
        ("--workers zero", ("--radius", "1", "--workers", "0"), "--workers"),
        ("--workers letters", ("--radius", "1", "--workers", "x"), "--workers"),
        ("--workers arabic-indic", ("--radius", "1", "--workers", "\u0663"), "--workers"),
        ("--workers fullwidth", ("--radius", "1", "--workers", "\uff12"), "--workers"),
        ("--workers of 10001 digits", ("--radius", "1", "--workers", "9" * 10001), "--workers"),
        ("without --radius", (), "--radius"),
        ("--radius without a value", ("--radius",), "--radius"),
        ("unknown option", ("--radius", "1", "--fast"), "--fast"),
    ]
    for label, extra, shown in options:
        yield Case(f"local {label}", ("local", "net.json", "--points", "points.json") + extra, points, (shown,),
                   tags=("local",))
    usage = [("without --points", ("local", "net.json", "--radius", "1"), "--points"),
             ("without a network", ("local", "--points", "points.json", "--radius", "1"), "NETWORK"),
             ("network missing", ("local", "missing.json", "--points", "points.json", "--radius", "1"),
              "missing.json"),
             ("points of another dimension", ("local", "saw.json", "--points", "points.json", "--radius", "1"),
              "points.json")]
    for label, argv, shown in usage:
        yield Case(f"local {label}", argv, points + (("saw.json", SAW),), (shown,), tags=("local",))


# --- polyregions topology: usage, domains and options -----------------------------------------------------------

def _topology_cases() -> Iterator[Case]:
    files = (("net.json", NET), ("saw.json", SAW), ("dom.json", DOMAIN),
             ("cube.json", {"type": "box", "lower": [0, 0, 0], "upper": [1, 1, 1]}),
             ("segment.json", {"type": "segment", "start": [0, 0], "end": [0, 0]}))
    bad: list[tuple[str, tuple[str, ...], str]] = [
        ("without a network", ("topology", "--box", "-1,1"), "NETWORK"),
        ("without a domain", ("topology", "net.json"), "--box"),
        ("with both domains", ("topology", "net.json", "--box", "-1,1", "--domain", "dom.json"), "--domain"),
        ("network missing", ("topology", "missing.json", "--box", "-1,1"), "missing.json"),
        ("domain missing", ("topology", "net.json", "--domain", "missing.json"), "missing.json"),
        ("domain of another dimension", ("topology", "net.json", "--domain", "cube.json"), "cube.json"),
        ("domain of one point", ("topology", "net.json", "--domain", "segment.json"), "segment.json"),
        ("--box reversed", ("topology", "net.json", "--box=1,-1"), "--box"),
        ("--box one number", ("topology", "net.json", "--box", "1"), "--box"),
        ("--box letters", ("topology", "net.json", "--box", "a,b"), "--box"),
        ("--box flat", ("topology", "saw.json", "--box", "0,0"), "--box"),
        ("--box arabic-indic", ("topology", "net.json", "--box", "\u0660,\u0661"), "--box"),
        ("--box NaN", ("topology", "net.json", "--box", "nan,1"), "--box"),
        ("--field lower case", ("topology", "net.json", "--box", "-1,1", "--field", "q"), "--field"),
        ("--field empty", ("topology", "net.json", "--box", "-1,1", "--field", ""), "--field"),
        ("--field GF(2)", ("topology", "net.json", "--box", "-1,1", "--field", "GF(2)"), "--field"),
        ("--engine unknown", ("topology", "net.json", "--box", "-1,1", "--engine", "cells"), "--engine"),
        ("--json with a value", ("topology", "net.json", "--box", "-1,1", "--json=yes"), "--json"),
        ("unknown option", ("topology", "net.json", "--box", "-1,1", "--betti"), "--betti"),
        ("extra argument", ("topology", "net.json", "saw.json", "--box", "-1,1"), "saw.json"),
    ]
    for label, argv, shown in bad:
        yield Case(f"topology {label}", argv, files, (shown,), tags=("topology",))


# --- inputs that must now succeed (they used to fail with a traceback or exhaust memory) --------------------

def _accepted_cases() -> Iterator[Case]:
    big = json.loads(json.dumps(NET))
    big["layers"][0]["weight"][0][0] = "1" * 5000  # beyond Python's 4,300-digit str limit, within MAX_DIGITS
    yield Case("accepted: weight of 5000 digits", ("regions", "net.json", "--box", "-1,1", "--export", "out.json"),
               (("net.json", big),), status=0)
    yield Case("accepted: box bound of 5000 digits", ("regions", "saw.json", "--box", "0," + "9" * 5000, "--json"),
               (("saw.json", SAW),), status=0)
    yield Case("accepted: integer literal of 5000 digits",
               ("regions", "net.json", "--box", "-1,1"), (("net.json", _with_hole(NET, ("layers", 1, "bias", 0),
                                                                               "3" * 5000)),), status=0)
    yield Case("accepted: workers clamped to the cores", ("regions", "net.json", "--box", "-1,1", "--engine", "lp",
                                                          "--workers", "9" * 30), (("net.json", NET),), status=0,
               heavy=True)
    yield Case("accepted: sweep workers clamped", ("sweep", "--widths", "1,2", "--workers", "100000", "-o",
                                                   "t.csv"), (), status=0, heavy=True)


def _all_cases() -> list[Case]:
    cases = [*_number_cases(), *_network_structure_cases(), *_json_text_cases(), *_file_kind_cases(),
             *_npz_cases(), *_domain_structure_cases(), *_option_cases(), *_arrangement_cases(), *_local_cases(),
             *_topology_cases()]
    names = [case.name for case in cases]
    duplicates = {name for name in names if names.count(name) > 1}
    assert not duplicates, duplicates
    return cases


#: Every malformed command line (deterministic, built at import).
CASES: list[Case] = _all_cases()
#: Inputs that must succeed (exit 0), some only within the memory limit.
ACCEPTED: list[Case] = list(_accepted_cases())


def _write_all(directory: str) -> None:
    import shlex

    lines = []
    for i, case in enumerate(CASES + ACCEPTED):
        folder = os.path.join(directory, f"{i:04d}")
        os.makedirs(folder)
        materialize(case, folder)
        lines.append(f"{i:04d}  {case.name}\n      (cd {i:04d} && polyregions {shlex.join(case.argv)[:200]})")
    with open(os.path.join(directory, "cases.txt"), "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    _write_all(sys.argv[1] if len(sys.argv) > 1 else "fuzz-corpus")

