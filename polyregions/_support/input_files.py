"""Reading input files within the limits of :mod:`polyregions._support.limits`: regular files, bounded size and
nesting.

Every reader of a user's file (network, domain, arrangement, ``.npz``) goes through :func:`open_input`, so that
a directory, a FIFO, a socket or a device is refused by name before anything is read (``/dev/zero`` would be
read until memory runs out, a FIFO would block), and a file above
:data:`~polyregions._support.limits.MAX_INPUT_BYTES` is refused by its size. JSON is parsed by :func:`parse_json`:
nesting deeper than :data:`~polyregions._support.limits.MAX_JSON_DEPTH` and integers longer than
:data:`~polyregions._support.limits.MAX_DIGITS` digits are refused with a message naming the file (Python's parser
would recurse until a RecursionError, or refuse 4,301 digits with a traceback).
"""

from __future__ import annotations

import json
import os
import stat
from typing import IO, Any

from polyregions._support.limits import MAX_INPUT_BYTES, MAX_JSON_DEPTH, describe_size, digits_value
from polyregions.errors import InvalidInputError

__all__ = ["input_name", "open_input", "read_input_bytes", "read_input_text", "parse_json", "read_json_file"]

_KINDS = ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"), (stat.S_ISCHR, "a character device"),
          (stat.S_ISBLK, "a block device"), (stat.S_ISSOCK, "a socket"))


def input_name(path: Any, *, what: str) -> str:
    """``path`` as a string, once it is a ``str`` or an ``os.PathLike`` naming a string path."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if not isinstance(path, str):
        text = repr(path)
        raise InvalidInputError(f"{what}: expected a file path (str or os.PathLike), got {type(path).__name__} "
                                f"{text if len(text) <= 60 else text[:57] + '...'}")
    if not path:
        raise InvalidInputError(f"{what}: expected a file path, got an empty string")
    _refuse_special_file(path)
    return path


def _refuse_special_file(name: str) -> None:
    """Refuse an existing path that is not a regular file, by its kind, before anything opens it.

    Every reader names its path through :func:`input_name` first, the readers of other libraries included
    (``onnx.load``, ``torch.load``, ``torch.jit.load``, which would block on a FIFO named ``model.onnx`` or read
    ``/dev/zero`` until memory runs out). ``os.stat`` never blocks; a missing file is left to the reader's own
    message. :func:`open_input` checks again on the open descriptor.
    """
    try:
        info = os.stat(name)
    except (OSError, ValueError):  # missing, unreadable, or a name the system refuses: the reader says which
        return
    for is_kind, kind in _KINDS:
        if is_kind(info.st_mode):
            raise InvalidInputError(f"{name}: expected a regular file, got {kind}")


def open_input(path: Any, *, what: str = "path") -> IO[bytes]:
    """Open an input file for reading in binary, once it is known to be a regular file of a readable size.

    The file is opened without blocking (a FIFO would otherwise wait for a writer) and checked on the open
    descriptor, so what is checked is what is read. ``what`` names the argument when ``path`` is not a path.
    """
    name = input_name(path, what=what)
    try:
        fd = os.open(name, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise InvalidInputError(f"{name}: cannot read the file: {error.strerror or error}") from None
    try:
        info = os.fstat(fd)
        for is_kind, kind in _KINDS:
            if is_kind(info.st_mode):
                raise InvalidInputError(f"{name}: expected a regular file, got {kind}")
        if info.st_size > MAX_INPUT_BYTES:
            raise InvalidInputError(f"{name}: expected a file of at most {describe_size(MAX_INPUT_BYTES)}, got "
                                    f"{describe_size(info.st_size)}")
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_input_bytes(path: Any, *, what: str = "path") -> bytes:
    """The bytes of an input file (:func:`open_input`), at most :data:`MAX_INPUT_BYTES` of them."""
    name = input_name(path, what=what)
    with open_input(name) as handle:
        try:
            size = os.fstat(handle.fileno()).st_size
            chunks = [handle.read(size + 1)]  # read(n) reserves n bytes at once: ask for what the file holds
            total = len(chunks[0])
            while total > size and total <= MAX_INPUT_BYTES:  # a file that grew, or a /proc file (size 0)
                chunk = handle.read(1 << 20)
                if not chunk:
                    break
                chunks.append(chunk)
                total += len(chunk)
        except OSError as error:
            raise InvalidInputError(f"{name}: cannot read the file: {error.strerror or error}") from None
    data = b"".join(chunks) if len(chunks) > 1 else chunks[0]
    if len(data) > MAX_INPUT_BYTES:
        raise InvalidInputError(f"{name}: expected a file of at most {describe_size(MAX_INPUT_BYTES)}, got more")
    return data


def read_input_text(path: Any, *, what: str = "path", kind: str = "JSON") -> str:
    """The UTF-8 text of an input file; ``kind`` names what the file should hold in the error message."""
    name = input_name(path, what=what)
    data = read_input_bytes(name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidInputError(f"{name}: expected a UTF-8 {kind} file, got bytes that are not UTF-8") from None


def _json_integer(text: str, what: str) -> int:
    """A JSON integer (an optional minus sign, then ASCII digits), exactly, within the digit limit."""
    return -digits_value(text[1:], what) if text.startswith("-") else digits_value(text, what)


def parse_json(text: str, *, what: str) -> Any:
    """Parse JSON text; ``what`` (the file name) starts every error message.

    Integers are read exactly up to :data:`MAX_DIGITS` digits (past Python's own limit of 4,300), nesting is
    at most :data:`MAX_JSON_DEPTH` deep; ``NaN`` and ``Infinity`` parse to floats, for the number readers to
    reject by field.
    """
    try:
        value = json.loads(text, parse_int=lambda text: _json_integer(text, what))
    except RecursionError:
        raise InvalidInputError(_too_deep(what)) from None
    except InvalidInputError:
        raise
    except json.JSONDecodeError as error:
        raise InvalidInputError(f"{what}: expected JSON, got a syntax error at line {error.lineno} column "
                                f"{error.colno}: {error.msg}") from None
    except ValueError as error:
        raise InvalidInputError(f"{what}: expected JSON, got {error}") from None
    if _deeper_than(value, MAX_JSON_DEPTH):
        raise InvalidInputError(_too_deep(what))
    return value


def read_json_file(path: Any, *, what: str = "path") -> Any:
    """Read and parse a JSON input file (:func:`read_input_text`, :func:`parse_json`); errors name the file."""
    name = input_name(path, what=what)
    return parse_json(read_input_text(name), what=name)


def _too_deep(what: str) -> str:
    return f"{what}: expected JSON nested at most {MAX_JSON_DEPTH} deep, got deeper nesting"


def _deeper_than(value: Any, limit: int) -> bool:
    """Whether arrays and objects nest more than ``limit`` deep (iteratively: deep values break recursion)."""
    stack = [(value, 1)] if isinstance(value, (list, dict)) else []
    while stack:
        current, depth = stack.pop()
        if depth > limit:
            return True
        children = current.values() if isinstance(current, dict) else current
        stack.extend((child, depth + 1) for child in children if isinstance(child, (list, dict)))
    return False
