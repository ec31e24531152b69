"""A file of the point counts a finite-field count has finished, so that a long count resumes where it stopped.

The finite-field method (:mod:`._finite_field`) counts the points of ``F_q^rank`` off the hyperplanes for a few
primes ``q``, each count independent of the others and, for the resonance arrangement in ``R^8``, a minute or
more. After each prime the whole file is written again, atomically
(:func:`polyregions._support.atomic.atomic_write_text`): an interrupted run leaves the file of the primes it
finished, and the next run with the same file counts only the others. The file (JSON)::

    {"format": "polyregions.point-counts/1",
     "arrangement": {"rank": 8, "hyperplanes": 255, "digest": "<SHA-256 of the essential integer form>"},
     "counts": [{"prime": 67, "points": 5917017063078, "wall_seconds": 16.0, "cpu_seconds": 10.7}, ...]}

A file of another arrangement, or one with a field of the wrong form, is refused with
:class:`~polyregions.errors.InvalidInputError` naming the file and the field; an empty file is a new one.

Examples
--------
>>> import os, tempfile
>>> from polyregions.arrangements._integer_forms import essential_form
>>> form = essential_form(((1, 0, 0), (0, 1, 0), (1, 1, 0)), 2)
>>> path = os.path.join(tempfile.mkdtemp(), "counts.json")
>>> CountCheckpoint(path, form, [2, 3]).record(PrimeCount(3, 2, 0.0, 0.0))
>>> sorted(CountCheckpoint(path, form, [2, 3]).counts)
[3]
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import asdict, dataclass
from typing import Any, Sequence, TypeGuard

from polyregions._support.atomic import atomic_write_text
from polyregions.arrangements._integer_forms import IntegerForm
from polyregions.errors import InvalidInputError

__all__ = ["FORMAT", "PrimeCount", "CountCheckpoint", "arrangement_identity"]

FORMAT = "polyregions.point-counts/1"
#: A checkpoint larger than this is not one this module wrote (a count is a few dozen bytes).
_MAX_BYTES = 1 << 20


@dataclass(frozen=True)
class PrimeCount:
    """The number of points of ``F_prime^rank`` on no hyperplane, and what counting them took."""

    prime: int
    points: int
    wall_seconds: float
    cpu_seconds: float


def arrangement_identity(form: IntegerForm) -> dict[str, Any]:
    """What a checkpoint names its arrangement by: rank, number of hyperplanes, and the SHA-256 of the rows of
    the essential integer form (which fix every count)."""
    text = json.dumps({"rank": form.rank, "rows": [list(row) for row in form.rows]}, separators=(",", ":"))
    return {"rank": form.rank, "hyperplanes": len(form.rows), "digest": hashlib.sha256(text.encode()).hexdigest()}


class CountCheckpoint:
    """The counts of one arrangement's primes in the file at ``path`` (read at once if the file exists).

    Attributes
    ----------
    counts : dict of int to PrimeCount
        The primes finished so far, read from the file or recorded since.
    """

    def __init__(self, path: str | os.PathLike, form: IntegerForm, primes: Sequence[int]):
        self.path = os.fspath(path)
        self.identity = arrangement_identity(form)
        self._rank, self._homogeneous, self._primes = form.rank, form.homogeneous, tuple(primes)
        self.counts: dict[int, PrimeCount] = self._read()

    def record(self, count: PrimeCount) -> None:
        """Add one prime's count and write the file again, whole or not at all."""
        self.counts[count.prime] = count
        document = {"format": FORMAT, "arrangement": self.identity,
                    "counts": [asdict(self.counts[q]) for q in sorted(self.counts)]}
        atomic_write_text(self.path, json.dumps(document, indent=1) + "\n")

    # --- reading --------------------------------------------------------------------------------------------
    def _fail(self, field: str, expected: str, got: str) -> InvalidInputError:
        where = f"{self.path}: {field}" if field else self.path
        return InvalidInputError(f"{where}: expected {expected}, got {got}")

    def _read(self) -> dict[int, PrimeCount]:
        try:
            with open(self.path, "rb") as stream:
                data = stream.read(_MAX_BYTES + 1)
        except FileNotFoundError:
            return {}
        except OSError as error:
            raise self._fail("", "a readable checkpoint file", f"an error: {error.strerror or error}") from None
        if not data.strip():
            return {}
        if len(data) > _MAX_BYTES:
            raise self._fail("", f"a {FORMAT} checkpoint of at most {_MAX_BYTES} bytes", "a larger file")
        try:
            document = json.loads(data)
        except (ValueError, UnicodeDecodeError) as error:
            raise self._fail("", f"a {FORMAT} checkpoint (JSON)", f"text that is not JSON ({error})") from None
        if not isinstance(document, dict):
            raise self._fail("", f"a {FORMAT} checkpoint (a JSON object)", f"a JSON {type(document).__name__}")
        if document.get("format") != FORMAT:
            raise self._fail("format", repr(FORMAT), repr(document.get("format")))
        if "arrangement" not in document:
            raise self._fail("arrangement", f"the checkpoint of this arrangement ({_describe(self.identity)})",
                             "no arrangement field")
        found = document["arrangement"]
        if found != self.identity:
            raise self._fail("arrangement", f"the checkpoint of this arrangement ({_describe(self.identity)})",
                             f"one of another ({_describe(found)})")
        entries = document.get("counts")
        if not isinstance(entries, list):
            raise self._fail("counts", "a list of the counts of primes", repr(entries))
        counts: dict[int, PrimeCount] = {}
        for i, entry in enumerate(entries):
            count = self._entry(f"counts[{i}]", entry)
            if count.prime in counts:
                raise self._fail(f"counts[{i}].prime", "each prime once", f"{count.prime} again")
            counts[count.prime] = count
        return counts

    def _entry(self, field: str, entry: Any) -> PrimeCount:
        if not isinstance(entry, dict):
            raise self._fail(field, "an object with prime, points, wall_seconds and cpu_seconds", repr(entry))
        prime = entry.get("prime")
        if not _is_int(prime) or prime not in self._primes:
            raise self._fail(f"{field}.prime", f"one of the primes of this count ({_listed(self._primes)})",
                             repr(prime))
        points = entry.get("points")
        if not _is_int(points) or not 0 <= points <= prime ** self._rank:
            raise self._fail(f"{field}.points", f"an integer from 0 to {prime}^{self._rank}", repr(points))
        if self._homogeneous and points % (prime - 1):
            # the points off hyperplanes through the origin come in lines of q - 1
            raise self._fail(f"{field}.points", f"a multiple of {prime - 1} (q - 1)", repr(points))
        times = []
        for key in ("wall_seconds", "cpu_seconds"):
            value = entry.get(key)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
                raise self._fail(f"{field}.{key}", "a number of seconds, at least 0", repr(value))
            times.append(float(value))
        return PrimeCount(prime, points, times[0], times[1])


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _listed(primes: Sequence[int]) -> str:
    return ", ".join(str(q) for q in primes)


def _describe(identity: Any) -> str:
    if not isinstance(identity, dict):
        return repr(identity)
    digest = str(identity.get("digest"))
    return (f"rank {identity.get('rank')!r}, {identity.get('hyperplanes')!r} hyperplanes, digest "
            f"{digest[:12]}{'...' if len(digest) > 12 else ''}")
