"""Hyperplane arrangements: region enumeration, faces and the characteristic polynomial, timed separately.

Every case builds a fresh :class:`~polyregions.arrangements.Arrangement` from canonical rows (cheap), so no
cached result is reused between runs.
"""

from __future__ import annotations

from typing import Callable

from polyregions.arrangements import Arrangement, braid, catalan, generic, resonance, shi


def _fresh(arrangement: Arrangement) -> Callable[[], Arrangement]:
    rows, dim = arrangement.hyperplanes, arrangement.dim
    return lambda: Arrangement(rows, dim=dim)


def cases() -> list[tuple[str, Callable[[], object]]]:
    examples = [
        ("braid(7), 21 hyperplanes in R^7", braid(7)),
        ("Catalan(4), 18 hyperplanes in R^4", catalan(4)),
        ("Catalan(5), 30 hyperplanes in R^5", catalan(5)),
        ("Shi(5), 20 hyperplanes in R^5", shi(5)),
        ("generic, 20 hyperplanes in R^4 (seed 0)", generic(20, 4, seed=0)),
        ("resonance(5), 31 hyperplanes in R^5", resonance(5)),
    ]
    out: list[tuple[str, Callable[[], object]]] = []
    for label, arrangement in examples:
        make = _fresh(arrangement)
        out.append((f"{label}: regions", lambda make=make: make().num_regions()))
        out.append((f"{label}: characteristic polynomial", lambda make=make: make().characteristic_polynomial()))
    for label, arrangement in examples[:2] + examples[4:5]:
        make = _fresh(arrangement)
        out.append((f"{label}: all faces", lambda make=make: make().f_vector()))
    grid = Arrangement([[1, 0, k] for k in range(30)] + [[0, 1, k] for k in range(30)])
    out.append(("grid of 30 + 30 lines: regions and f-vector", lambda: _fresh(grid)().f_vector()))
    return out
