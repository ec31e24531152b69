"""The ``polyregions.stages/1`` document: a staged network as region-complex exports carry it, both ways (read
by ``proofs_check``, which re-checks exports without polyregions)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from polyregions.errors import InvalidInputError
from polyregions.networks.activations import Activation, activation_from_json

if TYPE_CHECKING:
    pass
from polyregions.networks.stage import Stage
from polyregions.networks.stages import StagedNetwork

__all__ = ["stages_to_json", "stages_from_json", "STAGES_FORMAT", "SPARSE_EXPORT_ENTRIES"]

#: The format tag of a staged network in exports (read by ``proofs_check``).
STAGES_FORMAT = "polyregions.stages/1"
#: A sparse stage whose dense weight would have more entries than this is exported as ``weight_sparse`` (per row,
#: ``[column, "num/den"]`` pairs, columns increasing, no zeros) and ``fan_in`` in place of the dense ``weight``.
SPARSE_EXPORT_ENTRIES = 1 << 20


def stages_to_json(network: StagedNetwork) -> dict[str, Any]:
    """The ``polyregions.stages/1`` document of a staged network, as exports carry it: per stage its weight and
    bias (exact strings), its distinct ``activations`` (network-file form), ``units`` (per element-wise unit, the
    index of its activation) and ``groups`` (per max unit, the pre-activations it is the maximum of). A large
    sparse stage (a convolution or a pooling selection over thousands of values; more than
    :data:`SPARSE_EXPORT_ENTRIES` dense entries) carries ``weight_sparse`` (per row, ``[column, "num/den"]``
    pairs of its non-zero weights, columns increasing) and ``fan_in`` instead of the dense ``weight``.

    Examples
    --------
    >>> from polyregions.networks.graph import GraphNetwork, Node
    >>> from polyregions.networks.operations import Maxout
    >>> doc = stages_to_json(GraphNetwork((2,), (Node("m", Maxout(2), ("input",)),), "m").staged)
    >>> doc["stages"][0]["groups"], doc["stages"][0]["units"]
    ([[0, 1]], [])
    """
    from polyregions.exact.rationals import format_rational

    stages = []
    for stage in network.layers:
        distinct: list[Activation] = []
        for activation in stage.activations:
            if activation not in distinct:
                distinct.append(activation)
        entry: dict[str, Any] = {}
        if stage.is_sparse and len(stage.rows) * stage.fan_in > SPARSE_EXPORT_ENTRIES:
            entry["fan_in"] = stage.fan_in
            entry["weight_sparse"] = [[[j, format_rational(v)] for j, v in row] for row in stage.rows]
        else:
            entry["weight"] = [[format_rational(v) for v in row] for row in stage.weight]
        stages.append({**entry, "bias": [format_rational(v) for v in stage.bias],
                       "activations": [a.to_json() for a in distinct],
                       "units": [distinct.index(a) for a in stage.activations],
                       "groups": [list(group) for group in stage.groups]})
    return {"format": STAGES_FORMAT, "input_dim": network.input_dim, "stages": stages}


def stages_from_json(document: Any, *, what: str = "stages") -> StagedNetwork:
    """The staged network of a ``polyregions.stages/1`` document (:func:`stages_to_json`'s inverse).

    Raises
    ------
    InvalidInputError
        When the document cannot be read as stages; ``what`` names it in the message.

    Examples
    --------
    >>> from polyregions.networks.graph import GraphNetwork, Node
    >>> from polyregions.networks.operations import Maxout
    >>> staged = GraphNetwork((2,), (Node("m", Maxout(2), ("input",)),), "m").staged
    >>> stages_from_json(stages_to_json(staged)) == staged
    True
    """
    try:
        stages = []
        for s, stage in enumerate(document["stages"]):
            distinct = [activation_from_json(a, what=f"{what}: stages[{s}].activations")
                        for a in stage["activations"]]
            units = tuple(distinct[u] for u in stage["units"])
            if "weight" in stage:
                stages.append(Stage(stage["weight"], stage["bias"], units, stage["groups"]))
            else:
                rows = [[(j, v) for j, v in row] for row in stage["weight_sparse"]]
                stages.append(Stage.from_rows(rows, stage["fan_in"], stage["bias"], units, stage["groups"]))
        return StagedNetwork(int(document["input_dim"]), tuple(stages))
    except (KeyError, TypeError, IndexError, ValueError) as error:
        if isinstance(error, InvalidInputError):
            raise
        raise InvalidInputError(f"{what}: expected a polyregions.stages/1 document, got one that cannot be read "
                                f"({type(error).__name__}: {error})") from None
