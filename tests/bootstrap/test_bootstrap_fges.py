"""Bootstrap with the real FGES search (the default) on a small random network."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.bootstrap import bootstrap_edge_probabilities, bootstrap_weights
from causalcal.bootstrap.search.registry import get_search
from causalcal.cli import main
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities, dense_labels, n_pairs
from causalcal.simulate import random_network


@pytest.fixture(scope="module")
def data():
    return random_network(10, 14, seed=3).sample(400, seed=4)


def test_fges_bootstrap_counts_fges_graphs_of_the_replicates(data):
    n_boot = 8
    probs = bootstrap_edge_probabilities(data, n_boot=n_boot, seed=11, progress=False)
    assert probs.n_boot == n_boot and probs.names == data.names
    # independent reference: FGES on each replicate's weights, dense labels counted
    total = n_pairs(data.n_vars)
    counts = np.zeros((total, 4))
    for b in range(n_boot):
        g = get_search("fges")(data, bootstrap_weights(data.n_samples, 11, b))
        counts[np.arange(total), dense_labels(*g.pair_labels(), data.n_vars)] += 1
    np.testing.assert_allclose(probs.dense(np.float64), counts / n_boot, atol=1e-12)
    np.testing.assert_allclose(probs.probs.sum(axis=1), 1, atol=1e-12)
    assert len(probs) > 0
    # the bootstrap varies: the replicates do not all agree on every pair
    assert np.any(probs.probs.max(axis=1) < 1)


def test_fges_bootstrap_same_for_one_and_two_jobs_and_after_resume(data, tmp_path):
    one = bootstrap_edge_probabilities(data, n_boot=6, seed=2, n_jobs=1, progress=False,
                                       max_degree=4)
    two = bootstrap_edge_probabilities(data, n_boot=6, seed=2, n_jobs=2, progress=False,
                                       max_degree=4, checkpoint=tmp_path / "ck")
    assert one == two
    (tmp_path / "ck" / "rep-000003.npz").unlink()
    assert bootstrap_edge_probabilities(data, n_boot=6, seed=2, progress=False, max_degree=4,
                                        checkpoint=tmp_path / "ck") == one


def test_cli_default_search_is_fges(data, tmp_path):
    csv, out = tmp_path / "d.csv", tmp_path / "p.npz"
    data.to_csv(csv)
    assert main(["bootstrap", str(csv), "--n-boot", "3", "--seed", "5", "--out", str(out),
                 "-q"]) == 0
    expected = bootstrap_edge_probabilities(DiscreteData.from_csv(csv), n_boot=3, seed=5,
                                            search="fges", progress=False)
    np.testing.assert_allclose(EdgeProbabilities.load(out).probs, expected.probs)
