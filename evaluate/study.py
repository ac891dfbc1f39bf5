"""The simulation study of thesis §6.2.4–6.2.5 (Tables 33–34), resumable and cached.

For every configuration (V, E, N) and repeat r = 0 … R−1:

1. a random network with V nodes and E edges (``causalcal.simulate.random_network``),
2. n = 1000 samples from it,
3. n_boot = 200 bootstrap FGES searches → edge-type probabilities
   (``causalcal.bootstrap.bootstrap_edge_probabilities``),
4. a stratified calibration set of N pairs (:func:`stratified_calibration_set`),
5. a calibrator fitted on it (``causalcal.calibration.get(name)``; SNN by default),
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
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import warnings
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from causalcal._io import atomic_write
from causalcal.calibration.apply import calibrate_all_pairs, edge_calibrator, fit_calibrator
from causalcal.data import DiscreteData
from causalcal.edges import EdgeProbabilities, pair_from_index

from .edge_metrics import edge_type_report
from .report import CALIBRATION_COLUMNS, markdown_table, summarize_runs
from .sampling import ClassTooSmallError, stratified_calibration_set

__all__ = [
    "PRESETS",
    "SELECTIONS",
    "StudyConfig",
    "StudyResult",
    "derive_seed",
    "evaluate_run",
    "preset",
    "run_study",
]

#: How a calibrator treats the stratified design: correct for it, or ignore it (thesis).
SELECTIONS = ("design", "none")

# stage codes mixed into the seed sequence
_NETWORK, _DATA, _BOOTSTRAP, _CALSET, _CALIBRATOR = range(5)


def derive_seed(seed: int, *keys: int) -> int:
    """A 32-bit seed for one stage of one run, from the study seed and integer keys."""
    return int(np.random.SeedSequence([int(seed), *map(int, keys)]).generate_state(1)[0])


@dataclass(frozen=True)
class StudyConfig:
    """A study grid and its settings.

    ``grid`` lists ``(V, (E, …))``: every V with its edge counts; ``sizes`` are the
    calibration set sizes N (multiples of 4). ``network_options`` go to
    ``random_network`` (e.g. ``max_in_degree``), ``search_options`` to the bootstrap.
    """

    grid: tuple[tuple[int, tuple[int, ...]], ...]
    sizes: tuple[int, ...]
    repeats: int = 10
    n_samples: int = 1000
    n_boot: int = 200
    calibrator: str = "snn"
    calibrator_params: dict = field(default_factory=dict)
    selection: str = "design"
    seed: int = 0
    n_jobs: int = 1
    search: str = "fges"
    search_options: dict = field(default_factory=dict)
    network_options: dict = field(default_factory=dict)
    bin_size: int = 100
    alpha: float = 0.05
    plots: bool = True

    def __post_init__(self) -> None:
        if not self.grid:
            raise ValueError("the study grid is empty")
        for v, edges in self.grid:
            if v < 2:
                raise ValueError(f"V must be at least 2, got {v}")
            for e in edges:
                if not 0 <= e <= v * (v - 1) // 2:
                    raise ValueError(f"E = {e} edges do not fit V = {v} nodes")
        for n in self.sizes:
            if n <= 0 or n % 4:
                raise ValueError(f"calibration set size N must be a positive multiple of 4, "
                                 f"got {n}")
        if not self.sizes:
            raise ValueError("no calibration set sizes N given")
        if self.selection not in SELECTIONS:
            raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}, "
                             f"got {self.selection!r}")
        for name in ("repeats", "n_samples", "n_boot", "n_jobs", "bin_size"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name} must be at least 1, got {getattr(self, name)}")

    @property
    def tag(self) -> str:
        """Directory name of this calibrator's results: its name (+ ``_random-sample`` when
        the design is ignored, + a hash of its params)."""
        name = self.calibrator.lower().replace("_", "-")
        if self.selection == "none":
            name += "_random-sample"
        if not self.calibrator_params:
            return name
        blob = json.dumps(self.calibrator_params, sort_keys=True, default=str)
        return f"{name}_{hashlib.sha1(blob.encode()).hexdigest()[:8]}"

    def cache_key(self) -> dict:
        """Settings that determine the cached networks, data and bootstraps."""
        return {"seed": self.seed, "n_samples": self.n_samples, "n_boot": self.n_boot,
                "search": self.search, "search_options": self.search_options,
                "network_options": self.network_options}

    def run_key(self) -> dict:
        """Settings that determine a run's result besides (V, E, N, r)."""
        return {**self.cache_key(), "calibrator": self.calibrator,
                "calibrator_params": self.calibrator_params, "selection": self.selection,
                "bin_size": self.bin_size}


#: Preset grids: thesis Table 33 (V = 1000), Table 34 (V = 5000) and a quick smoke test.
PRESETS: dict[str, dict] = {
    "table33": {"grid": ((1000, (1000, 2000, 3000)),), "sizes": (40, 80, 120)},
    "table34": {"grid": ((5000, (5000, 10000, 15000)),), "sizes": (40, 80, 120)},
    # V = E = 100 networks have >= 10 undirected CPDAG edges (needed for N = 40) in
    # practice (>= 13 in 100 draws); a repeat where a class is too small is recorded as
    # skipped, not an error.
    "quick": {"grid": ((100, (100,)),), "sizes": (20, 40), "repeats": 3, "n_boot": 10},
}


def preset(name: str, **overrides) -> StudyConfig:
    """A :class:`StudyConfig` from a preset name with fields overridden (``None`` ignored)."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; choose one of {', '.join(PRESETS)}")
    settings = {**PRESETS[name], **{k: v for k, v in overrides.items() if v is not None}}
    return StudyConfig(**settings)


@dataclass
class StudyResult:
    """What :func:`run_study` returns."""

    config: StudyConfig
    out: Path
    results_dir: Path
    runs: list[dict]
    summary: list[dict]
    table: str
    files: dict[str, Path]
    seconds: float
    #: this invocation's work: runs computed / loaded, bootstraps computed
    counts: dict[str, int] = field(default_factory=dict)


# ----------------------------------------------------------------------------- I/O helpers
def _atomic_write_text(path: Path, text: str) -> None:
    with atomic_write(path, encoding="utf-8") as handle:
        handle.write(text)


def _atomic_savez(path: Path, **arrays) -> None:
    with atomic_write(path, "wb") as handle:
        np.savez_compressed(handle, **arrays)


def _json_default(obj):
    if isinstance(obj, np.integer):
        return int(obj)
    if isinstance(obj, np.floating):
        return float(obj)
    if isinstance(obj, np.ndarray):
        return obj.tolist()
    if isinstance(obj, Path):
        return str(obj)
    raise TypeError(f"not JSON serialisable: {type(obj).__name__}")


def _dumps(obj) -> str:
    return json.dumps(obj, indent=1, default=_json_default, allow_nan=True)


def _check_same(path: Path, stored: dict, wanted: dict) -> None:
    wanted = json.loads(_dumps(wanted))
    diff = [k for k in wanted if stored.get(k) != wanted[k]]
    if diff:
        details = ", ".join(f"{k}={stored.get(k)!r} (now {wanted[k]!r})" for k in diff)
        raise ValueError(f"{path} was made with other settings: {details}; use another "
                         "--out directory or delete it")


# ------------------------------------------------------------------------ cached stage
def _prepare_unit(config: StudyConfig, cache: Path, v: int, e: int, r: int,
                  progress: bool) -> tuple[EdgeProbabilities, np.ndarray, dict]:
    """Network, data and bootstrap of (V, E, r), from the cache or computed and cached."""
    meta_path = cache / "meta.json"
    meta = {"V": v, "E": e, "repeat": r, **config.cache_key(),
            "network_seed": derive_seed(config.seed, v, e, r, _NETWORK),
            "data_seed": derive_seed(config.seed, v, e, r, _DATA),
            "bootstrap_seed": derive_seed(config.seed, v, e, r, _BOOTSTRAP)}
    if meta_path.exists():
        stored = json.loads(meta_path.read_text())
        _check_same(meta_path, stored, meta)
        meta = {**stored, **json.loads(_dumps(meta))}
    else:
        _atomic_write_text(meta_path, _dumps(meta))
    probs_path, truth_path = cache / "probs.npz", cache / "truth.npz"
    if probs_path.exists() and truth_path.exists():
        with np.load(truth_path) as z:
            truth = z["labels"]
        return EdgeProbabilities.load(probs_path), truth, meta

    from causalcal.simulate import random_network

    net_path, data_path = cache / "network.json", cache / "data.npz"
    network = None
    if net_path.exists():
        from causalcal.simulate import BayesianNetwork

        network = BayesianNetwork.load(net_path)
    else:
        network = random_network(v, e, seed=meta["network_seed"], **config.network_options)
        network.save(net_path)
    if not truth_path.exists():
        _atomic_savez(truth_path, labels=np.asarray(network.truth_dense(), dtype=np.int8))
    with np.load(truth_path) as z:
        truth = z["labels"]
    if data_path.exists():
        with np.load(data_path) as z:
            data = DiscreteData(z["codes"], [str(n) for n in z["names"]], z["arities"])
    else:
        data = network.sample(config.n_samples, seed=meta["data_seed"])
        _atomic_savez(data_path, codes=data.codes, names=np.asarray(data.names, dtype=str),
                      arities=np.asarray(data.arities))
    from causalcal.bootstrap import bootstrap_edge_probabilities

    start = time.perf_counter()
    probs = bootstrap_edge_probabilities(
        data, n_boot=config.n_boot, search=config.search, n_jobs=config.n_jobs,
        seed=meta["bootstrap_seed"], checkpoint=str(cache / "bootstrap"), progress=progress,
        **config.search_options,
    )
    probs.save(probs_path)
    meta["bootstrap_seconds"] = time.perf_counter() - start
    meta["true_counts"] = np.bincount(truth, minlength=4).tolist()
    _atomic_write_text(meta_path, _dumps(meta))
    return probs, truth, meta


# ------------------------------------------------------------------------ one run
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
) -> dict:
    """Steps 4–6 for one bootstrap result: calibration set, calibrator, before/after measures.

    ``calibrator`` is a registry name (``causalcal.calibration.get``) or an unfitted
    estimator with ``fit(P, y)``/``predict_proba(P)``, which is cloned. ``selection``:
    ``"design"`` fits selection-aware (logit offsets of the stratified design's inclusion
    rates, forward/backward pooled, swap-equivariant); ``"none"`` fits as if the
    calibration set were a random sample, as the thesis did. Returns a flat record
    (``before_<measure>``, ``after_<measure>``, counts, seeds) with the reliability-diagram
    bins under ``"reliability"``. ``dense`` (the float32 dense bootstrap probabilities)
    may be passed to reuse it across N.
    """
    if selection not in SELECTIONS:
        raise ValueError(f"selection must be one of {', '.join(SELECTIONS)}, got {selection!r}")
    truth = np.asarray(truth)
    if dense is None:
        dense = probs.dense(np.float32)
    cal, test, design = stratified_calibration_set(dense, truth, n, seed=sample_seed)
    aware = selection == "design"
    model = edge_calibrator(calibrator, calibrator_params, calibrator_seed,
                            n_boot=probs.n_boot, equivariant=aware)
    start = time.perf_counter()
    # fit on the exact (float64) bootstrap values, as calibrate_all_pairs predicts on them
    P_cal = probs.lookup(*pair_from_index(cal, probs.n_vars))
    offsets = design.pooled([1, 2]).offsets(P_cal) if aware else None
    fit_calibrator(model, P_cal, truth[cal].astype(np.int64), offsets)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    after = calibrate_all_pairs(model, probs)
    predict_seconds = time.perf_counter() - start
    record: dict = {
        "N": int(n), "status": "ok", "n_test": int(test.sum()),
        "selection": selection, "design": design.describe(),
        "sample_seed": int(sample_seed), "calibrator_seed": int(calibrator_seed),
        "fit_seconds": fit_seconds, "predict_seconds": predict_seconds,
        "calibration_pairs": cal.tolist(),
    }
    # what the calibrator makes of a never-adjacent pair (1, 0, 0, 0): most test pairs
    default = np.asarray(model.predict_proba(np.array([[1.0, 0.0, 0.0, 0.0]])))[0]
    record["after_default_p_none"] = float(default[0])
    record["after_default_row"] = default.tolist()
    before_test, after_test, truth_test = dense[test], after[test], truth[test]
    del after
    reliability = {}
    for name, p in (("before", before_test), ("after", after_test)):
        measures, reliability[name] = edge_type_report(p, truth_test, bin_size=bin_size)
        for key, value in measures.items():
            record[f"{name}_{key}"] = value
    record["reliability"] = reliability
    return record


# ------------------------------------------------------------------------ the study
def _run_path(results: Path, v: int, e: int, n: int, r: int) -> Path:
    return results / "runs" / f"V{v}_E{e}_N{n}_r{r}.json"


def _load_run(path: Path, wanted: dict) -> dict | None:
    if not path.exists():
        return None
    try:
        record = json.loads(path.read_text())
    except (json.JSONDecodeError, OSError):
        return None  # unreadable (should not happen with atomic writes): recompute
    _check_same(path, record.get("settings", {}), wanted)
    return record


def _flat(record: dict) -> dict:
    return {k: v for k, v in record.items() if not isinstance(v, (dict, list))}


def run_study(
    config: StudyConfig, out: str | os.PathLike, progress: bool = True
) -> StudyResult:
    """Run (or resume) the study of ``config`` under ``out``; see the module docstring."""
    from causalcal._progress import progress as progress_report

    start = time.perf_counter()
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    study_path = out / "study.json"
    if study_path.exists():
        _check_same(study_path, json.loads(study_path.read_text()), config.cache_key())
    else:
        _atomic_write_text(study_path, _dumps(config.cache_key()))
    results = out / "results" / config.tag
    settings = json.loads(_dumps(config.run_key()))
    units = [(v, e, r) for v, edges in config.grid for e in edges
             for r in range(config.repeats)]
    records: list[dict] = []
    counts = {"runs_new": 0, "runs_resumed": 0, "bootstraps_new": 0}
    bar = progress_report(units, desc=f"study ({config.tag})", unit="network", enabled=progress)
    for v, e, r in bar:
        bar.set_postfix_str(f"V={v} E={e} r={r}")
        paths = {n: _run_path(results, v, e, n, r) for n in config.sizes}
        done = {n: _load_run(p, settings) for n, p in paths.items()}
        if all(rec is not None for rec in done.values()):
            records.extend(done.values())
            counts["runs_resumed"] += len(done)
            continue
        had_probs = (out / "cache" / f"V{v}_E{e}_r{r}" / "probs.npz").exists()
        probs, truth, meta = _prepare_unit(config, out / "cache" / f"V{v}_E{e}_r{r}",
                                           v, e, r, progress)
        dense = probs.dense(np.float32)
        for n in config.sizes:
            if done[n] is not None:
                records.append(done[n])
                counts["runs_resumed"] += 1
                continue
            base = {"V": v, "E": e, "N": n, "repeat": r, "calibrator": config.calibrator,
                    "true_counts": np.bincount(truth, minlength=4).tolist()}
            try:
                record = evaluate_run(
                    probs, truth, n, calibrator=config.calibrator,
                    calibrator_params=config.calibrator_params, selection=config.selection,
                    sample_seed=derive_seed(config.seed, v, e, r, _CALSET, n),
                    calibrator_seed=derive_seed(config.seed, v, e, r, _CALIBRATOR, n),
                    bin_size=config.bin_size, dense=dense,
                )
            except ClassTooSmallError as err:
                warnings.warn(f"V={v} E={e} N={n} repeat {r} skipped: {err}", stacklevel=2)
                record = {"N": n, "status": "skipped", "reason": str(err)}
            record = {**base, **record, "settings": settings}
            _atomic_write_text(paths[n], _dumps(record))
            records.append(record)
            counts["runs_new"] += 1
        counts["bootstraps_new"] += not had_probs
        del dense
    bar.close()
    seconds = time.perf_counter() - start
    result = _write_outputs(config, out, results, records, seconds)
    result.counts = counts
    result.seconds = seconds = time.perf_counter() - start
    # one line per invocation, so the wall time of a study resumed over several sessions
    # is the sum of this file's "seconds"
    line = {"finished": time.strftime("%Y-%m-%dT%H:%M:%S%z"), "calibrator": config.tag,
            "seconds": round(seconds, 1), **counts}
    with open(out / "timing.jsonl", "a", encoding="utf-8") as handle:
        handle.write(json.dumps(line) + "\n")
    return result


_INT_COLUMNS = {"V", "E", "N", "repeat", "n_test", "sample_seed", "calibrator_seed"}
_INT_SUFFIXES = ("_tp", "_fp", "_fn", "_n_pairs")


def _write_outputs(config: StudyConfig, out: Path, results: Path, records: list[dict],
                   seconds: float) -> StudyResult:
    import pandas as pd

    summary = summarize_runs(records, alpha=config.alpha)
    files: dict[str, Path] = {}
    frame = pd.DataFrame([_flat(r) for r in records])
    for col in frame.columns:  # skipped runs leave gaps: keep integer columns integer
        if col in _INT_COLUMNS or col.endswith(_INT_SUFFIXES):
            frame[col] = frame[col].astype("Int64")
    files["runs_csv"] = results / "runs.csv"
    _atomic_write_text(files["runs_csv"], frame.to_csv(index=False))
    files["runs_json"] = results / "runs.json"
    _atomic_write_text(files["runs_json"],
                       _dumps([{k: v for k, v in r.items() if k != "reliability"}
                               for r in records]))
    files["summary_csv"] = results / "summary.csv"
    _atomic_write_text(files["summary_csv"], pd.DataFrame(summary).to_csv(index=False))
    files["summary_json"] = results / "summary.json"
    _atomic_write_text(files["summary_json"], _dumps(summary))
    table = markdown_table(summary)
    header = (
        f"# Edge-type probabilities before and after calibration ({config.calibrator})\n\n"
        f"Mean over paired runs; **bold** = significantly better (two-sided Wilcoxon "
        f"signed-rank test, {config.alpha:.0%}). n = {config.n_samples} samples, "
        f"n_boot = {config.n_boot}, MCE/ECE with {config.bin_size}-instance bins, "
        f"study seed {config.seed}.\n\n"
    )
    extra = ("\n## ECE, Brier and accuracy\n\n"
             + markdown_table(summary, CALIBRATION_COLUMNS, digits=3))
    files["table"] = results / "table.md"
    _atomic_write_text(files["table"], header + table + extra)
    if config.plots:
        files.update(_write_plots(results / "plots", records))
    config_dump = {**asdict(config), "tag": config.tag, "seconds": seconds}
    _atomic_write_text(results / "config.json", _dumps(config_dump))
    return StudyResult(config, out, results, records, summary, table, files, seconds)


def _write_plots(folder: Path, records: Sequence[dict]) -> dict[str, Path]:
    from .plots import matplotlib_available, plot_reliability, pool_reliability

    if not matplotlib_available():
        warnings.warn("matplotlib is not installed: no reliability diagrams "
                      "(pip install 'causalcal[plot]')", stacklevel=3)
        return {}
    cells: dict[tuple, list[dict]] = {}
    for r in records:
        if r.get("status") == "ok" and "reliability" in r:
            cells.setdefault((r["V"], r["E"], r["N"]), []).append(r["reliability"])
    files = {}
    for (v, e, n), rel in sorted(cells.items()):
        before = pool_reliability([x["before"] for x in rel])
        after = pool_reliability([x["after"] for x in rel])
        path = folder / f"reliability_V{v}_E{e}_N{n}.png"
        plot_reliability(before, after, path,
                         title=f"V={v}, E={e}, N={n} ({len(rel)} runs, test pairs pooled)")
        files[f"plot_V{v}_E{e}_N{n}"] = path
    return files

