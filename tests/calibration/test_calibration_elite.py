"""ELiTE (thesis §3.4): the trend filter against a generic convex solver, λ_max and the
affine end of the path, the λ grid and AICc weights, prediction, API, validation and
held-out improvement."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.optimize import minimize
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from causalcal.calibration import ELiTE, get
from causalcal.calibration.elite import TrendFilterOperator, trend_filter


def _d_matrix(x):
    """D = D_{N−1}·diag(1/Δx)·D_N written densely from the thesis definition."""
    n = len(x)
    dn = np.diff(np.eye(n), axis=0)
    dn1 = np.diff(np.eye(n - 1), axis=0)
    return dn1 @ np.diag(1 / np.diff(x)) @ dn


def _trend_filter_slsqp(x, z, w, lam):
    """½ Σ w (z − p)² + λ‖Dp‖₁ as a QP in (p, v) with −v ≤ Dp ≤ v."""
    n = len(x)
    d = _d_matrix(x)
    m = n - 2

    def f(q):
        return 0.5 * np.sum(w * (z - q[:n]) ** 2) + lam * q[n:].sum()

    def g(q):
        return np.r_[-w * (z - q[:n]), np.full(m, lam)]

    cons = [{"type": "ineq", "fun": lambda q: q[n:] - d @ q[:n],
             "jac": lambda q: np.hstack([-d, np.eye(m)])},
            {"type": "ineq", "fun": lambda q: q[n:] + d @ q[:n],
             "jac": lambda q: np.hstack([d, np.eye(m)])}]
    r = minimize(f, np.r_[z, np.abs(d @ z) + 1], jac=g, constraints=cons, method="SLSQP",
                 options={"ftol": 1e-15, "maxiter": 3000})
    return r.x[:n]


def test_operator_matches_dense_definition():
    rng = np.random.default_rng(0)
    x = np.sort(rng.random(9))
    w = rng.random(9) + 0.5
    op = TrendFilterOperator(x, w)
    d = _d_matrix(x)
    v = rng.normal(size=9)
    nu = rng.normal(size=7)
    np.testing.assert_allclose(op.apply(v), d @ v, rtol=1e-12)
    np.testing.assert_allclose(op.apply_t(nu), d.T @ nu, rtol=1e-12)
    h = d @ np.diag(1 / w) @ d.T
    band = op.band
    np.testing.assert_allclose(band[2], np.diag(h), rtol=1e-12)
    np.testing.assert_allclose(band[1, 1:], np.diag(h, 1), rtol=1e-12)
    np.testing.assert_allclose(band[0, 2:], np.diag(h, 2), rtol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_trend_filter_equals_convex_solver(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(4, 16))
    x = np.sort(rng.random(n))
    z = rng.integers(0, 2, n).astype(float) if seed % 2 else rng.random(n)
    w = rng.integers(1, 4, n).astype(float)
    lmax, _ = TrendFilterOperator(x, w).lambda_max(z)
    for frac in (1.0, 0.6, 0.2, 0.03, 1e-3):
        p, nu, knots = trend_filter(x, z, w, lmax * frac)
        np.testing.assert_allclose(p, _trend_filter_slsqp(x, z, w, lmax * frac), atol=2e-6)
        assert np.all(np.abs(nu) <= lmax * frac * (1 + 1e-7))


def test_lambda_max_gives_the_weighted_affine_fit():
    rng = np.random.default_rng(3)
    x = np.sort(rng.random(40))
    z = (rng.random(40) < x).astype(float)
    w = rng.integers(1, 3, 40).astype(float)
    op = TrendFilterOperator(x, w)
    lmax, nu = op.lambda_max(z)
    # thesis: λ_max = ‖(D W⁻¹ Dᵀ)⁻¹ D z‖∞ (dense solve is fine at this size)
    d = _d_matrix(x)
    ref = np.linalg.solve(d @ np.diag(1 / w) @ d.T, d @ z)
    assert lmax == pytest.approx(np.abs(ref).max(), rel=1e-8)
    line = np.polyval(np.polyfit(x, z, 1, w=np.sqrt(w)), x)
    np.testing.assert_allclose(trend_filter(x, z, w, lmax)[0], line, atol=1e-10)
    # just below λ_max the fit has a kink
    p, _, knots = trend_filter(x, z, w, 0.9 * lmax)
    assert len(knots) >= 1 and np.abs(d @ p).max() > 1e-6


def test_fit_grid_scores_and_weights():
    rng = np.random.default_rng(1)
    s = rng.random(400)
    y = (rng.random(400) < 0.5 + 0.4 * np.sin(6 * s)).astype(int)
    m = ELiTE().fit(s, y)
    assert len(m.lambdas_) == 50 and m.n_inexact_ == 0
    assert m.lambdas_[-1] / m.lambdas_[0] == pytest.approx(1e-4)
    np.testing.assert_allclose(np.diff(np.log(m.lambdas_)), np.log(1e-4) / 49)
    assert m.df_[0] == 2
    n = len(s)
    o = np.argsort(s)
    assert m.w_.sum() == n and np.all(m.z_ * m.w_ == np.add.reduceat(
        y[o], np.r_[0, np.cumsum(m.w_)[:-1]].astype(int)))
    for k in (0, 10, 30, 49):
        p, _, knots = trend_filter(m.x_, m.z_, m.w_, m.lambdas_[k])
        np.testing.assert_allclose(m.fits_[k], np.clip(p, 0, 1), atol=1e-8)
        assert m.df_[k] == len(knots) + 2
        pk = np.repeat(m.fits_[k], m.w_.astype(int))
        ll = sum(math.log(q) if t else math.log(1 - q) for q, t in zip(pk, y[o]))
        df = m.df_[k]
        assert m.aicc_[k] == pytest.approx(2 * df - 2 * ll + 2 * df * (df + 1) / (n - df - 1))
    wts = np.exp((m.aicc_.min() - m.aicc_) / 2)
    np.testing.assert_allclose(m.weights_, wts / wts.sum())
    np.testing.assert_allclose(m.values_, m.weights_ @ m.fits_)
    sel = ELiTE(method="select").fit(s, y)
    np.testing.assert_allclose(sel.values_, sel.fits_[np.argmin(sel.aicc_)])


def test_prediction_interpolates_and_extends_linearly():
    rng = np.random.default_rng(2)
    s = rng.uniform(0.3, 0.7, 300)
    y = (rng.random(300) < s).astype(int)
    m = ELiTE().fit(s, y)
    x, v = m.x_, m.values_
    mid = (x[:-1] + x[1:]) / 2
    np.testing.assert_allclose(m.predict(mid), np.clip((v[:-1] + v[1:]) / 2, 0, 1), atol=1e-12)
    slope = (v[1] - v[0]) / (x[1] - x[0])
    assert m.predict([0.29])[0] == pytest.approx(np.clip(v[0] + (0.29 - x[0]) * slope, 0, 1))
    p = m.predict(np.linspace(0, 1, 101))
    assert np.all((p >= 0) & (p <= 1))


def test_thinning_pools_close_scores_and_ties():
    rng = np.random.default_rng(4)
    s = np.round(rng.random(2000), 3)
    y = (rng.random(2000) < s).astype(int)
    m = ELiTE().fit(s, y)
    assert len(m.x_) == len(np.unique(s))
    big = rng.random(30_000)
    yb = (rng.random(30_000) < big).astype(int)
    mb = ELiTE(max_points=1000).fit(big, yb)
    assert len(mb.x_) <= 1001 and np.diff(mb.x_).min() > 0
    np.testing.assert_allclose(ELiTE().fit(s, y, sample_weight=np.ones(2000)).predict(s),
                               m.predict(s))


def test_sklearn_api_and_registry():
    rng = np.random.default_rng(0)
    s = rng.random(300)
    y = (rng.random(300) < s).astype(int)
    est = get("elite", n_lambdas=20)
    assert isinstance(est, ELiTE) and est.n_lambdas == 20
    with pytest.raises(NotFittedError):
        est.predict(s)
    assert clone(est).get_params() == est.get_params()
    assert est.fit(s, y) is est and len(est.lambdas_) == 20
    pp = est.predict_proba(s[:20])
    assert pp.shape == (20, 2) and np.all((pp >= 0) & (pp <= 1))
    for tiny in ([0.4], [0.2, 0.7]):
        assert ELiTE().fit(tiny, [1] * len(tiny)).predict([0.1, 0.9]).shape == (2,)


@pytest.mark.parametrize(
    "params, data, msg",
    [
        ({"method": "aicc"}, None, "method"),
        ({"n_lambdas": 0}, None, "n_lambdas"),
        ({"lambda_min_ratio": 1.0}, None, "lambda_min_ratio"),
        ({"thin_width": 0.0}, None, "thin_width"),
        ({"max_points": 2}, None, "max_points"),
        ({"tol": -1.0}, None, "tol"),
        ({}, ([0.2, 1.5], [0, 1]), "outside"),
        ({}, ([0.2, 0.5], [0, 2]), "labels"),
        ({}, ([0.2, np.inf], [0, 1]), "not finite"),
    ],
)
def test_validation_errors(params, data, msg):
    s, y = data if data else ([0.1, 0.4, 0.8], [0, 1, 1])
    with pytest.raises(ValueError, match=msg):
        ELiTE(**params).fit(s, y)
    with pytest.raises(ValueError, match="strictly increasing"):
        TrendFilterOperator(np.array([0.1, 0.1, 0.3]), np.ones(3))
