"""Background knowledge (issue 17 item 1): required/forbidden arcs and tiers, enforced
inside FGES and BOSS, in Meek's rules, in the bootstrap and on the command line."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import causalcal
from causalcal import Knowledge
from causalcal.bootstrap import BDeuScore, bootstrap_edge_probabilities, fges
from causalcal.bootstrap.search.boss import boss
from causalcal.bootstrap.search.fges import FGES
from causalcal.data import DiscreteData
from causalcal.errors import InputError
from causalcal.graph import PDAG, apply_meek_rules, dag_to_cpdag
from causalcal.knowledge_files import read_knowledge
from causalcal.simulate import random_network


def _noisy(parent, rng, flip=0.1):
    return (parent + (rng.random(parent.shape) < flip)) % 2


def _chain(n=4000, seed=1):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = _noisy(a, rng)
    c = _noisy(b, rng)
    return DiscreteData(np.column_stack([a, b, c]), ["A", "B", "C"])


# ----------------------------------------------------------------- validation
def test_unknown_variable_is_named():
    with pytest.raises(InputError, match="'Z'"):
        Knowledge(required=[("A", "Z")]).bind(["A", "B"])
    with pytest.raises(InputError, match="'Q'"):
        Knowledge(tiers={"Q": 0}).bind(["A", "B"])


@pytest.mark.parametrize("kwargs, message", [
    (dict(required=[("A", "B")], forbidden=[("A", "B")]), "both required and forbidden"),
    (dict(required=[("B", "A")], tiers={"A": 0, "B": 1}), "earlier tier 0"),
    (dict(required=[("A", "B"), ("B", "C"), ("C", "A")]), "cycle"),
    (dict(required=[("A", "A")]), "self-loop"),
    (dict(tiers={"A": 1.5}), "integer"),
])
def test_contradictions_are_errors(kwargs, message):
    with pytest.raises(InputError, match=message):
        Knowledge(**kwargs)


def test_bound_knowledge_answers():
    kn = Knowledge(required=[("A", "B")], forbidden=[("C", "D")],
                   tiers={"A": 0, "C": 1, "B": 1}).bind(["A", "B", "C", "D"])
    assert kn.forbids(1, 0)  # against the required A -> B (and the tiers)
    assert kn.forbids(2, 3) and not kn.forbids(3, 2)
    assert kn.forbids(2, 0) and not kn.forbids(0, 2)  # tiers
    assert not kn.forbids(1, 2) and not kn.forbids(2, 1)  # same tier
    assert not kn.forbids(3, 0) and not kn.forbids(0, 3)  # D has no tier
    assert kn.compels(0, 1) and kn.compels(3, 2) and not kn.compels(1, 2)
    assert kn.requires_adjacent(1, 0) and not kn.requires_adjacent(2, 3)


def test_read_knowledge_files(tmp_path):
    arcs = tmp_path / "arcs.csv"
    arcs.write_text("a,b,rule\nA,B,required\nC, D ,forbidden\n")
    tiers = tmp_path / "tiers.csv"
    tiers.write_text("variable,tier\nA,0\nB,1\n")
    kn = read_knowledge(arcs, tiers)
    assert kn == Knowledge(required=[("A", "B")], forbidden=[("C", "D")],
                           tiers={"A": 0, "B": 1})
    arcs.write_text("a,b,rule\nA,B,maybe\n")
    with pytest.raises(InputError, match="row 1: rule 'maybe'"):
        read_knowledge(arcs)
    tiers.write_text("variable,tier\nA,first\n")
    with pytest.raises(InputError, match="tier 'first' is not an integer"):
        read_knowledge(None, tiers)
    tiers.write_text("name,tier\nA,0\n")
    with pytest.raises(InputError, match="missing column"):
        read_knowledge(None, tiers)


# ------------------------------------------------------------ Meek with knowledge
def test_meek_rules_orient_by_knowledge():
    """0 — 1 — 2 with 1 → 0 forbidden: 0 → 1 by the knowledge, then 1 → 2 by R1."""
    g = PDAG.from_edges(3, undirected=[(0, 1), (1, 2)])
    kn = Knowledge(forbidden=[("X1", "X0")]).bind(g.names)
    apply_meek_rules(g, knowledge=kn)
    assert g == PDAG.from_edges(3, directed=[(0, 1), (1, 2)])


def test_meek_rules_never_orient_against_knowledge():
    """R1 would orient 1 → 2 from 0 → 1; it is forbidden, so 2 → 1 is compelled instead."""
    g = PDAG.from_edges(3, directed=[(0, 1)], undirected=[(1, 2)])
    kn = Knowledge(forbidden=[("X1", "X2")]).bind(g.names)
    apply_meek_rules(g, knowledge=kn)
    assert g.has_directed(2, 1)
    g = PDAG.from_edges(3, directed=[(0, 1)], undirected=[(1, 2)])
    kn = Knowledge(forbidden=[("X1", "X2"), ("X2", "X1")]).bind(g.names)
    apply_meek_rules(g, knowledge=kn)
    assert g.has_undirected(1, 2)


# ------------------------------------------------------------------ the search
def test_tiers_orient_a_chain():
    data = _chain()
    assert fges(data) == PDAG.from_edges(3, undirected=[(0, 1), (1, 2)])
    tiers = Knowledge(tiers={"A": 0, "B": 1, "C": 2})
    assert fges(data, knowledge=tiers) == PDAG.from_edges(3, directed=[(0, 1), (1, 2)])
    assert boss(data, knowledge=tiers) == PDAG.from_edges(3, directed=[(0, 1), (1, 2)])
    backwards = Knowledge(tiers={"C": 0, "B": 1, "A": 2})
    assert fges(data, knowledge=backwards) == PDAG.from_edges(3, directed=[(2, 1), (1, 0)])


def test_required_arc_against_the_data_and_forbidden_edge():
    data = _chain()
    g = fges(data, knowledge=Knowledge(required=[("A", "C")]))
    assert g.has_directed(0, 2)
    g = fges(data, knowledge=Knowledge(forbidden=[("A", "B"), ("B", "A")]))
    assert not g.is_adjacent(0, 1)


def test_empty_knowledge_changes_nothing():
    net = random_network(12, 16, seed=4)
    data = net.sample(300, seed=5)
    assert fges(data, knowledge=Knowledge()) == fges(data)
    assert boss(data, knowledge=Knowledge()) == boss(data)
    a = bootstrap_edge_probabilities(data, n_boot=3, seed=1, progress=False)
    b = bootstrap_edge_probabilities(data, n_boot=3, seed=1, progress=False,
                                     knowledge=Knowledge())
    assert np.array_equal(a.dense(), b.dense())


def _check_respects(g: PDAG, kn) -> None:
    for i, j in kn.required:
        assert g.has_directed(i, j), f"required {i} -> {j} missing"
    for i in range(g.n_vars):
        for j in g.children(i):
            assert not kn.forbids(i, j), f"excluded arc {i} -> {j}"
        for j in g.neighbors(i):  # an edge one way excluded is oriented the other way
            assert not kn.forbids(i, j) and not kn.forbids(j, i), f"{i} — {j} unoriented"
    assert g.topological_order() is not None


@st.composite
def _case(draw):
    seed = draw(st.integers(0, 10_000))
    rng = np.random.default_rng(seed)
    v = int(rng.integers(4, 8))
    net = random_network(v, min(int(rng.integers(v - 1, 2 * v)), v * (v - 1) // 2), seed=seed)
    names = list(net.names) if hasattr(net, "names") else [f"X{k}" for k in range(v)]
    order = rng.permutation(v)
    pairs = [(int(order[a]), int(order[b])) for a in range(v) for b in range(a + 1, v)]
    picks = rng.permutation(len(pairs))
    required = [pairs[k] for k in picks[:draw(st.integers(0, 2))]]
    forbidden = [pairs[k][::-1] if rng.random() < 0.5 else pairs[k]
                 for k in picks[2:2 + draw(st.integers(0, 3))]]
    tiers = {names[k]: int(rng.integers(0, 3)) for k in range(v) if rng.random() < 0.6}
    late = {(i, j) for i in range(v) for j in range(v)
            if names[i] in tiers and names[j] in tiers and tiers[names[i]] > tiers[names[j]]}
    required = [arc for arc in required if arc not in late]
    kn = Knowledge([(names[i], names[j]) for i, j in required],
                   [(names[i], names[j]) for i, j in forbidden], tiers)
    return net.sample(200, seed=seed + 1), kn


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_case())
def test_every_search_respects_knowledge(case):
    data, knowledge = case
    kn = knowledge.bind(data.names)
    state = FGES(BDeuScore(data), knowledge=knowledge)
    state.check_cpdag = True  # local completions equal the global knowledge-aware one
    _check_respects(state.search(), kn)
    _check_respects(fges(data, knowledge=knowledge, faithfulness_assumed=True), kn)
    _check_respects(boss(data, knowledge=knowledge), kn)


def test_every_replicate_respects_knowledge():
    net = random_network(10, 14, seed=8)
    data = net.sample(200, seed=9)
    names = data.names
    knowledge = Knowledge(required=[(names[0], names[5])], forbidden=[(names[2], names[3])],
                          tiers={names[9]: 0, names[1]: 1, names[4]: 1})
    probs = bootstrap_edge_probabilities(data, n_boot=8, seed=2, progress=False,
                                         knowledge=knowledge)
    kn = knowledge.bind(names)
    dense = probs.dense()
    i, j = causalcal.edges.pair_from_index(np.arange(len(dense)), data.n_vars)
    assert probs.lookup(np.array([0]), np.array([5]))[0, 1] == 1.0  # FORWARD every time
    for k in range(len(dense)):
        a, b = int(i[k]), int(j[k])
        if kn.forbids(a, b):
            assert dense[k, 1] == 0 and dense[k, 3] == 0
        if kn.forbids(b, a):
            assert dense[k, 2] == 0 and dense[k, 3] == 0


def test_searches_without_knowledge_refuse_it():
    data = _chain(n=200)
    with pytest.raises(InputError, match="'pc' takes no background knowledge.*fges, boss and gfci"):
        bootstrap_edge_probabilities(data, n_boot=1, search="pc", progress=False,
                                     knowledge=Knowledge(tiers={"A": 0}))
    with pytest.raises(InputError, match="'Z'"):
        bootstrap_edge_probabilities(data, n_boot=1, progress=False,
                                     knowledge=Knowledge(tiers={"Z": 0}))


def test_dag_to_cpdag_with_knowledge():
    dag = PDAG.from_edges(3, directed=[(0, 1), (1, 2)])
    assert dag_to_cpdag(dag) == PDAG.from_edges(3, undirected=[(0, 1), (1, 2)])
    kn = Knowledge(tiers={"X2": 0, "X1": 0, "X0": 0}, required=[("X1", "X2")]).bind(dag.names)
    assert dag_to_cpdag(dag, kn) == PDAG.from_edges(3, directed=[(1, 2)], undirected=[(0, 1)])


# ------------------------------------------------------------------ command line
@pytest.mark.slow
def test_cli_knowledge_and_tiers(tmp_path, causalcal_main):
    data = _chain(n=600)
    data.to_csv(tmp_path / "data.csv")
    (tmp_path / "arcs.csv").write_text("a,b,rule\nA,C,required\n")
    (tmp_path / "tiers.csv").write_text("variable,tier\nA,0\nB,1\nC,2\n")
    run = causalcal_main("bootstrap", "data.csv", "--out", "p.csv", "--n-boot", "3", "--quiet",
                         "--knowledge", "arcs.csv", "--tiers", "tiers.csv", cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    probs = causalcal.EdgeProbabilities.load(tmp_path / "p.csv")
    assert probs.lookup(np.array([0]), np.array([2]))[0, 1] == 1.0
    assert probs.dense()[:, [2, 3]].sum() == 0  # nothing backwards or undirected
    (tmp_path / "tiers.csv").write_text("variable,tier\nA,0\nD,1\n")
    run = causalcal_main("bootstrap", "data.csv", "--out", "p.csv", "--n-boot", "3", "--tiers",
                         "tiers.csv", cwd=tmp_path)
    assert run.returncode == 2 and "'D'" in run.stderr and "tiers.csv" in run.stderr
