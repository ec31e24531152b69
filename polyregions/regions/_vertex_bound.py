r"""A certified bounding box for the region complex of a network on an unbounded domain.

:func:`vertex_bound` returns an integer ``B`` such that every vertex of the complex (more generally, the point
of every minimal face nearest the origin's lineality complement, see below) lies strictly inside the box
``|t_i| < B``. Layerwise refinement cuts the domain intersected with that box through exact vertices, as it does
for bounded domains, and afterwards drops the box rows: the cells are then exactly the true regions.

Proof
-----
*Setting.* The network acts on domain coordinates ``t`` in ``R^k``: ``h^0 = t``, ``z^l = W_l h^{l-1} + b_l``,
``h^l = sigma_l(z^l)``, where ``sigma_l`` is continuous and piecewise linear, ``sigma_l(z) = s_p z + c_p`` on its
piece ``p`` between breakpoints ``xi_{p-1} < xi_p``. The domain is ``{t : D t <= d}`` with primitive integer
rows (no rows for all of ``R^k``). On a region ``R`` of pattern ``pi`` every ``h^l = M_l t + m_l`` is affine, and
the closure of ``R`` is the polyhedron ``P_R`` of the domain's rows and, for each neuron ``j`` of each layer
``l`` with breakpoints, the rows ``xi_{p-1} <= G_j t + g_j <= xi_p`` of its piece ``p = pi_{l,j}``, where
``G = W_l M_{l-1}`` and ``g = W_l m_{l-1} + b_l`` (one-sided on the outer pieces).

*Lineality.* Let ``l*`` be the first layer with breakpoints; before it every map is the same affine map, so
``G^{l*}`` is the same for all regions, and every ``P_R`` has, for every neuron of ``l*``, a row with normal
``+-G^{l*}_j``. The normals of later layers are rows of ``W_l M_{l-1}``, and ``M_{l-1}`` is a product of
diagonal slope matrices and weights ending in ``G^{l*}``: they lie in the row space of ``G^{l*}``. So every
``P_R`` (and every face of it: a face of a polyhedron has its lineality space) has the lineality space
``L = ker D  intersected with  ker G^{l*}`` (``ker D`` alone when no layer has breakpoints). Let ``u_1, ...,
u_r`` be a basis of ``L`` of integer vectors (:func:`lineality_basis`).

*Minimal faces.* A minimal face of ``P_R`` is ``v + L``, cut out by ``k' = k - r`` linearly independent rows of
``P_R`` holding with equality; they are orthogonal to ``L``, so with the equations ``u_i . t = 0`` they form a
non-singular ``k x k`` system ``A t = beta`` whose solution ``v*`` is the face's one point in the orthogonal
complement of ``L`` (``v* = v``, a vertex, when ``L = 0``). Two rows of one neuron have parallel normals, so the
``k'`` rows come from distinct neurons and domain rows.

*Integers.* Let ``q_l`` be a common denominator of every entry of every row ``(G_j, xi - g_j)`` of layer ``l``
over all patterns. With ``e_0 = 1`` a common denominator of ``(M_0, m_0) = (I, 0)``, the recurrences
``f_l = lcm(den(W_l) e_{l-1}, den(b_l))`` (for ``(G, g)``), ``q_l = lcm(f_l, den(xi))`` and ``e_l = lcm(den(s)
f_l, den(c))`` (for ``(M_l, m_l) = (diag(s) G, diag(s) g + c)``) give such denominators, ``den`` being the lcm of
the denominators of a layer's numbers. Scale each row of ``A`` by its ``q`` (domain rows and ``u_i`` are
already integers): ``A`` becomes an integer matrix ``A'`` with ``|det A'| >= 1``. By Cramer's rule and
Hadamard's inequality, ``|v*_i| = |det A'_i| / |det A'| <= prod_rows ||row of A'_i|| <= prod_rows ||(a', beta')||``,
where ``A'_i`` is ``A'`` with column ``i`` replaced by the right-hand side, so each of its rows is a
sub-vector (up to order) of the scaled row ``(a', beta')``.

*Magnitudes.* Interval arithmetic over exact rationals bounds every pattern at once: ``|M_0| <= I`` and
``|m_0| <= 0`` entrywise; if ``|M_{l-1}| <= A_{l-1}`` and ``|m_{l-1}| <= a_{l-1}``, then ``|G| <= |W_l| A_{l-1}``,
``|g| <= |W_l| a_{l-1} + |b_l|``, ``|M_l| <= S_l |G|`` and ``|m_l| <= S_l |g| + C_l`` with ``S_l = max |s_p|``
and ``C_l = max |c_p|``. So the squared norm of the scaled row of neuron ``j`` is at most
``N_j = q_l^2 (sum_i ((|W_l| A_{l-1})_{ji})^2 + (max |xi| + (|W_l| a_{l-1} + |b_l|)_j)^2)``, whatever the pattern
and breakpoint; a domain row's is its own squared norm.

*Conclusion.* ``|v*_i|^2 <= Q := (product of the k' largest numbers among the N_j and the domain rows' squared
norms) * prod_i ||u_i||^2`` (a product of ``k'`` of them is at most the product of the ``k'`` largest), and
``B = isqrt(ceil(Q)) + 1 > sqrt(Q)``. The bound holds for the domain's own vertices (systems of domain rows
only) and for the domain's rows meeting pulled-back hyperplanes: they are rows of ``P_R`` like any other.

Why the box gives the true complex
----------------------------------
Every face ``F`` of every ``P_R`` contains a minimal face, so a point ``v*`` strictly inside the box; as the
relative interior of ``F`` is dense in ``F``, it meets the open box, in a set of ``F``'s dimension. Hence: every
region meets the open box (refining ``domain & box`` loses no region, and the patterns are the same); a row of a
region is a facet of ``R & box`` exactly when it is a facet of ``R``, and such a row never is a box row (its
hyperplane meets the open box); two regions share a facet exactly when their boxed cells share one off the box;
and ``R`` is unbounded exactly when ``R & box`` has a facet on the box: if ``R`` is bounded it is the convex hull
of its vertices, inside the open box; if it is unbounded it leaves the box, so its own facets alone do not
describe ``R & box``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import TYPE_CHECKING, Iterable, Sequence

from flint import fmpq, fmpq_mat

from polyregions.exact._integers import lcm, primitive
from polyregions.exact.linalg import nullspace
from polyregions.regions._cell_programs import Row

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["lineality_basis", "vertex_bound", "box_rows"]


def _fmpq(value: Fraction) -> fmpq:
    return fmpq(value.numerator, value.denominator)


def _absolute(rows: Iterable[Iterable[Fraction]]) -> fmpq_mat:
    return fmpq_mat([[_fmpq(abs(v)) for v in row] for row in rows])


def lineality_basis(network: "Network", rows: Sequence[Row], k: int) -> list[tuple[int, ...]]:
    """Primitive integer vectors spanning the lineality space ``L`` shared by the closure of every region of
    ``network`` (in ``R^k``) in the domain of integer ``rows`` ``(a, c)``: the directions along which nothing
    changes (see the module's proof).

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(2, [([[1, 1]], [0], "relu")])
    >>> lineality_basis(net, [], 2)
    [(-1, 1)]
    >>> lineality_basis(net, [(1, 0, 3)], 2)
    []
    """
    normals = [tuple(Fraction(v) for v in row[:-1]) for row in rows]
    M = fmpq_mat([[fmpq(int(i == j)) for j in range(k)] for i in range(k)])
    for layer in network.layers:
        G = fmpq_mat([[_fmpq(v) for v in row] for row in layer.weight]) * M
        if not layer.activation.is_linear:
            normals += [tuple(Fraction(int(v.p), int(v.q)) for v in G.table()[j]) for j in range(G.nrows())]
            break
        M = _fmpq(layer.activation.piece_map(0)[0]) * G
    return [primitive(u) for u in nullspace(normals, k)]


def _neuron_norms(network: "Network", k: int) -> list[Fraction]:
    """``N_j`` of the module's proof for every neuron: a bound on the squared norm of its pulled-back row,
    scaled to integers, on every region."""
    norms: list[Fraction] = []
    A = fmpq_mat([[fmpq(int(i == j)) for j in range(k)] for i in range(k)])  # bounds |M_{l-1}| entrywise
    a = fmpq_mat(k, 1)                                                         # bounds |m_{l-1}|
    e = 1                                                                      # a denominator of (M, m)
    for layer in network.layers:
        activation = layer.activation
        W = _absolute(layer.weight)
        GA = W * A
        ga = W * a + _absolute([[v] for v in layer.bias])
        f = math.lcm(lcm(v for row in layer.weight for v in row) * e, lcm(layer.bias))
        if not activation.is_linear:
            q = math.lcm(f, lcm(activation.breakpoints))
            top = _fmpq(max(abs(v) for v in activation.breakpoints))
            rows, offsets = GA.table(), ga.entries()
            for row, offset in zip(rows, offsets):
                total = sum((v * v for v in row), fmpq(0)) + (top + offset) ** 2
                norms.append(Fraction(int(total.p), int(total.q)) * q * q)
        pieces = [activation.piece_map(p) for p in range(len(activation.breakpoints) + 1)]
        slope = _fmpq(max(abs(s) for s, _ in pieces))
        intercept = _fmpq(max(abs(c) for _, c in pieces))
        A = slope * GA
        a = slope * ga + fmpq_mat([[intercept]] * ga.nrows())
        e = math.lcm(lcm(s for s, _ in pieces) * f, lcm(c for _, c in pieces))
    return norms


def vertex_bound(network: "Network", rows: Sequence[Row], k: int) -> int:
    """An integer ``B`` with ``|t_i| < B`` at every vertex of the region complex of ``network`` (on ``R^k``)
    in the domain of primitive integer ``rows`` ``(a, c)`` (``a . t <= c``), including the domain's own vertices;
    when the regions have a lineality space ``L``, at the point of every minimal face orthogonal to ``L``
    (the module's proof).

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> net = Network.from_layers(1, [([[2]], [-3], "relu")])   # its one vertex is t = 3/2
    >>> vertex_bound(net, [], 1)
    4
    """
    basis = lineality_basis(network, rows, k)
    candidates = sorted([Fraction(sum(v * v for v in row[:-1]) + row[-1] ** 2) for row in rows]
                        + _neuron_norms(network, k), reverse=True)
    product = math.prod(candidates[:k - len(basis)], start=Fraction(1))
    product *= math.prod(sum(v * v for v in u) for u in basis)
    return math.isqrt(math.ceil(product)) + 1


def box_rows(bound: int, k: int) -> tuple[Row, ...]:
    """The rows ``t_i <= bound`` and ``-t_i <= bound`` of the box, in integer form.

    >>> box_rows(5, 2)
    ((1, 0, 5), (-1, 0, 5), (0, 1, 5), (0, -1, 5))
    """
    rows = []
    for i in range(k):
        for sign in (1, -1):
            rows.append(tuple(sign if j == i else 0 for j in range(k)) + (bound,))
    return tuple(rows)
