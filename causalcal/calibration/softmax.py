"""Softmax-regression calibrator: the multi-class Platt of thesis §6.1.

Thesis §6.1 extends Platt's method to k classes by replacing the sigmoid with a softmax and
the logistic loss with the cross-entropy, fitted on the k probabilities of the base
classifier: ``p(c | P) = softmax(P W + b)_c``. This module also holds the L-BFGS
multinomial-logistic fitter shared by
:class:`~causalcal.calibration.dirichlet.DirichletCalibration`.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.special import log_softmax, softmax
from sklearn.utils.validation import check_is_fitted

from causalcal.calibration._base import (
    MulticlassCalibrator,
    check_probability_matrix,
    check_sample_weight,
)

__all__ = [
    "SoftmaxCalibrator",
    "check_class_labels",
    "check_multiclass_fit",
    "fit_multinomial",
    "log_features",
]


def check_class_labels(y, n: int, n_classes: int) -> np.ndarray:
    """1-d int labels of length ``n`` with values in ``0 .. n_classes - 1``."""
    y = np.asarray(y)
    if y.ndim != 1 or len(y) != n:
        raise ValueError(f"y must be 1-d with {n} labels, got shape {y.shape}")
    if y.dtype.kind == "f":
        bad = np.flatnonzero(~np.isfinite(y) | (y != np.round(y)))
        if len(bad):
            raise ValueError(f"y[{bad[0]}] = {y[bad[0]].item()!r} is not a class index")
    elif y.dtype.kind not in "iub":
        raise ValueError(f"y must hold integer class indices 0..{n_classes - 1}, got {y.dtype}")
    yi = y.astype(np.int64)
    bad = np.flatnonzero((yi < 0) | (yi >= n_classes))
    if len(bad):
        raise ValueError(
            f"y[{bad[0]}] = {y[bad[0]].item()!r} is not a class index in 0..{n_classes - 1}"
        )
    return yi


def check_multiclass_fit(P, y, sample_weight) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Validated ``(P, y, w)`` for fitting a multi-class calibrator: ``P`` (n, k ≥ 2)
    probability rows, ``y`` int labels in ``0 .. k−1``, ``w`` non-negative weights."""
    P = check_probability_matrix(P)
    n, k = P.shape
    if k < 2:
        raise ValueError("P needs at least 2 class columns")
    return P, check_class_labels(y, n, k), check_sample_weight(sample_weight, n)


def log_features(P: np.ndarray, eps: float) -> np.ndarray:
    """``log(max(P, eps))``: log-probabilities with exact zeros clipped to ``log(eps)``."""
    return np.log(np.maximum(P, eps))


def fit_multinomial(
    X: np.ndarray,
    y: np.ndarray,
    w: np.ndarray,
    n_classes: int,
    *,
    coef_penalty: np.ndarray | float,
    intercept_penalty: np.ndarray | float = 0.0,
    coef_init: np.ndarray | None = None,
    max_iter: int = 1000,
    tol: float = 1e-15,
) -> tuple[np.ndarray, np.ndarray, object]:
    """Minimise ``Σ w_i CE_i + ½ Σ coef_penalty ⊙ W² + ½ Σ intercept_penalty ⊙ b²``.

    The model is ``softmax(X W + b)`` with ``W`` of shape (d, k) and ``b`` of shape (k,);
    the penalties broadcast against ``W`` and ``b``. Solved with L-BFGS on the exact
    gradient. Returns ``(W, b, scipy_result)``.
    """
    n, d = X.shape
    k = n_classes
    Y = np.zeros((n, k))
    Y[np.arange(n), y] = 1.0
    lw = np.broadcast_to(np.asarray(coef_penalty, dtype=float), (d, k))
    lb = np.broadcast_to(np.asarray(intercept_penalty, dtype=float), (k,))

    def fun(theta):
        W = theta[: d * k].reshape(d, k)
        b = theta[d * k :]
        Z = X @ W + b
        L = log_softmax(Z, axis=1)
        f = -np.sum(w * np.sum(Y * L, axis=1)) + 0.5 * np.sum(lw * W**2) + 0.5 * np.sum(lb * b**2)
        G = (np.exp(L) - Y) * w[:, None]
        gW = X.T @ G + lw * W
        gb = G.sum(axis=0) + lb * b
        return f, np.concatenate([gW.ravel(), gb])

    theta0 = np.zeros(d * k + k)
    if coef_init is not None:
        theta0[: d * k] = np.asarray(coef_init, dtype=float).ravel()
    res = minimize(
        fun,
        theta0,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "ftol": tol, "gtol": 1e-10, "maxcor": 30},
    )
    return res.x[: d * k].reshape(d, k), res.x[d * k :], res


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

    def fit(self, P, y, sample_weight=None) -> SoftmaxCalibrator:
        """Fit on class probabilities ``P`` (n, k) and labels ``y`` in 0..k−1."""
        if self.features not in ("prob", "log"):
            raise ValueError(f"features must be 'prob' or 'log', got {self.features!r}")
        if not (self.C > 0):
            raise ValueError(f"C must be > 0, got {self.C}")
        if not (0 < self.eps < 1):
            raise ValueError(f"eps must lie in (0, 1), got {self.eps}")
        P, y, w = check_multiclass_fit(P, y, sample_weight)
        k = P.shape[1]
        penalty = 0.0 if np.isinf(self.C) else 1.0 / self.C
        W, b, res = fit_multinomial(
            self._features(P), y, w, k, coef_penalty=penalty, max_iter=self.max_iter
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
