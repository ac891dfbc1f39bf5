"""The simulation-informed map of P(adjacent) (docs/design.md §9.7)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from causalcal.edgecal import SimulatedAdjacency
from causalcal.edgecal.model import KeepDirectionSplit
from causalcal.errors import InputError


def _pairs(slope: float, intercept: float, n: int = 40000, seed: int = 0):
    """Pairs whose truth follows ``logit P(adj | p) = slope · logit p + intercept``."""
    rng = np.random.default_rng(seed)
    p_adj = rng.integers(1, 20, size=n) / 20  # a bootstrap of 20 replicates, never 0 or 1
    adjacent = rng.random(n) < expit(slope * logit(p_adj) + intercept)
    X = np.column_stack([1 - p_adj, p_adj / 2, p_adj / 4, p_adj / 4])
    labels = np.where(adjacent, rng.choice([1, 2, 3], size=n), 0)
    return X, labels


def test_recovers_a_known_logit_linear_distortion():
    X, labels = _pairs(slope=1.8, intercept=-0.7)
    sim = SimulatedAdjacency(eps=0.025).fit(X, labels)
    assert sim.slope_ == pytest.approx(1.8, abs=0.08)
    assert sim.intercept_ == pytest.approx(-0.7, abs=0.08)
    identity = SimulatedAdjacency(eps=0.025).fit(*_pairs(slope=1.0, intercept=0.0, seed=1))
    assert identity.slope_ == pytest.approx(1.0, abs=0.08)
    assert identity.intercept_ == pytest.approx(0.0, abs=0.08)


def test_monotone_and_keeps_the_bootstrap_direction_split():
    X, labels = _pairs(slope=1.5, intercept=0.5)
    model = KeepDirectionSplit(SimulatedAdjacency(eps=0.025).fit(X, labels))
    rows = np.array([[1.0, 0, 0, 0], [0.9, 0.05, 0.0, 0.05], [0.5, 0.1, 0.3, 0.1],
                     [0.0, 0.6, 0.2, 0.2]])
    Q = model.predict_proba(rows)
    np.testing.assert_allclose(Q.sum(axis=1), 1)
    assert np.all(np.diff(1 - Q[:, 0]) > 0)  # the bootstrap's order of P(adjacent)
    np.testing.assert_allclose(Q[2, 1:] / (1 - Q[2, 0]), [0.2, 0.6, 0.2])
    # a pair never found adjacent takes the simulated adjacent pairs' split: symmetric
    assert Q[0, 1] == pytest.approx(Q[0, 2])


def test_refuses_simulated_pairs_of_one_kind():
    X, _ = _pairs(slope=1.0, intercept=0.0, n=50)
    with pytest.raises(InputError, match="adjacent and non-adjacent"):
        SimulatedAdjacency().fit(X, np.zeros(50, dtype=int))
