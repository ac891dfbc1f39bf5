"""Measures shared by the edge-type and the causal-relation evaluation (docs/design.md §9.4,
§9.9): class probabilities of unordered pairs whose columns 1 and 2 are the two directions.

Everything is vectorised over the pairs; no Python object is made per pair.

* **Prediction** = argmax of a row (ties go to the lower class index, so an all-equal row
  predicts class 0).
* **Precision / recall / F1** from the confusion counts ``C[true, predicted]``: one class
  against the rest (:func:`one_vs_rest_ratios`), or the two directions together by thesis
  **Table 32** (:func:`direction_ratios`): a predicted direction that is the true one is
  TP; a predicted direction with any other truth, the opposite direction included, is FP;
  a truth of either direction predicted as neither direction is FN. A wrong direction
  therefore counts once, as FP. An undefined ratio (0/0) is reported as 0.
* **Binary problems** ``(name, p, z)``: one column with its one-hot label, or several
  columns stacked (:func:`stacked_problem`) — the two directions, or all columns
  ("overall").
* **Calibration** (§2.4.3; :func:`calibration_report`): predictions sorted and cut into
  equal-frequency bins of ``bin_size`` = 100 instances by
  :func:`causalcal.metrics.calibration_bins` (a tie group cut by a bin boundary shares its
  positives in proportion, so pair order never matters); per bin |mean prediction −
  fraction positive|; MCE the maximum, ECE the bin-share weighted mean; the Brier score
  beside them (overall: the multi-class Brier score per pair) and equal-width bins for
  reliability diagrams.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from causalcal.errors import InputError
from causalcal.metrics import CalibrationBins, calibration_bins

__all__ = [
    "binned_calibration_error",
    "calibration_report",
    "check_class_probs",
    "confusion_counts",
    "direction_ratios",
    "one_vs_rest_ratios",
    "stacked_problem",
]


def check_class_probs(probs: np.ndarray, truth: np.ndarray, k: int,
                      what: str = "edge types") -> tuple[np.ndarray, np.ndarray]:
    """``probs`` (m, k) as a float array and ``truth`` (m,) integer classes 0..k−1."""
    probs = np.asarray(probs)
    truth = np.asarray(truth)
    if probs.ndim != 2 or probs.shape[1] != k:
        raise InputError(f"probs must have shape (m, {k}), got {probs.shape}")
    if truth.shape != (probs.shape[0],):
        raise InputError(f"truth must have shape ({probs.shape[0]},), got {truth.shape}")
    if not np.issubdtype(truth.dtype, np.integer):
        raise InputError(f"truth must hold integer {what}, got dtype {truth.dtype}")
    if len(truth) and (truth.min() < 0 or truth.max() > k - 1):
        raise InputError(f"truth labels must be {what} 0..{k - 1}")
    if not np.issubdtype(probs.dtype, np.floating):
        probs = probs.astype(np.float64)
    return probs, truth


def confusion_counts(probs: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """k × k counts ``C[true, predicted]`` with predicted = argmax of each row (checked
    inputs: ``probs`` (m, k), ``truth`` in 0..k−1)."""
    k = probs.shape[1]
    pred = np.argmax(probs, axis=1)
    return np.bincount(truth.astype(np.int64) * k + pred, minlength=k * k).reshape(k, k)


def _ratios(tp: float, fp: float, fn: float) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1,
            "tp": int(tp), "fp": int(fp), "fn": int(fn)}


def direction_ratios(confusion: np.ndarray, forward: int = 1,
                     backward: int = 2) -> dict[str, float]:
    """Precision, recall, F1 (and TP/FP/FN) of the two directions by thesis Table 32."""
    c = np.asarray(confusion, dtype=np.int64)
    both = [forward, backward]
    tp = c[forward, forward] + c[backward, backward]
    fp = c[:, both].sum() - tp
    fn = c[both].sum() - c[both][:, both].sum()
    return _ratios(tp, fp, fn)


def one_vs_rest_ratios(confusion: np.ndarray, k: int) -> dict[str, float]:
    """Precision, recall, F1 (and TP/FP/FN) of class ``k`` against the others."""
    c = np.asarray(confusion, dtype=np.int64)
    tp = c[k, k]
    return _ratios(tp, c[:, k].sum() - tp, c[k, :].sum() - tp)


def stacked_problem(probs: np.ndarray, truth: np.ndarray,
                    columns: Sequence[int]) -> tuple[np.ndarray, np.ndarray]:
    """``(p, z)``: the ``columns`` of ``probs`` one after the other (dtype kept) with
    their one-hot labels (boolean)."""
    p = np.concatenate([probs[:, c] for c in columns])
    z = np.concatenate([truth == c for c in columns])
    return p, z


def _check_binary_problem(y: np.ndarray, p: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    p = np.asarray(p)
    y = np.asarray(y)
    if len(p) == 0:
        raise InputError("no predictions to evaluate")
    if y.shape != p.shape or p.ndim != 1:
        raise InputError(f"labels shape {y.shape} does not match predictions {p.shape}")
    if not np.issubdtype(p.dtype, np.floating):
        p = p.astype(np.float64)
    lo, hi = float(p.min()), float(p.max())
    if not (np.isfinite(lo) and np.isfinite(hi)) or lo < 0 or hi > 1 + 1e-6:
        raise InputError(f"predictions must be probabilities in [0, 1], got range [{lo}, {hi}]")
    if y.dtype != bool:
        if np.any((y != 0) & (y != 1)):
            raise InputError("labels must be 0/1 (or boolean)")
        y = y.astype(bool)
    return y, np.minimum(p, 1)


def _errors(bins: CalibrationBins) -> tuple[float, float]:
    gaps = np.abs(bins.frac_pos - bins.mean_pred)
    return float(np.sum(gaps * bins.counts) / bins.counts.sum()), float(gaps.max())


def _width_bins(p: np.ndarray, y: np.ndarray, n_bins: int) -> dict[str, list]:
    """Equal-width bins [b/K, (b+1)/K) (last one closed) as count, sum_p, sum_y."""
    idx = np.minimum((p.astype(np.float64) * n_bins).astype(np.int64), n_bins - 1)
    return {
        "count": np.bincount(idx, minlength=n_bins).tolist(),
        "sum_p": np.bincount(idx, p, minlength=n_bins).tolist(),
        "sum_y": np.bincount(idx[y], minlength=n_bins).tolist(),
    }


def _squared_error_sum(p: np.ndarray, z: np.ndarray, chunk: int = 1 << 22) -> float:
    total = 0.0
    for start in range(0, len(p), chunk):
        diff = p[start:start + chunk].astype(np.float64) - z[start:start + chunk]
        total += float(np.dot(diff, diff))
    return total


def binned_calibration_error(
    y: np.ndarray, p: np.ndarray, bin_size: int = 100
) -> tuple[float, float]:
    """(ECE, MCE) with equal-frequency bins of ``bin_size`` instances (thesis §6.2.4).

    :func:`causalcal.metrics.calibration_bins` with ``bin_size``: K = max(1, ⌊m / bin_size⌋)
    bins whose sizes differ by at most one; tied predictions cut by a bin boundary share
    their positives in proportion, so the result does not depend on the pairs' order.
    """
    if bin_size < 1:
        raise InputError(f"bin_size must be >= 1, got {bin_size}")
    y, p = _check_binary_problem(y, p)
    return _errors(calibration_bins(y, p, bin_size=bin_size))


def calibration_report(
    problems: Iterable[tuple[str, np.ndarray, np.ndarray]], n_pairs: int,
    bin_size: int = 100, n_bins: int = 10,
) -> tuple[dict[str, float], dict[str, dict[str, list]]]:
    """``<name>_{mce,ece,brier}`` of every binary problem ``(name, p, z)`` and its
    equal-width reliability bins (``count``, ``sum_p``, ``sum_y``: sums, so the bins of
    several runs pool exactly). Brier is the mean over a problem's instances, except for
    "overall", where it is the multi-class Brier score: per pair (``n_pairs``)."""
    if bin_size < 1:
        raise InputError(f"bin_size must be >= 1, got {bin_size}")
    out: dict[str, float] = {}
    reliability = {}
    for name, p, z in problems:
        z, p = _check_binary_problem(z, p)
        ece, mce = _errors(calibration_bins(z, p, bin_size=bin_size))
        reliability[name] = _width_bins(p, z, n_bins)
        out[f"{name}_mce"] = mce
        out[f"{name}_ece"] = ece
        per = n_pairs if name == "overall" else len(p)
        out[f"{name}_brier"] = _squared_error_sum(p, z) / per
    return out, reliability
