"""Scores, FGES, BOSS and GFCI, bootstrapped edge-type probabilities (§6.2.2–6.2.4).

The scores (BDeu, BIC, SEM-BIC, DG-BIC; :func:`get_score` by name) are in :mod:`.score`,
the searches in :mod:`.search`; the bootstrap
itself (:mod:`.bootstrap`, its :mod:`.checkpoint`, :mod:`.settings` and the sinks
:mod:`.ancestral` and :mod:`.pair_features`) sits above them (docs/design.md §2).
"""

from .bootstrap import (
    EdgeTypeCounter,
    bootstrap_edge_probabilities,
    bootstrap_weights,
    edge_probabilities_from_graphs,
)
from .checkpoint import CheckpointMismatchError, data_for
from .score.discrete.bdeu import BDeuScore
from .score.discrete.bic import BICScore
from .score.discrete.specs import BDeu, DiscreteBIC
from .score.gaussian.specs import DegenerateGaussianBIC, SemBIC
from .score.protocol import Score
from .score.registry import available_scores, get_score
from .search.boss import boss
from .search.fges import fges
from .search.gfci import gfci
from .search.registry import available_pag_searches, available_searches, get_pag_search, get_search
from .settings import BootstrapSettings

__all__ = [
    "BDeu",
    "DegenerateGaussianBIC",
    "DiscreteBIC",
    "SemBIC",
    "BDeuScore",
    "BICScore",
    "BootstrapSettings",
    "CheckpointMismatchError",
    "EdgeTypeCounter",
    "Score",
    "available_pag_searches",
    "available_scores",
    "available_searches",
    "boss",
    "bootstrap_edge_probabilities",
    "bootstrap_weights",
    "data_for",
    "edge_probabilities_from_graphs",
    "fges",
    "get_pag_search",
    "get_score",
    "get_search",
    "gfci",
]
