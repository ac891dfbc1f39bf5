"""Random discrete Bayesian networks, ancestral sampling and true CPDAGs (thesis §6.2.4 steps 1–2).

Public API (docs/design.md §4):

- :class:`BayesianNetwork` — DAG + CPTs; ``sample(n, seed)`` → :class:`causalcal.DiscreteData`,
  ``cpdag()``, ``edge_labels()``, ``truth_dense()``, ``save``/``load`` (JSON);
  :func:`to_pgmpy` converts it to pgmpy.
- :func:`random_network` — the thesis's random networks (uniform random DAG, arities
  drawn from ``(2, 3)``, flat-Dirichlet CPT rows).
- :func:`load_network`, :func:`available_networks` — standard benchmark networks (alarm, …).
- :func:`from_bif` — any BIF file (optional extra ``bif``: pgmpy).
- :func:`fit_network` — CPTs for a structure (bnlearn's ``bn.fit``; the averaged network's
  DAG extension), :func:`write_bif` — a network as a BIF file (labels kept in order).
- :func:`fitted_network` — a network fitted to a data set and its bootstrap (the world
  of simulation-informed calibration, docs/design.md §9.7).
- :class:`StructuralModel`, :func:`random_sem` — continuous and mixed data: random
  linear-Gaussian SEMs, nonlinear additive SEMs and mixed networks (conditional-Gaussian
  and logistic mechanisms), ``sample(n, seed)`` → :class:`causalcal.data.MixedData`, the
  true CPDAG and, with hidden nodes, the true PAG (docs/design.md §4.1).
- misspecified data sets with known truth (docs/design.md §9.11): :func:`hidden_benchmark`,
  :func:`latent_confounders`, :func:`continuous_nonlinear`, :func:`pooled_conditions`,
  :func:`measurement_noise`, each a :class:`MisspecifiedData`.
"""

from causalcal.simulate.bif import (
    available_networks,
    from_bif,
    from_pgmpy,
    load_network,
    to_pgmpy,
)
from causalcal.simulate.bif_write import bif_text, write_bif
from causalcal.simulate.fitted import (
    dirichlet_cpts,
    fit_network,
    fitted_network,
    network_parents,
)
from causalcal.simulate.generate import DEFAULT_MAX_CPT_ENTRIES, random_dag, random_network
from causalcal.simulate.misspecified import (
    MisspecifiedData,
    continuous_nonlinear,
    hidden_benchmark,
    latent_confounders,
    measurement_noise,
    pooled_conditions,
)
from causalcal.simulate.network import BayesianNetwork
from causalcal.simulate.sem import FUNCTIONS, StructuralModel
from causalcal.simulate.sem_generate import SEM_KINDS, random_sem

__all__ = [
    "DEFAULT_MAX_CPT_ENTRIES",
    "FUNCTIONS",
    "SEM_KINDS",
    "StructuralModel",
    "BayesianNetwork",
    "MisspecifiedData",
    "available_networks",
    "bif_text",
    "continuous_nonlinear",
    "dirichlet_cpts",
    "fit_network",
    "fitted_network",
    "from_bif",
    "from_pgmpy",
    "hidden_benchmark",
    "latent_confounders",
    "load_network",
    "measurement_noise",
    "network_parents",
    "pooled_conditions",
    "random_dag",
    "random_network",
    "random_sem",
    "to_pgmpy",
    "write_bif",
]
