"""The bootstrap of a PAG search (issue 40, item 2): the seven PAG edge types counted per
pair, against the same searches run by hand on the same resamples; files, lookups,
checkpoints and the ancestral counts of PAG replicates."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal import EdgeProbabilities, PAGEdgeProbabilities
from causalcal.ancestry import pag_ancestral_bounds
from causalcal.bootstrap import bootstrap_edge_probabilities, bootstrap_weights, gfci
from causalcal.bootstrap.bootstrap import EdgeTypeCounter, edge_probabilities_from_graphs
from causalcal.bootstrap.checkpoint import Checkpoint
from causalcal.errors import InputError
from causalcal.pag import PAG
from causalcal.pag_io import read_pag
from causalcal.pairs import PAG_EDGE_SYMBOLS
from causalcal.simulate import latent_confounders

N_BOOT = 6


@pytest.fixture(scope="module")
def case():
    """Data with hidden common causes, and GFCI run by hand on each resample."""
    data = latent_confounders(600, seed=3, n_observed=9, n_edges=9, n_latent=2).data
    graphs = [gfci(data, bootstrap_weights(data.n_samples, 5, b)) for b in range(N_BOOT)]
    return data, graphs


def test_counts_equal_the_searches_by_hand(case):
    data, graphs = case
    probs = bootstrap_edge_probabilities(data, n_boot=N_BOOT, search="gfci", seed=5,
                                         progress=False)
    assert isinstance(probs, PAGEdgeProbabilities) and probs.n_classes == 7
    P = probs.dense(np.float64)
    k = 0
    for a in range(data.n_vars):
        for b in range(a + 1, data.n_vars):
            seen = [g.edge(a, b) or "none" for g in graphs]
            expected = [seen.count(s) / N_BOOT for s in PAG_EDGE_SYMBOLS]
            np.testing.assert_allclose(P[k], expected)
            k += 1
    assert any(g.n_edges for g in graphs)
    assert probs == edge_probabilities_from_graphs(graphs, data.names)


def test_lookup_reads_a_pair_the_other_way_round(case):
    data, graphs = case
    probs = edge_probabilities_from_graphs(graphs, data.names)
    for a, b in [(0, 1), (2, 5), (3, 8)]:
        for row, (x, y) in ((probs.lookup(a, b), (a, b)), (probs.lookup(b, a), (b, a))):
            seen = [g.edge(x, y) or "none" for g in graphs]
            np.testing.assert_allclose(row, [seen.count(s) / N_BOOT for s in PAG_EDGE_SYMBOLS])


def test_same_result_with_two_jobs_and_from_a_checkpoint(case, tmp_path):
    data, _ = case
    one = bootstrap_edge_probabilities(data, n_boot=4, search="gfci", seed=1, progress=False,
                                       ancestral=True)
    two = bootstrap_edge_probabilities(data, n_boot=4, search="gfci", seed=1, progress=False,
                                       ancestral=True, n_jobs=2, checkpoint=tmp_path / "ck")
    again = bootstrap_edge_probabilities(data, n_boot=4, search="gfci", seed=1,
                                         progress=False, ancestral=True,
                                         checkpoint=tmp_path / "ck")
    for other in (two, again):
        assert other == one and other.ancestral == one.ancestral


def test_ancestral_counts_are_the_sum_of_each_replicates_bounds(case):
    data, graphs = case
    probs = bootstrap_edge_probabilities(data, n_boot=N_BOOT, search="gfci", seed=5,
                                         progress=False, ancestral=True)
    definite = sum(pag_ancestral_bounds(data.n_vars, *g.pair_labels())[0].astype(int)
                   for g in graphs)
    possible = sum(pag_ancestral_bounds(data.n_vars, *g.pair_labels())[1].astype(int)
                   for g in graphs)
    np.testing.assert_array_equal(probs.ancestral.definite, definite)
    np.testing.assert_array_equal(probs.ancestral.possible, possible)


@pytest.mark.parametrize("suffix", [".npz", ".csv"])
def test_files_read_back_as_pag_edge_types(case, tmp_path, suffix):
    data, graphs = case
    probs = edge_probabilities_from_graphs(graphs, data.names)
    path = tmp_path / f"p{suffix}"
    probs.save(path)
    back = EdgeProbabilities.load(path)
    assert type(back) is PAGEdgeProbabilities and back == probs
    assert PAGEdgeProbabilities.load(path) == probs
    cpdag = bootstrap_edge_probabilities(data, n_boot=2, progress=False)
    cpdag.save(tmp_path / f"c{suffix}")
    with pytest.raises(InputError, match="4 probability columns, not the 7"):
        PAGEdgeProbabilities.load(tmp_path / f"c{suffix}")
    if suffix == ".csv":
        header = path.read_text().splitlines()[0]
        assert header == ("a,b,p_none,p_circle_circle,p_circle_arrow,p_arrow_circle,"
                          "p_tail_arrow,p_arrow_tail,p_arrow_arrow")


def test_averaged_pag_takes_each_adjacent_pairs_most_frequent_type():
    graphs = [PAG.from_edges(3, e) for e in ([(0, "o->", 1), (1, "<->", 2)],
                                             [(0, "-->", 1), (1, "<->", 2)],
                                             [(0, "-->", 1)])]
    probs = edge_probabilities_from_graphs(graphs)
    assert probs.averaged_network(0.5).edges() == [("X0", "-->", "X1"), ("X1", "<->", "X2")]
    assert probs.averaged_network(0.7).edges() == [("X0", "-->", "X1")]


def test_counter_and_checkpoint_refuse_labels_of_another_graph(case, tmp_path):
    data, graphs = case
    counter = EdgeTypeCounter(data.n_vars)  # CPDAG edge types
    with pytest.raises(InputError, match="PDAG"):
        counter.add_graph(graphs[0])
    with pytest.raises(InputError, match="labels must be 1 to 3"):
        counter.add(np.array([0]), np.array([5]))
    ck = Checkpoint.open(tmp_path / "f", data, n_boot=2, seed=0, search="fges",
                         search_options={})
    ck.write(0, np.array([0]), np.array([5]))
    with pytest.warns(UserWarning, match="damaged"):
        assert ck.read(0) is None
    ck.close()
    ck = Checkpoint.open(tmp_path / "g", data, n_boot=2, seed=0, search="gfci",
                         search_options={})
    ck.write(0, np.array([0]), np.array([5]))
    assert ck.read(0)[1].tolist() == [5]
    ck.close()


def test_pair_features_are_refused_for_a_pag_search(case):
    data, _ = case
    with pytest.raises(InputError, match="pair features are of CPDAG edge types"):
        bootstrap_edge_probabilities(data, n_boot=2, search="gfci", features=True,
                                     progress=False)


def test_cli_writes_pag_tables_and_the_averaged_pag(case, tmp_path, causalcal_main):
    data, _ = case
    data.to_frame(labels=False).to_csv(tmp_path / "d.csv", index=False)
    done = causalcal_main("bootstrap", str(tmp_path / "d.csv"), "--search", "gfci",
                          "--n-boot", "3", "--out", str(tmp_path / "p.csv"), "--graph",
                          str(tmp_path / "g.txt"), "--quiet", "--jobs", "1")
    assert done.returncode == 0, done.stderr
    probs = EdgeProbabilities.load(tmp_path / "p.csv")
    assert isinstance(probs, PAGEdgeProbabilities)
    assert read_pag(tmp_path / "g.txt") == probs.averaged_network(0.5)
    refused = causalcal_main("bootstrap", str(tmp_path / "d.csv"), "--n-boot", "2", "--out",
                             str(tmp_path / "q.csv"), "--graph", str(tmp_path / "g2.txt"))
    assert refused.returncode == 2 and "cannot write '.txt'" in refused.stderr
