"""Edge-type evaluation of four-class edge probabilities (thesis §6.2.4, docs/design.md §9.4).

Everything is vectorised over the pairs: a V = 5000 test set (12.5 M pairs) is a float32
(m, 4) array and an int8 label vector; no Python object is made per pair. The shared
machinery (confusion counts, Table 32 ratios, binned calibration errors) is
:mod:`.class_metrics`'s.

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

from .class_metrics import (
    binned_calibration_error,
    calibration_report,
    check_class_probs,
    confusion_counts,
    direction_ratios,
    one_vs_rest_ratios,
    stacked_problem,
)

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
    return check_class_probs(probs, truth, 4, "edge types")


def confusion_matrix(probs: np.ndarray, truth: np.ndarray) -> np.ndarray:
    """4 × 4 counts ``C[true, predicted]`` with predicted = argmax of each row."""
    return confusion_counts(*_check(probs, truth))


def precision_recall_f1(confusion: np.ndarray) -> dict[str, dict[str, float]]:
    """Precision, recall, F1 (and TP/FP/FN) per edge type from ``C[true, predicted]``.

    Directed by thesis Table 32, no edge and undirected one-vs-rest (module docstring).
    """
    out = {"directed": direction_ratios(confusion, EdgeType.FORWARD, EdgeType.BACKWARD)}
    for name, k in (("undirected", EdgeType.UNDIRECTED), ("none", EdgeType.NONE)):
        out[name] = one_vs_rest_ratios(confusion, k)
    return out


def edge_type_problems(probs: np.ndarray, truth: np.ndarray):
    """Yield ``(name, p, z)`` binary problems: none, directed (stacked), undirected, overall.

    ``p`` keeps ``probs``' dtype; ``z`` is boolean. Overall stacks the four columns one
    after the other with the one-hot labels.
    """
    probs, truth = _check(probs, truth)
    yield "none", probs[:, 0], truth == EdgeType.NONE
    yield ("directed", *stacked_problem(probs, truth, (EdgeType.FORWARD, EdgeType.BACKWARD)))
    yield "undirected", probs[:, 3], truth == EdgeType.UNDIRECTED
    yield ("overall", *stacked_problem(probs, truth, range(4)))


def edge_type_report(
    probs: np.ndarray, truth: np.ndarray, bin_size: int = 100, n_bins: int = 10
) -> tuple[dict[str, float], dict[str, dict[str, list]]]:
    """:func:`edge_type_metrics` and :func:`reliability_bins` from one sort per problem."""
    probs, truth = _check(probs, truth)
    out: dict[str, float] = {"n_pairs": int(len(truth))}
    confusion = confusion_counts(probs, truth)
    out["accuracy"] = float(np.trace(confusion) / max(len(truth), 1))
    for name, stats in precision_recall_f1(confusion).items():
        for key, value in stats.items():
            out[f"{name}_{key}"] = value
    measures, reliability = calibration_report(
        edge_type_problems(probs, truth), len(truth), bin_size, n_bins)
    return {**out, **measures}, reliability


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
