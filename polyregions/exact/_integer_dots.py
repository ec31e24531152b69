"""Signs of integer dot products through floats, with a proven error bound: the filter in front of exact sums.

Rows of (possibly huge) integers are scaled by powers of two into floats whose largest entry lies in [1/2, 1);
the float dot product of two such rows then differs from the exact one, scaled, by at most
:func:`dot_error_bound`, so a float value beyond that bound has the exact sign. Used by the double description
method and by the vertex cuts of layerwise refinement.
"""

from __future__ import annotations

import math
from typing import Sequence

import numpy as np

__all__ = ["float_row", "scaled_floats", "dot_error_bound"]

_U = 2.0 ** -53


def float_row(ints: Sequence[int]) -> list[float]:
    """The vector scaled by a power of two so that its largest entry has absolute value in [1/2, 1).

    Each entry is within 2**-52 of the exact scaled value (rounding to float, plus truncation of very
    long integers).
    """
    e = max(abs(v).bit_length() for v in ints)
    if e == 0:
        return [0.0] * len(ints)
    if e <= 1000:
        return [math.ldexp(float(v), -e) for v in ints]
    shift = e - 64
    return [math.ldexp(float(v >> shift), -64) for v in ints]


def scaled_floats(rows: Sequence[Sequence[int]]) -> np.ndarray:
    """:func:`float_row` for many rows at once (the same guarantee; numpy rounds each integer correctly)."""
    try:
        values = np.array(rows, dtype=float)
    except OverflowError:
        return np.array([float_row(r) for r in rows])
    _, exponents = np.frexp(np.abs(values).max(axis=1))
    return np.ldexp(values, -exponents[:, None])


def dot_error_bound(n: int) -> float:
    """A proven bound on |fl(h_f . r_f) - h.r / scale| for rows from :func:`float_row` of length n.

    Entry errors contribute at most 2 n 2**-52 (entries below 1 in absolute value), the rounding of the
    dot product at most gamma_n n <= 1.01 n**2 2**-53; a generous margin covers both and underflow.
    """
    return (n * n + 4 * n + 1) * 2.0 ** -51 + n * 2.0 ** -1000
