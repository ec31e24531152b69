"""The ``polyregions`` command line.

Each sub-command is a public module of this package with ``add_parser(subparsers)`` and
``run(args) -> int``. Bad input ends in exit status 2 and one ``polyregions: error: ...`` line on stderr, and
so does a file that cannot be written: every output path is checked before the work starts
(:func:`polyregions._atomic.check_output`), and a write that fails later (a full disk) is reported the same way.
Ctrl-C and SIGTERM end a run with status 130, keeping what it finished.

Progress goes to standard error, by default only when it is a terminal; the options ``--progress`` (on any
stream) and ``--quiet`` (never) of :func:`polyregions.cli._options.add_progress_options` change that for a command.
Standard output is the same either way.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import importlib.util
import pkgutil
import re
import sys
from typing import Sequence

from polyregions._progress import progress_mode
from polyregions._signals import interrupts_raise
from polyregions.cli._options import progress_mode as mode_of
from polyregions.errors import PolyregionsError

__all__ = ["main", "command"]


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line, like every other polyregions error."""

    def error(self, message: str) -> None:  # type: ignore[override]
        _fail(f"{self.prog.split()[-1] if ' ' in self.prog else 'usage'}: {message}")


def _fail(message: str) -> None:
    sys.stderr.write(f"polyregions: error: {message}\n")
    raise SystemExit(2)


def _build_parser(argv: Sequence[str] = ()) -> argparse.ArgumentParser:
    parser = _Parser(prog="polyregions",
                     description="Exact geometry of piecewise-linear networks and hyperplane arrangements: regions, "
                                 "boundaries, topology and local complexity of networks, counts of arrangements, "
                                 "searches for counterexamples and sweeps, every decision exact. Run "
                                 "'polyregions COMMAND --help' for the options of a command.",
                     epilog="Every command that prints results prints them as one line of JSON with --json. "
                            "Progress goes to standard error when it is a terminal (--progress: always, --quiet: "
                            "never). Exit status: 0 success, 1 a check or search came out negative (see the "
                            "command's help), 2 bad input (one line on standard error), 130 interrupted by "
                            "Ctrl-C or SIGTERM (what was finished is kept).")
    from polyregions import __version__
    parser.add_argument("--version", action="version", version=f"polyregions {__version__}",
                        help="print the version and exit")
    subparsers = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, metavar="COMMAND",
                                       title="commands")
    for name in _command_modules(argv):
        importlib.import_module(f"{__name__}.{name}").add_parser(subparsers)
    return parser


def _command_modules(argv: Sequence[str]) -> list[str]:
    """The modules of the commands the parser needs: only the command named in ``argv`` when it is one (the
    others' imports would cost a short run a good share of its time), otherwise every command (also for the
    help of ``polyregions`` itself, which lists them all)."""
    named = next((argument for argument in argv if argument in ("-h", "--help") or not argument.startswith("-")), "")
    if named.isidentifier() and not named.startswith("_") \
            and importlib.util.find_spec(f"{__name__}.{named}") is not None:
        return [named]
    return sorted(info.name for info in pkgutil.iter_modules(__path__) if not info.name.startswith("_"))


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
    limit = sys.get_int_max_str_digits()
    try:
        # inside the try: a Ctrl-C while the commands are imported ends the same way as one during a run
        arguments = _join_negative_values(list(sys.argv[1:] if argv is None else argv))
        args = _build_parser(arguments).parse_args(arguments)
        # Every number read is bounded (polyregions._limits), but exact results may outgrow Python's guard
        # against converting huge integers to text (4,300 digits): lift it while the command runs.
        sys.set_int_max_str_digits(0)
        # SIGTERM stops a run as Ctrl-C does: what is finished is written, then 130
        with interrupts_raise(), progress_mode(mode_of(args)):
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


def command() -> None:
    """The ``polyregions`` program: :func:`main`, then the end of the process with its status."""
    status = main()
    # The collections the interpreter runs on its way out would trace every object still alive (the modules, and
    # what a command cached) for cycles: on a small run, longer than the run's own output. Every file is written
    # and closed by now, so those objects are left to the end of the process.
    gc.freeze()
    raise SystemExit(status)


if __name__ == "__main__":
    command()
