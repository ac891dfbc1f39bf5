"""Edge-type evaluation of four-class edge probabilities (thesis §6.2.4, docs/design.md §9.4).

Everything is vectorised over the pairs: a V = 5000 test set (12.5 M pairs) is a float32
(m, 4) array and an int8 label vector; no Python object is made per pair.

* **Prediction** = argmax of the 4-vector (ties go to the lower class index, so an
  all-equal row predicts NONE).
* **Precision / recall / F1.** No edge and undirected edge are one-vs-rest on their class.
  The *directed* type follows thesis **Table 32**: predicted A→B (or B→A) with the same
  true direction is TP; predicted directed with any other truth — no edge, undirected, or
  the opposite direction — is FP; predicted no edge or undirected with a directed truth is
  FN; the rest is TN. A wrong direction therefore counts once, as FP, not also as FN.
  An undefined ratio (0/0) is reported as 0.
* **Calibration** (§2.4.3): predictions sorted and cut into equal-frequency bins of
  ``bin_size`` = 100 instances by :func:`causalcal.metrics.calibration_bins` (a tie group
  cut by a bin boundary shares its positives in proportion, so pair order never matters);
  per bin |mean prediction − fraction positive|; MCE the maximum, ECE the bin-share
  weighted mean. *No edge* on
  (p_none, z_none), *undirected* on (p_undirected, z_undirected), *directed* on the stacked
  (p_forward ‖ p_backward, z_forward ‖ z_backward), *overall* on all four columns stacked
  (column after column) with the one-hot labels. With m instances there are
  K = max(1, ⌊m/100⌋) bins whose sizes differ by at most one, so no tiny tail bin can
  dominate MCE.
* **Brier** beside them: the mean squared error of the same binary problems; overall Brier
  is the four-class Brier score, Σ_k (p_k − z_k)² averaged over pairs.
"""

from __future__ import annotations

import numpy as np

from causalcal.edges import EdgeType
from causalcal.errors import InputError
from causalcal.metrics import CalibrationBins, calibration_bins

__all__ = [
    "EDGE_TYPES",
    "binned_calibration_error",
    "confusion_matrix",
    "edge_type_metrics",
    "edge_type_problems",
    "edge_type_report",
    "precision_recall_f1",
    "reliability_bins",
]

#: Edge types evaluated (thesis Tables 33–34) and the overall summary.
EDGE_TYPES = ("directed", "undirected", "none")


def _check(probs: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    probs = np.asarray(probs)
    truth = np.asarray(truth)
    if probs.ndim != 2 or probs.shape[1] != 4:
        raise InputError(f"probs must have shape (m, 4), got {probs.shape}")
    if truth.shape != (probs.shape[0],):
        raise InputError(f"truth must have shape ({probs.shape[0]},), got {truth.shape}")
    if not np.issubdtype(truth.dtype, np.integer):
        raise InputError(f"truth must hold integer edge types, got dtype {truth.dtype}")
    if len(truth) and (truth.min() < 0 or truth.max() > 3):
        raise InputError("truth labels must be edge types 0..3")
    if not np.issubdtype(probs.dtype, np.floating):
        probs = probs.astype(np.float64)
    return probs, truth


def confusion_matrix(probs: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """4 × 4 counts ``C[true, predicted]`` with predicted = argmax of each row."""
    probs, truth = _check(probs, truth)
    pred = np.argmax(probs, axis=1)
    return np.bincount(truth.astype(np.int64) * 4 + pred, minlength=16).reshape(4, 4)


def _ratios(tp: float, fp: float, fn: float) -> dict[str, float]:
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return {"precision": precision, "recall": recall, "f1": f1,
            "tp": int(tp), "fp": int(fp), "fn": int(fn)}


def precision_recall_f1(confusion: np.ndarray) -> dict[str, dict[str, float]]:
    """Precision, recall, F1 (and TP/FP/FN) per edge type from ``C[true, predicted]``.

    Directed by thesis Table 32, no edge and undirected one-vs-rest (module docstring).
    """
    c = np.asarray(confusion, dtype=np.int64)
    fwd, bwd = EdgeType.FORWARD, EdgeType.BACKWARD
    directed_tp = c[fwd, fwd] + c[bwd, bwd]
    directed_fp = c[:, fwd].sum() + c[:, bwd].sum() - directed_tp
    directed_fn = c[[fwd, bwd]][:, [EdgeType.NONE, EdgeType.UNDIRECTED]].sum()
    out = {"directed": _ratios(directed_tp, directed_fp, directed_fn)}
    for name, k in (("undirected", EdgeType.UNDIRECTED), ("none", EdgeType.NONE)):
        tp = c[k, k]
        out[name] = _ratios(tp, c[:, k].sum() - tp, c[k, :].sum() - tp)
    return out


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


def edge_type_problems(probs: np.ndarray, truth: np.ndarray):
    """Yield ``(name, p, z)`` binary problems: none, directed (stacked), undirected, overall.

    ``p`` keeps ``probs``' dtype; ``z`` is boolean. Overall stacks the four columns one
    after the other with the one-hot labels.
    """
    probs, truth = _check(probs, truth)
    yield "none", probs[:, 0], truth == EdgeType.NONE
    yield (
        "directed",
        np.concatenate([probs[:, 1], probs[:, 2]]),
        np.concatenate([truth == EdgeType.FORWARD, truth == EdgeType.BACKWARD]),
    )
    yield "undirected", probs[:, 3], truth == EdgeType.UNDIRECTED
    yield (
        "overall",
        probs.T.ravel(),
        (truth[None, :] == np.arange(4, dtype=truth.dtype)[:, None]).ravel(),
    )


def edge_type_report(
    probs: np.ndarray, truth: np.ndarray, bin_size: int = 100, n_bins: int = 10
) -> tuple[dict[str, float], dict[str, dict[str, list]]]:
    """:func:`edge_type_metrics` and :func:`reliability_bins` from one sort per problem."""
    probs, truth = _check(probs, truth)
    if bin_size < 1:
        raise InputError(f"bin_size must be >= 1, got {bin_size}")
    out: dict[str, float] = {"n_pairs": int(len(truth))}
    confusion = confusion_matrix(probs, truth)
    out["accuracy"] = float(np.trace(confusion) / max(len(truth), 1))
    for name, stats in precision_recall_f1(confusion).items():
        for key, value in stats.items():
            out[f"{name}_{key}"] = value
    reliability = {}
    for name, p, z in edge_type_problems(probs, truth):
        z, p = _check_binary_problem(z, p)
        ece, mce = _errors(calibration_bins(z, p, bin_size=bin_size))
        reliability[name] = _width_bins(p, z, n_bins)
        out[f"{name}_mce"] = mce
        out[f"{name}_ece"] = ece
        # binary problems: mean over their instances; overall: four-class Brier per pair
        per = len(truth) if name == "overall" else len(p)
        out[f"{name}_brier"] = _squared_error_sum(p, z) / per
    return out, reliability


def edge_type_metrics(
    probs: np.ndarray, truth: np.ndarray, bin_size: int = 100
) -> dict[str, float]:
    """All edge-type measures of docs/design.md §9.4 as a flat dict.

    Keys ``{directed,undirected,none}_{precision,recall,f1,mce,ece,brier}``,
    ``overall_{mce,ece,brier}``, ``accuracy`` and the counts ``n_pairs`` and
    ``{type}_{tp,fp,fn}``.
    """
    return edge_type_report(probs, truth, bin_size)[0]


def reliability_bins(
    probs: np.ndarray, truth: np.ndarray, n_bins: int = 10
) -> dict[str, dict[str, list]]:
    """Reliability-diagram data per edge type: equal-width bins of [0, 1].

    For each problem of :func:`edge_type_problems` returns ``count``, ``sum_p`` and
    ``sum_y`` per bin [b/K, (b+1)/K) (the last closed) — sums, so the bins of several
    runs can be pooled exactly.
    """
    return edge_type_report(probs, truth, n_bins=n_bins)[1]
