"""BOSS: grow-shrink traces and order totals against brute force, scores against GES."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.bootstrap import BDeuScore, bootstrap_edge_probabilities, fges, get_search
from causalcal.bootstrap.search.boss import BOSS, GrowShrinkTree, boss
from causalcal.bootstrap.search.registry import _dense_codes, ges_causallearn
from causalcal.data import DiscreteData
from causalcal.graph import dag_to_cpdag, pdag_to_dag
from causalcal.simulate import load_network, random_network


def _grow_shrink(score: BDeuScore, y: int, prefix: set[int]) -> tuple[float, set[int]]:
    """Brute force: add the best predecessor while one helps, then drop while one helps."""
    parents: set[int] = set()
    value = score.local_score(y, parents)
    while True:
        steps = [(score.local_score(y, parents | {a}), -a) for a in prefix - parents - {y}]
        if not steps or max(steps)[0] <= value + 1e-10:
            break
        value, neg = max(steps)
        parents.add(-neg)
    while parents:
        value2, neg = max((score.local_score(y, parents - {p}), -p) for p in parents)
        if value2 <= value + 1e-10:
            break
        value = value2
        parents.discard(-neg)
    return value, parents


def _order_total(score: BDeuScore, order: list[int]) -> float:
    return sum(_grow_shrink(score, z, set(order[:i]))[0] for i, z in enumerate(order))


def _case(seed: int, v: int = 8, n: int = 400) -> DiscreteData:
    rng = np.random.default_rng(seed)
    e = min(int(rng.integers(v, 2 * v)), v * (v - 1) // 2)
    data = random_network(v, e, seed=seed).sample(n, seed=seed)
    return DiscreteData(_dense_codes(data.codes), data.names)


@pytest.mark.parametrize("seed", range(3))
def test_trace_is_grow_shrink_over_the_prefix(seed):
    d = _case(seed, v=9)
    score = BDeuScore(d)
    rng = np.random.default_rng(seed)
    trees = [GrowShrinkTree(score, y, np.array([c for c in range(9) if c != y])) for y in range(9)]
    for _ in range(60):  # random prefixes, so the trees are reused along shared paths
        y = int(rng.integers(9))
        prefix = {int(c) for c in rng.choice(9, size=int(rng.integers(0, 9)), replace=False)}
        mask = bytearray(9)
        for c in prefix:
            mask[c] = 1
        value, parents, met = trees[y].trace(mask)
        want, want_parents = _grow_shrink(score, y, prefix)
        assert value == pytest.approx(want, abs=1e-7)
        assert set(parents) == want_parents
        assert set(parents) <= met
        assert score.local_score(y, parents) == pytest.approx(value, abs=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_position_totals_are_the_order_scores(seed):
    d = _case(10 + seed, v=8)
    search = BOSS(BDeuScore(d))
    search._update(search.order)
    for x in (0, 3, 7):
        rest, c, totals = search.position_totals(x)
        assert rest[:c] + [x] + rest[c:] == search.order
        for i in range(len(rest) + 1):
            want = _order_total(search.score, rest[:i] + [x] + rest[i:])
            assert totals[i] == pytest.approx(want, abs=1e-6)


@pytest.mark.parametrize("seed", range(6))
def test_boss_scores_at_least_as_high_as_ges(seed):
    d = _case(20 + seed, v=int(np.random.default_rng(seed).integers(6, 12)))
    score = BDeuScore(d)
    g = boss(d)
    assert dag_to_cpdag(pdag_to_dag(g)) == g and g.names == d.names
    assert score.score_pdag(g) >= score.score_pdag(fges(d)) - 1e-9
    assert score.score_pdag(g) >= score.score_pdag(ges_causallearn(d)) - 1e-9
    assert boss(d) == g  # deterministic


def test_boss_goes_past_ges_on_sachs():
    """On sachs (n = 1000) GES stops at a local optimum below the true graph's score."""
    net = load_network("sachs")
    d = net.sample(1000, seed=1)
    score = BDeuScore(d)
    ges_value = score.score_pdag(fges(d))
    assert ges_value < score.score_pdag(net.cpdag())
    assert score.score_pdag(boss(d)) > ges_value + 1


def test_weights_registry_bootstrap_and_errors(tmp_path):
    d = random_network(10, 16, seed=5).sample(300, seed=5)
    w = np.random.default_rng(3).integers(0, 3, 300)
    rep = DiscreteData(d.codes[np.repeat(np.arange(300), w)], d.names, d.arities)
    assert boss(d, w) == boss(rep)
    assert get_search("boss")(d, w) == boss(d, w)
    one = bootstrap_edge_probabilities(d, n_boot=4, seed=1, search="boss", progress=False)
    two = bootstrap_edge_probabilities(d, n_boot=4, seed=1, search="boss", n_jobs=2,
                                       progress=False)
    assert one == two
    with pytest.raises(ValueError, match="max_rounds"):
        boss(d, max_rounds=0)
    with pytest.raises(ValueError, match="max_candidates"):
        boss(d, max_candidates=0)
