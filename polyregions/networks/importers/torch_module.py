"""PyTorch models as exact networks: the front of the three torch routes.

:func:`network_from_torch` takes any ``nn.Module``, a TorchScript module or a ``torch.export.ExportedProgram``.
An ``nn.Sequential`` (nested ones too) of the standard layers is read layer by layer, with no tracing; any other
module is captured by ``torch.export`` (custom classes, residual additions, reshapes, maxima over groups,
functional activations); TorchScript modules are read from their frozen graph. Every route goes through the one
operator table (:mod:`polyregions.networks.importers.operators`), and a model that is a chain of affine maps and
one activation per layer comes back as a layered :class:`~polyregions.networks.network.Network`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from polyregions.errors import InvalidInputError
from polyregions.exact.rationals import _describe
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.importers._builder import GraphBuilder, Unsupported
from polyregions.networks.importers._torch_values import tensor_array, torch_module
from polyregions.networks.importers.layering import layered
from polyregions.networks.importers.operators import call
from polyregions.networks.network import Network

__all__ = ["network_from_torch", "SEQUENTIAL_LAYERS"]


def _array(tensor: Any, what: str) -> Any:
    return None if tensor is None else tensor_array(tensor, what)


def _conv(m: Any, name: str) -> tuple[str, list[Any]]:
    if getattr(m, "padding_mode", "zeros") != "zeros":
        raise Unsupported(f"padding_mode: expected 'zeros', got {m.padding_mode!r}")
    return name, [_array(m.weight, "weight"), _array(m.bias, "bias"), m.stride, m.padding, m.dilation, m.groups]


def _max_pool(m: Any, name: str) -> tuple[str, list[Any]]:
    if m.return_indices:
        raise Unsupported("return_indices: expected False, got True")
    return name, [m.kernel_size, m.stride, m.padding, m.dilation, m.ceil_mode]


def _batch_norm(m: Any) -> tuple[str, list[Any]]:
    return "batch_norm", [_array(m.weight, "weight"), _array(m.bias, "bias"), _array(m.running_mean, "running_mean"),
                          _array(m.running_var, "running_var"), m.training, m.momentum,
                          m.eps]


#: Layer class -> the table's call on the layer's input: (operator, the arguments after the input).
SEQUENTIAL_LAYERS: dict[str, Callable[[Any], tuple[str, list[Any]]]] = {
    "Linear": lambda m: ("linear", [_array(m.weight, "weight"), _array(m.bias, "bias")]),
    "Conv1d": lambda m: _conv(m, "conv1d"),
    "Conv2d": lambda m: _conv(m, "conv2d"),
    "MaxPool1d": lambda m: _max_pool(m, "max_pool1d"),
    "MaxPool2d": lambda m: _max_pool(m, "max_pool2d"),
    "AvgPool1d": lambda m: ("avg_pool1d", [m.kernel_size, m.stride, m.padding, m.ceil_mode, m.count_include_pad]),
    "AvgPool2d": lambda m: ("avg_pool2d", [m.kernel_size, m.stride, m.padding, m.ceil_mode, m.count_include_pad,
                                           m.divisor_override]),
    "AdaptiveAvgPool1d": lambda m: ("adaptive_avg_pool1d", [m.output_size]),
    "AdaptiveAvgPool2d": lambda m: ("adaptive_avg_pool2d", [m.output_size]),
    "BatchNorm1d": _batch_norm,
    "BatchNorm2d": _batch_norm,
    "ReLU": lambda m: ("relu", []),
    "LeakyReLU": lambda m: ("leaky_relu", [m.negative_slope]),
    "Hardtanh": lambda m: ("hardtanh", [m.min_val, m.max_val]),
    "ReLU6": lambda m: ("hardtanh", [m.min_val, m.max_val]),
    "PReLU": lambda m: ("prelu", [_array(m.weight, "weight")]),
    "Flatten": lambda m: ("flatten", [m.start_dim, m.end_dim]),
    "Unflatten": lambda m: ("unflatten", [m.dim, list(m.unflattened_size)]),
    "Identity": lambda m: ("clone", []),
    "Dropout": lambda m: ("dropout", [m.p, m.training]),
    "Dropout1d": lambda m: ("dropout", [m.p, m.training]),
    "Dropout2d": lambda m: ("dropout", [m.p, m.training]),
    "AlphaDropout": lambda m: ("dropout", [m.p, m.training]),
}


def network_from_torch(module: Any, example_input: Any = None, *, input_shape: Sequence[int] | None = None,
                       input_dim: int | None = None, what: str | None = None) -> Network | GraphNetwork:
    """The exact network a PyTorch model computes.

    Parameters
    ----------
    module : torch.nn.Module, torch.jit.ScriptModule or torch.export.ExportedProgram
        The model, in eval mode (batch normalisation and dropout in training mode are refused).
    example_input : torch.Tensor, optional
        A batch of inputs, shape ``[batch, sizes...]``, for ``torch.export`` to capture ``forward`` with (its
        values do not matter). Without it, one is made from ``input_shape`` or ``input_dim``, or from the first
        layer when that is a ``Linear``.
    input_shape : sequence of int, optional, keyword-only
        One input's shape without the batch axis: ``(C, L)`` before a ``Conv1d``, ``(C, H, W)`` before a
        ``Conv2d``.
    input_dim : int, optional, keyword-only
        Shorthand for ``input_shape=(input_dim,)``.
    what : str, optional, keyword-only
        The name used in error messages (default: the module's class name).

    Returns
    -------
    Network or GraphNetwork
        A :class:`Network` when the model is a chain of affine maps (linear layers, batch normalisation,
        constant shifts and scalings) with one activation per layer; otherwise a :class:`GraphNetwork` of exact
        operations. Every parameter is taken at its exact binary value; the one rounding is a batch
        normalisation's scale, computed in binary64.

    Raises
    ------
    InvalidInputError
        When an operator or layer is not supported (the message names it and what is), ``torch.export`` cannot
        capture ``forward``, a module is in training mode where that matters, or the shapes do not fit.
    MissingDependencyError
        When torch is not installed (it is imported only here).

    Examples
    --------
    torch is optional, so the doctests skip the lines that need it:

    >>> import polyregions as pr
    >>> import torch  # doctest: +SKIP
    >>> lin = torch.nn.Linear(1, 1); lin.weight.data[:] = 0.5; lin.bias.data[:] = 1  # doctest: +SKIP
    >>> net = pr.network_from_torch(torch.nn.Sequential(lin, torch.nn.ReLU()))  # doctest: +SKIP
    >>> net == pr.network_from_arrays([[[0.5]]], [[1]], ["relu"]), net([2])  # doctest: +SKIP
    (True, (Fraction(2, 1),))
    """
    torch = torch_module("network_from_torch")
    if what is not None and not isinstance(what, str):
        raise InvalidInputError(f"what: expected a string or None, got {type(what).__name__}")
    what = what or getattr(module, "original_name", None) or type(module).__name__
    shape = _input_shape(input_shape, input_dim, what)
    if isinstance(module, torch.export.ExportedProgram):
        from polyregions.networks.importers.torch_export import network_from_exported

        return layered(network_from_exported(module, what=what))
    if isinstance(module, torch.jit.ScriptModule):
        from polyregions.networks.importers.torchscript import network_from_torchscript

        return layered(network_from_torchscript(module, input_shape=shape, what=what))
    if not isinstance(module, torch.nn.Module):
        raise InvalidInputError(f"{what}: expected a torch.nn.Module, a TorchScript module or an ExportedProgram, "
                                f"got {type(module).__name__}")
    if isinstance(module, (torch.nn.ModuleList, torch.nn.ModuleDict)):
        raise InvalidInputError(f"{what}: expected a module with a forward(), got a {type(module).__name__}, which "
                                f"torch cannot apply to an input; wrap the layers in nn.Sequential(*layers)")
    layers = _sequential_layers(module, what)
    if example_input is not None:
        if not isinstance(example_input, torch.Tensor):
            raise InvalidInputError(f"{what}: example_input: expected a torch.Tensor batch of inputs, got "
                                    f"{type(example_input).__name__}")
        batch_shape = tuple(example_input.shape)
        if len(batch_shape) < 2:
            raise InvalidInputError(f"{what}: example_input: expected a batch of inputs, shape [batch, sizes...], "
                                    f"got shape {list(batch_shape)} (add a batch axis: x.unsqueeze(0))")
        if shape is not None and batch_shape[1:] != shape:
            raise InvalidInputError(f"{what}: input_shape: expected {list(batch_shape[1:])} (the example input's), "
                                    f"got {list(shape)}")
        shape = batch_shape[1:]
    if shape is None:
        shape = _first_layer_shape(module, what)
    if layers is not None:
        return layered(_read_sequential(layers, shape, what))
    from polyregions.networks.importers.torch_export import export_module, network_from_exported

    example = example_input if example_input is not None else \
        torch.zeros((2,) + shape, dtype=_parameter_dtype(module, torch))
    return layered(network_from_exported(export_module(module, example, what), what=what))


def _input_shape(input_shape: Any, input_dim: Any, what: str) -> tuple[int, ...] | None:
    if input_dim is not None:
        if not isinstance(input_dim, int) or isinstance(input_dim, bool) or input_dim < 1:
            raise InvalidInputError(f"{what}: input_dim: expected a positive integer, got {_describe(input_dim)}")
        if input_shape is not None and tuple(input_shape) != (input_dim,):
            raise InvalidInputError(f"{what}: input_dim: expected input_dim or input_shape, got both")
        return (input_dim,)
    if input_shape is None:
        return None
    if isinstance(input_shape, (int, str, bytes)) or not hasattr(input_shape, "__iter__"):
        raise InvalidInputError(f"{what}: input_shape: expected a list of positive integers, got "
                                f"{_describe(input_shape)}")
    shape = tuple(input_shape)
    if not shape or any(isinstance(v, bool) or not isinstance(v, int) or v < 1 for v in shape):
        raise InvalidInputError(f"{what}: input_shape: expected a list of positive integers, got "
                                f"{_describe(list(shape))}")
    return shape


def _sequential_layers(module: Any, what: str) -> list[tuple[str, Any]] | None:
    """The layers of a (nested) ``nn.Sequential`` of :data:`SEQUENTIAL_LAYERS`, in order, or None."""
    leaves: list[tuple[str, Any]] = []
    stack = [(what, module)]
    while stack:
        name, current = stack.pop()
        kind = type(current).__name__
        if kind in SEQUENTIAL_LAYERS and type(current).__module__.startswith("torch.nn"):
            leaves.append((name, current))
        elif kind == "Sequential" and type(current).__module__.startswith("torch.nn"):
            stack.extend((f"{name}.{child}", m) for child, m in reversed(list(current.named_children())))
        else:
            return None
    return leaves


_SHAPELESS = {"Flatten", "Identity", "ReLU", "LeakyReLU", "Hardtanh", "ReLU6", "Dropout", "Dropout1d", "AlphaDropout"}


def _first_layer_shape(module: Any, what: str) -> tuple[int, ...]:
    """The input shape a first ``Linear`` or ``BatchNorm1d`` fixes (after layers that keep any vector)."""
    name = "none"
    for layer in (m for m in module.modules() if not list(m.children())):
        name = type(layer).__name__
        if name == "Linear":
            return (int(layer.in_features),)
        if name == "BatchNorm1d":
            return (int(layer.num_features),)
        if name not in _SHAPELESS:
            break
    raise InvalidInputError(f"{what}: input_shape: expected the shape of one input without the batch axis (such as "
                            f"(1, 8, 8) before a Conv2d) or an example input, got neither; only a first Linear or "
                            f"BatchNorm1d layer fixes it, and the first layer is {name}")


def _parameter_dtype(module: Any, torch: Any) -> Any:
    parameter = next(iter(module.parameters()), None)
    return parameter.dtype if parameter is not None and parameter.dtype.is_floating_point else torch.float32


def _read_sequential(layers: list[tuple[str, Any]], shape: tuple[int, ...], what: str) -> GraphNetwork:
    builder = GraphBuilder((1,) + shape, what)
    x: Any = builder.input
    for name, layer in layers:
        builder.context = f"{name} ({type(layer).__name__})"
        try:
            operator, args = SEQUENTIAL_LAYERS[type(layer).__name__](layer)
            x = call(builder, operator, [x] + args)
        except Unsupported as error:
            raise InvalidInputError(f"{builder.context}: {error}") from None
    return builder.network(x)
