"""``causalcal.suggest``, the library beside ``discover`` (docs/design.md §9.12; issue 48
items 3 and friction 3, 5): rounds, and pairs the background knowledge decides never asked
nor counted as evidence."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.edgecal import relation_kind
from causalcal.errors import InputError
from causalcal.knowledge import Knowledge
from causalcal.pairs import pair_from_index
from causalcal.simulate import random_network


def decided_pairs(kind, knowledge, names):
    from causalcal.workflow.inputs import decided_pairs  # (not on main: checked there too)

    return decided_pairs(kind, knowledge, names)


@pytest.fixture(scope="module")
def world():
    network = random_network(n_nodes=9, n_edges=11, seed=3)
    data = network.sample(600, seed=4)
    names = data.names
    # true to the network: X0 and X1 are roots (X0 "randomised": no arc into it); tier 0
    # for the two, edges forbidden within it, the rest in tier 1
    assert not len(network.parents[0]) and not len(network.parents[1])
    knowledge = Knowledge(forbidden=[(n, names[0]) for n in names[1:]],
                          tiers={names[0]: 0, names[1]: 0, **{n: 1 for n in names[2:]}},
                          forbid_within_tiers=[0])
    probs = bootstrap_edge_probabilities(data, n_boot=6, knowledge=knowledge, ancestral=True,
                                         progress=False, seed=0)
    return network, data, knowledge, probs


@pytest.mark.parametrize("relations", ["edges", "causal"])
def test_pairs_the_knowledge_decides_are_never_suggested(world, relations):
    _, data, knowledge, probs = world
    decided = decided_pairs(relation_kind(relations), knowledge, data.names)
    assert len(decided)  # (trt, x1): edges forbidden within tier 0; nothing causes trt
    i, j = pair_from_index(decided, data.n_vars)
    assert (data.names[0], data.names[1]) in set(zip(np.asarray(data.names)[i],
                                                     np.asarray(data.names)[j], strict=True))
    settings = BootstrapSettings(n_boot=6, knowledge=knowledge, progress=False)
    n_left = data.n_vars * (data.n_vars - 1) // 2 - len(decided)
    ask = causalcal.suggest(data, n_left, relations=relations, bootstrap=settings,
                            probabilities=probs)
    assert not np.isin(ask.draw.keys, decided).any() and len(ask.draw.keys) == n_left
    assert ask.decided == len(decided)


def test_pag_pairs_the_knowledge_decides_are_never_suggested():
    network = random_network(n_nodes=7, n_edges=8, seed=5)
    data = network.sample(500, seed=6)
    names = data.names
    knowledge = Knowledge(forbidden=[(names[0], names[1]), (names[1], names[0])])
    settings = BootstrapSettings(n_boot=3, search="gfci", knowledge=knowledge, progress=False)
    ask = causalcal.suggest(data, 20, relations="pag", bootstrap=settings)
    decided = decided_pairs(relation_kind("pag"), knowledge, names)
    assert len(decided) == 1 and not np.isin(ask.draw.keys, decided).any()


def _answer(table: pd.DataFrame, network, names) -> pd.DataFrame:
    truth = network.truth_dense()
    from causalcal.pairs import pair_index

    index = {n: k for k, n in enumerate(names)}
    a, b = table["a"].map(index).to_numpy(), table["b"].map(index).to_numpy()
    t = truth[pair_index(np.minimum(a, b), np.maximum(a, b), len(names))]
    t = np.where((a > b) & (t == 1), 2, np.where((a > b) & (t == 2), 1, t))
    return table.assign(relation=np.array(["none", "->", "<-", "--"])[t])


def test_a_draw_made_without_the_knowledge_is_refused_with_it(world, tmp_path):
    network, data, knowledge, probs = world
    ask = causalcal.suggest(data, 30, probabilities=probs, seed=1)  # no knowledge given
    ask.save(tmp_path / "ask.csv")
    _answer(ask.table, network, data.names).to_csv(tmp_path / "ask.csv", index=False)
    settings = BootstrapSettings(n_boot=6, knowledge=knowledge, progress=False)
    decided = np.intersect1d(ask.draw.keys, decided_pairs(relation_kind("edges"), knowledge,
                                                          data.names))
    assert len(decided)
    with pytest.raises(InputError, match=f"{len(decided)} suggested pairs are decided by the "
                                         "background knowledge"):
        causalcal.discover(data, tmp_path / "ask.csv", probabilities=probs, bootstrap=settings)


def test_rounds_in_the_library_and_the_population_kept(world, tmp_path):
    network, data, knowledge, probs = world
    first = causalcal.suggest(data, 10, probabilities=probs, seed=2)
    second = causalcal.suggest(data, 10, probabilities=probs, seed=2, more=first)
    assert second.round == 2 and not np.isin(second.draw.rounds[1].keys, first.draw.keys).any()
    answered = [_answer(s.table, network, data.names) for s in (first, second)]
    result = causalcal.discover(data, answered, probabilities=probs)
    assert result.report.answers.rounds == 2 and result.report.answers.drawn.sum() == 20
    # a pair known now, in the population of the first round: refused by name
    names = np.asarray(data.names)
    free = np.setdiff1d(np.arange(probs.n_pairs), second.draw.keys)
    i, j = pair_from_index(free[:1], data.n_vars)
    known = pd.DataFrame({"a": names[i], "b": names[j], "relation": ["none"]})
    with pytest.raises(InputError, match="1 pairs are known"):
        causalcal.suggest(data, 5, probabilities=probs, more=second, known=known)
    first.save(tmp_path / "ask.csv")
    with pytest.raises(InputError, match="a file of suggested pairs; to ask more"):
        causalcal.suggest(data, 5, probabilities=probs, known=tmp_path / "ask.csv")
    with pytest.raises(InputError, match="a frame carries no design record"):
        causalcal.suggest(data, 5, probabilities=probs, more=first.table)


def test_causal_not_causes_the_knowledge_decides_is_no_evidence(world):
    _, data, _, probs = world
    names = data.names
    # forbidden arcs alone (no tiers): every arc into X0 forbidden, so nothing causes X0
    knowledge = Knowledge(forbidden=[(n, names[0]) for n in names[1:]])
    rows = [(names[k], names[0], "not-causes") for k in range(2, 8)]  # nothing causes trt
    rows += [(names[2], names[3], "causes"), (names[3], names[4], "causes"),
             (names[4], names[5], "causes"), (names[2], names[6], "causes"),
             (names[2], names[7], "causes"),
             (names[5], names[2], "not-causes"), (names[6], names[3], "not-causes"),
             (names[7], names[4], "not-causes"), (names[8], names[2], "not-causes"),
             (names[8], names[3], "not-causes")]
    settings = BootstrapSettings(n_boot=6, knowledge=knowledge, progress=False)
    result = causalcal.discover(data, pd.DataFrame(rows, columns=["a", "b", "relation"]),
                                relations="causal", probabilities=probs, bootstrap=settings)
    forced = result.report.known_forced
    assert len(forced) == 6 and all(f.endswith(f"not-causes {names[0]}") for f in forced)
    assert result.report.known_unrelated == 5
