"""Misspecified data sets and their truth (docs/design.md §9.11; issue 39)."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.ancestry import causal_truth
from causalcal.data import DiscreteData
from causalcal.errors import InputError
from causalcal.pairs import CausalType, EdgeType, n_pairs, pair_index
from causalcal.simulate import (
    continuous_nonlinear,
    hidden_benchmark,
    latent_confounders,
    load_network,
    measurement_noise,
    pooled_conditions,
)
from causalcal.simulate.misspecified import observed_arcs, truth_from_full


def _data(n_cols: int) -> DiscreteData:
    codes = np.array([[0] * n_cols, [1] * n_cols])
    return DiscreteData(codes, [f"V{k}" for k in range(n_cols)])


def _label(truth: np.ndarray, i: int, j: int, n_vars: int) -> int:
    return int(truth[pair_index(np.array([i]), np.array([j]), n_vars)[0]])


def test_hidden_confounder_children_are_not_adjacent():
    # H(0) -> A(1), H -> B(2); H hidden
    result = truth_from_full(_data(2), [[], [0], [0]], [1, 2], "confounder")
    assert result.dag.n_edges == 0
    assert result.edge_truth.tolist() == [EdgeType.NONE]
    assert result.causal_truth.tolist() == [CausalType.NEITHER]


def test_hidden_mediator_gives_the_arc():
    # A(0) -> H(1) -> B(2) <- C(3); H hidden: A -> B <- C, a v-structure
    result = truth_from_full(_data(3), [[], [0], [1, 3], []], [0, 2, 3], "mediator")
    assert sorted(map(tuple, result.dag.directed_edges().tolist())) == [(0, 1), (2, 1)]
    assert _label(result.edge_truth, 0, 1, 3) == EdgeType.FORWARD
    assert _label(result.edge_truth, 0, 2, 3) == EdgeType.NONE
    assert _label(result.edge_truth, 1, 2, 3) == EdgeType.BACKWARD
    assert _label(result.causal_truth, 0, 1, 3) == CausalType.FORWARD
    assert _label(result.causal_truth, 0, 2, 3) == CausalType.NEITHER


def test_observed_mediator_blocks_the_arc_but_not_the_cause():
    # A(0) -> M(1) -> B(2), all observed; plus hidden H(3) -> A, H -> B
    result = truth_from_full(_data(3), [[3], [0], [1, 3], []], [0, 1, 2], "chain")
    assert observed_arcs([[3], [0], [1, 3], []], [0, 1, 2]).tolist() == [[0, 1], [1, 2]]
    assert _label(result.edge_truth, 0, 2, 3) == EdgeType.NONE
    assert _label(result.causal_truth, 0, 2, 3) == CausalType.FORWARD
    assert _label(result.edge_truth, 0, 1, 3) == EdgeType.UNDIRECTED  # a chain's CPDAG


def test_observed_order_follows_the_given_columns():
    # B(1) <- A(0), observed as [B, A]: the arc is column 1 -> column 0
    result = truth_from_full(_data(2), [[], [0]], [1, 0], "swap")
    assert result.dag.directed_edges().tolist() == [[1, 0]]
    assert result.causal_truth.tolist() == [CausalType.BACKWARD]


def test_hidden_benchmark_truth_is_the_full_graph_ancestry():
    net = load_network("child")
    result = hidden_benchmark("child", 200, seed=3)
    hidden = result.details["hidden"]
    assert len(hidden) == round(0.15 * net.n_vars) == 3
    n_children = np.bincount(net.edges()[:, 0], minlength=net.n_vars)
    assert all(n_children[net.index(h)] >= 2 for h in hidden)
    assert set(result.names) == set(net.names) - set(hidden)
    full = causal_truth(net.dag())
    index = [net.index(name) for name in result.names]
    v = len(index)
    for i in range(v):
        for j in range(i + 1, v):
            a, b = index[i], index[j]
            lo, hi = min(a, b), max(a, b)
            true = int(full[pair_index(np.array([lo]), np.array([hi]), net.n_vars)[0]])
            if a > b and true:
                true = 3 - true  # the pair is written the other way round
            assert _label(result.causal_truth, i, j, v) == true
    # a hidden node's children that share no other route are not adjacent via it alone
    for h in hidden:
        kids = [result.names.index(net.names[c]) for c in net.dag().children(net.index(h))
                if net.names[c] in result.names]
        for c in kids:  # its observed parents now point at its observed children
            for p in net.parents[net.index(h)]:
                if net.names[p] in result.names:
                    assert result.dag.has_directed(result.names.index(net.names[p]), c)


def test_latent_confounders_shapes_and_truth():
    result = latent_confounders(300, seed=5, n_observed=12, n_edges=10, n_latent=3)
    assert result.data.codes.shape == (300, 12)
    assert set(result.data.arities.tolist()) <= {2, 3}
    assert result.edge_truth.shape == result.causal_truth.shape == (n_pairs(12),)
    assert result.edge_truth.dtype == result.causal_truth.dtype == np.int8
    assert result.dag.n_edges == 10  # latent roots add no arc between observed variables
    assert len(result.details["latent_children"]) == 3
    assert all(2 <= len(c) <= 3 for c in result.details["latent_children"])


def test_discretised_chain_keeps_its_arcs():
    for additive in (True, False):
        result = continuous_nonlinear(3000, seed=2, n_vars=3, n_edges=2, additive=additive)
        assert result.dag.n_edges == 2
        assert np.count_nonzero(result.edge_truth) == 2
        counts = [np.bincount(result.data.codes[:, k], minlength=3) for k in range(3)]
        assert all(abs(c - 1000).max() <= 1 for c in counts)  # tertiles
        for a, b in result.dag.directed_edges():  # adjacent columns are dependent
            table = np.histogram2d(result.data.codes[:, a], result.data.codes[:, b],
                                   bins=3)[0] / 3000
            outer = table.sum(1, keepdims=True) * table.sum(0, keepdims=True)
            mi = np.sum(table * np.log(np.where(table > 0, table / outer, 1.0)))
            assert mi > 0.01, (additive, a, b, mi)


def test_pooled_hard_interventions_keep_the_system_graph():
    result = pooled_conditions(1000, seed=7, n_vars=10, n_edges=12, n_conditions=4,
                               targets_per_condition=2, hard_share=1.0)
    arcs = {(result.names[a], result.names[b]) for a, b in result.dag.directed_edges()}
    assert arcs == {tuple(a) for a in result.details["system_arcs"]}
    assert len(arcs) == 12
    sizes = result.details["sizes"]
    assert sizes == [250] * 4 and result.data.n_samples == 1000
    starts = np.cumsum([0, *sizes])
    for c, targets in enumerate(result.details["interventions"], start=1):
        block = result.data.codes[starts[c]:starts[c + 1]]
        for name, kind in targets:
            assert kind == "hard"
            assert len(np.unique(block[:, result.names.index(name)])) == 1


def test_measurement_noise_truth_is_the_network():
    net = load_network("asia")
    result = measurement_noise(net, 4000, seed=1, rate=1.0)
    index = [net.index(name) for name in result.names]
    for a, b in net.edges():
        i, j = index.index(a), index.index(b)
        assert result.dag.has_directed(i, j)
    assert result.dag.n_edges == net.n_edges
    # rate 1: every value a uniform category, independent of the others
    share = result.data.codes.mean(axis=0)  # asia is binary
    np.testing.assert_allclose(share, 0.5, atol=0.04)


def test_seeds_reproduce():
    makers = [lambda s: hidden_benchmark("asia", 50, seed=s, fraction=0.3),
              lambda s: latent_confounders(50, seed=s, n_observed=8, n_edges=8),
              lambda s: continuous_nonlinear(50, seed=s, n_vars=8, n_edges=8),
              lambda s: pooled_conditions(50, seed=s, n_vars=8, n_edges=8),
              lambda s: measurement_noise("asia", 50, seed=s)]
    for make in makers:
        a, b, c = make(11), make(11), make(12)
        assert np.array_equal(a.data.codes, b.data.codes)
        assert np.array_equal(a.edge_truth, b.edge_truth)
        assert a.names == b.names and a.details == b.details
        assert not np.array_equal(a.data.codes, c.data.codes)


def test_bad_arguments():
    with pytest.raises(InputError):
        hidden_benchmark("asia", 10, fraction=1.5)
    with pytest.raises(InputError):
        measurement_noise("asia", 10, rate=-0.1)
    with pytest.raises(InputError):
        pooled_conditions(3, n_conditions=5)
