"""The calibrate stage's one fit: its rules, the offsets fallback and the do-no-harm choice."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LogisticRegression

from causalcal.calibration import inclusion_weights
from causalcal.edgecal import (
    BootstrapIdentity,
    CalibrationSettings,
    PairInputs,
    choose_map,
    drawn_calibration_set,
    edge_calibrator,
    fit_edge_calibrator,
    fit_with_offsets,
    known_calibration_set,
)
from causalcal.edges import EdgeProbabilities, pair_from_index
from causalcal.errors import InputError


def test_plain_sklearn_estimator_through_swap_equivariant_takes_offsets_as_weights():
    rng = np.random.default_rng(0)
    X = rng.dirichlet(np.ones(4), size=120)
    y = np.tile([0, 1, 2, 3], 30)
    offsets = np.log(rng.uniform(0.1, 1, size=(120, 4)))
    offsets[:, 2] = offsets[:, 1]  # a swap-symmetric design
    model = edge_calibrator(LogisticRegression(), None, 0, equivariant=True)
    fitted = fit_with_offsets(model, X, y, offsets)
    Q = fitted.predict_proba(X)
    assert Q.shape == (120, 4) and np.allclose(Q.sum(axis=1), 1)
    # the same as fitting the wrapper with the inverse-inclusion weights by hand
    w = inclusion_weights(offsets, np.eye(4, dtype=bool)[y])
    by_hand = edge_calibrator(LogisticRegression(), None, 0).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(Q, by_hand.predict_proba(X), atol=1e-10)


def _losses(raw, cal, folds=4, **others):
    scores = {"identity": np.asarray(raw, float), "calibrated": np.asarray(cal, float),
              **{k: np.asarray(v, float) for k, v in others.items()}}
    return {"folds": folds, "brier": scores, "log_loss": scores}


def test_choose_map_by_hand():
    raw = np.array([0.5, 0.5, 0.5, 0.5])
    better = choose_map(_losses(raw, raw - np.array([0.25, 0.2, 0.3, 0.25])))
    assert better.chosen == "calibrated"
    assert better.candidates["calibrated"].improvement == pytest.approx(0.25)
    noisy = choose_map(_losses(raw, raw - np.array([0.4, -0.3, 0.02, -0.08])))
    assert noisy.chosen == "identity"  # mean 0.01, far below one standard error
    assert choose_map(_losses(raw, raw + 0.1)).chosen == "identity"
    assert choose_map(_losses(raw, raw, folds=0)).chosen == "identity"
    assert choose_map(_losses(raw, raw + 0.1), asked="calibrated").chosen == "calibrated"


def test_choose_map_takes_the_largest_eligible_improvement():
    raw = np.array([0.5, 0.5, 0.5, 0.5])
    cal = raw - np.array([0.25, 0.2, 0.3, 0.25])  # mean gain 0.25
    sim = raw - np.array([0.3, 0.3, 0.31, 0.29])  # mean gain 0.30
    assert choose_map(_losses(raw, cal, simulated=sim)).chosen == "simulated"
    noisy = raw - np.array([1.6, -0.4, 0.0, 0.0])  # mean gain 0.30, within one SE
    chosen = choose_map(_losses(raw, cal, simulated=noisy))
    assert chosen.chosen == "calibrated"
    assert set(chosen.candidates) == {"identity", "calibrated", "simulated"}
    # the simulation-informed map needs two standard errors (crossval.Z), not one
    between = raw - np.array([0.4, 0.0, 0.2, 0.0])  # mean gain 0.15, about 1.6 SE
    assert choose_map(_losses(raw, raw, simulated=between)).chosen == "identity"
    lenient = choose_map(_losses(raw, raw, simulated=between), z={"simulated": 1.0})
    assert lenient.chosen == "simulated"


def _population(distort, seed: int, v: int = 70, n_boot: int = 20):
    """All pairs with bootstrap P(adjacent) spread over [0, 1] and truths drawn from
    ``distort(P(adjacent))``; known relations: 60 arcs and 60 non-adjacent pairs."""
    rng = np.random.default_rng(seed)
    m = v * (v - 1) // 2
    p_adj = rng.beta(0.6, 0.6, size=m)
    hits = rng.binomial(n_boot, p_adj)
    fwd = rng.binomial(hits, 0.5)
    counts = np.column_stack([fwd, hits - fwd, np.zeros(m, int)])
    i, j = pair_from_index(np.arange(m), v)
    probs = EdgeProbabilities.from_counts([f"x{k}" for k in range(v)], np.column_stack([i, j]),
                                          counts, n_boot)
    adjacent = rng.random(m) < distort(hits / n_boot)
    arcs = rng.choice(np.flatnonzero(adjacent), 60, replace=False)
    nones = rng.choice(np.flatnonzero(~adjacent), 60, replace=False)
    keys = np.concatenate([arcs, nones])
    ki, kj = pair_from_index(keys, v)
    known = pd.DataFrame({"i": ki, "j": kj, "label": [1] * 60 + [0] * 60})
    return known_calibration_set(PairInputs(probs), known)


def test_identity_when_the_bootstrap_is_already_calibrated():
    calset = _population(lambda p: p, seed=1)
    fit = fit_edge_calibrator(calset, CalibrationSettings("temperature"), seed=0)
    assert fit.choice.chosen == "identity"
    assert isinstance(fit.model, BootstrapIdentity)
    dense = calset.inputs.probabilities.dense(np.float64)
    np.testing.assert_array_equal(fit.predict_all(np.float64), dense)


def test_calibrated_when_a_distortion_is_there_to_remove():
    # the truth is much less certain than the bootstrap: P(adjacent | p) = 0.25 + 0.5 p
    calset = _population(lambda p: 0.25 + 0.5 * p, seed=2)
    fit = fit_edge_calibrator(calset, CalibrationSettings("dirichlet", evidence_strength=0), seed=0)
    assert fit.choice.chosen == "calibrated"
    cal = fit.choice.candidates["calibrated"]
    assert cal.improvement > cal.improvement_se and cal.passes
    # the written P(adjacent) keeps the bootstrap's order of every pair
    boot = 1.0 - calset.inputs.probabilities.dense(np.float64)[:, 0]
    written = 1.0 - fit.predict_all(np.float64)[:, 0]
    order = np.lexsort((written, boot))
    assert np.all(np.diff(written[order]) >= -1e-12)
    assert np.ptp(written) > 0.3  # a real map, not a constant


def test_fit_rules_refused_clearly():
    calset = _population(lambda p: p, seed=3)
    with pytest.raises(InputError, match="map must be one of"):
        CalibrationSettings(map="best")
    with pytest.raises(InputError, match="selection must be 'design'"):
        fit_edge_calibrator(calset, CalibrationSettings(selection="none"))
    with pytest.raises(InputError, match="needs simulations"):
        CalibrationSettings(map="simulated")
    with pytest.raises(InputError, match="simulations must be a whole number"):
        CalibrationSettings(simulations=-1)


def test_drawn_set_fit_pools_forward_and_backward_when_equivariant():
    rng = np.random.default_rng(4)
    v = 40
    m = v * (v - 1) // 2
    truth = np.zeros(m, dtype=np.int8)
    truth[rng.choice(m, 90, replace=False)] = np.repeat([1, 2, 3], 30)
    alpha = np.ones((m, 4))
    alpha[np.arange(m), truth] += 4
    counts = np.array([rng.multinomial(20, rng.dirichlet(a)) for a in alpha])
    i, j = pair_from_index(np.arange(m), v)
    probs = EdgeProbabilities.from_counts([f"x{k}" for k in range(v)], np.column_stack([i, j]),
                                          counts[:, 1:], 20)
    calset, test = drawn_calibration_set(PairInputs(probs), truth, 40, seed=0)
    assert test.sum() == m - 40 and calset.y.ndim == 1
    fit = fit_edge_calibrator(calset, CalibrationSettings("temperature"), seed=0)
    np.testing.assert_array_equal(fit.design.drawn[1], fit.design.drawn[2])
    plain = fit_edge_calibrator(calset, CalibrationSettings("temperature", selection="none"),
                                seed=0)
    assert plain.design is None and plain.offsets is None


def test_adjacent_pairs_estimate_by_hand_and_near_the_truth():
    from causalcal.edgecal import estimate_adjacent_pairs

    calset = _population(lambda p: 0.1 + 0.8 * p, seed=5)
    est = estimate_adjacent_pairs(calset, n_resamples=200, seed=0)
    probs = calset.inputs.probabilities
    m = (1 - probs.dense(np.float64)[:, 0]).mean()
    p_adj = 1 - calset.X[:, 0]
    arcs, nones = p_adj[~calset.Y[:, 0]], p_adj[calset.Y[:, 0]]
    by_hand = (m - nones.mean()) / (arcs.mean() - nones.mean()) * probs.n_pairs
    assert est.estimate == pytest.approx(by_hand)
    assert est.low <= est.estimate <= est.high
    # the population's truth: E[adjacent] = Σ (0.1 + 0.8 p) over all pairs
    expected = (0.1 + 0.8 * (1 - probs.dense(np.float64)[:, 0])).sum()
    assert est.low <= expected <= est.high
