"""causalcal.pairs: writing a pair the other way round swaps forward and backward."""

from __future__ import annotations

import numpy as np

from causalcal.edges import EdgeProbabilities, EdgeType
from causalcal.pairs import EDGE_SWAP, swap_directions, swap_labels


def test_swap_by_hand_and_involution():
    P = np.array([[0.1, 0.2, 0.3, 0.4], [1.0, 0.0, 0.0, 0.0]])
    np.testing.assert_array_equal(swap_directions(P), [[0.1, 0.3, 0.2, 0.4], [1, 0, 0, 0]])
    np.testing.assert_array_equal(swap_directions(swap_directions(P)), P)
    labels = np.array([EdgeType.NONE, EdgeType.FORWARD, EdgeType.BACKWARD, EdgeType.UNDIRECTED])
    np.testing.assert_array_equal(swap_labels(labels), [0, 2, 1, 3])
    assert EdgeProbabilities.swap == EDGE_SWAP


def test_lookup_of_reversed_pairs_is_the_swap():
    rng = np.random.default_rng(0)
    pairs = np.array([[0, 1], [0, 3], [2, 3]])
    probs = rng.dirichlet(np.ones(4), len(pairs))
    ep = EdgeProbabilities(["a", "b", "c", "d"], pairs, probs, n_boot=10)
    i, j = pairs[:, 0], pairs[:, 1]
    np.testing.assert_allclose(ep.lookup(j, i), swap_directions(ep.lookup(i, j)))
