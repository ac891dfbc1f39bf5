"""Binary calibrators: scikit-learn API, validation errors, held-out improvement, and
``CalibratedClassifier`` against a hand-written cross-fitting reference."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.special import expit
from sklearn.base import clone
from sklearn.exceptions import NotFittedError
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold
from sklearn.naive_bayes import GaussianNB
from sklearn.svm import LinearSVC

from causalcal.calibration import (
    ABB,
    BBQ,
    ENIR,
    SBB,
    CalibratedClassifier,
    DPMCalibration,
    ELiTE,
    HistogramBinning,
    IsotonicCalibration,
    KDECalibration,
    PlattScaling,
)
from causalcal.metrics import expected_calibration_error, maximum_calibration_error, roc_auc

ALL = [HistogramBinning, PlattScaling, IsotonicCalibration, KDECalibration, DPMCalibration, SBB,
       ABB]
WEIGHTED = [HistogramBinning, PlattScaling, IsotonicCalibration, KDECalibration, SBB, ABB]


def _toy(n=200, seed=0):
    rng = np.random.default_rng(seed)
    s = rng.random(n)
    return s, (rng.random(n) < s).astype(int)


@pytest.mark.parametrize("cls", ALL)
def test_sklearn_api(cls):
    s, y = _toy()
    est = cls()
    with pytest.raises(NotFittedError):
        est.predict(s)
    params = est.get_params()
    c = clone(est)
    assert c.get_params() == params and c is not est
    assert est.fit(s, y) is est
    fitted = [k for k in vars(est) if k.endswith("_") and not k.startswith("_")]
    assert fitted
    assert not any(k.endswith("_") for k in vars(clone(est)))  # clone is unfitted
    p = est.predict(list(s[:50]))
    assert p.shape == (50,) and np.all((p >= 0) & (p <= 1))
    pp = est.predict_proba(s[:50])
    assert pp.shape == (50, 2)
    np.testing.assert_allclose(pp.sum(axis=1), 1.0)
    np.testing.assert_allclose(pp[:, 1], p)
    # column vector input accepted
    np.testing.assert_allclose(est.predict(s[:50, None]), p)
    # sample_weight of ones changes nothing
    if cls in WEIGHTED:
        np.testing.assert_allclose(cls().fit(s, y, sample_weight=np.ones(len(s))).predict(s),
                                   cls().fit(s, y).predict(s))


@pytest.mark.parametrize("cls", ALL)
def test_input_validation_errors(cls):
    s, y = _toy(20)
    est = cls()
    bad = [
        (np.r_[s[:-1], np.nan], y, "not finite"),
        (s.reshape(4, 5), y, "1-d"),
        (np.array([]), np.array([]), "empty"),
        (s, np.r_[y[:-1], 2], "labels must be 0 or 1"),
        (s, y[:-1], "labels"),
    ]
    if cls is not PlattScaling:
        bad.append((np.r_[s[:-1], 1.5], y, "outside"))
    for scores, labels, msg in bad:
        with pytest.raises(ValueError, match=msg):
            est.fit(scores, labels)
    if cls in WEIGHTED:
        with pytest.raises(ValueError, match="sample_weight"):
            est.fit(s, y, sample_weight=-np.ones(20))
        with pytest.raises(ValueError, match="sample_weight"):
            est.fit(s, y, sample_weight=np.ones(19))
    else:
        with pytest.raises(ValueError, match="sample_weight"):
            est.fit(s, y, sample_weight=np.ones(20))
    est.fit(s, y)
    with pytest.raises(ValueError, match="not finite"):
        est.predict([0.5, np.inf])
    if cls is PlattScaling:
        assert np.isfinite(est.predict([-30.0, 42.0])).all()  # real scores accepted
    else:
        with pytest.raises(ValueError, match="outside"):
            est.predict([0.5, -0.1])


@pytest.mark.parametrize(
    "est, msg",
    [
        (HistogramBinning(n_bins=0), "n_bins"),
        (HistogramBinning(n_bins=2.5), "n_bins"),
        (PlattScaling(max_iter=0), "max_iter"),
        (PlattScaling(tol=-1.0), "tol"),
        (KDECalibration(kernel="cosine"), "kernel"),
        (KDECalibration(bandwidth="scott"), "bandwidth"),
        (KDECalibration(bandwidth=0.0), "bandwidth"),
        (KDECalibration(per_class_bandwidth="yes"), "per_class_bandwidth"),
        (DPMCalibration(n_components=0), "n_components"),
        (DPMCalibration(max_iter=0), "max_iter"),
        (DPMCalibration(weight_concentration_prior=-1.0), "weight_concentration_prior"),
        (DPMCalibration(tol=0.0), "tol"),
        (DPMCalibration(random_state="x"), "random_state"),
        (SBB(poisson_lambda=0.0), "poisson_lambda"),
        (ABB(poisson_lambda=np.inf), "poisson_lambda"),
        (ABB(n_grid=0), "n_grid"),
    ],
)
def test_hyperparameter_errors(est, msg):
    s, y = _toy(20)
    with pytest.raises(ValueError, match=msg):
        est.fit(s, y)


def _miscalibrated(n, seed):
    # true P(y=1|x) = expit(2x); the classifier reports expit(x − 1.2): under-confident
    # and shifted, raw ECE ≈ 0.23, MCE ≈ 0.44
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n)
    y = (rng.random(n) < expit(2 * x)).astype(int)
    return expit(x - 1.2), y


@pytest.mark.parametrize("cls", [*ALL, BBQ, ENIR, ELiTE])
def test_lowers_ece_mce_keeps_auc_on_held_out_data(cls):
    s, y = _miscalibrated(10_000, 0)
    st, yt = _miscalibrated(20_000, 1)
    p = cls().fit(s, y).predict(st)
    assert expected_calibration_error(yt, p) < expected_calibration_error(yt, st) / 3
    assert maximum_calibration_error(yt, p) < maximum_calibration_error(yt, st) / 2
    assert roc_auc(yt, p) > roc_auc(yt, st) - 0.01


# ---------------------------------------------------------------------------- classifier


def _xy(n=600, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (rng.random(n) < expit(X[:, 0] - X[:, 1] ** 2 + 0.5)).astype(int)
    return X, y


def test_calibrated_classifier_ensemble_equals_manual_cross_fitting():
    X, y = _xy()
    cv = StratifiedKFold(4, shuffle=True, random_state=0)
    m = CalibratedClassifier(GaussianNB(), "isotonic", cv=cv).fit(X, y)
    ref = []
    for tr, te in cv.split(X, y):
        nb = GaussianNB().fit(X[tr], y[tr])
        cal = IsotonicCalibration().fit(nb.predict_proba(X[te])[:, 1], y[te])
        ref.append(cal.predict(nb.predict_proba(X)[:, 1]))
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], np.mean(ref, axis=0))
    assert len(m.calibrated_pairs_) == 4


def test_calibrated_classifier_single_and_prefit():
    X, y = _xy()
    cv = StratifiedKFold(3, shuffle=True, random_state=1)
    m = CalibratedClassifier(LogisticRegression(), PlattScaling(), cv=cv, ensemble=False).fit(X, y)
    oof = np.empty(len(y))
    for tr, te in cv.split(X, y):
        oof[te] = LogisticRegression().fit(X[tr], y[tr]).predict_proba(X[te])[:, 1]
    lr = LogisticRegression().fit(X, y)
    cal = PlattScaling().fit(oof, y)
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], cal.predict(lr.predict_proba(X)[:, 1]))
    # prefit
    m = CalibratedClassifier(lr, "histogram", cv="prefit").fit(X, y)
    ref = HistogramBinning().fit(lr.predict_proba(X)[:, 1], y).predict(lr.predict_proba(X)[:, 1])
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], ref)


def test_calibrated_classifier_decision_function_and_labels():
    X, y = _xy()
    labels = np.array(["neg", "pos"])[y]
    svm = LinearSVC().fit(X, labels)
    d = svm.decision_function(X)
    m = CalibratedClassifier(svm, "platt", cv="prefit").fit(X, labels)
    assert m.method_ == "decision_function"
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], PlattScaling().fit(d, y).predict(d))
    m = CalibratedClassifier(svm, "isotonic", cv="prefit").fit(X, labels)
    ref = IsotonicCalibration().fit(expit(d), y).predict(expit(d))  # squashed for [0,1] methods
    np.testing.assert_allclose(m.predict_proba(X)[:, 1], ref)
    assert set(m.predict(X)) <= {"neg", "pos"}
    np.testing.assert_array_equal(m.classes_, ["neg", "pos"])


def test_calibrated_classifier_api_and_errors():
    X, y = _xy(200)
    m = CalibratedClassifier(GaussianNB(), "kde", cv=3)
    assert clone(m).get_params()["calibrator"] == "kde"
    with pytest.raises(NotFittedError):
        m.predict_proba(X)
    m.fit(X, y, sample_weight=np.ones(len(y)))
    assert m.predict_proba(X).shape == (200, 2)
    # estimator=None is LogisticRegression, as in scikit-learn's CalibratedClassifierCV
    default = CalibratedClassifier(None, cv=3).fit(X, y)
    assert isinstance(default.estimator_, LogisticRegression)
    cases = [
        (CalibratedClassifier(GaussianNB(), "nope"), y, "unknown calibrator"),
        (CalibratedClassifier(GaussianNB(), LogisticRegression()), y, "binary calibrator"),
        (CalibratedClassifier(GaussianNB(), cv="loo"), y, "cv"),
        (CalibratedClassifier(GaussianNB(), method="predict"), y, "method"),
        (CalibratedClassifier(GaussianNB(), ensemble="yes"), y, "ensemble"),
        (CalibratedClassifier(GaussianNB()), np.arange(200) % 3, "Only binary classification"),
        (CalibratedClassifier(GaussianNB()), np.linspace(0, 1, 200), "Unknown label type"),
        (CalibratedClassifier(GaussianNB(), method="decision_function"), y, "decision_function"),
    ]
    for est, labels, msg in cases:
        with pytest.raises(ValueError, match=msg):
            est.fit(X, labels)
    with pytest.raises(NotFittedError):
        CalibratedClassifier(GaussianNB(), cv="prefit").fit(X, y)
