"""Chickering's Insert/Delete operators checked against brute-force enumeration of the
equivalence class's DAGs (Chickering 2002, Theorems 15 and 17 and their lemmas)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from causalcal.bootstrap.score.discrete.bdeu import BDeuScore
from causalcal.bootstrap.search.fges import FGES
from causalcal.data import DiscreteData
from causalcal.graph import PDAG, dag_to_cpdag


def _random_dag(rng: np.random.Generator, v: int, p: float) -> PDAG:
    order = rng.permutation(v)
    g = PDAG(v)
    for a in range(v):
        for b in range(a + 1, v):
            if rng.random() < p:
                g.add_directed(int(order[a]), int(order[b]))
    return g


def _class_members(cpdag: PDAG) -> list[PDAG]:
    """All DAGs with the CPDAG's skeleton, directed edges and v-structures."""
    und = [tuple(e) for e in cpdag.undirected_edges().tolist()]
    out = []
    for bits in itertools.product((0, 1), repeat=len(und)):
        d = PDAG(cpdag.n_vars)
        for i, j in cpdag.directed_edges().tolist():
            d.add_directed(i, j)
        for (i, j), bit in zip(und, bits):
            if bit:
                d.add_directed(i, j)
            else:
                d.add_directed(j, i)
        if d.is_dag() and dag_to_cpdag(d) == cpdag:
            out.append(d)
    return out


def _descendants(d: PDAG, v: int) -> set[int]:
    seen = {v}
    stack = [v]
    while stack:
        for c in d.children(stack.pop()):
            if c not in seen:
                seen.add(c)
                stack.append(c)
    return seen


def _search_on(cpdag: PDAG, score: BDeuScore) -> FGES:
    f = FGES(score)
    f.graph = cpdag.copy()
    f.check_cpdag = True
    return f


def _cases(n_graphs: int, seed: int):
    rng = np.random.default_rng(seed)
    for _ in range(n_graphs):
        v = int(rng.integers(4, 7))
        dag = _random_dag(rng, v, float(rng.uniform(0.3, 0.7)))
        codes = rng.integers(0, 2, size=(60, v))
        yield dag_to_cpdag(dag), BDeuScore(DiscreteData(codes, arities=[2] * v))


@pytest.mark.parametrize("seed", [0, 1])
def test_insert_validity_and_result_match_brute_force(seed):
    n_checked = n_valid = 0
    for cpdag, score in _cases(12, seed):
        members = _class_members(cpdag)
        base = score.score_pdag(cpdag)
        for x in range(cpdag.n_vars):
            for y in range(cpdag.n_vars):
                if x == y or cpdag.is_adjacent(x, y):
                    continue
                tn = sorted(cpdag.neighbors(y) - cpdag.adjacent(x))
                naxy = cpdag.neighbors(y) & cpdag.adjacent(x)
                for k in range(len(tn) + 1):
                    for t in itertools.combinations(tn, k):
                        f = _search_on(cpdag, score)
                        ours = f.insert_is_valid(x, y, t)
                        want_pa = cpdag.parents(y) | naxy | set(t)
                        witnesses = [
                            d
                            for d in members
                            if d.parents(y) == want_pa and x not in _descendants(d, y)
                        ]
                        assert ours == bool(witnesses), (x, y, t)
                        n_checked += 1
                        if not ours:
                            continue
                        n_valid += 1
                        f.apply_insert(x, y, t)
                        for d in witnesses:
                            d2 = d.copy()
                            d2.add_directed(x, y)
                            assert dag_to_cpdag(d2) == f.graph
                        cond = want_pa
                        bump = score.local_score(y, cond | {x}) - score.local_score(y, cond)
                        assert score.score_pdag(f.graph) - base == pytest.approx(bump, abs=1e-8)
    assert n_checked > 50 and n_valid > 20


@pytest.mark.parametrize("seed", [0, 1])
def test_delete_validity_and_result_match_brute_force(seed):
    n_checked = n_valid = 0
    for cpdag, score in _cases(12, seed + 10):
        members = _class_members(cpdag)
        base = score.score_pdag(cpdag)
        for x in range(cpdag.n_vars):
            for y in range(cpdag.n_vars):
                if not (cpdag.has_directed(x, y) or cpdag.has_undirected(x, y)):
                    continue
                naxy = sorted(cpdag.neighbors(y) & cpdag.adjacent(x))
                for k in range(len(naxy) + 1):
                    for h in itertools.combinations(naxy, k):
                        f = _search_on(cpdag, score)
                        ours = f.delete_is_valid(x, y, h)
                        keep = (cpdag.parents(y) - {x}) | (set(naxy) - set(h))
                        witnesses = [
                            d
                            for d in members
                            if x in d.parents(y) and d.parents(y) - {x} == keep
                        ]
                        assert ours == bool(witnesses), (x, y, h)
                        n_checked += 1
                        if not ours:
                            continue
                        n_valid += 1
                        f.apply_delete(x, y, h)
                        for d in witnesses:
                            d2 = d.copy()
                            d2.remove_edge(x, y)
                            assert dag_to_cpdag(d2) == f.graph
                        bump = score.local_score(y, keep) - score.local_score(y, keep | {x})
                        assert score.score_pdag(f.graph) - base == pytest.approx(bump, abs=1e-8)
    assert n_checked > 30 and n_valid > 20
