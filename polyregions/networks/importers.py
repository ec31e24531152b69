"""Networks from other frameworks, as exact networks.

:func:`network_from_torch` reads an ``nn.Sequential`` (nested ones too) or a module wrapping one, built from
``Linear``, ``ReLU``, ``LeakyReLU``, ``Hardtanh`` (and its subclass ``ReLU6``), ``Identity``, ``Flatten``,
``Dropout`` and ``BatchNorm1d``, in eval mode. Consecutive affine maps (``Linear``, ``BatchNorm1d``) are composed
exactly, so a batch normalisation is folded into its neighbouring linear layers. Exactness: every tensor entry
is taken at its exact binary value; the one rounding is the batch-normalisation scale
``s = gamma / sqrt(running_var + eps)``, computed in binary64 (three correctly rounded operations: the sum, the
square root and the quotient) and then taken exactly; the folded map is exactly
``x -> s * (x - running_mean) + beta`` with that ``s``. A ``LeakyReLU`` slope is the exact value of the binary64
number torch stores. torch is imported only when a module is read.

Any other model (convolutions, pooling, ``PReLU``, ``Unflatten``, residual connections, TorchScript) is read as a
:class:`~polyregions.networks.graph.GraphNetwork` by :func:`polyregions.networks.torch_import.graph_from_torch`;
ONNX models by :mod:`polyregions.networks.onnx_import`, scikit-learn MLPs by
:mod:`polyregions.networks.sklearn_import`.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from polyregions.errors import InvalidInputError, MissingDependencyError
from polyregions.networks.activations import Activation, hardtanh, leaky_relu, linear, relu
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.io import _describe
from polyregions.networks.network import Layer, Network

__all__ = ["network_from_torch"]


def network_from_torch(module: Any, *, input_dim: int | None = None, input_shape: Any = None,
                       what: str | None = None) -> Network | GraphNetwork:
    """The exact network computed by a PyTorch module in eval mode.

    Parameters
    ----------
    module : torch.nn.Module
        An ``nn.Sequential`` (possibly nested), or a module whose only child is one, or a single supported
        layer. A module with several children that is not an ``nn.Sequential`` is read in the order its
        children were registered, and that reading is then checked against ``module(x)`` on a few random
        inputs (an error if they disagree, since ``forward`` may do something else).
    input_dim : int, optional
        Needed only when no ``Linear`` or ``BatchNorm1d`` tells it.
    input_shape : sequence of int, optional
        One input's shape without the batch axis, for a model read as a graph (needed before a convolution).
    what : str, optional
        The name used in error messages (default: the module's class name).

    Returns
    -------
    Network or GraphNetwork
        For a model of the layers listed above (applied in order): a :class:`Network`, one layer per activation
        module, each with the composed affine maps before it; a trailing affine map becomes a last layer with the
        identity activation. For any other model (convolutions, pooling, ``PReLU``, ``Unflatten``, residual
        connections, TorchScript, or a ``forward`` that is not the registration order): the
        :class:`~polyregions.networks.graph.GraphNetwork` of
        :func:`polyregions.networks.torch_import.graph_from_torch`, which says what it reads.

    Raises
    ------
    InvalidInputError
        When a layer is not supported, a parameter is not finite, a module is in training mode where that
        matters (``BatchNorm1d``, ``Dropout``), the shapes do not fit, or ``forward`` does not apply the
        children in the order they were registered.
    MissingDependencyError
        When torch is not installed (it is imported only here); it is an :class:`ImportError`.

    Notes
    -----
    See the module documentation for what is exact: every parameter is read at its exact binary value, and
    the only rounding is the binary64 batch-normalisation scale.

    Examples
    --------
    torch is optional, so the doctests skip the lines that need it; the module below is the network built from
    the same arrays:

    >>> import polyregions as pr
    >>> import torch  # doctest: +SKIP
    >>> lin = torch.nn.Linear(1, 1); lin.weight.data[:] = 0.5; lin.bias.data[:] = 1  # doctest: +SKIP
    >>> net = pr.network_from_torch(torch.nn.Sequential(lin, torch.nn.ReLU()))  # doctest: +SKIP
    >>> net == pr.network_from_arrays([[[0.5]]], [[1]], ["relu"]), net([2])  # doctest: +SKIP
    (True, (Fraction(2, 1),))
    """
    try:
        import torch
        from torch import nn
    except ImportError:
        raise MissingDependencyError("network_from_torch: reading a PyTorch module needs torch "
                                     "(pip install torch)") from None

    if what is not None and not isinstance(what, str):
        raise InvalidInputError(f"what: expected a string or None, got {type(what).__name__}")
    what = what or type(module).__name__
    if not isinstance(module, nn.Module):
        raise InvalidInputError(f"{what}: expected a torch.nn.Module, got {type(module).__name__}")
    if input_shape is not None or _needs_graph(module, torch, nn):
        from polyregions.networks.torch_import import graph_from_torch

        shape = input_shape if input_shape is not None else (input_dim,) if input_dim is not None else None
        return graph_from_torch(module, input_shape=shape, what=what)
    leaves, ordered_by_registration = [], False
    stack = [(what, module)]
    while stack:  # depth-first, children in order
        name, current = stack.pop()
        if isinstance(current, _supported_types(nn)):
            leaves.append((name, current))
            continue
        if isinstance(current, (nn.ModuleList, nn.ModuleDict)):
            # containers without forward(): torch itself cannot run them, so they fix no order of layers
            raise InvalidInputError(f"{name}: expected one of {', '.join(_SUPPORTED_NAMES)} or an nn.Sequential "
                                    f"of them, got a {type(current).__name__}, which has no forward() (torch cannot "
                                    f"apply it to an input); wrap the layers in nn.Sequential(*layers)")
        children = list(current.named_children())
        if not children:
            raise InvalidInputError(f"{name}: expected one of {', '.join(_SUPPORTED_NAMES)} (or a container of "
                                    f"them), got {type(current).__name__}")
        if len(children) > 1 and not isinstance(current, nn.Sequential):
            ordered_by_registration = True
        stack.extend((f"{name}.{child_name}", child) for child_name, child in reversed(children))

    ops = [_torch_op(name, leaf, nn) for name, leaf in leaves]
    ops = [op for op in ops if op is not None]
    first_affine = next((op for op in ops if op[0] == "affine"), None)
    n = first_affine[1].shape[1] if first_affine else None
    if input_dim is not None:
        if not isinstance(input_dim, int) or isinstance(input_dim, bool) or input_dim < 1:
            raise InvalidInputError(f"{what}: input_dim: expected a positive integer, got {_describe(input_dim)}")
        if first_affine is not None and n != input_dim:
            raise InvalidInputError(f"{what}: input_dim: expected {n} (the input width of {first_affine[2]}), "
                                    f"got {input_dim}")
        n = input_dim
    if n is None:
        raise InvalidInputError(f"{what}: expected a Linear or BatchNorm1d layer or the input_dim argument to "
                                f"fix the input dimension, got neither")
    if not ops:
        raise InvalidInputError(f"{what}: expected at least one Linear, BatchNorm1d or activation layer, got none")

    layers: list[Layer] = []
    pending = None  # the affine map since the last activation, as (A, c) in FLINT form
    width = n
    for op in ops:
        if op[0] == "affine":
            _, affine, name = op
            if affine.shape[1] != width:
                raise InvalidInputError(f"{name}: expected {width} input features (the width before it), "
                                        f"got {affine.shape[1]}")
            pending = _compose(pending, affine)
            width = affine.shape[0]
        else:
            layers.append(_layer(pending, width, op[1]))
            pending = None
    if pending is not None:
        layers.append(_layer(pending, width, linear()))
    network = Network(n, tuple(layers))
    if ordered_by_registration and not _agrees_with_torch(module, network, torch, what):
        from polyregions.networks.torch_import import graph_from_torch

        return graph_from_torch(module, input_shape=(n,), what=what)  # forward() is not the registration order
    return network


def _needs_graph(module, torch, nn) -> bool:
    """Whether the model has parts the dense reading above cannot hold (then it is read as a graph)."""
    if isinstance(module, torch.jit.ScriptModule):
        return True
    for sub in module.modules():
        if sub is not module and isinstance(sub, (nn.ModuleList, nn.ModuleDict)):
            return True  # only a custom forward() can use them: trace it
        if not list(sub.children()) and not isinstance(sub, _supported_types(nn)):
            return True
    return False


_SUPPORTED_NAMES = ("Linear", "ReLU", "LeakyReLU", "Hardtanh", "ReLU6", "Identity", "Flatten", "Dropout",
                    "Dropout1d", "AlphaDropout", "BatchNorm1d")


# type[Any]: the torch classes come through the untyped ``nn`` module, so isinstance narrows to Any, not object.
def _dropout_types(nn) -> tuple[type[Any], ...]:
    return (nn.Dropout, nn.Dropout1d, nn.AlphaDropout)


def _supported_types(nn) -> tuple[type[Any], ...]:
    return (nn.Linear, nn.ReLU, nn.LeakyReLU, nn.Hardtanh, nn.Identity, nn.Flatten, nn.BatchNorm1d) + \
        _dropout_types(nn)


class _FlintAffine:
    """An exact affine map ``x -> A x + c`` held as FLINT matrices (with a numpy-like ``shape``)."""

    def __init__(self, A, c):
        self.A, self.c = A, c
        self.shape = (A.nrows(), A.ncols())


def _fmpq_matrix(values: np.ndarray):
    from flint import fmpq, fmpq_mat

    rows, cols = values.shape
    entries = []
    for v in values.reshape(-1).tolist():
        f = Fraction(v)
        entries.append(fmpq(f.numerator, f.denominator))
    return fmpq_mat(rows, cols, entries)


def _finite_float64(tensor, name: str, field: str) -> np.ndarray:
    import torch

    if tensor.is_complex():
        raise InvalidInputError(f"{name}.{field}: expected real numbers, got dtype {tensor.dtype}")
    values = tensor.detach().cpu().to(dtype=torch.float64).numpy()  # exact for every real torch dtype
    if not np.all(np.isfinite(values)):
        index = tuple(int(i) for i in np.argwhere(~np.isfinite(values))[0])
        raise InvalidInputError(f"{name}.{field}{list(index)}: expected a finite number, got {values[index]}")
    return values


def _torch_op(name: str, leaf, nn):
    """``("affine", _FlintAffine, name)``, ``("act", Activation)`` or None for a layer that does nothing."""
    if isinstance(leaf, nn.Linear):
        W = _finite_float64(leaf.weight, name, "weight")
        b = _finite_float64(leaf.bias, name, "bias") if leaf.bias is not None else np.zeros(W.shape[0])
        return ("affine", _FlintAffine(_fmpq_matrix(W), _fmpq_matrix(b.reshape(-1, 1))), name)
    if isinstance(leaf, nn.BatchNorm1d):
        if leaf.training:
            raise InvalidInputError(f"{name}: expected eval mode (call module.eval() first): in training mode a "
                                    f"BatchNorm1d normalises with batch statistics, which is not a fixed function")
        if leaf.running_mean is None or leaf.running_var is None:
            raise InvalidInputError(f"{name}: expected running statistics (track_running_stats=True), got none: "
                                    f"without them BatchNorm1d normalises with batch statistics")
        mean = _finite_float64(leaf.running_mean, name, "running_mean")
        var = _finite_float64(leaf.running_var, name, "running_var")
        k = mean.shape[0]
        gamma = _finite_float64(leaf.weight, name, "weight") if leaf.affine else np.ones(k)
        beta = _finite_float64(leaf.bias, name, "bias") if leaf.affine else np.zeros(k)
        if np.any(var + leaf.eps <= 0):
            raise InvalidInputError(f"{name}.running_var: expected running_var + eps > 0, got "
                                    f"{(var + leaf.eps).min()}")
        # The only rounding: the scale, in binary64 (sum, square root and quotient each correctly rounded).
        scale = gamma / np.sqrt(var + np.float64(leaf.eps))
        from flint import fmpq, fmpq_mat

        A = fmpq_mat(k, k)
        c = fmpq_mat(k, 1)
        for i in range(k):
            s = Fraction(float(scale[i]))
            A[i, i] = fmpq(s.numerator, s.denominator)
            shift = Fraction(float(beta[i])) - s * Fraction(float(mean[i]))
            c[i, 0] = fmpq(shift.numerator, shift.denominator)
        return ("affine", _FlintAffine(A, c), name)
    if isinstance(leaf, _dropout_types(nn)):
        if leaf.training and leaf.p > 0:
            raise InvalidInputError(f"{name}: expected eval mode (call module.eval() first): in training mode "
                                    f"Dropout zeroes random units")
        return None
    if isinstance(leaf, nn.Identity):
        return None
    if isinstance(leaf, nn.Flatten):
        if leaf.start_dim != 1:
            raise InvalidInputError(f"{name}: expected Flatten(start_dim=1) (the identity on a batch of vectors), "
                                    f"got start_dim={leaf.start_dim}")
        return None
    if isinstance(leaf, nn.ReLU):
        return ("act", relu())
    if isinstance(leaf, nn.LeakyReLU):
        return ("act", leaky_relu(float(leaf.negative_slope), what=name))
    if isinstance(leaf, nn.Hardtanh):
        return ("act", hardtanh(min_val=float(leaf.min_val), max_val=float(leaf.max_val), what=name))
    raise InvalidInputError(f"{name}: expected one of {', '.join(_SUPPORTED_NAMES)}, got {type(leaf).__name__}")


def _compose(first: _FlintAffine | None, second: _FlintAffine) -> _FlintAffine:
    if first is None:
        return second
    return _FlintAffine(second.A * first.A, second.A * first.c + second.c)


def _layer(affine: _FlintAffine | None, width: int, activation: Activation) -> Layer:
    from flint import fmpq, fmpq_mat

    if affine is None:  # an activation straight after another one (or at the start): identity weights
        affine = _FlintAffine(fmpq_mat(width, width, [fmpq(int(i == j)) for i in range(width)
                                                      for j in range(width)]), fmpq_mat(width, 1))
    table = affine.A.table()
    weight = tuple(tuple(Fraction(int(v.p), int(v.q)) for v in row) for row in table)
    bias = tuple(Fraction(int(v.p), int(v.q)) for v in affine.c.entries())
    return Layer(weight, bias, activation)


def _float_forward(network: Network, x: np.ndarray) -> np.ndarray:
    value = x
    for (W, b), layer in zip(network.float_layers(), network.layers):
        z = value @ W.T + b
        act = layer.activation
        out = float(act.slopes[0]) * z + float(act.offset)
        for k, xi in enumerate(act.breakpoints):
            out = out + float(act.slopes[k + 1] - act.slopes[k]) * np.maximum(z - float(xi), 0.0)
        value = out
    return value


def _agrees_with_torch(module, network: Network, torch, what: str) -> bool:
    parameter = next(module.parameters(), None)
    dtype = parameter.dtype if parameter is not None and parameter.is_floating_point() else torch.float32
    generator = torch.Generator().manual_seed(0)
    x = torch.randn(8, network.input_dim, generator=generator, dtype=torch.float64)
    try:
        with torch.no_grad():
            expected = module(x.to(dtype)).to(torch.float64).reshape(8, -1).numpy()
    except Exception as error:  # forward() is the user's code: any failure means it is not the reading above
        raise InvalidInputError(f"{what}: expected forward() to run on a batch of inputs of width "
                                f"{network.input_dim}, got {type(error).__name__}: {str(error)[:200]}") from None
    got = _float_forward(network, x.numpy())
    tolerance = 1e-3 if dtype != torch.float64 else 1e-9
    return expected.shape == got.shape and bool(np.allclose(got, expected, rtol=tolerance,
                                                            atol=tolerance * (1 + np.abs(expected).max())))
