"""Workflows above the stages: :func:`discover`, the real-data path (docs/design.md §9.3,
§9.9)."""

from causalcal.workflow.causal import CAUSAL_COLUMNS, CausalDiscoveryResult
from causalcal.workflow.discover import RANK_COLUMNS, RELATIONS, discover, read_known_pairs
from causalcal.workflow.result import DiscoveryResult
from causalcal.workflow.simulations import simulated_pairs

__all__ = ["CAUSAL_COLUMNS", "RANK_COLUMNS", "RELATIONS", "CausalDiscoveryResult",
           "DiscoveryResult", "discover", "read_known_pairs", "simulated_pairs"]
