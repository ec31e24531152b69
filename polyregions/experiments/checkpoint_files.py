"""Checkpoint files as exact networks: one loader for every kind of file a training run leaves behind.

A checkpoint is read by one function call per file:

* a PyTorch state dict (``.pt`` or ``.pth``, as ``torch.save(model.state_dict(), path)`` writes it, possibly
  under a ``"state_dict"`` or ``"model_state_dict"`` key) is read with ``torch.load(..., weights_only=True)``
  (no code runs) into an architecture: a ``template`` ``torch.nn.Module`` (the state dict is loaded into a copy,
  which :func:`~polyregions.networks.importers.network_from_torch` reads, so batch normalisation and any other
  layer it knows work), a template :class:`~polyregions.networks.network.Network` (its layers take the state
  dict's tensors in order, a weight and a bias per layer, and keep their activations), or, without a template,
  ReLU layers and a linear last layer, as for ``.npz`` files;
* any other file (``polyregions.network/1`` JSON, ``.npz``, ``.onnx``, and a ``.pt`` file that is not a state
  dict) goes to :func:`~polyregions.networks.io.load_network`, which reads whatever formats it knows.

Every tensor entry is taken at its exact binary value. :func:`load_checkpoints` reads a sequence of files; a
state dict without a template takes the architecture of the first network read.

Examples
--------
>>> import pathlib, tempfile
>>> import polyregions as pr
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> pr.save_network(pr.sawtooth(2), folder / "a.json")
>>> load_checkpoints([folder / "a.json"]) == [pr.sawtooth(2)]
True
"""

from __future__ import annotations

import copy
import os
import warnings
from collections.abc import Mapping
from typing import Any, Sequence

import numpy as np

from polyregions.errors import InvalidInputError, MissingDependencyError
from polyregions.networks.network import Network

__all__ = ["STATE_DICT_SUFFIXES", "load_checkpoint", "load_checkpoints", "network_from_state_dict"]

#: File name endings read as PyTorch state dicts (any case).
STATE_DICT_SUFFIXES = (".pt", ".pth")
# Keys under which training scripts commonly nest the model's state dict.
_NESTED_KEYS = ("state_dict", "model_state_dict", "model")


def load_checkpoint(path: str | os.PathLike, *, template: Any = None) -> Any:
    """Read one checkpoint file as an exact network.

    Parameters
    ----------
    path : str or os.PathLike
        A ``.pt``/``.pth`` state dict, or any file :func:`~polyregions.networks.io.load_network` reads.
    template : torch.nn.Module or Network, optional, keyword-only
        The architecture a state dict is loaded into (see the module documentation); ignored for other files.

    Returns
    -------
    Network
        Or whatever network object :func:`~polyregions.networks.io.load_network` returns for the file.

    Raises
    ------
    InvalidInputError
        When the file cannot be read or does not fit the template; the message names the file and the key.
    MissingDependencyError
        When a state dict is read without torch installed.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import polyregions as pr
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "step_000000.json"
    >>> pr.save_network(pr.sawtooth(3), path)
    >>> load_checkpoint(path).num_neurons
    6
    """
    from polyregions._support.input_files import input_name
    from polyregions.networks.io import load_network

    name = input_name(path, what="load_checkpoint: path")
    if not name.lower().endswith(STATE_DICT_SUFFIXES):
        return load_network(name)
    state, reason = _read_state_dict(name)
    if state is None:
        try:
            return load_network(name)
        except InvalidInputError:
            raise InvalidInputError(f"{name}: expected a PyTorch state dict (a mapping of parameter names to "
                                    f"tensors) or a file load_network reads, got {reason}") from None
    return network_from_state_dict(state, template=template, what=name)


def load_checkpoints(paths: Sequence[str | os.PathLike], *, template: Any = None) -> list[Any]:
    """Read checkpoint files in order; state dicts without a ``template`` take the first network's architecture.

    Parameters
    ----------
    paths : sequence of str or os.PathLike
        At least one file.
    template : torch.nn.Module or Network, optional, keyword-only
        As in :func:`load_checkpoint`.

    Returns
    -------
    list of Network

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import polyregions as pr
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> for n in (1, 2):
    ...     pr.save_network(pr.sawtooth(n), folder / f"saw{n}.json")
    >>> [net.num_neurons for net in load_checkpoints([folder / "saw1.json", folder / "saw2.json"])]
    [2, 4]
    """
    if isinstance(paths, (str, bytes, os.PathLike)) or not hasattr(paths, "__len__") or not len(paths):
        raise InvalidInputError(f"load_checkpoints: paths: expected a non-empty list of files, got {paths!r}")
    networks: list[Any] = []
    for path in paths:
        networks.append(load_checkpoint(path, template=template if template is not None or not networks
                                        else networks[0]))
    return networks


def network_from_state_dict(state: Mapping[str, Any], *, template: Any = None, what: str = "state dict") -> Any:
    """The exact network holding a PyTorch state dict's tensors, in the architecture of ``template``.

    Parameters
    ----------
    state : mapping of str to torch.Tensor
        Parameter names to tensors, in the order the model registered them.
    template : torch.nn.Module or Network, optional, keyword-only
        A module (the state dict is loaded into a deep copy of it, strictly), a network (whose layers take the
        tensors in order, a weight and a bias each), or None (ReLU layers and a linear last layer).
    what : str, keyword-only
        The name that starts every error message (the file).

    Returns
    -------
    Network
        (What :func:`~polyregions.networks.importers.network_from_torch` returns, for a template module.)

    Examples
    --------
    >>> import torch  # doctest: +SKIP
    >>> state = {"0.weight": torch.tensor([[1.0], [1.0]]), "0.bias": torch.tensor([0.0, -0.5]),
    ...          "2.weight": torch.tensor([[2.0, -4.0]]), "2.bias": torch.tensor([0.0])}  # doctest: +SKIP
    >>> network_from_state_dict(state)([0.75])  # doctest: +SKIP
    (Fraction(1, 2),)
    """
    torch = _torch()
    if template is not None and isinstance(template, torch.nn.Module):
        from polyregions.networks.importers import network_from_torch

        module = copy.deepcopy(template)
        try:
            module.load_state_dict(state, strict=True)
        except (RuntimeError, KeyError, TypeError) as error:
            first = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            raise InvalidInputError(f"{what}: expected the parameters of the template module, got: {first}") from None
        return network_from_torch(module.eval(), what=what)
    if template is not None and not isinstance(template, Network):
        raise InvalidInputError(f"{what}: template: expected a torch.nn.Module or a layered Network to read the state "
                                f"dict into, got a {type(template).__name__} (pass a template module)")
    arrays = [(str(key), _exact_array(value, what=f"{what}: {key}")) for key, value in state.items()]
    if template is None:
        return _default_architecture(arrays, what)
    return _into_template(arrays, template, what)


def _torch():
    try:
        import torch
    except ImportError:
        raise MissingDependencyError("reading a PyTorch state dict needs torch (pip install torch)") from None
    return torch


def _read_state_dict(name: str) -> tuple[Mapping[str, Any] | None, str]:
    """The state dict in a file, or None and what the file held instead."""
    import pickle

    from polyregions._support.input_files import open_input

    torch = _torch()
    with open_input(name) as handle, warnings.catch_warnings():
        # a TorchScript archive is handed to torch.jit.load with a warning; it is not a state dict either way
        warnings.filterwarnings("ignore", message=".*TorchScript archive", category=UserWarning)
        try:
            loaded = torch.load(handle, map_location="cpu", weights_only=True)
        except (pickle.UnpicklingError, RuntimeError, EOFError, ValueError, OSError, AttributeError) as error:
            text = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
            return None, f"a file torch.load cannot read without running code ({text[:120]})"
    for key in _NESTED_KEYS:
        if isinstance(loaded, Mapping) and isinstance(loaded.get(key), Mapping):
            loaded = loaded[key]
            break
    if not isinstance(loaded, Mapping) or not loaded:
        return None, f"a {type(loaded).__name__}" + (" with no entries" if isinstance(loaded, Mapping) else "")
    bad = next((key for key, value in loaded.items() if not isinstance(value, torch.Tensor)), None)
    if bad is not None:
        return None, f"a mapping whose entry {bad!r} is a {type(loaded[bad]).__name__}, not a tensor"
    return loaded, ""


def _exact_array(tensor: Any, *, what: str) -> np.ndarray:
    """A tensor's entries as float64 (exact: every float16, bfloat16 and float32 is a double)."""
    torch = _torch()
    if not isinstance(tensor, torch.Tensor):
        raise InvalidInputError(f"{what}: expected a tensor, got {type(tensor).__name__}")
    if not (tensor.dtype.is_floating_point or tensor.dtype in (torch.int8, torch.int16, torch.int32, torch.uint8)):
        raise InvalidInputError(f"{what}: expected a real floating-point tensor, got dtype {tensor.dtype}")
    values = tensor.detach().cpu().to(torch.float64).numpy()
    if not np.isfinite(values).all():
        raise InvalidInputError(f"{what}: expected finite entries, got NaN or infinity")
    return values


_Named = tuple[str, np.ndarray]


def _pairs(arrays: list[_Named], what: str) -> list[tuple[_Named, _Named]]:
    """The tensors as (weight, bias) pairs in order: a 2-D tensor, then a 1-D one."""
    if len(arrays) % 2:
        raise InvalidInputError(f"{what}: expected a weight and a bias per layer (an even number of tensors), got "
                                f"{len(arrays)} tensors ({', '.join(k for k, _ in arrays)})")
    pairs = list(zip(arrays[0::2], arrays[1::2]))
    for (wk, W), (bk, b) in pairs:
        if W.ndim != 2 or b.ndim != 1:
            raise InvalidInputError(f"{what}: {wk}, {bk}: expected a 2-D weight followed by a 1-D bias, got shapes "
                                    f"{W.shape} and {b.shape} (for other layers pass a template torch module)")
    return pairs


def _default_architecture(arrays: list[tuple[str, np.ndarray]], what: str) -> Network:
    from polyregions.networks.io import network_from_arrays

    pairs = _pairs(arrays, what)
    return network_from_arrays([W for (_, W), _ in pairs], [b for _, (_, b) in pairs], what=what)


def _into_template(arrays: list[tuple[str, np.ndarray]], template: Network, what: str) -> Network:
    pairs = _pairs(arrays, what)
    if len(pairs) != len(template.layers):
        raise InvalidInputError(f"{what}: expected {len(template.layers)} layers (a weight and a bias each, as the "
                                f"first checkpoint), got {len(pairs)}")
    layers = []
    for l, (((wk, W), (_, b)), layer) in enumerate(zip(pairs, template.layers)):
        shape = (layer.width, layer.fan_in)
        if W.shape != shape or b.shape != (layer.width,):
            raise InvalidInputError(f"{what}: {wk}: expected layer {l} of the first checkpoint, a weight of shape "
                                    f"{shape} and a bias of length {layer.width}, got {W.shape} and {b.shape}")
        layers.append((W, b, layer.activation))
    return Network.from_layers(template.input_dim, layers, what=what)
