"""Binary calibrators: histogram, Platt, isotonic, KDE, DPM, SBB, ABB (docs/design.md §7).

References: scikit-learn's IsotonicRegression, scipy optimisers, exhaustive enumeration of
binnings, direct O(N²) kernel sums, hand-derived numbers.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import expit
from sklearn.isotonic import IsotonicRegression, isotonic_regression

import causalcal.calibration.kde as kde_mod
from causalcal.calibration import (
    ABB,
    SBB,
    DPMCalibration,
    HistogramBinning,
    IsotonicCalibration,
    KDECalibration,
    PlattScaling,
    get,
)
from causalcal.calibration.isotonic import pava

# ---------------------------------------------------------------------------- isotonic


@pytest.mark.parametrize("seed", range(6))
def test_isotonic_equals_sklearn(seed):
    rng = np.random.default_rng(seed)
    for n in (1, 2, 3, 7, 40, 500):
        s = rng.random(n)
        if seed % 2:
            s = np.round(s, 1)  # many ties
        y = (rng.random(n) < s**2).astype(int)
        w = None
        if seed % 3:
            w = rng.random(n) * (rng.random(n) > 0.2)  # some zero weights
            w[0] = 0.5
        q = np.r_[np.clip(rng.random(300) * 1.4 - 0.2, 0, 1), s]
        ref = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w)
        ours = IsotonicCalibration().fit(s, y, sample_weight=w)
        np.testing.assert_allclose(ours.predict(q), ref.predict(q), atol=1e-12)


def test_pava_equals_sklearn_on_hard_sequences():
    rng = np.random.default_rng(1)
    cases = [
        np.r_[np.arange(2000.0), -1e7],  # one huge violator pooling a long chain
        np.r_[1e7, np.arange(2000.0)],
        np.tile([1.0, 0.0], 1000),
        np.sin(np.arange(3000) / 7.0) + rng.normal(size=3000),
        rng.integers(0, 2, 5000).astype(float),
        np.zeros(10),
        np.arange(10.0)[::-1],
    ]
    for y in cases:
        w = rng.random(len(y)) + 0.1
        np.testing.assert_allclose(pava(y, w), isotonic_regression(y, sample_weight=w), atol=1e-9)
        np.testing.assert_allclose(pava(y, np.ones(len(y))), isotonic_regression(y), atol=1e-9)


def test_isotonic_ties_pooled_and_interpolation():
    # scores 0.2 (labels 1, 0) pooled to 0.5; fit [0, 0.5, 1] at [0.1, 0.2, 0.3]
    m = IsotonicCalibration().fit([0.1, 0.2, 0.2, 0.3], [0, 1, 0, 1])
    np.testing.assert_allclose(m.y_thresholds_, [0.0, 0.5, 1.0])
    np.testing.assert_allclose(m.predict([0.0, 0.15, 0.25, 0.9]), [0.0, 0.25, 0.75, 1.0])


# ---------------------------------------------------------------------------- Platt


def _platt_reference(s, y, w):
    npos = np.sum(w * y)
    nneg = np.sum(w) - npos
    t = np.where(y == 1, (npos + 1) / (npos + 2), 1 / (nneg + 2))
    mu, sd = np.average(s, weights=w), s.std()

    def f(ab):
        x = ab[0] * (s - mu) / sd + ab[1]
        return np.sum(w * (np.logaddexp(0, x) - (1 - t) * x))

    r = minimize(f, [0.0, 0.0], method="BFGS", options={"gtol": 1e-9})
    return r.x[0] / sd, r.x[1] - r.x[0] * mu / sd


@pytest.mark.parametrize("seed", range(4))
def test_platt_matches_scipy_optimum_with_smoothed_targets(seed):
    rng = np.random.default_rng(seed)
    n = 400
    s = rng.normal(size=n) * 2.0 + (500.0 if seed == 3 else 0.0)  # real-valued scores
    y = (rng.random(n) < expit(1.5 * (s - s.mean()) - 0.5)).astype(int)
    w = np.ones(n) if seed % 2 == 0 else rng.random(n) + 0.2
    m = PlattScaling().fit(s, y, sample_weight=w)
    a, b = _platt_reference(s, y, w)
    np.testing.assert_allclose([m.a_, m.b_], [a, b], rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(m.predict(s), 1 / (1 + np.exp(a * s + b)), atol=1e-6)


def test_platt_single_class_and_separable():
    m = PlattScaling().fit([0.1, 0.2, 0.3], [0, 0, 0])
    np.testing.assert_allclose(m.predict([0.5]), [1 / 5], atol=1e-6)  # t- = 1/(N- + 2)
    # separable data: targets keep the solution finite
    s = np.r_[np.zeros(5), np.ones(5)]
    m = PlattScaling().fit(s, s.astype(int))
    np.testing.assert_allclose(m.predict([0.0, 1.0]), [1 / 7, 6 / 7], atol=1e-6)


# ---------------------------------------------------------------------------- histogram


def test_histogram_hand_example_and_ties():
    s = [0.1, 0.1, 0.1, 0.2, 0.3, 0.4, 0.5]
    y = [0, 0, 1, 1, 0, 1, 1]
    m = HistogramBinning(n_bins=3).fit(s, y)
    # bins by (i + 1/2)·3/7: {0,1} {2,3,4} {5,6}; the tie run 0.1 extends bin 0
    np.testing.assert_allclose(m.thresholds_, [0.15, 0.35])
    np.testing.assert_allclose(m.bin_values_, [1 / 3, 1 / 2, 1.0])
    np.testing.assert_allclose(m.predict([0.0, 0.15, 0.16, 0.35, 0.36, 1.0]), [1 / 3, 1 / 3, 0.5,
                                                                               0.5, 1.0, 1.0])


def test_histogram_equal_frequency_and_weights():
    rng = np.random.default_rng(0)
    s = rng.random(1000)
    y = (rng.random(1000) < s).astype(int)
    m = HistogramBinning(n_bins=10).fit(s, y)
    assert m.n_bins_ == 10
    np.testing.assert_array_equal(m.bin_weights_, np.full(10, 100.0))
    order = np.argsort(s)
    np.testing.assert_allclose(m.bin_values_, y[order].reshape(10, 100).mean(axis=1))
    # weights: bins hold equal weight up to one point's weight; values are weighted
    # fractions; scaling all weights changes nothing
    w = rng.random(1000) + 0.5
    mw = HistogramBinning(n_bins=7).fit(s, y, sample_weight=w)
    assert np.all(np.abs(mw.bin_weights_ - w.sum() / 7) <= w.max())
    b = np.searchsorted(mw.thresholds_, s)
    np.testing.assert_allclose(mw.bin_values_, np.bincount(b, w * y) / np.bincount(b, w))
    q = rng.random(200)
    m3 = HistogramBinning(n_bins=7).fit(s, y, sample_weight=3 * w)
    np.testing.assert_allclose(mw.predict(q), m3.predict(q))


# ---------------------------------------------------------------------------- KDE


def _kern(name, u):
    u = np.abs(u)
    if name == "boxcar":
        return 0.5 * (u <= 1)
    if name == "gaussian":
        return np.exp(-u * u / 2) / np.sqrt(2 * np.pi)
    if name == "epanechnikov":
        return 0.75 * (1 - u * u) * (u <= 1)
    return 70 / 81 * (1 - u**3) ** 3 * (u <= 1)


def _kde_direct(x, z, w, h0, h1, q, name):
    # Bayes rule with class priors W_c/W and densities 1/(W_c h_c) Σ w K(|q − x|/h_c)
    s1 = (_kern(name, (q[:, None] - x[None, z == 1]) / h1) * w[z == 1]).sum(1)
    s0 = (_kern(name, (q[:, None] - x[None, z == 0]) / h0) * w[z == 0]).sum(1)
    f1 = s1 / (w[z == 1].sum() * h1)
    f0 = s0 / (w[z == 0].sum() * h0)
    p1 = w[z == 1].sum() / w.sum()
    with np.errstate(invalid="ignore"):
        return p1 * f1 / (p1 * f1 + (1 - p1) * f0)


def _silverman(x):
    return 1.06 * np.std(x, ddof=1) * len(x) ** -0.2


@pytest.mark.parametrize("kernel", ["boxcar", "gaussian", "epanechnikov", "tricube"])
@pytest.mark.parametrize("per_class", [False, True])
def test_kde_matches_direct_evaluation(kernel, per_class):
    rng = np.random.default_rng(3)
    for n in (25, 400):
        x = rng.beta(2, 5, n)
        z = (rng.random(n) < np.sqrt(x)).astype(int)
        m = KDECalibration(kernel=kernel, per_class_bandwidth=per_class).fit(x, z)
        if per_class:
            h0, h1 = _silverman(x[z == 0]), _silverman(x[z == 1])
        else:
            h0 = h1 = _silverman(x)
        np.testing.assert_allclose(m.bandwidths_, [h0, h1], rtol=1e-12)
        q = np.r_[rng.random(500) * 0.8, x]
        ref = _kde_direct(x, z, np.ones(n), h0, h1, q, kernel)
        ok = np.isfinite(ref)
        assert ok.mean() > 0.5
        np.testing.assert_allclose(m.predict(q)[ok], ref[ok], atol=1e-10)
        # weighted, fixed bandwidth
        w = rng.random(n) + 0.3
        mw = KDECalibration(kernel=kernel, bandwidth=0.07).fit(x, z, sample_weight=w)
        ref = _kde_direct(x, z, w, 0.07, 0.07, q, kernel)
        ok = np.isfinite(ref)
        np.testing.assert_allclose(mw.predict(q)[ok], ref[ok], atol=1e-10)


def test_kde_gaussian_binned_path(monkeypatch):
    monkeypatch.setattr(kde_mod, "_DIRECT_PAIRS", 0)
    rng = np.random.default_rng(4)
    x = rng.beta(2, 5, 3000)
    z = (rng.random(3000) < np.sqrt(x)).astype(int)
    m = KDECalibration(kernel="gaussian", per_class_bandwidth=True).fit(x, z)
    q = rng.random(400) * 0.8
    ref = _kde_direct(x, z, np.ones(3000), *m.bandwidths_, q, "gaussian")
    np.testing.assert_allclose(m.predict(q), ref, atol=1e-4)


def test_kde_far_scores_use_nearest_and_missing_class():
    m = KDECalibration(bandwidth=0.01).fit([0.1, 0.11, 0.9], [0, 1, 1])
    np.testing.assert_allclose(m.predict([0.105, 0.5, 1.0]), [0.5, 0.5, 1.0])
    assert np.all(KDECalibration().fit([0.1, 0.4], [0, 0]).predict([0.1, 0.9]) == 0)


# ---------------------------------------------------------------------------- DPM


def test_dpm_recovers_bayes_posterior_of_gaussian_classes():
    rng = np.random.default_rng(5)
    n0, n1 = 3000, 1500
    x = np.r_[rng.normal(0.35, 0.06, n0), rng.normal(0.6, 0.08, n1)]
    z = np.r_[np.zeros(n0, int), np.ones(n1, int)]
    keep = (x > 0) & (x < 1)
    m = DPMCalibration().fit(x[keep], z[keep])
    q = np.linspace(0.4, 0.55, 7)

    def pdf(v, mu, sd):
        return np.exp(-0.5 * ((v - mu) / sd) ** 2) / sd

    true = n1 * pdf(q, 0.6, 0.08) / (n1 * pdf(q, 0.6, 0.08) + n0 * pdf(q, 0.35, 0.06))
    np.testing.assert_allclose(m.predict(q), true, atol=0.06)
    # seeded: identical refits
    np.testing.assert_array_equal(m.predict(q), DPMCalibration().fit(x[keep], z[keep]).predict(q))


# ---------------------------------------------------------------------------- SBB / ABB


def _exhaustive_binnings(s, y, w, lam):
    """Score every binning of the sorted instances by thesis eq. 3.9 (ties: Prior(k) = 0)."""
    o = np.argsort(s, kind="stable")
    s, y, w = s[o], y[o], w[o]
    n = len(s)
    span = s[-1] - s[0]
    prior = [1 - math.exp(-lam * (s[k + 1] - s[k]) / span) if span > 0 else 0.0
             for k in range(n - 1)]
    total, best, acc = 0.0, (-1.0, None), np.zeros(n)
    for cuts in itertools.product([0, 1], repeat=n - 1):
        score, bins, lo = 1.0, [], 0
        for u in range(n):
            if u == n - 1 or cuts[u]:
                p = math.prod(1 - prior[k] for k in range(lo, u))
                if u < n - 1:
                    p *= prior[u]
                m1 = float(np.sum(w[lo : u + 1] * y[lo : u + 1]))
                m0 = float(np.sum(w[lo : u + 1])) - m1
                p *= math.exp(math.lgamma(m0 + 1) + math.lgamma(m1 + 1) - math.lgamma(m0 + m1 + 2))
                score *= p
                bins.append((lo, u, (m1 + 1) / (m0 + m1 + 2)))
                lo = u + 1
        if score == 0:
            continue
        est = np.zeros(n)
        for lo_, u_, v in bins:
            est[lo_ : u_ + 1] = v
        total += score
        acc += score * est
        if score > best[0]:
            best = (score, est)
    return s, acc / total, best[1], math.log(total), math.log(best[0])


@pytest.mark.parametrize("seed", range(8))
def test_sbb_abb_equal_exhaustive_search(seed):
    rng = np.random.default_rng(seed)
    for _ in range(5):
        n = int(rng.integers(1, 11))
        s = rng.random(n)
        if seed % 2:
            s = np.round(s, 1)  # ties
        y = (rng.random(n) < s).astype(int)
        w = np.ones(n) if seed < 4 else rng.random(n) + 0.2
        lam = float(rng.choice([0.3, 1.0, 4.0]))
        ss, avg, sel, log_total, log_best = _exhaustive_binnings(s, y, w, lam)
        a = ABB(poisson_lambda=lam, n_grid=None).fit(s, y, sample_weight=w)
        b = SBB(poisson_lambda=lam).fit(s, y, sample_weight=w)
        np.testing.assert_allclose(a.predict(ss), avg, atol=1e-10)
        np.testing.assert_allclose(a.log_evidence_, log_total, rtol=1e-10, atol=1e-10)
        np.testing.assert_allclose(b.predict(ss), sel, atol=1e-12)
        np.testing.assert_allclose(b.log_score_, log_best, rtol=1e-10, atol=1e-10)


def test_abb_table_and_between_points():
    rng = np.random.default_rng(2)
    s = rng.random(60)
    y = (rng.random(60) < s).astype(int)
    exact = ABB(n_grid=None).fit(s, y)
    table = ABB(n_grid=50).fit(s, y)
    mids = (np.arange(50) + 0.5) / 50
    np.testing.assert_allclose(table.grid_values_, exact.predict(mids))
    q = rng.random(100)
    np.testing.assert_allclose(table.predict(q), exact.predict(mids[np.minimum(q * 50, 49).astype(
        int)]))
    # between two training scores the nearer one's value is used
    xs = exact.X_
    mid_lo = xs[3] + 0.4 * (xs[4] - xs[3])
    assert exact.predict([mid_lo])[0] == exact.atom_values_[3]


# ---------------------------------------------------------------------------- registry


def test_registry_names_build_binary_calibrators():
    for name, cls in [("histogram", HistogramBinning), ("platt", PlattScaling),
                      ("isotonic", IsotonicCalibration), ("kde", KDECalibration),
                      ("dpm", DPMCalibration), ("sbb", SBB), ("abb", ABB)]:
        assert isinstance(get(name), cls)
    assert get("kde", kernel="gaussian").kernel == "gaussian"
