"""Dirichlet-process-mixture calibration (thesis §3.1; seed 002).

Each class-conditional density of the scores, P(y | z = c), is a Dirichlet-process
Gaussian mixture fitted by variational inference (scikit-learn's
``BayesianGaussianMixture`` with ``weight_concentration_prior_type='dirichlet_process'``,
a truncated stick-breaking posterior, as in Kurihara et al. 2007 which the thesis uses);
the calibrated probability is Bayes' rule (thesis eq. 3.1) with the class frequencies as
priors, evaluated in log space.
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.special import expit
from sklearn.exceptions import ConvergenceWarning
from sklearn.mixture import BayesianGaussianMixture

from causalcal._validation import InstanceOf, Integral, Interval, Real
from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_labels,
    check_binary_scores,
)
from causalcal.errors import InputError

__all__ = ["DPMCalibration"]


class DPMCalibration(BinaryCalibrator):
    """Bayes-rule calibration with variational Dirichlet-process Gaussian mixtures, §3.1.

    Parameters
    ----------
    n_components : int, default 10
        Truncation level of the stick-breaking approximation (upper bound on components).
    weight_concentration_prior : float or None, default None
        The DP concentration α (scikit-learn's default 1/n_components when None).
    max_iter : int, default 500
        Variational EM iterations per class.
    tol : float, default 1e-4
        Convergence threshold of the variational lower bound, per sample.
    random_state : int, default 0
        Seed of the mixtures' initialisation.

    Attributes
    ----------
    mixtures_ : list of two fitted ``BayesianGaussianMixture`` (class 0, class 1), or
        None for a class absent from the training labels.
    class_prior_ : ndarray (2,)
        Class frequencies π₀, π₁.

    ``sample_weight`` is not supported (``BayesianGaussianMixture`` has none); passing
    one raises ``InputError``.
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None)],
        "weight_concentration_prior": [Interval(Real, 0, None, closed="neither"), None],
        "max_iter": [Interval(Integral, 1, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "random_state": [Interval(Integral, None, None),
                         InstanceOf(np.random.RandomState, "a RandomState")],
    }

    def __init__(
        self,
        n_components: int = 10,
        weight_concentration_prior: float | None = None,
        max_iter: int = 500,
        tol: float = 1e-4,
        random_state: int = 0,
    ):
        self.n_components = n_components
        self.weight_concentration_prior = weight_concentration_prior
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, scores, y, sample_weight=None) -> DPMCalibration:
        """Fit one DP mixture per class and store the class priors."""
        self._validate_params()
        a = self.weight_concentration_prior
        if sample_weight is not None:
            raise InputError(
                "DPMCalibration does not support sample_weight "
                "(scikit-learn's BayesianGaussianMixture has none)"
            )
        s = check_binary_scores(scores)
        z = check_binary_labels(y, len(s))
        counts = np.bincount(z, minlength=2).astype(np.float64)
        self.class_prior_ = counts / counts.sum()
        spread = float(np.var(s)) if len(s) > 1 else 0.0
        mixtures = []
        for c in (0, 1):
            xc = s[z == c]
            if len(xc) == 0:
                mixtures.append(None)
                continue
            if len(xc) == 1:  # a single point: duplicate it so the mixture can be fitted
                xc = np.r_[xc, xc]
            k = min(int(self.n_components), len(np.unique(xc)))
            bgm = BayesianGaussianMixture(
                n_components=k,
                weight_concentration_prior_type="dirichlet_process",
                weight_concentration_prior=a,
                covariance_type="full",
                reg_covar=max(1e-6, 1e-6 * spread),
                max_iter=int(self.max_iter),
                tol=float(self.tol) * len(xc),  # its lower bound is a sum over samples
                random_state=self.random_state,
            )
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                bgm.fit(xc[:, None])
            mixtures.append(bgm)
        self.mixtures_ = mixtures
        return self

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1) = π₁f₁ / (π₁f₁ + π₀f₀)."""
        self._check_fitted()
        s = check_binary_scores(scores)
        m0, m1 = self.mixtures_
        if m1 is None:
            return np.zeros(len(s))
        if m0 is None:
            return np.ones(len(s))
        l1 = np.log(self.class_prior_[1]) + m1.score_samples(s[:, None])
        l0 = np.log(self.class_prior_[0]) + m0.score_samples(s[:, None])
        return expit(l1 - l0)
