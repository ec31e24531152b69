"""Exact arithmetic and certified linear programs: the ground every decision of polyregions stands on.

Numbers from user input become exact rationals (:mod:`~polyregions.exact.rationals`); linear algebra
runs on FLINT (:mod:`~polyregions.exact.linalg`); linear programs are solved in floating point and
certified with rationals (:mod:`~polyregions.exact.lp`); lengths and volumes are exact sums of square
roots (:mod:`~polyregions.exact.surds`).
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".rationals": ["rational", "rational_vector", "rational_matrix", "format_rational"],
    ".linalg": ["solve", "rank", "determinant", "rref", "nullspace"],
    ".lp": ["LPResult", "maximize", "strict_point", "feasible_point"],
    ".surds": ["SurdSum", "sqrt_of_rational"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.exact.linalg import determinant, nullspace, rank, rref, solve
    from polyregions.exact.lp import LPResult, feasible_point, maximize, strict_point
    from polyregions.exact.rationals import format_rational, rational, rational_matrix, rational_vector
    from polyregions.exact.surds import SurdSum, sqrt_of_rational
