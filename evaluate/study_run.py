"""One run of the study (thesis §6.2.4 steps 6–7; docs/design.md §9.5): calibration set,
calibrator, and the edge-type measures — or the causal ones (§9.9) — before and after
calibration."""

from __future__ import annotations

import time

import numpy as np

from causalcal.causal import CausalProbabilities
from causalcal.edgecal import (
    CalibrationSettings,
    PairInputs,
    drawn_calibration_set,
    fit_edge_calibrator,
)
from causalcal.edges import EdgeProbabilities

from .causal_metrics import causal_report
from .edge_metrics import edge_type_report

__all__ = ["evaluate_run"]


#: The measures of each relation kind (by its name) and the name of its class 0.
_REPORTS = {"edges": (edge_type_report, "none"), "causal": (causal_report, "neither")}


def _measure(record: dict, before: np.ndarray, after: np.ndarray, truth: np.ndarray,
             bin_size: int, kind: str) -> None:
    """Add ``before_<measure>``, ``after_<measure>`` and the reliability bins to ``record``."""
    report = _REPORTS[kind][0]
    reliability = {}
    for name, p in (("before", before), ("after", after)):
        measures, reliability[name] = report(p, truth, bin_size=bin_size)
        for key, value in measures.items():
            record[f"{name}_{key}"] = value
    record["reliability"] = reliability


def evaluate_run(
    inputs: PairInputs | EdgeProbabilities | CausalProbabilities,
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
) -> dict:
    """Steps 4–6 for one bootstrap result: calibration set, calibrator, before/after measures.

    ``inputs`` are every pair's calibrator inputs (:class:`PairInputs`; plain
    :class:`EdgeProbabilities` or :class:`CausalProbabilities` mean the probabilities
    alone); ``truth`` their classes (:class:`EdgeType` or, for causal probabilities, the
    true DAG's :class:`CausalType`; docs/design.md §9.9). ``calibrator`` is a
    registry name (``causalcal.calibration.get``) or an unfitted estimator, cloned;
    ``selection`` is passed to :func:`causalcal.edgecal.fit_edge_calibrator`. Returns a
    flat record (``before_<measure>``, ``after_<measure>``, counts, seeds) with the
    reliability-diagram bins under ``"reliability"``. ``dense`` (the float32 dense
    bootstrap probabilities) may be passed to reuse it across N.
    """
    if not isinstance(inputs, PairInputs):
        inputs = PairInputs(inputs)
    truth = np.asarray(truth)
    if dense is None:
        dense = inputs.probabilities.dense(np.float32)
    calset, test = drawn_calibration_set(inputs, truth, n, seed=sample_seed)
    start = time.perf_counter()
    settings = CalibrationSettings(calibrator, calibrator_params, selection=selection)
    fit = fit_edge_calibrator(calset, settings, calibrator_seed)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    after = fit.predict_all()
    predict_seconds = time.perf_counter() - start
    record: dict = {
        "N": int(n), "status": "ok", "n_test": int(test.sum()),
        "selection": selection, "design": calset.design.describe(),
        "sample_seed": int(sample_seed), "calibrator_seed": int(calibrator_seed),
        "fit_seconds": fit_seconds, "predict_seconds": predict_seconds,
        "calibration_pairs": calset.keys.tolist(),
    }
    if inputs.features is None:  # what it makes of a pair never related: most test pairs
        default = np.eye(1, inputs.n_classes)  # (1, 0, 0, 0) or (1, 0, 0)
        default = np.asarray(fit.predict_proba(default))[0]
        record[f"after_default_p_{_REPORTS[inputs.kind.name][1]}"] = float(default[0])
        record["after_default_row"] = default.tolist()
    before_test, after_test, truth_test = dense[test], after[test], truth[test]
    del after
    _measure(record, before_test, after_test, truth_test, bin_size, inputs.kind.name)
    return record
