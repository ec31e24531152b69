"""Listing the regions of an arrangement at scale: one region at a time, streamed to a file.

:meth:`Arrangement.regions <polyregions.arrangements.Arrangement.regions>` keeps every region with its polytope,
which is what small arrangements want. Here the regions come out one after another from a depth-first
refinement whose memory holds one path of cells and the rays met so far (:mod:`._ray_search`), each with its
exact sign vector, an exact interior point and whether it is relatively bounded: the resonance arrangement
``R_6`` (63 hyperplanes, 1,066,044 regions) in well under a minute and a hundred megabytes.

The file format ``polyregions.arrangement-regions/1`` is JSON lines: a header, one line per region, a trailer
with the count (see ``docs/formats.rst``). It is written through :func:`polyregions._support.atomic.atomic_write`, so an
interruption (Ctrl-C) leaves the previous file or none, never a partial one.

Examples
--------
>>> from polyregions.arrangements import braid
>>> regions = list(iter_regions(braid(3)))
>>> len(regions), sorted(r.sign_string for r in regions)[:2]
(6, ['+++', '++-'])
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, BinaryIO, Callable, Iterator

import numpy as np

from polyregions.arrangements._ray_search import ConeSearch, RawRegion
from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.arrangements.arrangement import Arrangement

__all__ = ["FORMAT", "ListedRegion", "iter_regions", "write_regions", "read_regions"]

FORMAT = "polyregions.arrangement-regions/1"
_CHUNK = 4096  # lines written to the file at once
_SIGN_BYTES = np.frombuffer(b"- +", dtype=np.uint8)  # a region's sign on a hyperplane as listed, at sign + 1


@dataclass(frozen=True, slots=True)
class ListedRegion:
    """A region as listed at scale: no polytope, only what names and witnesses it.

    Attributes
    ----------
    signs : tuple of int
        ``+1`` or ``-1`` for each hyperplane (canonical rows, in order): the sign of ``a . x - c`` on the region.
    point : tuple of Fraction
        An exact point of the open region.
    bounded : bool
        Whether the region is relatively bounded (bounded modulo the lineality space).
    """

    signs: tuple[int, ...]
    point: tuple[Fraction, ...]
    bounded: bool

    @property
    def sign_string(self) -> str:
        """The sign vector over ``-`` and ``+``."""
        return "".join("+" if s > 0 else "-" for s in self.signs)


def _raw_regions(arrangement: "Arrangement") -> Iterator[RawRegion]:
    rows, allowed = arrangement._system
    n = len(arrangement)
    for signs, numerators, denominator, bounded in ConeSearch(rows, allowed, arrangement.dim).regions():
        yield signs[:n], numerators, denominator, bounded


def iter_regions(arrangement: "Arrangement") -> Iterator[ListedRegion]:
    """Every region of the arrangement (cells of the domain's interior, if it has one), one at a time.

    The order is that of a depth-first search (not sorted). Memory does not grow with the number of regions.

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> [(r.sign_string, r.point, r.bounded) for r in iter_regions(Arrangement([[1, 0], [1, 1]]))]
    [('--', (Fraction(-1, 1),), False), ('++', (Fraction(2, 1),), False), ('+-', (Fraction(1, 2),), True)]
    """
    for signs, numerators, denominator, bounded in _raw_regions(arrangement):
        yield ListedRegion(tuple(signs.tolist()), tuple(Fraction(v, denominator) for v in numerators), bounded)


def _number(numerator: int, denominator: int) -> str:
    if denominator == 1:
        return f'"{numerator}"'
    return f'"{Fraction(numerator, denominator)}"'


def _header(arrangement: "Arrangement") -> dict[str, Any]:
    from polyregions.exact.rationals import format_rational

    domain = None
    if arrangement.domain is not None:
        domain = {"A": [[format_rational(Fraction(v)) for v in row] for row in arrangement.domain.A],
                  "b": [format_rational(Fraction(v)) for v in arrangement.domain.b]}
    return {"format": FORMAT, "dimension": arrangement.dim,
            "hyperplanes": [list(row) for row in arrangement.hyperplanes], "domain": domain}


def write_regions(arrangement: "Arrangement", path: str | os.PathLike, *,
                  progress: Callable[[int], object] | None = None, every: int = 100_000) -> int:
    """Stream every region to a ``polyregions.arrangement-regions/1`` file; return how many there are.

    Parameters
    ----------
    arrangement : Arrangement
    path : str or path-like
        The file, written whole or not at all: an interruption (``KeyboardInterrupt``) or an error leaves the
        file that was there before, or none.
    progress : callable, keyword-only
        Called with the number of regions written so far every ``every`` regions and once at the end.
    every : int, keyword-only

    Examples
    --------
    >>> import os, tempfile
    >>> from polyregions.arrangements import braid
    >>> path = os.path.join(tempfile.mkdtemp(), "braid4.jsonl")
    >>> write_regions(braid(4), path)
    24
    >>> sum(1 for _ in read_regions(path))
    24
    """
    if isinstance(every, bool) or not isinstance(every, int) or every < 1:
        raise InvalidInputError(f"every: expected a positive integer, got {every!r}")
    from polyregions._support.atomic import atomic_write

    counts = [0, 0]

    def write(stream: BinaryIO) -> None:
        stream.write((json.dumps(_header(arrangement)) + "\n").encode())
        lines: list[str] = []
        count = bounded_count = 0
        for signs, numerators, denominator, bounded in _raw_regions(arrangement):
            text = _SIGN_BYTES[signs + 1].tobytes().decode()
            point = ",".join([_number(v, denominator) for v in numerators])
            lines.append(f'{{"signs":"{text}","point":[{point}],"bounded":{"true" if bounded else "false"}}}\n')
            count += 1
            bounded_count += bounded
            if len(lines) >= _CHUNK:
                stream.write("".join(lines).encode())
                lines.clear()
            if progress is not None and count % every == 0:
                progress(count)
        stream.write("".join(lines).encode())
        stream.write((json.dumps({"end": True, "regions": count, "bounded_regions": bounded_count}) + "\n").encode())
        counts[:] = [count, bounded_count]
        if progress is not None:
            progress(count)

    atomic_write(path, write)
    return counts[0]


def read_regions(path: str | os.PathLike) -> Iterator[ListedRegion]:
    """The regions of a ``polyregions.arrangement-regions/1`` file, one at a time, checked as they are read.

    Raises
    ------
    InvalidInputError
        Naming the file and the line: a wrong header, a malformed region, a sign vector of the wrong length, a
        missing trailer (a truncated file) or a trailer whose count disagrees with the lines read.
    """
    from polyregions.exact.rationals import rational

    name = os.fspath(path)
    try:
        stream = open(name, encoding="utf-8")
    except OSError as error:
        raise InvalidInputError(f"{name}: expected a readable regions file, got {error.strerror or error}") from None
    with stream:
        header = _json_line(stream.readline(), name, 1)
        if not isinstance(header, dict) or header.get("format") != FORMAT:
            raise InvalidInputError(f"{name}: line 1: format: expected \"{FORMAT}\", got "
                                    f"{json.dumps(header.get('format')) if isinstance(header, dict) else 'no object'}")
        hyperplanes, dim = header.get("hyperplanes"), header.get("dimension")
        if not isinstance(hyperplanes, list) or isinstance(dim, bool) or not isinstance(dim, int):
            raise InvalidInputError(f"{name}: line 1: expected keys dimension (an integer) and hyperplanes (a list)")
        n = len(hyperplanes)
        count = 0
        for number, line in enumerate(stream, start=2):
            record = _json_line(line, name, number)
            if isinstance(record, dict) and record.get("end") is True:
                if record.get("regions") != count:
                    raise InvalidInputError(f"{name}: line {number}: regions: expected {count}, the regions listed, "
                                            f"got {record.get('regions')!r}")
                return
            where = f"{name}: line {number}"
            if not isinstance(record, dict) or not isinstance(record.get("signs"), str) \
                    or not isinstance(record.get("point"), list) or not isinstance(record.get("bounded"), bool):
                raise InvalidInputError(f"{where}: expected an object with signs, point and bounded, got {line[:80]!r}")
            text = record["signs"]
            if len(text) != n or set(text) - {"+", "-"}:
                raise InvalidInputError(f"{where}: signs: expected {n} characters + or -, got {text[:80]!r}")
            if len(record["point"]) != dim:
                raise InvalidInputError(f"{where}: point: expected {dim} numbers, got {len(record['point'])}")
            point = tuple(rational(v, what=f"{where}: point") for v in record["point"])
            yield ListedRegion(tuple(1 if c == "+" else -1 for c in text), point, record["bounded"])
            count += 1
    raise InvalidInputError(f"{name}: expected a trailer line {{\"end\": true, ...}} after the regions, got the end "
                            f"of the file after {count} regions (a truncated file)")


def _json_line(line: str, name: str, number: int) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        raise InvalidInputError(f"{name}: line {number}: expected a JSON object, got {line[:80]!r}") from None
