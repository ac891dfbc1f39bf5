"""Temperature scaling (Guo et al. 2017, *On Calibration of Modern Neural Networks*).

A single parameter T > 0 divides the logits: ``p = softmax(z / T)``. Our inputs are
probabilities, so the logits are the log-probabilities ``z = log max(P, eps)`` (a softmax
is unchanged by a per-row constant, so ``softmax(log P / T) = softmax(logits / T)`` for any
logits behind ``P``). T is fitted by minimising the weighted cross-entropy; with one class
per label the loss is convex in ``β = 1/T`` (the logits are linear in β), so a bounded 1-d
Brent search on ``log β`` finds the global optimum (with set-valued labels, a local one).
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize_scalar
from scipy.special import softmax
from sklearn.utils.validation import check_is_fitted

from causalcal._validation import Interval, Real, Satisfies
from causalcal.calibration._base import MulticlassCalibrator, check_probability_matrix
from causalcal.calibration._multiclass import check_multiclass_fit, log_features, set_label_loss

__all__ = ["TemperatureScaling"]


class TemperatureScaling(MulticlassCalibrator):
    """``p = softmax(log P / T)`` with T fitted by weighted cross-entropy (Guo et al. 2017).

    Parameters
    ----------
    eps : float, default 1e-6
        Floor of the probabilities before the log (exact zeros are common in bootstrap
        edge-type frequencies).
    bounds : (float, float), default (1e-3, 1e3)
        Search interval of T.

    Attributes
    ----------
    temperature_ : float
    n_classes_ : int
    """

    _parameter_constraints = {
        "eps": [Interval(Real, 0, 1, closed="neither")],
        "bounds": [Satisfies(lambda b: len(b) == 2 and 0 < b[0] < b[1],
                             "a pair (low, high) with 0 < low < high")],
    }

    def __init__(self, eps: float = 1e-6, bounds: tuple[float, float] = (1e-3, 1e3)) -> None:
        self.eps = eps
        self.bounds = bounds

    def fit(self, P, y, sample_weight=None, offsets=None) -> TemperatureScaling:
        """Fit T on class probabilities ``P`` (n, k) and labels ``y``.

        ``y``: class indices or an (n, k) 0/1 matrix of allowed classes; ``offsets``:
        (n, k) logit offsets added in training only (:mod:`causalcal.calibration.selection`).
        """
        self._validate_params()
        lo, hi = self.bounds
        P, Y, w, O = check_multiclass_fit(P, y, sample_weight, offsets)
        k = P.shape[1]
        Z = log_features(P, self.eps)

        def loss(log_beta: float) -> float:
            return set_label_loss(Z * np.exp(log_beta) + O, Y, w)[0] / w.sum()

        res = minimize_scalar(
            loss, bounds=(-np.log(hi), -np.log(lo)), method="bounded",
            options={"xatol": 1e-10, "maxiter": 500},
        )
        self.temperature_ = float(np.exp(-res.x))
        self.n_classes_ = k
        self.n_features_in_ = k
        return self

    def predict_proba(self, P) -> np.ndarray:
        """Calibrated probabilities (n, k), rows summing to 1."""
        check_is_fitted(self)
        P = check_probability_matrix(P, n_classes=self.n_classes_)
        return softmax(log_features(P, self.eps) / self.temperature_, axis=1)
