"""The ``polyregions`` command line.

Each sub-command is a public module of this package with ``add_parser(subparsers)`` and
``run(args) -> int``. Bad input ends in exit status 2 and one ``polyregions: error: ...`` line on stderr, and
so does a file that cannot be written: every output path is checked before the work starts
(:func:`polyregions._support.atomic.check_output`), and a write that fails later (a full disk) is reported the same way.
Ctrl-C and SIGTERM end a run with status 130, keeping what it finished.

Progress goes to standard error, by default only when it is a terminal; the options ``--progress`` (on any
stream) and ``--quiet`` (never) of :func:`polyregions.cli._options.add_progress_options` change that for a command.
Standard output is the same either way.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import gc
import importlib
import importlib.util
import os
import pkgutil
import re
import signal
import sys
from typing import Iterator, Sequence

from polyregions._support.atomic import STANDARD_OUTPUT, documents_to
from polyregions._support.progress import progress_mode
from polyregions._support.signals import SIGNALS, deferred_interrupts, interrupt_count, interrupts_raise
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
                            "Ctrl-C or SIGTERM (what was finished is kept), 141 standard output closed by its reader "
                            "(as in 'polyregions ... | head -1'; no message).")
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


#: The exit status when standard output is a pipe whose reader has gone (``polyregions ... | head -1``): the
#: status of a Unix tool ended by SIGPIPE (128 + 13), without a message.
CLOSED_PIPE = 141


def _tolerant_streams() -> None:
    """Standard output and error write what their encoding cannot (``PYTHONIOENCODING=ascii`` and a file named
    ``né.json``) as backslash escapes, as Python already does for error messages, instead of failing."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            try:
                reconfigure(errors="backslashreplace")
            except (ValueError, OSError):  # a stream already written to in another mode, or closed
                pass


def _stdout_failed(error: OSError) -> int:
    """End a run whose standard output failed: quietly for a reader that went away, otherwise one line. Standard
    output then points at /dev/null, so that the interpreter's own flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (OSError, ValueError, AttributeError):  # not a real file (a test's capture)
        pass
    if isinstance(error, BrokenPipeError):
        return CLOSED_PIPE
    sys.stderr.write(f"polyregions: error: standard output: cannot write: {error.strerror or error}\n")
    return 2


def _flush_stdout() -> None:
    """Flush standard output inside :func:`main`, so that a failed write (a full disk, a closed pipe) is
    reported there rather than by the interpreter at exit."""
    sys.stdout.flush()


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    limit = sys.get_int_max_str_digits()
    _tolerant_streams()
    interrupts = interrupt_count()
    try:
        # SIGTERM stops a run as Ctrl-C does: what is finished is written, then 130. Installed first, so that a
        # signal while the commands are imported ends the same way as one during a run.
        with interrupts_raise():
            return _run(argv)
    except KeyboardInterrupt:
        return _interrupted()
    except Exception as error:
        if interrupt_count() > interrupts or _caused_by_interrupt(error):
            # An interrupt inside an import surfaces as whatever the module was doing: numpy's ImportError,
            # a RuntimeError from __set_name__, a TypeError from a half-built dataclass, a MissingDependencyError.
            return _interrupted()
        return _report(error)
    finally:
        sys.set_int_max_str_digits(limit)
    return 0


def _report(error: Exception) -> int:
    """One ``polyregions: error:`` line (and status 2) for an error of the input or the environment; anything
    else is a bug, raised with its traceback."""
    if isinstance(error, PolyregionsError):
        _fail(str(error))
    if isinstance(error, OSError):
        if _is_stdout_error(error):
            return _stdout_failed(error)
        _fail(_describe_os_error(error))
    if isinstance(error, MemoryError):
        _fail("out of memory: the input needs more memory than this process may use (see the limits in "
              "polyregions._support.limits)")
    raise error


def _run(argv: Sequence[str] | None) -> int:
    """Parse the command line and run the command. Ctrl-C and SIGTERM are held back while the parser imports the
    command (an interrupt inside numpy's import would surface as a misleading ImportError) and raised after."""
    with deferred_interrupts():
        arguments = _join_negative_values(list(sys.argv[1:] if argv is None else argv))
        args = _build_parser(arguments).parse_args(arguments)
    # Every number read is bounded (polyregions._support.limits), but exact results may outgrow Python's guard
    # against converting huge integers to text (4,300 digits): lift it while the command runs.
    sys.set_int_max_str_digits(0)
    with progress_mode(mode_of(args)), _documents_on_stdout(args):
        status = int(args.run(args) or 0)
        _flush_stdout()
    if status == 130:  # a command that stopped on an interrupt and kept what it finished (sweep, search)
        sys.stderr.write(_INTERRUPTED)
    return status


_INTERRUPTED = "polyregions: interrupted\n"
#: The options that name one output file, any of which may be ``-`` (or ``/dev/stdout``) for standard output.
_DOCUMENT_OPTIONS = ("output", "export", "graphml", "list")
_STANDARD_OUTPUT_NAMES = (STANDARD_OUTPUT, "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1")


@contextlib.contextmanager
def _documents_on_stdout(args: argparse.Namespace) -> Iterator[None]:
    """When an output file is ``-``, standard output carries that document alone: what the command prints
    itself (its summary) goes to standard error instead."""
    if not any(getattr(args, name, None) in _STANDARD_OUTPUT_NAMES for name in _DOCUMENT_OPTIONS):
        yield
        return
    with documents_to(sys.stdout), contextlib.redirect_stdout(sys.stderr):
        yield


def _interrupted() -> int:
    sys.stderr.write(_INTERRUPTED)
    return 130


def _caused_by_interrupt(error: BaseException) -> bool:
    """Whether a KeyboardInterrupt is in the chain of causes of ``error``."""
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, KeyboardInterrupt):
            return True
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return False


def _is_stdout_error(error: OSError) -> bool:
    """Whether ``error`` came from writing standard output: a closed pipe, or a write error that names no file
    while standard output cannot take more (``/dev/full``)."""
    if isinstance(error, BrokenPipeError):
        return True
    if error.filename is not None:
        return False
    try:
        sys.stdout.flush()
    except OSError:
        return True
    except ValueError:  # closed
        return True
    return error.errno in (errno.ENOSPC, errno.EIO, errno.EDQUOT, errno.EFBIG)


def _describe_os_error(error: OSError) -> str:
    """One line for an operating-system error no reader turned into a PolyregionsError: the file it names, and
    a working directory deleted under the run said as such."""
    reason = error.strerror or str(error)
    if isinstance(error, FileNotFoundError) and not _has_working_directory():
        return f"the working directory no longer exists (deleted after the shell entered it): {reason}"
    return f"{error.filename}: {reason}" if error.filename is not None else reason


def _has_working_directory() -> bool:
    try:
        os.getcwd()
    except FileNotFoundError:
        return False
    return True


def command() -> None:
    """The ``polyregions`` program: :func:`main`, then the end of the process with its status."""
    status = main()
    # The run is over and its files are written: a signal from now on would only turn the exit into a traceback.
    for number in SIGNALS:
        signal.signal(number, signal.SIG_IGN)
    # The collections the interpreter runs on its way out would trace every object still alive (the modules, and
    # what a command cached) for cycles: on a small run, longer than the run's own output. Every file is written
    # and closed by now, so those objects are left to the end of the process.
    gc.freeze()
    raise SystemExit(status)


if __name__ == "__main__":
    command()
