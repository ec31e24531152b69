"""``python -m proofs_check {verify,theorems} ...``: dispatch to the named check.

The exit status is the check's: for ``verify``, 0 verified, 1 a check failed, 2 an unreadable file, 3 a
certificate whose complex verifies but whose user-defined claim is not independently checkable (see
:mod:`proofs_check.verify`); 2 also for a missing or unknown command.
"""

import sys

from .verify import main as verify_main


def _theorems_main(argv):
    # Imported on demand: the theorem checks use polyregions, the verifier must not.
    from .theorems.run import main
    return main(argv)


COMMANDS = {"verify": verify_main, "theorems": _theorems_main}


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else list(argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m proofs_check {{{','.join(COMMANDS)}}} ...", file=sys.stderr)
        return 2
    return COMMANDS[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main())
