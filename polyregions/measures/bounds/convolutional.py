"""Bounds for convolutional networks: receptive fields as sets of input entries, the sharp one-layer count of
Xiong et al. 2020 for overlapping fields, and the bounds of deeper networks built on it."""


from __future__ import annotations

from math import comb
from typing import Any, Sequence

from polyregions.errors import InvalidInputError
from polyregions.measures.bounds._checks import check_breakpoints, check_dim, check_widths
from polyregions.measures.bounds.dense import arrangement_bound
from polyregions.measures.bounds.receptive_fields import FieldEntries, ReceptiveField

__all__ = ["conv_layer_bound", "conv_bound", "xiong_conv_bound"]


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

    >>> from polyregions.measures.bounds import conv_field_entries, conv_receptive_fields, one_layer_bound
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
    cap = None if input_dim is None else check_dim(input_dim)
    t = check_breakpoints(breakpoints)
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

    >>> from polyregions.measures.bounds import conv_field_entries, conv_receptive_fields, one_layer_bound
    >>> fields = conv_field_entries((1, 3), 3, 2)          # B_1 = 40
    >>> xiong_conv_bound(3, fields, [2, 5]), conv_bound(3, fields, [2, 5])
    (4160, 2560)
    """
    input_dim = check_dim(input_dim)
    t = check_breakpoints(breakpoints)
    fields = tuple(first_layer)
    if not fields:
        raise InvalidInputError("first_layer: expected at least one receptive field, got none")
    for i, field in enumerate(fields):
        _field_entries(field, i, "first_layer")
    total = conv_layer_bound(fields, input_dim=input_dim, breakpoints=t, max_terms=max_terms)
    for width in check_widths(later_widths):
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

    >>> from polyregions.measures.bounds import conv_field_entries, conv_receptive_fields, one_layer_bound
    >>> conv_bound(4, conv_receptive_fields((1, 4), 2, 2, stride=2))
    16
    >>> conv_bound(2, conv_receptive_fields((1, 2), 2, 1))
    9

    Overlapping fields: the sets give the sharp count, the counts only the dense cap.

    >>> conv_bound(3, conv_field_entries((1, 3), 3, 2)), conv_bound(3, conv_receptive_fields((1, 3), 3, 2))
    (40, 42)
    """
    input_dim = check_dim(input_dim)
    t = check_breakpoints(breakpoints)
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
    for width in check_widths(later_widths):
        total *= arrangement_bound(t * width, dim)
        dim = min(dim, width)
    return total
