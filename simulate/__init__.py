"""Random discrete Bayesian networks, ancestral sampling and true CPDAGs (thesis §6.2.4 steps 1–2).

Public API (docs/design.md §4):

- :class:`BayesianNetwork` — DAG + CPTs; ``sample(n, seed)`` → :class:`causalcal.DiscreteData`,
  ``cpdag()``, ``edge_labels()``, ``truth_dense()``, ``save``/``load`` (JSON);
  :func:`to_pgmpy` converts it to pgmpy.
- :func:`random_network` — the thesis's random networks (uniform random DAG, arities
  drawn from ``(2, 3)``, flat-Dirichlet CPT rows).
- :func:`load_network`, :func:`available_networks` — standard benchmark networks (alarm, …).
- :func:`from_bif` — any BIF file (optional extra ``bif``: pgmpy).
- :func:`fitted_network` — a network fitted to a data set and its bootstrap (the world
  of simulation-informed calibration, docs/design.md §9.7).
"""

from causalcal.simulate.bif import (
    available_networks,
    from_bif,
    from_pgmpy,
    load_network,
    to_pgmpy,
)
from causalcal.simulate.fitted import dirichlet_cpts, fitted_network, network_parents
from causalcal.simulate.generate import DEFAULT_MAX_CPT_ENTRIES, random_dag, random_network
from causalcal.simulate.network import BayesianNetwork

__all__ = [
    "DEFAULT_MAX_CPT_ENTRIES",
    "BayesianNetwork",
    "available_networks",
    "dirichlet_cpts",
    "fitted_network",
    "from_bif",
    "from_pgmpy",
    "load_network",
    "network_parents",
    "random_dag",
    "random_network",
    "to_pgmpy",
]
