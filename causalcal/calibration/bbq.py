"""Bayesian Binning into Quantiles (BBQ) — thesis §3.2.2 (Pakdaman Naeini et al., AAAI 2015).

BBQ scores every equal-frequency binning with B bins, for B in a range around N^(1/3), by
the BDeu marginal likelihood with a Beta prior centred on each bin's midpoint, keeps the
models before the first sharp drop of the (relative-likelihood) scores ("elbow", α) and
averages their bin probabilities with weights proportional to the relative likelihoods.

Details the thesis leaves open follow the authors' MATLAB code (github.com/pakdaman/calibration,
``BBQ/build.m``, ``predict.m``, ``elbow.m``):

* B ranges from ``max(1, ⌊N^{1/3}/C⌋)`` to ``min(⌈N/5⌉, ⌈C·N^{1/3}⌉)`` (C = 10).
* Bin b of a B-bin model holds sorted instances ``b·⌊N/B⌋ … (b+1)·⌊N/B⌋ − 1``; the last
  bin takes the remainder. Bin boundaries lie halfway between the largest score of a bin
  and the smallest of the next; the first bin starts at 0, the last ends at 1; a score
  equal to a boundary belongs to the upper bin.
* BDeu with equivalent sample size N' = 2B, i.e. 2 pseudo-counts per bin:
  ``Σ_b lnΓ(2) − lnΓ(N_b + 2) + lnΓ(m_b + 2p_b) − lnΓ(2p_b) + lnΓ(n_b + 2(1−p_b)) −
  lnΓ(2(1−p_b))`` with p_b the midpoint of the bin's interval clipped to [0.005, 0.995];
  a model's score is ``S = −2·log marginal likelihood`` (uniform structure prior).
* Bin probability: ``(m_b + q_b)/(N_b + 1)`` with ``q_b = (Σ scores of the bin's
  positives + c_b)/(m_b + 1)``, c_b the (unclipped) midpoint of the bin's interval.
* Weights are relative likelihoods ``exp((S_min − S)/2)``. The elbow rule runs on these
  weights sorted decreasingly with σ² their population variance: skip leading ties, then
  advance k while ``(R_k − R_{k+1})/σ² > α``; the first ``k − 1`` models are kept (at
  least one). The thesis text says "the first k_α"; we follow the code's k − 1.
* ``method='select'`` predicts with the single best-scoring model.

Where we knowingly differ from the MATLAB code:

* Ties: a nominal cut that would split equal scores is moved up to the end of the run of
  ties ("extend rather than split"), and cuts that coincide are dropped. The MATLAB code
  only extends a bin when the whole next chunk equals the bin's first score, so it can
  still split ties (and then averages bins with identical intervals at prediction time).
  With untied scores both give the same binnings.
* ``sample_weight`` (not in the original) multiplies the counts m_b, n_b, N_b and the
  positives' score sums; bins are still formed by instance counts.
* A model whose binning equals another's (possible only with ties) is scored once.

On the thesis's simulated designs our calibrated outputs equal the MATLAB code's (octave)
to < 10⁻⁴ mean absolute difference (``experiments/compare_original_calibrators.py``).
"""

from __future__ import annotations

import numpy as np
from scipy.special import gammaln

from causalcal._validation import Interval, Options, Real
from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_labels,
    check_binary_scores,
    check_sample_weight,
)

__all__ = ["BBQ", "bdeu_log_marginal", "bin_range", "equal_frequency_cuts"]


def bin_range(n: int, c: float = 10.0) -> tuple[int, int]:
    """Smallest and largest number of bins BBQ tries for ``n`` instances."""
    root = n ** (1.0 / 3.0)
    lo = max(1, int(np.floor(root / c)))
    hi = min(int(np.ceil(n / 5.0)), int(np.ceil(c * root)))
    return lo, max(lo, hi)


def equal_frequency_cuts(sorted_scores: np.ndarray, n_bins: int) -> np.ndarray:
    """Start indices (excluding 0) of the bins of an equal-frequency binning.

    Nominal cuts at multiples of ``⌊N/B⌋``; a cut inside a run of tied scores moves to the
    end of that run.
    """
    n = len(sorted_scores)
    width = n // n_bins
    if n_bins <= 1 or width == 0:
        return np.empty(0, dtype=np.int64)
    cuts = np.arange(1, n_bins, dtype=np.int64) * width
    # first index whose score is > the score just before the nominal cut
    cuts = np.searchsorted(sorted_scores, sorted_scores[cuts - 1], side="right")
    cuts = np.unique(cuts)
    return cuts[(cuts > 0) & (cuts < n)]


def bdeu_log_marginal(n1: np.ndarray, n0: np.ndarray, prior_mid: np.ndarray,
                      pseudo: float = 2.0) -> float:
    """BDeu log marginal likelihood of a binning (thesis eq. after 3.12).

    ``pseudo`` = N'/B is the number of pseudo-counts per bin (2 in BBQ), ``prior_mid`` the
    Beta prior's mean per bin.
    """
    a = pseudo * prior_mid
    b = pseudo * (1.0 - prior_mid)
    return float(np.sum(gammaln(pseudo) - gammaln(n1 + n0 + pseudo)
                        + gammaln(n1 + a) - gammaln(a) + gammaln(n0 + b) - gammaln(b)))


def _elbow(weights: np.ndarray, alpha: float) -> np.ndarray:
    """Indices of the models kept by the score-drop rule (see module docstring)."""
    b = len(weights)
    order = np.argsort(-weights, kind="stable")
    r = weights[order]
    sigma2 = float(np.var(r))
    if b == 1 or sigma2 <= 0.0:
        return order
    k = 0
    while k + 1 < b and r[k] == r[k + 1]:
        k += 1
    while k + 1 < b and (r[k] - r[k + 1]) / sigma2 > alpha:
        k += 1
    # k is 0-based here: the MATLAB code keeps idxs(1:k-1) with 1-based k = k + 1
    return order[: max(k, 1)]


class BBQ(BinaryCalibrator):
    """Bayesian Binning into Quantiles (thesis §3.2.2).

    Parameters
    ----------
    method : {'average', 'select'}
        Average the kept models weighted by relative likelihood, or use the best one.
    c : float
        The range constant C: B runs over ``max(1, ⌊N^{1/3}/C⌋) … min(⌈N/5⌉, ⌈C·N^{1/3}⌉)``.
    alpha : float
        Threshold of the elbow rule that prunes the models used for averaging.
    pseudo_counts : float
        Pseudo-counts per bin of the BDeu prior (N'/B; 2 in the paper).

    Fitted attributes: ``n_bins_`` (B of every scored model), ``scores_`` (−2·log marginal
    likelihood), ``weights_`` (relative likelihoods), ``kept_`` (indices of the models used),
    ``cut_points_`` / ``bin_probs_`` (per model), and the combined step function
    ``thresholds_`` / ``values_`` used by ``predict``.
    """

    _parameter_constraints = {
        "method": [Options("average", "select")],
        "c": [Interval(Real, 1, None)],
        "alpha": [Interval(Real, 0, None)],
        "pseudo_counts": [Interval(Real, 0, None, closed="neither")],
    }

    def __init__(self, method: str = "average", c: float = 10.0, alpha: float = 0.001,
                 pseudo_counts: float = 2.0):
        self.method = method
        self.c = c
        self.alpha = alpha
        self.pseudo_counts = pseudo_counts

    def fit(self, scores, y, sample_weight=None) -> BBQ:
        """Score all equal-frequency binnings of ``scores`` and keep the averaging set."""
        self._validate_params()
        s = check_binary_scores(scores)
        yv = check_binary_labels(y, len(s))
        w = check_sample_weight(sample_weight, len(s))
        order = np.argsort(s, kind="stable")
        s, yv, w = s[order], yv[order], w[order]
        n = len(s)
        cw1 = np.concatenate([[0.0], np.cumsum(w * yv)])
        cw0 = np.concatenate([[0.0], np.cumsum(w * (1 - yv))])
        cs1 = np.concatenate([[0.0], np.cumsum(w * yv * s)])
        lo, hi = bin_range(n, self.c)

        seen: set[bytes] = set()
        n_bins, model_scores, cut_points, bin_probs = [], [], [], []
        for b in range(lo, hi + 1):
            cuts = equal_frequency_cuts(s, b)
            key = cuts.tobytes()
            if key in seen:
                continue
            seen.add(key)
            starts = np.concatenate([[0], cuts])
            ends = np.concatenate([cuts, [n]])
            bounds = np.concatenate([[0.0], 0.5 * (s[cuts - 1] + s[cuts]), [1.0]])
            mid = 0.5 * (bounds[:-1] + bounds[1:])
            n1 = cw1[ends] - cw1[starts]
            n0 = cw0[ends] - cw0[starts]
            prior = np.clip(mid, 0.005, 0.995)
            logml = bdeu_log_marginal(n1, n0, prior, self.pseudo_counts)
            q = (cs1[ends] - cs1[starts] + mid) / (n1 + 1.0)
            probs = (n1 + q) / (n1 + n0 + 1.0)
            n_bins.append(len(starts))
            model_scores.append(-2.0 * logml)
            cut_points.append(bounds[1:-1])
            bin_probs.append(probs)

        sc = np.asarray(model_scores)
        weights = np.exp((sc.min() - sc) / 2.0)
        if self.method == "select":
            kept = np.array([int(np.argmin(sc))])
        else:
            kept = _elbow(weights, self.alpha)
        self.n_bins_ = np.asarray(n_bins)
        self.scores_ = sc
        self.weights_ = weights
        self.kept_ = kept
        self.cut_points_ = cut_points
        self.bin_probs_ = bin_probs
        self.thresholds_, self.values_ = self._combine(kept)
        return self

    def _combine(self, kept: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Weighted average of the kept step functions as one step function."""
        wk = self.weights_[kept] / self.weights_[kept].sum()
        base = sum(float(wi * self.bin_probs_[m][0]) for wi, m in zip(wk, kept))
        if all(len(self.cut_points_[m]) == 0 for m in kept):
            return np.empty(0), np.array([base])
        cuts = np.concatenate([self.cut_points_[m] for m in kept])
        jumps = np.concatenate([wi * np.diff(self.bin_probs_[m]) for wi, m in zip(wk, kept)])
        thr, inv = np.unique(cuts, return_inverse=True)
        step = np.bincount(inv, weights=jumps, minlength=len(thr))
        values = base + np.concatenate([[0.0], np.cumsum(step)])
        return thr, values

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1) for ``scores`` in [0, 1]."""
        self._check_fitted()
        s = check_binary_scores(scores)
        return self.values_[np.searchsorted(self.thresholds_, s, side="right")]
