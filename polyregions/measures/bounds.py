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
:func:`maxout_montufar_bound`, Montufar, Ren & Zhang 2021) and convolutional networks (:func:`conv_layer_bound`,
the sharp one-layer count of Xiong et al. 2020 for overlapping receptive fields, and :func:`conv_bound` for deeper
networks, with :func:`conv_field_entries` and :func:`conv_receptive_fields`). Each states its hypotheses and why it
holds.
"""

from __future__ import annotations

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
    "FieldEntries",
    "conv_receptive_fields",
    "conv_field_entries",
    "conv_layer_bound",
    "conv_bound",
    "xiong_conv_bound",
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

    ``J`` is :func:`serra_index_set`. The sum is computed layer by layer (the running minimum
    ``min(n0, n_1 - j_1, ..., n_{l-1} - j_{l-1})`` is the only state), in exact integers.

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

    # Forward over the layers (a recursion over them would meet Python's recursion limit at a few hundred
    # layers): ways[cap] is the weighted number of prefixes (j_1, ..., j_l) whose running minimum is cap.
    ways = {input_dim: 1}
    for width in widths:
        following: dict[int, int] = {}
        for cap, count in ways.items():
            for j in range(min(cap, width) + 1):
                key = min(cap, width - j)
                following[key] = following.get(key, 0) + count * comb(width, j)
        ways = following
    return sum(ways.values())


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
    (The theorem number is as cited; the paper's text could not be re-read here, so this proof stands on its own.)

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
    (The paper's text could not be re-read here: the one-layer count is taken from it, while the step to
    several layers is the argument just given.)

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


class FieldEntries(NamedTuple):
    """Neurons of a convolutional layer that read the same input entries: ``neurons`` of them, reading the input
    entries whose flat indices are ``entries`` (channel first, then row-major positions; padding excluded).

    Unlike :class:`ReceptiveField`, which keeps only how many entries are read, the sets show how fields
    overlap, which :func:`conv_layer_bound` needs.
    """

    neurons: int
    entries: frozenset[int]

    @property
    def inputs(self) -> int:
        """How many input entries the neurons read."""
        return len(self.entries)


def _positive_pair(value: Any, name: str, *, minimum: int, axes: int) -> tuple[int, ...]:
    if isinstance(value, int) and not isinstance(value, bool):
        values: tuple[Any, ...] = (value,) * axes
    elif isinstance(value, (list, tuple)):
        values = tuple(value)
    else:
        raise InvalidInputError(f"{name}: expected {axes} integer(s) >= {minimum}, got {value!r}")
    if len(values) != axes or any(isinstance(v, bool) or not isinstance(v, int) or v < minimum for v in values):
        raise InvalidInputError(f"{name}: expected {axes} integer(s) >= {minimum}, got {value!r}")
    return values


def _conv_taps(input_shape: Any, out_channels: Any, kernel: Any, stride: Any, padding: Any, dilation: Any,
               groups: Any) -> tuple[tuple[int, ...], int, list[list[list[int]]]]:
    """(input shape, C_out, taps): ``taps[a][o]`` lists the input coordinates along spatial axis ``a`` that the
    kernel reads at output coordinate ``o`` (taps on padding left out)."""
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
    taps = []
    for size, k, s, p, d in zip(shape[1:], kernel_, stride_, padding_, dilation_):
        count = (size + 2 * p - d * (k - 1) - 1) // s + 1
        if count < 1:
            raise InvalidInputError(f"kernel: expected a kernel that fits the padded input ({size} + 2*{p}), got "
                                    f"{k} with dilation {d}")
        taps.append([[o * s - p + t * d for t in range(k) if 0 <= o * s - p + t * d < size] for o in range(count)])
    return shape, out_channels, taps


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
        they read (``C_in / groups`` times the kernel taps that fall inside the input, not on padding). The sets
        of entries are :func:`conv_field_entries`, in the same order.

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
    return tuple(ReceptiveField(f.neurons, f.inputs) for f in conv_field_entries(
        input_shape, out_channels, kernel, stride=stride, padding=padding, dilation=dilation, groups=groups))


def conv_field_entries(input_shape: Sequence[int], out_channels: int, kernel: int | Sequence[int], *,
                       stride: int | Sequence[int] = 1, padding: int | Sequence[int] = 0,
                       dilation: int | Sequence[int] = 1, groups: int = 1) -> tuple[FieldEntries, ...]:
    """The input entries read at every output position and group of a convolution applied to the input.

    Parameters
    ----------
    input_shape, out_channels, kernel, stride, padding, dilation, groups
        As in :func:`conv_receptive_fields`.

    Returns
    -------
    tuple of FieldEntries
        For every output position (row-major) and, within it, every group: the ``C_out / groups`` neurons there
        and the flat indices ``c * (H * W) + i * W + j`` (1-D: ``c * L + i``) of the input entries they read: the
        group's ``C_in / groups`` channels at the kernel taps that fall inside the input.

    Raises
    ------
    InvalidInputError
        As :func:`conv_receptive_fields`.

    Examples
    --------
    A kernel of two with stride one: neighbouring fields share an entry.

    >>> [sorted(f.entries) for f in conv_field_entries((1, 3), 2, 2)]
    [[0, 1], [1, 2]]
    >>> [sorted(f.entries) for f in conv_field_entries((2, 2), 2, 1, groups=2)]   # channel c at position i: 2c + i
    [[0], [2], [1], [3]]
    """
    shape, out_channels, taps = _conv_taps(input_shape, out_channels, kernel, stride, padding, dilation, groups)
    plane = 1
    for size in shape[1:]:
        plane *= size
    per_group = shape[0] // groups
    width = shape[2] if len(shape) == 3 else 1
    fields: list[FieldEntries] = []
    for spots in _positions(taps, width):
        for g in range(groups):
            channels = range(g * per_group, (g + 1) * per_group)
            fields.append(FieldEntries(out_channels // groups, frozenset(c * plane + s for c in channels
                                                                           for s in spots)))
    return tuple(fields)


def _positions(taps: list[list[list[int]]], width: int) -> Iterator[list[int]]:
    """For every output position in row-major order, the flat spatial indices its kernel reads."""
    if len(taps) == 1:
        yield from taps[0]
        return
    for rows in taps[0]:
        for cols in taps[1]:
            yield [i * width + j for i in rows for j in cols]


class _TermLimitError(InvalidInputError):
    """The exact first-layer sum would visit more index vectors than allowed."""


def conv_layer_bound(fields: Sequence[FieldEntries], *, input_dim: int | None = None, breakpoints: int = 1,
                     max_terms: int = 200_000) -> int:
    """The most regions one convolutional layer can have, from its receptive fields as sets (Xiong et al. 2020).

    With fields ``p`` of ``m_p`` neurons reading the entry sets ``E_p`` (:func:`conv_field_entries`), the bound is
    ``sum_{t in K} prod_p C(m_p, t_p) T^(t_p)`` over the integer vectors ``t`` with ``0 <= t_p <= m_p`` and, for
    every set ``J`` of fields, ``sum_{p in J} t_p <= |union_{p in J} E_p|`` (Hall's condition); when
    ``input_dim = k`` is given, also ``sum_p t_p <= k``. For ReLU (``T = 1``) and one field per output position
    this is Theorem 2 of Xiong, Huang, Yu, Liu, Zhu & Shao (ICML 2020, arXiv 2006.00978), the maximal number of
    regions of a one-layer ReLU CNN: their fields ``S_{i,j}`` are the ``f^(1) x f^(2)`` taps at stride ``s_1``
    times the ``d_0`` input channels (no padding), and ``m_p = d_1``, the output channels. Here fields may also
    come from padding (taps on padding read nothing), dilation, groups or any sparsity pattern, and ``T`` may
    exceed 1. (We read their statements in a public restatement, not in the paper; the proof below stands on its
    own.)

    Hypotheses: one layer of neurons, each an affine function of the input entries of its field followed by a
    continuous piecewise-linear activation with ``T = breakpoints`` breakpoints; weights may be shared or not (a
    convolution, a grouped or dilated one, or a dense layer with that sparsity). A region is a cell of the
    arrangement of the neurons' breakpoint hyperplanes. ``input_dim = k`` bounds the regions in any
    ``k``-dimensional affine slice of the input (a segment, a plane).

    Why it holds. (1) An arrangement ``A`` of distinct affine hyperplanes has at most ``I(A)`` regions, the number
    of subsets whose normals are linearly independent (parallel hyperplanes share a normal): by induction,
    ``r(A) = r(A - H) + r(A^H)`` for the restriction ``A^H`` to ``H``; subsets of ``A^H`` with independent normals
    in ``H`` lift to independent subsets of ``A`` containing ``H``, so ``r(A) <= I(A - H) + #{independent subsets
    containing H} = I(A)``. (2) A neuron's ``T`` hyperplanes are parallel, so an independent subset takes at most
    one from each neuron, and the chosen neurons' weight vectors are independent. (3) Independent weight vectors
    have a non-zero maximal minor; a non-zero term of its expansion matches each chosen neuron to a distinct entry
    of its field, and by Hall's theorem such a matching exists exactly when the condition above holds for
    every set of neurons; the neurons of one field share their entries, so the sets ``J`` of fields suffice.
    Counting the chosen neurons per field, and one of ``T`` hyperplanes per chosen neuron, gives the sum. In a
    ``k``-dimensional slice the normals are projected, and independent projections come from independent normals
    of at most ``k`` neurons. The bound is reached without weight sharing: with generic entries every matchable
    set of neurons is independent (distinct matchings give distinct monomials of the minor), and with generic
    biases every dependent set of hyperplanes has an empty intersection, so the regions number ``I(A)`` exactly.

    Computation: fields with the same entries merge (``C(a + b, t) = sum_i C(a, i) C(b, t - i)``); fields that
    share no entry, directly or through others, are counted separately and combined by the total ``sum t``;
    a group of overlapping fields whose entries lie on a line as runs with non-decreasing ends (1-D convolutions)
    is summed by dynamic programming over the fields, the state being the first entry a greedy matching leaves
    free; a group whose neurons can all be matched at once counts every vector (``C(M, s) T^s`` for ``M``
    neurons); any other group enumerates the vectors ``t`` field by field, each increase of a ``t_p`` kept only when
    an augmenting path extends the matching of neurons to entries (Hall's condition checked for all ``J`` at once;
    it is downward closed, so the first failure ends ``t_p``), visiting at most ``max_terms`` partial vectors.

    Parameters
    ----------
    fields : sequence of FieldEntries
        ``(neurons, entries)`` per field; ``neurons`` positive, ``entries`` a set of non-negative integers (an
        empty set: the neurons are constant and add nothing).
    input_dim : int, optional, keyword-only
        ``k``: the dimension of the domain the regions are counted in, when it is smaller than the input's.
    breakpoints : int, keyword-only
        ``T``, positive (1 for ReLU and leaky ReLU, 2 for hard tanh).
    max_terms : int, keyword-only
        The most partial vectors ``t`` the enumeration may visit.

    Returns
    -------
    int
        The bound, exactly.

    Raises
    ------
    InvalidInputError
        When a field, ``input_dim``, ``breakpoints`` or ``max_terms`` is malformed, or the enumeration would
        visit more than ``max_terms`` partial vectors (:func:`conv_bound` then falls back to its product form).

    Examples
    --------
    One input channel of three entries, a kernel of two with stride one, three output channels: fields ``{0, 1}``
    and ``{1, 2}``, so ``t_1, t_2 <= 2`` and ``t_1 + t_2 <= 3``; 40 regions, where six dense neurons on ``R^3``
    could have 42 and the fields taken apart 49:

    >>> conv_layer_bound(conv_field_entries((1, 3), 3, 2))
    40
    >>> one_layer_bound(3, 6), conv_bound(3, conv_receptive_fields((1, 3), 3, 2))
    (42, 42)

    One field is a dense layer on its entries; with ``T = 2`` the parallel pairs count ``C(m, j) 2^j``:

    >>> conv_layer_bound([FieldEntries(3, frozenset({0, 1}))]), one_layer_bound(2, 3)
    (7, 7)
    >>> conv_layer_bound([FieldEntries(2, frozenset({0, 1}))], breakpoints=2)   # two pairs of parallel lines
    9
    """
    cap = None if input_dim is None else _check_dim(input_dim)
    t = _check_breakpoints(breakpoints)
    if isinstance(max_terms, bool) or not isinstance(max_terms, int) or max_terms < 1:
        raise InvalidInputError(f"max_terms: expected a positive integer, got {max_terms!r}")
    merged: dict[frozenset[int], int] = {}
    for i, field in enumerate(fields):
        neurons, entries = _field_entries(field, i)
        if entries:
            merged[entries] = merged.get(entries, 0) + neurons
    total = [1]
    budget = [max_terms]
    for component in _overlap_components(merged):
        runs = _interval_runs(component)
        polynomial = (_component_polynomial(component, t, cap, budget, max_terms) if runs is None
                      else _interval_polynomial(runs, t, cap))
        total = _truncated_product(total, polynomial, cap)
    return sum(total)


def _field_entries(field: Any, index: int, what: str = "fields") -> tuple[int, frozenset[int]]:
    if (isinstance(field, tuple) and len(field) == 2 and isinstance(field[0], int)
            and not isinstance(field[0], bool) and field[0] >= 1 and isinstance(field[1], (set, frozenset))
            and all(isinstance(e, int) and not isinstance(e, bool) and e >= 0 for e in field[1])):
        return field[0], frozenset(field[1])
    raise InvalidInputError(f"{what}[{index}]: expected (neurons >= 1, a set of input indices >= 0), got {field!r}")


def _overlap_components(merged: dict[frozenset[int], int]) -> list[list[tuple[int, frozenset[int]]]]:
    """The fields grouped by shared entries (connected through chains of overlaps), each sorted by entries."""
    parent: dict[int, int] = {}

    def root(e: int) -> int:
        while parent.setdefault(e, e) != e:
            parent[e] = parent[parent[e]]
            e = parent[e]
        return e

    for entries in merged:
        first = root(min(entries))
        for e in entries:
            parent[root(e)] = first
    groups: dict[int, list[tuple[int, frozenset[int]]]] = {}
    for entries, neurons in merged.items():
        groups.setdefault(root(min(entries)), []).append((neurons, entries))
    # sorting by entries keeps neighbouring fields close in 1-D and row-major 2-D layouts, so matchings stay local
    return [sorted(g, key=lambda f: (min(f[1]), max(f[1]), sorted(f[1]))) for g in groups.values()]


def _component_polynomial(fields: list[tuple[int, frozenset[int]]], t: int, cap: int | None, budget: list[int],
                          max_terms: int) -> list[int]:
    """``coefficients[s]``: the sum of ``prod_p C(m_p, t_p) T^(t_p)`` over the Hall vectors with ``sum t = s``."""
    index = {e: i for i, e in enumerate(sorted(frozenset().union(*(entries for _, entries in fields))))}
    reads = [[index[e] for e in sorted(entries)] for _, entries in fields]
    limit = len(index) if cap is None else min(cap, len(index))
    owner = [-1] * len(index)  # the field an entry is matched to
    coefficients = [0] * (limit + 1)

    def augment(p: int, seen: set[int]) -> bool:
        for e in reads[p]:
            if e not in seen:
                seen.add(e)
                if owner[e] < 0 or augment(owner[e], seen):
                    owner[e] = p
                    return True
        return False

    def walk(p: int, used: int, weight: int) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise _TermLimitError(f"fields: expected a layer whose exact count visits at most max_terms = "
                                  f"{max_terms} partial index vectors, got more")
        if p == len(fields):
            coefficients[used] += weight
            return
        saved = owner[:]
        walk(p + 1, used, weight)
        m = fields[p][0]
        for tp in range(1, m + 1):
            if used + tp > limit or not augment(p, set()):
                break
            walk(p + 1, used + tp, weight * comb(m, tp) * t ** tp)
        owner[:] = saved

    # every neuron matchable at once: Hall's condition is downward closed, so every t counts (one binomial row)
    if all(augment(p, set()) for p, (m, _) in enumerate(fields) for _ in range(m)):
        neurons = sum(m for m, _ in fields)
        return [comb(neurons, s) * t ** s for s in range(limit + 1)]
    owner[:] = [-1] * len(index)
    walk(0, 0, 1)
    return coefficients


def _interval_runs(fields: list[tuple[int, frozenset[int]]]) -> list[tuple[int, int, int]] | None:
    """When the entries can be laid on a line on which every field, in order, reads a run ``lo..hi`` with ``lo``
    and ``hi`` non-decreasing (1-D convolutions, each group and each dilation phase apart), the runs
    ``(neurons, lo, hi)``; otherwise None. The layout is verified, never assumed."""
    membership: dict[int, list[int]] = {}
    for i, (_, entries) in enumerate(fields):
        for e in entries:
            membership.setdefault(e, []).append(i)
    if any(f[-1] - f[0] + 1 != len(f) for f in membership.values()):
        return None
    order = sorted(membership, key=lambda e: (membership[e][0], membership[e][-1]))
    place = {e: i for i, e in enumerate(order)}
    runs: list[tuple[int, int, int]] = []
    for neurons, entries in fields:
        spots = sorted(place[e] for e in entries)
        if spots[-1] - spots[0] + 1 != len(spots) or (runs and (spots[0] < runs[-1][1] or spots[-1] < runs[-1][2])):
            return None
        runs.append((neurons, spots[0], spots[-1]))
    return runs


def _interval_polynomial(runs: list[tuple[int, int, int]], t: int, cap: int | None) -> list[int]:
    """:func:`_component_polynomial` for runs on a line, by dynamic programming over the fields.

    With runs in order of non-decreasing ends, neurons matched greedily to the lowest free entries of their run
    are matchable exactly when any matching exists (an exchange argument: a matched entry can always be moved down
    to a free lower one of the same run without hurting later runs, whose runs end no lower). As starts are
    non-decreasing too, the free entries below the first free one at or above ``lo`` are out of every later run,
    so the state is that one pointer.
    """
    limit = runs[-1][2] + 1 if cap is None else min(cap, runs[-1][2] + 1)
    states: dict[int, list[int]] = {0: [1]}
    for m, lo, hi in runs:
        following: dict[int, list[int]] = {}
        for pointer, polynomial in states.items():
            start = max(pointer, lo)
            for tp in range(min(m, hi + 1 - start) + 1):
                factor = comb(m, tp) * t ** tp
                target = following.setdefault(start + tp, [0] * (limit + 1))
                for used, weight in enumerate(polynomial[:limit + 1 - tp]):
                    target[used + tp] += weight * factor
        states = following
    result = [0] * (limit + 1)
    for polynomial in states.values():
        for used, weight in enumerate(polynomial):
            result[used] += weight
    return result


def _truncated_product(a: list[int], b: list[int], cap: int | None) -> list[int]:
    size = len(a) + len(b) - 1 if cap is None else min(len(a) + len(b) - 1, cap + 1)
    out = [0] * size
    for i, x in enumerate(a):
        for j, y in enumerate(b[:size - i]):
            out[i + j] += x * y
    return out


def xiong_conv_bound(input_dim: int, first_layer: Sequence[FieldEntries], later_widths: Sequence[int] = (), *,
                     breakpoints: int = 1, max_terms: int = 200_000) -> int:
    """Xiong et al. 2020, Theorem 5 (upper bound): ``B_1 * prod_{l >= 2} sum_{i=0..n0} C(T N_l, i)``.

    ``B_1`` is the one-layer maximum of the first convolutional layer (:func:`conv_layer_bound`, their
    Theorem 2), ``N_l`` the neurons of layer ``l`` (``n_l^(1) n_l^(2) d_l`` for their 2-D layers) and ``n0`` the
    input dimension in every factor. It is the paper's multi-layer bound (``T = 1``), stated for convolutions
    without padding and extended here as :func:`conv_bound` is. :func:`conv_bound` never exceeds it: it uses
    ``d_l = min(n0, N_1, ..., N_{l-1}) <= n0`` in the same factors.

    Hypotheses: as :func:`conv_bound` (later layers any affine maps followed by an activation with ``T``
    breakpoints).

    Why it holds: inside a region of the layers before ``l`` the network is affine, and layer ``l``'s ``N_l``
    neurons cut that region, a subset of ``R^n0``, with at most ``T N_l`` hyperplanes, hence into at most
    ``sum_{i <= n0} C(T N_l, i)`` pieces.

    Parameters
    ----------
    input_dim : int
        ``n0``, as in :func:`conv_bound`.
    first_layer : sequence of FieldEntries
        The fields of the first layer (:func:`conv_field_entries`).
    later_widths : sequence of int
        ``N_2, ..., N_L``.
    breakpoints, max_terms : int, keyword-only
        As in :func:`conv_layer_bound`; beyond ``max_terms`` it raises (no fallback: the theorem's ``B_1`` is the
        exact maximum).

    Returns
    -------
    int
        The bound, exactly.

    Raises
    ------
    InvalidInputError
        When an argument is malformed or ``B_1`` needs more than ``max_terms`` partial vectors.

    Examples
    --------
    A layer of two neurons caps the dimension seen by the next in :func:`conv_bound` (``1 + 5 + 10`` against
    ``1 + 5 + 10 + 10``):

    >>> fields = conv_field_entries((1, 3), 3, 2)          # B_1 = 40
    >>> xiong_conv_bound(3, fields, [2, 5]), conv_bound(3, fields, [2, 5])
    (4160, 2560)
    """
    input_dim = _check_dim(input_dim)
    t = _check_breakpoints(breakpoints)
    fields = tuple(first_layer)
    if not fields:
        raise InvalidInputError("first_layer: expected at least one receptive field, got none")
    for i, field in enumerate(fields):
        _field_entries(field, i, "first_layer")
    total = conv_layer_bound(fields, input_dim=input_dim, breakpoints=t, max_terms=max_terms)
    for width in _check_widths(later_widths):
        total *= arrangement_bound(t * width, input_dim)
    return total


def conv_bound(input_dim: int, first_layer: Sequence[ReceptiveField] | Sequence[FieldEntries],
               later_widths: Sequence[int] = (), *, breakpoints: int = 1, max_terms: int = 200_000) -> int:
    """Regions of a convolutional network: the first layer by its receptive fields, the later layers by their
    numbers of neurons.

    The bound is ``B_1 * prod_{l >= 2} sum_{j=0..d_l} C(T N_l, j)`` with ``d_l = min(n0, N_1, ..., N_{l-1})`` and
    ``N_l`` the neurons of non-linear layer ``l`` (channels times positions). ``B_1`` bounds the first layer:

    - fields as sets (:func:`conv_field_entries`): ``B_1`` is :func:`conv_layer_bound` with ``input_dim = n0``,
      the sharp one-layer count (Xiong et al. 2020's form for ReLU), exact for overlapping fields too. When that
      sum would visit more than ``max_terms`` partial vectors, ``B_1`` falls back to the product form below,
      which is valid for any overlap but not sharp (call :func:`conv_layer_bound` to be told instead);
    - fields as counts (:func:`conv_receptive_fields`): the overlaps are unknown, and ``B_1`` is the product form
      ``prod_g sum_{j=0..min(f_g, n0)} C(T m_g, j)`` over the fields ``g`` (``m_g`` neurons reading ``f_g``
      inputs), sharp only for non-overlapping fields.

    Either way ``B_1`` is also capped by the dense one-layer count ``sum_{j=0..n0} C(T N_1, j)``.

    Hypotheses: the first non-linear layer is a convolution of the input (its neurons in field ``g`` depend only
    on the inputs of their field; a per-channel affine map such as a batch normalisation may follow it);
    later layers are any affine maps (convolutions, average pooling, dense layers) followed by an element-wise
    activation with ``T`` breakpoints (ReLU: ``T = 1``). Max pooling and maxout are not covered.

    Why it holds: :func:`conv_layer_bound` proves the sharp first-layer term. The product form holds because
    the first layer's cells are intersections of one cell of each field's arrangement, and a field's arrangement
    is a cylinder over an arrangement in the ``f_g``-dimensional space of its inputs; the dense one-layer count
    bounds the same cells. For the later layers (our own bound, in the form of Xiong et al.'s Theorem 5, a
    first-layer term times layerwise factors): inside a region of the layers before ``l`` the network is affine
    with an image of dimension at most ``d_l``, where layer ``l`` cuts it with at most ``T N_l`` hyperplanes.
    Their Theorem 5 has ``n0`` in place of ``d_l`` (:func:`xiong_conv_bound`), never smaller since
    ``d_l <= n0``.

    Parameters
    ----------
    input_dim : int
        ``n0``: the number of input entries (channels times positions), or the dimension of the domain the
        regions are counted in (fields larger than it count as ``n0``).
    first_layer : sequence of FieldEntries, or of ReceptiveField
        The fields of the first non-linear layer (:func:`conv_field_entries` or :func:`conv_receptive_fields`),
        all of one kind.
    later_widths : sequence of int
        ``N_2, ..., N_L``: the neurons of each later non-linear layer.
    breakpoints : int, keyword-only
        ``T``, positive.
    max_terms : int, keyword-only
        Passed to :func:`conv_layer_bound` for fields given as sets.

    Returns
    -------
    int
        The bound, exactly.

    Raises
    ------
    InvalidInputError
        When a dimension, width or field is malformed (a field may read no inputs: its neurons are constant),
        ``first_layer`` is empty or mixes the two kinds of field.

    Examples
    --------
    Two positions with disjoint fields of two inputs, two channels each: ``(1 + 2 + 1)^2``, where a dense
    layer of four neurons on four inputs could have 16 regions as well; with one input per field, 3 * 3:

    >>> conv_bound(4, conv_receptive_fields((1, 4), 2, 2, stride=2))
    16
    >>> conv_bound(2, conv_receptive_fields((1, 2), 2, 1))
    9

    Overlapping fields: the sets give the sharp count, the counts only the dense cap.

    >>> conv_bound(3, conv_field_entries((1, 3), 3, 2)), conv_bound(3, conv_receptive_fields((1, 3), 3, 2))
    (40, 42)
    """
    input_dim = _check_dim(input_dim)
    t = _check_breakpoints(breakpoints)
    fields: tuple[Any, ...] = tuple(first_layer)
    if not fields:
        raise InvalidInputError("first_layer: expected at least one receptive field, got none")
    as_sets = [isinstance(f, tuple) and len(f) == 2 and isinstance(f[1], (set, frozenset)) for f in fields]
    if any(as_sets) and not all(as_sets):
        raise InvalidInputError("first_layer: expected every field as a set of entries (conv_field_entries) or "
                                "every field as a count (conv_receptive_fields), got both kinds")
    neurons = 0
    product = 1
    for i, field in enumerate(fields):
        if as_sets[0]:
            m, entries = _field_entries(field, i, "first_layer")
            f = len(entries)
        elif (isinstance(field, tuple) and len(field) == 2
              and not any(isinstance(v, bool) or not isinstance(v, int) for v in field)
              and field[0] >= 1 and field[1] >= 0):
            m, f = field
        else:
            raise InvalidInputError(f"first_layer[{i}]: expected (neurons >= 1, inputs >= 0) or (neurons >= 1, "
                                    f"a set of input indices), got {field!r}")
        neurons += m
        product *= 1 if f == 0 else arrangement_bound(t * m, min(f, input_dim))
    first = min(product, arrangement_bound(t * neurons, input_dim))
    if as_sets[0]:
        try:
            first = min(first, conv_layer_bound(fields, input_dim=input_dim, breakpoints=t, max_terms=max_terms))
        except _TermLimitError:
            pass  # the product form stands: valid for any overlap, documented as the fallback
    total = first
    dim = min(input_dim, neurons)
    for width in _check_widths(later_widths):
        total *= arrangement_bound(t * width, dim)
        dim = min(dim, width)
    return total
