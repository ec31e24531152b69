"""Self-checks that tie the enumeration of regions and faces to the intersection poset.

Zaslavsky's theorem counts the regions of an arrangement in ``R^d`` as ``(-1)^d chi(-1)`` and the relatively
bounded ones as ``(-1)^rank chi(1)``. For the cells of an open convex set ``K`` (the interior of a domain),
the count is ``sum |mu(X)|`` over the flats ``X`` that meet ``K`` (Zaslavsky, 1977); here whether a flat meets
``K`` is decided by a certified linear program, independently of the enumeration. The faces, relatively open
cells, satisfy the Euler relation ``sum_k (-1)^k f_k = (-1)^d``: the compactly supported Euler characteristic
of ``R^d`` (or of the open domain).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING

from polyregions.errors import CertificateError

if TYPE_CHECKING:
    from polyregions.arrangements.arrangement import Arrangement

__all__ = ["ZaslavskyReport", "check_zaslavsky"]


@dataclass(frozen=True)
class ZaslavskyReport:
    """Counts from the enumeration next to the counts the theory predicts.

    Attributes
    ----------
    regions, regions_predicted : int
        Regions enumerated, and predicted from the poset.
    bounded_regions : int
        Relatively bounded regions enumerated.
    bounded_predicted : int or None
        Predicted from the poset (None with an unbounded domain, where no formula applies).
    euler_characteristic : int or None
        ``sum_k (-1)^k f_k`` of the enumerated faces (None when faces were not enumerated).
    euler_expected : int
        ``(-1)^dim``.
    """

    regions: int
    regions_predicted: int
    bounded_regions: int
    bounded_predicted: int | None
    euler_characteristic: int | None
    euler_expected: int

    @property
    def ok(self) -> bool:
        """Whether every available comparison agrees."""
        return (self.regions == self.regions_predicted
                and self.bounded_predicted in (None, self.bounded_regions)
                and self.euler_characteristic in (None, self.euler_expected))

    def __str__(self) -> str:
        lines = [f"regions: {self.regions} enumerated, {self.regions_predicted} predicted",
                 f"relatively bounded regions: {self.bounded_regions} enumerated, "
                 f"{'no prediction' if self.bounded_predicted is None else f'{self.bounded_predicted} predicted'}"]
        if self.euler_characteristic is not None:
            lines.append(f"Euler characteristic of the faces: {self.euler_characteristic}, "
                         f"expected {self.euler_expected}")
        lines.append("all agree" if self.ok else "DISAGREEMENT")
        return "\n".join(lines)


def check_zaslavsky(arrangement: "Arrangement", *, faces: bool = True, raise_on_failure: bool = False
                    ) -> ZaslavskyReport:
    """Count regions, bounded regions and faces by enumeration and compare with the poset's predictions.

    Parameters
    ----------
    faces : bool, keyword-only
        Also enumerate every face and check the Euler relation.
    raise_on_failure : bool, keyword-only
        Raise :class:`~polyregions.errors.CertificateError` when a comparison disagrees (which would be a bug).

    Examples
    --------
    >>> from polyregions.arrangements import shi
    >>> report = check_zaslavsky(shi(3))
    >>> report.regions, report.bounded_regions, report.ok
    (16, 4, True)
    """
    regions = arrangement.regions()
    bounded = sum(1 for r in regions if r.bounded)
    bounded_predicted: int | None
    if arrangement.domain is None:
        predicted = arrangement.predicted_regions()
        bounded_predicted = arrangement.predicted_bounded_regions()
    else:
        predicted = _regions_in_domain(arrangement)
        bounded_predicted = predicted if _domain_bounded(arrangement) else None
    euler = None
    if faces:
        euler = sum((-1) ** k * f for k, f in enumerate(arrangement.f_vector()))
    report = ZaslavskyReport(len(regions), predicted, bounded, bounded_predicted, euler, (-1) ** arrangement.dim)
    if raise_on_failure and not report.ok:
        raise CertificateError(f"the enumeration of {arrangement!r} disagrees with the theory:\n{report}")
    return report


def _domain_rows(arrangement: "Arrangement"):
    from polyregions.exact.rationals import rational_matrix, rational_vector

    domain = arrangement.domain
    assert domain is not None  # called only for arrangements in a domain
    A = rational_matrix(domain.A, what="domain.A", shape=(None, arrangement.dim))
    return A, rational_vector(domain.b, what="domain.b", length=len(A))


def _regions_in_domain(arrangement: "Arrangement") -> int:
    """``sum |mu(X)|`` over the flats meeting the domain's interior (each decided by a certified LP)."""
    from polyregions.exact.lp import strict_point

    A, b = _domain_rows(arrangement)
    poset = arrangement.poset
    total = 0
    for flat, mu in zip(poset.flats, poset.mobius):
        E = [tuple(Fraction(v) for v in arrangement.hyperplanes[i][:-1]) for i in sorted(flat.hyperplanes)]
        e = [Fraction(arrangement.hyperplanes[i][-1]) for i in sorted(flat.hyperplanes)]
        if strict_point(A, b, E=E, e=e, dim=arrangement.dim) is not None:
            total += abs(mu)
    return total


def _domain_bounded(arrangement: "Arrangement") -> bool:
    """Whether ``{v : A v <= 0}`` is ``{0}`` (certified LP): the domain is bounded."""
    from polyregions.exact.linalg import rank
    from polyregions.exact.lp import maximize

    A, _ = _domain_rows(arrangement)
    if not A or rank(A) < arrangement.dim:
        return False
    # On the cone A v <= 0 (with -A v <= 1 to keep it finite), the total slack is 0 only on its lineality {0}.
    objective = tuple(-sum((row[j] for row in A), Fraction(0)) for j in range(arrangement.dim))
    rows = tuple(A) + tuple(tuple(-v for v in row) for row in A)
    rhs = tuple([Fraction(0)] * len(A) + [Fraction(1)] * len(A))
    return maximize(objective, rows, rhs).value == 0
