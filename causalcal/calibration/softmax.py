"""Softmax-regression calibrator: the multi-class Platt of thesis §6.1.

Thesis §6.1 extends Platt's method to k classes by replacing the sigmoid with a softmax and
the logistic loss with the cross-entropy, fitted on the k probabilities of the base
classifier: ``p(c | P) = softmax(P W + b)_c``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax
from sklearn.utils.validation import check_is_fitted

from causalcal._validation import Integral, Interval, Options, Real
from causalcal.calibration._base import MulticlassCalibrator, check_probability_matrix
from causalcal.calibration._multiclass import check_multiclass_fit, fit_multinomial, log_features

__all__ = ["SoftmaxCalibrator"]


class SoftmaxCalibrator(MulticlassCalibrator):
    """Multinomial logistic regression on the probability vector (thesis §6.1).

    ``p(c | P) = softmax(φ(P) W + b)_c`` fitted by minimising
    ``C · Σ_i w_i CE_i + ½ ‖W‖²`` (the intercept is not penalised), i.e. exactly
    scikit-learn's ``LogisticRegression(C=C)`` multinomial objective, by L-BFGS.

    Parameters
    ----------
    C : float, default 1.0
        Inverse L2 strength on ``W`` (scikit-learn's convention and default); ``np.inf``
        fits without penalty. Some penalty is useful at the thesis's calibration-set sizes
        (N = 40–120), where a class may be perfectly separated by the scores.
    features : {"prob", "log"}, default "prob"
        ``φ(P) = P`` is the thesis's model (its inputs are the k probabilities, Figure 20).
        ``"log"`` uses ``log max(P, eps)``, which makes the model a Dirichlet calibrator
        (Kull et al. 2019); use :class:`DirichletCalibration` for that with its own
        regularisers.
    eps : float, default 1e-6
        Floor of the probabilities before the log (``features="log"`` only).
    max_iter : int, default 1000
        L-BFGS iterations.

    Attributes
    ----------
    coef_ : ndarray (k, k)
        ``W``; ``coef_[j, c]`` is the weight of input column j in the logit of class c.
    intercept_ : ndarray (k,)
    n_classes_ : int
    """

    _parameter_constraints = {
        "C": [Interval(Real, 0, None, closed="neither")],
        "features": [Options("prob", "log")],
        "eps": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        C: float = 1.0,
        features: str = "prob",
        eps: float = 1e-6,
        max_iter: int = 1000,
    ) -> None:
        self.C = C
        self.features = features
        self.eps = eps
        self.max_iter = max_iter

    def _features(self, P: np.ndarray) -> np.ndarray:
        return log_features(P, self.eps) if self.features == "log" else P

    def fit(self, P, y, sample_weight=None, offsets=None) -> SoftmaxCalibrator:
        """Fit on class probabilities ``P`` (n, k) and labels ``y``.

        ``y``: class indices or an (n, k) 0/1 matrix of allowed classes; ``offsets``:
        (n, k) logit offsets added in training only (log inclusion rates of a selected
        sample, :mod:`causalcal.calibration.selection`).
        """
        self._validate_params()
        P, Y, w, O = check_multiclass_fit(P, y, sample_weight, offsets)
        k = P.shape[1]
        penalty = 0.0 if np.isinf(self.C) else 1.0 / self.C
        W, b, res = fit_multinomial(
            self._features(P), Y, w, offsets=O, coef_penalty=penalty, max_iter=self.max_iter
        )
        self.coef_, self.intercept_ = W, b
        self.n_classes_ = k
        self.n_features_in_ = k
        self.n_iter_ = int(res.nit)
        return self

    def decision_function(self, P) -> np.ndarray:
        """The logits ``φ(P) W + b`` (n, k)."""
        check_is_fitted(self)
        P = check_probability_matrix(P, n_classes=self.n_classes_)
        return self._features(P) @ self.coef_ + self.intercept_

    def predict_proba(self, P) -> np.ndarray:
        """Calibrated probabilities (n, k), rows summing to 1."""
        return softmax(self.decision_function(P), axis=1)
