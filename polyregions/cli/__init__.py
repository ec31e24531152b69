"""The ``polyregions`` command line.

Each sub-command is a public module of this package with ``add_parser(subparsers)`` and
``run(args) -> int``. Bad input ends in exit status 2 and one ``polyregions: error: ...`` line on stderr, and
so does a file that cannot be written: every output path is checked before the work starts
(:func:`polyregions._atomic.check_output`), and a write that fails later (a full disk) is reported the same way.
Ctrl-C and SIGTERM end a run with status 130, keeping what it finished.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import re
import sys
from typing import Sequence

from polyregions._signals import interrupts_raise
from polyregions.errors import PolyregionsError

__all__ = ["main"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other polyregions error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        _fail(f"{self.prog.split()[-1] if ' ' in self.prog else 'usage'}: {message}")


def _fail(message: str) -> None:
    sys.stderr.write(f"polyregions: error: {message}\n")
    raise SystemExit(2)


def _build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="polyregions", description="Exact geometry of piecewise-linear networks "
                                                     "and hyperplane arrangements.")
    from polyregions import __version__
    parser.add_argument("--version", action="version", version=f"polyregions {__version__}")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda m: m.name):
        if not info.name.startswith("_"):
            importlib.import_module(f"{__name__}.{info.name}").add_parser(subparsers)
    return parser


_NEGATIVE_VALUE = re.compile(r"-[0-9.]", re.ASCII)


def _join_negative_values(argv: list[str]) -> list[str]:
    """``--box -1,1`` as ``--box=-1,1``: argparse would take ``-1,1`` for an option."""
    joined, i = [], 0
    while i < len(argv):
        option = argv[i]
        if option.startswith("--") and "=" not in option and i + 1 < len(argv) \
                and _NEGATIVE_VALUE.match(argv[i + 1]):
            joined.append(f"{option}={argv[i + 1]}")
            i += 2
        else:
            joined.append(option)
            i += 1
    return joined


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    parser = _build_parser()
    args = parser.parse_args(_join_negative_values(list(sys.argv[1:] if argv is None else argv)))
    limit = sys.get_int_max_str_digits()
    try:
        # Every number read is bounded (polyregions._limits), but exact results may outgrow Python's guard
        # against converting huge integers to text (4,300 digits): lift it while the command runs.
        sys.set_int_max_str_digits(0)
        with interrupts_raise():  # SIGTERM stops a run as Ctrl-C does: what is finished is written, then 130
            return int(args.run(args) or 0)
    except PolyregionsError as error:
        _fail(str(error))
    except MemoryError:
        _fail("out of memory: the input needs more memory than this process may use (see the limits in "
              "polyregions._limits)")
    except KeyboardInterrupt:
        sys.stderr.write("polyregions: interrupted\n")
        return 130
    finally:
        sys.set_int_max_str_digits(limit)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
