"""Continuous piecewise-linear activation functions with exact rational parameters.

An activation with breakpoints ``xi_1 < ... < xi_T`` and slopes ``q_0, ..., q_T`` is the continuous function
equal to ``q_0 t + p_0`` for ``t <= xi_1`` and with slope ``q_k`` on ``[xi_k, xi_{k+1}]``. Its *piece* at ``t``
is the number of breakpoints strictly below ``t``, so a breakpoint belongs to the piece on its left. Every region
engine uses this convention.

Examples
--------
>>> relu()(-3), relu()(Fraction(5, 2))
(Fraction(0, 1), Fraction(5, 2))
>>> hardtanh().piece(1), hardtanh().piece(Fraction(3, 2))
(1, 2)
"""

from __future__ import annotations

import bisect
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Iterable

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe, format_rational, rational, rational_vector

__all__ = [
    "Activation",
    "ACTIVATION_NAMES",
    "relu",
    "linear",
    "hardtanh",
    "leaky_relu",
    "piecewise_linear",
    "activation_from_json",
]

#: The values of :attr:`Activation.name`.
ACTIVATION_NAMES = ("relu", "leaky_relu", "hardtanh", "linear", "piecewise_linear")

_ZERO = Fraction(0)
_ONE = Fraction(1)


def _short(value: Fraction) -> str:
    """A number for an error message: exact when short, its first digits and length otherwise."""
    text = format_rational(value)
    return text if len(text) <= 40 else f"{text[:20]}... ({len(text)} characters)"


def _check(breakpoints: tuple[Fraction, ...], slopes: tuple[Fraction, ...], offset: Fraction, what: str) -> None:
    if len(slopes) != len(breakpoints) + 1:
        raise InvalidInputError(f"{what}: slopes: expected {len(breakpoints) + 1} slopes (one more than the "
                                f"{len(breakpoints)} breakpoints), got {len(slopes)}")
    if not breakpoints and (slopes[0] != 1 or offset != 0):
        # The engines take an activation without breakpoints for the identity (a layer without neurons).
        raise InvalidInputError(f"{what}: breakpoints: expected at least one breakpoint: the only activation "
                                f"without one is the identity \"linear\" (fold t -> {format_rational(slopes[0])} t + "
                                f"{format_rational(offset)} into the layer's weight and bias), got none")
    for i in range(1, len(breakpoints)):
        if not breakpoints[i - 1] < breakpoints[i]:
            raise InvalidInputError(f"{what}: breakpoints: expected strictly increasing values, got "
                                    f"{format_rational(breakpoints[i - 1])} then {format_rational(breakpoints[i])} "
                                    f"at positions {i - 1} and {i}")
    for i in range(1, len(slopes)):
        if slopes[i - 1] == slopes[i]:
            raise InvalidInputError(f"{what}: slopes: expected consecutive slopes to differ (otherwise breakpoint "
                                    f"{i - 1} is not a breakpoint), got {_short(slopes[i])} twice at "
                                    f"positions {i - 1} and {i}")


@dataclass(frozen=True)
class Activation:
    """A continuous piecewise-linear function R -> R with exact rational parameters.

    Equal to ``slopes[0] * t + offset`` for ``t <= breakpoints[0]``, with slope ``slopes[k]`` between
    ``breakpoints[k - 1]`` and ``breakpoints[k]``. Build one with :func:`relu`, :func:`linear`,
    :func:`hardtanh`, :func:`leaky_relu` or :func:`piecewise_linear` rather than directly.

    Parameters
    ----------
    name : str
        One of :data:`ACTIVATION_NAMES`; it must match the parameters (``"piecewise_linear"`` matches any).
    breakpoints : sequence of numbers
        Strictly increasing; read exactly.
    slopes : sequence of numbers
        One more than the breakpoints; consecutive slopes differ.
    offset : number
        The intercept of the leftmost piece.

    Attributes
    ----------
    name : str
        One of :data:`ACTIVATION_NAMES`; a label only (two activations computing the same function are equal).
    breakpoints : tuple of Fraction
        ``xi_1 < ... < xi_T`` (empty for an affine activation such as :func:`linear`).
    slopes : tuple of Fraction
        ``q_0, ..., q_T``; consecutive slopes differ.
    offset : Fraction
        ``p_0``, the intercept of the leftmost piece.
    intercepts : tuple of Fraction
        The intercept of every piece (derived; piece ``k`` is ``slopes[k] * t + intercepts[k]``).

    Raises
    ------
    InvalidInputError
        When the breakpoints do not increase strictly, the number of slopes is not one more than the number of
        breakpoints, two consecutive slopes are equal, or ``name`` does not match the parameters.

    Notes
    -----
    The *piece* of ``t`` (:meth:`piece`) is the number of breakpoints strictly below ``t``, so a breakpoint
    belongs to the piece on its left; every region engine uses this convention.

    Examples
    --------
    >>> import polyregions as pr
    >>> f = pr.piecewise_linear([0, 1], [0, 2, 1], 0)
    >>> f(3), f.piece(3), f.piece_map(2)
    (Fraction(4, 1), 2, (Fraction(1, 1), Fraction(1, 1)))
    >>> f.num_pieces, f.is_linear, f == pr.Activation("piecewise_linear", [0, 1], [0, 2, 1], 0)
    (3, False, True)
    """

    name: str = field(compare=False)
    breakpoints: tuple[Fraction, ...]
    slopes: tuple[Fraction, ...]
    offset: Fraction
    intercepts: tuple[Fraction, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.name not in ACTIVATION_NAMES:
            raise InvalidInputError(f"activation: name: expected one of {', '.join(ACTIVATION_NAMES)}, "
                                    f"got {_describe(self.name)}")
        what = f"activation {self.name}"
        breakpoints = rational_vector(self.breakpoints, what=f"{what}: breakpoints")
        slopes = rational_vector(self.slopes, what=f"{what}: slopes")
        offset = rational(self.offset, what=f"{what}: offset")
        _check(breakpoints, slopes, offset, what)
        intercepts = [offset]
        for xi, left, right in zip(breakpoints, slopes, slopes[1:]):
            intercepts.append(intercepts[-1] + (left - right) * xi)  # continuity at xi
        object.__setattr__(self, "breakpoints", breakpoints)
        object.__setattr__(self, "slopes", slopes)
        object.__setattr__(self, "offset", offset)
        object.__setattr__(self, "intercepts", tuple(intercepts))
        canonical = _canonical_name(breakpoints, slopes, offset)
        allowed = ("relu", "leaky_relu") if self.name == "leaky_relu" else (self.name,)
        if self.name != "piecewise_linear" and canonical not in allowed:
            raise InvalidInputError(f"activation: expected the parameters of {self.name}, got breakpoints "
                                    f"{list(map(_short, breakpoints))}, slopes {list(map(_short, slopes))}, "
                                    f"offset {_short(offset)}")

    def __reduce__(self):
        return (Activation, (self.name, self.breakpoints, self.slopes, self.offset))

    @property
    def is_linear(self) -> bool:
        """Whether the activation is affine (no breakpoints); the units of such a layer are not neurons."""
        return not self.breakpoints

    @property
    def num_pieces(self) -> int:
        """The number of linear pieces, ``T + 1``."""
        return len(self.slopes)

    def piece(self, t: Any) -> int:
        """The number of breakpoints strictly below ``t`` (a breakpoint belongs to the piece on its left).

        Examples
        --------
        >>> relu().piece(0), relu().piece(Fraction(1, 10**9))
        (0, 1)
        """
        return bisect.bisect_left(self.breakpoints, t if isinstance(t, (Fraction, int)) else rational(t, what="t"))

    def piece_map(self, k: int) -> tuple[Fraction, Fraction]:
        """The ``(slope, intercept)`` of piece ``k``, ``0 <= k <= T``."""
        if not isinstance(k, int) or isinstance(k, bool) or not 0 <= k < len(self.slopes):
            raise InvalidInputError(f"piece_map: expected a piece index in 0..{len(self.slopes) - 1}, "
                                    f"got {_describe(k)}")
        return self.slopes[k], self.intercepts[k]

    def __call__(self, t: Any) -> Fraction:
        """The exact value at ``t``."""
        t = t if isinstance(t, Fraction) else rational(t, what="t")
        k = bisect.bisect_left(self.breakpoints, t)
        return self.slopes[k] * t + self.intercepts[k]

    def to_json(self) -> str | dict[str, Any]:
        """The form of the network file (``"relu"``, ``{"kind": "leaky_relu", ...}``), numbers as exact strings."""
        if self.is_linear:  # the identity, whatever its label
            return "linear"
        if self.name in ("relu", "linear", "hardtanh"):
            return self.name
        if self.name == "leaky_relu":
            return {"kind": "leaky_relu", "negative_slope": format_rational(self.slopes[0])}
        return {"kind": "piecewise_linear",
                "breakpoints": [format_rational(v) for v in self.breakpoints],
                "slopes": [format_rational(v) for v in self.slopes],
                "offset": format_rational(self.offset)}


def _canonical_name(breakpoints, slopes, offset) -> str:
    if offset == 0 and breakpoints == (_ZERO,) and slopes[1] == 1:
        return "relu" if slopes[0] == 0 else "leaky_relu"
    if offset == 0 and not breakpoints and slopes == (_ONE,):
        return "linear"
    if breakpoints == (-_ONE, _ONE) and slopes == (_ZERO, _ONE, _ZERO) and offset == -1:
        return "hardtanh"
    return "piecewise_linear"


def relu() -> Activation:
    """The rectified linear unit ``max(0, t)``: breakpoints ``(0,)``, slopes ``(0, 1)``.

    Returns
    -------
    Activation
        Named ``"relu"``; its two pieces are 0 (``t <= 0``) and 1 (``t > 0``).

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.relu()(-2), pr.relu()(2), pr.relu().piece(0)
    (Fraction(0, 1), Fraction(2, 1), 0)
    """
    return Activation("relu", (_ZERO,), (_ZERO, _ONE), _ZERO)


def linear() -> Activation:
    """The identity (no breakpoints): the units of a linear layer are not neurons.

    Returns
    -------
    Activation
        Named ``"linear"``, with one piece of slope 1; the usual activation of an output layer.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.linear()("-7/12"), pr.linear().is_linear
    (Fraction(-7, 12), True)
    """
    return Activation("linear", (), (_ONE,), _ZERO)


def hardtanh(*, min_val: Any = -1, max_val: Any = 1, what: str = "hardtanh") -> Activation:
    """Clipping to ``[min_val, max_val]`` (default ``[-1, 1]``): slopes ``(0, 1, 0)``.

    Parameters
    ----------
    min_val, max_val : number, keyword-only
        The clipping bounds, read exactly, with ``min_val < max_val``.
    what : str, keyword-only
        The name used in error messages.

    Returns
    -------
    Activation
        Named ``"hardtanh"`` for ``[-1, 1]``; other bounds give a ``"piecewise_linear"`` activation (torch's
        ``ReLU6`` is ``[0, 6]``).

    Raises
    ------
    InvalidInputError
        When a bound is not a number or ``min_val >= max_val``.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.hardtanh()(5), pr.hardtanh()("1/3"), pr.hardtanh(min_val=0, max_val=6)(7)
    (Fraction(1, 1), Fraction(1, 3), Fraction(6, 1))
    >>> pr.hardtanh().num_pieces, pr.hardtanh(min_val=0, max_val=6).name
    (3, 'piecewise_linear')
    """
    lo = rational(min_val, what=f"{what}: min_val")
    hi = rational(max_val, what=f"{what}: max_val")
    if not lo < hi:
        raise InvalidInputError(f"{what}: expected min_val < max_val, got {_short(lo)} and {_short(hi)}")
    return piecewise_linear((lo, hi), (_ZERO, _ONE, _ZERO), lo, what=what)


def leaky_relu(negative_slope: Any, *, what: str = "leaky_relu") -> Activation:
    """``t`` for ``t >= 0`` and ``negative_slope * t`` below: breakpoints ``(0,)``, slopes ``(s, 1)``.

    Parameters
    ----------
    negative_slope : number
        The slope ``s`` left of 0, read exactly (a float is its binary value: pass ``"1/100"`` for 1/100).
    what : str, keyword-only
        The name used in error messages.

    Returns
    -------
    Activation
        Named ``"leaky_relu"`` (equal to :func:`relu` when ``s == 0``).

    Raises
    ------
    InvalidInputError
        When ``negative_slope`` is not a number, or is 1 (the identity, not a piecewise function).

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.leaky_relu("1/4")(-8), pr.leaky_relu(0) == pr.relu()
    (Fraction(-2, 1), True)
    """
    s = rational(negative_slope, what=f"{what}: negative_slope")
    if s == 1:
        raise InvalidInputError(f"{what}: negative_slope: expected a slope other than 1 (slope 1 is the identity, "
                                f"use \"linear\"), got 1")
    return Activation("leaky_relu", (_ZERO,), (s, _ONE), _ZERO)


def piecewise_linear(breakpoints: Iterable[Any], slopes: Iterable[Any], offset: Any = 0, *,
                     what: str = "piecewise_linear") -> Activation:
    """A continuous piecewise-linear activation from its breakpoints and slopes.

    The function equals ``slopes[0] t + offset`` left of ``breakpoints[0]`` and has slope ``slopes[k]``
    between ``breakpoints[k-1]`` and ``breakpoints[k]``.

    Parameters
    ----------
    breakpoints : iterable of numbers
        ``xi_1 < ... < xi_T``, strictly increasing, read exactly.
    slopes : iterable of numbers
        ``q_0, ..., q_T``: one more than the breakpoints, consecutive slopes different.
    offset : number, default 0
        The intercept of the leftmost piece.
    what : str, keyword-only
        The name used in error messages.

    Returns
    -------
    Activation
        Parameters matching ReLU, leaky ReLU, hard tanh or the identity give that named activation;
        any others are named ``"piecewise_linear"``.

    Raises
    ------
    InvalidInputError
        When an entry is not a number, the breakpoints do not increase strictly, the number of slopes is
        wrong, or two consecutive slopes are equal.

    Examples
    --------
    >>> import polyregions as pr
    >>> pr.piecewise_linear([0], [0, 1], 0).name
    'relu'
    >>> pr.piecewise_linear([0, 1], [1, 0, 1], 0)(2)
    Fraction(1, 1)
    """
    bp = rational_vector(_listed(breakpoints), what=f"{what}: breakpoints")
    sl = rational_vector(_listed(slopes), what=f"{what}: slopes")
    p0 = rational(offset, what=f"{what}: offset")
    _check(bp, sl, p0, what)
    return Activation(_canonical_name(bp, sl, p0), bp, sl, p0)


def _listed(values: Any) -> Any:
    """An iterable without a length (a generator) as a list; anything else unchanged, for the reader to judge."""
    if hasattr(values, "__iter__") and not hasattr(values, "__len__"):
        return list(values)
    return values


_SIMPLE = {"relu": relu, "linear": linear, "hardtanh": hardtanh}


def activation_from_json(obj: Any, *, what: str = "activation") -> Activation:
    """Read an activation in the network-file form.

    Accepts ``"relu"``, ``"linear"``, ``"hardtanh"``, ``{"kind": "leaky_relu", "negative_slope": s}`` and
    ``{"kind": "piecewise_linear", "breakpoints": [...], "slopes": [...], "offset": p0}``; an
    :class:`Activation` passes through. Anything else raises :class:`InvalidInputError` naming ``what``.

    Examples
    --------
    >>> activation_from_json({"kind": "leaky_relu", "negative_slope": "1/100"}).slopes
    (Fraction(1, 100), Fraction(1, 1))
    """
    if isinstance(obj, Activation):
        return obj
    if isinstance(obj, str):
        if obj in _SIMPLE:
            return _SIMPLE[obj]()
        raise InvalidInputError(f"{what}: expected \"relu\", \"linear\", \"hardtanh\" or an object with \"kind\" "
                                f"\"leaky_relu\" or \"piecewise_linear\", got {_describe(obj)}")
    if isinstance(obj, dict):
        kind = obj.get("kind")
        if isinstance(kind, str) and kind in _SIMPLE:  # a list or an object as kind is not hashable
            return _SIMPLE[kind]()
        if kind == "leaky_relu":
            if "negative_slope" not in obj:
                raise InvalidInputError(f"{what}: negative_slope: expected a number, got nothing (missing key)")
            return leaky_relu(obj["negative_slope"], what=what)
        if kind == "piecewise_linear":
            for key in ("breakpoints", "slopes", "offset"):
                if key not in obj:
                    raise InvalidInputError(f"{what}: {key}: expected a value, got nothing (missing key)")
            for key in ("breakpoints", "slopes"):
                if not isinstance(obj[key], (list, tuple)):
                    raise InvalidInputError(f"{what}: {key}: expected a list of numbers, got {_describe(obj[key])}")
            if not obj["breakpoints"]:
                raise InvalidInputError(f"{what}: breakpoints: expected at least one breakpoint (write \"linear\" "
                                        f"for the identity), got none")
            return piecewise_linear(obj["breakpoints"], obj["slopes"], obj["offset"], what=what)
        raise InvalidInputError(f"{what}: kind: expected \"leaky_relu\" or \"piecewise_linear\", "
                                f"got {_describe(kind)}")
    raise InvalidInputError(f"{what}: expected an activation name (\"relu\", \"linear\", \"hardtanh\") or an "
                            f"object with \"kind\", got {type(obj).__name__} {_describe(obj)}")
