"""Face vectors without listing faces: one count of regions per flat.

The faces of an arrangement lying in a flat ``X`` (relatively open, of dimension ``dim X``) are exactly the
regions of the restriction ``A^X``, the arrangement the other hyperplanes cut out on ``X``. So

    ``f_k = sum over the flats X of dimension k of r(A^X)``,

and ``r(A^X) = (-1)^(dim X) chi_{A^X}(-1)`` (Zaslavsky) needs no listing either. Each ``chi_{A^X}`` comes from
deletion-restriction with one cache for the whole computation (:mod:`._deletion_restriction`): restrictions to
different flats are often the same arrangement in other coordinates. Flats of dimension 0 and 1 are counted
directly (a point is one face, a line cut at ``p`` distinct points has ``2p + 1`` faces, ``p + 1`` of them
open intervals). Memory holds the intersection poset, never a face.

Examples
--------
>>> from polyregions.arrangements import braid
>>> face_vector(braid(4))  # ordered set partitions of 4 elements, by number of blocks: k! S(4, k)
(0, 1, 14, 36, 24)
"""

from __future__ import annotations

from operator import mul
from typing import TYPE_CHECKING

from polyregions.arrangements._kernel import IntRow, canonical
from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from polyregions.arrangements.arrangement import Arrangement
    from polyregions.arrangements.poset import Flat

__all__ = ["face_vector", "restriction_regions", "METHODS"]

METHODS = ("auto", "restrictions", "enumeration")


def _directions(rows: tuple[IntRow, ...]) -> tuple[list[IntRow], dict[IntRow, list[int]]]:
    """The direction of each row's normal, and the rows (by index, in order) of each direction."""
    of = [canonical(row[:-1])[0] for row in rows]
    classes: dict[IntRow, list[int]] = {}
    for i, direction in enumerate(of):
        classes.setdefault(direction, []).append(i)
    return of, classes


def _restricted_rows(rows: tuple[IntRow, ...], flat: "Flat",
                     directions: tuple[list[IntRow], dict[IntRow, list[int]]] | None = None) -> list[IntRow]:
    """The distinct hyperplanes ``(a, c)`` of ``A^X`` in the flat's chart (parallel ones that miss it dropped).

    A row parallel to a hyperplane through the flat is constant on it and never restricted: with ``directions``
    (:func:`_directions`), such rows are skipped by class, so the flats of 10,000 parallel hyperplanes cost no
    restriction at all (``O(m^2)`` of them before)."""
    of, classes = directions if directions is not None else _directions(rows)
    parallel = {of[i] for i in flat.hyperplanes}
    candidates = sorted(i for direction, members in classes.items() if direction not in parallel for i in members)
    columns = flat.columns
    out: dict[IntRow, None] = {}
    for i in candidates:
        r = tuple(sum(map(mul, rows[i], c)) for c in columns)
        if any(r[:-1]):
            out.setdefault(canonical(r[:-1] + (-r[-1],))[0])
    return list(out)


class _RegionCounter:
    """``r(B)`` for arrangements ``B`` given by distinct canonical rows ``(a, c)``; one cache for all of them."""

    def __init__(self) -> None:
        from polyregions.arrangements._deletion_restriction import _Solver

        self.solver = _Solver()

    def regions(self, rows: list[IntRow], dim: int) -> int:
        from polyregions.arrangements._integer_forms import essential_form
        from polyregions.arrangements._polynomials import divide_linear

        if not rows:
            return 1
        if dim == 1:
            return len(rows) + 1  # distinct points on a line
        form = essential_form(tuple(rows), dim)
        r = form.rank
        if form.homogeneous:
            chi = self.solver.solve(tuple(row[:-1] for row in form.rows), r)
        else:
            cone = tuple(row[:-1] + (-row[-1],) for row in form.rows) + ((0,) * r + (1,),)
            chi = divide_linear(self.solver.solve(cone, r + 1), 1)
        return sum(abs(c) for c in chi)  # (-1)^r chi(-1): the coefficients alternate in sign


def restriction_regions(arrangement: "Arrangement") -> tuple[int, ...]:
    """``r(A^X)`` for every flat ``X`` of :attr:`Arrangement.poset <polyregions.arrangements.Arrangement.poset>`,
    in the order of its flats (the whole space first: the number of regions).

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> restriction_regions(Arrangement([[1, 0, 0], [0, 1, 0]]))  # the plane, two axes, the origin
    (4, 2, 2, 1)
    """
    counter = _RegionCounter()
    rows = arrangement.hyperplanes
    directions = _directions(arrangement._rows)
    out = []
    for flat in arrangement.poset.flats:
        if flat.dim == 0:
            out.append(1)
            continue
        restricted = rows if flat.rank == 0 else tuple(_restricted_rows(arrangement._rows, flat, directions))
        out.append(counter.regions(list(restricted), flat.dim))
    return tuple(out)


def face_vector(arrangement: "Arrangement", *, method: str = "auto") -> tuple[int, ...]:
    """The number of faces of each dimension ``0..dim``.

    Parameters
    ----------
    method : {"auto", "restrictions", "enumeration"}, keyword-only
        ``"restrictions"`` sums the region counts of the restrictions to the flats (no face is listed; for
        arrangements with millions of faces); ``"enumeration"`` lists every face
        (:meth:`Arrangement.f_vector <polyregions.arrangements.Arrangement.f_vector>`). ``"auto"``: restrictions,
        unless the arrangement has a domain (its cells are not counted by characteristic polynomials).

    Raises
    ------
    InvalidInputError
        For an unknown method, or ``"restrictions"`` with a domain.

    Examples
    --------
    >>> from polyregions.arrangements import Arrangement
    >>> face_vector(Arrangement([[1, 0, 0], [0, 1, 0], [1, 1, 1]]))  # three lines in general position
    (3, 9, 7)
    """
    if method not in METHODS:
        raise InvalidInputError(f"method: expected one of {', '.join(METHODS)}, got {method!r}")
    if method == "auto":
        method = "enumeration" if arrangement.domain is not None else "restrictions"
    if method == "enumeration":
        return arrangement.f_vector()
    if arrangement.domain is not None:
        raise InvalidInputError("face_vector: expected an arrangement of the whole space for method "
                                "\"restrictions\", got one restricted to a polytope; use method=\"enumeration\"")
    counts = [0] * (arrangement.dim + 1)
    for flat, regions in zip(arrangement.poset.flats, restriction_regions(arrangement)):
        counts[flat.dim] += regions
    return tuple(counts)
