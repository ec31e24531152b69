"""ONNX models as exact graph networks: a thin reader over the operator table.

:func:`graph_from_onnx` walks the nodes of an ONNX graph in order and hands each one, through a small
translator (attributes and optional inputs read the ONNX way, as attributes in older opsets and inputs in newer
ones), to the entries of :mod:`polyregions.networks.importers.operators`, the table the PyTorch readers use.
Values are the table's: a tensor computed from the input, or a constant (an initializer, a ``Constant`` node, or
any node whose inputs are all constants, evaluated on the way). So the shape computations of either of torch's
exporters (``Shape``, ``Gather``, ``Slice``, ``Concat``, ``Mod``, ``Div``... before a ``Reshape``) fold to
constant shapes.

* On tensors computed from the input: Gemm, MatMul (by a constant matrix), Conv (1-D and 2-D; ``pads``,
  ``auto_pad``, strides, dilations, groups), MaxPool (symmetric padding), AveragePool (any padding, either
  ``count_include_pad``), GlobalAveragePool, GlobalMaxPool, BatchNormalization (inference), Relu, LeakyRelu,
  PRelu, Clip, HardSigmoid, Max and Min (variadic), ReduceMax, ReduceMin, ReduceMean and ReduceSum (over the
  spatial axes), Add, Sub, Mul, Div (by constants; Add and Sub of two tensors), Neg, Sum, Concat, Flatten,
  Reshape, Transpose, Squeeze, Unsqueeze, Pad (constant mode), Slice (positive steps), Gather and Split (at
  constant indices), Identity, Dropout (inference), Cast (to a float type) and Expand (to the tensor's own shape).
* On constants only (folded): Constant, Shape, Size, ConstantOfShape, Range, Equal, Less, Greater,
  LessOrEqual, GreaterOrEqual, And, Or, Xor, Not, Where, Floor, Ceil, Abs, Mod, Cast and CastLike, and every
  operator above.

Every float is taken at its exact binary value (attributes are binary32, initializers their own dtype); folded
arithmetic is exact (integers as integers, integer ``Div`` truncating as ONNX does, other numbers as fractions,
``Cast`` to a float type keeping the exact value). The one rounding is a batch normalisation's scale
``scale / sqrt(var + epsilon)``, computed in binary64. The first axis of the graph's input is the batch axis
(a symbolic batch size is read as 1).
"""

from __future__ import annotations

import math
import os
from fractions import Fraction
from typing import Any, Callable, Sequence

import numpy as np

from polyregions.errors import InvalidInputError, MissingDependencyError
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.importers._builder import (
    GraphBuilder,
    Indices,
    Symbolic,
    Unsupported,
    constant_array,
    exact_array,
    is_symbolic,
)
from polyregions.networks.importers.onnx import constants, layers, shapes  # noqa: F401 (translators)
from polyregions.networks.importers.onnx._graph import read_graph
from polyregions.networks.importers.onnx._nodes import TRANSLATORS
from polyregions.networks.importers.operators import call, extremum_of_tensors

__all__ = ["graph_from_onnx", "load_onnx", "SUPPORTED_OPERATORS"]

#: The ONNX operators :func:`graph_from_onnx` reads.
SUPPORTED_OPERATORS: tuple[str, ...] = tuple(sorted(TRANSLATORS))


def _onnx() -> Any:
    try:
        import onnx
    except ImportError:
        raise MissingDependencyError("reading an ONNX model needs the onnx package (pip install onnx)") from None
    return onnx


def load_onnx(path: str | os.PathLike) -> GraphNetwork:
    """Read an ``.onnx`` file as a :class:`~polyregions.networks.graph.GraphNetwork` (see
    :func:`graph_from_onnx`); errors start with the file's name."""
    from polyregions._support.input_files import input_name

    onnx = _onnx()
    name = input_name(path, what="load_onnx: path")
    try:
        model = onnx.load(name)
    except FileNotFoundError:
        raise InvalidInputError(f"{name}: expected an ONNX file, got no such file") from None
    except Exception as error:  # protobuf's decode errors have no common base class
        raise InvalidInputError(f"{name}: expected an ONNX model, got an unreadable file "
                                f"({type(error).__name__}: {str(error)[:200]})") from None
    return graph_from_onnx(model, what=name)


def graph_from_onnx(model: Any, *, what: str = "onnx model") -> GraphNetwork:
    """The exact graph network of an ONNX model (an ``onnx.ModelProto``).

    Parameters
    ----------
    model : onnx.ModelProto
        A model with one input of shape ``[batch, ...]`` (the batch size may be symbolic; other sizes are
        fixed) and one output, built from :data:`SUPPORTED_OPERATORS` with constant weights, as either of
        ``torch.onnx.export``'s exporters writes it (``dynamo=True``, the default, or ``dynamo=False``).
    what : str, keyword-only
        The name that starts every error message (the file name, when read from a file).

    Returns
    -------
    GraphNetwork

    Raises
    ------
    InvalidInputError
        When an operator is not supported or not piecewise linear, an attribute or input has no exact reading
        (training mode, a shape computed from the input, a product of two tensors computed from the input, a
        partial pooling window with ``ceil_mode``...) or the shapes do not fit: one line naming the node, the
        operator and what is supported.
    MissingDependencyError
        When the onnx package is not installed.

    Examples
    --------
    >>> from onnx import TensorProto, helper, numpy_helper  # doctest: +SKIP
    >>> import numpy as np  # doctest: +SKIP
    >>> W = numpy_helper.from_array(np.array([[1.0, -1.0]], dtype=np.float32), "W")  # doctest: +SKIP
    >>> x = helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 2])  # doctest: +SKIP
    >>> z = helper.make_tensor_value_info("z", TensorProto.FLOAT, ["N", 1])  # doctest: +SKIP
    >>> graph = helper.make_graph([helper.make_node("Gemm", ["x", "W"], ["y"], transB=1),
    ...                            helper.make_node("Relu", ["y"], ["z"])], "g", [x], [z], [W])  # doctest: +SKIP
    >>> graph_from_onnx(helper.make_model(graph))([3, 1])  # doctest: +SKIP
    (Fraction(2, 1),)
    """
    onnx = _onnx()
    if not isinstance(model, onnx.ModelProto):
        raise InvalidInputError(f"{what}: expected an onnx.ModelProto, got {type(model).__name__}")
    if len(model.functions):  # model-local functions (an exporter's decompositions): inlined first
        try:
            import onnx.inliner
        except ImportError:
            raise InvalidInputError(f"{what}: functions: expected a model without local functions, or onnx>=1.16 "
                                    f"to inline them, got {len(model.functions)} with onnx {onnx.__version__}"
                                    ) from None
        model = onnx.inliner.inline_local_functions(model)
    return read_graph(model, what, onnx)
