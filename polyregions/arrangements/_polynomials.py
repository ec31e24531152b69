"""Integer polynomials in ``t`` as coefficient tuples, highest degree first (the convention of
:meth:`~polyregions.arrangements.Arrangement.characteristic_polynomial`).

Only what the counting engines need: sums, products, exact division by ``t - a``, evaluation, and exact
interpolation of the unknown low coefficients from values.

Examples
--------
>>> times_linear((1, -1), 2)  # (t - 1)(t - 2)
(1, -3, 2)
>>> divide_linear((1, -3, 2), 1)
(1, -2)
>>> evaluate((1, -3, 2), -1)
6
"""

from __future__ import annotations

from fractions import Fraction
from typing import Sequence

from polyregions.errors import CertificateError

__all__ = ["Poly", "add", "subtract", "shift", "times_linear", "power_linear", "divide_linear", "evaluate",
           "interpolate_low"]

Poly = tuple[int, ...]


def add(p: Sequence[int], q: Sequence[int]) -> Poly:
    """``p + q``."""
    n = max(len(p), len(q))
    p = [0] * (n - len(p)) + list(p)
    q = [0] * (n - len(q)) + list(q)
    return tuple(a + b for a, b in zip(p, q))


def subtract(p: Sequence[int], q: Sequence[int]) -> Poly:
    """``p - q``."""
    return add(p, [-c for c in q])


def shift(p: Sequence[int], k: int) -> Poly:
    """``t^k p``."""
    return tuple(p) + (0,) * k


def times_linear(p: Sequence[int], a: int) -> Poly:
    """``(t - a) p``."""
    out = list(p) + [0]
    for i, c in enumerate(p):
        out[i + 1] -= a * c
    return tuple(out)


def power_linear(a: int, k: int) -> Poly:
    """``(t - a)^k``.

    >>> power_linear(1, 3)
    (1, -3, 3, -1)
    """
    out: Poly = (1,)
    for _ in range(k):
        out = times_linear(out, a)
    return out


def divide_linear(p: Sequence[int], a: int) -> Poly:
    """``p / (t - a)``, which must be exact (synthetic division).

    Raises
    ------
    CertificateError
        When ``t - a`` does not divide ``p`` (a counting engine would have gone wrong).
    """
    out = []
    carry = 0
    for c in p[:-1]:
        carry = c + a * carry
        out.append(carry)
    if p[-1] + a * carry:
        raise CertificateError(f"expected t - {a} to divide the polynomial {tuple(p)}, got remainder "
                               f"{p[-1] + a * carry}")
    return tuple(out)


def evaluate(p: Sequence[int], t: int) -> int:
    """``p(t)`` (Horner)."""
    value = 0
    for c in p:
        value = value * t + c
    return value


def interpolate_low(known: Sequence[int], degree: int, points: Sequence[int], values: Sequence[int]) -> Poly:
    """The integer polynomial of the given degree whose top coefficients are ``known`` and whose values at
    ``points`` are ``values``; one point per unknown coefficient.

    The unknown part ``u(t) = p(t) - known part`` has degree below ``degree + 1 - len(known)``; it is found by
    Lagrange interpolation in exact rationals, and every coefficient must come out an integer.

    >>> interpolate_low((1, -3), 2, [5], [12])  # t^2 - 3t + c with value 12 at 5
    (1, -3, 2)
    """
    unknown = degree + 1 - len(known)
    if len(points) != unknown:
        raise CertificateError(f"interpolation: expected {unknown} points, got {len(points)}")
    top = tuple(known) + (0,) * unknown
    residual = [Fraction(v - evaluate(top, x)) for x, v in zip(points, values)]
    coefficients = [Fraction(0)] * unknown  # lowest degree first
    for i, (xi, yi) in enumerate(zip(points, residual)):
        basis = [Fraction(1)]  # prod_{j != i} (t - xj) / (xi - xj), lowest degree first
        for j, xj in enumerate(points):
            if j != i:
                shifted = [Fraction(0)] + basis
                for k, c in enumerate(basis):
                    shifted[k] -= xj * c
                basis = [c / (xi - xj) for c in shifted]
        for k, c in enumerate(basis):
            coefficients[k] += yi * c
    if any(c.denominator != 1 for c in coefficients):
        raise CertificateError(f"interpolation: expected integer coefficients, got {coefficients}")
    return tuple(known) + tuple(int(c) for c in reversed(coefficients))
