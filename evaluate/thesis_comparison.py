"""Our study results beside the thesis's Tables 33 and 34 (thesis §6.2.5).

The thesis's numbers are transcribed below (means of 10 runs; columns as
:data:`~causalcal.evaluate.report.TABLE33_COLUMNS`). :func:`comparison_table` lays out,
for every (N, E) cell, the bootstrap ("before") and each calibrator's "after" row of our
studies next to the thesis's before/after rows; :func:`acceptance_checks` tests one
study against the thesis cell by cell (docs/design.md §9).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path

from causalcal.evaluate.report import TABLE33_COLUMNS, _e_label, _fmt, summarize_runs

__all__ = ["THESIS_TABLES", "acceptance_checks", "comparison_table", "load_runs"]


def _table(values: str) -> dict[tuple[int, int], dict[str, tuple[float, ...]]]:
    """Parse rows ``N E method v1 … v10`` into ``{(N, E): {method: values}}``."""
    out: dict[tuple[int, int], dict[str, tuple[float, ...]]] = {}
    for line in values.strip().splitlines():
        n, e, method, *numbers = line.split()
        out.setdefault((int(n), int(e)), {})[method] = tuple(float(x) for x in numbers)
    return out


#: Thesis Tables 33 (V = 1000) and 34 (V = 5000): dir P R F1 MCE, undir P R F1 MCE,
#: no-edge MCE, overall MCE.
THESIS_TABLES: dict[int, dict[tuple[int, int], dict[str, tuple[float, ...]]]] = {
    33: _table("""
        40 1000 before 0.67 0.60 0.63 0.20 0.74 0.07 0.12 0.47 0.35 0.25
        40 1000 after 0.80 0.58 0.67 0.27 0.67 0.52 0.57 0.26 0.22 0.23
        40 2000 before 0.82 0.41 0.55 0.21 0.50 0.02 0.04 0.32 0.54 0.27
        40 2000 after 0.81 0.47 0.60 0.25 0.56 0.35 0.38 0.25 0.24 0.23
        40 3000 before 0.85 0.25 0.39 0.29 0.37 0.01 0.03 0.18 0.59 0.31
        40 3000 after 0.84 0.31 0.45 0.23 0.39 0.24 0.27 0.22 0.31 0.25
        80 1000 before 0.67 0.59 0.63 0.21 0.72 0.04 0.08 0.49 0.32 0.26
        80 1000 after 0.83 0.58 0.68 0.16 0.68 0.57 0.61 0.16 0.14 0.16
        80 2000 before 0.82 0.41 0.54 0.20 0.15 0.00 0.01 0.32 0.55 0.27
        80 2000 after 0.84 0.47 0.60 0.16 0.55 0.35 0.40 0.17 0.18 0.17
        80 3000 before 0.86 0.25 0.39 0.28 0.03 0.00 0.00 0.18 0.58 0.31
        80 3000 after 0.86 0.30 0.45 0.18 0.37 0.21 0.24 0.15 0.26 0.21
        120 1000 before 0.67 0.59 0.63 0.21 0.60 0.02 0.04 0.48 0.28 0.26
        120 1000 after 0.86 0.56 0.68 0.12 0.68 0.63 0.65 0.12 0.10 0.12
        120 2000 before 0.83 0.40 0.54 0.23 0.07 0.00 0.00 0.31 0.54 0.26
        120 2000 after 0.85 0.46 0.60 0.15 0.55 0.33 0.40 0.13 0.17 0.15
        120 3000 before 0.86 0.25 0.38 0.29 0.00 0.00 0.00 0.17 0.59 0.32
        120 3000 after 0.87 0.30 0.44 0.18 0.46 0.26 0.31 0.12 0.26 0.22
    """),
    34: _table("""
        40 5000 before 0.64 0.57 0.60 0.32 0.00 0.00 0.00 0.68 0.48 0.36
        40 5000 after 0.81 0.52 0.63 0.32 0.63 0.57 0.59 0.33 0.35 0.31
        40 10000 before 0.79 0.38 0.52 0.25 0.00 0.00 0.00 0.48 0.62 0.35
        40 10000 after 0.82 0.43 0.57 0.30 0.47 0.28 0.31 0.35 0.32 0.30
        40 15000 before 0.83 0.24 0.37 0.32 0.00 0.00 0.00 0.34 0.64 0.37
        40 15000 after 0.83 0.28 0.42 0.33 0.35 0.22 0.24 0.30 0.36 0.34
        80 5000 before 0.64 0.57 0.60 0.32 0.00 0.00 0.00 0.67 0.49 0.35
        80 5000 after 0.83 0.54 0.65 0.23 0.66 0.62 0.63 0.24 0.24 0.19
        80 10000 before 0.80 0.38 0.52 0.25 0.00 0.00 0.00 0.47 0.62 0.35
        80 10000 after 0.84 0.43 0.57 0.22 0.51 0.34 0.38 0.25 0.25 0.22
        80 15000 before 0.83 0.24 0.37 0.31 0.00 0.00 0.00 0.35 0.63 0.38
        80 15000 after 0.84 0.29 0.43 0.23 0.40 0.23 0.27 0.24 0.29 0.24
        120 5000 before 0.64 0.57 0.60 0.31 0.00 0.00 0.00 0.67 0.48 0.36
        120 5000 after 0.85 0.53 0.65 0.19 0.66 0.64 0.65 0.19 0.19 0.16
        120 10000 before 0.80 0.38 0.52 0.25 0.00 0.00 0.00 0.48 0.61 0.36
        120 10000 after 0.85 0.43 0.57 0.18 0.51 0.38 0.42 0.19 0.23 0.20
        120 15000 before 0.83 0.24 0.37 0.32 0.00 0.00 0.00 0.35 0.63 0.38
        120 15000 after 0.86 0.28 0.42 0.23 0.42 0.27 0.32 0.19 0.31 0.25
    """),
}

#: Columns of the comparison: the thesis's ten, then the overall ECE (ours only).
COMPARISON_COLUMNS = (*TABLE33_COLUMNS, ("overall_ece", "overall ECE"))


def load_runs(results: str | Path) -> list[dict]:
    """The per-run records ``results/<calibrator>/runs/*.json`` of a study, sorted."""
    paths = sorted(Path(results).glob("runs/*.json"))
    if not paths:
        raise FileNotFoundError(f"{results}: no runs/*.json records")
    return [json.loads(p.read_text()) for p in paths]


def _row(label: str, n: int, e: int, values: Sequence[str], runs: str) -> str:
    return "| " + " | ".join([str(n), _e_label(e), label, *values, runs]) + " |"


def _ours(summary_row: dict, method: str) -> list[str]:
    cells = []
    for key, _ in COMPARISON_COLUMNS:
        value = summary_row.get(f"{key}_{method}")
        if value is None:
            cells.append("–")
            continue
        digits = 3 if key.endswith("ece") else 2
        cells.append(_fmt(value, summary_row.get(f"{key}_winner") == method, digits))
    return cells


def comparison_table(studies: Mapping[str, Sequence[dict]], table: int) -> str:
    """Markdown: per (N, E), ours before, each study's after, the thesis's before/after.

    ``studies`` maps a row label (e.g. ``"selection-aware SNN"``) to that calibrator's
    run records on the same networks; "before" is taken from the first. Bold marks a
    significant Wilcoxon win over that study's own paired "before" runs.
    """
    thesis = THESIS_TABLES[table]
    summaries = {label: {(r["N"], r["E"]): r for r in summarize_runs(runs)}
                 for label, runs in studies.items()}
    header = ["N", "E", "method", *(h for _, h in COMPARISON_COLUMNS), "runs"]
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join(["---"] * 3 + ["---:"] * (len(COMPARISON_COLUMNS) + 1)) + "|"]
    first = next(iter(summaries.values()))
    for n, e in sorted(thesis):
        if (n, e) in first:
            lines.append(_row("ours before", n, e, _ours(first[(n, e)], "before"),
                              str(first[(n, e)]["n_runs"])))
        for label, summary in summaries.items():
            if (n, e) in summary:
                lines.append(_row(f"{label} after", n, e, _ours(summary[(n, e)], "after"),
                                  str(summary[(n, e)]["n_runs"])))
        for method in ("before", "after"):
            values = [f"{x:.2f}" for x in thesis[(n, e)][method]] + ["–"]
            lines.append(_row(f"thesis {method}", n, e, values, "10"))
    return "\n".join(lines) + "\n"


def acceptance_checks(runs: Sequence[dict], table: int) -> list[dict]:
    """Per cell: after overall MCE below before, at most the thesis's after value; after
    overall ECE; undirected and directed F1 after minus before; directed recall before
    minus the thesis's."""
    thesis = THESIS_TABLES[table]
    names = [key for key, _ in TABLE33_COLUMNS]
    out = []
    for row in summarize_runs(runs):
        ref = thesis.get((row["N"], row["E"]))
        if ref is None:
            continue
        after_ref = dict(zip(names, ref["after"]))
        before_ref = dict(zip(names, ref["before"]))
        out.append({
            "N": row["N"], "E": row["E"], "n_runs": row["n_runs"],
            "mce_before": row["overall_mce_before"], "mce_after": row["overall_mce_after"],
            "mce_thesis_after": after_ref["overall_mce"],
            "mce_improves": row["overall_mce_after"] < row["overall_mce_before"],
            "mce_at_most_thesis": row["overall_mce_after"] <= after_ref["overall_mce"],
            "ece_after": row["overall_ece_after"],
            "undirected_f1_gain": row["undirected_f1_after"] - row["undirected_f1_before"],
            "directed_f1_gain": row["directed_f1_after"] - row["directed_f1_before"],
            "directed_recall_vs_thesis": (row["directed_recall_before"]
                                          - before_ref["directed_recall"]),
        })
    return out
