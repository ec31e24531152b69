"""The limits polyregions puts on what it reads and on options that set how much it builds, in one place.

Each limit is far above any sensible input and far below what would exhaust memory or time: input beyond it
is almost surely a mistake (or hostile), and is refused with an :class:`~polyregions.errors.InvalidInputError`
that names the file or option, the limit and what arrived, before any large allocation.

=============================  ========================================================================
:data:`MAX_INPUT_BYTES`        size of an input file (network, domain, arrangement, ``.npz``)
:data:`MAX_JSON_DEPTH`         nesting of arrays and objects in a JSON input file
:data:`MAX_DIGITS`             digits of an integer, numerator, denominator or decimal mantissa
:data:`MAX_EXPONENT`           absolute decimal exponent of a number such as ``"1e-300"``
:data:`MAX_DPI`                resolution of a picture (``polyregions plot --dpi``)
:data:`MAX_SEEDS`              seeds of one sweep (``polyregions sweep --seeds``), counted before expansion
:data:`MAX_SWEEP_TASKS`        networks of one sweep (architectures x seeds x inits x activations)
:data:`MAX_GRID_VALUES`        weights of a search grid (``polyregions search --max-abs --denominators``)
:data:`MAX_NETWORK_PARAMETERS` weights and biases of a network drawn from ``--widths`` (sweep, search)
:data:`MAX_DOMAIN_DIMENSION`   dimension of a box, polytope or space domain (it stores a k x k identity)
:data:`MAX_HYPERPLANES`        hyperplanes of a named arrangement (``--name braid:N``), counted before it is built
:data:`MAX_TENSOR_ENTRIES`     entries of one tensor of a graph network (its input, any node's output)
:data:`MAX_WINDOW_READS`       reads of one convolution or pooling node (output positions x kernel size)
:data:`MAX_LISTED_SIGNS`       signs an ``arrangement`` listing holds (regions x hyperplanes); above, it counts
=============================  ========================================================================

The limits checked by :func:`check_at_most` can be raised without editing anything: the environment variable
``POLYREGIONS_<NAME>`` (for example ``POLYREGIONS_MAX_TENSOR_ENTRIES=1000000``) overrides the value here, and so
does assigning the module attribute from Python.

Worker counts are not refused but clamped: :func:`usable_cores` is the most processes a run starts
(``--workers 64`` on a 2-core machine runs 2; the results do not depend on it).

Only input files that are regular files are read: a directory, a FIFO, a socket or a device (``/dev/zero``
would be read until memory runs out, a FIFO would block) is refused by name.
"""

from __future__ import annotations

import os

__all__ = ["MAX_INPUT_BYTES", "MAX_JSON_DEPTH", "MAX_DIGITS", "MAX_EXPONENT", "MAX_DPI", "MAX_SEEDS",
           "MAX_SWEEP_TASKS", "MAX_GRID_VALUES", "MAX_NETWORK_PARAMETERS", "MAX_DOMAIN_DIMENSION", "MAX_HYPERPLANES",
           "MAX_TENSOR_ENTRIES", "MAX_WINDOW_READS", "MAX_LISTED_SIGNS", "usable_cores",
           "describe_size", "limit", "check_at_most", "describe_count"]

#: Largest input file read, in bytes (1 GiB).
MAX_INPUT_BYTES = 1 << 30
#: Deepest nesting of JSON arrays and objects read (the formats need at most 6; Python's parser recurses).
MAX_JSON_DEPTH = 100
#: Most decimal digits in an integer, a numerator, a denominator or the digits of a decimal such as ``"0.125"``.
MAX_DIGITS = 10_000
#: Largest decimal exponent, in absolute value, of a number such as ``"1e300"`` (beyond it the exact value
#: needs thousands of digits, almost surely a mistake in the input).
MAX_EXPONENT = 4000
#: Highest resolution of a picture, in dots per inch (a figure of the default size at 1200 dpi is already
#: about 7,700 x 5,800 pixels).
MAX_DPI = 1200
#: Most seeds in one sweep.
MAX_SEEDS = 100_000
#: Most networks (tasks) in one sweep.
MAX_SWEEP_TASKS = 100_000
#: Most values in the grid of weights of a counterexample search (each move looks a value up in it, and the
#: certificate lists it).
MAX_GRID_VALUES = 100_000
#: Most weights and biases of a network drawn from ``--widths``: exact enumeration is hopeless long before.
MAX_NETWORK_PARAMETERS = 1_000_000
#: Largest dimension of a box, polytope or space domain: its directions are the k x k identity (about 130 MB
#: at this size), and exact enumeration is hopeless long before. A segment or a slice (a few directions) of a
#: network with more inputs is fine.
MAX_DOMAIN_DIMENSION = 4096
#: Most hyperplanes of a named arrangement (``braid:N`` has N(N-1)/2), checked before it is built: its
#: invariants are out of reach long before (``braid:12``, 66 hyperplanes, already has 12! regions).
MAX_HYPERPLANES = 10_000
#: Most entries of one tensor of a graph network (``input_shape``, or the output of a node): a 64-channel 32 x 32
#: feature map. Exact enumeration keeps a value per neuron per vertex, and the staged compile a sparse row per
#: entry; a shape such as ``[100000, 100000, 100000]`` (a few bytes of JSON) would otherwise be allocated.
MAX_TENSOR_ENTRIES = 1 << 16
#: Most reads of one convolution or pooling node: output positions times kernel entries (each is listed).
MAX_WINDOW_READS = 1 << 22
#: Most signs an arrangement listing holds (its regions and faces each carry a sign per hyperplane): above, the
#: command counts instead of listing (as ``--faces`` does), the same numbers without the sign vectors.
MAX_LISTED_SIGNS = 10_000_000


def usable_cores() -> int:
    """The number of cores this process may run on (at least 1): the most worker processes worth starting."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # sched_getaffinity is Linux-only
        return max(1, os.cpu_count() or 1)


def describe_size(size: int) -> str:
    """A byte count for a message: ``"1.5 GiB"``, ``"3 bytes"``.

    Examples
    --------
    >>> describe_size(3), describe_size(1 << 30), describe_size(3 << 29)
    ('3 bytes', '1 GiB', '1.5 GiB')
    """
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size / scale:.3g} {unit}"
    return f"{size} byte{'' if size == 1 else 's'}"


def limit(name: str) -> int:
    """The value of the limit ``name`` (such as ``"MAX_TENSOR_ENTRIES"``): the environment variable
    ``POLYREGIONS_<name>`` when it is set, otherwise the module attribute (read now, so an assignment counts).

    Raises
    ------
    InvalidInputError
        When the environment variable is set to something other than a positive integer in ASCII digits.
    """
    from polyregions.errors import InvalidInputError

    variable = f"POLYREGIONS_{name}"
    text = os.environ.get(variable)
    if text is None:
        return int(globals()[name])
    if not (text.isascii() and text.isdigit() and len(text) <= 30 and int(text) >= 1):
        shown = repr(text) if len(text) <= 40 else repr(text[:37] + "...")
        raise InvalidInputError(f"environment variable {variable}: expected a positive integer, got {shown}")
    return int(text)


def describe_count(value: int) -> str:
    """An integer for a message, with thousands separators; a huge one by its order of magnitude.

    Examples
    --------
    >>> describe_count(65536), describe_count(10 ** 30)
    ('65,536', 'about 10^30')
    """
    return f"{value:,}" if value < 10 ** 18 else f"about 10^{len(str(value)) - 1}"


def check_at_most(name: str, value: int, *, what: str, unit: str) -> None:
    """Refuse ``value`` (a count of ``unit`` computed before anything of that size is built) above the limit
    ``name``, with a message naming ``what`` (the file and field, or the option), the limit and how to raise it.

    Examples
    --------
    >>> check_at_most("MAX_TENSOR_ENTRIES", 10 ** 9, what="net.json: input_shape", unit="entries")
    ... # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    polyregions.errors.InvalidInputError: net.json: input_shape: expected at most 65,536 entries, got ...
    """
    bound = limit(name)
    if value > bound:
        from polyregions.errors import InvalidInputError

        raise InvalidInputError(f"{what}: expected at most {bound:,} {unit}, got {describe_count(value)} (the limit "
                                f"{name} of polyregions._support.limits: set the environment variable "
                                f"POLYREGIONS_{name} to raise it)")


#: Digits converted at once by :func:`digits_value`: strings this short always convert, whatever Python's limit on
#: ``str`` to ``int`` (sys.get_int_max_str_digits, at least 640).
DIGITS_CHUNK = 600


def digits_value(digits: str, what: str, part: str = "number") -> int:
    """The integer written by ASCII ``digits``, at most :data:`MAX_DIGITS` of them, whatever Python's str limit.

    Examples
    --------
    >>> digits_value("12", what="x")
    12
    """
    if len(digits) > MAX_DIGITS:
        from polyregions.errors import InvalidInputError

        raise InvalidInputError(f"{what}: expected at most {MAX_DIGITS} digits in a {part}, got {len(digits)} digits")
    if len(digits) <= DIGITS_CHUNK:
        return int(digits)
    half = len(digits) // 2  # by halves: a few large multiplications rather than many small ones
    return digits_value(digits[:half], what, part) * 10 ** (len(digits) - half) + \
        digits_value(digits[half:], what, part)
