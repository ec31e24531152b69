"""Region statistics: exact volumes that tile the domain, facet counts, certified inradii, the 2d comparison."""

from fractions import Fraction
from math import comb

import numpy as np
import pytest

import polyregions as pr
from polyregions.errors import InvalidInputError
from polyregions.measures.statistics import RegionStatistics, region_statistics


def _lines(rows, offsets, dim=2):
    return pr.Network.from_layers(dim, [(rows, offsets, "relu")])


@pytest.mark.parametrize("widths, domain", [
    ([2, 8, 8], pr.box([-1, -1], [1, 1])),
    ([1, 6, 6], pr.box(["-3/2"], [2])),
    ([2, 6], pr.polytope_domain([[-1, 0], [0, -1], [1, 1]], [0, 0, 1])),
    ([3, 4], pr.box([0, 0, 0], [1, 2, 1])),
])
def test_volumes_sum_to_the_domain_volume_exactly(widths, domain):
    complex_ = pr.enumerate_regions(pr.he_normal(widths, seed=1, bias_std=0.3), domain)
    stats = region_statistics(complex_)
    assert len(stats) == len(complex_) and all(v is not None and v > 0 for v in stats.volumes)
    assert sum(stats.volumes, Fraction(0)) == domain.volume()
    assert stats.summary()["total_volume"] == pr.format_rational(domain.volume())


def test_a_square_cut_by_its_diagonals():
    net = _lines([[1, 1], [1, -1]], [-1, 0])  # x + y = 1 and x = y through the unit square's centre
    stats = region_statistics(pr.enumerate_regions(net, pr.box([0, 0], [1, 1])))
    assert stats.volumes == (Fraction(1, 4),) * 4
    assert stats.neighbours.tolist() == [2, 2, 2, 2] and stats.boundary_facets.tolist() == [1, 1, 1, 1]
    assert stats.facets.tolist() == [3, 3, 3, 3] and stats.average_facets() == 3
    # Each triangle has sides 1, 1/sqrt(2), 1/sqrt(2): inradius area / semi-perimeter = (sqrt(2) - 1) / 2.
    for lo, hi in stats.inradii:
        assert lo <= hi <= lo * (1 + Fraction(1, 2 ** 40))
        assert (2 * lo + 1) ** 2 <= 2 <= (2 * hi + 1) ** 2


def test_a_square_cut_by_two_axis_parallel_lines():
    net = _lines([[2, 0], [0, 4]], [-1, -1])  # x = 1/2 and y = 1/4
    stats = region_statistics(pr.enumerate_regions(net, pr.box([0, 0], [1, 1])))
    found = sorted(zip(stats.volumes, stats.inradii, stats.facets.tolist()))
    assert found == [(Fraction(1, 8), (Fraction(1, 8), Fraction(1, 8)), 4)] * 2 + \
        [(Fraction(3, 8), (Fraction(1, 4), Fraction(1, 4)), 4)] * 2
    assert stats.neighbours.tolist() == [2] * 4 and stats.boundary_facets.tolist() == [2] * 4
    assert stats.average_facets() == stats.gaines_bi_bound() == 4 and stats.within_gaines_bi()


def test_one_region_is_the_domain():
    stats = region_statistics(pr.enumerate_regions(_lines([[1, 0]], [5]), pr.box([0, 0], [2, 1])))
    assert stats.volumes == (Fraction(2),) and stats.facets.tolist() == [4]
    assert stats.neighbours.tolist() == [0] and stats.inradii == ((Fraction(1, 2), Fraction(1, 2)),)


def test_the_whole_plane_unbounded_regions():
    # The two axes cut the plane into four quadrants: unbounded, two facets each, no boundary, no largest ball.
    stats = region_statistics(pr.enumerate_regions(_lines([[1, 0], [0, 1]], [0, 0]), pr.space(2)))
    assert stats.volumes == (None,) * 4 and stats.inradii == (None,) * 4
    assert stats.facets.tolist() == [2] * 4 and stats.boundary_facets.tolist() == [0] * 4
    assert stats.summary()["total_volume"] is None and stats.summary()["bounded_regions"] == 0
    assert stats.volume_histogram()[0].sum() == 0


def test_a_simple_arrangement_of_the_plane_stays_below_four_facets_on_average():
    # Four lines in general position: 11 regions, 2 * 4 * 4 = 32 incidences of facets, average 32/11 < 2d = 4.
    rows, offsets = [[1, 0], [0, 1], [1, 1], [1, -2]], [Fraction(-1, 10), Fraction(1, 10), Fraction(1, 20),
                                                      Fraction(1, 30)]
    stats = region_statistics(pr.enumerate_regions(_lines(rows, offsets), pr.space(2)))
    k = len(rows)
    assert len(stats) == 1 + k + comb(k, 2)
    assert stats.average_facets() == Fraction(2 * k * k, 1 + k + comb(k, 2)) < stats.gaines_bi_bound()
    assert stats.within_gaines_bi()


def test_histograms_count_every_region():
    complex_ = pr.enumerate_regions(pr.he_normal([2, 10, 10], seed=3, bias_std=0.2), pr.box([-1, -1], [1, 1]))
    stats = region_statistics(complex_)
    assert stats.facet_histogram().sum() == len(stats) == stats.volume_histogram(bins=5)[0].sum()
    assert stats.inradius_histogram(bins=[0, 0.01, 0.1, 10])[0].sum() == len(stats)
    assert (stats.facets >= 3).all()
    assert stats.facet_histogram().tolist() == np.bincount(stats.facets).tolist()
    assert isinstance(stats, RegionStatistics) and stats.summary()["regions"] == len(complex_)


def test_bits_must_be_a_positive_integer():
    complex_ = pr.enumerate_regions(pr.sawtooth(1), pr.box([0], [1]))
    with pytest.raises(InvalidInputError, match="bits: expected a positive integer, got 0"):
        region_statistics(complex_, bits=0)
