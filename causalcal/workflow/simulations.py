"""Simulated worlds like the user's, bootstrapped like the user's data: the labelled pairs
of simulation-informed calibration (docs/design.md §9.7).

A network is fitted to the data and its bootstrap
(:func:`causalcal.simulate.fitted_network`); ``R`` data sets of the data's size are drawn
from it and each is bootstrapped with the user's own settings (search, options,
knowledge, replicates). Every pair of every simulated data set is a labelled pair: how
often its bootstrap found it adjacent and the simulated network's CPDAG edge type,
counted into one (n_boot + 1) × 4 table (:class:`~causalcal.edgecal.SimulatedPairs`).
For causal relations (``relations="causal"``, docs/design.md §9.9) each bootstrap also counts
ancestral relations, and every ordered pair (a, b) is counted by its raw P(a causes b)
(§6.1) against "a is an ancestor of b" in the simulated network's DAG, into one
(2 n_boot + 1) × 2 table (:class:`~causalcal.edgecal.SimulatedCausalPairs`).

Seeds: simulated data set ``r`` is drawn with ``SeedSequence([seed, STREAM, r])`` and
bootstrapped with seed ``seed + 1 + r``, so results depend on the seed alone, not on the
number of jobs; the kind changes neither, so the replicates in an edge run's
checkpoint serve a causal one and back. With a checkpoint folder, simulation ``r`` keeps
its replicates in the sub-folder ``simulation-r`` of it, so an interrupted run resumes.
Each simulated data set gets as many replicates as the data's own bootstrap had.
"""

from __future__ import annotations

import dataclasses
import logging
import time
from pathlib import Path

import numpy as np

from causalcal.bootstrap import BootstrapSettings
from causalcal.bootstrap.checkpoint import NESTED_PREFIX
from causalcal.data import DiscreteData
from causalcal.edgecal import RelationKind, SimulatedPairs, relation_kind
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.simulate import fitted_network

__all__ = ["STREAM", "given_or_simulated", "simulated_pairs", "simulation_settings"]

log = logging.getLogger(__name__)

#: The seed stream of the simulated data sets (apart from the bootstrap's reweighting).
STREAM = 26


def simulation_settings(bootstrap: BootstrapSettings, n_boot: int, r: int
                        ) -> BootstrapSettings:
    """The bootstrap settings of simulated data set ``r``: the user's, with ``n_boot``
    replicates (those of the data's own bootstrap), seed ``seed + 1 + r`` and the
    checkpoint sub-folder ``simulation-r``."""
    checkpoint = (None if bootstrap.checkpoint is None
                  else Path(bootstrap.checkpoint) / f"{NESTED_PREFIX}{r}")
    return dataclasses.replace(bootstrap, n_boot=n_boot, seed=bootstrap.seed + 1 + r,
                               checkpoint=checkpoint)


def given_or_simulated(simulations: int | SimulatedPairs, data: DiscreteData,
                       probabilities: EdgeProbabilities, bootstrap: BootstrapSettings,
                       relations: str | RelationKind = "edges") -> SimulatedPairs | None:
    """``simulations`` itself when it is already counted pairs, else the
    :func:`simulated_pairs` of that many simulated data sets (None for 0)."""
    if isinstance(simulations, SimulatedPairs):
        return simulations
    return (simulated_pairs(data, probabilities, bootstrap, simulations, relations=relations)
            if simulations else None)


def simulated_pairs(data: DiscreteData, probabilities: EdgeProbabilities,
                    bootstrap: BootstrapSettings, n_simulations: int,
                    prior: float = 1.0, relations: str | RelationKind = "edges"
                    ) -> SimulatedPairs:
    """Labelled pairs of ``n_simulations`` data sets simulated from the network fitted to
    ``data`` and its bootstrap ``probabilities`` (see the module); ``prior``: the CPTs'
    equivalent sample size; ``relations``: the kind whose pairs are counted (``"causal"``:
    :class:`~causalcal.edgecal.SimulatedCausalPairs`, the bootstraps then counting
    ancestral relations)."""
    kind = relation_kind(relations)
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, (int, np.integer)) \
            or n_simulations < 1:
        raise InputError(f"simulations must be a whole number >= 1, got {n_simulations!r}")
    start = time.perf_counter()
    network = fitted_network(data, probabilities, knowledge=bootstrap.knowledge, prior=prior)
    count = kind.simulation_counter(network)
    n_boot, table = probabilities.n_boot, 0
    for r in range(int(n_simulations)):
        if bootstrap.progress:
            log.info("simulation %d/%d: %d rows from the fitted network (%d edges), "
                     "bootstrapped as the data", r + 1, n_simulations, data.n_samples,
                     network.n_edges)
        sample = network.sample(data.n_samples,
                                seed=np.random.SeedSequence([bootstrap.seed, STREAM, r]))
        run = simulation_settings(bootstrap, n_boot, r).run(sample, ancestral=kind.ancestral)
        table = table + count(run)
    return kind.simulated_type(table, int(n_simulations), network.n_edges,
                               time.perf_counter() - start)
