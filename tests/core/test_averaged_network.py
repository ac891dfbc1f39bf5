"""The averaged network (issue 17 item 4): bnlearn's averaged.network rule, its export from
`bootstrap --graph` and `discover --graph`; the estimated threshold and DAG-extension
conflicts (issue 28 point 4)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import causalcal
from causalcal.bootstrap import BootstrapSettings, edge_probabilities_from_graphs
from causalcal.edges import EdgeProbabilities, l1_threshold, pair_from_index
from causalcal.errors import InputError
from causalcal.graph import PDAG, dag_to_cpdag, pdag_to_dag
from causalcal.graph_io import read_graph
from causalcal.simulate import random_network


def _reference(probs: EdgeProbabilities, threshold: float) -> dict:
    """The rule written out pair by pair: {(i, j): '->' | '<-' | '--'}."""
    out = {}
    dense = probs.dense(np.float64)
    i, j = pair_from_index(np.arange(len(dense)), probs.n_vars)
    for k, (p0, p1, p2, p3) in enumerate(dense.tolist()):
        if 1 - p0 < threshold:
            continue
        adjacent = p1 + p2 + p3  # = 1 - p0 exactly in real numbers
        if p1 / adjacent > 0.5:
            out[(int(i[k]), int(j[k]))] = "->"
        elif p2 / adjacent > 0.5:
            out[(int(i[k]), int(j[k]))] = "<-"
        else:
            out[(int(i[k]), int(j[k]))] = "--"
    return out


def _as_dict(g: PDAG) -> dict:
    out = {}
    for i, j in g.directed_edges().tolist():
        out[(min(i, j), max(i, j))] = "->" if i < j else "<-"
    for i, j in g.undirected_edges().tolist():
        out[(i, j)] = "--"
    return out


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10_000), st.integers(1, 12), st.sampled_from([0.05, 0.3, 0.5, 0.75, 1.0]))
def test_matches_the_rule_pair_by_pair(seed, n_graphs, threshold):
    rng = np.random.default_rng(seed)
    v = int(rng.integers(2, 7))
    graphs = []
    for _ in range(n_graphs):
        order = rng.permutation(v)
        arcs = [(int(order[a]), int(order[b])) for a in range(v) for b in range(a + 1, v)
                if rng.random() < 0.5]
        g = PDAG.from_edges(v, arcs)
        graphs.append(dag_to_cpdag(g) if rng.random() < 0.5 else g)
    probs = edge_probabilities_from_graphs(graphs)
    assert _as_dict(probs.averaged_network(threshold)) == _reference(probs, threshold)


def test_equal_split_is_undirected_despite_rounding():
    """p_forward = p_backward = 0.1: 1 - p_none rounds to 0.19999999999999996."""
    probs = EdgeProbabilities(["A", "B"], [[0, 1]], [[0.8, 0.1, 0.1, 0.0]])
    assert probs.averaged_network(0.1) == PDAG.from_edges(2, [], [(0, 1)], ["A", "B"])


def test_hand_cases_and_ties():
    names = ["A", "B", "C", "D"]
    probs = EdgeProbabilities(names, [[0, 1], [1, 2], [2, 3], [0, 3]],
                              [[0.4, 0.35, 0.1, 0.15],   # adjacent 0.6, 0.58 of it A -> B
                               [0.5, 0.25, 0.25, 0.0],   # adjacent 0.5 exactly, no majority
                               [0.6, 0.0, 0.4, 0.0],     # adjacent 0.4 < 0.5
                               [0.0, 0.0, 0.5, 0.5]])    # 0.5 of it D -> A is not > 0.5
    g = probs.averaged_network()
    assert g == PDAG.from_edges(4, [(0, 1)], [(1, 2), (0, 3)], names)
    assert probs.averaged_network(0.4).has_directed(3, 2)
    assert probs.averaged_network(0.61).n_edges == 1
    strengths = probs.edge_strengths(g)
    assert strengths[("A", "B")] == pytest.approx({"weight": 0.6, "direction": 0.35 / 0.6})
    assert strengths[("A", "D")] == pytest.approx({"weight": 1.0, "direction": 0.5})
    for bad in (0, -0.1, 1.5, True):
        with pytest.raises(InputError, match="threshold"):
            probs.averaged_network(bad)


def test_one_graph_averages_to_itself():
    net = random_network(12, 15, seed=2)
    cpdag = net.cpdag()
    probs = edge_probabilities_from_graphs([cpdag] * 3)
    assert probs.averaged_network() == cpdag


@pytest.fixture(scope="module")
def realdata(tmp_path_factory):
    root = tmp_path_factory.mktemp("avg")
    net = random_network(14, 18, seed=5)
    data = net.sample(500, seed=6)
    data.to_csv(root / "data.csv")
    truth = net.truth_dense()
    rng = np.random.default_rng(1)
    keys = np.concatenate([rng.choice(np.flatnonzero(truth == 0), 6, replace=False),
                           np.flatnonzero(truth != 0)[:6]])
    i, j = pair_from_index(keys, data.n_vars)
    symbols = np.array(["none", "->", "<-", "--"])
    pd.DataFrame({"a": np.asarray(data.names)[i], "b": np.asarray(data.names)[j],
                  "relation": symbols[truth[keys]]}).to_csv(root / "known.csv", index=False)
    return root, data


def test_discover_network_holds_known_arcs(realdata):
    root, data = realdata
    result = causalcal.discover(data, root / "known.csv",
                                bootstrap=BootstrapSettings(n_boot=10, progress=False))
    g = result.averaged_network(0.5)
    known = result.known
    for row in known.itertuples():
        t = g.edge_type(int(row.i), int(row.j))
        assert int(t) == int(row.label)  # known relations are drawn as given
    top = result.table[result.table["p_adjacent"] >= 0.5]
    index = {n: k for k, n in enumerate(data.names)}
    for row in top.itertuples():
        assert g.is_adjacent(index[row.a], index[row.b])
    assert g.n_edges == len(top) + int((known["label"] != 0).sum())


@pytest.mark.slow
def test_cli_graph_outputs(realdata, causalcal_main):
    root, data = realdata
    run = causalcal_main("bootstrap", "data.csv", "--out", "p.npz", "--n-boot", "6", "--quiet",
                         "--graph", "net.json", "--graph-threshold", "0.3", cwd=root)
    assert run.returncode == 0, run.stderr
    probs = EdgeProbabilities.load(root / "p.npz")
    assert read_graph(root / "net.json") == probs.averaged_network(0.3)
    run = subprocess.run(  # a fresh interpreter: compared with this process's result below
        [sys.executable, "-m", "causalcal", "discover", "data.csv", "--known", "known.csv",
         "--out", "edges.csv", "--probabilities", "p.npz", "--quiet", "--graph", "net.dot",
         "--plot", "figs"],
        cwd=root, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert "averaged network" in run.stdout
    if importlib.util.find_spec("matplotlib"):
        for name in ("network.png", "reliability.png"):
            assert (root / "figs" / name).read_bytes()[:4] == b"\x89PNG"
    result = causalcal.discover(data, root / "known.csv",
                                bootstrap=BootstrapSettings(progress=False), probabilities=probs)
    assert read_graph(root / "net.dot") == result.averaged_network(0.5)
    run = causalcal_main("bootstrap", "data.csv", "--out", "p.npz", "--graph", "net.png",
                         cwd=root)
    assert run.returncode == 2 and "--graph" in run.stderr


# ------------------------------------------ the estimated threshold (issue 28 point 4)
def test_estimated_threshold_by_hand():
    """Six pairs, strengths 0, 0, 0, 0.25, 0.9, 1 (three unlisted). F is 1/2 on [0, 0.25),
    2/3 on [0.25, 0.9), 5/6 on [0.9, 1); the L1 distance sum_k width_k |F_k - p| is
    0.25 |1/2 - p| + 0.65 |2/3 - p| + 0.1 |5/6 - p|, least at p = 2/3 (0.0583; at 1/2:
    0.1417, at 5/6: 0.1917); the 2/3-quantile of the strengths is 0.25, so the edges are
    the pairs stronger than 0.25: C - D (0.9) and A - D (1)."""
    names = ["A", "B", "C", "D"]
    probs = EdgeProbabilities(names, [[0, 1], [2, 3], [0, 3]],
                              [[0.75, 0.25, 0.0, 0.0], [0.1, 0.9, 0.0, 0.0],
                               [0.0, 0.0, 0.0, 1.0]])
    assert probs.estimated_threshold() == 0.25
    assert l1_threshold([0, 0, 0, 0.25, 0.9, 1.0]) == 0.25
    assert l1_threshold([0.25, 0.9, 1.0], n_total=6) == 0.25
    assert _l1_distance(np.array([0, 0, 0, 0.25, 0.9, 1.0]), 2 / 3) == pytest.approx(0.35 / 6)
    g = probs.averaged_network("estimated")
    assert g == PDAG.from_edges(4, [(2, 3)], [(0, 3)], names)
    assert probs.averaged_network(0.25).n_edges == 3  # a fixed threshold is reached, >=


def _l1_distance(strengths: np.ndarray, p: float) -> float:
    """∫₀¹ |F(x) − p| dx by the midpoint rule on a fine grid (F: the empirical CDF)."""
    x = (np.arange(20_000) + 0.5) / 20_000
    F = np.searchsorted(np.sort(strengths), x, side="right") / len(strengths)
    return float(np.mean(np.abs(F - p)))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from([0.0, 0.05, 0.1, 0.3, 0.45, 0.5, 0.7, 0.95, 1.0]),
                min_size=1, max_size=30))
def test_estimated_threshold_minimises_the_l1_distance(values):
    """t is a strength whose CDF level F(t) minimises the L1 distance (the minimum
    of a range reaches its upper end, the level of the quantile taken), or the smallest
    strength where the best level is 0."""
    s = np.array(values)
    t = l1_threshold(s)
    best = min(_l1_distance(s, p) for p in np.linspace(0, 1, 401))
    assert t in s
    assert _l1_distance(s, np.mean(s <= t)) <= best + 1e-3 or (
        t == s.min() and _l1_distance(s, 0.0) <= best + 1e-3)


def test_estimated_threshold_bad_value():
    probs = EdgeProbabilities(["A", "B"], [[0, 1]], [[0.5, 0.5, 0, 0]])
    with pytest.raises(InputError, match="estimated"):
        probs.averaged_network("estimate")


# ------------------------------------------------------------ DAG extension conflicts
def test_no_extension_names_the_conflicting_edges():
    cycle = PDAG.from_edges(4, [(0, 1), (1, 2), (2, 0)], [], ["a", "b", "c", "d"])
    with pytest.raises(InputError, match=r"directed cycle a -> b -> c -> a.*a -> b"):
        pdag_to_dag(cycle)
    square = PDAG.from_edges(4, [], [(0, 1), (1, 2), (2, 3), (0, 3)], ["a", "b", "c", "d"])
    with pytest.raises(InputError, match=r"b -- a -- d with b, d not adjacent.*"
                                         r"a -- b, a -- d, b -- c, c -- d$"):
        pdag_to_dag(square)
