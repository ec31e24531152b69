"""The exceptions polyregions raises.

Every error is a :class:`PolyregionsError`; each message says what was expected and what arrived. Catch
:class:`PolyregionsError` to handle any of them; the subclasses say what went wrong.

===============================  =====================================================================
:class:`InvalidInputError`       an argument, file or field has the wrong form or value (a ValueError)
:class:`InfeasibleError`         a set that must be non-empty (or full-dimensional) is not
:class:`UnboundedError`          a problem or a set that must be bounded is not
:class:`CertificateError`        a certificate failed its exact check
:class:`MissingDependencyError`  an optional dependency is not installed (an ImportError)
:class:`OutputError`             a file could not be written: full disk, failed write (an OSError)
===============================  =====================================================================

Examples
--------
>>> import polyregions as pr
>>> try:
...     pr.rational("abc", what="bias[0]")
... except pr.PolyregionsError as error:
...     print(type(error).__name__, error)
InvalidInputError bias[0]: expected a number such as "3", "-7/12", "0.1" or "1e-3", got 'abc'
>>> issubclass(pr.InvalidInputError, ValueError), issubclass(pr.MissingDependencyError, ImportError)
(True, True)
>>> issubclass(pr.OutputError, OSError)
True
"""

__all__ = [
    "PolyregionsError",
    "InvalidInputError",
    "InfeasibleError",
    "UnboundedError",
    "CertificateError",
    "MissingDependencyError",
    "OutputError",
]


class PolyregionsError(Exception):
    """Base class of every error raised by polyregions.

    Catch it to handle any failure of the library; the message names what was expected and what arrived.
    """


class InvalidInputError(PolyregionsError, ValueError):
    """An argument, file or field does not have the expected form or value.

    Raised when input is read: a number that is not finite or not a number
    (:func:`~polyregions.exact.rationals.rational`), matrices of mismatched shapes, a network or domain file with
    a missing or malformed field, an option out of its range. It is also a :class:`ValueError`, so code that
    catches ``ValueError`` keeps working.
    """


class InfeasibleError(PolyregionsError):
    """A set that must be non-empty (or full-dimensional) is not.

    Raised, for example, by the Chebyshev ball of an empty polytope, by a projection of an empty polyhedron,
    and by an exact solve with a singular matrix.
    """


class UnboundedError(PolyregionsError):
    """An optimisation problem, or a set that must be bounded, is unbounded.

    Raised, for example, by the volume of a polytope with rays, or by a Chebyshev ball of a set that holds
    balls of every radius.
    """


class CertificateError(PolyregionsError):
    """A certificate failed its exact check (a bug, or a tampered certificate).

    Raised when an exact self-check does not hold: an interior point that is not interior, a face complex
    whose incidences do not close up, an arrangement enumeration that disagrees with Zaslavsky's theorem.
    It never signals bad input; please report it.
    """


class MissingDependencyError(PolyregionsError, ImportError):
    """An optional dependency needed for this call is not installed.

    Raised on first use of a feature with an optional dependency (matplotlib for :mod:`polyregions.plotting`,
    scikit-learn for the digits data); the message gives the ``pip install`` command. It is also an
    :class:`ImportError`.
    """


class OutputError(PolyregionsError, OSError):
    """A file could not be written: the disk is full, the device refused the data, the directory went away.

    Raised by every writer of polyregions (exports, tables, certificates, pictures, network and domain files)
    when the operating system reports a failure while the file is written; the file that stood at the path
    before is left as it was. It is also an :class:`OSError`, whose ``errno`` is the system's error number
    when there is one.
    """

    def __init__(self, message: str, *, errno: int | None = None) -> None:
        super().__init__(message)
        self.errno = errno  # OSError's own constructor would prefix the message with "[Errno N]"
