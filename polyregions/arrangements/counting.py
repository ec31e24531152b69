"""Counting regions without listing them: the characteristic polynomial by three exact methods, and Zaslavsky.

Zaslavsky's theorem turns ``chi`` into counts: an arrangement in ``R^d`` has ``r = (-1)^d chi(-1)`` regions, of
which ``b = (-1)^rank chi(1)`` are relatively bounded (bounded modulo the lineality space). So an arrangement
with a billion regions is counted exactly without listing one. The methods:

``"finite-field"``
    Point counts over ``F_q`` for a few primes ``q`` (Athanasiadis): for an integer arrangement and a prime
    above a bound on its maximal minors, ``chi(q)`` is the number of points of ``F_q^d`` on no hyperplane.
    Fast when the coefficients are small: the resonance arrangement ``R_7`` (127 hyperplanes, 347,326,352
    regions) in a fraction of a second, ``R_8`` (255 hyperplanes, 419,172,756,930 regions) and the threshold
    arrangement ``T_7`` (128 hyperplanes, 8,378,070,864 regions) in minutes; a ``checkpoint`` file keeps the
    finished primes of a long count.
``"deletion-restriction"``
    ``chi_A = chi_{A - H} - chi_{A / H}`` down to rank 3, with restrictions cached under a canonical form;
    needs nothing of the coefficients.
``"poset"``
    The intersection poset and its Moebius function (:attr:`Arrangement.poset
    <polyregions.arrangements.Arrangement.poset>`): every flat is listed.
``"auto"``
    Deletion-restriction for at most 24 hyperplanes (milliseconds); above, the finite-field method when its
    primes fit two machine words (``q <= 127``) and no level of its count that is merged and advanced again
    holds more than 400,000 states, deletion-restriction otherwise (chosen by measurement: see
    ``benchmarks/bench_arrangements.py``). With a ``checkpoint``, the finite-field method.

All three are exact and give the same polynomial; the tests tie them to each other, to the enumeration of
regions and to closed forms.

Examples
--------
>>> from polyregions.arrangements import resonance, shi
>>> count = count_regions(resonance(6))
>>> count.regions, count.bounded_regions
(1066044, 0)
>>> count_regions(shi(4), method="deletion-restriction").characteristic_polynomial
(1, -12, 48, -64, 0)
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from polyregions.arrangements._polynomials import Poly, evaluate
from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.arrangements.arrangement import Arrangement

__all__ = ["METHODS", "RegionCount", "characteristic_polynomial", "count_regions", "regions_from_polynomial",
           "bounded_regions_from_polynomial", "rank_from_polynomial", "poincare_from_characteristic",
           "count_summary"]

METHODS = ("auto", "finite-field", "deletion-restriction", "poset")

#: ``"auto"`` gives the finite-field method up to this many states in one level of its point count ...
AUTO_MAX_STATES = 400_000
#: ... and only with primes whose sets fit two machine words; and leaves arrangements of at most this many
#: hyperplanes to deletion-restriction, which counts them in milliseconds.
AUTO_LARGEST_PRIME = 127
AUTO_SMALL = 24


@dataclass(frozen=True)
class RegionCount:
    """Counts of an arrangement read from its characteristic polynomial.

    Attributes
    ----------
    regions : int
        ``(-1)^dim chi(-1)``.
    bounded_regions : int
        Relatively bounded regions, ``(-1)^rank chi(1)``.
    characteristic_polynomial : tuple of int
        Degree ``dim`` first, constant last.
    dim, rank : int
    method : str
        The method that computed ``chi`` (``"auto"`` resolved).
    """

    regions: int
    bounded_regions: int
    characteristic_polynomial: tuple[int, ...]
    dim: int
    rank: int
    method: str

    @property
    def poincare_polynomial(self) -> tuple[int, ...]:
        """``pi(t) = (-t)^dim chi(-1/t)``, degree ``rank`` first (see :func:`poincare_from_characteristic`)."""
        return poincare_from_characteristic(self.characteristic_polynomial)


def regions_from_polynomial(chi: Poly) -> int:
    """Zaslavsky: ``(-1)^d chi(-1)`` for ``chi`` of degree ``d``.

    >>> regions_from_polynomial((1, -3, 2, 0))  # braid(3)
    6
    """
    return (-1) ** (len(chi) - 1) * evaluate(chi, -1)


def rank_from_polynomial(chi: Poly) -> int:
    """The rank: ``chi(t) = sum_k w_k t^(d - k)`` with ``w_k != 0`` exactly for ``k <= rank``.

    >>> rank_from_polynomial((1, -3, 2, 0))
    2
    """
    rank = 0
    for k, c in enumerate(chi):
        if c:
            rank = k
    return rank


def bounded_regions_from_polynomial(chi: Poly) -> int:
    """Zaslavsky: ``(-1)^rank chi(1)``, the relatively bounded regions.

    >>> bounded_regions_from_polynomial((1, -3, 3))  # three lines in general position
    1
    """
    return (-1) ** rank_from_polynomial(chi) * sum(chi)


def poincare_from_characteristic(chi: Poly) -> tuple[int, ...]:
    """The Poincare polynomial ``pi(t) = (-t)^d chi(-1/t) = sum_k |w_k| t^k``, degree ``rank`` first.

    It is the Hilbert series of the Orlik-Solomon algebra (the cohomology of the complement of the complexified
    arrangement); ``pi(1)`` is the number of regions.

    >>> poincare_from_characteristic((1, -3, 2, 0))  # braid(3): (1 + t)(1 + 2t)
    (2, 3, 1)
    """
    return tuple(abs(c) for c in reversed(chi[:rank_from_polynomial(chi) + 1]))


def _check(arrangement: "Arrangement", method: str, *, whole_space: bool) -> None:
    if method not in METHODS:
        raise InvalidInputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if whole_space and arrangement.domain is not None:
        raise InvalidInputError("count: expected an arrangement of the whole space (counting reads the "
                                "characteristic polynomial), got one restricted to a polytope; use regions()")


def _resolve(arrangement: "Arrangement", method: str, checkpoint: str | os.PathLike | None = None,
             progress: bool = False) -> tuple[Poly, str]:
    from polyregions._support.progress import progress_bar
    from polyregions.arrangements._deletion_restriction import deletion_restriction_polynomial
    from polyregions.arrangements._finite_field import finite_field_polynomial
    from polyregions.arrangements._integer_forms import essential_form
    from polyregions.arrangements._polynomials import shift

    if checkpoint is not None and method not in ("auto", "finite-field"):
        raise InvalidInputError(f"checkpoint: expected the method finite-field or auto (only point counts are "
                                f"kept), got method {method!r}")
    if method == "poset":
        with progress_bar(total=None, desc="characteristic polynomial", enabled=progress):
            return arrangement.poset.characteristic_polynomial(), method
    form = essential_form(arrangement.hyperplanes, arrangement.dim)
    lineality = arrangement.dim - form.rank
    if method == "finite-field" or (method == "auto" and checkpoint is not None):
        chi = finite_field_polynomial(form, checkpoint=checkpoint, progress=progress)
        return shift(chi, lineality), "finite-field"
    if method == "auto" and len(form.rows) > AUTO_SMALL:
        from polyregions.arrangements._point_count import OverBudget
        try:
            chi = finite_field_polynomial(form, max_states=AUTO_MAX_STATES, max_prime=AUTO_LARGEST_PRIME,
                                          progress=progress)
            return shift(chi, lineality), "finite-field"
        except OverBudget:
            pass
    with progress_bar(total=None, desc="characteristic polynomial", enabled=progress):
        return shift(deletion_restriction_polynomial(form), lineality), "deletion-restriction"


def characteristic_polynomial(arrangement: "Arrangement", *, method: str = "auto",
                              checkpoint: str | os.PathLike | None = None, progress: bool = False) -> tuple[int, ...]:
    """Coefficients of ``chi(t)``, degree ``dim`` first, constant last, by the chosen method.

    Parameters
    ----------
    method : {"auto", "finite-field", "deletion-restriction", "poset"}, keyword-only
        How ``chi`` is computed (see the module documentation); all give the same polynomial.
    checkpoint : path, optional, keyword-only
        A file (JSON) that keeps the point count of each prime of the finite-field method as it is finished,
        written atomically; a later call with the same file counts only the primes it lacks, so that a count of
        hours survives an interruption. With ``method="auto"`` it selects the finite-field method.
    progress : bool, keyword-only
        A bar on standard error (over the primes for the finite-field method).

    Notes
    -----
    Like :attr:`Arrangement.poset <polyregions.arrangements.Arrangement.poset>`, ``chi`` belongs to the
    hyperplanes in ``R^dim``: a domain plays no part in it.

    Raises
    ------
    InvalidInputError
        For an unknown method, a checkpoint with a method other than finite-field or auto, or a checkpoint
        file of another arrangement or with a malformed field.

    Examples
    --------
    >>> from polyregions.arrangements import braid
    >>> characteristic_polynomial(braid(4), method="finite-field")
    (1, -6, 11, -6, 0)
    """
    _check(arrangement, method, whole_space=False)
    return _resolve(arrangement, method, checkpoint, progress)[0]


def count_regions(arrangement: "Arrangement", *, method: str = "auto", checkpoint: str | os.PathLike | None = None,
                  progress: bool = False) -> RegionCount:
    """The numbers of regions and of relatively bounded regions, without listing them (Zaslavsky).

    Parameters
    ----------
    method : {"auto", "finite-field", "deletion-restriction", "poset"}, keyword-only
        How ``chi`` is computed (see the module's description).
    checkpoint, progress : keyword-only
        As for :func:`characteristic_polynomial`: a file that keeps each prime's point count, so that an
        interrupted count resumes; a bar on standard error.

    Raises
    ------
    InvalidInputError
        For an unknown method, an arrangement restricted to a domain (its cells are not counted by ``chi``), or
        a checkpoint as :func:`characteristic_polynomial` refuses it.

    Examples
    --------
    >>> from polyregions.arrangements import threshold
    >>> count_regions(threshold(4)).regions  # threshold functions of 4 variables
    1882
    """
    _check(arrangement, method, whole_space=True)
    chi, used = _resolve(arrangement, method, checkpoint, progress)
    return RegionCount(regions_from_polynomial(chi), bounded_regions_from_polynomial(chi), chi, arrangement.dim,
                       rank_from_polynomial(chi), used)


def count_summary(arrangement: "Arrangement", *, method: str = "auto", checkpoint: str | os.PathLike | None = None,
                  progress: bool = False) -> dict[str, Any]:
    """The numbers of ``polyregions arrangement --count --json``: the contract keys of the command (``regions``,
    ``bounded_regions``, ``characteristic_polynomial``, ``exact``, ``face_vector`` null, ``dimension``, ``rank``,
    ``hyperplanes``), the Poincare polynomial, ``central``, ``essential`` and the method used."""
    count = count_regions(arrangement, method=method, checkpoint=checkpoint, progress=progress)
    return {
        "dimension": arrangement.dim,
        "rank": count.rank,
        "hyperplanes": len(arrangement),
        "regions": count.regions,
        "bounded_regions": count.bounded_regions,
        "characteristic_polynomial": list(count.characteristic_polynomial),
        "face_vector": None,
        "exact": True,
        "poincare_polynomial": list(count.poincare_polynomial),
        "central": arrangement.is_central(),
        "essential": count.rank == arrangement.dim,
        "method": count.method,
    }
