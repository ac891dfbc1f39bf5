"""Tests for causalcal.simulate (thesis §6.2.4 steps 1–2; docs/design.md §4)."""

from __future__ import annotations

import importlib.util
import itertools
import json
import sys
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from causalcal.data import DiscreteData
from causalcal.edges import EdgeType, n_pairs
from causalcal.simulate import (
    DEFAULT_MAX_CPT_ENTRIES,
    BayesianNetwork,
    available_networks,
    from_bif,
    load_network,
    random_dag,
    random_network,
    to_pgmpy,
)

STRICT_ALPHA = 1e-3


def small_network() -> BayesianNetwork:
    """A 4-variable network with mixed arities and a 2-parent node, hand-written CPTs.

    Edges: A → C, B → C, C → D, A → D. Parent configurations: last parent fastest.
    """
    cpt_a = np.array([[0.2, 0.5, 0.3]])
    cpt_b = np.array([[0.6, 0.4]])
    # C | (A, B): rows (a, b) = (0,0), (0,1), (1,0), (1,1), (2,0), (2,1)
    cpt_c = np.array([[0.9, 0.1], [0.3, 0.7], [0.5, 0.5], [0.05, 0.95], [0.7, 0.3], [0.2, 0.8]])
    # D | (A, C): rows (a, c) = (0,0), (0,1), (1,0), (1,1), (2,0), (2,1)
    cpt_d = np.array([
        [0.1, 0.2, 0.7], [0.6, 0.3, 0.1], [0.3, 0.3, 0.4],
        [0.0, 0.5, 0.5], [0.8, 0.1, 0.1], [0.25, 0.25, 0.5],
    ])
    return BayesianNetwork(
        ["A", "B", "C", "D"], [3, 2, 2, 3], [[], [], [1, 0], [2, 0]],
        [cpt_a, cpt_b, cpt_c, cpt_d],
        state_names=[["a0", "a1", "a2"], ["no", "yes"], [0, 1], ["lo", "mid", "hi"]],
    )


def brute_force_joint(net: BayesianNetwork) -> dict[tuple[int, ...], float]:
    """Joint probability of every full assignment, straight from the documented row order."""
    joint = {}
    for states in itertools.product(*[range(a) for a in net.arities]):
        p = 1.0
        for v in range(net.n_vars):
            pa = net.parents[v]
            row = (
                int(np.ravel_multi_index([states[u] for u in pa], net.arities[pa])) if len(pa)
                else 0
            )
            p *= net.cpts[v][row, states[v]]
        joint[states] = p
    return joint


def chi_square_joint(codes: np.ndarray, joint: dict[tuple[int, ...], float]) -> float:
    """p-value of a chi-square goodness-of-fit test of sampled rows against ``joint``."""
    keys = list(joint)
    expected = np.array([joint[k] for k in keys])
    lookup = {k: i for i, k in enumerate(keys)}
    observed = np.zeros(len(keys))
    rows, counts = np.unique(codes, axis=0, return_counts=True)
    for r, c in zip(rows, counts):
        observed[lookup[tuple(int(x) for x in r)]] += c  # KeyError = impossible state
    assert observed[expected == 0].sum() == 0, "sampled a zero-probability assignment"
    keep = expected > 0
    return stats.chisquare(observed[keep], expected[keep] * len(codes)).pvalue


# ----------------------------------------------------------------- sampling
def test_sampling_matches_joint_from_cpts():
    net = small_network()
    data = net.sample(100_000, seed=0)
    assert isinstance(data, DiscreteData)
    assert data.names == net.names
    assert data.categories == net.state_names
    assert chi_square_joint(data.codes, brute_force_joint(net)) > STRICT_ALPHA


def test_sampling_conditional_frequencies_match_each_cpt_row():
    net = small_network()
    codes = net.sample(100_000, seed=1).codes.astype(np.int64)
    for v in range(net.n_vars):
        pa = net.parents[v]
        cfg = np.ravel_multi_index(codes[:, pa].T, net.arities[pa]) if len(pa) else 0
        cfg = np.broadcast_to(cfg, codes.shape[0])
        for row in range(net.cpts[v].shape[0]):
            obs = np.bincount(codes[cfg == row, v], minlength=net.arities[v])
            exp = net.cpts[v][row] * obs.sum()
            assert obs[exp == 0].sum() == 0
            p = stats.chisquare(obs[exp > 0], exp[exp > 0]).pvalue
            assert p > STRICT_ALPHA, (net.names[v], row, obs, exp)


def test_chi_square_check_detects_a_wrong_cpt():
    """The test above can fail: a mildly perturbed CPT is rejected."""
    net = small_network()
    data = net.sample(100_000, seed=0)
    wrong = small_network()
    wrong.cpts[2] = wrong.cpts[2].copy()
    wrong.cpts[2][3] = [0.1, 0.9]  # was [0.05, 0.95]
    assert chi_square_joint(data.codes, brute_force_joint(wrong)) < 1e-6
    # and a parent-order mix-up (first parent fastest) is rejected
    swapped = small_network()
    swapped.cpts[2] = net.cpts[2].reshape(3, 2, 2).transpose(1, 0, 2).reshape(6, 2)
    assert chi_square_joint(data.codes, brute_force_joint(swapped)) < 1e-6


def test_same_seed_same_network_and_data():
    a = random_network(60, 90, seed=7)
    b = random_network(60, 90, seed=7)
    assert a == b
    assert a.sample(300, seed=3) == b.sample(300, seed=3)
    assert not np.array_equal(a.sample(300, seed=3).codes, a.sample(300, seed=4).codes)
    c = random_network(60, 90, seed=8)
    assert c != a


def test_random_network_properties():
    net = random_network(200, 300, arities=(2, 3, 4), seed=1)
    assert net.n_vars == 200 and net.n_edges == 300
    assert set(net.arities.tolist()) <= {2, 3, 4}
    assert net.dag().is_dag()
    assert net.names == [f"X{k}" for k in range(200)]
    for v in range(net.n_vars):
        rows = int(np.prod(net.arities[net.parents[v]]))
        assert net.cpts[v].shape == (rows, net.arities[v])
        np.testing.assert_allclose(net.cpts[v].sum(axis=1), 1.0)
        assert np.all(np.diff(net.parents[v]) > 0)
    # causal order is not the index order: edges point both ways in index order
    e = net.edges()
    assert (e[:, 0] < e[:, 1]).any() and (e[:, 0] > e[:, 1]).any()
    codes = net.sample(500, seed=2).codes
    assert codes.shape == (500, 200)
    assert np.all(codes.max(axis=0) < net.arities)


def test_uniform_edges_and_dirichlet_rows():
    """Edges uniform over pairs; flat Dirichlet rows have mean 1/k and Var (k−1)/(k²(k+1))."""
    hits = np.zeros((6, 6))
    forward = 0
    for s in range(2000):
        for child, parents in enumerate(random_dag(6, 4, seed=s)):
            hits[np.minimum(parents, child), np.maximum(parents, child)] += 1
            forward += int(np.sum(parents < child))
    assert stats.chisquare(hits[np.triu_indices(6, 1)]).pvalue > STRICT_ALPHA
    # random causal order: each pair is oriented either way with probability 1/2
    assert stats.binomtest(forward, 8000).pvalue > STRICT_ALPHA
    net = random_network(40, 120, arities=3, seed=3, max_in_degree=6)
    first = np.concatenate([t[:, 0] for t in net.cpts])
    assert abs(first.mean() - 1 / 3) < 4 * np.sqrt(2 / 36 / len(first))
    assert stats.kstest(first, stats.beta(1, 2).cdf).pvalue > STRICT_ALPHA


def test_max_in_degree():
    parents = random_dag(300, 800, seed=0, max_in_degree=3)
    assert sum(len(p) for p in parents) == 800
    assert max(len(p) for p in parents) <= 3
    # the densest possible bounded DAG: every node at position p has min(p, 3) parents
    parents = random_dag(50, 3 + 3 * 47, seed=1, max_in_degree=3)
    assert sorted(len(p) for p in parents)[:3] == [0, 1, 2]
    net = random_network(300, 590, seed=0, max_in_degree=2)
    assert max(len(p) for p in net.parents) <= 2


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: random_network(10, 46), "more than a DAG on 10 nodes"),
        (lambda: random_network(0, 0), "n_nodes must be >= 1"),
        (lambda: random_network(10, -1), "n_edges must be >= 0"),
        (lambda: random_network(10, 5, arities=(1, 2)), "arity must be >= 2"),
        (lambda: random_network(10, 5, arities=()), "at least one arity"),
        (lambda: random_network(10, 5, arities=(2.5,)), "arities must be integers"),
        (lambda: random_network(10.5, 5), "n_nodes must be an integer"),
        (lambda: random_network(10, 30, max_in_degree=2), "max_in_degree=2"),
        (lambda: random_network(30, 435, max_cpt_entries=1000), "max_cpt_entries=1,000"),
        (lambda: random_network(5, 3, seed=0).sample(0), "n must be >= 1"),
    ],
)
def test_bad_arguments(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_cpt_cap_message_suggests_max_in_degree():
    with pytest.raises(ValueError, match="pass max_in_degree"):
        random_network(40, 780, seed=0)  # complete DAG: last node has 39 parents
    assert DEFAULT_MAX_CPT_ENTRIES == 2**26
    net = random_network(40, 200, seed=0, max_in_degree=8)  # bounded: fine
    assert max(len(p) for p in net.parents) <= 8


def test_constructor_validation():
    ok = small_network()
    args = [ok.names, ok.arities, ok.parents, ok.cpts]
    with pytest.raises(ValueError, match="CPT row 0 sums to"):
        BayesianNetwork(*args[:3], [np.array([[0.5, 0.4, 0.3]]), *ok.cpts[1:]])
    with pytest.raises(ValueError, match="CPT shape"):
        BayesianNetwork(*args[:3], [ok.cpts[0], ok.cpts[1], ok.cpts[2][:3], ok.cpts[3]])
    with pytest.raises(ValueError, match="cycle"):
        BayesianNetwork(["a", "b"], [2, 2], [[1], [0]], [np.full((2, 2), 0.5)] * 2)
    with pytest.raises(ValueError, match="duplicate variable name"):
        BayesianNetwork(["a", "a"], [2, 2], [[], []], [np.full((1, 2), 0.5)] * 2)


# ------------------------------------------------------------------- truth
def test_truth_labels_from_cpdag():
    net = small_network()  # A → C ← B, C → D ← A: all compelled
    pairs, labels = net.edge_labels()
    got = {(net.names[i], net.names[j]): EdgeType(t) for (i, j), t in zip(pairs, labels)}
    assert got == {("A", "C"): EdgeType.FORWARD, ("B", "C"): EdgeType.FORWARD,
                   ("C", "D"): EdgeType.FORWARD, ("A", "D"): EdgeType.FORWARD}
    chain = BayesianNetwork(["x", "y", "z"], [2, 2, 2], [[], [0], [1]],
                            [np.full((1, 2), 0.5), np.full((2, 2), 0.5), np.full((2, 2), 0.5)])
    dense = chain.truth_dense()
    assert dense.tolist() == [EdgeType.UNDIRECTED, EdgeType.NONE, EdgeType.UNDIRECTED]
    net = random_network(100, 150, seed=5)
    dense = net.truth_dense()
    assert len(dense) == n_pairs(100) and (dense != 0).sum() == 150
    cp = net.cpdag()
    assert (dense == EdgeType.UNDIRECTED).sum() == cp.n_undirected


# --------------------------------------------------------------------- I/O
def test_json_round_trip_exact(tmp_path):
    net = random_network(30, 60, arities=(2, 3, 4), seed=11, max_in_degree=6)
    assert max(t.size for t in net.cpts) > 4096 or True
    big = random_network(12, 40, arities=4, seed=2, max_in_degree=6)
    assert max(t.size for t in big.cpts) > 4096  # exercises the base64 encoding
    for k, network in enumerate([net, big, small_network(), load_network("asia")]):
        path = tmp_path / f"n{k}.json"
        network.save(path)
        back = BayesianNetwork.load(path)
        assert back == network
        assert all(a.tobytes() == b.tobytes() for a, b in zip(back.cpts, network.cpts))
        assert back.meta == network.meta
        assert back.sample(50, seed=1) == network.sample(50, seed=1)
    assert sorted(p.name for p in tmp_path.iterdir()) == [f"n{k}.json" for k in range(4)]
    with pytest.raises(FileNotFoundError):
        BayesianNetwork.load(tmp_path / "missing.json")
    (tmp_path / "bad.json").write_text(json.dumps({"names": []}))
    with pytest.raises(ValueError, match="not a causalcal Bayesian network"):
        BayesianNetwork.load(tmp_path / "bad.json")


def test_shipped_networks():
    names = available_networks()
    for want in ("alarm", "asia", "child", "insurance", "hepar2", "win95pts", "andes", "pigs",
                 "link", "munin"):
        assert want in names
    alarm = load_network("alarm")
    assert (alarm.n_vars, alarm.n_edges) == (37, 46)
    cp = alarm.cpdag()
    assert (cp.n_directed, cp.n_undirected) == (42, 4)
    assert load_network("Asia").state_names[0] == ["yes", "no"]
    with pytest.raises(ValueError, match="unknown network|not shipped"):
        load_network("no_such_network_xyz")


# ----------------------------------------------------------------- pgmpy / BIF
needs_pgmpy = pytest.mark.skipif(
    importlib.util.find_spec("pgmpy") is None, reason="pgmpy (extra 'bif') not installed"
)


def test_missing_pgmpy_names_the_extra(tmp_path, monkeypatch):
    path = tmp_path / "t.bif"
    path.write_text(BIF_TEXT)
    monkeypatch.setitem(sys.modules, "pgmpy", None)  # import pgmpy now fails
    with pytest.raises(ImportError, match=r"causalcal\[bif\]"):
        from_bif(path)
    with pytest.raises(ImportError, match=r"causalcal\[bif\]"):
        to_pgmpy(small_network())
    with pytest.raises(ValueError, match=r"causalcal\[bif\]"):
        load_network("barley")  # not shipped
    assert load_network("asia").n_vars == 8  # shipped networks need no pgmpy

BIF_TEXT = """network test {
}
variable rain {
  type discrete [ 2 ] { no, yes };
}
variable season {
  type discrete [ 3 ] { dry, wet, mild };
}
variable wet {
  type discrete [ 2 ] { false, true };
}
probability ( season ) {
  table 0.5, 0.3, 0.2;
}
probability ( rain | season ) {
  (dry) 0.9, 0.1;
  (wet) 0.2, 0.8;
  (mild) 0.6, 0.4;
}
probability ( wet | season, rain ) {
  (dry, no) 0.99, 0.01;
  (dry, yes) 0.3, 0.7;
  (wet, no) 0.8, 0.2;
  (wet, yes) 0.1, 0.9;
  (mild, no) 0.95, 0.05;
  (mild, yes) 0.25, 0.75;
}
"""


@needs_pgmpy
def test_from_bif_reorders_parents(tmp_path):
    path = tmp_path / "t.bif"
    path.write_text(BIF_TEXT)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        net = from_bif(path)
    assert net.names == ["rain", "season", "wet"]
    assert net.state_names[1] == ["dry", "wet", "mild"]
    w = net.index("wet")
    assert net.parents[w].tolist() == [0, 1]  # rain (0) before season (1)
    # rows: (rain, season) with season fastest
    expected = np.array([[0.99, 0.01], [0.8, 0.2], [0.95, 0.05],
                         [0.3, 0.7], [0.1, 0.9], [0.25, 0.75]])
    np.testing.assert_allclose(net.cpts[w], expected)
    np.testing.assert_allclose(net.cpts[0], [[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]])
    with pytest.raises(FileNotFoundError):
        from_bif(tmp_path / "nope.bif")


@needs_pgmpy
def test_to_pgmpy_cpds_agree_entrywise():
    alarm = load_network("alarm")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = to_pgmpy(alarm)
        assert model.check_model()
    rng = np.random.default_rng(0)
    for v in rng.choice(alarm.n_vars, 12, replace=False):
        cpd = model.get_cpds(alarm.names[v])
        pa = alarm.parents[v]
        for row in rng.choice(alarm.cpts[v].shape[0], min(4, alarm.cpts[v].shape[0]),
                              replace=False):
            states = np.unravel_index(row, alarm.arities[pa])
            for k in range(alarm.arities[v]):
                kwargs = {alarm.names[p]: alarm.state_names[p][s] for p, s in zip(pa, states)}
                kwargs[alarm.names[v]] = alarm.state_names[v][k]
                assert cpd.get_value(**kwargs) == pytest.approx(alarm.cpts[v][row, k])


@needs_pgmpy
def test_samples_match_pgmpy_sampler():
    from pgmpy.sampling import BayesianModelSampling

    for name, n in (("asia", 20_000), ("child", 10_000)):
        net = load_network(name)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            theirs = BayesianModelSampling(to_pgmpy(net)).forward_sample(
                size=n, seed=0, show_progress=False, n_jobs=1
            )
        ours = net.sample(n, seed=0).codes.astype(np.int64)
        # pgmpy returns state labels: map them to our codes column by column
        codes = np.column_stack([
            theirs[name_].astype(str).map(
                {str(s): k for k, s in enumerate(net.state_names[v])}
            ).to_numpy(np.int64)
            for v, name_ in enumerate(net.names)
        ])
        if name == "asia":  # full joint distribution (≤ 256 cells)
            assert _two_sample_p(ours, codes, net.arities) > STRICT_ALPHA
        # every variable's marginal and every edge's pairwise joint
        pvals = []
        for v in range(net.n_vars):
            pvals.append(_two_sample_p(ours[:, [v]], codes[:, [v]], net.arities[[v]]))
            for p in net.parents[v]:
                cols = [p, v]
                pvals.append(_two_sample_p(ours[:, cols], codes[:, cols], net.arities[cols]))
        # Bonferroni over all tests at the strict level
        assert min(pvals) > STRICT_ALPHA / len(pvals), name


def _two_sample_p(a: np.ndarray, b: np.ndarray, arities: np.ndarray) -> float:
    """Chi-square test that two samples of the same columns share one distribution."""
    size = int(np.prod(arities))
    ka = np.bincount(np.ravel_multi_index(a.T, arities), minlength=size)
    kb = np.bincount(np.ravel_multi_index(b.T, arities), minlength=size)
    table = np.column_stack([ka, kb])
    table = table[table.sum(axis=1) > 0]
    if table.shape[0] < 2:
        return 1.0
    return stats.chi2_contingency(table).pvalue


def test_zero_probability_states_never_sampled():
    asia = load_network("asia")  # 'either' is a deterministic OR
    codes = asia.sample(20_000, seed=3).codes
    assert np.all(np.isfinite(asia.log_probability(codes)))


@settings(max_examples=25, deadline=None)
@given(
    v=st.integers(1, 7),
    density=st.floats(0, 1),
    arities=st.lists(st.integers(2, 4), min_size=1, max_size=3),
    seed=st.integers(0, 2**32 - 1),
)
def test_random_networks_are_valid_and_round_trip(tmp_path_factory, v, density, arities, seed):
    e = int(density * n_pairs(v))
    net = random_network(v, e, arities=arities, seed=seed)
    assert net.n_edges == e and net.dag().is_dag()
    assert set(net.arities.tolist()) <= set(arities)
    codes = net.sample(64, seed=seed).codes
    assert np.all(np.isfinite(net.log_probability(codes)))
    path = tmp_path_factory.mktemp("rt") / "net.json"
    net.save(path)
    assert BayesianNetwork.load(path) == net
    cp = net.cpdag()
    assert cp.n_directed + cp.n_undirected == e
