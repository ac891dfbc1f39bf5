"""Measures of PAG edge-type probabilities against a true PAG (docs/design.md §6.2;
issue 40, item 5), with the machinery of the CPDAG's edge types (:mod:`.class_metrics`).

Per pair a seven-vector (:class:`~causalcal.pairs.PAGEdgeType` order) and the true PAG's
type. Prediction = argmax (ties to the lower index). Binary problems, each with MCE and
ECE on 100-instance bins and the Brier score: ``none``; ``circle_circle`` (o-o);
``circle_arrow`` (o-> and <-o stacked, each read from its tail end); ``tail_arrow``
(--> and <-- stacked); ``arrow_arrow`` (<->); ``arc`` (any edge but <->, the probability
the stated edges calibrate: 1 − p_none − p_arrow_arrow); ``overall`` (the seven columns
stacked; its Brier is the seven-class Brier score per pair). Precision, recall and F1 of
each type one-vs-rest (a one-directional type's two orientations pooled).
"""

from __future__ import annotations

import numpy as np

from causalcal.pairs import PAGEdgeType

from .class_metrics import (
    calibration_report,
    check_class_probs,
    confusion_counts,
    stacked_problem,
)

__all__ = ["PAG_TYPES", "pag_edge_metrics", "pag_edge_problems"]

#: the problems per type, and the classes each pools
PAG_TYPES = {"none": (0,), "circle_circle": (1,), "circle_arrow": (2, 3),
             "tail_arrow": (4, 5), "arrow_arrow": (6,)}


def pag_edge_problems(probs: np.ndarray, truth: np.ndarray):
    """Yield ``(name, p, z)`` binary problems (module doc)."""
    probs, truth = check_class_probs(probs, truth, 7, "PAG edge types")
    for name, classes in PAG_TYPES.items():
        yield (name, *stacked_problem(probs, truth, classes))
    arc = 1.0 - probs[:, PAGEdgeType.NONE] - probs[:, PAGEdgeType.ARROW_ARROW]
    yield "arc", np.clip(arc, 0.0, 1.0), ~np.isin(truth, (0, 6))
    yield ("overall", *stacked_problem(probs, truth, range(7)))


def pag_edge_metrics(probs: np.ndarray, truth: np.ndarray,
                     bin_size: int = 100) -> dict[str, float]:
    """``<problem>_{mce,ece,brier}`` of :func:`pag_edge_problems`,
    ``<type>_{precision,recall,f1}``, ``accuracy`` and ``n_pairs``."""
    probs, truth = check_class_probs(probs, truth, 7, "PAG edge types")
    confusion = confusion_counts(probs, truth)
    out: dict[str, float] = {"n_pairs": int(len(truth)),
                             "accuracy": float(np.trace(confusion) / max(len(truth), 1))}
    for name, classes in PAG_TYPES.items():
        c = list(classes)
        tp = float(sum(confusion[k, k] for k in c))
        predicted, true = confusion[:, c].sum(), confusion[c, :].sum()
        precision = tp / predicted if predicted else 0.0
        recall = tp / true if true else 0.0
        out[f"{name}_precision"], out[f"{name}_recall"] = precision, recall
        out[f"{name}_f1"] = (2 * precision * recall / (precision + recall)
                             if precision + recall else 0.0)
    measures, _ = calibration_report(pag_edge_problems(probs, truth), len(truth), bin_size)
    return {**out, **measures}
