"""Counterexample search: networks with small rational weights that break a claim, with a checkable certificate.

The search walks over networks of a fixed architecture whose weights and biases are drawn from a small grid of
simple rationals (:func:`simple_values`: integers and halves in ``[-2, 2]`` by default), so that a certificate
stays short and easy to read. It alternates random restarts with hill climbing by local moves (one parameter
at a time, to a neighbouring grid value or to a random one), climbing the claim's score (for the built-in
claims, ``value - bound``: positive exactly when the claim is broken). Each candidate's region complex is
enumerated exactly and the claim decided on it, so a reported counterexample is a theorem, not an estimate.
Once one is found it is *shrunk*: parameters are replaced by simpler values (0 first, then small integers)
as long as the claim stays broken. A search may start from a graph network (``polyregions.network/2``): then
the weights and biases of its dense and convolutional nodes are the parameters moved, and the rest of the graph
(pooling, maxout, residual additions, ...) stays.

The certificate is the ``polyregions.regions/1`` export of the counterexample's region complex
(:func:`polyregions.regions.export.complex_to_json`: the network, the domain and every region with its certificates),
plus two keys: ``claim`` (its name, statement, ``holds``, the ``value`` that breaks it and the ``bound`` it was
compared with) and ``search`` (how it was found). ``python -m proofs_check.verify CERT`` re-checks the complex
independently; the claimed quantities (the number of regions, of linear regions) are read from the verified
complex.

The search is seeded (``seed``), reports progress on a terminal, and stops cleanly on Ctrl-C: the best
candidate so far is kept and, when ``output`` is given, written atomically.

Examples
--------
>>> result = search("activation_regions <= one_layer_bound", widths=[1, 2, 2], seed=0)
>>> result.found, result.verdict.value > result.verdict.bound == 5
(True, True)
"""

from __future__ import annotations

import json
import os
import random
import time
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Callable, Iterable, Sequence, cast

from polyregions.errors import InvalidInputError
from polyregions.experiments._search_space import GraphShape, Shape, dense_shape, simple_values, simplicity
from polyregions.experiments.claims import Claim, Verdict, resolve_claim
from polyregions.regions._arguments import expect_domain, expect_network

if TYPE_CHECKING:
    from polyregions.networks.activations import Activation
    from polyregions.networks.graph import GraphNetwork
    from polyregions.networks.network import Network
    from polyregions.regions.complex import RegionComplex
    from polyregions.regions.domains import Domain
    from polyregions.regions.enumeration import Engine

__all__ = ["SearchResult", "search", "simple_values", "certificate", "write_certificate", "CERTIFICATE_KEYS"]

#: The keys a certificate adds to the ``polyregions.regions/1`` export.
CERTIFICATE_KEYS = ("claim", "search")


@dataclass(frozen=True)
class SearchResult:
    """What :func:`search` found.

    Attributes
    ----------
    claim : Claim
    found : bool
        Whether a counterexample was found (then ``verdict.holds`` is False).
    verdict : Verdict or None
        The claim on the best network (the counterexample when ``found``; else the network that came closest).
    network, complex : the best network and its region complex (None if nothing was evaluated).
    certificate : dict or None
        The certificate document (see the module documentation).
    evaluations : int
        Candidates examined (repeats included); ``enumerated`` of them were distinct networks.
    restarts : int
    interrupted : bool
        True when Ctrl-C stopped the search.
    seconds : float
    """

    claim: Claim
    found: bool
    verdict: Verdict | None
    network: "Network | GraphNetwork | None"
    complex: "RegionComplex | None"
    certificate: dict[str, Any] | None
    evaluations: int
    enumerated: int
    restarts: int
    interrupted: bool
    seconds: float

    def summary(self) -> dict[str, Any]:
        """The one-line JSON of ``polyregions search --json``."""
        verdict = self.verdict.to_json() if self.verdict is not None else {}
        counts = self.complex.summary() if self.complex is not None else {}
        return {"claim": self.claim.name, "found": self.found, "holds": verdict.get("holds"),
                "value": verdict.get("value"), "bound": verdict.get("bound"),
                "activation_regions": counts.get("activation_regions"),
                "linear_regions": counts.get("linear_regions"), "neurons": counts.get("neurons"),
                "evaluations": self.evaluations, "enumerated": self.enumerated, "restarts": self.restarts,
                "interrupted": self.interrupted, "seconds": round(self.seconds, 3)}


def certificate(complex_: "RegionComplex", claim: Claim, verdict: Verdict, *,
                search_info: dict[str, Any] | None = None) -> dict[str, Any]:
    """The certificate document: the complex's ``polyregions.regions/1`` export plus ``claim`` and ``search``.

    Examples
    --------
    >>> from polyregions.networks.constructions import sawtooth
    >>> from polyregions.regions.domains import box
    >>> from polyregions.regions.enumeration import enumerate_regions
    >>> from polyregions.experiments.claims import resolve_claim
    >>> complex_ = enumerate_regions(sawtooth(3), box([0], [1]))
    >>> claim = resolve_claim("one_layer")
    >>> doc = certificate(complex_, claim, claim(complex_))
    >>> doc["format"], doc["claim"]["value"], doc["claim"]["bound"], len(doc["regions"])
    ('polyregions.regions/1', 8, 7, 8)
    """
    from polyregions.regions.export import complex_to_json

    doc = complex_to_json(complex_)
    doc["claim"] = {"name": claim.name, "statement": claim.statement, **verdict.to_json()}
    doc["search"] = dict(search_info or {})
    return doc


def write_certificate(doc: dict[str, Any], path: str | os.PathLike) -> None:
    """Write a certificate whole or not at all (:func:`polyregions._support.atomic.atomic_write_text`: a temporary file
    renamed over ``path``, a symbolic link written through, a device written directly); a failed write raises
    :class:`~polyregions.errors.OutputError` and leaves what stood at ``path``."""
    from polyregions._support.atomic import atomic_write_text

    atomic_write_text(path, json.dumps(doc) + "\n")


def search(claim: "str | Claim | Callable[[RegionComplex], Any]", *, widths: Sequence[int] | None = None,
           activation: "str | Activation" = "relu", output_dim: int | None = 1, domain: "Domain | None" = None,
           seed: int = 0, evaluations: int = 2000, patience: int = 50, values: Iterable[Any] | None = None,
           start: "Network | GraphNetwork | None" = None, maximize: bool = False, shrink: int = 200,
           engine: Engine = "auto", output: str | os.PathLike | None = None, progress: bool = False) -> SearchResult:
    """Search for a network that breaks ``claim``; return the best one found with its certificate.

    Parameters
    ----------
    claim : str, Claim or callable
        See :func:`polyregions.experiments.claims.resolve_claim` (built-in names, ``module:function``,
        ``file.py[:fn]``).
    widths : sequence of int, keyword-only
        ``[n0, n1, ..., nL]``: input dimension and hidden widths (not needed with ``start``).
    activation : str or Activation, keyword-only
        Of every hidden layer: ``relu``, ``hardtanh``, ``leaky_relu`` (slope 1/100) or ``leaky_relu:S``.
    output_dim : int or None, keyword-only
        Width of a linear output layer (default 1); None: the last hidden layer is the output.
    domain : Domain, keyword-only
        Where regions are counted (default the box ``[-1, 1]^n0``).
    seed : int, keyword-only
        Seeds the search (:class:`random.Random`); the same seed gives the same result.
    evaluations : int, keyword-only
        Candidates to examine at most (repeats cost nothing and count too).
    patience : int, keyword-only
        Moves without improvement before a random restart.
    values : iterable of numbers, keyword-only
        The grid of weights and biases (default :func:`simple_values`: integers and halves in ``[-2, 2]``).
    start : Network or GraphNetwork, keyword-only
        Begin from this network (its layers and activations fix the architecture; its parameters need not lie
        on the grid); later restarts are random. Of a graph network (``polyregions.network/2``) the search
        moves the weights and biases of the dense and convolutional nodes; pooling, maxout and the other
        operations stay.
    maximize : bool, keyword-only
        Keep climbing after the first counterexample, for the largest violation within the budget.
    shrink : int, keyword-only
        Candidates to spend simplifying a counterexample (0: keep it as found).
    engine : {"auto", "mesh", "lp"}, keyword-only
        Passed to :func:`polyregions.regions.enumeration.enumerate_regions`.
    output : path, keyword-only
        Write the certificate of the best network there (atomically), also when interrupted.
    progress : bool, keyword-only
        Show a progress bar on a terminal.

    Returns
    -------
    SearchResult
    """
    from polyregions._support.progress import progress_bar

    if start is not None:
        expect_network(start, "start")
    if domain is not None:
        expect_domain(domain)
    started = time.perf_counter()
    problem = _problem(claim, widths=widths, activation=activation, output_dim=output_dim, domain=domain, seed=seed,
                       evaluations=evaluations, patience=patience, values=values, start=start, maximize=maximize,
                       shrink=shrink, engine=engine, output=output)
    interrupted = False
    with progress_bar(total=problem.evaluations + problem.shrink, desc="search", enabled=progress) as bar:
        walk = _Walk(problem, bar)
        try:
            walk.climb()
            walk.shrink()
        except KeyboardInterrupt:
            interrupted = True
    return _result(walk, interrupted=interrupted, started=started)


def _check_count(value: Any, what: str, *, low: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        raise InvalidInputError(f"{what}: expected an integer >= {low}, got {value!r}")
    return value


@dataclass(frozen=True)
class _Problem:
    """The checked arguments of :func:`search`: the claim, where and over which networks, and the budget."""

    claim: Claim
    shape: "Shape | GraphShape"
    grid: tuple[Fraction, ...]
    domain: "Domain"
    start: "Network | GraphNetwork | None"
    seed: int
    evaluations: int
    patience: int
    shrink: int
    maximize: bool
    engine: "Engine"
    output: "str | os.PathLike | None"


def _problem(claim: Any, *, widths: Any, activation: Any, output_dim: Any, domain: "Domain | None", seed: Any,
             evaluations: Any, patience: Any, values: Iterable[Any] | None, start: "Network | GraphNetwork | None",
             maximize: bool, shrink: Any, engine: Any, output: Any) -> _Problem:
    """Resolve and check the arguments of :func:`search`, the first wrong one reported first."""
    from polyregions.regions.enumeration import ENGINES

    claim = resolve_claim(claim)
    shape = _shape(start, widths, activation, output_dim)
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise InvalidInputError(f"seed: expected a non-negative integer, got {seed!r}")
    evaluations = _check_count(evaluations, "evaluations", low=1)
    patience = _check_count(patience, "patience", low=1)
    shrink = _check_count(shrink, "shrink", low=0)
    grid = _grid(values)
    if output is not None and not os.path.isdir(os.path.dirname(os.path.abspath(output))):
        raise InvalidInputError(f"output: expected a file in an existing directory, got {os.fspath(output)!r}")
    domain = _domain(domain, shape.input_dim)
    if engine not in ENGINES:
        raise InvalidInputError(f"engine: expected one of {', '.join(ENGINES)}, got {engine!r}")
    return _Problem(claim, shape, grid, domain, start, seed, evaluations, patience, shrink, maximize, engine, output)


def _shape(start: "Network | GraphNetwork | None", widths: Any, activation: Any,
           output_dim: Any) -> "Shape | GraphShape":
    """The architecture searched: the start network's, or the one ``widths``, ``activation`` and ``output_dim`` give."""
    if start is None:
        if widths is None:
            raise InvalidInputError("widths: expected [input_dim, width_1, ..., width_L], got None")
        return dense_shape(widths, activation, output_dim)
    if widths is not None:
        raise InvalidInputError("widths: expected None with start (the start network fixes the architecture), "
                                f"got {widths!r}")
    from polyregions.networks.graph import GraphNetwork

    if isinstance(start, GraphNetwork):
        if start.staged.num_neurons == 0:
            raise InvalidInputError("start: expected a network with at least one piecewise-linear unit")
        graph = GraphShape(start)
        if graph.size == 0:
            raise InvalidInputError("start: expected a network with a dense or convolutional node (the parameters "
                                    "the search moves), got none")
        return graph
    shape = Shape.of(start)
    if start.num_neurons == 0:
        raise InvalidInputError("start: expected a network with at least one non-linear layer")
    return shape


def _grid(values: Iterable[Any] | None) -> tuple[Fraction, ...]:
    """The sorted grid of weights and biases: :func:`simple_values` by default, else the distinct ``values``."""
    if values is None:
        return simple_values()
    from polyregions.exact.rationals import rational_vector

    grid = tuple(sorted(set(rational_vector(list(values), what="values"))))
    if len(grid) < 2:
        raise InvalidInputError(f"values: expected at least two distinct numbers, got {len(grid)}")
    return grid


def _domain(domain: "Domain | None", input_dim: int) -> "Domain":
    """The domain of the search: ``[-1, 1]^input_dim`` by default, else ``domain`` once its dimension fits."""
    from polyregions.regions.domains import box

    if domain is None:
        return box([-1] * input_dim, [1] * input_dim)
    if domain.input_dim != input_dim:
        raise InvalidInputError(f"domain: expected a domain in R^{input_dim} (the network's input), got one "
                                f"in R^{domain.input_dim}")
    return domain


@dataclass(frozen=True)
class _Candidate:
    """One evaluated network: its parameters, the network, its region complex and the claim's verdict on it."""

    params: tuple[Fraction, ...]
    network: "Network | GraphNetwork"
    complex: "RegionComplex"
    verdict: Verdict


def _rank(verdict: Verdict) -> tuple:
    """The order of verdicts: a broken claim beats any that holds, then the larger score wins."""
    return (not verdict.holds, verdict.score)


class _Walk:
    """The state of one search: its random generator, the verdicts seen, the best and the last candidate."""

    def __init__(self, problem: _Problem, bar: Any) -> None:
        self.problem = problem
        self.bar = bar
        self.rng = random.Random(problem.seed)
        self.cache: dict[tuple[Fraction, ...], Verdict] = {}
        self.best: _Candidate | None = None
        self.last: _Candidate | None = None
        self.evaluations = 0
        self.restarts = 0

    @property
    def found(self) -> bool:
        """Whether the best candidate so far breaks the claim."""
        return self.best is not None and not self.best.verdict.holds

    def compute(self, params: tuple[Fraction, ...]) -> _Candidate:
        """Enumerate the regions of the network with these parameters and decide the claim on them."""
        from polyregions.regions.enumeration import enumerate_regions

        network = self.problem.shape.build(params)
        complex_ = enumerate_regions(network, self.problem.domain, engine=self.problem.engine)
        return _Candidate(params, network, complex_, self.problem.claim(complex_))

    def evaluate(self, params: tuple[Fraction, ...]) -> Verdict:
        """The verdict on these parameters (from the cache when seen before); one evaluation of the budget."""
        self.evaluations += 1
        self.bar.update(1)
        if params in self.cache:
            return self.cache[params]
        candidate = self.compute(params)
        self.cache[params] = candidate.verdict
        self.last = candidate
        if self.best is None or _rank(candidate.verdict) > _rank(self.best.verdict):
            self.best = candidate
        return candidate.verdict

    def random_params(self) -> tuple[Fraction, ...]:
        """Every parameter drawn from the grid."""
        return tuple(self.rng.choice(self.problem.grid) for _ in range(self.problem.shape.size))

    def move(self, params: tuple[Fraction, ...]) -> tuple[Fraction, ...]:
        """One parameter moved to a neighbouring grid value (half the time, when on the grid) or a random one."""
        grid = self.problem.grid
        i = self.rng.randrange(self.problem.shape.size)
        value = params[i]
        if value in grid and self.rng.random() < 0.5:
            j = grid.index(value) + self.rng.choice((-1, 1))
            new = grid[min(max(j, 0), len(grid) - 1)]
        else:
            new = self.rng.choice(grid)
        return params[:i] + (new,) + params[i + 1:]

    def _going(self) -> bool:
        problem = self.problem
        return self.evaluations < problem.evaluations and (problem.maximize or not self.found)

    def climb(self) -> None:
        """Random restarts and hill climbing, until the budget is spent or (unless maximizing) the claim breaks."""
        problem = self.problem
        while self._going():
            if problem.start is not None and self.restarts == 0:
                current = problem.shape.params_of(cast(Any, problem.start))
            else:
                current = self.random_params()
            self.restarts += 1
            score = self.evaluate(current).score
            stall = 0
            while stall < problem.patience and self._going():
                candidate = self.move(current)
                verdict = self.evaluate(candidate)
                if verdict.score > score:
                    current, score, stall = candidate, verdict.score, 0
                else:
                    if verdict.score == score:
                        current = candidate  # drift along plateaus
                    stall += 1

    def shrink(self) -> None:
        """Replace parameters of the counterexample by simpler grid values while the claim stays broken."""
        if not (self.found and self.problem.shrink):
            return
        budget = self.evaluations + self.problem.shrink
        simplest = sorted(self.problem.grid, key=simplicity)
        changed = True
        while changed and self.evaluations < budget:
            changed = False
            assert self.best is not None  # the phase starts from a counterexample, and only better ones replace it
            params = self.best.params
            for i in range(len(params)):
                for simpler in simplest:
                    if simplicity(simpler) >= simplicity(params[i]) or self.evaluations >= budget:
                        break
                    candidate = params[:i] + (simpler,) + params[i + 1:]
                    verdict = self.evaluate(candidate)
                    if self._simpler_is_kept(verdict):
                        last = self.last
                        self.best = last if last is not None and last.params == candidate else self.compute(candidate)
                        params, changed = candidate, True
                        break

    def _simpler_is_kept(self, verdict: Verdict) -> bool:
        """Whether a simpler candidate replaces the best: it still breaks the claim (and, maximizing, no less)."""
        assert self.best is not None
        return not verdict.holds and (not self.problem.maximize or _rank(verdict) >= _rank(self.best.verdict))


def _result(walk: _Walk, *, interrupted: bool, started: float) -> SearchResult:
    """The certificate of the best candidate (written to ``output`` when given) and the :class:`SearchResult`."""
    problem, best = walk.problem, walk.best
    doc = None
    if best is not None:
        doc = certificate(best.complex, problem.claim, best.verdict, search_info={
            "seed": problem.seed, "evaluations": walk.evaluations, "enumerated": len(walk.cache),
            "restarts": walk.restarts, "interrupted": interrupted,
            "values": [str(v) for v in problem.grid], "engine": best.complex.engine})
        if problem.output is not None:
            write_certificate(doc, problem.output)
    return SearchResult(problem.claim, walk.found, best.verdict if best else None, best.network if best else None,
                        best.complex if best else None, doc, walk.evaluations, len(walk.cache), walk.restarts,
                        interrupted, time.perf_counter() - started)
