"""causalcal: calibrated probabilities of causal relationships from bootstrapped structure search.

Core layer (docs/design.md §2): :mod:`causalcal.data`, :mod:`causalcal.graph`,
:mod:`causalcal.edges`, :mod:`causalcal.metrics` and :mod:`causalcal.calibration`. The stages
live in ``causalcal.simulate``, ``causalcal.bootstrap`` and ``causalcal.evaluate``.
"""

from causalcal._version import __version__
from causalcal.context import Context
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities, EdgeType
from causalcal.graph import PDAG, apply_meek_rules, dag_to_cpdag, pdag_to_dag
from causalcal.knowledge import Knowledge
from causalcal.pag import PAG
from causalcal.pag_edges import PAGEdgeProbabilities

__all__ = [
    "__version__",
    "discover",
    "suggest",
    "DiscreteData",
    "EdgeProbabilities",
    "EdgeType",
    "Context",
    "Knowledge",
    "PAG",
    "PAGEdgeProbabilities",
    "PDAG",
    "apply_meek_rules",
    "dag_to_cpdag",
    "pdag_to_dag",
]


def __getattr__(name: str):
    # causalcal.discover and causalcal.suggest are workflows (causalcal.workflow); importing
    # them lazily keeps the core free of stage imports (docs/design.md §2).
    if name == "discover":
        from causalcal.workflow.discover import discover

        return discover
    if name == "suggest":
        from causalcal.workflow.suggest import suggest

        return suggest
    raise AttributeError(f"module 'causalcal' has no attribute {name!r}")
