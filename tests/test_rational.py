from decimal import Decimal
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions import InvalidInputError, PolyregionsError, format_rational, rational, rational_matrix, rational_vector


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


# --- ASCII digits and size limits (issue 17) ---------------------------------------------------------------

@pytest.mark.parametrize("text", ["\u0661/\u0662", "\u0663", "\u0660.\u0665", "\uff11", "\u0969", "\u2003 1",
                                  "1\u2009", "\u00a01", "\u00b2", "\u00bd", "1_000", "\u30001/2", "1e\u0663"])
def test_regression_non_ascii_digits_and_white_space_are_not_numbers(text):
    # int() and \d accept Unicode digits: "١/٢" used to read as 1/2
    with pytest.raises(InvalidInputError, match="expected a number"):
        rational(text, what="w")


def test_ascii_white_space_around_a_number_is_still_ignored():
    assert rational(" 1/2 ") == rational("\t1/2\n") == Fraction(1, 2)
    assert rational("+3/4") == Fraction(3, 4) and rational("1.") == 1 and rational("-.5e1") == -5


def test_regression_numbers_beyond_pythons_4300_digit_limit_are_read_and_written_exactly():
    digits = "7" * 9000  # int() would refuse more than 4,300 digits with a ValueError
    sevens = 7 * (10 ** 9000 - 1) // 9
    value = rational(f"-{digits}/3{digits}")
    assert value == Fraction(-sevens, 3 * 10 ** 9000 + sevens)
    assert rational(format_rational(value)) == value
    assert format_rational(rational("1" * 10_000)) == "1" * 10_000
    assert rational("0." + "5" * 9999) == Fraction(5 * (10 ** 9999 - 1) // 9, 10 ** 9999)


@pytest.mark.parametrize("text, message", [
    ("1" * 10_001, "at most 10000 digits in a number"),
    ("1/" + "3" * 10_001, "at most 10000 digits in a denominator"),
    ("-" + "3" * 10_001 + "/7", "at most 10000 digits in a numerator"),
    ("0." + "1" * 10_001, "at most 10000 digits in a number"),
    ("1e-400000000", "exponent of at most 4000"),
    ("1e" + "9" * 5000, "exponent of at most 4000"),
    ("1e0000000000000004001", "exponent of at most 4000"),
])
def test_numbers_beyond_the_limits_are_refused_before_they_are_built(text, message):
    with pytest.raises(InvalidInputError, match=message):
        rational(text, what="w")


def test_exponents_within_the_limit_and_decimals_of_any_exponent_form():
    assert rational("1e0000000000000004000") == 10 ** 4000
    assert rational("25e-2") == Fraction(1, 4) and rational("1.5E+1") == 15
    with pytest.raises(InvalidInputError, match="expected at most"):
        rational(Decimal("1e999999999"))


def test_integer_reads_ascii_integers_only():
    from polyregions.exact.rationals import integer

    assert integer(" -12 ") == -12 and integer(np.int64(5)) == 5 and integer("+7") == 7
    assert integer("9" * 5000) == 10 ** 5000 - 1
    for bad in ("\u0663", "1_0", "1.0", "", "0x3", "\u20033", True, 1.0, None, "9" * 10_001):
        with pytest.raises(InvalidInputError, match="--workers: expected"):
            integer(bad, what="--workers")
