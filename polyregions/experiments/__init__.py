"""Experiments on many networks: training with region counts, sweeps, and the counterexample
search with its claims.
"""

from typing import TYPE_CHECKING

from polyregions._lazy import lazy_exports

_EXPORTS = {
    ".training": ["Dataset", "MLP", "train", "region_history", "RegionHistory"],
    ".sweeps": ["SweepTask", "SweepResult", "sweep_tasks", "sweep"],
    ".counterexamples": ["SearchResult", "search", "write_certificate"],
    ".claims": ["Claim", "Verdict", "BUILTIN_CLAIMS", "resolve_claim"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.experiments.training import Dataset, MLP, region_history, RegionHistory, train
    from polyregions.experiments.sweeps import sweep, sweep_tasks, SweepResult, SweepTask
    from polyregions.experiments.counterexamples import search, SearchResult, write_certificate
    from polyregions.experiments.claims import BUILTIN_CLAIMS, Claim, resolve_claim, Verdict
