"""Bounds for maxout networks: Serra, Tjandraatmadja & Ramalingam 2018 (Theorem 10) and Montufar, Ren & Zhang
2021."""


from __future__ import annotations

from math import comb
from typing import Any, Sequence

from polyregions.errors import InvalidInputError
from polyregions.measures.bounds._checks import check_dim, check_widths

__all__ = ["maxout_serra_bound", "maxout_montufar_bound"]


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
    >>> from polyregions.measures.bounds import raghu_relu_bound
    >>> maxout_serra_bound(1, [1], 3)     # three pairwise comparisons on a line: 1 + 3
    4
    >>> maxout_serra_bound(2, [2, 2], 2), raghu_relu_bound(2, [2, 2])  # rank 2: one hyperplane per unit
    (16, 16)
    """
    input_dim = check_dim(input_dim)
    widths = check_widths(widths)
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
    >>> from polyregions.measures.bounds import raghu_relu_bound
    >>> maxout_montufar_bound(1, [1], 3)     # a convex function with two breakpoints on a line
    3
    >>> maxout_montufar_bound(2, [3], 3)     # three tropical lines: 1 + 3*2 + 3*4
    19
    >>> maxout_montufar_bound(2, [2, 2], 2), raghu_relu_bound(2, [2, 2])
    (16, 16)
    """
    input_dim = check_dim(input_dim)
    widths = check_widths(widths)
    ranks = _check_ranks(rank, len(widths))
    total, dim = 1, input_dim
    for n, k in zip(widths, ranks):
        total *= sum(comb(n, j) * (k - 1) ** j for j in range(min(dim, n) + 1))
        dim = min(dim, n)
    return total


