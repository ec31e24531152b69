"""Domains of many rows through one vertex: boundedness is one program in the domain's dimension (not one with a
variable per row), decided exactly, and agrees with Stiemke's lemma on small polytopes."""

from fractions import Fraction

import numpy as np
import pytest
from cpu_clock import timed
from fuzz.abuse import fan_polygon

import polyregions as pr
from polyregions.exact.lp import strict_point
from polyregions.polyhedra._programs import is_bounded


def _stiemke(rows, dim):
    """Bounded iff some y > 0 has rows^T y = 0 (and the rows have full rank): the former program."""
    m = len(rows)
    if m == 0 or np.linalg.matrix_rank(np.array(rows, dtype=float)) < dim:
        return False
    identity = [[-1 if j == i else 0 for j in range(m)] for i in range(m)]
    transpose = [[row[j] for row in rows] for j in range(dim)]
    return strict_point(identity, [0] * m, E=transpose, e=[0] * dim, dim=m) is not None


@pytest.mark.parametrize("bounded", [True, False], ids=["bounded", "cone"])
def test_a_400_row_polygon_through_one_vertex_is_read_and_counted_in_seconds(bounded):
    document = fan_polygon(400, bounded)
    with timed() as elapsed:
        domain = pr.polytope_domain(document["A"], document["b"])
        assert domain.is_bounded() is bounded
        network = pr.Network.from_layers(2, [([[1, 0], [0, 1]], ["-1/7", 0], "relu"), ([[1, 1]], [0], "linear")])
        summary = pr.enumerate_regions(network, domain, engine="lp").summary()
    assert elapsed.seconds < 10
    # the same set by its irredundant rows: the two edges of the fan, and the bound
    edges = [document["A"][0], document["A"][-2 if bounded else -1]] + ([[0, 1]] if bounded else [])
    small = pr.polytope_domain(edges, [0, 0] + ([1] if bounded else []))
    assert summary == pr.enumerate_regions(network, small, engine="lp").summary()
    assert summary["activation_regions"] == 2  # x = 1/7 cuts the fan; y = 0 meets it only at its vertex


@pytest.mark.parametrize("seed", range(12))
def test_boundedness_agrees_with_stiemke_s_lemma(seed):
    rng = np.random.default_rng(seed)
    dim = int(rng.integers(1, 4))
    m = int(rng.integers(1, 7))
    rows = [tuple(Fraction(int(v)) for v in rng.integers(-3, 4, size=dim)) for _ in range(m)]
    rows = [row for row in rows if any(row)] or [tuple(Fraction(1) for _ in range(dim))]
    rhs = tuple(Fraction(1) for _ in rows)  # the origin is inside: never empty
    assert is_bounded(tuple(rows), rhs, dim, False) == _stiemke(rows, dim)


def test_boundedness_of_simple_sets():
    one = Fraction(1)
    assert is_bounded(((one,), (-one,)), (one, one), 1, False)
    assert not is_bounded(((one,),), (one,), 1, False)
    square = ((one, 0), (-one, 0), (0, one), (0, -one))
    assert is_bounded(square, (one,) * 4, 2, False)
    assert not is_bounded(square[:3], (one,) * 3, 2, False)
    assert not is_bounded(((one, 0), (-one, 0)), (one, one), 2, False)  # a strip: rank 1
