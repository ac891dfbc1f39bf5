"""The simulation study of thesis §6.2.4–6.2.5 (Tables 33–34), resumable and cached.

For every configuration (V, E, N) and repeat r = 0 … R−1:

1. a random network with V nodes and E edges (``causalcal.simulate.random_network``),
2. n = 1000 samples from it,
3. n_boot = 200 bootstrap FGES searches → edge-type probabilities
   (``causalcal.bootstrap.bootstrap_edge_probabilities``),
4. a stratified calibration set of N pairs (``causalcal.edgecal.drawn_calibration_set``),
5. a calibrator fitted on it (``causalcal.edgecal.fit_edge_calibrator``; SNN by default),
6. the edge-type measures (:func:`edge_type_metrics`) of the bootstrap ("before") and
   calibrated ("after") probabilities of all other pairs.

Steps 1–3 depend only on (V, E, r) and the study seed: they are cached under
``OUT/cache/V{V}_E{E}_r{r}/`` (``network.json``, ``data.npz``, ``truth.npz``,
``probs.npz`` and the bootstrap checkpoint directory ``bootstrap/``) and shared by every N
and every calibrator. Each finished run is written atomically to
``OUT/results/<calibrator>/runs/V{V}_E{E}_N{N}_r{r}.json``, so an interrupted study
resumes where it stopped. The summary (per-cell means before/after, two-sided Wilcoxon
signed-rank tests at 5 %) goes to ``OUT/results/<calibrator>/`` as ``table.md`` (laid
out like Table 33), ``summary.csv``/``summary.json``, ``runs.csv``/``runs.json`` and
``plots/reliability_V{V}_E{E}_N{N}.png``.

All seeds derive from the study seed through ``numpy.random.SeedSequence([seed, V, E, r,
…])``: the calibration set and the calibrator's seed of a run do not depend on the
calibrator, so calibrators are compared on the same splits.

With ``relations="causal"`` (docs/design.md §9.9) the runs calibrate the three causal
classes of every pair — neither, A causes B, B causes A — instead: the inputs are the raw
causal probabilities of the same cached bootstrap's ancestral counts (``ancestral.npz``,
read from its checkpoint), the truth the true DAG's ancestry (``causal_truth.npz``), the
measures :mod:`.causal_metrics`'; results go to ``OUT/results/<calibrator>_causal/``.

The study is split by job (docs/design.md §9.5): :mod:`.study_config` (configuration,
presets, seeds), :mod:`.study_cache` (steps 1–3, cached), :mod:`.study_run` (steps 4–6 of
one run), :mod:`.study_output` (summary files and plots), :mod:`.study_files` (atomic
JSON records); this module runs the loop. Fitting and applying the calibrator is the
calibrate stage's (:mod:`causalcal.edgecal`).
"""

from __future__ import annotations

import copy
import json
import os
import time
import warnings
from pathlib import Path

import numpy as np

from causalcal.edgecal import ClassTooSmallError, PairInputs

from .study_cache import prepare_unit, unit_causal, unit_features
from .study_config import (
    PRESETS,
    RELATIONS,
    SELECTIONS,
    StudyConfig,
    StudyResult,
    derive_seed,
    preset,
    run_seeds,
)
from .study_files import check_same, dumps, load_run, run_path, write_text
from .study_output import write_outputs
from .study_run import evaluate_run

__all__ = [
    "PRESETS",
    "RELATIONS",
    "SELECTIONS",
    "StudyConfig",
    "StudyResult",
    "derive_seed",
    "evaluate_run",
    "preset",
    "run_study",
]


def _start(config: StudyConfig, out: Path) -> None:
    """Create ``out`` and check (or write) the settings its cache was made with."""
    out.mkdir(parents=True, exist_ok=True)
    study_path = out / "study.json"
    if study_path.exists():
        check_same(study_path, json.loads(study_path.read_text()), config.cache_key())
    else:
        write_text(study_path, dumps(config.cache_key()))


def _one_run(config: StudyConfig, inputs: PairInputs, truth: np.ndarray, dense: np.ndarray,
             v: int, e: int, n: int, r: int, settings: dict) -> dict:
    """The record of run (V, E, N, r): evaluated, or ``skipped`` when a class is too small."""
    base = {"V": v, "E": e, "N": n, "repeat": r, "calibrator": config.calibrator,
            "true_counts": np.bincount(truth, minlength=inputs.n_classes).tolist()}
    try:
        record = evaluate_run(
            inputs, truth, n, calibrator=config.calibrator,
            calibrator_params=config.calibrator_params, selection=config.selection,
            **run_seeds(config.seed, v, e, r, n), bin_size=config.bin_size, dense=dense,
        )
    except ClassTooSmallError as err:
        warnings.warn(f"V={v} E={e} N={n} repeat {r} skipped: {err}", stacklevel=4)
        record = {"N": n, "status": "skipped", "reason": str(err)}
    return {**base, **record, "settings": settings}


def _run_inputs(config: StudyConfig, cache: Path, meta: dict, probs,
                truth: np.ndarray) -> tuple[PairInputs, np.ndarray, np.ndarray]:
    """The calibrator's inputs of every pair (probabilities and the chosen feature groups;
    or the causal probabilities), the truth and the dense "before" probabilities."""
    if config.causal:
        causal, truth = unit_causal(config, cache, meta)
        return PairInputs(causal), truth, causal.dense(np.float32)
    dense = probs.dense(np.float32)
    if config.features:
        probs = copy.copy(probs)
        probs.pair_features = unit_features(config, cache, meta)
    return PairInputs(probs, config.features), truth, dense


def _run_unit(config: StudyConfig, out: Path, results: Path, v: int, e: int, r: int,
              settings: dict, progress: bool, counts: dict[str, int]) -> list[dict]:
    """Every N's record of (V, E, r): resumed from its file or computed and written."""
    paths = {n: run_path(results, v, e, n, r) for n in config.sizes}
    done = {n: load_run(p, settings) for n, p in paths.items()}
    if all(rec is not None for rec in done.values()):
        counts["runs_resumed"] += len(done)
        return list(done.values())
    cache = out / "cache" / f"V{v}_E{e}_r{r}"
    had_probs = (cache / "probs.npz").exists()
    probs, truth, meta = prepare_unit(config, cache, v, e, r, progress)
    inputs, truth, dense = _run_inputs(config, cache, meta, probs, truth)
    records = []
    for n in config.sizes:
        if done[n] is not None:
            records.append(done[n])
            counts["runs_resumed"] += 1
            continue
        record = _one_run(config, inputs, truth, dense, v, e, n, r, settings)
        write_text(paths[n], dumps(record))
        records.append(record)
        counts["runs_new"] += 1
    counts["bootstraps_new"] += not had_probs
    return records


def _log_timing(out: Path, config: StudyConfig, seconds: float, counts: dict) -> None:
    """One line per invocation that computed a run or a bootstrap, so the wall time of a
    study resumed over several sessions is the sum of ``timing.jsonl``'s "seconds"; an
    invocation that only resumes (the documented command rerun) leaves the file as it
    is."""
    if not (counts["runs_new"] or counts["bootstraps_new"]):
        return
    line = {"finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "calibrator": config.tag,
            "seconds": round(seconds, 1), **counts}
    with open(out / "timing.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")


def run_study(
    config: StudyConfig, out: str | os.PathLike, progress: bool = True
) -> StudyResult:
    """Run (or resume) the study of ``config`` under ``out``; see the module docstring."""
    from causalcal._progress import progress as progress_report

    start = time.perf_counter()
    out = Path(out)
    _start(config, out)
    results = out / "results" / config.tag
    settings = json.loads(dumps(config.run_key()))
    units = [(v, e, r) for v, edges in config.grid for e in edges
             for r in range(config.repeats)]
    records: list[dict] = []
    counts = {"runs_new": 0, "runs_resumed": 0, "bootstraps_new": 0}
    bar = progress_report(units, desc=f"study ({config.tag})", unit="network", enabled=progress)
    for v, e, r in bar:
        bar.set_postfix_str(f"V={v} E={e} r={r}")
        records.extend(_run_unit(config, out, results, v, e, r, settings, progress, counts))
    bar.close()
    seconds = time.perf_counter() - start
    result = write_outputs(config, out, results, records, seconds)
    result.counts = counts
    result.seconds = seconds = time.perf_counter() - start
    _log_timing(out, config, seconds, counts)
    return result
