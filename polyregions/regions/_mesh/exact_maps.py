"""Exact integer affine maps of a layer's pre-activations on the mesh's regions, by modular arithmetic.

Maps are computed with integers modulo several word-sized primes (matrix products in double precision, exact
below ``2^53``) and recovered by Chinese remaindering, with enough primes for a proven bound on their size.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Sequence

import numpy as np

from polyregions.exact._integers import lcm
from polyregions.regions._mesh.support import distinct, ragged

if TYPE_CHECKING:
    from polyregions.networks.network import Layer

__all__ = ["ExactMaps"]


class ExactMaps:
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
        self.S: list[int] = []  # S_q: layer q's outputs are h_q = (integer map) / S_q
        biggest = 1
        widest = k + 1
        self.csr: list[tuple[np.ndarray, np.ndarray] | None] = []  # a sparse layer's (indptr, indices)
        for layer in layers:
            act = layer.activation
            sparse = hasattr(layer, "rows") and layer is not layers[0]  # the first layer reads only k inputs
            if sparse:
                indptr, indices, values = layer.csr()  # type: ignore[attr-defined]  # a SparseLayer
            else:
                values = [v for row in layer.weight for v in row]
            # A layer's weights are Fractions with few distinct denominators (powers of two for float weights):
            # one division per denominator rather than per weight.
            denominators = {v.denominator for v in values} or {1}
            omega = math.lcm(*denominators)
            Zq = math.lcm(omega * scales, lcm(layer.bias), lcm(act.breakpoints))
            multiplier = Zq // (omega * scales)
            factor = {d: omega // d * multiplier for d in denominators}
            if sparse:
                W = [v.numerator * factor[v.denominator] for v in values]  # the non-zero weights, row by row
                sums = np.zeros(layer.width, dtype=object)
                np.add.at(sums, np.repeat(np.arange(layer.width), np.diff(indptr)), [abs(v) for v in W])
                row_bound = max(sums.tolist(), default=0)
                self.csr.append((indptr, indices))
            else:
                dense = [[v.numerator * factor[v.denominator] for v in row] for row in layer.weight]
                row_bound = max(sum(abs(v) for v in row) for row in dense)
                self.csr.append(None)
            bias = [int(v * Zq) for v in layer.bias]
            xi = [int(v * Zq) for v in act.breakpoints]
            delta = math.lcm(lcm(act.slopes), lcm(act.intercepts))
            Sq = Zq * delta
            slopes = [int(v * delta) for v in act.slopes]
            icpts = [int(v * Sq) for v in act.intercepts]
            bound_z = row_bound * bound_h + max(abs(v) for v in bias)
            biggest = max(biggest, bound_z + max((abs(v) for v in xi), default=0))
            bound_h = max(abs(v) for v in slopes) * bound_z + max(abs(v) for v in icpts)
            scales = Sq
            self.S.append(Sq)
            widest = max(widest, layer.fan_in + 1)
            self.weight_int.append(W if sparse else dense)
            self.bias_int.append(bias)
            self.xi_int.append(xi)
            self.slope_int.append(slopes)
            self.icpt_int.append(icpts)
            self.Z.append(Zq)
        biggest = max(biggest, bound_h)  # the last layer's outputs (output_maps) are recovered too
        # Residues are kept symmetric, |r| <= p/2 + 2, so a sum of n + 2 products of residues stays below 2^53
        # (and is therefore exact in double precision) when p/2 + 2 <= sqrt(2^53 / (n + 2)).
        top = 2 * math.isqrt((1 << 53) // (widest + 2)) - 5
        primes, candidate, modulus = [], top, 1
        while modulus <= 2 * biggest + 1:
            while not _is_prime(candidate):
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
            values = _small_integers(values)
            out = []
            for p in primes:
                r = (values % p).astype(np.int64)
                out.append(np.where(2 * r > p, r - p, r))
            return np.array(out, dtype=np.float64)

        # A sparse layer's residues: (primes, non-zero weights), in its rows' order.
        self.W_mod = [residues(W) for W in self.weight_int]
        self._csr_mod: dict[int, list] = {}
        # The maps of the last two levels asked for (level, ids, units) -> maps, for the run of (pieces,
        # ancestors) they were computed in: layer q + 1's rows then start from layer q's maps, not from the root
        # (otherwise a network of L layers costs L^2 / 2 layer products). Bounded in bytes.
        self._recent: dict[tuple[int, bytes, bytes | None], np.ndarray] = {}
        self._recent_run: tuple[list, list] | None = None
        self.b_mod = [residues(v) for v in self.bias_int]
        self.xi_mod: list[np.ndarray | None] = [residues(v) if v else None for v in self.xi_int]
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

    def _sparse_mod(self, q: int) -> list:
        """Layer ``q``'s residues as one ``scipy.sparse.csr_array`` per prime (built on first use)."""
        if q not in self._csr_mod:
            from scipy.sparse import csr_array

            csr = self.csr[q]
            assert csr is not None
            indptr, indices = csr
            shape = (self.layers[q].width, self.layers[q].fan_in)
            self._csr_mod[q] = [csr_array((self.W_mod[q][i], indices, indptr), shape=shape)
                                for i in range(len(self.primes))]
        return self._csr_mod[q]

    def _row_columns(self, q: int, units: np.ndarray | None) -> np.ndarray | None:
        """The columns (inputs) that the rows ``units`` of a sparse layer ``q`` read, sorted (None: all, for a
        dense layer or all rows)."""
        csr = self.csr[q]
        if csr is None or units is None:
            return None
        indptr, indices = csr
        starts, ends = indptr[units], indptr[units + 1]
        return distinct(indices[ragged(starts, ends - starts)]) if units.size else np.zeros(0, dtype=np.int64)

    def _affine(self, q: int, H: np.ndarray, units: np.ndarray | None = None,
                columns: np.ndarray | None = None) -> np.ndarray:
        """Layer ``q``'s pre-activation maps from its input maps ``H`` (primes, n, m, k+1): of the units
        ``units`` only (all when None), ``H`` holding the inputs ``columns`` only (all when None)."""
        P, n, m, c = H.shape
        if self.csr[q] is None:
            W = self.W_mod[q] if units is None else self.W_mod[q][:, units, :]
            if columns is not None:
                W = W[:, :, columns]
            Z = self._reduce(np.matmul(W, H.reshape(P, n, m * c))).reshape(P, -1, m, c)
        else:
            # One sparse product per prime: the sums of residue products stay below 2^53 (exact) as in the
            # dense product, a row having at most fan-in terms.
            out: list[np.ndarray] = []
            for matrix in self._sparse_mod(q):
                if units is not None:
                    matrix = matrix[units]
                if columns is not None:
                    matrix = matrix[:, columns]
                out.append(matrix @ H[len(out)].reshape(n, m * c))
            Z = self._reduce(np.array(out, dtype=np.float64)).reshape(P, -1, m, c)
        bias = self.b_mod[q] if units is None else self.b_mod[q][:, units]
        Z[..., self.k] += bias[:, :, None]
        return self._reduce(Z)

    def rows(self, q: int, regions: np.ndarray, units: np.ndarray, bps: np.ndarray,
             pieces: list, ancestors: list, *, primitive: bool = True, chunk: int = 2048) -> list[tuple[int, ...]]:
        """Exact integer rows ``(a_1, ..., a_k, c)``: ``Z_q (z_{q, unit} - xi_bp)`` on each region (a region of
        level ``q``, i.e. after layers ``0..q-1``), divided by their gcd when ``primitive``."""
        regions = np.asarray(regions, dtype=np.int64)
        units = np.asarray(units, dtype=np.int64)
        E = regions.size
        if E == 0:
            return []
        P, k = len(self.primes), self.k
        out = np.empty((P, E, k + 1))
        if q == 0:
            out[:] = self._root()[:, units, 0, :]
        else:
            # Events sorted by their chain of ancestors, so that a chunk of events needs few maps per level.
            chain = [regions]
            for s in range(q - 1, 0, -1):
                chain.append(ancestors[s][chain[-1]])
            order = np.lexsort(chain)
            for start in range(0, E, chunk):
                sel = order[start:start + chunk]
                parents = ancestors[q - 1][regions[sel]] if q > 1 else np.zeros(sel.size, dtype=np.int64)
                ids, position = np.unique(parents, return_inverse=True)
                columns = self._row_columns(q, units[sel])
                Z = self._maps(q - 1, ids, pieces, ancestors, columns)
                out[:, sel, :] = self._rows_on(q, Z, columns, position, regions[sel], units[sel], pieces)
        return self._recover(self._shifted(out, np.full(E, q), units, bps), primitive)

    def rows_of_levels(self, levels: np.ndarray, regions: np.ndarray, units: np.ndarray, bps: np.ndarray,
                       pieces: list, ancestors: list, *, chunk: int = 2048) -> list[tuple[int, ...]]:
        """The primitive rows of :meth:`rows` for regions of several levels at once (``levels``, one per region).

        A chunk of regions that share ancestors takes every level once, from the root up: each level's maps
        (of the units the levels above read) come from the level below and serve the rows of the chunk's regions
        of the next level. Asked level by level, each level would start again from the root: a network of
        ``L`` layers would cost about ``L / 2`` times as many layer products."""
        levels = np.asarray(levels, dtype=np.int64)
        regions = np.asarray(regions, dtype=np.int64)
        units = np.asarray(units, dtype=np.int64)
        E = regions.size
        if E == 0:
            return []
        P, k = len(self.primes), self.k
        top = int(levels.max())
        # chain[s]: each region's ancestor of level s (0 at the root), -1 where the region is not deeper than s.
        chain = [np.where(levels > 0, 0, -1)] + [np.full(E, -1, dtype=np.int64) for _ in range(1, top)]
        current = regions.copy()
        for s in range(top - 1, 0, -1):
            deeper = levels > s
            current[deeper] = ancestors[s][current[deeper]]
            chain[s][deeper] = current[deeper]
        order = np.lexsort([regions, levels] + chain[:0:-1])
        out = np.empty((P, E, k + 1))
        for start in range(0, E, chunk):
            self._chunk_rows(order[start:start + chunk], levels, regions, units, chain, pieces, ancestors, out)
        return self._recover(self._shifted(out, levels, units, bps), True)

    def _chunk_rows(self, sel: np.ndarray, levels: np.ndarray, regions: np.ndarray, units: np.ndarray,
                    chain: list[np.ndarray], pieces: list, ancestors: list, out: np.ndarray) -> None:
        """The rows (bias left out) of the regions ``sel``, written into ``out``, level by level from the root."""
        lv = levels[sel]
        top = int(lv.max())
        root = self._root()
        if top == 0:
            out[:, sel, :] = root[:, units[sel], 0, :]
            return
        # The units whose maps each level needs, from the top down: those that the next level's asked units
        # read, and those that its own maps read when a level above needs them (all of them for a dense layer).
        need: list[np.ndarray | None] = [None] * top
        for s in range(top - 1, -1, -1):
            parts = [units[sel[lv == s + 1]]]
            if (lv > s + 1).any():
                parts.append(need[s + 1])  # None: every unit
            asked = None if any(part is None for part in parts) else distinct(np.concatenate(parts))
            need[s] = self._row_columns(s + 1, asked)
        Z = root if need[0] is None else root[:, need[0]]
        ids = np.zeros(1, dtype=np.int64)
        for s in range(top):
            at = sel[lv == s + 1]
            if at.size:
                position = np.searchsorted(ids, chain[s][at])
                out[:, at, :] = self._rows_on(s + 1, Z, need[s], position, regions[at], units[at], pieces)
            deeper = sel[lv > s + 1]
            if not deeper.size:
                break
            up = distinct(chain[s + 1][deeper])
            position = np.searchsorted(ids, ancestors[s][up] if s > 0 else np.zeros(up.size, dtype=np.int64))
            # np.take, not Z[:, :, position]: a C-ordered copy, which the products below read without another
            H = self._activate(s, np.take(Z, position, axis=2), self._pieces(pieces, s, up, need[s]))
            Z, ids = self._affine(s + 1, H, need[s + 1], need[s]), up
        at = sel[lv == 0]
        out[:, at, :] = root[:, units[at], 0, :]

    def _shifted(self, out: np.ndarray, levels: np.ndarray, units: np.ndarray, bps: np.ndarray) -> np.ndarray:
        """The rows ``out`` given their bias (a level-0 row has it from the root's map) and less their breakpoint,
        in place."""
        bps = np.asarray(bps, dtype=np.int64)
        k = self.k
        for q in distinct(levels).tolist():
            at = levels == q
            if q > 0:
                out[:, at, k] += self.b_mod[q][:, units[at]]
            xi = self.xi_mod[q]
            assert xi is not None  # rows are asked for on layers with breakpoints only
            out[:, at, k] -= xi[:, bps[at]]
        return out

    def _rows_on(self, q: int, Z: np.ndarray, columns: np.ndarray | None, position: np.ndarray,
                 regions: np.ndarray, units: np.ndarray, pieces: list) -> np.ndarray:
        """The rows (primes, events, k+1), bias left out, of the units ``units`` of layer ``q`` on the
        level-``q`` regions ``regions``, from ``Z``: layer ``q - 1``'s maps of the units ``columns`` (all when
        None) on their parents, each region's at ``position``."""
        k = self.k
        with_intercepts = not self.mask_only[q - 1] and any(self.icpt_int[q - 1])
        if self.csr[q] is not None:
            return self._sparse_rows(q, Z, columns, position, regions, units, pieces, with_intercepts)
        # Row of unit j on region r: sum_n W[j, n] (slope_n Z[n, :] + intercept_n e_k) with Z the map of r's
        # parent; the slopes are folded into the weight row, so only the parent's map is gathered.
        Zt = Z.transpose(0, 2, 1, 3)  # (primes, m, n, k+1)
        pieces_sel = self._pieces(pieces, q - 1, regions)  # (events, n)
        W = self.W_mod[q][:, units, :]  # (primes, events, n)
        if self.mask_only[q - 1]:
            M = W * (pieces_sel == 1)
        else:
            M = self._reduce(W * self.slope_mod[q - 1][:, pieces_sel])
        if Zt.shape[1] == 1:
            rows = np.matmul(M, Zt[:, 0])
        else:
            rows = np.matmul(M[:, :, None, :], np.take(Zt, position, axis=1))[:, :, 0, :]
        rows = self._reduce(rows)
        if with_intercepts:
            rows[:, :, k] += self._reduce(self._reduce(W * self.icpt_mod[q - 1][:, pieces_sel]).sum(axis=2))
        return rows

    def _sparse_rows(self, q: int, Z: np.ndarray, columns: np.ndarray | None, position: np.ndarray,
                     regions: np.ndarray, units: np.ndarray, pieces: list, with_intercepts: bool) -> np.ndarray:
        """:meth:`_rows_on` for a sparse layer ``q``: each event's non-zero weights times the slopes of its
        region's pieces times the parent's maps of the columns read, summed per event."""
        k = self.k
        indptr, indices = self.csr[q]  # type: ignore[misc]
        counts = indptr[units + 1] - indptr[units]
        at = ragged(indptr[units], counts)  # the events' non-zero weights, event by event
        event = np.repeat(np.arange(units.size), counts)
        rows = np.zeros((len(self.primes), units.size, k + 1))
        if not at.size:
            return rows
        local = indices[at] if columns is None else np.searchsorted(columns, indices[at])
        piece = (pieces[q - 1][regions[event], indices[at]] if pieces[q - 1] is not None
                 else np.zeros(at.size, dtype=np.int64))  # (non-zeros,): the piece of the column each reads
        W = self.W_mod[q][:, at]  # (primes, non-zeros)
        M = W * (piece == 1) if self.mask_only[q - 1] else self._reduce(W * self.slope_mod[q - 1][:, piece])
        terms = self._reduce(M[:, :, None] * Z[:, local, position[event], :])  # (primes, non-zeros, k+1)
        if with_intercepts:
            terms[:, :, k] += self._reduce(W * self.icpt_mod[q - 1][:, piece])
        # Sums of at most fan-in reduced products per event: below 2^53, exact in any order.
        starts = np.cumsum(counts) - counts
        nonempty = counts > 0
        rows[:, nonempty, :] = np.add.reduceat(terms, starts[nonempty], axis=1)
        return self._reduce(rows)

    def _maps(self, s: int, ids: np.ndarray, pieces: list, ancestors: list,
              units: np.ndarray | None = None) -> np.ndarray:
        """Layer ``s``'s pre-activation maps (primes, width, len(ids), k+1) on level-``s`` regions ``ids``
        (sorted, distinct), from their parents' maps, layer by layer: of the units ``units`` only (sorted, distinct;
        all when None); a sparse layer asks the layer before for the columns those units read only."""
        # Down the layers to the root, then up again: a recursion would meet Python's limit at ~1,000 layers.
        if self._recent_run is None or self._recent_run[0] is not pieces or self._recent_run[1] is not ancestors:
            self._recent, self._recent_run = {}, (pieces, ancestors)  # another run: its region ids mean others
        top = (s, ids, units)
        levels: list[tuple[int, np.ndarray, np.ndarray, np.ndarray | None, np.ndarray | None]] = []
        Z: np.ndarray | None = None
        while s > 0:
            Z = self._recent.get(_key(s, ids, units))
            if Z is not None:
                break
            parents = ancestors[s - 1][ids] if s > 1 else np.zeros(ids.size, dtype=np.int64)
            up, position = np.unique(parents, return_inverse=True)
            columns = self._row_columns(s, units)
            levels.append((s, ids, position, columns, units))
            s, ids, units = s - 1, up, columns
        if Z is None:
            root = self._root()
            Z = root if units is None else root[:, units]
        for s, ids, position, columns, units in reversed(levels):
            H = self._activate(s - 1, np.take(Z, position, axis=2), self._pieces(pieces, s - 1, ids, columns))
            Z = self._affine(s, H, units, columns)
        self._remember(top, Z)
        return Z

    def _remember(self, top: tuple[int, np.ndarray, np.ndarray | None], Z: np.ndarray) -> None:
        """Keep ``Z``, the maps of ``top`` = (level, ids, units), with those of its level and the one before
        (read-only: callers share them), within :data:`_RECENT_BYTES`."""
        level = top[0]
        if level == 0:
            return
        recent = {key: value for key, value in self._recent.items() if key[0] >= level - 1}
        if sum(value.nbytes for value in recent.values()) + Z.nbytes <= _RECENT_BYTES:
            Z.flags.writeable = False
            recent[_key(*top)] = Z
        self._recent = recent

    def _pieces(self, pieces: list, s: int, level: np.ndarray, columns: np.ndarray | None = None) -> np.ndarray:
        if pieces[s] is None:  # an affine layer: one piece
            width = self.layers[s].width if columns is None else columns.size
            return np.zeros((level.size, width), dtype=np.int64)
        return pieces[s][level] if columns is None else pieces[s][level[:, None], columns[None, :]]

    def output_maps(self, patterns: np.ndarray) -> tuple[list[list[tuple[int, ...]]], int]:
        """The exact maps of the layers' last outputs on the region of each activation pattern (a row per
        region, a column per neuron of the layers with breakpoints, as
        :meth:`~polyregions.networks.network.Network.affine_map` reads one), as integers over one scale: per
        region a row ``(a_1, ..., a_k, c)`` per output, the output being ``(a . t + c) / scale``. All regions go
        through each layer at once (memory: about ``8 (k + 1)`` bytes per region, unit and prime)."""
        patterns = np.asarray(patterns, dtype=np.int64).reshape(len(patterns), -1)
        P, k, R = len(self.primes), self.k, patterns.shape[0]
        pieces: list[np.ndarray | None] = []
        column = 0
        for layer in self.layers:
            if layer.activation.is_linear:
                pieces.append(None)
            else:
                pieces.append(patterns[:, column:column + layer.width])
                column += layer.width
        everywhere = np.arange(R)
        Z = self._root()
        for q in range(len(self.layers)):
            H = self._activate(q, Z, self._pieces(pieces, q, everywhere))
            Z = self._affine(q + 1, H) if q + 1 < len(self.layers) else H
        width = Z.shape[1]
        rows = self._recover(np.ascontiguousarray(Z.transpose(0, 2, 1, 3)).reshape(P, R * width, k + 1), False)
        return [rows[r * width:(r + 1) * width] for r in range(R)], self.S[-1]

    def _recover(self, residues: np.ndarray, primitive: bool = True) -> list[tuple[int, ...]]:
        """Integers from residues (primes, E, k+1) by Garner's algorithm (then divided by their gcd)."""
        primes = self.primes
        r = np.mod(residues.astype(np.int64), np.array(primes, dtype=np.int64)[:, None, None])
        digits: list[np.ndarray] = []
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


def _small_integers(values) -> np.ndarray:
    """Integers (nested lists) as an int64 array when all lie strictly between -2^62 and 2^62 (so that their
    residues are computed in int64), else as an object array of Python integers."""
    try:
        array = np.array(values, dtype=np.int64)
    except OverflowError:
        return np.array(values, dtype=object)
    if array.size and not ((array > -(1 << 62)) & (array < (1 << 62))).all():
        return np.array(values, dtype=object)
    return array


# Miller-Rabin with the first twelve primes as bases is deterministic below 3.18 * 10^23, the least strong
# pseudoprime to all of them (Sorenson and Webster, 2015); the primes searched here are below 2^28. Pure Python:
# loading FLINT for these few tests would cost a run more than the tests themselves.
_WITNESSES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)
_DETERMINISTIC_BELOW = 318665857834031151167461


_RECENT_BYTES = 64 << 20


def _key(s: int, ids: np.ndarray, units: np.ndarray | None) -> tuple[int, bytes, bytes | None]:
    return s, np.ascontiguousarray(ids, dtype=np.int64).tobytes(), \
        None if units is None else np.ascontiguousarray(units, dtype=np.int64).tobytes()


def _is_prime(n: int) -> bool:
    """Whether ``n`` is prime (exact below 3.18 * 10^23; larger ``n`` raise ``ValueError``).

    Examples
    --------
    >>> [n for n in range(30) if _is_prime(n)]
    [2, 3, 5, 7, 11, 13, 17, 19, 23, 29]
    """
    if n < 2:
        return False
    for p in _WITNESSES:
        if n % p == 0:
            return n == p
    if n >= _DETERMINISTIC_BELOW:
        raise ValueError(f"_is_prime: {n} is beyond the deterministic range")
    d, s = n - 1, 0
    while d % 2 == 0:
        d, s = d // 2, s + 1
    for a in _WITNESSES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True
