"""``CalibratedClassifier``: calibrate any scikit-learn binary classifier (docs/design.md §7).

Like scikit-learn's ``CalibratedClassifierCV`` but with any calibrator of the
``causalcal.calibration`` registry: with an integer ``cv`` or a splitter, each fold
fits a clone of the estimator on its training part and a clone of the calibrator on the
estimator's scores of its held-out part; predictions average the fold pairs
(``ensemble=True``) or, with ``ensemble=False``, one calibrator is fitted to the
out-of-fold scores of all samples and paired with the estimator refitted on all data.
``cv='prefit'`` calibrates an already fitted estimator on the data given to ``fit``.
"""

from __future__ import annotations

import inspect

import numpy as np
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import check_cv
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from causalcal._validation import (
    BOOLEAN,
    HasMethods,
    InstanceOf,
    Integral,
    Interval,
    Options,
    Satisfies,
    validate_params,
)
from causalcal.calibration._base import BinaryCalibrator, check_sample_weight
from causalcal.calibration.registry import get
from causalcal.errors import InputError

__all__ = ["CalibratedClassifier"]

_METHODS = ("auto", "predict_proba", "decision_function")


def _accepts_weight(est) -> bool:
    try:
        return "sample_weight" in inspect.signature(est.fit).parameters
    except (TypeError, ValueError):
        return False


class CalibratedClassifier(ClassifierMixin, BaseEstimator):
    """A binary classifier whose scores are mapped to probabilities by a calibrator.

    Parameters
    ----------
    estimator : scikit-learn classifier or None, default None
        Binary classifier with ``predict_proba`` or ``decision_function``; ``None`` is
        ``LogisticRegression()``, as in scikit-learn's ``CalibratedClassifierCV``.
    calibrator : str or BinaryCalibrator, default 'isotonic'
        A registry name (``causalcal.calibration.available()``) or a calibrator instance
        (cloned before fitting).
    cv : int, cross-validation splitter, iterable or 'prefit', default 5
        Folds for cross-fitting (stratified for integers), or 'prefit'.
    method : {'auto', 'predict_proba', 'decision_function'}, default 'auto'
        Which output of the estimator is the score; 'auto' prefers ``predict_proba``.
        Decision values are passed to calibrators that accept real scores (Platt) as
        they are and through the logistic function to the others.
    ensemble : bool, default True
        Average the per-fold (estimator, calibrator) pairs; see the module docstring.

    Attributes
    ----------
    classes_ : ndarray (2,)
    calibrated_pairs_ : list of (fitted estimator, fitted calibrator)
    method_ : str
        The score method used.
    """

    _parameter_constraints = {
        "estimator": [None, HasMethods("fit", "predict")],
        "calibrator": [InstanceOf(str, "a registry name"), HasMethods("fit", "predict")],
        "cv": [Options("prefit"), Interval(Integral, 2, None), HasMethods("split"),
               Satisfies(lambda v: not isinstance(v, str) and iter(v) is not None,
                         "an iterable of (train, test) splits")],
        "method": [Options(*_METHODS)],
        "ensemble": [BOOLEAN],
    }

    def __init__(
        self,
        estimator=None,
        calibrator="isotonic",
        cv=5,
        method: str = "auto",
        ensemble: bool = True,
    ):
        self.estimator = estimator
        self.calibrator = calibrator
        self.cv = cv
        self.method = method
        self.ensemble = ensemble

    def __sklearn_tags__(self):
        """A binary classifier; sparse input if the estimator takes it."""
        from sklearn.utils import get_tags

        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_class = False
        inner = LogisticRegression() if self.estimator is None else self.estimator
        tags.input_tags.sparse = get_tags(inner).input_tags.sparse
        tags.input_tags.allow_nan = get_tags(inner).input_tags.allow_nan
        return tags

    # -- helpers -----------------------------------------------------------------
    def _make_calibrator(self) -> BinaryCalibrator:
        cal = self.calibrator
        if isinstance(cal, str):
            cal = get(cal)
        elif isinstance(cal, BaseEstimator) and hasattr(cal, "fit") and hasattr(cal, "predict"):
            cal = clone(cal)
        else:
            raise InputError(
                f"calibrator must be a registry name or a binary calibrator, got {cal!r}"
            )
        if not isinstance(cal, BinaryCalibrator):
            raise InputError(f"calibrator {type(cal).__name__} is not a binary calibrator")
        return cal

    def _scores(self, est, X, cal) -> np.ndarray:
        if self.method_ == "predict_proba":
            p = np.asarray(est.predict_proba(X))
            if p.ndim != 2 or p.shape[1] != 2:
                raise InputError(f"estimator.predict_proba returned shape {p.shape}, not (n, 2)")
            # column of the positive class (classes_[1]) in the estimator's own order
            col = int(np.flatnonzero(np.asarray(est.classes_) == self.classes_[1])[0])
            return np.clip(p[:, col], 0.0, 1.0)
        d = np.asarray(est.decision_function(X), dtype=np.float64)
        if d.ndim != 1:
            raise InputError(f"estimator.decision_function returned shape {d.shape}, not (n,)")
        if np.asarray(est.classes_)[1] != self.classes_[1]:
            d = -d
        if getattr(cal, "accepts_real_scores", False):
            return d
        return expit(d)

    def _fit_est(self, est, X, y, w):
        if w is not None and _accepts_weight(est):
            return est.fit(X, y, sample_weight=w)
        return est.fit(X, y)

    # -- API -----------------------------------------------------------------------
    def fit(self, X, y, sample_weight=None) -> CalibratedClassifier:
        """Fit the estimator(s) and calibrator(s)."""
        validate_params(self)
        self._make_calibrator()  # validate early
        if y is None:
            raise InputError("CalibratedClassifier requires y to be passed, but the target "
                             "y is None")
        X, y = validate_data(self, X, y, accept_sparse=["csr", "csc"], dtype=None,
                             ensure_all_finite=False, y_numeric=False)
        check_classification_targets(y)
        n = len(y)
        classes = np.unique(y)
        if len(classes) != 2:
            raise InputError(f"Only binary classification is supported: CalibratedClassifier "
                             f"needs exactly 2 classes in y, found {len(classes)} class(es)")
        self.classes_ = classes
        z = (y == classes[1]).astype(np.int64)
        w = None if sample_weight is None else check_sample_weight(sample_weight, n)
        self.estimator_ = LogisticRegression() if self.estimator is None else self.estimator
        has_pp = hasattr(self.estimator_, "predict_proba")
        has_df = hasattr(self.estimator_, "decision_function")
        if self.method == "auto":
            if not (has_pp or has_df):
                raise InputError("estimator has neither predict_proba nor decision_function")
            self.method_ = "predict_proba" if has_pp else "decision_function"
        else:
            if not hasattr(self.estimator_, self.method):
                raise InputError(f"estimator has no {self.method}")
            self.method_ = self.method

        pairs = []
        if isinstance(self.cv, str):
            if self.cv != "prefit":
                raise InputError(f"cv must be an int, a splitter or 'prefit', got {self.cv!r}")
            check_is_fitted(self.estimator_)
            if len(np.setdiff1d(classes, np.asarray(self.estimator_.classes_))):
                raise InputError("y has classes the prefit estimator was not trained on")
            cal = self._make_calibrator()
            cal.fit(self._scores(self.estimator_, X, cal), z, sample_weight=w)
            pairs.append((self.estimator_, cal))
        else:
            splitter = check_cv(self.cv, y, classifier=True)
            splits = list(splitter.split(X, y))
            if not splits:
                raise InputError("cv produced no splits")
            oof = None
            for tr, te in splits:
                if len(np.unique(y[tr])) != 2:
                    raise InputError("a cross-validation training fold lacks one of the classes")
                est = self._fit_est(
                    clone(self.estimator_), _take(X, tr), y[tr], None if w is None else w[tr]
                )
                cal = self._make_calibrator()
                sc = self._scores(est, _take(X, te), cal)
                if self.ensemble:
                    cal.fit(sc, z[te], sample_weight=None if w is None else w[te])
                    pairs.append((est, cal))
                else:
                    if oof is None:
                        oof = np.full(n, np.nan)
                    oof[te] = sc
            if not self.ensemble:
                if np.isnan(oof).any():
                    raise InputError("cv must put every sample in exactly one test fold")
                est = self._fit_est(clone(self.estimator_), X, y, w)
                cal = self._make_calibrator().fit(oof, z, sample_weight=w)
                pairs.append((est, cal))
        self.calibrated_pairs_ = pairs
        return self

    def predict_proba(self, X) -> np.ndarray:
        """Calibrated class probabilities, shape (n, 2), columns in ``classes_`` order."""
        check_is_fitted(self, "calibrated_pairs_")
        X = validate_data(self, X, reset=False, accept_sparse=["csr", "csc"], dtype=None,
                          ensure_all_finite=False)
        p = np.mean([cal.predict(self._scores(est, X, cal)) for est, cal in self.calibrated_pairs_],
                    axis=0)
        return np.column_stack([1.0 - p, p])

    def predict(self, X) -> np.ndarray:
        """The class with calibrated probability above 0.5 (ties to ``classes_[0]``)."""
        check_is_fitted(self, "calibrated_pairs_")
        return self.classes_[(self.predict_proba(X)[:, 1] > 0.5).astype(np.int64)]


def _take(X, idx):
    if hasattr(X, "iloc"):
        return X.iloc[idx]
    return X[idx]
