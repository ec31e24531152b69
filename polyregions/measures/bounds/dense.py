"""Bounds for dense networks: trivial, one layer (Zaslavsky), Raghu et al. 2017 Theorem 1 and Serra et al. 2018
Theorem 1, and the comparison of a counted number with every bound whose hypotheses hold."""


from __future__ import annotations

from math import comb
from typing import Any, Iterator, NamedTuple, Sequence

from polyregions.errors import InvalidInputError
from polyregions.measures.bounds._checks import check_breakpoints, check_dim, check_widths

__all__ = ["trivial_bound", "arrangement_bound", "one_layer_bound", "raghu_relu_bound", "raghu_hardtanh_bound",
           "raghu_bound", "serra_bound", "serra_index_set", "BoundRow", "compare_with_bounds"]


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
    widths = check_widths(widths)
    return (check_breakpoints(breakpoints) + 1) ** sum(widths)


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
    dim = check_dim(dim)
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
    (width,) = check_widths([width])
    return arrangement_bound(check_breakpoints(breakpoints) * width, input_dim)


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
    input_dim = check_dim(input_dim)
    widths = check_widths(widths)
    t = check_breakpoints(breakpoints)
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
    input_dim = check_dim(input_dim)
    widths = check_widths(widths)

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
    input_dim = check_dim(input_dim)
    widths = check_widths(widths)

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
        return "piecewise_linear", check_breakpoints(activation)
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
            return activation, check_breakpoints(breakpoints)
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
    input_dim = check_dim(input_dim)
    widths = check_widths(widths)
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


