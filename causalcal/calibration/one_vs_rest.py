"""One-vs-rest multi-class calibration (Zadrozny & Elkan 2002; thesis §6.1.1 baselines).

Class c's probability column is treated as the score of the binary problem "class c vs the
rest" and calibrated with its own copy of a binary calibrator; the k calibrated columns are
then renormalised to sum to 1.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from causalcal._validation import HasMethods
from causalcal.calibration._base import (
    MulticlassCalibrator,
    check_probability_matrix,
    check_sample_weight,
)
from causalcal.calibration._multiclass import check_label_sets, check_offsets
from causalcal.calibration.selection import inclusion_weights
from causalcal.errors import InputError

__all__ = ["OneVsRestCalibrator"]


def _check_inputs(P, n_classes: int | None = None) -> np.ndarray:
    """(n, k) probability matrix, or (n, k, C): the k-class probabilities of C classifiers."""
    A = np.asarray(P, dtype=np.float64)
    if A.ndim == 3:
        for m in range(A.shape[2]):
            check_probability_matrix(A[:, :, m], n_classes=n_classes, name=f"P[:, :, {m}]")
        return A
    return check_probability_matrix(A, n_classes=n_classes)


class OneVsRestCalibrator(MulticlassCalibrator):
    """Any binary calibrator applied per class, rows renormalised (Zadrozny & Elkan 2002).

    Parameters
    ----------
    binary_calibrator : estimator
        An unfitted binary calibrator with ``fit(scores, y[, sample_weight])`` and
        ``predict(scores) -> P(y = 1)`` (any of the binary suite, e.g.
        ``causalcal.calibration.get("isotonic")``, or scikit-learn's
        ``IsotonicRegression(out_of_bounds="clip")``). It is cloned once per class.

    Notes
    -----
    ``P`` is (n, k), or (n, k, C) for C classifiers' k-class probabilities; then the binary
    calibrator of class c receives the (n, C) scores ``P[:, c, :]`` (for multi-score
    calibrators such as :class:`MultiClassifierIsotonic`).

    A class whose labels are constant on the calibration set (absent, or every sample) gets
    that constant instead of a fitted calibrator; a class that occurs only inside set
    labels with other classes keeps its input column. A row whose calibrated
    columns are all 0 cannot be renormalised; it keeps its input probabilities (the
    first classifier's, for 3-d input).

    Attributes
    ----------
    calibrators_ : list
        Fitted clone per class (``None`` for a constant or input-keeping class).
    constants_ : ndarray (k,)
        The constant of each constant class (NaN otherwise).
    n_classes_ : int
    """

    _parameter_constraints = {"binary_calibrator": [HasMethods("fit", "predict")]}

    def __init__(self, binary_calibrator) -> None:
        self.binary_calibrator = binary_calibrator

    def fit(self, P, y, sample_weight=None, offsets=None) -> OneVsRestCalibrator:
        """Fit one binary calibrator per class on ``(P[:, c], y == c)``.

        ``y``: class indices or an (n, k) 0/1 matrix of allowed classes; a row whose set
        holds class c and others says nothing about "c vs rest" and is left out of class
        c's fit. ``offsets`` (log inclusion rates, :mod:`causalcal.calibration.selection`)
        become inverse-inclusion sample weights, as the binary methods have no logits.
        """
        self._validate_params()
        A = _check_inputs(P)
        n, k = A.shape[:2]
        Y = check_label_sets(y, n, k)
        w = check_sample_weight(sample_weight, n)
        if offsets is not None:
            w = w * inclusion_weights(check_offsets(offsets, n, k), Y)
        pass_weight = sample_weight is not None or offsets is not None
        if pass_weight and not has_fit_parameter(self.binary_calibrator, "sample_weight"):
            raise InputError(
                f"{type(self.binary_calibrator).__name__}.fit does not accept sample_weight"
            )
        self.calibrators_ = []
        self.constants_ = np.full(k, np.nan)
        for c in range(k):
            known = ~Y[:, c] | (Y.sum(axis=1) == 1)  # rows that say whether class c holds
            yc = Y[known, c].astype(np.int64)
            if not yc.any() and Y[:, c].any():
                self.calibrators_.append(None)  # only ambiguous examples: keep the input
                continue
            if yc.min() == yc.max():
                self.constants_[c] = float(yc[0])
                self.calibrators_.append(None)
                continue
            est = clone(self.binary_calibrator)
            if pass_weight:
                est.fit(A[known, c], yc, sample_weight=w[known])
            else:
                est.fit(A[known, c], yc)
            self.calibrators_.append(est)
        self.n_classes_ = k
        self.n_features_in_ = k
        return self

    def predict_proba(self, P) -> np.ndarray:
        """Calibrated probabilities (n, k), rows summing to 1."""
        check_is_fitted(self)
        A = _check_inputs(P, n_classes=self.n_classes_)
        n, k = A.shape[:2]
        out = np.empty((n, k))
        for c, est in enumerate(self.calibrators_):
            if est is None:
                out[:, c] = (self.constants_[c] if np.isfinite(self.constants_[c])
                             else (A[:, c] if A.ndim == 2 else A[:, c, 0]))
            else:
                out[:, c] = np.clip(np.asarray(est.predict(A[:, c]), dtype=float).ravel(), 0, 1)
        s = out.sum(axis=1)
        zero = s <= 0
        if zero.any():
            out[zero] = A[zero] if A.ndim == 2 else A[zero, :, 0]
            s[zero] = out[zero].sum(axis=1)
        return out / s[:, None]
