"""Does conditioning on features of the learned graphs improve the calibration? (issue 19)

    python -m experiments.pair_features --out STUDY [--edges 1000 2000] [--repeats 5]
        [--n-boot 50] [--sizes 40 120] [--jobs 2] [--no-ablation]

Runs (or resumes) the Table 33 study protocol in ``STUDY`` with the default selection-aware
SNN three ways on the same cached bootstraps and calibration sets: without features, with
every feature group (thesis §6.2.6), and, for the ablation, with every group but one. It
prints, per (E, N), the mean after-calibration overall MCE, directed F1 and undirected F1
of each variant, and the two-sided Wilcoxon signed-rank p-value of each variant against
"no features" over the paired repeats (the bootstrap "before" is shared). Features are
computed from the bootstrap checkpoints; no search is rerun for them.
"""

from __future__ import annotations

import argparse

import numpy as np

from causalcal.edgecal import FEATURE_GROUPS
from causalcal.evaluate import preset, run_study
from causalcal.evaluate.report import higher_is_better, paired_wilcoxon

MEASURES = ("overall_mce", "directed_f1", "undirected_f1")


def _variants(ablation: bool) -> dict[str, tuple[str, ...]]:
    groups = tuple(FEATURE_GROUPS)
    out = {"no features": (), "all features": groups}
    if ablation:
        out.update({f"without {g}": tuple(x for x in groups if x != g) for g in groups})
    return out


def _by_cell(records: list[dict]) -> dict[tuple[int, int], dict[int, dict]]:
    cells: dict[tuple[int, int], dict[int, dict]] = {}
    for rec in records:
        if rec.get("status") == "ok":
            cells.setdefault((rec["E"], rec["N"]), {})[rec["repeat"]] = rec
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--edges", type=int, nargs="+", default=[1000, 2000])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--n-boot", type=int, default=50)
    parser.add_argument("--sizes", type=int, nargs="+", default=[40, 120])
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--no-ablation", action="store_true")
    args = parser.parse_args()
    results = {}
    for label, groups in _variants(not args.no_ablation).items():
        config = preset("table33", grid=((1000, tuple(args.edges)),), sizes=tuple(args.sizes),
                        repeats=args.repeats, n_boot=args.n_boot, n_jobs=args.jobs,
                        features=groups, plots=False)
        results[label] = _by_cell(run_study(config, args.out, progress=False).runs)
    base = results["no features"]
    print(f"{'E':>5} {'N':>4} {'variant':28s} " + " ".join(f"{m:>15s} {'p':>6s}"
                                                          for m in MEASURES) + "  runs")
    for cell in sorted(base):
        e, n = cell
        before = [base[cell][r][f"before_{MEASURES[0]}"] for r in sorted(base[cell])]
        print(f"{e:5d} {n:4d} {'bootstrap (before)':28s} {np.mean(before):15.3f}")
        for label, cells in results.items():
            reps = sorted(set(cells.get(cell, {})) & set(base[cell]))
            line = f"{e:5d} {n:4d} {label:28s}"
            for m in MEASURES:
                a = [cells[cell][r][f"after_{m}"] for r in reps]
                b = [base[cell][r][f"after_{m}"] for r in reps]
                p = paired_wilcoxon(b, a, higher_is_better=higher_is_better(m))["pvalue"]
                line += f" {np.mean(a):15.3f} {p:6.3f}"
            print(line + f"  {len(reps)}")


if __name__ == "__main__":
    main()
