"""BBQ (thesis §3.2.2): BDeu scores against a direct evaluation of the formula, bins,
elbow pruning, averaging, API, validation and held-out improvement."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.special import gammaln
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from causalcal.calibration import BBQ, get
from causalcal.calibration.bbq import _elbow, bin_range


def _direct_model(s_sorted, y_sorted, b):
    """One B-bin model written out loop by loop from the thesis formula and the paper's
    conventions (untied scores): bins of ⌊N/B⌋ instances, the last takes the rest."""
    n = len(s_sorted)
    c = n // b
    edges = [i * c for i in range(b)] + [n]
    bounds = [0.0] + [(s_sorted[e - 1] + s_sorted[e]) / 2 for e in edges[1:-1]] + [1.0]
    logml = 0.0
    probs = []
    for k in range(b):
        ys = y_sorted[edges[k]: edges[k + 1]]
        ss = s_sorted[edges[k]: edges[k + 1]]
        m1 = float(ys.sum())
        m0 = len(ys) - m1
        mid = (bounds[k] + bounds[k + 1]) / 2
        pb = min(max(mid, 0.005), 0.995)
        a, bb = 2 * pb, 2 * (1 - pb)  # N'/B = 2 pseudo-counts per bin
        logml += (math.lgamma(2.0) - math.lgamma(len(ys) + 2.0) + math.lgamma(m1 + a)
                  - math.lgamma(a) + math.lgamma(m0 + bb) - math.lgamma(bb))
        q = (float(ss[ys == 1].sum()) + mid) / (m1 + 1)
        probs.append((m1 + q) / (len(ys) + 1))
    return -2 * logml, bounds[1:-1], probs


@pytest.mark.parametrize("seed", range(4))
def test_scores_match_direct_bdeu(seed):
    rng = np.random.default_rng(seed)
    n = [7, 30, 64, 200][seed]
    s = rng.random(n)
    y = (rng.random(n) < s).astype(int)
    m = BBQ().fit(s, y)
    o = np.argsort(s)
    lo, hi = bin_range(n)
    assert list(m.n_bins_) == list(range(lo, hi + 1))
    for k, b in enumerate(m.n_bins_):
        score, cuts, probs = _direct_model(s[o], y[o], int(b))
        assert m.scores_[k] == pytest.approx(score, rel=1e-10, abs=1e-10)
        np.testing.assert_allclose(m.cut_points_[k], cuts, rtol=0, atol=1e-15)
        np.testing.assert_allclose(m.bin_probs_[k], probs, rtol=1e-12)


def test_bdeu_formula_against_scipy_gammaln():
    from causalcal.calibration.bbq import bdeu_log_marginal

    n1 = np.array([3.0, 0.0, 5.0])
    n0 = np.array([1.0, 4.0, 0.0])
    p = np.array([0.2, 0.5, 0.9])
    ref = sum(gammaln(2) - gammaln(a + b + 2) + gammaln(a + 2 * q) - gammaln(2 * q)
              + gammaln(b + 2 * (1 - q)) - gammaln(2 * (1 - q)) for a, b, q in zip(n1, n0, p))
    assert bdeu_log_marginal(n1, n0, p) == pytest.approx(ref, rel=1e-13)


def test_bin_range_follows_original_code():
    assert bin_range(1000) == (1, 100)
    # 1e6 ** (1/3) = 99.999…97 in IEEE arithmetic (as in MATLAB), so the floor is 9
    assert bin_range(10**6) == (9, 1000)
    assert bin_range(20) == (1, 4)  # ⌈N/5⌉ caps the largest model
    assert bin_range(3) == (1, 1)


def test_elbow_hand_cases():
    # drops 0.5, 0.01, 0.49 all exceed α·σ²: the first k − 1 = 3 models are kept
    np.testing.assert_array_equal(_elbow(np.array([1.0, 0.5, 0.49, 0.0]), 0.001), [0, 1, 2])
    # leading ties skipped, then the zero drop stops the scan: both best models kept
    np.testing.assert_array_equal(
        np.sort(_elbow(np.array([0.5, 1.0, 0.5, 1.0, 0.5]), 0.001)), [1, 3])
    np.testing.assert_array_equal(_elbow(np.array([0.3]), 0.001), [0])


def test_average_and_select_predictions_brute_force():
    rng = np.random.default_rng(5)
    s = rng.random(500)
    y = (rng.random(500) < s**2).astype(int)
    q = np.r_[rng.random(200), s[:50], 0.0, 1.0]
    m = BBQ().fit(s, y)
    w = m.weights_[m.kept_]
    ref = sum(wk * m.bin_probs_[k][np.searchsorted(m.cut_points_[k], q, side="right")]
              for wk, k in zip(w, m.kept_)) / w.sum()
    np.testing.assert_allclose(m.predict(q), ref, atol=1e-12)
    sel = BBQ(method="select").fit(s, y)
    best = int(np.argmin(sel.scores_))
    np.testing.assert_allclose(
        sel.predict(q),
        sel.bin_probs_[best][np.searchsorted(sel.cut_points_[best], q, side="right")])
    assert np.all(m.weights_ <= 1) and m.weights_.max() == 1.0


def test_ties_never_split():
    rng = np.random.default_rng(3)
    s = np.round(rng.random(400), 1)
    y = (rng.random(400) < s).astype(int)
    m = BBQ().fit(s, y)
    for cuts in m.cut_points_:
        assert not np.isin(cuts, s).any()  # every boundary lies strictly between scores
    p = m.predict(s)
    for v in np.unique(s):
        assert np.ptp(p[s == v]) == 0


def test_sklearn_api_and_registry():
    rng = np.random.default_rng(0)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    est = get("bbq", alpha=0.01)
    assert isinstance(est, BBQ) and est.alpha == 0.01
    with pytest.raises(NotFittedError):
        est.predict(s)
    c = clone(est)
    assert c.get_params() == est.get_params()
    assert est.fit(s, y) is est
    pp = est.predict_proba(s[:20])
    assert pp.shape == (20, 2)
    np.testing.assert_allclose(pp.sum(axis=1), 1)
    np.testing.assert_allclose(BBQ().fit(s, y, sample_weight=np.ones(300)).predict(s),
                               BBQ().fit(s, y).predict(s))
    # weights act as counts inside the BDeu score
    w = rng.integers(1, 4, 300).astype(float)
    assert not np.allclose(BBQ().fit(s, y, sample_weight=w).scores_, BBQ().fit(s, y).scores_)


@pytest.mark.parametrize(
    "params, data, msg",
    [
        ({"method": "mean"}, None, "method"),
        ({"c": 0.5}, None, "c must"),
        ({"alpha": -1.0}, None, "alpha"),
        ({"pseudo_counts": 0.0}, None, "pseudo_counts"),
        ({}, ([0.2, 1.5], [0, 1]), "outside"),
        ({}, ([0.2, 0.5], [0, 2]), "labels"),
        ({}, ([0.2, 0.5], [0]), "labels"),
        ({}, ([0.2, np.nan], [0, 1]), "not finite"),
    ],
)
def test_validation_errors(params, data, msg):
    s, y = data if data else ([0.1, 0.4, 0.8], [0, 1, 1])
    with pytest.raises(ValueError, match=msg):
        BBQ(**params).fit(s, y)


def test_tiny_inputs():
    assert BBQ().fit([0.3], [1]).predict([0.0, 0.3, 1.0]).shape == (3,)
    p = BBQ().fit([0.5, 0.5, 0.5], [0, 1, 1]).predict([0.5])
    assert 0 < p[0] < 1
