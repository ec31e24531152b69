"""torch values as the operator table's constants: tensors as numpy arrays at their exact values."""

from __future__ import annotations

from typing import Any

import numpy as np

from polyregions.errors import MissingDependencyError
from polyregions.networks.importers._builder import Unsupported

__all__ = ["torch_module", "tensor_array", "plain"]


def torch_module(what: str) -> Any:
    """torch, imported only when a model is read."""
    try:
        import torch
    except ImportError:
        raise MissingDependencyError(f"{what}: reading a PyTorch model needs torch (pip install torch)") from None
    return torch


def tensor_array(tensor: Any, what: str) -> np.ndarray:
    """A tensor's entries: float64 for floating dtypes (exact: every float16, bfloat16 and float32 is a double),
    int64 for integers and booleans."""
    import torch

    if tensor.is_complex():
        raise Unsupported(f"{what}: expected real numbers, got dtype {tensor.dtype}")
    tensor = tensor.detach().cpu()
    if tensor.dtype.is_floating_point:
        values = tensor.to(dtype=torch.float64).numpy()
        if not np.all(np.isfinite(values)):
            raise Unsupported(f"{what}: expected finite numbers, got NaN or infinity")
        return values
    return tensor.to(dtype=torch.int64).numpy()


def plain(value: Any, what: str) -> Any:
    """An argument of a traced call with tensors read as arrays, torch sizes and dtypes as Python values."""
    import torch

    if isinstance(value, torch.Tensor):
        return tensor_array(value, what)
    if isinstance(value, (list, tuple)) and not hasattr(value, "_fields"):
        return type(value)(plain(v, what) for v in value) if isinstance(value, tuple) else [plain(v, what)
                                                                                            for v in value]
    if isinstance(value, (torch.dtype, torch.device, torch.layout, torch.memory_format)):
        return None
    return value
