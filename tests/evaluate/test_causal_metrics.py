"""Measures of three-class causal probabilities (docs/design.md §9.9): by hand, against
scikit-learn, and the shared machinery left the edge-type measures as they were."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, precision_recall_fscore_support, roc_auc_score

from causalcal.errors import InputError
from causalcal.evaluate import causal_metrics
from causalcal.evaluate.causal_metrics import causal_problems, causal_report
from causalcal.evaluate.edge_metrics import edge_type_metrics
from causalcal.metrics import (
    expected_calibration_error,
    maximum_calibration_error,
    multiclass_brier_score,
)

# rows (neither, i causes j, j causes i) and the true class of each pair
P = np.array([
    [0.8, 0.1, 0.1],  # predicted neither, true neither: TN for causes, TP for neither
    [0.2, 0.7, 0.1],  # predicted i→j, true i→j: TP
    [0.2, 0.1, 0.7],  # predicted j→i, true i→j: FP (wrong direction), not FN
    [0.6, 0.3, 0.1],  # predicted neither, true j→i: FN
    [0.3, 0.6, 0.1],  # predicted i→j, true neither: FP
    [0.1, 0.2, 0.7],  # predicted j→i, true j→i: TP
])
T = np.array([0, 1, 1, 2, 0, 2], dtype=np.int8)


def test_counts_and_ratios_by_hand():
    m = causal_metrics(P, T, bin_size=2)
    assert (m["causes_tp"], m["causes_fp"], m["causes_fn"]) == (2, 2, 1)
    assert m["causes_precision"] == pytest.approx(2 / 4)
    assert m["causes_recall"] == pytest.approx(2 / 3)
    assert m["causes_f1"] == pytest.approx(2 * 0.5 * (2 / 3) / (0.5 + 2 / 3))
    # neither: one-vs-rest: predicted neither at rows 0 and 3, true neither at 0 and 4
    assert (m["neither_tp"], m["neither_fp"], m["neither_fn"]) == (1, 1, 1)
    assert m["accuracy"] == pytest.approx(3 / 6) and m["n_pairs"] == 6


def test_neither_ratios_equal_sklearn():
    rng = np.random.default_rng(0)
    probs = rng.dirichlet([2, 1, 1], size=500)
    truth = rng.integers(0, 3, size=500).astype(np.int8)
    m = causal_metrics(probs, truth)
    p, r, f, _ = precision_recall_fscore_support(truth == 0, probs.argmax(1) == 0,
                                                 average="binary", zero_division=0)
    assert (m["neither_precision"], m["neither_recall"], m["neither_f1"]) == pytest.approx(
        (p, r, f))


def test_calibration_measures_by_hand_and_against_metrics():
    m = causal_metrics(P, T, bin_size=2)
    # neither: p sorted 0.1 .2 .2 .3 .6 .8 with labels 0 0 0 1 0 1, three bins of two
    # (the tie at 0.2 lies within one bin)
    gaps = [abs(0.15 - 0), abs(0.25 - 0.5), abs(0.7 - 0.5)]
    assert m["neither_mce"] == pytest.approx(max(gaps))
    assert m["neither_ece"] == pytest.approx(np.mean(gaps))
    problems = {name: (p, z) for name, p, z in causal_problems(P, T)}
    p, z = problems["causes"]
    assert len(p) == 12 and z.sum() == 4  # every ordered pair: 6 pairs × 2 directions
    assert np.array_equal(p, np.concatenate([P[:, 1], P[:, 2]]))
    assert np.array_equal(z, np.concatenate([T == 1, T == 2]))
    assert m["causes_mce"] == pytest.approx(maximum_calibration_error(z, p, bin_size=2))
    assert m["causes_ece"] == pytest.approx(expected_calibration_error(z, p, bin_size=2))
    p, z = problems["overall"]
    assert np.array_equal(p, P.T.ravel()) and z.sum() == 6
    assert m["overall_ece"] == pytest.approx(expected_calibration_error(z, p, bin_size=2))


def test_brier_and_auroc_equal_sklearn():
    rng = np.random.default_rng(1)
    probs = rng.dirichlet([5, 1, 1], size=2000).astype(np.float32)
    truth = rng.choice(3, size=2000, p=[0.8, 0.1, 0.1]).astype(np.int8)
    m, reliability = causal_report(probs, truth)
    forward = np.concatenate([probs[:, 1], probs[:, 2]]).astype(np.float64)
    label = np.concatenate([truth == 1, truth == 2])
    assert m["causes_auroc"] == pytest.approx(roc_auc_score(label, forward), abs=1e-12)
    assert m["causes_brier"] == pytest.approx(brier_score_loss(label, forward), rel=1e-6)
    assert m["neither_brier"] == pytest.approx(
        brier_score_loss(truth == 0, probs[:, 0].astype(np.float64)), rel=1e-6)
    assert m["overall_brier"] == pytest.approx(multiclass_brier_score(truth, probs), rel=1e-6)
    assert set(reliability) == {"neither", "causes", "overall"}
    assert sum(reliability["causes"]["count"]) == 4000
    assert sum(reliability["causes"]["sum_y"]) == label.sum()


def test_auroc_is_nan_without_both_labels_and_bad_inputs_are_refused():
    probs = np.array([[0.9, 0.05, 0.05], [0.7, 0.2, 0.1]])
    assert np.isnan(causal_metrics(probs, np.array([0, 0]))["causes_auroc"])
    with pytest.raises(InputError, match=r"\(m, 3\)"):
        causal_metrics(np.full((2, 4), 0.25), np.array([0, 0]))
    with pytest.raises(InputError, match="causal relations 0..2"):
        causal_metrics(probs, np.array([0, 3]))


def test_edge_measures_unchanged_by_the_shared_code():
    """The edge-type measures through the shared code, by hand (Table 32 on four classes)."""
    probs = np.array([[0.7, 0.1, 0.1, 0.1], [0.1, 0.6, 0.2, 0.1], [0.1, 0.2, 0.6, 0.1],
                      [0.2, 0.2, 0.1, 0.5], [0.3, 0.4, 0.2, 0.1], [0.6, 0.1, 0.1, 0.2]])
    truth = np.array([0, 1, 1, 3, 2, 0])
    m = edge_type_metrics(probs, truth, bin_size=2)
    assert (m["directed_tp"], m["directed_fp"], m["directed_fn"]) == (1, 2, 0)
    assert (m["undirected_tp"], m["none_tp"], m["none_fp"]) == (1, 2, 0)
    assert m["overall_brier"] == pytest.approx(np.mean(np.sum(
        (probs - np.eye(4)[truth]) ** 2, axis=1)))
    assert m["directed_mce"] == pytest.approx(maximum_calibration_error(
        np.concatenate([truth == 1, truth == 2]),
        np.concatenate([probs[:, 1], probs[:, 2]]), bin_size=2))
