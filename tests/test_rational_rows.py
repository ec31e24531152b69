"""The whole-row reading of plain quotients (``rational_vector``'s fast path for network files) agrees with the
entry-by-entry reading: the same values, the same accepted inputs, the same error messages."""

import pickle
import struct
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions import InvalidInputError, format_rational, rational, rational_vector
from polyregions.exact.rationals import _coprime_fraction, _quotient_row

# Entries a network file may hold, and near misses of the plain "p/q" form.
_plain = st.builds(lambda sign, p, q: f"{sign}{p}/{q}", st.sampled_from(["", "-"]),
                   st.integers(0, 10 ** 30), st.integers(0, 10 ** 30))
_dyadic = st.builds(lambda sign, p, k: f"{sign}{2 * p + 1}/{2 ** k}", st.sampled_from(["", "-"]),
                    st.integers(0, 2 ** 60), st.integers(0, 160))
_float32 = st.floats(width=32, allow_nan=False, allow_infinity=False).map(lambda x: format_rational(Fraction(x)))
_odd = st.sampled_from(["+1/2", " 1/2", "1/2 ", "1 /2", "1/ 2", "1/0", "-0/1", "0/8", "4/8", "6/4", "1/3", "1/-2",
                        "1//2", "1/2/3", "1/2,3/4", ",", "", "-", "/", "1/", "/2", "1_0/2", "\u0661/2", "1/\u0662",
                        "0.5", "1e-3", "7", "-7", "1/" + "9" * 601, "9" * 601 + "/2", "1/" + "0" * 600 + "1",
                        "nan", "inf", "1,2"])
_entry = st.one_of(_plain, _dyadic, _float32, _odd)
_other = st.sampled_from([0.5, 3, Fraction(1, 3), True, None, [1]])


def _entry_by_entry(values, what="vector"):
    """The reading the fast path must agree with: each entry alone."""
    return tuple(rational(v, what=f"{what}[{i}]") for i, v in enumerate(values))


def _outcome(read, values):
    try:
        return "value", read(values)
    except InvalidInputError as error:
        return "error", str(error)


@settings(max_examples=400, deadline=None)
@given(st.lists(_entry, min_size=1, max_size=12))
def test_rows_of_strings_read_as_entry_by_entry(values):
    expected = _outcome(_entry_by_entry, values)
    got = _outcome(rational_vector, values)
    assert got == expected
    if got[0] == "value":
        assert all(type(v) is Fraction for v in got[1])
        assert [(v.numerator, v.denominator) for v in got[1]] == [(v.numerator, v.denominator) for v in expected[1]]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(_dyadic, _other), min_size=1, max_size=8))
def test_rows_mixing_strings_and_other_values(values):
    assert _outcome(rational_vector, values) == _outcome(_entry_by_entry, values)


@settings(max_examples=300, deadline=None)
@given(st.lists(_dyadic, min_size=1, max_size=10))
def test_dyadic_rows_take_the_fast_path_and_agree_with_fraction(values):
    row = _quotient_row(values)
    assert row is not None
    assert row == tuple(Fraction(v) for v in values)


@pytest.mark.parametrize("values", [["1/2", "1/0"], ["1/2,3/4"], ["1/2", " 3/4"], ["1/2", 3], [], ("1/2",),
                                    ["1/2", "+3/4"], ["1/" + "1" * 601]])
def test_rows_the_fast_path_leaves_to_the_entry_reading(values):
    assert _quotient_row(values) is None


def test_division_by_zero_names_the_entry():
    with pytest.raises(InvalidInputError, match=r"^bias\[1\]: expected a number, got '1/0' \(division by zero\)$"):
        rational_vector(["1/2", "1/0", "3/4"], what="bias")


def test_a_comma_inside_an_entry_is_not_two_numbers():
    with pytest.raises(InvalidInputError, match=r"^w\[0\]: "):
        rational_vector(["1/2,3/4", "5/8"], what="w")


@given(st.integers(-(2 ** 80), 2 ** 80), st.integers(0, 100))
def test_coprime_fraction_is_a_fraction(odd, k):
    numerator, denominator = 2 * odd + 1, 2 ** k
    built, reference = _coprime_fraction(numerator, denominator), Fraction(numerator, denominator)
    assert type(built) is Fraction
    assert built == reference and hash(built) == hash(reference) and repr(built) == repr(reference)
    assert (built.numerator, built.denominator) == (reference.numerator, reference.denominator)
    assert built + Fraction(1, 3) == reference + Fraction(1, 3) and float(built) == float(reference)
    assert pickle.loads(pickle.dumps(built)) == reference


@given(st.lists(st.floats(width=32, allow_nan=False, allow_infinity=False), min_size=1, max_size=16))
def test_float32_weights_written_and_read_back_exactly(weights):
    written = [format_rational(Fraction(w)) for w in weights]
    assert rational_vector(written) == tuple(Fraction(w) for w in weights)
    # and each value is the float32 it came from
    for w, v in zip(weights, rational_vector(written)):
        assert struct.unpack("f", struct.pack("f", float(v)))[0] == w
