"""Equivariance of a multi-class calibrator under relabelling its classes.

An edge-type vector of the pair (A, B) is ``(none, A → B, B → A, A — B)``; written as
(B, A), the same pair has its forward and backward entries swapped, and so has its label.
A calibrator of edge types should not care which way round a pair is written:
``f(x σ) = f(x) σ`` for the swap σ = (0, 2, 1, 3). :class:`SwapEquivariant` makes any
calibrator so by augmentation (each training row also enters swapped, both at half
weight) and symmetrisation (the prediction is the mean of ``f(x)`` and ``f(x σ) σ``).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted, has_fit_parameter

from causalcal._validation import HasMethods, Satisfies
from causalcal.calibration._base import MulticlassCalibrator, check_sample_weight
from causalcal.calibration._multiclass import check_label_sets, check_offsets
from causalcal.errors import InputError
from causalcal.pairs import EDGE_SWAP

__all__ = ["EDGE_SWAP", "SwapEquivariant"]



def _involution(values: Sequence[int], name: str) -> np.ndarray:
    """``values`` as an int array, checked to be a permutation that is its own inverse."""
    perm = np.asarray(values, dtype=np.int64)
    k = len(perm)
    if perm.ndim != 1 or sorted(perm.tolist()) != list(range(k)):
        raise InputError(f"{name} must be a permutation of 0..{k - 1}, got {values!r}")
    if not np.array_equal(perm[perm], np.arange(k)):
        raise InputError(f"{name} {values!r} is not its own inverse")
    return perm


class SwapEquivariant(MulticlassCalibrator):
    """Wrap ``calibrator`` so that permuting classes and input columns by an involution
    ``permutation`` permutes its output the same way.

    Parameters
    ----------
    calibrator : estimator
        Unfitted multi-class calibrator with ``fit(P, y, sample_weight[, offsets])`` and
        ``predict_proba``; cloned in ``fit``.
    permutation : sequence of int, default (0, 2, 1, 3)
        A permutation that is its own inverse, of the first k = len(permutation) columns
        of ``P`` (the class probabilities).
    feature_permutation : sequence of int or None, default None
        A permutation that is its own inverse, of the feature columns after the first k
        (e.g. degree of A <-> degree of B); ``None`` passes them unchanged.

    ``offsets`` passed to ``fit`` are permuted with the columns, so they must come from a
    design that is itself symmetric (e.g. ``SelectionDesign.pooled([1, 2])``).

    Attributes
    ----------
    calibrator_ : the fitted clone
    n_classes_ : int
    """

    _parameter_constraints = {
        "calibrator": [HasMethods("fit", "predict_proba")],
        "permutation": [Satisfies(lambda p: np.asarray(p).ndim == 1, "a sequence of int")],
        "feature_permutation": [None, Satisfies(lambda p: np.asarray(p).ndim == 1,
                                                "a sequence of int")],
    }

    def __init__(self, calibrator, permutation: Sequence[int] = EDGE_SWAP,
                 feature_permutation: Sequence[int] | None = None) -> None:
        self.calibrator = calibrator
        self.permutation = permutation
        self.feature_permutation = feature_permutation

    def _perm(self) -> np.ndarray:
        return _involution(self.permutation, "permutation")

    def _swapped(self, X: np.ndarray, perm: np.ndarray) -> np.ndarray:
        out = np.array(X, dtype=np.float64)
        k = len(perm)
        out[:, :k] = out[:, perm]
        if self.feature_permutation is not None:
            fperm = _involution(self.feature_permutation, "feature_permutation")
            if len(fperm) != X.shape[1] - k:
                raise InputError(f"feature_permutation has {len(fperm)} entries for "
                                 f"{X.shape[1] - k} feature columns")
            out[:, k:] = out[:, k + fperm]
        return out

    def fit(self, P, y, sample_weight=None, offsets=None) -> SwapEquivariant:
        """Fit the wrapped calibrator on the rows and their permuted copies."""
        self._validate_params()
        perm = self._perm()
        X = np.asarray(P, dtype=np.float64)
        k = len(perm)
        if X.ndim != 2 or X.shape[1] < k:
            raise InputError(f"P must be 2-d with at least {k} columns, got shape {X.shape}")
        n = X.shape[0]
        if not has_fit_parameter(self.calibrator, "sample_weight"):
            raise InputError(f"{type(self.calibrator).__name__}.fit takes no sample_weight, "
                             "which the augmented fit needs")
        Y = check_label_sets(y, n, k)
        w = check_sample_weight(sample_weight, n)
        model = clone(self.calibrator)
        args = {"sample_weight": np.concatenate([w, w]) / 2}
        if offsets is not None:
            O = check_offsets(offsets, n, k)
            args["offsets"] = np.vstack([O, O[:, perm]])
        Y = np.vstack([Y, Y[:, perm]])
        # single labels as class indices, so that any scikit-learn classifier can be wrapped
        labels = Y.argmax(axis=1) if (Y.sum(axis=1) == 1).all() else Y
        model.fit(np.vstack([X, self._swapped(X, perm)]), labels, **args)
        self.calibrator_ = model
        self.n_classes_ = k
        self.n_features_in_ = X.shape[1]
        return self

    def predict_proba(self, P) -> np.ndarray:
        """``(f(x) + f(x σ) σ) / 2`` for the fitted calibrator f and permutation σ."""
        check_is_fitted(self)
        perm = self._perm()
        X = np.asarray(P, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != self.n_features_in_:
            raise InputError(f"P must have shape (n, {self.n_features_in_}), got {X.shape}")
        direct = np.asarray(self.calibrator_.predict_proba(X), dtype=np.float64)
        swapped = np.asarray(self.calibrator_.predict_proba(self._swapped(X, perm)),
                             dtype=np.float64)
        return (direct + swapped[:, perm]) / 2
