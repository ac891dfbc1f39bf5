"""Selection and averaging over Bayesian binnings, SBB and ABB (thesis §3.2.1; seeds 001/004).

A binning partitions the sorted distinct training scores (atoms) into contiguous bins. Its
score (thesis eq. 3.9) is the product over bins of

    Prior(u_b) · Π_{k=l_b}^{u_b-1} (1 − Prior(k)) · n_b! m_b! / (N_b + 1)!

(K2 marginal likelihood with a uniform Beta(1, 1) prior per bin, n_b / m_b the class-0 /
class-1 counts) with the Poisson boundary prior Prior(k) = 1 − exp(−λ·d(k, k+1)/d(1, N))
(eq. 3.7) and Prior(N) = 1. Tied scores have distance 0, so a boundary never separates
them: the candidate boundaries are the gaps between distinct scores. Because
−log(1 − Prior(k)) = λ·d(k, k+1)/d(1, N), the inner product telescopes to
exp(−λ (y_u − y_l)/d(1, N)), and one bin's log score is O(1) from prefix sums.

SBB finds the best binning by the O(N²) forward dynamic programme (thesis Algorithm 1);
ABB sums over all 2^(N−1) binnings by a forward and a backward O(N²) pass (eq. 3.11):
the posterior probability of bin [l, u] is V^f_{l−1}·Score_{l,u}·V^b_{u+1} / V^f_N, and the
calibrated value at atom j is the posterior mean, over the bins containing j, of the bin's
smoothed frequency (m_b + 1)/(N_b + 2) (the Beta(1, 1) posterior mean, the smoothing the
papers' footnote mentions). Work is done in log space.

Choices the papers leave open (documented here): a score between two training scores
belongs to the bin of the nearer one (bin boundaries halfway between neighbouring
distinct scores; a score exactly halfway goes down), scores outside the training range to
the end bins; λ defaults to 1 (λ is the expected number of boundaries over the score
range); SBB uses the same smoothed bin frequency as ABB. ABB stores its output on a table
of R equally spaced points of [0, 1] (cell midpoints) and answers a score by the table
entry of its cell (thesis §3.2.1.4); ``n_grid=None`` evaluates the exact averaging at any
score instead.
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from causalcal._validation import Integral, Interval, Real
from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_scores,
    pool_ties,
    sorted_training_set,
)

__all__ = ["SBB", "ABB"]


class _Atoms:
    """Distinct sorted training scores with their weighted class counts and prefix sums."""

    def __init__(self, s: np.ndarray, z: np.ndarray, w: np.ndarray, lam: float):
        """``s, z, w``: training data sorted by score, as :func:`sorted_training_set` gives."""
        self.x, total_w, n1 = pool_ties(s, z, w)
        n0 = total_w - n1
        self.k = len(self.x)
        self.c0 = np.r_[0.0, np.cumsum(n0)]
        self.c1 = np.r_[0.0, np.cumsum(n1)]
        self.integer = bool(np.all(w == np.round(w)))
        if self.integer:
            self.c0 = np.round(self.c0).astype(np.int64)
            self.c1 = np.round(self.c1).astype(np.int64)
            total = int(self.c0[-1] + self.c1[-1])
            self.lf = gammaln(np.arange(total + 2, dtype=np.float64) + 1.0)  # log k!
        span = float(self.x[-1] - self.x[0])
        self.rate = lam / span if span > 0 else 0.0
        gaps = np.diff(self.x)
        # log Prior(k) for a boundary after atom k (k < K-1); 0 after the last atom
        with np.errstate(divide="ignore"):
            self.log_prior_end = np.r_[np.log(-np.expm1(-self.rate * gaps)), 0.0]

    def log_ml(self, n0, n1) -> np.ndarray:
        """K2 log marginal likelihood log(n0! n1! / (n0 + n1 + 1)!)."""
        if self.integer:
            lf = self.lf
            return lf[n0] + lf[n1] - lf[n0 + n1 + 1]
        return gammaln(n0 + 1.0) + gammaln(n1 + 1.0) - gammaln(n0 + n1 + 2.0)

    def row_end(self, u: int):
        """Log bin scores and counts of the bins [l, u] for l = 0..u."""
        n0 = self.c0[u + 1] - self.c0[: u + 1]
        n1 = self.c1[u + 1] - self.c1[: u + 1]
        ls = (
            self.log_ml(n0, n1)
            - self.rate * (self.x[u] - self.x[: u + 1])
            + self.log_prior_end[u]
        )
        return ls, n0, n1

    def row_start(self, l: int):
        """Log bin scores and counts of the bins [l, u] for u = l..K-1."""
        n0 = self.c0[l + 1 :] - self.c0[l]
        n1 = self.c1[l + 1 :] - self.c1[l]
        ls = self.log_ml(n0, n1) - self.rate * (self.x[l:] - self.x[l]) + self.log_prior_end[l:]
        return ls, n0, n1

    def nearest(self, s: np.ndarray) -> np.ndarray:
        """Index of the nearest atom (halfway goes to the lower one)."""
        mids = 0.5 * (self.x[1:] + self.x[:-1])
        return np.searchsorted(mids, s, side="left")


_POISSON = [Interval(Real, 0, None, closed="neither")]


def _prepare(est, scores, y, sample_weight) -> _Atoms:
    est._validate_params()
    return _Atoms(*sorted_training_set(scores, y, sample_weight), float(est.poisson_lambda))


class SBB(BinaryCalibrator):
    """Selection over Bayesian Binnings (thesis §3.2.1; Naeini, Cooper & Hauskrecht 2015).

    Finds the binning of the sorted training scores with the highest Bayesian score
    (K2 marginal likelihood × Poisson boundary prior) by O(N²) dynamic programming and
    predicts with the smoothed frequency (m_b + 1)/(N_b + 2) of the bin a score falls in.
    ``sample_weight`` enters as fractional counts.

    Parameters
    ----------
    poisson_lambda : float, default 1.0
        λ of the boundary prior, Prior(k) = 1 − exp(−λ·d(k, k+1)/d(1, N)).

    Attributes
    ----------
    thresholds_ : ndarray (``n_bins_`` - 1,)
        Boundaries between the selected bins (halfway between neighbouring scores).
    bin_values_ : ndarray (``n_bins_``,)
        Calibrated value of each bin.
    bin_counts_ : ndarray (``n_bins_``, 2)
        Weighted class-0 / class-1 counts of each bin.
    log_score_ : float
        Log Bayesian score of the selected binning.
    n_bins_ : int
    """

    _parameter_constraints = {"poisson_lambda": _POISSON}

    def __init__(self, poisson_lambda: float = 1.0):
        self.poisson_lambda = poisson_lambda

    def fit(self, scores, y, sample_weight=None) -> SBB:
        """Select the highest-scoring binning by dynamic programming."""
        a = _prepare(self, scores, y, sample_weight)
        k = a.k
        v = np.empty(k + 1)  # v[u+1] = best log score of atoms 0..u; v[0] = 0
        v[0] = 0.0
        back = np.empty(k, dtype=np.int64)
        for u in range(k):
            ls, _, _ = a.row_end(u)
            cand = v[: u + 1] + ls
            best = int(np.argmax(cand))
            v[u + 1] = cand[best]
            back[u] = best
        starts = []
        u = k - 1
        while u >= 0:
            starts.append(int(back[u]))
            u = back[u] - 1
        starts = np.array(starts[::-1], dtype=np.int64)
        ends = np.r_[starts[1:] - 1, k - 1]
        n0 = (a.c0[ends + 1] - a.c0[starts]).astype(np.float64)
        n1 = (a.c1[ends + 1] - a.c1[starts]).astype(np.float64)
        self.thresholds_ = 0.5 * (a.x[ends[:-1]] + a.x[starts[1:]])
        self.bin_values_ = (n1 + 1.0) / (n0 + n1 + 2.0)
        self.bin_counts_ = np.column_stack([n0, n1])
        self.log_score_ = float(v[k])
        self.n_bins_ = len(starts)
        return self

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1): the value of the selected bin containing each score."""
        self._check_fitted()
        s = check_binary_scores(scores)
        return self.bin_values_[np.searchsorted(self.thresholds_, s, side="left")]


class ABB(BinaryCalibrator):
    """Averaging over Bayesian Binnings (thesis §3.2.1; Naeini, Cooper & Hauskrecht 2015).

    Bayesian model averaging over all binnings of the sorted training scores, weighted by
    their Bayesian score (K2 × Poisson boundary prior), computed exactly in O(N²) by a
    forward and a backward dynamic programme (thesis eq. 3.11). The averaged output is
    tabulated on ``n_grid`` equally spaced points of [0, 1] and looked up at prediction.

    Parameters
    ----------
    poisson_lambda : float, default 1.0
        λ of the boundary prior.
    n_grid : int or None, default 1000
        R, the size of the prediction table; ``None`` evaluates the exact average at
        each score (nearest training score's value).

    Attributes
    ----------
    X_ : ndarray
        Distinct training scores.
    atom_values_ : ndarray
        Model-averaged calibrated value at each distinct training score.
    grid_values_ : ndarray (n_grid,) or None
        The prediction table at the cell midpoints (r + ½)/R.
    log_evidence_ : float
        Log of the sum of the scores of all binnings.
    """

    _parameter_constraints = {"poisson_lambda": _POISSON,
                              "n_grid": [Interval(Integral, 1, None), None]}

    def __init__(self, poisson_lambda: float = 1.0, n_grid: int | None = 1000):
        self.poisson_lambda = poisson_lambda
        self.n_grid = n_grid

    def fit(self, scores, y, sample_weight=None) -> ABB:
        """Average over all binnings by forward/backward dynamic programming."""
        a = _prepare(self, scores, y, sample_weight)
        k = a.k
        c0, c1 = a.c0, a.c1
        cn = c0 + c1
        rx = a.rate * a.x
        lpe = a.log_prior_end
        if a.integer:
            lf = a.lf

            def log_ml(n0, n1, n):
                return lf[n0] + lf[n1] - lf[n + 1]
        else:

            def log_ml(n0, n1, n):
                return gammaln(n0 + 1.0) + gammaln(n1 + 1.0) - gammaln(n + 2.0)

        # log Score_{l,u} = log_ml(l, u) + rx[l] − rx[u] + lpe[u]  (prior telescoped)
        f = np.empty(k + 1)  # f[u+1] = log sum of scores of binnings of atoms 0..u
        f[0] = 0.0
        hf = np.empty(k)  # f[l] + rx[l]
        for u in range(k):
            hf[u] = f[u] + rx[u]
            t = log_ml(c0[u + 1] - c0[: u + 1], c1[u + 1] - c1[: u + 1], cn[u + 1] - cn[: u + 1])
            t += hf[: u + 1]
            m = t.max()
            f[u + 1] = m + np.log(np.sum(np.exp(t - m))) - rx[u] + lpe[u]
        logz = f[k]
        b = np.empty(k + 1)  # b[l] = log sum of scores of binnings of atoms l..K-1
        b[k] = 0.0
        hb = np.empty(k)  # lpe[u] − rx[u] + b[u+1]
        rowsum = np.empty(k)  # Σ_u P(bin [l, u]) p̂_{l,u}
        colsum = np.zeros(k)  # Σ_l P(bin [l, u]) p̂_{l,u}
        for l in range(k - 1, -1, -1):
            hb[l] = lpe[l] - rx[l] + b[l + 1]
            n1 = c1[l + 1 :] - c1[l]
            n = cn[l + 1 :] - cn[l]
            t = log_ml(c0[l + 1 :] - c0[l], n1, n)
            t += hb[l:]
            m = t.max()
            e = np.exp(t - m)
            b[l] = m + np.log(e.sum()) + rx[l]
            e *= (n1 + 1.0) / (n + 2.0)  # posterior (up to the factor below) × p̂_{l,u}
            scale = np.exp(f[l] + m + rx[l] - logz)
            rowsum[l] = scale * e.sum()
            colsum[l:] += scale * e
        # value at atom j = Σ_{l ≤ j ≤ u} P(bin [l, u]) p̂_{l,u}
        #                 = Σ_{l ≤ j} rowsum[l] − Σ_{u < j} colsum[u]
        pred = np.cumsum(rowsum) - np.r_[0.0, np.cumsum(colsum)[:-1]]
        pred = np.clip(pred, 0.0, 1.0)
        self.X_ = a.x
        self.atom_values_ = pred
        self.log_evidence_ = float(logz)
        if self.n_grid is None:
            self.grid_values_ = None
        else:
            r = int(self.n_grid)
            grid = (np.arange(r) + 0.5) / r
            self.grid_values_ = pred[a.nearest(grid)]
        return self

    def _exact(self, s: np.ndarray) -> np.ndarray:
        mids = 0.5 * (self.X_[1:] + self.X_[:-1])
        return self.atom_values_[np.searchsorted(mids, s, side="left")]

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1): table lookup (or the exact average with ``n_grid=None``)."""
        self._check_fitted()
        s = check_binary_scores(scores)
        if self.grid_values_ is None:
            return self._exact(s)
        r = len(self.grid_values_)
        cell = np.minimum((s * r).astype(np.int64), r - 1)
        return self.grid_values_[cell]
