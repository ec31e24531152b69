"""The claim of a ``polyregions search`` certificate, recomputed from the verified complex and the network.

A certificate is an export with two more keys: ``claim`` (``name``, ``statement``, ``holds``, ``value``,
``bound``, ``score``) and ``search`` (how it was found, checked in :mod:`proofs_check.derived`). For a built-in
claim every field is recomputed here, with the bounds' formulas written again from the papers (standard library
only; polyregions is never imported), and any difference is a failure. With ``d`` the dimension of the domain
(where the regions are counted), and for each layer ``l`` whose activation is not linear its width ``n_l`` and
the number ``T_l`` of breakpoints of its activation:

``activation_regions <= one_layer_bound``
    value: the activation regions; bound: ``sum_{i <= d} C(m, i)`` with ``m = sum_l T_l n_l``, the most cells
    ``m`` hyperplanes cut ``R^d`` into (Zaslavsky), the most regions of one hidden layer of the same neurons.
``activation_regions == linear_regions``
    value: the activation regions; bound: the linear regions.
``activation_regions <= raghu_bound``
    bound: ``prod_l sum_{j <= d} C(T_l n_l, j)`` (Raghu et al. 2017, Theorem 1, with ``T_l n_l`` hyperplanes
    per layer).
``activation_regions <= serra_bound``
    bound: ``sum over J of prod_l C(n_l, j_l)``, ``J`` the integer vectors with ``0 <= j_l <= min(d, n_1 - j_1,
    ..., n_{l-1} - j_{l-1}, n_l)`` (Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1); ReLU networks only
    (one breakpoint and a flat piece), as polyregions requires.

For the stages of a graph network (``polyregions.stages/1``), ``T_l n_l`` is a stage's hyperplanes: ``T`` per
element-wise unit with ``T`` breakpoints and ``C(k, 2)`` per max unit over ``k`` values (its pairwise
comparisons); the Serra bound is for dense ReLU networks only.

``holds`` is ``value <= bound`` (``value == bound`` for the second), ``score`` is ``value - bound``, ``name`` is
the built-in name polyregions writes and ``statement`` its text. Any other name is a user-defined claim (a
function ``module:function`` or ``file.py:function`` of the complex): its verdict cannot be recomputed without
running that code, so it is reported as not independently checkable (exit status 3), never as verified. A name
that polyregions would have read as a built-in claim (an alias such as ``one_layer``, or the name with other
spacing) is rejected: polyregions writes the full name.

Examples
--------
>>> arrangement_regions(6, 1), raghu_bound([(2, 1)] * 3, 1), serra_bound([2, 2, 2], 1)
(7, 27, 27)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from .errors import InputError, VerificationError
from .network import Network
from .reading import check_keys, describe, get_key, read_bool, read_int, read_str
from .stages import StagedNetwork

__all__ = ["CLAIM_KEYS", "BuiltinClaim", "BUILTIN_CLAIMS", "ALIASES", "ClaimRecord", "ClaimCheck", "read_claim",
           "check_claim", "arrangement_regions", "one_layer_bound", "raghu_bound", "serra_bound",
           "nonlinear_layers", "layer_hyperplanes"]

#: The keys of a certificate's ``claim`` object, all required.
CLAIM_KEYS = ("name", "statement", "holds", "value", "bound", "score")


# ------------------------------------------------------------------------------------------------- the bounds

def arrangement_regions(hyperplanes: int, dim: int) -> int:
    """``sum_{i <= dim} C(hyperplanes, i)``: the most cells ``hyperplanes`` affine hyperplanes cut ``R^dim`` into.

    Examples
    --------
    >>> arrangement_regions(3, 2), arrangement_regions(4, 1), arrangement_regions(0, 3)
    (7, 5, 1)
    """
    return sum(math.comb(hyperplanes, i) for i in range(dim + 1))


def one_layer_bound(layers: Sequence[tuple[int, int]], dim: int) -> int:
    """The most regions of one hidden layer holding every neuron of ``layers`` (pairs ``(n_l, T_l)``).

    Examples
    --------
    >>> one_layer_bound([(2, 1), (2, 1), (2, 1)], 1)   # Telgarsky's sawtooth of depth 3: 6 neurons
    7
    """
    return arrangement_regions(sum(width * t for width, t in layers), dim)


def raghu_bound(layers: Sequence[tuple[int, int]], dim: int) -> int:
    """Raghu et al. 2017, Theorem 1 with ``T_l n_l`` hyperplanes in layer ``l``: ``prod_l sum_{j <= d} C(T_l n_l, j)``.

    Examples
    --------
    >>> raghu_bound([(2, 1), (2, 1)], 1), raghu_bound([(1, 2)], 1)
    (9, 3)
    """
    return math.prod(arrangement_regions(width * t, dim) for width, t in layers)


def serra_bound(widths: Sequence[int], dim: int) -> int:
    """Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1: ``sum_{J} prod_l C(n_l, j_l)``.

    Computed forwards over the layers: ``ways[cap]`` is the sum of ``prod C(n_l, j_l)`` over the prefixes
    ``(j_1, ..., j_l)`` allowed so far whose running minimum ``min(d, n_1 - j_1, ..., n_l - j_l)`` is ``cap``.

    Examples
    --------
    >>> serra_bound([1, 1], 1), serra_bound([3], 2), serra_bound([2, 2, 2], 1)
    (3, 7, 27)
    """
    ways = {dim: 1}
    for width in widths:
        following: dict[int, int] = {}
        for cap, count in ways.items():
            for j in range(min(cap, width) + 1):
                key = min(cap, width - j)
                following[key] = following.get(key, 0) + count * math.comb(width, j)
        ways = following
    return sum(ways.values())


def nonlinear_layers(network: Network) -> list[tuple[int, int]]:
    """``(n_l, T_l)`` of every layer whose activation is not linear, in order (a dense network)."""
    return [(len(layer.bias), len(layer.activation.breakpoints)) for layer in network.layers
            if not layer.activation.is_linear]


def layer_hyperplanes(network: Network | StagedNetwork) -> list[int]:
    """The hyperplanes of each layer with neurons: ``T_l n_l`` for a dense layer; for a stage of a graph network,
    ``T`` per element-wise unit with ``T`` breakpoints plus ``C(k, 2)`` per max unit over ``k`` values (its
    pairwise comparisons: every argmax cell holds a cell of their arrangement).

    Examples
    --------
    >>> from proofs_check.network import Activation
    >>> from proofs_check.stages import Stage
    >>> from fractions import Fraction as F
    >>> relu = Activation((F(0),), (F(0), F(1)), (F(0), F(0)))
    >>> layer_hyperplanes(StagedNetwork(2, (Stage.dense(((F(1), F(0)),) * 3, (F(0),) * 3, (relu,), ((1, 2),)),)))
    [2]
    """
    if isinstance(network, StagedNetwork):
        counts = [sum(len(a.breakpoints) for a in stage.units) + sum(math.comb(len(g), 2) for g in stage.groups)
                  for stage in network.layers]
        return [count for count in counts if count]
    return [width * t for width, t in nonlinear_layers(network)]


def _relu_layers(network: Network | StagedNetwork) -> list[int]:
    """The widths of the non-linear layers, once each is a ReLU up to affine maps (one breakpoint, a flat piece)."""
    if isinstance(network, StagedNetwork):
        raise VerificationError("claim.name: activation_regions <= serra_bound is a theorem for dense ReLU networks "
                                "only (polyregions writes it for no other), the network is a graph network's stages")
    for l, layer in enumerate(network.layers):
        act = layer.activation
        if not act.is_linear and not (len(act.breakpoints) == 1 and 0 in act.slopes):
            raise VerificationError(
                f"claim.name: activation_regions <= serra_bound is a theorem for ReLU networks only (polyregions "
                f"writes it for no other), layer {l} has an activation with {len(act.breakpoints)} breakpoint(s) "
                f"and slopes {', '.join(str(s) for s in act.slopes)}")
    return [width for width, _ in nonlinear_layers(network)]


# ------------------------------------------------------------------------------------------- built-in claims

@dataclass(frozen=True)
class _Facts:
    """What a built-in claim is computed from: the verified complex's counts, the network and the dimension."""

    activation_regions: int
    linear_regions: int
    network: Network | StagedNetwork
    dim: int


@dataclass(frozen=True)
class BuiltinClaim:
    """A claim the checker recomputes: its name, statement, alias, relation and how to get value and bound.

    ``compute`` returns ``(bound, formula)``: the bound and how it was obtained, in words. The value of every
    built-in claim is the number of activation regions.
    """

    name: str
    statement: str
    alias: str
    relation: str   # "<=" or "=="
    compute: Callable[[_Facts], tuple[int, str]]

    def holds(self, value: int, bound: int) -> bool:
        return value <= bound if self.relation == "<=" else value == bound


def _one_layer(f: _Facts) -> tuple[int, str]:
    m = sum(layer_hyperplanes(f.network))
    return arrangement_regions(m, f.dim), f"sum_{{i <= {f.dim}}} C({m}, i), with {m} = sum_l T_l n_l"


def _linear(f: _Facts) -> tuple[int, str]:
    return f.linear_regions, "the linear regions of the verified complex"


def _raghu(f: _Facts) -> tuple[int, str]:
    hyperplanes = layer_hyperplanes(f.network)
    terms = ", ".join(map(str, hyperplanes))
    bound = math.prod(arrangement_regions(h, f.dim) for h in hyperplanes)
    return bound, f"prod_l sum_{{j <= {f.dim}}} C(T_l n_l, j), with T_l n_l = {terms}"


def _serra(f: _Facts) -> tuple[int, str]:
    widths = _relu_layers(f.network)
    return (serra_bound(widths, f.dim),
            f"Serra et al. Theorem 1 with d = {f.dim} and widths {', '.join(map(str, widths))}")


#: The built-in claims, statements as polyregions writes them (``proofs_check/test_claims.py`` ties the two).
BUILTIN_CLAIMS: dict[str, BuiltinClaim] = {claim.name: claim for claim in (
    BuiltinClaim("activation_regions <= one_layer_bound",
                 "no network has more activation regions than sum_{i <= d} C(T N, i), the most a network with one "
                 "hidden layer of the same N neurons can have (false for deep networks)",
                 "one_layer", "<=", _one_layer),
    BuiltinClaim("activation_regions == linear_regions",
                 "every activation region is a whole linear region (false when adjacent regions share an output "
                 "map)",
                 "linear_equals_activation", "==", _linear),
    BuiltinClaim("activation_regions <= raghu_bound",
                 "Raghu et al. 2017, Theorem 1 with T n_l hyperplanes per layer: activation regions <= "
                 "prod_l sum_{j <= d} C(T n_l, j) (a theorem)",
                 "raghu", "<=", _raghu),
    BuiltinClaim("activation_regions <= serra_bound",
                 "Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1: activation regions of a ReLU network <= "
                 "sum over J of prod_l C(n_l, j_l) (a theorem)",
                 "serra", "<=", _serra),
)}

#: The short names polyregions also accepts for the built-in claims.
ALIASES = {claim.alias: name for name, claim in BUILTIN_CLAIMS.items()}


# ------------------------------------------------------------------------------------------- the record

@dataclass(frozen=True)
class ClaimRecord:
    """The ``claim`` object as the file states it (numbers of a built-in claim as integers)."""

    name: str
    statement: str
    holds: bool
    value: Any
    bound: Any
    score: Any

    @property
    def builtin(self) -> BuiltinClaim | None:
        return BUILTIN_CLAIMS.get(self.name)


def _scalar(value: Any, where: str) -> Any:
    if value is not None and not isinstance(value, (bool, int, float, str)):
        raise InputError(where, f"expected a number, a string, true, false or null, got {describe(value)}")
    return value


def _compact(name: str) -> str:
    return "".join(name.split())


def read_claim(obj: Any, where: str = "claim") -> ClaimRecord:
    """Read a certificate's ``claim`` object: every key of :data:`CLAIM_KEYS`, and no other.

    A built-in claim's ``value``, ``bound`` and ``score`` must be integers; a user-defined claim's may be any
    number, string or null (polyregions writes what the user's function returned).
    """
    check_keys(obj, CLAIM_KEYS, where)
    name = read_str(get_key(obj, "name", where), f"{where}.name")
    statement = read_str(get_key(obj, "statement", where), f"{where}.statement")
    holds = read_bool(get_key(obj, "holds", where), f"{where}.holds")
    numbers = {key: get_key(obj, key, where) for key in ("value", "bound", "score")}
    if name in BUILTIN_CLAIMS:
        numbers = {key: read_int(value, f"{where}.{key}") for key, value in numbers.items()}
    else:
        numbers = {key: _scalar(value, f"{where}.{key}") for key, value in numbers.items()}
    return ClaimRecord(name, statement, holds, **numbers)


@dataclass(frozen=True)
class ClaimCheck:
    """The outcome of :func:`check_claim`: ``checked`` is False for a user-defined claim; ``line`` for the report."""

    checked: bool
    line: str


def check_claim(record: ClaimRecord, *, network: Network | StagedNetwork, dim: int, activation_regions: int,
                linear_regions: int) -> ClaimCheck:
    """Recompute a built-in claim from the verified complex; :class:`VerificationError` at the first difference.

    Parameters
    ----------
    record : ClaimRecord
        The claim as the certificate states it.
    network : Network or StagedNetwork
        The certificate's network (a graph network's stages, for an export of one).
    dim : int, keyword-only
        The dimension of the domain.
    activation_regions, linear_regions : int, keyword-only
        The counts of the verified complex.

    Examples
    --------
    >>> from proofs_check.network import Activation, Layer, Network
    >>> from fractions import Fraction as F
    >>> relu = Activation((F(0),), (F(0), F(1)), (F(0), F(0)))
    >>> net = Network(1, (Layer(((F(1),),), (F(0),), relu),))
    >>> record = ClaimRecord("activation_regions <= one_layer_bound", BUILTIN_CLAIMS[
    ...     "activation_regions <= one_layer_bound"].statement, True, 2, 2, 0)
    >>> check_claim(record, network=net, dim=1, activation_regions=2, linear_regions=2).checked
    True
    """
    claim = record.builtin
    if claim is None:
        compact = _compact(record.name)
        for name, known in BUILTIN_CLAIMS.items():
            if compact in (_compact(name), known.alias):
                raise VerificationError(f"claim.name: {record.name!r} names the built-in claim {name!r}, and "
                                        "polyregions writes a built-in claim under its full name")
        return ClaimCheck(False, f"not checked: claim {record.name!r} is user-defined (a function of the complex): "
                                 f"its verdict (holds {describe(record.holds)}, value {describe(record.value)}, "
                                 f"bound {describe(record.bound)}) is not independently checkable")
    if record.statement != claim.statement:
        raise VerificationError(f"claim.statement: recorded {describe(record.statement)}, the built-in claim "
                                f"{claim.name!r} states {describe(claim.statement)}")
    value = activation_regions
    bound, formula = claim.compute(_Facts(activation_regions, linear_regions, network, dim))
    holds = claim.holds(value, bound)
    whence = {"value": "the activation regions of the verified complex", "bound": formula,
              "holds": f"{value} {claim.relation} {bound}", "score": f"value - bound = {value} - {bound}"}
    for key, recorded, verified in (("value", record.value, value), ("bound", record.bound, bound),
                                    ("holds", record.holds, holds), ("score", record.score, value - bound)):
        if recorded != verified:
            raise VerificationError(f"claim.{key}: recorded {describe(recorded)}, recomputed {describe(verified)} "
                                    f"({whence[key]})")
    return ClaimCheck(True, f"ok: claim {claim.name!r} recomputed: value {value} (activation regions), bound {bound} "
                            f"({formula}), holds {describe(holds)}, score {value - bound}; as recorded")
