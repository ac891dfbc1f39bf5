"""Multi-class calibrators: SNN, one-vs-rest, softmax, temperature, Dirichlet (issue 4)."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from sklearn.base import clone
from sklearn.isotonic import IsotonicRegression
from sklearn.linear_model import LogisticRegression

from causalcal.calibration import (
    AnchoredSNNCalibrator,
    DirichletCalibration,
    OneVsRestCalibrator,
    SNNCalibrator,
    SoftmaxCalibrator,
    TemperatureScaling,
    available,
    get,
)
from causalcal.calibration.isotonic import IsotonicCalibration
from causalcal.calibration.platt import PlattScaling


def make_data(n, rng):
    """Non-linearly miscalibrated 4-class probabilities: P_c ∝ q_c^γ_c, γ = (4, 1, 2, ½), y ~ q."""
    z = rng.normal(0.0, 1.0, size=(n, 4)) + np.array([1.0, 0.0, 0.0, -0.5])
    q = softmax(z, axis=1)
    y = np.minimum((rng.random(n)[:, None] > np.cumsum(q, axis=1)).sum(axis=1), 3)
    P = q ** np.array([4.0, 1.0, 2.0, 0.5])
    return P / P.sum(axis=1, keepdims=True), y, q


def ce(P, y):
    return float(-np.mean(np.log(np.clip(P[np.arange(len(y)), y], 1e-12, 1))))


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    P, y, _ = make_data(120, rng)
    Pt, yt, qt = make_data(4000, rng)
    return P, y, Pt, yt, qt


@pytest.fixture(scope="module")
def snn_fit(data):
    P, y, *_ = data
    return SNNCalibrator(random_state=3).fit(P, y)


# ------------------------------------------------------------------------------ SNN
def test_snn_reproducible_and_seed_dependent(data, snn_fit):
    P, y, Pt, *_ = data
    again = SNNCalibrator(random_state=3).fit(P, y)
    np.testing.assert_array_equal(again.predict_proba(Pt), snn_fit.predict_proba(Pt))
    np.testing.assert_array_equal(again.hidden_sizes_, snn_fit.hidden_sizes_)
    other = SNNCalibrator(random_state=4).fit(P, y)
    assert np.abs(other.predict_proba(Pt) - snn_fit.predict_proba(Pt)).max() > 1e-3


def test_snn_structure_follows_thesis(snn_fit):
    m = snn_fit
    assert m.coef1_.shape[0] == 10 and set(m.hidden_sizes_) <= {4, 5, 6, 7}
    for j, h in enumerate(m.hidden_sizes_):  # units beyond a net's width are unused
        assert np.all(m.coef2_[j, h:] == 0)


def test_snn_rows_sum_to_one_and_chunking(snn_fit):
    rng = np.random.default_rng(0)
    X = rng.dirichlet(np.ones(4), size=300_000)  # more rows than one predict chunk
    Q = snn_fit.predict_proba(X)
    assert Q.dtype == np.float32 and Q.shape == X.shape
    np.testing.assert_allclose(Q.sum(axis=1), 1, atol=1e-5)
    assert (Q >= 0).all()
    np.testing.assert_allclose(snn_fit.predict_proba(X[-5:]), Q[-5:], atol=1e-6)
    np.testing.assert_array_equal(snn_fit.predict(X[:50]), Q[:50].argmax(axis=1))


def test_snn_predict_matches_numpy_forward_pass(snn_fit, data):
    """The batched float32 torch prediction is the average of the 10 nets' softmaxes."""
    Pt = data[2][:200]
    m = snn_fit
    out = np.zeros((len(Pt), 4))
    for j in range(10):
        h = np.tanh(Pt @ m.coef1_[j] + m.intercept1_[j])
        out += softmax(h @ m.coef2_[j] + m.intercept2_[j], axis=1) / 10
    np.testing.assert_allclose(m.predict_proba(Pt), out, atol=2e-5)


def test_snn_learns_nonlinear_miscalibration(data, snn_fit):
    _, _, Pt, yt, qt = data
    base = ce(Pt, yt)
    got = ce(snn_fit.predict_proba(Pt).astype(float), yt)
    best = ce(qt, yt)  # the true posterior
    assert got < base - 0.5 * (base - best), (base, got, best)


@pytest.mark.parametrize("name", ["snn_thesis", "snn", "softmax", "dirichlet"])
def test_offsets_recover_population_posterior(name):
    """Equal counts per class drawn from a population with priors π: fitting with the
    offsets log(π_s / π) (King & Zeng's prior correction) gives p(c | x)."""
    rng = np.random.default_rng(11)
    pi = np.array([0.7, 0.1, 0.1, 0.1])
    mus = np.array([[0.0, 0.0], [2.5, 0.0], [0.0, 2.5], [2.5, 2.5]])

    def posterior(x, prior):
        ll = -0.5 * ((x[:, None, :] - mus[None]) ** 2).sum(axis=2)
        return softmax(ll + np.log(prior), axis=1)

    # the classifier reports the balanced-prior posterior (what it learned on balanced data)
    y = np.repeat(np.arange(4), 100)
    x = mus[y] + rng.normal(size=(len(y), 2))
    P = posterior(x, np.full(4, 0.25))
    yt = rng.choice(4, size=3000, p=pi)
    xt = mus[yt] + rng.normal(size=(len(yt), 2))
    Pt, truth = posterior(xt, np.full(4, 0.25)), posterior(xt, pi)
    params = {"n_models": 4, "n_epochs": 30} if name == "snn_thesis" else {}
    model = get(name, **params)
    if "random_state" in model.get_params():
        model.set_params(random_state=0)
    plain = clone(model).fit(P, y)
    offsets = np.broadcast_to(np.log(0.25 / pi), P.shape)
    corr = clone(model).fit(P, y, offsets=offsets)
    err_plain = np.abs(plain.predict_proba(Pt) - truth).mean()
    err_corr = np.abs(corr.predict_proba(Pt) - truth).mean()
    assert err_corr < 0.05 and err_corr < 0.5 * err_plain, (err_corr, err_plain)


def test_snn_extra_features_are_used():
    """A feature column that carries the label beyond P lowers the held-out loss."""
    rng = np.random.default_rng(5)

    def draw(n):
        y = rng.integers(0, 4, n)
        P = np.full((n, 4), 0.25)
        F = (y == 1) * 5.0 + rng.normal(size=n)  # identifies class 1
        return np.column_stack([P, F]), y

    X, y = draw(200)
    Xt, yt = draw(2000)
    with_f = SNNCalibrator(n_classes=4, n_models=3, n_epochs=40, random_state=0).fit(X, y)
    without = SNNCalibrator(n_models=3, n_epochs=40, random_state=0).fit(X[:, :4], y)
    assert with_f.n_features_in_ == 5
    assert ce(with_f.predict_proba(Xt), yt) < ce(without.predict_proba(Xt[:, :4]), yt) - 0.3
    with pytest.raises(ValueError, match=r"shape \(n, 5\)"):
        with_f.predict_proba(Xt[:, :4])


def test_snn_sample_weight_enters_the_loss(data):
    P, y, Pt, *_ = data
    w = np.where(y == 2, 0.0, 1.0)
    m = SNNCalibrator(n_models=3, random_state=0).fit(P, y, sample_weight=w)
    assert m.predict_proba(Pt)[:, 2].mean() < 0.05
    ref = SNNCalibrator(n_models=3, random_state=0).fit(P, y)
    assert ref.predict_proba(Pt)[:, 2].mean() > 0.15


def test_snn_log_inputs_and_activations(data):
    P, y, Pt, *_ = data
    for kw in ({"input_transform": "log"}, {"activation": "relu"}, {"activation": "sigmoid"}):
        Q = SNNCalibrator(n_models=2, n_epochs=5, random_state=0, **kw).fit(P, y).predict_proba(Pt)
        np.testing.assert_allclose(Q.sum(axis=1), 1, atol=1e-5)


@pytest.mark.parametrize(
    "params, X, y, match",
    [
        ({}, np.full((4, 3), 0.5), [0, 1, 0, 1], "sums to"),
        ({}, np.full((4, 2), 0.5), [0, 2, 0, 1], r"y\[1\] = 2"),
        ({"n_classes": 5}, np.full((4, 2), 0.5), [0, 1, 0, 1], "n_classes"),
        ({"n_classes": 2}, np.array([[0.5, 0.5, np.nan]] * 4), [0, 1, 0, 1], r"X\[0, 2\]"),
        ({"activation": "elu"}, np.full((4, 2), 0.5), [0, 1, 0, 1], "activation"),
        ({"n_epochs": 0}, np.full((4, 2), 0.5), [0, 1, 0, 1], "n_epochs"),
        ({"device": "tpu"}, np.full((4, 2), 0.5), [0, 1, 0, 1], "device"),
        ({}, np.full((4, 2), 0.5), [[0, 0], [1, 0], [1, 0], [0, 1]], r"y\[0\] allows no class"),
    ],
)
def test_snn_validation_errors(params, X, y, match):
    with pytest.raises(ValueError, match=match):
        SNNCalibrator(**{"n_models": 1, "n_epochs": 1, **params}).fit(X, y)


def test_snn_cuda_if_available(data):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    P, y, Pt, *_ = data
    g = SNNCalibrator(n_models=2, n_epochs=5, random_state=0, device="cuda").fit(P, y)
    c = SNNCalibrator(n_models=2, n_epochs=5, random_state=0).fit(P, y)
    np.testing.assert_allclose(g.predict_proba(Pt), c.predict_proba(Pt), atol=1e-3)


@pytest.mark.slow
def test_import_does_not_load_torch():
    code = "import sys, causalcal.calibration; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


# ------------------------------------------------------------------------------ one-vs-rest
def test_ovr_isotonic_matches_per_column_isotonic(data):
    P, y, Pt, *_ = data
    for binary in (IsotonicCalibration(), IsotonicRegression(out_of_bounds="clip")):
        ovr = OneVsRestCalibrator(binary).fit(P, y)
        ref = np.column_stack(
            [
                IsotonicRegression(out_of_bounds="clip").fit(P[:, c], y == c).predict(Pt[:, c])
                for c in range(4)
            ]
        )
        s = ref.sum(axis=1, keepdims=True)
        ok = s[:, 0] > 0
        np.testing.assert_allclose(ovr.predict_proba(Pt)[ok], (ref / s)[ok], atol=1e-12)
        np.testing.assert_allclose(ovr.predict_proba(Pt).sum(axis=1), 1)


def test_ovr_weights_zero_rows_and_constant_class():
    P = np.array([[0.9, 0.1, 0.0], [0.2, 0.8, 0.0], [0.6, 0.4, 0.0], [0.1, 0.9, 0.0]])
    y = np.array([0, 1, 0, 1])  # class 2 never occurs
    w = np.array([1.0, 2.0, 3.0, 1.0])
    ovr = OneVsRestCalibrator(IsotonicRegression(out_of_bounds="clip")).fit(P, y, w)
    assert ovr.calibrators_[2] is None and ovr.constants_[2] == 0
    ref = IsotonicRegression(out_of_bounds="clip").fit(P[:, 0], y == 0, sample_weight=w)
    assert ovr.calibrators_[0].predict([0.6])[0] == pytest.approx(ref.predict([0.6])[0])
    # a row whose calibrated columns are all zero keeps its input probabilities
    iso0 = OneVsRestCalibrator(IsotonicRegression(out_of_bounds="clip")).fit(
        np.array([[0.5, 0.5], [0.5, 0.5], [0.9, 0.1], [0.1, 0.9]]), [0, 1, 1, 0]
    )
    out = iso0.predict_proba(np.array([[0.3, 0.7]]))
    np.testing.assert_allclose(out.sum(axis=1), 1)


def test_ovr_registry_and_platt(data):
    P, y, Pt, *_ = data
    ovr = get("ovr-platt")
    assert isinstance(ovr, OneVsRestCalibrator)
    assert isinstance(ovr.binary_calibrator, PlattScaling)
    assert isinstance(get("OVR_isotonic").binary_calibrator, IsotonicCalibration)
    Q = ovr.fit(P, y).predict_proba(Pt)
    np.testing.assert_allclose(Q.sum(axis=1), 1)
    with pytest.raises(ValueError, match="unknown calibrator"):
        get("ovr-nonsense")


def test_registry_names():
    names = set(available())
    assert {"snn", "softmax", "temperature", "dirichlet", "multi_classifier_isotonic"} <= names
    assert isinstance(get("snn", n_models=3), AnchoredSNNCalibrator)
    assert isinstance(get("snn-thesis", n_models=3), SNNCalibrator)
    # issue 41 item 8: one canonical name listed, as the README and --calibrator spell it
    assert "snn-thesis" in names and "snn_thesis" not in names
    assert isinstance(get("SNN_thesis"), SNNCalibrator)
    assert isinstance(get("ovr-multi-classifier-isotonic"), OneVsRestCalibrator)
    with pytest.raises(ValueError, match="one-vs-rest needs a binary calibrator, 'snn-thesis'"):
        get("ovr_snn_thesis")
    assert get("snn", n_models=3).n_models == 3


# ------------------------------------------------------------------------------ softmax
@pytest.mark.parametrize("C", [0.1, 1.0, 100.0])
@pytest.mark.parametrize("features", ["prob", "log"])
def test_softmax_matches_sklearn_logistic_regression(data, C, features):
    P, y, Pt, *_ = data
    w = np.random.default_rng(1).uniform(0.5, 2.0, len(y))
    m = SoftmaxCalibrator(C=C, features=features).fit(P, y, sample_weight=w)
    f = (lambda A: np.log(np.maximum(A, 1e-6))) if features == "log" else (lambda A: A)
    lr = LogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(f(P), y, sample_weight=w)
    np.testing.assert_allclose(m.predict_proba(Pt), lr.predict_proba(f(Pt)), atol=1e-5)


def test_softmax_validation():
    with pytest.raises(ValueError, match="features"):
        SoftmaxCalibrator(features="logit").fit(np.full((2, 2), 0.5), [0, 1])
    with pytest.raises(ValueError, match="C must be"):
        SoftmaxCalibrator(C=0).fit(np.full((2, 2), 0.5), [0, 1])
    m = SoftmaxCalibrator().fit(np.full((2, 2), 0.5), [0, 1])
    with pytest.raises(ValueError, match="expected 2"):
        m.predict_proba(np.full((2, 3), 1 / 3))


# ------------------------------------------------------------------------------ temperature
def test_temperature_recovers_known_temperature():
    rng = np.random.default_rng(2)
    z = rng.normal(0, 3, size=(20_000, 5))
    y = np.array([rng.choice(5, p=p) for p in softmax(z, axis=1)])
    P = softmax(z / 0.4, axis=1)  # over-confident by a factor 1/0.4
    t = TemperatureScaling(eps=1e-300).fit(P, y)
    assert t.temperature_ == pytest.approx(2.5, rel=0.05)
    expect = softmax(z[:100] / (0.4 * t.temperature_), axis=1)  # log P = z / 0.4 + const
    np.testing.assert_allclose(t.predict_proba(P[:100]), expect, atol=1e-8)


def test_temperature_is_the_cross_entropy_minimiser(data):
    P, y, *_ = data
    t = TemperatureScaling().fit(P, y)
    Z = np.log(np.maximum(P, 1e-6))
    grid = np.exp(np.linspace(-3, 3, 6001))
    losses = [-log_softmax(Z / T, axis=1)[np.arange(len(y)), y].mean() for T in grid]
    assert t.temperature_ == pytest.approx(grid[np.argmin(losses)], rel=2e-3)


# ------------------------------------------------------------------------------ Dirichlet
def test_dirichlet_l2_matches_sklearn(data):
    P, y, Pt, *_ = data
    lam = 0.05
    d = DirichletCalibration(reg_lambda=lam).fit(P, y)
    C = 4**2 / (2 * lam * len(y))
    L = np.log(np.maximum(P, 1e-6))
    lr = LogisticRegression(C=C, tol=1e-10, max_iter=10_000).fit(L, y)
    np.testing.assert_allclose(
        d.predict_proba(Pt), lr.predict_proba(np.log(np.maximum(Pt, 1e-6))), atol=1e-5
    )


def test_dirichlet_odir_matches_generic_optimiser(data):
    P, y, Pt, *_ = data
    lam, mu = 0.3, 0.1
    d = DirichletCalibration(regularization="odir", reg_lambda=lam, reg_mu=mu).fit(P, y)
    L = np.log(np.maximum(P, 1e-6))
    off = ~np.eye(4, dtype=bool)

    def obj(theta):
        W, b = theta[:16].reshape(4, 4), theta[16:]
        ll = log_softmax(L @ W + b, axis=1)[np.arange(len(y)), y]
        return -ll.mean() + lam / 12 * np.sum(W[off] ** 2) + mu / 4 * np.sum(b**2)

    res = minimize(obj, np.zeros(20), method="BFGS", options={"gtol": 1e-8})
    assert obj(np.r_[d.coef_.ravel(), d.intercept_]) <= res.fun + 1e-8
    W, b = res.x[:16].reshape(4, 4), res.x[16:]
    Lt = np.log(np.maximum(Pt, 1e-6))
    np.testing.assert_allclose(d.predict_proba(Pt), softmax(Lt @ W + b, axis=1), atol=1e-4)


def test_dirichlet_beats_uncalibrated_and_validates(data):
    P, y, Pt, yt, _ = data
    assert ce(DirichletCalibration().fit(P, y).predict_proba(Pt), yt) < ce(Pt, yt)
    with pytest.raises(ValueError, match="regularization"):
        DirichletCalibration(regularization="l1").fit(P, y)
    with pytest.raises(ValueError, match="reg_lambda"):
        DirichletCalibration(reg_lambda=-1).fit(P, y)


# ------------------------------------------------------------------------------ sklearn API
@pytest.mark.parametrize(
    "est",
    [
        SNNCalibrator(n_models=2, n_epochs=3, random_state=0),
        OneVsRestCalibrator(IsotonicCalibration()),
        SoftmaxCalibrator(),
        TemperatureScaling(),
        DirichletCalibration(),
    ],
    ids=lambda e: type(e).__name__,
)
def test_sklearn_conventions(est, data):
    P, y, Pt, *_ = data
    c = clone(est)
    assert repr(c) == repr(est) and c.get_params().keys() == est.get_params().keys()
    assert not [a for a in vars(c) if a.endswith("_")]  # nothing fitted in __init__
    assert c.fit(P, y) is c
    Q = c.predict_proba(Pt)
    assert Q.shape == Pt.shape and np.allclose(Q.sum(axis=1), 1, atol=1e-5)
    with pytest.raises(ValueError, match=r"y\[0\]"):
        clone(est).fit(P, np.r_[7, y[1:]])
    with pytest.raises(ValueError, match=r"P|X"):
        clone(est).fit(P[:, :3] * 1.1, y)
    with pytest.raises(ValueError, match="sample_weight"):
        clone(est).fit(P, y, sample_weight=-np.ones(len(y)))
