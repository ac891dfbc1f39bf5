"""Workflows above the stages: :func:`discover`, the real-data path, and :func:`suggest`,
the pairs to ask the scientist about (docs/design.md §9.3, §9.9, §9.10, §9.12)."""

from causalcal.workflow.discover import discover
from causalcal.workflow.result import DiscoveryResult
from causalcal.workflow.run_report import discovery_report
from causalcal.workflow.simulations import simulated_pairs
from causalcal.workflow.suggest import Suggestion, suggest

__all__ = ["DiscoveryResult", "Suggestion", "discover", "discovery_report", "simulated_pairs",
           "suggest"]
