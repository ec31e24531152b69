"""Sub-commands of the ``polyregions`` command line (see :mod:`polyregions.cli`)."""
