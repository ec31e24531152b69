"""PyTorch models through ``torch.export``: the ATen graph of any ``forward`` that ``torch.export`` captures.

:func:`network_from_exported` reads an ``ExportedProgram`` (from ``torch.export.export`` or a ``.pt2`` file saved
with ``torch.export.save``), node by node, through the operator table of
:mod:`polyregions.networks.importers.operators`. Custom ``nn.Module`` classes, residual additions, reshapes,
maxima over groups and functional activations are all plain ATen calls there, so nothing of the model's Python
code is needed, and a ``.pt2`` file is read as data.
"""

from __future__ import annotations

import operator
from typing import Any

from polyregions.errors import InvalidInputError
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.importers._builder import GraphBuilder, Unsupported
from polyregions.networks.importers._torch_values import plain, tensor_array, torch_module
from polyregions.networks.importers.operators import call

__all__ = ["network_from_exported", "export_module"]

# Checks torch.export leaves in the graph; they compute nothing.
_CHECKS = {"_assert_tensor_metadata", "_assert_scalar", "_assert_async", "sym_constrain_range",
           "sym_constrain_range_for_size", "_functional_assert_async", "_functional_sym_constrain_range"}


def export_module(module: Any, example: Any, what: str) -> Any:
    """``torch.export.export(module, (example,))``, its failures as one clear error."""
    torch = torch_module(what)
    try:
        return torch.export.export(module, (example,))
    except Exception as error:  # forward() is the user's code; any failure means it cannot be captured
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise InvalidInputError(f"{what}: expected a forward() that torch.export can capture, got "
                                f"{type(error).__name__}: {first[:300]}") from None


def network_from_exported(program: Any, *, what: str = "exported program") -> GraphNetwork:
    """The exact graph network of a ``torch.export.ExportedProgram`` with one tensor input (batch axis first)
    and one tensor output.

    Raises
    ------
    InvalidInputError
        When an operator is not in the table (the message names the node and the operator), an argument has no
        exact reading, or the program has other than one input and one output.
    """
    torch = torch_module(what)
    from torch.export.graph_signature import InputKind

    if not isinstance(program, torch.export.ExportedProgram):
        raise InvalidInputError(f"{what}: expected a torch.export.ExportedProgram, got {type(program).__name__}")
    lifted: dict[str, Any] = {}
    user_inputs = []
    for spec in program.graph_signature.input_specs:
        name = str(getattr(spec.arg, "name", ""))
        if spec.kind == InputKind.USER_INPUT:
            user_inputs.append(name)
        elif spec.target in program.state_dict:
            lifted[name] = program.state_dict[spec.target]
        elif spec.target in program.constants:
            lifted[name] = program.constants[spec.target]
        else:
            raise InvalidInputError(f"{what}: input '{name}': expected a parameter, buffer or constant tensor, got "
                                    f"a {spec.kind.name.lower()} polyregions cannot read")
    if len(user_inputs) != 1:
        raise InvalidInputError(f"{what}: inputs: expected one input tensor, got {len(user_inputs)}")
    nodes = list(program.graph.nodes)
    placeholder = next(n for n in nodes if n.op == "placeholder" and n.name == user_inputs[0])
    example = placeholder.meta.get("val")
    try:
        shape = tuple(int(v) for v in example.shape)
    except (AttributeError, TypeError):
        raise InvalidInputError(f"{what}: input '{placeholder.name}': expected a tensor of fixed shape, got "
                                f"{example!r}") from None
    builder = GraphBuilder(shape, what)
    values: dict[Any, Any] = {}
    output: Any = None
    for node in nodes:
        if node.op == "placeholder":
            values[node] = builder.input if node.name == user_inputs[0] else \
                tensor_array(lifted[node.name], f"{what}: {node.name}")
        elif node.op == "call_function":
            name = _aten_name(node.target, node.name, what)
            if name in _CHECKS:
                values[node] = None
                continue
            args = torch.fx.node.map_arg(node.args, values.__getitem__)
            kwargs = torch.fx.node.map_arg(node.kwargs, values.__getitem__)
            builder.context = f"{what}: node '{node.name}' ({name})"
            try:
                values[node] = call(builder, name, plain(args, name), plain(kwargs, name))
            except Unsupported as error:
                raise InvalidInputError(f"{builder.context}: {error}") from None
        elif node.op == "output":
            output = torch.fx.node.map_arg(node.args[0], values.__getitem__)
        else:
            raise InvalidInputError(f"{what}: node '{node.name}': expected calls of ATen operators, got a "
                                    f"{node.op} node ({node.target})")
    if isinstance(output, (list, tuple)):
        if len(output) != 1:
            raise InvalidInputError(f"{what}: output: expected one output tensor, got {len(output)}")
        output = output[0]
    return builder.network(output)


def _aten_name(target: Any, node: str, what: str) -> str:
    """The table's name of a call's target: the ATen operator's name without namespace and overload."""
    if target is operator.getitem:
        return "getitem"
    schema = getattr(target, "_schema", None)
    if schema is None:
        raise InvalidInputError(f"{what}: node '{node}': expected an ATen operator, got {target!r}")
    namespace, _, name = schema.name.partition("::")
    if namespace != "aten":
        raise InvalidInputError(f"{what}: node '{node}': expected an ATen operator, got {schema.name}")
    return name
