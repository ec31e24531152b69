"""Exact sums of rational multiples of square roots: the lengths, areas and volumes of boundary pieces.

A :class:`SurdSum` is ``sum_i c_i sqrt(n_i)`` with rational ``c_i`` and distinct positive integers ``n_i`` (the
*radicands*). Lengths of segments and volumes of faces of a polyhedral complex with rational vertices are of this
form: a ``p``-face spanned by rational directions ``B`` has volume ``(rational) * sqrt(det(B G B^T))`` for a
rational metric ``G``. Radicands are kept free of the square factors that are cheap to find (powers of the primes
below 200 and perfect squares), so that equal surds usually share a radicand; a surd that is not reduced is still
exact, just written less compactly.

Floats come with a proven error bound: each term is rounded with a relative error of at most ``4u``
(``u = 2^-53``: the coefficient, the radicand, the square root and the product each add ``u``), and the terms are
summed with :func:`math.fsum` (correctly rounded), so ``|float - exact| <= 4u (1 + 8u) sum |term| + u |sum|``.

Examples
--------
>>> s = SurdSum.sqrt(8) + SurdSum.rational(Fraction(1, 2)) + SurdSum.sqrt(2)
>>> str(s)
'3*sqrt(2) + 1/2'
>>> value, error = s.bounds()
>>> abs(value - 4.742640687119285) <= error + 1e-15
True
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Iterable

from polyregions.errors import InvalidInputError

__all__ = ["SurdSum", "sqrt_of_rational", "sqrt_upper_bound"]

_U = 2.0 ** -53
_SMALL_PRIMES = tuple(p for p in range(2, 200) if all(p % q for q in range(2, int(p ** 0.5) + 1)))


def _reduce(n: int) -> tuple[int, int]:
    """``(s, m)`` with ``n = s^2 m``, ``m`` free of the square factors of small primes (and 1 for squares)."""
    if n <= 0:
        raise InvalidInputError(f"radicand: expected a positive integer, got {n}")
    root = math.isqrt(n)
    if root * root == n:
        return root, 1
    s = 1
    for p in _SMALL_PRIMES:
        p2 = p * p
        if p2 > n:
            break
        while n % p2 == 0:
            n //= p2
            s *= p
    root = math.isqrt(n)
    if root * root == n:
        return s * root, 1
    return s, n


def sqrt_of_rational(q: Fraction) -> tuple[Fraction, int]:
    """``(c, n)`` with ``sqrt(q) = c * sqrt(n)``, ``c`` rational and ``n`` a positive integer (1 when rational).

    Examples
    --------
    >>> sqrt_of_rational(Fraction(9, 8))
    (Fraction(3, 4), 2)
    """
    q = Fraction(q)
    if q < 0:
        raise InvalidInputError(f"sqrt_of_rational: expected a non-negative number, got {q}")
    if q == 0:
        return Fraction(0), 1
    # sqrt(a/b) = sqrt(a b) / b
    s, n = _reduce(q.numerator * q.denominator)
    return Fraction(s, q.denominator), n


def _sqrt_float(n: int) -> float:
    """``sqrt(n)`` within a relative ``2u (1 + u)``, also for integers beyond the double range (their truncation
    to 900 leading bits costs a relative ``2^-899``, far below ``u``)."""
    shift = max(0, n.bit_length() - 900) // 2
    return math.sqrt(float(n >> (2 * shift))) * 2.0 ** shift


@dataclass(frozen=True)
class SurdSum:
    """``sum_i c_i sqrt(n_i)``: rational coefficients, distinct radicands (1 is the rational part).

    Attributes
    ----------
    terms : tuple of (int, Fraction)
        ``(n_i, c_i)`` sorted by radicand, no zero coefficient.

    Examples
    --------
    >>> (SurdSum.sqrt(Fraction(1, 2)) * 2).terms
    ((2, Fraction(1, 1)),)
    """

    terms: tuple[tuple[int, Fraction], ...] = ()

    @classmethod
    def from_terms(cls, terms: Iterable[tuple[int, Any]]) -> "SurdSum":
        """The sum of ``c * sqrt(n)`` over ``(n, c)`` pairs (any positive integers ``n``; reduced here)."""
        acc: dict[int, Fraction] = {}
        reduced: dict[int, tuple[int, int]] = {}
        for n, c in terms:
            c = Fraction(c)
            if c == 0:
                continue
            n = int(n)
            if n not in reduced:
                reduced[n] = _reduce(n)
            s, m = reduced[n]
            acc[m] = acc.get(m, Fraction(0)) + c * s
        return cls(tuple(sorted((n, c) for n, c in acc.items() if c != 0)))

    @classmethod
    def rational(cls, q: Any) -> "SurdSum":
        """The rational number ``q``."""
        return cls.from_terms([(1, q)])

    @classmethod
    def sqrt(cls, q: Any) -> "SurdSum":
        """``sqrt(q)`` for a non-negative rational ``q``."""
        c, n = sqrt_of_rational(Fraction(q))
        return cls.from_terms([(n, c)])

    @classmethod
    def total(cls, parts: Iterable["SurdSum"]) -> "SurdSum":
        """The sum of many surd sums (faster than repeated ``+``)."""
        acc: dict[int, Fraction] = {}
        for part in parts:
            for n, c in part.terms:
                acc[n] = acc.get(n, Fraction(0)) + c
        return cls(tuple(sorted((n, c) for n, c in acc.items() if c != 0)))

    def __add__(self, other: "SurdSum") -> "SurdSum":
        if not isinstance(other, SurdSum):
            return NotImplemented
        return SurdSum.total((self, other))

    def times_sqrt(self, q: Any) -> "SurdSum":
        """The product with ``sqrt(q)`` for a non-negative rational ``q`` (still a sum of surds).

        Examples
        --------
        >>> str(SurdSum.sqrt(2).times_sqrt(6))
        '2*sqrt(3)'
        """
        c, m = sqrt_of_rational(Fraction(q))
        return SurdSum.from_terms((n * m, coefficient * c) for n, coefficient in self.terms)

    def __mul__(self, factor: Any) -> "SurdSum":
        """Multiplication by a rational number."""
        if isinstance(factor, SurdSum):
            return NotImplemented
        f = Fraction(factor)
        return SurdSum(tuple((n, c * f) for n, c in self.terms if c * f != 0))

    __rmul__ = __mul__

    def is_zero(self) -> bool:
        """Whether the sum is exactly 0.

        Square roots of integers with distinct square-free parts are linearly independent over the rationals,
        and ``sqrt(n)``, ``sqrt(m)`` have the same square-free part exactly when ``n m`` is a perfect square; so
        after merging such pairs (:meth:`merged`) the sum is 0 only when every coefficient is.
        """
        return not self.merged().terms

    def merged(self) -> "SurdSum":
        """The same number with no two radicands whose product is a perfect square (no factorisation needed;
        quadratic in the number of terms)."""
        classes: list[list] = []  # [radicand, coefficient]
        for n, c in self.terms:
            for entry in classes:
                r = entry[0]
                root = math.isqrt(n * r)
                if root * root == n * r:
                    entry[1] += c * Fraction(root, r)  # sqrt(n) = sqrt(n r) / r * sqrt(r)
                    break
            else:
                classes.append([n, c])
        return SurdSum(tuple(sorted((n, c) for n, c in classes if c != 0)))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SurdSum):
            return NotImplemented
        if self.terms == other.terms:
            return True
        return (self + other * -1).is_zero()

    def __hash__(self) -> int:
        return hash(self.merged().terms)

    @property
    def rational_part(self) -> Fraction:
        """The coefficient of ``sqrt(1)``."""
        return next((c for n, c in self.terms if n == 1), Fraction(0))

    def bounds(self) -> tuple[float, float]:
        """``(value, error)``: a double and a proven bound on its distance to the exact sum (0 when the double
        is the exact value)."""
        if all(n == 1 for n, _ in self.terms):
            exact = self.rational_part
            value = float(exact)  # correctly rounded
            return value, 0.0 if Fraction(value) == exact else _U * abs(value) * (1 + 4 * _U) + 2.0 ** -1074
        values = []
        for n, c in self.terms:
            term = float(c) * (1.0 if n == 1 else _sqrt_float(n))
            if not math.isfinite(term) or (term == 0.0) != (c == 0) or abs(term) < 2.0 ** -960:
                return self._interval_bounds()  # outside the range where the relative model holds
            values.append(term)
        total = math.fsum(values)
        magnitude = math.fsum(abs(v) for v in values)
        error = (4 * _U * (1 + 8 * _U) * magnitude + _U * abs(total)) * (1 + 8 * _U)
        return total, error

    def _interval_bounds(self) -> tuple[float, float]:
        lo, hi = self.interval(bits=80)
        mid = (lo + hi) / 2
        value = float(mid)
        return value, float(max(abs(Fraction(value) - lo), abs(hi - Fraction(value)))) * (1 + 4 * _U) + 2.0 ** -1074

    def __float__(self) -> float:
        return self.bounds()[0]

    def interval(self, *, bits: int = 64) -> tuple[Fraction, Fraction]:
        """Rational bounds ``lo <= value <= hi`` with each square root bracketed within ``2^-bits``."""
        lo = hi = Fraction(0)
        for n, c in self.terms:
            if n == 1:
                lo += c
                hi += c
                continue
            root = math.isqrt(n << (2 * bits))
            r_lo, r_hi = Fraction(root, 1 << bits), Fraction(root + 1, 1 << bits)
            if c > 0:
                lo, hi = lo + c * r_lo, hi + c * r_hi
            else:
                lo, hi = lo + c * r_hi, hi + c * r_lo
        return lo, hi

    def __str__(self) -> str:
        if not self.terms:
            return "0"
        parts = []
        for n, c in sorted(self.terms, key=lambda t: (t[0] == 1, t[0])):
            if n == 1:
                text = str(abs(c))
            elif abs(c) == 1:
                text = f"sqrt({n})"
            elif abs(c).denominator == 1:
                text = f"{abs(c)}*sqrt({n})"
            elif abs(c).numerator == 1:
                text = f"sqrt({n})/{abs(c).denominator}"
            else:
                text = f"{abs(c).numerator}*sqrt({n})/{abs(c).denominator}"
            parts.append((c < 0, text))
        out = ("-" if parts[0][0] else "") + parts[0][1]
        for negative, text in parts[1:]:
            out += (" - " if negative else " + ") + text
        return out

    def to_sympy(self):
        """The sum as a sympy expression (sympy is imported on demand)."""
        import sympy

        return sympy.Add(*[sympy.Rational(c.numerator, c.denominator) * (sympy.Integer(1) if n == 1 else
                                                                         sympy.sqrt(sympy.Integer(n)))
                           for n, c in self.terms])


def sqrt_upper_bound(q: Fraction, *, bits: int = 40) -> Fraction:
    """A rational ``u`` with ``sqrt(q) <= u <= sqrt(q) * (1 + 2**-bits)``.

    Examples
    --------
    >>> sqrt_upper_bound(Fraction(9, 4))
    Fraction(3, 2)
    >>> u = sqrt_upper_bound(Fraction(2)); u * u >= 2 and u < Fraction(14143, 10000)
    True
    """
    q = Fraction(q)
    if q < 0:
        raise InvalidInputError(f"sqrt_upper_bound: expected a non-negative number, got {q}")
    if q == 0:
        return Fraction(0)
    # 4**k * q >= 4**(bits + 1), so that rounding up the integer square root costs at most 2**-bits.
    k = max(0, (2 * bits + 4 - q.numerator.bit_length() + q.denominator.bit_length()) // 2)
    m = -((-q.numerator << (2 * k)) // q.denominator)
    root = math.isqrt(m)
    if root * root < m:
        root += 1
    return Fraction(root, 1 << k)


# Canonical forms
