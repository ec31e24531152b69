"""The exceptions polyregions raises.

Every error is a :class:`PolyregionsError`; each message says what was expected and what arrived.
"""

__all__ = [
    "PolyregionsError",
    "InvalidInputError",
    "InfeasibleError",
    "UnboundedError",
    "CertificateError",
    "MissingDependencyError",
]


class PolyregionsError(Exception):
    """Base class of every error raised by polyregions."""


class InvalidInputError(PolyregionsError, ValueError):
    """An argument, file or field does not have the expected form or value."""


class InfeasibleError(PolyregionsError):
    """A set that must be non-empty (or full-dimensional) is not."""


class UnboundedError(PolyregionsError):
    """An optimisation problem, or a set that must be bounded, is unbounded."""


class CertificateError(PolyregionsError):
    """A certificate failed its exact check (a bug, or a tampered certificate)."""


class MissingDependencyError(PolyregionsError, ImportError):
    """An optional dependency needed for this call is not installed."""
