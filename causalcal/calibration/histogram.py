"""Equal-frequency histogram binning (thesis §2.1.2.1; Zadrozny & Elkan 2001)."""

from __future__ import annotations

import numpy as np

from causalcal._validation import Integral, Interval
from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_scores,
    sorted_training_set,
)

__all__ = ["HistogramBinning", "equal_frequency_bins"]


def equal_frequency_bins(sorted_scores: np.ndarray, weights: np.ndarray, n_bins: int) -> np.ndarray:
    """Bin index (0..B'-1) of each sorted score for ``n_bins`` equal-frequency bins.

    A sorted point goes to bin ``floor(B · c / W)`` with ``c`` the weight before it plus
    half its own (``floor(B (i + ½) / N)`` without weights). A run of tied scores is never
    split: it joins the bin of its first element (the bin is extended). Bins left empty
    by this are dropped, so indices are consecutive.
    """
    s = sorted_scores
    w = weights
    total = w.sum()
    mid = np.cumsum(w) - 0.5 * w
    b = np.minimum((n_bins * mid / total).astype(np.int64), n_bins - 1)
    # ties: every element of a run of equal scores takes the bin of the run's first element
    starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
    run_len = np.diff(np.r_[starts, len(s)])
    b = np.repeat(b[starts], run_len)
    # relabel to consecutive indices (bins may have vanished)
    new = np.r_[True, b[1:] != b[:-1]]
    return np.cumsum(new) - 1


class HistogramBinning(BinaryCalibrator):
    """Equal-frequency (quantile) histogram binning, thesis §2.1.2.1.

    The sorted training scores are cut into ``n_bins`` bins of equal (weighted) size;
    a bin's calibrated value is the (weighted) fraction of positives in it. Tied scores
    are never split between bins. Bin boundaries lie halfway between the largest score
    of a bin and the smallest of the next; a score on a boundary belongs to the lower bin.

    Parameters
    ----------
    n_bins : int, default 10
        Number of equal-frequency bins B (fewer when there are fewer distinct scores).

    Attributes
    ----------
    thresholds_ : ndarray (``n_bins_`` - 1,)
        Interior bin boundaries.
    bin_values_ : ndarray (``n_bins_``,)
        Calibrated probability of each bin.
    bin_weights_ : ndarray (``n_bins_``,)
        Total training weight of each bin.
    n_bins_ : int
        Number of bins actually used.
    """

    _parameter_constraints = {"n_bins": [Interval(Integral, 1, None)]}

    def __init__(self, n_bins: int = 10):
        self.n_bins = n_bins

    def fit(self, scores, y, sample_weight=None) -> HistogramBinning:
        """Bin the training scores and store each bin's fraction of positives."""
        self._validate_params()
        s, z, w = sorted_training_set(scores, y, sample_weight)
        b = equal_frequency_bins(s, w, int(self.n_bins))
        nb = int(b[-1]) + 1
        bw = np.bincount(b, weights=w, minlength=nb)
        bp = np.bincount(b, weights=w * z, minlength=nb)
        first = np.searchsorted(b, np.arange(nb), side="left")
        last = np.searchsorted(b, np.arange(nb), side="right") - 1
        self.thresholds_ = 0.5 * (s[last[:-1]] + s[first[1:]])
        self.bin_values_ = bp / bw
        self.bin_weights_ = bw
        self.n_bins_ = nb
        return self

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1) of each score: the value of the bin it falls in."""
        self._check_fitted()
        s = check_binary_scores(scores)
        return self.bin_values_[np.searchsorted(self.thresholds_, s, side="left")]
