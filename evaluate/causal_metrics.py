"""Evaluation of three-class causal probabilities (docs/design.md §9.9, issue 30).

Rows are (neither, A causes B, B causes A) of the unordered pair (A, B), index(A) <
index(B) (:class:`~causalcal.pairs.CausalType` order); the truth is the true DAG's
ancestral relation (:func:`causalcal.ancestry.causal_truth`). The measures mirror the
edge types' (docs/design.md §9.4; shared code in :mod:`.class_metrics`):

* **Prediction** = argmax of the 3-vector (ties to the lower index: an all-equal row
  predicts "neither").
* **Precision / recall / F1.** *neither* one-vs-rest; *causes* (the two directions) by
  thesis Table 32, as the directed edge type: predicted A causes B and true A causes B
  (or both B causes A) is TP; a predicted direction with any other truth, the opposite
  one included, is FP; predicted neither with a true direction is FN.
* **Calibration**, bins of ``bin_size`` = 100 instances: *neither* on (p_neither,
  z_neither); *causes* on the stacked (p_forward ‖ p_backward, z_forward ‖ z_backward);
  *overall* on the three columns stacked with the one-hot labels. MCE, ECE and Brier
  (overall: the three-class Brier score per pair).
* The *causes* problem is P(X causes Y) over every **ordered** pair (X, Y): column 1 is
  P(A causes B) with label "A causes B", column 2 P(B causes A) with "B causes A". So
  ``causes_ece`` and ``causes_brier`` are that probability's ECE and Brier score, and
  ``causes_auroc`` its AUROC (:func:`causalcal.metrics.roc_auc`, ties counted one half;
  NaN when the test pairs hold no causal relation or nothing else).
"""

from __future__ import annotations

import numpy as np

from causalcal.metrics import roc_auc
from causalcal.pairs import CausalType

from .class_metrics import (
    calibration_report,
    check_class_probs,
    confusion_counts,
    direction_ratios,
    one_vs_rest_ratios,
    stacked_problem,
)

__all__ = ["CAUSAL_CLASSES", "causal_problems", "causal_report", "causal_metrics"]

#: Classes evaluated per pair and the overall summary.
CAUSAL_CLASSES = ("causes", "neither")


def _check(probs: np.ndarray, truth: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return check_class_probs(probs, truth, 3, "causal relations")


def causal_problems(probs: np.ndarray, truth: np.ndarray):
    """Yield ``(name, p, z)`` binary problems: neither, causes (the two directions
    stacked: every ordered pair), overall (the three columns stacked)."""
    probs, truth = _check(probs, truth)
    yield "neither", probs[:, 0], truth == CausalType.NEITHER
    yield ("causes", *stacked_problem(probs, truth, (CausalType.FORWARD, CausalType.BACKWARD)))
    yield ("overall", *stacked_problem(probs, truth, range(3)))


def _auroc(p: np.ndarray, z: np.ndarray) -> float:
    return roc_auc(z, p) if 0 < int(z.sum()) < len(z) else float("nan")


def causal_report(
    probs: np.ndarray, truth: np.ndarray, bin_size: int = 100, n_bins: int = 10
) -> tuple[dict[str, float], dict[str, dict[str, list]]]:
    """All causal measures as a flat dict, and the reliability bins per problem.

    Keys ``{causes,neither}_{precision,recall,f1,tp,fp,fn,mce,ece,brier}``,
    ``overall_{mce,ece,brier}``, ``causes_auroc``, ``accuracy`` and ``n_pairs``.
    """
    probs, truth = _check(probs, truth)
    out: dict[str, float] = {"n_pairs": int(len(truth))}
    confusion = confusion_counts(probs, truth)
    out["accuracy"] = float(np.trace(confusion) / max(len(truth), 1))
    ratios = {"causes": direction_ratios(confusion, CausalType.FORWARD, CausalType.BACKWARD),
              "neither": one_vs_rest_ratios(confusion, CausalType.NEITHER)}
    for name, stats in ratios.items():
        for key, value in stats.items():
            out[f"{name}_{key}"] = value
    problems = list(causal_problems(probs, truth))
    measures, reliability = calibration_report(problems, len(truth), bin_size, n_bins)
    _, p, z = problems[1]
    out["causes_auroc"] = _auroc(p, z)
    return {**out, **measures}, reliability


def causal_metrics(probs: np.ndarray, truth: np.ndarray,
                   bin_size: int = 100) -> dict[str, float]:
    """The measures of :func:`causal_report` alone."""
    return causal_report(probs, truth, bin_size)[0]
