"""PyTorch model files: ``.pt2`` (``torch.export.save``), TorchScript archives, and pickles only on request.

A file is data: :func:`load_torch_file` reads a ``.pt2`` program with ``torch.export.load`` and a TorchScript
archive with ``torch.jit.load``; neither runs Python code from the file. A module saved with
``torch.save(model)`` is a pickle, which runs whatever code it names while it loads; it is refused unless the
caller passes ``trust_pickle=True`` (``--trust-pickle`` on the command line). Anything else is first read with
``torch.load(..., weights_only=True)``, which cannot run code, so that a state dict is recognised and named.
"""

from __future__ import annotations

import os
import pickle
import warnings
import zipfile
from typing import Any, Sequence

from polyregions.errors import InvalidInputError
from polyregions.networks.graph import GraphNetwork
from polyregions.networks.importers._torch_values import torch_module
from polyregions.networks.network import Network

__all__ = ["load_torch_file", "SAFE_FORMATS"]

#: What to save a model as so that it loads without running code.
SAFE_FORMATS = ("a .pt2 file (torch.export.save(torch.export.export(model, (x,)), path)), a TorchScript file "
                "(torch.jit.trace(model, x).save(path)) or ONNX (torch.onnx.export(model, (x,), path))")


def _archive_kind(name: str) -> str:
    """``"export"`` (a .pt2 program), ``"script"`` (TorchScript) or ``"pickle"`` (anything else)."""
    try:
        with zipfile.ZipFile(name) as archive:
            parts = [n.split("/", 2)[1:2] for n in archive.namelist()]
    except (OSError, zipfile.BadZipFile):
        return "pickle"
    if ["archive_format"] in parts or ["models"] in parts:
        return "export"
    if ["code"] in parts:
        return "script"
    return "pickle"


def load_torch_file(path: str | os.PathLike, *, trust_pickle: bool = False,
                    input_shape: Sequence[int] | None = None) -> Network | GraphNetwork:
    """The exact network of a PyTorch file.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.pt2`` file saved with ``torch.export.save``, a TorchScript archive (``torch.jit.save``, from
        ``torch.jit.trace`` or ``torch.jit.script``), or, with ``trust_pickle``, a module saved with
        ``torch.save(model)``.
    trust_pickle : bool, keyword-only
        Load a pickled module, which **runs the code the file names**: only for files from a trusted source.
        Its class must be importable (the module that defines it on ``sys.path``).
    input_shape : sequence of int, optional, keyword-only
        One input's shape without the batch axis, for a model whose file does not record it.

    Returns
    -------
    Network or GraphNetwork
        As :func:`~polyregions.networks.importers.network_from_torch` reads the model. A TorchScript module whose
        graph does not record its input's shape and does not start with a linear layer takes it from an
        ``input_shape`` attribute (``model.input_shape = (1, 8, 8)`` before scripting).

    Raises
    ------
    InvalidInputError
        Naming the file: an unreadable file, a state dict (parameters without the model), a pickled module
        without ``trust_pickle``, or a model the importers refuse.
    """
    from polyregions._support.input_files import input_name

    name = input_name(path, what="load_network: path")
    torch = torch_module(name)
    from polyregions.networks.importers.torch_module import network_from_torch

    kind = _archive_kind(name)
    try:
        with warnings.catch_warnings():  # torch's notes on a file's format are not the user's to read
            warnings.simplefilter("ignore")
            model = _loaded(name, kind, trust_pickle, torch)
    except FileNotFoundError:
        raise InvalidInputError(f"{name}: expected a PyTorch file, got no such file") from None
    except InvalidInputError:
        raise
    except Exception as error:  # torch's loaders raise many unrelated types on a bad file
        first = (str(error).strip().splitlines() or [type(error).__name__])[0]
        raise InvalidInputError(f"{name}: expected a PyTorch model file, got an unreadable file "
                                f"({type(error).__name__}: {first[:200]})") from None
    shape = input_shape if input_shape is not None else getattr(model, "input_shape", None) \
        if kind == "script" else None
    return network_from_torch(model, input_shape=tuple(shape) if shape is not None else None,
                              what=f"{name}: model")


def _loaded(name: str, kind: str, trust_pickle: bool, torch: Any) -> Any:
    """The object in the file, by the loader of its kind."""
    if kind == "export":
        return torch.export.load(name)
    if kind == "script":
        return torch.jit.load(name, map_location="cpu")
    return _unpickled(name, trust_pickle, torch)


def _unpickled(name: str, trust_pickle: bool, torch: Any) -> Any:
    """The object of a pickled file: read with ``weights_only=True`` (which runs no code) unless trusted."""
    if trust_pickle:
        try:
            module = torch.load(name, map_location="cpu", weights_only=False)
        except AttributeError as error:
            if "Can't get attribute" not in str(error):
                raise
            raise InvalidInputError(f"{name}: expected a pickled module whose class can be imported, got "
                                    f"{str(error).splitlines()[0][:200]}: put the folder of the module that defines "
                                    f"the class on PYTHONPATH, or save the model as {SAFE_FORMATS}") from None
        if not isinstance(module, torch.nn.Module):
            raise InvalidInputError(f"{name}: expected a pickled torch.nn.Module, got {type(module).__name__}")
        return module.eval()
    try:
        loaded = torch.load(name, map_location="cpu", weights_only=True)
    except pickle.UnpicklingError:
        raise InvalidInputError(f"{name}: expected a model file that loads without running code, got a pickle of "
                                f"Python objects (torch.save(model)), which runs code from the file as it loads; "
                                f"save the model as {SAFE_FORMATS}, or pass --trust-pickle (trust_pickle=True) if "
                                f"you trust the file's source") from None
    if isinstance(loaded, dict):
        raise InvalidInputError(f"{name}: expected a model, got a state dict (parameters without the model's "
                                f"structure): read it into its architecture with polyregions checkpoints "
                                f"--template, or save the model as {SAFE_FORMATS}")
    raise InvalidInputError(f"{name}: expected a model, got a pickled {type(loaded).__name__}")
