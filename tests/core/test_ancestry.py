"""Definite and possible ancestry in a CPDAG against brute force (docs/design.md §3.1).

The reference enumerates the Markov equivalence class: every topological order of the
nodes orients the skeleton into a DAG, and the DAG is in the class when it has the
CPDAG's v-structures (Verma & Pearl 1990). Ancestry is then the transitive closure of
each member; definite = in all members, possible = in any.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from causalcal.ancestry import (
    AncestralCounts,
    ancestral_bounds_from_edges,
    ancestral_relations,
    ancestral_relations_from_edges,
    raw_causal_probabilities,
)
from causalcal.errors import InputError
from causalcal.graph import PDAG, apply_meek_rules, dag_to_cpdag

ORDERS = {v: np.array(list(itertools.permutations(range(v)))) for v in range(1, 8)}


def _v_structures(arcs: np.ndarray, skeleton: np.ndarray) -> np.ndarray:
    """(…, a, b, c): a → c ← b with a, b non-adjacent, a ≠ b."""
    v = skeleton.shape[0]
    both = arcs[..., :, None, :] & arcs[..., None, :, :]
    apart = ~skeleton & ~np.eye(v, dtype=bool)
    return both & apart[:, :, None]


def _closure(arcs: np.ndarray) -> np.ndarray:
    reach = arcs.copy()
    for _ in range(3):  # paths up to 8 > 7 nodes
        reach |= np.einsum("...ij,...jk->...ik", reach.astype(np.int32),
                           reach.astype(np.int32)) > 0
    return reach


def brute_force(cpdag: PDAG) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(definite, possible, members' arcs) by enumerating the equivalence class."""
    m = cpdag.to_matrix().astype(bool)
    skeleton = m | m.T
    arcs_cp = m & ~m.T
    orders = ORDERS[cpdag.n_vars]
    position = np.argsort(orders, axis=1)
    earlier = position[:, :, None] < position[:, None, :]
    members = skeleton[None] & earlier  # one DAG per order
    same = (_v_structures(members, skeleton) == _v_structures(arcs_cp, skeleton)[None])
    members = members[same.all(axis=(1, 2, 3))]
    reach = _closure(members)
    return reach.all(axis=0), reach.any(axis=0), members


def random_dag(rng: np.random.Generator, v: int) -> PDAG:
    density = rng.uniform(0.15, 0.85)
    order = rng.permutation(v)
    arcs = [(int(order[a]), int(order[b])) for a in range(v) for b in range(a + 1, v)
            if rng.random() < density]
    return PDAG.from_edges(v, directed=arcs)


def test_brute_force_on_random_cpdags():
    rng = np.random.default_rng(20261125)
    n_graphs, n_undirected, n_strict = 0, 0, 0
    for _ in range(600):
        dag = random_dag(rng, int(rng.integers(2, 8)))
        cpdag = dag_to_cpdag(dag)
        definite, possible, members = brute_force(cpdag)
        # the true DAG is a member, and every member keeps the CPDAG's arcs
        assert any(np.array_equal(mem, dag.to_matrix().astype(bool)) for mem in members)
        arcs_cp = (lambda m: m & ~m.T)(cpdag.to_matrix().astype(bool))
        assert np.all(members[:, arcs_cp])
        got_definite, got_possible = ancestral_relations(cpdag)
        assert np.array_equal(got_possible, possible), cpdag.to_matrix()
        assert np.array_equal(got_definite, definite), cpdag.to_matrix()
        n_graphs += 1
        n_undirected += cpdag.n_undirected > 0
        directed_reach = _closure(arcs_cp)
        n_strict += bool(np.any(definite & ~directed_reach))
    assert n_graphs >= 500
    assert n_undirected >= 250  # most classes have more than one member
    assert n_strict >= 10  # definite beyond directed paths is exercised


def test_definite_ancestor_through_two_non_adjacent_neighbours():
    # A — C, A — D, C → B, D → B, C and D non-adjacent: no member has C → A ← D (a new
    # v-structure), so in every member A reaches B through C or D (issue 30's example)
    a, b, c, d = range(4)
    g = PDAG.from_edges(4, directed=[(c, b), (d, b)], undirected=[(a, c), (a, d)])
    definite, possible = ancestral_relations(g)
    assert definite[a, b] and not definite[a, c] and not definite[a, d]
    assert possible[a, c] and possible[c, a] and possible[a, b]
    assert not possible[b, a]
    ref_definite, ref_possible, _ = brute_force(g)
    assert np.array_equal(definite, ref_definite) and np.array_equal(possible, ref_possible)


def test_covered_paths_do_not_count():
    # A — C, A — D, A — E, C — E, D — E, E → B ← F: C and D are non-adjacent neighbours
    # of A reaching B only through E, which A is adjacent to; the member E → A, E → C,
    # A → C, D → A, D → E has no path from A to B: not a definite ancestor.
    a, b, c, d, e, f = range(6)
    dag = PDAG.from_edges(6, directed=[(e, a), (e, c), (e, d), (a, c), (a, d), (e, b), (f, b)])
    g = dag_to_cpdag(dag)
    assert g == PDAG.from_edges(6, directed=[(e, b), (f, b)],
                                undirected=[(a, c), (a, d), (a, e), (c, e), (d, e)])
    definite, possible = ancestral_relations(g)
    assert possible[a, b] and not definite[a, b] and definite[e, b]
    assert np.array_equal(definite, brute_force(g)[0])


def test_graph_without_undirected_edges_is_its_closure():
    definite, possible = ancestral_relations_from_edges(4, [(0, 1), (1, 2)], np.empty((0, 2)))
    expected = np.zeros((4, 4), dtype=bool)
    expected[0, 1] = expected[0, 2] = expected[1, 2] = True
    assert np.array_equal(definite, expected) and np.array_equal(possible, expected)


def test_bad_edges_are_refused():
    with pytest.raises(InputError):
        ancestral_relations_from_edges(3, [(0, 3)], [])
    with pytest.raises(InputError):
        ancestral_relations_from_edges(3, [], [(1, 1)])


def test_raw_causal_probabilities_rule():
    definite = np.array([[0, 2, 0], [0, 0, 0], [0, 1, 0]])
    possible = np.array([[0, 3, 1], [1, 0, 0], [1, 2, 0]])
    counts = AncestralCounts(definite, possible, 4)
    p = raw_causal_probabilities(counts, [0, 0, 1], [1, 2, 2])
    # (0, 1): 2 definite + 1 possible of 4 → 2.5/4; 1 → 0 possible only: 0.5/4
    # columns: neither, i causes j, j causes i
    assert np.allclose(p[0], [1.0 / 4, 2.5 / 4, 0.5 / 4])
    assert np.allclose(p[1], [3.0 / 4, 0.5 / 4, 0.5 / 4])
    assert np.allclose(p[2], [2.5 / 4, 0.0, 1.5 / 4])
    assert np.allclose(p.sum(axis=1), 1.0)
    with pytest.raises(InputError):
        raw_causal_probabilities(counts, [0], [0])
    with pytest.raises(InputError):
        AncestralCounts(possible, definite, 4)


def test_raw_probabilities_are_distributions_on_random_cpdags():
    rng = np.random.default_rng(7)
    graphs = [dag_to_cpdag(random_dag(rng, 6)) for _ in range(30)]
    relations = [ancestral_relations(g) for g in graphs]
    counts = AncestralCounts(sum(d.astype(int) for d, _ in relations),
                             sum(p.astype(int) for _, p in relations), len(graphs))
    i, j = np.triu_indices(6, 1)
    p = raw_causal_probabilities(counts, i, j)
    assert np.all(p >= 0) and np.allclose(p.sum(axis=1), 1.0)


def test_chordless_cycle_is_computed_though_not_a_cpdag():
    # 0 — 1 — 2 — 3 — 0 is no CPDAG (not chordal); its uncovered paths go round the cycle,
    # which exercises the strong components of the path-step graph
    definite, possible = ancestral_relations_from_edges(5, [(2, 4)],
                                                        [(0, 1), (1, 2), (2, 3), (0, 3)])
    off = ~np.eye(5, dtype=bool)
    assert np.array_equal(possible[:4, :4], off[:4, :4]) and possible[:4, 4].all()
    assert not possible[4].any() and not np.any(definite & ~possible)
    assert definite[2, 4] and definite[0, 4]  # 0's neighbours 1 and 3 both lead to 2


def _random_mpdag(rng: np.random.Generator, v: int) -> tuple[PDAG, PDAG]:
    """A random DAG's CPDAG with some undirected edges oriented as in the DAG (background
    knowledge) and Meek's rules applied: ``(cpdag, mpdag)``."""
    dag = random_dag(rng, v)
    cpdag = dag_to_cpdag(dag)
    truth = dag.to_matrix().astype(bool)
    known = [(i, j) if truth[i, j] else (j, i) for i, j in cpdag.undirected_edges()
             if rng.random() < 0.4]
    mpdag = PDAG.from_edges(v, directed=[tuple(e) for e in cpdag.directed_edges()] + known,
                            undirected=[tuple(e) for e in cpdag.undirected_edges()
                                        if (e[0], e[1]) not in known and (e[1], e[0]) not in known])
    return cpdag, apply_meek_rules(mpdag)


def test_knowledge_bounds_against_brute_force_on_random_mpdags():
    rng = np.random.default_rng(30)
    n_oriented, n_gap = 0, 0
    for _ in range(500):
        cpdag, mpdag = _random_mpdag(rng, int(rng.integers(3, 8)))
        _, _, members = brute_force(cpdag)
        m = mpdag.to_matrix().astype(bool)
        members = members[np.all(members[:, m & ~m.T], axis=1)]  # keep the graph's arcs
        reach = _closure(members)
        definite, possible = reach.all(axis=0), reach.any(axis=0)
        got_definite, got_possible = ancestral_bounds_from_edges(
            mpdag.n_vars, mpdag.directed_edges(), mpdag.undirected_edges())
        assert not np.any(got_definite & ~definite), mpdag.to_matrix()  # sound
        assert not np.any(possible & ~got_possible), mpdag.to_matrix()  # covers
        assert not np.any(got_definite & ~got_possible)
        if np.array_equal(m, cpdag.to_matrix().astype(bool)):
            assert np.array_equal(got_definite, definite)
            assert np.array_equal(got_possible, possible)
        else:
            n_oriented += 1
            n_gap += int((definite & ~got_definite).sum() + (got_possible & ~possible).sum())
    assert n_oriented > 100
    print(f"{n_oriented} graphs oriented by knowledge; {n_gap} relations left open")
