"""Pair features of the learned graphs (issue 19) against a brute-force count."""

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from causalcal.bootstrap.pair_features import (
    FEATURE_NAMES,
    FEATURE_SWAP,
    PairFeatureAccumulator,
    pair_features,
)
from causalcal.edges import pair_index
from causalcal.graph import PDAG, dag_to_cpdag
from causalcal.simulate.generate import random_dag


def _keys(g: PDAG):
    pairs, labels = g.pair_labels()
    return pair_index(pairs[:, 0], pairs[:, 1], g.n_vars), labels


def _brute(graphs, gain=None):
    v = graphs[0].n_vars
    rows = []
    for a, b in itertools.combinations(range(v), 2):
        f = np.zeros(len(FEATURE_NAMES))
        for g in graphs:
            f[0] += len(g.adjacent(a))
            f[1] += len(g.adjacent(b))
            f[2] += len(g.parents(a))
            f[3] += len(g.parents(b))
            f[4] += len(g.adjacent(a) & g.adjacent(b))
            collider = any(a in g.parents(c) and b in g.parents(c) for c in range(v))
            f[5] += collider and b not in g.adjacent(a)
        f /= len(graphs)
        f[6] = 0.0 if gain is None else gain[pair_index(a, b, v)]
        rows.append(f)
    return np.array(rows)


def _random_cpdag(v, e, seed):
    parents = random_dag(v, e, seed=seed)
    dag = PDAG.from_edges(v, [(int(p), c) for c, ps in enumerate(parents) for p in ps])
    return dag_to_cpdag(dag)


@settings(max_examples=25, deadline=None)
@given(v=st.integers(2, 9), density=st.floats(0, 1), seed=st.integers(0, 10**6),
       reps=st.integers(1, 4))
def test_features_equal_brute_force(v, density, seed, reps):
    max_e = v * (v - 1) // 2
    graphs = [_random_cpdag(v, int(round(density * max_e)), seed + r) for r in range(reps)]
    gain = np.random.default_rng(seed).normal(size=max_e)
    got = pair_features([_keys(g) for g in graphs], v, pairwise_gain=gain)
    np.testing.assert_allclose(got, _brute(graphs, gain), rtol=1e-6, atol=1e-6)


def test_v_structure_hand_case():
    # 0 -> 2 <- 1 is a v-structure; 0 -> 3 <- 4 with 0 - 4 adjacent is shielded
    g = PDAG.from_edges(5, directed=[(0, 2), (1, 2), (0, 3), (4, 3), (0, 4)])
    f = pair_features([_keys(g)], 5)
    col = FEATURE_NAMES.index("v_structure")
    assert f[pair_index(0, 1, 5), col] == 1.0
    assert f[pair_index(0, 4, 5), col] == 0.0
    assert f[pair_index(0, 1, 5), FEATURE_NAMES.index("common_neighbours")] == 1.0
    assert f[pair_index(0, 4, 5), FEATURE_NAMES.index("common_neighbours")] == 1.0  # node 3


def test_swap_permutation_matches_reading_the_pair_the_other_way():
    assert sorted(FEATURE_SWAP) == list(range(len(FEATURE_NAMES)))
    for k, name in enumerate(FEATURE_NAMES):
        other = FEATURE_NAMES[FEATURE_SWAP[k]]
        assert other == name.replace("_a", "_x").replace("_b", "_a").replace("_x", "_b")


def test_no_replicate_is_an_error():
    with pytest.raises(ValueError, match="no replicate"):
        PairFeatureAccumulator(3).features()


@pytest.mark.parametrize("v", [2, 3, 7, 40])
def test_all_pairs_in_pair_index_order(v):
    from causalcal.bootstrap.pair_features import _all_pairs
    from causalcal.edges import pair_from_index

    i, j = _all_pairs(v)
    a, b = pair_from_index(np.arange(v * (v - 1) // 2), v)
    np.testing.assert_array_equal(i, a)
    np.testing.assert_array_equal(j, b)


def test_checkpoint_features_equal_rerun_searches(tmp_path):
    from causalcal.bootstrap import bootstrap_edge_probabilities, bootstrap_weights, fges
    from causalcal.bootstrap.pair_features import checkpoint_pair_features
    from causalcal.bootstrap.score.discrete.bdeu import BDeuScore
    from causalcal.simulate import random_network

    net = random_network(12, 15, seed=4)
    data = net.sample(300, seed=5)
    bootstrap_edge_probabilities(data, n_boot=6, seed=7, checkpoint=tmp_path / "ck",
                                 progress=False)
    got = checkpoint_pair_features(data, tmp_path / "ck", n_boot=6, seed=7)
    graphs = [fges(data, bootstrap_weights(data.n_samples, 7, b)) for b in range(6)]
    expected = pair_features([_keys(g) for g in graphs], 12)
    np.testing.assert_allclose(got[:, :-1], expected[:, :-1], rtol=1e-6)
    score = BDeuScore(data)
    for a, b in [(0, 1), (2, 9), (5, 11)]:
        gain = score.local_score(b, [a]) - score.local_score(b, [])
        assert got[pair_index(a, b, 12), -1] == pytest.approx(gain, rel=1e-4, abs=1e-3)


def test_checkpoint_features_need_a_finished_bootstrap(tmp_path):
    from causalcal.bootstrap import bootstrap_edge_probabilities
    from causalcal.bootstrap.pair_features import checkpoint_pair_features
    from causalcal.simulate import random_network

    data = random_network(8, 8, seed=1).sample(200, seed=2)
    bootstrap_edge_probabilities(data, n_boot=3, seed=0, checkpoint=tmp_path / "ck",
                                 progress=False)
    with pytest.raises(ValueError, match="3 of 5 replicates"):
        checkpoint_pair_features(data, tmp_path / "ck", n_boot=5, seed=0)


def test_transform_features():
    from causalcal.edgecal import transform_features

    F = np.array([[0, 1, 0, 2, 3, 0.5, -20.0], [1, 0, 1, 0, 0, 0.0, 5.0]])
    T = transform_features(F)
    np.testing.assert_allclose(T[:, :5], np.log1p(F[:, :5]))
    np.testing.assert_allclose(T[:, 5], F[:, 5])
    np.testing.assert_allclose(T[:, 6], [-np.log1p(20.0), np.log1p(5.0)])


def test_feature_columns_and_their_swap():
    from causalcal.edgecal import FEATURE_GROUPS, feature_columns

    cols, swap = feature_columns(("v_structure", "degree"))
    assert cols.tolist() == [0, 1, 5] and swap == (1, 0, 2)
    cols, swap = feature_columns(tuple(FEATURE_GROUPS))
    assert cols.tolist() == list(range(7)) and swap == FEATURE_SWAP
    with pytest.raises(ValueError, match="unknown pair feature group 'x'"):
        feature_columns(("x",))


def test_bootstrap_features_in_the_same_pass(tmp_path):
    """features=True: the same features as read from the checkpoint afterwards, for any
    n_jobs and with a resumed checkpoint; saved and loaded with the .npz."""
    from causalcal.bootstrap import bootstrap_edge_probabilities
    from causalcal.bootstrap.pair_features import checkpoint_pair_features
    from causalcal.edges import EdgeProbabilities
    from causalcal.simulate import random_network

    data = random_network(10, 12, seed=2).sample(250, seed=3)
    one = bootstrap_edge_probabilities(data, n_boot=6, seed=1, progress=False, features=True,
                                       checkpoint=tmp_path / "ck")
    expected = checkpoint_pair_features(data, tmp_path / "ck", n_boot=6, seed=1)
    np.testing.assert_array_equal(one.pair_features, expected)
    two = bootstrap_edge_probabilities(data, n_boot=6, seed=1, progress=False, features=True,
                                       n_jobs=2, backend="threading")
    np.testing.assert_array_equal(two.pair_features, expected)
    resumed = bootstrap_edge_probabilities(data, n_boot=6, seed=1, progress=False,
                                           features=True, checkpoint=tmp_path / "ck")
    np.testing.assert_array_equal(resumed.pair_features, expected)
    one.save(tmp_path / "p.npz")
    np.testing.assert_array_equal(EdgeProbabilities.load(tmp_path / "p.npz").pair_features,
                                  expected)
    assert bootstrap_edge_probabilities(data, n_boot=2, progress=False).pair_features is None
