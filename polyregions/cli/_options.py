"""Options shared by the sub-commands (progress, engines, output as JSON) and readers of option values: ASCII
integers within ranges, worker counts, resolutions, widths.

Each is an ``argparse`` type (it raises :class:`argparse.ArgumentTypeError`, which the parser reports as one
``polyregions: error:`` line naming the option) or, for values read after parsing, raises
:class:`~polyregions.errors.InvalidInputError` naming the option. Integers are ASCII digits only: Python's
``int`` would also read ``"\\u0663"`` (an Arabic-Indic three), ``"1_000"`` and Unicode white space.
"""

from __future__ import annotations

import argparse
from typing import Callable

from polyregions._support.limits import MAX_DPI, MAX_NETWORK_PARAMETERS, usable_cores
from polyregions._support.progress import ProgressMode
from polyregions.errors import InvalidInputError

__all__ = ["integer_at_least", "dpi", "workers", "integers", "widths", "add_progress_options", "progress_mode",
           "wants_progress", "add_json_option", "add_engine_option", "add_network_argument", "add_trust_pickle_option",
           "NETWORK_HELP"]

#: The help text of a NETWORK argument.
NETWORK_HELP = ("the network: a polyregions.network/1 or /2 JSON file, an .npz file of arrays W0, b0, W1, b1, ..., "
                "an .onnx file (needs onnx), or a PyTorch file (needs torch): a .pt2 program (torch.export.save) or "
                "a TorchScript archive (torch.jit.save of a traced or scripted model)")


def add_network_argument(parser: argparse.ArgumentParser) -> None:
    """The NETWORK argument and ``--trust-pickle``, the explicit opt-in to read a pickled PyTorch module."""
    parser.add_argument("network", metavar="NETWORK", help=NETWORK_HELP)
    add_trust_pickle_option(parser)


def add_trust_pickle_option(parser: argparse.ArgumentParser) -> None:
    """``--trust-pickle``: read a module pickled with ``torch.save``, which runs the code the file names."""
    parser.add_argument("--trust-pickle", action="store_true",
                        help="also read a PyTorch module saved with torch.save(model): such a file is a pickle, "
                             "and loading it RUNS THE CODE IT NAMES; use only for files from a source you trust "
                             "(without it such a file is refused)")


def add_progress_options(parser: argparse.ArgumentParser) -> None:
    """``--progress`` and ``--quiet``: progress on standard error is shown by default only on a terminal."""
    shown = parser.add_mutually_exclusive_group()
    shown.add_argument("--progress", action="store_true",
                       help="show progress on standard error even when it is not a terminal (by default progress "
                            "is shown only when standard error is a terminal)")
    shown.add_argument("--quiet", action="store_true", help="show no progress, even on a terminal")


def progress_mode(args: argparse.Namespace) -> ProgressMode:
    """The :func:`polyregions._support.progress.progress_mode` a command runs in: ``"on"`` for ``--progress``, ``"off"``
    for ``--quiet``, ``"auto"`` (on a terminal only) otherwise and for commands without the options."""
    if getattr(args, "quiet", False):
        return "off"
    return "on" if getattr(args, "progress", False) else "auto"


def wants_progress(args: argparse.Namespace) -> bool:
    """Whether a command asks the library for progress bars (drawn or not by the mode it runs in)."""
    return not getattr(args, "quiet", False)


def add_json_option(parser: argparse.ArgumentParser) -> None:
    """``--json``: the results as one line of JSON on standard output."""
    parser.add_argument("--json", action="store_true",
                        help="print the results as one line of JSON on standard output instead of text")


def add_engine_option(parser: argparse.ArgumentParser) -> None:
    """``--engine auto|mesh|lp``: the refinement engine of the region enumeration."""
    parser.add_argument("--engine", default="auto", choices=("auto", "mesh", "lp"),
                        help="the region engine: mesh (vectorised refinement of bounded domains), lp (LP-certified "
                             "refinement, any domain) or auto (mesh for bounded domains up to dimension 6, lp "
                             "otherwise; the default); both give the same regions")


def _integer(text: str) -> int:
    from polyregions.exact.rationals import integer

    try:
        return integer(text, what="value")
    except InvalidInputError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix("value: ")) from None


def integer_at_least(low: int) -> Callable[[str], int]:
    """An argparse type: an integer ``>= low`` in ASCII digits."""
    def read(text: str) -> int:
        value = _integer(text)
        if value < low:
            raise argparse.ArgumentTypeError(f"expected an integer >= {low}, got {text!r}")
        return value

    return read


def dpi(text: str) -> int:
    """An argparse type: a resolution in dots per inch, 1 to :data:`~polyregions._support.limits.MAX_DPI`."""
    value = _integer(text)
    if not 1 <= value <= MAX_DPI:
        raise argparse.ArgumentTypeError(f"expected a resolution from 1 to {MAX_DPI} dots per inch, got {text!r}")
    return value


def workers(low: int) -> Callable[[str], int]:
    """An argparse type: a number of worker processes ``>= low``, clamped to the usable cores.

    More processes than cores would only compete for them (and each costs a fork and its memory); the results
    do not depend on the number, so a larger one is taken as the number of cores rather than refused.
    """
    read_integer = integer_at_least(low)

    def read(text: str) -> int:
        return min(read_integer(text), max(low, usable_cores()))

    return read


def integers(text: str, *, what: str) -> list[int]:
    """Comma-separated integers in ASCII digits, such as ``"2,8,8"``."""
    from polyregions.exact.rationals import integer

    try:
        return [integer(part, what=what) for part in text.split(",")]
    except InvalidInputError:
        raise InvalidInputError(f"{what}: expected comma-separated integers such as 2,8,8, got "
                                f"{_short(text)}") from None


def widths(text: str, *, what: str = "--widths", minimum: int = 2, output_dim: int = 0) -> list[int]:
    """An architecture ``N0,N1,...``: at least ``minimum`` positive integers, and a network of at most
    :data:`~polyregions._support.limits.MAX_NETWORK_PARAMETERS` weights and biases (with ``output_dim`` outputs)."""
    values = integers(text, what=what)
    if len(values) < minimum or any(v < 1 for v in values):
        raise InvalidInputError(f"{what}: expected at least {minimum} positive integers (the input dimension and "
                                f"the hidden widths) such as 2,8,8, got {_short(text)}")
    layers = values + ([output_dim] if output_dim else [])
    size = sum(fan_in * width + width for fan_in, width in zip(layers, layers[1:]))
    if size > MAX_NETWORK_PARAMETERS:
        count = f"{size:,}" if size < 10 ** 15 else "more than 10^15"
        raise InvalidInputError(f"{what}: expected a network of at most {MAX_NETWORK_PARAMETERS:,} weights and "
                                f"biases, got {_short(text)}, which has {count}")
    return values


def _short(text: str) -> str:
    return repr(text) if len(text) <= 60 else repr(text[:57] + "...")
