"""Isotonic-regression calibration by PAVA (thesis §2.1.2.2; Zadrozny & Elkan 2002)."""

from __future__ import annotations

import numpy as np

from causalcal.calibration._base import (
    BinaryCalibrator,
    check_binary_scores,
    pool_ties,
    sorted_training_set,
)

__all__ = ["IsotonicCalibration", "pava"]


def _merge_runs(sw: np.ndarray, swy: np.ndarray, start: np.ndarray, first_of_group: np.ndarray):
    idx = np.flatnonzero(first_of_group)
    return np.add.reduceat(sw, idx), np.add.reduceat(swy, idx), start[idx]


def pava(y: np.ndarray, w: np.ndarray) -> np.ndarray:
    """Weighted least-squares non-decreasing fit of ``y`` (pool adjacent violators).

    ``w`` must be positive. Works on blocks: adjacent equal values are pooled first (they
    always get equal fitted values), then all maximal runs of strictly decreasing block
    means are pooled at once (each such pooling is a sequence of legal PAV merges) while
    that shrinks the block count by at least 10 % per pass; the remaining blocks are
    finished by the classical stack PAVA. Every pass is O(#blocks), so the whole is O(N).
    """
    y = np.asarray(y, dtype=np.float64)
    w = np.asarray(w, dtype=np.float64)
    n = len(y)
    if n == 0:
        return y.copy()
    start = np.arange(n)
    sw, swy = w.copy(), w * y
    # 1. pool runs of equal values
    first = np.r_[True, y[1:] != y[:-1]]
    if not first.all():
        sw, swy, start = _merge_runs(sw, swy, start, first)
    # 2. vectorised passes pooling decreasing runs
    while len(sw) > 1:
        m = swy / sw
        viol = m[:-1] > m[1:]
        if not viol.any():
            break
        nb = len(sw)
        first = np.r_[True, ~viol]
        sw, swy, start = _merge_runs(sw, swy, start, first)
        if len(sw) > 0.9 * nb:
            break
    # 3. stack PAVA on the remaining blocks
    m = swy / sw
    if len(sw) > 1 and (m[:-1] > m[1:]).any():
        bw: list[float] = []
        by: list[float] = []
        bs: list[int] = []
        for wk, yk, sk in zip(sw.tolist(), swy.tolist(), start.tolist()):
            bw.append(wk)
            by.append(yk)
            bs.append(sk)
            while len(bw) > 1 and by[-2] * bw[-1] > by[-1] * bw[-2]:
                wk2 = bw.pop()
                yk2 = by.pop()
                bs.pop()
                bw[-1] += wk2
                by[-1] += yk2
        sw, swy, start = np.array(bw), np.array(by), np.array(bs, dtype=np.int64)
        m = swy / sw
    lengths = np.diff(np.r_[start, n])
    return np.repeat(m, lengths)


class IsotonicCalibration(BinaryCalibrator):
    """Isotonic-regression calibration, thesis §2.1.2.2.

    Training scores are sorted, tied scores pooled into one point (weighted mean label,
    summed weight), zero-weight samples dropped, and the non-decreasing least-squares
    fit found by PAVA. Between distinct training scores the prediction interpolates
    linearly; outside their range it is clipped to the end values — the same mapping as
    scikit-learn's ``IsotonicRegression(out_of_bounds='clip')``.

    Attributes
    ----------
    X_thresholds_ : ndarray
        Distinct training scores (sorted) at the ends of the constant pieces.
    y_thresholds_ : ndarray
        Fitted calibrated value at each of them.
    """

    def __init__(self):
        pass

    def fit(self, scores, y, sample_weight=None) -> IsotonicCalibration:
        """Fit the isotonic mapping by PAVA on the tie-pooled training scores."""
        ux, uw, u1 = pool_ties(*sorted_training_set(scores, y, sample_weight))
        fitted = pava(u1 / uw, uw)
        # drop interior points whose value equals both neighbours' (no effect on the
        # interpolation; makes prediction a search over the block ends only)
        keep = np.ones(len(fitted), dtype=bool)
        keep[1:-1] = (fitted[1:-1] != fitted[:-2]) | (fitted[1:-1] != fitted[2:])
        self.X_thresholds_ = ux[keep]
        self.y_thresholds_ = fitted[keep]
        return self

    def predict(self, scores) -> np.ndarray:
        """Calibrated P(y = 1): linear interpolation of the fit, clipped outside."""
        self._check_fitted()
        s = check_binary_scores(scores)
        return np.interp(s, self.X_thresholds_, self.y_thresholds_)
