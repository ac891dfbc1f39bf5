"""Simulated worlds like the user's, bootstrapped like the user's data: the labelled pairs
of simulation-informed calibration (docs/design.md §9.7).

A network is fitted to the data and its bootstrap
(:func:`causalcal.simulate.fitted_network`); ``R`` data sets of the data's size are drawn
from it and each is bootstrapped with the user's own settings (search, options,
knowledge, replicates). Every pair of every simulated data set is a labelled pair: its
bootstrap frequencies and the simulated network's CPDAG edge type.

Seeds: simulated data set ``r`` is drawn with ``SeedSequence([seed, STREAM, r])`` and
bootstrapped with seed ``seed + 1 + r``, so results depend on the seed alone, not on the
number of jobs. With a checkpoint folder, simulation ``r`` keeps its replicates in the
sub-folder ``simulation-r`` of it, so an interrupted run resumes.
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
from causalcal.edgecal import SimulatedPairs
from causalcal.edges import EdgeProbabilities
from causalcal.errors import InputError
from causalcal.simulate import fitted_network

__all__ = ["STREAM", "simulated_pairs"]

log = logging.getLogger(__name__)

#: The seed stream of the simulated data sets (apart from the bootstrap's reweighting).
STREAM = 26


def _settings(bootstrap: BootstrapSettings, r: int) -> BootstrapSettings:
    checkpoint = (None if bootstrap.checkpoint is None
                  else Path(bootstrap.checkpoint) / f"{NESTED_PREFIX}{r}")
    return dataclasses.replace(bootstrap, seed=bootstrap.seed + 1 + r, checkpoint=checkpoint)


def simulated_pairs(data: DiscreteData, probabilities: EdgeProbabilities,
                    bootstrap: BootstrapSettings, n_simulations: int,
                    prior: float = 1.0) -> SimulatedPairs:
    """Labelled pairs of ``n_simulations`` data sets simulated from the network fitted to
    ``data`` and its bootstrap ``probabilities`` (see the module); ``prior``: the CPTs'
    equivalent sample size."""
    if isinstance(n_simulations, bool) or not isinstance(n_simulations, (int, np.integer)) \
            or n_simulations < 1:
        raise InputError(f"simulations must be a whole number >= 1, got {n_simulations!r}")
    start = time.perf_counter()
    network = fitted_network(data, probabilities, knowledge=bootstrap.knowledge, prior=prior)
    labels = network.truth_dense()
    probs = []
    for r in range(int(n_simulations)):
        if bootstrap.progress:
            log.info("simulation %d/%d: %d rows from the fitted network (%d edges), "
                     "bootstrapped as the data", r + 1, n_simulations, data.n_samples,
                     network.n_edges)
        sample = network.sample(data.n_samples,
                                seed=np.random.SeedSequence([bootstrap.seed, STREAM, r]))
        probs.append(_settings(bootstrap, r).run(sample).dense(np.float64))
    return SimulatedPairs(np.concatenate(probs), np.tile(labels, int(n_simulations)),
                          bootstrap.n_boot, int(n_simulations), network.n_edges,
                          time.perf_counter() - start)
