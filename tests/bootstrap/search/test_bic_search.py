"""Searches with ``score="bic"``: a chain and a collider on clear data, BDeu untouched,
the bootstrap with the BIC score."""

from __future__ import annotations

import numpy as np
import pytest

from causalcal.bootstrap import BICScore, bootstrap_edge_probabilities, get_score, get_search
from causalcal.data import DiscreteData
from causalcal.errors import InputError


def _noisy(x: np.ndarray, rng: np.random.Generator, flip: float = 0.1) -> np.ndarray:
    return np.where(rng.random(len(x)) < flip, 1 - x, x)


def _chain_and_collider(n: int = 2000, seed: int = 0) -> DiscreteData:
    """a → b → c (a chain) and d → f ← e (a collider), binary."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 2, n)
    b = _noisy(a, rng)
    c = _noisy(b, rng)
    d, e = rng.integers(0, 2, n), rng.integers(0, 2, n)
    f = _noisy(d | e, rng, 0.05)
    return DiscreteData(np.column_stack([a, b, c, d, e, f]), names=list("abcdef"))


@pytest.mark.parametrize("search", ["fges", "boss"])
def test_bic_finds_chain_and_collider(search):
    g = get_search(search)(_chain_and_collider(), score="bic")
    assert g.has_undirected(0, 1) and g.has_undirected(1, 2) and not g.is_adjacent(0, 2)
    assert g.has_directed(3, 5) and g.has_directed(4, 5) and not g.is_adjacent(3, 4)
    assert not any(g.is_adjacent(i, j) for i in range(3) for j in range(3, 6))


def test_bic_search_is_a_local_maximum_of_bic():
    """No single edge added to or removed from a DAG extension of FGES's result (on
    near-independent data) raises the total BIC."""
    from causalcal.graph import pdag_to_dag

    rng = np.random.default_rng(1)
    x = rng.integers(0, 3, size=(300, 5))
    x[:, 1] = np.where(rng.random(300) < 0.5, x[:, 0], x[:, 1])
    data = DiscreteData(x)
    dag = pdag_to_dag(get_search("fges")(data, score=get_score("bic", penalty_discount=1.0)))
    score = BICScore(data)
    parents = {y: set(dag.parents(y)) for y in range(5)}
    for y in range(5):
        base = score.local_score(y, parents[y])
        for p in parents[y]:
            assert score.local_score(y, parents[y] - {p}) <= base + 1e-9
    # a heavy penalty leaves nothing
    heavy = get_score("bic", penalty_discount=1000.0)
    assert get_search("fges")(data, score=heavy).n_directed == 0


def test_bootstrap_with_bic_and_refusals():
    data = _chain_and_collider(400, 2)
    probs = bootstrap_edge_probabilities(data, n_boot=4, seed=0, n_jobs=1, progress=False,
                                         score="bic")
    assert probs.n_boot == 4
    with pytest.raises(InputError, match="unknown score"):
        get_search("fges")(data, score="aic")


def test_bic_on_a_torch_device_is_the_same_search():
    pytest.importorskip("torch")
    data = _chain_and_collider(600, 3)
    w = np.random.default_rng(0).multinomial(600, np.full(600, 1 / 600)).astype(float)
    assert (get_search("fges")(data, w, score="bic", device="cpu")
            == get_search("fges")(data, w, score="bic"))
