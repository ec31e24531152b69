"""The checker's two outcomes other than success: a file it cannot read, and a check that fails."""

from __future__ import annotations

__all__ = ["InputError", "VerificationError"]


class InputError(Exception):
    """The file is not a readable export (a field missing, null, of the wrong type or unknown); ``field`` names where.

    The command line reports it with exit status 2.
    """

    def __init__(self, field_: str, message: str):
        super().__init__(f"{field_}: {message}")
        self.field = field_


class VerificationError(Exception):
    """A check failed; the message names the region or field, what the file says and what was verified.

    The command line reports it with exit status 1.
    """
