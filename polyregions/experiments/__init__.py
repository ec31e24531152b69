"""Experiments on many networks: training with region counts, regions through training checkpoints, sweeps,
and the counterexample search with its claims.
"""

from typing import TYPE_CHECKING

from polyregions._support.lazy import lazy_exports

_EXPORTS = {
    ".datasets": ["Dataset"],
    ".models": ["MLP", "train"],
    ".training": ["region_history", "RegionHistory", "train_with_checkpoints"],
    ".checkpoints": ["checkpoint_history", "CheckpointHistory", "CheckpointRecord"],
    ".checkpoint_files": ["load_checkpoint", "load_checkpoints"],
    ".matching": ["match_regions", "RegionMatching"],
    ".sweeps": ["SweepTask", "SweepResult", "sweep_tasks", "sweep"],
    ".counterexamples": ["SearchResult", "search", "write_certificate"],
    ".claims": ["Claim", "Verdict", "BUILTIN_CLAIMS", "resolve_claim"],
}

__getattr__, __dir__, __all__ = lazy_exports(__name__, _EXPORTS)

if TYPE_CHECKING:
    from polyregions.experiments.checkpoint_files import load_checkpoint, load_checkpoints
    from polyregions.experiments.checkpoints import CheckpointHistory, CheckpointRecord, checkpoint_history
    from polyregions.experiments.claims import BUILTIN_CLAIMS, Claim, Verdict, resolve_claim
    from polyregions.experiments.counterexamples import SearchResult, search, write_certificate
    from polyregions.experiments.datasets import Dataset
    from polyregions.experiments.matching import RegionMatching, match_regions
    from polyregions.experiments.models import MLP, train
    from polyregions.experiments.sweeps import SweepResult, SweepTask, sweep, sweep_tasks
    from polyregions.experiments.training import RegionHistory, region_history, train_with_checkpoints
