from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions import InvalidInputError, PolyregionsError, rational, rational_matrix, rational_vector


@pytest.mark.parametrize("value, expected", [
    (3, Fraction(3)),
    (-7, Fraction(-7)),
    (0.5, Fraction(1, 2)),
    (0.1, Fraction(3602879701896397, 36028797018963968)),
    ("3", Fraction(3)),
    ("-7/12", Fraction(-7, 12)),
    ("0.1", Fraction(1, 10)),
    ("1e-3", Fraction(1, 1000)),
    ("-2.5E2", Fraction(-250)),
    (".5", Fraction(1, 2)),
    (Fraction(2, 3), Fraction(2, 3)),
    (Decimal("0.25"), Fraction(1, 4)),
    (np.int64(5), Fraction(5)),
    (np.float32(0.1), Fraction(13421773, 134217728)),
])
def test_exact_values(value, expected):
    assert rational(value) == expected


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -float("inf"), np.float32("nan"), "", " ", "1/0",
                                   "nan", "inf", "abc", "1/2/3", "3/-4", "1e99999", True, None, [1], {},
                                   Decimal("NaN"), b"1"])
def test_bad_values_are_rejected_with_a_clear_message(value):
    with pytest.raises(InvalidInputError) as info:
        rational(value, what="layers[0].bias[1]")
    assert "layers[0].bias[1]" in str(info.value)
    assert "expected" in str(info.value)
    assert isinstance(info.value, PolyregionsError)


@given(st.floats(allow_nan=False, allow_infinity=False))
def test_floats_round_trip_exactly(x):
    assert float(rational(x)) == x
    assert rational(str(rational(x))) == rational(x)


@given(st.fractions())
def test_strings_round_trip(q):
    assert rational(str(q)) == q


def test_vectors_and_matrices():
    assert rational_vector(np.array([0.5, 2])) == (Fraction(1, 2), Fraction(2))
    assert rational_matrix([[1, "1/3"], [0, 0.25]]) == ((1, Fraction(1, 3)), (0, Fraction(1, 4)))
    with pytest.raises(InvalidInputError, match="expected 3 numbers, got 2"):
        rational_vector([1, 2], length=3, what="b")
    with pytest.raises(InvalidInputError, match=r"weight: expected rows of equal length 2, got 1 in row 1"):
        rational_matrix([[1, 2], [3]], what="weight")
    with pytest.raises(InvalidInputError, match="expected a list of rows"):
        rational_matrix(5)
    with pytest.raises(InvalidInputError, match="shape"):
        rational_matrix(np.zeros(3))
