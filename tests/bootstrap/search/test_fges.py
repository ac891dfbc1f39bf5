"""FGES: hand-made structures, agreement with causal-learn's GES, weights, edge cases."""

from __future__ import annotations

import itertools
import sys

import numpy as np
import pytest

from causalcal.bootstrap import BDeuScore, available_searches, fges, get_search
from causalcal.bootstrap.search.fges import FGES
from causalcal.bootstrap.search.registry import _dense_codes, ges_causallearn
from causalcal.data import DiscreteData
from causalcal.graph import PDAG, dag_to_cpdag, pdag_to_dag
from causalcal.simulate import random_network


def _noisy(parent_sum, rng, flip=0.1):
    return (parent_sum + (rng.random(parent_sum.shape) < flip)) % 2


def test_collider_becomes_v_structure():
    rng = np.random.default_rng(0)
    n = 5000
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 2, n)
    c = _noisy(a | b, rng)  # OR: both causes are marginally dependent on C
    d = DiscreteData(np.column_stack([a, b, c]), ["A", "B", "C"])
    g = fges(d)
    assert g == PDAG.from_edges(3, directed=[(0, 2), (1, 2)])
    assert g.names == ["A", "B", "C"]


def test_chain_stays_undirected():
    rng = np.random.default_rng(1)
    n = 5000
    a = rng.integers(0, 2, n)
    b = _noisy(a, rng)
    c = _noisy(b, rng)
    g = fges(DiscreteData(np.column_stack([a, b, c])))
    assert g == PDAG.from_edges(3, undirected=[(0, 1), (1, 2)])


def test_meek_orientation_below_a_collider():
    """A → C ← B, C → D: the v-structure compels C → D by Meek's rule R1."""
    rng = np.random.default_rng(2)
    n = 8000
    a = rng.integers(0, 2, n)
    b = rng.integers(0, 2, n)
    c = _noisy(a | b, rng)  # OR: both causes are marginally dependent on C
    dd = _noisy(c, rng)
    g = fges(DiscreteData(np.column_stack([a, b, c, dd])))
    assert g == PDAG.from_edges(4, directed=[(0, 2), (1, 2), (2, 3)])


def _random_case(seed, n=300):
    rng = np.random.default_rng(seed)
    v = int(rng.integers(5, 8))
    e = min(int(rng.integers(v - 1, 2 * v)), v * (v - 1) // 2)
    data = random_network(v, e, seed=seed).sample(n, seed=seed)
    return DiscreteData(_dense_codes(data.codes), data.names)


@pytest.mark.parametrize("seed", range(6))
def test_agrees_with_causallearn_ges(seed):
    d = _random_case(seed)
    theirs = ges_causallearn(d)
    score = BDeuScore(d)
    full = fges(d)
    # full GES neighbourhood: the same greedy search, hence the same CPDAG and score
    assert score.score_pdag(full) >= score.score_pdag(theirs) - 1e-6
    assert full == theirs
    fast = fges(d, faithfulness_assumed=True)  # Tetrad's heuristic: a valid CPDAG
    assert dag_to_cpdag(pdag_to_dag(fast)) == fast


@pytest.mark.parametrize("faithful", [False, True])
def test_local_cpdag_completion_matches_global_rebuild(faithful):
    for seed in range(10):
        rng = np.random.default_rng(100 + seed)
        v = int(rng.integers(6, 16))
        e = min(int(rng.integers(v, 3 * v)), v * (v - 1) // 2)
        d = random_network(v, e, seed=seed).sample(int(rng.integers(200, 2000)), seed=seed)
        search = FGES(BDeuScore(d), faithfulness_assumed=faithful)
        search.check_cpdag = True  # raises if the local update differs from a full rebuild
        g = search.search()
        assert dag_to_cpdag(pdag_to_dag(g)) == g


def test_integer_weights_equal_repeated_rows_and_runs_are_deterministic():
    d = random_network(12, 18, seed=4).sample(400, seed=4)
    w = np.random.default_rng(0).integers(0, 3, 400)
    rep = DiscreteData(d.codes[np.repeat(np.arange(400), w)], d.names, d.arities)
    assert fges(d, w) == fges(rep)
    real = np.random.default_rng(1).random(400) * 2
    assert fges(d, real) == fges(d, real)
    assert get_search("fges")(d, w) == fges(d, w)


def test_max_degree_bounds_adjacencies():
    d = random_network(15, 40, seed=3).sample(2000, seed=3)
    g = fges(d, max_degree=2)
    assert max(len(g.adjacent(v)) for v in range(15)) <= 2
    assert fges(d, max_degree=0).n_edges == 0
    with pytest.raises(ValueError, match="max_degree"):
        fges(d, max_degree=-1)


def test_edge_cases_constant_column_single_row_two_variables():
    rng = np.random.default_rng(0)
    x = rng.integers(0, 2, size=(500, 3))
    x[:, 2] = (x[:, 0] + (rng.random(500) < 0.1)) % 2
    x[:, 1] = 1
    g = fges(DiscreteData.from_array(x))
    assert g.adjacent(1) == set() and g.is_adjacent(0, 2)
    single = DiscreteData(x[:1], arities=[2, 2, 2])
    assert fges(single).n_edges == 0
    two = DiscreteData(x[:, [0, 2]])
    assert fges(two).n_edges == 1  # V = 2: the structure prior is dropped, not log(0)
    with pytest.raises(ValueError, match="max_arity"):
        fges(DiscreteData(np.arange(60).reshape(30, 2) % 25))


def test_search_registry_and_causallearn_wrappers():
    assert available_searches() == ["boss", "fges", "ges", "gfci", "pc"]
    with pytest.raises(ValueError, match="unknown search 'nope'"):
        get_search("nope")
    d = _random_case(7, n=200)
    w = np.ones(d.n_samples)
    w[:10] = 2
    ges = get_search("ges")
    rep = DiscreteData(d.codes[np.repeat(np.arange(d.n_samples), w.astype(int))], d.names)
    assert ges(d, w) == ges(rep)
    with pytest.raises(ValueError, match="integer weights"):
        ges(d, w * 0.5)
    pc = get_search("pc")(d, alpha=0.01)
    assert isinstance(pc, PDAG) and pc.names == d.names
    big = DiscreteData(np.zeros((5, 70), dtype=int))
    with pytest.raises(ValueError, match="fges"):
        ges(big)


def _all_operator_bumps(search: FGES, kind: str):
    """Brute force: the score change of every valid operator on the search's CPDAG."""
    g, sc = search.graph, search.score
    v = g.n_vars
    for x in range(v):
        for y in range(v):
            if x == y:
                continue
            naxy = g.neighbors(y) & g.adjacent(x)
            if kind == "insert" and not g.is_adjacent(x, y):
                tn = sorted(g.neighbors(y) - g.adjacent(x))
                for k in range(len(tn) + 1):
                    for t in itertools.combinations(tn, k):
                        if search.insert_is_valid(x, y, t):
                            cond = naxy | set(t) | g.parents(y)
                            yield sc.local_score(y, cond | {x}) - sc.local_score(y, cond)
            if kind == "delete" and (g.has_directed(x, y) or g.has_undirected(x, y)):
                for k in range(len(naxy) + 1):
                    for h in itertools.combinations(sorted(naxy), k):
                        if search.delete_is_valid(x, y, h):
                            keep = (naxy - set(h)) | (g.parents(y) - {x})
                            yield sc.local_score(y, keep) - sc.local_score(y, keep | {x})


@pytest.mark.parametrize("seed", range(4))
def test_phases_end_in_local_optima(seed, monkeypatch):
    """Full GES: after the forward phase no valid Insert improves the score; after the
    backward phase no valid Delete does (in either mode)."""
    rng = np.random.default_rng(50 + seed)
    v = int(rng.integers(6, 10))
    d = random_network(v, min(2 * v, v * (v - 1) // 2), seed=seed).sample(500, seed=seed)
    forward_only = FGES(BDeuScore(d))
    monkeypatch.setattr(forward_only, "_backward", lambda: None)
    forward_only.search()
    assert max(_all_operator_bumps(forward_only, "insert"), default=0) <= 1e-9
    for faithful in (False, True):
        done = FGES(BDeuScore(d), faithfulness_assumed=faithful)
        done.search()
        assert max(_all_operator_bumps(done, "delete"), default=0) <= 1e-9


def test_bulk_scoring_of_same_context_candidates_changes_nothing(monkeypatch):
    """The faithfulness heuristic scores few candidates one by one, many in bulk."""
    fges_module = sys.modules["causalcal.bootstrap.search.fges"]  # the attribute is the function

    for seed in range(3):
        d = random_network(25, 45, seed=seed).sample(800, seed=seed)
        monkeypatch.setattr(fges_module, "_BULK_CANDIDATES", 10**9)
        one_by_one = fges(d, faithfulness_assumed=True)
        monkeypatch.setattr(fges_module, "_BULK_CANDIDATES", 2)
        assert fges(d, faithfulness_assumed=True) == one_by_one


@pytest.mark.parametrize("limit", [None, 6])
def test_options_from_counted_families_equal_one_by_one_scores(limit):
    """GES mode reads every candidate's Insert options, those adjacent to a neighbour of
    the target (NaYX ≠ ∅) included, from the target's counted families (all candidates,
    or each node's gathered best partners); they equal the options scored one candidate
    and one conditioning set at a time."""
    for seed in range(3):
        net = random_network(25, 45, seed=seed)
        d = net.sample(800, seed=seed)
        # two thirds of the true skeleton, undirected: chains (NaYX ≠ ∅) and missing edges
        edges = np.r_[net.cpdag().directed_edges(), net.cpdag().undirected_edges()].tolist()
        g = PDAG.from_edges(25, undirected=edges[::3] + edges[1::3])
        st = FGES(BDeuScore(d), max_candidates=limit)
        st._seed_pairwise()
        st.graph = g
        nodes = range(g.n_vars)
        near = sum(bool(g.neighbors(y) & g.adjacent(a)) for y in nodes
                   for a in st._all_candidates(y).tolist())
        assert near > 0
        st._reset_queue()
        st._rescore_full(nodes)
        bulk = dict(st.options)
        st._reset_queue()
        for y in nodes:
            st._score_each(y, st._all_candidates(y).tolist())
        one = dict(st.options)
        assert bulk.keys() == one.keys() and bulk
        for key, opts in one.items():
            assert [t for _, t in bulk[key]] == [t for _, t in opts]
            np.testing.assert_allclose([v for v, _ in bulk[key]], [v for v, _ in opts],
                                       rtol=1e-9, atol=1e-8)


@pytest.mark.parametrize("seed", range(4))
def test_default_is_full_ges_and_applied_operators_are_valid(seed, monkeypatch):
    """Every Insert/Delete the search applies passes Chickering's validity conditions and
    raises the score by its bump; the default (candidates bounded only beyond V = 1001)
    gives full GES's CPDAG."""
    rng = np.random.default_rng(70 + seed)
    v = int(rng.integers(8, 16))
    d = random_network(v, min(2 * v, v * (v - 1) // 2), seed=seed).sample(800, seed=seed)
    w = rng.integers(0, 3, 800) if seed % 2 else None
    score = BDeuScore(d, w)
    applied = []

    def checked(name, valid):
        step = getattr(FGES, name)

        def run(self, x, y, s, bump):
            assert getattr(self, valid)(x, y, s)
            before = score.score_pdag(self.graph)
            step(self, x, y, s, bump)
            assert score.score_pdag(self.graph) - before == pytest.approx(bump, abs=1e-7)
            assert bump > 0
            applied.append(name)

        monkeypatch.setattr(FGES, name, run)

    checked("_insert", "insert_is_valid")
    checked("_delete", "delete_is_valid")
    default = FGES(score).search()
    assert "_insert" in applied
    monkeypatch.undo()
    assert default == fges(d, w, max_candidates=None)
    assert default == fges(d, w, max_candidates=v - 1)


def test_bounded_candidates_join_only_ranked_pairs():
    d = random_network(25, 50, seed=8).sample(1500, seed=8)
    score = BDeuScore(d)
    gain = np.full((25, 25), -np.inf)
    for i in range(25):
        for j in range(25):
            if i != j:
                gain[i, j] = score.local_score_diff(j, i, [])
    top = [set(np.argsort(-gain[y], kind="stable")[:3].tolist()) for y in range(25)]
    g = fges(d, max_candidates=3)
    pairs = [tuple(e) for e in np.r_[g.directed_edges(), g.undirected_edges()].tolist()]
    assert pairs and all(a in top[b] or b in top[a] for a, b in pairs)
    for bad in (0, -2, 2.5, "all", True):
        with pytest.raises(ValueError, match="max_candidates"):
            fges(d, max_candidates=bad)
