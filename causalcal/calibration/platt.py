"""Platt scaling (thesis §2.1.1.1; Platt 1999, with Lin, Lin & Weng 2007's robust Newton)."""

from __future__ import annotations

import numpy as np
from scipy.special import expit

from causalcal._validation import Integral, Interval, Real
from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_labels,
    check_binary_scores,
    check_sample_weight,
)

__all__ = ["PlattScaling"]


def _objective(a: float, b: float, f: np.ndarray, t: np.ndarray, w: np.ndarray) -> float:
    # negative log-likelihood with P(y=1|f) = 1 / (1 + exp(a f + b))
    x = a * f + b
    return float(np.sum(w * (np.logaddexp(0.0, x) - (1.0 - t) * x)))


def fit_platt(
    f: np.ndarray,
    t: np.ndarray,
    w: np.ndarray,
    *,
    max_iter: int = 100,
    tol: float = 1e-10,
) -> tuple[float, float, int]:
    """Minimise Platt's cross-entropy in (A, B) by Newton's method with backtracking.

    ``f`` should be roughly standardised; ``t`` are the smoothed targets. Returns
    ``(A, B, n_iter)`` for P(y = 1 | f) = 1 / (1 + exp(A f + B)).
    """
    wpos = float(np.sum(w * t))
    wneg = float(np.sum(w)) - wpos
    a, b = 0.0, float(np.log((wneg + 1.0) / (wpos + 1.0)))
    fval = _objective(a, b, f, t, w)
    sigma = 1e-12
    wsum = float(np.sum(w))
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007
        x = a * f + b
        p = expit(-x)  # P(y = 1)
        d1 = w * (t - p)  # dF/dx
        d2 = w * p * (1.0 - p)
        g1 = float(np.dot(d1, f))
        g2 = float(np.sum(d1))
        if abs(g1) < tol * wsum and abs(g2) < tol * wsum:
            break
        h11 = float(np.dot(d2, f * f)) + sigma
        h22 = float(np.sum(d2)) + sigma
        h21 = float(np.dot(d2, f))
        det = h11 * h22 - h21 * h21
        if det <= 0:
            sigma *= 10.0
            continue
        da = -(h22 * g1 - h21 * g2) / det
        db = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * da + g2 * db
        step = 1.0
        while step >= 1e-12:
            na, nb = a + step * da, b + step * db
            nf = _objective(na, nb, f, t, w)
            if nf < fval + 1e-4 * step * gd:
                a, b, fval = na, nb, nf
                break
            step /= 2.0
        else:
            break  # no further decrease possible: at the optimum to machine precision
    return a, b, it


class PlattScaling(BinaryCalibrator):
    """Platt's sigmoid calibration, thesis §2.1.1.1 (Platt 1999).

    P(y = 1 | s) = 1 / (1 + exp(A·s + B)), fitted by maximum likelihood against Platt's
    smoothed targets t₊ = (N₊ + 1)/(N₊ + 2) for positives and t₋ = 1/(N₋ + 2) for
    negatives (N± the (weighted) class counts), using the robust Newton method with
    backtracking line search of Lin, Lin & Weng (2007) on internally standardised
    scores. Accepts real-valued scores (e.g. SVM decision values).

    Parameters
    ----------
    max_iter : int, default 100
        Maximum Newton iterations.
    tol : float, default 1e-10
        Stop when both gradient components are below ``tol`` × total weight.

    Attributes
    ----------
    a_, b_ : float
        Platt's A and B (note the sign convention: A < 0 for scores that rank positives high).
    n_iter_ : int
        Newton iterations used.
    """

    accepts_real_scores = True

    _parameter_constraints = {"max_iter": [Interval(Integral, 1, None)],
                              "tol": [Interval(Real, 0, None, closed="neither")]}

    def __init__(self, max_iter: int = 100, tol: float = 1e-10):
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, scores, y, sample_weight=None) -> PlattScaling:
        """Fit A and B by Newton's method on the smoothed-target cross-entropy."""
        self._validate_params()
        s = check_binary_scores(scores, real_valued=True)
        z = check_binary_labels(y, len(s))
        w = check_sample_weight(sample_weight, len(s))
        npos = float(np.sum(w * z))
        nneg = float(np.sum(w)) - npos
        t = np.where(z == 1, (npos + 1.0) / (npos + 2.0), 1.0 / (nneg + 2.0))
        mu = float(np.average(s, weights=w))
        sd = float(np.sqrt(np.average((s - mu) ** 2, weights=w)))
        if not sd > 0:
            sd = 1.0
        a, b, it = fit_platt((s - mu) / sd, t, w, max_iter=int(self.max_iter), tol=float(self.tol))
        self.a_ = a / sd
        self.b_ = b - a * mu / sd
        self.n_iter_ = it
        return self

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1) = 1 / (1 + exp(A·s + B))."""
        self._check_fitted()
        s = check_binary_scores(scores, real_valued=True)
        return expit(-(self.a_ * s + self.b_))
