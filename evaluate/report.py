"""Summaries of a simulation study: per-cell means, Wilcoxon tests, Table 33 layout (§6.2.5).

"For each set of configurations … we report the average results of 10 random runs …
bold face indicates the results that are statistically significantly better than the
others, based on a two-sided Wilcoxon signed rank test at the 5% significance level."
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable, Sequence

import numpy as np

from causalcal.errors import InputError

__all__ = [
    "CALIBRATION_COLUMNS",
    "CAUSAL_CALIBRATION_COLUMNS",
    "CAUSAL_COLUMNS",
    "CAUSAL_MEASURES",
    "higher_is_better",
    "MEASURES",
    "TABLE33_COLUMNS",
    "markdown_table",
    "paired_wilcoxon",
    "summarize_runs",
]

#: Columns of thesis Tables 33–34: (measure key, header).
TABLE33_COLUMNS: tuple[tuple[str, str], ...] = (
    ("directed_precision", "dir P"),
    ("directed_recall", "dir R"),
    ("directed_f1", "dir F1"),
    ("directed_mce", "dir MCE"),
    ("undirected_precision", "undir P"),
    ("undirected_recall", "undir R"),
    ("undirected_f1", "undir F1"),
    ("undirected_mce", "undir MCE"),
    ("none_mce", "no-edge MCE"),
    ("overall_mce", "overall MCE"),
)

#: Companion table: ECE and Brier beside the MCEs.
CALIBRATION_COLUMNS: tuple[tuple[str, str], ...] = (
    ("directed_ece", "dir ECE"),
    ("undirected_ece", "undir ECE"),
    ("none_ece", "no-edge ECE"),
    ("overall_ece", "overall ECE"),
    ("directed_brier", "dir Brier"),
    ("undirected_brier", "undir Brier"),
    ("none_brier", "no-edge Brier"),
    ("overall_brier", "overall Brier"),
    ("accuracy", "accuracy"),
)

#: Every measure summarised per cell.
MEASURES: tuple[str, ...] = tuple(
    f"{t}_{m}"
    for t in ("directed", "undirected", "none")
    for m in ("precision", "recall", "f1", "mce", "ece", "brier")
) + ("overall_mce", "overall_ece", "overall_brier", "accuracy")


#: Causal relations (docs/design.md §9.9), laid out like Table 33: "causes" (either
#: direction, Table 32) and "neither", the three-class MCE and ECE, and the AUROC of
#: P(X causes Y) over the ordered pairs.
CAUSAL_COLUMNS: tuple[tuple[str, str], ...] = (
    ("causes_precision", "causes P"),
    ("causes_recall", "causes R"),
    ("causes_f1", "causes F1"),
    ("causes_mce", "causes MCE"),
    ("neither_precision", "neither P"),
    ("neither_recall", "neither R"),
    ("neither_f1", "neither F1"),
    ("neither_mce", "neither MCE"),
    ("overall_mce", "overall MCE"),
    ("overall_ece", "overall ECE"),
    ("causes_auroc", "AUROC"),
)

#: Companion table of the causal study: ECE and Brier beside the MCEs.
CAUSAL_CALIBRATION_COLUMNS: tuple[tuple[str, str], ...] = (
    ("causes_ece", "causes ECE"),
    ("neither_ece", "neither ECE"),
    ("overall_ece", "overall ECE"),
    ("causes_brier", "causes Brier"),
    ("neither_brier", "neither Brier"),
    ("overall_brier", "overall Brier"),
    ("accuracy", "accuracy"),
)

#: Every causal measure summarised per cell.
CAUSAL_MEASURES: tuple[str, ...] = tuple(
    f"{t}_{m}"
    for t in ("causes", "neither")
    for m in ("precision", "recall", "f1", "mce", "ece", "brier")
) + ("causes_auroc", "overall_mce", "overall_ece", "overall_brier", "accuracy")


def higher_is_better(measure: str) -> bool:
    """True for precision/recall/F1/AUROC/accuracy, False for calibration errors and
    Brier."""
    return measure.endswith(("precision", "recall", "f1", "auroc", "accuracy"))


def paired_wilcoxon(
    before: Sequence[float],
    after: Sequence[float],
    alpha: float = 0.05,
    higher_is_better: bool = True,
) -> dict:
    """Two-sided Wilcoxon signed-rank test of paired runs (``scipy.stats.wilcoxon``).

    Returns ``statistic``, ``pvalue``, ``significant`` (p < ``alpha``) and ``winner``:
    ``"after"`` or ``"before"`` (the better mean, by ``higher_is_better``) when
    significant, else ``None``. Zero differences are dropped (scipy's default
    ``zero_method="wilcox"``); when every difference is zero (or there are no pairs) there
    is no evidence of a difference: p = 1.
    """
    from scipy.stats import wilcoxon

    before = np.asarray(before, dtype=np.float64)
    after = np.asarray(after, dtype=np.float64)
    if before.shape != after.shape or before.ndim != 1:
        raise InputError(f"paired samples must be 1-d of equal length, got "
                         f"{before.shape} and {after.shape}")
    diff = after - before
    if len(diff) == 0 or not np.any(diff != 0) or np.any(~np.isfinite(diff)):
        return {"statistic": float("nan"), "pvalue": 1.0, "significant": False, "winner": None}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = wilcoxon(after, before, alternative="two-sided")
    pvalue = float(res.pvalue)
    significant = bool(pvalue < alpha)
    winner = None
    if significant:
        after_better = after.mean() > before.mean()
        winner = "after" if after_better == higher_is_better else "before"
    return {"statistic": float(res.statistic), "pvalue": pvalue,
            "significant": significant, "winner": winner}


def summarize_runs(runs: Iterable[dict], alpha: float = 0.05,
                   measures: Sequence[str] = MEASURES) -> list[dict]:
    """Per-cell (V, E, N) means before/after and the Wilcoxon test of every measure
    (:data:`MEASURES`, or :data:`CAUSAL_MEASURES` for a causal study).

    ``runs`` are flat records with keys ``V, E, N, repeat`` and ``before_<measure>``,
    ``after_<measure>``; records whose ``status`` is not ``"ok"`` are counted but not used.
    Returns one dict per cell with ``n_runs``, ``n_skipped`` and, per measure,
    ``<measure>_before``, ``<measure>_after``, ``<measure>_pvalue``, ``<measure>_winner``.
    """
    cells: dict[tuple, list[dict]] = {}
    skipped: dict[tuple, int] = {}
    for run in runs:
        key = (int(run["V"]), int(run["E"]), int(run["N"]))
        cells.setdefault(key, [])
        if run.get("status", "ok") != "ok":
            skipped[key] = skipped.get(key, 0) + 1
            continue
        cells[key].append(run)
    out = []
    for (v, e, n), members in sorted(cells.items()):
        members = sorted(members, key=lambda r: int(r["repeat"]))
        row: dict = {"V": v, "E": e, "N": n, "n_runs": len(members),
                     "n_skipped": skipped.get((v, e, n), 0)}
        for measure in measures:
            b = [float(r[f"before_{measure}"]) for r in members if f"before_{measure}" in r]
            a = [float(r[f"after_{measure}"]) for r in members if f"after_{measure}" in r]
            if not b or len(a) != len(b):
                continue
            test = paired_wilcoxon(b, a, alpha, higher_is_better(measure))
            row[f"{measure}_before"] = float(np.mean(b))
            row[f"{measure}_after"] = float(np.mean(a))
            row[f"{measure}_pvalue"] = test["pvalue"]
            row[f"{measure}_winner"] = test["winner"]
        out.append(row)
    return out


def _fmt(value: float, bold: bool, digits: int) -> str:
    text = f"{value:.{digits}f}"
    return f"**{text}**" if bold else text


def _e_label(e: int) -> str:
    return f"{e // 1000}K" if e >= 1000 and e % 1000 == 0 else str(e)


def markdown_table(
    summary: Sequence[dict],
    columns: Sequence[tuple[str, str]] = TABLE33_COLUMNS,
    digits: int = 2,
) -> str:
    """Markdown tables laid out like thesis Table 33, one per V.

    Rows N × E × (before, after); a value is bold when the Wilcoxon test over the paired
    runs is significant and that method is the better one. The last column gives the
    number of paired runs behind each cell.
    """
    blocks = []
    for v in sorted({row["V"] for row in summary}):
        rows = sorted((r for r in summary if r["V"] == v), key=lambda r: (r["N"], r["E"]))
        header = ["N", "E", "method", *(h for _, h in columns), "runs"]
        lines = [f"**V = {v}**", "", "| " + " | ".join(header) + " |",
                 "|" + "|".join(["---"] * 3 + ["---:"] * (len(columns) + 1)) + "|"]
        for row in rows:
            for method in ("before", "after"):
                cells = [str(row["N"]), _e_label(row["E"]), method]
                for key, _ in columns:
                    if f"{key}_{method}" not in row:
                        cells.append("–")
                        continue
                    bold = row.get(f"{key}_winner") == method
                    cells.append(_fmt(row[f"{key}_{method}"], bold, digits))
                cells.append(str(row["n_runs"]))
                lines.append("| " + " | ".join(cells) + " |")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks) + "\n"
