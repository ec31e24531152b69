"""Malformed inputs for every command, built deterministically (see :mod:`fuzz.corpus` and :mod:`fuzz.library`)."""
