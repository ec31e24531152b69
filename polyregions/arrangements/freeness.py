"""Freeness, as far as the characteristic polynomial and the graph of a graphic arrangement decide it.

A central arrangement is *free* when its module of logarithmic derivations is free; its degrees are then the
*exponents*. Two theorems decide it in the cases handled here:

* **Terao's factorization theorem**: a free arrangement has ``chi(t) = prod (t - e_i)`` with non-negative
  integer exponents ``e_i``. So a ``chi`` without that factorization proves the arrangement not free; one with
  it decides nothing alone.
* **Stanley** (with Fulkerson-Gross for chordal graphs): for a graphic arrangement (hyperplanes ``x_u = x_v``
  for the edges of a graph), free, supersolvable and *the graph is chordal* are equivalent; the exponents are
  then read from a perfect elimination ordering (``chi`` is the chromatic polynomial).

Central arrangements of rank at most 2 are always free (exponents ``0, ..., 0, 1, m - 1``). Anything else with a
factoring ``chi`` is left undecided (``free`` is None): deciding it needs the derivation module (Saito's
criterion), not counts.

Examples
--------
>>> import networkx as nx
>>> from polyregions.arrangements import braid, graphical
>>> report = decide_freeness(braid(4))
>>> report.free, report.exponents, report.supersolvable
(True, (0, 1, 2, 3), True)
>>> report.reason
'graphic arrangement of a chordal graph (Stanley)'
>>> decide_freeness(graphical(nx.cycle_graph(4))).free
False
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from polyregions.arrangements._polynomials import Poly, divide_linear, evaluate
from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    import networkx as nx

    from polyregions.arrangements.arrangement import Arrangement

__all__ = ["FreenessReport", "integer_roots", "graph_of", "decide_freeness"]


@dataclass(frozen=True)
class FreenessReport:
    """What is decided about the freeness of a central arrangement.

    Attributes
    ----------
    free : bool or None
        None when neither theorem decides it.
    exponents : tuple of int or None
        The roots of ``chi`` when it is ``prod (t - e_i)`` over non-negative integers (the exponents, if free).
    supersolvable : bool or None
        Decided for graphic arrangements (chordal graph) and rank at most 2; None otherwise.
    reason : str
        The theorem that decided it, or why nothing did.
    """

    free: bool | None
    exponents: tuple[int, ...] | None
    supersolvable: bool | None
    reason: str


def integer_roots(chi: Poly) -> tuple[int, ...] | None:
    """The roots of ``chi`` (monic) with multiplicity, ascending, when they are all non-negative integers.

    A non-negative integer root divides the lowest non-zero coefficient, so the candidates are few.

    >>> integer_roots((1, -6, 11, -6, 0)), integer_roots((1, -3, 3))
    ((0, 1, 2, 3), None)
    """
    roots: list[int] = []
    p = tuple(chi)
    while len(p) > 1 and p[-1] == 0:
        roots.append(0)
        p = p[:-1]
    while len(p) > 1:
        constant = abs(p[-1])
        root = next((e for e in range(1, constant + 1) if constant % e == 0 and evaluate(p, e) == 0), None)
        if root is None:
            return None
        roots.append(root)
        p = divide_linear(p, root)
    return tuple(sorted(roots))


def graph_of(arrangement: "Arrangement") -> "nx.Graph | None":
    """The graph of a graphic arrangement (every hyperplane ``x_u = x_v``), nodes ``0..dim-1``; else None."""
    import networkx as nx

    graph = nx.Graph()
    graph.add_nodes_from(range(arrangement.dim))
    for row in arrangement.hyperplanes:
        support = [(i, v) for i, v in enumerate(row[:-1]) if v]
        if row[-1] or len(support) != 2 or sorted(v for _, v in support) != [-1, 1]:
            return None
        graph.add_edge(support[0][0], support[1][0])
    return graph


def _chordal_exponents(graph: "nx.Graph") -> tuple[int, ...]:
    """Exponents of a chordal graph: each vertex of a perfect elimination ordering, taken in reverse, has as
    exponent the number of its earlier neighbours (they form a clique, so chi is the product)."""
    order = list(reversed(_perfect_elimination_ordering(graph)))
    seen: set = set()
    exponents = []
    for v in order:
        exponents.append(sum(1 for u in graph[v] if u in seen))
        seen.add(v)
    return tuple(sorted(exponents))


def _perfect_elimination_ordering(graph: "nx.Graph") -> list:
    """Repeatedly remove a simplicial vertex (one whose neighbours form a clique): exists exactly for chordal
    graphs."""
    g = graph.copy()
    order = []
    while g:
        v = next(v for v in sorted(g) if all(g.has_edge(a, b) for a in g[v] for b in g[v] if a != b))
        order.append(v)
        g.remove_node(v)
    return order


def decide_freeness(arrangement: "Arrangement", *, method: str = "auto") -> FreenessReport:
    """Decide freeness where ``chi`` (Terao) or the graph (Stanley) decides it.

    Parameters
    ----------
    method : str, keyword-only
        How ``chi`` is computed (see :func:`~polyregions.arrangements.count_regions`).

    Raises
    ------
    InvalidInputError
        For an arrangement that is not central (freeness is a property of central arrangements; take its
        :meth:`~polyregions.arrangements.Arrangement.cone`).

    Examples
    --------
    >>> from polyregions.arrangements import coxeter, generic
    >>> decide_freeness(coxeter("B3")).exponents
    (1, 3, 5)
    >>> decide_freeness(generic(4, 3, seed=0).cone()).free  # four generic planes in R^3, coned
    False
    """
    from polyregions.arrangements.counting import characteristic_polynomial

    if not arrangement.is_central():
        raise InvalidInputError("freeness: expected a central arrangement (hyperplanes with a common point), got "
                                "one without; use its cone()")
    chi = characteristic_polynomial(arrangement, method=method)
    roots = integer_roots(chi)
    graph = graph_of(arrangement)
    if graph is not None:
        import networkx as nx

        if nx.is_chordal(graph):
            return FreenessReport(True, _chordal_exponents(graph), True,
                                  "graphic arrangement of a chordal graph (Stanley)")
        return FreenessReport(False, roots, False, "graphic arrangement of a graph that is not chordal (Stanley)")
    if roots is None:
        return FreenessReport(False, None, False, "chi has a root that is not a non-negative integer (Terao's "
                                                  "factorization theorem)")
    if arrangement.rank <= 2:
        return FreenessReport(True, roots, True, "central arrangements of rank at most 2 are free")
    return FreenessReport(None, roots, None, "chi factors over the non-negative integers, which free arrangements "
                                             "need but which does not make one free")
