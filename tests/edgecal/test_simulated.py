"""The simulation-informed map of P(adjacent) and its counts (docs/design.md §9.7)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from causalcal.edgecal import SimulatedAdjacency, SimulatedPairs, count_pairs
from causalcal.edgecal.model import KeepDirectionSplit
from causalcal.edges import EdgeProbabilities, pair_index
from causalcal.errors import InputError

N_BOOT = 20


def _table(slope: float, intercept: float, n: int = 40000, seed: int = 0) -> SimulatedPairs:
    """Pairs whose truth follows ``logit P(adj | p) = slope · logit p + intercept``."""
    rng = np.random.default_rng(seed)
    hits = rng.integers(1, N_BOOT, size=n)  # never 0 or n_boot
    adjacent = rng.random(n) < expit(slope * logit(hits / N_BOOT) + intercept)
    labels = np.where(adjacent, rng.choice([1, 2, 3], size=n), 0)
    table = np.zeros((N_BOOT + 1, 4), dtype=np.int64)
    np.add.at(table, (hits, labels), 1)
    return SimulatedPairs(table, n_simulations=1, n_edges=int(adjacent.sum()))


def test_recovers_a_known_logit_linear_distortion():
    sim = SimulatedAdjacency(eps=0.5 / N_BOOT).fit(_table(slope=1.8, intercept=-0.7))
    assert sim.slope_ == pytest.approx(1.8, abs=0.08)
    assert sim.intercept_ == pytest.approx(-0.7, abs=0.08)
    identity = SimulatedAdjacency(eps=0.5 / N_BOOT).fit(_table(1.0, 0.0, seed=1))
    assert identity.slope_ == pytest.approx(1.0, abs=0.08)
    assert identity.intercept_ == pytest.approx(0.0, abs=0.08)


def test_monotone_and_keeps_the_bootstrap_direction_split():
    pairs = _table(slope=1.5, intercept=0.5)
    pairs.table[0] = [500, 3, 5, 8]  # never-joined pairs: 8 directed, 8 undirected
    sim = SimulatedAdjacency(eps=0.5 / N_BOOT).fit(pairs)
    np.testing.assert_allclose(sim.split_, np.array([5, 5, 9]) / 19)  # pooled, add-one
    model = KeepDirectionSplit(sim)
    rows = np.array([[1.0, 0, 0, 0], [0.9, 0.05, 0.0, 0.05], [0.5, 0.1, 0.3, 0.1],
                     [0.0, 0.6, 0.2, 0.2]])
    Q = model.predict_proba(rows)
    np.testing.assert_allclose(Q.sum(axis=1), 1)
    assert np.all(np.diff(1 - Q[:, 0]) > 0)  # the bootstrap's order of P(adjacent)
    np.testing.assert_allclose(Q[2, 1:] / (1 - Q[2, 0]), [0.2, 0.6, 0.2])
    np.testing.assert_allclose(Q[0, 1:] / (1 - Q[0, 0]), sim.split_)


def test_count_pairs_by_hand():
    # 4 variables, 6 pairs, n_boot 4; stored pairs (0,1) 4/4, (1,2) 1/4, (0,3) 2/4
    probs = EdgeProbabilities(["a", "b", "c", "d"], np.array([[0, 1], [1, 2], [0, 3]]),
                              np.array([[0, 1, 0, 0], [0.75, 0, 0, 0.25], [0.5, 0, 0.5, 0]]),
                              n_boot=4)
    # truth: (0, 1) forward, (2, 3) undirected (never joined by the bootstrap)
    table = count_pairs(probs, np.array([[0, 1], [2, 3]]), np.array([1, 3]))
    expected = np.zeros((5, 4), dtype=np.int64)
    expected[4, 1] = 1                 # (0, 1): 4 hits, forward
    expected[1, 0] = 1                 # (1, 2): 1 hit, not adjacent
    expected[2, 0] = 1                 # (0, 3): 2 hits, not adjacent
    expected[0, 3] = 1                 # (2, 3): 0 hits, undirected
    expected[0, 0] = 2                 # (0, 2), (1, 3): never joined, not adjacent
    np.testing.assert_array_equal(table, expected)
    assert pair_index(np.array([2]), np.array([3]), 4)[0] == 5


def test_refuses_simulated_pairs_of_one_kind():
    table = np.zeros((N_BOOT + 1, 4), dtype=np.int64)
    table[:, 0] = 10
    with pytest.raises(InputError, match="adjacent and non-adjacent"):
        SimulatedAdjacency().fit(SimulatedPairs(table, 1, 0))
