"""Base classes of the calibrators and their shared training-set preparation (docs/design.md §7).

The array checks live in :mod:`causalcal._validation` (re-exported here).
"""

from __future__ import annotations

import functools

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted

from causalcal._validation import (
    check_binary_labels,
    check_binary_scores,
    check_fit_data,
    check_probability_matrix,
    check_sample_weight,
    validate_params,
)

__all__ = [
    "BinaryCalibrator",
    "MulticlassCalibrator",
    "check_binary_scores",
    "check_binary_labels",
    "check_sample_weight",
    "check_probability_matrix",
    "pool_ties",
    "sorted_training_set",
]


def sorted_training_set(scores, y, sample_weight=None, *, real_valued: bool = False):
    """Validated training data sorted by score (stable), zero-weight samples dropped.

    Returns ``(s, z, w)``: float64 scores, float64 0/1 labels and positive weights.
    """
    s = check_binary_scores(scores, real_valued=real_valued)
    z = check_binary_labels(y, len(s))
    w = check_sample_weight(sample_weight, len(s))
    keep = w > 0
    s, z, w = s[keep], z[keep].astype(np.float64), w[keep]
    order = np.argsort(s, kind="stable")
    return s[order], z[order], w[order]


def pool_ties(s: np.ndarray, z: np.ndarray, w: np.ndarray):
    """Pool equal scores of sorted data: ``(distinct scores, total weight, weighted positives)``."""
    first = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    return s[first], np.add.reduceat(w, first), np.add.reduceat(w * z, first)


def _checked_fit(fit):
    """``fit`` preceded by :func:`causalcal._validation.check_fit_data`."""

    @functools.wraps(fit)
    def checked(self, X, y=None, *args, **kwargs):
        if not getattr(self, "_fit_checked", False):
            self._validate_params()  # a bad hyper-parameter is named first
            check_fit_data(self, X, y, one_class=self._fits_one_class)
        self._fit_checked = True  # a subclass's fit calling its parent's checks once
        try:
            return fit(self, X, y, *args, **kwargs)
        finally:
            self._fit_checked = False

    checked._checks_fit_data = True
    return checked


class _ChecksFitData:
    """Every subclass's ``fit`` first refuses what no calibrator can learn from
    (:func:`~causalcal._validation.check_fit_data`): one sample, one class, more rows
    than memory allows."""

    #: bytes a fit needs per input value, for the memory estimate (subclasses refine it)
    _fit_bytes_per_value = 256
    #: whether one sample or one class is a valid fit (a constant, for binary methods)
    _fits_one_class = True

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        fit = cls.__dict__.get("fit")
        if fit is not None and not getattr(fit, "_checks_fit_data", False):
            cls.fit = _checked_fit(fit)


class BinaryCalibrator(_ChecksFitData, BaseEstimator):
    """Base of the binary calibrators: ``fit(scores, y)``, ``predict`` → P(y = 1).

    ``predict`` returns the calibrated probability of the positive class, a float array
    (n,), not a label: unlike scikit-learn's classifiers and unlike
    :meth:`MulticlassCalibrator.predict`, which returns class indices
    (docs/design.md §7). Labels are ``predict(scores) >= 0.5``. ``predict_proba`` stacks
    ``1 − p`` and ``p`` as (n, 2), columns in ``classes_`` order ``[0, 1]``.

    Subclasses implement ``fit`` and ``predict``.
    """

    _parameter_constraints: dict = {}

    def _validate_params(self) -> None:
        """Check the hyper-parameters against ``_parameter_constraints``."""
        validate_params(self)

    def predict_proba(self, scores) -> np.ndarray:
        p = self.predict(scores)
        return np.column_stack([1.0 - p, p])

    def __sklearn_tags__(self):
        """X is the 1-d vector of scores (one column also works); y is required."""
        tags = super().__sklearn_tags__()
        tags.input_tags.one_d_array = True
        tags.target_tags.required = True
        return tags

    @property
    def classes_(self) -> np.ndarray:
        """The labels, ``[0, 1]`` (once fitted); ``predict_proba``'s columns."""
        check_is_fitted(self)
        return np.array([0, 1])

    @property
    def n_features_in_(self) -> int:
        """Score columns seen in ``fit`` (once fitted): one unless a subclass sets it."""
        check_is_fitted(self)
        return getattr(self, "_n_score_columns", 1)

    @n_features_in_.setter
    def n_features_in_(self, value: int) -> None:
        self._n_score_columns = int(value)

    def _check_fitted(self) -> None:
        check_is_fitted(self)


class MulticlassCalibrator(_ChecksFitData, BaseEstimator):
    """Base of the multi-class calibrators: ``fit(P, y)``, ``predict_proba`` → rows summing to 1.

    ``predict`` returns class indices, as scikit-learn's classifiers do; the binary
    calibrators' ``predict`` returns a probability instead (docs/design.md §7). A fit on
    one sample or labels of a single class is refused (nothing to calibrate between
    classes).
    """

    _fits_one_class = False

    _parameter_constraints: dict = {}

    def _validate_params(self) -> None:
        """Check the hyper-parameters against ``_parameter_constraints``."""
        validate_params(self)

    @property
    def classes_(self) -> np.ndarray:
        """The class indices ``0 … n_classes_ − 1`` (once fitted), ``predict_proba``'s
        columns, as scikit-learn's classifiers have them after ``fit``."""
        check_is_fitted(self)
        return np.arange(self.n_classes_)

    def predict(self, P) -> np.ndarray:
        """The most probable class index of each row, an int array (n,): a label, not a
        probability (the calibrated probabilities are :meth:`predict_proba`; contrast
        :meth:`BinaryCalibrator.predict`, which returns P(y = 1))."""
        return np.argmax(self.predict_proba(P), axis=1)
