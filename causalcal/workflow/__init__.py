"""Workflows above the stages: :func:`discover`, the real-data path (docs/design.md §9.3,
§9.9, §9.10)."""

from causalcal.workflow.discover import discover
from causalcal.workflow.result import DiscoveryResult
from causalcal.workflow.simulations import simulated_pairs

__all__ = ["DiscoveryResult", "discover", "simulated_pairs"]
