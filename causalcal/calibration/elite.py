"""Ensemble of Linear Trend Estimation (ELiTE) — thesis §3.4 (Pakdaman Naeini & Cooper,
SDM 2016).

Each model is an ℓ1 linear trend filter of the labels ordered by score, with the unequal
spacing of the scores (thesis eqs. 3.23–3.24):

    p̂(λ) = argmin_p ½ Σ_i w_i (z_i − p_i)² + λ ‖D_{N−1} A p‖₁,
    A = diag(1/(y_{i+1} − y_i)) D_N,

so ``D = D_{N−1}A`` takes the change of slope at every interior score. T = 50 values of λ run
log-evenly from λ_max (the smallest λ whose fit is affine, thesis: ‖(DDᵀ)⁻¹Dz‖∞) down to
λ_max·10⁻⁴; each fit is scored by AICc with the trend filter's degrees of freedom
(number of knots + 2, Tibshirani 2014) and the fits are averaged with relative-likelihood
weights; prediction interpolates linearly.

Solver: an exact active-set method certified by the optimality conditions, with a
primal-dual interior-point fallback (:mod:`causalcal.calibration.trend_filtering`).

Details the thesis leaves open follow the authors' R code (github.com/pakdaman/calibration,
``ELiTE/R``: ``ELiTE.R`` calling ``glmgen::trendfilter(k = 1, lambda.min.ratio = 1e-4)``):

* Scores are thinned: scores falling in the same 10⁻⁵-wide cell (``⌈y/10⁻⁵⌉``) become one
  observation at their mean score with the mean label and weight = count. (The R code
  pools only cell-mates adjacent in *input* order; glmgen then pools x closer than
  10⁻⁶·max(IQR, range/2). We pool sorted scores, which is what both intend.)
* Fitted values are clipped to [0, 1] before scoring and before prediction. The
  log-likelihood omits terms of zero likelihood (the R code's ``l != 0`` filter), and
  ``AICc = 2df − 2logL + 2df(df + 1)/(N − df − 1)``.
* Weights ``exp((S_min − S)/2)``, normalised; all models are averaged (no pruning);
  ``method='select'`` takes the lowest-AICc model.

Where we knowingly differ from the R code:

* Neighbouring thinned observations closer than width/10 are pooled as well (at most pairs
  can be, see ``_thin``), and when more than ``max_points`` (5000) pooled scores remain the
  cells widen to (score range)/max_points. Both bound the spacing ratio, which the
  interior-point fallback needs (D has entries 1/Δx, so close scores make Dᵀν cancel
  catastrophically) and on which the active-set search converges (on very fine grids many
  near-equivalent knot positions make it wander), and keep N = 10⁵ fast. A calibration map
  with a few dozen knots is unaffected by pooling scores within 2·10⁻⁴; with ≤ 5000 pooled
  scores nothing changes.
* N in AICc is the total weight of the observations with non-zero likelihood (the R code
  counts thinned observations, which differs only when thinning pooled scores).
* Beyond the extreme training scores the averaged fit is extended linearly from its end
  segments and clipped to [0, 1] (glmgen's ``predict`` extends each model linearly, then
  the R code clips it); each model is clipped at
  its knots before averaging, so between training scores the average of clipped models
  is interpolated (equal wherever a model stays in [0, 1]).
* ``sample_weight`` (not in the original) multiplies the thinning counts.
* Our fits are exact (or within the duality-gap tolerance); glmgen's ADMM stops after 200
  iterations or at a relative objective change of 10⁻⁵ and occasionally returns an
  unconverged fit with df = n, whose AICc (negative denominator n − df − 1) then takes all
  the weight in the original's average. Apart from that, calibrated outputs agree with the
  original to ≤ 0.016 mean absolute difference on the thesis's simulated designs
  (``experiments/compare_original_calibrators.py``).
"""

from __future__ import annotations

import math

import numpy as np

from causalcal._validation import Integral, Interval, Options, Real
from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_scores,
    sorted_training_set,
)
from causalcal.calibration.trend_filtering import (
    TrendFilterOperator,
    solve_warm,
    trend_filter,
)

__all__ = ["ELiTE", "TrendFilterOperator", "trend_filter"]


def _thin(s: np.ndarray, y: np.ndarray, w: np.ndarray, width: float):
    """Pool sorted scores per ``width`` cell, then pool neighbours closer than width/10.

    Two pooled cells closer than width/10 must be adjacent cells and no third one can join
    them (its mean is more than ``width`` away), so the second pass pools pairs only.
    """
    cell = np.ceil(s / width)
    starts = np.flatnonzero(np.concatenate([[True], cell[1:] != cell[:-1]]))
    gw = np.add.reduceat(w, starts)
    gx = np.add.reduceat(w * s, starts) / gw
    gy = np.add.reduceat(w * y, starts)
    starts2 = np.flatnonzero(np.concatenate([[True], np.diff(gx) >= width / 10.0]))
    w2 = np.add.reduceat(gw, starts2)
    x2 = np.add.reduceat(gw * gx, starts2) / w2
    y2 = np.add.reduceat(gy, starts2) / w2
    return x2, y2, w2


class ELiTE(BinaryCalibrator):
    """Ensemble of linear trend estimation (thesis §3.4).

    Parameters
    ----------
    method : {'average', 'select'}
        AICc-weighted averaging of the T fits, or the lowest-AICc fit.
    n_lambdas : int
        T, the number of λ values (50 in the thesis).
    lambda_min_ratio : float
        Smallest λ as a fraction of λ_max (10⁻⁴ in the thesis).
    thin_width : float
        Width of the score cells pooled before fitting (10⁻⁵ in the authors' code).
    max_points : int
        If more than this many pooled scores remain, the cells widen to
        (max − min score)/max_points (see the module notes).
    tol : float
        Relative duality-gap tolerance of the interior-point fallback (fits found by the
        active-set search are exact).

    Fitted attributes: ``x_``, ``z_``, ``w_`` (thinned training scores, mean labels,
    weights), ``fits_`` (T × len(x_), clipped),
    ``lambdas_``, ``df_``, ``aicc_``, ``weights_`` (normalised), ``values_`` (the averaged
    fit at ``x_``).
    """

    _parameter_constraints = {
        "method": [Options("average", "select")],
        "n_lambdas": [Interval(Integral, 1, None)],
        "lambda_min_ratio": [Interval(Real, 0, 1, closed="neither")],
        "thin_width": [Interval(Real, 0, None, closed="neither")],
        "max_points": [Interval(Integral, 3, None)],
        "tol": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, method: str = "average", n_lambdas: int = 50,
                 lambda_min_ratio: float = 1e-4, thin_width: float = 1e-5,
                 max_points: int = 5000, tol: float = 1e-7):
        self.method = method
        self.n_lambdas = n_lambdas
        self.lambda_min_ratio = lambda_min_ratio
        self.thin_width = thin_width
        self.max_points = max_points
        self.tol = tol

    def fit(self, scores, y, sample_weight=None) -> ELiTE:
        """Fit the T trend filters along the λ path and their AICc weights."""
        self._validate_params()
        s, yv, w = sorted_training_set(scores, y, sample_weight)
        x, z, wt = _thin(s, yv, w, self.thin_width)
        if len(x) > self.max_points:
            x, z, wt = _thin(s, yv, w, (s[-1] - s[0]) / self.max_points)
        self.x_, self.z_, self.w_ = x, z, wt
        if len(x) < 3:
            # too few distinct scores for a change of slope: the fit interpolates the data
            self.fits_ = np.clip(z, 0.0, 1.0)[None, :]
            self.lambdas_ = np.zeros(1)
            self.df_ = np.array([len(x)])
            self.aicc_ = np.zeros(1)
            self.weights_ = np.ones(1)
            self.values_ = self.fits_[0]
            return self
        op = TrendFilterOperator(x, wt)
        lmax, nu_max = op.lambda_max(z)
        dz = op.apply(z)
        lams = lmax * np.logspace(0.0, math.log10(self.lambda_min_ratio), self.n_lambdas)
        fits, dfs, scores_ = [], [], []
        nu = nu_max
        knots_, signs_ = np.empty(0, dtype=np.int64), np.empty(0)
        n_fail = 0
        for lam in lams:
            if lam >= lmax or lmax == 0.0:
                nu = nu_max
                knots = 0
                p = op.primal(z, nu)
            else:
                p, nu, knots_, signs_, ok = solve_warm(op, z, dz, lam, knots_, signs_, nu, self.tol)
                n_fail += not ok
                knots = len(knots_)
            p = np.clip(p, 0.0, 1.0)
            df = knots + 2
            fits.append(p)
            dfs.append(df)
            scores_.append(self._aicc(p, z, wt, df))
        self.n_inexact_ = n_fail
        sc = np.asarray(scores_)
        finite = np.isfinite(sc)
        if not finite.any():
            finite[:] = True
            sc = np.zeros_like(sc)
        if self.method == "select":
            wts = np.zeros(len(sc))
            wts[int(np.argmin(np.where(finite, sc, np.inf)))] = 1.0
        else:
            smin = sc[finite].min()
            wts = np.where(finite, np.exp(-(np.where(finite, sc, smin) - smin) / 2.0), 0.0)
            wts /= wts.sum()
        self.fits_ = np.asarray(fits)
        self.lambdas_ = lams
        self.df_ = np.asarray(dfs)
        self.aicc_ = sc
        self.weights_ = wts
        self.values_ = wts @ self.fits_
        return self

    @staticmethod
    def _aicc(p: np.ndarray, z: np.ndarray, w: np.ndarray, df: int) -> float:
        """AICc of a clipped fit; pooled observations contribute w·(z log p + (1−z) log(1−p))."""
        pos = w * z
        neg = w * (1.0 - z)
        with np.errstate(divide="ignore", invalid="ignore"):
            t1 = np.where(pos > 0, pos * np.log(p), 0.0)
            t0 = np.where(neg > 0, neg * np.log1p(-p), 0.0)
        valid = np.isfinite(t1) & np.isfinite(t0)
        loglik = float((t1 + t0)[valid].sum())
        n = float(w[valid].sum())
        if n - df - 1 <= 0:
            return math.inf
        return 2.0 * df - 2.0 * loglik + 2.0 * df * (df + 1) / (n - df - 1)

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1): linear interpolation of the averaged fit, clipped to [0, 1]."""
        self._check_fitted()
        s = check_binary_scores(scores)
        x, v = self.x_, self.values_
        out = np.interp(s, x, v)
        if len(x) >= 2:
            lo = s < x[0]
            hi = s > x[-1]
            if lo.any():
                out[lo] = v[0] + (s[lo] - x[0]) * (v[1] - v[0]) / (x[1] - x[0])
            if hi.any():
                out[hi] = v[-1] + (s[hi] - x[-1]) * (v[-1] - v[-2]) / (x[-1] - x[-2])
        return np.clip(out, 0.0, 1.0)
