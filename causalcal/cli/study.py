"""Run (or resume) the simulation study of thesis §6.2.4–6.2.5 (Tables 33 and 34).

For every grid cell (V nodes, E edges, calibration set size N) and repeat: simulate a
random network and n samples, bootstrap FGES n_boot times, draw a stratified calibration
set of N pairs, fit the calibrator, and compare the bootstrap ("before") and calibrated
("after") probabilities of all other pairs: directed/undirected precision, recall, F1 and
MCE (100-instance bins), no-edge and overall MCE, ECE and Brier; two-sided Wilcoxon
signed-rank tests at 5 % over the paired repeats.

examples:
  causalcal study --preset quick --out study-quick              # < 1 min smoke run
  causalcal study --preset table33 --jobs 2 --out study33       # thesis Table 33 (hours)
  causalcal study --preset table33 --calibrator ovr-isotonic --out study33
                                  # same networks and bootstraps, another calibrator
  causalcal study --preset table33 --repeats 3 --edges 1000 --sizes 40 80 --out s33
  causalcal study --preset quick --features --out study-quick
                                  # the calibrator also sees features of the learned graphs
  causalcal study --preset table33 --relations causal --out study33
                                  # causal relations from the same cached bootstraps

causal relations (--relations causal; docs/design.md §9.9): instead of the four CPDAG edge
types, every pair (A, B) gets three classes:
  neither      neither variable is an ancestor of the other in the true DAG
  A causes B   A is an ancestor of B in the true DAG (directly or through others)
  B causes A   B is an ancestor of A
The truth is the true DAG's ancestry, not its CPDAG's. The raw probabilities count, over
the bootstrap's CPDAGs, a definite ancestor as 1 and a possible-only one as 1/2; they come
from the cached checkpoint (no search is rerun). N/3 calibration pairs per class. Measures:
"causes" precision/recall/F1 (thesis Table 32: a wrong direction is a false positive),
"neither" one-vs-rest, MCE/ECE per class and overall, and the AUROC of P(X causes Y) over
every ordered pair. Results go to results/<calibrator>_causal/.

presets:
  table33  V=1000, E=1000,2000,3000, N=40,80,120, 10 repeats, n=1000, n_boot=200
  table34  V=5000, E=5000,10000,15000, N=40,80,120, 10 repeats, n=1000, n_boot=200
  quick    V=100, E=100, N=20,40, 3 repeats, n=1000, n_boot=10

files written under --out:
  cache/V{V}_E{E}_r{r}/   network.json, data.npz, truth.npz, probs.npz, bootstrap/ (checkpoint)
                          shared by every N and every calibrator; ancestral.npz and
                          causal_truth.npz once a causal study used it
  results/<calibrator>/   table.md (Table 33 layout), summary.csv/json, runs.csv/json,
                          runs/*.json (one per finished run), plots/reliability_*.png
  timing.jsonl            one line per invocation that computed runs or bootstraps (seconds,
                          counts)
Re-running the same command resumes: finished runs and bootstraps are not recomputed, and
a rerun of a finished study writes the same bytes (config.json holds no timings).
"""

from __future__ import annotations

import argparse

from causalcal.cli import (
    CLIError,
    add_calibrator_arguments,
    add_features_argument,
    add_selection_argument,
    check_calibrator,
    check_output_dir,
    feature_groups,
    parse_params,
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", required=True, choices=("table33", "table34", "quick"),
                        help="the study grid (see above)")
    parser.add_argument("--out", required=True, help="output directory (created; resumable)")
    parser.add_argument("--repeats", type=int, help="repeats R per cell (preset: 10)")
    parser.add_argument("--n-boot", type=int, help="bootstrap replicates (preset: 200)")
    parser.add_argument("--samples", type=int, help="samples n per data set (preset: 1000)")
    add_calibrator_arguments(parser)
    add_selection_argument(parser)
    add_features_argument(parser, "the cached bootstrap (results go to "
                                  "results/<calibrator>_features[-<groups>]/)")
    parser.add_argument("--relations", choices=("edges", "causal"), default="edges",
                        help="what is calibrated: 'edges', the four CPDAG edge types "
                             "(default, thesis Table 33), or 'causal', the three classes "
                             "neither / A causes B / B causes A, true when A is an ancestor "
                             "of B in the true DAG (see above)")
    parser.add_argument("--nodes", type=int, help="override V of the preset")
    parser.add_argument("--edges", type=int, nargs="+", help="override the preset's E values")
    parser.add_argument("--sizes", type=int, nargs="+",
                        help="override the calibration set sizes N (multiples of 4; "
                             "causal: at least 3)")
    parser.add_argument("--jobs", type=int, default=1, help="parallel bootstrap workers")
    parser.add_argument("--seed", type=int, default=0, help="study seed (default 0)")
    parser.add_argument("--no-plots", action="store_true", help="skip reliability diagrams")
    parser.add_argument("--quiet", action="store_true", help="no progress bars")


def check_study_folder(out: str, force: bool) -> None:
    """A study writes into its own folder: one holding other files but no study.json (or
    a study.json that is not a study's settings) is refused unless --force."""
    import json
    from pathlib import Path

    folder = Path(out)
    marker = folder / "study.json"
    if not folder.is_dir():
        return
    if marker.is_file():
        try:
            doc = json.loads(marker.read_text(encoding="utf-8"))
        except (ValueError, UnicodeDecodeError, RecursionError):
            doc = None
        if isinstance(doc, dict) and {"seed", "n_boot", "search"} <= set(doc):
            return
        what = "a study.json that holds no study's settings"
    elif any(folder.iterdir()):
        others = ", ".join(sorted(p.name for p in folder.iterdir())[:3])
        what = f"other files ({others}) and no study.json"
    else:
        return
    if not force:
        raise CLIError(f"--out {out}: the folder holds {what}; not a study's folder: choose "
                       "a new or empty folder, or pass --force to write the study into it")


def run(args: argparse.Namespace) -> int:
    from causalcal.evaluate import PRESETS, preset, run_study

    check_output_dir(args.out, "--out")
    check_study_folder(args.out, args.force)
    if args.seed < 0:
        raise CLIError(f"--seed must be non-negative, got {args.seed}")
    base = PRESETS[args.preset]
    grid = base["grid"]
    if args.nodes is not None or args.edges is not None:
        v = args.nodes if args.nodes is not None else grid[0][0]
        edges = tuple(args.edges) if args.edges is not None else grid[0][1]
        grid = ((v, edges),)
    config = preset(
        args.preset, grid=grid, sizes=tuple(args.sizes) if args.sizes else None,
        repeats=args.repeats, n_boot=args.n_boot, n_samples=args.samples,
        calibrator=args.calibrator, calibrator_params=parse_params(args.param),
        selection=args.selection, n_jobs=args.jobs, seed=args.seed, plots=not args.no_plots,
        features=feature_groups(args.features), relations=args.relations,
    )
    check_calibrator(config.calibrator, config.calibrator_params)
    result = run_study(config, args.out, progress=not args.quiet)
    print(result.table)
    n_ok = sum(r.get("status") == "ok" for r in result.runs)
    skipped = len(result.runs) - n_ok
    print(f"{n_ok} runs" + (f" ({skipped} skipped: a class had too few pairs)" if skipped
                            else "") + f"; this invocation: {result.seconds:.1f} s, "
          f"{result.counts['runs_new']} runs and {result.counts['bootstraps_new']} bootstraps "
          f"computed, {result.counts['runs_resumed']} runs resumed from {args.out} "
          "(timing.jsonl sums all invocations)")
    print(f"results: {result.results_dir}")
    for key in ("table", "summary_csv", "runs_csv"):
        print(f"  {key}: {result.files[key]}")
    plots = [p for k, p in result.files.items() if k.startswith("plot_")]
    if plots:
        print(f"  reliability diagrams: {len(plots)} in {plots[0].parent}")
    return 0
