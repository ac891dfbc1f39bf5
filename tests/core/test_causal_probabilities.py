"""Three-class causal probabilities and the causal truth of a DAG."""

import numpy as np
import pytest

from causalcal.ancestry import AncestralCounts, causal_truth
from causalcal.causal import CausalProbabilities
from causalcal.errors import InputError
from causalcal.graph import PDAG
from causalcal.pairs import CausalType, pair_index


def _chain_dag():
    # 0 → 1 → 2, 3 alone: 0 causes 1 and 2, 1 causes 2
    return PDAG.from_matrix(np.array([[0, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0],
                                      [0, 0, 0, 0]]))


def test_causal_truth_by_hand():
    truth = causal_truth(_chain_dag())
    expected = {(0, 1): CausalType.FORWARD, (0, 2): CausalType.FORWARD,
                (1, 2): CausalType.FORWARD}
    for i in range(4):
        for j in range(i + 1, 4):
            want = expected.get((i, j), CausalType.NEITHER)
            assert truth[pair_index(i, j, 4)] == want
    reversed_dag = PDAG.from_matrix(np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0]]))  # 2 → 1 → 0
    assert list(causal_truth(reversed_dag)) == [CausalType.BACKWARD] * 3


def test_causal_truth_refuses_undirected_edges():
    with pytest.raises(InputError, match="DAG"):
        causal_truth(PDAG.from_matrix(np.array([[0, 1], [1, 0]])))


def test_from_counts_and_lookup_swap():
    definite = np.array([[0, 2, 0], [0, 0, 0], [0, 1, 0]])
    possible = np.array([[0, 3, 1], [1, 0, 0], [1, 2, 0]])
    probs = CausalProbabilities.from_counts(AncestralCounts(definite, possible, 4), "abc")
    assert probs.n_pairs == 3 and probs.n_classes == 3
    assert np.allclose(probs.lookup(0, 1), [1 / 4, 2.5 / 4, 0.5 / 4])
    assert np.allclose(probs.lookup(1, 0), [1 / 4, 0.5 / 4, 2.5 / 4])
    assert np.allclose(probs.lookup(np.array([2]), np.array([1])), [[2.5 / 4, 1.5 / 4, 0.0]])
    assert np.allclose(probs.dense().sum(axis=1), 1.0)
    with pytest.raises(InputError):
        probs.lookup(1, 1)


def test_bad_rows_are_refused():
    with pytest.raises(InputError, match="shape"):
        CausalProbabilities("abc", np.ones((2, 3)) / 3)
    with pytest.raises(InputError, match="summing"):
        CausalProbabilities("ab", np.array([[0.5, 0.2, 0.2]]))
