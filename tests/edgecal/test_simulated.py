"""The simulation-informed maps of P(adjacent) and of P(a causes b) and their counts
(docs/design.md §9.7, §9.9)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit, logit

from causalcal.ancestry import AncestralCounts
from causalcal.edgecal import (
    SimulatedAdjacency,
    SimulatedCausal,
    SimulatedCausalPairs,
    SimulatedPairs,
    count_causal_pairs,
    count_pairs,
)
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


def _causal_table(slope: float, intercept: float, n: int = 40000, seed: int = 0
                  ) -> SimulatedCausalPairs:
    """Ordered pairs whose truth follows ``logit P(a causes b | p) = slope · logit p +
    intercept``, p = k / (2 N_BOOT)."""
    rng = np.random.default_rng(seed)
    steps = 2 * N_BOOT
    k = rng.integers(1, steps, size=n)
    causes = rng.random(n) < expit(slope * logit(k / steps) + intercept)
    table = np.zeros((steps + 1, 2), dtype=np.int64)
    np.add.at(table, (k, causes.astype(int)), 1)
    return SimulatedCausalPairs(table, n_simulations=1, n_edges=0)


def test_causal_map_recovers_a_known_logit_linear_distortion():
    pairs = _causal_table(slope=1.6, intercept=-0.9)
    assert pairs.n_boot == N_BOOT
    sim = SimulatedCausal(eps=0.25 / N_BOOT).fit(pairs)
    assert sim.slope_ == pytest.approx(1.6, abs=0.08)
    assert sim.intercept_ == pytest.approx(-0.9, abs=0.08)
    identity = SimulatedCausal(eps=0.25 / N_BOOT).fit(_causal_table(1.0, 0.0, seed=1))
    assert identity.slope_ == pytest.approx(1.0, abs=0.08)
    assert identity.intercept_ == pytest.approx(0.0, abs=0.08)


def _raw_rows(n: int, seed: int) -> np.ndarray:
    """Random raw causal rows (neither, a causes b, b causes a) on the k / (2 N_BOOT) grid,
    the two directions summing to at most 1."""
    rng = np.random.default_rng(seed)
    steps = 2 * N_BOOT
    fwd = rng.integers(0, steps + 1, size=n)
    bwd = rng.integers(0, steps + 1 - fwd)
    P = np.column_stack([steps - fwd - bwd, fwd, bwd]) / steps
    return np.vstack([P, [[1.0, 0, 0], [0, 1.0, 0], [0, 0.5, 0.5]]])


@pytest.mark.parametrize("intercept", [-0.5, 3.0])  # 3: the two directions often sum above 1
def test_causal_map_rows_sum_to_one_swap_equivariant_and_monotone(intercept):
    sim = SimulatedCausal(eps=0.25 / N_BOOT).fit(_causal_table(1.3, intercept, seed=2))
    X = _raw_rows(500, seed=3)
    Q = sim.predict_proba(X)
    np.testing.assert_allclose(Q.sum(axis=1), 1)
    assert (Q >= 0).all()
    np.testing.assert_allclose(sim.predict_proba(X[:, [0, 2, 1]]), Q[:, [0, 2, 1]])
    scaled = sim.map(X[:, 1:]).sum(axis=1) > 1
    assert scaled.any() == (intercept > 0)
    np.testing.assert_allclose(Q[scaled, 0], 0, atol=1e-12)
    # monotone: with the other direction fixed, more bootstrap support never lowers q
    grid = np.arange(0, 2 * N_BOOT + 1) / (2 * N_BOOT)
    for other in (0.0, 0.2, 0.5):
        p = grid[grid <= 1 - other]
        rows = np.column_stack([1 - p - other, p, np.full(len(p), other)])
        q = sim.predict_proba(rows)
        assert np.all(np.diff(q[:, 1]) > 0)
        assert np.all(np.diff(q[:, 2]) <= 1e-12)  # and never raises the other direction


def test_count_causal_pairs_by_hand():
    # 3 variables, n_boot 2: definite / possible counts of "a is an ancestor of b"
    probs = EdgeProbabilities(["a", "b", "c"], np.empty((0, 2), np.int64),
                              np.empty((0, 4)), n_boot=2)
    definite = np.array([[0, 2, 1], [0, 0, 0], [0, 0, 0]])
    possible = np.array([[0, 2, 2], [0, 0, 1], [0, 1, 0]])
    probs.ancestral = AncestralCounts(definite, possible, 2)
    ancestor = np.array([[0, 1, 1], [0, 0, 0], [0, 1, 0]], dtype=bool)  # a → c → b
    table = count_causal_pairs(probs, ancestor)
    expected = np.zeros((5, 2), dtype=np.int64)
    expected[4, 1] = 1            # a → b: 2 + 2 half-steps, true
    expected[3, 1] = 1            # a → c: 1 + 2, true
    expected[1, 0] = 1            # b → c: 0 + 1, false
    expected[1, 1] = 1            # c → b: 0 + 1, true
    expected[0, 0] = 2            # b → a, c → a: never, false
    np.testing.assert_array_equal(table, expected)
    with pytest.raises(InputError, match="ancestral counts"):
        count_causal_pairs(EdgeProbabilities(["a", "b"], np.empty((0, 2), np.int64),
                                             np.empty((0, 4)), n_boot=2), ancestor[:2, :2])


def test_causal_map_refuses_pairs_of_one_kind():
    table = np.zeros((2 * N_BOOT + 1, 2), dtype=np.int64)
    table[:, 0] = 10
    with pytest.raises(InputError, match="causally related and unrelated"):
        SimulatedCausal().fit(SimulatedCausalPairs(table, 1, 0))
