"""The ``polyregions`` program, as ``python -m polyregions`` and as the installed ``polyregions`` script (its
entry point is :func:`script`): Ctrl-C and SIGTERM are held from the first line (see
:func:`polyregions._support.signals.held_until_main`), then the command line is imported and runs."""

from polyregions._support.signals import held_until_main


def script() -> None:
    """Hold the stopping signals, then import and run the command line (:func:`polyregions.cli.command`): a
    signal while the commands are still being imported ends the run with ``polyregions: interrupted``."""
    held_until_main()
    from polyregions.cli import command

    command()


if __name__ == "__main__":
    script()
