"""Dirichlet calibration (Kull et al. 2019, *Beyond temperature scaling*, NeurIPS).

``p = softmax(W log q + b)``: a multinomial logistic regression on the log-probabilities
(the generative derivation assumes Dirichlet class-conditional distributions of q). The
objective, minimised by L-BFGS from the identity map ``W = I, b = 0``, is

* ``regularization="l2"``:   ``mean_w CE + λ/k² · Σ_ij W_ij²``  (intercept free);
* ``regularization="odir"``: ``mean_w CE + λ/(k(k−1)) · Σ_{i≠j} W_ij² + μ/k · Σ_j b_j²``
  (Off-Diagonal and Intercept Regularisation; the diagonal is free, so the identity map
  costs nothing, which suits many classes and small calibration sets).

``mean_w CE`` is the sample-weighted mean cross-entropy. The "l2" objective is
scikit-learn's ``LogisticRegression(C)`` on ``log q`` with ``C = k² / (2 λ Σ w)``.
"""

from __future__ import annotations

import numpy as np
from scipy.special import softmax
from sklearn.utils.validation import check_is_fitted

from causalcal._validation import Integral, Interval, Options, Real
from causalcal.calibration._base import MulticlassCalibrator, check_probability_matrix
from causalcal.calibration._multiclass import check_multiclass_fit, fit_multinomial, log_features

__all__ = ["DirichletCalibration"]


class DirichletCalibration(MulticlassCalibrator):
    """Multinomial LR on log-probabilities with L2 or ODIR regularisation (Kull et al. 2019).

    Parameters
    ----------
    regularization : {"l2", "odir"}, default "l2"
    reg_lambda : float, default 1e-2
        λ, on the weights (all of W for "l2", the off-diagonal ones for "odir").
    reg_mu : float or None, default None
        μ, on the intercepts ("odir" only); ``None`` means μ = λ.
    eps : float, default 1e-6
        Floor of the probabilities before the log.
    max_iter : int, default 1000

    Attributes
    ----------
    coef_ : ndarray (k, k)
        ``coef_[j, c]``: weight of ``log q_j`` in the logit of class c (the transpose of
        Kull et al.'s W).
    intercept_ : ndarray (k,)
    n_classes_ : int
    """

    _parameter_constraints = {
        "regularization": [Options("l2", "odir")],
        "reg_lambda": [Interval(Real, 0, None)],
        "reg_mu": [Interval(Real, 0, None), None],
        "eps": [Interval(Real, 0, 1, closed="neither")],
        "max_iter": [Interval(Integral, 1, None)],
    }

    def __init__(
        self,
        regularization: str = "l2",
        reg_lambda: float = 1e-2,
        reg_mu: float | None = None,
        eps: float = 1e-6,
        max_iter: int = 1000,
    ) -> None:
        self.regularization = regularization
        self.reg_lambda = reg_lambda
        self.reg_mu = reg_mu
        self.eps = eps
        self.max_iter = max_iter

    def fit(self, P, y, sample_weight=None, offsets=None) -> DirichletCalibration:
        """Fit on class probabilities ``P`` (n, k) and labels ``y``.

        ``y``: class indices or an (n, k) 0/1 matrix of allowed classes; ``offsets``:
        (n, k) logit offsets added in training only (:mod:`causalcal.calibration.selection`).
        """
        self._validate_params()
        mu = self.reg_lambda if self.reg_mu is None else self.reg_mu
        P, Y, w, O = check_multiclass_fit(P, y, sample_weight, offsets)
        k = P.shape[1]
        # fit_multinomial minimises Σ w CE + ½ pen·W²; scale the penalties by Σw so that
        # the objective is Σw times the documented mean-CE objective.
        sw = w.sum()
        if self.regularization == "l2":
            coef_pen = np.full((k, k), 2.0 * self.reg_lambda * sw / k**2)
            int_pen = 0.0
        else:
            coef_pen = np.full((k, k), 2.0 * self.reg_lambda * sw / (k * (k - 1)))
            np.fill_diagonal(coef_pen, 0.0)
            int_pen = 2.0 * mu * sw / k
        W, b, res = fit_multinomial(
            log_features(P, self.eps), Y, w, offsets=O,
            coef_penalty=coef_pen, intercept_penalty=int_pen,
            coef_init=np.eye(k), max_iter=self.max_iter,
        )
        self.coef_, self.intercept_ = W, b
        self.n_classes_ = k
        self.n_features_in_ = k
        self.n_iter_ = int(res.nit)
        return self

    def predict_proba(self, P) -> np.ndarray:
        """Calibrated probabilities (n, k), rows summing to 1."""
        check_is_fitted(self)
        P = check_probability_matrix(P, n_classes=self.n_classes_)
        return softmax(log_features(P, self.eps) @ self.coef_ + self.intercept_, axis=1)
