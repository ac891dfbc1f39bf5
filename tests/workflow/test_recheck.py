"""Answers to recheck and the words of the known relations' results (issue 48 item 2,
frictions 2 and 6; docs/design.md §9.14)."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

import causalcal
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.edgecal import RECHECK_SHOWN, CalibrationSettings, suggest_pairs
from causalcal.edges import pair_index
from causalcal.simulate import random_network

SYMBOLS = ("none", "->", "<-", "--")

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def world():
    net = random_network(16, 20, seed=4)
    data = net.sample(3000, seed=5)
    probs = bootstrap_edge_probabilities(data, n_boot=20, seed=0, progress=False)
    return data, probs, net.truth_dense()


def _answered(ask: pd.DataFrame, names: list[str], truth: np.ndarray) -> pd.DataFrame:
    """The suggested pairs answered from the truth."""
    index = {n: k for k, n in enumerate(names)}
    out = ask.copy()
    for k, row in enumerate(ask.itertuples(index=False)):
        i, j = index[row.a], index[row.b]
        t = int(truth[pair_index(min(i, j), max(i, j), len(names))])
        if i > j and t in (1, 2):
            t = 3 - t
        out.loc[k, "relation"] = SYMBOLS[t]
    return out


def _p_related(ask: pd.DataFrame, names: list[str], probs) -> pd.Series:
    """The bootstrap's P(related) of each suggested pair (the file leaves it out)."""
    index = {n: k for k, n in enumerate(names)}
    i, j = (np.array([index[v] for v in ask[c]]) for c in ("a", "b"))
    return pd.Series(1.0 - probs.lookup(i, j)[:, 0], index=ask.index)


def test_wrong_answers_where_the_bootstrap_is_sure_are_named_first(world, tmp_path):
    data, probs, truth = world
    ask = suggest_pairs(probs, 30, seed=1)
    answered = _answered(ask, data.names, truth)
    # three answers made wrong where the bootstrap is sure (and right)
    p_related = _p_related(ask, data.names, probs)
    sure = answered.index[(p_related == 0) | (p_related == 1)]
    flipped = sure[:3]
    for k in flipped:
        related = answered.loc[k, "relation"] != "none"
        answered.loc[k, "relation"] = "none" if related else "->"
    result = causalcal.discover(data, answered, probabilities=probs,
                                bootstrap=BootstrapSettings(seed=0, progress=False),
                                calibration=CalibrationSettings(answer_error=0.1))
    named = [frozenset(result.known.iloc[r.row][["a", "b"]]) for r in
             result.recheck[:RECHECK_SHOWN]]
    wrong = [frozenset(answered.loc[k, ["a", "b"]]) for k in flipped]
    assert sum(w in named for w in wrong) == 3
    p = [r.p_wrong for r in result.recheck]
    assert p == sorted(p, reverse=True)  # the likeliest wrong first
    first = result.recheck_effects[0]
    assert first.related_pairs[0] == pytest.approx(result.fit.answers_estimate[0])
    assert first.map[0] == result.report.map.chosen
    assert len(result.recheck_effects) == RECHECK_SHOWN
    summary = result.summary()
    assert "answers to recheck, the likeliest wrong first" in summary
    assert "contradict" not in summary
    _, report = result.save(tmp_path / "edges.csv")
    records = json.loads(report.read_text())["recheck"]
    assert len(records) == len(result.recheck)
    assert {"p_wrong", "p_stated", "boot_stated", "association"} <= set(records[0])
    assert set(records[0]["if_wrong"]) == {"related_pairs", "floor", "floor_pairs", "map"}
    assert "if_wrong" not in records[RECHECK_SHOWN]


def test_reversing_a_relation_the_bootstrap_never_finds_lowers_the_estimate(world):
    data, probs, truth = world
    ask = suggest_pairs(probs, 30, seed=2)
    answered = _answered(ask, data.names, truth)
    p_related = _p_related(ask, data.names, probs)
    floor = answered.index[(p_related == 0) & (answered["relation"] == "none")][:2]
    answered.loc[floor, "relation"] = "->"  # two relations invented where nothing is found
    result = causalcal.discover(data, answered, probabilities=probs,
                                bootstrap=BootstrapSettings(seed=0, progress=False),
                                calibration=CalibrationSettings(answer_error=0.1))
    invented = {frozenset(answered.loc[k, ["a", "b"]]) for k in floor}
    seen = 0
    for r, change in zip(result.recheck, result.recheck_effects):
        if frozenset(result.known.iloc[r.row][["a", "b"]]) in invented:
            seen += 1
            before, after = change.related_pairs
            assert after < before  # one related answer fewer in its stratum
            assert change.floor[1] <= change.floor[0] + 1e-12
    assert seen == 2


def test_a_relation_the_search_misses_is_not_called_contradicted(world):
    # friction 2: a relation the data's own marginal association supports is never said
    # to be contradicted; here a → b → c with strong links, "a -> c" stated (not an arc:
    # the bootstrap never joins them, the data show the dependence plainly)
    rng = np.random.default_rng(0)
    a = rng.integers(0, 2, 1500)
    b = np.where(rng.random(1500) < 0.9, a, 1 - a)
    c = np.where(rng.random(1500) < 0.9, b, 1 - b)
    noise = rng.integers(0, 2, (1500, 9))
    names = ["a", "b", "c"] + [f"x{k}" for k in range(9)]
    frame = pd.DataFrame(np.column_stack([a, b, c, noise]), columns=names)
    known = pd.DataFrame({"a": ["a", "a", "b", "x0", "x1", "x2", "x3", "x4", "x5", "x6"],
                          "b": ["c", "b", "c", "x1", "x2", "x3", "x4", "x5", "x6", "x7"],
                          "relation": ["->", "->", "->", "->", "->",
                                       "none", "none", "none", "none", "none"]})
    result = causalcal.discover(frame, known, bootstrap=BootstrapSettings(
        n_boot=10, seed=0, progress=False, n_jobs=1))
    summary = result.summary()
    assert "contradict" not in summary
    line = next(s for s in summary.splitlines() if "finds least often" in s)
    assert "a -> c" in line and "the data show a marginal dependence" in line
    row = result.known_results.set_index("stated").loc["a -> c"]
    assert row["boot_stated"] < 0.5 and row["association_p"] < 1e-10


def test_the_least_found_line_says_how_many_it_shows():
    # friction 10: "4 of 13 below 0.5" listed 3 without saying so
    from causalcal.edgecal import least_found_line

    frame = pd.DataFrame({"stated": [f"a{k} -> b{k}" for k in range(13)],
                          "source": "own",
                          "boot_stated": [0.05, 0.1, 0.2, 0.3, 0.4, 0.45] + [0.9] * 7,
                          "p_stated": 0.5, "association_p": np.nan})
    line = least_found_line(frame)
    assert "6 of 13 below 0.5, the 3 lowest shown" in line
    assert line.count(" -> ") == 3
    two = least_found_line(frame.iloc[4:])
    assert "2 of 9 below 0.5)" in two and two.count(" -> ") == 2
