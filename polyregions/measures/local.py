"""Local complexity: how many regions meet the neighbourhood of each point of a data set, decided exactly.

The *neighbourhood* of a point ``x0`` of radius ``r`` is the open ball ``N = {x : ||x - x0|| < r}`` of the max
norm (a box, ``norm="inf"``), the l1 norm (a cross-polytope, ``"1"``) or the Euclidean norm (``"2"``), in any
input dimension. For every point :func:`local_complexity` counts

``activation_regions``
    the activation regions that meet ``N`` (open sets on which every neuron stays on one linear piece);
``linear_regions``
    the linear regions of the network restricted to ``N``: the connected components of ``N`` minus the set where
    the gradient is discontinuous (two activation regions inside ``N`` with the same output map count once when
    they are joined, inside ``N``, through facets across which the map does not change);
``neurons_crossing``
    the number of neurons whose breakpoint set *crosses* ``N`` (for a ReLU, the zero set of its pre-activation):
    the local complexity of Humayun, Balestriero & Baraniuk (2024), counted exactly.

Crossing, precisely
-------------------
A neuron's pre-activation ``z`` is a continuous piecewise-linear function of the input. The neuron *crosses*
``N`` when, for one of its breakpoints ``xi``, ``z - xi`` takes a positive value and a negative value in ``N``.
On each activation region of the earlier layers ``z`` is affine, so its breakpoint set is a union of pieces of
hyperplanes, one per earlier region; the neuron crosses ``N`` exactly when one of these pieces passes through
the interior of its earlier region inside ``N`` (``z - xi`` changes sign within that region), or, in degenerate
networks only, when ``z = xi`` along a common facet of two earlier regions with opposite signs on the two sides.
A neuron whose breakpoint set only touches ``N`` (``z >= xi`` throughout), or that equals ``xi`` on an open part
of ``N`` (a dead neuron with zero bias), does not cross: it makes no boundary inside ``N``.

The criterion checked is on the regions meeting ``N``: the neuron crosses exactly when ``z > xi`` at the interior
point of one of them and ``z < xi`` at the interior point of another (exact rationals). Correct, because ``z`` is
affine on each region and these regions fill ``N`` up to a set with empty interior: ``z > xi`` somewhere in
``N`` gives a region where ``z > xi`` on an open set, hence on all of it (its piece says so); ``z < xi`` somewhere
gives a region whose piece lies left of ``xi``, where an affine ``z`` that reached ``xi`` at an interior point
would be constant, so it is below ``xi`` at every interior point.

Engines
-------
Points whose whole neighbourhood lies inside one activation region are found first, for all points at once, by a
floating-point filter with proven error bounds (:mod:`polyregions.measures._local_filter`): every neuron, layer
after layer, is stable on ``N`` (``|z(x0) - xi| >= r ||grad z||_*``, the dual norm). Their counts are 1, 1 and 0.
The other points go to one of two exact engines, which give the same numbers:

``"complex"``
    the neighbourhood is the domain of :func:`~polyregions.regions.enumeration.enumerate_regions` (the box, the
    l1 ball written out with its ``2^n`` facets, or the box around the Euclidean ball with its regions kept by
    exact distance; :mod:`polyregions.measures._local_complex`), and the counts come from the region complex;
``"cells"``
    local refinement (:mod:`polyregions.measures._local_cells`): only the hyperplanes that meet ``N`` become
    rows of cells, every question is a closed form or a certified program over a few rows and the ball, so it
    runs in any dimension (784 included).

``"auto"`` takes ``"complex"`` up to input dimension 6 (where the enumeration cuts cells through their vertices,
without linear programs, and many regions per neighbourhood cost little) and ``"cells"`` above.

Examples
--------
The sawtooth of depth 3 has 8 pieces on ``[0, 1]``, each of length 1/8: the open interval of radius 1/8 around
1/2 meets two of them, the one around 3/16 three (it holds 1/8 and 1/4), and the one around 1/16 holds 0, where
``relu(x)`` bends, and 1/8:

>>> import polyregions as pr
>>> from polyregions.measures.local import local_complexity
>>> lc = local_complexity(pr.sawtooth(3), [["1/2"], ["3/16"], ["1/16"]], "1/8")
>>> lc.activation_regions.tolist(), lc.linear_regions.tolist(), lc.neurons_crossing.tolist()
([2, 3, 3], [2, 3, 3], [1, 2, 2])
"""

from __future__ import annotations

import os
import typing
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from polyregions.errors import InvalidInputError
from polyregions.exact.linalg import Vector
from polyregions.measures._local_programs import Norm
from polyregions.regions._arguments import (
    expect_dimension,
    expect_network,
    expect_path,
    expect_point_count,
    expect_points,
)

if TYPE_CHECKING:
    from polyregions.networks.network import Network

__all__ = ["LocalComplexity", "local_complexity", "load_points", "Norm", "NORMS", "LocalEngine", "LOCAL_ENGINES"]

#: The values of ``norm``: the max norm (a box), the l1 norm, the Euclidean norm.
NORMS: tuple[Norm, ...] = typing.get_args(Norm)
#: The engines of :func:`local_complexity`.
LocalEngine = Literal["auto", "complex", "cells"]
#: The values of :data:`LocalEngine`.
LOCAL_ENGINES: tuple[LocalEngine, ...] = typing.get_args(LocalEngine)
# Up to this input dimension "auto" enumerates the neighbourhood (the layerwise engine cuts cells through their
# vertices there: measured, faster than local refinement once a neighbourhood holds tens of regions).
_COMPLEX_DIMENSION = 6


@dataclass(frozen=True)
class LocalComplexity:
    """The local counts of every point: the numbers of activation regions and of linear regions meeting its
    neighbourhood, and the neurons that cross it (see :mod:`polyregions.measures.local` for the definitions).

    ``len()`` is the number of points.

    Attributes
    ----------
    norm : {"inf", "1", "2"}
        The norm of the neighbourhoods.
    radius : Fraction
        Their radius.
    activation_regions, linear_regions, neurons_crossing : ndarray of int64
        One entry per point.
    crossing : tuple of tuple of int
        Per point, the crossing neurons (indices in the order of ``Network.neurons``).
    exact : bool
        True: every count is decided exactly.

    Examples
    --------
    >>> import polyregions as pr
    >>> from polyregions.measures.local import local_complexity
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1]], [0, 0], "relu")])  # the two axes
    >>> lc = local_complexity(net, [[0, 0], [0, 5], [3, 3]], 1)
    >>> len(lc), lc.activation_regions.tolist(), lc.crossing
    (3, [4, 2, 1], ((0, 1), (0,), ()))
    >>> lc.summary()  # doctest: +NORMALIZE_WHITESPACE
    {'points': 3, 'activation_regions': [4, 2, 1], 'linear_regions': [4, 2, 1], 'neurons_crossing': [2, 1, 0],
     'exact': True}
    """

    norm: Norm
    radius: Fraction
    activation_regions: np.ndarray
    linear_regions: np.ndarray
    neurons_crossing: np.ndarray
    crossing: tuple[tuple[int, ...], ...]
    exact: bool = True

    def __len__(self) -> int:
        return len(self.activation_regions)

    def summary(self) -> dict[str, Any]:
        """The numbers of ``polyregions local --json``: ``points`` (how many), ``activation_regions``,
        ``linear_regions`` and ``neurons_crossing`` (lists, one entry per point) and ``exact``."""
        return {"points": len(self), "activation_regions": self.activation_regions.tolist(),
                "linear_regions": self.linear_regions.tolist(), "neurons_crossing": self.neurons_crossing.tolist(),
                "exact": self.exact}


def _points(points: Any, n: int) -> tuple[np.ndarray, np.ndarray, list[Vector] | None]:
    """Doubles of the points, bounds on their distance to the exact points, and the exact points (None when the
    doubles are exact: a float array)."""
    from polyregions.exact.rationals import doubles_hold, rational_vector
    from polyregions.networks._float_filter import doubles

    if isinstance(points, np.ndarray) and points.dtype.kind == "f" and doubles_hold(points):
        if points.ndim != 2 or points.shape[1] != n:
            raise InvalidInputError(f"points: expected an array of shape (count, {n}), got {points.shape}")
        X = np.array(points, dtype=np.float64)  # float16 and float32 values are doubles exactly
        if not np.isfinite(X).all():
            raise InvalidInputError("points: expected finite coordinates, got NaN or infinity")
        return X, np.zeros_like(X), None
    if isinstance(points, (str, bytes)) or not hasattr(points, "__len__"):
        raise InvalidInputError(f"points: expected a list of points or an array, got {type(points).__name__}")
    exact = [rational_vector(p, what=f"points[{i}]", length=n) for i, p in enumerate(points)]
    if not exact:
        return np.zeros((0, n)), np.zeros((0, n)), []
    X, EX = doubles([list(p) for p in exact])
    return X.reshape(len(exact), n), EX.reshape(len(exact), n), exact


def local_complexity(network: "Network", points: Any, radius: Any, *, norm: Norm = "inf",
                     engine: LocalEngine = "auto", workers: int = 1, progress: bool = False) -> LocalComplexity:
    """Exact local complexity around every point: regions and crossing neurons of its neighbourhood.

    Parameters
    ----------
    network : Network
    points : array of shape (count, input_dim), or sequence of points
        A float array is read as the exact doubles it holds; other entries are read exactly (``"1/3"``).
    radius : number
        The radius ``r > 0`` of the neighbourhoods, read exactly.
    norm : {"inf", "1", "2"}, keyword-only
        The neighbourhood ``{x : ||x - x0|| < r}``: a box (max norm), an l1 ball or a Euclidean ball.
    engine : {"auto", "complex", "cells"}, keyword-only
        How the points whose neighbourhood the filter does not settle are counted (see the module notes); the
        numbers are the same.
    workers : int, keyword-only
        Processes that share the points the filter does not settle (the counts are the same).
    progress : bool, keyword-only
        Show a progress bar on a terminal.

    Returns
    -------
    LocalComplexity
        Per point: ``activation_regions``, ``linear_regions``, ``neurons_crossing`` (and the ``crossing``
        neurons themselves).

    Raises
    ------
    InvalidInputError
        When ``network`` is not a Network, for an unknown ``norm`` or ``engine``, a radius that is not a positive
        number, no points or points that are not ``input_dim`` exact numbers each, ``workers`` not a positive
        integer, or ``engine="complex"`` with the l1 ball above dimension 10.

    Examples
    --------
    Three lines, ``x = 0``, ``y = 0`` and ``x + y = 3``: a box of radius 1/2 around ``(0, 1)`` is cut in two, one
    around the origin in four, and the one around ``(2, 2)`` only touches ``x + y = 3`` (at its corner), which
    the Euclidean ball of radius 1 crosses (at distance ``1/sqrt(2)``) and the l1 ball of radius 7/10 does not
    reach (at l1 distance 1):

    >>> import polyregions as pr
    >>> from polyregions.measures.local import local_complexity
    >>> net = pr.Network.from_layers(2, [([[1, 0], [0, 1], [1, 1]], [0, 0, -3], "relu")])
    >>> lc = local_complexity(net, [[0, 1], [0, 0], [2, 2]], "1/2")
    >>> lc.activation_regions.tolist(), lc.crossing
    ([2, 4, 1], ((0,), (0, 1), ()))
    >>> local_complexity(net, [[2, 2]], 1, norm="2").crossing
    ((2,),)
    >>> local_complexity(net, [[2, 2]], "7/10", norm="1").crossing
    ((),)
    """
    from polyregions.exact.rationals import format_rational, rational
    from polyregions.measures._local_filter import single_region_points

    network = expect_network(network)
    staged = hasattr(network, "region_rows")  # a graph network's stages: each neighbourhood's exact complex
    points = expect_points(points, "points", dim=network.input_dim)
    if norm not in NORMS:
        raise InvalidInputError(f"norm: expected one of {', '.join(NORMS)}, got {norm!r}")
    if engine not in LOCAL_ENGINES:
        raise InvalidInputError(f"engine: expected one of {', '.join(LOCAL_ENGINES)}, got {engine!r}")
    r = rational(radius, what="radius")
    if r <= 0:
        raise InvalidInputError(f"radius: expected a positive number, got {format_rational(r)}")
    n = network.input_dim
    X, EX, exact = _points(points, n)
    if engine == "auto" or staged:
        engine = "complex" if n <= _COMPLEX_DIMENSION or staged else "cells"
    if engine == "complex" and norm == "1":
        from polyregions.measures._local_complex import check_l1_dimension

        check_l1_dimension(n)  # before any work
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise InvalidInputError(f"workers: expected a positive integer, got {workers!r}")
    from polyregions.measures._local_cells import LocalNetwork
    from polyregions.measures._local_filter import doubled
    from polyregions.regions._cell_programs import float_point, homogeneous

    local = None if staged else LocalNetwork(network)
    count = X.shape[0]
    r_double, r_error = doubled(r)
    single = np.zeros(count, dtype=bool) if local is None else \
        single_region_points(local.fnet, X, EX, radius=r_double, radius_error=r_error, norm=norm)
    activation = np.ones(count, dtype=np.int64)
    linear = np.ones(count, dtype=np.int64)
    crossing: list[tuple[int, ...]] = [()] * count
    todo = np.flatnonzero(~single).tolist()
    items = [(i, homogeneous(exact[i]) if exact is not None else float_point(X[i]), X[i], EX[i]) for i in todo]
    from polyregions._support.progress import progress_bar

    with progress_bar(total=len(todo), desc="points", enabled=progress) as bar:
        if workers == 1 or len(items) < 2:
            found = _counted(network, items, r, norm, engine, local=local, bar=bar)
        else:
            found = _counted_in_processes(network, items, r, norm, engine, workers, bar)
    for i, a, lin, c in found:
        activation[i], linear[i], crossing[i] = a, lin, c
    return LocalComplexity(norm, r, activation, linear, np.array([len(c) for c in crossing], dtype=np.int64),
                           tuple(crossing))


_Item = tuple[int, tuple[int, ...], np.ndarray, np.ndarray]  # index, homogeneous centre, its doubles, their errors


def _counted(network: "Network", items: list[_Item], radius: Fraction, norm: Norm, engine: str, *,
             local: Any = None, bar: Any = None) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """``(index, activation regions, linear regions, crossing neurons)`` of every item, by the exact engine."""
    from polyregions._support.runtime import one_blas_thread
    from polyregions.measures._local_cells import LocalNetwork
    from polyregions.regions._cell_programs import to_fractions

    if local is None and engine != "complex":
        local = LocalNetwork(network)
    out = []
    with one_blas_thread():  # small products: BLAS threads only cost time on shared cores
        for i, point, X, EX in items:
            if engine == "complex":
                from polyregions.measures._local_complex import complex_counts

                out.append((i, *complex_counts(network, to_fractions(point), radius, norm)))
            else:
                regions = local.regions(point, radius, norm, X=X, EX=EX)
                out.append((i, len(regions.cells), regions.linear_count(), regions.crossing()))
            if bar is not None:
                bar.update(1)
    return out


def _counted_in_processes(network: "Network", items: list[_Item], radius: Fraction, norm: Norm, engine: str,
                          workers: int, bar: Any) -> list[tuple[int, int, int, tuple[int, ...]]]:
    """:func:`_counted` on interleaved shares of the items in worker processes."""
    from concurrent.futures import as_completed

    from polyregions._support.pools import process_pool, submit_all

    shares = [items[k::4 * workers] for k in range(min(len(items), 4 * workers))]
    found: list[tuple[int, int, int, tuple[int, ...]]] = []
    with process_pool(workers) as pool:
        futures = submit_all(pool, _counted, [(network, share, radius, norm, engine) for share in shares])
        for future in as_completed(futures):
            done = future.result()
            found.extend(done)
            bar.update(len(done))
    return found


def load_points(path: str | os.PathLike, *, input_dim: int) -> Any:
    """Read a points file: a JSON list of points, a ``.npy`` array, or a ``.npz`` archive.

    The format is described in :doc:`/formats`: a JSON file holds a list of points, each a list of
    ``input_dim`` numbers (JSON numbers or exact strings such as ``"1/3"``); a ``.npy`` file one array of shape
    ``(count, input_dim)``; a ``.npz`` file such an array named ``points`` (or as its only array). Floats are read
    as the exact doubles they hold.

    Parameters
    ----------
    path : str or path-like
    input_dim : int, keyword-only
        The input dimension of the network the points are for.

    Returns
    -------
    ndarray or list of tuple of Fraction
        A float64 array for float arrays, exact points otherwise; :func:`local_complexity` takes either.

    Raises
    ------
    InvalidInputError
        When the file cannot be read, holds no points or malformed ones (the message names the file and the
        field), or when ``input_dim`` is not a positive integer.

    Examples
    --------
    >>> import os, tempfile
    >>> from polyregions.measures.local import load_points
    >>> path = os.path.join(tempfile.mkdtemp(), "points.json")
    >>> with open(path, "w") as file:
    ...     _ = file.write('[[0, "1/3"], [0.5, -1]]')
    >>> load_points(path, input_dim=2)
    [(Fraction(0, 1), Fraction(1, 3)), (Fraction(1, 2), Fraction(-1, 1))]
    """
    from polyregions.exact.rationals import doubles_hold, rational_vector

    name = expect_path(path)
    expect_dimension(input_dim, "input_dim")
    if name.endswith((".npy", ".npz")):
        array = _read_array(path, name)
        if array.ndim != 2 or array.shape[1] != input_dim:
            raise InvalidInputError(f"{name}: points: expected an array of shape (count, {input_dim}), got "
                                    f"{array.shape}")
        expect_point_count(len(array), f"{name}: points")
        if array.dtype.kind == "f" and not doubles_hold(array):  # float128 beyond doubles: exactly, entry by entry
            return [rational_vector(row, what=f"{name}: points[{i}]") for i, row in enumerate(array)]
        if array.dtype.kind == "f":
            if not np.isfinite(array).all():
                raise InvalidInputError(f"{name}: points: expected finite numbers, got NaN or infinity")
            return np.array(array, dtype=np.float64)
        if array.dtype.kind not in "iu":
            raise InvalidInputError(f"{name}: points: expected an array of numbers, got dtype {array.dtype}")
        return [tuple(Fraction(int(v)) for v in row) for row in array.tolist()]
    from polyregions.networks.io import read_json

    data = read_json(path)
    if not isinstance(data, list):
        raise InvalidInputError(f"{name}: expected a JSON list of points, got {type(data).__name__}")
    expect_point_count(len(data), f"{name}: points")
    return [rational_vector(p, what=f"{name}: points[{i}]", length=input_dim) for i, p in enumerate(data)]


def _read_array(path: str | os.PathLike, name: str) -> np.ndarray:
    """The array of an ``.npy`` file, or the points array of an ``.npz`` archive."""
    import zipfile

    from polyregions._support.input_files import open_input

    try:
        with open_input(path) as handle:  # a regular file of a readable size: a FIFO would block np.load
            loaded = np.load(handle, allow_pickle=False)
            if isinstance(loaded, np.ndarray):
                return loaded
            with loaded:  # an .npz archive
                names = list(loaded.files)
                chosen = "points" if "points" in names else (names[0] if len(names) == 1 else None)
                if chosen is not None:
                    return loaded[chosen]
    except InvalidInputError:
        raise
    except OSError as error:
        raise InvalidInputError(f"{name}: cannot read the file: {error.strerror or error}") from None
    except (ValueError, EOFError, zipfile.BadZipFile, MemoryError) as error:
        reason = "an array larger than the memory" if isinstance(error, MemoryError) else \
            (str(error) or type(error).__name__)
        raise InvalidInputError(f"{name}: expected a numpy .npy or .npz array, got an unreadable file "
                                f"({reason[:200]})") from None
    raise InvalidInputError(f"{name}: points: expected an array named \"points\" (or a single array), got "
                            f"{', '.join(names) or 'no arrays'}")
