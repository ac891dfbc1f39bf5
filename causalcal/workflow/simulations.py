"""Simulated worlds like the user's, bootstrapped like the user's data: the labelled pairs
of simulation-informed calibration (docs/design.md §9.7).

A network is fitted to the data and its bootstrap
(:func:`causalcal.simulate.fitted_network`); ``R`` data sets of the data's size are drawn
from it and each is bootstrapped with the user's own settings (search, options,
knowledge, replicates). Every pair of every simulated data set is a labelled pair: how
often its bootstrap found it adjacent and the simulated network's CPDAG edge type,
counted into one (n_boot + 1) × 4 table (:class:`~causalcal.edgecal.SimulatedPairs`).
With ``ancestral=True`` (causal relations, docs/design.md §9.9) each bootstrap also counts
ancestral relations, and every ordered pair (a, b) is counted by its raw P(a causes b)
(§6.1) against "a is an ancestor of b" in the simulated network's DAG, into one
(2 n_boot + 1) × 2 table (:class:`~causalcal.edgecal.SimulatedCausalPairs`).

Seeds: simulated data set ``r`` is drawn with ``SeedSequence([seed, STREAM, r])`` and
bootstrapped with seed ``seed + 1 + r``, so results depend on the seed alone, not on the
number of jobs; ``ancestral`` changes neither, so the replicates in an edge run's
checkpoint serve a causal one and back. With a checkpoint folder, simulation ``r`` keeps
its replicates in the sub-folder ``simulation-r`` of it, so an interrupted run resumes.
Each simulated data set gets as many replicates as the data's own bootstrap had.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import time
from pathlib import Path

import numpy as np

from causalcal.ancestry import ancestral_relations_from_edges
from causalcal.bootstrap import BootstrapSettings
from causalcal.bootstrap.checkpoint import NESTED_PREFIX
from causalcal.data import DiscreteData
from causalcal.edgecal import (
    SimulatedCausalPairs,
    SimulatedPairs,
    count_causal_pairs,
    count_pairs,
)
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.simulate import fitted_network

__all__ = ["STREAM", "check_simulations", "given_or_simulated", "simulated_pairs",
           "simulation_settings"]

log = logging.getLogger(__name__)

#: The seed stream of the simulated data sets (apart from the bootstrap's reweighting).
STREAM = 26


def check_simulations(n_simulations, minimum: int = 0) -> None:
    """``InputError`` unless ``n_simulations`` is a whole number >= ``minimum``."""
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, (int, np.integer)) \
            or n_simulations < minimum:
        raise InputError(f"simulations must be a whole number >= {minimum}, "
                         f"got {n_simulations!r}")


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
                       ancestral: bool = False) -> SimulatedPairs | None:
    """``simulations`` itself when it is already counted pairs, else the
    :func:`simulated_pairs` of that many simulated data sets (None for 0)."""
    if isinstance(simulations, SimulatedPairs):
        return simulations
    return (simulated_pairs(data, probabilities, bootstrap, simulations, ancestral=ancestral)
            if simulations else None)


def simulated_pairs(data: DiscreteData, probabilities: EdgeProbabilities,
                    bootstrap: BootstrapSettings, n_simulations: int,
                    prior: float = 1.0, ancestral: bool = False) -> SimulatedPairs:
    """Labelled pairs of ``n_simulations`` data sets simulated from the network fitted to
    ``data`` and its bootstrap ``probabilities`` (see the module); ``prior``: the CPTs'
    equivalent sample size; ``ancestral``: count causal relations
    (:class:`~causalcal.edgecal.SimulatedCausalPairs`) instead of edge types."""
    check_simulations(n_simulations, minimum=1)
    start = time.perf_counter()
    network = fitted_network(data, probabilities, knowledge=bootstrap.knowledge, prior=prior)
    if ancestral:
        ancestor = ancestral_relations_from_edges(network.n_vars, network.edges(),
                                                  np.empty((0, 2), np.int64))[0]
        count = functools.partial(count_causal_pairs, ancestor=ancestor)
    else:
        truth_pairs, truth_labels = network.edge_labels()
        count = functools.partial(count_pairs, truth_pairs=truth_pairs,
                                  truth_labels=truth_labels)
    n_boot, table = probabilities.n_boot, 0
    for r in range(int(n_simulations)):
        if bootstrap.progress:
            log.info("simulation %d/%d: %d rows from the fitted network (%d edges), "
                     "bootstrapped as the data", r + 1, n_simulations, data.n_samples,
                     network.n_edges)
        sample = network.sample(data.n_samples,
                                seed=np.random.SeedSequence([bootstrap.seed, STREAM, r]))
        run = simulation_settings(bootstrap, n_boot, r).run(sample, ancestral=ancestral)
        table = table + count(run)
    kind = SimulatedCausalPairs if ancestral else SimulatedPairs
    return kind(table, int(n_simulations), network.n_edges, time.perf_counter() - start)
