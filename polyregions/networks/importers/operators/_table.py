"""The table itself: operator names to entries, the call that applies one, and the readers of arguments the
entries share. The entries live in the modules of this package, one family each."""

from __future__ import annotations

from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from polyregions.networks.importers._builder import (
    GraphBuilder,
    Symbolic,
    Unsupported,
    constant_array,
    is_symbolic,
)

__all__ = ["OPERATORS", "Handler", "REQUIRED", "entry", "call", "supported_operators", "arguments", "tensor_arg",
           "int_list", "exact_numbers", "exact_number", "one_number"]

Handler = Callable[[GraphBuilder, Sequence[Any], dict[str, Any]], Any]

#: ATen operator name (without namespace, overload or in-place underscore) -> entry.
OPERATORS: dict[str, Handler] = {}

REQUIRED = object()  # the default of an argument that must be given


def entry(*names: str) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        for name in names:
            OPERATORS[name] = handler
        return handler
    return register


def supported_operators() -> list[str]:
    """The operator names of the table, sorted."""
    return sorted(OPERATORS)


def call(builder: GraphBuilder, name: str, args: Sequence[Any], kwargs: dict[str, Any] | None = None) -> Any:
    """Apply the entry ``name`` (an ATen name; a trailing ``_`` of an in-place variant is dropped)."""
    key = name[:-1] if name.endswith("_") and not name.startswith("_") else name
    handler = OPERATORS.get(key)
    if handler is None:
        public = (n for n in supported_operators() if not n.startswith("_"))
        raise Unsupported(f"expected one of the operators {', '.join(public)}, got {name}")
    return handler(builder, list(args), dict(kwargs or {}))


def arguments(args: Sequence[Any], kwargs: dict[str, Any], *spec: tuple[str, Any]) -> list[Any]:
    """The arguments of ``spec`` (name, default) from positions, then keywords, then defaults."""
    values = []
    for i, (name, default) in enumerate(spec):
        if i < len(args):
            values.append(args[i])
        elif name in kwargs:
            values.append(kwargs[name])
        elif default is REQUIRED:
            raise Unsupported(f"{name}: expected a value, got none")
        else:
            values.append(default)
    return values


def tensor_arg(value: Any, what: str) -> Symbolic:
    """An argument that must be computed from the input (a constant has no operation to become)."""
    if not is_symbolic(value):
        raise Unsupported(f"{what}: expected a tensor computed from the input, got a constant")
    return value


def int_list(value: Any, count: int, what: str) -> tuple[int, ...]:
    """``count`` integers from an integer or a list (one entry stands for all)."""
    if isinstance(value, np.ndarray):
        value = value.tolist()
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        return (int(value),) * count
    try:
        values = tuple(int(v) for v in value)
    except (TypeError, ValueError):
        raise Unsupported(f"{what}: expected integers, got {value!r}") from None
    if len(values) == 1:
        return values * count
    if len(values) != count:
        raise Unsupported(f"{what}: expected {count} integers, got {list(values)}")
    return values


def exact_numbers(array: np.ndarray) -> list[Fraction]:
    """The entries of a constant as Fractions, flattened."""
    return [v if isinstance(v, Fraction) else Fraction(v) for v in np.asarray(array).reshape(-1).tolist()]


def exact_number(value: Any, what: str) -> Fraction:
    """One constant number at its exact value (a Python float is the binary64 number the framework holds)."""
    return Fraction(one_number(value, what))


def one_number(value: Any, what: str) -> Any:
    """The one number a constant holds (a tensor of equal entries counts as one), as a Python number."""
    array = constant_array(value, what)
    flat = array.reshape(-1).tolist()  # Python numbers: a numpy integer inside a Fraction overflows
    if not flat or any(v != flat[0] for v in flat):
        raise Unsupported(f"{what}: expected one number, got shape {list(array.shape)}")
    return flat[0]
