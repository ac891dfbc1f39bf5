"""FGES, BOSS and GFCI on continuous and mixed data: GES's result (causal-learn's with its
Gaussian BIC), knowledge, context columns and the degree bound as with BDeu."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from causalcal.bootstrap import bootstrap_edge_probabilities, boss, fges, get_score, gfci
from causalcal.graph_io import from_causallearn
from causalcal.knowledge import Knowledge
from causalcal.simulate import random_sem


@pytest.mark.parametrize("seed, penalty", [(0, 1.0), (1, 2.0), (2, 1.0)])
def test_fges_sem_bic_is_causal_learn_ges(seed, penalty):
    from causallearn.search.ScoreBased.GES import ges

    data = random_sem(9, 12, "linear-gaussian", seed=seed).sample(300, seed=seed)
    ours = fges(data, score=get_score("sem-bic", penalty_discount=penalty))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        record = ges(data.values, score_func="local_score_BIC",
                     parameters={"lambda_value": penalty / 2})  # its λ is half the discount
    assert ours == from_causallearn(record["G"], data.names)


def test_knowledge_and_degree_bound_with_gaussian_scores():
    model = random_sem(8, 12, "mixed", seed=3, weight_range=(1.0, 2.0))
    data = model.sample(600, seed=1)
    free = fges(data, score="dg-bic")
    a, b = (int(x) for x in free.directed_edges()[0])
    names = data.names
    knowledge = Knowledge(forbidden=[(names[a], names[b])], required=[(names[0], names[7])])
    bound = fges(data, score="dg-bic", knowledge=knowledge)
    assert not bound.has_directed(a, b)
    assert bound.has_directed(0, 7)
    for v in range(data.n_vars):
        assert len(fges(data, score="dg-bic", max_degree=2).adjacent(v)) <= 2
    best = boss(data, score="dg-bic", knowledge=knowledge)
    assert best.has_directed(0, 7) and not best.has_directed(a, b)


def test_context_column_points_outward():
    rng = np.random.default_rng(0)
    model = random_sem(5, 5, "linear-gaussian", seed=2)
    data = model.sample(500, seed=3)
    frame = data.to_frame()
    frame["condition"] = rng.integers(0, 3, len(frame))
    frame["X0"] += 1.5 * (frame["condition"] == 1) - 1.5 * (frame["condition"] == 2)
    from causalcal.data import MixedData

    mixed = MixedData.from_frame(frame, keep_discrete=["condition"])
    knowledge = Knowledge(context=["condition"])
    probs = bootstrap_edge_probabilities(mixed, n_boot=4, progress=False, score="dg-bic",
                                         knowledge=knowledge)
    c = mixed.index("condition")
    for k in range(mixed.n_vars - 1):  # every edge at the context column points away
        row = probs.lookup(k, c)
        assert row[1] == 0.0 and row[3] == 0.0  # never k -> condition, never undirected
    assert 1.0 - probs.lookup(0, c)[0] == 1.0


def test_gfci_on_continuous_data_uses_fisher_z():
    data = random_sem(7, 8, "linear-gaussian", seed=5).sample(800, seed=5)
    pag = gfci(data, score="sem-bic", alpha=0.01)
    assert pag.n_vars == 7 and pag.names == data.names
