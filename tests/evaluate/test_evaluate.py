"""Edge-type evaluation: Table 32 rules, binned MCE, Wilcoxon, report, one run over all pairs."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats
from sklearn.base import BaseEstimator

from causalcal.edgecal import PairInputs
from causalcal.edges import EdgeProbabilities, EdgeType, pair_index
from causalcal.evaluate import (
    binned_calibration_error,
    confusion_matrix,
    edge_type_metrics,
    evaluate_run,
    markdown_table,
    paired_wilcoxon,
    precision_recall_f1,
    summarize_runs,
)

# ----------------------------------------------------------------- Table 32 rules
# thesis Table 32, transcribed: (predicted, true) -> statistic for the directed type
TABLE32 = {
    (0, 0): "TN", (0, 1): "FN", (0, 2): "FN", (0, 3): "TN",
    (1, 0): "FP", (1, 1): "TP", (1, 2): "FP", (1, 3): "FP",
    (2, 0): "FP", (2, 1): "FP", (2, 2): "TP", (2, 3): "FP",
    (3, 0): "TN", (3, 1): "FN", (3, 2): "FN", (3, 3): "TN",
}


def _rows(pred_true: list[tuple[int, int]]) -> tuple[np.ndarray, np.ndarray]:
    probs = np.full((len(pred_true), 4), 0.1)
    for r, (p, _) in enumerate(pred_true):
        probs[r, p] = 0.7
    return probs, np.array([t for _, t in pred_true], dtype=np.int8)


def test_table32_hand_built_example():
    F, B, N, U = EdgeType.FORWARD, EdgeType.BACKWARD, EdgeType.NONE, EdgeType.UNDIRECTED
    probs, truth = _rows([
        (F, F),  # TP
        (B, B),  # TP
        (F, B),  # wrong direction: FP (and not FN)
        (B, N),  # FP
        (F, U),  # FP
        (N, F),  # FN
        (U, B),  # FN
        (N, N), (U, U), (U, U),  # TN for directed
    ])
    stats = precision_recall_f1(confusion_matrix(probs, truth))
    d = stats["directed"]
    assert (d["tp"], d["fp"], d["fn"]) == (2, 3, 2)
    assert d["precision"] == pytest.approx(2 / 5) and d["recall"] == pytest.approx(2 / 4)
    assert d["f1"] == pytest.approx(2 * 0.4 * 0.5 / 0.9)
    u = stats["undirected"]  # TP: (U,U)x2; FP: (U,B); FN: (F,U)
    assert (u["tp"], u["fp"], u["fn"]) == (2, 1, 1)
    assert u["precision"] == pytest.approx(2 / 3) and u["recall"] == pytest.approx(2 / 3)


def test_table32_against_transcription_on_every_cell():
    rng = np.random.default_rng(0)
    pairs = [(p, t) for p in range(4) for t in range(4) for _ in range(rng.integers(1, 9))]
    probs, truth = _rows(pairs)
    tally = {"TP": 0, "FP": 0, "FN": 0, "TN": 0}
    for p, t in pairs:
        tally[TABLE32[(p, t)]] += 1
    d = edge_type_metrics(probs, truth)
    assert (d["directed_tp"], d["directed_fp"], d["directed_fn"]) == (
        tally["TP"], tally["FP"], tally["FN"])
    for name, k in (("undirected", 3), ("none", 0)):
        tp = sum(p == k and t == k for p, t in pairs)
        fp = sum(p == k and t != k for p, t in pairs)
        fn = sum(p != k and t == k for p, t in pairs)
        assert (d[f"{name}_tp"], d[f"{name}_fp"], d[f"{name}_fn"]) == (tp, fp, fn)


def test_undefined_precision_is_zero():
    probs, truth = _rows([(0, 0), (0, 3), (0, 1)])
    d = edge_type_metrics(probs, truth)
    assert d["undirected_precision"] == 0 and d["undirected_recall"] == 0
    assert d["undirected_f1"] == 0 and d["directed_precision"] == 0


# ----------------------------------------------------------------------- binned MCE
def _direct_errors(y, p, bin_size=100):
    """Reference: sort by p, cut into floor(m/100) bins as equal as possible; every label
    replaced by the mean label of its tie group (tied predictions are indistinguishable)."""
    m = len(p)
    groups: dict[float, list[int]] = {}
    for k in range(m):
        groups.setdefault(float(p[k]), []).append(int(y[k]))
    y = [sum(groups[float(p[k])]) / len(groups[float(p[k])]) for k in range(m)]
    order = sorted(range(m), key=lambda k: float(p[k]))
    k = max(1, m // bin_size)
    sizes = [m // k + (1 if b < m % k else 0) for b in range(k)]
    gaps, start = [], 0
    for size in sizes:
        idx = order[start:start + size]
        start += size
        gaps.append((abs(sum(float(p[i]) for i in idx) / size - sum(y[i] for i in idx)
                         / size), size))
    return sum(g * s for g, s in gaps) / m, max(g for g, _ in gaps)


@pytest.mark.parametrize("m", [100, 1000, 1057, 250, 37])
def test_binned_error_against_direct_computation(m):
    rng = np.random.default_rng(m)
    p = rng.beta(0.5, 2, m)
    p[: m // 3] = np.round(p[: m // 3], 1)  # plenty of ties
    y = rng.random(m) < p ** 0.7
    ece, mce = binned_calibration_error(y, p.astype(np.float32), 100)
    ref_ece, ref_mce = _direct_errors(y, p.astype(np.float32))
    assert ece == pytest.approx(ref_ece, abs=1e-9) and mce == pytest.approx(ref_mce, abs=1e-9)


def test_binned_error_matches_core_metrics_without_ties():
    metrics = pytest.importorskip("causalcal.metrics")
    rng = np.random.default_rng(1)
    p = rng.random(3000)
    y = rng.random(3000) < p
    ece, mce = binned_calibration_error(y, p, 100)
    assert mce == pytest.approx(metrics.maximum_calibration_error(y, p, bin_size=100))
    assert ece == pytest.approx(metrics.expected_calibration_error(y, p, bin_size=100))


def test_edge_type_mce_stacking():
    rng = np.random.default_rng(2)
    m = 700
    probs = rng.dirichlet([3, 1, 1, 1], m).astype(np.float32)
    truth = np.array([rng.choice(4, p=row / row.sum()) for row in probs], dtype=np.int8)
    d = edge_type_metrics(probs, truth)
    z = np.eye(4, dtype=bool)[truth]
    assert d["none_mce"] == pytest.approx(_direct_errors(z[:, 0], probs[:, 0])[1])
    assert d["undirected_mce"] == pytest.approx(_direct_errors(z[:, 3], probs[:, 3])[1])
    stacked_p = np.concatenate([probs[:, 1], probs[:, 2]])
    stacked_z = np.concatenate([z[:, 1], z[:, 2]])
    assert d["directed_mce"] == pytest.approx(_direct_errors(stacked_z, stacked_p)[1])
    assert d["directed_ece"] == pytest.approx(_direct_errors(stacked_z, stacked_p)[0])
    all_p, all_z = probs.T.ravel(), z.T.ravel()
    assert d["overall_mce"] == pytest.approx(_direct_errors(all_z, all_p)[1])
    assert d["none_brier"] == pytest.approx(np.mean((probs[:, 0] - z[:, 0]) ** 2), rel=1e-6)
    assert d["directed_brier"] == pytest.approx(np.mean((stacked_p - stacked_z) ** 2),
                                                rel=1e-6)
    assert d["overall_brier"] == pytest.approx(np.mean(((probs - z) ** 2).sum(1)), rel=1e-6)
    assert d["accuracy"] == pytest.approx(np.mean(probs.argmax(1) == truth))


# ------------------------------------------------------------------------- Wilcoxon
def test_wilcoxon_against_scipy():
    before = [0.21, 0.20, 0.23, 0.29, 0.28, 0.31, 0.26, 0.22, 0.25, 0.24]
    after = [0.12, 0.16, 0.15, 0.18, 0.18, 0.22, 0.27, 0.20, 0.23, 0.26]
    res = paired_wilcoxon(before, after, higher_is_better=False)
    ref = scipy.stats.wilcoxon(after, before, alternative="two-sided")
    assert res["pvalue"] == pytest.approx(ref.pvalue)
    assert res["statistic"] == pytest.approx(ref.statistic)
    # all ten differences negative: exact two-sided p = 2 / 2**10
    res = paired_wilcoxon(np.arange(10) + 1.0, np.arange(10) + 0.5, higher_is_better=False)
    assert res["pvalue"] == pytest.approx(2 / 1024)
    assert res["significant"] and res["winner"] == "after"
    res = paired_wilcoxon(np.arange(10) + 1.0, np.arange(10) + 0.5, higher_is_better=True)
    assert res["winner"] == "before"


def test_wilcoxon_all_zero_differences():
    res = paired_wilcoxon([0.5] * 10, [0.5] * 10)
    assert res["pvalue"] == 1.0 and not res["significant"] and res["winner"] is None


def test_summary_and_markdown_bold():
    runs = []
    for r in range(10):
        runs.append({"V": 1000, "E": 2000, "N": 40, "repeat": r, "status": "ok",
                     "before_directed_mce": 0.3 + 0.01 * r, "after_directed_mce": 0.2 + 0.01 * r,
                     "before_directed_precision": 0.5, "after_directed_precision": 0.5})
    runs.append({"V": 1000, "E": 2000, "N": 40, "repeat": 10, "status": "skipped"})
    (row,) = summarize_runs(runs)
    assert row["n_runs"] == 10 and row["n_skipped"] == 1
    assert row["directed_mce_before"] == pytest.approx(0.345)
    assert row["directed_mce_winner"] == "after"
    assert row["directed_precision_winner"] is None
    table = markdown_table([row])
    assert "| 40 | 2K | after |" in table and "**0.25**" in table and "**0.35**" not in table


# ------------------------------------------------------------- one run, all pairs
class _Sharpen(BaseEstimator):
    """A deterministic toy calibrator: p ** a renormalised, a fitted from the labels."""

    def __init__(self, power: float = 2.0, random_state=None):
        self.power = power
        self.random_state = random_state

    def fit(self, P, y):
        self.power_ = self.power + 0.01 * np.bincount(y, minlength=4)[3]
        return self

    def predict_proba(self, P):
        Q = (np.asarray(P, dtype=np.float64) + 1e-3) ** self.power_
        return Q / Q.sum(axis=1, keepdims=True)


def _toy_problem(v=30, seed=0):
    rng = np.random.default_rng(seed)
    m = v * (v - 1) // 2
    truth = np.zeros(m, dtype=np.int8)
    truth[rng.choice(m, 60, replace=False)] = np.repeat([1, 2, 3], 20)
    keys = np.unique(np.concatenate([np.flatnonzero(truth), rng.choice(m, 40)]))
    from causalcal.edges import pair_from_index

    i, j = pair_from_index(keys, v)
    alpha = np.ones((len(keys), 4))
    alpha[np.arange(len(keys)), truth[keys]] += 3
    counts = np.array([rng.multinomial(20, rng.dirichlet(a)) for a in alpha])
    return EdgeProbabilities.from_counts([f"X{k}" for k in range(v)], np.column_stack([i, j]),
                                         counts, 20), truth


def test_predict_all_equals_dense_prediction():
    probs, truth = _toy_problem()
    model = _Sharpen().fit(None, truth)
    fast = PairInputs(probs).predict_all(model, dtype=np.float64)
    assert np.allclose(fast, model.predict_proba(probs.dense(np.float64)))
    assert pair_index(np.array([0]), np.array([1]), 30)[0] == 0


def test_evaluate_run_with_an_estimator():
    probs, truth = _toy_problem()
    with pytest.raises(ValueError, match="neither offsets nor sample_weight|no sample_weight"):
        evaluate_run(probs, truth, 20, calibrator=_Sharpen(), sample_seed=1, bin_size=50)
    rec = evaluate_run(probs, truth, 20, calibrator=_Sharpen(), selection="none",
                       sample_seed=1, calibrator_seed=2, bin_size=50)
    assert rec["status"] == "ok" and rec["n_test"] == len(truth) - 20
    dense = probs.dense(np.float32)
    test = np.ones(len(truth), bool)
    test[rec["calibration_pairs"]] = False
    before = edge_type_metrics(dense[test], truth[test], bin_size=50)
    assert rec["before_overall_mce"] == pytest.approx(before["overall_mce"])
    model = _Sharpen().fit(None, truth[rec["calibration_pairs"]])
    after = edge_type_metrics(model.predict_proba(dense[test]), truth[test], bin_size=50)
    for key in ("directed_f1", "undirected_precision", "none_mce", "overall_mce"):
        assert rec[f"after_{key}"] == pytest.approx(after[key], abs=1e-6)
    assert set(rec["reliability"]) == {"before", "after"}


def test_binned_error_ignores_pair_order_of_ties():
    rng = np.random.default_rng(4)
    p = np.round(rng.random(5000), 2).astype(np.float32)
    y = rng.random(5000) < 0.3
    perm = rng.permutation(5000)
    assert binned_calibration_error(y, p, 100) == pytest.approx(
        binned_calibration_error(y[perm], p[perm].astype(np.float64), 100), abs=1e-12)


def test_reliability_bins_against_histogram():
    from causalcal.evaluate import reliability_bins

    rng = np.random.default_rng(5)
    probs = rng.dirichlet([2, 1, 1, 1], 900)
    probs[:50] = [1, 0, 0, 0]
    probs[50:60] = [0.3, 0.2, 0.1, 0.4]  # values on bin edges
    truth = rng.integers(0, 4, 900).astype(np.int8)
    bins = reliability_bins(probs, truth, n_bins=10)
    p, z = probs[:, 3], truth == 3
    idx = np.minimum(np.floor(p * 10 + 1e-12).astype(int), 9)
    assert bins["undirected"]["count"] == np.bincount(idx, minlength=10).tolist()
    assert np.allclose(bins["undirected"]["sum_p"], np.bincount(idx, p, 10))
    assert bins["undirected"]["sum_y"] == np.bincount(idx, z, 10).astype(int).tolist()
    assert sum(bins["directed"]["count"]) == 1800 and sum(bins["overall"]["count"]) == 3600


def test_bad_inputs_are_named():
    with pytest.raises(ValueError, match="0/1"):
        binned_calibration_error(np.array([0, 2, 1]), np.array([0.1, 0.2, 0.3]))
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        binned_calibration_error(np.array([0, 1]), np.array([0.1, 1.5]))
    with pytest.raises(ValueError, match=r"shape \(m, 4\)"):
        edge_type_metrics(np.zeros((3, 3)), np.zeros(3, dtype=np.int8))
    with pytest.raises(ValueError, match="edge types 0..3"):
        edge_type_metrics(np.full((2, 4), 0.25), np.array([0, 4]))
