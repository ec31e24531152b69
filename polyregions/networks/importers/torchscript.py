"""TorchScript modules, traced or scripted: the frozen, inlined graph's ATen operators.

:func:`network_from_torchscript` freezes the module (parameters become constants, submodule calls are inlined)
and reads every ``aten::`` call through the operator table of :mod:`polyregions.networks.importers.operators`;
TorchScript's own bookkeeping (constants, lists, tuples, number conversions) is evaluated on the way. Control
flow (``prim::If``, ``prim::Loop``) that freezing could not resolve is refused: a piecewise-linear network has
one graph for every input.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from polyregions.errors import InvalidInputError
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.importers._builder import GraphBuilder, Unsupported
from polyregions.networks.importers._torch_values import plain, torch_module
from polyregions.networks.importers.operators import call

__all__ = ["network_from_torchscript"]


def network_from_torchscript(module: Any, *, input_shape: Sequence[int] | None = None,
                             what: str = "TorchScript module") -> GraphNetwork:
    """The exact graph network of a TorchScript module (``torch.jit.script`` or ``torch.jit.trace``).

    Parameters
    ----------
    module : torch.jit.ScriptModule
        A module whose ``forward`` takes one tensor of shape ``[batch, sizes...]`` and returns one tensor.
    input_shape : sequence of int, optional
        One input's shape without the batch axis. Needed when the graph does not record it (a scripted module)
        and the first operation is not a linear layer, which fixes it.
    what : str, keyword-only
        The name that starts every error message.
    """
    torch = torch_module(what)
    if not isinstance(module, torch.jit.ScriptModule):
        raise InvalidInputError(f"{what}: expected a torch.jit.ScriptModule, got {type(module).__name__}")
    traced = list(module.graph.inputs())[1:2]  # a traced module records its input's sizes until it is frozen
    recorded = _recorded_sizes(traced[0]) if traced else None
    try:
        frozen = torch.jit.freeze(module.eval())
    except Exception as error:  # freezing runs TorchScript passes over the user's code
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise InvalidInputError(f"{what}: expected a TorchScript module that torch.jit.freeze accepts, got "
                                f"{type(error).__name__}: {first[:300]}") from None
    graph = frozen.graph
    inputs = list(graph.inputs())[1:]  # the first is the module itself
    if len(inputs) != 1:
        raise InvalidInputError(f"{what}: forward: expected one input tensor, got {len(inputs)} inputs")
    builder = GraphBuilder(_input_shape(inputs[0], input_shape, recorded, what), what)
    values: dict[Any, Any] = {inputs[0]: builder.input}
    for node in graph.nodes():
        _read(node, values, builder, what, torch)
    outputs = [values[v] for v in graph.outputs()]
    output = outputs[0] if len(outputs) == 1 else outputs
    if isinstance(output, (list, tuple)) and len(output) == 1:
        output = output[0]
    return builder.network(output)


def _input_shape(value: Any, input_shape: Sequence[int] | None, recorded: tuple[int, ...] | None,
                 what: str) -> tuple[int, ...]:
    if input_shape is not None:
        return (1,) + tuple(int(v) for v in input_shape)
    if recorded is not None:
        return recorded
    for use in value.uses():  # a first linear layer fixes the input
        node = use.user
        if node.kind() == "aten::linear":
            weight = next(iter(node.inputs()), None) and list(node.inputs())[1].toIValue()
            if weight is not None:
                return (1, int(weight.shape[1]))
    raise InvalidInputError(f"{what}: input_shape: expected the shape of one input without the batch axis (the "
                            f"module's graph does not record it and its first operation is not a linear layer), got "
                            f"none: give it (input_shape=, or polyregions network --input-shape C,H,W), set "
                            f"model.input_shape = (C, H, W) before saving, or save a .pt2 file (torch.export.save), "
                            f"which records it")


def _recorded_sizes(value: Any) -> tuple[int, ...] | None:
    try:
        sizes = value.type().sizes()
    except RuntimeError:
        return None
    if sizes is None or any(v is None for v in sizes):
        return None
    return tuple(int(v) for v in sizes)


def _read(node: Any, values: dict[Any, Any], builder: GraphBuilder, what: str, torch: Any) -> None:
    kind = node.kind()
    namespace, _, name = kind.partition("::")
    outputs = list(node.outputs())
    args = [values[v] if v in values else _constant_of(v) for v in node.inputs()]
    where = f"{what}: node {outputs[0].debugName() if outputs else kind} ({kind})"
    if kind == "prim::Constant":
        values[outputs[0]] = plain(outputs[0].toIValue(), where)
    elif kind in ("prim::ListConstruct", "prim::TupleConstruct"):
        values[outputs[0]] = list(args)
    elif kind in ("prim::ListUnpack", "prim::TupleUnpack"):
        for output, value in zip(outputs, args[0]):
            values[output] = value
    elif kind in ("prim::TupleIndex", "aten::__getitem__", "aten::select") and not _is_tensor_op(args):
        values[outputs[0]] = args[0][int(args[1])]
    elif kind in ("prim::NumToTensor", "aten::Int", "aten::Float", "aten::ScalarImplicit", "aten::IntImplicit",
                  "aten::FloatImplicit", "prim::unchecked_cast"):
        values[outputs[0]] = _number(args[0], where)
    elif kind == "prim::If" and not _is_tensor_op(args):
        branch = list(node.blocks())[0 if args[0] else 1]  # a condition fixed by freezing: one branch runs
        for inner in branch.nodes():
            _read(inner, values, builder, what, torch)
        for output, value in zip(outputs, branch.outputs()):
            values[output] = values[value] if value in values else _constant_of(value)
    elif kind in _LOGIC and not any(_is_tensor_op([a]) for a in args):
        values[outputs[0]] = _LOGIC[kind](*args)
    elif kind == "prim::Uninitialized":
        values[outputs[0]] = None
    elif namespace == "aten":
        builder.context = where
        try:
            result = call(builder, name, args)
        except Unsupported as error:
            raise InvalidInputError(f"{where}: {error}") from None
        if len(outputs) == 1:
            values[outputs[0]] = result
        else:
            for output, value in zip(outputs, result):
                values[output] = value
    elif kind in ("prim::If", "prim::Loop"):
        raise InvalidInputError(f"{where}: expected one graph for every input, got control flow that depends on "
                                f"values (TorchScript's {kind})")
    else:
        raise InvalidInputError(f"{where}: expected ATen operators and TorchScript's constants, lists and tuples, "
                                f"got {kind}")


_LOGIC: dict[str, Callable[..., Any]] = {
    "aten::__is__": lambda a, b: a is b or (a is None and b is None),
    "aten::__isnot__": lambda a, b: not (a is b or (a is None and b is None)),
    "aten::__not__": lambda a: not a,
    "aten::__and__": lambda a, b: bool(a) and bool(b),
    "aten::__or__": lambda a, b: bool(a) or bool(b),
    "aten::eq": lambda a, b: a == b,
    "aten::ne": lambda a, b: a != b,
    "aten::lt": lambda a, b: a < b,
    "aten::le": lambda a, b: a <= b,
    "aten::gt": lambda a, b: a > b,
    "aten::ge": lambda a, b: a >= b,
}


def _constant_of(value: Any) -> Any:
    ivalue = value.toIValue()
    return plain(ivalue, "constant")


def _is_tensor_op(args: list[Any]) -> bool:
    from polyregions.networks.importers._builder import is_symbolic

    return bool(args) and is_symbolic(args[0])


def _number(value: Any, where: str) -> Any:
    import numpy as np

    if isinstance(value, np.ndarray):
        if value.size != 1:
            raise InvalidInputError(f"{where}: expected one number, got shape {list(value.shape)}")
        return value.reshape(-1)[0].item()
    return value
