"""Workflows above the stages: :func:`discover`, the real-data path (docs/design.md §9.3)."""

from causalcal.workflow.discover import RANK_COLUMNS, discover, read_known_pairs
from causalcal.workflow.result import DiscoveryResult
from causalcal.workflow.simulations import simulated_pairs

__all__ = ["RANK_COLUMNS", "DiscoveryResult", "discover", "read_known_pairs",
           "simulated_pairs"]
