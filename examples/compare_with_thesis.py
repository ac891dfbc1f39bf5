"""Our Table 33/34 studies beside the thesis's numbers, with the acceptance checks.

    python examples/compare_with_thesis.py docs/results/table33 --table 33
    python examples/compare_with_thesis.py docs/results/table34 --table 34

Reads the per-run records under ``STUDY/results/<calibrator>/runs/`` of the default
selection-aware SNN, the thesis's plain SNN and Dirichlet (``--calibrators`` to choose),
prints one Markdown table with, per (N, E), our bootstrap
("before") row, each calibrator's "after" row and the thesis's before/after rows, then
the per-cell checks of the default calibrator: after overall MCE below before and at most
the thesis's, after overall ECE, the F1 changes and directed recall against the thesis.
"""

from __future__ import annotations

import argparse
from pathlib import Path

import pandas as pd

from causalcal.evaluate.thesis_comparison import acceptance_checks, comparison_table, load_runs

LABELS = {"snn": "selection-aware SNN", "snn-thesis_random-sample": "plain SNN (thesis)"}
DEFAULT = ("snn", "snn-thesis_random-sample", "dirichlet")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("study", type=Path, help="the study's --out directory")
    parser.add_argument("--table", type=int, choices=(33, 34), default=33)
    parser.add_argument("--calibrators", nargs="+", default=list(DEFAULT),
                        help="result folders to show, the first gives 'before' "
                             f"(default: {' '.join(DEFAULT)}, those present)")
    args = parser.parse_args()
    folders = [args.study / "results" / c for c in args.calibrators
               if (args.study / "results" / c / "runs").is_dir()]
    if not folders:
        raise SystemExit(f"{args.study}: none of {', '.join(args.calibrators)} has runs")
    studies = {LABELS.get(f.name, f.name): load_runs(f) for f in folders}
    print(comparison_table(studies, args.table))
    checks = pd.DataFrame(acceptance_checks(next(iter(studies.values())), args.table))
    print(checks.to_string(index=False, float_format=lambda x: f"{x:.3f}"))


if __name__ == "__main__":
    main()
