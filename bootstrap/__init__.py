"""BDeu scoring, FGES and BOSS searches, bootstrapped edge-type probabilities (§6.2.2–6.2.4)."""

from .bdeu import BDeuScore
from .bootstrap import (
    EdgeTypeCounter,
    bootstrap_edge_probabilities,
    bootstrap_weights,
    edge_probabilities_from_graphs,
)
from .boss import boss
from .checkpoint import CheckpointMismatchError
from .fges import fges
from .searches import available_searches, get_search
from .settings import BootstrapSettings

__all__ = [
    "BDeuScore",
    "BootstrapSettings",
    "CheckpointMismatchError",
    "EdgeTypeCounter",
    "available_searches",
    "boss",
    "bootstrap_edge_probabilities",
    "bootstrap_weights",
    "edge_probabilities_from_graphs",
    "fges",
    "get_search",
]
