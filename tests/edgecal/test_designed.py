"""Suggested pairs and their answers (docs/design.md §9.12): the draw's recorded rates,
the Horvitz–Thompson estimate by hand, unknown answers, and a fit that removes a known
distortion."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.special import expit, logit

import causalcal
from causalcal.bootstrap import BootstrapSettings, bootstrap_edge_probabilities
from causalcal.edgecal import (
    AnswerDesign,
    CalibrationSettings,
    EdgeTypes,
    PairInputs,
    draw_round,
    fit_edge_calibrator,
    known_calibration_set,
    read_answers,
    relation_kind,
    suggest_pairs,
    write_suggested,
)
from causalcal.edgecal.sampling import proportional_draws
from causalcal.edges import EdgeProbabilities, pair_from_index, pair_index
from causalcal.errors import InputError
from causalcal.knowledge import Knowledge
from causalcal.simulate import random_network
from causalcal.simulate.misspecified_truth import ancestor_matrix


def _world(seed: int, v: int = 60, n_boot: int = 20, distort=lambda p: p):
    """Bootstrap P(adjacent) spread over [0, 1], truths drawn from ``distort(p)``."""
    rng = np.random.default_rng(seed)
    m = v * (v - 1) // 2
    p_adj = np.where(rng.random(m) < 0.7, 0.0, rng.beta(0.7, 0.7, size=m))
    hits = rng.binomial(n_boot, p_adj)
    fwd = rng.binomial(hits, 0.5)
    i, j = pair_from_index(np.arange(m), v)
    probs = EdgeProbabilities.from_counts([f"x{k}" for k in range(v)], np.column_stack([i, j]),
                                          np.column_stack([fwd, hits - fwd, np.zeros(m, int)]),
                                          n_boot)
    truth = rng.random(m) < distort(hits / n_boot)
    return probs, truth


def _answer(table: pd.DataFrame, names, truth: np.ndarray) -> pd.DataFrame:
    index = {n: k for k, n in enumerate(names)}
    keys = pair_index(table["a"].map(index).to_numpy(), table["b"].map(index).to_numpy(),
                      len(names))
    return table.assign(relation=np.where(truth[keys], "->", "none"))


def test_recorded_rates_are_the_drawn_counts_over_the_stratum_sizes():
    probs, _ = _world(0)
    exclude = np.arange(10)
    table = suggest_pairs(probs, 40, seed=3, exclude=exclude)
    assert len(table) == 40 and (table["relation"] == "").all()  # blank: not answered yet
    p = 1 - probs.column(0).astype(float)
    p[exclude] = np.nan
    bins = np.minimum((p[~np.isnan(p)] * 5 + 1e-6).astype(int), 4)
    sizes = np.bincount(bins, minlength=5)
    index = {n: k for k, n in enumerate(probs.names)}
    keys = pair_index(table["a"].map(index), table["b"].map(index), probs.n_vars)
    for s, rows in table.groupby("stratum"):
        assert (rows["stratum_pairs"] == sizes[s]).all()
        assert (rows["stratum_drawn"] == len(rows)).all()
        upper = s * 0.2 + 0.2 - 1e-6 if s < 4 else 1.0
        drawn = p[keys[rows.index]]
        assert ((drawn >= s * 0.2 - 1e-6) & (drawn <= upper)).all()
    assert not set(keys) & set(exclude) and len(set(keys)) == 40
    # the default: 2 from each stratum, the rest in proportion to the sizes (the
    # allocation itself is checked by hand in test_sampling.py)
    drawn = table.groupby("stratum").size().reindex(range(5), fill_value=0).to_numpy()
    assert drawn.tolist() == proportional_draws(sizes, 40).tolist()
    # equal shares where the strata allow (water-filling): 8 from each of five
    equal = suggest_pairs(probs, 40, seed=3, exclude=exclude, allocation="equal")
    assert sorted(equal.groupby("stratum").size()) == [8] * 5
    with pytest.raises(InputError, match="allocation must be one of"):
        suggest_pairs(probs, 40, allocation="neyman")


def test_horvitz_thompson_by_hand():
    design = AnswerDesign(sizes=np.array([100, 10, 0, 0, 20]), drawn=np.array([5, 5, 0, 0, 5]),
                          answered=np.array([4, 5, 0, 0, 5]), related=np.array([1, 2, 0, 0, 5]))
    estimate, se = design.related_pairs()
    assert estimate == pytest.approx(100 * 1 / 4 + 10 * 2 / 5 + 20 * 1.0)
    smooth = (np.array([1, 2, 5]) + 0.5) / (np.array([4, 5, 5]) + 1)
    by_hand = np.sqrt(np.sum(np.array([100, 10, 20]) ** 2 * (1 - np.array([4, 5, 5]) /
                                                             np.array([100, 10, 20]))
                             * smooth * (1 - smooth) / np.array([4, 5, 5])))
    assert se == pytest.approx(by_hand)
    np.testing.assert_allclose(design.rates, [0.04, 0.5, 0, 0, 0.25])


def test_answers_read_with_their_design_unknowns_and_own_rows(tmp_path):
    probs, truth = _world(1)
    draw = draw_round(probs, 30, seed=0, relations="edges")
    write_suggested(tmp_path / "ask.csv", draw)
    table = _answer(pd.read_csv(tmp_path / "ask.csv", dtype=str, keep_default_na=False),
                    probs.names, truth)
    table.loc[table.index[:4], "relation"] = ["unknown", "", "UNKNOWN ", "unknown"]
    own = pd.DataFrame({"a": ["x0", "x1"], "b": ["x5", "x7"], "relation": ["->", "none"]})
    pd.concat([table, own]).to_csv(tmp_path / "ask.csv", index=False)  # answered in place
    answers = read_answers(tmp_path / "ask.csv", probs.names, EdgeTypes())
    assert (answers.unknown, answers.blank) == (3, 1) and len(answers.pairs) == 28
    assert np.isnan(answers.rates).sum() == 2  # the scientist's own rows
    assert int(answers.design.answered.sum()) == 26 and int(answers.design.drawn.sum()) == 30
    bad = table.assign(stratum_pairs="many")  # a frame: its design cells checked alone
    with pytest.raises(InputError, match="row 1, column stratum_pairs: 'many' is not a whole"):
        read_answers(bad, probs.names, EdgeTypes())
    plain = read_answers(own, probs.names, EdgeTypes())
    assert plain.design is None and len(plain.rates) == 0


def _fit(probs, truth, n, seed, drop=0.0, settings=None, confidence=None):
    rng = np.random.default_rng(seed)
    table = _answer(suggest_pairs(probs, n, seed=seed), probs.names, truth)
    gone = rng.random(len(table)) < drop  # missing at random within every stratum
    table.loc[gone, "relation"] = "unknown"
    if confidence is not None:
        table["confidence"] = confidence
    answers = read_answers(table, probs.names, EdgeTypes())
    calset = known_calibration_set(PairInputs(probs), answers.pairs, answers.rates,
                                   answers.errors)
    return answers, fit_edge_calibrator(calset, settings or CalibrationSettings(), seed,
                                        answers=answers.design)


@pytest.mark.parametrize("how", ["taken as right", "marked sure", "assumed 20 % wrong"])
def test_answers_remove_a_known_distortion(how):
    # the truth is far less certain than the bootstrap: logit q = 0.5 logit p - 1. With
    # 20 % of the answers assumed wrong (the default) the same 120 answers are read as a
    # calibrated bootstrap answered with errors — flattening and errors look alike
    # (docs/design.md §9.14) —; taken as right, or marked sure, they correct it.
    probs, truth = _world(2, v=90, distort=lambda p: expit(0.5 * logit(np.clip(p, 0.025,
                                                                               0.975)) - 1))
    settings = {"taken as right": CalibrationSettings(answer_error=0.0),
                "marked sure": None, "assumed 20 % wrong": None}[how]
    answers, fit = _fit(probs, truth, 120, seed=0, settings=settings,
                        confidence="sure" if how == "marked sure" else None)
    if how == "assumed 20 % wrong":
        assert fit.choice.chosen == "identity"
        return
    assert fit.choice.chosen == "designed"
    boot = 1 - probs.dense(np.float64)[:, 0]
    written = 1 - fit.predict_all(np.float64)[:, 0]
    brier = {name: np.mean((q - truth) ** 2) for name, q in (("raw", boot), ("cal", written))}
    assert brier["cal"] < brier["raw"] - 0.005
    estimate, se = answers.design.related_pairs()
    assert abs(estimate - truth.sum()) < 3 * se


def test_unknown_answers_at_random_leave_the_estimates_unbiased():
    probs, truth = _world(3, v=70)
    full, dropped = [], []
    for seed in range(40):
        full.append(_fit(probs, truth, 40, seed)[0].design.related_pairs()[0])
        dropped.append(_fit(probs, truth, 40, seed, drop=0.3)[0].design.related_pairs()[0])
    se = np.std(dropped) / np.sqrt(len(dropped))
    assert abs(np.mean(dropped) - truth.sum()) < 3 * se
    assert abs(np.mean(full) - truth.sum()) < 3 * np.std(full) / np.sqrt(len(full))


def test_a_calibrated_bootstrap_keeps_its_values_and_forced_maps_are_refused():
    probs, truth = _world(4, v=70)
    _, fit = _fit(probs, truth, 40, seed=1)
    assert fit.choice.chosen in ("identity", "designed")
    with pytest.raises(InputError, match="not a candidate"):
        _fit(probs, truth, 40, seed=1, settings=CalibrationSettings(map="calibrated"))
    calset = known_calibration_set(PairInputs(probs), pd.DataFrame(
        {"i": [0] * 10, "j": np.arange(1, 11), "label": [1] * 5 + [0] * 5}))
    with pytest.raises(InputError, match="needs answers"):
        fit_edge_calibrator(calset, CalibrationSettings(map="designed"))


def test_calibration_test_holds_its_level_and_sees_a_distortion():
    from causalcal.edgecal.designed import calibration_test
    from causalcal.edgecal.simulated import LogitLinearMap

    rng = np.random.default_rng(7)
    p_values, distorted = [], []
    for _ in range(150):
        p = rng.uniform(0.02, 0.98, size=300)
        x = logit(p)
        for y, out in ((rng.random(300) < p, p_values),
                       (rng.random(300) < expit(0.5 * x - 0.5), distorted)):
            fit = LogitLinearMap(eps=0.01)
            fit._fit_samples(p, y.astype(int), None, "both")
            out.append(calibration_test(x, y, np.ones(300), fit.slope_, fit.intercept_))
    assert 0.01 <= np.mean(np.array(p_values) < 0.05) <= 0.12  # the level, about 5 %
    assert np.mean(np.array(distorted) < 0.05) > 0.95  # the power against a real distortion
    # a flat or reversed order counts only when the slope is clearly below 0
    assert calibration_test(np.linspace(-3, 3, 40), np.tile([0, 1], 20), np.ones(40),
                            -0.01, 0.0) == 1.0


def test_answers_and_the_scientists_own_pairs_together():
    probs, truth = _world(5, v=70)
    table = _answer(suggest_pairs(probs, 40, seed=2), probs.names, truth)
    index = {n: k for k, n in enumerate(probs.names)}
    asked = set(pair_index(table["a"].map(index), table["b"].map(index), probs.n_vars))
    rng = np.random.default_rng(5)
    arcs = [k for k in rng.permutation(np.flatnonzero(truth)) if k not in asked][:6]
    nones = [k for k in rng.permutation(np.flatnonzero(~truth)) if k not in asked][:6]
    i, j = pair_from_index(np.array(arcs + nones), probs.n_vars)
    names = np.asarray(probs.names)
    own = pd.DataFrame({"a": names[i], "b": names[j], "relation": ["->"] * 6 + ["none"] * 6})
    answers = read_answers(pd.concat([table, own], ignore_index=True), probs.names,
                           EdgeTypes())
    assert np.isnan(answers.rates).sum() == 12
    calset = known_calibration_set(PairInputs(probs), answers.pairs, answers.rates)
    fit = fit_edge_calibrator(calset, CalibrationSettings("dirichlet"), 0,
                              answers=answers.design)
    assert set(fit.choice.candidates) == {"identity", "designed", "calibrated"}
    # the EM of the scientist's own pairs is pinned at the answers' estimate, which allows
    # for their errors (docs/design.md §9.14); taken as right, the plain estimate
    assert fit.em.expected_edges == pytest.approx(fit.answers_estimate[0])
    plain = fit_edge_calibrator(calset, CalibrationSettings("dirichlet", answer_error=0.0), 0,
                                answers=answers.design)
    assert plain.em.expected_edges == pytest.approx(answers.design.related_pairs()[0])
    forced = fit_edge_calibrator(calset, CalibrationSettings("dirichlet", map="calibrated"),
                                 0, answers=answers.design)
    X = calset.inputs.rows(calset.keys[:3])
    moved = forced.sensitivity(X)  # refitted on the scientist's own pairs at half / double
    assert len(moved.half) == 3 and moved.half_related < moved.double_related
    Q = forced.predict_all(np.float64)
    np.testing.assert_allclose(Q.sum(axis=1), 1.0)


def test_the_answers_map_floors_the_direction_split_by_hand():
    from causalcal.edgecal.model import KeepDirectionSplit

    class _Adjacency80:
        def predict_proba(self, X):
            return np.tile([0.2, 0.3, 0.3, 0.2], (len(X), 1))

    X = np.array([[0.5, 0.5, 0.0, 0.0], [1.0, 0.0, 0.0, 0.0]])
    Q = KeepDirectionSplit(_Adjacency80(), eps=0.01).predict_proba(X)
    np.testing.assert_allclose(Q[0], [0.2, *(0.8 * np.array([0.51, 0.01, 0.01]) / 0.53)])
    np.testing.assert_allclose(Q[1], [0.2, 0.3, 0.3, 0.2])  # never joined: the map's split
    plain = KeepDirectionSplit(_Adjacency80()).predict_proba(X)
    np.testing.assert_allclose(plain[0], [0.2, 0.8, 0.0, 0.0])


def test_answers_map_is_the_logistic_fit_with_many_answers_and_finite_with_few():
    """The answers' map (docs/design.md §9.12): with thousands of answers its slope and
    intercept are the unpenalised logistic regression's (scikit-learn); with ten answers
    the bootstrap's 0 and 1 separate exactly it is the posterior mode by hand (the
    gradient of the log posterior vanishes) and stays inside (0, 1), where the
    unpenalised fit's slope grows without bound."""
    from sklearn.linear_model import LogisticRegression

    from causalcal.edgecal.designed import DesignedAdjacency

    rng = np.random.default_rng(0)
    p = rng.uniform(0.02, 0.98, size=4000)
    y = (rng.random(4000) < expit(0.6 * logit(p) - 0.4)).astype(int)
    X = np.column_stack([1 - p, p, np.zeros((4000, 2))])
    fit = DesignedAdjacency(eps=0.01).fit(X, y, np.full(4000, 3.0))  # weights scaled away
    ref = LogisticRegression(C=np.inf).fit(logit(p)[:, None], y)
    assert fit.slope_ == pytest.approx(ref.coef_[0, 0], abs=0.01)
    assert fit.intercept_ == pytest.approx(ref.intercept_[0], abs=0.01)
    # ten answers the bootstrap's 0 and 1 separate exactly
    p = np.repeat([0.0, 1.0], 5)
    few = DesignedAdjacency(eps=0.01).fit(np.column_stack([1 - p, p, np.zeros((10, 2))]),
                                          p.astype(int))
    x = logit(np.clip(p, 0.01, 0.99))
    q = expit(few.slope_ * x + few.intercept_)
    gradient = np.array([(p - q).sum() - few.intercept_ / 4,
                         ((p - q) * x).sum() - (few.slope_ - 1) / 4])
    np.testing.assert_allclose(gradient, 0, atol=1e-5)
    assert 1 < few.slope_ < 10 and 1e-4 < q[0] < 0.05


@pytest.mark.parametrize("relations", ["edges", "causal"])
def test_answers_map_respects_background_knowledge(relations):
    # suggested pairs answered from the truth, the answers' map forced: the arc the
    # scientist forbids (edges; a forbidden arc leaves an effect through a path open), and
    # every arc (edges) or effect (causal) from a later tier to an earlier one, stay at
    # probability 0 in the output (docs/design.md §5.1, §9.12)
    network = random_network(n_nodes=12, n_edges=16, seed=5)
    data = network.sample(800, seed=6)
    names = data.names
    ancestor = ancestor_matrix(network.parents)
    truth = network.truth_dense()
    # tiers true to the network: the 4 variables with the fewest ancestors first; the
    # arc forbidden between two variables neither of which causes the other
    order = np.argsort(ancestor.sum(axis=0), kind="stable")
    tiers = {names[v]: int(rank >= 4) for rank, v in enumerate(order)}
    i, j = next((i, j) for i in range(len(names)) for j in range(i + 1, len(names))
                if not ancestor[i, j] and not ancestor[j, i])
    first, second = names[i], names[j]
    knowledge = Knowledge(forbidden=[(first, second)], tiers=tiers)
    settings = BootstrapSettings(n_boot=8, knowledge=knowledge, progress=False)
    probs = bootstrap_edge_probabilities(data, n_boot=8, knowledge=knowledge,
                                         ancestral=True, progress=False, seed=settings.seed)
    raw = relation_kind(relations).raw(probs)
    ask = suggest_pairs(raw, 30, seed=1,  # the forbidden pair stays in the table
                        exclude=np.array([pair_index(i, j, len(names))]))
    rows = []
    for row in ask.to_dict("records"):
        a, b = names.index(row["a"]), names.index(row["b"])
        if relations == "edges":
            t = truth[pair_index(min(a, b), max(a, b), len(names))]
            if a > b and t in (1, 2):
                t = 3 - t
            rows.append({**row, "relation": ("none", "->", "<-", "--")[t]})
        elif ancestor[a, b] or ancestor[b, a]:
            rows.append({**row, "a": names[a if ancestor[a, b] else b],
                         "b": names[b if ancestor[a, b] else a], "relation": "causes"})
        else:
            rows += [{**row, "relation": "not-causes"},
                     {"a": row["b"], "b": row["a"], "relation": "not-causes"}]
    result = causalcal.discover(data, pd.DataFrame(rows), relations=relations,
                                probabilities=probs, bootstrap=settings,
                                calibration=CalibrationSettings(map="designed"))
    assert result.report.map.chosen == "designed"
    table = result.table
    late_to_early = [(x, y) for x in names for y in names if tiers[x] > tiers[y]]
    checked = 0
    forbidden = [(first, second)] if relations == "edges" else []
    for x, y in [*forbidden, *late_to_early]:
        forward = table[(table.a == x) & (table.b == y)]
        backward = table[(table.a == y) & (table.b == x)]
        if relations == "edges":
            values = [*forward.p_forward, *backward.p_backward]
        else:
            values = [*forward.p_a_causes_b, *backward.p_b_causes_a]
        assert all(v == 0.0 for v in values), (x, y, values)
        checked += len(values)
    assert checked > 10
