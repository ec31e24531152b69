"""Exact linear algebra over the rationals.

Matrices are tuples of rows of :class:`~fractions.Fraction`; the work is done by FLINT's ``fmpq_mat``
(python-flint), which solves a 5x5 system in about a microsecond, two orders of magnitude faster than
``fractions`` (see ``benchmarks/``).
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Sequence

from polyregions.errors import InfeasibleError, InvalidInputError

if TYPE_CHECKING:
    from flint import fmpq, fmpq_mat

__all__ = [
    "Matrix",
    "Vector",
    "to_flint",
    "from_flint",
    "solve",
    "rank",
    "determinant",
    "rref",
    "nullspace",
    "matmul",
    "matvec",
    "dot",
]

Vector = tuple[Fraction, ...]
Matrix = tuple[Vector, ...]


def _fmpq(value: Fraction) -> fmpq:
    import flint  # on first use: most mesh runs never need FLINT, whose import costs tens of milliseconds

    return flint.fmpq(value.numerator, value.denominator)


def _fraction(value: fmpq) -> Fraction:
    return Fraction(int(value.p), int(value.q))


def to_flint(rows: Sequence[Sequence[Fraction]], ncols: int | None = None) -> fmpq_mat:
    """Return the ``fmpq_mat`` of a matrix given as rows (``ncols`` is needed only when there are no rows)."""
    import flint

    n_rows = len(rows)
    n_cols = len(rows[0]) if n_rows else (ncols or 0)
    return flint.fmpq_mat(n_rows, n_cols, [_fmpq(Fraction(v)) for row in rows for v in row])


def from_flint(matrix: fmpq_mat) -> Matrix:
    """Return the rows of an ``fmpq_mat`` as tuples of fractions."""
    return tuple(tuple(_fraction(v) for v in row) for row in matrix.tolist())


def solve(matrix: Sequence[Sequence[Fraction]], rhs: Sequence[Fraction]) -> Vector:
    """Solve the square, non-singular system ``matrix @ x = rhs`` exactly.

    Raises :class:`InfeasibleError` when the matrix is singular.

    Examples
    --------
    >>> solve([[2, 0], [0, 4]], [1, 1])
    (Fraction(1, 2), Fraction(1, 4))
    """
    n = len(matrix)
    if any(len(row) != n for row in matrix) or len(rhs) != n:
        raise InvalidInputError(f"solve: expected an n x n matrix and n right-hand sides, got "
                                f"{n} rows of lengths {sorted({len(r) for r in matrix})} and {len(rhs)} values")
    if n == 0:
        return ()
    try:
        x = to_flint(matrix).solve(to_flint([[v] for v in rhs]))
    except ZeroDivisionError:
        raise InfeasibleError(f"solve: the {n} x {n} matrix is singular") from None
    return tuple(_fraction(v) for v in x.entries())


def rank(matrix: Sequence[Sequence[Fraction]]) -> int:
    """Return the exact rank of a matrix."""
    return to_flint(matrix).rank() if len(matrix) else 0


def determinant(matrix: Sequence[Sequence[Fraction]]) -> Fraction:
    """Return the exact determinant of a square matrix."""
    if len(matrix) == 0:
        return Fraction(1)
    if any(len(row) != len(matrix) for row in matrix):
        raise InvalidInputError(f"determinant: expected a square matrix, got {len(matrix)} rows of length "
                                f"{len(matrix[0])}")
    return _fraction(to_flint(matrix).det())


def rref(matrix: Sequence[Sequence[Fraction]], ncols: int | None = None) -> tuple[Matrix, tuple[int, ...]]:
    """Return the reduced row echelon form (non-zero rows only) and its pivot columns."""
    if not len(matrix):
        return (), ()
    reduced, r = to_flint(matrix, ncols).rref()
    rows = from_flint(reduced)[:r]
    pivots = tuple(next(j for j, v in enumerate(row) if v) for row in rows)
    return rows, pivots


def nullspace(matrix: Sequence[Sequence[Fraction]], ncols: int | None = None) -> Matrix:
    """Return a basis of ``{x : matrix @ x = 0}`` as rows (``ncols`` is needed only when there are no rows).

    Examples
    --------
    >>> nullspace([[1, 1]])
    ((Fraction(-1, 1), Fraction(1, 1)),)
    """
    n = len(matrix[0]) if len(matrix) else (ncols or 0)
    rows, pivots = rref(matrix, n)
    free = [j for j in range(n) if j not in pivots]
    basis = []
    for f in free:
        x = [Fraction(0)] * n
        x[f] = Fraction(1)
        for row, p in zip(rows, pivots):
            x[p] = -row[f]
        basis.append(tuple(x))
    return tuple(basis)


def dot(u: Sequence[Fraction], v: Sequence[Fraction]) -> Fraction:
    """Exact dot product."""
    return sum((a * b for a, b in zip(u, v)), Fraction(0))


def matvec(matrix: Sequence[Sequence[Fraction]], vector: Sequence[Fraction]) -> Vector:
    """Exact matrix-vector product."""
    return tuple(dot(row, vector) for row in matrix)


def matmul(left: Sequence[Sequence[Fraction]], right: Sequence[Sequence[Fraction]]) -> Matrix:
    """Exact matrix product."""
    if not len(left) or not len(right):
        return tuple(() for _ in left)
    return from_flint(to_flint(left) * to_flint(right))
