"""Assertion helpers for code built on polyregions, in the manner of ``numpy.testing`` and ``shapely.testing``.

Each helper returns None when its claim holds and raises ``AssertionError`` with a message saying what differs
when it does not. Every check is exact: certificates are re-checked with rationals, complexes are compared by
activation pattern with exact polytope equality, and an export is re-verified by the independent checker
``proofs_check`` in a separate process (so that the checker never imports polyregions).

=====================================  ===============================================================
:func:`assert_certified_lp`            an :class:`~polyregions.exact.lp.LPResult`'s certificate checks exactly
:func:`assert_complexes_equal`         two region complexes are the same complex
:func:`assert_export_verifies`         ``python -m proofs_check verify`` accepts a JSON export
=====================================  ===============================================================

Examples
--------
>>> from polyregions.exact.lp import maximize
>>> assert_certified_lp(maximize([1, 1], [[1, 0], [0, 1]], [1, 2]), [1, 1], [[1, 0], [0, 1]], [1, 2])
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Iterable, Sequence

from polyregions.errors import InvalidInputError
from polyregions.exact._integers import primitive
from polyregions.exact.linalg import Matrix, Vector, dot, rref

if TYPE_CHECKING:
    from polyregions.exact.lp import LPResult
    from polyregions.regions.complex import RegionComplex

__all__ = ["assert_certified_lp", "assert_complexes_equal", "assert_export_verifies", "primitive_rows"]

_ZERO = Fraction(0)
_SHOWN = 5  # differences listed in a message; the rest are counted


# ------------------------------------------------------------------------------------------- certified LPs


def assert_certified_lp(result: "LPResult", c: Sequence, A: Sequence[Sequence], b: Sequence, *,
                        E: Sequence[Sequence] = (), e: Sequence = ()) -> None:
    """Assert that an LP result's certificate proves its answer to ``max c.x, A x <= b, E x = e``, exactly.

    What is checked depends on the status (the way an independent verifier would, with rationals only):

    * ``"optimal"``: the point satisfies ``A x <= b`` and ``E x = e``; its objective is ``value``; the
      multipliers ``y`` are ``>= 0`` and, for some ``z``, ``y A + z E = c`` and ``y.b + z.e = value``
      (so no feasible point does better).
    * ``"unbounded"``: the point is feasible, and the ray ``d`` has ``A d <= 0``, ``E d = 0`` and ``c.d > 0``.
    * ``"infeasible"``: the equalities alone are inconsistent (the result then carries no multipliers), or
      Farkas multipliers ``y >= 0`` with ``y A + z E = 0`` and ``y.b + z.e < 0`` for some ``z``.

    Parameters
    ----------
    result : LPResult
        From :func:`polyregions.exact.lp.maximize`.
    c, A, b : the objective and the inequalities ``A x <= b``, numbers in any exact form.
    E, e : the equalities ``E x = e``, keyword-only (default: none).

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        When the certificate does not prove the answer; the message names the first check that fails.
    InvalidInputError
        When ``result`` is not an LPResult or the program's shapes disagree.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from polyregions.exact.lp import LPResult, maximize
    >>> assert_certified_lp(maximize([1, 2], [[1, 0], [0, 1]], [5, 5], E=[[1, 1]], e=[3]), [1, 2],
    ...                     [[1, 0], [0, 1]], [5, 5], E=[[1, 1]], e=[3])
    >>> forged = LPResult("optimal", value=Fraction(4), point=(Fraction(2),), multipliers=(Fraction(1),))
    >>> assert_certified_lp(forged, [1], [[1]], [3])
    Traceback (most recent call last):
    ...
    AssertionError: LP certificate (optimal): the objective at the point is 2, the result says value 4
    """
    from polyregions.exact.lp import LPResult
    from polyregions.exact.rationals import rational_matrix, rational_vector

    if not isinstance(result, LPResult):
        raise InvalidInputError(f"assert_certified_lp: expected an LPResult, got {type(result).__name__}")
    c = rational_vector(c, what="c")
    n = len(c)
    A = rational_matrix(A, what="A", shape=(None, n))
    b = rational_vector(b, what="b", length=len(A))
    E = rational_matrix(E, what="E", shape=(None, n))
    e = rational_vector(e, what="e", length=len(E))
    where = f"LP certificate ({result.status})"
    if result.status == "optimal":
        x = _feasible(where, result.point, A, b, E, e, n)
        value = result.value
        if value is None:
            raise AssertionError(f"{where}: no value")
        _require(dot(c, x) == value, f"{where}: the objective at the point is {dot(c, x)}, the result says value "
                                     f"{value}")
        y = _multipliers(where, result.multipliers, len(A))
        yA = _combine_rows(y, A, n)
        z = _combination(E, tuple(cj - v for cj, v in zip(c, yA)), n)
        if z is None:
            raise AssertionError(f"{where}: the multipliers give y A = {_text(yA)}, which differs from c = "
                                 f"{_text(c)} by more than a combination of the equalities")
        bound = dot(y, b) + dot(z, e)
        _require(bound == value, f"{where}: the multipliers bound the objective by {bound}, the result says value "
                                 f"{value}")
    elif result.status == "unbounded":
        _feasible(where, result.point, A, b, E, e, n)
        d = _vector(where, "a ray", result.ray, n)
        for i, row in enumerate(A):
            _require(dot(row, d) <= 0, f"{where}: the ray leaves row {i} of A x <= b: A[{i}].d = {dot(row, d)} > 0")
        for i, row in enumerate(E):
            _require(dot(row, d) == 0, f"{where}: the ray leaves equality {i}: E[{i}].d = {dot(row, d)}, not 0")
        _require(dot(c, d) > 0, f"{where}: the ray does not improve the objective: c.d = {dot(c, d)}")
    elif result.status == "infeasible":
        if E and _inconsistent(E, e, n):
            return  # the equalities alone have no solution: their row reduction is the certificate
        y = _multipliers(where, result.multipliers, len(A))
        yA = _combine_rows(y, A, n)
        z = _combination(E, tuple(-v for v in yA), n)
        if z is None:
            raise AssertionError(f"{where}: the Farkas multipliers give y A = {_text(yA)}, which is not zero modulo "
                                 "the equalities")
        bound = dot(y, b) + dot(z, e)
        _require(bound < 0, f"{where}: the Farkas multipliers give y.b + z.e = {bound}, expected a negative value")
    else:
        raise AssertionError(f"{where}: expected status 'optimal', 'unbounded' or 'infeasible', "
                             f"got {result.status!r}")


def _require(condition: bool, message: str) -> None:
    if not condition:
        raise AssertionError(message)


def _text(vector: Iterable[Fraction]) -> str:
    return "(" + ", ".join(str(v) for v in vector) + ")"


def _vector(where: str, name: str, x: Vector | None, n: int) -> Vector:
    if x is None or len(x) != n:
        raise AssertionError(f"{where}: expected {name} of length {n}, got {x!r}")
    return tuple(x)


def _feasible(where: str, x: Vector | None, A: Matrix, b: Vector, E: Matrix, e: Vector, n: int) -> Vector:
    """The result's point, once it is checked to satisfy ``A x <= b`` and ``E x = e``."""
    x = _vector(where, "a point", x, n)
    for i, (row, bi) in enumerate(zip(A, b)):
        _require(dot(row, x) <= bi, f"{where}: the point violates row {i} of A x <= b: {dot(row, x)} > {bi}")
    for i, (row, ei) in enumerate(zip(E, e)):
        _require(dot(row, x) == ei, f"{where}: the point violates equality {i}: {dot(row, x)} != {ei}")
    return x


def _multipliers(where: str, y: Vector | None, m: int) -> Vector:
    y = _vector(where, "multipliers (one per row of A)", y, m)
    for i, v in enumerate(y):
        _require(v >= 0, f"{where}: expected multipliers >= 0, got {v} on row {i}")
    return y


def _combine_rows(y: Vector, A: Matrix, n: int) -> Vector:
    """``y A``, exact."""
    return tuple(sum((yi * row[j] for yi, row in zip(y, A)), _ZERO) for j in range(n))


def _combination(E: Matrix, target: Vector, n: int) -> Vector | None:
    """Some ``z`` with ``z E = target`` (exact), or None when ``target`` is not in the row space of ``E``."""
    k = len(E)
    if k == 0:
        return () if not any(target) else None
    reduced, pivots = rref([[E[i][j] for i in range(k)] + [target[j]] for j in range(n)], k + 1)
    if k in pivots:
        return None
    z = [_ZERO] * k
    for row, p in zip(reduced, pivots):
        z[p] = row[k]
    return tuple(z)


def _inconsistent(E: Matrix, e: Vector, n: int) -> bool:
    """Whether ``E x = e`` has no solution (a pivot in the right-hand side column)."""
    return n in rref([tuple(row) + (ei,) for row, ei in zip(E, e)], n + 1)[1]


# ------------------------------------------------------------------------------------------ region complexes


def assert_complexes_equal(first: "RegionComplex", second: "RegionComplex") -> None:
    """Assert that two region complexes are the same complex, whatever the order of their regions.

    The same complex means: the same activation patterns; for each pattern, polytopes that are the same set
    (:meth:`~polyregions.polyhedra.polytope.Polytope.equals`, exact); the same adjacency (pairs of patterns
    with the same switching neurons); the same linear regions (as sets of patterns); the same ``exact``
    flag. The engine that produced each, the order of the regions and redundant inequalities may differ.

    Parameters
    ----------
    first, second : RegionComplex

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        When they differ; the message names what differs (and the first few patterns concerned).
    InvalidInputError
        When either is not a RegionComplex.

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> mesh = enumerate_regions(sawtooth(2), box([0], [1]), engine="mesh")
    >>> assert_complexes_equal(mesh, enumerate_regions(sawtooth(2), box([0], [1]), engine="lp"))
    >>> assert_complexes_equal(mesh, enumerate_regions(sawtooth(3), box([0], [1])))  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    AssertionError: complexes differ: 4 activation regions against 8, patterns only in the first [(1, 0, 1, 0), ...
    """
    from polyregions.regions.complex import RegionComplex

    for name, value in (("first", first), ("second", second)):
        if not isinstance(value, RegionComplex):
            raise InvalidInputError(f"assert_complexes_equal: {name}: expected a RegionComplex, "
                                    f"got {type(value).__name__}")
    by_pattern = []
    for name, complex_ in (("first", first), ("second", second)):
        counts = Counter(region.pattern for region in complex_.regions)
        repeated = sorted(p for p, count in counts.items() if count > 1)
        _require(not repeated, f"complexes differ: the {name} has repeated patterns {_listed(repeated)}")
        by_pattern.append({region.pattern: region for region in complex_.regions})
    ours, theirs = by_pattern
    only_first, only_second = sorted(ours.keys() - theirs.keys()), sorted(theirs.keys() - ours.keys())
    _require(not only_first and not only_second,
             f"complexes differ: {len(first)} activation regions against {len(second)}, patterns only in the "
             f"first {_listed(only_first)}, only in the second {_listed(only_second)}")
    bounded = first.domain.is_bounded() and second.domain.is_bounded()
    different = [p for p in sorted(ours) if not _same_set(ours[p], theirs[p], bounded)]
    _require(not different, f"complexes differ: the regions of {len(different)} pattern(s) are different sets: "
                            f"{_listed(different)}")
    edges = [_edges_by_pattern(complex_) for complex_ in (first, second)]
    edges_first, edges_second = sorted(edges[0] - edges[1]), sorted(edges[1] - edges[0])
    _require(not edges_first and not edges_second,
             f"complexes differ: adjacency (pattern, pattern, switching neurons) only in the first "
             f"{_listed(edges_first)}, only in the second {_listed(edges_second)}")
    linear = [_linear_by_pattern(complex_) for complex_ in (first, second)]
    _require(linear[0] == linear[1],
             f"complexes differ: {len(linear[0])} linear regions against {len(linear[1])}, or they group the "
             f"patterns differently: only in the first {_listed(sorted(map(sorted, linear[0] - linear[1])))}, "
             f"only in the second {_listed(sorted(map(sorted, linear[1] - linear[0])))}")
    _require(first.exact == second.exact, f"complexes differ: exact is {first.exact} against {second.exact}")


def _listed(items: Sequence[Any]) -> str:
    shown = ", ".join(repr(item) for item in items[:_SHOWN])
    more = f" and {len(items) - _SHOWN} more" if len(items) > _SHOWN else ""
    return f"[{shown}{more}]"


def _same_set(region: Any, twin: Any, bounded: bool) -> bool:
    if region.dim != twin.dim:
        return False
    P, Q = region.polytope, twin.polytope
    if primitive_rows(P) == primitive_rows(Q):  # the same inequalities, up to positive scales and order
        return True
    if bounded:  # a bounded polytope is the hull of its vertices: one enumeration, not a program per row
        return set(P.vertices()) == set(Q.vertices())
    return P.equals(Q)


def primitive_rows(described: Any) -> set[tuple[int, ...]]:
    """The rows ``(a, b)`` of a polytope's or a region's ``A x <= b``, each scaled by a positive number to coprime
    integers (:func:`~polyregions.exact._integers.primitive`): two descriptions with the same set of them have the
    same inequalities, up to scales and order.

    >>> from polyregions.polyhedra.polytope import Polytope
    >>> sorted(primitive_rows(Polytope.from_inequalities([[2, 0], [Fraction(-1, 3), 0]], [1, 0])))
    [(-1, 0, 0), (2, 0, 1)]
    """
    return {primitive((*a, b)) for a, b in zip(described.A, described.b)}


def _edges_by_pattern(complex_: "RegionComplex") -> set[tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]]:
    """Each adjacency as (smaller pattern, larger pattern, switching neurons)."""
    patterns = [region.pattern for region in complex_.regions]
    return {(min(patterns[i], patterns[j]), max(patterns[i], patterns[j]), tuple(sorted(neurons)))
            for i, j, neurons in complex_.adjacency}


def _linear_by_pattern(complex_: "RegionComplex") -> set[frozenset[tuple]]:
    patterns = [region.pattern for region in complex_.regions]
    return {frozenset(patterns[i] for i in component) for component in complex_.linear_regions}


# ----------------------------------------------------------------------------------------------------- exports


def assert_export_verifies(path: str | os.PathLike, *, max_subsets: int | None = None) -> None:
    """Assert that the independent checker verifies a JSON export of a region complex.

    Runs ``python -m proofs_check verify PATH`` with the running interpreter in a separate process, so that
    the checker (which must not import polyregions) re-checks the file on its own.

    Parameters
    ----------
    path : str or path-like
        A file written by :func:`polyregions.regions.export.write_complex_json`.
    max_subsets : int, optional, keyword-only
        Passed on as ``--max-subsets`` (the checker's bound on its brute-force vertex enumeration).

    Returns
    -------
    None

    Raises
    ------
    AssertionError
        When the checker exits with a non-zero status or does not end its report with ``verified``; the
        message holds the checker's output. A certificate of a user-defined claim fails too: the checker
        verifies its complex but cannot recompute the claim (exit status 3).

    Examples
    --------
    >>> import os, tempfile
    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> from polyregions.regions.export import write_complex_json
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = os.path.join(folder, "sawtooth.json")
    ...     write_complex_json(enumerate_regions(sawtooth(2), box([0], [1])), path)
    ...     assert_export_verifies(path)
    """
    command = [sys.executable, "-m", "proofs_check", "verify", os.fspath(path)]
    if max_subsets is not None:
        command += ["--max-subsets", str(max_subsets)]
    done = subprocess.run(command, capture_output=True, text=True)
    lines = done.stdout.strip().splitlines()
    if done.returncode != 0 or not lines or lines[-1] != "verified":
        output = "\n".join(part.strip() for part in (done.stdout, done.stderr) if part.strip())
        raise AssertionError(f"{os.fspath(path)}: proofs_check did not verify the export (exit status "
                             f"{done.returncode}):\n{output}")
