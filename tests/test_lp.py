from fractions import Fraction
from random import Random

import pytest
from hypothesis import given
from hypothesis import strategies as st

from polyregions import InvalidInputError
from polyregions.exact._simplex import exact_simplex
from polyregions.exact.linalg import dot
from polyregions.exact.lp import feasible_point, maximize, strict_point
from polyregions.testing import assert_certified_lp

coefficient = st.integers(-4, 4).map(Fraction)


def systems(n_min=1, n_max=3, m_max=7):
    return st.integers(n_min, n_max).flatmap(lambda n: st.tuples(
        st.lists(coefficient, min_size=n, max_size=n),
        st.lists(st.lists(coefficient, min_size=n, max_size=n), min_size=1, max_size=m_max),
        st.data()))


def _rhs(data, m):
    return data.draw(st.lists(st.integers(-3, 3).map(Fraction), min_size=m, max_size=m))


@given(systems())
def test_every_backend_answer_is_certified_and_agrees_with_the_exact_simplex(case):
    c, A, data = case
    b = _rhs(data, len(A))
    for backend in ("highs", "exact"):
        result = maximize(c, A, b, backend=backend)
        assert_certified_lp(result, c, A, b)
    reference = exact_simplex(c, tuple(map(tuple, A)), tuple(b))
    assert result.status == reference.status
    if reference.status == "optimal":
        assert maximize(c, A, b).value == dot(c, reference.point)


@given(systems())
def test_strict_and_weak_points_are_exact_and_none_only_when_empty(case):
    _, A, data = case
    b = _rhs(data, len(A))
    n = len(A[0])
    x = strict_point(A, b)
    if x is not None:
        assert all(dot(row, x) < bi for row, bi in zip(A, b))
    else:
        # The open set is empty iff max s with A x + s <= b, s <= 1 has value <= 0 (decided by the exact simplex).
        aug = [list(row) + [1] for row in A] + [[0] * n + [1]]
        assert exact_simplex([0] * n + [1], aug, list(b) + [1]).point[-1] <= 0
    y = feasible_point(A, b)
    assert (y is None) == (exact_simplex([0] * n, tuple(map(tuple, A)), tuple(b)).status == "infeasible")
    if y is not None:
        assert all(dot(row, y) <= bi for row, bi in zip(A, b))


def test_equalities_are_exact():
    # The open square (0,1)^2 meets the line x = y; its interior point must lie on it exactly.
    x = strict_point([[1, 0], [0, 1], [-1, 0], [0, -1]], [1, 1, 0, 0], E=[[1, -1]], e=[0])
    assert x[0] == x[1] and 0 < x[0] < 1
    assert strict_point([[1, 0]], [0], E=[[1, 0]], e=[1]) is None
    assert feasible_point([[1, 0]], [1], E=[[1, 0], [2, 0]], e=[1, 3]) is None  # inconsistent equalities
    result = maximize([1, 2], [[1, 0], [0, 1]], [5, 5], E=[[1, 1]], e=[3])
    assert result.value == 8
    assert_certified_lp(result, [1, 2], [[1, 0], [0, 1]], [5, 5], E=[[1, 1]], e=[3])


def test_degenerate_open_cells():
    # A triangle shrunk to a point: closed feasible, open empty.
    A, b = [[1, 0], [0, 1], [-1, -1]], [0, 0, 0]
    assert feasible_point(A, b) == (0, 0)
    assert strict_point(A, b) is None
    # Many constraints through one vertex.
    fan = [[1, k] for k in range(-5, 6)]
    assert strict_point(fan + [[-1, 0]], [0] * 11 + [0]) is None


def test_adversarial_scales_where_floats_mislead():
    # 1e15 next to 1e-15: the open strip 0 < x - 1e15 y < 1e-15 is a thin but non-empty cell.
    big, tiny = Fraction(10) ** 15, Fraction(1, 10 ** 15)
    A = [[1, -big], [-1, big], [0, 1], [0, -1]]
    x = strict_point(A, [tiny, 0, 1, 1])
    assert x is not None and all(dot(r, x) < v for r, v in zip(A, [tiny, 0, 1, 1]))
    # Two parallel planes a hair apart: floats see one plane, exact arithmetic sees an empty open cell.
    assert strict_point([[1, 1], [-1, -1]], [Fraction(1), -1 - tiny]) is None
    assert strict_point([[1, 1], [-1, -1]], [Fraction(1), -1 + tiny]) is not None
    # A vertex whose float rounding violates a constraint: the certificate still comes out exact.
    result = maximize([1, 1], [[3, 1], [1, 3]], [1, Fraction(1, 3)])
    assert_certified_lp(result, [1, 1], [[3, 1], [1, 3]], [1, Fraction(1, 3)])
    assert result.point == (Fraction(1, 3), 0)


def test_unbounded_and_empty_programs():
    assert maximize([1, 0], [[0, 1]], [1]).status == "unbounded"
    assert maximize([1], [], [], dim=1).status == "unbounded"
    assert maximize([0, 0], [], [], dim=2).value == 0
    assert strict_point([], [], dim=3) == (0, 0, 0)


def test_cvxpy_backend_is_certified_too():
    pytest.importorskip("cvxpy")
    A, b = [[1, 0], [0, 1], [-1, -1]], [1, 1, 0]
    result = maximize([1, 2], A, b, backend="cvxpy")
    assert_certified_lp(result, [1, 2], A, b)
    assert result.value == 3
    assert strict_point(A, b, backend="cvxpy") is not None


def test_bad_input():
    with pytest.raises(InvalidInputError, match="expected dim="):
        strict_point([], [])
    with pytest.raises(InvalidInputError, match="one right-hand side per row"):
        maximize([1], [[1]], [1, 2])
    with pytest.raises(InvalidInputError, match="backend"):
        maximize([1], [[1]], [1], backend="gurobi")
    with pytest.raises(InvalidInputError, match="A\\[0\\]\\[0\\]"):
        maximize([1], [[float("nan")]], [1])
    with pytest.raises(InvalidInputError, match="objective of length 2"):
        maximize([1], [[1, 1]], [1])


def test_threads_each_get_their_own_solver():
    from concurrent.futures import ThreadPoolExecutor

    A, b = [[1, 0], [0, 1], [-1, -1]], [1, 1, 0]
    with ThreadPoolExecutor(4) as pool:
        values = list(pool.map(lambda k: maximize([k, 1], A, b).value, range(40)))
    # The triangle's vertices are (1, 1), (1, -1) and (-1, 1).
    assert values == [max(k + 1, k - 1, 1 - k) for k in range(40)]


def test_regression_wrong_float_status_on_a_helper_program_does_not_recurse(monkeypatch):
    # HiGHS once called an always-feasible slack program infeasible, and the certifier chased it forever.
    import polyregions.exact.lp as lp

    monkeypatch.setattr(lp, "_float_solve", lambda *args: ("infeasible", None, None))
    assert strict_point([[1, 0], [-1, 0], [0, 1], [0, -1]], [1, 1, 1, 1]) is not None
    assert feasible_point([[1], [-1]], [0, -1]) is None
    assert maximize([1], [[1]], [3]).value == 3
    monkeypatch.setattr(lp, "_float_solve", lambda *args: ("unbounded", None, None))
    assert maximize([1, 1], [[1, 0], [0, 1]], [2, 5]).value == 7


def test_regression_coefficients_beyond_the_double_range():
    huge = Fraction(10) ** 400
    assert strict_point([[huge, 0], [-huge, 0], [0, 1], [0, -1]], [huge, huge, 1, 1]) is not None
    assert strict_point([[huge], [-huge]], [-huge, -huge]) is None


@pytest.mark.parametrize("seed", range(4))
def test_exact_and_highs_backends_agree_on_larger_cells(seed):
    # Cells of the size the engines produce in higher dimensions, beyond the hypothesis programs above.
    rng = Random(seed)
    n, m = 8, 40
    A = [[rng.randint(-10, 10) for _ in range(n)] for _ in range(m)]
    b = [rng.randint(1, 20) for _ in range(m)]
    c = [rng.randint(-10, 10) for _ in range(n)]
    E, e = [[rng.randint(-3, 3) for _ in range(n)]], [0]  # through the origin, which is strictly inside
    for equalities in ({}, {"E": E, "e": e}):
        results = [maximize(c, A, b, backend=backend, **equalities) for backend in ("highs", "exact")]
        for result in results:
            assert_certified_lp(result, c, A, b, **equalities)
        assert results[0].status == results[1].status
        assert results[0].value == results[1].value
        x = strict_point(A, b, backend="exact", **equalities)
        assert x is not None and all(dot(row, x) < bi for row, bi in zip(A, b))
