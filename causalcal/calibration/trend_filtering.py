"""The weighted ℓ1 linear trend filter of ELiTE (thesis §3.4, eqs. 3.23–3.24), on sorted
distinct scores x with observation weights w::

    p̂(λ) = argmin_p ½ Σ_i w_i (z_i − p_i)² + λ ‖D p‖₁,  D = D_{N−1}·diag(1/Δx)·D_N.

The thesis used the specialised ADMM of Ramdas & Tibshirani (glmgen). We use an
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
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy.linalg import cho_solve_banded, cholesky_banded, solveh_banded

from causalcal.errors import InputError

__all__ = ["TrendFilterOperator", "solve_warm", "trend_filter"]


class TrendFilterOperator:
    """The second-order difference operator D = D_{N−1}·diag(1/Δx)·D_N for sorted, distinct x,
    with observation weights w; rows i = 0 … N−3 act on entries i, i+1, i+2."""

    def __init__(self, x: np.ndarray, w: np.ndarray):
        x = np.asarray(x, dtype=np.float64)
        if len(x) < 3:
            raise InputError("trend filtering needs at least 3 distinct scores")
        h = np.diff(x)
        if np.any(h <= 0):
            raise InputError("x must be strictly increasing")
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


def solve_warm(op: TrendFilterOperator, z: np.ndarray, dz: np.ndarray, lam: float,
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
    p, nu, knots, _, ok = solve_warm(op, z, op.apply(z), lam, empty, np.empty(0),
                                 np.zeros(op.m), tol)
    if not ok:
        warnings.warn(f"trend filter: optimality not certified at lambda={lam}",
                      RuntimeWarning, stacklevel=2)
    return p, nu, knots
