"""Upper bounds on the number of activation regions of a network, from its architecture alone.

Notation: input dimension ``n0``, widths ``n_1, ..., n_L`` of the layers whose activation is not linear
(linear layers compose into the neighbouring affine maps and change no count, so they are left out), and an
activation with ``T`` breakpoints (ReLU and leaky ReLU: ``T = 1``; hard tanh: ``T = 2``). Every function
returns an exact Python ``int``.

A counted number of regions above a bound whose hypotheses hold is a bug in the counter. When regions are
counted inside a ``k``-dimensional domain (a segment, a plane slice), the network restricted to that domain is
a network on ``R^k`` with the same widths, so ``n0 = k`` gives valid, tighter bounds.

Which bound is proven for which activation:

- trivial, ``(T + 1)^N``: any activation with ``T`` breakpoints (a region has one activation pattern).
- one hidden layer, ``sum_{i <= n0} C(T n_1, i)``: any activation; the regions are cells of an arrangement of at
  most ``T n_1`` hyperplanes, and no arrangement of ``m`` hyperplanes in ``R^d`` has more than
  ``sum_{i <= d} C(m, i)`` regions (Zaslavsky's count in general position, which is the maximum).
- Raghu et al. 2017, Theorem 1: stated for ReLU (``prod_l sum_{j <= n0} C(n_l, j)``) and hard tanh
  (``prod_l sum_{j <= n0} C(2 n_l, j)``). Its proof refines the regions layer by layer: inside a region of the
  previous layers the next layer's pre-activations are affine, so its ``n_l`` neurons cut the region with at most
  ``T n_l`` hyperplanes. That argument holds verbatim for any continuous piecewise-linear activation with ``T``
  breakpoints, which gives the T-generalisation ``prod_l sum_{j <= n0} C(T n_l, j)`` (leaky ReLU included).
- Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1: ReLU only. Its proof uses that an inactive ReLU outputs
  a constant, so the image of a region loses a dimension per inactive unit; a leaky ReLU (non-zero negative
  slope) or a general piecewise-linear activation does not lose dimensions, and the theorem says nothing about
  them. An activation with one breakpoint and one flat piece, ``s relu(+-(t - xi)) + c``, is a ReLU up to
  affine maps that fold into the neighbouring layers, so the theorem covers it too.

Other architectures: maxout networks (:func:`maxout_serra_bound`, Serra et al. 2018, Theorem 10;
:func:`maxout_montufar_bound`, Montufar, Ren & Zhang 2021) and convolutional networks (:func:`conv_bound`, in the
form of Xiong et al. 2020, with :func:`conv_receptive_fields`). Each states its hypotheses and why it holds.
"""

from __future__ import annotations

from functools import lru_cache
from math import comb
from typing import Any, Iterator, NamedTuple, Sequence

from polyregions.errors import InvalidInputError

__all__ = [
    "trivial_bound",
    "arrangement_bound",
    "one_layer_bound",
    "raghu_relu_bound",
    "raghu_hardtanh_bound",
    "raghu_bound",
    "serra_bound",
    "serra_index_set",
    "maxout_serra_bound",
    "maxout_montufar_bound",
    "ReceptiveField",
    "conv_receptive_fields",
    "conv_bound",
    "BoundRow",
    "compare_with_bounds",
]


def _check_dim(input_dim: Any) -> int:
    if isinstance(input_dim, bool) or not isinstance(input_dim, int) or input_dim < 1:
        raise InvalidInputError(f"input_dim: expected a positive integer, got {input_dim!r}")
    return input_dim


def _check_widths(widths: Any) -> tuple[int, ...]:
    if isinstance(widths, (str, bytes)) or not hasattr(widths, "__iter__"):
        raise InvalidInputError(f"widths: expected a list of positive integers, got {widths!r}")
    widths = tuple(widths)
    for i, w in enumerate(widths):
        if isinstance(w, bool) or not isinstance(w, int) or w < 1:
            raise InvalidInputError(f"widths[{i}]: expected a positive integer, got {w!r}")
    return widths


def _check_breakpoints(breakpoints: Any) -> int:
    if isinstance(breakpoints, bool) or not isinstance(breakpoints, int) or breakpoints < 1:
        raise InvalidInputError(f"breakpoints: expected a positive integer (T), got {breakpoints!r}")
    return breakpoints


def trivial_bound(widths: Sequence[int], *, breakpoints: int = 1) -> int:
    """The number of activation patterns, ``prod_l (T + 1)^(n_l)``.

    Hypotheses: any activation with ``T = breakpoints`` breakpoints; each neuron is on one of ``T + 1`` pieces.

    Parameters
    ----------
    widths : sequence of int
        ``n_1, ..., n_L``: the widths of the non-linear layers, each positive.
    breakpoints : int, keyword-only
        ``T``, positive (1 for ReLU and leaky ReLU, 2 for hard tanh).

    Returns
    -------
    int
        ``(T + 1)^N`` with ``N = sum_l n_l`` the number of neurons, exactly.

    Raises
    ------
    InvalidInputError
        When a width or ``breakpoints`` is not a positive integer.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.trivial_bound([3, 2])
    32
    >>> pr.trivial_bound([2], breakpoints=2)
    9
    """
    widths = _check_widths(widths)
    return (_check_breakpoints(breakpoints) + 1) ** sum(widths)


def arrangement_bound(hyperplanes: int, dim: int) -> int:
    """The most regions ``m`` affine hyperplanes can cut ``R^d`` into: ``sum_{i=0..d} C(m, i)``.

    Reached exactly when the hyperplanes are in general position (Zaslavsky's formula); an upper bound for every
    arrangement (Raghu et al. 2017, Theorem 5).

    Examples
    --------
    >>> arrangement_bound(3, 2)     # three lines in general position in the plane
    7
    >>> arrangement_bound(4, 1)     # four points on a line
    5
    """
    if isinstance(hyperplanes, bool) or not isinstance(hyperplanes, int) or hyperplanes < 0:
        raise InvalidInputError(f"hyperplanes: expected a non-negative integer, got {hyperplanes!r}")
    dim = _check_dim(dim)
    return sum(comb(hyperplanes, i) for i in range(dim + 1))


def one_layer_bound(input_dim: int, width: int, *, breakpoints: int = 1) -> int:
    """Regions of a network with one hidden (non-linear) layer: ``sum_{i <= n0} C(T n_1, i)``.

    Hypotheses: exactly one non-linear layer (any number of linear layers); any activation with
    ``T = breakpoints`` breakpoints. Each neuron contributes ``T`` parallel hyperplanes, and the regions are
    cells of that arrangement; the bound is reached when those hyperplanes are in general position.

    Parameters
    ----------
    input_dim : int
        ``n0``, positive (or the dimension of the domain the regions are counted in).
    width : int
        ``n_1``, the width of the non-linear layer, positive.
    breakpoints : int, keyword-only
        ``T``, positive.

    Returns
    -------
    int
        ``sum_{i=0..n0} C(T n_1, i)``, exactly.

    Raises
    ------
    InvalidInputError
        When an argument is not a positive integer.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.one_layer_bound(1, 4)       # four points cut a line into five intervals
    5
    >>> pr.one_layer_bound(2, 5)       # five generic lines in the plane: 1 + 5 + C(5, 2)
    16

    Three lines in general position reach the bound of 7 regions (Zaslavsky):

    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1], [1, 1]], [0, 0, -1], "relu")])
    >>> len(pr.enumerate_regions(net, pr.space(2))), pr.one_layer_bound(2, 3)
    (7, 7)
    """
    (width,) = _check_widths([width])
    return arrangement_bound(_check_breakpoints(breakpoints) * width, input_dim)


def raghu_bound(input_dim: int, widths: Sequence[int], *, breakpoints: int = 1) -> int:
    """The T-generalisation of Raghu et al. 2017, Theorem 1: ``prod_l sum_{j <= n0} C(T n_l, j)``.

    Hypotheses: any continuous piecewise-linear activation with ``T = breakpoints`` breakpoints. ``T = 1`` is
    the paper's ReLU bound, ``T = 2`` its hard tanh bound; for other ``T`` the paper's proof carries over
    unchanged (layer ``l`` cuts each region of the previous layers with at most ``T n_l`` hyperplanes).

    Parameters
    ----------
    input_dim : int
        ``n0``, positive (or the dimension of the domain the regions are counted in).
    widths : sequence of int
        ``n_1, ..., n_L``: the widths of the non-linear layers, each positive.
    breakpoints : int, keyword-only
        ``T``, positive.

    Returns
    -------
    int
        ``prod_l sum_{j=0..n0} C(T n_l, j)``, exactly.

    Raises
    ------
    InvalidInputError
        When ``input_dim``, a width or ``breakpoints`` is not a positive integer.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.raghu_bound(1, [2, 2])      # (1 + 2) * (1 + 2)
    9
    >>> pr.raghu_bound(1, [2], breakpoints=2)
    5
    """
    input_dim = _check_dim(input_dim)
    widths = _check_widths(widths)
    t = _check_breakpoints(breakpoints)
    result = 1
    for width in widths:
        result *= arrangement_bound(t * width, input_dim)
    return result


def raghu_relu_bound(input_dim: int, widths: Sequence[int]) -> int:
    """Raghu et al. 2017, Theorem 1 for ReLU: ``prod_l sum_{j <= n0} C(n_l, j)``.

    Hypotheses: ReLU activations (the theorem as stated; see :func:`raghu_bound` for other activations).

    Examples
    --------
    >>> raghu_relu_bound(2, [2, 2])   # each layer: 1 + 2 + 1
    16
    """
    return raghu_bound(input_dim, widths, breakpoints=1)


def raghu_hardtanh_bound(input_dim: int, widths: Sequence[int]) -> int:
    """Raghu et al. 2017, Theorem 1 for hard tanh: ``prod_l sum_{j <= n0} C(2 n_l, j)``.

    Hypotheses: hard tanh activations (two breakpoints, so two hyperplanes per neuron).

    Examples
    --------
    >>> raghu_hardtanh_bound(1, [1])  # one neuron: two points, three intervals
    3
    """
    return raghu_bound(input_dim, widths, breakpoints=2)


def serra_index_set(input_dim: int, widths: Sequence[int]) -> Iterator[tuple[int, ...]]:
    """The index set ``J`` of Serra et al. 2018, Theorem 1, in lexicographic order.

    ``J`` holds the integer vectors ``(j_1, ..., j_L)`` with
    ``0 <= j_l <= min(n0, n_1 - j_1, ..., n_{l-1} - j_{l-1}, n_l)`` for every ``l``.

    Examples
    --------
    >>> list(serra_index_set(1, [1, 1]))
    [(0, 0), (0, 1), (1, 0)]
    """
    input_dim = _check_dim(input_dim)
    widths = _check_widths(widths)

    def walk(layer: int, cap: int, prefix: tuple[int, ...]) -> Iterator[tuple[int, ...]]:
        if layer == len(widths):
            yield prefix
            return
        width = widths[layer]
        for j in range(min(cap, width) + 1):
            yield from walk(layer + 1, min(cap, width - j), prefix + (j,))

    yield from walk(0, input_dim, ())


def serra_bound(input_dim: int, widths: Sequence[int]) -> int:
    """Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1: ``sum_{J} prod_l C(n_l, j_l)``.

    ``J`` is :func:`serra_index_set`. The sum is computed by the same recursion over layers (the running
    minimum ``min(n0, n_1 - j_1, ..., n_{l-1} - j_{l-1})`` is the only state), memoised, in exact integers.

    Hypotheses: ReLU activations (or a one-breakpoint activation with a flat piece, which is a ReLU up to affine
    maps); not leaky ReLU, hard tanh or other piecewise-linear activations.

    Parameters
    ----------
    input_dim : int
        ``n0``, positive (or the dimension of the domain the regions are counted in).
    widths : sequence of int
        ``n_1, ..., n_L``: the widths of the ReLU layers, each positive.

    Returns
    -------
    int
        ``sum_{(j_1, ..., j_L) in J} prod_l C(n_l, j_l)``, exactly.

    Raises
    ------
    InvalidInputError
        When ``input_dim`` or a width is not a positive integer.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.serra_bound(1, [1, 1])      # J = {(0,0), (0,1), (1,0)}: 1 + 1 + 1
    3
    >>> pr.serra_bound(2, [3])         # one layer: 1 + 3 + 3, the arrangement count
    7
    >>> pr.serra_bound(1, [2, 2, 2]), pr.trivial_bound([2, 2, 2])
    (27, 64)
    """
    input_dim = _check_dim(input_dim)
    widths = _check_widths(widths)

    @lru_cache(maxsize=None)
    def total(layer: int, cap: int) -> int:
        if layer == len(widths):
            return 1
        width = widths[layer]
        return sum(comb(width, j) * total(layer + 1, min(cap, width - j)) for j in range(min(cap, width) + 1))

    return total(0, input_dim)


class BoundRow(NamedTuple):
    """One line of :func:`compare_with_bounds`.

    ``bound`` and ``holds`` are None when the bound's hypotheses do not hold for the activation
    (then ``hypotheses`` says why it does not apply).
    """

    name: str
    bound: int | None
    holds: bool | None
    hypotheses: str

    @property
    def applicable(self) -> bool:
        return self.bound is not None


def _classify(activation: Any, breakpoints: int | None) -> tuple[str, int]:
    """(kind, T) with kind in relu, leaky_relu, hardtanh, piecewise_linear, relu_like."""
    if isinstance(activation, bool):
        raise InvalidInputError(f"activation: expected a name, a breakpoint count or an activation, "
                                f"got {activation!r}")
    if isinstance(activation, int):
        return "piecewise_linear", _check_breakpoints(activation)
    if isinstance(activation, str):
        fixed = {"relu": 1, "leaky_relu": 1, "hardtanh": 2}
        if activation in fixed:
            if breakpoints is not None and breakpoints != fixed[activation]:
                raise InvalidInputError(f"breakpoints: {activation} has {fixed[activation]}, got {breakpoints!r}")
            return activation, fixed[activation]
        if activation == "piecewise_linear":
            if breakpoints is None:
                raise InvalidInputError("breakpoints: expected the number T of breakpoints of the "
                                        "piecewise_linear activation, got None")
            return activation, _check_breakpoints(breakpoints)
        raise InvalidInputError(f"activation: expected relu, leaky_relu, hardtanh, piecewise_linear or a "
                                f"breakpoint count, got {activation!r}")
    if hasattr(activation, "breakpoints") and hasattr(activation, "slopes"):
        t = len(activation.breakpoints)
        if t == 0:
            raise InvalidInputError("activation: a linear activation has no neurons, so no region bound")
        name = getattr(activation, "name", "piecewise_linear")
        if name in ("relu", "leaky_relu", "hardtanh"):
            return name, t
        if t == 1 and 0 in activation.slopes:
            return "relu_like", 1
        return "piecewise_linear", t
    raise InvalidInputError(f"activation: expected a name, a breakpoint count or an activation, "
                            f"got {type(activation).__name__}")


def compare_with_bounds(count: int, *, input_dim: int, widths: Sequence[int], activation: Any,
                        breakpoints: int | None = None) -> list[BoundRow]:
    """Set a counted number of regions beside every architecture bound, checking the ones that apply.

    Parameters
    ----------
    count : int
        The number of activation regions counted (in all of ``R^n0``, or in any sub-domain of dimension
        ``input_dim``).
    input_dim : int, keyword-only
        ``n0``: the input dimension, or the dimension of the domain the regions were counted in.
    widths : sequence of int, keyword-only
        Widths of the non-linear layers, in order.
    activation : str, int or activation object, keyword-only
        ``"relu"``, ``"leaky_relu"``, ``"hardtanh"``, ``"piecewise_linear"`` (with ``breakpoints``), an
        integer ``T`` (a general activation with ``T`` breakpoints), or an object with ``name``,
        ``breakpoints`` and ``slopes`` such as :class:`polyregions.networks.activations.Activation`.
    breakpoints : int, keyword-only
        ``T`` for ``activation="piecewise_linear"``.

    Returns
    -------
    list of BoundRow
        ``(name, bound, holds, hypotheses)`` for: ``trivial``, ``one_layer``, ``raghu2017_relu``,
        ``raghu2017_hardtanh``, ``raghu2017_breakpoints`` (the T-generalisation) and ``serra2018``. A bound
        whose hypotheses fail has ``bound = holds = None``: it is reported, not checked.

    Raises
    ------
    InvalidInputError
        When ``count`` is not a non-negative integer, a dimension or width is not a positive integer, or the
        activation is not recognised (or is linear, which has no neurons).

    Examples
    --------
    >>> import polyregions as pr
    >>> rows = pr.compare_with_bounds(3, input_dim=1, widths=[2], activation="relu")
    >>> [(r.name, r.bound, r.holds) for r in rows][:2]
    [('trivial', 4, True), ('one_layer', 3, True)]

    The sawtooth of depth 3 has 8 regions on ``[0, 1]``, within every ReLU bound; hard tanh's does not apply:

    >>> rows = pr.compare_with_bounds(8, input_dim=1, widths=[2, 2, 2], activation=pr.relu())
    >>> [(r.name, r.bound, r.holds) for r in rows]  # doctest: +NORMALIZE_WHITESPACE
    [('trivial', 64, True), ('one_layer', None, None), ('raghu2017_relu', 27, True),
     ('raghu2017_hardtanh', None, None), ('raghu2017_breakpoints', 27, True), ('serra2018', 27, True)]
    """
    if isinstance(count, bool) or not isinstance(count, int) or count < 0:
        raise InvalidInputError(f"count: expected a non-negative integer, got {count!r}")
    input_dim = _check_dim(input_dim)
    widths = _check_widths(widths)
    kind, t = _classify(activation, breakpoints)
    label = {"relu": "ReLU", "leaky_relu": "leaky ReLU", "hardtanh": "hard tanh",
             "relu_like": "a one-breakpoint activation with a flat piece (a ReLU up to affine maps)",
             "piecewise_linear": f"a piecewise-linear activation with T = {t}"}[kind]
    rows: list[BoundRow] = []

    def add(name: str, value: int | None, hypotheses: str) -> None:
        rows.append(BoundRow(name, value, None if value is None else count <= value, hypotheses))

    add("trivial", trivial_bound(widths, breakpoints=t),
        f"(T+1)^N activation patterns; any activation (here {label}, T = {t})")
    if len(widths) == 1:
        add("one_layer", one_layer_bound(input_dim, widths[0], breakpoints=t),
            f"one non-linear layer: cells of an arrangement of T*n1 = {t * widths[0]} hyperplanes in "
            f"R^{input_dim}; any activation")
    else:
        add("one_layer", None, f"not applicable: {len(widths)} non-linear layers, the bound needs exactly one")
    if kind in ("relu", "relu_like"):
        add("raghu2017_relu", raghu_relu_bound(input_dim, widths),
            f"Raghu et al. 2017, Theorem 1 (ReLU); activation: {label}")
    else:
        add("raghu2017_relu", None, f"not applicable: stated for ReLU, activation is {label} "
            "(see raghu2017_breakpoints)")
    if kind == "hardtanh":
        add("raghu2017_hardtanh", raghu_hardtanh_bound(input_dim, widths),
            "Raghu et al. 2017, Theorem 1 (hard tanh: two hyperplanes per neuron)")
    else:
        add("raghu2017_hardtanh", None, f"not applicable: stated for hard tanh, activation is {label}")
    add("raghu2017_breakpoints", raghu_bound(input_dim, widths, breakpoints=t),
        f"Raghu et al. 2017, Theorem 1 with T*n_l hyperplanes per layer (T = {t}); its layer-by-layer proof "
        "holds for any continuous piecewise-linear activation")
    if kind in ("relu", "relu_like"):
        add("serra2018", serra_bound(input_dim, widths),
            f"Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1 (ReLU); activation: {label}")
    else:
        add("serra2018", None, f"not applicable: proven for ReLU only (inactive units must output a "
            f"constant), activation is {label}")
    return rows


# --- maxout networks ------------------------------------------------------------------------------------------

def _check_ranks(rank: Any, layers: int) -> tuple[int, ...]:
    ranks = (rank,) * layers if isinstance(rank, int) and not isinstance(rank, bool) else rank
    if isinstance(ranks, (str, bytes)) or not hasattr(ranks, "__iter__"):
        raise InvalidInputError(f"rank: expected a positive integer or one per layer, got {rank!r}")
    ranks = tuple(ranks)
    if len(ranks) != layers:
        raise InvalidInputError(f"rank: expected {layers} ranks (one per layer), got {len(ranks)}")
    for i, k in enumerate(ranks):
        if isinstance(k, bool) or not isinstance(k, int) or k < 1:
            raise InvalidInputError(f"rank[{i}]: expected a positive integer (pieces per maxout unit), got {k!r}")
    return ranks


def maxout_serra_bound(input_dim: int, widths: Sequence[int], rank: int | Sequence[int]) -> int:
    """Serra, Tjandraatmadja & Ramalingam 2018 (Theorem 10): regions of a maxout network.

    ``prod_l sum_{j=0..d_l} C(k_l (k_l - 1) / 2 * n_l, j)`` with ``d_l = min(n0, n_1, ..., n_l)``.

    Hypotheses: ``L`` layers of ``n_l`` maxout units of rank ``k_l`` (each unit the maximum of ``k_l`` affine
    functions of the layer's input); affine maps without units between the layers fold into them. A region is a
    full-dimensional set on which the argmax of every unit is constant.

    Why it holds: inside a region of the first ``l - 1`` layers the network is affine, with an image of dimension
    ``r <= min(n0, n_1, ..., n_{l-1})``; there layer ``l``'s argmaxes are fixed by the signs of its
    ``k(k-1)/2 * n_l`` pairwise differences, an arrangement in ``R^r`` with at most ``sum_{j <= r} C(m, j)`` cells;
    and at most ``k^{n_l} <= sum_{j <= n_l} C(m, j)`` argmax patterns exist, which brings ``n_l`` into ``d_l``.

    Parameters
    ----------
    input_dim : int
        ``n0``, positive (or the dimension of the domain the regions are counted in).
    widths : sequence of int
        ``n_1, ..., n_L``: maxout units per layer (the layer's outputs), each positive.
    rank : int or sequence of int
        ``k``: affine pieces per unit, the same on every layer or one per layer; ``k = 2`` is a ReLU-like unit.

    Returns
    -------
    int
        The bound, exactly.

    Raises
    ------
    InvalidInputError
        When a dimension, width or rank is not a positive integer, or the ranks do not match the layers.

    Examples
    --------
    >>> maxout_serra_bound(1, [1], 3)     # three pairwise comparisons on a line: 1 + 3
    4
    >>> maxout_serra_bound(2, [2, 2], 2), raghu_relu_bound(2, [2, 2])  # rank 2: one hyperplane per unit
    (16, 16)
    """
    input_dim = _check_dim(input_dim)
    widths = _check_widths(widths)
    ranks = _check_ranks(rank, len(widths))
    total, dim = 1, input_dim
    for n, k in zip(widths, ranks):
        dim = min(dim, n)
        total *= sum(comb(k * (k - 1) // 2 * n, j) for j in range(dim + 1))
    return total


def maxout_montufar_bound(input_dim: int, widths: Sequence[int], rank: int | Sequence[int]) -> int:
    """Montufar, Ren & Zhang 2021: regions of a maxout network, ``prod_l sum_{j=0..d_l} C(n_l, j) (k_l - 1)^j``.

    Here ``d_l = min(n0, n_1, ..., n_{l-1})``. For one layer this is their sharp bound: ``n_1`` rank-``k``
    units on ``R^{n0}`` have at most ``sum_{j <= n0} C(n_1, j) (k - 1)^j`` regions, reached by generic
    parameters; for several layers it is their bound obtained by applying the one-layer count inside each
    region of the layers before, where the network is affine with an image of dimension at most ``d_l``.

    Hypotheses: as in :func:`maxout_serra_bound` (maxout layers, affine maps folded in, regions are the
    full-dimensional sets of constant argmax). The bound never exceeds :func:`maxout_serra_bound`, since
    ``C(n, j) (k - 1)^j <= C((k - 1) n, j) <= C(k (k - 1) / 2 * n, j)``.

    Parameters
    ----------
    input_dim : int
        ``n0``, positive (or the dimension of the domain the regions are counted in).
    widths : sequence of int
        ``n_1, ..., n_L``: maxout units per layer, each positive.
    rank : int or sequence of int
        ``k``: affine pieces per unit, one for all layers or one per layer.

    Returns
    -------
    int
        The bound, exactly.

    Raises
    ------
    InvalidInputError
        When a dimension, width or rank is not a positive integer, or the ranks do not match the layers.

    Examples
    --------
    >>> maxout_montufar_bound(1, [1], 3)     # a convex function with two breakpoints on a line
    3
    >>> maxout_montufar_bound(2, [3], 3)     # three tropical lines: 1 + 3*2 + 3*4
    19
    >>> maxout_montufar_bound(2, [2, 2], 2), raghu_relu_bound(2, [2, 2])
    (16, 16)
    """
    input_dim = _check_dim(input_dim)
    widths = _check_widths(widths)
    ranks = _check_ranks(rank, len(widths))
    total, dim = 1, input_dim
    for n, k in zip(widths, ranks):
        total *= sum(comb(n, j) * (k - 1) ** j for j in range(min(dim, n) + 1))
        dim = min(dim, n)
    return total


# --- convolutional networks ----------------------------------------------------------------------------------

class ReceptiveField(NamedTuple):
    """Neurons of a first convolutional layer that read the same input entries: ``neurons`` of them, reading
    ``inputs`` entries of the input (padding excluded)."""

    neurons: int
    inputs: int


def _positive_pair(value: Any, name: str, *, minimum: int, axes: int) -> tuple[int, ...]:
    values = (value,) * axes if isinstance(value, int) and not isinstance(value, bool) else tuple(value)
    if len(values) != axes or any(isinstance(v, bool) or not isinstance(v, int) or v < minimum for v in values):
        raise InvalidInputError(f"{name}: expected {axes} integer(s) >= {minimum}, got {value!r}")
    return values


def conv_receptive_fields(input_shape: Sequence[int], out_channels: int, kernel: int | Sequence[int], *,
                          stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                          dilation: int | Sequence[int] = 1, groups: int = 1) -> tuple[ReceptiveField, ...]:
    """The receptive fields of a convolution applied to the input, one per output position and group.

    Parameters
    ----------
    input_shape : sequence of int
        ``(C_in, L)`` for a 1-D convolution or ``(C_in, H, W)`` for a 2-D one (channel first, no batch axis).
    out_channels : int
        ``C_out``, a multiple of ``groups``.
    kernel, stride, padding, dilation : int or sequence of int
        As in PyTorch's ``Conv1d`` / ``Conv2d`` (zero padding).
    groups : int
        Channel groups, dividing ``C_in`` and ``C_out``.

    Returns
    -------
    tuple of ReceptiveField
        For every output position and group: the ``C_out / groups`` neurons there, and how many input entries
        they read (``C_in / groups`` times the kernel taps that fall inside the input, not on padding).

    Raises
    ------
    InvalidInputError
        When a shape or parameter is not a positive integer (padding: non-negative), the groups do not divide
        the channels, or the output would be empty.

    Examples
    --------
    >>> conv_receptive_fields((1, 4), 2, 2, stride=2)
    (ReceptiveField(neurons=2, inputs=2), ReceptiveField(neurons=2, inputs=2))
    >>> [f.inputs for f in conv_receptive_fields((1, 3), 1, 3, padding=1)]   # the border taps read padding
    [2, 3, 2]
    """
    shape = _check_widths(input_shape)
    if len(shape) not in (2, 3):
        raise InvalidInputError(f"input_shape: expected (C_in, L) or (C_in, H, W), got {tuple(input_shape)!r}")
    axes = len(shape) - 1
    kernel_ = _positive_pair(kernel, "kernel", minimum=1, axes=axes)
    stride_ = _positive_pair(stride, "stride", minimum=1, axes=axes)
    padding_ = _positive_pair(padding, "padding", minimum=0, axes=axes)
    dilation_ = _positive_pair(dilation, "dilation", minimum=1, axes=axes)
    out_channels = _check_dim(out_channels)
    if isinstance(groups, bool) or not isinstance(groups, int) or groups < 1 or shape[0] % groups \
            or out_channels % groups:
        raise InvalidInputError(f"groups: expected a positive integer dividing C_in = {shape[0]} and C_out = "
                                f"{out_channels}, got {groups!r}")
    per_axis = []  # for each spatial axis, the number of taps inside the input at every output position
    for size, k, s, p, d in zip(shape[1:], kernel_, stride_, padding_, dilation_):
        count = (size + 2 * p - d * (k - 1) - 1) // s + 1
        if count < 1:
            raise InvalidInputError(f"kernel: expected a kernel that fits the padded input ({size} + 2*{p}), got "
                                    f"{k} with dilation {d}")
        per_axis.append([sum(0 <= o * s - p + t * d < size for t in range(k)) for o in range(count)])
    fields: list[ReceptiveField] = []
    for taps in _grid(per_axis):
        inputs = shape[0] // groups * taps
        fields.extend(ReceptiveField(out_channels // groups, inputs) for _ in range(groups))
    return tuple(fields)


def _grid(per_axis: list[list[int]]) -> Iterator[int]:
    if not per_axis:
        yield 1
        return
    for first in per_axis[0]:
        for rest in _grid(per_axis[1:]):
            yield first * rest


def conv_bound(input_dim: int, first_layer: Sequence[ReceptiveField], later_widths: Sequence[int] = (), *,
               breakpoints: int = 1) -> int:
    """Regions of a convolutional network, in the form of Xiong et al. 2020: the first layer by its receptive
    fields, the later layers by their numbers of neurons.

    The bound is ``B_1 * prod_{l >= 2} sum_{j=0..d_l} C(T N_l, j)`` with ``d_l = min(n0, N_1, ..., N_{l-1})``,
    ``N_l`` the neurons of non-linear layer ``l`` (channels times positions) and
    ``B_1 = min(prod_g sum_{j=0..min(f_g, n0)} C(T m_g, j), sum_{j=0..n0} C(T N_1, j))`` over the groups ``g`` of
    :func:`conv_receptive_fields` (``m_g`` neurons reading ``f_g`` inputs). For non-overlapping receptive fields
    ``B_1`` is Xiong et al.'s exact maximum for one ReLU convolutional layer; with overlaps it is an upper bound.

    Hypotheses: the first non-linear layer is a convolution of the input (its neurons in group ``g`` depend only
    on the ``f_g`` inputs of their field; a per-channel affine map such as a batch normalisation may follow it);
    later layers are any affine maps (convolutions, average pooling, dense layers) followed by an element-wise
    activation with ``T`` breakpoints (ReLU: ``T = 1``). Max pooling and maxout are not covered.

    Why it holds: each neuron contributes ``T`` hyperplanes. The first layer's cells are intersections of one cell
    of each group's arrangement, and a group's arrangement is a cylinder over an arrangement in the
    ``f_g``-dimensional space of its inputs; the dense one-layer count bounds the same cells. Inside a region of
    the layers before ``l`` the network is affine with an image of dimension at most ``d_l``, where layer ``l``
    adds an arrangement of ``T N_l`` hyperplanes.

    Parameters
    ----------
    input_dim : int
        ``n0``: the number of input entries (channels times positions), or the dimension of the domain the
        regions are counted in (fields larger than it count as ``n0``).
    first_layer : sequence of ReceptiveField
        The groups of the first non-linear layer (:func:`conv_receptive_fields`).
    later_widths : sequence of int
        ``N_2, ..., N_L``: the neurons of each later non-linear layer.
    breakpoints : int, keyword-only
        ``T``, positive.

    Returns
    -------
    int
        The bound, exactly.

    Raises
    ------
    InvalidInputError
        When a dimension, width or field is not a positive integer (a field may read zero inputs: its neurons
        are constant), or ``first_layer`` is empty.

    Examples
    --------
    Two positions with disjoint fields of two inputs, two channels each: ``(1 + 2 + 1)^2``, where a dense
    layer of four neurons on four inputs could have 16 regions as well; with one input per field, 3 * 3:

    >>> conv_bound(4, conv_receptive_fields((1, 4), 2, 2, stride=2))
    16
    >>> conv_bound(2, conv_receptive_fields((1, 2), 2, 1))
    9
    """
    input_dim = _check_dim(input_dim)
    t = _check_breakpoints(breakpoints)
    fields = tuple(first_layer)
    if not fields:
        raise InvalidInputError("first_layer: expected at least one receptive field, got none")
    neurons = 0
    product = 1
    for i, field in enumerate(fields):
        if (not isinstance(field, tuple) or len(field) != 2
                or any(isinstance(v, bool) or not isinstance(v, int) for v in field)
                or field[0] < 1 or field[1] < 0):
            raise InvalidInputError(f"first_layer[{i}]: expected (neurons >= 1, inputs >= 0), got {field!r}")
        m, f = field
        neurons += m
        product *= 1 if f == 0 else arrangement_bound(t * m, min(f, input_dim))
    total = min(product, arrangement_bound(t * neurons, input_dim))
    dim = min(input_dim, neurons)
    for width in _check_widths(later_widths):
        total *= arrangement_bound(t * width, dim)
        dim = min(dim, width)
    return total
