"""Edge-type and causal measures, reports and simulation studies (thesis §6.2.4–6.2.5).

* :func:`edge_type_metrics` — precision/recall/F1 (directed by thesis Table 32), MCE with
  100-instance bins per edge type, overall MCE, ECE and Brier.
* :func:`causal_metrics` — the same for the three causal classes (neither, A causes B,
  B causes A; docs/design.md §9.9), with the AUROC of P(X causes Y).
* :func:`summarize_runs`, :func:`paired_wilcoxon`, :func:`markdown_table` — the study's
  tables (:mod:`.report`; the thesis's own in :mod:`.thesis_comparison`).
* :func:`run_study` / :func:`preset` — the cached, resumable study behind Tables 33–34
  (:mod:`.study` runs the loop over :mod:`.study_config`, :mod:`.study_cache`,
  :mod:`.study_run`, :mod:`.study_output` and :mod:`.study_files`).

The study's calibration sets are drawn by :mod:`causalcal.edgecal`, its figures by
:mod:`causalcal.figures`.
"""

from .causal_metrics import causal_metrics
from .edge_metrics import (
    binned_calibration_error,
    confusion_matrix,
    edge_type_metrics,
    precision_recall_f1,
    reliability_bins,
)
from .report import markdown_table, paired_wilcoxon, summarize_runs
from .study import (
    PRESETS,
    RELATIONS,
    SELECTIONS,
    StudyConfig,
    StudyResult,
    evaluate_run,
    preset,
    run_study,
)

__all__ = [
    "PRESETS",
    "RELATIONS",
    "SELECTIONS",
    "StudyConfig",
    "StudyResult",
    "binned_calibration_error",
    "causal_metrics",
    "confusion_matrix",
    "edge_type_metrics",
    "evaluate_run",
    "markdown_table",
    "paired_wilcoxon",
    "precision_recall_f1",
    "preset",
    "reliability_bins",
    "run_study",
    "summarize_runs",
]
