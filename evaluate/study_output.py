"""The study's summary files (docs/design.md §9.5): ``runs.csv``/``runs.json``,
``summary.csv``/``summary.json``, ``table.md`` laid out like thesis Table 33,
``config.json`` and the reliability diagrams ``plots/reliability_V{V}_E{E}_N{N}.png``; for a
causal study (§9.9) with the causal measures and panels."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import asdict
from pathlib import Path

from .report import (
    CALIBRATION_COLUMNS,
    CAUSAL_CALIBRATION_COLUMNS,
    CAUSAL_COLUMNS,
    CAUSAL_MEASURES,
    MEASURES,
    TABLE33_COLUMNS,
    markdown_table,
    summarize_runs,
)
from .study_config import StudyConfig, StudyResult
from .study_files import dumps, flat, write_text

__all__ = ["write_outputs"]

_INT_COLUMNS = {"V", "E", "N", "repeat", "n_test", "sample_seed", "calibrator_seed"}
_INT_SUFFIXES = ("_tp", "_fp", "_fn", "_n_pairs")


def _write_runs(results: Path, records: list[dict]) -> dict[str, Path]:
    import pandas as pd

    files = {"runs_csv": results / "runs.csv", "runs_json": results / "runs.json"}
    frame = pd.DataFrame([flat(r) for r in records])
    for col in frame.columns:  # skipped runs leave gaps: keep integer columns integer
        if col in _INT_COLUMNS or col.endswith(_INT_SUFFIXES):
            frame[col] = frame[col].astype("Int64")
    write_text(files["runs_csv"], frame.to_csv(index=False))
    write_text(files["runs_json"],
               dumps([{k: v for k, v in r.items() if k != "reliability"} for r in records]))
    return files


def _write_summary(results: Path, summary: list[dict]) -> dict[str, Path]:
    import pandas as pd

    files = {"summary_csv": results / "summary.csv", "summary_json": results / "summary.json"}
    write_text(files["summary_csv"], pd.DataFrame(summary).to_csv(index=False))
    write_text(files["summary_json"], dumps(summary))
    return files


#: Per relation: what is summarised, the two tables' columns, their digits and the title.
_LAYOUT = {
    "edges": (MEASURES, TABLE33_COLUMNS, CALIBRATION_COLUMNS, 2, "Edge-type probabilities"),
    "causal": (CAUSAL_MEASURES, CAUSAL_COLUMNS, CAUSAL_CALIBRATION_COLUMNS, 3,
               "Causal probabilities (neither, A causes B, B causes A; truth: the true "
               "DAG's ancestry)"),
}


def _table_text(config: StudyConfig, summary: list[dict]) -> tuple[str, str]:
    """The Table 33 layout alone, and the whole ``table.md`` text."""
    _, columns, extra_columns, digits, what = _LAYOUT[config.relations]
    table = markdown_table(summary, columns, digits=digits)
    header = (
        f"# {what} before and after calibration ({config.calibrator})\n\n"
        f"Mean over paired runs; **bold** = significantly better (two-sided Wilcoxon "
        f"signed-rank test, {config.alpha:.0%}). n = {config.n_samples} samples, "
        f"n_boot = {config.n_boot}, MCE/ECE with {config.bin_size}-instance bins, "
        f"study seed {config.seed}.\n\n"
    )
    extra = ("\n## ECE, Brier and accuracy\n\n"
             + markdown_table(summary, extra_columns, digits=3))
    return table, header + table + extra


#: What does not change a study's results: left out of ``config.json``.
NOT_RESULTS = ("n_jobs", "plots")


def config_record(config: StudyConfig) -> dict:
    """``config.json``: the settings that determine the results, and the tag; no
    timings and no resources, so that rerunning a finished study writes the same bytes
    (timings are ``timing.jsonl``'s)."""
    kept = {k: v for k, v in asdict(config).items() if k not in NOT_RESULTS}
    if not config.causal:  # as before the field existed: a rerun writes the same bytes
        del kept["relations"]
    return {**kept, "tag": config.tag}


def write_outputs(config: StudyConfig, out: Path, results: Path, records: list[dict],
                  seconds: float) -> StudyResult:
    """Summarise ``records`` and write every summary file under ``results``."""
    summary = summarize_runs(records, alpha=config.alpha,
                             measures=_LAYOUT[config.relations][0])
    files = {**_write_runs(results, records), **_write_summary(results, summary)}
    table, text = _table_text(config, summary)
    files["table"] = results / "table.md"
    write_text(files["table"], text)
    if config.plots:
        files.update(_write_plots(results / "plots", records))
    write_text(results / "config.json", dumps(config_record(config)))
    return StudyResult(config, out, results, records, summary, table, files, seconds)


def _write_plots(folder: Path, records: Sequence[dict]) -> dict[str, Path]:
    from causalcal.figures.plots import matplotlib_available, plot_reliability, pool_reliability

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
