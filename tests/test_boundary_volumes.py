"""Exact sums of square roots, and the float bounds that come with them."""

from __future__ import annotations

import math
from decimal import Decimal, getcontext
from fractions import Fraction as F

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions.errors import InvalidInputError
from polyregions.exact.surds import SurdSum, sqrt_of_rational

rationals = st.fractions(min_value=0, max_value=10 ** 6, max_denominator=10 ** 6)


def _decimal(s: SurdSum) -> Decimal:
    getcontext().prec = 60
    total = Decimal(0)
    for n, c in s.terms:
        total += Decimal(c.numerator) / Decimal(c.denominator) * Decimal(n).sqrt()
    return total


def test_square_factors_are_pulled_out():
    assert sqrt_of_rational(F(9, 8)) == (F(3, 4), 2)
    assert sqrt_of_rational(F(49)) == (F(7), 1)
    assert str(SurdSum.sqrt(8) + SurdSum.sqrt(2) + SurdSum.rational(F(1, 2))) == "3*sqrt(2) + 1/2"
    assert str(SurdSum.sqrt(F(1, 2))) == "sqrt(2)/2"
    assert str(SurdSum()) == "0"


def test_equality_merges_radicands_without_factorising():
    p = 1_000_003  # a prime: beyond the small-prime trial division, so sqrt(p^2 * 3) is not reduced on entry
    big = SurdSum.from_terms([(p * p * 3, 1)])
    assert big.terms != SurdSum.sqrt(3).terms
    assert big == SurdSum.sqrt(3) * p
    assert (big + SurdSum.sqrt(3) * -p).is_zero()
    assert not (SurdSum.sqrt(2) + SurdSum.sqrt(3) * -1).is_zero()


def test_product_with_a_square_root():
    assert str(SurdSum.sqrt(2).times_sqrt(6)) == "2*sqrt(3)"
    assert SurdSum.rational(3).times_sqrt(F(1, 4)) == SurdSum.rational(F(3, 2))


def test_negative_input_is_rejected():
    with pytest.raises(InvalidInputError, match="non-negative"):
        SurdSum.sqrt(-1)


@given(st.lists(st.tuples(rationals, rationals), min_size=1, max_size=12))
def test_float_bounds_contain_the_exact_value(pairs):
    s = SurdSum.total(SurdSum.sqrt(q) * c for q, c in pairs)
    value, error = s.bounds()
    exact = _decimal(s)
    assert abs(Decimal(value) - exact) <= Decimal(error)
    lo, hi = s.interval(bits=80)
    assert Decimal(lo.numerator) / Decimal(lo.denominator) <= exact + Decimal(10) ** -40
    assert exact <= Decimal(hi.numerator) / Decimal(hi.denominator) + Decimal(10) ** -40


@given(rationals, rationals)
def test_addition_is_exact(a, b):
    assert SurdSum.sqrt(a) + SurdSum.sqrt(b) == SurdSum.sqrt(b) + SurdSum.sqrt(a)
    assert (SurdSum.sqrt(a) * 2 + SurdSum.sqrt(a) * -2).is_zero()


def test_huge_radicands_keep_a_bound():
    s = SurdSum.from_terms([(10 ** 400 + 7, F(1, 10 ** 150))])
    value, error = s.bounds()
    assert math.isfinite(value) and abs(value - 1e50) <= 1e36 and error < 1e36
    assert abs(_decimal(s) - Decimal(value)) <= Decimal(error)


def test_sympy_conversion():
    expression = (SurdSum.sqrt(8) + SurdSum.rational(F(1, 2))).to_sympy()
    import sympy

    assert sympy.simplify(expression - (2 * sympy.sqrt(2) + sympy.Rational(1, 2))) == 0
