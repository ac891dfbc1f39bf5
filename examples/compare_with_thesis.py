"""Our Table 33/34 studies beside the thesis's numbers, with the acceptance checks.

    python examples/compare_with_thesis.py results/table33 --table 33
    python examples/compare_with_thesis.py results/table34 --table 34

Reads the per-run records of the default selection-aware SNN, the thesis's plain SNN and
Dirichlet (``--calibrators`` to choose): ``STUDY/<calibrator>.jsonl`` (the committed
records under ``results/``, one run a line) or, in a study's ``--out`` folder,
``STUDY/results/<calibrator>/runs/``. Prints one Markdown table with, per (N, E), our
bootstrap ("before") row, each calibrator's "after" row and the thesis's before/after rows, then
the per-cell checks of the default calibrator: after overall MCE below before and at most
the thesis's, after overall ECE, the F1 changes and directed recall against the thesis.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pandas as pd

from causalcal.evaluate.thesis_comparison import acceptance_checks, comparison_table, load_runs

LABELS = {"snn": "selection-aware SNN", "snn-thesis_random-sample": "plain SNN (thesis)"}
DEFAULT = ("snn", "snn-thesis_random-sample", "dirichlet")


def runs_of(study: Path, calibrator: str) -> list[dict] | None:
    """The calibrator's run records: committed (``STUDY/<calibrator>.jsonl``) or in a
    study folder (``STUDY/results/<calibrator>/runs/``); None if there are none."""
    packed = study / f"{calibrator}.jsonl"
    if packed.is_file():
        return [json.loads(line) for line in packed.read_text().splitlines() if line.strip()]
    if (study / "results" / calibrator / "runs").is_dir():
        return load_runs(study / "results" / calibrator)
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", type=Path,
                        help="the study's --out directory, or its records (results/table33)")
    parser.add_argument("--table", type=int, choices=(33, 34), default=33)
    parser.add_argument("--calibrators", nargs="+", default=list(DEFAULT),
                        help="result folders to show, the first gives 'before' "
                             f"(default: {' '.join(DEFAULT)}, those present)")
    args = parser.parse_args()
    found = {c: runs_of(args.study, c) for c in args.calibrators}
    studies = {LABELS.get(c, c): runs for c, runs in found.items() if runs is not None}
    if not studies:
        raise SystemExit(f"{args.study}: none of {', '.join(args.calibrators)} has runs")
    print(comparison_table(studies, args.table))
    checks = pd.DataFrame(acceptance_checks(next(iter(studies.values())), args.table))
    print(checks.to_string(index=False, float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main()
