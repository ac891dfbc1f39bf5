"""What the multi-class calibrators share: input checks, set-valued labels, logit offsets
and the L-BFGS multinomial-logistic fitter.

Labels may be *sets*: ``y`` is either 1-d class indices or an (n, k) 0/1 matrix whose
row i marks the classes that label i allows (a known causal arc ``A → B`` is "A → B or
A — B" as a CPDAG label). The likelihood of a set label is the summed probability of its
classes, so a one-hot row is the ordinary cross-entropy.

``offsets`` are fixed per-row logit offsets used in training only: a model
``softmax(z(x))`` is fitted as ``softmax(z(x) + o)``. With ``o[i, c] = log π(c, x_i)``,
the inclusion rate of a row like ``x_i`` of class c in a selected (case-control,
stratified) calibration sample, ``softmax(z + o)`` is the sample's posterior and
``softmax(z)`` the population's (Prentice & Pyke 1979; King & Zeng 2001, "prior
correction"). See :mod:`causalcal.calibration.selection`.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize

from causalcal._validation import (
    check_class_labels,
    check_label_sets,
    check_offsets,
    check_probability_matrix,
    check_sample_weight,
)
from causalcal.errors import InputError

__all__ = [
    "check_class_labels",
    "check_label_sets",
    "check_multiclass_fit",
    "check_offsets",
    "fit_multinomial",
    "log_features",
    "set_label_loss",
]


def check_multiclass_fit(P, y, sample_weight, offsets=None):
    """Validated ``(P, Y, w, O)`` for fitting a multi-class calibrator.

    ``P`` (n, k ≥ 2) probability rows, ``Y`` (n, k) bool allowed classes (see
    :func:`check_label_sets`), ``w`` non-negative weights, ``O`` (n, k) logit offsets.
    """
    P = check_probability_matrix(P)
    n, k = P.shape
    if k < 2:
        raise InputError("P needs at least 2 class columns")
    return (P, check_label_sets(y, n, k), check_sample_weight(sample_weight, n),
            check_offsets(offsets, n, k))


def log_features(P: np.ndarray, eps: float) -> np.ndarray:
    """``log(max(P, eps))``: log-probabilities with exact zeros clipped to ``log(eps)``."""
    return np.log(np.maximum(P, eps))


def set_label_loss(S: np.ndarray, Y: np.ndarray, w: np.ndarray) -> tuple[float, np.ndarray]:
    """Weighted set-label cross-entropy of logits ``S`` (…, n, k) and its gradient.

    ``Σ_i w_i (logsumexp_c S_ic − logsumexp_{c ∈ Y_i} S_ic)``; the gradient with respect
    to ``S`` is ``w_i (softmax(S_i) − softmax(S_i restricted to Y_i))``.
    """
    top = S.max(axis=-1, keepdims=True)  # every allowed set is non-empty: finite sums
    E = np.exp(S - top)
    total = E.sum(axis=-1)
    E_allowed = np.where(Y, E, 0.0)
    kept = E_allowed.sum(axis=-1)
    loss = float(np.sum(w * (np.log(total) - np.log(kept))))
    G = (E / total[..., None] - E_allowed / kept[..., None]) * w[..., None]
    return loss, G


def fit_multinomial(
    X: np.ndarray,
    Y: np.ndarray,
    w: np.ndarray,
    *,
    offsets: np.ndarray | None = None,
    coef_penalty: np.ndarray | float,
    intercept_penalty: np.ndarray | float = 0.0,
    coef_init: np.ndarray | None = None,
    coef_center: np.ndarray | float = 0.0,
    max_iter: int = 1000,
    tol: float = 1e-15,
) -> tuple[np.ndarray, np.ndarray, object]:
    """Minimise ``Σ w_i CE_i + ½ Σ coef_penalty ⊙ (W − coef_center)² + ½ Σ intercept_penalty ⊙ b²``.

    The model is ``softmax(X W + b)`` with ``W`` of shape (d, k) and ``b`` of shape (k,),
    trained as ``softmax(X W + b + offsets)``; ``CE_i`` is the set-label cross-entropy of
    :func:`set_label_loss` for the allowed-class matrix ``Y`` (n, k). The penalties and
    ``coef_center`` broadcast against ``W`` and ``b``. Solved with L-BFGS on the exact
    gradient. Returns ``(W, b, scipy_result)``.
    """
    n, d = X.shape
    k = Y.shape[1]
    O = np.zeros((n, k)) if offsets is None else offsets
    lw = np.broadcast_to(np.asarray(coef_penalty, dtype=float), (d, k))
    lb = np.broadcast_to(np.asarray(intercept_penalty, dtype=float), (k,))
    W0 = np.broadcast_to(np.asarray(coef_center, dtype=float), (d, k))

    def fun(theta):
        W = theta[: d * k].reshape(d, k)
        b = theta[d * k :]
        loss, G = set_label_loss(X @ W + b + O, Y, w)
        f = loss + 0.5 * np.sum(lw * (W - W0) ** 2) + 0.5 * np.sum(lb * b**2)
        gW = X.T @ G + lw * (W - W0)
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
