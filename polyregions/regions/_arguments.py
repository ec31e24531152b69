"""Checks of the arguments of public functions, shared so that every entry point refuses bad input alike.

Each ``expect_*`` returns the argument (or its checked form) or raises an
:class:`~polyregions.errors.InvalidInputError` whose message starts with ``where`` (the argument's name), says
what was expected and shows what arrived. They run first in a public function, before any work, so a wrong
argument never surfaces as an ``AttributeError`` or a ``TypeError`` from deep inside. Nothing is imported from
the rest of the package until a check runs (the geometry classes load lazily).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import numpy as np

from polyregions.errors import InvalidInputError

if TYPE_CHECKING:
    from fractions import Fraction

    from polyregions.networks.network import Network
    from polyregions.regions.domains import Domain

__all__ = ["arrived", "expect_network", "expect_domain", "expect_complex", "expect_points", "expect_path",
           "expect_dimension", "expect_point_count"]

_SHOWN = (str, bytes, int, float, complex, list, tuple, dict, set)


def arrived(value: Any) -> str:
    """A short description of a wrong argument: ``None``, ``list [1, 2]``, ``Network`` (a type and its repr)."""
    from polyregions.exact.rationals import _describe

    if value is None:
        return "None"
    name = type(value).__name__
    return f"{name} {_describe(value)}" if isinstance(value, _SHOWN) else name


def expect_network(value: Any, where: str = "network") -> Network:
    """``value`` once it is a :class:`~polyregions.networks.network.Network`; a graph network arrives as its
    stages (:class:`~polyregions.networks.stages.StagedNetwork`, the same interface)."""
    from typing import cast

    from polyregions.networks.network import Network

    if isinstance(value, Network):
        return value
    # graph modules load only for graph networks: a dense job should not pay for importing them
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.stages import StagedNetwork

    if isinstance(value, GraphNetwork):
        value = value.staged
    if isinstance(value, StagedNetwork):
        return cast(Network, value)  # duck-typed: patterns, affine maps and restriction as a Network's
    raise InvalidInputError(f"{where}: expected a Network (pr.load_network, pr.Network.from_layers, ...), got "
                            f"{arrived(value)}")


def expect_domain(value: Any, where: str = "domain", *, input_dim: int | None = None) -> Domain:
    """``value`` once it is a :class:`~polyregions.regions.domains.Domain` (in ``R^input_dim`` when given)."""
    from polyregions.regions.domains import Domain

    if not isinstance(value, Domain):
        raise InvalidInputError(f"{where}: expected a Domain (pr.box, pr.segment, pr.load_domain, ...), got "
                                f"{arrived(value)}")
    if input_dim is not None and value.input_dim != input_dim:
        raise InvalidInputError(f"{where}: expected a domain in R^{input_dim} (the network's input), got one in "
                                f"R^{value.input_dim}")
    return value


def expect_complex(value: Any, where: str = "complex_", *, also: tuple[type, ...] = ()) -> Any:
    """``value`` once it is a :class:`~polyregions.regions.complex.RegionComplex` or an instance of ``also``.

    ``also`` holds the results computed from a complex that a function takes in its place (a ``FaceComplex``,
    a ``Boundary``); the message names them.
    """
    from polyregions.regions.complex import RegionComplex

    if not isinstance(value, (RegionComplex, *also)):
        alternatives = "".join(f" or a {kind.__name__}" for kind in also)
        raise InvalidInputError(f"{where}: expected a RegionComplex (pr.enumerate_regions){alternatives}, got "
                                f"{arrived(value)}")
    return value


def expect_dimension(value: Any, where: str) -> int:
    """``value`` once it is a positive integer (a dimension); a boolean is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(f"{where}: expected a positive integer, got {arrived(value)}")
    return int(value)


def expect_points(value: Any, where: str, *, dim: int, at_least: int = 1) -> np.ndarray | list[tuple[Fraction, ...]]:
    """At least ``at_least`` points of ``dim`` exact numbers each, as a float64 array or as exact tuples.

    A float array is checked whole (shape and finiteness, vectorised: it may hold a million points) and
    returned as float64, whose values are the exact doubles it held; anything else must be a sequence of
    points, each read exactly by :func:`~polyregions.exact.rationals.rational_vector` (point ``i`` is named
    ``where[i]``).
    """
    from polyregions.exact.rationals import rational_vector

    if isinstance(value, np.ndarray):
        if value.ndim != 2 or value.shape[1] != dim:
            raise InvalidInputError(f"{where}: expected an array of shape (count, {dim}), got an array of shape "
                                    f"{value.shape}")
        if value.dtype.kind == "f":
            points = np.array(value, dtype=np.float64)  # float16 and float32 values are doubles exactly
            if not np.isfinite(points).all():
                raise InvalidInputError(f"{where}: expected finite coordinates, got NaN or infinity")
            expect_point_count(len(points), where, at_least)
            return points
    elif isinstance(value, (str, bytes, dict, set, frozenset)) or not hasattr(value, "__len__") \
            or not hasattr(value, "__getitem__"):
        raise InvalidInputError(f"{where}: expected a list of points of {dim} numbers each, or an array of shape "
                                f"(count, {dim}), got {arrived(value)}")
    expect_point_count(len(value), where, at_least)
    return [rational_vector(point, what=f"{where}[{i}]", length=dim) for i, point in enumerate(value)]


def expect_point_count(count: int, where: str, at_least: int = 1) -> None:
    """Refuse fewer than ``at_least`` points (``count`` of them arrived)."""
    if count < at_least:
        wanted = {1: "one point", 2: "two points"}.get(at_least, f"{at_least} points")
        raise InvalidInputError(f"{where}: expected at least {wanted}, got {count or 'none'}")


def expect_path(value: Any, where: str = "path") -> str:
    """``value`` as a string path, once it is a non-empty ``str`` or an ``os.PathLike`` naming one.

    Bytes paths are refused like everywhere else in polyregions (file names in messages are text).
    """
    if isinstance(value, os.PathLike):
        value = os.fspath(value)
    if not isinstance(value, str):
        raise InvalidInputError(f"{where}: expected a file path (str or os.PathLike), got {arrived(value)}")
    if not value:
        raise InvalidInputError(f"{where}: expected a file path, got an empty string")
    return value
