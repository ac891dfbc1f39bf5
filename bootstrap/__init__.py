"""BDeu scoring, FGES and BOSS searches, bootstrapped edge-type probabilities (§6.2.2–6.2.4)."""

from .bdeu import BDeuScore  # noqa: F401 - BDeu score, structure search (issue 6)
from .bootstrap import (  # noqa: E402,F401 - bootstrapped edge-type probabilities (issue 7)
    EdgeTypeCounter,
    bootstrap_edge_probabilities,
    bootstrap_weights,
    edge_probabilities_from_graphs,
)
from .boss import boss  # noqa: F401 - best order search (issue 14)
from .checkpoint import CheckpointMismatchError  # noqa: E402,F401
from .fges import fges  # noqa: F401
from .searches import available_searches, get_search  # noqa: F401
