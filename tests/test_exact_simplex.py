"""The exact simplex (a fraction-free revised simplex on the dual) against the Fraction tableau it replaced.

Every answer's certificate is checked exactly with ``assert_certified_lp``, and every status and optimal value is
compared with the old solver, kept here as the oracle: small random programs, infeasible and unbounded ones,
degenerate ones with ties (Beale's cycling example among them), equalities, coefficients beyond the double range.
"""

from fractions import Fraction
from random import Random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.exact import _revised_simplex
from polyregions.exact._simplex import ExactLPSolution, exact_simplex
from polyregions.exact.linalg import Vector, dot, solve
from polyregions.exact.lp import LPResult, maximize
from polyregions.testing import assert_certified_lp

ZERO = Fraction(0)


# ------------------------------------------------------------------------------------------------- the oracle


def fraction_tableau_simplex(c, A, b) -> ExactLPSolution:
    """The exact simplex this project had before the revised one: a Fraction tableau on the primal standard form
    (x = u - v, a slack per row, artificials for rows with b < 0), Bland's rule throughout. Kept as the oracle."""
    m, n = len(A), len(c)
    # Standard form: x = u - v, one slack per row, rows with b < 0 negated and given an artificial.
    sign = [(-1 if b[i] < 0 else 1) for i in range(m)]
    n_std = 2 * n + m
    artificial_rows = [i for i in range(m) if sign[i] < 0]
    n_cols = n_std + len(artificial_rows)
    rows: list[list[Fraction]] = []
    basis: list[int] = []
    art_of_row = {i: n_std + k for k, i in enumerate(artificial_rows)}
    for i in range(m):
        s = sign[i]
        row = [Fraction(s * a) for a in A[i]] + [Fraction(-s * a) for a in A[i]] + [ZERO] * m
        row[2 * n + i] = Fraction(s)
        row += [ZERO] * len(artificial_rows)
        if i in art_of_row:
            row[art_of_row[i]] = Fraction(1)
            basis.append(art_of_row[i])
        else:
            basis.append(2 * n + i)
        row.append(Fraction(s * b[i]))
        rows.append(row)

    original = [row[:-1] for row in rows]

    def duals_for(costs: list[Fraction]) -> Vector:
        # y solves B^T y = c_B, with B the basis columns of the original standard-form matrix.
        if not m:
            return ()
        transposed = [[original[i][j] for i in range(m)] for j in basis]
        return solve(transposed, [costs[j] for j in basis])

    def run(costs: list[Fraction], allowed: int) -> int | None:
        """Pivot to optimality for ``maximize costs.z``; return an unbounded entering column or None."""
        while True:
            # The rows are kept as B^{-1} [A' | b'], so reduced costs come straight from them.
            basic_costs = [costs[j] for j in basis]
            entering = None
            in_basis = set(basis)
            for j in range(allowed):
                if j in in_basis:
                    continue
                reduced = costs[j] - sum((basic_costs[i] * rows[i][j] for i in range(m) if rows[i][j]), ZERO)
                if reduced > 0:
                    entering = j
                    break
            if entering is None:
                return None
            # Minimum-ratio row; ties go to the lowest basis index (Bland's rule, so no cycling).
            best = None
            for i in range(m):
                a = rows[i][entering]
                if a > 0:
                    ratio = rows[i][-1] / a
                    if best is None or ratio < best[0] or (ratio == best[0] and basis[i] < basis[best[1]]):
                        best = (ratio, i)
            if best is None:
                return entering
            _tableau_pivot(rows, best[1], entering)
            basis[best[1]] = entering

    # Phase 1: drive the artificials out.
    if artificial_rows:
        phase1 = [ZERO] * n_cols
        for j in art_of_row.values():
            phase1[j] = Fraction(-1)
        run(phase1, n_cols)
        infeasibility = sum((rows[i][-1] for i in range(m) if basis[i] >= n_std), ZERO)
        if infeasibility > 0:
            w = duals_for(phase1)
            return ExactLPSolution("infeasible", duals=tuple(w[i] * sign[i] for i in range(m)))
        _drive_out_artificials(rows, basis, n_std)
    costs = [Fraction(v) for v in c] + [-Fraction(v) for v in c] + [ZERO] * (m + len(artificial_rows))
    unbounded = run(costs, n_std)
    z = [ZERO] * n_cols
    for i, j in enumerate(basis):
        z[j] = rows[i][-1]
    point = tuple(z[j] - z[n + j] for j in range(n))
    if unbounded is not None:
        d = [ZERO] * n_cols
        d[unbounded] = Fraction(1)
        for i, j in enumerate(basis):
            d[j] = -rows[i][unbounded]
        return ExactLPSolution("unbounded", point=point, ray=tuple(d[j] - d[n + j] for j in range(n)))
    y = duals_for(costs)
    return ExactLPSolution("optimal", point=point, duals=tuple(y[i] * sign[i] for i in range(m)))


def _tableau_pivot(rows, r, col):
    pivot = rows[r][col]
    rows[r] = [v / pivot for v in rows[r]]
    for i, row in enumerate(rows):
        if i != r and row[col]:
            factor = row[col]
            rows[i] = [v - factor * w for v, w in zip(row, rows[r])]


def _drive_out_artificials(rows, basis, n_std):
    """Replace artificial columns left in the basis at level zero by real ones where possible."""
    for i, j in enumerate(basis):
        if j < n_std:
            continue
        for k in range(n_std):
            if k not in basis and rows[i][k] != 0:
                _tableau_pivot(rows, i, k)
                basis[i] = k
                break
        else:
            # The row is a combination of the others: keep a harmless artificial at zero, never entering again.
            pass


# ------------------------------------------------------------------------------------------------------ helpers


def certified(solution: ExactLPSolution, c, A, b) -> None:
    """Assert the exact simplex's answer proves itself, as an LPResult would."""
    value = dot([Fraction(v) for v in c], solution.point) if solution.status == "optimal" else None
    result = LPResult(solution.status, value=value, point=solution.point, ray=solution.ray,
                      multipliers=solution.duals)
    assert_certified_lp(result, c, A, b)


def check(c, A, b) -> ExactLPSolution:
    """Solve with the exact simplex, check its certificate, and compare with the oracle."""
    A = tuple(tuple(Fraction(v) for v in row) for row in A)
    b, c = tuple(Fraction(v) for v in b), tuple(Fraction(v) for v in c)
    solution = exact_simplex(c, A, b)
    certified(solution, c, A, b)
    reference = fraction_tableau_simplex(c, A, b)
    assert solution.status == reference.status
    if reference.status == "optimal":
        assert dot(c, solution.point) == dot(c, reference.point)
    return solution


@pytest.fixture(params=["dantzig", "bland"])
def pricing(request, monkeypatch):
    """Run a test with the solver's own pricing, then with Bland's rule from the first pivot."""
    if request.param == "bland":
        price = _revised_simplex.DualStandardForm._price
        monkeypatch.setattr(_revised_simplex.DualStandardForm, "_price",
                            lambda self, reduced, *, bland: price(self, reduced, bland=True))
    return request.param


coefficient = st.integers(-4, 4)


@st.composite
def programs(draw, n_max=4, m_max=8):
    n = draw(st.integers(1, n_max))
    m = draw(st.integers(1, m_max))
    vectors = st.lists(coefficient, min_size=n, max_size=n)
    return (draw(vectors), draw(st.lists(vectors, min_size=m, max_size=m)),
            draw(st.lists(st.integers(-3, 3), min_size=m, max_size=m)))


def cell(rng: Random, n: int, m: int, *, scale: int = 10):
    """A random cell of a hyperplane arrangement: integer rows strictly satisfied at an integer point."""
    x0 = [rng.randint(-3, 3) for _ in range(n)]
    A = [[rng.randint(-scale, scale) for _ in range(n)] for _ in range(m)]
    b = [sum(a * x for a, x in zip(row, x0)) + rng.randint(1, 20) for row in A]
    return [rng.randint(-scale, scale) for _ in range(n)], A, b


# -------------------------------------------------------------------------------------------------------- tests


@settings(max_examples=150, deadline=None)
@given(programs())
def test_random_programs_agree_with_the_fraction_tableau(case):
    check(*case)


@settings(max_examples=40, deadline=None)
@given(programs())
def test_bland_pricing_alone_agrees_too(case):
    price = _revised_simplex.DualStandardForm._price
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_revised_simplex.DualStandardForm, "_price",
                      lambda self, reduced, *, bland: price(self, reduced, bland=True))
        check(*case)


@pytest.mark.parametrize("seed", range(12))
def test_random_cells_agree_with_the_fraction_tableau(seed, pricing):
    rng = Random(seed)
    c, A, b = cell(rng, rng.randint(2, 5), rng.randint(6, 24))
    check(c, A, b)


def test_optimal_infeasible_and_unbounded_certificates():
    square = [[1, 0], [0, 1], [-1, 0], [0, -1]]
    solution = check([1, 2], square, [1, 1, 1, 1])
    assert solution.status == "optimal" and solution.point == (1, 1) and solution.duals == (1, 2, 0, 0)
    # x <= -1 and x >= 1, beside an unrelated row.
    assert check([1, 1], [[1, 0], [-1, 0], [0, 1]], [-1, -1, 5]).status == "infeasible"
    # Infeasible whatever the objective: c outside the rows' cone too (the program is solved twice).
    assert check([0, 1], [[1, 0], [-1, 0]], [-1, -1]).status == "infeasible"
    solution = check([1, 1], [[-1, 0], [0, -1]], [0, 0])
    assert solution.status == "unbounded"
    assert check([1, -1], [[1, 1], [-1, -1]], [1, 1]).status == "unbounded"  # rows of rank 1: a free direction


def test_rank_deficient_rows_and_zero_rows():
    # Rows of rank 1 in the plane: the optimum is a line; the point found must be on it, duals exact.
    solution = check([2, 2], [[1, 1], [-1, -1], [0, 0]], [3, 1, 0])
    assert solution.status == "optimal" and dot((2, 2), solution.point) == 6
    assert check([0, 0], [[0, 0], [1, 0]], [-1, 2]).status == "infeasible"  # 0 <= -1
    assert check([1, 0], [[0, 0], [1, 0]], [0, 2]).status == "optimal"
    assert check([0, 0, 0], [[1, 2, 3]], [0]).status == "optimal"


def test_no_rows_and_no_variables():
    assert exact_simplex([1, -2], (), ()) == ExactLPSolution("unbounded", point=(0, 0), ray=(1, -2))
    assert exact_simplex([0], (), ()) == ExactLPSolution("optimal", point=(0,), duals=())
    assert exact_simplex([], ((), ()), (1, 0)) == ExactLPSolution("optimal", point=(), duals=(0, 0))
    assert exact_simplex([], ((), ()), (1, -2)) == ExactLPSolution("infeasible", duals=(0, 1))


def _nonnegative(c, A, b):
    """``max c.x, A x <= b, x >= 0`` written with free variables."""
    n = len(c)
    return c, list(A) + [[-int(i == j) for j in range(n)] for i in range(n)], list(b) + [0] * n


def test_beale_and_chvatal_cycling_examples(pricing):
    # Beale (1955): the textbook tableau with Dantzig's rule cycles here. Optimum 1/20 at x = (1/25, 0, 1, 0).
    q = Fraction
    c, A, b = _nonnegative([q(3, 4), -150, q(1, 50), -6],
                           [[q(1, 4), -60, q(-1, 25), 9], [q(1, 2), -90, q(-1, 50), 3], [0, 0, 1, 0]], [0, 0, 1])
    solution = check(c, A, b)
    assert dot(c, solution.point) == q(1, 20) and solution.point == (q(1, 25), 0, 1, 0)
    # Chvatal's version: cycles under the largest-coefficient rule. Optimum 1 at x = (1, 0, 1, 0).
    c, A, b = _nonnegative([10, -57, -9, -24], [[q(1, 2), q(-11, 2), q(-5, 2), 9], [q(1, 2), q(-3, 2), q(-1, 2), 1],
                                                 [1, 0, 0, 0]], [0, 0, 1])
    solution = check(c, A, b)
    assert dot(c, solution.point) == 1


def test_degenerate_vertices_with_ties(pricing):
    # Eleven rows through the origin and a cube's corner reached by many tight rows at once.
    fan = [[1, k] for k in range(-5, 6)] + [[-1, 0]]
    assert check([1, 1], fan, [0] * 12).point == (0, 0)
    assert check([-1, 0], fan, [0] * 12).status == "optimal"
    corner = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1], [-1, 0, 0], [0, -1, 0],
              [0, 0, -1]]
    solution = check([1, 1, 1], corner, [1, 1, 1, 2, 2, 2, 3, 0, 0, 0])
    assert solution.point == (1, 1, 1)
    # A cross-polytope's vertex in the objective's direction; every facet meets at a degenerate apex.
    cross = [[s1, s2, s3] for s1 in (-1, 1) for s2 in (-1, 1) for s3 in (-1, 1)]
    assert check([3, 0, 0], cross, [1] * 8).point == (1, 0, 0)
    # The slack program of an empty open cell: its optimum s = 0 is highly degenerate.
    A = [[1, 0, 1], [-1, 0, 1], [0, 1, 1], [0, -1, 1], [1, 1, 1], [0, 0, 1]]
    assert check([0, 0, 1], A, [0, 0, 0, 0, 0, 1]).point[-1] == 0


def test_equality_constraints_through_maximize():
    A, b = [[1, 0, 0], [0, 1, 0], [0, 0, 1], [-1, 0, 0], [0, -1, 0], [0, 0, -1]], [1, 1, 1, 0, 0, 0]
    for E, e, value in (([[1, 1, 1]], [1], 1), ([[1, -1, 0]], [0], 3), ([[1, 1, 0], [0, 1, 1]], [1, 1], 2)):
        result = maximize([1, 1, 1], A, b, E=E, e=e, backend="exact")
        assert_certified_lp(result, [1, 1, 1], A, b, E=E, e=e)
        assert result.value == value
    infeasible = maximize([1, 1, 1], A, b, E=[[1, 1, 1]], e=[4], backend="exact")
    assert infeasible.status == "infeasible"
    assert_certified_lp(infeasible, [1, 1, 1], A, b, E=[[1, 1, 1]], e=[4])
    unbounded = maximize([1, 0], [[1, -1]], [0], E=[[1, -1]], e=[0], backend="exact")
    assert unbounded.status == "unbounded"
    assert_certified_lp(unbounded, [1, 0], [[1, -1]], [0], E=[[1, -1]], e=[0])


@pytest.mark.parametrize("exponent", [400, -400])
def test_coefficients_beyond_the_double_range(exponent, pricing):
    big = Fraction(10) ** exponent
    rng = Random(exponent)
    c, A, b = cell(rng, 3, 10)
    # Rows scaled by 10^400 or 10^-400, one entry perturbed by that much: no double holds them.
    A = [[v * big for v in row] for row in A]
    b = [v * big for v in b]
    A[0][0] += big * big
    check(c, A, b)
    check([big, 1, -big], A, b)
    check([1], [[big], [-big]], [1, -big])  # x <= 10^-400 and x >= 1 (or the reverse scale): empty
    check([1], [[1], [-1]], [big, -big])  # the single point 10^400 (or 10^-400)
    check([1, 0], [[1, big], [-1, -big]], [big, big])  # a strip of slope 10^-400 (or 10^400): unbounded


def test_random_infeasible_and_unbounded_cells(pricing):
    rng = Random(5)
    for _ in range(6):
        c, A, b = cell(rng, 4, 12)
        # Cut the cell off by a row opposite to one of its own, past it: infeasible.
        i = rng.randrange(len(A))
        assert check(c, A + [[-v for v in A[i]]], b + [-b[i] - 1]).status == "infeasible"
        # Keep only the rows with a.c < 0: the cell is then unbounded along c.
        half = [row for row in A if sum(u * v for u, v in zip(row, c)) < 0]
        if half:
            assert check(c, half, [bi for row, bi in zip(A, b) if row in half]).status == "unbounded"


def test_larger_cells_are_certified():
    # The benchmark's shape, smaller: the oracle would take seconds, so the certificate alone decides here.
    for seed in range(3):
        c, A, b = cell(Random(seed), 10, 60)
        solution = exact_simplex(c, A, b)
        assert solution.status == "optimal"
        certified(solution, c, A, b)


def test_regression_the_fallback_on_unbounded_programs_in_all_of_space():
    # All of R^3 through relucent's mlp([3, 12, 12, 1]): every fallback to the exact simplex was an unbounded cell
    # program with 3 to 10 rows (916 of them took 4.3 s); each is now a fraction of a millisecond.
    rng = Random(3)
    for _ in range(30):
        A = [[rng.randint(-9, 9) for _ in range(3)] for _ in range(rng.randint(3, 10))]
        b = [rng.randint(-5, 5) for _ in A]
        c = [rng.randint(-3, 3) for _ in range(3)]
        check(c, A, b)
