"""Independent, exact re-check of a ``polyregions.regions/1`` export (a region complex with its certificates).

Standard library only: this module reads the numbers, rebuilds the network and redoes the geometry itself,
so that a bug in polyregions cannot hide in the checker. Usage::

    python -m proofs_check.verify FILE      (or: python -m proofs_check verify FILE)

Exit status 0 when everything verifies, 1 when a check fails (the report names the first failing region or
field), 2 when the file cannot be read as an export (one line ``proofs_check: error: FILE: field: ...``).

What is checked, all in exact rational or integer arithmetic. Regions live in domain coordinates ``t``; the
input point is ``x = origin + directions^T t`` (identity for box, polytope and space domains; ``start +
t (end - start)`` for a segment). Each region ``i`` is taken as ``Q_i = {A_i t <= b_i} ∩ domain``.

1. Certificates of each region: the interior point satisfies every row of ``A t < b`` strictly and lies in
   the open domain; an exact forward pass there gives the recorded pattern (piece index = number of
   breakpoints strictly below the pre-activation); the recorded map ``(M, c)`` has ``M`` equal to the exact
   Jacobian ``d output / d t`` of the network with that pattern fixed, and ``M t + c`` equals the network's
   output at the interior point.
2. Patterns are unique, and every interior point lies in exactly one region's open set (tested pairwise up to
   ``PAIRWISE_LIMIT`` regions; beyond, it is left to check 3, which implies it).
3. Each pattern is constant on its whole region: with earlier layers fixed to the recorded pattern every
   neuron's pre-activation is affine on ``Q_i``, and it stays between the breakpoints of its recorded piece
   at every vertex of ``Q_i`` (so on all of ``Q_i``; on the open region the piece is then the recorded one,
   the only alternative, a pre-activation constantly equal to the lower breakpoint, being excluded by
   check 1). With check 2 this makes the open regions pairwise disjoint: a common point would have two
   patterns.
4. Coverage: the regions tile the domain. In 1-D the intervals are sorted and must meet end to end from one
   end of the domain to the other; in any other dimension the regions' volumes must add up to the domain's
   (disjoint open regions whose closures miss an open piece of the domain would fall short).
5. Adjacency: entries name two distinct existing regions, each unordered pair once, with neuron labels equal
   to the set of neurons whose pieces differ. Then, for every facet ``F`` of every region (a row whose
   vertices span dimension ``k - 1``, not on the domain's boundary), the regions listed as adjacent across
   ``F``'s hyperplane must cover ``F`` exactly: the ``(k-1)``-volumes of ``F ∩ Q_j`` add up to that of
   ``F``. Every listed pair must contribute a piece of positive ``(k-1)``-volume, which is the shared
   ``(k-1)``-dimensional piece of the two closures. So the adjacency list is both correct and complete.
6. Linear regions (when listed): the connected components of the adjacency graph restricted to pairs with
   exactly equal output maps; and the counts in ``summary``.

Vertices come from brute force over row subsets (``proofs_check.geometry``), so the cost grows like
``C(rows, k)`` per region; ``--max-subsets`` bounds it (a region beyond it fails as "too large", never
passes unchecked). Unbounded domains (a polytope without bound, or all of space) are cut to a box
``[-R, R]^k`` with ``R`` above every vertex of the arrangement of all hyperplanes involved (the regions', the
domain's, the coordinate hyperplanes and the neurons' piece bounds, see ``geometry.radius_bound``). Every open
cell of that arrangement has a vertex, hence a piece of positive volume, inside the box; so a gap, a pattern
change or an uncovered facet anywhere shows inside the box as well, and the checks above stay proofs.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import Any, Sequence

from . import geometry as geo

__all__ = ["InputError", "VerificationError", "Result", "load_export", "verify_export", "verify_file", "main",
           "parse_number", "FORMAT"]

FORMAT = "polyregions.regions/1"
NETWORK_FORMAT = "polyregions.network/1"
DEFAULT_MAX_SUBSETS = 2_000_000
PAIRWISE_LIMIT = 500  # above it the quadratic interior-point test is skipped: constant patterns imply it
MAX_EXPONENT = 4000  # decimal exponents beyond this are rejected, as polyregions does

_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE]([+-]?\d+))?")
_QUOTIENT = re.compile(r"[+-]?\d+/\d+")
_ZERO = Fraction(0)


class InputError(Exception):
    """The file is not a readable export; ``field`` names where."""

    def __init__(self, field_: str, message: str):
        super().__init__(f"{field_}: {message}")
        self.field = field_


class VerificationError(Exception):
    """A check failed; the message names the region or field."""


# --------------------------------------------------------------------------------------------------- numbers

def _describe(value: Any) -> str:
    text = json.dumps(value) if not isinstance(value, str) else repr(value)
    return text if len(text) <= 50 else text[:47] + "..."


def parse_number(value: Any, where: str) -> Fraction:
    """The exact value of a number as CONTRACT.md reads it.

    A JSON integer is itself, a JSON float the exact value of its binary64 number, a string is read exactly
    (``"-7/12"``, ``"0.1"`` = 1/10, ``"1e-3"``). Anything else raises :class:`InputError` naming ``where``.

    Examples
    --------
    >>> parse_number("0.1", "x")
    Fraction(1, 10)
    >>> parse_number(0.5, "x")
    Fraction(1, 2)
    """
    if isinstance(value, bool):
        raise InputError(where, f"expected a number, got the boolean {_describe(value)}")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InputError(where, f"expected a finite number, got {value!r}")
        return Fraction(value)
    if isinstance(value, str):
        text = value.strip()
        if _QUOTIENT.fullmatch(text):
            numerator, denominator = text.split("/")
            if int(denominator) == 0:
                raise InputError(where, f"expected a number, got {value!r} (division by zero)")
            return Fraction(int(numerator), int(denominator))
        match = _DECIMAL.fullmatch(text)
        if match:
            if match.group(1) is not None and abs(int(match.group(1))) > MAX_EXPONENT:
                raise InputError(where, f"expected an exponent of at most {MAX_EXPONENT}, got {value!r}")
            return Fraction(text)
    raise InputError(where, f"expected a number (integer, float or a string such as \"-7/12\"), "
                            f"got {_describe(value)}")


def _get(obj: Any, key: str, where: str) -> Any:
    if not isinstance(obj, dict):
        raise InputError(where, f"expected a JSON object, got {_describe(obj)}")
    if key not in obj:
        raise InputError(f"{where}.{key}" if where else key, "missing")
    return obj[key]


def _int(value: Any, where: str, *, low: int | None = None) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(where, f"expected an integer, got {_describe(value)}")
    if low is not None and value < low:
        raise InputError(where, f"expected an integer >= {low}, got {value}")
    return value


def _list(value: Any, where: str, length: int | None = None) -> list:
    if not isinstance(value, list):
        raise InputError(where, f"expected a list, got {_describe(value)}")
    if length is not None and len(value) != length:
        raise InputError(where, f"expected {length} entries, got {len(value)}")
    return value


def _vector(value: Any, where: str, length: int | None = None) -> tuple[Fraction, ...]:
    return tuple(parse_number(v, f"{where}[{i}]") for i, v in enumerate(_list(value, where, length)))


def _matrix(value: Any, where: str, rows: int | None, cols: int | None) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(_vector(row, f"{where}[{i}]", cols) for i, row in enumerate(_list(value, where, rows)))


def _dot(a: Sequence[Fraction], b: Sequence[Fraction]) -> Fraction:
    return sum((x * y for x, y in zip(a, b)), _ZERO)


# --------------------------------------------------------------------------------------------------- network

@dataclass(frozen=True, eq=False)
class Activation:
    """Continuous piecewise linear: slope ``slopes[k]`` and intercept ``intercepts[k]`` on piece ``k``."""

    breakpoints: tuple[Fraction, ...]
    slopes: tuple[Fraction, ...]
    intercepts: tuple[Fraction, ...]

    @property
    def is_linear(self) -> bool:
        return not self.breakpoints

    @cached_property
    def integer_den(self) -> int:
        return math.lcm(*(v.denominator for v in self.slopes + self.intercepts))

    @cached_property
    def integer_slopes(self) -> tuple[int, ...]:
        return tuple(int(v * self.integer_den) for v in self.slopes)

    @cached_property
    def integer_intercepts(self) -> tuple[int, ...]:
        return tuple(int(v * self.integer_den) for v in self.intercepts)

    @cached_property
    def breakpoint_pairs(self) -> tuple[tuple[int, int], ...]:
        return tuple((xi.numerator, xi.denominator) for xi in self.breakpoints)

    def bounds(self, piece: int) -> tuple[Fraction | None, Fraction | None]:
        """The closed interval of pre-activations of a piece (None: unbounded)."""
        low = self.breakpoints[piece - 1] if piece > 0 else None
        high = self.breakpoints[piece] if piece < len(self.breakpoints) else None
        return low, high


def _make_activation(breakpoints, slopes, offset) -> Activation:
    intercepts = [offset]
    for k, xi in enumerate(breakpoints):  # continuity at xi fixes the next intercept
        intercepts.append(intercepts[-1] + (slopes[k] - slopes[k + 1]) * xi)
    return Activation(tuple(breakpoints), tuple(slopes), tuple(intercepts))


def _activation(obj: Any, where: str) -> Activation:
    one, zero = Fraction(1), _ZERO
    named = {"relu": ((zero,), (zero, one), zero), "linear": ((), (one,), zero),
             "hardtanh": ((-one, one), (zero, one, zero), -one)}
    if isinstance(obj, str) and obj in named:
        return _make_activation(*named[obj])
    if isinstance(obj, dict):
        kind = obj.get("kind")
        if kind in named:
            return _make_activation(*named[kind])
        if kind == "leaky_relu":
            slope = parse_number(_get(obj, "negative_slope", where), f"{where}.negative_slope")
            if slope == 1:
                raise InputError(f"{where}.negative_slope", "expected a slope other than 1 (1 is the identity)")
            return _make_activation((zero,), (slope, one), zero)
        if kind == "piecewise_linear":
            breakpoints = _vector(_get(obj, "breakpoints", where), f"{where}.breakpoints")
            slopes = _vector(_get(obj, "slopes", where), f"{where}.slopes", len(breakpoints) + 1)
            offset = parse_number(_get(obj, "offset", where), f"{where}.offset")
            if any(x >= y for x, y in zip(breakpoints, breakpoints[1:])):
                raise InputError(f"{where}.breakpoints", "expected strictly increasing breakpoints")
            if any(x == y for x, y in zip(slopes, slopes[1:])):
                raise InputError(f"{where}.slopes", "expected consecutive slopes to differ")
            return _make_activation(breakpoints, slopes, offset)
    raise InputError(where, f"expected \"relu\", \"linear\", \"hardtanh\" or an object with kind "
                            f"\"leaky_relu\" or \"piecewise_linear\", got {_describe(obj)}")


@dataclass(frozen=True, eq=False)
class Layer:
    weight: tuple[tuple[Fraction, ...], ...]
    bias: tuple[Fraction, ...]
    activation: Activation

    @cached_property
    def integer_form(self) -> tuple[list[list[int]], int, list[int], int]:
        """``(W, w_den, bias, b_den)``: integers with weight = W / w_den and bias = bias / b_den."""
        w_den = math.lcm(*(v.denominator for row in self.weight for v in row))
        b_den = math.lcm(*(v.denominator for v in self.bias))
        return ([[int(v * w_den) for v in row] for row in self.weight], w_den,
                [int(v * b_den) for v in self.bias], b_den)


@dataclass(frozen=True)
class Network:
    input_dim: int
    layers: tuple[Layer, ...]

    @property
    def neurons(self) -> list[tuple[int, int]]:
        return [(l, u) for l, layer in enumerate(self.layers) if not layer.activation.is_linear
                for u in range(len(layer.bias))]

    @property
    def output_dim(self) -> int:
        return len(self.layers[-1].bias)

    def evaluate(self, pattern: Sequence[int], t0: Sequence[Fraction], origin: Sequence[Fraction],
                 directions: Sequence[Sequence[Fraction]]) -> "_Evaluation":
        """One exact pass at the point ``x = origin + directions^T t0``, in integers with common denominators.

        Two things travel together through the layers, as the columns of one integer matrix over one common
        denominator: the affine map ``t -> G t + g`` of the layer's input with every neuron held on its
        *recorded* piece (``k`` columns for ``G``, one for ``g``: the fixed-pattern network, whose Jacobian is
        ``G``), and the network's actual value at the point (one column; each neuron on the piece its
        pre-activation falls in, which gives the actual pattern).
        """
        k = len(t0)
        x0 = [o + sum((ti * d[q] for ti, d in zip(t0, directions)), _ZERO) for q, o in enumerate(origin)]
        entries = [[d[q] for d in directions] + [origin[q], x0[q]] for q in range(self.input_dim)]
        den = math.lcm(*(e.denominator for row in entries for e in row))
        X = [[int(e * den) for e in row] for row in entries]
        actual, neurons, cursor = [], [], 0
        for layer in self.layers:
            W, w_den, bias, b_den = layer.integer_form
            act = layer.activation
            Dn = math.lcm(w_den * den, b_den)
            s1, s2 = Dn // (w_den * den), Dn // b_den
            columns = list(zip(*X))
            newX = []
            for row, b in zip(W, bias):
                Y = [s1 * sum(w * x for w, x in zip(row, col)) for col in columns]
                Y[k] += s2 * b
                Y[k + 1] += s2 * b
                if act.is_linear:
                    recorded = here = 0
                else:
                    here = sum(1 for p, q in act.breakpoint_pairs if p * Dn < Y[k + 1] * q)
                    recorded = pattern[cursor] if 0 <= pattern[cursor] <= len(act.breakpoints) else here
                    actual.append(here)
                    neurons.append((tuple(Y[:k]), Y[k], Dn, recorded, act))
                    cursor += 1
                S, C = act.integer_slopes, act.integer_intercepts
                newX.append([S[recorded] * y for y in Y[:k]] + [S[recorded] * Y[k] + C[recorded] * Dn,
                                                                  S[here] * Y[k + 1] + C[here] * Dn])
            den = act.integer_den * Dn
            divisor = math.gcd(den, *(v for row in newX for v in row))
            X, den = [[v // divisor for v in row] for row in newX], den // divisor
        M = tuple(tuple(Fraction(v, den) for v in row[:k]) for row in X)
        return _Evaluation(tuple(actual), M, tuple(Fraction(row[k], den) for row in X),
                           tuple(Fraction(row[k + 1], den) for row in X), neurons)


@dataclass(frozen=True)
class _Evaluation:
    pattern: tuple[int, ...]           # the actual pattern at the point
    M: tuple                           # Jacobian of the fixed-pattern network (domain coordinates)
    c: tuple                           # its constant term
    output: tuple                      # the network's output at the point
    neurons: list                      # per neuron: (a, d, den, piece, activation): pre-activation (a.t + d)/den


def _network(obj: Any, where: str) -> Network:
    if not isinstance(obj, dict):
        raise InputError(where, f"expected a network object, got {_describe(obj)}")
    if "format" in obj and obj["format"] != NETWORK_FORMAT:
        raise InputError(f"{where}.format", f"expected {NETWORK_FORMAT!r}, got {_describe(obj['format'])}")
    input_dim = _int(_get(obj, "input_dim", where), f"{where}.input_dim", low=1)
    layers_obj = _list(_get(obj, "layers", where), f"{where}.layers")
    if not layers_obj:
        raise InputError(f"{where}.layers", "expected at least one layer, got none")
    layers, fan_in = [], input_dim
    for i, layer in enumerate(layers_obj):
        here = f"{where}.layers[{i}]"
        weight = _matrix(_get(layer, "weight", here), f"{here}.weight", None, fan_in)
        if not weight:
            raise InputError(f"{here}.weight", "expected at least one row, got none")
        bias = _vector(_get(layer, "bias", here), f"{here}.bias", len(weight))
        layers.append(Layer(weight, bias, _activation(_get(layer, "activation", here), f"{here}.activation")))
        fan_in = len(weight)
    return Network(input_dim, tuple(layers))


# ---------------------------------------------------------------------------------------------------- domain

@dataclass(frozen=True)
class Domain:
    kind: str
    origin: tuple[Fraction, ...]
    directions: tuple[tuple[Fraction, ...], ...]   # k rows of length input_dim
    A: tuple[tuple[Fraction, ...], ...]            # the domain in t coordinates: A t <= b
    b: tuple[Fraction, ...]

    @property
    def dim(self) -> int:
        return len(self.directions)

    @property
    def bounded_by_construction(self) -> bool:
        return self.kind in ("box", "segment", "slice")

    def to_input(self, t: Sequence[Fraction]) -> tuple[Fraction, ...]:
        return tuple(o + sum((ti * d[q] for ti, d in zip(t, self.directions)), _ZERO)
                     for q, o in enumerate(self.origin))


def _identity(n: int) -> tuple[tuple[Fraction, ...], ...]:
    return tuple(tuple(Fraction(int(i == j)) for j in range(n)) for i in range(n))


def _interval_rows(lower, upper, where):
    A, b = [], []
    for q, (lo, hi) in enumerate(zip(lower, upper)):
        if not lo < hi:
            raise InputError(where, f"expected lower < upper in every coordinate, got {lo} and {hi} at {q}")
        unit = tuple(Fraction(int(i == q)) for i in range(len(lower)))
        A += [tuple(-v for v in unit), unit]
        b += [-lo, hi]
    return tuple(A), tuple(b)


def _rank(rows) -> int:
    return geo.affine_dimension([tuple(_ZERO for _ in rows[0])] + list(rows)) if rows else 0


def _domain(obj: Any, input_dim: int, where: str) -> Domain:
    kind = _get(obj, "type", where)
    n = input_dim
    zero = tuple(_ZERO for _ in range(n))
    if kind == "box":
        lower = _vector(_get(obj, "lower", where), f"{where}.lower", n)
        upper = _vector(_get(obj, "upper", where), f"{where}.upper", n)
        return Domain(kind, zero, _identity(n), *_interval_rows(lower, upper, where))
    if kind == "polytope":
        A = _matrix(_get(obj, "A", where), f"{where}.A", None, n)
        b = _vector(_get(obj, "b", where), f"{where}.b", len(A))
        return Domain(kind, zero, _identity(n), A, b)
    if kind == "space":
        return Domain(kind, zero, _identity(n), (), ())
    if kind == "segment":
        start = _vector(_get(obj, "start", where), f"{where}.start", n)
        end = _vector(_get(obj, "end", where), f"{where}.end", n)
        if start == end:
            raise InputError(f"{where}.end", "expected an end point different from start")
        direction = tuple(e - s for s, e in zip(start, end))
        return Domain(kind, start, (direction,), ((Fraction(-1),), (Fraction(1),)), (_ZERO, Fraction(1)))
    if kind == "slice":
        origin = _vector(_get(obj, "origin", where), f"{where}.origin", n)
        directions = _matrix(_get(obj, "directions", where), f"{where}.directions", None, n)
        if not directions or _rank(directions) < len(directions):
            raise InputError(f"{where}.directions", "expected one or more linearly independent directions")
        k = len(directions)
        lower = _vector(_get(obj, "lower", where), f"{where}.lower", k)
        upper = _vector(_get(obj, "upper", where), f"{where}.upper", k)
        return Domain(kind, origin, directions, *_interval_rows(lower, upper, where))
    raise InputError(f"{where}.type", f"expected box, polytope, space, segment or slice, got {_describe(kind)}")


# ---------------------------------------------------------------------------------------------------- export

@dataclass(frozen=True)
class Region:
    pattern: tuple[int, ...]
    A: tuple[tuple[Fraction, ...], ...]
    b: tuple[Fraction, ...]
    point: tuple[Fraction, ...]
    M: tuple[tuple[Fraction, ...], ...]
    c: tuple[Fraction, ...]


@dataclass(frozen=True)
class Export:
    network: Network
    domain: Domain
    regions: tuple[Region, ...]
    adjacency: tuple[tuple[int, int, tuple[int, ...]], ...]
    linear_regions: tuple[tuple[int, ...], ...] | None
    summary: dict | None
    exact: Any = None


def load_export(doc: Any) -> Export:
    """Read an export (already parsed from JSON); :class:`InputError` names the first unreadable field."""
    if not isinstance(doc, dict):
        raise InputError("(top level)", f"expected a JSON object, got {_describe(doc)}")
    if _get(doc, "format", "") != FORMAT:
        raise InputError("format", f"expected {FORMAT!r}, got {_describe(doc['format'])}")
    network = _network(_get(doc, "network", ""), "network")
    domain = _domain(_get(doc, "domain", ""), network.input_dim, "domain")
    k, n_neurons, out = domain.dim, len(network.neurons), network.output_dim
    regions = []
    for i, obj in enumerate(_list(_get(doc, "regions", ""), "regions")):
        here = f"regions[{i}]"
        pattern = tuple(_int(v, f"{here}.pattern[{j}]")
                        for j, v in enumerate(_list(_get(obj, "pattern", here), f"{here}.pattern", n_neurons)))
        A = _matrix(_get(obj, "A", here), f"{here}.A", None, k)
        b = _vector(_get(obj, "b", here), f"{here}.b", len(A))
        point = _vector(_get(obj, "interior_point", here), f"{here}.interior_point", k)
        output_map = _get(obj, "output_map", here)
        M = _matrix(_get(output_map, "M", f"{here}.output_map"), f"{here}.output_map.M", out, k)
        c = _vector(_get(output_map, "c", f"{here}.output_map"), f"{here}.output_map.c", out)
        regions.append(Region(pattern, A, b, point, M, c))
    adjacency = []
    for e, entry in enumerate(_list(_get(doc, "adjacency", ""), "adjacency")):
        here = f"adjacency[{e}]"
        i, j, labels = _list(entry, here, 3)
        labels = tuple(_int(v, f"{here}[2][{q}]") for q, v in enumerate(_list(labels, f"{here}[2]")))
        adjacency.append((_int(i, f"{here}[0]"), _int(j, f"{here}[1]"), labels))
    linear = None
    if doc.get("linear_regions") is not None:
        linear = tuple(tuple(_int(v, f"linear_regions[{c}][{q}]")
                             for q, v in enumerate(_list(component, f"linear_regions[{c}]")))
                       for c, component in enumerate(_list(doc["linear_regions"], "linear_regions")))
    summary = doc.get("summary")
    if summary is not None and not isinstance(summary, dict):
        raise InputError("summary", f"expected a JSON object, got {_describe(summary)}")
    return Export(network, domain, tuple(regions), tuple(adjacency), linear, summary, doc.get("exact"))


# ----------------------------------------------------------------------------------------------------- checks

@dataclass
class Result:
    """The outcome: ``ok`` and the report lines (the last one names the failure when not ok)."""

    ok: bool = True
    lines: list[str] = field(default_factory=list)
    failure: str | None = None

    def report(self) -> str:
        return "\n".join(self.lines)


def _fmt(values) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


def _check_certificates(ex: Export) -> list:
    """Check 1; returns each region's neuron pre-activations under its fixed pattern."""
    net, dom = ex.network, ex.domain
    affine = []
    for i, region in enumerate(ex.regions):
        t = region.point
        for r, (row, bi) in enumerate(zip(region.A, region.b)):
            if not _dot(row, t) < bi:
                raise VerificationError(f"region {i}: interior_point: row {r} of A t < b fails "
                                        f"({_dot(row, t)} >= {bi})")
        for r, (row, bi) in enumerate(zip(dom.A, dom.b)):
            if not _dot(row, t) < bi:
                raise VerificationError(f"region {i}: interior_point: not inside the open domain (domain row {r})")
        ev = net.evaluate(region.pattern, t, dom.origin, dom.directions)
        if ev.pattern != region.pattern:
            raise VerificationError(f"region {i}: pattern: recorded {_fmt(region.pattern)}, the forward pass at "
                                    f"the interior point gives {_fmt(ev.pattern)}")
        if region.M != ev.M:
            raise VerificationError(f"region {i}: output_map.M: not the Jacobian of the network with this "
                                    f"pattern fixed (expected {[_fmt(r) for r in ev.M]})")
        value = tuple(_dot(row, t) + ci for row, ci in zip(region.M, region.c))
        if value != ev.output:
            raise VerificationError(f"region {i}: output_map.c: M t + c = {_fmt(value)} at the interior point, "
                                    f"the network gives {_fmt(ev.output)}")
        affine.append(ev.neurons)
    return affine


def _check_unique(ex: Export) -> None:
    seen: dict[tuple[int, ...], int] = {}
    for i, region in enumerate(ex.regions):
        if region.pattern in seen:
            raise VerificationError(f"region {i}: pattern: {_fmt(region.pattern)} repeats region "
                                    f"{seen[region.pattern]}")
        seen[region.pattern] = i

def _check_points_in_one_region(ex: Export) -> None:
    """Each interior point lies in no other open region (integer arithmetic; quadratic in the regions)."""
    rows = [[geo.integer_row(a, b) for a, b in zip(r.A, r.b)] for r in ex.regions]
    points = []
    for region in ex.regions:
        den = math.lcm(*(x.denominator for x in region.point))
        points.append((tuple(int(x * den) for x in region.point), den))
    for i, (nums, den) in enumerate(points):
        for j, other in enumerate(rows):
            if j != i and all(sum(p * q for p, q in zip(a, nums)) < b * den for a, b in other):
                raise VerificationError(f"region {i}: interior_point: also inside the open region {j} "
                                        "(regions overlap)")


def _check_adjacency_entries(ex: Export) -> dict[frozenset, int]:
    n, pairs = len(ex.regions), {}
    for e, (i, j, labels) in enumerate(ex.adjacency):
        if not (0 <= i < n and 0 <= j < n):
            raise VerificationError(f"adjacency[{e}]: region index out of range 0..{n - 1}: {i}, {j}")
        if i == j:
            raise VerificationError(f"adjacency[{e}]: a region is not adjacent to itself ({i})")
        pair = frozenset((i, j))
        if pair in pairs:
            raise VerificationError(f"adjacency[{e}]: the pair {min(i, j)}, {max(i, j)} is listed twice "
                                    f"(also adjacency[{pairs[pair]}])")
        pairs[pair] = e
        differ = {q for q, (u, v) in enumerate(zip(ex.regions[i].pattern, ex.regions[j].pattern)) if u != v}
        if len(labels) != len(set(labels)) or set(labels) != differ:
            raise VerificationError(f"adjacency[{e}]: neurons: listed {_fmt(labels)}, the patterns of regions "
                                    f"{i} and {j} differ at {_fmt(sorted(differ))}")
    return pairs


@dataclass
class _Geometry:
    rows: list            # per region: its own integer rows
    clip: list            # domain rows (+ box rows when the domain may be unbounded)
    verts: list           # per region: vertices of Q_i
    radius: int | None

    @cached_property
    def integer_points(self) -> list[list[tuple[list[int], int]]]:
        """Per region, each vertex as ``(numerators, denominator)``."""
        return [[(v.nums, v.den) for v in vs] for vs in self.verts]


def _geometry(ex: Export, affine: list, max_subsets: int) -> _Geometry:
    k = ex.domain.dim
    domain_rows = [geo.integer_row(a, b) for a, b in zip(ex.domain.A, ex.domain.b)]
    rows = [[geo.integer_row(a, b) for a, b in zip(r.A, r.b)] for r in ex.regions]
    radius = None
    clip = list(domain_rows)
    if not ex.domain.bounded_by_construction:
        everything = list(domain_rows) + [row for region in rows for row in region]
        everything += geo.box_rows(1, k)
        for neurons in affine:
            for a, d, den, piece, act in neurons:
                if any(a):  # (a.t + d) / den = p / q
                    everything += [geo.integer_row([xi.denominator * v for v in a],
                                                   xi.numerator * den - xi.denominator * d)
                                   for xi in act.bounds(piece) if xi is not None]
        radius = geo.radius_bound(everything, k)
        clip += geo.box_rows(radius, k)
    verts = []
    for i, region_rows in enumerate(rows):
        try:
            vs = geo.vertices(region_rows + clip, k, max_subsets=max_subsets)
        except geo.TooLarge as exc:
            raise VerificationError(f"region {i}: too large to check by brute force: {exc}; raise "
                                    "--max-subsets") from None
        if geo.affine_dimension([v.point for v in vs]) < k:
            raise VerificationError(f"region {i}: A, b: the region's vertices do not span dimension {k}")
        verts.append(vs)
    return _Geometry(rows, clip, verts, radius)


def _check_constant_patterns(ex: Export, affine: list, g: _Geometry) -> None:
    """Check 3: each neuron stays in its piece's closed interval on the whole region."""
    neuron_names = ex.network.neurons
    for i, (neurons, vs) in enumerate(zip(affine, g.verts)):
        points = [(nums, vden, v.point) for (nums, vden), v in zip(g.integer_points[i], vs)]
        for q, (a, d, den, piece, act) in enumerate(neurons):
            low, high = act.bounds(piece)
            for nums, vden, point in points:
                # the pre-activation at the vertex is value / (den * vden)
                value = sum(x * y for x, y in zip(a, nums)) + d * vden
                scale = den * vden
                if ((low is not None and value * low.denominator < low.numerator * scale)
                        or (high is not None and value * high.denominator > high.numerator * scale)):
                    layer, unit = neuron_names[q]
                    raise VerificationError(
                        f"region {i}: pattern: neuron {q} (layer {layer}, unit {unit}) leaves piece {piece} "
                        f"inside the region (pre-activation {Fraction(value, scale)} at vertex {_fmt(point)})")


def _check_coverage(ex: Export, g: _Geometry, max_subsets: int) -> str:
    k = ex.domain.dim
    try:
        domain_verts = geo.vertices(g.clip, k, max_subsets=max_subsets)
    except geo.TooLarge as exc:
        raise VerificationError(f"domain: too large to check by brute force: {exc}") from None
    box_start = len(ex.domain.A)
    unbounded = any(index >= box_start for v in domain_verts for index in v.tight)
    where = "" if g.radius is None or not unbounded else f" (cut to the box [-R, R]^{k}, R = {g.radius})"
    if k == 1:
        intervals = sorted((min(v.point[0] for v in vs), max(v.point[0] for v in vs), i)
                           for i, vs in enumerate(g.verts))
        lo = min(v.point[0] for v in domain_verts)
        hi = max(v.point[0] for v in domain_verts)
        position = lo
        for start, end, i in intervals:
            if start != position:
                kind = "gap" if start > position else "overlap"
                raise VerificationError(f"region {i}: coverage: {kind} at t = {position} "
                                        f"(region {i} starts at {start})")
            position = end
        if position != hi:
            raise VerificationError(f"coverage: the regions end at t = {position}, the domain at {hi}")
        return f"coverage: {len(intervals)} intervals tile [{lo}, {hi}]{where}"
    total = _ZERO
    for vs in g.verts:
        total += geo.volume(vs, k)
    domain_volume = geo.volume(domain_verts, k)
    if total != domain_volume:
        raise VerificationError(f"coverage: the regions' volumes add up to {total}, the domain's volume is "
                                f"{domain_volume}{where}")
    return f"coverage: region volumes add up to the domain's volume {domain_volume}{where}"


def _check_facets(ex: Export, g: _Geometry, pairs: dict[frozenset, int], max_subsets: int) -> None:
    """Check 5: listed neighbours cover every interior facet; each listed pair shares a piece."""
    k = ex.domain.dim
    boundary = {geo.hyperplane_key(row) for row in g.clip}
    keyed = [[geo.hyperplane_key(row) for row in rows] for rows in g.rows]
    neighbours: dict[int, list[int]] = {i: [] for i in range(len(ex.regions))}
    for pair in pairs:
        i, j = sorted(pair)
        neighbours[i].append(j)
        neighbours[j].append(i)
    confirmed: set[frozenset] = set()
    for i, rows in enumerate(g.rows):
        vs, ints, memo = g.verts[i], g.integer_points[i], {}
        all_rows = rows + g.clip
        done = set()
        for r, row in enumerate(rows):
            key = keyed[i][r]
            if key in boundary or key in done or not any(row[0]):
                continue
            done.add(key)
            face = frozenset(v for v, vertex in enumerate(vs) if r in vertex.tight)
            drop = next(q for q, x in enumerate(row[0]) if x)
            facet_volume = geo.volume(vs, k - 1, face=face, drop=drop, memo=memo)
            if facet_volume == 0:
                continue   # the row does not carry a facet
            plane_key = key[0]
            face_rows = [all_rows[s] for s in set().union(*(vs[v].tight for v in face))
                         if geo.hyperplane_key(all_rows[s])[0] != plane_key]
            covered = _ZERO
            for j in neighbours[i]:
                if (plane_key, -key[1]) not in keyed[j]:
                    continue
                cutting = [row_j for row_j, key_j in zip(g.rows[j], keyed[j]) if key_j[0] != plane_key and
                           any(sum(x * y for x, y in zip(row_j[0], ints[v][0])) > row_j[1] * ints[v][1]
                               for v in face)]
                on_plane = geo.restrict_to_hyperplane(face_rows + cutting, row, drop)
                try:
                    piece = geo.volume(geo.vertices(on_plane, k - 1, max_subsets=max_subsets), k - 1)
                except geo.TooLarge as exc:
                    raise VerificationError(f"region {i}: too large to check by brute force: {exc}") from None
                if piece:
                    confirmed.add(frozenset((i, j)))
                    covered += piece
            if covered != facet_volume:
                raise VerificationError(
                    f"region {i}: adjacency: the facet on row {r} of A is "
                    f"{'not ' if covered < facet_volume else 'over-'}covered by the regions listed as adjacent to it "
                    f"(covered {covered} of {facet_volume}, in "
                    f"coordinates without t[{drop}])")
    for pair, e in sorted(pairs.items(), key=lambda item: item[1]):
        if pair not in confirmed:
            i, j = sorted(pair)
            raise VerificationError(f"adjacency[{e}]: regions {i} and {j} share no {k - 1}-dimensional piece")


def _components(n: int, edges) -> set[frozenset[int]]:
    parent = list(range(n))

    def find(u):
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u

    for i, j in edges:
        parent[find(i)] = find(j)
    groups: dict[int, set[int]] = {}
    for u in range(n):
        groups.setdefault(find(u), set()).add(u)
    return {frozenset(group) for group in groups.values()}


def verify_export(doc: Any, *, max_subsets: int = DEFAULT_MAX_SUBSETS) -> Result:
    """Verify an export (a parsed JSON document); :class:`InputError` when it is unreadable.

    Examples
    --------
    >>> doc = {"format": "polyregions.regions/1",
    ...        "network": {"input_dim": 1, "layers": [{"weight": [[1]], "bias": [0], "activation": "relu"}]},
    ...        "domain": {"type": "box", "lower": [-1], "upper": [1]},
    ...        "regions": [{"pattern": [0], "A": [[1]], "b": [0], "interior_point": ["-1/2"],
    ...                     "output_map": {"M": [[0]], "c": [0]}},
    ...                    {"pattern": [1], "A": [[-1]], "b": [0], "interior_point": ["1/2"],
    ...                     "output_map": {"M": [[1]], "c": [0]}}],
    ...        "adjacency": [[0, 1, [0]]]}
    >>> verify_export(doc).ok
    True
    """
    ex = load_export(doc)
    result = Result()
    k, n = ex.domain.dim, len(ex.regions)
    result.lines.append(f"{n} regions, {len(ex.adjacency)} adjacencies; network {ex.network.input_dim} -> "
                        f"{ex.network.output_dim} with {len(ex.network.neurons)} neurons; {ex.domain.kind} "
                        f"domain of dimension {k}")
    try:
        if n == 0:
            raise VerificationError("regions: none listed (a full-dimensional domain has at least one)")
        affine = _check_certificates(ex)
        result.lines.append("ok: interior points strictly inside, patterns and output maps match the network")
        _check_unique(ex)
        if n <= PAIRWISE_LIMIT:
            _check_points_in_one_region(ex)
            result.lines.append("ok: patterns unique; each interior point lies in exactly one open region")
        else:
            result.lines.append(f"ok: patterns unique (more than {PAIRWISE_LIMIT} regions: that each interior point "
                                "lies in one open region is not tested pairwise; it follows from the next check)")
        pairs = _check_adjacency_entries(ex)
        result.lines.append("ok: adjacency entries distinct, in range, labelled by the neurons that differ")
        g = _geometry(ex, affine, max_subsets)
        _check_constant_patterns(ex, affine, g)
        result.lines.append("ok: every pattern is constant on its region (checked at the region's vertices)")
        result.lines.append("ok: " + _check_coverage(ex, g, max_subsets))
        _check_facets(ex, g, pairs, max_subsets)
        result.lines.append(f"ok: adjacency: every listed pair shares a {k - 1}-dimensional piece, and the listed "
                            "neighbours cover every facet inside the domain")
        maps = [(region.M, region.c) for region in ex.regions]
        linear = _components(n, [tuple(p) for p in pairs if len({maps[i] for i in p}) == 1])
        if ex.linear_regions is not None:
            listed = [frozenset(c) for c in ex.linear_regions]
            if len(listed) != len(set(listed)) or set(listed) != linear or sum(map(len, listed)) != n:
                raise VerificationError(f"linear_regions: listed {len(listed)} components, the adjacency graph "
                                        f"with equal output maps has {len(linear)} (or they differ)")
        result.lines.append(f"ok: {len(linear)} linear regions"
                            + (" (as listed)" if ex.linear_regions is not None else ""))
        if ex.summary is not None:
            expected = {"activation_regions": n, "linear_regions": len(linear), "adjacencies": len(pairs),
                        "neurons": len(ex.network.neurons), "input_dim": ex.network.input_dim, "domain_dim": k}
            for key, value in expected.items():
                if key in ex.summary and ex.summary[key] != value:
                    raise VerificationError(f"summary.{key}: recorded {_describe(ex.summary[key])}, verified {value}")
            result.lines.append("ok: summary counts")
    except VerificationError as exc:
        result.ok, result.failure = False, str(exc)
        result.lines.append(f"FAILED: {exc}")
        return result
    if ex.exact is False:
        result.lines.append("note: the export says exact: false; the checks above are exact regardless")
    result.lines.append("verified")
    return result


def _reject_constant(name: str):
    raise InputError("json", f"{name} is not a number")


def verify_file(path: str, *, max_subsets: int = DEFAULT_MAX_SUBSETS) -> Result:
    """Read and verify an export file; :class:`InputError` (field ``file``/``json``/...) when unreadable."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except (OSError, UnicodeDecodeError) as exc:
        raise InputError("file", f"cannot read: {exc}") from None
    try:
        doc = json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise InputError("json", f"not valid JSON: {exc}") from None
    return verify_export(doc, max_subsets=max_subsets)


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: verify one export, print the report, return the exit status (0, 1 or 2)."""
    parser = argparse.ArgumentParser(prog="python -m proofs_check.verify",
                                     description="Re-check a polyregions.regions/1 export exactly.")
    parser.add_argument("file", help="the JSON export")
    parser.add_argument("--max-subsets", type=int, default=DEFAULT_MAX_SUBSETS,
                        help="largest number of row subsets tried per vertex enumeration "
                             f"(default {DEFAULT_MAX_SUBSETS})")
    parser.add_argument("--quiet", action="store_true", help="print only the last line")
    args = parser.parse_args(argv)
    try:
        result = verify_file(args.file, max_subsets=args.max_subsets)
    except InputError as exc:
        print(f"proofs_check: error: {args.file}: {exc}", file=sys.stderr)
        return 2
    except RecursionError:
        print(f"proofs_check: error: {args.file}: json: nested too deeply", file=sys.stderr)
        return 2
    lines = result.lines[-1:] if args.quiet else [f"proofs_check: {args.file}"] + result.lines
    print("\n".join(lines))
    return 0 if result.ok else 1


if __name__ == "__main__":
    sys.exit(main())
