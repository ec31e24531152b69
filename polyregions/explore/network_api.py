"""The explorer's network view: a small ReLU network on a box of the plane, its regions redrawn exactly.

A request is a JSON object, either ``{"widths": [2, 8, 8, 1], "seed": 0}`` for a new network (He-normal
weights and normal biases of standard deviation 0.2, each rounded to a hundredth, so that every weight is a
short decimal a slider can hold exactly), or ``{"layers": [{"weight": [[...], ...], "bias": [...]}, ...]}`` with
every number exact (``"0.25"``, ``"-37/100"``): ReLU on every layer but the last, which is linear. The input
dimension is 2; at most 64 hidden units and 4 outputs. ``"box"`` (``[[x_min, y_min], [x_max, y_max]]``, default
``[-1, 1]^2``) is the domain.

The answer holds the network (``widths`` and ``layers``, numbers as exact strings), the box, the counts of
:meth:`RegionComplex.summary <polyregions.regions.complex.RegionComplex.summary>` under ``"summary"`` (those of
``polyregions regions --json``), and every activation region: its pattern (``"0110|10"``: the piece of each
unit, layer by layer), the index of its linear region, and its exact polygon rounded to floats for drawing.

Examples
--------
>>> view = network_view({"layers": [{"weight": [[1, 0], [0, 1]], "bias": [0, 0]}, {"weight": [[1, 1]], "bias": [0]}]})
>>> view["summary"]["activation_regions"], view["summary"]["linear_regions"]
(4, 4)
>>> sorted(r["pattern"] for r in view["regions"])
['00', '01', '10', '11']
"""

from __future__ import annotations

import itertools
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Mapping

from polyregions.errors import InvalidInputError
from polyregions.explore.limits import LIMITS, Limits, check_keys, read_number, read_window

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["network_view", "initial_layers", "BIAS_STD"]

#: The standard deviation of the biases of a new network: large enough that the first layer's lines do not
#: all pass near the origin.
BIAS_STD = 0.2

_DEFAULT_BOX = ((Fraction(-1), Fraction(-1)), (Fraction(1), Fraction(1)))

Layers = list[tuple[list[list[Fraction]], list[Fraction]]]


def _check_widths(widths: Any, limits: Limits) -> list[int]:
    if not isinstance(widths, list) or len(widths) < 3 \
            or any(isinstance(w, bool) or not isinstance(w, int) or w < 1 for w in widths):
        raise InvalidInputError(f"widths: expected [2, hidden widths..., outputs] (at least one hidden layer, "
                                f"positive integers), got {str(widths)[:60]}")
    if widths[0] != 2:
        raise InvalidInputError(f"widths[0]: expected input dimension 2, got {widths[0]}")
    _check_sizes(widths, limits, what="widths")
    return widths


def _check_sizes(widths: list[int], limits: Limits, *, what: str) -> None:
    neurons = sum(widths[1:-1])
    if neurons > limits.max_neurons:
        raise InvalidInputError(f"{what}: expected at most {limits.max_neurons} hidden units, got {neurons}")
    if widths[-1] > limits.max_outputs:
        raise InvalidInputError(f"{what}: expected at most {limits.max_outputs} outputs, got {widths[-1]}")


def initial_layers(widths: list[int], *, seed: int) -> Layers:
    """He-normal weights and biases of standard deviation :data:`BIAS_STD`, each rounded to a hundredth.

    Examples
    --------
    >>> [len(w) for w, _ in initial_layers([2, 3, 1], seed=0)], initial_layers([2, 3, 1], seed=0)[1][1]
    ([3, 1], [Fraction(-47, 100)])
    """
    from polyregions.networks.initializers import he_normal

    net = he_normal(widths[:-1], seed=seed, bias_std=BIAS_STD, output_dim=widths[-1])

    def hundredths(value: Fraction) -> Fraction:
        return Fraction(round(value * 100), 100)

    return [([[hundredths(v) for v in row] for row in layer.weight], [hundredths(v) for v in layer.bias])
            for layer in net.layers]


def _read_layers(value: Any, limits: Limits) -> Layers:
    if not isinstance(value, list) or len(value) < 2:
        raise InvalidInputError(f"layers: expected a list of at least two layers {{\"weight\": ..., \"bias\": ...}} "
                                f"(ReLU layers, then the linear output layer), got {str(value)[:60]}")
    widths = [2]
    layers = []
    for l, layer in enumerate(value):
        what = f"layers[{l}]"
        layer = check_keys(layer, ("weight", "bias"), what=what)
        weight, bias = layer.get("weight"), layer.get("bias")
        if not isinstance(weight, list) or not weight or not all(isinstance(r, list) for r in weight):
            raise InvalidInputError(f"{what}.weight: expected a non-empty list of rows, got {str(weight)[:60]}")
        widths.append(len(weight))
        # bounded before a number of this layer is read: hidden units so far, or the outputs
        _check_sizes(widths + ([1] if l < len(value) - 1 else []), limits, what="layers")
        rows = []
        for i, row in enumerate(weight):
            if len(row) != widths[-2]:
                raise InvalidInputError(f"{what}.weight[{i}]: expected {widths[-2]} numbers (the width of the "
                                        f"layer before), got {len(row)}")
            rows.append([read_number(v, what=f"{what}.weight[{i}][{j}]", limits=limits) for j, v in enumerate(row)])
        if not isinstance(bias, list) or len(bias) != len(weight):
            raise InvalidInputError(f"{what}.bias: expected a list of {len(weight)} numbers, got {str(bias)[:60]}")
        layers.append((rows, [read_number(v, what=f"{what}.bias[{i}]", limits=limits) for i, v in enumerate(bias)]))
    _check_sizes(widths, limits, what="layers")
    return layers


def _network(layers: Layers) -> "Network":
    from polyregions.networks.network import Network

    last = len(layers) - 1
    return Network.from_layers(2, [(w, b, "linear" if l == last else "relu") for l, (w, b) in enumerate(layers)])


def _patterns(complex_: Any, widths: list[int]) -> list[str]:
    """Each region's pattern as digits, layer by layer, ``|`` between layers (``"0110|10"``)."""
    import numpy as np

    digits = np.array([r.pattern for r in complex_.regions], dtype=np.uint8).reshape(len(complex_.regions), -1)
    text = (digits + ord("0")).tobytes().decode("ascii")
    n = digits.shape[1]
    cuts = list(itertools.accumulate(widths[1:-1]))[:-1]
    spans = list(zip([0] + cuts, cuts + [n]))
    return ["|".join(text[i * n + a:i * n + b] for a, b in spans) for i in range(len(complex_.regions))]


def _regions(complex_: Any, box: tuple[tuple[Fraction, Fraction], tuple[Fraction, Fraction]],
             widths: list[int]) -> list[dict[str, Any]]:
    from polyregions.explore._polygons import clip_rows, float_vertices, integer_row, window_vertices

    linear = [0] * len(complex_.regions)
    for k, members in enumerate(complex_.linear_regions):
        for i in members:
            linear[i] = k
    base = window_vertices(*box)
    out = []
    for region, pattern, k in zip(complex_.regions, _patterns(complex_, widths), linear):
        rows = [integer_row(a, b) for a, b in zip(region.A, region.b)]
        out.append({"pattern": pattern, "linear_region": k, "polygon": float_vertices(clip_rows(base, rows))})
    return out


def network_view(request: Mapping[str, Any], *, limits: Limits = LIMITS) -> dict[str, Any]:
    """The regions of a small ReLU network on a box of the plane, computed exactly (see the module's text).

    Parameters
    ----------
    request : dict
        The decoded JSON request: ``widths`` (and ``seed``) or ``layers``, optionally ``box``.
    limits : Limits, keyword-only
        The bounds on the request.

    Returns
    -------
    dict
        A JSON object: ``widths``, ``layers``, ``box``, ``summary``, ``regions``.

    Raises
    ------
    InvalidInputError
        Naming the field, for a request that is not of that form or beyond ``limits``.
    """
    from polyregions.regions.domains import box as box_domain
    from polyregions.regions.enumeration import enumerate_regions

    request = check_keys(request, ("widths", "seed", "layers", "box"), what="network request")
    if ("widths" in request) == ("layers" in request):
        raise InvalidInputError("network request: expected exactly one of widths or layers, got "
                                + ("both" if "widths" in request else "neither"))
    if "widths" in request:
        widths = _check_widths(request["widths"], limits)
        seed = request.get("seed", 0)
        if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed < 2 ** 32:
            raise InvalidInputError(f"seed: expected an integer in [0, 2^32), got {str(seed)[:60]}")
        layers = initial_layers(widths, seed=seed)
    else:
        if "seed" in request:
            raise InvalidInputError("seed: expected it only with widths (a new network), got it with layers")
        layers = _read_layers(request["layers"], limits)
        widths = [2] + [len(w) for w, _ in layers]
    box = read_window(request["box"], what="box", limits=limits) if request.get("box") is not None else _DEFAULT_BOX
    complex_ = enumerate_regions(_network(layers), box_domain(list(box[0]), list(box[1])), engine="mesh")
    return {
        "widths": widths,
        "layers": [{"weight": [[str(v) for v in row] for row in w], "bias": [str(v) for v in b],
                    "activation": "linear" if l == len(layers) - 1 else "relu"} for l, (w, b) in enumerate(layers)],
        "box": [[str(v) for v in box[0]], [str(v) for v in box[1]]],
        "summary": complex_.summary(),
        "regions": _regions(complex_, box, widths),
    }
