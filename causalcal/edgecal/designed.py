"""The calibration the answers to suggested pairs allow (docs/design.md §9.12, §9.14;
issues 39, 48): the map of P(related) fitted on them, weighted by their inclusion rates
and allowing for their errors, and the test that decides whether the bootstrap needs it.

The draw itself is :mod:`.draws`; the answer file, its design record and its integrity
:mod:`.answer_file`, :mod:`.answer_rows` and :mod:`.answers`.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import minimize
from scipy.stats import chi2

from causalcal.edgecal.noisy import direction_rates, noisy_terms
from causalcal.edgecal.simulated import SimulatedAdjacency, SimulatedCausal

__all__ = ["DesignedAdjacency", "DesignedCausal", "IdentityPriorFit", "calibration_test",
           "identity_prior_mode"]


def calibration_test(x: np.ndarray, y: np.ndarray, weights: np.ndarray, slope: float,
                     intercept: float, clusters: np.ndarray | None = None,
                     errors: np.ndarray | None = None) -> float:
    """The p-value of Cox's (1958) calibration test: is ``logit q = slope · x + intercept``
    (fitted by weighted logistic regression of ``y`` on ``x`` = logit p) different from
    the identity (slope 1, intercept 0)? A Wald test with the design-based (sandwich)
    covariance of the weighted fit, clustered by ``clusters`` (the two directions of a
    pair), χ² with 2 degrees of freedom; with ``errors`` (each answer's ``(e0, e1)``) the
    fit's likelihood is the label-noise model's (:func:`~.noisy.noisy_terms`). A map that
    reverses the bootstrap's order (slope ≤ 0) counts only where the slope is below 0 by
    two standard errors (p = 1 else): the answers must show the order reversed, not
    merely flat."""
    X = np.column_stack([np.ones(len(x)), x])
    w = np.asarray(weights, dtype=np.float64)
    _, d1, d2 = noisy_terms(X @ np.array([intercept, slope]), y, errors)
    bread = (X * (w * d2)[:, None]).T @ X
    score = X * (w * -d1)[:, None]
    if clusters is not None:
        _, inverse = np.unique(clusters, return_inverse=True)
        score = np.vstack([np.bincount(inverse, score[:, k]) for k in range(2)]).T
    try:
        inv = np.linalg.inv(bread)
        cov = inv @ (score.T @ score) @ inv
        d = np.array([intercept, slope - 1.0])
        stat = float(d @ np.linalg.solve(cov, d))
    except np.linalg.LinAlgError:
        return 1.0
    if slope <= 0 and not slope + 2 * np.sqrt(max(cov[1, 1], 0.0)) < 0:
        return 1.0
    return float(chi2.sf(stat, 2)) if np.isfinite(stat) else 1.0


def identity_prior_mode(x: np.ndarray, y: np.ndarray, w: np.ndarray, prior_sd: float,
                        errors: np.ndarray | None = None
                        ) -> tuple[np.ndarray, float, np.ndarray]:
    """The posterior mode ``(b, a)`` of the weighted logistic regression ``logit q = a · x
    + b`` under the prior a ~ N(1, prior_sd²), b ~ N(0, prior_sd²), with the negative log
    posterior there and its Hessian (:class:`IdentityPriorFit`); with ``errors`` (each
    answer's ``(e0, e1)``) the likelihood is the label-noise model's (:mod:`.noisy`)."""
    X = np.column_stack([np.ones(len(y)), x])
    prior, precision = np.array([0.0, 1.0]), np.eye(2) / prior_sd ** 2

    def loss(theta):  # the negative log posterior and its gradient
        nll, d1, _ = noisy_terms(X @ theta, y, errors)
        d = theta - prior
        return float(w @ nll + d @ precision @ d / 2), X.T @ (w * d1) + precision @ d

    def hessian(theta):
        d2 = noisy_terms(X @ theta, y, errors)[2]
        return (X * (w * d2)[:, None]).T @ X + precision

    # the noisy likelihood is flatter (each answer's pull is bounded): a finer tolerance
    options = {} if errors is None else {"gtol": 1e-11}
    theta = minimize(loss, prior, jac=True, hess=hessian, method="trust-exact",
                     options=options).x
    return theta, loss(theta)[0], hessian(theta)


class IdentityPriorFit:
    """Mixin for a :class:`~causalcal.edgecal.simulated.LogitLinearMap` fitted on a few
    answers: ``logit q = a · logit p + b`` at its posterior mode under a weak Gaussian prior
    around the identity (a = 1, b = 0; standard deviation :attr:`prior_sd`), the weights
    scaled to the number of answers (docs/design.md §9.12). Answers that the bootstrap's 0
    and 1 separate drive the unpenalised fit's slope without bound (0.000 and 1.000 out,
    lost on every pair it gets wrong); the prior keeps it finite."""

    prior_sd: float = 2.0

    def _solve(self, x, y, w, errors=None) -> tuple[float, float]:
        y = np.asarray(y, dtype=np.float64)
        theta, _, _ = identity_prior_mode(x, y, w * (len(w) / w.sum()), self.prior_sd,
                                          errors)
        return float(theta[0]), float(theta[1])


class DesignedAdjacency(IdentityPriorFit, SimulatedAdjacency):
    """The map of P(adjacent), ``logit q = a · logit p + b``, fitted by weighted logistic
    regression on answered pairs (weights ``1 / rate``: the population's fit); for a pair
    the bootstrap never joined, the population's average split over forward, backward
    (pooled) and undirected. Wrap it in
    :class:`~causalcal.edgecal.model.KeepDirectionSplit` to keep the bootstrap's split."""

    def fit(self, X, y, sample_weight=None, rows=None, row_counts=None,
            errors=None) -> DesignedAdjacency:
        """``X`` the answered pairs' inputs, ``y`` 1 where adjacent; ``rows`` and
        ``row_counts`` all pairs' distinct bootstrap rows (for the split); ``errors``
        each answer's ``(e0, e1)`` (:mod:`.noisy`; None: answers taken as right)."""
        X = np.asarray(X, dtype=np.float64)
        self._fit_samples(1.0 - X[:, 0], np.asarray(y), sample_weight, "adjacent and "
                          "non-adjacent", errors)
        w = np.ones(len(X)) if sample_weight is None else sample_weight
        self.calibration_p_ = calibration_test(self._logit(1.0 - X[:, 0]), y, w,
                                               self.slope_, self.intercept_, errors=errors)
        if rows is None:
            rows, row_counts = X, np.ones(len(X))
        mass = (np.asarray(rows)[:, 1:4] * np.asarray(row_counts)[:, None]).sum(axis=0)
        directed = (mass[0] + mass[1]) / 2
        split = np.array([directed, directed, mass[2]]) + 1e-9
        self.split_ = split / split.sum()
        return self


class DesignedCausal(IdentityPriorFit, SimulatedCausal):
    """The map of P(a causes b) (each direction alone), fitted by weighted logistic
    regression on the answered pairs' two ordered directions."""

    def fit(self, X, Y, sample_weight=None, errors=None) -> DesignedCausal:
        """``X`` the answered pairs' raw rows (neither, a causes b, b causes a), ``Y`` their
        allowed classes (exact answers); ``errors`` each answer's ``(e0, e1)``, from which
        each direction it settles takes its own (:func:`~.noisy.direction_rates`; None:
        answers taken as right)."""
        X, Y = np.asarray(X, dtype=np.float64), np.asarray(Y, dtype=bool)
        w = np.ones(len(X)) if sample_weight is None else np.asarray(sample_weight, float)
        p, y = np.concatenate([X[:, 1], X[:, 2]]), np.concatenate([Y[:, 1], Y[:, 2]])
        both = None if errors is None else np.tile(direction_rates(errors), (2, 1))
        self._fit_samples(p, y.astype(int), np.concatenate([w, w]),
                          "causally related and unrelated", both)
        self.calibration_p_ = calibration_test(self._logit(p), y, np.concatenate([w, w]),
                                               self.slope_, self.intercept_,
                                               np.tile(np.arange(len(X)), 2), both)
        return self
