"""The Varchenko matrix of an arrangement and Varchenko's formula for its determinant.

Give hyperplane ``H`` a weight ``a_H``. The *Varchenko matrix* has a row and a column per region; its entry for
regions ``R`` and ``S`` is the product of the weights of the hyperplanes separating them (1 on the diagonal).
Varchenko (1993) proved

    ``det = prod_X (1 - a_X^2)^(n(X) p(X))``

over the flats ``X`` other than the whole space, where ``a_X`` is the product of the weights of the hyperplanes
containing ``X``, ``n(X)`` the number of regions of the arrangement restricted to ``X``, and ``p(X)`` the beta
invariant of the hyperplanes through ``X`` (``(-1)^(rank X - 1) chi_X'(1)``: 1 for one hyperplane, 0 when they
are independent, ``k - 2`` for ``k`` lines through a point of the plane). For small arrangements both sides are
computed exactly (sympy) and compared in the tests.

Examples
--------
Two lines crossing in the plane: four regions, and the point where they cross contributes nothing.

>>> from polyregions.arrangements import Arrangement
>>> two = Arrangement([[1, 0, 0], [0, 1, 0]])
>>> varchenko_formula(two)
(1 - a1**2)**2*(1 - a2**2)**2
>>> import sympy
>>> sympy.factor(varchenko_determinant(two) - varchenko_formula(two))
0
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Sequence

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    import sympy

    from polyregions.arrangements.arrangement import Arrangement

__all__ = ["varchenko_matrix", "varchenko_determinant", "varchenko_formula", "beta_invariants"]


def _weights(arrangement: "Arrangement", weights: Sequence[Any] | None) -> list:
    import sympy

    if arrangement.domain is not None:
        raise InvalidInputError("varchenko: expected an arrangement of the whole space, got one restricted to a "
                                "polytope")
    if weights is None:
        return list(sympy.symbols(f"a1:{len(arrangement) + 1}")) if len(arrangement) else []
    if len(weights) != len(arrangement):
        raise InvalidInputError(f"weights: expected one per hyperplane ({len(arrangement)}), got {len(weights)}")
    return [sympy.sympify(w) for w in weights]


def varchenko_matrix(arrangement: "Arrangement", *, weights: Sequence[Any] | None = None) -> "sympy.Matrix":
    """The Varchenko matrix, rows and columns in the order of :meth:`~polyregions.arrangements.Arrangement.regions`.

    Parameters
    ----------
    weights : sequence, keyword-only
        One sympy expression (or number) per hyperplane; the symbols ``a1, a2, ...`` by default.

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> varchenko_matrix(Arrangement([[1, 0], [1, 1]]))  # the points 0 and 1 of the line
    Matrix([
    [    1, a1, a1*a2],
    [   a1,  1,    a2],
    [a1*a2, a2,     1]])
    """
    import sympy

    a = _weights(arrangement, weights)
    signs = [region.signs for region in arrangement.regions()]

    def entry(i: int, j: int) -> Any:
        return sympy.Mul(*[w for w, s, t in zip(a, signs[i], signs[j]) if s != t])

    return sympy.Matrix(len(signs), len(signs), entry)


def varchenko_determinant(arrangement: "Arrangement", *, weights: Sequence[Any] | None = None) -> "sympy.Expr":
    """The determinant of :func:`varchenko_matrix`, factored.

    Computed fraction-free over the polynomial ring of the weights (sympy's ``DomainMatrix``): a 7 x 7 matrix
    (three lines) in a tenth of a second, 11 x 11 in seconds; it is symbolic, so keep to small arrangements.
    """
    import sympy
    from sympy.polys.matrices import DomainMatrix

    matrix = DomainMatrix.from_Matrix(varchenko_matrix(arrangement, weights=weights))
    return sympy.factor(matrix.domain.to_sympy(matrix.det()))


def beta_invariants(arrangement: "Arrangement") -> tuple[int, ...]:
    """The beta invariant of the hyperplanes through each flat of :attr:`poset` (in its order; 0 for the whole
    space): ``(-1)^(k - 1) sum_{Y >= X} mu(Y) dim(Y)`` over the flats ``Y`` containing the flat ``X`` of rank
    ``k``, that is ``(-1)^(k - 1) chi_X'(1)`` for the central arrangement of the hyperplanes through ``X``.

    >>> from polyregions.arrangements import Arrangement
    >>> beta_invariants(Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 0]]))  # 3 lines through 0
    (0, 1, 1, 1, 1)
    """
    poset = arrangement.poset
    mu = poset.mobius
    out = []
    for flat in poset.flats:
        if not flat.rank:
            out.append(0)
            continue
        derivative = sum(mu[y.index] * y.dim for y in poset.flats if y.hyperplanes <= flat.hyperplanes)
        out.append((-1) ** (flat.rank - 1) * derivative)
    return tuple(out)


def varchenko_formula(arrangement: "Arrangement", *, weights: Sequence[Any] | None = None) -> "sympy.Expr":
    """``prod_X (1 - a_X^2)^(n(X) p(X))``: Varchenko's value of the determinant, from the poset alone."""
    import sympy

    a = _weights(arrangement, weights)
    poset = arrangement.poset
    factors = []
    for flat, beta in zip(poset.flats, beta_invariants(arrangement)):
        if not flat.rank or not beta:
            continue
        regions = arrangement.restriction(flat).predicted_regions()
        a_x = sympy.Mul(*[a[i] for i in sorted(flat.hyperplanes)])
        factors.append((1 - a_x ** 2) ** (regions * beta))
    return sympy.Mul(*factors)
