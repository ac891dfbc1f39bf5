"""The raw bootstrap's measures on one case of the misspecification benchmark
(docs/design.md §9.11): P(adjacent) over unordered pairs, P(A causes B) over ordered
pairs, and the oracle isotonic map of P(adjacent) fitted on the truth itself."""

from __future__ import annotations

import numpy as np
from sklearn.isotonic import IsotonicRegression

from causalcal.causal import CausalProbabilities
from causalcal.edges import EdgeProbabilities
from causalcal.metrics import brier_score, expected_calibration_error, roc_auc

from .cases import BOTH_WAYS

ECE_BINS = 10


def binary_measures(prefix: str, y: np.ndarray, p: np.ndarray) -> dict:
    """Brier, ECE (10 equal-count bins), AUROC, mean prediction and true share."""
    y = np.asarray(y, dtype=np.int64)
    p = np.asarray(p, dtype=np.float64)
    auroc = roc_auc(y, p) if 0 < y.sum() < len(y) else float("nan")
    return {f"{prefix}_brier": brier_score(y, p),
            f"{prefix}_ece": expected_calibration_error(y, p, n_bins=ECE_BINS),
            f"{prefix}_auroc": auroc,
            f"{prefix}_mean_p": float(p.mean()), f"{prefix}_share": float(y.mean())}


def oracle_measures(prefix: str, y: np.ndarray, p: np.ndarray) -> dict:
    """ECE and Brier of the isotonic map of ``p`` fitted on the truth ``y`` itself
    (in-sample over all pairs): what a perfect monotone recalibration reaches."""
    iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip")
    q = iso.fit(p, y).predict(p)
    return {f"{prefix}_oracle_brier": brier_score(y, q),
            f"{prefix}_oracle_ece": expected_calibration_error(y, q, n_bins=ECE_BINS)}


def case_measures(probs: EdgeProbabilities, edge_truth: np.ndarray,
                  causal_truth: np.ndarray) -> dict:
    """Every measure of the raw bootstrap on one case."""
    adjacent = (np.asarray(edge_truth) != 0).astype(np.int64)
    p_adjacent = 1.0 - probs.dense(np.float64)[:, 0]
    causal = CausalProbabilities.from_counts(probs.ancestral, probs.names).dense(np.float64)
    truth = np.asarray(causal_truth)
    # ordered pairs: (i, j) then (j, i) for every i < j
    y_causes = np.concatenate([(truth == 1) | (truth == BOTH_WAYS),
                               (truth == 2) | (truth == BOTH_WAYS)]).astype(np.int64)
    p_causes = np.concatenate([causal[:, 1], causal[:, 2]])
    return {**binary_measures("adj", adjacent, p_adjacent),
            **oracle_measures("adj", adjacent, p_adjacent),
            **binary_measures("causes", y_causes, p_causes),
            **oracle_measures("causes", y_causes, p_causes),
            "n_pairs": len(adjacent), "n_true_edges": int(adjacent.sum()),
            "expected_edges": float(p_adjacent.sum())}
