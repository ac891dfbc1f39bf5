"""The calibrate stage on the three causal classes (issue 30 item 2): the draw, the fit
on drawn and on known pairs, the swap and the causal Brier criterion."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from causalcal.causal import CausalProbabilities
from causalcal.edgecal import (
    CalibrationSettings,
    CausalRelations,
    PairInputs,
    drawn_calibration_set,
    fit_edge_calibrator,
    known_calibration_set,
    known_pair_losses,
)
from causalcal.edgecal.sampling import class_draws
from causalcal.errors import InputError
from causalcal.metrics import brier_score
from causalcal.pairs import pair_from_index

V = 80  # 3160 pairs


def _world(seed: int, power: float = 3.0, n_boot: int = 50):
    """Pairs whose true class probabilities are one of a few rows; the "bootstrap" reports
    them sharpened (q**power, renormalised) and rounded to quarter counts; labels are drawn
    from the true rows."""
    rng = np.random.default_rng(seed)
    m = V * (V - 1) // 2
    rows = np.array([[0.97, 0.015, 0.015], [0.8, 0.1, 0.1], [0.5, 0.3, 0.2],
                     [0.5, 0.2, 0.3], [0.2, 0.6, 0.2], [0.2, 0.2, 0.6]])
    kind = rng.choice(len(rows), size=m, p=[0.55, 0.15, 0.075, 0.075, 0.075, 0.075])
    q = rows[kind]
    sharp = q ** power
    sharp /= sharp.sum(axis=1, keepdims=True)
    steps = 2 * n_boot
    p = np.round(sharp[:, 1:] * steps) / steps
    raw = np.column_stack([1 - p.sum(axis=1), p])
    truth = np.array([rng.choice(3, p=r) for r in q], dtype=np.int8)
    return CausalProbabilities([f"x{k}" for k in range(V)], raw, n_boot), truth, q


def test_class_draws_keep_the_two_directions_equal():
    assert list(class_draws(40, 3)) == [14, 13, 13]
    assert list(class_draws(120, 3)) == [40, 40, 40]
    assert list(class_draws(40, 4)) == [10, 10, 10, 10]


def test_drawn_causal_set_and_fit_beat_a_distorted_bootstrap():
    probs, truth, q = _world(0)
    inputs = PairInputs(probs)
    assert inputs.n_classes == 3 and isinstance(inputs.kind, CausalRelations)
    assert inputs.eps == pytest.approx(0.25 / 50)
    calset, test = drawn_calibration_set(inputs, truth, 120, seed=1)
    assert np.bincount(calset.labels, minlength=3).tolist() == [40, 40, 40]
    assert calset.Y.shape == (120, 3) and calset.design.n_classes == 3
    fit = fit_edge_calibrator(calset, CalibrationSettings("snn"), seed=0)
    Q = fit.predict_all(np.float64)
    assert Q.shape == (probs.n_pairs, 3) and np.allclose(Q.sum(axis=1), 1)
    Y = np.eye(3)[truth[test]]
    raw = probs.dense(np.float64)[test]
    assert brier_score(Y.ravel(), Q[test].ravel()) < brier_score(Y.ravel(), raw.ravel())


def test_causal_fit_is_swap_equivariant():
    probs, truth, _ = _world(2)
    calset, _ = drawn_calibration_set(PairInputs(probs), truth, 60, seed=0)
    fit = fit_edge_calibrator(calset, CalibrationSettings("snn"), seed=0)
    X = calset.X
    np.testing.assert_allclose(fit.predict_proba(X[:, [0, 2, 1]]),
                               fit.predict_proba(X)[:, [0, 2, 1]], atol=1e-9)


def test_causal_brier_counts_the_directions_a_label_settles():
    S = np.array([[0.2, 0.7, 0.1]] * 4)
    Y = np.array([[False, True, False],   # causes: both directions settled
                  [True, False, True],    # a not-causes b: only "a causes b" settled
                  [False, True, True],    # adjacent: no direction settled
                  [True, False, False]])  # neither
    loss = known_pair_losses(S, Y, np.zeros((4, 3)), CausalRelations().known_brier)["brier"]
    np.testing.assert_allclose(loss, [0.3 ** 2 + 0.1 ** 2, 0.7 ** 2, 0.0,
                                      0.7 ** 2 + 0.1 ** 2])


def _known(probs, truth, n_each: int, seed: int) -> pd.DataFrame:
    """Known causal pairs as a scientist would state them: random true causes and random
    pairs with no causal relation either way."""
    rng = np.random.default_rng(seed)
    rows = []
    for cls, n in ((1, n_each), (2, n_each), (0, 2 * n_each)):
        keys = rng.choice(np.flatnonzero(truth == cls), size=n, replace=False)
        i, j = pair_from_index(keys, probs.n_vars)
        allowed = np.eye(3, dtype=bool)[np.full(n, cls)]
        rows.append(pd.DataFrame({"i": i, "j": j, "neither": allowed[:, 0],
                                  "forward": allowed[:, 1], "backward": allowed[:, 2]}))
    return pd.concat(rows, ignore_index=True)


def test_known_causal_pairs_keep_the_bootstrap_when_it_is_calibrated():
    probs, truth, _ = _world(3, power=1.0)  # the bootstrap already tells the truth
    calset = known_calibration_set(PairInputs(probs), _known(probs, truth, 8, 0))
    assert calset.labels.tolist().count(-1) == 0 and calset.Y.shape[1] == 3
    fit = fit_edge_calibrator(calset, CalibrationSettings("snn"), seed=0)
    assert fit.choice.chosen == "identity"
    np.testing.assert_allclose(fit.predict_all(np.float64), probs.dense(np.float64),
                               atol=1e-6)
    forced = fit_edge_calibrator(calset, CalibrationSettings("snn", map="calibrated"), seed=0)
    Q = forced.predict_all(np.float64)
    assert Q.shape == (probs.n_pairs, 3) and np.allclose(Q.sum(axis=1), 1)
    # the causal map is written whole, so it needs two standard errors (Z_CAUSAL)
    assert fit.choice.candidates["calibrated"].z == 2.0


def test_known_causal_pairs_are_counted():
    probs, truth, _ = _world(4)
    known = _known(probs, truth, 2, 0)
    with pytest.raises(InputError, match="causally related"):
        known_calibration_set(PairInputs(probs), known)


def test_pair_features_are_refused_for_causal_relations():
    probs, _, _ = _world(5)
    with pytest.raises(InputError, match="causal"):
        PairInputs(probs, ["degree"])
