"""The characteristic polynomial from point counts over a few finite fields.

``chi`` of an essential integer arrangement in ``R^r`` has degree ``r``; its top coefficients are ``1``, ``-m``
and the second Whitney number (:func:`._low_rank.second_whitney_number`), and when every hyperplane passes through
the origin ``t - 1`` divides it. The remaining coefficients are fixed by as many values ``chi(q)``, each the
number of points of ``F_q^r`` off the hyperplanes (:func:`._point_count.count_points`) for a prime ``q`` above a
bound on the maximal minors of the coned arrangement (:mod:`._minors`), which makes the reduction modulo ``q``
keep the intersection poset. Everything is exact: integer counts and rational interpolation whose coefficients
must come out integers.

Examples
--------
>>> from polyregions.arrangements._integer_forms import essential_form
>>> finite_field_polynomial(essential_form(((1, 0, 0, 0), (0, 1, 0, 0), (0, 0, 1, 0), (1, 1, 1, 0)), 3))
(1, -4, 6, -3)
"""

from __future__ import annotations

from polyregions.arrangements._integer_forms import IntegerForm
from polyregions.arrangements._low_rank import second_whitney_number
from polyregions.arrangements._minors import minor_bound
from polyregions.arrangements._point_count import OverBudget, count_points, primes_above
from polyregions.arrangements._polynomials import Poly, interpolate_low, times_linear
from polyregions.errors import CertificateError, InvalidInputError

__all__ = ["MAX_PRIME", "good_prime_bound", "finite_field_polynomial"]

#: The largest prime the method accepts: a state holds a bit per element of ``F_q``, and levels hold up to
#: ``q^k`` states, so beyond a few thousand the count would not end; deletion-restriction does not care.
MAX_PRIME = 4099
#: Above 63 (no longer one machine word per value set) the count runs on Python integers, and the method
#: accepts only ``q^rank <=`` this many possible steps.
MAX_PYTHON_STEPS = 2 * 10 ** 7


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


def finite_field_polynomial(form: IntegerForm, *, max_states: int | None = None,
                            max_prime: int | None = None) -> Poly:
    """``chi`` of an essential integer form (degree ``form.rank``) from point counts.

    Raises :class:`._point_count.OverBudget` when a count would hold more than ``max_states`` states in a
    level, or would need a prime above ``max_prime``.
    """
    r, rows = form.rank, form.rows
    if r == 0:
        return (1,)
    known = (1, -len(rows)) + ((second_whitney_number(rows, r),) if r >= 2 else ())  # no rank-2 flats below 2
    homogeneous = form.homogeneous
    if homogeneous:  # chi = (t - 1) p: the top coefficients of p by synthetic division
        top: list[int] = []
        for c in known[:r]:
            top.append(c + (top[-1] if top else 0))
        known, degree = tuple(top), r - 1
    else:
        degree = r
    unknown = degree + 1 - len(known)
    points: list[int] = []
    values: list[int] = []
    if unknown > 0:
        kernel = [row[:-1] + (-row[-1],) for row in rows]
        bound = good_prime_bound(form)
        if max_prime is not None and bound >= max_prime:
            raise OverBudget(f"primes above {bound} needed, allowed up to {max_prime}")
        if bound >= MAX_PRIME or (bound >= 63 and bound ** r > MAX_PYTHON_STEPS):
            raise InvalidInputError(f"finite-field: expected an arrangement whose maximal minors are small enough "
                                    f"for counts over F_q with q above them, got a bound of {bound} in rank {r}; "
                                    f"use method=\"deletion-restriction\"")
        primes = primes_above(bound, unknown)
        if max_prime is not None and primes[-1] > max_prime:
            raise OverBudget(f"prime {primes[-1]} above {max_prime}")
        for q in primes:
            value = count_points(kernel, r, q, max_states=max_states)
            if homogeneous:
                if value % (q - 1):
                    raise CertificateError(f"expected a point count divisible by q - 1 = {q - 1}, got {value}")
                value //= q - 1
            points.append(q)
            values.append(value)
    polynomial = interpolate_low(known, degree, points, values)
    return times_linear(polynomial, 1) if homogeneous else polynomial
