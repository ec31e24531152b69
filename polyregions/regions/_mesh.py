"""Vectorised mesh refinement: exact activation regions of a network on a segment or a polygon.

The domain (a segment or a convex polygon in domain coordinates ``t``) is kept as a mesh: vertices, edges and
faces, the faces being the current regions. Layer by layer, every neuron of the layer cuts the mesh at each of
its breakpoints: the layer's pre-activations are affine on every current face, so an edge whose ends lie on
opposite sides of a breakpoint gets a new vertex, and a face with vertices on both sides is split along the
chord joining its two crossing points. Faces, edges and vertices are numpy arrays and each cut is done for all
faces at once.

Every sign is decided exactly. Pre-activations are carried at the vertices as doubles with proven error bounds
(:mod:`polyregions.networks._float_filter`); a sign the bound does not prove is decided with integers, from the layer's
exact affine map on the vertex's region and the vertex's exact coordinates. Those coordinates, and the exact
inequalities of every region, come from exact integer lines: every edge lies on the line where one neuron, on
one region of the previous layers, meets one of its breakpoints. Exact affine maps are computed with integers
modulo several word-sized primes (matrix products in double precision, exact below ``2^53``) and recovered by
Chinese remaindering, with enough primes for a proven bound on their size.
"""

from __future__ import annotations

import contextlib
import gc
import math
import threading
from fractions import Fraction
from functools import partial
from typing import TYPE_CHECKING, Callable, Sequence

import numpy as np
from flint import fmpz

from polyregions.errors import InvalidInputError, PolyregionsError
from polyregions.networks._float_filter import activate, certified_signs, doubles, float_layer, forward_layer, interpolate
from polyregions.exact.linalg import Matrix, Vector
from polyregions._progress import progress_bar
from polyregions.regions.complex import Region, RegionComplex, complex_from_arrays

if TYPE_CHECKING:
    from polyregions.regions.domains import Domain
    from polyregions.networks.network import Layer, Network

__all__ = ["refine_mesh", "mesh_regions"]

_KEY = np.int64(1) << 31
# Vertex sides of a hyperplane, as bits that OR into a face's code: on it, above, below, not proven yet.
_ON, _ABOVE, _BELOW, _UNPROVEN = 0, 1, 2, 4
_SIDE_OF_SIGN = np.array([_BELOW, _ON, _ABOVE, _UNPROVEN], dtype=np.int8)  # indexed by sign + 1 (sign 2: unproven)


def refine_mesh(network: "Network", domain: "Domain", *, progress: bool = False) -> RegionComplex:
    """Enumerate the activation regions of ``network`` on a bounded 1-D or 2-D ``domain`` exactly.

    Parameters
    ----------
    network : Network
    domain : Domain
        A bounded domain of dimension 1 (a segment, a 1-D box or slice) or 2 (a polygon, a 2-D box or slice).
    progress : bool, keyword-only
        Show a progress bar over the neurons' breakpoints (on a terminal).

    Returns
    -------
    RegionComplex
        With ``engine="mesh"`` and ``exact=True``; regions in domain coordinates.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> from polyregions.networks.activations import relu
    >>> from polyregions.regions import domains as dom
    >>> net = Network.from_layers(2, [([[1, 0], [0, 1], [1, 1]], [0, 0, 0], relu())])
    >>> len(refine_mesh(net, dom.box([-1, -1], [1, 1])))
    6
    """
    k = domain.dim
    if k not in (1, 2):
        raise InvalidInputError(f"refine_mesh: expected a domain of dimension 1 or 2, got dimension {k} "
                                f"(use polyregions.regions._refine.refine for higher dimensions)")
    if domain.input_dim != network.input_dim:
        raise InvalidInputError(f"refine_mesh: expected a domain in R^{network.input_dim} (the network's input "
                                f"space), got one in R^{domain.input_dim}")
    if not domain.is_bounded():
        raise InvalidInputError(f"refine_mesh: expected a bounded domain, got an unbounded {domain.kind}")
    net = network.restrict(domain.origin, domain.directions)
    with _collector_paused():
        regions, patterns, pairs = _run(net, domain.region.A, domain.region.b, progress=progress)
        return complex_from_arrays(network, domain, regions, patterns, pairs, exact=True, engine="mesh")


@contextlib.contextmanager
def _collector_paused():
    """Pause Python's cyclic garbage collector while hundreds of thousands of acyclic objects are built (its
    repeated scans of them would otherwise triple the time); the previous state is restored.

    The objects built survive (they are the result), so they are handed straight to the oldest generation,
    where two collections would have moved them anyway, rather than left for one more scan of the youngest;
    that is skipped when the application keeps objects frozen itself (``gc.freeze``), to leave those alone.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            if gc.get_freeze_count() == 0:
                gc.freeze()
                gc.unfreeze()
            gc.enable()


def mesh_regions(net: "Network", A: Sequence[Sequence[Fraction]], b: Sequence[Fraction], *,
                 progress: bool = False) -> tuple[list[Region], set[tuple[tuple[int, ...], tuple[int, ...]]]]:
    """The regions of ``net`` (on ``R^1`` or ``R^2``) in the bounded polytope ``A t <= b`` and the pairs of
    patterns of regions sharing a facet: the engine behind :func:`refine_mesh`, on plain inequalities.

    Examples
    --------
    >>> from polyregions.networks.network import Network
    >>> from polyregions.networks.activations import hardtanh
    >>> regions, pairs = mesh_regions(Network.from_layers(1, [([[2]], [0], hardtanh())]), [[1], [-1]], [1, 1])
    >>> sorted((r.pattern, -r.b[0], r.b[1]) for r in regions)
    [((0,), Fraction(-1, 1), Fraction(-1, 2)), ((1,), Fraction(-1, 2), Fraction(1, 2)), ((2,), Fraction(1, 2), Fraction(1, 1))]
    >>> len(pairs)
    2
    """
    with _collector_paused():
        regions, _, pairs = _run(net, A, b, progress=progress)
        return regions, {(regions[i].pattern, regions[j].pattern) for i, j in pairs.tolist()}


def _run(net: "Network", A, b, *, progress: bool) -> tuple[list[Region], np.ndarray, np.ndarray]:
    """Regions, their pattern matrix and index pairs of adjacent regions."""
    A = tuple(tuple(Fraction(v) for v in row) for row in A)
    b = tuple(Fraction(v) for v in b)
    engine = (_Mesh1D if net.input_dim == 1 else _Mesh2D)(net, A, b)
    with _one_blas_thread():
        return engine.run(progress=progress)


# --- small helpers ------------------------------------------------------------------------------------------

def _one_blas_thread():
    """One BLAS thread, when threadpoolctl is installed: the engine's mid-sized matrix products gain little from
    threads and lose an order of magnitude when the cores are shared with other work."""
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _ragged(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ranges ``starts[i] .. starts[i] + lengths[i] - 1``."""
    total = int(lengths.sum())
    offsets = np.cumsum(lengths) - lengths
    return np.arange(total, dtype=np.int64) + np.repeat(starts - offsets, lengths)


def _tuples(patterns: np.ndarray) -> list[tuple[int, ...]]:
    """The rows of a matrix of small non-negative integers as tuples of ints (through bytes: fast)."""
    n = patterns.shape[1]
    if n == 0 or patterns.max(initial=0) > 127:
        return list(map(tuple, patterns.tolist()))
    data = np.ascontiguousarray(patterns, dtype=np.int8).tobytes()
    return [tuple(data[i:i + n]) for i in range(0, len(data), n)]


def _lcm(values) -> int:
    """The least common multiple of the denominators of exact rationals (Fractions or ints)."""
    return math.lcm(1, *{v.denominator for v in values})


def _grow(array: np.ndarray, needed: int) -> np.ndarray:
    """``array`` with room for at least ``needed`` rows (doubling), contents kept."""
    if needed <= array.shape[0]:
        return array
    size = max(needed, 2 * array.shape[0], 16)
    grown = np.zeros((size,) + array.shape[1:], dtype=array.dtype)
    grown[:array.shape[0]] = array
    return grown


class _ComputedOnce:
    """A list computed by ``compute()`` on the first request for any item: the exact geometry of all faces is
    built in one vectorised pass, and only when some region's inequalities or interior point are asked for."""

    def __init__(self, compute: Callable[[], list]):
        self._compute = compute
        self._items: list | None = None
        self._lock = threading.Lock()

    def item(self, index: int):
        if self._items is None:
            with self._lock:
                if self._items is None:
                    with _collector_paused():
                        self._items = self._compute()
                    self._compute = None  # releases the mesh
        return self._items[index]


class _MeshError(PolyregionsError):
    """An internal consistency check of the mesh failed (a bug, never a property of the input)."""


# --- exact affine maps by modular arithmetic ----------------------------------------------------------------

class _ExactMaps:
    """Exact integer affine maps of pre-activations on regions, computed modulo word-sized primes.

    With ``Z_q`` a common denominator (all scales below are positive integers), layer ``q``'s pre-activations
    on a region are ``z_q(t) = (P [t; 1]) / Z_q`` with an integer matrix ``P``; ``h_q = act(z_q)`` is
    ``(slope_int P + [0 | intercept_int]) / S_q`` on a piece. Symmetric residues of ``P`` modulo primes
    ``p < 2^27.5 / sqrt(n + 2) - 4`` (``n`` the largest fan-in) keep every matrix product exact in double
    precision; a bound on ``|P|`` propagated through the layers fixes how many primes recover the integers
    (their product exceeds twice the bound).
    """

    def __init__(self, layers: Sequence["Layer"], k: int):
        self.k = k
        self.layers = layers
        scales, bound_h = 1, 1  # S_{q-1} and a bound on |h| numerators
        self.bias_int, self.xi_int, self.slope_int, self.icpt_int, self.weight_int = [], [], [], [], []
        self.Z = []
        biggest = 1
        widest = k + 1
        for layer in layers:
            act = layer.activation
            omega = _lcm(v for row in layer.weight for v in row)
            Zq = math.lcm(omega * scales, _lcm(layer.bias), _lcm(act.breakpoints))
            multiplier = Zq // (omega * scales)
            W = [[v.numerator * (omega // v.denominator) * multiplier for v in row] for row in layer.weight]
            bias = [int(v * Zq) for v in layer.bias]
            xi = [int(v * Zq) for v in act.breakpoints]
            delta = math.lcm(_lcm(act.slopes), _lcm(act.intercepts))
            Sq = Zq * delta
            slopes = [int(v * delta) for v in act.slopes]
            icpts = [int(v * Sq) for v in act.intercepts]
            bound_z = max(sum(abs(v) for v in row) for row in W) * bound_h + max(abs(v) for v in bias)
            biggest = max(biggest, bound_z + max((abs(v) for v in xi), default=0))
            bound_h = max(abs(v) for v in slopes) * bound_z + max(abs(v) for v in icpts)
            scales = Sq
            widest = max(widest, len(layer.weight[0]) + 1)
            self.weight_int.append(W)
            self.bias_int.append(bias)
            self.xi_int.append(xi)
            self.slope_int.append(slopes)
            self.icpt_int.append(icpts)
            self.Z.append(Zq)
        # Residues are kept symmetric, |r| <= p/2 + 2, so a sum of n + 2 products of residues stays below 2^53
        # (and is therefore exact in double precision) when p/2 + 2 <= sqrt(2^53 / (n + 2)).
        top = 2 * math.isqrt((1 << 53) // (widest + 2)) - 5
        primes, candidate, modulus = [], top, 1
        while modulus <= 2 * biggest + 1:
            while not fmpz(candidate).is_prime():
                candidate -= 1
            primes.append(candidate)
            modulus *= candidate
            candidate -= 1
        self.primes = primes
        self.modulus = modulus
        self.p = np.array(primes, dtype=np.float64)
        self._shape_p = {d: self.p.reshape((-1,) + (1,) * (d - 1)) for d in range(1, 6)}
        self._shape_inv = {d: 1.0 / v for d, v in self._shape_p.items()}

        def residues(values):
            """Symmetric residues of the integers ``values`` (any shape) for every prime: (primes, ...)."""
            values = np.array(values, dtype=object)
            small = all(abs(v) < (1 << 62) for v in values.flat)
            values = values.astype(np.int64) if small else values
            out = []
            for p in primes:
                r = (values % p).astype(np.int64)
                out.append(np.where(2 * r > p, r - p, r))
            return np.array(out, dtype=np.float64)

        self.W_mod = [residues(W) for W in self.weight_int]
        self.b_mod = [residues(v) for v in self.bias_int]
        self.xi_mod = [residues(v) if v else None for v in self.xi_int]
        self.slope_mod = [residues(v) for v in self.slope_int]
        self.mask_only = [v == [0, 1] and not any(c) for v, c in zip(self.slope_int, self.icpt_int)]
        self.icpt_mod = [residues(v) for v in self.icpt_int]
        # Garner's inverses: inv[j][i] = p_j^-1 mod p_i.
        self._inverse = [[pow(pj, -1, pi) if j < i else 0 for i, pi in enumerate(primes)]
                         for j, pj in enumerate(primes)]

    def _reduce(self, x: np.ndarray) -> np.ndarray:
        """Symmetric residues of the exact integers ``x`` (``|x| < 2^53``), in place.

        ``fl(x * fl(1/p))`` is within ``2/p`` of ``x / p`` (two roundings of relative size ``u`` on a quotient
        below ``2^53 / p``), so ``n = rint`` of it is within ``1/2 + 2/p`` of ``x / p`` and ``x - n p`` (computed
        exactly: every term is an integer below ``2^53``) has absolute value at most ``p / 2 + 2``.
        """
        d = x.ndim
        q = np.rint(x * self._shape_inv[d])
        q *= self._shape_p[d]
        x -= q
        return x

    def _root(self) -> np.ndarray:
        """Layer 0's map on the whole domain: shape (primes, width, 1, k + 1)."""
        W, b = self.W_mod[0], self.b_mod[0]
        return np.concatenate([W, b[:, :, None]], axis=2)[:, :, None, :]

    def _activate(self, q: int, Z: np.ndarray, pieces: np.ndarray) -> np.ndarray:
        """``act_q`` on maps ``Z`` (primes, width, m, k+1) with the pieces (m, width) of every region."""
        if self.mask_only[q]:
            # Slopes 0 and 1 and no intercepts (ReLU): a mask, and residues stay reduced.
            return Z * (pieces.T == 1)[None, :, :, None]
        slopes = self.slope_mod[q][:, pieces.T]  # (primes, width, m)
        H = self._reduce(slopes[..., None] * Z)
        H[..., self.k] += self.icpt_mod[q][:, pieces.T]
        return self._reduce(H)

    def _affine(self, q: int, H: np.ndarray) -> np.ndarray:
        """Layer ``q``'s pre-activation maps from its input maps ``H`` (primes, n, m, k+1)."""
        P, n, m, c = H.shape
        Z = self._reduce(np.matmul(self.W_mod[q], H.reshape(P, n, m * c))).reshape(P, -1, m, c)
        Z[..., self.k] += self.b_mod[q][:, :, None]
        return self._reduce(Z)

    def rows(self, q: int, regions: np.ndarray, units: np.ndarray, bps: np.ndarray,
             pieces: list, ancestors: list, *, primitive: bool = True, chunk: int = 2048) -> list[tuple[int, ...]]:
        """Exact integer rows ``(a_1, ..., a_k, c)``: ``Z_q (z_{q, unit} - xi_bp)`` on each region (a region of
        level ``q``, i.e. after layers ``0..q-1``), divided by their gcd when ``primitive``."""
        regions = np.asarray(regions, dtype=np.int64)
        units = np.asarray(units, dtype=np.int64)
        bps = np.asarray(bps, dtype=np.int64)
        E = regions.size
        if E == 0:
            return []
        P, k = len(self.primes), self.k
        out = np.empty((P, E, k + 1))
        if q == 0:
            root = self._root()[:, :, 0, :]
            out[:] = root[:, units, :]
        else:
            # Events sorted by their chain of ancestors, so that a chunk of events needs few maps per level.
            chain = [regions]
            for s in range(q - 1, 0, -1):
                chain.append(ancestors[s][chain[-1]])
            order = np.lexsort(chain)
            with_intercepts = not self.mask_only[q - 1] and any(self.icpt_int[q - 1])
            for start in range(0, E, chunk):
                sel = order[start:start + chunk]
                # Row of unit j on region r: sum_n W[j, n] (slope_n Z[n, :] + intercept_n e_k) with Z the map
                # of r's parent; the slopes are folded into the weight row, so only the parent's map is gathered.
                parents = ancestors[q - 1][regions[sel]] if q > 1 else np.zeros(sel.size, dtype=np.int64)
                ids, position = np.unique(parents, return_inverse=True)
                Zt = self._maps(q - 1, ids, pieces, ancestors).transpose(0, 2, 1, 3)  # (primes, m, n, k+1)
                pieces_sel = self._pieces(pieces, q - 1, regions[sel])  # (events, n)
                W = self.W_mod[q][:, units[sel], :]  # (primes, events, n)
                if self.mask_only[q - 1]:
                    M = W * (pieces_sel == 1)
                else:
                    M = self._reduce(W * self.slope_mod[q - 1][:, pieces_sel])
                if ids.size == 1:
                    rows = np.matmul(M, Zt[:, 0])
                else:
                    rows = np.matmul(M[:, :, None, :], Zt[:, position])[:, :, 0, :]
                rows = self._reduce(rows)
                if with_intercepts:
                    rows[:, :, k] += self._reduce(self._reduce(W * self.icpt_mod[q - 1][:, pieces_sel]).sum(axis=2))
                out[:, sel, :] = rows
            out[:, :, k] += self.b_mod[q][:, units]
        xi = self.xi_mod[q]
        out[:, :, k] -= xi[:, bps]
        return self._recover(out, primitive)

    def _maps(self, s: int, ids: np.ndarray, pieces: list, ancestors: list) -> np.ndarray:
        """Layer ``s``'s pre-activation maps (primes, width, len(ids), k+1) on level-``s`` regions ``ids``
        (sorted, distinct), from their parents' maps, recursively."""
        if s == 0:
            return self._root()
        parents = ancestors[s - 1][ids] if s > 1 else np.zeros(ids.size, dtype=np.int64)
        up, position = np.unique(parents, return_inverse=True)
        Z = self._maps(s - 1, up, pieces, ancestors)
        return self._affine(s, self._activate(s - 1, Z[:, :, position, :], self._pieces(pieces, s - 1, ids)))

    def _pieces(self, pieces: list, s: int, level: np.ndarray) -> np.ndarray:
        if pieces[s] is None:  # an affine layer: one piece
            return np.zeros((level.size, len(self.layers[s].weight)), dtype=np.int64)
        return pieces[s][level]

    def _recover(self, residues: np.ndarray, primitive: bool = True) -> list[tuple[int, ...]]:
        """Integers from residues (primes, E, k+1) by Garner's algorithm (then divided by their gcd)."""
        primes = self.primes
        r = np.mod(residues.astype(np.int64), np.array(primes, dtype=np.int64)[:, None, None])
        digits = []
        for i, pi in enumerate(primes):
            t = r[i]
            for j in range(i):
                t = np.mod((t - digits[j]) % pi * self._inverse[j][i], pi)
            digits.append(t)
        value = digits[-1].astype(object)
        for i in range(len(primes) - 2, -1, -1):
            value = value * primes[i] + digits[i].astype(object)
        half = self.modulus // 2
        rows = []
        for row in value.tolist():
            row = [v - self.modulus if v > half else v for v in row]
            g = math.gcd(*row) if primitive else 1
            rows.append(tuple(v // g for v in row) if g > 1 else tuple(row))
        return rows


# --- the shared refinement loop -----------------------------------------------------------------------------

class _Mesh:
    """State and layer loop shared by the 1-D and 2-D meshes.

    Vertices carry, for the current layer, its pre-activations ``Z`` with bounds ``E`` and the proven signs
    ``S`` against every hyperplane ``h = unit * T + bp`` of the layer. Faces carry ``code``: bit 1 when a vertex
    lies strictly above hyperplane ``h``, bit 2 when one lies strictly below. Lines (where edges lie) are
    events ``(layer, unit, bp, region)``; the domain's own rows are lines with layer -1.
    """

    def __init__(self, net: "Network", A, b):
        self.net = net
        nonlinear = [q for q, layer in enumerate(net.layers) if not layer.activation.is_linear]
        self.layers = net.layers[:nonlinear[-1] + 1] if nonlinear else ()
        self.k = net.input_dim
        self.A, self.b = A, b
        self.exact = _ExactMaps(self.layers, self.k) if self.layers else None
        # Lines: (layer, unit, breakpoint, region) per line id, rows of a growing array; nlines used.
        self.lines = np.zeros((64, 4), dtype=np.int64)
        self.nlines = 0
        self.line_rows: dict[int, tuple[int, ...]] = {}
        self.pieces: list = []      # per layer: (regions at level q+1, width) int8, or None for affine layers
        self.ancestors: list = []   # per layer: level q+1 region -> level q region

    # lines ---------------------------------------------------------------------------------------------

    def _add_boundary_line(self, row: int) -> int:
        a, bi = self.A[row], self.b[row]
        scale = _lcm(list(a) + [bi])
        ints = [int(v * scale) for v in a] + [int(-bi * scale)]
        g = math.gcd(*ints)
        line = self.nlines
        self.line_rows[line] = tuple(v // g for v in ints)
        self.lines = _grow(self.lines, line + 1)
        self.lines[line] = (-1, row, 0, 0)
        self.nlines += 1
        return line

    def _add_lines(self, q: int, unit: int, bp: int, regions: np.ndarray) -> np.ndarray:
        first, n = self.nlines, regions.size
        self.lines = _grow(self.lines, first + n)
        self.lines[first:first + n, :3] = (q, unit, bp)
        self.lines[first:first + n, 3] = regions
        self.nlines += n
        return np.arange(first, first + n, dtype=np.int64)

    def _ensure_lines(self, ids) -> None:
        """Compute the exact rows of the given lines that are not known yet."""
        missing = sorted({int(i) for i in ids} - self.line_rows.keys())
        if not missing:
            return
        missing = np.array(missing, dtype=np.int64)
        layer, unit, bp, region = self.lines[missing].T
        for q in np.unique(layer):
            sel = layer == q
            rows = self.exact.rows(int(q), region[sel], unit[sel], bp[sel], self.pieces, self.ancestors)
            self.line_rows.update(zip(missing[sel].tolist(), rows))

    # exact evaluation ----------------------------------------------------------------------------------

    def _resolve(self, q: int, vertices: np.ndarray, faces: np.ndarray) -> None:
        """Decide every side of the given vertices exactly, and replace their float pre-activations by correctly
        rounded exact values (``faces[i]``: a current face whose closure holds ``vertices[i]``).

        On the face's region of the previous layers, layer ``q`` is ``z_j = (row_j . [t; 1]) / Z_q + xi_0`` with
        exact integer rows; with the vertex at ``t = x / w`` (integers, ``w > 0``) the sign of ``z_j - xi_k`` is
        that of ``row_j . [x; w] + (xi_0 - xi_k) Z_q w``, an integer.
        """
        if vertices.size == 0:
            return
        width = len(self.layers[q].weight)
        xi = self.exact.xi_int[q]
        Zq = self.exact.Z[q]
        regions, which = np.unique(self.anc[faces], return_inverse=True)
        rows = self.exact.rows(q, np.repeat(regions, width), np.tile(np.arange(width), regions.size),
                               np.zeros(regions.size * width, dtype=np.int64), self.pieces, self.ancestors,
                               primitive=False)
        table = np.empty((len(rows), self.k + 1), dtype=object)
        table[:] = rows
        for v, point, r in zip(vertices.tolist(), self._homogeneous(vertices), which.tolist()):
            w = point[-1]
            numerators = table[r * width:(r + 1) * width].dot(np.array(point, dtype=object)).tolist()
            denominator = Zq * w
            values, errors, sides = [], [], []
            for n in numerators:
                try:
                    x = (n + xi[0] * w) / denominator  # int / int: correctly rounded
                    values.append(x)
                    errors.append(2.0 ** -52 * abs(x) + 2.0 ** -1000)
                except OverflowError:
                    values.append(math.inf)
                    errors.append(math.inf)
                for xk in xi:
                    d = n + (xi[0] - xk) * w
                    sides.append(_ABOVE if d > 0 else (_BELOW if d < 0 else _ON))
            self.Z[v, :width] = values
            self.E[v, :width] = errors
            self.S[v, :len(sides)] = sides

    def _sides(self, q: int, Z: np.ndarray, E: np.ndarray) -> np.ndarray:
        """Proven sides (vertices x hyperplanes; ``_ON``, ``_ABOVE``, ``_BELOW`` or ``_UNPROVEN``) of the
        pre-activations ``Z`` (columns: units) with bounds ``E`` against layer ``q``'s breakpoints."""
        fa = self.flayers[q].activation
        T = fa.breakpoints.size
        S = np.empty((Z.shape[0], Z.shape[1] * T), dtype=np.int8)
        for k in range(T):
            S[:, k::T] = _SIDE_OF_SIGN[certified_signs(Z, E, fa.breakpoints[k], fa.breakpoint_errors[k]) + 1]
        return S

    # the layer loop ------------------------------------------------------------------------------------

    def run(self, *, progress: bool = False) -> tuple[list[Region], np.ndarray, np.ndarray]:
        """Refine layer by layer; return the regions, their pattern matrix (a row per region, a column per
        neuron) and the pairs ``(i, j)`` of regions sharing a facet (an array with two columns)."""
        self._initial_mesh()
        self.flayers = [float_layer(layer.weight, layer.bias, layer.activation) for layer in self.layers]
        total = sum(len(layer.weight) * len(layer.activation.breakpoints) for layer in self.layers)
        h_val, e_val = doubles(self.corner_points)
        with progress_bar(total=total, desc="breakpoints", enabled=progress) as bar:
            for q, layer in enumerate(self.layers):
                if q > 0:
                    h_val, e_val = activate(self.flayers[q - 1], self.Z[:self.nv], self.E[:self.nv])
                Z, E = forward_layer(self.flayers[q], h_val, e_val)
                width = Z.shape[1]
                self.Z = _grow(Z, 2 * self.nv)
                self.E = _grow(E, 2 * self.nv)
                if layer.activation.is_linear:
                    self.pieces.append(None)
                    self.ancestors.append(np.arange(self.nf, dtype=np.int64))
                    continue
                T = len(layer.activation.breakpoints)
                self.S = _grow(self._sides(q, Z, E), 2 * self.nv)
                self.anc = _grow(np.arange(self.nf, dtype=np.int64), 2 * self.nf)
                unsure = np.flatnonzero((self.S[:self.nv] == _UNPROVEN).any(axis=1))
                if unsure.size:
                    self._resolve(q, unsure, self._face_of_vertex()[unsure])
                self._start_layer(q)
                for h in range(width * T):
                    self._split(q, h)
                    bar.update(1)
                code = self.code[:self.nf].reshape(self.nf, width, T)
                self.pieces.append((code == _ABOVE).sum(axis=2).astype(np.int8 if T < 127 else np.int32))
                self.ancestors.append(self.anc[:self.nf].copy())
        return self._output()

    def _output(self) -> tuple[list[Region], np.ndarray, np.ndarray]:
        self.Z = self.E = self.S = self.code = None  # the float state is no longer needed
        patterns = self._pattern_matrix(self.nf)
        pairs = self._adjacent_pairs()
        geometry = _ComputedOnce(partial(self._face_geometry, patterns))
        net = self.net
        regions = [Region.deferred(pattern, net, partial(geometry.item, f))
                   for f, pattern in enumerate(_tuples(patterns))]
        return regions, patterns, pairs

    def _crossed(self, q: int, h: int):
        """Faces that hyperplane ``h`` of layer ``q`` crosses (vertices proven on both sides), with the float
        activation, the unit and the breakpoint index the hyperplane stands for."""
        fa = self.flayers[q].activation
        unit, bp = divmod(h, fa.breakpoints.size)
        return np.flatnonzero(self.code[:self.nf, h] == _ABOVE | _BELOW), fa, unit, bp

    def _store_vertices(self, q: int, h: int, unit: int, fa, bp: int, new_ids: np.ndarray, Zn: np.ndarray,
                        En: np.ndarray, vertex_faces: np.ndarray) -> None:
        """Append vertices created on hyperplane ``h`` (breakpoint ``bp`` of ``unit``) with their float values,
        error bounds and proven sides; sides the bounds leave open are decided exactly in ``vertex_faces``."""
        Zn[:, unit] = fa.breakpoints[bp]
        En[:, unit] = fa.breakpoint_errors[bp]
        Sn = self._new_vertex_sides(q, h, Zn, En)
        end = self.nv + len(new_ids)
        self.Z, self.E, self.S = _grow(self.Z, end), _grow(self.E, end), _grow(self.S, end)
        self.Z[new_ids], self.E[new_ids], self.S[new_ids] = Zn, En, Sn
        self.nv = end
        unsure = np.flatnonzero((Sn == _UNPROVEN).any(axis=1))
        self._resolve(q, new_ids[unsure], vertex_faces[unsure])

    def _new_vertex_sides(self, q: int, h: int, Zn: np.ndarray, En: np.ndarray) -> np.ndarray:
        """Sides of new vertices created on hyperplane ``h``: proven for the later units, exact on ``h``'s own
        unit, ``_ON`` (never read) for the earlier ones."""
        T = self.flayers[q].activation.breakpoints.size
        unit, bp = divmod(h, T)
        S = np.zeros((Zn.shape[0], Zn.shape[1] * T), dtype=np.int8)
        S[:, (unit + 1) * T:] = self._sides(q, Zn[:, unit + 1:], En[:, unit + 1:])
        xi = self.layers[q].activation.breakpoints
        for k in range(T):
            S[:, unit * T + k] = _ABOVE if xi[bp] > xi[k] else (_BELOW if xi[bp] < xi[k] else _ON)
        return S

    def _pattern_matrix(self, faces: int) -> np.ndarray:
        """Pieces of every neuron (columns in the order of ``Network.neurons``) for faces ``0..faces-1``."""
        columns = []
        current = np.arange(faces, dtype=np.int64)
        chain = []
        for q in range(len(self.layers) - 1, -1, -1):
            chain.append(current)
            current = self.ancestors[q][current]
        chain.reverse()  # chain[q]: the level q+1 region of every face
        for q, layer in enumerate(self.layers):
            if self.pieces[q] is not None:
                columns.append(self.pieces[q][chain[q]])
        if not columns:
            return np.zeros((faces, 0), dtype=np.int8)
        return np.concatenate(columns, axis=1)

    def _line_sides(self, lines: np.ndarray, faces: np.ndarray, patterns: np.ndarray) -> np.ndarray:
        """Whether each face lies above its line's breakpoint (boundary lines: False)."""
        layer, unit, bp = self.lines[lines, :3].T
        offsets = np.zeros(len(self.layers) + 1, dtype=np.int64)
        for q, layer_ in enumerate(self.layers):
            offsets[q + 1] = offsets[q] + (0 if layer_.activation.is_linear else len(layer_.weight))
        above = np.zeros(lines.size, dtype=bool)
        event = layer >= 0
        column = offsets[layer[event]] + unit[event]
        above[event] = patterns[faces[event], column] > bp[event]
        return above


# --- 2-D ----------------------------------------------------------------------------------------------------

class _Mesh2D(_Mesh):
    """Faces are counter-clockwise vertex cycles in a pool (``fstart``, ``flen``); ``pl[i]`` is the line of the
    edge from ``pv[i]`` to the next vertex of its cycle. Every vertex is the meeting point of two lines."""

    def _initial_mesh(self) -> None:
        corners, rows = _polygon(self.A, self.b)
        lines = [self._add_boundary_line(r) for r in rows]
        n = len(corners)
        self.nv, self.nf = n, 1
        self.vline = _grow(np.array([[lines[i - 1], lines[i]] for i in range(n)], dtype=np.int64), 64)
        self.corner_points = corners
        self.pv = _grow(np.arange(n, dtype=np.int64), 64)
        self.pl = _grow(np.array(lines, dtype=np.int64), 64)
        self.ptop = n
        self.fstart = _grow(np.array([0], dtype=np.int64), 64)
        self.flen = _grow(np.array([n], dtype=np.int64), 64)
        self.points_cache: dict[int, tuple[int, int, int]] = {}
        self.xy = _grow(doubles(corners)[0], 64)

    def _homogeneous(self, vertices: np.ndarray) -> list[tuple[int, int, int]]:
        """Exact ``(X, Y, W)`` with ``W > 0`` and the vertex at ``(X / W, Y / W)``."""
        self._ensure_lines(np.unique(self.vline[vertices].ravel()))
        out = []
        cache, rows = self.points_cache, self.line_rows
        for v, (l1, l2) in zip(vertices.tolist(), self.vline[vertices].tolist()):
            point = cache.get(v)
            if point is None:
                a1, a2, c = rows[l1]
                b1, b2, d = rows[l2]
                W = a1 * b2 - a2 * b1
                if W == 0:
                    raise _MeshError(f"vertex {v} lies on two parallel lines {l1}, {l2}")
                X, Y = a2 * d - c * b2, c * b1 - a1 * d
                point = (X, Y, W) if W > 0 else (-X, -Y, -W)
                cache[v] = point
            out.append(point)
        return out

    def _face_of_vertex(self) -> np.ndarray:
        """A face holding each vertex (of the compacted pool)."""
        self._compact()
        face = np.empty(self.nv, dtype=np.int64)
        face[self.pv[:self.ptop]] = np.repeat(np.arange(self.nf, dtype=np.int64), self.flen[:self.nf])
        return face

    def _compact(self) -> None:
        idx = _ragged(self.fstart[:self.nf], self.flen[:self.nf])
        self.pv = _grow(self.pv[idx], 2 * idx.size)
        self.pl = _grow(self.pl[idx], 2 * idx.size)
        self.ptop = idx.size
        self.fstart[:self.nf] = np.cumsum(self.flen[:self.nf]) - self.flen[:self.nf]

    def _start_layer(self, q: int) -> None:
        self._compact()
        code = np.bitwise_or.reduceat(self.S[self.pv[:self.ptop]], self.fstart[:self.nf], axis=0)
        self.code = _grow(code, 2 * self.nf)

    def _split(self, q: int, h: int) -> None:
        faces, fa, unit, bp = self._crossed(q, h)
        if faces.size == 0:
            return
        nf = faces.size
        lens = self.flen[faces]
        offs = np.cumsum(lens) - lens
        idx = _ragged(self.fstart[faces], lens)
        verts = self.pv[idx]
        lines = self.pl[idx]
        total = idx.size
        s = self.S[verts, h]
        nxt = np.arange(1, total + 1, dtype=np.int64)
        nxt[offs + lens - 1] = offs
        cross = (s | s[nxt]) == _ABOVE | _BELOW
        ci = np.flatnonzero(cross)
        owner = np.repeat(np.arange(nf, dtype=np.int64), lens)
        # One chord line per region of the previous layers met by this hyperplane.
        regions, region_of_face = np.unique(self.anc[faces], return_inverse=True)
        chord = self._add_lines(q, unit, bp, regions)[region_of_face]
        # New vertices, one per crossing edge (an interior edge is seen from both of its faces).
        u, w = verts[ci], verts[nxt[ci]]
        key = np.minimum(u, w) * _KEY + np.maximum(u, w)
        _, first, inverse = np.unique(key, return_index=True, return_inverse=True)
        nnew = first.size
        new_ids = self.nv + np.arange(nnew, dtype=np.int64)
        if nnew:
            rep = ci[first]
            ru, rw = verts[rep], verts[nxt[rep]]
            self.vline = _grow(self.vline, self.nv + nnew)
            self.vline[new_ids, 0] = lines[rep]
            self.vline[new_ids, 1] = chord[owner[rep]]
            Zn, En, lam = interpolate(self.Z[ru], self.E[ru], self.Z[rw], self.E[rw], unit, fa.breakpoints[bp],
                                      fa.breakpoint_errors[bp])
            # Approximate coordinates, only ever used as candidates that are then checked exactly.
            self.xy = _grow(self.xy, self.nv + nnew)
            with np.errstate(all="ignore"):  # infinite or NaN candidates are simply rejected later
                self.xy[new_ids] = self.xy[ru] + lam[:, None] * (self.xy[rw] - self.xy[ru])
            self._store_vertices(q, h, unit, fa, bp, new_ids, Zn, En, faces[owner[rep]])
        # Cycles with the new vertices inserted after their crossing corners.
        count = 1 + cross
        apos = np.cumsum(count) - count
        size = total + ci.size
        aug_v = np.empty(size, dtype=np.int64)
        aug_l = np.empty(size, dtype=np.int64)
        aug_s = np.empty(size, dtype=np.int8)
        aug_v[apos], aug_l[apos], aug_s[apos] = verts, lines, s
        aug_v[apos[ci] + 1] = new_ids[inverse]
        aug_l[apos[ci] + 1] = lines[ci]
        aug_s[apos[ci] + 1] = 0
        nlen = lens + np.bincount(owner[ci], minlength=nf)
        noffs = np.cumsum(nlen) - nlen
        zeros = np.flatnonzero(aug_s == 0)
        if zeros.size != 2 * nf:
            raise _MeshError(f"hyperplane {h} of layer {q}: expected two crossing points per split face, "
                             f"got {zeros.size} for {nf} faces")
        z1, z2 = zeros[0::2], zeros[1::2]
        lenA = z2 - z1 + 1
        lenB = nlen - lenA + 2
        if (lenA < 3).any() or (lenB < 3).any():
            raise _MeshError(f"hyperplane {h} of layer {q}: a chord along an edge")
        idxA = _ragged(z1, lenA)
        local = _ragged(np.zeros(nf, dtype=np.int64), lenB)
        idxB = np.repeat(noffs, lenB) + (np.repeat(z2 - noffs, lenB) + local) % np.repeat(nlen, lenB)
        vA, lA = aug_v[idxA], aug_l[idxA]
        vB, lB = aug_v[idxB], aug_l[idxB]
        endA = np.cumsum(lenA) - 1
        endB = np.cumsum(lenB) - 1
        lA[endA] = chord
        lB[endB] = chord
        sideA = aug_s[z1 + 1]
        # Write the two parts: the face keeps part A, a new face gets part B.
        base = self.ptop
        need = base + vA.size + vB.size
        self.pv = _grow(self.pv, need)
        self.pl = _grow(self.pl, need)
        self.pv[base:need] = np.concatenate([vA, vB])
        self.pl[base:need] = np.concatenate([lA, lB])
        self.ptop = need
        new_faces = self.nf + np.arange(nf, dtype=np.int64)
        for name in ("fstart", "flen", "anc", "code"):
            setattr(self, name, _grow(getattr(self, name), self.nf + nf))
        startsA = base + endA + 1 - lenA
        startsB = base + vA.size + endB + 1 - lenB
        self.fstart[faces], self.flen[faces] = startsA, lenA
        self.fstart[new_faces], self.flen[new_faces] = startsB, lenB
        self.anc[new_faces] = self.anc[faces]
        self.code[new_faces, :h] = self.code[faces, :h]
        self.code[faces, h] = sideA
        self.code[new_faces, h] = (_ABOVE | _BELOW) ^ sideA
        if h + 1 < self.code.shape[1]:
            bits = self.S[np.concatenate([vA, vB]), h + 1:]
            starts = np.concatenate([endA + 1 - lenA, vA.size + endB + 1 - lenB])
            reduced = np.bitwise_or.reduceat(bits, starts, axis=0)
            self.code[faces, h + 1:] = reduced[:nf]
            self.code[new_faces, h + 1:] = reduced[nf:]
        self.nf += nf

    def _adjacent_pairs(self) -> np.ndarray:
        """The two faces of every interior edge (an edge appears once in each of its faces' cycles)."""
        self._compact()
        nf, total = self.nf, self.ptop
        owner = np.repeat(np.arange(nf, dtype=np.int64), self.flen[:nf])
        u, w = self.pv[:total], self.pv[self._next_in_cycle()]
        key = np.minimum(u, w) * _KEY + np.maximum(u, w)
        order = np.argsort(key, kind="stable")
        sk = key[order]
        same = np.flatnonzero(sk[1:] == sk[:-1])
        pairs = np.stack([owner[order[same]], owner[order[same + 1]]], axis=1)
        return np.unique(np.sort(pairs, axis=1), axis=0)

    def _next_in_cycle(self) -> np.ndarray:
        """For every position of the (compacted) pool, the position of the next vertex of its face's cycle."""
        offs, lens = self.fstart[:self.nf], self.flen[:self.nf]
        nxt = np.arange(1, self.ptop + 1, dtype=np.int64)
        nxt[offs + lens - 1] = offs
        return nxt

    def _face_geometry(self, patterns: np.ndarray) -> list[tuple[Matrix, Vector, Vector]]:
        """Every face's exact inequalities (one row per maximal run of edges on one line) and interior point."""
        nf = self.nf
        lens, offs = self.flen[:nf], self.fstart[:nf]
        verts, lines = self.pv[:self.ptop], self.pl[:self.ptop]
        prev = np.arange(-1, self.ptop - 1, dtype=np.int64)
        prev[offs] = offs + lens - 1
        owner = np.repeat(np.arange(nf, dtype=np.int64), lens)
        run_start = lines != lines[prev]
        run_idx = np.flatnonzero(run_start)
        run_lines = lines[run_idx]
        run_faces = owner[run_idx]
        self._ensure_lines(np.unique(run_lines))
        above = self._line_sides(run_lines, run_faces, patterns)
        codes, code_of_run = np.unique(run_lines * 2 + above, return_inverse=True)
        row_objects = [self._oriented_row(int(c) >> 1, bool(c & 1)) for c in codes.tolist()]
        all_A = [row_objects[i][0] for i in code_of_run.tolist()]
        all_b = [row_objects[i][1] for i in code_of_run.tolist()]
        points = self._interior_points(nf, offs, lens, verts, run_faces, run_start, codes, code_of_run)
        ends = np.cumsum(np.bincount(run_faces, minlength=nf)).tolist()
        return [(tuple(all_A[start:end]), tuple(all_b[start:end]), point)
                for start, end, point in zip([0] + ends[:-1], ends, points)]

    def _oriented_row(self, line: int, above: bool) -> tuple[tuple[Fraction, ...], Fraction]:
        """The row ``a . t <= c`` of a line for a face below (or above) its breakpoint."""
        if self.lines[line, 0] < 0:
            i = int(self.lines[line, 1])
            return self.A[i], self.b[i]
        ints = self.line_rows[line]
        sign = -1 if above else 1
        return tuple(Fraction(sign * v) for v in ints[:-1]), Fraction(-sign * ints[-1])

    @staticmethod
    def _strictly_inside(points, r, rows, run_faces, code_of_run, *, faces=None) -> np.ndarray:
        """Whether each face's candidate point (a row of doubles) satisfies every one of its rows strictly;
        only faces in the mask ``faces`` (default: all) are examined."""
        from polyregions.networks._float_filter import gamma, safety

        x, y = points[run_faces, 0], points[run_faces, 1]
        with np.errstate(all="ignore"):
            value = r[:, 0] * x + r[:, 1] * y - r[:, 2]
            bound = gamma(5) * (np.abs(r[:, 0] * x) + np.abs(r[:, 1] * y) + np.abs(r[:, 2])) * safety(3)
            proven = value < -bound
        ok = np.isfinite(points).all(axis=1)
        if faces is not None:
            ok &= faces
        unsure = np.flatnonzero(~proven & ok[run_faces])
        if unsure.size:
            xs, ys = points[:, 0].tolist(), points[:, 1].tolist()
            for run in unsure.tolist():
                f = int(run_faces[run])
                if not ok[f]:
                    continue
                a1, a2, c = rows[int(code_of_run[run])]
                (nx, dx), (ny, dy) = xs[f].as_integer_ratio(), ys[f].as_integer_ratio()
                if a1 * nx * dy + a2 * ny * dx >= c * dx * dy:
                    ok[f] = False
        return ok

    def _integer_row(self, line: int, above: bool) -> tuple[int, int, int]:
        """Integers ``(a1, a2, c)`` with the face's side of the line being ``a1 x + a2 y <= c``."""
        if self.lines[line, 0] < 0:
            i = int(self.lines[line, 1])
            a, bi = self.A[i], self.b[i]
            scale = _lcm(list(a) + [bi])
            return int(a[0] * scale), int(a[1] * scale), int(bi * scale)
        a1, a2, c = self.line_rows[line]
        return (-a1, -a2, c) if above else (a1, a2, -c)

    def _interior_points(self, nf, offs, lens, verts, run_faces, run_start, codes, code_of_run):
        """An exact point strictly inside every face.

        The candidate is the mean of the face's approximate vertex coordinates rounded to a grid of powers of
        two finer than the face's (approximate) inradius, so that it is a short dyadic rational; failing that,
        the double nearest the mean. A candidate is kept when it satisfies every inequality of the face
        strictly: proven in floating point (``fl(a1 x + a2 y - c)``, with the integers rounded to doubles, is
        within ``gamma_5 (|a1 x| + |a2 y| + |c|)`` of the exact value) or else checked with integers. A face
        whose candidates fail gets the exact mean of three corners (vertices where the edge line changes),
        which are never collinear on a convex polygon, so that their mean is interior.
        """
        rows = [self._integer_row(int(c) >> 1, bool(c & 1)) for c in codes.tolist()]
        floats = np.array([[_to_double(v) for v in row] for row in rows], dtype=np.float64).reshape(-1, 3)
        r = floats[code_of_run]
        run_offsets = np.cumsum(np.bincount(run_faces, minlength=nf)) - np.bincount(run_faces, minlength=nf)
        with np.errstate(all="ignore"):
            centre = np.add.reduceat(self.xy[verts], offs, axis=0) / lens[:, None]
            slack = (r[:, 2] - r[:, 0] * centre[run_faces, 0] - r[:, 1] * centre[run_faces, 1]) / np.hypot(r[:, 0],
                                                                                                           r[:, 1])
            radius = np.minimum.reduceat(slack, run_offsets)
            step = np.exp2(np.floor(np.log2(radius)) - 2)
            rounded = np.round(centre / step[:, None]) * step[:, None]
        good = np.isfinite(rounded).all(axis=1) & (radius > 0)
        rounded[~good] = centre[~good]
        ok = self._strictly_inside(rounded, r, rows, run_faces, code_of_run)
        retry = ~ok & good
        if retry.any():
            rounded[retry] = centre[retry]
            ok[retry] = self._strictly_inside(rounded, r, rows, run_faces, code_of_run, faces=retry)[retry]
        points = [(Fraction(x), Fraction(y)) if inside else None
                  for inside, x, y in zip(ok.tolist(), rounded[:, 0].tolist(), rounded[:, 1].tolist())]
        missing = np.flatnonzero(~ok).tolist()
        if missing:
            # Three corners of every face that needs them: the first three run starts of its cycle.
            running = np.cumsum(run_start)
            rank = running - np.repeat(running[offs] - run_start[offs], lens) - 1
            first_three = np.flatnonzero(run_start & (rank < 3))
            corner = verts[first_three].reshape(nf, 3)[missing]
            homogeneous = self._homogeneous(corner.ravel())
            for i, f in enumerate(missing):
                (X1, Y1, W1), (X2, Y2, W2), (X3, Y3, W3) = homogeneous[3 * i:3 * i + 3]
                if X1 * (Y2 * W3 - Y3 * W2) - Y1 * (X2 * W3 - X3 * W2) + W1 * (X2 * Y3 - X3 * Y2) == 0:
                    raise _MeshError(f"face {f}: three collinear corners")
                den = 3 * W1 * W2 * W3
                points[f] = (Fraction(X1 * W2 * W3 + X2 * W1 * W3 + X3 * W1 * W2, den),
                             Fraction(Y1 * W2 * W3 + Y2 * W1 * W3 + Y3 * W1 * W2, den))
        return points


def _to_double(value: int) -> float:
    """The nearest double to an integer, or infinity beyond the double range (then nothing is proven)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _polygon(A, b) -> tuple[list[tuple[Fraction, Fraction]], list[int]]:
    """The corners of the bounded polygon ``A t <= b`` counter-clockwise, and for corner ``i`` the row whose
    line carries the edge from corner ``i`` to corner ``i + 1``."""
    m = len(A)
    points = set()
    for i in range(m):
        for j in range(i + 1, m):
            (a1, a2), (c1, c2) = A[i], A[j]
            det = a1 * c2 - a2 * c1
            if det == 0:
                continue
            x = (b[i] * c2 - a2 * b[j]) / det
            y = (a1 * b[j] - c1 * b[i]) / det
            if all(r[0] * x + r[1] * y <= bi for r, bi in zip(A, b)):
                points.add((x, y))
    points = list(points)
    if len(points) < 3:
        raise InvalidInputError(f"refine_mesh: expected a bounded two-dimensional polygon, got {len(points)} corners")
    cx = sum(p[0] for p in points) / len(points)
    cy = sum(p[1] for p in points) / len(points)

    def angle_key(p):
        # Exact angular order around the centroid: half-plane first, then by cross products via a fraction.
        dx, dy = p[0] - cx, p[1] - cy
        half = 0 if (dy > 0 or (dy == 0 and dx > 0)) else 1
        return half, _Slope(dx, dy)

    points.sort(key=angle_key)
    rows = []
    for i, p in enumerate(points):
        q = points[(i + 1) % len(points)]
        row = next((r for r in range(m) if any(A[r]) and A[r][0] * p[0] + A[r][1] * p[1] == b[r]
                    and A[r][0] * q[0] + A[r][1] * q[1] == b[r]), None)
        if row is None:
            raise _MeshError("polygon edge without a supporting row")
        rows.append(row)
    return points, rows


class _Slope:
    """Orders directions within one half-plane counter-clockwise by the sign of a cross product."""

    def __init__(self, dx, dy):
        self.dx, self.dy = dx, dy

    def __lt__(self, other):
        return self.dx * other.dy - self.dy * other.dx > 0


# --- 1-D ----------------------------------------------------------------------------------------------------

class _Mesh1D(_Mesh):
    """Faces are intervals ``[left, right]`` of vertices; every vertex lies on one line (a point)."""

    def _initial_mesh(self) -> None:
        lower = upper = None
        for i, ((a,), bi) in enumerate(zip(self.A, self.b)):
            if a > 0 and (upper is None or bi / a < upper[0]):
                upper = (bi / a, i)
            elif a < 0 and (lower is None or bi / a > lower[0]):
                lower = (bi / a, i)
        if lower is None or upper is None or not lower[0] < upper[0]:
            raise InvalidInputError("refine_mesh: expected a bounded segment of positive length")
        self.nv, self.nf = 2, 1
        self.vline = _grow(np.array([self._add_boundary_line(lower[1]), self._add_boundary_line(upper[1])],
                                    dtype=np.int64), 64)
        self.corner_points = [(lower[0],), (upper[0],)]
        self.left = _grow(np.array([0], dtype=np.int64), 64)
        self.right = _grow(np.array([1], dtype=np.int64), 64)

    def _homogeneous(self, vertices: np.ndarray) -> list[tuple[int, int]]:
        """Exact ``(X, W)`` with ``W > 0`` and the vertex at ``X / W``: the root of its line ``a t + c``."""
        self._ensure_lines(np.unique(self.vline[vertices]))
        points = []
        for line in self.vline[vertices].tolist():
            a, c = self.line_rows[line]
            points.append((-c, a) if a > 0 else (c, -a))
        return points

    def _exact_points(self, vertices: np.ndarray) -> list[tuple[Fraction]]:
        return [(Fraction(X, W),) for X, W in self._homogeneous(vertices)]

    def _face_of_vertex(self) -> np.ndarray:
        face = np.empty(self.nv, dtype=np.int64)
        face[self.right[:self.nf]] = np.arange(self.nf)
        face[self.left[:self.nf]] = np.arange(self.nf)
        return face

    def _start_layer(self, q: int) -> None:
        nf = self.nf
        code = self.S[self.left[:nf]] | self.S[self.right[:nf]]
        self.code = _grow(code, 2 * nf)

    def _split(self, q: int, h: int) -> None:
        faces, fa, unit, bp = self._crossed(q, h)
        if faces.size == 0:
            return
        nf = faces.size
        lo, hi = self.left[faces], self.right[faces]
        chord = self._add_lines(q, unit, bp, self.anc[faces])
        new_ids = self.nv + np.arange(nf, dtype=np.int64)
        self.vline = _grow(self.vline, self.nv + nf)
        self.vline[new_ids] = chord
        Zn, En, _ = interpolate(self.Z[lo], self.E[lo], self.Z[hi], self.E[hi], unit, fa.breakpoints[bp],
                                fa.breakpoint_errors[bp])
        self._store_vertices(q, h, unit, fa, bp, new_ids, Zn, En, faces)
        new_faces = self.nf + np.arange(nf, dtype=np.int64)
        for name in ("left", "right", "anc", "code"):
            setattr(self, name, _grow(getattr(self, name), self.nf + nf))
        self.right[faces] = new_ids
        self.left[new_faces], self.right[new_faces] = new_ids, hi
        self.anc[new_faces] = self.anc[faces]
        self.code[new_faces, :h] = self.code[faces, :h]
        low_side = self.S[lo, h]
        self.code[faces, h] = low_side
        self.code[new_faces, h] = (_ABOVE | _BELOW) ^ low_side
        if h + 1 < self.code.shape[1]:
            S = self.S[:, h + 1:]
            self.code[faces, h + 1:] = S[lo] | S[new_ids]
            self.code[new_faces, h + 1:] = S[new_ids] | S[hi]
        self.nf += nf

    def _adjacent_pairs(self) -> np.ndarray:
        """Consecutive intervals: the one right of each face, where there is one."""
        nf = self.nf
        face_right_of = np.full(self.nv, -1, dtype=np.int64)
        face_right_of[self.left[:nf]] = np.arange(nf)
        neighbour = face_right_of[self.right[:nf]]
        return np.stack([np.arange(nf)[neighbour >= 0], neighbour[neighbour >= 0]], axis=1)

    def _face_geometry(self, patterns: np.ndarray) -> list[tuple[Matrix, Vector, Vector]]:
        """Every interval ``[a, c]`` as ``-t <= -a, t <= c`` with its midpoint."""
        nf = self.nf
        points = self._exact_points(np.arange(self.nv, dtype=np.int64))
        minus, plus = (Fraction(-1),), (Fraction(1),)
        geometry = []
        for f, (lo, hi) in enumerate(zip(self.left[:nf].tolist(), self.right[:nf].tolist())):
            a, c = points[lo][0], points[hi][0]
            if not a < c:
                raise _MeshError(f"interval {f} is empty")
            geometry.append(((minus, plus), (-a, c), ((a + c) / 2,)))
        return geometry
