"""ENIR (thesis §3.3): the near-isotonic path against a generic convex solver and
scikit-learn's isotonic regression, BIC scores recomputed point by point, prediction,
API, validation and held-out improvement."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.isotonic import IsotonicRegression

from causalcal.calibration import ENIR, get
from causalcal.calibration.enir import near_isotonic_path


def _near_isotonic_slsqp(y, w, lam):
    """½ Σ w (y − β)² + λ Σ (β_i − β_{i+1})_+ as a smooth QP in (β, t), t ≥ β_i − β_{i+1}, t ≥ 0."""
    n = len(y)

    def f(v):
        return 0.5 * np.sum(w * (y - v[:n]) ** 2) + lam * v[n:].sum()

    def g(v):
        return np.r_[-w * (y - v[:n]), np.full(n - 1, lam)]

    cons = [{"type": "ineq", "fun": lambda v: v[n:] - (v[: n - 1] - v[1:n])},
            {"type": "ineq", "fun": lambda v: v[n:]}]
    v0 = np.r_[y, np.maximum(y[:-1] - y[1:], 0)]
    r = minimize(f, v0, jac=g, constraints=cons, method="SLSQP",
                 options={"ftol": 1e-15, "maxiter": 2000})
    return r.x[:n]


@pytest.mark.parametrize("seed", range(8))
def test_path_equals_convex_solver(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(3, 13))
    y = rng.integers(0, 2, n).astype(float) if seed % 2 else rng.random(n)
    w = rng.integers(1, 4, n).astype(float)
    path = near_isotonic_path(y, w)
    top = path.merge_lambdas.max() if len(path.merge_lambdas) else 1.0
    lams = np.r_[0.0, path.merge_lambdas[:4], rng.random(3) * top, 2 * top]
    for lam in lams:
        np.testing.assert_allclose(path.solution(lam), _near_isotonic_slsqp(y, w, lam),
                                   atol=2e-6)
    # the end of the path is the weighted isotonic regression
    iso = IsotonicRegression().fit(np.arange(n), y, sample_weight=w).predict(np.arange(n))
    np.testing.assert_allclose(path.solution(10 * top + 1), iso, atol=1e-12)
    np.testing.assert_allclose(path.solution(0.0), y, atol=1e-12)


def test_path_on_large_random_sequence_ends_isotonic():
    rng = np.random.default_rng(11)
    y = (rng.random(3000) < np.linspace(0.1, 0.9, 3000)).astype(float)
    path = near_isotonic_path(y)
    iso = IsotonicRegression().fit(np.arange(3000), y).predict(np.arange(3000))
    np.testing.assert_allclose(path.solution(path.merge_lambdas.max() + 1), iso, atol=1e-9)
    # blocks only merge as λ grows: the number of blocks never increases
    counts = [len(path.blocks_at(lam)[0]) for lam in np.r_[0, path.merge_lambdas]]
    assert all(a >= b for a, b in zip(counts, counts[1:]))


def test_vectorised_rounds_equal_heap_only_path(monkeypatch):
    import causalcal.calibration.enir as enir_mod

    rng = np.random.default_rng(12)
    y = (rng.random(6000) < np.linspace(0.2, 0.8, 6000)).astype(float)
    fast = near_isotonic_path(y)
    monkeypatch.setattr(enir_mod, "_BATCH_MIN", 10**9)
    slow = near_isotonic_path(y)
    assert len(fast.left) < len(slow.left)  # the rounds did merge many-at-once
    # the same breakpoints up to float noise (near-equal λs may coincide in one path only)
    np.testing.assert_allclose(np.unique(np.round(fast.merge_lambdas, 9)),
                               np.unique(np.round(slow.merge_lambdas, 9)), rtol=1e-12)
    for lam in np.r_[0.0, 0.5, 0.7, slow.merge_lambdas[::97], 1e6]:
        np.testing.assert_allclose(fast.solution(lam), slow.solution(lam), atol=1e-9)


def test_bic_and_smoothing_recomputed_point_by_point():
    rng = np.random.default_rng(4)
    s = rng.random(300)
    y = (rng.random(300) < 0.5 + 0.4 * np.sin(6 * s)).astype(int)
    m = ENIR(max_models=None).fit(s, y)
    o = np.argsort(s)
    ss, yy = s[o], y[o]
    n = len(s)
    for lam, bic, df in zip(m.lambdas_, m.bic_, m.df_):
        beta = np.clip(np.round(m.path_.solution(lam) * 1e6) / 1e6, 0, 1)
        ll = sum(math.log(b) if t == 1 else math.log(1 - b) for b, t in zip(beta, yy))
        runs = 1 + sum(beta[i] != beta[i - 1] for i in range(1, n))
        assert df == runs
        assert bic == pytest.approx(-2 * ll + runs * (math.log(n) + math.log(2 * math.pi)))
    assert 0.0 not in m.lambdas_  # the λ = 0 model is excluded
    wts = np.exp((m.bic_.min() - m.bic_) / 2)
    np.testing.assert_allclose(m.weights_, wts / wts.sum())
    # averaged, smoothed values at the training scores
    ref = np.zeros(n)
    for lam, wk in zip(m.lambdas_, m.weights_):
        beta = np.clip(np.round(m.path_.solution(lam) * 1e6) / 1e6, 0, 1)
        sm = np.empty(n)
        i = 0
        while i < n:
            j = i
            while j + 1 < n and beta[j + 1] == beta[i]:
                j += 1
            o_f, e_f = yy[i: j + 1].mean(), ss[i: j + 1].mean()
            c = abs(o_f - e_f)
            cnt = j - i + 1
            sm[i: j + 1] = (beta[i] * cnt + e_f * (1 - c)) / (cnt + 1 - c)
            i = j + 1
        ref += wk * sm
    np.testing.assert_allclose(m.predict(ss), ref, atol=1e-12)


def test_prediction_interpolates_and_is_flat_outside():
    rng = np.random.default_rng(2)
    s = rng.uniform(0.2, 0.8, 200)
    y = (rng.random(200) < s).astype(int)
    m = ENIR().fit(s, y)
    x = np.sort(np.unique(s))
    v = m.predict(x)
    mid = (x[:-1] + x[1:]) / 2
    np.testing.assert_allclose(m.predict(mid), (v[:-1] + v[1:]) / 2, atol=1e-12)
    np.testing.assert_allclose(m.predict([0.0, 0.1]), v[0])
    np.testing.assert_allclose(m.predict([0.9, 1.0]), v[-1])


def test_max_models_thins_breakpoints_like_original():
    rng = np.random.default_rng(8)
    s = rng.random(2000)
    y = (rng.random(2000) < s).astype(int)
    full = ENIR(max_models=None).fit(s, y)
    thin = ENIR(max_models=10).fit(s, y)
    lams = np.r_[0.0, full.path_.merge_lambdas]
    pick = lams[np.round(np.linspace(0, len(lams) - 1, 10)).astype(int)]
    assert set(thin.lambdas_) <= set(pick[1:])
    sel = ENIR(method="select").fit(s, y)
    assert len(sel.lambdas_) == 1 and sel.weights_[0] == 1


def test_ties_and_weights():
    rng = np.random.default_rng(6)
    s = np.round(rng.random(300), 2)
    y = (rng.random(300) < s).astype(int)
    m = ENIR().fit(s, y)
    p = m.predict(s)
    for v in np.unique(s):
        assert np.ptp(p[s == v]) == 0
    # integer weights are repeated observations
    w = rng.integers(1, 4, 300)
    np.testing.assert_allclose(ENIR().fit(s, y, sample_weight=w).predict(s),
                               ENIR().fit(np.repeat(s, w), np.repeat(y, w)).predict(s),
                               atol=1e-10)


def test_sklearn_api_and_registry():
    rng = np.random.default_rng(0)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    est = get("enir", max_models=50)
    assert isinstance(est, ENIR) and est.max_models == 50
    with pytest.raises(NotFittedError):
        est.predict(s)
    assert clone(est).get_params() == est.get_params()
    assert est.fit(s, y) is est
    pp = est.predict_proba(s[:20])
    assert pp.shape == (20, 2) and np.all((pp >= 0) & (pp <= 1))
    np.testing.assert_allclose(ENIR().fit(s, y, sample_weight=np.ones(300)).predict(s),
                               ENIR().fit(s, y).predict(s))
    assert ENIR().fit([0.4], [1]).predict([0.1, 0.9]).shape == (2,)


@pytest.mark.parametrize(
    "params, data, msg",
    [
        ({"method": "bic"}, None, "method"),
        ({"max_models": 1}, None, "max_models"),
        ({"max_models": 2.5}, None, "max_models"),
        ({}, ([0.2, 1.5], [0, 1]), "outside"),
        ({}, ([0.2, 0.5], [0, 2]), "labels"),
        ({}, ([0.2, 0.5], [1, 1, 0]), "labels"),
        ({}, ([], []), "empty"),
    ],
)
def test_validation_errors(params, data, msg):
    s, y = data if data else ([0.1, 0.4, 0.8], [0, 1, 1])
    with pytest.raises(ValueError, match=msg):
        ENIR(**params).fit(s, y)
    with pytest.raises(ValueError, match="sample_weight"):
        ENIR().fit([0.1, 0.4], [0, 1], sample_weight=[1.0, -1.0])
