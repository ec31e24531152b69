"""Claims about networks and their region complexes, for the counterexample search.

A claim is a predicate on a region complex (the complex carries its network and domain): it either holds for
a network, or that network is a counterexample. :func:`resolve_claim` turns a specification into a
:class:`Claim`:

* a built-in name (below; spaces do not matter, and the short aliases in brackets work too);
* ``"package.module:function"``: a function importable from Python;
* ``"path/to/file.py:function"``, or ``"path/to/file.py"`` for a function named ``claim`` in that file.

A user function takes the :class:`~polyregions.regions.complex.RegionComplex` and returns ``True`` when the
claim holds, ``False`` when the network breaks it, or a :class:`Verdict` that also carries the quantity, what
it was compared with and a score to guide the search (larger means closer to breaking the claim).

Built-in claims, with ``d`` the dimension of the domain, ``N`` the number of neurons and ``T`` the breakpoints
of each neuron's activation (counts are taken inside the domain; a count there is a lower bound on the count
in the whole input space, so a count above a bound breaks the claim for the network on ``R^n0`` too):

``activation_regions <= one_layer_bound`` [``one_layer``]
    "Depth does not help": no network has more activation regions than the most a network with ONE hidden
    layer of the same ``N`` neurons can have, ``sum_{i <= d} C(T N, i)`` (the cells of an arrangement of
    ``T N`` hyperplanes). True for one hidden layer, false for deeper networks: Telgarsky's sawtooth of depth
    3 has ``2^3 = 8`` regions on ``[0, 1]`` from 6 neurons, above ``6 + 1 = 7``.
``activation_regions == linear_regions`` [``linear_equals_activation``]
    Every activation region is a whole linear region. False as soon as two adjacent activation regions carry
    the same output map (a neuron whose output weight is zero, for example).
``activation_regions <= raghu_bound`` [``raghu``]
    Raghu et al. 2017, Theorem 1 with ``T n_l`` hyperplanes per layer: ``prod_l sum_{j <= d} C(T_l n_l, j)``.
    A theorem: a counterexample would be a bug in the region counter.
``activation_regions <= serra_bound`` [``serra``]
    Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1 (ReLU networks only). A theorem, like the previous one.

Examples
--------
>>> from polyregions.networks.constructions import sawtooth
>>> from polyregions.regions.domains import box
>>> from polyregions.regions.enumeration import enumerate_regions
>>> claim = resolve_claim("activation_regions <= one_layer_bound")
>>> claim(enumerate_regions(sawtooth(3), box([0], [1])))
Verdict(holds=False, value=8, bound=7, score=1)
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
from dataclasses import dataclass, replace
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable

from polyregions.errors import InvalidInputError, PolyregionsError
from polyregions.measures.bounds import arrangement_bound, serra_bound

if TYPE_CHECKING:
    from polyregions.networks.network import Network
    from polyregions.networks.stages import StagedNetwork
    from polyregions.regions.complex import RegionComplex

__all__ = ["Verdict", "Claim", "BUILTIN_CLAIMS", "ALIASES", "resolve_claim", "one_layer_regions_bound",
           "layered_regions_bound"]


@dataclass(frozen=True)
class Verdict:
    """The outcome of a claim on one network.

    Attributes
    ----------
    holds : bool
        False when the network is a counterexample.
    value : int, Fraction or None
        The quantity the claim is about (for example the number of activation regions).
    bound : int, Fraction or None
        What the quantity was compared with.
    score : int, float or Fraction
        Larger means closer to breaking the claim; the search climbs it. The built-in claims use
        ``value - bound``, which is positive exactly when the claim is broken.
    """

    holds: bool
    value: Any = None
    bound: Any = None
    score: Any = 0

    def to_json(self) -> dict[str, Any]:
        """``holds``, ``value``, ``bound`` and ``score`` with exact numbers (fractions as strings)."""
        return {"holds": self.holds, "value": _plain(self.value), "bound": _plain(self.bound),
                "score": _plain(self.score)}


def _plain(value: Any) -> Any:
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value
    if isinstance(value, Fraction):
        return str(value) if value.denominator != 1 else int(value)
    return str(value)


@dataclass(frozen=True)
class Claim:
    """A named predicate on a region complex; calling it returns a :class:`Verdict`.

    ``check`` takes the complex and returns a bool (``True``: the claim holds) or a :class:`Verdict`.
    """

    name: str
    statement: str
    check: Callable[["RegionComplex"], Any]

    def __call__(self, complex_: "RegionComplex") -> Verdict:
        try:
            outcome = self.check(complex_)
        except PolyregionsError:
            raise
        except Exception as error:  # a user's predicate failing is bad input, reported in one line
            raise InvalidInputError(f"claim {self.name}: the function raised {type(error).__name__}: "
                                    f"{error}") from error
        if isinstance(outcome, Verdict):
            if not isinstance(outcome.holds, bool):
                raise InvalidInputError(f"claim {self.name}: expected Verdict.holds to be True or False, got "
                                        f"{outcome.holds!r}")
            if outcome.score is None:
                return replace(outcome, score=0 if outcome.holds else 1)
            return outcome
        if isinstance(outcome, bool):
            return Verdict(holds=outcome, score=0 if outcome else 1)
        raise InvalidInputError(f"claim {self.name}: expected the function to return True, False or a Verdict, "
                                f"got {type(outcome).__name__}")


# --- built-in claims ------------------------------------------------------------------------------------------

def _nonlinear_layers(network: "Network") -> list[tuple[int, int]]:
    """``(width, T)`` of every layer whose activation is not linear (a dense network's layers)."""
    return [(layer.width, len(layer.activation.breakpoints)) for layer in network.layers
            if not layer.activation.is_linear]


def _layer_hyperplanes(network: "Network | StagedNetwork") -> list[int]:
    """The hyperplanes of each layer (or stage) with neurons: ``T`` per element-wise unit with ``T`` breakpoints,
    ``C(k, 2)`` per max unit over ``k`` values (its pairwise comparisons; each argmax cell is a union of cells of
    their arrangement, so counting these cells bounds the unit's regions)."""
    from math import comb

    from polyregions.networks.stage import Stage

    counts = []
    for layer in network.layers:
        if isinstance(layer, Stage):
            count = sum(len(a.breakpoints) for a in layer.activations) + sum(comb(len(g), 2) for g in layer.groups)
        else:
            count = 0 if layer.activation.is_linear else layer.width * len(layer.activation.breakpoints)
        if count:
            counts.append(count)
    return counts


def one_layer_regions_bound(network: "Network | StagedNetwork", dim: int) -> int:
    """The most activation regions in ``R^dim`` of a one-hidden-layer network with ``network``'s neurons.

    Each neuron with ``T`` breakpoints gives ``T`` hyperplanes, so this is
    :func:`~polyregions.measures.bounds.arrangement_bound` of ``sum T`` hyperplanes (``one_layer_bound(dim, N,
    breakpoints=T)`` when every neuron has ``T`` breakpoints). In a graph network's stages a max unit over ``k``
    values counts as its ``C(k, 2)`` pairwise comparisons.

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> one_layer_regions_bound(sawtooth(3), 1)
    7
    """
    return arrangement_bound(sum(_layer_hyperplanes(network)), dim)


def layered_regions_bound(network: "Network | StagedNetwork", dim: int) -> int:
    """``prod_l sum_{j <= dim} C(T_l n_l, j)``: Raghu et al. 2017, Theorem 1 with ``T_l`` breakpoints in layer l.

    For a graph network's stages, ``T_l n_l`` becomes the hyperplanes of the stage's units (a max unit over ``k``
    values: ``C(k, 2)``); the argument is the same, each stage cutting each region by at most that many
    hyperplanes pulled back through the region's affine map.

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> layered_regions_bound(sawtooth(3), 1)
    27
    """
    result = 1
    for hyperplanes in _layer_hyperplanes(network):
        result *= arrangement_bound(hyperplanes, dim)
    return result


def _at_most(name: str, bound_of: Callable[[Any, int], int]) -> Callable[["RegionComplex"], Verdict]:
    def check(complex_: "RegionComplex") -> Verdict:
        value = len(complex_.regions)
        bound = bound_of(complex_.network, complex_.domain.dim)
        return Verdict(holds=value <= bound, value=value, bound=bound, score=value - bound)
    check.__name__ = name
    return check


def _serra(network: "Network", dim: int) -> int:
    if not all(hasattr(layer, "activation") for layer in network.layers):
        raise InvalidInputError("claim activation_regions <= serra_bound: expected a dense ReLU network (the "
                                "theorem is proven for dense ReLU layers only), got a graph network")
    for layer in network.layers:
        act = layer.activation
        if not act.is_linear and not (len(act.breakpoints) == 1 and 0 in act.slopes):
            raise InvalidInputError(f"claim activation_regions <= serra_bound: expected ReLU activations (the "
                                    f"theorem is proven for ReLU only), got {act.name}")
    widths = [w for w, _ in _nonlinear_layers(network)]
    return serra_bound(dim, widths)


def _linear_equals_activation(complex_: "RegionComplex") -> Verdict:
    value, bound = len(complex_.regions), len(complex_.linear_regions)
    return Verdict(holds=value == bound, value=value, bound=bound, score=value - bound)


BUILTIN_CLAIMS: dict[str, Claim] = {claim.name: claim for claim in (
    Claim("activation_regions <= one_layer_bound",
          "no network has more activation regions than sum_{i <= d} C(T N, i), the most a network with one "
          "hidden layer of the same N neurons can have (false for deep networks)",
          _at_most("one_layer", one_layer_regions_bound)),
    Claim("activation_regions == linear_regions",
          "every activation region is a whole linear region (false when adjacent regions share an output map)",
          _linear_equals_activation),
    Claim("activation_regions <= raghu_bound",
          "Raghu et al. 2017, Theorem 1 with T n_l hyperplanes per layer: activation regions <= "
          "prod_l sum_{j <= d} C(T n_l, j) (a theorem)",
          _at_most("raghu", layered_regions_bound)),
    Claim("activation_regions <= serra_bound",
          "Serra, Tjandraatmadja & Ramalingam 2018, Theorem 1: activation regions of a ReLU network <= "
          "sum over J of prod_l C(n_l, j_l) (a theorem)",
          _at_most("serra", _serra)),
)}

ALIASES = {"one_layer": "activation_regions <= one_layer_bound",
           "linear_equals_activation": "activation_regions == linear_regions",
           "raghu": "activation_regions <= raghu_bound",
           "serra": "activation_regions <= serra_bound"}


# --- user claims ----------------------------------------------------------------------------------------------

def _load_file(path: Path, spec: str) -> Any:
    if not path.is_file():
        raise InvalidInputError(f"claim {spec!r}: expected a readable Python file, {path} does not exist")
    name = f"_polyregions_claim_{abs(hash(str(path.resolve())))}"
    module_spec = importlib.util.spec_from_file_location(name, path)
    if module_spec is None or module_spec.loader is None:
        raise InvalidInputError(f"claim {spec!r}: expected a Python file ending in .py, got {path}")
    module = importlib.util.module_from_spec(module_spec)
    sys.modules[name] = module  # dataclasses and pickling look classes up by module name
    try:
        module_spec.loader.exec_module(module)
    except Exception as error:  # the user's file: report its failure as bad input
        raise InvalidInputError(f"claim {spec!r}: {path} could not be loaded: "
                                f"{type(error).__name__}: {error}") from None
    return module


def resolve_claim(spec: "str | Claim | Callable[[RegionComplex], Any]") -> Claim:
    """The :class:`Claim` named by ``spec`` (see the module documentation for the accepted forms).

    A :class:`Claim` passes through; a callable becomes a claim named after it.

    Examples
    --------
    >>> resolve_claim("one_layer").name
    'activation_regions <= one_layer_bound'
    >>> resolve_claim("activation_regions==linear_regions").name
    'activation_regions == linear_regions'
    """
    if isinstance(spec, Claim):
        return spec
    if callable(spec):
        name = getattr(spec, "__qualname__", None) or repr(spec)
        return Claim(f"{getattr(spec, '__module__', '?')}:{name}", (spec.__doc__ or name).strip(), spec)
    if not isinstance(spec, str) or not spec.strip():
        raise InvalidInputError(f"claim: expected a built-in claim name, module:function or file.py[:function], "
                                f"got {spec!r}")
    compact = "".join(spec.split())
    for name in BUILTIN_CLAIMS:
        if compact == "".join(name.split()):
            return BUILTIN_CLAIMS[name]
    if compact in ALIASES:
        return BUILTIN_CLAIMS[ALIASES[compact]]
    text = spec.strip()
    if text.endswith(".py"):
        target, function = text, "claim"
    elif ":" in text:
        target, _, function = text.rpartition(":")
    else:
        known = ", ".join(repr(n) for n in BUILTIN_CLAIMS)
        raise InvalidInputError(f"claim: expected one of {known}, an alias ({', '.join(ALIASES)}), "
                                f"module:function or file.py[:function], got {spec!r}")
    if not function.isidentifier():
        raise InvalidInputError(f"claim {spec!r}: expected a function name after the last ':', got {function!r}")
    if target.endswith(".py") or os.sep in target or "/" in target:
        module = _load_file(Path(target), spec)
    else:
        try:
            module = importlib.import_module(target)
        except ImportError as error:
            raise InvalidInputError(f"claim {spec!r}: expected an importable module, got {error}") from None
    check = getattr(module, function, None)
    if not callable(check):
        raise InvalidInputError(f"claim {spec!r}: expected a function {function!r} in {target}, found "
                                f"{'nothing' if check is None else type(check).__name__}")
    statement = (getattr(check, "__doc__", None) or "").strip().splitlines()
    return Claim(text, statement[0] if statement else text, check)

