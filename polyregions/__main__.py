"""``python -m polyregions``: Ctrl-C and SIGTERM are held from the first line (see
:func:`polyregions._signals.held_until_main`), then the command line runs."""

from polyregions._signals import held_until_main

held_until_main()

from polyregions.cli import command  # noqa: E402  (after the signals are held)

command()
