"""Certified programs over integer cells: every answer checked against the exact simplex, on all backends."""

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from polyregions.exact._integers import primitive
from polyregions.exact.lp import maximize
from polyregions.regions import _cell_programs as cp

coefficient = st.integers(-4, 4)


@st.composite
def cells_and_rows(draw, k=3):
    """A cell: the box [-2, 2]^k, extra rows through points near the origin kept strictly satisfied there, and
    a row to ask about (the origin satisfies it)."""
    rows = [tuple(int(i == j) for j in range(k)) + (2,) for i in range(k)]
    rows += [tuple(-int(i == j) for j in range(k)) + (2,) for i in range(k)]
    for _ in range(draw(st.integers(0, 4))):
        a = draw(st.lists(coefficient, min_size=k, max_size=k))
        rows.append(tuple(a) + (draw(st.integers(1, 6)),))
    a = draw(st.lists(coefficient, min_size=k, max_size=k))
    return rows, tuple(a) + (draw(st.integers(0, 8)),)


@settings(max_examples=60, deadline=None)
@given(cells_and_rows(), st.sampled_from(["highs", "exact"]))
def test_point_beyond_agrees_with_the_exact_simplex(case, backend):
    rows, row = case
    inside = (0, 0, 0, 1)
    found = cp.point_beyond(rows, cp.float_rows(rows, 3), inside, row, backend=backend)
    best = maximize([Fraction(v) for v in row[:-1]], [r[:-1] for r in rows], [r[-1] for r in rows],
                    backend="exact")
    if best.value > row[-1]:
        assert found is not None and cp.strictly_inside(rows, found) and cp.value(row, found) > 0
    else:
        assert found is None


def test_exit_point_lies_on_the_one_facet_it_crosses():
    square = [(1, 0, 1), (-1, 0, 1), (0, 1, 1), (0, -1, 1)]
    (rows, point) = cp.exit_point(square, (1, 0, 4), (0, 1))  # from (1/4, 0) straight up
    assert rows == [2] and cp.to_fractions(point) == (Fraction(1, 4), Fraction(1))
    assert cp.exit_point(square, (0, 0, 1), (1, 1))[0] == [0, 2]  # through a corner: two rows
    assert cp.exit_point([(1, 0, 1)], (0, 0, 1), (-1, 0)) is None


def test_rows_and_points_in_integers():
    assert primitive([Fraction(2, 3), Fraction(-4, 3), Fraction(2)]) == (1, -2, 3)
    assert cp.value((1, -2, 3), cp.homogeneous([Fraction(1), Fraction(-1)])) == 0
    assert cp.float_point([0.1])[1] == 2 ** 55 and cp.to_fractions(cp.float_point([0.1])) == (Fraction(0.1),)
    assert cp.float_rows([(10 ** 400, 1, 0)], 2) is None


@pytest.mark.parametrize("backend", ["exact", "cvxpy"])
def test_refinement_is_the_same_on_every_backend(backend):
    if backend == "cvxpy":
        pytest.importorskip("cvxpy")
    from polyregions.networks.initializers import he_normal
    from polyregions.regions import domains as dom
    from polyregions.regions._general.refine import refine

    net = he_normal([3, 4, 3], seed=5)
    box = dom.box([-1] * 3, [1] * 3)
    highs, other = refine(net, box), refine(net, box, backend=backend)
    assert [r.pattern for r in highs.regions] == [r.pattern for r in other.regions]
    assert highs.adjacency == other.adjacency
