"""The walk over an ONNX graph: initializers and the input as values, then each node through its translator."""

from __future__ import annotations

from typing import Any

from polyregions.errors import InvalidInputError
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.importers._builder import (
    GraphBuilder,
    Indices,
    Unsupported,
    is_symbolic,
)
from polyregions.networks.importers.onnx._nodes import (
    NOT_PIECEWISE_LINEAR,
    TRANSLATORS,
    Node,
    Unusable,
    from_proto,
)

# --- the graph ------------------------------------------------------------------------------------------------

def read_graph(model: Any, what: str, onnx: Any) -> GraphNetwork:
    """The graph network of ``model``, every node read through its translator."""
    graph = model.graph
    values: dict[str, Any] = {}
    for tensor in graph.initializer:
        if tensor.name in values:
            raise InvalidInputError(f"{what}: initializer '{tensor.name}': expected a name of its own, got the name "
                                    f"of an earlier initializer")
        try:
            values[tensor.name] = from_proto(tensor, onnx)
        except Unsupported as error:  # dims that do not fit the data, or declare too much
            raise InvalidInputError(f"{what}: initializer '{tensor.name}': {error}") from None
        except Exception as error:  # external data not loaded, unknown types: onnx's own errors
            raise InvalidInputError(f"{what}: initializer '{tensor.name}': expected a tensor onnx can read, got "
                                    f"{type(error).__name__}: {str(error)[:200]}") from None
    inputs = [i for i in graph.input if i.name not in values]
    if len(inputs) != 1:
        raise InvalidInputError(f"{what}: graph.input: expected one input tensor, got {len(inputs)}")
    builder = GraphBuilder(_input_shape(inputs[0], what), what)
    values[inputs[0].name] = builder.input
    for node in graph.node:
        _read_node(node, values, builder, what, onnx)
    if len(graph.output) != 1:
        raise InvalidInputError(f"{what}: graph.output: expected one output, got {len(graph.output)}")
    name = graph.output[0].name
    output = values.get(name)
    if not is_symbolic(output):
        raise InvalidInputError(f"{what}: graph.output '{name}': expected a tensor computed from the input, got "
                                f"{'a constant' if name in values else 'no value'}")
    return builder.network(output)


def _input_shape(value_info: Any, what: str) -> tuple[int, ...]:
    dims = value_info.type.tensor_type.shape.dim
    sizes = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    described = [d.dim_param or (d.dim_value if d.HasField("dim_value") else "?") for d in dims]
    if len(sizes) < 2 or any(v is None or v < 1 for v in sizes[1:]):
        raise InvalidInputError(f"{what}: graph.input '{value_info.name}': expected a shape [batch, sizes...] with "
                                f"fixed positive sizes, got {described}")
    batch = sizes[0] if sizes[0] else 1  # a symbolic batch size: one input at a time
    return (batch,) + tuple(int(v or 0) for v in sizes[1:])


def _attributes(node: Any, onnx: Any) -> dict[str, Any]:
    attrs = {}
    for a in node.attribute:
        if a.type in (onnx.AttributeProto.GRAPH, onnx.AttributeProto.GRAPHS):
            raise Unsupported(f"attribute {a.name}: expected no subgraph (one graph for every input), got one")
        value = onnx.helper.get_attribute_value(a)
        attrs[a.name] = value.decode() if isinstance(value, bytes) else value
    return attrs


def _read_node(node: Any, values: dict[str, Any], builder: GraphBuilder, what: str, onnx: Any) -> None:
    label = node.name or (node.output[0] if node.output else node.op_type)
    where = f"{what}: node '{label}' ({node.op_type})"
    try:
        if node.domain not in ("", "ai.onnx"):
            raise Unsupported(f"expected an operator of the default ONNX domain, got domain {node.domain!r}")
        translator = TRANSLATORS.get(node.op_type)
        if translator is None:
            listed = ", ".join(sorted(TRANSLATORS))
            note = " (not piecewise linear)" if node.op_type in NOT_PIECEWISE_LINEAR else ""
            raise Unsupported(f"expected one of the operators {listed}, got {node.op_type}{note}")
        named = [name for name in node.output if name]
        if not named:
            raise Unsupported("output: expected at least one named output, got none")
        for i, name in enumerate(named):
            if name in values or name in named[:i]:
                held = "another of its outputs" if name in named[:i] else \
                    "an earlier value (the graph's input, an initializer or an output)"
                raise Unsupported(f"output '{name}': expected a name of its own (each value is assigned once), "
                                  f"got the name of {held}")
        inputs = [_input(values, name) if name else None for name in node.input]
        result = translator(Node(node, inputs, _attributes(node, onnx), builder, onnx))
    except Unsupported as error:
        raise InvalidInputError(f"{where}: {error}") from None
    except InvalidInputError as error:  # an operation's own check, already prefixed with the model's name
        message = str(error)
        message = message[len(what) + 2:] if message.startswith(f"{what}: ") else message
        raise InvalidInputError(f"{where}: {message}") from None
    except (ValueError, IndexError, TypeError, ZeroDivisionError) as error:  # numpy while folding constants
        raise InvalidInputError(f"{where}: expected inputs this operator accepts, got "
                                f"{type(error).__name__}: {str(error)[:200]}") from None
    results = result if isinstance(result, tuple) else (result,)
    for i, name in enumerate(node.output):
        if not name:
            continue
        value = results[i] if i < len(results) else Unusable(f"output {i} of {node.op_type}, which has no "
                                                              f"exact reading")
        values[name] = Unusable("the indices of a maximum (not piecewise linear)") if isinstance(value, Indices) \
            else value


def _input(values: dict[str, Any], name: str) -> Any:
    if name not in values:
        raise Unsupported(f"input '{name}': expected the graph's input, an initializer or an earlier node's output, "
                          f"got an unknown name")
    value = values[name]
    if isinstance(value, Unusable):
        raise Unsupported(f"input '{name}': expected a tensor or a constant, got {value.reason}")
    return value
