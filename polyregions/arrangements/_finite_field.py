"""The characteristic polynomial from point counts over a few finite fields.

``chi`` of an essential integer arrangement in ``R^r`` has degree ``r``; its top coefficients are ``1``, ``-m``
and the second Whitney number (:func:`._low_rank.second_whitney_number`), and when every hyperplane passes through
the origin ``t - 1`` divides it. The remaining coefficients are fixed by as many values ``chi(q)``, each the
number of points of ``F_q^r`` off the hyperplanes (:func:`._point_count.count_points`) for a prime ``q`` above a
bound on the maximal minors of the coned arrangement (:mod:`._minors`), which makes the reduction modulo ``q``
keep the intersection poset. Everything is exact: integer counts and rational interpolation whose coefficients
must come out integers. The counts of the primes are independent; a long run keeps each one in a checkpoint file
as it is finished (:mod:`._count_checkpoint`) and, run again, counts only the ones it lacks.

Examples
--------
>>> from polyregions.arrangements._integer_forms import essential_form
>>> finite_field_polynomial(essential_form(((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (1, 1, 1, 0)), 3))
(1, -4, 6, -3)
"""

from __future__ import annotations

import os
import time

from polyregions.arrangements._integer_forms import IntegerForm
from polyregions.arrangements._low_rank import second_whitney_number
from polyregions.arrangements._minors import minor_bound
from polyregions.arrangements._point_count import OverBudget, count_points, primes_above
from polyregions.arrangements._polynomials import Poly, interpolate_low, times_linear
from polyregions.errors import CertificateError, InvalidInputError

__all__ = ["MAX_PRIME", "good_prime_bound", "finite_field_polynomial", "planned_primes"]

#: The largest prime the method accepts: a state holds a bit per element of ``F_q``, and levels hold up to
#: ``q^k`` states, so beyond a few thousand the count would not end; deletion-restriction does not care.
MAX_PRIME = 4099
#: Up to this prime a set takes two machine words and the count has no limit but its states; above, the method
#: accepts only ``q^rank <=`` :data:`MAX_WIDE_STEPS` possible steps.
WIDE_PRIME = 127
MAX_WIDE_STEPS = 2 * 10 ** 7


def good_prime_bound(form: IntegerForm) -> int:
    """A number above which every prime reduces the arrangement well.

    Every maximal minor of the cone (rows ``(a, -c)`` and ``(0, ..., 0, 1)``) is a maximal minor of the normals
    or, expanded along the last column, a sum of ``r + 1`` of them times the ``c`` of their rows.
    """
    r = form.rank
    bound = minor_bound(form.normals, r)
    if not form.homogeneous:
        offsets = sorted((abs(row[-1]) for row in form.rows), reverse=True)[:r + 1]
        bound = max(bound, sum(offsets) * bound)
    return bound


def _known_top(form: IntegerForm) -> tuple[tuple[int, ...], int]:
    """The coefficients of ``chi`` known without counting (or of ``chi / (t - 1)`` for a central arrangement),
    highest first, and the degree of that polynomial."""
    r, rows = form.rank, form.rows
    known = (1, -len(rows)) + ((second_whitney_number(rows, r),) if r >= 2 else ())  # no rank-2 flats below 2
    if not form.homogeneous:
        return known, r
    top: list[int] = []  # chi = (t - 1) p: the top coefficients of p by synthetic division
    for c in known[:r]:
        top.append(c + (top[-1] if top else 0))
    return tuple(top), r - 1


def planned_primes(form: IntegerForm, *, max_prime: int | None = None) -> list[int]:
    """The primes whose point counts fix ``chi`` (none when its known coefficients are all of it).

    Raises :class:`._point_count.OverBudget` beyond ``max_prime``, and InvalidInputError when the primes are
    too large for the method at all.
    """
    known, degree = _known_top(form)
    unknown = degree + 1 - len(known)
    if unknown <= 0:
        return []
    r, bound = form.rank, good_prime_bound(form)
    if max_prime is not None and bound >= max_prime:
        raise OverBudget(f"primes above {bound} needed, allowed up to {max_prime}")
    if bound >= MAX_PRIME or (bound >= WIDE_PRIME and bound ** r > MAX_WIDE_STEPS):
        raise InvalidInputError(f"finite-field: expected an arrangement whose maximal minors are small enough "
                                f"for counts over F_q with q above them, got a bound of {bound} in rank {r}; "
                                f"use method=\"deletion-restriction\"")
    primes = primes_above(bound, unknown)
    if max_prime is not None and primes[-1] > max_prime:
        raise OverBudget(f"prime {primes[-1]} above {max_prime}")
    return primes


def finite_field_polynomial(form: IntegerForm, *, max_states: int | None = None, max_prime: int | None = None,
                            checkpoint: str | os.PathLike | None = None, progress: bool = False) -> Poly:
    """``chi`` of an essential integer form (degree ``form.rank``) from point counts.

    ``checkpoint`` names a file that keeps each prime's count as it is finished (:mod:`._count_checkpoint`): a
    run with a file of earlier counts of the same arrangement counts only the primes missing from it.
    ``progress`` shows a bar over the primes on standard error, the state of the running count beside it.

    Raises :class:`._point_count.OverBudget` when a count would hold more than ``max_states`` states in a
    level, or would need a prime above ``max_prime``.
    """
    from polyregions._support.progress import progress_bar
    from polyregions.arrangements._count_checkpoint import CountCheckpoint, PrimeCount

    if form.rank == 0:
        return (1,)
    known, degree = _known_top(form)
    primes = planned_primes(form, max_prime=max_prime)
    kernel = [row[:-1] + (-row[-1],) for row in form.rows]
    saved = CountCheckpoint(checkpoint, form, primes) if checkpoint is not None and primes else None
    counts = dict(saved.counts) if saved is not None else {}
    with progress_bar(total=len(primes), desc="point counts", enabled=progress and bool(primes)) as bar:
        bar.update(len(counts))
        for q in primes:
            if q in counts:
                continue
            label = f"q = {q}"
            bar.set_postfix_str(label)

            def report(text: str, label: str = label) -> None:
                bar.set_postfix_str(f"{label}: {text}")

            wall, cpu = time.perf_counter(), time.process_time()
            points = count_points(kernel, form.rank, q, max_states=max_states, report=report)
            counts[q] = PrimeCount(q, points, time.perf_counter() - wall, time.process_time() - cpu)
            if saved is not None:
                saved.record(counts[q])
            bar.update(1)
    values = []
    for q in primes:
        value = counts[q].points
        if form.homogeneous:
            if value % (q - 1):
                raise CertificateError(f"expected a point count divisible by q - 1 = {q - 1}, got {value}")
            value //= q - 1
        values.append(value)
    polynomial = interpolate_low(known, degree, primes, values)
    return times_linear(polynomial, 1) if form.homogeneous else polynomial
