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

Solver: the thesis used the specialised ADMM of Ramdas & Tibshirani (glmgen). We use an
exact active-set method certified by the optimality conditions, with a primal-dual
interior-point fallback:

1. ``_refine``: for a guessed knot set K with signs s, the optimum is the continuous
   piecewise-linear function with kinks only at K solving a tridiagonal normal system; its
   dual ν follows from ``Dᵀν = W(z − p)`` by two cumulative sums. If |ν| ≤ λ and every kink
   has the sign s, the fit is the exact optimum (KKT); otherwise wrong-signed knots are
   dropped and the most violating index of each run of |ν_i| > λ is added. Started from the
   previous λ's knots (warm start along the path).
2. If that does not certify within a few rounds: the primal-dual interior-point method of
   Kim, Koh, Boyd & Gorinevsky (2009) on the dual ``min ½ νᵀ D W⁻¹ Dᵀ ν − νᵀ D z,
   |ν| ≤ λ`` with banded Cholesky solves (``scipy.linalg.cholesky_banded``, bandwidth 2,
   iterative refinement), whose near-bound dual entries seed ``_refine`` again; failing
   that, its iterate is used (duality gap ≤ ``tol``·objective, or stagnation at ≤ 10⁻⁴;
   such fits are counted in ``n_inexact_``).

λ_max is computed exactly from the affine least-squares residual by the same cumulative
sums. df = number of knots (non-zero kinks) + 2.

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
  (``benchmarks/compare_original_calibrators.py``).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
from scipy.linalg import cho_solve_banded, cholesky_banded, solveh_banded

from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_scores,
    sorted_training_set,
)

__all__ = ["ELiTE", "TrendFilterOperator", "trend_filter"]


class TrendFilterOperator:
    """The second-order difference operator D = D_{N−1}·diag(1/Δx)·D_N for sorted, distinct x,
    with observation weights w; rows i = 0 … N−3 act on entries i, i+1, i+2."""

    def __init__(self, x: np.ndarray, w: np.ndarray):
        x = np.asarray(x, dtype=np.float64)
        if len(x) < 3:
            raise ValueError("trend filtering needs at least 3 distinct scores")
        h = np.diff(x)
        if np.any(h <= 0):
            raise ValueError("x must be strictly increasing")
        self.x = x
        self.w = np.asarray(w, dtype=np.float64)
        self.winv = 1.0 / self.w
        self.d0 = 1.0 / h[:-1]
        self.d2 = 1.0 / h[1:]
        self.d1 = -(self.d0 + self.d2)
        d0, d1, d2, wi = self.d0, self.d1, self.d2, self.winv
        m = len(d0)
        self.m = m
        diag = d0 * d0 * wi[:-2] + d1 * d1 * wi[1:-1] + d2 * d2 * wi[2:]
        off1 = d1[:-1] * d0[1:] * wi[1:-2] + d2[:-1] * d1[1:] * wi[2:-1]
        off2 = d2[:-2] * d0[2:] * wi[2:-2]
        self.band = np.zeros((3, m))
        self.band[2] = diag
        self.band[1, 1:] = off1
        self.band[0, 2:] = off2

    def apply(self, v: np.ndarray) -> np.ndarray:
        """D v."""
        return self.d0 * v[:-2] + self.d1 * v[1:-1] + self.d2 * v[2:]

    def apply_t(self, nu: np.ndarray) -> np.ndarray:
        """Dᵀ ν."""
        out = np.zeros(self.m + 2)
        out[:-2] += self.d0 * nu
        out[1:-1] += self.d1 * nu
        out[2:] += self.d2 * nu
        return out

    def primal(self, z: np.ndarray, nu: np.ndarray) -> np.ndarray:
        """p = z − W⁻¹ Dᵀ ν."""
        return z - self.winv * self.apply_t(nu)

    def lambda_max(self, z: np.ndarray) -> tuple[float, np.ndarray]:
        """Smallest λ with an affine solution, and the dual vector there."""
        x, w = self.x, self.w
        xc = x - np.average(x, weights=w)
        slope = np.sum(w * xc * z) / np.sum(w * xc * xc)
        fit = np.average(z, weights=w) + slope * xc
        r = w * (z - fit)
        u = -np.cumsum(r)[:-1]
        q = np.diff(x) * u
        nu = -np.cumsum(q)[:-1]
        return float(np.max(np.abs(nu))) if len(nu) else 0.0, nu


def _polish(op: TrendFilterOperator, z: np.ndarray, lam: float, knots: np.ndarray,
            signs: np.ndarray):
    """Exact fit for a guessed knot set, and whether it satisfies the optimality conditions.

    With knots K (rows of D) and signs s, the optimum is the continuous piecewise-linear
    function with kinks only at K solving ``BᵀWB θ = BᵀWz − λ D_Kᵀ s`` (B the hat basis on
    the nodes {x_0} ∪ x_{K+1} ∪ {x_{N−1}}). Its dual vector follows from ``Dᵀν = W(z − p)``
    by two cumulative sums; the guess is right iff |ν| ≤ λ and s·(Dp)_K ≥ 0.
    """
    x, w = op.x, op.w
    n = len(x)
    nodes = np.concatenate([[0], knots + 1, [n - 1]])
    xn = x[nodes]
    seg = np.clip(np.searchsorted(xn, x, side="right") - 1, 0, len(nodes) - 2)
    tau = (x - xn[seg]) / (xn[seg + 1] - xn[seg])
    k = len(nodes)
    a0 = 1.0 - tau
    diag = np.bincount(seg, w * a0 * a0, k) + np.bincount(seg + 1, w * tau * tau, k)
    off = np.bincount(seg, w * a0 * tau, k - 1)[: k - 1]
    rhs = np.bincount(seg, w * a0 * z, k) + np.bincount(seg + 1, w * tau * z, k)
    if len(knots):
        hn = np.diff(xn)
        # D_K rows: node j-1, j, j+1 for interior nodes j = 1 … k-2
        dk0, dk2 = 1.0 / hn[:-1], 1.0 / hn[1:]
        dk1 = -(dk0 + dk2)
        ls = lam * signs
        rhs[:-2] -= dk0 * ls
        rhs[1:-1] -= dk1 * ls
        rhs[2:] -= dk2 * ls
    band = np.zeros((2, k))
    band[1] = diag
    band[0, 1:] = off
    theta = solveh_banded(band, rhs, check_finite=False)
    p = a0 * theta[seg] + tau * theta[seg + 1]
    p[nodes] = theta
    r = w * (z - p)
    u = -np.cumsum(r)[:-1]
    nu = -np.cumsum(np.diff(x) * u)[:-1]
    if len(knots):
        sl = np.diff(theta) / np.diff(xn)
        kink = np.diff(sl)  # (Dp) at the knots, computed on the coarse nodes
    else:
        kink = np.empty(0)
    return p, nu, kink


def _runs_argmax(mask: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Index of the largest ``score`` within each maximal run of True in ``mask``."""
    idx = np.flatnonzero(mask)
    if len(idx) == 0:
        return idx
    starts = np.flatnonzero(np.concatenate([[True], np.diff(idx) > 1]))
    out = np.empty(len(starts), dtype=np.int64)
    bounds = np.concatenate([starts, [len(idx)]])
    for r in range(len(starts)):
        seg = idx[bounds[r]: bounds[r + 1]]
        out[r] = seg[np.argmax(score[seg])]
    return out


def _refine(op: TrendFilterOperator, z: np.ndarray, lam: float, knots: np.ndarray,
            signs: np.ndarray, max_rounds: int = 40):
    """Active-set search for the exact solution from a guessed knot set.

    Each round fits the guess exactly (``_polish``), drops knots whose kink has the wrong
    sign and adds, for every run of dual violations |ν_i| > λ, the most violating index.
    Stops with a certified optimum (|ν| ≤ λ and sign-consistent kinks).
    Returns ``(p, nu, knots, signs, exact)``.
    """
    knots = np.asarray(knots, dtype=np.int64)
    signs = np.asarray(signs, dtype=np.float64)
    bound = lam * (1.0 + 1e-9) + 1e-12
    for _ in range(max_rounds):
        p, nu, kink = _polish(op, z, lam, knots, signs)
        absnu = np.abs(nu)
        viol = absnu > bound
        viol[knots] = False
        wrong = signs * kink < 0
        if not viol.any() and not wrong.any():
            keep = np.abs(kink) > 1e-7 * (np.abs(kink).max() if len(kink) else 0.0)
            return p, nu, knots[keep], signs[keep], True
        add = _runs_argmax(viol, absnu)
        knots = np.concatenate([knots[~wrong], add])
        signs = np.concatenate([signs[~wrong], np.sign(nu[add])])
        order = np.argsort(knots)
        knots, signs = knots[order], signs[order]
    return p, nu, knots, signs, False


def _ipm(op: TrendFilterOperator, z: np.ndarray, dz: np.ndarray, lam: float,
         nu: np.ndarray, tol: float, max_iter: int):
    """Primal-dual interior point (Kim et al. 2009) on the dual problem.

    Returns ``(p, nu, iterations, converged)``; the iterate is then certified or corrected
    by ``_refine``.
    """
    m = op.m
    nu = np.clip(nu, -0.99 * lam, 0.99 * lam)
    mu1 = np.ones(m)
    mu2 = np.ones(m)
    t = 1e-10
    step = np.inf
    f1 = nu - lam
    f2 = -nu - lam
    alpha_ls, beta_ls, mu_t = 0.01, 0.5, 2.0
    band = op.band.copy()
    best, stall = np.inf, 0
    for it in range(max_iter):
        dtnu = op.apply_t(nu)
        p = z - op.winv * dtnu
        dp = op.apply(p)
        pobj = 0.5 * float(np.dot(dtnu * op.winv, dtnu)) + lam * float(np.abs(dp).sum())
        gap = lam * float(np.abs(dp).sum()) - float(np.dot(nu, dp))
        if gap < 0.9 * best:
            best, stall = gap, 0
        else:
            stall += 1
        if gap <= tol * max(1.0, pobj) or (stall >= 5 and gap <= 1e-4 * max(1.0, pobj)):
            # converged, or the gap has reached its rounding floor (Dᵀν cancels heavily
            # when scores are close)
            return p, nu, it, gap <= tol * max(1.0, pobj)
        if step >= 0.2:
            t = max(2.0 * m * mu_t / max(gap, 1e-300), 1.2 * t)
        hnu = op.apply(op.winv * dtnu)
        rhs = -(hnu - dz) + (1.0 / t) / f1 - (1.0 / t) / f2
        band[2] = op.band[2] - mu1 / f1 - mu2 / f2
        sig = -mu1 / f1 - mu2 / f2
        try:
            chol = cholesky_banded(band, check_finite=False)
        except np.linalg.LinAlgError:
            break
        dnu = cho_solve_banded((chol, False), rhs, check_finite=False)
        for _ in range(2):  # iterative refinement against the ill-conditioned normal matrix
            corr = rhs - op.apply(op.winv * op.apply_t(dnu)) - sig * dnu
            dnu += cho_solve_banded((chol, False), corr, check_finite=False)
        dmu1 = -(mu1 + (1.0 / t + dnu * mu1) / f1)
        dmu2 = -(mu2 + (1.0 / t - dnu * mu2) / f2)
        res = np.concatenate([hnu - dz + mu1 - mu2, -mu1 * f1 - 1.0 / t, -mu2 * f2 - 1.0 / t])
        rnorm = np.linalg.norm(res)
        step = 1.0
        neg = dmu1 < 0
        if neg.any():
            step = min(step, 0.99 * float(np.min(-mu1[neg] / dmu1[neg])))
        neg = dmu2 < 0
        if neg.any():
            step = min(step, 0.99 * float(np.min(-mu2[neg] / dmu2[neg])))
        hdnu = op.apply(op.winv * op.apply_t(dnu))
        for _ in range(60):
            nnu = nu + step * dnu
            nf1 = nnu - lam
            nf2 = -nnu - lam
            if max(nf1.max(), nf2.max()) < 0:
                nmu1 = mu1 + step * dmu1
                nmu2 = mu2 + step * dmu2
                nres = np.concatenate([hnu + step * hdnu - dz + nmu1 - nmu2,
                                       -nmu1 * nf1 - 1.0 / t, -nmu2 * nf2 - 1.0 / t])
                if np.linalg.norm(nres) <= (1.0 - alpha_ls * step) * rnorm:
                    break
            step *= beta_ls
        else:
            break
        nu, mu1, mu2, f1, f2 = nnu, nmu1, nmu2, nf1, nf2
    return op.primal(z, nu), nu, max_iter, False


def _solve(op: TrendFilterOperator, z: np.ndarray, dz: np.ndarray, lam: float,
           knots: np.ndarray, signs: np.ndarray, nu: np.ndarray, tol: float):
    """One λ: active-set refinement from a warm knot set, else interior point + refinement.

    Returns ``(p, nu, knots, signs, exact)``.
    """
    res = _refine(op, z, lam, knots, signs, max_rounds=100)
    if res[4]:
        return res
    p, nu_ipm, _, converged = _ipm(op, z, dz, lam, nu, tol, 200)
    guess = _runs_argmax(np.abs(nu_ipm) >= lam * (1.0 - 1e-3), np.abs(nu_ipm))
    res = _refine(op, z, lam, guess, np.sign(nu_ipm[guess]), max_rounds=40)
    if res[4]:
        return res
    # the interior-point iterate itself, optimal to the duality-gap tolerance
    return p, nu_ipm, guess, np.sign(nu_ipm[guess]), converged


def trend_filter(x, z, w=None, lam: float = 1.0, *, tol: float = 1e-8
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Weighted ℓ1 linear trend filter on sorted distinct ``x`` at one ``lam``.

    Returns ``(p, nu, knots)``: the fit, the dual vector (|ν| ≤ λ) and the rows of D with
    a kink (the fit changes slope at ``x[knots + 1]``).
    """
    x = np.asarray(x, dtype=np.float64)
    z = np.asarray(z, dtype=np.float64)
    w = np.ones(len(x)) if w is None else np.asarray(w, dtype=np.float64)
    op = TrendFilterOperator(x, w)
    lmax, nu_max = op.lambda_max(z)
    if lam >= lmax:
        return op.primal(z, nu_max), nu_max, np.empty(0, dtype=np.int64)
    empty = np.empty(0, dtype=np.int64)
    p, nu, knots, _, ok = _solve(op, z, op.apply(z), lam, empty, np.empty(0),
                                 np.zeros(op.m), tol)
    if not ok:
        warnings.warn(f"trend filter: optimality not certified at lambda={lam}",
                      RuntimeWarning, stacklevel=2)
    return p, nu, knots


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

    def __init__(self, method: str = "average", n_lambdas: int = 50,
                 lambda_min_ratio: float = 1e-4, thin_width: float = 1e-5,
                 max_points: int = 5000, tol: float = 1e-7):
        self.method = method
        self.n_lambdas = n_lambdas
        self.lambda_min_ratio = lambda_min_ratio
        self.thin_width = thin_width
        self.max_points = max_points
        self.tol = tol

    def _validate_params(self) -> None:
        if self.method not in ("average", "select"):
            raise ValueError(f"method must be 'average' or 'select', got {self.method!r}")
        if not isinstance(self.n_lambdas, (int, np.integer)) or self.n_lambdas < 1:
            raise ValueError(f"n_lambdas must be a positive integer, got {self.n_lambdas!r}")
        if not (0 < self.lambda_min_ratio < 1):
            raise ValueError(f"lambda_min_ratio must lie in (0, 1), got {self.lambda_min_ratio!r}")
        if not (np.isfinite(self.thin_width) and self.thin_width > 0):
            raise ValueError(f"thin_width must be > 0, got {self.thin_width!r}")
        if not isinstance(self.max_points, (int, np.integer)) or self.max_points < 3:
            raise ValueError(f"max_points must be an integer >= 3, got {self.max_points!r}")
        if not (np.isfinite(self.tol) and self.tol > 0):
            raise ValueError(f"tol must be > 0, got {self.tol!r}")

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
                p, nu, knots_, signs_, ok = _solve(op, z, dz, lam, knots_, signs_, nu, self.tol)
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
