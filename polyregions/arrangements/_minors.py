"""Bounds on the maximal minors of an integer matrix: which primes reduce an arrangement well.

The finite-field method counts points over ``F_q``; it gives ``chi(q)`` when reduction modulo ``q`` keeps the
matroid of the (coned) arrangement, which holds when ``q`` divides no non-zero maximal minor: a set of rows
independent over ``Q`` extends to a basis, whose determinant stays non-zero modulo ``q``. So every prime above
a bound on the absolute values of the ``r x r`` minors is good. Three bounds, the smallest wins:

* Hadamard's: the product of the ``r`` largest row norms;
* for rows that are ``+-`` 0/1 vectors, the bound of the ``+-1`` matrices of order ``r + 1`` divided by ``2^r``
  (an ``r x r`` 0/1 matrix ``B`` gives the ``+-1`` matrix ``[[1, 1^T], [1, J - 2 B]]``, of determinant
  ``(-2)^r det B`` up to sign): Hadamard's ``n^(n/2)``, and for odd ``n`` Barba's ``sqrt(2n - 1) (n - 1)^((n - 1)/2)``
  (32 for the resonance arrangement in ``R^7``, where the row bound gives 571; 65 in ``R^8``, where Hadamard's
  gives 76);
* the exact maximum, when the minors are few enough to compute them all (exterior products over machine
  integers, vectorised; used only when Hadamard's bound shows that no value can overflow).

Examples
--------
>>> minor_bound([(1, 0), (0, 1), (1, 1)], 2)
1
"""

from __future__ import annotations

import itertools
import math
from typing import Sequence

from polyregions.arrangements._kernel import IntRow

__all__ = ["hadamard_bound", "zero_one_bound", "exact_max_minor", "minor_bound"]

#: The most ``r x r`` minors :func:`exact_max_minor` computes (a few seconds).
EXACT_BUDGET = 4_000_000


def hadamard_bound(rows: Sequence[IntRow], r: int) -> int:
    """``floor(sqrt(prod of the r largest squared row norms))``: no ``r x r`` minor is larger.

    >>> hadamard_bound([(1, 1), (1, -1), (0, 1)], 2)
    2
    """
    squares = sorted((sum(v * v for v in row) for row in rows), reverse=True)[:r]
    return math.isqrt(math.prod(squares))


def zero_one_bound(r: int) -> int:
    """A bound on the determinant of an ``r x r`` matrix whose rows are 0/1 vectors up to sign: that of the
    ``+-1`` matrices of order ``n = r + 1`` over ``2^r``, by Hadamard's inequality ``n^(n/2)`` and, for odd
    ``n``, Barba's ``sqrt(2n - 1) (n - 1)^((n - 1)/2)`` (the Gram matrix of a ``+-1`` matrix of odd order has
    ``n`` on its diagonal and odd entries off it; Barba, 1933).

    >>> [zero_one_bound(r) for r in range(1, 9)]
    [1, 1, 2, 3, 6, 12, 32, 65]
    """
    n = r + 1
    bound = math.isqrt(n ** n)
    if n % 2:
        bound = min(bound, math.isqrt((2 * n - 1) * (n - 1) ** (n - 1)))
    return bound >> r  # floor(floor(x) / 2^r) = floor(x / 2^r)


def exact_max_minor(rows: Sequence[IntRow], r: int) -> int:
    """The largest absolute value of an ``r x r`` minor, computed exactly (every ``r``-subset of the rows).

    The minors of the growing subsets are built as exterior products, one row at a time: the Pluecker
    coordinates of ``S + {v}`` (its ``k x k`` minors) come from those of ``S`` by expanding along the new row,
    and the last row's minors are one matrix product with the cofactor vectors of the ``(r - 1)``-subsets. In
    64-bit integers: every value is a minor, so the caller makes sure that Hadamard's bound (squared, for the
    products) fits.
    """
    import numpy as np

    matrix = np.array(rows, dtype=np.int64)
    m = len(rows)
    if r == 1:
        return int(np.abs(matrix).max())
    last = np.arange(m)
    wedge = matrix.copy()  # the 1 x 1 minors: columns are the 1-subsets of the columns
    for k in range(2, r):
        columns = list(itertools.combinations(range(r), k))
        where = {J: i for i, J in enumerate(itertools.combinations(range(r), k - 1))}
        counts = m - 1 - last
        parents = np.repeat(np.arange(len(last)), counts)
        starts = np.cumsum(counts) - counts
        added = np.repeat(last + 1, counts) + (np.arange(len(parents)) - np.repeat(starts, counts))
        grown = np.zeros((len(parents), len(columns)), dtype=np.int64)
        for c, J in enumerate(columns):
            for t, j in enumerate(J):
                term = wedge[parents, where[J[:t] + J[t + 1:]]] * matrix[added, j]
                grown[:, c] += term if (k - 1 - t) % 2 == 0 else -term
        wedge, last = grown, added
    # det(S + {v}) = v . cofactors(S); the cofactor of column j is the minor without j, signed
    cofactors = np.stack([wedge[:, r - 1 - j] * (1 if (r - 1 - j) % 2 == 0 else -1) for j in range(r)], axis=1)
    best = 0
    for begin in range(0, len(cofactors), 20_000):
        best = max(best, int(np.abs(cofactors[begin:begin + 20_000] @ matrix.T).max()))
    return best


def minor_bound(rows: Sequence[IntRow], r: int, *, budget: int = EXACT_BUDGET) -> int:
    """The best of the bounds above on ``|det|`` of ``r`` of the rows (length ``r``, distinct, rank ``r``).

    >>> from itertools import product
    >>> resonance = [a for a in product((0, 1), repeat=7) if any(a)]
    >>> hadamard_bound(resonance, 7), minor_bound(resonance, 7)
    (571, 32)
    """
    bound = hadamard_bound(rows, r)
    if all(set(row) <= {0, 1} or set(row) <= {0, -1} for row in rows):
        bound = min(bound, zero_one_bound(r))
    widest = max(math.comb(len(rows), k) * math.comb(r, k) for k in range(1, r))  # the minors built on the way
    if widest <= budget and bound * bound < 2 ** 62 and bound > 1:
        bound = min(bound, exact_max_minor(rows, r))
    return bound
