"""One run of the study (thesis §6.2.4 steps 6–7; docs/design.md §9.5): calibration set,
calibrator, and the edge-type measures before and after calibration."""

from __future__ import annotations

import time

import numpy as np

from causalcal.calibration.apply import calibrate_all_pairs, edge_calibrator, fit_calibrator
from causalcal.edges import EdgeProbabilities, pair_from_index

from .edge_metrics import edge_type_report
from .sampling import stratified_calibration_set
from .study_config import SELECTIONS

__all__ = ["evaluate_run"]


def _fit(model, probs: EdgeProbabilities, truth: np.ndarray, cal: np.ndarray, design,
         aware: bool, features: np.ndarray | None) -> float:
    """Fit ``model`` on the calibration pairs ``cal``; returns the seconds it took."""
    start = time.perf_counter()
    # fit on the exact (float64) bootstrap values, as calibrate_all_pairs predicts on them
    P_cal = probs.lookup(*pair_from_index(cal, probs.n_vars))
    offsets = design.pooled([1, 2]).offsets(P_cal) if aware else None
    X = P_cal if features is None else np.hstack([P_cal, features[cal]])
    fit_calibrator(model, X, truth[cal].astype(np.int64), offsets)
    return time.perf_counter() - start


def _measure(record: dict, before: np.ndarray, after: np.ndarray, truth: np.ndarray,
             bin_size: int) -> None:
    """Add ``before_<measure>``, ``after_<measure>`` and the reliability bins to ``record``."""
    reliability = {}
    for name, p in (("before", before), ("after", after)):
        measures, reliability[name] = edge_type_report(p, truth, bin_size=bin_size)
        for key, value in measures.items():
            record[f"{name}_{key}"] = value
    record["reliability"] = reliability


def evaluate_run(
    probs: EdgeProbabilities,
    truth: np.ndarray,
    n: int,
    *,
    calibrator="snn",
    calibrator_params: dict | None = None,
    selection: str = "design",
    sample_seed: int = 0,
    calibrator_seed: int = 0,
    bin_size: int = 100,
    dense: np.ndarray | None = None,
    features: np.ndarray | None = None,
    feature_swap=None,
) -> dict:
    """Steps 4–6 for one bootstrap result: calibration set, calibrator, before/after measures.

    ``calibrator`` is a registry name (``causalcal.calibration.get``) or an unfitted
    estimator with ``fit(P, y)``/``predict_proba(P)``, which is cloned. ``selection``:
    ``"design"`` fits selection-aware (logit offsets of the stratified design's inclusion
    rates, forward/backward pooled, swap-equivariant); ``"none"`` fits as if the
    calibration set were a random sample, as the thesis did. Returns a flat record
    (``before_<measure>``, ``after_<measure>``, counts, seeds) with the reliability-diagram
    bins under ``"reliability"``. ``dense`` (the float32 dense bootstrap probabilities)
    may be passed to reuse it across N. ``features`` (one row per pair) are extra
    calibrator inputs beside the probabilities, ``feature_swap`` their permutation when a
    pair is read the other way round.
    """
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
    truth = np.asarray(truth)
    if dense is None:
        dense = probs.dense(np.float32)
    cal, test, design = stratified_calibration_set(dense, truth, n, seed=sample_seed)
    aware = selection == "design"
    model = edge_calibrator(calibrator, calibrator_params, calibrator_seed,
                            n_boot=probs.n_boot, equivariant=aware, feature_swap=feature_swap)
    fit_seconds = _fit(model, probs, truth, cal, design, aware, features)
    start = time.perf_counter()
    after = calibrate_all_pairs(model, probs, features=features)
    predict_seconds = time.perf_counter() - start
    record: dict = {
        "N": int(n), "status": "ok", "n_test": int(test.sum()),
        "selection": selection, "design": design.describe(),
        "sample_seed": int(sample_seed), "calibrator_seed": int(calibrator_seed),
        "fit_seconds": fit_seconds, "predict_seconds": predict_seconds,
        "calibration_pairs": cal.tolist(),
    }
    if features is None:  # what it makes of a never-adjacent pair: most test pairs
        default = np.asarray(model.predict_proba(np.array([[1.0, 0.0, 0.0, 0.0]])))[0]
        record["after_default_p_none"] = float(default[0])
        record["after_default_row"] = default.tolist()
    before_test, after_test, truth_test = dense[test], after[test], truth[test]
    del after
    _measure(record, before_test, after_test, truth_test, bin_size)
    return record
