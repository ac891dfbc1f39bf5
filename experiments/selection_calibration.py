"""Selection-aware calibration on the reduced Table 33 protocol (issue 13).

    python -m experiments.selection_calibration [--out DIR] [--jobs 2]

Runs ``causalcal study --preset table33 --repeats 2 --n-boot 50 --edges 1000 2000
--sizes 40 120`` once per calibrator on the same cached networks, bootstraps and
calibration sets, and prints the mean overall MCE / ECE and directed / undirected F1 of
every cell: the raw bootstrap frequencies ("before"), the thesis's SNN fitted as if the
calibration set were a random sample (``snn-thesis``, selection none), and the
selection-aware SNN (the default), temperature scaling and Dirichlet calibration
(logit offsets of the design). The thesis's after-calibration overall MCE is printed
beside them. ``--out`` keeps the study (rerunning resumes it).
"""

from __future__ import annotations

import argparse
import tempfile
import time

import numpy as np

from causalcal.evaluate import preset, run_study

#: thesis Table 33, overall MCE after SNN calibration, by (E, N)
THESIS_AFTER = {(1000, 40): 0.23, (1000, 120): 0.12, (2000, 40): 0.23, (2000, 120): 0.15}
CALIBRATORS = (("snn-thesis", "none"), ("snn", "design"), ("temperature", "design"),
               ("dirichlet", "design"))
MEASURES = ("overall_mce", "overall_ece", "directed_f1", "undirected_f1")


def _cells(runs: list[dict], prefix: str) -> dict:
    cells: dict[tuple, dict[str, list]] = {}
    for r in runs:
        if r.get("status") != "ok":
            continue
        cell = cells.setdefault((r["E"], r["N"]), {m: [] for m in MEASURES})
        for m in MEASURES:
            cell[m].append(r[f"{prefix}_{m}"])
    return {key: {m: float(np.mean(v)) for m, v in cell.items()} for key, cell in cells.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="study folder (default: a temporary one)")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    out = args.out or tempfile.mkdtemp(prefix="selection-bench-")
    rows = {}
    for name, selection in CALIBRATORS:
        config = preset("table33", grid=((1000, (1000, 2000)),), sizes=(40, 120), repeats=2,
                        n_boot=50, calibrator=name, selection=selection, n_jobs=args.jobs,
                        plots=False)
        start = time.perf_counter()
        result = run_study(config, out, progress=False)
        seconds = time.perf_counter() - start
        rows.setdefault("raw bootstrap", _cells(result.runs, "before"))
        rows[f"{name} ({selection})"] = _cells(result.runs, "after")
        print(f"{name:12s} selection={selection:6s} {seconds:7.1f} s", flush=True)
    print(f"\nstudy in {out}; mean over 2 repeats; thesis = Table 33's after value\n")
    header = f"{'E':>5} {'N':>4}  {'method':28s}" + "".join(f"{m:>15s}" for m in MEASURES)
    print(header + f"{'thesis MCE':>12s}")
    for key in sorted(THESIS_AFTER):
        for label, cells in rows.items():
            values = cells[key]
            print(f"{key[0]:>5} {key[1]:>4}  {label:28s}"
                  + "".join(f"{values[m]:15.4f}" for m in MEASURES)
                  + f"{THESIS_AFTER[key]:12.2f}")
        print()


if __name__ == "__main__":
    main()
