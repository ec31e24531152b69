import itertools
from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions import InfeasibleError
from polyregions.exact.linalg import determinant, matmul, matvec, nullspace, rank, rref, solve

small = st.fractions(min_value=-5, max_value=5, max_denominator=7)


def _brute_det(m):
    n = len(m)
    total = Fraction(0)
    for perm in itertools.permutations(range(n)):
        sign = (-1) ** sum(1 for i in range(n) for j in range(i + 1, n) if perm[i] > perm[j])
        term = Fraction(sign)
        for i in range(n):
            term *= m[i][perm[i]]
        total += term
    return total


@given(st.integers(1, 4).flatmap(lambda n: st.lists(st.lists(small, min_size=n, max_size=n), min_size=n, max_size=n)),
       st.data())
def test_solve_and_determinant_agree_with_definitions(m, data):
    n = len(m)
    assert determinant(m) == _brute_det(m)
    rhs = data.draw(st.lists(small, min_size=n, max_size=n))
    if _brute_det(m) == 0:
        with pytest.raises(InfeasibleError):
            solve(m, rhs)
    else:
        assert matvec(m, solve(m, rhs)) == tuple(rhs)


@given(st.lists(st.lists(small, min_size=3, max_size=3), min_size=1, max_size=4))
def test_nullspace_has_complementary_dimension(m):
    basis = nullspace(m)
    assert len(basis) == 3 - rank(m)
    for v in basis:
        assert all(x == 0 for x in matvec(m, v))
    if basis:
        assert rank(basis) == len(basis)


def test_known_values():
    assert rank([[1, 2], [2, 4]]) == 1
    assert rref([[2, 4], [1, 3]]) == (((1, 0), (0, 1)), (0, 1))
    assert matmul([[1, 2]], [[3], [4]]) == ((11,),)
    assert nullspace([], ncols=2) == ((1, 0), (0, 1))
