"""Crystallographic root systems: positive roots, Coxeter numbers and exponents, for the arrangements of
:mod:`~polyregions.arrangements.library` (Coxeter, Shi and Catalan arrangements of every Weyl type).

A type is named by its letter and rank: ``"A3"``, ``"B4"``, ``"C4"``, ``"D5"``, ``"E6"``, ``"E7"``, ``"E8"``,
``"F4"``, ``"G2"``. The classical types use the usual coordinates (``A_n``: ``e_i - e_j`` in ``R^(n+1)``;
``B_n``: ``e_i +- e_j`` and ``e_i``; ``C_n``: ``e_i +- e_j`` and ``2 e_i``; ``D_n``: ``e_i +- e_j``); the
exceptional ones their coordinates in the basis of simple roots (Bourbaki's numbering), found by closing the
simple roots under the simple reflections of the Cartan matrix. The hyperplane ``(alpha, x) = k`` is then the row
of the root's coordinates with right-hand side ``k`` (for the exceptional types, ``x`` in the basis of fundamental
coweights), an exact integer arrangement isomorphic to the usual one.

Examples
--------
>>> len(positive_roots("E6")), coxeter_number("E6"), exponents("E6")
(36, 12, (1, 4, 5, 7, 8, 11))
>>> weyl_group_order("E6")
51840
"""

from __future__ import annotations

import itertools
import math
import re

from polyregions.arrangements._kernel import IntRow
from polyregions.errors import InvalidInputError

__all__ = ["parse_type", "positive_roots", "ambient_dimension", "coxeter_number", "exponents",
           "weyl_group_order"]

_EXCEPTIONAL = {"E6", "E7", "E8", "F4", "G2"}
_SMALLEST = {"A": 1, "B": 1, "C": 1, "D": 2}


def parse_type(name: str) -> tuple[str, int]:
    """The letter and the rank of a type such as ``"D5"``.

    Raises
    ------
    InvalidInputError
        For anything else than ``A_n`` (n >= 1), ``B_n``, ``C_n`` (n >= 1), ``D_n`` (n >= 2), ``E6``, ``E7``,
        ``E8``, ``F4``, ``G2``.
    """
    match = re.fullmatch(r"([A-Ga-g])(\d+)", name.strip()) if isinstance(name, str) else None
    expected = "a root system type A_n, B_n, C_n (n >= 1), D_n (n >= 2), E6, E7, E8, F4 or G2 such as \"E6\""
    if match is None:
        raise InvalidInputError(f"root system: expected {expected}, got {name!r}")
    letter, n = match.group(1).upper(), int(match.group(2))
    if letter + str(n) in _EXCEPTIONAL or (letter in _SMALLEST and n >= _SMALLEST[letter]):
        return letter, n
    raise InvalidInputError(f"root system: expected {expected}, got {name!r}")


def _unit(n: int, *entries: tuple[int, int]) -> IntRow:
    row = [0] * n
    for i, v in entries:
        row[i] += v
    return tuple(row)


def _cartan(letter: str, n: int) -> list[list[int]]:
    """``C[i][j] = <alpha_i, alpha_j^vee>`` for the exceptional types (Bourbaki's numbering)."""
    C = [[2 * (i == j) for j in range(n)] for i in range(n)]

    def bond(i: int, j: int, ij: int = -1, ji: int = -1) -> None:
        C[i][j], C[j][i] = ij, ji

    if letter == "E":  # 1 - 3 - 4 - 5 - 6 (- 7 - 8), with 2 on 4
        chain = [0, 2, 3, 4, 5, 6, 7][:n - 1]
        for i, j in zip(chain, chain[1:]):
            bond(i, j)
        bond(1, 3)
    elif letter == "F":  # 1 - 2 => 3 - 4, alpha_1 and alpha_2 long
        bond(0, 1)
        bond(1, 2, -2, -1)
        bond(2, 3)
    else:  # G2: alpha_1 short, alpha_2 long
        bond(0, 1, -1, -3)
    return C


def _closure(letter: str, n: int) -> tuple[IntRow, ...]:
    C = _cartan(letter, n)
    simple = [_unit(n, (i, 1)) for i in range(n)]
    roots = set(simple)
    frontier = list(simple)
    while frontier:
        found = []
        for root in frontier:
            for i in range(n):
                pairing = sum(root[j] * C[j][i] for j in range(n))  # <root, alpha_i^vee>
                image = tuple(v - pairing * (j == i) for j, v in enumerate(root))
                if all(v >= 0 for v in image) and image not in roots:
                    roots.add(image)
                    found.append(image)
        frontier = found
    return tuple(sorted(roots, key=lambda r: (sum(r), r)))


def positive_roots(name: str) -> tuple[IntRow, ...]:
    """The positive roots of a type, as integer rows (coordinates described in the module).

    >>> positive_roots("B2")
    ((1, -1), (1, 1), (1, 0), (0, 1))
    """
    letter, n = parse_type(name)
    pairs = list(itertools.combinations(range(n), 2))
    if letter == "A":
        return tuple(_unit(n + 1, (i, 1), (j, -1)) for i, j in itertools.combinations(range(n + 1), 2))
    if letter in "BCD":
        roots = [_unit(n, (i, 1), (j, -sign)) for i, j in pairs for sign in (1, -1)]
        if letter != "D":
            roots += [_unit(n, (i, 1 if letter == "B" else 2)) for i in range(n)]
        return tuple(roots)
    return _closure(letter, n)


def ambient_dimension(name: str) -> int:
    """The dimension of the space of :func:`positive_roots` (the rank, or ``n + 1`` for ``A_n``)."""
    letter, n = parse_type(name)
    return n + 1 if letter == "A" else n


def exponents(name: str) -> tuple[int, ...]:
    """The exponents ``e_1 <= ... <= e_n`` of the Weyl group.

    >>> exponents("D4")
    (1, 3, 3, 5)
    """
    letter, n = parse_type(name)
    if letter == "A":
        return tuple(range(1, n + 1))
    if letter in "BC":
        return tuple(range(1, 2 * n, 2))
    if letter == "D":
        return tuple(sorted(list(range(1, 2 * n - 2, 2)) + [n - 1]))
    return {"E6": (1, 4, 5, 7, 8, 11), "E7": (1, 5, 7, 9, 11, 13, 17), "E8": (1, 7, 11, 13, 17, 19, 23, 29),
            "F4": (1, 5, 7, 11), "G2": (1, 5)}[letter + str(n)]


def coxeter_number(name: str) -> int:
    """The Coxeter number ``h``: the largest exponent plus one (and ``2 |roots+| / rank``)."""
    return exponents(name)[-1] + 1


def weyl_group_order(name: str) -> int:
    """``|W| = prod (e_i + 1)``, the number of regions of the Coxeter arrangement."""
    return math.prod(e + 1 for e in exponents(name))
