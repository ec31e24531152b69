"""``python -m proofs_check {verify,theorems} ...``: dispatch to the named check.

The exit status is the check's: for ``verify``, 0 verified, 1 a check failed, 2 an unreadable file, 3 a
certificate whose complex verifies but whose user-defined claim is not independently checkable (see
:mod:`proofs_check.verify`); 2 also for a missing or unknown command; 130 when Ctrl-C or SIGTERM ends the run
(one line ``proofs_check: interrupted`` on standard error, no traceback).
"""

import argparse
import sys

from ._interrupts import run_interruptibly


def _verify_main(argv):
    from .verify import main
    return main(argv)


def _theorems_main(argv):
    # Imported on demand: the theorem checks use polyregions, the verifier must not.
    from .theorems.run import main
    return main(argv)


COMMANDS = {"verify": _verify_main, "theorems": _theorems_main}

_HELP = {
    "verify": "re-check a region complex export or a search certificate exactly, without polyregions",
    "theorems": "check every statement of the theory on a sweep of exact computations and write reports",
}


def build_parser() -> argparse.ArgumentParser:
    """The top-level command line (for its help: each command reads its own arguments)."""
    parser = argparse.ArgumentParser(
        prog="python -m proofs_check",
        description="Independent checks of polyregions' results: an exact verifier of exported region "
                    "complexes (standard library only) and the checks of the theorems and bounds.",
        epilog="Run 'python -m proofs_check COMMAND --help' for the options of a command. Ctrl-C or SIGTERM "
               "ends any command with exit status 130, keeping the files already written.")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, text in _HELP.items():
        commands.add_parser(name, help=text, add_help=False)
    return parser


def _dispatch(argv) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv and argv[0] in ("-h", "--help"):
        build_parser().print_help()
        return 0
    if not argv or argv[0] not in COMMANDS:
        got = f"unknown command {argv[0]!r}" if argv else "no command"
        print(f"usage: python -m proofs_check {{{','.join(COMMANDS)}}} ...\n"
              f"proofs_check: error: expected a command ({', '.join(COMMANDS)}), got {got}", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])


def main(argv=None) -> int:
    """Run the command line; return the exit status."""
    return run_interruptibly(_dispatch, argv)


if __name__ == "__main__":
    sys.exit(main())
