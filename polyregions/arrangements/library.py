"""Named arrangements.

Closed forms (for the tests and for users' sanity checks): the braid arrangement of ``R^n`` has ``n!``
regions, Shi and Ish ``(n+1)^(n-1)`` (``(n-1)^(n-1)`` relatively bounded), Catalan ``n! C_n``, Linial
``2^-n sum_k C(n,k) (k+1)^(n-1)``, the semiorder arrangement as many as there are labelled semiorders
(1, 3, 19, 183, 2371, ...), the resonance arrangement 2, 6, 32, 370, 11292, 1066044, 347326352 regions (OEIS
A034997), the threshold arrangement 2, 4, 14, 104, 1882, 94572, 15028134 (OEIS A000609), ``m`` generic
hyperplanes in ``R^d`` ``sum_{i<=d} C(m, i)``; a graphical arrangement has the chromatic polynomial of its
graph as characteristic polynomial. For a Weyl group of rank ``n`` with Coxeter number ``h`` and exponents
``e_i`` (:mod:`~polyregions.arrangements.roots`): the Coxeter arrangement has ``chi(t) = prod (t - e_i)`` and
``|W|`` regions, the Shi arrangement ``(t - h)^n`` and ``(h + 1)^n`` regions, the Catalan arrangement
``prod (t - h - e_i)`` and ``|W| prod (h + e_i + 1) / (e_i + 1)`` regions (Athanasiadis); for type ``A`` in
``R^(n+1)``, times ``t``.
"""

from __future__ import annotations

import itertools
import math
import random
from typing import TYPE_CHECKING, Any

from polyregions.arrangements.arrangement import Arrangement
from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    import networkx as nx

__all__ = ["braid", "shi", "catalan", "linial", "semiorder", "ish", "coordinate", "generic", "graphical",
           "resonance", "threshold", "coxeter", "network_layer", "is_generic", "parse_name"]


def _check_size(n: Any, what: str, minimum: int = 1) -> int:
    if isinstance(n, bool) or not isinstance(n, int) or n < minimum:
        raise InvalidInputError(f"{what}: expected an integer >= {minimum}, got {n!r}")
    return n


def _differences(n: int, offsets: tuple[int, ...], *, what: str) -> Arrangement:
    """Hyperplanes ``x_i - x_j = c`` for ``i < j`` and every ``c`` in ``offsets``, in ``R^n``."""
    n = _check_size(n, what)
    rows = []
    for i, j in itertools.combinations(range(n), 2):
        for c in offsets:
            row = [0] * (n + 1)
            row[i], row[j], row[n] = 1, -1, c
            rows.append(row)
    return Arrangement(rows, dim=n)


def braid(n: int) -> Arrangement:
    """The braid arrangement (Coxeter arrangement A_{n-1}): ``x_i = x_j`` in ``R^n``; ``n!`` regions.

    Examples
    --------
    >>> braid(3).num_regions()
    6
    """
    return _differences(n, (0,), what="braid")


def _roots(name: str, offsets: tuple[int, ...]) -> Arrangement:
    """Hyperplanes ``(alpha, x) = k`` for every positive root of a type and every ``k`` in ``offsets``."""
    from polyregions.arrangements.roots import ambient_dimension, positive_roots

    rows = [root + (k,) for root in positive_roots(name) for k in offsets]
    return Arrangement(rows, dim=ambient_dimension(name))


def shi(n: int | str) -> Arrangement:
    """The Shi arrangement: ``x_i - x_j = 0, 1`` for ``i < j`` in ``R^n``; ``(n+1)^(n-1)`` regions.

    With a root system type such as ``"E6"`` instead of ``n``: ``(alpha, x) = 0, 1`` for every positive root
    (coordinates of :mod:`~polyregions.arrangements.roots`); ``chi(t) = (t - h)^rank`` and ``(h + 1)^rank``
    regions, ``h`` the Coxeter number. ``shi("A3")`` is ``shi(4)``.

    Examples
    --------
    >>> shi(3).num_regions(), len(shi(3).bounded_regions())
    (16, 4)
    >>> shi("B2").characteristic_polynomial()
    (1, -8, 16)
    """
    if isinstance(n, str):
        return _roots(n, (0, 1))
    return _differences(n, (0, 1), what="shi")


def catalan(n: int | str) -> Arrangement:
    """The Catalan arrangement: ``x_i - x_j = -1, 0, 1`` in ``R^n``; ``n! C_n`` regions.

    With a root system type such as ``"E6"`` instead of ``n``: ``(alpha, x) = -1, 0, 1`` for every positive
    root; ``chi(t) = prod (t - h - e_i)`` over the exponents ``e_i``.

    Examples
    --------
    >>> catalan(3).num_regions()
    30
    >>> catalan("B2").characteristic_polynomial()
    (1, -12, 35)
    """
    if isinstance(n, str):
        return _roots(n, (-1, 0, 1))
    return _differences(n, (-1, 0, 1), what="catalan")


def coxeter(name: str) -> Arrangement:
    """The Coxeter (reflection) arrangement of a Weyl group: ``(alpha, x) = 0`` for every positive root.

    ``chi(t) = prod (t - e_i)`` over the exponents, ``|W|`` regions; ``coxeter("A3")`` is ``braid(4)``.

    Examples
    --------
    >>> coxeter("B3").num_regions(), coxeter("D4").characteristic_polynomial()
    (48, (1, -12, 50, -84, 45))
    """
    if not isinstance(name, str):
        raise InvalidInputError(f"coxeter: expected a root system type such as \"E6\", got {name!r}")
    return _roots(name, (0,))


def linial(n: int) -> Arrangement:
    """The Linial arrangement: ``x_i - x_j = 1`` for ``i < j`` in ``R^n``.

    Examples
    --------
    >>> linial(3).num_regions()
    7
    """
    return _differences(n, (1,), what="linial")


def semiorder(n: int) -> Arrangement:
    """The semiorder arrangement: ``x_i - x_j = -1, 1`` in ``R^n``; regions are labelled semiorders.

    Examples
    --------
    >>> semiorder(3).num_regions()
    19
    """
    return _differences(n, (-1, 1), what="semiorder")


def ish(n: int) -> Arrangement:
    """The Ish arrangement: ``x_i = x_j`` for ``i < j`` and ``x_1 - x_j = i`` for ``1 <= i < j <= n``.

    It shares the Shi arrangement's characteristic polynomial ``t (t - n)^(n-1)``.

    Examples
    --------
    >>> ish(3).characteristic_polynomial() == shi(3).characteristic_polynomial()
    True
    """
    n = _check_size(n, "ish")
    rows = []
    for i, j in itertools.combinations(range(n), 2):
        row = [0] * (n + 1)
        row[i], row[j] = 1, -1
        rows.append(row)
    for j in range(1, n):
        for i in range(1, j + 1):
            row = [0] * (n + 1)
            row[0], row[j], row[n] = 1, -1, i
            rows.append(row)
    return Arrangement(rows, dim=n)


def coordinate(d: int) -> Arrangement:
    """The coordinate hyperplanes ``x_i = 0`` of ``R^d``; ``2^d`` regions.

    Examples
    --------
    >>> coordinate(3).num_regions()
    8
    """
    d = _check_size(d, "coordinate")
    return Arrangement([[int(i == j) for j in range(d)] + [0] for i in range(d)], dim=d)


def resonance(d: int) -> Arrangement:
    """The resonance arrangement: ``a . x = 0`` for every non-zero ``a`` in ``{0, 1}^d``.

    Examples
    --------
    >>> resonance(3).num_regions()
    32
    """
    d = _check_size(d, "resonance")
    rows = [list(a) + [0] for a in itertools.product((0, 1), repeat=d) if any(a)]
    return Arrangement(rows, dim=d)


def threshold(n: int) -> Arrangement:
    """The threshold arrangement ``T_n``: ``x_0 + sum_{i in S} x_i = 0`` for every subset ``S`` of
    ``{1, ..., n}`` (the empty one included), ``2^n`` hyperplanes in ``R^(n+1)`` (``x_0`` first).

    Its regions are the threshold functions of ``n`` variables (the Boolean functions ``a |-> [w . a > -x_0]``
    that a single neuron computes on ``{0, 1}^n``, read at the weights ``(x_0, w)``): 2, 4, 14, 104, 1882, 94572,
    15028134 for ``n = 0, ..., 6`` (OEIS A000609). It is the arrangement of CountingChambers.jl's
    ``threshold_hyperplanes`` (normals ``(1, a)``, ``a`` in ``{0, 1}^n``); restricting it to ``x_0 = 0`` gives the
    resonance arrangement :func:`resonance` ``(n)``.

    Examples
    --------
    >>> threshold(2).num_regions(), len(threshold(2))
    (14, 4)
    """
    n = _check_size(n, "threshold", 0)
    rows = [(1,) + a + (0,) for a in itertools.product((0, 1), repeat=n)]
    return Arrangement(rows, dim=n + 1)


def graphical(graph: "nx.Graph") -> Arrangement:
    """The graphical arrangement of a graph: ``x_u = x_v`` for each edge, in ``R^V`` (nodes in graph order).

    Its characteristic polynomial is the chromatic polynomial; its regions are the acyclic orientations.

    Examples
    --------
    >>> import networkx as nx
    >>> graphical(nx.cycle_graph(4)).characteristic_polynomial()
    (1, -4, 6, -3, 0)
    """
    nodes = list(graph.nodes)
    position = {v: i for i, v in enumerate(nodes)}
    rows = []
    for u, v in graph.edges():
        if u == v:
            raise InvalidInputError(f"graphical: expected a graph without self-loops, got a loop at {u!r}")
        row = [0] * (len(nodes) + 1)
        row[position[u]], row[position[v]] = 1, -1
        rows.append(row)
    return Arrangement(rows, dim=len(nodes))


def network_layer(weight: Any, bias: Any) -> Arrangement:
    """The hyperplanes ``w_i . x + b_i = 0`` of a network's first layer (rows ``[w_i, -b_i]``).

    ``weight`` has one row per neuron; neurons with the same hyperplane merge, and a zero weight row (a
    neuron that never switches) is bad input.

    Examples
    --------
    >>> network_layer([[1, 0], [0, 2], [-1, 0]], [0, -1, 0]).hyperplanes
    ((1, 0, 0), (0, 2, 1))
    """
    from polyregions.exact.rationals import rational_matrix, rational_vector

    W = rational_matrix(weight, what="weight")
    if not W:
        raise InvalidInputError("weight: expected at least one row (neuron), got none")
    b = rational_vector(bias, what="bias", length=len(W))
    for i, row in enumerate(W):
        if not any(row):
            raise InvalidInputError(f"weight[{i}]: expected a non-zero weight row, got all zeros (a neuron "
                                    f"without a hyperplane)")
    return Arrangement([tuple(row) + (-bi,) for row, bi in zip(W, b)], dim=len(W[0]))


def is_generic(arrangement: Arrangement) -> bool:
    """Whether the hyperplanes are in general position, decided exactly from the intersection poset.

    General position: any ``k <= dim`` of them meet in codimension ``k`` and no ``dim + 1`` share a point.
    That holds exactly when every flat lies on as many hyperplanes as its rank and there are ``C(m, k)``
    flats of each rank ``k <= min(m, dim)``.
    """
    poset = arrangement.poset
    m, d = len(arrangement), arrangement.dim
    if any(len(f.hyperplanes) != f.rank for f in poset.flats):
        return False
    counts = poset.whitney_numbers(kind=2)
    return len(counts) == min(m, d) + 1 and all(c == math.comb(m, k) for k, c in enumerate(counts))


def generic(m: int, d: int, *, seed: int = 0, bound: int = 1000) -> Arrangement:
    """``m`` hyperplanes in general position in ``R^d`` with random integer coefficients in ``[-bound, bound]``.

    General position is verified exactly (:func:`is_generic`); draws that fail are replaced, the next one
    from the same seeded generator. ``sum_{i<=d} C(m, i)`` regions, ``C(m-1, d)`` of them bounded.

    Examples
    --------
    >>> generic(5, 2, seed=1).num_regions()
    16
    """
    m = _check_size(m, "generic: m", 0)
    d = _check_size(d, "generic: d")
    bound = _check_size(bound, "generic: bound")
    rng = random.Random(seed)
    for _ in range(100):
        rows = []
        for _ in range(m):
            normal = [0] * d
            while not any(normal):
                normal = [rng.randint(-bound, bound) for _ in range(d)]
            rows.append(normal + [rng.randint(-bound, bound)])
        arrangement = Arrangement(rows, dim=d)
        if len(arrangement) == m and is_generic(arrangement):
            return arrangement
    raise InvalidInputError(f"generic: found no {m} hyperplanes in general position in R^{d} with coefficients "
                            f"in [-{bound}, {bound}] in 100 draws; use a larger bound")


_NAMED = {"braid": braid, "shi": shi, "catalan": catalan, "linial": linial, "semiorder": semiorder, "ish": ish,
          "coordinate": coordinate, "resonance": resonance, "threshold": threshold}
#: Named arrangements that also take a root system type (``"shi:E6"``), and those that take only one.
_TYPED = {"shi": shi, "catalan": catalan, "coxeter": coxeter}


def parse_name(text: str) -> Arrangement:
    """A named arrangement from text such as ``"braid:4"``, ``"shi:3"``, ``"shi:E6"``, ``"coxeter:D5"`` or
    ``"generic:10,3[,SEED]"``.

    Examples
    --------
    >>> parse_name("catalan:3").num_regions()
    30
    >>> len(parse_name("shi:E6"))
    72
    """
    choices = (", ".join(f"{name}:N" for name in _NAMED) + ", shi:TYPE, catalan:TYPE, coxeter:TYPE (TYPE such "
               "as E6, B4, D5), generic:M,D[,SEED]")
    name, _, arguments = text.partition(":")
    if name in _TYPED and arguments[:1].isalpha():
        from polyregions.arrangements.roots import parse_type

        try:
            parse_type(arguments)
        except InvalidInputError:
            raise InvalidInputError(f"--name: expected one of {choices}, got {text!r}") from None
        return _TYPED[name](arguments)
    from polyregions._support.limits import MAX_DOMAIN_DIMENSION, MAX_HYPERPLANES
    from polyregions.exact.rationals import _describe, integer

    try:  # ASCII digits only: int() would read "braid:\u0663" as braid:3
        numbers = [integer(v, what="--name") for v in arguments.split(",")] if arguments else []
    except InvalidInputError:
        numbers = None
    if numbers is None or (name in _NAMED and len(numbers) != 1) or (name == "generic" and len(numbers) not in (2, 3)) \
            or (name not in _NAMED and name != "generic"):
        raise InvalidInputError(f"--name: expected one of {choices}, got {_describe(text)}")
    # the size before the arrangement is built: at least 1, at most MAX_HYPERPLANES hyperplanes in at most
    # MAX_DOMAIN_DIMENSION dimensions (braid:N has N(N-1)/2 hyperplanes, catalan:N 3N(N-1)/2, resonance:N and
    # threshold:N about 2^N)
    n = numbers[0]
    if name == "generic":
        size, dim = numbers[0], numbers[1]
    elif name in ("resonance", "threshold"):
        size, dim = (2 ** n if n < 64 else 2 ** 64), n
    else:
        size, dim = 2 * n * n, n
    if min(numbers[:2]) < 1 or size > MAX_HYPERPLANES or dim > MAX_DOMAIN_DIMENSION:
        raise InvalidInputError(f"--name: expected a size from 1 up to about {MAX_HYPERPLANES} hyperplanes in at most "
                                f"{MAX_DOMAIN_DIMENSION} dimensions, got {_describe(text)}")
    if name == "generic":
        return generic(numbers[0], numbers[1], seed=numbers[2] if len(numbers) == 3 else 0)
    return _NAMED[name](numbers[0])
